// Row softmax over a matrix in global memory, in blocks of rows (spec 21 §2; docs/pto-kernels.md):
// TLOAD -> TROWMAX -> TROWEXPANDSUB -> TEXP -> TROWSUM -> TROWEXPANDDIV -> TSTORE, one 32-row block
// of the 256 x 128 fp32 input at a time, through GlobalTensor views of the host arrays. Checks every
// element against a float64 softmax and that each row sums to 1.
#include <cmath>
#include <cstdio>
#include <vector>
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int kRows = 256, kCols = 128, kBlock = 32;
using Block = GlobalTensor<float, Shape<1, 1, 1, kBlock, kCols>, Stride<1, 1, 1, kCols, 1>>;
using Full = Tile<TileType::Vec, float, kBlock, kCols>;
using PerRow = Tile<TileType::Vec, float, kBlock, 1, BLayout::ColMajor>;

// One tile: each block's load waits for the previous block's store to have read the tile (the
// pipes' order on the chip, docs/sync.md; TILESIM_CHECK=sync checks it).
void softmax_rows(const float* x, float* y) {
  Full t, tmp;
  PerRow rmax, rsum;
  for (int r0 = 0; r0 < kRows; r0 += kBlock) {
    Block in(const_cast<float*>(x) + r0 * kCols), out(y + r0 * kCols);
    if (r0 > 0) wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    TLOAD(t, in);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TROWMAX(rmax, t, tmp);
    TROWEXPANDSUB(t, t, rmax);
    TEXP(t, t);
    TROWSUM(rsum, t, tmp);
    TROWEXPANDDIV(t, t, rsum);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(out, t);
    if (r0 + kBlock < kRows) set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
  }
}

int main() {
  std::vector<float> x(kRows * kCols), y(kRows * kCols, -1.0f);
  for (int i = 0; i < kRows; ++i)
    for (int j = 0; j < kCols; ++j) x[i * kCols + j] = float((i * 131 + j * 71) % 97) * 0.11f - 5.0f;
  softmax_rows(x.data(), y.data());
  double worst = 0, worst_sum = 0;
  for (int i = 0; i < kRows; ++i) {
    double m = -1e300, s = 0, row = 0;
    for (int j = 0; j < kCols; ++j) m = std::fmax(m, double(x[i * kCols + j]));
    for (int j = 0; j < kCols; ++j) s += std::exp(double(x[i * kCols + j]) - m);
    for (int j = 0; j < kCols; ++j) {
      const double want = std::exp(double(x[i * kCols + j]) - m) / s;
      worst = std::fmax(worst, std::fabs(double(y[i * kCols + j]) - want) / want);
      row += double(y[i * kCols + j]);
    }
    worst_sum = std::fmax(worst_sum, std::fabs(row - 1.0));
  }
  const bool ok = worst < 1e-5 && worst_sum < 1e-5;
  std::printf("pto row softmax over GM (%dx%d fp32, blocks of %d rows): y[0][0..1] = %.7g %.7g; "
              "largest relative error vs float64 %.2e, largest |row sum - 1| %.2e: %s\n",
              kRows, kCols, kBlock, double(y[0]), double(y[1]), worst, worst_sum, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
