// Format conversion benchmarks (spec 60 §6): fp32 -> bf16/fp16/e4m3 codes and back over 1 Mi
// elements. Names are BM_formats_<op>/<dtype>/1Mi, the `bench` field of bench/peers_formats.py.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "tilesim/formats.hpp"

namespace {

namespace f = tilesim::formats;
constexpr size_t kN = size_t{1} << 20;

// Normal values spread over a few binades (a realistic activation distribution).
const std::vector<float>& inputs() {
  static const std::vector<float> v = [] {
    std::mt19937 rng(1);
    std::normal_distribution<float> d(0.0f, 8.0f);
    std::vector<float> x(kN);
    for (float& e : x) e = d(rng);
    return x;
  }();
  return v;
}

void encode(benchmark::State& st, f::DType t) {
  const std::vector<float>& x = inputs();
  std::vector<uint8_t> out(f::storage_bytes(t, kN));
  for (auto _ : st) {
    f::encode_array(x.data(), t, out.data(), kN);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kN));
}

void decode(benchmark::State& st, f::DType t) {
  std::vector<uint8_t> codes(f::storage_bytes(t, kN));
  f::encode_array(inputs().data(), t, codes.data(), kN);
  std::vector<float> out(kN);
  for (auto _ : st) {
    f::decode_array(codes.data(), t, out.data(), kN);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kN));
}

const int kRegistered = [] {
  for (f::DType t : {f::DType::bf16, f::DType::fp16, f::DType::e4m3}) {
    const std::string d(f::name(t));
    benchmark::RegisterBenchmark(("BM_formats_encode/" + d + "/1Mi").c_str(), encode, t)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_formats_decode/" + d + "/1Mi").c_str(), decode, t)
        ->Unit(benchmark::kMicrosecond);
  }
  return 0;
}();

}  // namespace
