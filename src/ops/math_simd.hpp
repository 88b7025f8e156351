// Internal: the fp32 SIMD kernels of ops/math.hpp (math_simd.cpp), dispatched per Highway target.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ops/math.hpp"

namespace tilesim::ops::math_simd {
// dst[i] = math_f32(f, src[i]) for every i (src == dst allowed), on the best SIMD target.
void f32(MathFn f, const float* src, float* dst, size_t n) noexcept;
// The fp16 codes of f for src[0..n) (src == dst allowed; 2-byte aligned), `table` the function's 65536-entry
// fp16 table (the definition), with Switches::saturate's rule on every result when sat: false
// where no kernel exists for f on this target (nothing written).
bool f16(MathFn f, const uint16_t* table, const uint16_t* src, uint16_t* dst, size_t n,
         bool sat) noexcept;
// The kernel's double approximation (test hook math_simd_approx_f64).
void approx_f64(MathFn f, const float* src, double* dst, size_t n) noexcept;
// Counts lanes the kernels hand to math_f32 (test hook math_simd_redone_count).
void note_redone(MathFn f, uint64_t lanes) noexcept;
}  // namespace tilesim::ops::math_simd
