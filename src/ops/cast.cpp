// The one conversion routine (spec 15 §2). Floats are decoded exactly to double and encoded once
// by the formats core (spec 10 §4), so every rounding mode and overflow rule is the formats
// core's; this file adds what the formats core does not: integer sources, and the wrapping
// (saturation off) integer destinations.
#include "ops/cast.hpp"

#include "formats/convert_simd.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tilesim::ops {
namespace {

using formats::Rounding;

bool is_signed_int(DType t) {
  return formats::info(t).kind == formats::Kind::Signed;
}
unsigned bits_of(DType t) {
  return formats::info(t).storage_bits;
}

// x rounded to an integral double in `mode` (x finite). Exact: x comes from a <= 32-bit float,
// so x ± 0.5 is exact below 2^52 and x is already integral above.
double round_integral(double x, Rounding mode) {
  switch (mode) {
    case Rounding::rne: return std::nearbyint(x);  // default environment: ties to even
    case Rounding::rna: return std::round(x);
    case Rounding::rtz: return std::trunc(x);
    case Rounding::rdn: return std::floor(x);
    case Rounding::rup: return std::ceil(x);
    case Rounding::rhu: return std::floor(x + 0.5);
    case Rounding::rhd: return std::ceil(x - 0.5);
    case Rounding::rto: {
      const double t = std::trunc(x);
      if (t == x || std::fmod(t, 2.0) != 0.0) return t;
      return t + (x < 0 ? -1.0 : 1.0);  // discarded bits and an even integer: make it odd
    }
  }
  return std::nearbyint(x);
}

// The low 64 bits (two's complement) of an integral double.
uint64_t low64(double r) {
  if (std::fabs(r) < 0x1p63) return uint64_t(int64_t(r));
  double m = std::fmod(r, 0x1p64);  // exact
  if (m < 0) m += 0x1p64;           // exact: m is a multiple of r's ulp (>= 2^11)
  return m >= 0x1p63 ? uint64_t(int64_t(m - 0x1p64)) : uint64_t(int64_t(m));
}

uint64_t mask_bits(uint64_t v, unsigned w) {
  return w >= 64 ? v : (v & ((uint64_t{1} << w) - 1));
}

// Integer value of an integer code: sign-extended for signed types.
struct IntVal {
  bool neg;
  uint64_t mag;  // |n|
  uint64_t raw;  // n as 64-bit two's complement
};
IntVal int_value(DType t, uint64_t code) {
  const unsigned w = bits_of(t);
  uint64_t raw = mask_bits(code, w);
  if (is_signed_int(t) && w < 64 && (raw >> (w - 1)) & 1) raw |= ~uint64_t{0} << w;
  const bool neg = is_signed_int(t) && int64_t(raw) < 0;
  return {neg, neg ? uint64_t(0) - raw : raw, raw};
}

// |n| as a double rounded to odd at 53 bits: then one more rounding to a <= 24-bit format in
// any mode equals the direct rounding (round-to-odd with >= p+2 bits).
double magnitude_rto(uint64_t mag) {
  if (mag < (uint64_t{1} << 53)) return double(mag);
  const int shift = 64 - std::countl_zero(mag) - 53;
  uint64_t hi = mag >> shift;
  if (mag & ((uint64_t{1} << shift) - 1)) hi |= 1;
  return std::ldexp(double(hi), shift);
}

uint64_t int_range_clamp(DType to, const IntVal& v) {
  const unsigned w = bits_of(to);
  if (is_signed_int(to)) {
    const uint64_t max_mag = (uint64_t{1} << (w - 1)) - 1;
    if (!v.neg) return std::min(v.mag, max_mag);
    if (v.mag > max_mag + 1) return mask_bits(uint64_t{1} << (w - 1), w);  // MIN
    return mask_bits(v.raw, w);
  }
  if (v.neg) return 0;
  const uint64_t max = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  return std::min(v.mag, max);
}

// Integer sources: the SIMD kernels of cast_simd.cpp where the pair has one, else a typed loop per
// (from, to) pair the compiler vectorises, the same codes as cast_one element by element:
// int_range_clamp (saturation) or the low bits (wrap) for integer destinations; for u32 -> fp32 one
// correctly rounded conversion (rne, the default environment; a value of at most 32 bits never
// overflows fp32). u64 and the 4-bit types are not handled (false).
template <class F>
bool with_int_type(DType t, F&& f) {
  switch (t) {
    case DType::s8: f(int8_t{}); return true;
    case DType::u8: f(uint8_t{}); return true;
    case DType::s16: f(int16_t{}); return true;
    case DType::u16: f(uint16_t{}); return true;
    case DType::s32: f(int32_t{}); return true;
    case DType::u32: f(uint32_t{}); return true;
    case DType::s64: f(int64_t{}); return true;
    default: return false;
  }
}
template <class S, class D>
void int_to_int(const uint8_t* src, uint8_t* dst, size_t n, bool saturate) {
  constexpr int64_t lo = int64_t(std::numeric_limits<D>::min()), hi = int64_t(std::numeric_limits<D>::max());
  for (size_t i = 0; i < n; ++i) {
    S x;
    std::memcpy(&x, src + i * sizeof(S), sizeof(S));
    const int64_t v = int64_t(x);  // exact: S is at most 32 bits or s64
    const D y = saturate ? D(std::clamp(v, lo, hi)) : D(v);  // D(v): the low bits (C++20)
    std::memcpy(dst + i * sizeof(D), &y, sizeof(D));
  }
}
template <class S>
void int_to_f32(const uint8_t* src, uint8_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    S x;
    std::memcpy(&x, src + i * sizeof(S), sizeof(S));
    const float y = float(x);  // one rounding, to nearest even
    std::memcpy(dst + i * 4, &y, 4);
  }
}
// True when done (the operands do not overlap; the caller checked).
bool int_cast_fast(DType from, DType to, const void* src, void* dst, size_t n, const CastMode& m) {
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  // s32 -> fp32 rounds (to nearest even only, as float(x)); the narrower sources are exact.
  if ((to != DType::fp32 || m.rounding == Rounding::rne || bits_of(from) <= 16) &&
      cast_simd::int_cast(from, to, src, dst, n, m.int_saturate))
    return true;
  if (to == DType::fp32) {  // what the kernels leave: u32 (s64 and s32 in other modes: the core)
    if (from != DType::u32 || m.rounding != Rounding::rne) return false;
    int_to_f32<uint32_t>(s, d, n);
    return true;
  }
  if (to == DType::u64) return false;
  bool done = false;
  with_int_type(from, [&](auto sv) {
    done = with_int_type(to, [&](auto dv) { int_to_int<decltype(sv), decltype(dv)>(s, d, n, m.int_saturate); });
  });
  return done;
}

}  // namespace

namespace {
uint64_t cast_plain(DType from, DType to, uint64_t code, const CastMode& m);
}

uint64_t cast_one(DType from, DType to, uint64_t code, const CastMode& m) {
  const uint64_t c = cast_plain(from, to, code, m);
  return m.narrow_saturate ? saturate_code(to, c) : c;
}

namespace {
uint64_t cast_plain(DType from, DType to, uint64_t code, const CastMode& m) {
  const bool to_float = is_float_dtype(to);
  if (is_float_dtype(from)) {
    const double v = formats::decode(code, from);
    if (to_float) return formats::encode(v, to, m.rounding, m.float_saturate);
    if (v != v) return 0;  // NaN -> 0 in both saturation modes (spec 15 §2)
    if (m.int_saturate) return formats::encode(v, to, m.rounding, true);
    if (std::isinf(v)) return 0;
    return mask_bits(low64(round_integral(v, m.rounding)), bits_of(to));
  }
  const IntVal iv = int_value(from, code);
  if (to_float) {
    const double d = magnitude_rto(iv.mag);
    return formats::encode(iv.neg ? -d : d, to, m.rounding, m.float_saturate);
  }
  return m.int_saturate ? int_range_clamp(to, iv) : mask_bits(iv.raw, bits_of(to));
}
}  // namespace

uint64_t to_integral_one(DType t, uint64_t code, formats::Rounding r) {
  if (!is_float_dtype(t)) return code;
  const double v = formats::decode(code, t);
  if (v != v || std::isinf(v)) return formats::encode(v, t);  // canonical NaN; ±Inf kept
  // Exact: an integral neighbour of a value of t is a value of t (it has at most as many
  // significant bits), so encoding it rounds nothing.
  return formats::encode(std::copysign(round_integral(v, r), v), t);
}

void to_integral(DType t, const void* src, void* dst, size_t n, formats::Rounding r) {
  for (size_t i = 0; i < n; ++i) store_code(t, dst, i, to_integral_one(t, load_code(t, src, i), r));
}

namespace {
void cast_array(DType from, DType to, const void* src, void* dst, size_t n, const CastMode& m,
                Path path);
}

void cast(DType from, DType to, const void* src, void* dst, size_t n, const CastMode& m,
          Path path) {
  if (!m.narrow_saturate || (to != DType::fp16 && to != DType::bf16))
    return cast_array(from, to, src, dst, n, m, path);
  const auto s0 = reinterpret_cast<uintptr_t>(src), d0 = reinterpret_cast<uintptr_t>(dst);
  const bool apart = s0 + n * (bits_of(from) / 8) <= d0 || d0 + n * 2 <= s0;
  // fp32 -> fp16/bf16 in RNE rounds and saturates in one SIMD pass.
  if (path == Path::Fast && apart && from == DType::fp32 && !m.float_saturate &&
      m.rounding == formats::Rounding::rne &&
      simd::narrow_f32(to, static_cast<const float*>(src), static_cast<uint16_t*>(dst), n, true))
    return;
  cast_array(from, to, src, dst, n, m, path);
  if (path == Path::Fast) saturate_codes(to, dst, n);  // (the reference applied it per element)
}

namespace {
void cast_array(DType from, DType to, const void* src, void* dst, size_t n, const CastMode& m,
                Path path) {
  const size_t wi = bits_of(from) / 8, wo = bits_of(to) / 8;
  const auto s0 = reinterpret_cast<uintptr_t>(src), d0 = reinterpret_cast<uintptr_t>(dst);
  const bool apart = s0 + n * wi <= d0 || d0 + n * wo <= s0;
  if (path == Path::Fast && apart && !is_float_dtype(from) && int_cast_fast(from, to, src, dst, n, m)) return;
  const bool fast = path == Path::Fast && is_float_dtype(from) &&
                    (is_float_dtype(to) || m.int_saturate);
  if (!fast) {
    for (size_t i = 0; i < n; ++i) store_code(to, dst, i, cast_one(from, to, load_code(from, src, i), m));
    return;
  }
  // The common float pairs straight through the formats core's SIMD converters (the same bits as
  // decode + encode, tested there; the generic route spent most of its time in fp32 identity loops).
  if (apart && from == DType::fp32 && !m.float_saturate && m.rounding == formats::Rounding::rne &&
      (to == DType::fp16 || to == DType::bf16)) {
    if (to == DType::fp16)
      formats::simd::f32_to_f16(static_cast<const float*>(src), static_cast<uint16_t*>(dst), n);
    else
      formats::simd::f32_to_bf16(static_cast<const float*>(src), static_cast<uint16_t*>(dst), n);
    return;
  }
  if (apart && to == DType::fp32 && !m.float_saturate &&
      (from == DType::fp16 || from == DType::bf16)) {  // exact (saturation would clamp ±Inf)
    if (from == DType::fp16)
      formats::simd::f16_to_f32(static_cast<const uint16_t*>(src), static_cast<float*>(dst), n);
    else
      formats::simd::bf16_to_f32(static_cast<const uint16_t*>(src), static_cast<float*>(dst), n);
    return;
  }
  if (from == DType::fp32 && to == DType::fp32 && !m.float_saturate)
    // Every fp32 is exact in every rounding mode: decoding is the whole cast (the bits, NaN made
    // canonical, spec 15 §2); no encode pass.
    return formats::decode_array(src, DType::fp32, static_cast<float*>(dst), n);
  // Decode exactly to fp32 (every fp32/fp16/bf16 value is an fp32), encode once.
  constexpr size_t kChunk = 1024;
  alignas(64) float buf[kChunk];
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t k = std::min(kChunk, n - i);
    formats::decode_array(static_cast<const uint8_t*>(src) + i * wi, from, buf, k);
    formats::encode_array(buf, to, static_cast<uint8_t*>(dst) + i * wo, k, m.rounding,
                          is_float_dtype(to) ? m.float_saturate : true);
  }
}
}  // namespace

}  // namespace tilesim::ops
