// exp, ln, sqrt, rsqrt, recip (spec 15 §1, src/ops/math.hpp): correctly rounded to T, checked
// against an independent MPFR reference (math_reference.hpp) exhaustively for fp16/bf16 and on a
// dense sample, hard ranges and known hard-to-round inputs for fp32; rsqrt fp32 exhaustively over
// two binades (all significands); math_array against math_array_reference on every SIMD target
// (spec 70 item 5); the SIMD kernels' stated error bounds against MPFR.
#include "ops/math.hpp"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "math_reference.hpp"
#include "ops/elementwise.hpp"

namespace {

using math_ref::Fmt;
using math_ref::Ref;
using tilesim::formats::bits_to_f32;
using tilesim::formats::DType;
using tilesim::formats::f32_to_bits;
using tilesim::ops::kNumMathFns;
using tilesim::ops::math_array;
using tilesim::ops::math_array_reference;
using tilesim::ops::math_bf16;
using tilesim::ops::math_f16;
using tilesim::ops::math_f32;
using tilesim::ops::math_fn_name;
using tilesim::ops::MathFn;

__extension__ typedef unsigned __int128 u128;  // GCC/clang; exact 78-bit products below

constexpr MathFn kAll[] = {MathFn::exp, MathFn::ln, MathFn::sqrt, MathFn::rsqrt, MathFn::recip};

uint32_t m32(MathFn f, uint32_t x) {
  return f32_to_bits(math_f32(f, bits_to_f32(x)));
}

// Every fp32 code of x that check() rejects, reported with the first few mismatches.
template <class Codes>
void expect_f32_matches(MathFn f, const Codes& codes, Ref& ref, const char* what) {
  size_t bad = 0;
  for (uint32_t c : codes) {
    const uint32_t want = math_ref::f32_code(ref(f, double(bits_to_f32(c)), math_ref::kF32));
    const uint32_t got = m32(f, c);
    if (got != want && bad++ < 5)
      ADD_FAILURE() << what << " " << math_fn_name(f) << "(0x" << std::hex << c << ") = 0x" << got
                    << ", MPFR 0x" << want;
  }
  EXPECT_EQ(bad, 0u) << what << " " << math_fn_name(f);
}

// First: several threads build the fp16/bf16 tables at once (spec 00: results never depend on
// threads); every thread must see the definition's codes.
TEST(OpsMath, TablesBuiltOnceAcrossThreads) {
  std::vector<uint16_t> codes(65536);
  for (uint32_t c = 0; c < 65536; ++c) codes[c] = uint16_t(c);
  for (DType dt : {DType::fp16, DType::bf16}) {
    std::vector<std::vector<uint16_t>> out(4, std::vector<uint16_t>(65536 * kNumMathFns));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int k = 0; k < kNumMathFns; ++k)
          math_array(kAll[(k + t) % kNumMathFns], dt, codes.data(),
                     out[t].data() + 65536 * ((k + t) % kNumMathFns), 65536);
      });
    for (auto& th : threads) th.join();
    std::vector<uint16_t> ref(65536 * kNumMathFns);
    for (int k = 0; k < kNumMathFns; ++k)
      math_array_reference(kAll[k], dt, codes.data(), ref.data() + 65536 * k, 65536);
    for (int t = 0; t < 4; ++t) EXPECT_TRUE(out[t] == ref) << "thread " << t;
  }
}

TEST(OpsMath, Names) {
  EXPECT_STREQ(math_fn_name(MathFn::exp), "exp");
  EXPECT_STREQ(math_fn_name(MathFn::ln), "ln");
  EXPECT_STREQ(math_fn_name(MathFn::sqrt), "sqrt");
  EXPECT_STREQ(math_fn_name(MathFn::rsqrt), "rsqrt");
  EXPECT_STREQ(math_fn_name(MathFn::recip), "recip");
}

// Known answers, one row each with where the expected bits come from.
struct KnownF32 {
  MathFn f;
  uint32_t x, want;
  const char* source;
};
constexpr KnownF32 kKnownF32[] = {
    {MathFn::exp, 0x00000000, 0x3F800000, "e^0 = 1"},
    {MathFn::exp, 0x80000000, 0x3F800000, "e^-0 = 1"},
    {MathFn::exp, 0x3F800000, 0x402DF854, "e = 2.71828182846 (fp32 0x402DF854)"},
    {MathFn::exp, 0xBF800000, 0x3EBC5AB2, "1/e = 0.367879441171 (AMD libm expf unit table)"},
    {MathFn::exp, 0x40000000, 0x40EC7326, "e^2 (AMD libm expf unit table)"},
    {MathFn::exp, 0x41200000, 0x46AC14EE, "e^10 (AMD libm expf unit table)"},
    {MathFn::exp, 0x42B00000, 0x7EF882B7, "e^88 (AMD libm expf unit table)"},
    {MathFn::exp, 0x447A0000, 0x7F800000, "e^1000 overflows to +Inf"},
    {MathFn::exp, 0xC2D00000, 0x00000000, "e^-104 < 2^-150 rounds to +0"},
    {MathFn::exp, 0xFF800000, 0x00000000, "spec 15: exp(-Inf) = +0"},
    {MathFn::exp, 0x7F800000, 0x7F800000, "exp(+Inf) = +Inf"},
    {MathFn::exp, 0xC236BD8C, 0x1E88452D,
     "LLVM libc expf exceptional value: 0x1.108a58p-66 - x 2^-95 (+0.71 ulp) -> 0x1.108a5ap-66"},
    {MathFn::ln, 0x3F800000, 0x00000000, "ln 1 = +0"},
    {MathFn::ln, 0x40000000, 0x3F317218, "ln 2 = 0.693147180560 (fp32 0x3F317218)"},
    {MathFn::ln, 0x00000000, 0xFF800000, "spec 15: ln(+0) = -Inf"},
    {MathFn::ln, 0x80000000, 0xFF800000, "spec 15: ln(-0) = -Inf"},
    {MathFn::ln, 0xBF800000, 0x7FC00000, "spec 15: ln(x<0) = canonical NaN"},
    {MathFn::ln, 0x7F800000, 0x7F800000, "ln(+Inf) = +Inf"},
    {MathFn::ln, 0x3F7F4D6F, 0xBB32CF64,
     "LLVM libc logf hard case 0x1.fe9adep-1 -> -0x1.659ec8p-9"},
    {MathFn::ln, 0x41178FEB, 0x400FE5E7, "LLVM libc logf hard case 0x1.2f1fd6p+3 -> 0x1.1fcbcep+1"},
    {MathFn::ln, 0x1E88452D, 0xC236BD8C,
     "LLVM libc logf hard case 0x1.108a5ap-66 -> -0x1.6d7b18p+5"},
    {MathFn::ln, 0x4C5D65A5, 0x418F034B,
     "LLVM libc logf hard case 0x1.bacb4ap+25 -> 0x1.1e0696p+4"},
    {MathFn::ln, 0x65D890D3, 0x4254D1F9,
     "LLVM libc logf hard case 0x1.b121a6p+76 -> 0x1.a9a3f2p+5"},
    {MathFn::ln, 0x6F31A8EC, 0x42845A89,
     "LLVM libc logf hard case 0x1.6351d8p+95 -> 0x1.08b512p+6"},
    {MathFn::ln, 0x7A17F30A, 0x42A28A1B,
     "LLVM libc logf hard case 0x1.2fe614p+117 -> 0x1.451436p+6"},
    {MathFn::ln, 0x500FFB03, 0x41B7EE9A,
     "LLVM libc logf hard case 0x1.1ff606p+33 -> 0x1.6fdd34p+4"},
    {MathFn::ln, 0x5CD69E88, 0x4222E0A3, "LLVM libc logf hard case 0x1.ad3d1p+58 -> 0x1.45c146p+5"},
    {MathFn::ln, 0x5EE8984E, 0x422E4A21,
     "LLVM libc logf hard case 0x1.d1309cp+62 -> 0x1.5c9442p+5"},
    {MathFn::sqrt, 0x40800000, 0x40000000, "sqrt 4 = 2"},
    {MathFn::sqrt, 0x40000000, 0x3FB504F3, "sqrt 2 = 1.41421356 (fp32 0x3FB504F3)"},
    {MathFn::sqrt, 0x80000000, 0x80000000, "spec 15: sqrt(-0) = -0"},
    {MathFn::sqrt, 0xBF800000, 0x7FC00000, "sqrt(x<0) = canonical NaN"},
    {MathFn::rsqrt, 0x40800000, 0x3F000000, "rsqrt 4 = 1/2"},
    {MathFn::rsqrt, 0x40000000, 0x3F3504F3, "rsqrt 2 = 0.707106781 (fp32 0x3F3504F3)"},
    {MathFn::rsqrt, 0x00000000, 0x7F800000, "spec 15: rsqrt(+0) = +Inf"},
    {MathFn::rsqrt, 0x80000000, 0xFF800000, "spec 15: rsqrt(-0) = -Inf"},
    {MathFn::rsqrt, 0x7F800000, 0x00000000, "rsqrt(+Inf) = +0"},
    {MathFn::rsqrt, 0x00000001, 0x64B504F3, "rsqrt 2^-149 = 2^74.5 = sqrt2 * 2^74"},
    {MathFn::recip, 0x40400000, 0x3EAAAAAB, "1/3 = 0.333333343 (fp32 0x3EAAAAAB)"},
    {MathFn::recip, 0x80000000, 0xFF800000, "spec 15: recip(-0) = -Inf"},
    {MathFn::recip, 0x7F000000, 0x00400000, "1/2^127 = 2^-127, subnormal (no FTZ)"},
    {MathFn::recip, 0x00200000, 0x7F800000, "1/2^-128 = 2^128 overflows to +Inf"},
    {MathFn::recip, 0xFFC00001, 0x7FC00000, "NaN payload in -> canonical NaN out"},
};

TEST(OpsMath, KnownAnswersF32) {
  Ref ref;
  for (const auto& k : kKnownF32) {
    EXPECT_EQ(m32(k.f, k.x), k.want) << math_fn_name(k.f) << " " << k.source;
    // The reference agrees with the row (checks the row and the reference).
    EXPECT_EQ(math_ref::f32_code(ref(k.f, double(bits_to_f32(k.x)), math_ref::kF32)), k.want)
        << "reference: " << k.source;
  }
}

struct Known16 {
  MathFn f;
  bool bf16;
  uint16_t x, want;
  const char* source;
};
constexpr Known16 kKnown16[] = {
    {MathFn::exp, false, 0x0000, 0x3C00, "e^0 = 1"},
    {MathFn::exp, false, 0x3C00, 0x4170, "e = 2.71828 -> 2.71875"},
    {MathFn::exp, false, 0x4A00, 0x7C00, "e^12 = 162755 > 65504 -> +Inf"},
    {MathFn::exp, false, 0xFC00, 0x0000, "exp(-Inf) = +0"},
    {MathFn::exp, false, 0xCC00, 0x0002, "e^-16 = 1.89 * 2^-24 -> subnormal 2"},
    {MathFn::exp, false, 0xCC80, 0x0000, "e^-18 = 0.26 * 2^-24 -> +0"},
    {MathFn::exp, false, 0xCA00, 0x0067, "e^-12 = 103.08 * 2^-24 -> subnormal 103"},
    {MathFn::ln, false, 0x4000, 0x398C, "ln 2 = 0.693147 -> 0.69287"},
    {MathFn::ln, false, 0x3C00, 0x0000, "ln 1 = +0"},
    {MathFn::ln, false, 0x8000, 0xFC00, "ln(-0) = -Inf"},
    {MathFn::sqrt, false, 0x4000, 0x3DA8, "sqrt 2 = 1.41421 -> 1.41406"},
    {MathFn::rsqrt, false, 0x4400, 0x3800, "rsqrt 4 = 1/2"},
    {MathFn::rsqrt, false, 0x8000, 0xFC00, "rsqrt(-0) = -Inf"},
    {MathFn::recip, false, 0x7BFF, 0x0100, "1/65504 = 1.5266e-5 -> subnormal 256 * 2^-24"},
    {MathFn::recip, false, 0x7E01, 0x7E00, "NaN -> canonical 0x7E00"},
    {MathFn::exp, true, 0x3F80, 0x402E, "e = 2.71828 -> 2.71875"},
    {MathFn::ln, true, 0x4000, 0x3F31, "ln 2 = 0.693147 -> 0.69140625"},
    {MathFn::sqrt, true, 0x4000, 0x3FB5, "sqrt 2 -> 1.4140625"},
    {MathFn::rsqrt, true, 0x0000, 0x7F80, "rsqrt(+0) = +Inf"},
    {MathFn::ln, true, 0xBF80, 0x7FC0, "ln(-1) = canonical NaN 0x7FC0"},
    {MathFn::exp, true, 0x42B2, 0x7F80, "e^89 -> +Inf"},
};

TEST(OpsMath, KnownAnswers16) {
  for (const auto& k : kKnown16) {
    const uint16_t got = k.bf16 ? math_bf16(k.f, k.x) : math_f16(k.f, k.x);
    EXPECT_EQ(got, k.want) << math_fn_name(k.f) << (k.bf16 ? " bf16 " : " fp16 ") << k.source;
  }
}

// Every fp16 and bf16 code, every function, against MPFR; the table path (math_array) too.
TEST(OpsMath, Exhaustive16) {
  Ref ref;
  std::vector<uint16_t> codes(65536), fast(65536);
  for (uint32_t c = 0; c < 65536; ++c) codes[c] = uint16_t(c);
  for (bool bf : {false, true}) {
    const DType dt = bf ? DType::bf16 : DType::fp16;
    for (MathFn f : kAll) {
      math_array(f, dt, codes.data(), fast.data(), 65536);
      size_t bad = 0;
      for (uint32_t c = 0; c < 65536; ++c) {
        const float x = bf ? tilesim::formats::bf16_to_f32(uint16_t(c))
                           : tilesim::formats::f16_to_f32(uint16_t(c));
        const double y = ref(f, x, bf ? math_ref::kBF16 : math_ref::kF16);
        const uint16_t want = bf ? math_ref::bf16_code(y) : math_ref::f16_code(y);
        const uint16_t got = bf ? math_bf16(f, uint16_t(c)) : math_f16(f, uint16_t(c));
        if ((got != want || fast[c] != want) && bad++ < 5)
          ADD_FAILURE() << (bf ? "bf16 " : "fp16 ") << math_fn_name(f) << "(0x" << std::hex << c
                        << ") = 0x" << got << " (table 0x" << fast[c] << "), MPFR 0x" << want;
      }
      EXPECT_EQ(bad, 0u) << (bf ? "bf16 " : "fp16 ") << math_fn_name(f);
    }
  }
}

// fp32 random codes against MPFR: uniform over codes (every exponent) and uniform in value over
// the ranges where the results are ordinary numbers.
TEST(OpsMath, F32RandomAgainstMpfr) {
  Ref ref;
  std::mt19937_64 g(20240601);
  constexpr size_t kN = 200000;
  for (MathFn f : kAll) {
    std::vector<uint32_t> codes;
    for (size_t i = 0; i < kN; ++i) codes.push_back(uint32_t(g()));
    std::uniform_real_distribution<float> u(f == MathFn::exp ? -104.0f : 0.0f,
                                            f == MathFn::exp ? 89.0f : 16.0f);
    for (size_t i = 0; i < kN; ++i) codes.push_back(f32_to_bits(u(g)));
    if (f == MathFn::exp)  // every exponent of |x| < 104, both signs
      for (size_t i = 0; i < kN; ++i) {
        const uint32_t c = uint32_t(g()) % 0x42D00000u;
        codes.push_back(c | (g() & 1 ? 0x80000000u : 0u));
      }
    expect_f32_matches(f, codes, ref, "random");
  }
}

// Every code in ranges where rounding is hard or the result changes kind: exp near 0 (results
// next to 1, where e^x - 1 ~ x lands near midpoints for x ~ ±2^-24, ±2^-25), at the subnormal,
// underflow and overflow thresholds; ln near 1, of subnormals, near FLT_MAX; rsqrt/sqrt/recip of
// subnormals and the largest values.
TEST(OpsMath, F32HardRangesAgainstMpfr) {
  Ref ref;
  auto around = [](std::vector<uint32_t>& v, float x, uint32_t radius) {
    const uint32_t c = f32_to_bits(x);
    for (uint32_t d = 0; d <= 2 * radius; ++d) v.push_back(c - radius + d);
  };
  std::vector<uint32_t> e, l, r;
  for (float x : {0x1p-24f, 0x1p-25f, 0x1p-23f, 0x1p-26f, -0x1p-24f, -0x1p-25f, -0x1p-23f,
                  -0x1p-26f, -87.3365f, -103.972f, 88.7228f, 1.0f, -1.0f})
    around(e, x, 20000);
  for (uint32_t c = 0x00000001; c < 0x00800000; c += 4099) e.push_back(c | 0x80000000u);
  around(l, 1.0f, 60000);
  for (uint32_t c = 0x00000001; c < 0x00800000; c += 127) l.push_back(c);
  around(l, 0x1.fffffcp127f, 2000);
  for (uint32_t c = 0x00000001; c < 0x00800000; c += 131) r.push_back(c);
  for (uint32_t c = 0x7F7FFFFF; c > 0x7F7F0000; --c) r.push_back(c);
  expect_f32_matches(MathFn::exp, e, ref, "hard range");
  expect_f32_matches(MathFn::ln, l, ref, "hard range");
  for (MathFn f : {MathFn::sqrt, MathFn::rsqrt, MathFn::recip})
    expect_f32_matches(f, r, ref, "hard range");
}

// rsqrt fp32 over [1, 4): every significand at both exponent parities. 1/sqrt(4^k x) = 2^-k /
// sqrt(x) exactly and every positive finite fp32 (subnormals included) is 4^k times a value of
// [1, 4) with no subnormal or overflowing result, so this covers all of rsqrt's rounding. The
// check is exact integer arithmetic: r is right iff the two midpoints around it bracket 1/sqrt(x),
// i.e. m_lo^2 x < 1 < m_hi^2 x (neither can be equal: 1/sqrt(x) is not a midpoint).
TEST(OpsMath, RsqrtF32TwoBinadesExact) {
  const uint32_t first = 0x3F800000u, last = 0x40800000u;  // [1, 4)
  std::vector<float> xs, fast(last - first);
  for (uint32_t c = first; c < last; ++c) xs.push_back(bits_to_f32(c));
  math_array(MathFn::rsqrt, DType::fp32, xs.data(), fast.data(), xs.size());
  size_t bad = 0;
  for (uint32_t c = first; c < last; ++c) {
    const float x = bits_to_f32(c);
    const float r = math_f32(MathFn::rsqrt, x);
    // x = X 2^-22 (X < 2^24 integer for x in [1, 4)); r in (1/2, 1]: r = R 2^-24 (R <= 2^24),
    // the midpoints (2R ± 1) 2^-25 (the lower one (2R - 1/2) 2^-25 when r = 1/2 exactly: below
    // 1/2 the spacing halves). m^2 x < 1  <=>  M^2 X < 2^(2*25+22) (M = 2m * 2^25 etc.).
    const u128 X = (c & 0x7FFFFFu) | 0x800000u;
    const int ex = int((c >> 23) & 0xFF) - 127;  // 0 or 1
    const u128 Xs = X << ex;                     // x = Xs 2^-23
    const uint32_t rb = f32_to_bits(r);
    const u128 R = (rb & 0x7FFFFFu) | 0x800000u;
    const int er = int((rb >> 23) & 0xFF) - 127;  // -1 or -2 .. 0
    // r = R 2^(er-23); midpoints (4R ± 2) 2^(er-25), the lower (4R - 1) 2^(er-25) at R = 2^23.
    const u128 Mhi = 4 * R + 2, Mlo = R == 0x800000u ? 4 * R - 1 : 4 * R - 2;
    // m^2 x = M^2 Xs 2^(2er - 50 - 23); compare with 1 = 2^(73 - 2er) in those units.
    const int sh = 73 - 2 * er;
    const u128 one = u128{1} << sh;
    const bool ok = Mlo * Mlo * Xs < one && Mhi * Mhi * Xs > one;
    if ((!ok || f32_to_bits(fast[c - first]) != rb) && bad++ < 5)
      ADD_FAILURE() << "rsqrt(0x" << std::hex << c << ") = 0x" << rb << " fast 0x"
                    << f32_to_bits(fast[c - first]);
  }
  EXPECT_EQ(bad, 0u);
}

// The SIMD kernels' error bounds as their comments state them (in ulps of the double result),
// measured against MPFR on every target; the kernels' midpoint windows are 4x these or more.
TEST(OpsMath, SimdErrorBoundsEveryTarget) {
  struct Bound {
    MathFn f;
    double ulps;
    float lo, hi;
  };
  const Bound bounds[] = {{MathFn::exp, 256.0, -87.3f, 88.7f},
                          {MathFn::ln, 1261.0, 0x1p-126f, 0x1.fffffep127f},
                          {MathFn::rsqrt, 2.2, 0x1p-149f, 0x1.fffffep127f}};
  Ref ref;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    std::mt19937_64 g{uint64_t(target)};
    for (const auto& b : bounds) {
      std::vector<float> xs;
      const uint32_t clo = f32_to_bits(b.lo), chi = f32_to_bits(b.hi);
      for (int i = 0; i < 20000; ++i) {  // uniform over codes, uniform in value, near 1
        const uint32_t c = clo + uint32_t(g() % (chi - clo + 1));
        xs.push_back(bits_to_f32(b.f == MathFn::exp ? c & 0x7FFFFFFFu : c));
        if (b.f == MathFn::exp) xs.back() = std::uniform_real_distribution<float>(b.lo, b.hi)(g);
        xs.push_back(bits_to_f32(f32_to_bits(1.0f) - 30000 + uint32_t(g() % 60000)));
        if (b.f == MathFn::exp) xs.push_back(std::uniform_real_distribution<float>(-1.0f, 1.0f)(g));
      }
      std::vector<double> ys(xs.size());
      tilesim::ops::math_simd_approx_f64(b.f, xs.data(), ys.data(), xs.size());
      double worst = 0.0;
      float worst_x = 0.0f;
      for (size_t i = 0; i < xs.size(); ++i) {
        if (b.f == MathFn::ln && xs[i] == 1.0f) {
          EXPECT_EQ(f32_to_bits(float(ys[i])), 0u);  // exactly +0
          continue;
        }
        const double e = ref.err_ulps(b.f, xs[i], ys[i]);
        if (e > worst) worst = e, worst_x = xs[i];
      }
      EXPECT_LE(worst, b.ulps) << hwy::TargetName(target) << " " << math_fn_name(b.f)
                               << " x=" << worst_x;
      std::printf("%-8s %-6s max error %.3g ulps of the double (bound %.3g)\n",
                  hwy::TargetName(target), math_fn_name(b.f), worst, b.ulps);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// Edge values of every function: zeros, subnormals, Inf, NaNs with payloads, kernel range limits
// and their neighbours, next to ordinary values at every lane position.
std::vector<uint32_t> edge_f32_codes() {
  std::vector<uint32_t> base = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF,
                                0x00800000, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF,
                                0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
                                0x7FC12345, 0xFFFFFFFF, 0x33800000, 0xB3800000, 0x33000000};
  for (float x : {-104.0f, -103.97f, -87.3365f, -87.3f, 88.7f, 88.7228f, 89.0f, 0.5f, 2.0f})
    base.push_back(f32_to_bits(x));
  std::vector<uint32_t> codes;
  for (uint32_t b : base)
    for (int d = -2; d <= 2; ++d) codes.push_back(b + uint32_t(d));
  return codes;
}

TEST(OpsMath, ArrayMatchesReferenceEveryTarget) {
  std::mt19937_64 g(7);
  const std::vector<uint32_t> edges = edge_f32_codes();
  // fp32: edges at every lane position among ordinary values, then random codes.
  std::vector<uint32_t> src;
  for (uint32_t c : edges)
    for (int pos = 0; pos < 16; ++pos)
      for (int k = 0; k < 16; ++k)
        src.push_back(k == pos ? c
                               : f32_to_bits(std::uniform_real_distribution<float>(0.1f, 8.0f)(g)));
  for (int i = 0; i < 50000; ++i) src.push_back(uint32_t(g()));
  for (int i = 0; i < 50000; ++i)
    src.push_back(f32_to_bits(std::uniform_real_distribution<float>(-30.0f, 30.0f)(g)));
  std::vector<uint16_t> src16;
  for (int i = 0; i < 20000; ++i) src16.push_back(uint16_t(g()));
  size_t checked = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (MathFn f : kAll) {
      std::vector<uint32_t> want(src.size()), got(src.size() + 64);
      math_array_reference(f, DType::fp32, src.data(), want.data(), src.size());
      math_array(f, DType::fp32, src.data(), got.data(), src.size());
      EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin()))
          << hwy::TargetName(target) << " " << math_fn_name(f);
      // Unaligned starts and odd lengths; nothing written past the end; in place.
      for (size_t off = 0; off < 17; ++off)
        for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(7), size_t(15), size_t(16),
                         size_t(17), size_t(31), size_t(33), size_t(100)}) {
          std::fill(got.begin(), got.end(), 0xDEADBEEFu);
          math_array(f, DType::fp32, src.data() + off, got.data() + off, n);
          for (size_t i = 0; i < got.size() && i < off + n + 8; ++i) {
            const uint32_t w = i >= off && i < off + n ? want[i] : 0xDEADBEEFu;
            ASSERT_EQ(got[i], w) << hwy::TargetName(target) << " " << math_fn_name(f) << " off "
                                 << off << " n " << n << " i " << i;
          }
          std::vector<uint32_t> inplace(src.begin() + long(off), src.begin() + long(off + n));
          math_array(f, DType::fp32, inplace.data(), inplace.data(), n);
          ASSERT_TRUE(std::equal(inplace.begin(), inplace.end(), want.begin() + long(off)))
              << "in place, " << hwy::TargetName(target) << " " << math_fn_name(f);
          ++checked;
        }
      for (DType dt : {DType::fp16, DType::bf16}) {
        std::vector<uint16_t> w16(src16.size()), g16(src16.size());
        math_array_reference(f, dt, src16.data(), w16.data(), src16.size());
        math_array(f, dt, src16.data() + 1, g16.data() + 1, src16.size() - 1);  // odd start
        g16[0] = w16[0];
        EXPECT_TRUE(w16 == g16) << hwy::TargetName(target) << " " << math_fn_name(f);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GT(checked, 100u);
}

// The exact path is rare, and the SIMD kernels hand few lanes to the definition on ordinary data.
TEST(OpsMath, FallbackRates) {
  std::mt19937_64 g(99);
  const size_t n = 1 << 21;
  std::vector<float> x(n), y(n);
  for (MathFn f : {MathFn::exp, MathFn::ln, MathFn::rsqrt}) {
    for (auto& v : x)
      v = f == MathFn::exp ? std::uniform_real_distribution<float>(-80.0f, 80.0f)(g)
                           : std::uniform_real_distribution<float>(1e-6f, 1e6f)(g);
    const uint64_t e0 = tilesim::ops::math_exact_count(f);
    const uint64_t r0 = tilesim::ops::math_simd_redone_count(f);
    math_array(f, DType::fp32, x.data(), y.data(), n);
    const uint64_t redone = tilesim::ops::math_simd_redone_count(f) - r0;
    const uint64_t e1 = tilesim::ops::math_exact_count(f);
    math_array_reference(f, DType::fp32, x.data(), y.data(), n);
    const uint64_t exact = tilesim::ops::math_exact_count(f) - e1;
    std::printf(
        "%-6s SIMD lanes redone %.2e, scalar exact (MPFR) %.2e of %zu inputs (SIMD run %llu)\n",
        math_fn_name(f), double(redone) / double(n), double(exact) / double(n), n,
        static_cast<unsigned long long>(e1 - e0));
    EXPECT_LT(double(redone) / double(n), 1e-3) << math_fn_name(f);
    EXPECT_LT(double(exact) / double(n), 1e-4) << math_fn_name(f);
  }
}

// Inputs that take the exact path, from several threads at once (MPFR's exponent range is per
// thread state; the library sets and restores it).
TEST(OpsMath, ExactPathAcrossThreads) {
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  std::vector<float> hard;
  const uint64_t before = tilesim::ops::math_exact_count(MathFn::exp);
  for (uint32_t c = f32_to_bits(0x1p-25f) - 3000; c < f32_to_bits(0x1p-25f) + 3000; ++c)
    hard.push_back(-bits_to_f32(c));  // e^x next to the midpoint 1 - 2^-25
  std::vector<uint32_t> want(hard.size());
  for (size_t i = 0; i < hard.size(); ++i) want[i] = m32(MathFn::exp, f32_to_bits(hard[i]));
  EXPECT_GT(tilesim::ops::math_exact_count(MathFn::exp), before);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      bool same = true;
      for (int rep = 0; rep < 3; ++rep)
        for (size_t i = 0; i < hard.size(); ++i)
          same = same && m32(MathFn::exp, f32_to_bits(hard[i])) == want[i];
      ok[t] = same;
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[t]) << "thread " << t;
  EXPECT_EQ(mpfr_get_emin(), emin);  // the caller's exponent range is restored
  EXPECT_EQ(mpfr_get_emax(), emax);
}

}  // namespace

// fp16 exp's fp32-lane kernel (math_simd F16Exp; the table for lanes near an fp16 midpoint or out
// of its range) and ln's table path (plain and saturated tables): every fp16 code, on every SIMD
// target, against the definition, out of place and in place, after lines of +Inf, with and without
// the saturation rule, at every start within a vector and odd lengths; nothing written past the
// end.
namespace {
void check_f16_kernel(MathFn f, const std::vector<uint16_t>& want) {
  std::vector<uint16_t> codes(65536);
  for (uint32_t c = 0; c < 65536; ++c) codes[c] = uint16_t(c);
  std::vector<uint16_t> want_sat(65536);
  for (uint32_t c = 0; c < 65536; ++c) want_sat[c] = uint16_t(tilesim::ops::saturate_code(DType::fp16, want[c]));
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    std::vector<uint16_t> got(65536 + 64, 0xABCD);
    for (bool sat : {false, true}) {
      const std::vector<uint16_t>& w = sat ? want_sat : want;
      math_array(f, DType::fp16, codes.data(), got.data(), 65536, sat);
      size_t bad = 0;
      for (uint32_t c = 0; c < 65536; ++c)
        if (got[c] != w[c] && bad++ < 5)
          ADD_FAILURE() << "fp16 " << math_fn_name(f) << "(0x" << std::hex << c << ") = 0x" << got[c]
                        << ", want 0x" << w[c] << " sat " << sat;
      EXPECT_EQ(bad, 0u);
      EXPECT_EQ(got[65536], 0xABCD);
      std::vector<uint16_t> in_place = codes;  // src == dst
      math_array(f, DType::fp16, in_place.data(), in_place.data(), 65536, sat);
      EXPECT_TRUE(in_place == w);
      // Every code again with a line of +Inf before each 32 of them: a line with an input outside
      // the fast range sends itself and the lines after it to the kernel's wide test (fp16 exp on
      // AVX-512, F16ExpWide), so codes of every range, in-range ones included, take that test too.
      std::vector<uint16_t> mixed, mixed_want;
      for (uint32_t c0 = 0; c0 < 65536; c0 += 32) {
        for (int j = 0; j < 32; ++j) mixed.push_back(0x7C00), mixed_want.push_back(w[0x7C00]);
        for (uint32_t c = c0; c < c0 + 32; ++c) mixed.push_back(uint16_t(c)), mixed_want.push_back(w[c]);
      }
      std::vector<uint16_t> mixed_got(mixed.size());
      math_array(f, DType::fp16, mixed.data(), mixed_got.data(), mixed.size(), sat);
      size_t mixed_bad = 0;
      for (size_t i = 0; i < mixed.size(); ++i)
        if (mixed_got[i] != mixed_want[i] && mixed_bad++ < 5)
          ADD_FAILURE() << "after +Inf: fp16 " << math_fn_name(f) << "(0x" << std::hex << mixed[i]
                        << ") = 0x" << mixed_got[i] << ", want 0x" << mixed_want[i] << " sat " << sat;
      EXPECT_EQ(mixed_bad, 0u);
    }
    for (size_t off = 0; off < 33; ++off)
      for (size_t n : {size_t(0), size_t(1), size_t(15), size_t(16), size_t(17), size_t(31),
                       size_t(33), size_t(100)}) {
        const size_t start = 0x4000 + 97 * off;  // codes about 2..10: fast lanes and table lanes
        std::fill(got.begin(), got.end(), uint16_t(0xABCD));
        math_array(f, DType::fp16, codes.data() + start, got.data() + off, n);
        for (size_t j = 0; j < n; ++j) ASSERT_EQ(got[off + j], want[start + j]) << off << " " << n;
        ASSERT_EQ(got[off + n], 0xABCD);
      }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(OpsMath, Fp16ExpKernel) {
  std::vector<uint16_t> codes(65536);
  for (uint32_t c = 0; c < 65536; ++c) codes[c] = uint16_t(c);
  std::vector<uint16_t> want(65536);
  math_array_reference(MathFn::exp, DType::fp16, codes.data(), want.data(), 65536);
  EXPECT_EQ(want[0x0000], 0x3C00);  // e^+0 = 1
  EXPECT_EQ(want[0x8000], 0x3C00);  // e^-0 = 1
  EXPECT_EQ(want[0x3C00], 0x4170);  // e = 2.71875 (0x4170) in fp16
  EXPECT_EQ(want[0x7C00], 0x7C00);  // e^+Inf = +Inf
  EXPECT_EQ(want[0xFC00], 0x0000);  // e^-Inf = +0
  EXPECT_EQ(want[0x4A00], 0x7C00);  // e^12 overflows
  check_f16_kernel(MathFn::exp, want);
}

TEST(OpsMath, Fp16LnKernel) {
  std::vector<uint16_t> codes(65536);
  for (uint32_t c = 0; c < 65536; ++c) codes[c] = uint16_t(c);
  std::vector<uint16_t> want(65536);
  math_array_reference(MathFn::ln, DType::fp16, codes.data(), want.data(), 65536);
  EXPECT_EQ(want[0x3C00], 0x0000);  // ln 1 = +0
  EXPECT_EQ(want[0x0000], 0xFC00);  // ln +0 = -Inf
  EXPECT_EQ(want[0x8000], 0xFC00);  // ln -0 = -Inf (IEEE)
  EXPECT_EQ(want[0xBC00], 0x7E00);  // ln -1 = NaN
  EXPECT_EQ(want[0x7C00], 0x7C00);  // ln +Inf = +Inf
  EXPECT_EQ(want[0x4000], 0x398C);  // ln 2 = 0.693359375 (0x398C) in fp16
  check_f16_kernel(MathFn::ln, want);
}
}  // namespace
