// "Rejected means untouched" for BlockReduceSum/Max/Min (spec 40 §1–§3, §5), wider than
// tests/ascendc/robustness_test.cpp: dst and src live in ONE simulated UB of the product's size at
// random (often overlapping, misaligned or edge) addresses, with random masks, modes, repeats,
// strides, products and saturation. After each call either it raised tilesim::Error and every UB
// byte and the mask register are unchanged, or only dst elements r*dstRepStride*8 + b (r a
// repeat, b a datablock) changed, the register changed only as §1 says (isSetMask = false: never),
// and the fast path wrote the same UB and register as the scalar reference.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "robust_util.hpp"
#include "tilesim/ascendc/engine.hpp"
#include "tilesim/error.hpp"

namespace ts = tilesim::ascendc;

namespace {

struct Gen {
  std::mt19937_64 g;
  explicit Gen(uint64_t s) : g(s) {}
  uint64_t u(uint64_t n) { return n ? g() % n : 0; }
  bool p(unsigned pc) { return u(100) < pc; }
  int64_t wild() {
    static const int64_t edge[] = {-1,  0,     1,     2,         7,         8,        15,
                                   16,  64,    65,    127,       128,       129,      255,
                                   256, 65535, 65536, INT32_MAX, INT32_MIN, INT64_MIN};
    return p(25) ? edge[u(20)] : int64_t(u(p(70) ? 17 : 300));
  }
};

bool same(const ts::MaskRegister& a, const ts::MaskRegister& b) {
  return a.lo == b.lo && a.hi == b.hi && a.counter == b.counter;
}

void run(ts::ReduceOp op, uint64_t seed, int n) {
  Gen G(seed);
  const auto prods = ts::products();
  robust::Tally tally;
  for (int k = 0; k < n; ++k) {
    const ts::Product& p = prods[G.u(prods.size())];
    const uint64_t ub_bytes = p.ub_bytes ? p.ub_bytes : 256 * 1024;
    std::vector<uint8_t> ub(ub_bytes);
    for (size_t i = 0; i + 8 <= ub.size(); i += 8) {
      const uint64_t v = G.g();
      std::memcpy(ub.data() + i, &v, 8);
    }
    ts::ReduceCall call;
    call.op = op;
    call.elem = G.p(50) ? ts::Elem::f16 : ts::Elem::f32;
    const unsigned sz = ts::elem_bytes(call.elem);
    call.repeat = G.p(70) ? int64_t(G.u(9)) : G.wild();
    call.dst_rep_stride = G.p(60) ? int64_t(G.u(3)) : G.wild();
    call.src_blk_stride = G.p(60) ? 1 : G.wild();
    call.src_rep_stride = G.p(60) ? 8 : G.wild();
    call.mask.set_mask = !G.p(25);
    call.mask.kind = G.p(50) ? ts::MaskArg::Kind::Bits : ts::MaskArg::Kind::Continuous;
    call.mask.words = unsigned(G.u(3));
    call.mask.bits[0] = G.p(80) ? G.g() >> G.u(64) : 0;
    call.mask.bits[1] = G.p(60) ? G.g() >> G.u(64) : 0;
    call.mask.len = G.p(80) ? int64_t(G.u(130)) : G.wild();
    ts::MaskRegister reg;
    if (G.p(30)) {
      reg.counter = G.p(60);
      reg.lo = G.p(70) ? G.u(3000) : G.g();
      reg.hi = G.p(70) ? 0 : G.g();
    }
    // operands: addresses aligned most of the time, overlapping often, extents up to the UB end
    auto addr = [&](uint64_t other) -> uint64_t {
      switch (G.u(6)) {
        case 0:
          return other;  // same start
        case 1:
          return std::min<uint64_t>(ub_bytes, other + 16 * G.u(64));  // just after / inside
        case 2:
          return G.u(ub_bytes + 1);  // any, often misaligned
        case 3:
          return ub_bytes - 32 * G.u(64);  // near the end
        default:
          return 32 * G.u(ub_bytes / 32);
      }
    };
    const uint64_t sa = addr(32 * G.u(ub_bytes / 32));
    const uint64_t da = addr(sa);
    const uint64_t smax = (ub_bytes - sa) / sz, dmax = (ub_bytes - da) / sz;
    const uint64_t ssize = G.p(10) ? smax : std::min<uint64_t>(smax, G.u(4096));
    const uint64_t dsize = G.p(10) ? dmax : std::min<uint64_t>(dmax, G.u(1024));
    const ts::Operand src{ub.data() + sa, sa, ssize}, dst{ub.data() + da, da, dsize};
    const bool sat = G.p(50);

    const std::vector<uint8_t> before = ub;
    const ts::MaskRegister reg0 = reg;
    std::vector<uint8_t> ref = ub;
    ts::MaskRegister rreg = reg;
    bool threw = false, rthrew = false;
    std::string msg;
    try {
      ts::block_reduce(p, sat, reg, dst, src, call, ts::Path::Fast);
    } catch (const tilesim::Error& e) {
      threw = true;
      msg = e.what();
    }
    try {
      ts::block_reduce(p, sat, rreg, {ref.data() + da, da, dsize}, {ref.data() + sa, sa, ssize},
                       call, ts::Path::Reference);
    } catch (const tilesim::Error&) {
      rthrew = true;
    }
    ASSERT_EQ(threw, rthrew) << ts::name(op) << " case " << k << ": " << msg;
    if (threw) {
      ++tally.rejected;
      const long at = robust::first_change(before, ub.data());
      ASSERT_EQ(at, -1) << ts::name(op) << " case " << k << ": rejected call changed UB byte " << at
                        << ": " << msg;
      ASSERT_TRUE(same(reg, reg0))
          << ts::name(op) << " case " << k << ": register changed: " << msg;
      ASSERT_NE(msg.find("[docs/"), std::string::npos) << msg;
      continue;
    }
    ++tally.ok;
    ASSERT_EQ(robust::first_change(ref, ub.data()), -1) << ts::name(op) << " case " << k;
    ASSERT_TRUE(same(reg, rreg)) << ts::name(op) << " case " << k;
    if (!call.mask.set_mask) {
      ASSERT_TRUE(same(reg, reg0)) << "isSetMask=false wrote the register";
    }
    ASSERT_EQ(reg.counter, reg0.counter) << "a call never switches the mask mode (spec 40 §1)";
    // Only dst[r*dstRepStride*8 + b] may change; in counter mode the repeat count comes from the
    // register (ceil(len / elements per repeat)).
    const uint64_t per_repeat = 256 / sz;
    uint64_t reps = uint64_t(call.repeat);
    if (reg0.counter && !call.mask.set_mask)
      reps = (std::min<uint64_t>(reg0.lo, 1u << 20) + per_repeat - 1) / per_repeat;
    robust::Allowed allowed(ub.size());
    for (uint64_t r = 0; r < reps && r < 1024; ++r)
      for (uint64_t b = 0; b < 8; ++b) {
        const uint64_t idx = r * uint64_t(call.dst_rep_stride) * 8 + b;
        if (idx < dsize) allowed.allow(da + idx * sz, sz);
      }
    const long at = robust::first_forbidden_change(before, ub.data(), allowed);
    ASSERT_EQ(at, -1) << ts::name(op) << " case " << k << ": accepted call changed UB byte " << at
                      << " outside dst's written elements (spec 40 §2)";
  }
  tally.check(n, 50, 50);
}

TEST(AscendcUntouched, BlockReduceSum) {
  run(ts::ReduceOp::Sum, 11, robust::cases(6000));
}
TEST(AscendcUntouched, BlockReduceMax) {
  run(ts::ReduceOp::Max, 12, robust::cases(6000));
}
TEST(AscendcUntouched, BlockReduceMin) {
  run(ts::ReduceOp::Min, 13, robust::cases(6000));
}

}  // namespace
