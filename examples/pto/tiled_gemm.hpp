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
  // The pipes are ordered as on the chip (docs/sync.md; TILESIM_CHECK=sync checks it): each
  // hand-over is a set_flag/wait_flag pair, each buffer reuse waits for its last reader.
  for (int i = 0; i < M; i += T)
    for (int j = 0; j < N; j += T) {
      const bool first_blk = i == 0 && j == 0, last_blk = i + T >= M && j + T >= N;
      for (int k = 0; k < K; k += T) {
        GA ga(const_cast<half*>(a) + i * K + k);
        GB gb(const_cast<half*>(b) + k * N + j);
        const bool first = first_blk && k == 0, last = last_blk && k + T >= K;
        if (!first) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // ma, mb free
        TLOAD(ma, ga);
        TLOAD(mb, gb);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        if (!first) wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // left, right free
        TMOV(left, ma);
        TMOV(right, mb);
        if (!last) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        if (k == 0 && !first_blk) wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // acc stored
        if (k == 0)
          TMATMUL(acc, left, right);
        else
          TMATMUL_ACC(acc, left, right);
        if (!last) set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
      }
      set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
      wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
      GC gc(c + i * N + j);
      TSTORE(gc, acc);
      if (!last_blk) set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
    }
}

}  // namespace example
