// Row normalisation step written as a PTO kernel (spec 20): y = x - rowmax (TROWEXPANDSUB with a
// per-row scalar column), z = max(y, floor) (TROWEXPANDMAX), in manual mode on the a2a3 UB.
// Checks every element against a plain loop and prints a short report.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int R = 16, C = 64;
using Full = Tile<TileType::Vec, float, R, C>;
using Col = Tile<TileType::Vec, float, R, 1, BLayout::ColMajor>;

int main() {
  Full x, z;
  Col rowmax, floor_;
  TASSIGN(x, 0x0000);  // manual mode: bind the tiles into the simulated UB
  TASSIGN(z, 0x1000);
  TASSIGN(rowmax, 0x2000);
  TASSIGN(floor_, 0x2040);
  for (int i = 0; i < R; ++i) {
    float m = -1e30f;
    for (int j = 0; j < C; ++j) {
      x.at(i, j) = float((i * 37 + j * 11) % 23) * 0.25f - 3.0f;
      m = std::max(m, x.at(i, j));
    }
    rowmax.at(i, 0) = m;
    floor_.at(i, 0) = -4.0f;
  }
  TROWEXPANDSUB(x, x, rowmax);  // in place: x := x - rowmax (aliasing is legal, spec 20 §1)
  TROWEXPANDMAX(z, x, floor_);
  int bad = 0;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      const float xi = float((i * 37 + j * 11) % 23) * 0.25f - 3.0f;
      const float want = std::max(xi - rowmax.at(i, 0), -4.0f);
      float got = z.at(i, j);
      bad += std::memcmp(&got, &want, 4) != 0;
    }
  std::printf(
      "pto rownorm (C++, manual mode, a2a3): z[0][0..3] = %g %g %g %g; %d of %d elements differ "
      "from a plain loop\n",
      double(z.at(0, 0)), double(z.at(0, 1)), double(z.at(0, 2)), double(z.at(0, 3)), bad, R * C);
  return bad == 0 ? 0 : 1;
}
