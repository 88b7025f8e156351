// Independent reference for the format tests: each format transcribed again from spec 10 §1
// (fields, bias, specials) and valued with std::ldexp on the fields — no code shared with
// src/formats, so the exhaustive tests compare two separate readings of the spec.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "tilesim/formats.hpp"

namespace ref {

using tilesim::formats::DType;
using tilesim::formats::Rounding;

// Every rounding mode of spec 10 §4, the three of spec 15 §2 included.
inline constexpr Rounding kModes[] = {Rounding::rne, Rounding::rna, Rounding::rtz, Rounding::rdn,
                                      Rounding::rup, Rounding::rhu, Rounding::rhd, Rounding::rto};

// Does x, strictly between adjacent representable values lo < hi (signed, as on the number
// line), round to hi in mode m? lo_odd: the lowest mantissa bit of lo's code (hi's is the other
// one). Each case is the mode's definition in spec 10 §4 / spec 15 §2, written on the number line.
inline bool rounds_to_upper(Rounding m, double x, double lo, double hi, bool lo_odd) {
  const double mid = lo / 2 + hi / 2;
  switch (m) {
    case Rounding::rne:  // nearest, ties to the even code
      return x > mid || (x == mid && lo_odd);
    case Rounding::rna:  // nearest, ties away from zero
      return x > mid || (x == mid && x > 0);
    case Rounding::rtz:  // toward zero: hi for negative x
      return x < 0;
    case Rounding::rdn:
      return false;
    case Rounding::rup:
      return true;
    case Rounding::rhu:  // nearest, ties toward +Inf
      return x >= mid;
    case Rounding::rhd:  // nearest, ties toward -Inf
      return x > mid;
    case Rounding::rto:  // truncate, set the lowest kept bit: the odd one of the two neighbours
      return !lo_odd;
  }
  return false;
}

// The overflow result when the rounding picked the step beyond ±max (spec 10 §4, IEEE 754 §7.4:
// a mode that rounds past max gives "Inf"), except rto, which spec 10 §4 sends to ±max.
inline bool overflow_gives_max(Rounding m, bool saturate) {
  return saturate || m == Rounding::rto;
}

enum class Special { Ieee, E4m3, None, E8m0 };

// One line per float format of spec 10 §1 (source: the spec's table).
struct Fmt {
  DType t;
  int ebits, mbits, bias;
  Special sp;
  unsigned storage;  // bits per stored code (fp6 in a byte: 8; fp4: 4)
  unsigned code;     // meaningful bits
};
inline const Fmt kSmall[] = {
    {DType::fp16, 5, 10, 15, Special::Ieee, 16, 16},  // IEEE binary16
    {DType::bf16, 8, 7, 127, Special::Ieee, 16, 16},  // upper half of binary32
    {DType::e4m3, 4, 3, 7, Special::E4m3, 8, 8},      // OCP E4M3FN
    {DType::e5m2, 5, 2, 15, Special::Ieee, 8, 8},     // OCP E5M2
    {DType::e3m2, 3, 2, 3, Special::None, 8, 6},      // OCP MX FP6
    {DType::e2m3, 2, 3, 1, Special::None, 8, 6},      // OCP MX FP6
    {DType::e2m1, 2, 1, 1, Special::None, 4, 4},      // OCP MX FP4
    {DType::e1m2, 1, 2, 1, Special::None, 4, 4},      // HiFloat4 element / LinxISA FP4
    {DType::e8m0, 8, 0, 127, Special::E8m0, 8, 8},    // OCP MX scale
};

inline double nan() {
  return std::numeric_limits<double>::quiet_NaN();
}

// Value of a code by the spec 10 §1 formula; NaN for NaN codes.
inline double value(const Fmt& f, uint64_t code) {
  code &= (1ull << f.code) - 1;  // fp6 bits 7..6 ignored
  if (f.sp == Special::E8m0)
    return code == 0xFF ? nan() : std::ldexp(1.0, static_cast<int>(code) - 127);
  const uint64_t m = code & ((1ull << f.mbits) - 1);
  const uint64_t e = (code >> f.mbits) & ((1ull << f.ebits) - 1);
  const bool s = (code >> (f.ebits + f.mbits)) & 1;
  const uint64_t emax = (1ull << f.ebits) - 1;
  double v;
  if (f.sp == Special::Ieee && e == emax) {
    v = m == 0 ? INFINITY : nan();
  } else if (f.sp == Special::E4m3 && e == emax && m == 7) {
    v = nan();
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), 1 - f.bias - f.mbits);
  } else {
    v = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -f.mbits),
                   static_cast<int>(e) - f.bias);
  }
  return s ? -v : v;
}

// Every finite value of a format with its code (both zeros), sorted by value; -0 before +0.
struct Entry {
  double v;
  uint64_t code;
};
inline std::vector<Entry> finite_values(const Fmt& f) {
  std::vector<Entry> out;
  for (uint64_t c = 0; c < (1ull << f.code); ++c) {
    const double v = value(f, c);
    if (std::isfinite(v)) out.push_back({v, c});
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    if (a.v != b.v) return a.v < b.v;
    return std::signbit(a.v) > std::signbit(b.v);
  });
  return out;
}

inline uint64_t sign_bit(const Fmt& f) {
  return f.sp == Special::E8m0 ? 0 : 1ull << (f.ebits + f.mbits);
}

// Code of the largest finite magnitude with the given sign.
inline uint64_t max_code(const Fmt& f, bool neg) {
  const auto vals = finite_values(f);
  return neg ? vals.front().code : vals.back().code;
}

// The format's "Inf" of spec 10 §4: ±Inf, else the signed NaN (e4m3), else ±max.
inline uint64_t inf_code(const Fmt& f, bool neg) {
  const uint64_t s = neg ? sign_bit(f) : 0;
  const uint64_t emax = (1ull << f.ebits) - 1;
  switch (f.sp) {
    case Special::Ieee:
      return s | (emax << f.mbits);
    case Special::E4m3:
      return s | 0x7F;
    default:
      return max_code(f, neg);
  }
}

}  // namespace ref
