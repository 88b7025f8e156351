// The tiled GEMM kernel of tiled_gemm.cpp (also timed by bench/bench_pto_kernel.cpp): fp16 A
// (M x K) and B (K x N) row-major in GM, fp32 C (M x N); a2a3's path, T x T blocks, a K loop of
// T-deep TMATMUL / TMATMUL_ACC steps. See tiled_gemm.cpp.
#pragma once
#include <pto/pto-inst.hpp>

namespace example {
using namespace pto;

template <int M, int N, int K, int T = 64>
void tiled_gemm(const half* a, const half* b, float* c) {
  static_assert(M % T == 0 && N % T == 0 && K % T == 0, "M, N, K must be multiples of T");
  using GA = GlobalTensor<half, Shape<1, 1, 1, T, T>, Stride<1, 1, 1, K, 1>>;
  using GB = GlobalTensor<half, Shape<1, 1, 1, T, T>, Stride<1, 1, 1, N, 1>>;
  using GC = GlobalTensor<float, Shape<1, 1, 1, T, T>, Stride<1, 1, 1, N, 1>>;
  using MatT = Tile<TileType::Mat, half, T, T, BLayout::ColMajor, T, T, SLayout::RowMajor, 512>;
  MatT ma, mb;
  TileLeft<half, T, T> left;
  TileRight<half, T, T> right;
  TileAcc<float, T, T> acc;
  for (int i = 0; i < M; i += T)
    for (int j = 0; j < N; j += T) {
      for (int k = 0; k < K; k += T) {
        GA ga(const_cast<half*>(a) + i * K + k);
        GB gb(const_cast<half*>(b) + k * N + j);
        TLOAD(ma, ga);
        TLOAD(mb, gb);
        TMOV(left, ma);
        TMOV(right, mb);
        if (k == 0)
          TMATMUL(acc, left, right);
        else
          TMATMUL_ACC(acc, left, right);
      }
      GC gc(c + i * N + j);
      TSTORE(gc, acc);
    }
}

}  // namespace example
