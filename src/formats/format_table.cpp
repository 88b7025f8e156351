// The format table (spec 10 §1) and the dtype-name vocabulary (spec 60 §2). Every format is a
// row; the generic core in minifloat.cpp reads nothing but these fields.
#include <string>

#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/profile.hpp"  // detail::iequals: the one case-insensitive name match

namespace tilesim::formats {
namespace {

using K = Kind;
using N = NanKind;
using C = Carrier;

// clang-format off
// id, name, kind, storage, code bits, exp, man, man_shift, bias, sign, inf, subnormal, nan,
// carrier, canonical NaN, max finite
constexpr FormatInfo kFormats[kNumDTypes] = {
    {DType::fp64, "fp64", K::Float, 64, 64, 11, 52, 0, 1023, true, true, true, N::Ieee, C::f64,
     0x7FF8000000000000ull, 1.7976931348623157e308},
    {DType::fp32, "fp32", K::Float, 32, 32, 8, 23, 0, 127, true, true, true, N::Ieee, C::f32,
     0x7FC00000u, 3.4028234663852886e38},
    {DType::tf32, "tf32", K::Float, 32, 32, 8, 10, 13, 127, true, true, true, N::Ieee, C::u32,
     0x7FC00000u, 0x1.ffcp127},
    {DType::hf32, "hf32", K::Float, 32, 32, 8, 11, 12, 127, true, true, true, N::Ieee, C::u32,
     0x7FC00000u, 0x1.ffep127},
    {DType::fp16, "fp16", K::Float, 16, 16, 5, 10, 0, 15, true, true, true, N::Ieee, C::f16, 0x7E00,
     65504.0},
    {DType::bf16, "bf16", K::Float, 16, 16, 8, 7, 0, 127, true, true, true, N::Ieee, C::u16, 0x7FC0,
     0x1.fep127},
    {DType::e4m3, "e4m3", K::Float, 8, 8, 4, 3, 0, 7, true, false, true, N::AllOnes, C::u8, 0x7F,
     448.0},
    {DType::e5m2, "e5m2", K::Float, 8, 8, 5, 2, 0, 15, true, true, true, N::Ieee, C::u8, 0x7E,
     57344.0},
    {DType::e3m2, "e3m2", K::Float, 8, 6, 3, 2, 0, 3, true, false, true, N::None, C::u8, 0, 28.0},
    {DType::e2m3, "e2m3", K::Float, 8, 6, 2, 3, 0, 1, true, false, true, N::None, C::u8, 0, 7.5},
    {DType::e2m1, "e2m1", K::Float, 4, 4, 2, 1, 0, 1, true, false, true, N::None, C::u8, 0, 6.0},
    {DType::e1m2, "e1m2", K::Float, 4, 4, 1, 2, 0, 1, true, false, true, N::None, C::u8, 0, 1.75},
    {DType::e8m0, "e8m0", K::Float, 8, 8, 8, 0, 0, 127, false, false, false, N::AllOnes, C::u8, 0xFF,
     0x1p127},
    {DType::s8, "s8", K::Signed, 8, 8, 0, 0, 0, 0, true, false, false, N::None, C::i8, 0, 127.0},
    {DType::s16, "s16", K::Signed, 16, 16, 0, 0, 0, 0, true, false, false, N::None, C::i16, 0, 32767.0},
    {DType::s32, "s32", K::Signed, 32, 32, 0, 0, 0, 0, true, false, false, N::None, C::i32, 0,
     2147483647.0},
    {DType::s64, "s64", K::Signed, 64, 64, 0, 0, 0, 0, true, false, false, N::None, C::i64, 0,
     9223372036854775807.0},
    {DType::u8, "u8", K::Unsigned, 8, 8, 0, 0, 0, 0, false, false, false, N::None, C::u8, 0, 255.0},
    {DType::u16, "u16", K::Unsigned, 16, 16, 0, 0, 0, 0, false, false, false, N::None, C::u16, 0,
     65535.0},
    {DType::u32, "u32", K::Unsigned, 32, 32, 0, 0, 0, 0, false, false, false, N::None, C::u32, 0,
     4294967295.0},
    {DType::u64, "u64", K::Unsigned, 64, 64, 0, 0, 0, 0, false, false, false, N::None, C::u64, 0,
     18446744073709551615.0},
    {DType::s4, "s4", K::Signed, 4, 4, 0, 0, 0, 0, true, false, false, N::None, C::i8, 0, 7.0},
    {DType::u4, "u4", K::Unsigned, 4, 4, 0, 0, 0, 0, false, false, false, N::None, C::u8, 0, 15.0},
};

struct Alias {
  const char* name;
  DType id;
};
// Spec 60 §2 aliases (canonical names are matched from kFormats).
constexpr Alias kAliases[] = {
    {"float64", DType::fp64}, {"f64", DType::fp64}, {"double", DType::fp64},
    {"float32", DType::fp32}, {"f32", DType::fp32}, {"float", DType::fp32},
    {"float16", DType::fp16}, {"f16", DType::fp16}, {"half", DType::fp16},
    {"bfloat16", DType::bf16}, {"bfloat16_t", DType::bf16},
    {"fp8e4m3", DType::e4m3}, {"float8_e4m3", DType::e4m3}, {"e4m3fn", DType::e4m3},
    {"fp8e5m2", DType::e5m2}, {"float8_e5m2", DType::e5m2},
    {"fp6e3m2", DType::e3m2}, {"fp6e2m3", DType::e2m3},
    {"e2m1x2", DType::e2m1}, {"fp4e2m1", DType::e2m1}, {"e1m2x2", DType::e1m2},
    {"int8", DType::s8}, {"int16", DType::s16}, {"int32", DType::s32}, {"int64", DType::s64},
    {"i8", DType::s8}, {"i16", DType::s16}, {"i32", DType::s32}, {"i64", DType::s64},
    {"uint8", DType::u8}, {"uint16", DType::u16}, {"uint32", DType::u32}, {"uint64", DType::u64},
    {"ui8", DType::u8}, {"ui16", DType::u16}, {"ui32", DType::u32}, {"ui64", DType::u64},
    {"s4x2", DType::s4}, {"u4x2", DType::u4}, {"int4", DType::s4}, {"uint4", DType::u4},
};
// clang-format on

// Indexed by Rounding (spec 10 §4 names; Python's rounding= takes the same strings).
constexpr const char* kRoundingNames[kNumRoundings] = {"rne", "rna", "rtz", "rdn",
                                                       "rup", "rhu", "rhd", "rto"};

}  // namespace

const FormatInfo& info(DType t) noexcept {
  return kFormats[static_cast<size_t>(t)];
}
std::span<const FormatInfo> all_formats() noexcept {
  return kFormats;
}
std::string_view name(DType t) noexcept {
  return info(t).name;
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& f : kFormats) out.emplace_back(f.name);
  return out;
}

bool try_parse_dtype(std::string_view s, DType& out) noexcept {
  for (const auto& f : kFormats)
    if (tilesim::detail::iequals(s, f.name)) return out = f.id, true;
  for (const auto& a : kAliases)
    if (tilesim::detail::iequals(s, a.name)) return out = a.id, true;
  return false;
}

DType parse_dtype(std::string_view s, std::string_view what) {
  DType t;
  if (try_parse_dtype(s, t)) return t;
  std::string valid;
  for (const auto& f : kFormats) valid.append(valid.empty() ? "" : ", ").append(f.name);
  raise(ErrorCode::Unsupported, what,
        "unknown dtype '" + std::string(s) + "'; valid names: " + valid + " (and their aliases)",
        "docs/formats.md#dtype-names");
}

Rounding parse_rounding(std::string_view s) {
  for (size_t i = 0; i < kNumRoundings; ++i)
    if (tilesim::detail::iequals(s, kRoundingNames[i])) return static_cast<Rounding>(i);
  std::string valid;
  for (const char* n : kRoundingNames) valid.append(valid.empty() ? "" : ", ").append(n);
  raise(ErrorCode::Unsupported, "formats.encode",
        "unknown rounding mode '" + std::string(s) + "'; valid: " + valid,
        "docs/formats.md#rounding-modes");
}

std::string_view name(Rounding r) noexcept {
  return kRoundingNames[static_cast<size_t>(r)];
}

// spec 10 §4: e8m0 has no mantissa bit for round-to-odd to set, and no vendor converts that way.
bool rounding_supported(DType t, Rounding mode) noexcept {
  return !(t == DType::e8m0 && mode == Rounding::rto);
}

void require_rounding(DType t, Rounding mode, std::string_view what) {
  if (rounding_supported(t, mode)) return;
  // The one pair rounding_supported rejects: rto into e8m0.
  raise(ErrorCode::Unsupported, what,
        std::string(name(t)) +
            " takes every rounding mode but rto (round to odd has no mantissa bit to set), got "
            "rounding '" +
            std::string(name(mode)) + "'",
        "docs/formats.md#rounding-modes");
}

}  // namespace tilesim::formats
