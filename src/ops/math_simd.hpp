// Internal: the fp32 SIMD kernels of ops/math.hpp (math_simd.cpp), dispatched per Highway target.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ops/math.hpp"

namespace tilesim::ops::math_simd {
// dst[i] = math_f32(f, src[i]) for every i (src == dst allowed), on the best SIMD target.
void f32(MathFn f, const float* src, float* dst, size_t n) noexcept;
// The kernel's double approximation (test hook math_simd_approx_f64).
void approx_f64(MathFn f, const float* src, double* dst, size_t n) noexcept;
// Counts lanes the kernels hand to math_f32 (test hook math_simd_redone_count).
void note_redone(MathFn f, uint64_t lanes) noexcept;
}  // namespace tilesim::ops::math_simd
