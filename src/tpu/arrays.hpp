// Array-level form of the five compare-selects (spec 60 §4 tilesim.tpu.greater_select, ...):
// dense NCHW host data placed at start NPU 0 of a fresh device (spec 50 §5), the call, and the
// results copied out. Used by the Python front end and the CLI report.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tilesim/tpu.hpp"

namespace tilesim::tpu {

struct HostOperand {
  var_type_t kind;
  const void* data;  // TENSOR: N*C*H*W elements (dense NCHW); VECTOR: `count` elements
  size_t count;
  uint32_t bits;  // SCALAR: the value's code
};

// Output buffers are requested only after every check passed: alloc(0) is dst (select) or dst0
// (extremum), alloc(1) dst1 (extremum only); each holds N*C*H*W dense elements.
using OutputAlloc = void* (*)(void* ctx, int which);
void select_arrays(std::string_view chip, SelectOp op, const HostOperand src[4], const dim4& shape,
                   data_type_t dtype_a, data_type_t dtype_b, OutputAlloc alloc, void* ctx);

// Maps a spec 60 §2 dtype name or alias, or a vendor name ("DT_FP32"), to data_type_t;
// raises Error(Unsupported) for names with no data_type_t.
data_type_t parse_data_type(std::string_view name);
// Size in bytes of a dtype's elements (0 for 4-bit and 20-bit types).
int data_type_bytes(data_type_t dt);
// The code of `value` in dtype `dt`, exactly (Error(Constraint) naming `operand`, and `index`
// when >= 0, when not representable). A float NaN gives the canonical NaN with its sign.
uint32_t scalar_code(double value, data_type_t dt, std::string_view what,
                     std::string_view operand = "scalar", int64_t index = -1);

}  // namespace tilesim::tpu
