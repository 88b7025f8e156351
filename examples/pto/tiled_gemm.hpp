// The tiled GEMM kernel of tiled_gemm.cpp (also timed by bench/bench_pto_kernel.cpp): fp16 A
// (M x K) and B (K x N) row-major in GM, fp32 C (M x N); a2a3's path, BM x BN blocks of C, a K
// loop of BK-deep TMATMUL / TMATMUL_ACC steps. The default, 128 x 256 blocks with K steps of 64,
// is the L0 tile of Ascend's own basic matmul for Atlas A2 (CATLASS examples/00_basic_matmul:
// L0TileShape 128 x 256 x 64 with ping-pong L0 buffers): Left 16 KiB of L0A, Right 32 KiB of L0B,
// Acc 128 KiB, all of L0C; see tiled_gemm.cpp.
#pragma once
#include <pto/pto-inst.hpp>

namespace example {
using namespace pto;

template <int M, int N, int K, int BM = 128, int BN = 256, int BK = 64>
void tiled_gemm(const half* a, const half* b, float* c) {
  static_assert(M % BM == 0 && N % BN == 0 && K % BK == 0,
                "M, N, K must be multiples of BM, BN, BK");
  using GA = GlobalTensor<half, Shape<1, 1, 1, BM, BK>, Stride<1, 1, 1, K, 1>>;
  using GB = GlobalTensor<half, Shape<1, 1, 1, BK, BN>, Stride<1, 1, 1, N, 1>>;
  using GC = GlobalTensor<float, Shape<1, 1, 1, BM, BN>, Stride<1, 1, 1, N, 1>>;
  using MatA = Tile<TileType::Mat, half, BM, BK, BLayout::ColMajor, BM, BK, SLayout::RowMajor, 512>;
  using MatB = Tile<TileType::Mat, half, BK, BN, BLayout::ColMajor, BK, BN, SLayout::RowMajor, 512>;
  MatA ma;
  MatB mb;
  TileLeft<half, BM, BK> left;
  TileRight<half, BK, BN> right;
  TileAcc<float, BM, BN> acc;
  // The pipes are ordered as on the chip (docs/sync.md; TILESIM_CHECK=sync checks it): each
  // hand-over is a set_flag/wait_flag pair, each buffer reuse waits for its last reader.
  for (int i = 0; i < M; i += BM)
    for (int j = 0; j < N; j += BN) {
      const bool first_blk = i == 0 && j == 0, last_blk = i + BM >= M && j + BN >= N;
      for (int k = 0; k < K; k += BK) {
        GA ga(const_cast<half*>(a) + i * K + k);
        GB gb(const_cast<half*>(b) + k * N + j);
        const bool first = first_blk && k == 0, last = last_blk && k + BK >= K;
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
