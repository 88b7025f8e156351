// PTO auto mode and the hazard checker (issue 22 §2, docs/sync.md#switches): a translation unit
// compiled with __PTO_AUTO__ is synchronised by the vendor's compiler, so its calls are not
// recorded. A binary of its own: __PTO_AUTO__ changes an inline function of the PTO headers, which
// must not be linked with translation units built without it.
#define __PTO_AUTO__ 1
#include <gtest/gtest.h>

#include <pto/pto-inst.hpp>
#include <vector>

#include "tilesim/sync.hpp"

namespace {
using namespace pto;
namespace ts = tilesim::sync;

TEST(PtoAutoSync, AutoModeKernelWithoutFlagsIsNotReported) {
  ts::enable(true);
  ts::clear_reports();
  using G = GlobalTensor<float, Shape<1, 1, 1, 8, 16>, Stride<1, 1, 1, 16, 1>>;
  using T = Tile<TileType::Vec, float, 8, 16>;
  std::vector<float> x(128, 1.5f), y(128, 0.0f);
  G gx(x.data()), gy(y.data());
  T a, b;
  TASSIGN(a, 0x0);
  TASSIGN(b, 0x1000);
  TLOAD(a, gx);     // MTE2
  TADD(b, a, a);    // V, no flag: the compiler would insert it
  TSTORE(gy, b);    // MTE3, no flag
  ts::end_kernel();
  EXPECT_EQ(ts::report_text(), "");
  EXPECT_EQ(y[5], 3.0f);
  ts::clear_reports();
  ts::enable(false);
}

}  // namespace
