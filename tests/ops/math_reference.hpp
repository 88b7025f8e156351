// Independent reference for tests/ops math tests: f(x) computed by MPFR at 160 bits, then rounded
// once to T (RNE) by integer rounding of the scaled value, with T's subnormal quantum and overflow
// written out here. It shares nothing with src/ops/math.cpp (which rounds in MPFR's emulated
// exponent range, and only for the inputs its fast evaluation cannot round). The specials are
// spec 15 §1's, written by hand.
#pragma once
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/math.hpp"
#include "tilesim/formats.hpp"

namespace math_ref {

using tilesim::ops::MathFn;

struct Fmt {
  int p;     // precision in bits
  int emin;  // exponent of the smallest normal
  double max_finite;
};
inline constexpr Fmt kF32{24, -126, 0x1.fffffep127};
inline constexpr Fmt kF16{11, -14, 65504.0};
inline constexpr Fmt kBF16{8, -126, 0x1.fep127};

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// The spec 15 §1 specials; returns true and sets r when x is one.
inline bool special(MathFn f, double x, double& r) {
  if (x != x) return r = kNaN, true;
  switch (f) {
    case MathFn::exp:
      if (std::isinf(x)) return r = x > 0 ? kInf : 0.0, true;
      return false;
    case MathFn::ln:
      if (x < 0) return r = kNaN, true;
      if (x == 0) return r = -kInf, true;
      if (std::isinf(x)) return r = kInf, true;
      return false;
    case MathFn::sqrt:
      if (x < 0) return r = kNaN, true;
      if (x == 0 || std::isinf(x)) return r = x, true;  // sqrt(-0) = -0
      return false;
    case MathFn::rsqrt:
      if (x < 0) return r = kNaN, true;
      if (x == 0) return r = std::copysign(kInf, x), true;  // rsqrt(-0) = -Inf
      if (std::isinf(x)) return r = 0.0, true;
      return false;
    case MathFn::recip:
      if (x == 0) return r = std::copysign(kInf, x), true;
      if (std::isinf(x)) return r = std::copysign(0.0, x), true;
      return false;
  }
  return false;
}

class Ref {
 public:
  Ref() {
    mpfr_init2(a_, 64);
    mpfr_init2(v_, 160);
    mpfr_init2(w_, 160);
    mpfr_init2(frac_, 160);
  }
  ~Ref() {
    mpfr_clears(a_, v_, w_, frac_, static_cast<mpfr_ptr>(nullptr));
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
  }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;

  // f(x) correctly rounded to t (x a value of t); NaN for NaN results.
  double operator()(MathFn f, double x, const Fmt& t) {
    double r;
    if (special(f, x, r)) return r;
    mpfr_set_d(a_, x, MPFR_RNDN);
    int inex = 0;
    switch (f) {
      case MathFn::exp:
        inex = mpfr_exp(v_, a_, MPFR_RNDN);
        break;
      case MathFn::ln:
        inex = mpfr_log(v_, a_, MPFR_RNDN);
        break;
      case MathFn::sqrt:
        inex = mpfr_sqrt(v_, a_, MPFR_RNDN);
        break;
      case MathFn::rsqrt:
        inex = mpfr_rec_sqrt(v_, a_, MPFR_RNDN);
        break;
      case MathFn::recip:
        inex = mpfr_ui_div(v_, 1, a_, MPFR_RNDN);
        break;
    }
    if (mpfr_zero_p(v_)) return 0.0;  // ln(1) = +0
    // Scale so T's quantum at v's exponent is 1: e = max(floor(log2|v|), emin).
    const long e = std::max(long(mpfr_get_exp(v_)) - 1, long(t.emin));
    const long s = t.p - 1 - e;
    mpfr_mul_2si(w_, v_, s, MPFR_RNDN);  // exact
    if (inex != 0) {  // an inexact 160-bit value exactly on a midpoint would round twice
      mpfr_frac(frac_, w_, MPFR_RNDN);  // exact
      mpfr_abs(frac_, frac_, MPFR_RNDN);
      EXPECT_NE(mpfr_cmp_d(frac_, 0.5), 0) << "x=" << x;
    }
    mpfr_rint(w_, w_, MPFR_RNDN);  // to the nearest integer, ties to even
    mpfr_mul_2si(w_, w_, -s, MPFR_RNDN);
    const double y = mpfr_get_d(w_, MPFR_RNDN);  // exact: at most p bits
    return std::fabs(y) > t.max_finite ? std::copysign(kInf, y) : y;
  }

  // |y - f(x)| in ulps of y's binade (2^(floor(log2|y|) - 52)), f(x) at 160 bits.
  double err_ulps(MathFn f, double x, double y) {
    mpfr_set_d(a_, x, MPFR_RNDN);
    switch (f) {
      case MathFn::exp:
        mpfr_exp(v_, a_, MPFR_RNDN);
        break;
      case MathFn::ln:
        mpfr_log(v_, a_, MPFR_RNDN);
        break;
      default:
        mpfr_rec_sqrt(v_, a_, MPFR_RNDN);
        break;
    }
    mpfr_set_d(w_, y, MPFR_RNDN);
    mpfr_sub(w_, w_, v_, MPFR_RNDN);
    return std::fabs(mpfr_get_d(w_, MPFR_RNDN)) / std::ldexp(1.0, std::ilogb(y) - 52);
  }

 private:
  mpfr_t a_, v_, w_, frac_;
};

// Codes of the reference values (exact; NaN -> T's canonical NaN).
inline uint32_t f32_code(double y) {
  return y != y ? 0x7FC00000u : tilesim::formats::f32_to_bits(static_cast<float>(y));
}
inline uint16_t f16_code(double y) {
  return tilesim::formats::f32_to_f16(static_cast<float>(y));
}
inline uint16_t bf16_code(double y) {
  return tilesim::formats::f32_to_bf16(static_cast<float>(y));
}

}  // namespace math_ref
