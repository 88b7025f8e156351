// The correctly rounded transcendental and algebraic element ops of spec 15 §1: exp, ln, sqrt,
// rsqrt, recip. Each result is the exact value rounded once (RNE) to the operand's format T, with
// the IEEE specials of spec 15 §1, subnormals kept (no FTZ) and every NaN result the canonical
// quiet NaN of T (spec 00 Numerics).
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilesim/formats.hpp"

namespace tilesim::ops {

// spec 15 §1: exp, ln, sqrt, rsqrt, recip, correctly rounded (RNE) to T, canonical NaN.
enum class MathFn : uint8_t { exp, ln, sqrt, rsqrt, recip };
inline constexpr int kNumMathFns = 5;
const char* math_fn_name(MathFn f) noexcept;  // "exp", "ln", ...

// The scalar definitions.
float math_f32(MathFn f, float x) noexcept;            // the definition for fp32
uint16_t math_f16(MathFn f, uint16_t code) noexcept;   // fp16 code in, fp16 code out
uint16_t math_bf16(MathFn f, uint16_t code) noexcept;  // bf16 code in, bf16 code out

// n contiguous elements of dt (fp32, fp16 or bf16; anything else is a programming error: assert),
// src and dst may be the same pointer. Fast path (SIMD for fp32, a per-function 65536-entry table
// built once, thread-safely, for fp16/bf16); bit-identical to the scalar functions above for
// every input. saturate: then Switches::saturate's rule on every fp16/bf16 result (spec 15 §4),
// in the same pass (fp16 exp: in its kernel, where only the table's lanes can need it; the other
// fp16/bf16 functions: a saturated copy of their table).
void math_array(MathFn f, formats::DType dt, const void* src, void* dst, size_t n,
                bool saturate = false) noexcept;
// The scalar definition over an array (what math_array is tested against).
void math_array_reference(MathFn f, formats::DType dt, const void* src, void* dst,
                          size_t n) noexcept;

// The fp16/bf16 table of f (65536 entries: result code by input code), built on first use; for
// fused kernels that look codes up in their own loops (PTO EXPDIF). dt is fp16 or bf16.
const uint16_t* math_table16(MathFn f, formats::DType dt) noexcept;

// ---- test hooks (tests/ops/math_test.cpp); not for the models ----
// Exact (MPFR) evaluations taken so far by the scalar definitions, all threads and formats: the
// rare inputs whose double approximation lies too near a rounding boundary of T.
uint64_t math_exact_count(MathFn f) noexcept;
// fp32 lanes of math_array's SIMD kernel redone by math_f32 (outside the kernel's range, specials
// other than its exact shortcuts, or too near a rounding boundary), all threads.
uint64_t math_simd_redone_count(MathFn f) noexcept;
// The double approximation the fp32 SIMD kernel of the current best target rounds (exp, ln and
// rsqrt only; inputs inside the kernel's range), for the test of its error bound.
void math_simd_approx_f64(MathFn f, const float* src, double* dst, size_t n) noexcept;

}  // namespace tilesim::ops
