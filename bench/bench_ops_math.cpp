// Correctly rounded exp/ln/sqrt/rsqrt/recip over 1 Mi contiguous elements (src/ops/math.hpp,
// spec 15 §1): the fp32 SIMD kernels and the fp16 table path. Names are
// BM_ops_math_<fn>/<dtype>/1Mi, the `bench` field of bench/peers_ops_math.py (NumPy, PyTorch).
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "ops/math.hpp"
#include "tilesim/formats.hpp"

namespace {

namespace f = tilesim::formats;
using tilesim::ops::MathFn;
constexpr size_t kN = size_t{1} << 20;

// exp: uniform in [-20, 20] (softmax-like differences); the others: uniform in (0, 40].
const std::vector<float>& inputs(MathFn fn) {
  static const std::vector<float> e = [] {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> d(-20.0f, 20.0f);
    std::vector<float> x(kN);
    for (float& v : x) v = d(rng);
    return x;
  }();
  static const std::vector<float> p = [] {
    std::mt19937 rng(2);
    std::uniform_real_distribution<float> d(0.0f, 40.0f);
    std::vector<float> x(kN);
    for (float& v : x) v = 40.0f - d(rng);
    return x;
  }();
  return fn == MathFn::exp ? e : p;
}

void math_f32(benchmark::State& st, MathFn fn) {
  const std::vector<float>& x = inputs(fn);
  std::vector<float> out(kN);
  for (auto _ : st) {
    tilesim::ops::math_array(fn, f::DType::fp32, x.data(), out.data(), kN);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kN));
}

void math_f16(benchmark::State& st, MathFn fn) {
  std::vector<uint16_t> x(kN), out(kN);
  for (size_t i = 0; i < kN; ++i) x[i] = f::f32_to_f16(inputs(fn)[i]);
  tilesim::ops::math_array(fn, f::DType::fp16, x.data(), out.data(), kN);  // builds the table
  for (auto _ : st) {
    tilesim::ops::math_array(fn, f::DType::fp16, x.data(), out.data(), kN);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kN));
}

const int kRegistered = [] {
  for (MathFn fn : {MathFn::exp, MathFn::ln, MathFn::sqrt, MathFn::rsqrt, MathFn::recip}) {
    const std::string name = tilesim::ops::math_fn_name(fn);
    benchmark::RegisterBenchmark(("BM_ops_math_" + name + "/fp32/1Mi").c_str(), math_f32, fn)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_ops_math_" + name + "/fp16/1Mi").c_str(), math_f16, fn)
        ->Unit(benchmark::kMicrosecond);
  }
  return 0;
}();

}  // namespace
