// BDC arithmetic (spec 51 §3): hand-computed known answers per family, a differential test of
// every function against an independent per-element model (spec 50 §1 addressing written out here,
// spec 15's scalar definitions ops::eval / ops::cast_one) over chips x dtypes x layouts (aligned,
// free, w-strided, broadcast) x start NPUs, on the fast path and the reference path, comparing the
// whole local memory (so nothing outside dst is written); and one test per rejection.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ops/cast.hpp"
#include "ops/op_table.hpp"
#include "tpu/dtype.hpp"
#include "tilesim/parallel.hpp"
#include "tpu/int_shift.hpp"
#include "tpu_test_util.hpp"

namespace {

using tilesim::ErrorCode;
using tilesim::formats::DType;
using tilesim::ops::Op;
using tilesim::tpu::BdcCall;
using tilesim::tpu::Device;
using namespace tpu_test;

// ---- known answers (hand-computed; TPU-Kernel reference pages arith/cmp/util, spec 15) ----

struct Fx {
  Device d{"bm1684x"};
  const dim4 s = shape4(1, 2, 1, 4);  // channel 0 on NPU 0, channel 1 on NPU 1
  template <class T>
  void put(local_addr_t a, std::vector<T> v, data_type_t dt) { tpu_test::put(d, a, s, v, dt); }
  template <class T>
  std::vector<T> get(local_addr_t a, data_type_t dt) { return tpu_test::get<T>(d, a, s, dt); }
  void run(BdcCall k) {
    k.shape = &s;
    d.bdc(k);
  }
};
BdcCall call(const char* fn, local_addr_t dst, local_addr_t a, local_addr_t b, int dt) {
  BdcCall k;
  k.fn = fn, k.dst = dst, k.src0 = a, k.src1 = b, k.dst_dtype = k.src0_dtype = k.src1_dtype = dt;
  return k;
}

TEST(TpuBdcKnown, FloatArithmetic) {
  Fx f;
  f.put<float>(0, {1.5f, -2.f, 0.f, 1e30f, 3.f, 1.f, -0.f, 0.f}, DT_FP32);
  f.put<float>(64, {0.25f, -2.f, -0.f, 1e30f, 0.f, 3.f, -0.f, 0.f}, DT_FP32);
  f.run(call("tpu_bdc_fp_add", 128, 0, 64, DT_FP32));
  EXPECT_EQ(f.get<float>(128, DT_FP32), (std::vector<float>{1.75f, -4.f, 0.f, 2e30f, 3.f, 4.f, -0.f, 0.f}));
  f.run(call("tpu_bdc_fp_div", 128, 0, 64, DT_FP32));
  const auto q = f.get<uint32_t>(128, DT_FP32);
  EXPECT_EQ(q[0], f32_bits(6.f));
  EXPECT_EQ(q[4], f32_bits(INFINITY));         // 3 / 0
  EXPECT_EQ(q[6], 0x7FC00000u);                // -0 / -0: the canonical NaN (spec 15)
  EXPECT_EQ(q[5], f32_bits(1.f / 3.f));        // RNE
  BdcCall k = call("tpu_bdc_fp_C_sub", 128, 0, 0, DT_FP32);
  k.c_bits = f32_bits(10.f);
  f.run(k);  // 10 - x
  EXPECT_EQ(f.get<float>(128, DT_FP32)[1], 12.f);
  k.fn = "tpu_bdc_fp_mul_C";
  f.run(k);
  EXPECT_EQ(f.get<float>(128, DT_FP32)[0], 15.f);
}

TEST(TpuBdcKnown, HalfRoundsOnceAndMaxMin) {
  Fx f;
  // fp16: 1 + 2^-11 is a tie between 1 and 1 + 2^-10: RNE gives 1 (0x3C00)
  f.put<uint16_t>(0, {0x3C00, 0x3C01, 0x7C00, 0xFC00, 0x7E01, 0x8000, 0x0000, 0x4000}, DT_FP16);
  f.put<uint16_t>(64, {0x1000, 0x1000, 0xFC00, 0xFC00, 0x3C00, 0x0000, 0x8000, 0xC000}, DT_FP16);
  f.run(call("tpu_bdc_fp_add", 128, 0, 64, DT_FP16));
  const auto r = f.get<uint16_t>(128, DT_FP16);
  EXPECT_EQ(r[0], 0x3C00);  // 1 + 2^-11 -> tie -> even
  EXPECT_EQ(r[1], 0x3C02);  // (1 + 2^-10) + 2^-11 -> tie -> even (up)
  EXPECT_EQ(r[2], 0x7E00);  // inf + -inf: canonical fp16 NaN
  EXPECT_EQ(r[3], 0xFC00);
  EXPECT_EQ(r[4], 0x7E00);  // NaN in: canonical NaN out
  f.run(call("tpu_bdc_max", 128, 0, 64, DT_FP16));
  const auto m = f.get<uint16_t>(128, DT_FP16);
  EXPECT_EQ(m[4], 0x7E00);  // NaN propagates
  EXPECT_EQ(m[5], 0x0000);  // max(-0, +0) = +0
  EXPECT_EQ(m[6], 0x0000);
  f.run(call("tpu_bdc_min", 128, 0, 64, DT_FP16));
  EXPECT_EQ(f.get<uint16_t>(128, DT_FP16)[5], 0x8000);  // min(-0, +0) = -0
}

TEST(TpuBdcKnown, IntegerFormsShiftRoundSaturate) {
  Fx f;
  f.put<int16_t>(0, {100, -100, 30000, -30000, 7, -7, 5, 6}, DT_INT16);
  f.put<int8_t>(64, {27, 27, 100, -100, 0, 0, 0, 0}, DT_INT8);
  BdcCall k = call("tpu_bdc_int_add", 128, 0, 64, DT_INT8);
  k.src0_dtype = DT_INT16, k.src1_dtype = DT_INT8, k.shift = 1, k.rounding = RM_HALF_TO_EVEN, k.saturation = true;
  f.run(k);
  // (100+27)/2 = 63.5 -> 64 (even); (-100+27)/2 = -36.5 -> -36; 30100/2 -> 15050 -> 127; -> -128;
  // 7/2 = 3.5 -> 4; -7/2 -> -4; 5/2 = 2.5 -> 2; 6/2 = 3
  EXPECT_EQ(f.get<int8_t>(128, DT_INT8), (std::vector<int8_t>{64, -36, 127, -128, 4, -4, 2, 3}));
  k.rounding = RM_HALF_AWAY_FROM_ZERO;
  f.run(k);
  EXPECT_EQ(f.get<int8_t>(128, DT_INT8), (std::vector<int8_t>{64, -37, 127, -128, 4, -4, 3, 3}));
  k.rounding = RM_DOWN, k.saturation = false;
  f.run(k);
  // 15050 = 0x3ACA -> low byte 0xCA = -54; -15050 -> 0x..36 = 54
  EXPECT_EQ(f.get<int8_t>(128, DT_INT8), (std::vector<int8_t>{63, -37, -54, 54, 3, -4, 2, 3}));
  // int_C_sub: C - src, uint8 result saturating at 0
  BdcCall c = call("tpu_bdc_int_C_sub", 128, 0, 0, DT_UINT8);
  c.src0_dtype = DT_INT16, c.src1_dtype = DT_INT16, c.c_bits = 10, c.rounding = RM_TOWARDS_ZERO;
  f.run(c);
  EXPECT_EQ(f.get<uint8_t>(128, DT_UINT8), (std::vector<uint8_t>{0, 110, 0, 255, 3, 17, 5, 4}));
  // int_mul: int16 x int8 -> int32, shift 3, RM_UP: 100*27 = 2700 / 8 = 337.5 -> 338
  BdcCall m = call("tpu_bdc_int_mul", 128, 0, 64, DT_INT32);
  m.src0_dtype = DT_INT16, m.src1_dtype = DT_INT8, m.shift = 3, m.rounding = RM_UP;
  f.run(m);
  EXPECT_EQ(f.get<int32_t>(128, DT_INT32)[0], 338);
  EXPECT_EQ(f.get<int32_t>(128, DT_INT32)[1], -337);  // -2700 / 8 = -337.5 -> ceil -337
}

TEST(TpuBdcKnown, ComparesLogicUnaryMoves) {
  Fx f;
  f.put<float>(0, {1.f, NAN, -0.f, 2.f, -3.f, 0.5f, INFINITY, -1.f}, DT_FP32);
  f.put<float>(64, {1.f, NAN, 0.f, 3.f, -3.f, 0.25f, INFINITY, 1.f}, DT_FP32);
  BdcCall k = call("tpu_bdc_equal", 128, 0, 64, DT_INT8);
  k.src0_dtype = k.src1_dtype = DT_FP32, k.true_bits = 0xFF;
  f.run(k);
  EXPECT_EQ(f.get<int8_t>(128, DT_INT8), (std::vector<int8_t>{-1, 0, -1, 0, -1, 0, -1, 0}));  // NaN != NaN, -0 == 0
  k.fn = "tpu_bdc_not_equal";
  f.run(k);
  EXPECT_EQ(f.get<int8_t>(128, DT_INT8), (std::vector<int8_t>{0, -1, 0, -1, 0, -1, 0, -1}));
  BdcCall kc = call("tpu_bdc_greater_C", 128, 0, 0, DT_FP32);
  kc.src0_dtype = DT_FP32, kc.c_bits = f32_bits(0.f), kc.true_bits = f32_bits(1.f);
  f.run(kc);
  EXPECT_EQ(f.get<float>(128, DT_FP32), (std::vector<float>{1.f, 0.f, 0.f, 1.f, 0.f, 1.f, 1.f, 0.f}));
  f.run(call("tpu_bdc_relu", 128, 0, 0, DT_FP32));
  const auto r = f.get<uint32_t>(128, DT_FP32);
  EXPECT_EQ(r[1], 0x7FC00000u);  // relu(NaN) = canonical NaN
  EXPECT_EQ(r[2], 0u);           // relu(-0) = +0
  f.run(call("tpu_bdc_abs", 128, 0, 0, DT_FP32));
  EXPECT_EQ(f.get<float>(128, DT_FP32)[4], 3.f);
  // logic on integers
  f.put<uint16_t>(192, {0x00FF, 0xF0F0, 0x1234, 0, 0xFFFF, 1, 2, 3}, DT_UINT16);
  BdcCall x = call("tpu_bdc_xor_C", 256, 192, 0, DT_UINT16);
  x.c_bits = 0x0F0F;
  f.run(x);
  EXPECT_EQ(f.get<uint16_t>(256, DT_UINT16), (std::vector<uint16_t>{0x0FF0, 0xFFFF, 0x1D3B, 0x0F0F, 0xF0F0, 0x0F0E, 0x0F0D, 0x0F0C}));
  f.run(call("tpu_bdc_not", 256, 192, 0, DT_UINT16));
  EXPECT_EQ(f.get<uint16_t>(256, DT_UINT16)[0], 0xFF00);
  // set_C, cast fp32 -> int8 (RM_HALF_AWAY_FROM_ZERO, saturating), scalar tpu_cast
  BdcCall sc = call("tpu_bdc_set_C", 256, 0, 0, DT_BFP16);
  sc.c_bits = 0x3F80;
  f.run(sc);
  EXPECT_EQ(f.get<uint16_t>(256, DT_BFP16)[7], 0x3F80);
  f.put<float>(0, {2.5f, -2.5f, 300.f, NAN, -0.49f, 1e10f, -1e10f, 0.5f}, DT_FP32);
  BdcCall cs = call("tpu_bdc_cast", 256, 0, 0, DT_INT8);
  cs.src0_dtype = DT_FP32, cs.rounding = RM_HALF_AWAY_FROM_ZERO;
  f.run(cs);
  EXPECT_EQ(f.get<int8_t>(256, DT_INT8), (std::vector<int8_t>{3, -3, 127, 0, 0, 127, -128, 1}));
  cs.rounding = RM_HALF_TO_EVEN;
  f.run(cs);
  EXPECT_EQ(f.get<int8_t>(256, DT_INT8)[0], 2);
  EXPECT_EQ(f.get<int8_t>(256, DT_INT8)[7], 0);
}

TEST(TpuBdcKnown, CopyWithBroadcastStridesInPlaceAndNpuBcast) {
  Device d("bm1688");  // 32 NPUs
  const dim4 s = shape4(1, 3, 2, 3);
  put(d, 0, shape4(1, 1, 1, 3), std::vector<int32_t>{7, 8, 9}, DT_INT32);
  // npu_bcast channel 0 (NPU 0) to channels 0..2 (NPUs 0..2), in place
  const dim4 bs = shape4(1, 3, 1, 3);
  BdcCall b;
  b.fn = "tpu_bdc_npu_bcast", b.dst = 0, b.src0 = 0, b.shape = &bs, b.dst_dtype = b.src0_dtype = DT_INT32;
  d.bdc(b);
  EXPECT_EQ(get<int32_t>(d, 0, bs, DT_INT32), (std::vector<int32_t>{7, 8, 9, 7, 8, 9, 7, 8, 9}));
  // cpy in place with a broadcast h stride: [1, 3, 2, 3] from the [1, 3, 1, 3] rows (reads first)
  const dim4 src_st{0, 0, 0, 1};
  BdcCall c;
  c.fn = "tpu_bdc_cpy", c.dst = 0, c.src0 = 0, c.shape = &s, c.src0_stride = &src_st;
  c.dst_dtype = c.src0_dtype = DT_INT32;
  d.bdc(c);
  EXPECT_EQ(get<int32_t>(d, 0, s, DT_INT32),
            (std::vector<int32_t>{7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9}));
}

TEST(TpuBdcKnown, ScalarCasts) {
  scalar_t x{};
  x.f32 = 1.f / 3.f;
  scalar_t h = tpu_cast(x, DT_FP16, DT_FP32, RM_HALF_TO_EVEN);
  EXPECT_EQ(h.u16, 0x3555);  // 0.33325195 (fp16 nearest of 1/3)
  h = tpu_fp_cast(x, DT_BFP16, DT_FP32, RM_UP);
  EXPECT_EQ(h.u16, 0x3EAB);  // 1/3 = 0x3EAAAAAB -> bf16 up 0x3EAB
  h = tpu_fp_cast(x, DT_BFP16, DT_FP32, RM_TOWARDS_ZERO);
  EXPECT_EQ(h.u16, 0x3EAA);
  x.f32 = 2.5f;
  EXPECT_EQ(tpu_cast(x, DT_INT32, DT_FP32, RM_HALF_UP).s32, 3);
  EXPECT_EQ(tpu_cast(x, DT_INT32, DT_FP32, RM_HALF_DOWN).s32, 2);
  x.f32 = -2.5f;
  EXPECT_EQ(tpu_cast(x, DT_INT32, DT_FP32, RM_HALF_UP).s32, -2);
  EXPECT_EQ(tpu_cast(x, DT_INT32, DT_FP32, RM_DOWN).s32, -3);
  scalar_t i{};
  i.s32 = 300;
  EXPECT_EQ(tpu_int_cast(i, DT_INT8, DT_INT32).s8, 127);
  EXPECT_EQ(tpu_int_cast(i, DT_UINT8, DT_INT32).u8, 255);
}

// ---- differential: every function against the per-element model ----

struct Fn {
  const char* name;
  enum Form { Bin, BinC, CBin, Un, IntBin, IntBinC, IntCBin, Cmp, CmpC, SetC, Cpy, Cast, Exp } form;
  Op op;
  bool flt, integer;
};
const Fn kFns[] = {
    {"tpu_bdc_fp_add", Fn::Bin, Op::add, true, false},       {"tpu_bdc_fp_sub", Fn::Bin, Op::sub, true, false},
    {"tpu_bdc_fp_mul", Fn::Bin, Op::mul, true, false},       {"tpu_bdc_fp_div", Fn::Bin, Op::div, true, false},
    {"tpu_bdc_fp_add_C", Fn::BinC, Op::add, true, false},    {"tpu_bdc_fp_sub_C", Fn::BinC, Op::sub, true, false},
    {"tpu_bdc_fp_mul_C", Fn::BinC, Op::mul, true, false},    {"tpu_bdc_fp_div_C", Fn::BinC, Op::div, true, false},
    {"tpu_bdc_fp_C_sub", Fn::CBin, Op::sub, true, false},    {"tpu_bdc_fp_C_div", Fn::CBin, Op::div, true, false},
    {"tpu_bdc_max", Fn::Bin, Op::max, true, true},           {"tpu_bdc_min", Fn::Bin, Op::min, true, true},
    {"tpu_bdc_max_C", Fn::BinC, Op::max, true, true},        {"tpu_bdc_min_C", Fn::BinC, Op::min, true, true},
    {"tpu_bdc_int_add", Fn::IntBin, Op::add, false, true},   {"tpu_bdc_int_sub", Fn::IntBin, Op::sub, false, true},
    {"tpu_bdc_int_mul", Fn::IntBin, Op::mul, false, true},   {"tpu_bdc_int_add_C", Fn::IntBinC, Op::add, false, true},
    {"tpu_bdc_int_sub_C", Fn::IntBinC, Op::sub, false, true}, {"tpu_bdc_int_mul_C", Fn::IntBinC, Op::mul, false, true},
    {"tpu_bdc_int_C_sub", Fn::IntCBin, Op::sub, false, true}, {"tpu_bdc_equal", Fn::Cmp, Op::eq, true, true},
    {"tpu_bdc_not_equal", Fn::Cmp, Op::ne, true, true},      {"tpu_bdc_greater", Fn::Cmp, Op::gt, true, true},
    {"tpu_bdc_less", Fn::Cmp, Op::lt, true, true},           {"tpu_bdc_greater_equal", Fn::Cmp, Op::ge, true, true},
    {"tpu_bdc_less_equal", Fn::Cmp, Op::le, true, true},     {"tpu_bdc_equal_C", Fn::CmpC, Op::eq, true, true},
    {"tpu_bdc_not_equal_C", Fn::CmpC, Op::ne, true, true},   {"tpu_bdc_greater_C", Fn::CmpC, Op::gt, true, true},
    {"tpu_bdc_less_C", Fn::CmpC, Op::lt, true, true},        {"tpu_bdc_greater_equal_C", Fn::CmpC, Op::ge, true, true},
    {"tpu_bdc_less_equal_C", Fn::CmpC, Op::le, true, true},  {"tpu_bdc_and", Fn::Bin, Op::band, false, true},
    {"tpu_bdc_or", Fn::Bin, Op::bor, false, true},           {"tpu_bdc_xor", Fn::Bin, Op::bxor, false, true},
    {"tpu_bdc_not", Fn::Un, Op::bnot, false, true},          {"tpu_bdc_and_C", Fn::BinC, Op::band, false, true},
    {"tpu_bdc_or_C", Fn::BinC, Op::bor, false, true},        {"tpu_bdc_xor_C", Fn::BinC, Op::bxor, false, true},
    {"tpu_bdc_abs", Fn::Un, Op::abs, true, true},            {"tpu_bdc_neg", Fn::Un, Op::neg, true, true},
    {"tpu_bdc_fp_exp", Fn::Exp, Op::exp, true, false},       {"tpu_bdc_relu", Fn::Un, Op::relu, true, true},
    {"tpu_bdc_set_C", Fn::SetC, Op::copy, true, true},       {"tpu_bdc_cpy", Fn::Cpy, Op::copy, true, true},
    {"tpu_bdc_cast", Fn::Cast, Op::copy, true, true},
};

struct DT {
  data_type_t dt;
  DType fmt;
  int e;
  bool flt;
};
const DT kDts[] = {{DT_FP32, DType::fp32, 4, true},  {DT_FP16, DType::fp16, 2, true},   {DT_BFP16, DType::bf16, 2, true},
                   {DT_INT8, DType::s8, 1, false},   {DT_UINT8, DType::u8, 1, false},   {DT_INT16, DType::s16, 2, false},
                   {DT_UINT16, DType::u16, 2, false}, {DT_INT32, DType::s32, 4, false}, {DT_UINT32, DType::u32, 4, false}};

// An operand as the model sees it: spec 50 §1 addressing, written out independently of src/tpu;
// `at` is its byte in memory(), NPU k at k * npu_stride() (docs/tpu.md#host-layout).
struct Lay {
  local_addr_t addr;
  dim4 st;  // element strides
  int e;
};
size_t at(const Device& d, const Lay& l, int n, int c, int h, int w) {
  const int q = static_cast<int>(l.addr / d.local_mem_size());
  const int npu = (q + c) % d.npu_num(), slot = (q + c) / d.npu_num();
  return size_t(npu) * d.npu_stride() + l.addr % d.local_mem_size() +
         size_t(int64_t(n) * l.st.n + int64_t(slot) * l.st.c + int64_t(h) * l.st.h + int64_t(w) * l.st.w) * l.e;
}
uint64_t load(const std::vector<uint8_t>& m, size_t off, int e) {
  uint64_t v = 0;
  std::memcpy(&v, &m[off], e);
  return v;
}
void store(std::vector<uint8_t>& m, size_t off, int e, uint64_t v) { std::memcpy(&m[off], &v, e); }
int64_t sext(uint64_t code, const DT& t) {
  const int bits = 8 * t.e;
  if (t.fmt == DType::s8 || t.fmt == DType::s16 || t.fmt == DType::s32)
    return int64_t(code << (64 - bits)) >> (64 - bits);
  return int64_t(code);
}

TEST(TpuBdcDifferential, EveryFunctionAgainstTheElementModel) {
  std::mt19937_64 rng(51);
  int runs = 0;
  for (const char* chip : {"bm1684x", "bm1688", "bm1690"}) {
    Device d(chip);
    const uint32_t lms = d.local_mem_size();
    // random memory, once per chip (every layout below fits in the first 64 KiB of each NPU)
    std::vector<uint8_t> mem(d.memory().size());
    for (size_t i = 0; i < mem.size(); i += 8) {
      const uint64_t v = rng();
      std::memcpy(&mem[i], &v, 8);
    }
    for (const Fn& fn : kFns)
      for (const DT& t : kDts) {
        if (t.flt ? !fn.flt : !fn.integer) continue;
        {
          const int layout = fn.form == Fn::Exp ? 0 : int(rng() % 4);
          // layouts: 0 aligned (NULL strides), 1 free dense, 2 w stride 2, 3 source broadcast (0 strides)
          const int N = 1 + int(rng() % 2), C = 1 + int(rng() % (d.npu_num() + 6)), H = 1 + int(rng() % 3),
                    W = 1 + int(rng() % 19);
          const int q = int(rng() % 3) == 0 ? 0 : int(rng() % d.npu_num());
          const dim4 shape = shape4(N, C, H, W);
          // dtypes: integer forms mix widths; compares write an integer or float dst; cast crosses kinds
          const DT& a_t = t;
          const DT& b_t = (fn.form == Fn::IntBin || fn.form == Fn::IntBinC || fn.form == Fn::IntCBin)
                              ? kDts[3 + rng() % 6] : t;
          const DT& dst_t = (fn.form == Fn::Cmp || fn.form == Fn::CmpC || fn.form == Fn::Cast)
                                ? kDts[rng() % 9]
                                : (fn.form == Fn::IntBin || fn.form == Fn::IntBinC || fn.form == Fn::IntCBin)
                                    ? kDts[3 + rng() % 6] : t;
          // place dst, src0, src1 one after another inside each NPU
          uint32_t r = 0;
          auto place = [&](const DT& dt, bool src, dim4* st_out, const dim4** st_ptr) {
            const int e = dt.e;
            const int slots = (q + C - 1) / d.npu_num() + 1;
            dim4 st;
            if (layout == 0) {
              const int eu = d.align_bytes() / e, cs = (H * W + eu - 1) / eu * eu;
              st = dim4{slots * cs, cs, W, 1};
              *st_ptr = nullptr;
            } else {
              const int ws = layout == 2 ? 2 : 1;
              st = dim4{slots * H * W * ws, H * W * ws, W * ws, ws};
              if (layout == 3 && src) st = dim4{0, H * W, 0, 1};  // broadcast over n and h
              *st_out = st;
              *st_ptr = st_out;
            }
            const uint32_t align = layout == 0 ? uint32_t(d.align_bytes()) : 64u;
            r = (r + align - 1) / align * align;
            Lay l{local_addr_t(q * lms + r), st, e};
            r += uint32_t((int64_t(N - 1) * st.n + int64_t(slots - 1) * st.c + int64_t(H - 1) * st.h +
                           int64_t(W - 1) * st.w + 1) * e);
            return l;
          };
          dim4 sd{}, s0{}, s1{};
          BdcCall k;
          k.fn = fn.name;
          k.shape = &shape;
          const Lay ld = place(dst_t, false, &sd, &k.dst_stride);
          const bool has0 = fn.form != Fn::SetC, has1 = fn.form == Fn::Bin || fn.form == Fn::IntBin || fn.form == Fn::Cmp;
          const Lay l0 = has0 ? place(a_t, true, &s0, &k.src0_stride) : Lay{};
          const Lay l1 = has1 ? place(b_t, true, &s1, &k.src1_stride) : Lay{};
          if (fn.form == Fn::Exp) k.dst_stride = k.src0_stride = nullptr;
          k.dst = ld.addr, k.src0 = l0.addr, k.src1 = l1.addr;
          k.dst_dtype = dst_t.dt, k.src0_dtype = a_t.dt;
          k.src1_dtype = b_t.dt;
          k.c_bits = uint32_t(rng());
          k.true_bits = uint32_t(rng());
          k.shift = int(rng() % 12);
          k.rounding = int(rng() % 7);
          k.saturation = rng() % 2;
          // random memory: float codes from a mix of specials and ordinary values
          // the model
          std::vector<uint8_t> want = mem;
          const DT& c_t = (fn.form == Fn::IntBinC || fn.form == Fn::IntCBin) ? b_t : (fn.form == Fn::SetC ? dst_t : a_t);
          const uint64_t cmask = c_t.e == 4 ? 0xFFFFFFFFull : ((1ull << (8 * c_t.e)) - 1);
          const uint64_t cc = k.c_bits & cmask;
          const uint64_t dmask = dst_t.e == 4 ? 0xFFFFFFFFull : ((1ull << (8 * dst_t.e)) - 1);
          std::vector<std::pair<size_t, uint64_t>> writes;
          for (int n = 0; n < N; ++n)
            for (int c = 0; c < C; ++c)
              for (int h = 0; h < H; ++h)
                for (int w = 0; w < W; ++w) {
                  const uint64_t a = has0 ? load(mem, at(d, l0, n, c, h, w), a_t.e) : 0;
                  const uint64_t b = has1 ? load(mem, at(d, l1, n, c, h, w), b_t.e) : 0;
                  uint64_t v = 0;
                  tilesim::ops::CastMode m;
                  switch (fn.form) {
                    case Fn::Bin: v = tilesim::ops::eval(fn.op, t.fmt, a, b); break;
                    case Fn::BinC: v = tilesim::ops::eval(fn.op, t.fmt, a, cc); break;
                    case Fn::CBin: v = tilesim::ops::eval(fn.op, t.fmt, cc, a); break;
                    case Fn::Un:
                    case Fn::Exp: v = tilesim::ops::eval(fn.op, t.fmt, a); break;
                    case Fn::Cmp:
                    case Fn::CmpC:
                      v = tilesim::ops::eval(fn.op, t.fmt, a, fn.form == Fn::Cmp ? b : cc) ? (k.true_bits & dmask) : 0;
                      break;
                    case Fn::SetC: v = cc; break;
                    case Fn::Cpy: v = a; break;
                    case Fn::Cast:
                      m.rounding = tilesim::tpu::rounding_of(k.rounding, "test");
                      v = tilesim::ops::cast_one(a_t.fmt, dst_t.fmt, a, m);
                      break;
                    default: {
                      const int64_t x = sext(a, a_t), y = sext(fn.form == Fn::IntBin ? b : cc, b_t);
                      int64_t z = fn.op == Op::add ? x + y : fn.op == Op::mul ? x * y : fn.form == Fn::IntCBin ? y - x : x - y;
                      z = tilesim::tpu::round_shift(z, k.shift, k.rounding);
                      m.int_saturate = k.saturation;
                      v = tilesim::ops::cast_one(DType::s64, dst_t.fmt, uint64_t(z), m);
                    }
                  }
                  writes.emplace_back(at(d, ld, n, c, h, w), v & dmask);
                }
          for (const auto& [off, v] : writes) store(want, off, dst_t.e, v);
          for (const bool reference : {false, true}) {
            std::memcpy(d.memory().data(), mem.data(), mem.size());
            d.set_reference(reference);
            try {
              d.bdc(k);
            } catch (const tilesim::Error& e) {
              FAIL() << e.what();
            }
            const bool same = std::memcmp(d.memory().data(), want.data(), want.size()) == 0;
            EXPECT_TRUE(same) << chip << " " << fn.name << " dtype " << int(t.dt) << " dst " << int(dst_t.dt)
                              << " src1 " << int(b_t.dt) << " layout " << layout << " q " << q << " shape [" << N
                              << "," << C << "," << H << "," << W << "] reference " << reference;
            if (!same) return;
          }
          d.set_reference(false);
          ++runs;
        }
      }
  }
  EXPECT_GT(runs, 300);
}

// The walker runs planes on threads when no destination plane shares a byte with another
// (aligned destinations): many planes (several chunks), 1..4 threads, against the reference path
// (one plain loop), in place, staged (a destination overlapping a source another way) and with
// broadcast source strides.
// Random bytes in all of a's local memory, the same in b's (a fast and a reference device).
void same_random_memory(Device& a, Device& b, std::mt19937_64& rng) {
  for (size_t i = 0; i < a.memory().size(); i += 8) {
    const uint64_t v = rng();
    std::memcpy(&a.memory()[i], &v, 8);
  }
  std::memcpy(b.memory().data(), a.memory().data(), a.memory().size());
}

TEST(TpuBdcDifferential, ThreadsGiveTheSameBits) {
  struct Case {
    const char* fn;
    int dst_dt, a_dt, b_dt;
    local_addr_t dst, a, b;  // in-NPU offsets on NPU 5 (start NPU 5: channels wrap)
    bool bcast_a;            // src0 read with strides {0, H*W, 0, 1} (free layout)
  };
  // [2, 130, 16, 16]: 260 planes of 256 elements, 3 slots per NPU; fp32 tensors take 3 KiB.
  const Case cases[] = {
      {"tpu_bdc_fp_add", DT_FP32, DT_FP32, DT_FP32, 0, 8192, 16384, false},
      {"tpu_bdc_fp_mul", DT_FP16, DT_FP16, DT_FP16, 8192, 8192, 16384, false},      // in place
      {"tpu_bdc_fp_sub", DT_FP32, DT_FP32, DT_FP32, 8192 + 64, 8192, 16384, false},  // staged
      {"tpu_bdc_int_mul", DT_INT16, DT_INT32, DT_INT8, 0, 8192, 16384, false},
      {"tpu_bdc_greater", DT_INT8, DT_BFP16, DT_BFP16, 0, 8192, 16384, false},
      {"tpu_bdc_cast", DT_FP16, DT_FP32, DT_FP32, 0, 8192, 16384, false},
      {"tpu_bdc_cpy", DT_INT32, DT_INT32, DT_INT32, 0, 8192, 16384, true},
      {"tpu_bdc_max", DT_FP32, DT_FP32, DT_FP32, 8192, 8192, 16384, true},  // broadcast over dst: staged
  };
  const dim4 shape = shape4(2, 130, 16, 16);
  const dim4 bst{0, 16 * 16, 0, 1};
  std::mt19937_64 rng(7);
  Device fast("bm1684x"), ref("bm1684x");
  ref.set_reference(true);
  const local_addr_t base = 5 * fast.local_mem_size();
  for (const Case& c : cases)
    for (int threads = 1; threads <= 4; ++threads) {
      same_random_memory(fast, ref, rng);
      BdcCall k = call(c.fn, base + c.dst, base + c.a, base + c.b, c.dst_dt);
      k.src0_dtype = c.a_dt, k.src1_dtype = c.b_dt;
      k.shape = &shape;
      k.shift = 3, k.rounding = 1;
      if (c.bcast_a) k.src0_stride = &bst;
      tilesim::set_num_threads(size_t(threads));
      fast.bdc(k);
      ref.bdc(k);
      EXPECT_TRUE(std::equal(fast.memory().begin(), fast.memory().end(), ref.memory().begin()))
          << c.fn << " threads " << threads;
    }
  tilesim::set_num_threads(0);
}

// Element-wise arithmetic runs consecutive planes as rows of one core call while every operand
// steps by one fixed distance (src/tpu/bdc.cpp execute): start NPUs whose channels wrap to the
// next slot (a run ends there), several N, NaN / Inf / subnormal codes from
// random memory, binary, scalar and unary forms, in place, one and two threads; fast equals the
// reference path byte for byte over the whole local memory.
TEST(TpuBdcDifferential, PlaneRunsAcrossNpusAndSlots) {
  struct Case {
    const char* fn;
    int dt;
    int q;          // start NPU (every operand's: the rule), so channels wrap to slot 1 after 64 - q
    bool in_place;  // dst over src0
  };
  const Case cases[] = {
      {"tpu_bdc_fp_add", DT_FP32, 5, false},   {"tpu_bdc_fp_sub", DT_FP16, 63, false},
      {"tpu_bdc_fp_mul_C", DT_FP32, 0, false}, {"tpu_bdc_fp_C_div", DT_FP16, 40, false},
      {"tpu_bdc_abs", DT_FP32, 2, false},      {"tpu_bdc_fp_add", DT_BFP16, 9, true},
      {"tpu_bdc_fp_exp", DT_FP32, 62, false},
  };
  const dim4 shapes[] = {shape4(2, 130, 3, 8), shape4(1, 64, 32, 32), shape4(3, 5, 1, 17)};
  std::mt19937_64 rng(17);
  Device fast("bm1684x"), ref("bm1684x");
  ref.set_reference(true);
  const uint32_t lms = fast.local_mem_size();
  int runs = 0;
  for (const Case& c : cases)
    for (const dim4& shape : shapes)
      for (int threads = 1; threads <= 2; ++threads) {
        same_random_memory(fast, ref, rng);
        // dst, src0, src1 in separate 32 KiB regions of the NPUs (in place: dst over src0)
        const local_addr_t base = local_addr_t(c.q) * lms;
        BdcCall k = call(c.fn, base, base + (c.in_place ? 0 : 32768), base + 65536, c.dt);
        k.shape = &shape;
        k.c_bits = c.dt == DT_FP32 ? 0x3FC00000u : c.dt == DT_FP16 ? 0x3E00u : 0x3FC0u;
        tilesim::set_num_threads(size_t(threads));
        fast.bdc(k);
        ref.bdc(k);
        ASSERT_TRUE(std::equal(fast.memory().begin(), fast.memory().end(), ref.memory().begin()))
            << c.fn << " dt " << c.dt << " shape " << shape.n << "x" << shape.c << "x" << shape.h << "x" << shape.w
            << " threads " << threads;
        ++runs;
      }
  tilesim::set_num_threads(0);
  EXPECT_EQ(runs, 7 * 3 * 2);
}

// The integer forms with one dtype and shift 0 take a SIMD path (src/tpu/int_simd.cpp): against
// the reference path (int64, then ops::cast) on every integer dtype, both saturation modes, edge
// codes (MIN, MAX, -1, 0, 1) and random ones, rows with SIMD tails.
TEST(TpuBdcDifferential, IntAddSubOneDtypeNoShift) {
  const data_type_t dts[] = {DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_INT32, DT_UINT32};
  const char* fns[] = {"tpu_bdc_int_add", "tpu_bdc_int_sub", "tpu_bdc_int_add_C", "tpu_bdc_int_sub_C",
                       "tpu_bdc_int_C_sub"};
  const dim4 shape = shape4(2, 3, 5, 37);
  std::mt19937_64 rng(19);
  Device fast("bm1688"), ref("bm1688");
  ref.set_reference(true);
  int runs = 0;
  for (const data_type_t dt : dts)
    for (const char* fn : fns)
      for (const bool sat : {true, false}) {
        const int e = dt == DT_INT8 || dt == DT_UINT8 ? 1 : dt == DT_INT16 || dt == DT_UINT16 ? 2 : 4;
        const uint64_t mask = e == 4 ? 0xFFFFFFFFull : (1ull << (8 * e)) - 1, sign = 1ull << (8 * e - 1);
        const uint64_t edges[] = {0, 1, mask, sign, sign - 1, sign + 1, mask - 1, 2};
        for (size_t npu = 0; npu < 32; ++npu)  // the first 16 KiB of each NPU hold every operand
          for (size_t i = 0; i < 16384; i += size_t(e)) {
            const uint64_t v = rng() % 3 == 0 ? edges[rng() % 8] : rng();
            std::memcpy(&fast.npu_memory(int(npu))[i], &v, size_t(e));
          }
        std::memcpy(ref.memory().data(), fast.memory().data(), fast.memory().size());
        BdcCall k = call(fn, 0, 4096, 8192, dt);
        k.shape = &shape;
        k.saturation = sat;
        k.c_bits = uint32_t(rng() % 2 ? edges[rng() % 8] : rng());
        k.rounding = int(rng() % 7);
        fast.bdc(k);
        ref.bdc(k);
        EXPECT_TRUE(std::equal(fast.memory().begin(), fast.memory().end(), ref.memory().begin()))
            << fn << " dtype " << int(dt) << " saturation " << sat;
        ++runs;
      }
  EXPECT_EQ(runs, 60);
}

// Compares into a destination at least as wide as the sources take the select kernel (>, <, ==,
// != ; select_simd.cpp): against the reference path on edge codes (±0, NaN, ±Inf, ties, integer
// extremes), every source dtype, wider / equal / narrower destinations, tensor and C forms.
TEST(TpuBdcDifferential, ComparesOnEdgeCodes) {
  const data_type_t srcs[] = {DT_FP32, DT_FP16, DT_BFP16, DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_INT32, DT_UINT32};
  const data_type_t dsts[] = {DT_INT8, DT_FP16, DT_INT32, DT_FP32};
  const char* fns[] = {"tpu_bdc_equal", "tpu_bdc_not_equal", "tpu_bdc_greater", "tpu_bdc_less", "tpu_bdc_greater_equal",
                       "tpu_bdc_less_equal", "tpu_bdc_equal_C", "tpu_bdc_not_equal_C", "tpu_bdc_greater_C",
                       "tpu_bdc_less_C"};
  auto edges = [](data_type_t dt) -> std::vector<uint32_t> {
    switch (dt) {
      case DT_FP32: return {0, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x3F800000u, 0xBF800000u, 1};
      case DT_FP16: return {0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFC01, 0x3C00, 0xBC00, 1};
      case DT_BFP16: return {0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFF81, 0x3F80, 0xBF80, 1};
      default: return {0, 1, 2, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0x80u, 0x7Fu, 0x8000u};
    }
  };
  const dim4 shape = shape4(1, 5, 3, 21);
  std::mt19937_64 rng(23);
  Device fast("bm1684x"), ref("bm1684x");
  ref.set_reference(true);
  int runs = 0;
  for (const data_type_t st : srcs)
    for (const data_type_t dt : dsts)
      for (const char* fn : fns) {
        const int e = st == DT_INT8 || st == DT_UINT8 ? 1 : st == DT_FP32 || st == DT_INT32 || st == DT_UINT32 ? 4 : 2;
        const auto pool = edges(st);
        for (size_t npu = 0; npu < 5; ++npu)
          for (size_t i = 0; i < 8192; i += size_t(e)) {
            const uint32_t v = rng() % 4 ? pool[rng() % pool.size()] : uint32_t(rng());
            std::memcpy(&fast.npu_memory(int(npu))[i], &v, size_t(e));
          }
        std::memcpy(ref.memory().data(), fast.memory().data(), 5 * fast.npu_stride());
        BdcCall k = call(fn, 0, 4096, 6144, dt);
        k.src0_dtype = st;
        k.shape = &shape;
        k.c_bits = pool[rng() % pool.size()];
        k.true_bits = uint32_t(rng());
        fast.bdc(k);
        ref.bdc(k);
        EXPECT_TRUE(std::equal(fast.memory().begin(), fast.memory().end(), ref.memory().begin()))
            << fn << " src " << int(st) << " dst " << int(dt);
        ++runs;
      }
  EXPECT_EQ(runs, 360);
}

// ---- rejections: function, operand, rule, values; nothing written ----

TEST(TpuBdcChecks, Rejections) {
  Device d("bm1684x");
  const dim4 s = shape4(1, 4, 2, 8);
  auto k = [&](const char* fn, int dt) {
    BdcCall c = call(fn, 0, 4096, 8192, dt);
    c.shape = &s;
    return c;
  };
  expect_rejected(d, ErrorCode::Unsupported, {"tpu_bdc_and: dtype DT_FP32 (fp32) is not accepted", "DT_INT8/UINT8"},
                  [&] { d.bdc(k("tpu_bdc_and", DT_FP32)); });
  expect_rejected(d, ErrorCode::Unsupported, {"tpu_bdc_fp_add: dtype DT_INT32 (s32) is not accepted"},
                  [&] { d.bdc(k("tpu_bdc_fp_add", DT_INT32)); });
  expect_rejected(d, ErrorCode::Unsupported, {"tpu_bdc_fp_mul: dtype DT_FP8E4M3"},
                  [&] { d.bdc(k("tpu_bdc_fp_mul", DT_FP8E4M3)); });
  expect_rejected(d, ErrorCode::Unsupported, {"tpu_bdc_fp_pow: not a BDC arithmetic function"},
                  [&] { d.bdc(k("tpu_bdc_fp_pow", DT_FP32)); });
  BdcCall mis = k("tpu_bdc_fp_add", DT_FP32);
  mis.src1 = 8192 + 4;
  expect_rejected(d, ErrorCode::Constraint, {"tpu_bdc_fp_add: src1 in-NPU offset 0x2004 must be a multiple of ALIGN_BYTES 64"},
                  [&] { d.bdc(mis); });
  BdcCall npu = k("tpu_bdc_fp_sub", DT_FP32);
  npu.src0 = 3 * 256 * 1024;
  expect_rejected(d, ErrorCode::Constraint, {"tpu_bdc_fp_sub: src0 starts on NPU 3 but dst on NPU 0"}, [&] { d.bdc(npu); });
  BdcCall far = k("tpu_bdc_relu", DT_FP32);
  far.dst = 256 * 1024 - 64;
  const dim4 wst{0, 0, 8, 2};  // w stride 2: 92 bytes from the last 64
  far.dst_stride = &wst;
  expect_rejected(d, ErrorCode::Bounds, {"tpu_bdc_relu: dst touches in-NPU bytes", "beyond LOCAL_MEM_SIZE"}, [&] { d.bdc(far); });
  BdcCall out = k("tpu_bdc_neg", DT_FP32);
  out.src0 = 64u * 256 * 1024;
  expect_rejected(d, ErrorCode::Bounds, {"tpu_bdc_neg: src address 0x1000000 is outside local memory"}, [&] { d.bdc(out); });
  const dim4 neg{-1, 0, 0, 1};
  BdcCall st = k("tpu_bdc_cpy", DT_FP32);
  st.src0_stride = &neg;
  expect_rejected(d, ErrorCode::Constraint, {"tpu_bdc_cpy: src_stride must be non-negative, got [-1, 0, 0, 1]"}, [&] { d.bdc(st); });
  BdcCall sh = k("tpu_bdc_int_add", DT_INT16);
  sh.shift = -1;
  expect_rejected(d, ErrorCode::Unsupported, {"tpu_bdc_int_add: shift must be in [0, 31] (a right shift), got -1"}, [&] { d.bdc(sh); });
  BdcCall rm = k("tpu_bdc_cast", DT_INT8);
  rm.src0_dtype = DT_FP32, rm.rounding = 9;
  expect_rejected(d, ErrorCode::Unsupported, {"tpu_bdc_cast: rounding_mode_t 9 is not one of"}, [&] { d.bdc(rm); });
  const dim4 zero = shape4(1, 4, 0, 8);
  BdcCall z = k("tpu_bdc_abs", DT_FP32);
  z.shape = &zero;
  expect_rejected(d, ErrorCode::Constraint, {"tpu_bdc_abs: shape->h must be in [1, 65535], got 0"}, [&] { d.bdc(z); });
  const dim4 wide = shape4(1, 65, 1, 1);
  BdcCall bc = k("tpu_bdc_npu_bcast", DT_FP32);
  bc.shape = &wide;
  expect_rejected(d, ErrorCode::Constraint, {"tpu_bdc_npu_bcast: shape->c must be in [1, NPU_NUM = 64], got 65"}, [&] { d.bdc(bc); });
  BdcCall ex = k("tpu_bdc_fp_exp", DT_FP32);
  ex.dst_stride = &s;
  expect_rejected(d, ErrorCode::Constraint, {"tpu_bdc_fp_exp: takes no strides"}, [&] { d.bdc(ex); });
}

// The C entry points reach the same table (and the RECORD-mode error channel).
TEST(TpuBdcChecks, CApiRecordsAndWritesNothing) {
  ASSERT_EQ(tilesim_tpu_init("bm1684x"), 0);
  tilesim_tpu_set_error_mode(TILESIM_TPU_ERRORS_RECORD);
  const dim4 s = shape4(1, 1, 1, 4);
  std::vector<uint8_t> before(tilesim_tpu_local_mem(), tilesim_tpu_local_mem() + 4096);
  tpu_bdc_and(0, 64, 128, &s, nullptr, nullptr, nullptr, DT_BFP16);
  EXPECT_EQ(tilesim_tpu_last_error_code(), 4);
  EXPECT_NE(std::string(tilesim_tpu_last_error()).find("tpu_bdc_and: dtype DT_BFP16 (bf16) is not accepted"), std::string::npos);
  EXPECT_EQ(0, std::memcmp(before.data(), tilesim_tpu_local_mem(), before.size()));
  scalar_t c{};
  c.f32 = 2.f;
  float x[4] = {1, 2, 3, 4}, y[4];
  tpu_gdma_cpy_S2L(0, static_cast<system_addr_t>(reinterpret_cast<uintptr_t>(x)), &s, nullptr, nullptr, DT_FP32);
  tpu_bdc_fp_C_div(64, 0, c, &s, nullptr, nullptr, DT_FP32);
  tpu_gdma_cpy_L2S(static_cast<system_addr_t>(reinterpret_cast<uintptr_t>(y)), 64, &s, nullptr, nullptr, DT_FP32);
  EXPECT_EQ(tilesim_tpu_last_error_code(), 0);
  EXPECT_EQ(y[0], 2.f);
  EXPECT_EQ(y[3], 0.5f);
  tilesim_tpu_set_error_mode(TILESIM_TPU_ERRORS_ABORT);
}

}  // namespace
