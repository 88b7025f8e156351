// A tiled GEMM as a PTO kernel (spec 21 §2 matrix row; docs/pto-kernels.md#matrix), the a2a3 way:
// fp16 A (M x K) and B (K x N) in GM; for each 128 x 256 block of C, a K loop of 64-deep steps:
// TLOAD into Mat tiles (ND -> NZ), TMOV to Left / Right, TMATMUL for the first step and
// TMATMUL_ACC after it, then TSTORE from the fp32 Acc tile. The Acc chain runs in k order across
// the steps, so C has exactly the bits of one GEMM over the whole K (checked against
// tilesim::linx::gemm, the LinxISA core) and is within fp32 rounding of a float64 product.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include <pto/pto-inst.hpp>
#include <tilesim/linx.hpp>

#include "tiled_gemm.hpp"

using pto::half;

constexpr int M = 256, N = 512, K = 320, BM = 128, BN = 256, BK = 64;
int main() {
  std::vector<half> a(M * K), b(K * N);
  for (int i = 0; i < M * K; ++i) a[i] = half(float((i * 37) % 101) / 50.0f - 1.0f);
  for (int i = 0; i < K * N; ++i) b[i] = half(float((i * 53) % 89) / 44.0f - 1.0f);
  std::vector<float> c(M * N), want(M * N);
  example::tiled_gemm<M, N, K, BM, BN, BK>(a.data(), b.data(), c.data());
  tilesim::linx::gemm({a.data(), M, K}, {b.data(), K, N}, nullptr, want.data(),
                      {tilesim::formats::DType::fp16, tilesim::formats::DType::fp16});
  const bool same_bits = std::memcmp(c.data(), want.data(), c.size() * 4) == 0;
  double worst = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(float(a[i * K + k])) * double(float(b[k * N + j]));
      worst = std::fmax(worst, std::fabs(double(c[i * N + j]) - s));
    }
  const bool ok = same_bits && worst < 1e-3;
  std::printf(
      "pto tiled GEMM (a2a3, %dx%dx%d fp16 -> fp32, %dx%d tiles, K steps of %d): c[0][0] = "
      "%.7g; bits equal tilesim::linx::gemm: %s; largest |error| vs float64 %.2e: %s\n",
      M, N, K, BM, BN, BK, double(c[0]), same_bits ? "yes" : "NO", worst, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
