// The one conversion routine of every model (spec 15 §2): any core dtype to any core dtype,
// a rounding mode of the formats core, and the two saturation controls. Models map their
// vendor's spellings (RoundMode::CAST_RINT, RM_HALF_UP, ...) onto these (docs/ops.md#conversions).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ops/elementwise.hpp"

namespace tilesim::ops {

struct CastMode {
  formats::Rounding rounding = formats::Rounding::rne;  // `none` is rne (exact where lossless)
  bool int_saturate = true;     // integer destinations: clamp (on) or keep the low w bits (off)
  bool float_saturate = false;  // float destinations: overflow to ±max instead of ±Inf
  // fp16/bf16 destinations: Switches::saturate's rule on the result (±Inf -> ±max, NaN -> +0;
  // Ascend C's CTRL saturation).
  bool narrow_saturate = false;
};

// One element: the code of `from` converted to a code of `to` (spec 15 §2 tables).
uint64_t cast_one(DType from, DType to, uint64_t code, const CastMode& m);
// n contiguous elements; bit-identical to cast_one for each (Path::Fast uses the formats core's
// SIMD bulk conversions where they apply).
void cast(DType from, DType to, const void* src, void* dst, size_t n, const CastMode& m,
          Path path = Path::Fast);

// A float code rounded to an integral value of the same format in `r` (IEEE 754 roundToIntegral):
// ±0, ±Inf and integral values are kept, a zero result keeps the input's sign (−0.25 → −0 in rne),
// NaN gives the canonical NaN. Spec 15 §2 has no row for float → same float; this is PTO TCVT
// fp32 → fp32 (pto-isa a2a3 `vconv_f322f32{r,a,f,c,z}`, a5 `vtrc`: round to integer, stay fp32).
// Integer dtypes are returned unchanged. The array form is the scalar loop (no SIMD form yet).
uint64_t to_integral_one(DType t, uint64_t code, formats::Rounding r);
void to_integral(DType t, const void* src, void* dst, size_t n, formats::Rounding r);

// The SIMD kernels of integer-source casts (cast_simd.cpp): integer -> fp32 (RNE), the widenings
// to s32 and s32's saturating narrowings. True when the pair has one and it ran; the arrays must
// not overlap.
namespace cast_simd {
bool int_cast(DType from, DType to, const void* src, void* dst, size_t n, bool saturate);
}  // namespace cast_simd

}  // namespace tilesim::ops
