// FP64 inputs beyond fp32's range (spec 30 §3: FP64 is rounded to fp32, RNE): defined results, no
// C++ UB (spec 00). Each row: the double, the fp32 it must become (hand-computed from RNE).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tilesim/linx.hpp"

namespace {
using namespace tilesim::linx;
using tilesim::formats::DType;

TEST(LinxFp64, RoundsToFp32AtTheRangeEnd) {
  const float inf = std::numeric_limits<float>::infinity(), fmax = std::numeric_limits<float>::max();
  const double mid = 3.4028235677973366e38;  // FLT_MAX + 2^103, the RNE midpoint to Inf
  struct Row {
    double in;
    float want;
  };
  const Row rows[] = {
      {3.4028234663852886e38, fmax},        // FLT_MAX exactly
      {std::nextafter(mid, 0.0), fmax},     // just below the midpoint: down to FLT_MAX
      {mid, inf},                           // the tie: FLT_MAX's significand is odd, so up to Inf
      {1e39, inf},                          // far beyond
      {-1e300, -inf},                       // and negative
      {-std::nextafter(mid, 0.0), -fmax},
      {1e-50, 0.0f},                        // far below the smallest subnormal: +0
      {1.5 * 1.401298464324817e-45, 2.802596928649634e-45f},  // 1.5 * 2^-149 ties to even: 2^-148
  };
  for (const Row& r : rows) {
    Machine m;
    const double a = r.in, b = 1.0;
    m.push_tile('T', &a, 1, 1, DType::fp64, Layout::nz);
    m.push_tile('U', &b, 1, 1, DType::fp64, Layout::zn);
    m.run("TMATMUL <M:1, N:1, K:1, FP64>, T#1, U#1, ->ACC<32B>");
    float got;
    std::memcpy(&got, &m.acc().data[0], 4);
    EXPECT_EQ(got, r.want) << r.in;
    EXPECT_EQ(std::signbit(got), std::signbit(r.want)) << r.in;
  }
}

}  // namespace
