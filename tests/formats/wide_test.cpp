// fp32 / tf32 / hf32 (spec 10 §1, §3, §4): random and boundary inputs against an independent
// reference that works on fp32 bit patterns (the core uses frexp/ldexp on doubles).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "reference.hpp"
#include "tilesim/formats.hpp"

namespace f = tilesim::formats;
using f::DType;
using f::Rounding;

namespace {

using ref::kModes;

struct Wide {
  DType t;
  unsigned drop;  // absent low fraction bits of the fp32 container
};
constexpr Wide kWide[] = {{DType::fp32, 0}, {DType::tf32, 13}, {DType::hf32, 12}};

// Value by fields: sign, exponent bits 30..23, fraction bits 22..drop (spec 10 §1 formula).
double field_value(uint32_t c, unsigned drop) {
  const bool s = c >> 31;
  const int e = static_cast<int>((c >> 23) & 0xFF);
  const uint32_t m = (c & 0x7FFFFF) >> drop;
  const int mb = 23 - static_cast<int>(drop);
  double v;
  if (e == 255)
    v = m == 0 ? INFINITY : NAN;
  else if (e == 0)
    v = std::ldexp(static_cast<double>(m), -126 - mb);
  else
    v = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -mb), e - 127);
  return s ? -v : v;
}

// Reference encode: floor of |x| on the fp32 grid (hardware RNE cast, stepped down), truncated
// to the format's grid; then the mode picks that or the next grid point (spec 10 §4).
uint32_t ref_encode(double x, unsigned drop, Rounding m, bool sat) {
  const uint32_t step = 1u << drop, maxc = 0x7F800000u - step;
  if (std::isnan(x)) return 0x7FC00000u;
  const uint32_t sign = std::signbit(x) ? 0x80000000u : 0;
  const bool neg = sign != 0;
  const double a = std::fabs(x);
  if (std::isinf(a)) return sign | (sat ? maxc : 0x7F800000u);
  float fl = a >= 0x1p128 ? 3.4028234663852886e38f : static_cast<float>(a);
  if (static_cast<double>(fl) > a) fl = std::nextafter(fl, 0.0f);
  const uint32_t lo = f::f32_to_bits(fl) & ~(step - 1);
  const double lov = f::bits_to_f32(lo);
  if (lov == a) return sign | lo;
  const uint32_t hi = lo + step;
  const double hiv = hi >= 0x7F800000u ? 0x1p128 : f::bits_to_f32(hi);
  // The mode's choice on the number line, mirrored for negative x (lo, hi are magnitudes).
  const bool lo_odd = (lo >> drop) & 1;
  const bool up = neg ? !ref::rounds_to_upper(m, x, -hiv, -lov, !lo_odd)
                      : ref::rounds_to_upper(m, x, lov, hiv, lo_odd);
  uint32_t r = up ? hi : lo;
  if (r >= 0x7F800000u) r = ref::overflow_gives_max(m, sat) ? maxc : 0x7F800000u;
  return sign | r;
}

uint64_t dbits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

std::vector<double> inputs(unsigned drop, std::mt19937_64& rng) {
  std::vector<double> xs = {0.0,
                            -0.0,
                            0x1p-149,
                            -0x1p-149,
                            0x1p-150,
                            0x1.8p-150,
                            0x1p-151,
                            0x1.8p-149,
                            0x1p-126,
                            0x1.fffffcp-127,
                            3.4028234663852886e38,
                            -3.4028234663852886e38,
                            0x1.ffffffp127,
                            0x1.fffffe8p127,
                            0x1p128,
                            -0x1p128,
                            1e300,
                            -1e300,
                            5e-324,
                            1.0,
                            -1.0,
                            1.5,
                            0x1.0000001p0,
                            0x1.ffcp127,
                            0x1.ffep127,
                            0x1.ffdp127,
                            0x1.fffp127};
  const uint32_t step = 1u << drop;
  for (int i = 0; i < 60000; ++i) {
    const uint32_t c = static_cast<uint32_t>(rng());
    xs.push_back(f::bits_to_f32(c));  // any fp32 value (NaN/Inf included)
    // A grid point of the format and its successor: midpoint and its double neighbours.
    const uint32_t lo = c & 0x7FFFFFFFu & ~(step - 1);
    if (lo + step <= 0x7F800000u) {
      const double lov = f::bits_to_f32(lo);
      const double hiv = lo + step == 0x7F800000u ? 0x1p128 : f::bits_to_f32(lo + step);
      const double mid = lov / 2 + hiv / 2;
      const double s = (c & 1) ? -1.0 : 1.0;
      for (double x : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, INFINITY)})
        xs.push_back(s * x);
    }
    // A random double of fp32-ish magnitude.
    const int e = static_cast<int>(rng() % 300) - 165;
    xs.push_back(std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52), e) *
                 ((rng() & 1) ? -1 : 1));
  }
  return xs;
}

}  // namespace

TEST(FormatsWide, DecodeMasksAbsentFractionBits) {
  std::mt19937_64 rng(1);
  for (const Wide w : kWide) {
    std::vector<uint32_t> codes = {0,           0x80000000u, 0x7F800000u, 0xFF800000u, 0x7F800001u,
                                   0x7F801FFFu, 0x7F802000u, 0x00000001u, 0x00001FFFu, 0x00002000u,
                                   0x00800000u, 0x007FFFFFu, 0x7F7FFFFFu};
    for (int i = 0; i < 200000; ++i) codes.push_back(static_cast<uint32_t>(rng()));
    for (uint32_t c : codes) {
      const double want = field_value(c, w.drop);
      const double got = f::decode(c, w.t);
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(got)) << std::hex << c;
        ASSERT_TRUE(f::is_nan_code(c, w.t));
        ASSERT_EQ(f::f32_to_bits(f::decode_f32(c, w.t)), 0x7FC00000u);
      } else {
        ASSERT_EQ(dbits(got), dbits(want)) << f::name(w.t) << " " << std::hex << c;
        ASSERT_FALSE(f::is_nan_code(c, w.t));
      }
    }
  }
  // A non-canonical tf32 code reads as its truncation (spec 10 §3).
  EXPECT_EQ(f::decode(0x3F801FFFu, DType::tf32), 1.0);
  EXPECT_EQ(f::decode(0x7F801000u, DType::tf32), INFINITY);
  EXPECT_EQ(f::decode(0x3F800FFFu, DType::hf32), 1.0);
}

TEST(FormatsWide, EncodeRandomAndBoundaryInEveryMode) {
  std::mt19937_64 rng(2);
  size_t checked = 0;
  for (const Wide w : kWide) {
    for (double x : inputs(w.drop, rng)) {
      for (Rounding m : kModes)
        for (bool sat : {false, true}) {
          const uint64_t got = f::encode(x, w.t, m, sat);
          ASSERT_EQ(got, ref_encode(x, w.drop, m, sat))
              << f::name(w.t) << " x=" << std::hexfloat << x << " " << f::name(m) << " sat " << sat;
          ++checked;
        }
    }
  }
  std::printf("[formats] fp32/tf32/hf32: %zu encodings checked\n", checked);
}

TEST(FormatsWide, Fp32ValuesEncodeToThemselves) {
  std::mt19937 rng(3);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t c = rng();
    if ((c & 0x7FFFFFFFu) > 0x7F800000u) continue;
    for (Rounding m : kModes) ASSERT_EQ(f::encode(f::bits_to_f32(c), DType::fp32, m), c);
  }
}
