// All 2^32 fp32 inputs of exp, ln, sqrt, rsqrt, recip: math_array on every SIMD target against
// the scalar definition (math_array_reference), bit for bit (spec 15 §5); the fourth and later
// targets on every 8th block of 2^20 codes. A few minutes in a release build, so DISABLED_ here
// (sanitizer and debug builds skip it) and run by CMake as OpsExhaustive.MathF32AllCodes in
// release builds only. The definition itself is checked against MPFR by math_test.cpp.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "ops/math.hpp"

namespace {

using tilesim::formats::DType;
using tilesim::ops::MathFn;

TEST(OpsMathExhaustive, DISABLED_F32AllCodes) {
  constexpr size_t kChunk = size_t(1) << 20;
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::vector<uint32_t> src(kChunk), ref(kChunk), fast(kChunk);
  // The reference (the slow part) on two threads; SIMD targets switch globally, so they run here.
  const unsigned workers = std::max(1u, std::min(2u, std::thread::hardware_concurrency()));
  for (MathFn f : {MathFn::exp, MathFn::ln, MathFn::rsqrt, MathFn::sqrt, MathFn::recip}) {
    size_t bad = 0;
    std::vector<double> seconds(targets.size() + 1, 0.0);  // per target, then the reference
    auto now = [] { return std::chrono::steady_clock::now(); };
    for (uint64_t base = 0; base < (uint64_t(1) << 32); base += kChunk) {
      for (size_t i = 0; i < kChunk; ++i) src[i] = uint32_t(base + i);
      auto t0 = now();
      std::vector<std::thread> threads;
      for (unsigned w = 0; w < workers; ++w)
        threads.emplace_back([&, w] {
          const size_t lo = kChunk * w / workers, hi = kChunk * (w + 1) / workers;
          tilesim::ops::math_array_reference(f, DType::fp32, src.data() + lo, ref.data() + lo,
                                             hi - lo);
        });
      for (auto& t : threads) t.join();
      seconds.back() += std::chrono::duration<double>(now() - t0).count();
      for (size_t ti = 0; ti < targets.size(); ++ti) {
        const int64_t target = targets[ti];
        // The targets after the first three (SSSE3, EMU128/SCALAR: the no-FMA formulas SSE4
        // already runs over every code) take every 8th chunk, to keep the test to minutes.
        if (ti >= 3 && (base / kChunk) % 8 != 0) continue;
        hwy::SetSupportedTargetsForTest(target);
        t0 = now();
        tilesim::ops::math_array(f, DType::fp32, src.data(), fast.data(), kChunk);
        seconds[ti] += std::chrono::duration<double>(now() - t0).count();
        if (std::equal(ref.begin(), ref.end(), fast.begin())) continue;
        for (size_t i = 0; i < kChunk; ++i)
          if (fast[i] != ref[i] && bad++ < 10)
            ADD_FAILURE() << hwy::TargetName(target) << " " << tilesim::ops::math_fn_name(f)
                          << "(0x" << std::hex << src[i] << ") = 0x" << fast[i] << ", definition 0x"
                          << ref[i];
      }
      hwy::SetSupportedTargetsForTest(0);
    }
    EXPECT_EQ(bad, 0u) << tilesim::ops::math_fn_name(f);
    std::printf("%s: all 2^32 fp32 codes, %zu mismatches; seconds: definition %.1f (%u threads)",
                tilesim::ops::math_fn_name(f), bad, seconds.back(), workers);
    for (size_t ti = 0; ti < targets.size(); ++ti)
      std::printf(", %s %.1f", hwy::TargetName(targets[ti]), seconds[ti]);
    std::printf("\n");
    std::fflush(stdout);
  }
}

}  // namespace
