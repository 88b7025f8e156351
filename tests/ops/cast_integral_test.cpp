// ops::to_integral (src/ops/cast.hpp): a float rounded to an integral value of the same format in
// each of the eight modes (IEEE 754 roundToIntegral; PTO TCVT fp32 -> fp32). Known answers, each
// row citing its source, and every fp16/bf16 code against an independent computation.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "ops/cast.hpp"

namespace tilesim::ops {
namespace {

using formats::Rounding;
using R = Rounding;

uint64_t f32c(float f) {
  return std::bit_cast<uint32_t>(f);
}

struct Case {
  DType t;
  uint64_t in;
  R r;
  uint64_t want;
  const char* source;
};
// clang-format off
const Case kCases[] = {
    {DType::fp32, f32c(2.5f), R::rne, f32c(2.0f), "np.rint: ties to even"},
    {DType::fp32, f32c(3.5f), R::rne, f32c(4.0f), "np.rint"},
    {DType::fp32, f32c(2.5f), R::rna, f32c(3.0f), "ties away (C round)"},
    {DType::fp32, f32c(-2.5f), R::rna, f32c(-3.0f), "ties away (C round)"},
    {DType::fp32, f32c(-2.5f), R::rhu, f32c(-2.0f), "ties toward +Inf"},
    {DType::fp32, f32c(2.5f), R::rhd, f32c(2.0f), "ties toward -Inf"},
    {DType::fp32, f32c(-0.5f), R::rdn, f32c(-1.0f), "np.floor"},
    {DType::fp32, f32c(-0.5f), R::rup, 0x80000000, "np.ceil(-0.5) = -0.0"},
    {DType::fp32, f32c(-0.7f), R::rtz, 0x80000000, "np.trunc(-0.7) = -0.0"},
    {DType::fp32, f32c(-0.3f), R::rhu, 0x80000000, "IEEE roundToIntegral: a zero keeps the sign"},
    {DType::fp32, f32c(2.25f), R::rto, f32c(3.0f), "rto: truncate to 2, inexact -> odd 3"},
    {DType::fp32, f32c(-0.25f), R::rto, f32c(-1.0f), "rto: truncate to -0 (even), inexact -> -1"},
    {DType::fp32, f32c(4.0f), R::rto, f32c(4.0f), "rto: exact stays"},
    {DType::fp32, f32c(0x1p22f + 0.5f), R::rne, f32c(0x1p22f), "exact: 4194304.5 ties to even"},
    {DType::fp32, f32c(0x1p23f + 1.0f), R::rup, f32c(0x1p23f + 1.0f), "exact: integral above 2^23"},
    {DType::fp32, 0x00000001, R::rup, f32c(1.0f), "ceil(2^-149) = 1"},
    {DType::fp32, 0x80000001, R::rdn, f32c(-1.0f), "floor(-2^-149) = -1"},
    {DType::fp32, 0x00000001, R::rne, 0x00000000, "2^-149 rounds to +0"},
    {DType::fp32, 0xFF800000, R::rup, 0xFF800000, "-Inf kept"},
    {DType::fp32, 0x7F7FFFFF, R::rdn, 0x7F7FFFFF, "max finite is integral"},
    {DType::fp32, 0xFFC12345, R::rne, 0x7FC00000, "spec 00: canonical NaN"},
    {DType::fp16, 0x3E00, R::rne, 0x4000, "fp16 1.5 -> 2"},
    {DType::fp16, 0x63FF, R::rup, 0x6400, "fp16 1023.5 -> 1024"},
    {DType::fp16, 0x7E01, R::rtz, 0x7E00, "spec 00: canonical NaN"},
    {DType::bf16, 0x3FC0, R::rna, 0x4000, "bf16 1.5 -> 2 (ties away)"},
    {DType::bf16, 0xBF00, R::rtz, 0x8000, "bf16 -0.5 -> -0"},
    {DType::s32, 12345, R::rup, 12345, "integers unchanged"},
};
// clang-format on

TEST(OpsToIntegral, KnownAnswers) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(formats::name(c.t)) + " " + c.source);
    EXPECT_EQ(to_integral_one(c.t, c.in, c.r), c.want);
    std::vector<uint8_t> src(8 * 5), dst(8 * 5, 0xCD);
    for (size_t i = 0; i < 5; ++i) store_code(c.t, src.data(), i, c.in);
    to_integral(c.t, src.data(), dst.data(), 5, c.r);
    EXPECT_EQ(load_code(c.t, dst.data(), 4), c.want);
  }
}

// Independent: the integral neighbours of v by comparison only, then the mode's choice.
double expected(double v, R r) {
  const double lo = std::floor(v), hi = std::ceil(v);
  if (lo == hi) return v;
  const double dlo = v - lo, dhi = hi - v;
  const bool lo_even = std::fmod(lo, 2.0) == 0.0;
  double out = lo;
  switch (r) {
    case R::rne:
      out = dlo < dhi ? lo : dhi < dlo ? hi : (lo_even ? lo : hi);
      break;
    case R::rna:
      out = dlo < dhi ? lo : dhi < dlo ? hi : (v > 0 ? hi : lo);
      break;
    case R::rhu:
      out = dlo < dhi ? lo : hi;
      break;
    case R::rhd:
      out = dhi < dlo ? hi : lo;
      break;
    case R::rdn:
      out = lo;
      break;
    case R::rup:
      out = hi;
      break;
    case R::rtz:
      out = v > 0 ? lo : hi;
      break;
    case R::rto:
      out = (v > 0 ? lo : hi);
      out = std::fmod(out, 2.0) != 0.0 ? out : (v > 0 ? hi : lo);
      break;
  }
  return std::copysign(out, v);
}

TEST(OpsToIntegral, EveryHalfAndBf16CodeInEveryMode) {
  const R modes[] = {R::rne, R::rna, R::rtz, R::rdn, R::rup, R::rhu, R::rhd, R::rto};
  for (DType t : {DType::fp16, DType::bf16})
    for (R r : modes)
      for (uint32_t code = 0; code < 0x10000; ++code) {
        const double v = formats::decode(code, t);
        const uint64_t got = to_integral_one(t, code, r);
        if (v != v) {
          ASSERT_EQ(got, formats::encode(v, t)) << std::hex << code;
          continue;
        }
        ASSERT_EQ(formats::decode(got, t), expected(v, r))
            << std::hex << code << " mode " << int(r);
        ASSERT_EQ(std::signbit(formats::decode(got, t)), std::signbit(v)) << std::hex << code;
      }
}

}  // namespace
}  // namespace tilesim::ops
