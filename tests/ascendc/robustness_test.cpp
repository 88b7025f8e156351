// Random, mostly illegal calls (spec 00 "no crash or UB on any input"): every call either
// succeeds identically on both paths or raises tilesim::Error leaving dst, src and the mask
// register untouched. Run under ASan/UBSan in CI.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tilesim/ascendc/engine.hpp"
#include "tilesim/error.hpp"

namespace ts = tilesim::ascendc;

namespace {

int64_t wild(std::mt19937_64& g) {
  static const int64_t edge[] = {-1, 0, 1, 2, 7, 8, 15, 16, 64, 65, 127, 128, 129, 255, 256, 65535, 65536,
                                 INT32_MAX, INT32_MIN, INT64_MAX};
  return g() % 3 ? edge[g() % 20] : int64_t(g() % 300);
}

TEST(Robustness, RandomCallsNeverCorruptOrCrash) {
  std::mt19937_64 g(99);
  const auto prods = ts::products();
  int rejected = 0, accepted = 0;
  for (int i = 0; i < 4000; ++i) {
    const ts::Product& p = prods[g() % prods.size()];
    ts::ReduceCall call;
    call.op = ts::ReduceOp(g() % 3);
    call.elem = g() % 2 ? ts::Elem::f16 : ts::Elem::f32;
    call.repeat = wild(g);
    call.dst_rep_stride = wild(g);
    call.src_blk_stride = g() % 2 ? wild(g) : 1;
    call.src_rep_stride = g() % 2 ? wild(g) : 8;
    call.mask.set_mask = g() % 4 != 0;
    call.mask.kind = g() % 2 ? ts::MaskArg::Kind::Bits : ts::MaskArg::Kind::Continuous;
    call.mask.words = unsigned(g() % 3);
    call.mask.bits[0] = g() % 3 ? g() : 0;
    call.mask.bits[1] = g() % 3 ? g() : 0;
    call.mask.len = wild(g);
    ts::MaskRegister reg;
    if (g() % 3 == 0) {
      reg.counter = true;
      reg.lo = g() % 4 ? uint64_t(g() % 5000) : g();
      reg.hi = g() % 4 ? 0 : g();
    }
    const unsigned sz = ts::elem_bytes(call.elem);
    std::vector<uint8_t> src(size_t(g() % 4096) * sz), dst(size_t(g() % 1024) * sz);
    for (auto& b : src) b = uint8_t(g());
    for (auto& b : dst) b = uint8_t(g());
    const std::vector<uint8_t> src0 = src, dst0 = dst;
    ts::Operand d{dst.data(), (g() % 4) * 16, dst.size() / sz}, s{src.data(), (g() % 4) * 16, src.size() / sz};
    const ts::MaskRegister reg0 = reg;
    try {
      ts::block_reduce(p, g() % 2, reg, d, s, call, g() % 2 ? ts::Path::Fast : ts::Path::Reference);
      ++accepted;
      EXPECT_TRUE(src == src0);  // src and dst are separate here: src is never written
    } catch (const tilesim::Error& e) {
      ++rejected;
      EXPECT_TRUE(src == src0 && dst == dst0) << e.what();
      EXPECT_EQ(reg.lo, reg0.lo);
      EXPECT_EQ(reg.hi, reg0.hi);
      EXPECT_NE(std::string(e.what()).find("[docs/ascendc.md#"), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(accepted, 10);  // most calls are illegal on purpose
}

}  // namespace
