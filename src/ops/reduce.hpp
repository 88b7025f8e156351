// Reduction nodes of the element-op core (spec 15 §3). A sum's order is part of its definition
// (each node rounds to T), so the core offers the fixed trees and the models compose them into
// their hardware's instruction sequence (PTO: docs/pto-instructions.md#reductions).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ops/elementwise.hpp"
#include "ops/op_table.hpp"

namespace tilesim::ops {

// Adjacent-pairs tree over n codes of t (spec 15 §3, spec 40's in-block order): level by level,
// node k = x[2k] OP x[2k+1]; an odd last element moves up a level unchanged. op is add, max or
// min (max/min with the §1 NaN/±0 rule at every node). Returns the root; n >= 1.
uint64_t tree_reduce(Op op, DType t, const void* x, size_t n);

// Max or min of n codes (order-independent with the §1 rule at every node), n >= 1; a lone NaN
// comes out canonical like any other NaN result.
uint64_t fold_reduce(Op op, DType t, const void* x, size_t n);

// Index of the largest (op = max) or smallest (op = min) of n codes, the smallest index on ties
// (spec 15 §3); a NaN wins (the first NaN's index), as NumPy's argmax/argmin; -0 and +0 tie.
size_t arg_reduce(Op op, DType t, const void* x, size_t n);

// ---- whole-tile forms: rows of n codes, row r at x + r * stride bytes; out holds codes of t.
// Path::Fast is SIMD (reduce_simd.cpp), Path::Reference the definitions above node by node; both
// give the same bits.

// Adjacent-pairs trees of w-code groups (w a power of two: one vcadd of w lanes): each row is cut
// into ng = ceil(n / w) groups, the last one padded with +0 lanes; the root of group j of row r
// is out[r * ng + j]. Floats. saturate: every node's result goes through Switches::saturate's
// rule (fp16/bf16 ±Inf -> ±max, NaN -> +0: spec 15 §3's "with the product's saturation rule").
void tree_sums(DType t, const void* x, size_t stride, size_t rows, size_t n, size_t w, void* out,
               Path path = Path::Fast, bool saturate = false);
// The same groups summed from +0, left to right: out[r] = ((+0 + root_0) + root_1) + ... (every
// node an add rounded to T, saturated as above). Floats.
void chained_tree_sums(DType t, const void* x, size_t stride, size_t rows, size_t n, size_t w,
                       void* out, Path path = Path::Fast, bool saturate = false);
// out[r] = fold_reduce(op, t, row r) for op max or min (any core dtype), or add of integers (they
// wrap, so every order gives these bits).
void fold_rows(Op op, DType t, const void* x, size_t stride, size_t rows, size_t n, void* out,
               Path path = Path::Fast);

// Column reductions of `rows` rows in a fixed order, lane by lane: out[j] = x_0[j], then
// Sequential: out[j] = out[j] OP x_i[j] for i = 1, 2, ...;
// FirstThenPairs: out[j] = out[j] OP (x_2k-1[j] OP x_2k[j]) for k = 1, 2, ..., and an even row
// count's last row alone. op add, max or min; rows >= 1 (one row is copied: its bits, NaN
// payloads included).
enum class ColumnOrder : uint8_t { Sequential, FirstThenPairs };
void column_reduce(Op op, DType t, const void* x, size_t stride, size_t rows, size_t n,
                   ColumnOrder order, void* out, Path path = Path::Fast);

// Internal: the SIMD kernels (reduce_simd.cpp); false when (op, t) has none on this target.
namespace reduce_simd {
bool tree_sums(DType t, const void* x, size_t stride, size_t rows, size_t n, size_t w, bool chain,
               bool sat, void* out);
bool column_sums(DType t, const void* x, size_t stride, size_t rows, size_t n, bool pairs,
                 void* out);
bool fold_rows(Op op, DType t, const void* x, size_t stride, size_t rows, size_t n, void* out);
// fp16 tree sums on native fp16 lanes (AVX512-FP16, reduce_f16_native.cpp): same arguments and
// bits as tree_sums above; false when the CPU lacks it, it is switched off, or w is not 32..512.
// set_f16_native(false) makes tree_sums take the Highway kernels (tests run both).
bool f16_native_supported() noexcept;
bool f16_native_on() noexcept;
void set_f16_native(bool on) noexcept;
bool f16_native_tree_sums(const void* x, size_t stride, size_t rows, size_t n, size_t w,
                          bool chain, bool sat, void* out);
}  // namespace reduce_simd

}  // namespace tilesim::ops
