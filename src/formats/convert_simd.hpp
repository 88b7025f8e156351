// SIMD fast paths of the bulk conversions (Highway, dynamic dispatch). Private to the library
// and the tests: each is bit-identical to the generic core (minifloat.cpp) for every input and
// is tested against it on every compiled target (tests/formats/simd_test.cpp). Single-threaded;
// convert.cpp splits big arrays across threads.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tilesim::formats::simd {

// fp32 -> fp16 / bf16 codes, RNE, non-saturating, NaN -> canonical 0x7E00 / 0x7FC0 (spec 10 §4).
void f32_to_f16(const float* in, uint16_t* out, size_t n);
void f32_to_bf16(const float* in, uint16_t* out, size_t n);
// fp16 / bf16 codes -> fp32, exact; NaN codes -> canonical 0x7FC00000 (as decode_f32).
void f16_to_f32(const uint16_t* in, float* out, size_t n);
void bf16_to_f32(const uint16_t* in, float* out, size_t n);
// 8-bit codes -> fp32 through a 256-entry table (the core's decode_f32 of every code).
void lut8_to_f32(const uint8_t* in, const float* lut, float* out, size_t n);
// fp32 -> a minifloat of <= 11 mantissa bits and bias <= 127 (fp16, bf16, fp8, fp6, fp4, tf32,
// hf32), every rounding mode, with integer lane operations. The special codes come from the
// generic core (convert.cpp fills them with encode()), so the kernel only rounds finite values.
struct MiniParams {
  int32_t man_bits, bias, man_shift;
  int32_t mode;               // Rounding as an int
  int32_t max_mag;            // largest finite code, sign bit clear
  uint32_t sign_bit;          // code's sign bit
  uint32_t ovf_pos, ovf_neg;  // finite overflow results in this mode (with saturate applied)
  uint32_t inf_pos, inf_neg;  // results for +-Inf inputs
  uint32_t nan;               // result for NaN inputs
  int32_t out_bytes;          // 1, 2 or 4 bytes per output code
};
void f32_to_mini(const float* in, const MiniParams& p, void* out, size_t n);
// 8-bit minifloat codes (sign, exponent, M >= 1 mantissa bits, subnormals) -> fp32 by bit
// arithmetic; specials per the row. Exhaustively tested equal to the core on every target.
struct MiniDecodeParams {
  int32_t man_bits, bias;
  int32_t code_mask;  // meaningful code bits (0x3F for fp6)
  int32_t sign_bit;
  int32_t inf_mag;  // magnitude code of Inf, or -1
  int32_t nan_min;  // magnitudes >= this are NaN (0x7FFFFFFF when none)
};
void mini8_to_f32(const uint8_t* in, const MiniDecodeParams& p, float* out, size_t n);
// The Highway target (HWY_AVX2, ...) the dispatcher currently selects (tests check every one).
int64_t dispatched_target();

}  // namespace tilesim::formats::simd
