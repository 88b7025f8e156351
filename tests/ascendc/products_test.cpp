// The product table (spec 40 §5), row by row, and the per-product UB size.
#include <gtest/gtest.h>

#include <string>

#include "kernel_operator.h"
#include "tilesim/error.hpp"

namespace ts = tilesim::ascendc;
using M = ts::MaskedBlock;

namespace {

struct Row {
  const char* name;
  bool supported, f16, f32;
  M masked;
  bool rep0;
  uint32_t ub_kb;
};

// Straight from the table in spec 40 §5.
const Row kSpec[] = {
    {"atlas_a2", true, true, true, M::NotWritten, true, 192},
    {"atlas_a3", true, true, true, M::NotWritten, true, 192},
    {"ascend950", true, true, true, M::Identity, true, 256},
    {"atlas_200i_500_a2", true, true, true, M::Identity200I, true, 256},
    {"atlas_inference_aicore", true, true, true, M::NotWritten, true, 256},
    {"atlas_inference_vectorcore", false, false, false, M::NotWritten, true, 256},
    {"atlas_training", true, true, false, M::NotWritten, false, 256},
    {"kirin_x90", true, true, true, M::NotWritten, true, 256},
    {"kirin_9030", true, true, true, M::NotWritten, true, 256},
};

TEST(Products, TableMatchesSpec) {
  ASSERT_EQ(ts::products().size(), 9u);
  for (const Row& r : kSpec) {
    const ts::Product& p = ts::find_product(r.name);
    EXPECT_EQ(p.block_reduce, r.supported) << r.name;
    EXPECT_EQ(p.f16, r.f16) << r.name;
    EXPECT_EQ(p.f32, r.f32) << r.name;
    EXPECT_EQ(p.masked_block, r.masked) << r.name;
    EXPECT_EQ(p.dst_rep_stride0, r.rep0) << r.name;
    EXPECT_TRUE(p.half_saturation) << r.name;
    EXPECT_EQ(p.ub_bytes, r.ub_kb * 1024) << r.name;
  }
  EXPECT_STREQ(ts::default_product().name, "atlas_a2");
  EXPECT_STREQ(ts::find_product("ATLAS_A3").name, "atlas_a3");  // case-insensitive
}

TEST(Products, UbSizePerProduct) {
  for (const Row& r : kSpec) {
    AscendC::set_product(r.name);
    EXPECT_EQ(ts::core().ub.size(), r.ub_kb * 1024u);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, r.ub_kb * 1024 - 64);  // fits
    try {
      pipe.InitBuffer(b, 96);  // 64 bytes left
      ADD_FAILURE() << r.name;
    } catch (const tilesim::Error& e) {
      EXPECT_EQ(e.code(), tilesim::ErrorCode::Bounds);
    }
  }
  AscendC::set_product("atlas_a2");
}

// SetSaturation overrides the product default until set_product resets it.
TEST(Products, SaturationOverrideIsResetBySetProduct) {
  AscendC::set_product("atlas_a2");
  EXPECT_TRUE(ts::core().half_saturation());
  AscendC::SetSaturation(false);
  EXPECT_FALSE(ts::core().half_saturation());
  AscendC::set_product("atlas_a2");
  EXPECT_TRUE(ts::core().half_saturation());
}

}  // namespace
