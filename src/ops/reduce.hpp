// Reduction nodes of the element-op core (spec 15 §3). A sum's order is part of its definition
// (each node rounds to T), so the core offers the fixed trees and the models compose them into
// their hardware's instruction sequence (PTO: docs/pto.md#reduction-order).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ops/op_table.hpp"

namespace tilesim::ops {

// Adjacent-pairs tree over n codes of t (spec 15 §3, spec 40's in-block order): level by level,
// node k = x[2k] OP x[2k+1]; an odd last element moves up a level unchanged. op is add, max or
// min (max/min with the §1 NaN/±0 rule at every node). Returns the root; n >= 1.
uint64_t tree_reduce(Op op, DType t, const void* x, size_t n);

// Max or min of n codes (order-independent with the §1 rule at every node), n >= 1.
uint64_t fold_reduce(Op op, DType t, const void* x, size_t n);

// Index of the largest (op = max) or smallest (op = min) of n codes, the smallest index on ties
// (spec 15 §3); a NaN wins (the first NaN's index), as NumPy's argmax/argmin; -0 and +0 tie.
size_t arg_reduce(Op op, DType t, const void* x, size_t n);

}  // namespace tilesim::ops
