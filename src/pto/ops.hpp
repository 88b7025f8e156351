// Internal: the TROWEXPAND* family's ops on the element-op core (spec 15, spec 20 §4). The family
// defines nothing of its own: each of its seven ops is a core op (EXPDIF is sub, rounded to T,
// then the core's correctly rounded exp), and the names below are what its fast kernels
// (trowexpand_simd.cpp) call. Operand order is always src0 OP src1, also when src0 is the
// expanded operand (spec 20 §4 "Operand order (decision)").
#pragma once
#include <cstdint>

#include "ops/math.hpp"
#include "ops/op_table.hpp"
#include "tilesim/pto/engine.hpp"

namespace tilesim::pto::ops {

namespace core = ::tilesim::ops;

inline constexpr uint32_t kNanF32 = 0x7FC00000u;  // canonical quiet NaNs (spec 00 Numerics)
inline constexpr uint16_t kNanF16 = 0x7E00u;
inline constexpr uint16_t kNanBF16 = 0x7FC0u;

inline float canon(float r) { return core::def::canon(r); }

// The core op of each family op (EXPDIF: its first step, the difference).
constexpr core::Op core_op(Op op) noexcept {
  switch (op) {
    case Op::ADD: return core::Op::add;
    case Op::MUL: return core::Op::mul;
    case Op::DIV: return core::Op::div;
    case Op::MAX: return core::Op::max;
    case Op::MIN: return core::Op::min;
    default: return core::Op::sub;  // SUB, EXPDIF
  }
}

// The core's fp32 definition of the family's float op: the value to round once to T.
template <Op op>
inline float farith(float a, float b) {
  return core::def::fbinary<core_op(op)>(a, b);
}
// The core's integer definition (wrap; DIV truncates, MIN / -1 wraps, a zero divisor was rejected).
template <Op op, class T>
inline T iarith(T a, T b) {
  return core::def::integer<core_op(op), T>(a, b);
}

// e^d correctly rounded to T (spec 20 §4 EXPDIF): the core's exp (spec 15 §1).
inline uint16_t exp_f16(uint16_t d) { return core::math_f16(core::MathFn::exp, d); }
inline uint16_t exp_bf16(uint16_t d) { return core::math_bf16(core::MathFn::exp, d); }
inline float exp_f32(float d) { return core::math_f32(core::MathFn::exp, d); }

}  // namespace tilesim::pto::ops
