// Benchmarks of PTO whole kernels (spec 60 §6, issue 17 "Speed"): the flash-attention example
// (BM_pto_attention/S<s>/D<d>, fp16 Q K V, fp32 softmax, a5), the tiled GEMM example
// (BM_pto_tiled_gemm/<n>: n x n x n fp16 -> fp32 on a2a3's path, 128 x 256 blocks, K steps of
// 64), TMATMUL alone (BM_pto_tmatmul/<f32|f16>/<n>: Left n x n by Right n x n into Acc), TLOAD /
// TSTORE of an ND view into / from a RowMajor Vec tile (BM_pto_tload/f32/<R>x<C>,
// BM_pto_tstore/...), and the fixed cost of an instruction on a one-block tile
// (BM_pto_tload/f32/1x8, BM_pto_tmov/f32/1x8).
// bench/peers_pto_kernel.py has the NumPy / PyTorch / OpenBLAS / memcpy peers. The kernels are
// the examples' own code (examples/pto/*.hpp), called through the vendor C++ API.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "../examples/pto/flash_attention.hpp"
#include "../examples/pto/tiled_gemm.hpp"

namespace {
using namespace pto;

std::vector<half> halves(size_t n, float scale, float phase) {
  std::vector<half> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = half(std::sin(0.37f * float(i) + phase) * scale);
  return v;
}

template <int S, int D>
void BM_attention(benchmark::State& st) {
  set_target("a5");
  const auto q = halves(static_cast<size_t>(S) * D, 0.5f, 0.0f), k = halves(static_cast<size_t>(S) * D, 0.5f, 1.0f),
             v = halves(static_cast<size_t>(S) * D, 1.0f, 2.0f);
  std::vector<float> o(static_cast<size_t>(S) * D);
  for (auto _ : st) {
    example::flash_attention<S, D>(q.data(), k.data(), v.data(), o.data());
    benchmark::DoNotOptimize(o.data());
  }
  set_target("a2a3");
}
BENCHMARK(BM_attention<128, 64>)->Name("BM_pto_attention/S128/D64")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_attention<512, 64>)->Name("BM_pto_attention/S512/D64")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_attention<2048, 64>)->Name("BM_pto_attention/S2048/D64")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_attention<128, 128>)->Name("BM_pto_attention/S128/D128")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_attention<512, 128>)->Name("BM_pto_attention/S512/D128")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_attention<2048, 128>)->Name("BM_pto_attention/S2048/D128")->Unit(benchmark::kMicrosecond);

template <int N>
void BM_tiled_gemm(benchmark::State& st) {
  const auto a = halves(static_cast<size_t>(N) * N, 1.0f, 0.0f), b = halves(static_cast<size_t>(N) * N, 1.0f, 1.0f);
  std::vector<float> c(static_cast<size_t>(N) * N);
  for (auto _ : st) {
    example::tiled_gemm<N, N, N>(a.data(), b.data(), c.data());
    benchmark::DoNotOptimize(c.data());
  }
}
BENCHMARK(BM_tiled_gemm<256>)->Name("BM_pto_tiled_gemm/256")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tiled_gemm<512>)->Name("BM_pto_tiled_gemm/512")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tiled_gemm<1024>)->Name("BM_pto_tiled_gemm/1024")->Unit(benchmark::kMicrosecond);

template <class T, int N>
void BM_tmatmul(benchmark::State& st) {
  TileLeft<T, N, N> l;
  TileRight<T, N, N> r;
  TileAcc<float, N, N> acc;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      l.at(i, j) = T(std::sin(float(i * N + j)));
      r.at(i, j) = T(std::cos(float(i * N + j)));
    }
  for (auto _ : st) {
    TMATMUL(acc, l, r);
    benchmark::DoNotOptimize(acc.data());
  }
}
BENCHMARK(BM_tmatmul<float, 64>)->Name("BM_pto_tmatmul/f32/64");
BENCHMARK(BM_tmatmul<float, 128>)->Name("BM_pto_tmatmul/f32/128");
BENCHMARK(BM_tmatmul<half, 64>)->Name("BM_pto_tmatmul/f16/64");
BENCHMARK(BM_tmatmul<half, 128>)->Name("BM_pto_tmatmul/f16/128");

template <int R, int C>
void BM_tload(benchmark::State& st) {
  std::vector<float> gm(static_cast<size_t>(R) * C, 1.5f);
  GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<1, 1, 1, C, 1>> g(gm.data());
  Tile<TileType::Vec, float, R, C> t;
  for (auto _ : st) {
    TLOAD(t, g);
    benchmark::DoNotOptimize(t.data());
  }
}
template <int R, int C>
void BM_tstore(benchmark::State& st) {
  std::vector<float> gm(static_cast<size_t>(R) * C);
  GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<1, 1, 1, C, 1>> g(gm.data());
  Tile<TileType::Vec, float, R, C> t;
  for (auto _ : st) {
    TSTORE(g, t);
    benchmark::DoNotOptimize(gm.data());
  }
}
BENCHMARK(BM_tload<1, 8>)->Name("BM_pto_tload/f32/1x8");
BENCHMARK(BM_tload<64, 64>)->Name("BM_pto_tload/f32/64x64");
BENCHMARK(BM_tload<256, 256>)->Name("BM_pto_tload/f32/256x256");
BENCHMARK(BM_tstore<64, 64>)->Name("BM_pto_tstore/f32/64x64");
BENCHMARK(BM_tstore<256, 256>)->Name("BM_pto_tstore/f32/256x256");

void BM_tmov_small(benchmark::State& st) {
  Tile<TileType::Vec, float, 1, 8> a, b;
  for (auto _ : st) {
    TMOV(b, a);
    benchmark::DoNotOptimize(b.data());
  }
}
BENCHMARK(BM_tmov_small)->Name("BM_pto_tmov/f32/1x8");

}  // namespace
