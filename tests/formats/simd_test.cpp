// The SIMD fast paths (src/formats/convert_simd.cpp) against the generic core, bit for bit, on
// every Highway target compiled in and supported by this CPU (spec 70 item 5): all 2^16 codes
// for decode, and every fp16/bf16 value, midpoint and midpoint neighbour plus random fp32 for
// encode, at odd lengths so every tail path runs. Then the public bulk API (threaded) against
// the scalar core for every format and mode.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "formats/convert_simd.hpp"
#include "reference.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/parallel.hpp"

namespace f = tilesim::formats;
namespace simd = tilesim::formats::simd;
using f::DType;

namespace {

// Every target, each made the dispatcher's choice in turn (restored afterwards).
template <class Fn>
void for_each_target(Fn fn) {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (int64_t t : targets) {
    hwy::SetSupportedTargetsForTest(t);
    SCOPED_TRACE(hwy::TargetName(t));
    ASSERT_EQ(simd::dispatched_target(), t) << "dispatch did not switch to " << hwy::TargetName(t);
    fn();
  }
  hwy::SetSupportedTargetsForTest(0);
}

// Encode inputs: every value of the 16-bit format, every midpoint of adjacent values and its
// fp32 neighbours (all exact in fp32), specials, and random fp32 bit patterns.
std::vector<float> encode_inputs(DType t, int nrandom = 300000) {
  std::vector<float> xs;
  std::vector<float> vals;
  for (uint32_t c = 0; c < 0x10000; ++c) {
    const double v = f::decode(c, t);
    if (std::isfinite(v)) vals.push_back(static_cast<float>(v));
  }
  std::sort(vals.begin(), vals.end());
  const float top = vals.back();
  const float above = top + (top - vals[vals.size() - 2]);  // the overflow step (finite in fp32)
  vals.push_back(std::isfinite(above) ? above : INFINITY);
  vals.insert(vals.begin(), -vals.back());
  for (size_t i = 0; i + 1 < vals.size(); ++i) {
    xs.push_back(vals[i]);
    if (!std::isfinite(vals[i]) || !std::isfinite(vals[i + 1])) continue;
    const float mid =
        static_cast<float>(static_cast<double>(vals[i]) / 2 + static_cast<double>(vals[i + 1]) / 2);
    xs.push_back(mid);
    xs.push_back(std::nextafter(mid, -INFINITY));
    xs.push_back(std::nextafter(mid, INFINITY));
  }
  for (uint32_t b : {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu,
                     0x7FBFFFFFu, 0x00000001u, 0x80000001u, 0x007FFFFFu, 0x7F7FFFFFu, 0xFF7FFFFFu,
                     0x477FF000u, 0x477FEFFFu, 0x33000000u, 0x33000001u, 0x32FFFFFFu, 0x38800000u,
                     0x387FFFFFu, 0x387FF000u, 0x7F7F8000u, 0x7F7F7FFFu, 0x7F7F8001u})
    xs.push_back(f::bits_to_f32(b));
  std::mt19937 rng(42);
  for (int i = 0; i < nrandom; ++i) xs.push_back(f::bits_to_f32(rng()));
  // fp16 subnormal-result range densely: |x| < 2^-14.
  for (int i = 0; i < nrandom / 3; ++i)
    xs.push_back(f::bits_to_f32((rng() % 0x38800000u) | (rng() & 0x80000000u)));
  return xs;
}

}  // namespace

TEST(FormatsSimd, ListsTargets) {
  std::string names;
  for (int64_t t : hwy::SupportedAndGeneratedTargets())
    names += std::string(hwy::TargetName(t)) + " ";
  std::printf("[formats] SIMD targets tested: %s\n", names.c_str());
  EXPECT_GE(hwy::SupportedAndGeneratedTargets().size(), 1u);
}

TEST(FormatsSimd, Decode16AllCodesEveryTarget) {
  std::vector<uint16_t> codes(0x10000);
  for (uint32_t c = 0; c < 0x10000; ++c) codes[c] = static_cast<uint16_t>(c);
  for_each_target([&] {
    for (DType t : {DType::fp16, DType::bf16}) {
      std::vector<float> out(codes.size() + 64, -1.0f);
      // Whole array, then odd lengths at odd offsets (tails).
      (t == DType::fp16 ? simd::f16_to_f32 : simd::bf16_to_f32)(codes.data(), out.data(),
                                                                codes.size());
      for (uint32_t c = 0; c < 0x10000; ++c)
        ASSERT_EQ(f::f32_to_bits(out[c]), f::f32_to_bits(f::decode_f32(c, t)))
            << f::name(t) << " " << c;
      for (size_t off : {1u, 3u, 100u})
        for (size_t n = 0; n < 40; ++n) {
          std::vector<float> o(n + 1, 7.0f);
          (t == DType::fp16 ? simd::f16_to_f32 : simd::bf16_to_f32)(codes.data() + off + 0x7BF0,
                                                                    o.data(), n);
          for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(f::f32_to_bits(o[i]), f::f32_to_bits(f::decode_f32(off + 0x7BF0 + i, t)));
          ASSERT_EQ(o[n], 7.0f) << "wrote past the end";
        }
    }
  });
}

TEST(FormatsSimd, Encode16EveryTarget) {
  for (DType t : {DType::fp16, DType::bf16}) {
    const std::vector<float> xs = encode_inputs(t);
    std::vector<uint16_t> want(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) want[i] = static_cast<uint16_t>(f::encode(xs[i], t));
    // The inline helpers agree with the core too (they serve other engines' scalar loops).
    for (size_t i = 0; i < xs.size(); ++i)
      ASSERT_EQ(t == DType::fp16 ? f::f32_to_f16(xs[i]) : f::f32_to_bf16(xs[i]), want[i])
          << std::hexfloat << xs[i];
    for_each_target([&] {
      std::vector<uint16_t> got(xs.size() + 1, 0xABCD);
      (t == DType::fp16 ? simd::f32_to_f16 : simd::f32_to_bf16)(xs.data(), got.data(), xs.size());
      for (size_t i = 0; i < xs.size(); ++i)
        ASSERT_EQ(got[i], want[i]) << f::name(t) << " x=" << std::hexfloat << xs[i] << " bits "
                                   << std::hex << f::f32_to_bits(xs[i]);
      ASSERT_EQ(got[xs.size()], 0xABCD);
      for (size_t n = 0; n < 40; ++n) {
        std::vector<uint16_t> o(n + 1, 0xABCD);
        (t == DType::fp16 ? simd::f32_to_f16 : simd::f32_to_bf16)(xs.data() + 5, o.data(), n);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(o[i], want[5 + i]);
        ASSERT_EQ(o[n], 0xABCD);
      }
    });
  }
}

TEST(FormatsSimd, Lut8EveryTarget) {
  std::vector<uint8_t> codes(256 * 3 + 13);
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<uint8_t>(i * 7 + 3);
  for_each_target([&] {
    for (DType t : {DType::e4m3, DType::e5m2, DType::e8m0, DType::e3m2}) {
      std::vector<float> lut(256);
      for (unsigned c = 0; c < 256; ++c) lut[c] = f::decode_f32(c, t);
      for (size_t n : {codes.size(), size_t{1}, size_t{15}, size_t{17}, size_t{0}}) {
        std::vector<float> out(n + 1, 9.0f);
        simd::lut8_to_f32(codes.data(), lut.data(), out.data(), n);
        for (size_t i = 0; i < n; ++i)
          ASSERT_EQ(f::f32_to_bits(out[i]), f::f32_to_bits(lut[codes[i]]));
        ASSERT_EQ(out[n], 9.0f);
      }
    }
  });
}

// The public bulk functions equal the scalar core element by element for every format, mode
// and saturation, with arrays above the threading grain and odd lengths (packed tails).
TEST(FormatsBulk, MatchesScalarCoreEveryFormatAndMode) {
  std::mt19937_64 rng(7);
  const size_t nmax = (size_t{1} << 17) + 3;  // > 2 chunks of 64 Ki, odd
  std::vector<float> vals(nmax);
  std::vector<double> vals64(nmax);
  for (size_t i = 0; i < nmax; ++i) {
    const int kind = static_cast<int>(rng() % 4);
    double v;
    if (kind == 0)
      v = f::bits_to_f32(static_cast<uint32_t>(rng()));
    else if (kind == 1)
      v = std::ldexp(static_cast<double>(static_cast<int64_t>(rng()) >> 40),
                     -static_cast<int>(rng() % 30));
    else if (kind == 2)
      v = static_cast<double>(static_cast<int64_t>(rng() >> 1) >> (rng() % 63)) *
          ((rng() & 1) ? 1 : -1);
    else
      v = std::ldexp(1.0 + static_cast<double>(rng() % 64) / 64,
                     static_cast<int>(rng() % 40) - 20) *
          ((rng() & 1) ? 1 : -1);
    vals[i] = static_cast<float>(v);
    vals64[i] = v + (kind == 3 ? std::ldexp(1.0, -40) : 0.0);
  }
  // Every mode on a short odd array; three modes on an array above two threading chunks.
  tilesim::set_num_threads(3);
  {
    for (const f::FormatInfo& fi : f::all_formats()) {
      const DType t = fi.id;
      SCOPED_TRACE(fi.name);
      struct Run {
        f::Rounding m;
        bool sat;
        size_t n;
      };
      std::vector<Run> runs = {{f::Rounding::rne, false, nmax}, {f::Rounding::rtz, true, nmax}};
      if (f::rounding_supported(t, f::Rounding::rto))
        runs.push_back({f::Rounding::rto, false, nmax});
      for (f::Rounding m : ref::kModes)
        if (f::rounding_supported(t, m))  // rto into e8m0: rules_test checks the error
          for (bool sat : {false, true}) runs.push_back({m, sat, 4099});
      for (const Run& run : runs) {
        const f::Rounding m = run.m;
        const bool sat = run.sat;
        const size_t n = run.n;
        const size_t bytes = f::storage_bytes(t, n);
        std::vector<uint8_t> c32(bytes, 0xEE), c64(bytes, 0xEE);
        f::encode_array(vals.data(), t, c32.data(), n, m, sat);
        f::encode_array_f64(vals64.data(), t, c64.data(), n, m, sat);
        for (size_t i = 0; i < n; i += (i < 4096 ? 1 : 13)) {
          uint64_t a = 0, b = 0;
          if (fi.storage_bits == 4) {
            a = f::get_nibble(c32.data(), i), b = f::get_nibble(c64.data(), i);
          } else {
            std::memcpy(&a, c32.data() + i * (fi.storage_bits / 8), fi.storage_bits / 8);
            std::memcpy(&b, c64.data() + i * (fi.storage_bits / 8), fi.storage_bits / 8);
          }
          ASSERT_EQ(a, f::encode(vals[i], t, m, sat)) << i << " x=" << vals[i];
          ASSERT_EQ(b, f::encode(vals64[i], t, m, sat)) << i << " x=" << vals64[i];
        }
        if (fi.storage_bits == 4) {
          ASSERT_EQ(c32.back() >> 4, 0) << "padding nibble";
        }
        if (m != f::Rounding::rne || sat) continue;
        // Decode back (codes from the encoder cover NaN/Inf/subnormal codes too).
        std::vector<float> d32(n);
        std::vector<double> d64(n);
        f::decode_array(c32.data(), t, d32.data(), n);
        f::decode_array_f64(c32.data(), t, d64.data(), n);
        for (size_t i = 0; i < n; i += (i < 4096 ? 1 : 13)) {
          uint64_t a = 0;
          if (fi.storage_bits == 4)
            a = f::get_nibble(c32.data(), i);
          else
            std::memcpy(&a, c32.data() + i * (fi.storage_bits / 8), fi.storage_bits / 8);
          ASSERT_EQ(f::f32_to_bits(d32[i]), f::f32_to_bits(f::decode_f32(a, t))) << i;
          const double r = f::decode(a, t);
          if (std::isnan(r)) {
            ASSERT_TRUE(std::isnan(d64[i]));
          } else {
            ASSERT_EQ(d64[i], r);
          }
        }
      }
    }
  }
  tilesim::set_num_threads(0);
}

TEST(FormatsBulk, NonCanonicalContainersAndNanCodesDecodeLikeTheCore) {
  const uint32_t codes[] = {0x7F800001u, 0x7F802000u, 0xFFC00001u,
                            0x3F801FFFu, 0x00000FFFu, 0x80001000u};
  for (DType t : {DType::fp32, DType::tf32, DType::hf32}) {
    float out[6];
    f::decode_array(codes, t, out, 6);
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(f::f32_to_bits(out[i]), f::f32_to_bits(f::decode_f32(codes[i], t))) << i;
  }
  // fp16/bf16 NaN payloads decode to the canonical NaN.
  const uint16_t h[] = {0x7C01, 0xFE00, 0x7FFF, 0xFC01};
  const uint16_t b[] = {0x7F81, 0xFFC0, 0x7FFF, 0xFF81};
  float o[4];
  f::decode_array(h, DType::fp16, o, 4);
  for (float v : o) EXPECT_EQ(f::f32_to_bits(v), 0x7FC00000u);
  f::decode_array(b, DType::bf16, o, 4);
  for (float v : o) EXPECT_EQ(f::f32_to_bits(v), 0x7FC00000u);
}

// The SIMD minifloat encoder (every float format but fp64/fp32/e8m0, every mode, saturation)
// equals the core on every target: each format's values, midpoints and their fp32 neighbours,
// specials, fp32 subnormals and random bit patterns.
TEST(FormatsSimd, MiniEncodeEveryFormatModeAndTarget) {
  const DType fmts[] = {DType::fp16, DType::bf16, DType::e4m3, DType::e5m2, DType::e3m2,
                        DType::e2m3, DType::e2m1, DType::e1m2, DType::tf32, DType::hf32};
  std::mt19937 rng(99);
  for (DType t : fmts) {
    SCOPED_TRACE(f::name(t));
    const f::FormatInfo& fi = f::info(t);
    std::vector<float> xs;
    if (fi.storage_bits <= 16) {
      xs = encode_inputs(t, 30000);  // values/midpoints of 16-bit formats; 8-/4-bit below
      if (fi.storage_bits < 16) {
        xs.clear();
        std::vector<double> vals;
        for (uint32_t c = 0; c < (1u << fi.code_bits); ++c)
          if (std::isfinite(f::decode(c, t))) vals.push_back(f::decode(c, t));
        std::sort(vals.begin(), vals.end());
        const double top = vals.back(), step = top - vals[vals.size() - 2];
        vals.push_back(top + step);
        vals.insert(vals.begin(), -(top + step));
        for (size_t i = 0; i + 1 < vals.size(); ++i) {
          const float mid = static_cast<float>(vals[i] / 2 + vals[i + 1] / 2);
          for (float x : {static_cast<float>(vals[i]), mid, std::nextafter(mid, -INFINITY),
                          std::nextafter(mid, INFINITY)})
            xs.push_back(x);
        }
        for (uint32_t b : {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x00000001u,
                           0x80000001u, 0x7F7FFFFFu})
          xs.push_back(f::bits_to_f32(b));
        for (int i = 0; i < 50000; ++i) xs.push_back(f::bits_to_f32(rng()));
      }
    } else {
      for (int i = 0; i < 50000; ++i) {
        const uint32_t c = rng();
        xs.push_back(f::bits_to_f32(c));
        const uint32_t lo = c & ~((1u << fi.man_shift) - 1) & 0x7FFFFFFFu;
        if (lo + (1u << fi.man_shift) < 0x7F800000u) {
          const float mid = static_cast<float>(
              static_cast<double>(f::bits_to_f32(lo)) / 2 +
              static_cast<double>(f::bits_to_f32(lo + (1u << fi.man_shift))) / 2);
          xs.push_back((c & 1) ? -mid : mid);
          xs.push_back(std::nextafter(mid, INFINITY));
        }
      }
    }
    // Long enough for full vectors, plus an odd tail.
    while (xs.size() % 64 != 37) xs.push_back(f::bits_to_f32(rng()));
    const size_t n = xs.size(), bytes = f::storage_bytes(t, n);
    for (f::Rounding m : ref::kModes)
      for (bool sat : {false, true}) {
        std::vector<uint64_t> want(n);
        for (size_t i = 0; i < n; ++i) want[i] = f::encode(xs[i], t, m, sat);
        for_each_target([&] {
          std::vector<uint8_t> out(bytes + 1, 0xA5);
          f::encode_array(xs.data(), t, out.data(), n, m, sat);
          for (size_t i = 0; i < n; ++i) {
            uint64_t c = 0;
            if (fi.storage_bits == 4)
              c = f::get_nibble(out.data(), i);
            else
              std::memcpy(&c, out.data() + i * (fi.storage_bits / 8), fi.storage_bits / 8);
            ASSERT_EQ(c, want[i]) << "x=" << std::hexfloat << xs[i] << " " << f::name(m) << " sat "
                                  << sat;
          }
          ASSERT_EQ(out[bytes], 0xA5) << "wrote past the end";
        });
      }
  }
}

// The memory-bound paths thread only above 1 Mi elements: results with 1 and 3 threads are
// identical on an array of two chunks plus a tail, and equal the core (spot-checked).
TEST(FormatsBulk, MemoryBoundPathsThreadIdentically) {
  const size_t n = (size_t{1} << 21) + 5;
  std::mt19937 rng(5);
  std::vector<float> x(n);
  for (float& v : x) v = f::bits_to_f32(rng());
  for (DType t : {DType::fp16, DType::bf16, DType::e4m3, DType::fp32, DType::tf32}) {
    SCOPED_TRACE(f::name(t));
    const size_t bytes = f::storage_bytes(t, n);
    std::vector<uint8_t> c1(bytes), c3(bytes);
    std::vector<float> d1(n), d3(n);
    tilesim::set_num_threads(1);
    f::encode_array(x.data(), t, c1.data(), n);
    f::decode_array(c1.data(), t, d1.data(), n);
    tilesim::set_num_threads(3);
    f::encode_array(x.data(), t, c3.data(), n);
    f::decode_array(c1.data(), t, d3.data(), n);
    tilesim::set_num_threads(0);
    ASSERT_EQ(c1, c3);
    ASSERT_EQ(0, std::memcmp(d1.data(), d3.data(), n * 4));
    const size_t w = f::info(t).storage_bits / 8;
    for (size_t i = 0; i < n; i += 97) {
      uint64_t c = 0;
      std::memcpy(&c, c1.data() + i * w, w);
      ASSERT_EQ(c, f::encode(x[i], t)) << i;
      ASSERT_EQ(f::f32_to_bits(d1[i]), f::f32_to_bits(f::decode_f32(c, t))) << i;
    }
  }
}

// 8-bit decode (arithmetic kernel for fp8/fp6, table for e8m0 and integers): all 256 codes,
// at several lengths and offsets, on every target, equal to the core.
TEST(FormatsSimd, Decode8AllCodesEveryTarget) {
  std::vector<uint8_t> codes(256 * 4 + 19);
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<uint8_t>(i * 37 + (i >> 8));
  for_each_target([&] {
    for (DType t :
         {DType::e4m3, DType::e5m2, DType::e3m2, DType::e2m3, DType::e8m0, DType::s8, DType::u8}) {
      SCOPED_TRACE(f::name(t));
      for (size_t off : {0u, 1u, 5u})
        for (size_t n :
             {codes.size() - 5, size_t{0}, size_t{1}, size_t{7}, size_t{16}, size_t{33}}) {
          std::vector<float> out(n + 1, 3.0f);
          f::decode_array(codes.data() + off, t, out.data(), n);
          for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(f::f32_to_bits(out[i]), f::f32_to_bits(f::decode_f32(codes[off + i], t)))
                << int(codes[off + i]);
          ASSERT_EQ(out[n], 3.0f);
        }
    }
  });
}

// The double-input bulk encoder (Python's float64 path) equals the core for every float format
// it serves, every mode and saturation: each format's midpoints and their double neighbours,
// values, the overflow step, specials, and random doubles of every magnitude.
TEST(FormatsBulk, F64EncoderEqualsCoreEverywhere) {
  std::mt19937_64 rng(11);
  const DType fmts[] = {DType::fp32, DType::tf32, DType::hf32, DType::fp16,
                        DType::bf16, DType::e4m3, DType::e5m2, DType::e3m2,
                        DType::e2m3, DType::e2m1, DType::e1m2};
  for (DType t : fmts) {
    SCOPED_TRACE(f::name(t));
    const f::FormatInfo& fi = f::info(t);
    std::vector<double> xs = {
        0.0,      -0.0,    INFINITY, -INFINITY, NAN,           -NAN,           5e-324,
        -5e-324,  1e308,   -1e308,   0x1p-1022, fi.max_finite, -fi.max_finite, 2 * fi.max_finite,
        0x1p-149, 0x1p-150};
    if (fi.storage_bits <= 16) {
      std::vector<double> vals;
      for (uint32_t c = 0; c < (1u << fi.code_bits); ++c)
        if (std::isfinite(f::decode(c, t))) vals.push_back(f::decode(c, t));
      std::sort(vals.begin(), vals.end());
      vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
      const double top = vals.back(), step = top - vals[vals.size() - 2];
      vals.push_back(top + step);
      vals.insert(vals.begin(), -(top + step));
      for (size_t i = 0; i + 1 < vals.size(); ++i) {
        const double mid = vals[i] / 2 + vals[i + 1] / 2;
        for (double x :
             {vals[i], mid, std::nextafter(mid, -INFINITY), std::nextafter(mid, INFINITY)})
          xs.push_back(x);
      }
    }
    for (int i = 0; i < 40000; ++i) {
      uint64_t b = rng();
      double d;
      std::memcpy(&d, &b, 8);
      xs.push_back(d);  // any double
      const int e = static_cast<int>(rng() % 320) - 170;
      xs.push_back(std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 11), -53), e) *
                   ((rng() & 1) ? -1 : 1));
    }
    const size_t n = xs.size(), w = fi.storage_bits / 8;
    for (f::Rounding m : ref::kModes)
      for (bool sat : {false, true}) {
        std::vector<uint8_t> out(f::storage_bytes(t, n));
        f::encode_array_f64(xs.data(), t, out.data(), n, m, sat);
        for (size_t i = 0; i < n; ++i) {
          uint64_t c = 0;
          if (fi.storage_bits == 4)
            c = f::get_nibble(out.data(), i);
          else
            std::memcpy(&c, out.data() + i * w, w);
          ASSERT_EQ(c, f::encode(xs[i], t, m, sat))
              << "x=" << std::hexfloat << xs[i] << " " << f::name(m) << " sat " << sat;
        }
      }
  }
}
