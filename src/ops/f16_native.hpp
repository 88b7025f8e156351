// What the native fp16 kernels (AVX512-FP16: Sapphire Rapids and later) share:
// reduce_f16_native.cpp and elementwise_f16_native.cpp. Whether this compiler builds them, their
// target, the mask of a row's last vector, and the two rules on result codes (a NaN made
// canonical; saturation, Switches::saturate). Internal to src/ops.
#pragma once

#include <cstddef>
#include <cstdint>

// GCC 12 has the AVX512-FP16 intrinsics under a target attribute; clang 14's <immintrin.h> declares
// them only when the whole file is compiled for AVX512-FP16, so clang builds (the fuzz preset)
// take the Highway kernels.
#if defined(__x86_64__) && !defined(__clang__) && __GNUC__ >= 12
#define TILESIM_F16_NATIVE 1
#include <immintrin.h>
#else
#define TILESIM_F16_NATIVE 0
#endif

#if TILESIM_F16_NATIVE
// The features reduce_simd::f16_native_supported() detects at run time.
#define TILESIM_FP16_FN \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi,avx512fp16")))
#define TILESIM_FP16_INLINE TILESIM_FP16_FN __attribute__((always_inline)) inline

namespace tilesim::ops::f16_native {

constexpr size_t kN = 32;                   // fp16 lanes of a 512-bit vector
constexpr int kNan = 0x01 | 0x80;           // vfpclassph: QNaN, SNaN
constexpr int kInf = 0x08 | 0x10;           // +Inf, -Inf
constexpr int kNanOrInf = kNan | kInf;

// The lanes of a vector with `left` codes still to go: all 32, or the first `left` (masked-off
// lanes neither fault nor store).
TILESIM_FP16_INLINE __mmask32 Head(size_t left) {
  return left >= kN ? ~__mmask32{0} : __mmask32((uint32_t{1} << left) - 1u);
}

// The saturation rule: ±Inf -> ±max (the code minus one), NaN -> +0.
TILESIM_FP16_INLINE __m512i Saturate(__m512h r) {
  const __m512i b = _mm512_castph_si512(r);
  const __mmask32 inf = _mm512_fpclass_ph_mask(r, kInf), nan = _mm512_fpclass_ph_mask(r, kNan);
  return _mm512_maskz_mov_epi16(_knot_mask32(nan),
                                _mm512_mask_sub_epi16(b, inf, b, _mm512_set1_epi16(1)));
}

// The codes with every NaN as the canonical 0x7E00.
TILESIM_FP16_INLINE __m512i Canonical(__m512h r) {
  return _mm512_mask_mov_epi16(_mm512_castph_si512(r), _mm512_fpclass_ph_mask(r, kNan),
                               _mm512_set1_epi16(0x7E00));
}

}  // namespace tilesim::ops::f16_native
#endif
