// A double-buffered row softmax over GM (the pattern of every pipelined PTO kernel): while the
// vector unit works on one UB tile, MTE2 loads the next block into the other tile and MTE3 stores
// the previous one. Two TASSIGN'd tiles ping-pong; the flags order each hand-over (MTE2 -> V ->
// MTE3) and each reuse (a tile is reloaded only after MTE3 has stored it). softmax_double_buffer.cpp
// runs it as written; softmax_double_buffer_missing_flag.cpp drops the load -> vector hand-over,
// which gives the right numbers here and garbage on the chip: TILESIM_CHECK=sync finds it
// (docs/sync.md).
#pragma once
#include <pto/pto-inst.hpp>

namespace example {
using namespace pto;

constexpr int kDbRows = 256, kDbCols = 128, kDbBlock = 16;

template <bool kLoadFlag = true>
void softmax_double_buffer(const float* x, float* y) {
  using Block = GlobalTensor<float, Shape<1, 1, 1, kDbBlock, kDbCols>, Stride<1, 1, 1, kDbCols, 1>>;
  using Full = Tile<TileType::Vec, float, kDbBlock, kDbCols>;
  using PerRow = Tile<TileType::Vec, float, kDbBlock, 1, BLayout::ColMajor>;
  constexpr uint32_t kTileBytes = kDbBlock * kDbCols * 4;
  Full t[2], tmp;
  PerRow rmax, rsum;
  TASSIGN(t[0], 0x0);
  TASSIGN(t[1], kTileBytes);
  TASSIGN(tmp, 2 * kTileBytes);
  TASSIGN(rmax, 3 * kTileBytes);
  TASSIGN(rsum, 3 * kTileBytes + 0x100);
  constexpr int kBlocks = kDbRows / kDbBlock;
  for (int b = 0; b < kBlocks; ++b) {
    const int k = b % 2;
    const event_t ev = k == 0 ? EVENT_ID0 : EVENT_ID1;  // one flag set per buffer
    Block in(const_cast<float*>(x) + b * kDbBlock * kDbCols), out(y + b * kDbBlock * kDbCols);
    if (b >= 2) wait_flag(PIPE_MTE3, PIPE_MTE2, ev);  // t[k]'s previous block is stored
    TLOAD(t[k], in);
    if constexpr (kLoadFlag) {
      set_flag(PIPE_MTE2, PIPE_V, ev);
      wait_flag(PIPE_MTE2, PIPE_V, ev);
    }
    TROWMAX(rmax, t[k], tmp);
    TROWEXPANDSUB(t[k], t[k], rmax);
    TEXP(t[k], t[k]);
    TROWSUM(rsum, t[k], tmp);
    TROWEXPANDDIV(t[k], t[k], rsum);
    set_flag(PIPE_V, PIPE_MTE3, ev);
    wait_flag(PIPE_V, PIPE_MTE3, ev);
    TSTORE(out, t[k]);
    if (b + 2 < kBlocks) set_flag(PIPE_MTE3, PIPE_MTE2, ev);
  }
}

// A float64 row softmax check: the largest relative error of y against x's softmax.
inline double softmax_error(const float* x, const float* y);

}  // namespace example

#include <cmath>
inline double example::softmax_error(const float* x, const float* y) {
  double worst = 0;
  for (int i = 0; i < kDbRows; ++i) {
    double m = -1e300, s = 0;
    for (int j = 0; j < kDbCols; ++j) m = std::fmax(m, double(x[i * kDbCols + j]));
    for (int j = 0; j < kDbCols; ++j) s += std::exp(double(x[i * kDbCols + j]) - m);
    for (int j = 0; j < kDbCols; ++j) {
      const double want = std::exp(double(x[i * kDbCols + j]) - m) / s;
      worst = std::fmax(worst, std::fabs(double(y[i * kDbCols + j]) - want) / want);
    }
  }
  return worst;
}
