// LinxISA benchmarks (spec 60 §6): one TMATMUL.BIAS block through the machine (tiles packed
// beforehand, sources .reuse so they stay live), a plain scalar triple loop of the same
// semantics for the speed-up ratio, and the direct GEMM entry at large sizes per type.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <random>
#include <string>
#include <vector>

#include "tilesim/linx.hpp"
#include "tilesim/parallel.hpp"

namespace {
namespace lx = tilesim::linx;
using tilesim::formats::DType;

std::vector<uint8_t> codes(DType t, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const size_t cb = lx::carrier_bytes(t);
  std::vector<uint8_t> out(n * cb);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t c = tilesim::formats::is_float(t) ? tilesim::formats::encode(u(rng), t) : rng() % 15;
    std::memcpy(out.data() + i * cb, &c, cb);
  }
  return out;
}

void block(benchmark::State& st, size_t n, size_t threads) {
  tilesim::set_num_threads(threads);
  lx::Machine m;
  const auto a = codes(DType::fp32, n * n, 1), b = codes(DType::fp32, n * n, 2), bias = codes(DType::fp32, n, 3);
  m.push_tile('T', a.data(), n, n, DType::fp32, lx::Layout::nz);
  m.push_tile('U', b.data(), n, n, DType::fp32, lx::Layout::zn);
  m.push_tile('N', bias.data(), 1, n, DType::fp32, lx::Layout::nd);
  const std::string d = std::to_string(n);
  const auto words = lx::assemble("TMATMUL.BIAS <M:" + d + ", N:" + d + ", K:" + d + ", FP32>, T#1.reuse, U#1.reuse, N#1.reuse, ->ACC<" +
                                  std::to_string(n * n * 4 / 1024) + "KB>");
  for (auto _ : st) {
    m.run(words);
    benchmark::DoNotOptimize(m.acc().data.data());
  }
  st.counters["GFLOPS"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  tilesim::set_num_threads(0);
}

// The baseline of the 40x target: the spec 30 §3 loop written plainly (fp32, fma chain, bias).
void scalar_loop(benchmark::State& st, size_t n) {
  std::vector<float> A(n * n), B(n * n), bias(n), C(n * n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& x : A) x = u(rng);
  for (auto& x : B) x = u(rng);
  for (auto& x : bias) x = u(rng);
  for (auto _ : st) {
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (size_t k = 0; k < n; ++k) acc = std::fma(A[i * n + k], B[k * n + j], acc);
        acc = acc + bias[j];
        C[i * n + j] = std::isnan(acc) ? NAN : acc;
      }
    benchmark::DoNotOptimize(C.data());
  }
}

void gemm(benchmark::State& st, DType t, size_t n, size_t threads) {
  tilesim::set_num_threads(threads);
  const auto a = codes(t, n * n, 1), b = codes(t, n * n, 2);
  std::vector<uint32_t> bias(n, 0), acc(n * n);
  for (auto _ : st) {
    lx::gemm({a.data(), n, n}, {b.data(), n, n}, bias.data(), acc.data(), {t, t});
    benchmark::DoNotOptimize(acc.data());
  }
  st.counters["GFLOPS"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  tilesim::set_num_threads(0);
}

int reg = [] {
  const size_t all = std::max<size_t>(1, std::thread::hardware_concurrency());
  for (size_t n : {64, 128})
    for (size_t th : {size_t{1}, all})
      benchmark::RegisterBenchmark(("BM_linx_tmatmul_bias/fp32/" + std::to_string(n) + "x" + std::to_string(n) + "x" +
                                    std::to_string(n) + "/threads:" + std::to_string(th)).c_str(),
                                   [n, th](benchmark::State& s) { block(s, n, th); })
          ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_linx_scalar_loop/fp32/64x64x64", [](benchmark::State& s) { scalar_loop(s, 64); })
      ->Unit(benchmark::kMicrosecond);
  const std::pair<DType, const char*> types[] = {
      {DType::fp32, "fp32"}, {DType::fp16, "fp16"}, {DType::bf16, "bf16"}, {DType::e4m3, "e4m3"}, {DType::s8, "s8"}};
  for (const auto& [t, name] : types)
    for (size_t n : {256, 512, 1024})
      for (size_t th : {size_t{1}, all}) {
        const std::string nm = "BM_linx_gemm/" + std::string(name) + "/" + std::to_string(n) + "x" + std::to_string(n) + "x" +
                               std::to_string(n) + "/threads:" + std::to_string(th);
        const DType tt = t;
        benchmark::RegisterBenchmark(nm.c_str(), [tt, n, th](benchmark::State& s) { gemm(s, tt, n, th); })
            ->Unit(benchmark::kMillisecond);
      }
  return 0;
}();
}  // namespace
