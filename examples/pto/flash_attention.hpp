// The single-head flash-attention kernel of flash_attention.cpp (also timed by
// bench/bench_pto_kernel.cpp): fp16 Q, K, V (S x D, row-major) in GM, fp32 output O.
// On the a5 target (its Acc -> Vec and Vec -> Mat moves); see flash_attention.cpp for the algorithm.
#pragma once
#include <cmath>
#include <pto/pto-inst.hpp>

namespace example {
using namespace pto;

template <int R, int C>
using MatNZ = Tile<TileType::Mat, half, R, C, BLayout::ColMajor, R, C, SLayout::RowMajor, 512>;
template <int R, int C>
using MatZN = Tile<TileType::Mat, half, R, C, BLayout::RowMajor, R, C, SLayout::ColMajor, 512>;
template <class T, int R, int C>
using Vec = Tile<TileType::Vec, T, R, C>;

template <int S, int D, int Br = 64, int Bc = 64>
void flash_attention(const half* q, const half* k, const half* v, float* o) {
  static_assert(S % Br == 0 && S % Bc == 0, "S must be a multiple of the block sizes");
  using QBlk = GlobalTensor<half, Shape<1, 1, 1, Br, D>, Stride<1, 1, 1, D, 1>>;
  using KtBlk = GlobalTensor<half, Shape<1, 1, 1, D, Bc>, Stride<1, 1, 1, 1, D>, Layout::DN>;
  using VBlk = GlobalTensor<half, Shape<1, 1, 1, Bc, D>, Stride<1, 1, 1, D, 1>>;
  using OBlk = GlobalTensor<float, Shape<1, 1, 1, Br, D>, Stride<1, 1, 1, D, 1>>;
  // One fp32 value per row: the (Br, 1) column the row reductions write and the row-expand ops
  // read, and the same bytes as a (1, Br) row for the element-wise ops (TRESHAPE between them).
  using Col = Tile<TileType::Vec, float, Br, 1, BLayout::ColMajor>;
  using Row = Tile<TileType::Vec, float, 1, Br>;
  const float scale = 1.0f / std::sqrt(float(D));
  MatNZ<Br, D> qMat;
  TileLeft<half, Br, D> qLeft;
  MatZN<D, Bc> kMat;
  TileRight<half, D, Bc> kRight;
  TileAcc<float, Br, Bc> sAcc;
  Vec<float, Br, Bc> s, tmp;
  Vec<half, Br, Bc> p16;
  MatNZ<Br, Bc> pMat;
  TileLeft<half, Br, Bc> pLeft;
  MatNZ<Bc, D> vMat;
  TileRight<half, Bc, D> vRight;
  TileAcc<float, Br, D> pvAcc;
  Vec<float, Br, D> pv, out;
  Col mBlkC, mNewC, alphaC, lBlkC, lC;
  Row m, mNew, mBlk, alpha, l, lBlk;
  // The pipes are ordered as on the chip (docs/sync.md; TILESIM_CHECK=sync checks it): `hand`
  // passes a result from one pipe to the next (set_flag then wait_flag), and each buffer reused by
  // the next step gets a "free again" flag, set after its last reader and waited before the next
  // writer (`free_set` / `free_wait`: none before the first step, none after the last).
  auto hand = [](pipe_t from, pipe_t to, event_t e) {
    set_flag(from, to, e);
    wait_flag(from, to, e);
  };
  for (int i = 0; i < S; i += Br) {
    QBlk qg(const_cast<half*>(q) + i * D);
    const bool first_i = i == 0, last_i = i + Br >= S;
    if (!first_i) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // qMat, kMat, vMat free
    TLOAD(qMat, qg);
    hand(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    if (!first_i) wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // qLeft, kRight, pLeft, vRight free
    TMOV(qLeft, qMat);
    if (!first_i) wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // out stored
    TEXPANDS(m, -INFINITY);
    TEXPANDS(l, 0.0f);
    TEXPANDS(out, 0.0f);
    for (int j = 0; j < S; j += Bc) {
      KtBlk kg(const_cast<half*>(k) + j * D);
      VBlk vg(const_cast<half*>(v) + j * D);
      const bool first = first_i && j == 0, last = last_i && j + Bc >= S;
      if (j > 0) wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
      TLOAD(kMat, kg);
      hand(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
      if (j > 0) wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
      TMOV(kRight, kMat);
      hand(PIPE_MTE1, PIPE_M, EVENT_ID0);
      if (!first) wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // sAcc, pvAcc free
      TMATMUL(sAcc, qLeft, kRight);
      hand(PIPE_M, PIPE_FIX, EVENT_ID0);
      if (!first) wait_flag(PIPE_V, PIPE_FIX, EVENT_ID0);  // s, pv free
      TMOV(s, sAcc);
      hand(PIPE_FIX, PIPE_V, EVENT_ID0);
      TMULS(s, s, scale);
      TROWMAX(mBlkC, s, tmp);
      TRESHAPE(mBlk, mBlkC);
      TMAX(mNew, m, mBlk);
      TRESHAPE(mNewC, mNew);
      TROWEXPANDSUB(s, s, mNewC);
      TEXP(s, s);
      TSUB(alpha, m, mNew);
      TEXP(alpha, alpha);
      TRESHAPE(alphaC, alpha);
      TROWSUM(lBlkC, s, tmp);
      TRESHAPE(lBlk, lBlkC);
      TMUL(l, l, alpha);
      TADD(l, l, lBlk);
      if (!first) wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // p16 free
      TCVT(p16, s, RoundMode::CAST_RINT);
      hand(PIPE_V, PIPE_MTE3, EVENT_ID0);
      if (!first) wait_flag(PIPE_MTE1, PIPE_MTE3, EVENT_ID0);  // pMat free
      TMOV(pMat, p16);
      if (!last) set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
      hand(PIPE_MTE3, PIPE_MTE1, EVENT_ID0);
      TMOV(pLeft, pMat);
      if (!last) set_flag(PIPE_MTE1, PIPE_MTE3, EVENT_ID0);
      TLOAD(vMat, vg);
      hand(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);
      TMOV(vRight, vMat);
      if (!last) set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
      hand(PIPE_MTE1, PIPE_M, EVENT_ID1);
      TMATMUL(pvAcc, pLeft, vRight);
      if (!last) set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
      hand(PIPE_M, PIPE_FIX, EVENT_ID1);
      TMOV(pv, pvAcc);
      if (!last) set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
      hand(PIPE_FIX, PIPE_V, EVENT_ID1);
      TROWEXPANDMUL(out, out, alphaC);
      TADD(out, out, pv);
      TMOV(m, mNew);
      if (!last) set_flag(PIPE_V, PIPE_FIX, EVENT_ID0);
    }
    TRESHAPE(lC, l);
    TROWEXPANDDIV(out, out, lC);
    hand(PIPE_V, PIPE_MTE3, EVENT_ID0);
    OBlk og(o + i * D);
    TSTORE(og, out);
    if (!last_i) set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
  }
}

}  // namespace example
