// The five compare-select functions (spec 50 §3) after validation: a plain description of one
// call (SelectPlan), its scalar reference (the definition) and the fast SIMD/threaded path.
#pragma once
#include <cstdint>

#include "tilesim/tpu.hpp"
#include "tpu/dtype.hpp"
#include "tpu/layout.hpp"

namespace tilesim::tpu {

struct PlanSource {
  var_type_t kind;
  uint32_t r;     // TENSOR / VECTOR: in-NPU byte offset
  uint32_t bits;  // SCALAR: the value, already masked to the operand's width
};

struct SelectPlan {
  SelectOp op;
  int64_t N, C, H, W;
  int64_t q;  // start NPU of every operand
  int npu_num;
  uint32_t lms;
  const DTypeInfo* cmp;  // src0/src1 dtype (and dst0 for the extremum functions)
  const DTypeInfo* val;  // src2/src3/dst (dst1) dtype
  NanRule cmp_nan;       // NaN test on cmp codes (fast path's integer key)
  bool extremum;         // maximum_greater / minimum_less: two destinations
  uint32_t dst_r[2];     // [0] dst or dst0 (cmp width for the extremum), [1] dst1 (val width)
  PlanSource src[4];
  Strides cmp_s, val_s;  // aligned-layout strides for the two element widths
  bool stage;            // a destination overlaps a source other than element-for-element
};

// Checks every rule of spec 50 §4 (raises tilesim::Error) and returns the plan. Writes nothing.
SelectPlan plan_select(const ChipProfile& chip, SelectOp op, local_addr_t dst0, local_addr_t dst1,
                       const variable_t* const src[4], const dim4* shape, int dtype_a, int dtype_b);

// Scalar reference: reads every operand element, then writes (spec 50 §3 "reads before writes").
void select_reference(uint8_t* mem, const SelectPlan& p);
// Highway SIMD over each channel's h*w plane, threads over planes; bit-identical to the reference.
void select_fast(uint8_t* mem, const SelectPlan& p);

}  // namespace tilesim::tpu
