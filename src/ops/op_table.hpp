// The element-op core (spec 15): one row per op, and each op's scalar definition. Every model's
// arithmetic calls these (spec 70 item 11a); no model redefines an op. Rows: name, arity, the
// dtype classes it takes. The definitions below are the reference every fast path is tested
// against bit for bit (spec 15 §5). docs/ops.md is the user-facing copy of this table.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tilesim/formats.hpp"

namespace tilesim::ops {

using formats::DType;

inline constexpr uint8_t kFloat = 1;  // fp32 fp16 bf16
inline constexpr uint8_t kInt = 2;    // s8..s64 u8..u64

// X(op, arity, classes): the op table of spec 15 §1, in its order.
#define TILESIM_OPS(X)     \
  X(add, 2, kFloat | kInt) \
  X(sub, 2, kFloat | kInt) \
  X(mul, 2, kFloat | kInt) \
  X(div, 2, kFloat | kInt) \
  X(rem, 2, kFloat | kInt) \
  X(max, 2, kFloat | kInt) \
  X(min, 2, kFloat | kInt) \
  X(band, 2, kInt)         \
  X(bor, 2, kInt)          \
  X(bxor, 2, kInt)         \
  X(bnot, 1, kInt)         \
  X(shl, 2, kInt)          \
  X(shr, 2, kInt)          \
  X(abs, 1, kFloat | kInt) \
  X(neg, 1, kFloat | kInt) \
  X(relu, 1, kFloat | kInt) \
  X(exp, 1, kFloat)        \
  X(ln, 1, kFloat)         \
  X(sqrt, 1, kFloat)       \
  X(rsqrt, 1, kFloat)      \
  X(recip, 1, kFloat | kInt) \
  X(eq, 2, kFloat | kInt)  \
  X(ne, 2, kFloat | kInt)  \
  X(lt, 2, kFloat | kInt)  \
  X(le, 2, kFloat | kInt)  \
  X(gt, 2, kFloat | kInt)  \
  X(ge, 2, kFloat | kInt)  \
  X(select, 3, kFloat | kInt) \
  X(copy, 1, kFloat | kInt)

enum class Op : uint8_t {
#define TILESIM_OP_ENUM(name, arity, classes) name,
  TILESIM_OPS(TILESIM_OP_ENUM)
#undef TILESIM_OP_ENUM
};

struct OpInfo {
  Op op;
  const char* name;  // "add", "band" is spelled "and" (the op's name in spec 15)
  uint8_t arity;
  uint8_t classes;  // kFloat | kInt
};
const OpInfo& info(Op op) noexcept;
inline constexpr int kNumOps = 0
#define TILESIM_OP_COUNT(name, arity, classes) +1
    TILESIM_OPS(TILESIM_OP_COUNT)
#undef TILESIM_OP_COUNT
    ;

// The element types the core computes on (spec 15 §1): fp32, fp16, bf16 and the integers.
constexpr bool is_core_dtype(DType t) noexcept {
  switch (t) {
    case DType::fp32: case DType::fp16: case DType::bf16:
    case DType::s8: case DType::s16: case DType::s32: case DType::s64:
    case DType::u8: case DType::u16: case DType::u32: case DType::u64:
      return true;
    default:
      return false;
  }
}
constexpr bool is_float_dtype(DType t) noexcept {
  return t == DType::fp32 || t == DType::fp16 || t == DType::bf16;
}
// True when `op` is defined for `t` (a model may restrict further, never extend).
bool supports(Op op, DType t) noexcept;
constexpr bool is_compare(Op op) noexcept { return op >= Op::eq && op <= Op::ge; }

// ---- the scalar definitions (spec 15 §1) ----
namespace def {

inline float bits_f32(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
inline uint32_t f32_bits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }
inline float canon(float r) { return r != r ? bits_f32(0x7FC00000u) : r; }

// max/min (spec 20 §4): NaN in -> NaN; equal values (±0 included) combine bitwise, so
// max(-0, +0) = +0 and min(-0, +0) = -0 in either argument order.
inline float fmax(float a, float b) {
  if (a != a || b != b) return bits_f32(0x7FC00000u);
  if (a == b) return bits_f32(f32_bits(a) & f32_bits(b));
  return a > b ? a : b;
}
inline float fmin(float a, float b) {
  if (a != a || b != b) return bits_f32(0x7FC00000u);
  if (a == b) return bits_f32(f32_bits(a) | f32_bits(b));
  return a < b ? a : b;
}

// Floored remainder (spec 15 §1 rem): fmod is exact; a non-zero result whose sign differs from
// y's gets y added, rounded once (in F: fp32 for fp32, double for fp16/bf16, where the sum of two
// 16-bit values is exact); an exact zero takes y's sign.
template <class F>
inline F frem(F x, F y) {
  const F nan = std::numeric_limits<F>::quiet_NaN();
  if (x != x || y != y || y == F(0) || std::isinf(x)) return nan;
  if (std::isinf(y)) return (x == F(0) || std::signbit(x) == std::signbit(y)) ? x : y;
  F r = std::fmod(x, y);
  if (r == F(0)) return std::copysign(F(0), y);
  if (std::signbit(r) != std::signbit(y)) r = r + y;
  return r;
}

// The float binary ops of fp32 arithmetic; fp16/bf16 call them on widened values and round once
// to T, which is exact for + - * / (spec 00 Numerics). rem is special-cased by the callers.
template <Op op>
inline float fbinary(float a, float b) {
  if constexpr (op == Op::add) return a + b;
  else if constexpr (op == Op::sub) return a - b;
  else if constexpr (op == Op::mul) return a * b;
  else if constexpr (op == Op::div) return a / b;
  else if constexpr (op == Op::rem) return frem(a, b);
  else if constexpr (op == Op::max) return fmax(a, b);
  else if constexpr (op == Op::min) return fmin(a, b);
  else static_assert(op == Op::add, "not a float binary op");
}

// Unary float ops other than the correctly rounded ones of ops/math.hpp.
template <Op op>
inline float funary(float a) {
  if constexpr (op == Op::abs) return a != a ? bits_f32(0x7FC00000u) : std::fabs(a);
  else if constexpr (op == Op::neg) return a != a ? bits_f32(0x7FC00000u) : -a;
  else if constexpr (op == Op::relu) return a != a ? bits_f32(0x7FC00000u) : (a > 0.0f ? a : 0.0f);
  else if constexpr (op == Op::copy) return a;
  else static_assert(op == Op::abs, "not a float unary op");
}

template <Op op>
inline bool fcompare(float a, float b) {  // IEEE: NaN compares false except ne
  if constexpr (op == Op::eq) return a == b;
  else if constexpr (op == Op::ne) return a != b;
  else if constexpr (op == Op::lt) return a < b;
  else if constexpr (op == Op::le) return a <= b;
  else if constexpr (op == Op::gt) return a > b;
  else return a >= b;
}

// Integers: two's complement, results wrap (computed unsigned); shift counts >= the width give 0
// (shr of signed: sign fill), a negative count reads as a huge one; div truncates, MIN / -1 wraps;
// rem is floored (sign of y, MIN rem -1 = 0); recip is 1/x truncated. A zero divisor never reaches
// these functions: the model rejects it first (spec 15 §1, §4), so 0 is returned defensively.
template <Op op, class T>
inline T integer(T a, T b) {
  using U = std::make_unsigned_t<T>;
  using W = std::conditional_t<(sizeof(T) < 4), uint32_t, U>;
  constexpr unsigned kBits = sizeof(T) * 8;
  if constexpr (op == Op::add) return T(U(W(U(a)) + W(U(b))));
  else if constexpr (op == Op::sub) return T(U(W(U(a)) - W(U(b))));
  else if constexpr (op == Op::mul) return T(U(W(U(a)) * W(U(b))));
  else if constexpr (op == Op::div) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>)
      if (b == T(-1)) return T(U(W(0) - W(U(a))));
    return T(a / b);
  } else if constexpr (op == Op::rem) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return 0;
      T r = T(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) r = T(r + b);
      return r;
    } else {
      return T(a % b);
    }
  } else if constexpr (op == Op::max) return a > b ? a : b;
  else if constexpr (op == Op::min) return a < b ? a : b;
  else if constexpr (op == Op::band) return T(U(a) & U(b));
  else if constexpr (op == Op::bor) return T(U(a) | U(b));
  else if constexpr (op == Op::bxor) return T(U(a) ^ U(b));
  else if constexpr (op == Op::shl) {
    const U n = U(b);
    return n >= kBits ? T(0) : T(U(W(U(a)) << n));
  } else if constexpr (op == Op::shr) {
    const U n = U(b);
    if constexpr (std::is_signed_v<T>) {
      if (n >= kBits) return a < 0 ? T(-1) : T(0);
      return T(a >> n);  // arithmetic shift of a signed value (C++20: defined)
    } else {
      return n >= kBits ? T(0) : T(a >> n);
    }
  } else static_assert(op == Op::add, "not an integer binary op");
}

template <Op op, class T>
inline T integer_unary(T a) {
  using U = std::make_unsigned_t<T>;
  if constexpr (op == Op::bnot) return T(~U(a));
  else if constexpr (op == Op::abs) {
    if constexpr (std::is_signed_v<T>) return a < 0 ? T(U(0) - U(a)) : a;  // abs(MIN) = MIN
    else return a;
  } else if constexpr (op == Op::neg) return T(U(0) - U(a));
  else if constexpr (op == Op::relu) return a > T(0) ? a : T(0);
  else if constexpr (op == Op::recip) {
    if constexpr (std::is_signed_v<T>)
      if (a == T(-1)) return T(-1);
    return a == T(1) ? T(1) : T(0);
  } else if constexpr (op == Op::copy) return a;
  else static_assert(op == Op::bnot, "not an integer unary op");
}

template <Op op, class T>
inline bool icompare(T a, T b) {
  if constexpr (op == Op::eq) return a == b;
  else if constexpr (op == Op::ne) return a != b;
  else if constexpr (op == Op::lt) return a < b;
  else if constexpr (op == Op::le) return a <= b;
  else if constexpr (op == Op::gt) return a > b;
  else return a >= b;
}

}  // namespace def

// The definition of any op on one element of any core dtype, on codes (the bits of T in the low
// bits): the reference loops call this. b is ignored for unary ops; compare ops return 0 or 1.
// Integer division by zero returns 0 here: models reject it before writing (spec 15 §4).
uint64_t eval(Op op, DType t, uint64_t a, uint64_t b = 0);

}  // namespace tilesim::ops
