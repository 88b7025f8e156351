// tilesim::half and tilesim::bfloat16 — portable 16-bit float value types for the vendor-shaped
// headers (pto::half, AscendC::half, pto::bfloat16_t). Each is the 16-bit code plus conversions
// through the format core. Binary arithmetic converts to float (so `half + float` is not
// ambiguous) and rounds once (RNE) when stored back to a half; compound assignments round per
// operation, which for + - * / equals the correctly rounded fp16/bf16 result (spec 00 Numerics).
// Not _Float16: clang 14 has none on x86-64 without AVX512-FP16, and the fuzz build uses clang.
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include <cstdint>
#include <type_traits>

#include "tilesim/formats.hpp"

namespace tilesim {

template <uint16_t (*Enc)(float) noexcept, float (*Dec)(uint16_t) noexcept>
struct Float16Value {
  uint16_t bits;  // trivial like _Float16: `half h;` is uninitialised, `half{}` is +0
  Float16Value() = default;
  Float16Value(float f) : bits(Enc(f)) {}  // NOLINT: implicit like the vendor's half
  Float16Value(double d) : bits(Enc(static_cast<float>(d))) {}
  Float16Value(int i) : bits(Enc(static_cast<float>(i))) {}
  static Float16Value from_bits(uint16_t b) { Float16Value h{}; h.bits = b; return h; }
  operator float() const { return Dec(bits); }
  Float16Value& operator+=(Float16Value o) { return *this = float(*this) + float(o); }
  Float16Value& operator-=(Float16Value o) { return *this = float(*this) - float(o); }
  Float16Value& operator*=(Float16Value o) { return *this = float(*this) * float(o); }
  Float16Value& operator/=(Float16Value o) { return *this = float(*this) / float(o); }
  friend Float16Value operator-(Float16Value a) { return from_bits(a.bits ^ 0x8000u); }
};

using half = Float16Value<&formats::f32_to_f16, &formats::f16_to_f32>;
using bfloat16 = Float16Value<&formats::f32_to_bf16, &formats::bf16_to_f32>;
static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2);
static_assert(std::is_trivial_v<half> && std::is_trivial_v<bfloat16>);

}  // namespace tilesim
