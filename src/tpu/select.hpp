// The five compare-select functions (spec 50 §3). Their checks and operand walk are the BDC
// walker's (src/tpu/bdc.cpp, the Select / Extremum forms); this header holds what the walker
// hands on: a plain description of one checked call (SelectPlan) for the scalar reference (the
// definition), and the SIMD kernel the fast path runs on each (n, c) plane.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilesim/tpu.hpp"
#include "tpu/dtype.hpp"
#include "tpu/layout.hpp"

namespace tilesim::tpu {

// Checks every rule of spec 50 §4 on the BDC walker (raises tilesim::Error, nothing written),
// then runs the call: the scalar reference when dev.reference(), else the SIMD plane kernel.
void run_select(Device& dev, SelectOp op, local_addr_t dst0, local_addr_t dst1,
                const variable_t* const src[4], const dim4* shape, int dtype_a, int dtype_b);

struct PlanSource {
  var_type_t kind;
  uint32_t r;     // TENSOR / VECTOR: in-NPU byte offset
  uint32_t bits;  // SCALAR: the value, already masked to the operand's width
};

// One checked call, as the reference reads it.
struct SelectPlan {
  SelectOp op;
  int64_t N, C, H, W;
  int64_t q;  // start NPU of every operand
  int npu_num;
  size_t npu_stride;  // host bytes from NPU k to NPU k + 1 (docs/tpu.md#host-layout)
  const DTypeInfo* cmp;  // src0/src1 dtype (and dst0 for the extremum functions)
  const DTypeInfo* val;  // src2/src3/dst (dst1) dtype
  bool extremum;         // maximum_greater / minimum_less: two destinations
  uint32_t dst_r[2];     // [0] dst or dst0 (cmp width for the extremum), [1] dst1 (val width)
  PlanSource src[4];
  Strides cmp_s, val_s;  // aligned-layout strides for the two element widths
};

// Scalar reference: reads every operand element, then writes (spec 50 §3 "reads before writes").
void select_reference(uint8_t* mem, const SelectPlan& p);

namespace simd {

// One operand stream of a plane: a pointer to n elements, or a constant (SCALAR, or a VECTOR's
// element for the plane's channel).
struct Stream {
  const uint8_t* p;
  uint32_t bits;
};

struct PlaneArgs {
  Stream x, y;       // compare x > y (or x == y); Less / MinimumLess swap src0 and src1
  Stream t, f;       // src2 / src3 (value width)
  uint8_t* d_val;    // dst (select) or dst1 (extremum)
  uint8_t* d_ext;    // dst0 of the extremum functions, else nullptr
  bool ext_swapped;  // dst0 = g ? src0 : src1 with src0 == y when swapped
  bool eq;           // == instead of >
  uint8_t kind;      // CmpKind
  uint32_t mag, nan_above;
  size_t n;
};

}  // namespace simd

// Highway SIMD over n contiguous elements of every stream: bit-identical to the reference.
// cmp_bytes <= val_bytes (equal for the extremum functions), each 1, 2 or 4.
void select_plane(const simd::PlaneArgs& a, int cmp_bytes, int val_bytes);

}  // namespace tilesim::tpu
