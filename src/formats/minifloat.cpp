// The one generic minifloat core (spec 10 §3–§4): decode and encode for every row of the
// format table, integers included. This is the scalar definition every fast path is tested
// against; it favours clarity over speed.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "tilesim/formats.hpp"

namespace tilesim::formats {
namespace {

uint64_t mask_bits(unsigned bits) {
  return bits >= 64 ? ~0ull : ((1ull << bits) - 1);
}

// Should a magnitude n + frac (0 <= frac < 1) be rounded up to n + 1? `neg` is the sign of the
// value, for the directed modes and the ties toward ±Inf; `odd` is n's lowest bit.
bool round_up(bool odd, double frac, bool neg, Rounding mode) {
  if (frac == 0.0) return false;
  switch (mode) {
    case Rounding::rne:
      return frac > 0.5 || (frac == 0.5 && odd);
    case Rounding::rna:
      return frac >= 0.5;
    case Rounding::rtz:
      return false;
    case Rounding::rdn:
      return neg;
    case Rounding::rup:
      return !neg;
    case Rounding::rhu:  // ties toward +Inf: up in magnitude for positive values
      return frac > 0.5 || (frac == 0.5 && !neg);
    case Rounding::rhd:
      return frac > 0.5 || (frac == 0.5 && neg);
    case Rounding::rto:  // something was discarded: n | 1 (an odd n already is)
      return !odd;
  }
  return false;
}

struct Fields {
  uint64_t sign_bit, exp_mask, man_mask;
  unsigned man_pos;  // bit position of the mantissa's lsb
  unsigned exp_pos;
};

Fields fields(const FormatInfo& f) {
  Fields r;
  r.man_pos = f.man_shift;
  r.exp_pos = f.man_shift + f.man_bits;
  r.man_mask = mask_bits(f.man_bits);
  r.exp_mask = mask_bits(f.exp_bits);
  r.sign_bit = f.has_sign ? 1ull << (f.code_bits - 1) : 0;
  return r;
}

uint64_t max_code(const FormatInfo& f, bool neg) {
  // The largest finite magnitude: all-ones exponent minus one for IEEE-like formats; for
  // AllOnes-NaN formats the all-ones exponent with mantissa all-ones minus one; for formats
  // with neither, all ones.
  const Fields k = fields(f);
  uint64_t e, m;
  if (f.has_inf || f.nan == NanKind::Ieee) {
    e = k.exp_mask - 1;
    m = k.man_mask;
  } else if (f.nan == NanKind::AllOnes) {
    if (f.man_bits == 0) {
      e = k.exp_mask - 1, m = 0;
    } else {
      e = k.exp_mask, m = k.man_mask - 1;
    }
  } else {
    e = k.exp_mask, m = k.man_mask;
  }
  return (neg ? k.sign_bit : 0) | (e << k.exp_pos) | (m << k.man_pos);
}

// The format's "Inf" of spec 10 §4: ±Inf, else the signed NaN code, else ±max.
uint64_t inf_code(const FormatInfo& f, bool neg) {
  const Fields k = fields(f);
  const uint64_t s = neg ? k.sign_bit : 0;
  if (f.has_inf) return s | (k.exp_mask << k.exp_pos);
  if (f.nan == NanKind::AllOnes) return s | (k.exp_mask << k.exp_pos) | (k.man_mask << k.man_pos);
  return max_code(f, neg);
}

uint64_t overflow_code(const FormatInfo& f, bool neg, Rounding mode, bool saturate) {
  if (saturate) return max_code(f, neg);
  switch (mode) {
    case Rounding::rne:
    case Rounding::rna:
    case Rounding::rhu:
    case Rounding::rhd:
      return inf_code(f, neg);
    case Rounding::rtz:
    case Rounding::rto:  // spec 10 §4 decision: e4m3's max with its odd bit set is the NaN code
      return max_code(f, neg);
    case Rounding::rdn:
      return neg ? inf_code(f, true) : max_code(f, false);
    case Rounding::rup:
      return neg ? max_code(f, true) : inf_code(f, false);
  }
  return inf_code(f, neg);
}

uint64_t encode_e8m0(double x, Rounding mode, bool saturate) {
  // spec 10 §4: powers of two by value; ties (1.5·2^k) go up, except in rhd. rto never gets
  // here (require_rounding).
  if (!(x > 0.0)) return 0xFF;  // zero, negative, NaN
  if (std::isinf(x)) return saturate ? 0xFE : 0xFF;
  int ex;
  const double fr = std::frexp(x, &ex);  // x = fr·2^ex, fr in [0.5, 1)
  int e = ex - 1;                        // x = (2fr)·2^e, 2fr in [1, 2)
  const double m = 2.0 * fr;
  switch (mode) {
    case Rounding::rne:
    case Rounding::rna:
    case Rounding::rhu:
      e += (m >= 1.5) ? 1 : 0;
      break;
    case Rounding::rhd:
      e += (m > 1.5) ? 1 : 0;
      break;
    case Rounding::rtz:
    case Rounding::rdn:
    case Rounding::rto:
      break;
    case Rounding::rup:
      e += (m > 1.0) ? 1 : 0;
      break;
  }
  if (e < -127) return 0x00;
  if (e > 127) return saturate ? 0xFE : 0xFF;
  return static_cast<uint64_t>(e + 127);
}

uint64_t encode_int(double v, const FormatInfo& f, Rounding mode) {
  if (std::isnan(v)) return 0;  // spec 10 §4: NaN -> 0
  const bool neg = v < 0;
  if (std::isinf(v)) {  // saturates like any out-of-range value
    if (f.kind == Kind::Unsigned) return neg ? 0 : mask_bits(f.code_bits);
    const uint64_t top = 1ull << (f.code_bits - 1);
    return (neg ? top : top - 1) & mask_bits(f.code_bits);
  }
  const double a = std::fabs(v);
  double n = std::floor(a);
  if (round_up(std::fmod(n, 2.0) != 0.0, a - n, neg, mode)) n += 1.0;
  const double r = neg ? -n : n;
  const unsigned bits = f.code_bits;
  if (f.kind == Kind::Signed) {
    const double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1);  // [lo, hi)
    int64_t iv;
    if (r < lo)
      iv = bits == 64 ? std::numeric_limits<int64_t>::min() : static_cast<int64_t>(lo);
    else if (r >= hi)
      iv = bits == 64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi) - 1;
    else
      iv = static_cast<int64_t>(r);
    return static_cast<uint64_t>(iv) & mask_bits(bits);
  }
  const double hi = std::ldexp(1.0, bits);
  if (r <= 0) return 0;
  if (r >= hi) return mask_bits(bits);
  return static_cast<uint64_t>(r);
}

}  // namespace

bool is_nan_code(uint64_t code, DType t) noexcept {
  const FormatInfo& f = info(t);
  if (f.kind != Kind::Float || f.nan == NanKind::None) return false;
  code &= mask_bits(f.code_bits);
  const Fields k = fields(f);
  const uint64_t e = (code >> k.exp_pos) & k.exp_mask;
  const uint64_t m = (code >> k.man_pos) & k.man_mask;
  if (f.nan == NanKind::Ieee) return e == k.exp_mask && m != 0;
  return e == k.exp_mask && m == k.man_mask;
}

double decode(uint64_t code, DType t) noexcept {
  const FormatInfo& f = info(t);
  code &= mask_bits(f.code_bits);
  if (f.kind == Kind::Unsigned) return static_cast<double>(code);
  if (f.kind == Kind::Signed) {
    const unsigned sh = 64 - f.code_bits;
    return static_cast<double>(static_cast<int64_t>(code << sh) >> sh);
  }
  if (t == DType::fp64) {
    double d;
    std::memcpy(&d, &code, 8);
    return std::isnan(d) ? std::numeric_limits<double>::quiet_NaN() : d;
  }
  if (is_nan_code(code, t)) return std::numeric_limits<double>::quiet_NaN();
  const Fields k = fields(f);
  const bool neg = (code & k.sign_bit) != 0;
  const uint64_t e = (code >> k.exp_pos) & k.exp_mask;
  const uint64_t m = (code >> k.man_pos) & k.man_mask;
  if (f.has_inf && e == k.exp_mask) return neg ? -HUGE_VAL : HUGE_VAL;
  double v;
  if (!f.has_subnormal) {
    v = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -f.man_bits),
                   static_cast<int>(e) - f.bias);
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), 1 - f.bias - f.man_bits);
  } else {
    v = std::ldexp(static_cast<double>(m | (1ull << f.man_bits)),
                   static_cast<int>(e) - f.bias - f.man_bits);
  }
  return neg ? -v : v;
}

float decode_f32(uint64_t code, DType t) noexcept {
  // 64-bit integers convert in one rounding (RNE), not via double.
  if (t == DType::s64) return static_cast<float>(static_cast<int64_t>(code));
  if (t == DType::u64) return static_cast<float>(code);
  const double d = decode(code, t);
  if (std::isnan(d)) return bits_to_f32(0x7FC00000u);
  return static_cast<float>(d);
}

uint64_t encode(double v, DType t, Rounding mode, bool saturate) {
  const FormatInfo& f = info(t);
  if (f.kind != Kind::Float) return encode_int(v, f, mode);
  if (t == DType::e8m0) {
    require_rounding(t, mode);
    return encode_e8m0(v, mode, saturate);
  }
  const Fields k = fields(f);
  if (std::isnan(v)) return f.nan == NanKind::None ? 0 : f.canonical_nan;
  const bool neg = std::signbit(v);
  const uint64_t s = neg ? k.sign_bit : 0;
  if (std::isinf(v)) return saturate ? max_code(f, neg) : inf_code(f, neg);
  if (v == 0.0) return s;
  if (t == DType::fp64) {
    uint64_t c;
    std::memcpy(&c, &v, 8);
    return c;
  }
  const double a = std::fabs(v);
  const int emin = 1 - f.bias;
  int ex;
  std::frexp(a, &ex);
  int e = ex - 1;  // a in [2^e, 2^(e+1))
  if (e < emin) e = emin;
  // scaled = a / 2^(e - M): exact (a power-of-two scaling well inside double's range).
  const double scaled = std::ldexp(a, f.man_bits - e);
  double nd = std::floor(scaled);
  uint64_t n = static_cast<uint64_t>(nd);
  if (round_up(n & 1, scaled - nd, neg, mode)) ++n;
  if (n == (2ull << f.man_bits)) {  // rounded up into the next binade
    n >>= 1;
    ++e;
  }
  // Overflow is judged on the rounded value against max finite (spec 10 §4).
  if (std::ldexp(static_cast<double>(n), e - f.man_bits) > f.max_finite)
    return overflow_code(f, neg, mode, saturate);
  uint64_t E, m;
  if (n >= (1ull << f.man_bits)) {
    E = static_cast<uint64_t>(e + f.bias);
    m = n - (1ull << f.man_bits);
  } else {
    E = 0;
    m = n;
  }
  return s | (E << k.exp_pos) | (m << k.man_pos);
}

}  // namespace tilesim::formats
