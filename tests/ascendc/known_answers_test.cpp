// Known answers of spec 40 §4 (the seed) and hand-computed cases, through the vendor API.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernel_operator.h"
#include "tilesim/formats.hpp"

using namespace AscendC;
namespace fm = tilesim::formats;

namespace {

uint16_t hbits(half h) {
  uint16_t c;
  std::memcpy(&c, &h, 2);
  return c;
}
half hval(uint16_t c) {
  half h;
  std::memcpy(&h, &c, 2);
  return h;
}
uint32_t fbits(float f) {
  return fm::f32_to_bits(f);
}

struct Fixture : ::testing::Test {
  void SetUp() override { set_product("atlas_a2"); }
};

// Two buffers in UB: src at 0 (elements n), dst right after.
template <class T>
struct Bufs {
  TPipe pipe;
  TBuf<TPosition::VECCALC> sb, db;
  LocalTensor<T> src, dst;
  Bufs(uint32_t n, uint32_t m, T fill = T(-7)) {
    pipe.InitBuffer(sb, n * sizeof(T));
    pipe.InitBuffer(db, m * sizeof(T));
    src = sb.Get<T>();
    dst = db.Get<T>();
    Duplicate(dst, fill, int32_t(m));
  }
};

using KnownAnswers = Fixture;

// spec 40 §4 row 1: block b holds 16 copies of b+1 -> 16*(b+1) (seed: 16, 32, ...).
TEST_F(KnownAnswers, SeedContinuousMask128) {
  Bufs<half> b(128, 8);
  for (int i = 0; i < 128; ++i) b.src.SetValue(i, half(i / 16 + 1));
  BlockReduceSum<half>(b.dst, b.src, 1, 128, 1, 1, 8);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(float(b.dst.GetValue(k)), 16.0f * (k + 1)) << k;
}

// The seed's bit-mode example with all 128 bits set gives the same.
TEST_F(KnownAnswers, SeedBitModeFull) {
  Bufs<half> b(128, 8);
  for (int i = 0; i < 128; ++i) b.src.SetValue(i, half(i / 16 + 1));
  uint64_t mask[2] = {UINT64_MAX, UINT64_MAX};
  BlockReduceSum<half>(b.dst, b.src, 1, mask, 1, 1, 8);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(float(b.dst.GetValue(k)), 16.0f * (k + 1)) << k;
}

// spec 40 §4 row 2: mask [8, 0] -> element 3 only; blocks 1..7 not written on atlas_a2.
TEST_F(KnownAnswers, SeedMask8OnlyElement3) {
  Bufs<half> b(128, 8);
  for (int i = 0; i < 128; ++i) b.src.SetValue(i, half(i + 1));
  uint64_t mask[2] = {8, 0};
  BlockReduceSum<half>(b.dst, b.src, 1, mask, 1, 1, 8);
  EXPECT_EQ(float(b.dst.GetValue(0)), 4.0f);
  for (int k = 1; k < 8; ++k) EXPECT_EQ(float(b.dst.GetValue(k)), -7.0f) << k;
}

// spec 40 §4 row 3: Atlas 200I/500 A2, float, continuous 32: blocks 4..7 written as 0.
TEST_F(KnownAnswers, Seed200IFloatMask32) {
  set_product("atlas_200i_500_a2");
  Bufs<float> b(64, 8);
  for (int i = 0; i < 64; ++i) b.src.SetValue(i, float(i));
  BlockReduceSum<float>(b.dst, b.src, 1, 32, 1, 1, 8);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(b.dst.GetValue(k), float(8 * 8 * k + 28)) << k;  // sum 8k..8k+7
  for (int k = 4; k < 8; ++k) EXPECT_EQ(fbits(b.dst.GetValue(k)), 0u) << k;
}

// spec 40 §4 row 4 / §2: [60000, 60000, -30000, 100] -> 65504 (saturated), -29904, 35600 -> 35584.
TEST_F(KnownAnswers, SeedSaturation35584) {
  Bufs<half> b(128, 8);
  const float v[4] = {60000, 60000, -30000, 100};
  for (int i = 0; i < 4; ++i) b.src.SetValue(i, half(v[i]));
  BlockReduceSum<half>(b.dst, b.src, 1, 4, 1, 1, 8);
  EXPECT_EQ(float(b.dst.GetValue(0)), 35584.0f);
  EXPECT_EQ(hbits(b.dst.GetValue(0)), 0x7858);
  for (int k = 1; k < 8; ++k) EXPECT_EQ(float(b.dst.GetValue(k)), -7.0f);
  // Without saturation the first node is +Inf and stays Inf.
  SetSaturation(false);
  BlockReduceSum<half>(b.dst, b.src, 1, 4, 1, 1, 8);
  EXPECT_EQ(hbits(b.dst.GetValue(0)), 0x7C00);
}

// Saturation at the last level: 8 x 65504 in each half of the block: level 3 gives 2 x 65504 ->
// sat.
TEST_F(KnownAnswers, SaturationDeepLevels) {
  Bufs<half> b(128, 8);
  // block 0: 16 x 8192: 16384, 32768, 65536 -> +Inf -> 65504 at level 3, then 65504+65504 -> 65504.
  for (int i = 0; i < 16; ++i) b.src.SetValue(i, half(8192));
  // block 1: 15 x 8192 and one -8192: level 1 pair (8192 - 8192) = 0; left half reaches 49152
  // (3 x 16384 + 0 ... ) computed by hand: pairs [16384,16384,16384,0 | 16384 x4] -> [32768,16384 |
  // 32768,32768]
  // -> [49152 | 65504 (65536 saturated)] -> 49152 + 65504 = 115 k -> 65504.
  for (int i = 0; i < 16; ++i) b.src.SetValue(16 + i, half(i == 7 ? -8192 : 8192));
  // block 2: saturated node then subtraction: [65504, 65504, -65504, -65504, 0...]:
  // level 1: 65504+65504 -> 65504, -65504-65504 -> -65504; level 2: 0.
  const float v2[4] = {65504, 65504, -65504, -65504};
  for (int i = 0; i < 16; ++i) b.src.SetValue(32 + i, half(i < 4 ? v2[i] : 0));
  // block 3: +Inf input: Inf + 1 -> Inf -> 65504 at level 1; then + 1 + 2 ... exact sums.
  for (int i = 0; i < 16; ++i) b.src.SetValue(48 + i, half(i == 0 ? INFINITY : 1));
  // block 4: NaN input with saturation: NaN + 1 -> NaN -> 0 at level 1.
  for (int i = 0; i < 16; ++i) b.src.SetValue(64 + i, half(i == 0 ? NAN : 1));
  // block 5: Inf + -Inf -> NaN -> 0.
  for (int i = 0; i < 16; ++i)
    b.src.SetValue(80 + i, half(i == 0 ? INFINITY : i == 1 ? -INFINITY : 0));
  BlockReduceSum<half>(b.dst, b.src, 1, 96, 1, 1, 8);
  EXPECT_EQ(float(b.dst.GetValue(0)), 65504.0f);
  EXPECT_EQ(float(b.dst.GetValue(1)), 65504.0f);
  EXPECT_EQ(hbits(b.dst.GetValue(2)), 0x0000);
  EXPECT_EQ(float(b.dst.GetValue(3)), 65504.0f + 0.0f);  // 65504 + 14 rounds back to 65504
  EXPECT_EQ(float(b.dst.GetValue(4)), 14.0f);            // NaN pair became 0, 14 ones remain
  EXPECT_EQ(float(b.dst.GetValue(5)), 0.0f);
  SetSaturation(false);
  BlockReduceSum<half>(b.dst, b.src, 1, 96, 1, 1, 8);
  EXPECT_EQ(hbits(b.dst.GetValue(0)), 0x7C00);
  EXPECT_EQ(hbits(b.dst.GetValue(1)), 0x7C00);
  EXPECT_EQ(hbits(b.dst.GetValue(2)), 0x7E00);  // Inf + -Inf, canonical NaN
  EXPECT_EQ(hbits(b.dst.GetValue(3)), 0x7C00);
  EXPECT_EQ(hbits(b.dst.GetValue(4)), 0x7E00);
  EXPECT_EQ(hbits(b.dst.GetValue(5)), 0x7E00);
}

// Tree order matters in half: 2048 + 1 + 1 ... adjacent pairs (1+1) first keep the ones.
TEST_F(KnownAnswers, TreeOrderHalf) {
  Bufs<half> b(128, 8);
  // [2048, 1, 1, 1, ...]: level 1: 2049 -> 2048 (tie to even), 2, 2, ...; level 2: 2050, 4, 4, 4;
  // level 3: 2054, 8; level 4: 2062 -> 2062 (even, representable: ulp 2 above 2048).
  for (int i = 0; i < 16; ++i) b.src.SetValue(i, half(i == 0 ? 2048 : 1));
  BlockReduceSum<half>(b.dst, b.src, 1, 16, 1, 1, 8);
  EXPECT_EQ(float(b.dst.GetValue(0)), 2062.0f);
}

TEST_F(KnownAnswers, SubnormalsKept) {
  Bufs<half> h(128, 8);
  for (int i = 0; i < 16; ++i) h.src.SetValue(i, hval(0x0001));  // 2^-24
  BlockReduceSum<half>(h.dst, h.src, 1, 16, 1, 1, 8);
  EXPECT_EQ(hbits(h.dst.GetValue(0)), 0x0010);  // 16 * 2^-24
  Bufs<float> f(64, 8);
  for (int i = 0; i < 8; ++i) f.src.SetValue(i, fm::bits_to_f32(1));  // 2^-149
  BlockReduceSum<float>(f.dst, f.src, 1, 8, 1, 1, 8);
  EXPECT_EQ(fbits(f.dst.GetValue(0)), 8u);
}

TEST_F(KnownAnswers, FloatInfAndNaN) {
  Bufs<float> f(64, 8);
  for (int i = 0; i < 64; ++i) f.src.SetValue(i, 1.0f);
  f.src.SetValue(0, INFINITY);
  f.src.SetValue(8, INFINITY);
  f.src.SetValue(9, -INFINITY);
  f.src.SetValue(16, fm::bits_to_f32(0x7F800123));  // signalling-ish NaN payload
  f.src.SetValue(24, 3e38f);
  f.src.SetValue(25, 3e38f);
  BlockReduceSum<float>(f.dst, f.src, 1, 64, 1, 1, 8);
  EXPECT_EQ(fbits(f.dst.GetValue(0)), 0x7F800000u);
  EXPECT_EQ(fbits(f.dst.GetValue(1)), 0x7FC00000u);
  EXPECT_EQ(fbits(f.dst.GetValue(2)), 0x7FC00000u);
  EXPECT_EQ(fbits(f.dst.GetValue(3)), 0x7F800000u);  // float SUM is not saturated
  EXPECT_EQ(f.dst.GetValue(4), 8.0f);
}

TEST_F(KnownAnswers, MaxMinRules) {
  Bufs<half> b(128, 8);
  for (int i = 0; i < 128; ++i) b.src.SetValue(i, half(float(i % 16) - 8));
  b.src.SetValue(16 + 5, half(NAN));  // block 1: NaN -> canonical
  for (int i = 0; i < 16; ++i) {      // block 2: -0 and +0 only
    b.src.SetValue(32 + i, hval(i == 9 ? 0x0000 : 0x8000));
    b.src.SetValue(48 + i, hval(0x8000));  // block 3: all -0
    b.src.SetValue(64 + i, hval(0xFC00));  // block 4: all -Inf
  }
  BlockReduceMax<half>(b.dst, b.src, 1, 128, 1, 1, 8);
  EXPECT_EQ(float(b.dst.GetValue(0)), 7.0f);
  EXPECT_EQ(hbits(b.dst.GetValue(1)), 0x7E00);
  EXPECT_EQ(hbits(b.dst.GetValue(2)), 0x0000);
  EXPECT_EQ(hbits(b.dst.GetValue(3)), 0x8000);
  EXPECT_EQ(hbits(b.dst.GetValue(4)), 0xFC00);
  BlockReduceMin<half>(b.dst, b.src, 1, 128, 1, 1, 8);
  EXPECT_EQ(float(b.dst.GetValue(0)), -8.0f);
  EXPECT_EQ(hbits(b.dst.GetValue(1)), 0x7E00);
  EXPECT_EQ(hbits(b.dst.GetValue(2)), 0x8000);
  EXPECT_EQ(hbits(b.dst.GetValue(3)), 0x8000);
  EXPECT_EQ(hbits(b.dst.GetValue(4)), 0xFC00);
  // MAX is not saturated: 65504 stays, a block with +Inf gives +Inf.
  b.src.SetValue(80, hval(0x7C00));
  BlockReduceMax<half>(b.dst, b.src, 1, 128, 1, 1, 8);
  EXPECT_EQ(hbits(b.dst.GetValue(5)), 0x7C00);
}

// Inactive elements are the identity: a MAX over only negative active elements is not 0.
TEST_F(KnownAnswers, InactiveIsIdentity) {
  Bufs<float> f(64, 8);
  for (int i = 0; i < 64; ++i) f.src.SetValue(i, -float(i + 1));
  uint64_t mask[1] = {0b110};  // elements 1, 2 of block 0
  BlockReduceMax<float>(f.dst, f.src, 1, mask, 1, 1, 8);
  EXPECT_EQ(f.dst.GetValue(0), -2.0f);
  BlockReduceMin<float>(f.dst, f.src, 1, mask, 1, 1, 8);
  EXPECT_EQ(f.dst.GetValue(0), -3.0f);
  BlockReduceSum<float>(f.dst, f.src, 1, mask, 1, 1, 8);
  EXPECT_EQ(f.dst.GetValue(0), -5.0f);
  EXPECT_EQ(f.dst.GetValue(1), -7.0f);  // not written on atlas_a2
}

// Product rules for fully masked blocks (spec 40 §5).
TEST_F(KnownAnswers, FullyMaskedBlockPerProduct) {
  struct Row {
    const char* product;
    uint16_t sum, max, min;
    bool written;
  } rows[] = {
      {"atlas_a2", 0, 0, 0, false},
      {"atlas_a3", 0, 0, 0, false},
      {"ascend950", 0x0000, 0xFC00, 0x7C00, true},
      {"atlas_200i_500_a2", 0x0000, 0xFBFF, 0x7BFF, true},
      {"atlas_inference_aicore", 0, 0, 0, false},
      {"atlas_training", 0, 0, 0, false},
      {"kirin_x90", 0, 0, 0, false},
      {"kirin_9030", 0, 0, 0, false},
  };
  for (const Row& r : rows) {
    set_product(r.product);
    Bufs<half> b(128, 8, half(-7));
    for (int i = 0; i < 128; ++i) b.src.SetValue(i, half(1));
    BlockReduceSum<half>(b.dst, b.src, 1, 16, 1, 1, 8);
    EXPECT_EQ(float(b.dst.GetValue(0)), 16.0f) << r.product;
    EXPECT_EQ(hbits(b.dst.GetValue(1)), r.written ? r.sum : hbits(half(-7))) << r.product;
    BlockReduceMax<half>(b.dst, b.src, 1, 16, 1, 1, 8);
    EXPECT_EQ(hbits(b.dst.GetValue(2)), r.written ? r.max : hbits(half(r.written ? 0 : -7)))
        << r.product;
    BlockReduceMin<half>(b.dst, b.src, 1, 16, 1, 1, 8);
    EXPECT_EQ(hbits(b.dst.GetValue(3)), r.written ? r.min : hbits(half(-7))) << r.product;
  }
  // float on 200I: MAX -Inf, MIN +Inf.
  set_product("atlas_200i_500_a2");
  Bufs<float> f(64, 8, -7.0f);
  for (int i = 0; i < 64; ++i) f.src.SetValue(i, 1.0f);
  BlockReduceMax<float>(f.dst, f.src, 1, 8, 1, 1, 8);
  EXPECT_EQ(fbits(f.dst.GetValue(7)), 0xFF800000u);
  BlockReduceMin<float>(f.dst, f.src, 1, 8, 1, 1, 8);
  EXPECT_EQ(fbits(f.dst.GetValue(7)), 0x7F800000u);
}

// Repeats, strides, dstRepStride 0 (last write wins), srcBlkStride 0.
TEST_F(KnownAnswers, RepeatsAndStrides) {
  Bufs<float> f(512, 64, -7.0f);
  for (int i = 0; i < 512; ++i) f.src.SetValue(i, float(i / 8));  // datablock q holds 8 x q
  BlockReduceSum<float>(f.dst, f.src, 3, 64, 2, 2, 20);
  for (int r = 0; r < 3; ++r)
    for (int b = 0; b < 8; ++b)
      EXPECT_EQ(f.dst.GetValue(r * 16 + b), 8.0f * (r * 20 + b * 2)) << r << " " << b;
  EXPECT_EQ(f.dst.GetValue(8), -7.0f);  // the gap between repeats is untouched
  BlockReduceSum<float>(f.dst, f.src, 3, 64, 0, 0,
                        1);  // dstRepStride 0: repeat 2 wins; blkStride 0
  for (int b = 0; b < 8; ++b) EXPECT_EQ(f.dst.GetValue(b), 8.0f * 2) << b;
}

// The legal in-place pattern of spec 40 §3.
TEST_F(KnownAnswers, InPlace) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 4 * 128 * sizeof(half));
  LocalTensor<half> t = buf.Get<half>();
  for (int i = 0; i < 512; ++i) t.SetValue(i, half(i / 16));
  BlockReduceSum<half>(t, t, 4, 128, 1, 1, 8);
  for (int k = 0; k < 32; ++k) EXPECT_EQ(float(t.GetValue(k)), 16.0f * k) << k;
}

// Mask register state machine (spec 40 §1).
TEST_F(KnownAnswers, MaskRegisterSticky) {
  Bufs<half> b(128, 8);
  for (int i = 0; i < 128; ++i) b.src.SetValue(i, half(1));
  // Reset state is all ones.
  BlockReduceSum<half, false>(b.dst, b.src, 1, MASK_PLACEHOLDER, 1, 1, 8);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(float(b.dst.GetValue(k)), 16.0f);
  // An isSetMask = true call leaves its mask in the register.
  for (int k = 0; k < 8; ++k) b.dst.SetValue(k, half(-7));  // Duplicate would reset the mask (count form)
  BlockReduceSum<half>(b.dst, b.src, 1, 20, 1, 1, 8);
  EXPECT_EQ(float(b.dst.GetValue(1)), 4.0f);
  for (int k = 0; k < 8; ++k) b.dst.SetValue(k, half(-7));  // Duplicate would reset the mask (count form)
  BlockReduceSum<half, false>(b.dst, b.src, 1, MASK_PLACEHOLDER, 1, 1, 8);
  EXPECT_EQ(float(b.dst.GetValue(0)), 16.0f);
  EXPECT_EQ(float(b.dst.GetValue(1)), 4.0f);
  EXPECT_EQ(float(b.dst.GetValue(2)), -7.0f);
  // SetVectorMask (high, low) and (len); ResetMask.
  SetVectorMask<half, MaskMode::NORMAL>(uint64_t{1} << 63, 0);  // element 127 only
  BlockReduceSum<half, false>(b.dst, b.src, 1, MASK_PLACEHOLDER, 1, 1, 8);
  EXPECT_EQ(float(b.dst.GetValue(7)), 1.0f);
  SetVectorMask<half>(33);
  BlockReduceSum<half, false>(b.dst, b.src, 1, MASK_PLACEHOLDER, 1, 1, 8);
  EXPECT_EQ(float(b.dst.GetValue(2)), 1.0f);
  ResetMask();
  BlockReduceSum<half, false>(b.dst, b.src, 1, MASK_PLACEHOLDER, 1, 1, 8);
  EXPECT_EQ(float(b.dst.GetValue(7)), 16.0f);
}

// Counter mode: 300 floats = 4 repeats of 64 + 44; repeatTime ignored.
TEST_F(KnownAnswers, CounterMode) {
  Bufs<float> f(320, 40, -7.0f);
  for (int i = 0; i < 320; ++i) f.src.SetValue(i, float(i % 8 + 1));
  SetMaskCount();
  SetVectorMask<float, MaskMode::COUNTER>(0, 300);
  BlockReduceSum<float, false>(f.dst, f.src, 1, MASK_PLACEHOLDER, 1, 1, 8);
  SetMaskNorm();
  ResetMask();
  for (int k = 0; k < 37; ++k) EXPECT_EQ(f.dst.GetValue(k), 36.0f) << k;  // 296 = 37 full blocks
  EXPECT_EQ(f.dst.GetValue(37), 10.0f);                                   // 1+2+3+4
  EXPECT_EQ(f.dst.GetValue(38), -7.0f);  // fully masked: not written
  EXPECT_EQ(f.dst.GetValue(39), -7.0f);
  // repeatTime is ignored in counter mode (spec 40 §1), also outside [0, 255]: same results.
  for (const int32_t rt : {300, -1, 0}) {
    Bufs<float> g(320, 40, -7.0f);
    for (int i = 0; i < 320; ++i) g.src.SetValue(i, float(i % 8 + 1));
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, 300);
    BlockReduceSum<float, false>(g.dst, g.src, rt, MASK_PLACEHOLDER, 1, 1, 8);
    SetMaskNorm();
    ResetMask();
    EXPECT_EQ(g.dst.GetValue(36), 36.0f) << "repeatTime " << rt;
    EXPECT_EQ(g.dst.GetValue(37), 10.0f) << "repeatTime " << rt;
    EXPECT_EQ(g.dst.GetValue(38), -7.0f) << "repeatTime " << rt;
  }
  // Count 0 does nothing.
  SetMaskCount();
  SetVectorMask<float, MaskMode::COUNTER>(0);
  BlockReduceSum<float, false>(f.dst, f.src, 1, MASK_PLACEHOLDER, 1, 1, 8);
  SetMaskNorm();
  EXPECT_EQ(f.dst.GetValue(0), 36.0f);
}

TEST_F(KnownAnswers, RepeatZeroDoesNothing) {
  Bufs<half> b(128, 8);
  for (int i = 0; i < 128; ++i) b.src.SetValue(i, half(1));
  BlockReduceSum<half>(b.dst, b.src, 0, 128, 1, 1, 8);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(float(b.dst.GetValue(k)), -7.0f);
}

TEST_F(KnownAnswers, KernelMacrosAndScaffolding) {
  EXPECT_EQ(GetBlockIdx(), 0);
  EXPECT_EQ(GetBlockNum(), 1);
  alignas(32) half gm_in[256], gm_out[16];
  for (int i = 0; i < 256; ++i) gm_in[i] = half(i % 16);
  GlobalTensor<half> in, out;
  in.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(gm_in), 256);
  out.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(gm_out), 16);
  TPipe pipe;
  TQue<TPosition::VECIN, 1> qin;
  TQue<TPosition::VECOUT, 1> qout;
  pipe.InitBuffer(qin, 1, 256 * sizeof(half));
  pipe.InitBuffer(qout, 1, 16 * sizeof(half));
  LocalTensor<half> x = qin.AllocTensor<half>();
  EXPECT_EQ(x.GetSize(), 256u);
  EXPECT_EQ(x.GetPosition(), TPosition::VECIN);
  DataCopy(x, in, 256);
  qin.EnQue(x);
  LocalTensor<half> xi = qin.DeQue<half>();
  LocalTensor<half> y = qout.AllocTensor<half>();
  BlockReduceSum<half>(y, xi, 2, 128, 1, 1, 8);
  qout.EnQue(y);
  qin.FreeTensor(xi);
  LocalTensor<half> yo = qout.DeQue<half>();
  DataCopy(out, yo, 16);
  qout.FreeTensor(yo);
  for (int k = 0; k < 16; ++k) EXPECT_EQ(float(gm_out[k]), 120.0f) << k;
  EXPECT_EQ(float(x[3].GetValue(0)), 3.0f);
}

}  // namespace
