// A row softmax written as a PTO kernel for the vendor's headers (spec 21 §2): the user's first
// real kernel, TMULS -> TROWMAX -> TROWEXPANDSUB -> TEXP -> TROWSUM -> TROWEXPANDDIV, in auto mode
// on the default a2a3 target. Checks every element against a float64 softmax (within the fp32
// rounding of the kernel's steps) and that each row sums to 1, and prints a short report.
#include <cmath>
#include <cstdio>
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int R = 32, C = 128;
using Full = Tile<TileType::Vec, float, R, C>;
using RowCol = Tile<TileType::Vec, float, R, 1, BLayout::ColMajor>;  // one value per row (DN)
using Tmp = Tile<TileType::Vec, float, R, C>;

int main() {
  Full x, p;
  RowCol rmax, rsum;
  Tmp tmp;
  const float scale = 0.125f;  // 1/sqrt(64), as attention scales its scores
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) x.at(i, j) = float((i * 131 + j * 71) % 97) * 0.37f - 18.0f;

  TMULS(p, x, scale);
  TROWMAX(rmax, p, tmp);
  TROWEXPANDSUB(p, p, rmax);  // in place: legal aliasing (spec 20 §1)
  TEXP(p, p);
  TROWSUM(rsum, p, tmp);
  TROWEXPANDDIV(p, p, rsum);

  double worst = 0, worst_sum = 0;
  for (int i = 0; i < R; ++i) {
    double m = -1e300, s = 0, row = 0;
    for (int j = 0; j < C; ++j) m = std::fmax(m, double(x.at(i, j)) * scale);
    for (int j = 0; j < C; ++j) s += std::exp(double(x.at(i, j)) * scale - m);
    for (int j = 0; j < C; ++j) {
      const double want = std::exp(double(x.at(i, j)) * scale - m) / s;
      worst = std::fmax(worst, std::fabs(double(p.at(i, j)) - want) / want);
      row += double(p.at(i, j));
    }
    worst_sum = std::fmax(worst_sum, std::fabs(row - 1.0));
  }
  const bool ok = worst < 1e-5 && worst_sum < 1e-5;
  std::printf(
      "pto softmax (C++, auto mode, a2a3, %dx%d fp32): p[0][0..2] = %.7g %.7g %.7g; largest "
      "relative error against float64 %.2e, largest |row sum - 1| %.2e: %s\n",
      R, C, double(p.at(0, 0)), double(p.at(0, 1)), double(p.at(0, 2)), worst, worst_sum,
      ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
