// Internal: the op table of the TROWEXPAND* family — per-element semantics of spec 20 §4, the
// scalar definition that the reference kernel calls and the fast kernels are tested against.
// Operand order is always src0 OP src1, also when src0 is the expanded operand (spec 20 §4
// "Operand order (decision)": the vendor's tests and backends compute expanded - full there).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ops/math.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/pto/engine.hpp"

namespace tilesim::pto::ops {

inline constexpr uint32_t kNanF32 = 0x7FC00000u;  // canonical quiet NaNs (spec 00 Numerics)
inline constexpr uint16_t kNanF16 = 0x7E00u;
inline constexpr uint16_t kNanBF16 = 0x7FC0u;

inline float canon(float r) {
  return r != r ? formats::bits_to_f32(kNanF32) : r;
}

// MAX/MIN (spec 20 §4): NaN if either is NaN; equal values (±0 included) combine bitwise so
// max(-0, +0) = +0 and min(-0, +0) = -0 whatever the argument order.
inline float fmax_(float a, float b) {
  if (a != a || b != b) return formats::bits_to_f32(kNanF32);
  if (a == b) return formats::bits_to_f32(formats::f32_to_bits(a) & formats::f32_to_bits(b));
  return a > b ? a : b;
}
inline float fmin_(float a, float b) {
  if (a != a || b != b) return formats::bits_to_f32(kNanF32);
  if (a == b) return formats::bits_to_f32(formats::f32_to_bits(a) | formats::f32_to_bits(b));
  return a < b ? a : b;
}

// Floats: computed in fp32 (exact before the one rounding to T for + - * /, spec 00 Numerics).
// Returns the fp32 value to round once to T; EXPDIF is handled separately (it rounds twice by
// definition: d = round_T(a - b), then e^d correctly rounded).
template <Op op>
inline float farith(float a, float b) {
  if constexpr (op == Op::ADD) return a + b;
  if constexpr (op == Op::SUB) return a - b;
  if constexpr (op == Op::MUL) return a * b;
  if constexpr (op == Op::DIV) return a / b;
  if constexpr (op == Op::MAX) return fmax_(a, b);
  if constexpr (op == Op::MIN) return fmin_(a, b);
  return a - b;  // EXPDIF: the difference before its rounding to T
}

// Integers: two's-complement wrap (computed unsigned, so no signed overflow); DIV truncates toward
// zero and INT_MIN / -1 wraps to INT_MIN; b == 0 was rejected before the kernel ran.
template <Op op, class T>
inline T iarith(T a, T b) {
  using U = std::make_unsigned_t<T>;
  using W = std::conditional_t<(sizeof(T) < 4), uint32_t, uint64_t>;
  if constexpr (op == Op::ADD) return T(U(W(U(a)) + W(U(b))));
  if constexpr (op == Op::SUB) return T(U(W(U(a)) - W(U(b))));
  if constexpr (op == Op::MUL) return T(U(W(U(a)) * W(U(b))));
  if constexpr (op == Op::DIV) {
    if constexpr (std::is_signed_v<T>)
      if (b == T(-1)) return T(U(W(0) - W(U(a))));  // -a with wrap: INT_MIN / -1 = INT_MIN
    return b == 0 ? T(0) : T(a / b);
  }
  if constexpr (op == Op::MAX) return a > b ? a : b;
  if constexpr (op == Op::MIN) return a < b ? a : b;
  return a;
}

// e^d correctly rounded to T (spec 20 §4 EXPDIF): the element-op core's exp (spec 15 §1), the one
// definition every model calls.
inline uint16_t exp_f16(uint16_t d) {
  return ::tilesim::ops::math_f16(::tilesim::ops::MathFn::exp, d);
}
inline uint16_t exp_bf16(uint16_t d) {
  return ::tilesim::ops::math_bf16(::tilesim::ops::MathFn::exp, d);
}
inline float exp_f32(float d) { return ::tilesim::ops::math_f32(::tilesim::ops::MathFn::exp, d); }

}  // namespace tilesim::pto::ops
