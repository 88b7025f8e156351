// TPRELU (docs/pto-instructions.md#element-wise): dst = src0 > 0 ? src0 : src0 * src1, hand-computed
// answers for f32 and f16 on every target, through the engine and the C++ vendor API, and its rules
// (a2a3 tmp apart from the other tiles; dtypes F16, F32) with dst untouched.
#include <gtest/gtest.h>
#include <pto/pto-inst.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "tilesim/formats.hpp"
#include "tilesim/pto/engine.hpp"

namespace {
using namespace tilesim::pto;
namespace fm = tilesim::formats;

TileDesc tile(Elem e, std::vector<uint8_t>& d, int rows, int cols) {
  TileDesc t;
  t.dtype = e;
  t.rows = rows;
  t.cols = cols;
  t.valid_row = rows;
  t.valid_col = cols;
  t.data = d.data();
  t.capacity = d.size();
  return t;
}

const double kX[8] = {2.0, -3.0, 0.0, -0.5, NAN, -INFINITY, 1.5, -0.0};
const double kSlope[8] = {10.0, 0.5, 7.0, 4.0, 2.0, 0.0, -1.0, 3.0};
// 2 > 0: 2; -3 * 0.5; 0 is not > 0: 0 * 7 = 0; -0.5 * 4; NaN * 2 = NaN; -inf * 0 = NaN; 1.5; -0 * 3 = -0.
const double kWant[8] = {2.0, -1.5, 0.0, -2.0, NAN, NAN, 1.5, -0.0};

TEST(PtoTprelu, KnownAnswersEveryTarget) {
  for (const auto& [e, dt] : {std::pair{Elem::f32, fm::DType::fp32}, std::pair{Elem::f16, fm::DType::fp16}}) {
    const size_t es = elem_size(e), cols = 32 / es;
    for (const char* tn : {"a2a3", "a5", "cpu"}) {
      std::vector<uint8_t> x(2 * cols * es), k(2 * cols * es), d(2 * cols * es, 0xAB), tmp(2 * cols * es);
      for (size_t i = 0; i < 2 * cols; ++i) {
        const uint64_t cx = fm::encode(kX[i % 8], dt), ck = fm::encode(kSlope[i % 8], dt);
        std::memcpy(x.data() + i * es, &cx, es);
        std::memcpy(k.data() + i * es, &ck, es);
      }
      const TileDesc D = tile(e, d, 2, int(cols)), X = tile(e, x, 2, int(cols)), K = tile(e, k, 2, int(cols)),
                     T = tile(e, tmp, 2, int(cols));
      Call c{find_instr("TPRELU")->id};
      c.dst = &D;
      c.src0 = &X;
      c.src1 = &K;
      c.tmp = &T;
      execute(c, find_target(tn), Ub{});
      for (size_t i = 0; i < 2 * cols; ++i) {
        uint64_t got = 0;
        std::memcpy(&got, d.data() + i * es, es);
        const double v = fm::decode(got, dt);
        if (std::isnan(kWant[i % 8])) {
          EXPECT_TRUE(std::isnan(v)) << tn << " " << i;
        } else {
          EXPECT_EQ(got, fm::encode(kWant[i % 8], dt)) << tn << " " << i << " " << v;
        }
      }
    }
  }
}

TEST(PtoTprelu, VendorApi) {
  pto::Tile<pto::TileType::Vec, float, 2, 8> x, slope, out, tmp;
  for (int i = 0; i < 16; ++i) {
    x.data()[i] = static_cast<float>(kX[i % 8]);
    slope.data()[i] = static_cast<float>(kSlope[i % 8]);
  }
  pto::TPRELU(out, x, slope, tmp);
  EXPECT_EQ(out.data()[1], -1.5f);
  EXPECT_EQ(out.data()[3], -2.0f);
  EXPECT_EQ(out.data()[8], 2.0f);
  EXPECT_TRUE(std::isnan(out.data()[13]));
}

TEST(PtoTprelu, RulesLeaveDstUntouched) {
  std::vector<uint8_t> a(64, 1), b(64, 2), d(64, 0xAB);
  const TileDesc D = tile(Elem::f32, d, 2, 8), A = tile(Elem::f32, a, 2, 8), B = tile(Elem::f32, b, 2, 8);
  struct Case {
    const char* target;
    const TileDesc* tmp;
    const TileDesc* src1;
    const char* needle;
  };
  for (const Case& k : {Case{"a2a3", &A, &B, "tmp"},  // tmp shares src0's bytes
                        Case{"a5", nullptr, &D, ""}}) {
    Call c{find_instr("TPRELU")->id};
    c.dst = &D;
    c.src0 = &A;
    c.src1 = k.src1;
    c.tmp = k.tmp;
    if (k.src1 == &D) {  // a5: dst may be src1 (no overlap rule); the result is exact
      execute(c, find_target(k.target), Ub{});
      continue;
    }
    try {
      execute(c, find_target(k.target), Ub{});
      ADD_FAILURE() << k.needle;
    } catch (const tilesim::Error& err) {
      EXPECT_NE(std::string(err.what()).find(k.needle), std::string::npos) << err.what();
      EXPECT_NE(std::string(err.what()).find("TPRELU"), std::string::npos) << err.what();
      EXPECT_NE(std::string(err.what()).find("docs/"), std::string::npos) << err.what();
    }
    EXPECT_EQ(d, std::vector<uint8_t>(64, 0xAB));
  }
  std::vector<uint8_t> i32(64, 0);
  const TileDesc I = tile(Elem::s32, i32, 2, 8);
  Call c{find_instr("TPRELU")->id};
  c.dst = &I;
  c.src0 = &I;
  c.src1 = &I;
  try {
    execute(c, find_target("a5"), Ub{});
    ADD_FAILURE() << "s32 accepted";
  } catch (const tilesim::Error& err) {
    EXPECT_EQ(err.code(), tilesim::ErrorCode::Unsupported) << err.what();
  }
}

}  // namespace
