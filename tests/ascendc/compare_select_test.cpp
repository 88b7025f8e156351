// Compare / Compares / Select, the Cast and Duplicate mask + repeat forms and the control APIs
// (spec 41 §3, docs/ascendc.md#compare-and-select, #cast, #control): hand-computed known answers,
// lane references from the element-op core's predicates on random inputs, and the rules.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "ops/elementwise.hpp"
#include "tilesim/error.hpp"

using namespace AscendC;
namespace ts = tilesim::ascendc;
namespace ops = tilesim::ops;
using tilesim::ErrorCode;
using tilesim::formats::DType;

namespace {

struct Cs : ::testing::Test {
  TPipe* pipe = nullptr;
  TBuf<TPosition::VECCALC> buf;
  void SetUp() override {
    set_product("atlas_a2");
    pipe = new TPipe;
    pipe->InitBuffer(buf, 4 * 16384);
  }
  void TearDown() override {
    delete pipe;
    set_product("atlas_a2");
  }
  template <class T>
  LocalTensor<T> at(int k) const {
    LocalTensor<T> t = buf.Get<uint8_t>()[k * 16384].ReinterpretCast<T>();
    t.SetSize(16384 / sizeof(T));
    return t;
  }
};

void expect_reject(const std::function<void()>& fn, ErrorCode code, const std::string& message) {
  const auto ub = ts::core().ub;
  try {
    fn();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << "got: " << e.what();
  }
  EXPECT_TRUE(ts::core().ub == ub) << "UB changed by a rejected call";
}

bool bit(const LocalTensor<uint8_t>& m, size_t i) {
  return (m(i / 8) >> (i % 8)) & 1;
}

TEST_F(Cs, CompareCountKnownAnswers) {
  auto a = at<float>(0), b = at<float>(1);
  auto m = at<uint8_t>(2);
  for (int i = 0; i < 128; ++i) a(i) = float(i % 5), b(i) = 2.0f;
  a(7) = NAN;
  Compare(m, a, b, CMPMODE::LT, 128);  // two repeats of 64 lanes: 16 bytes
  EXPECT_TRUE(bit(m, 0));              // 0 < 2
  EXPECT_FALSE(bit(m, 2));             // 2 < 2
  EXPECT_FALSE(bit(m, 7));             // NaN < 2
  EXPECT_TRUE(bit(m, 126));            // 126 % 5 = 1
  EXPECT_EQ(m(0), 0x63);               // lanes 0..7: 0 1 2 3 4 0 1 NaN -> 1 1 0 0 0 1 1 0
  Compare(m, a, b, CMPMODE::NE, 64);
  EXPECT_TRUE(bit(m, 7));  // NaN != 2
  Compares(m, a, 3.0f, CMPMODE::GE, 64);
  EXPECT_EQ(m(0), 0x18);  // lanes 3 and 4
}

TEST_F(Cs, CompareRepeatFormMatchesLanes) {
  std::mt19937_64 rng(5);
  auto a = at<half>(0), b = at<half>(1);
  auto m = at<uint8_t>(2);
  for (int i = 0; i < 8192; ++i) {
    a(i) = half(float(int(rng() % 9) - 4));
    b(i) = half(float(int(rng() % 9) - 4));
  }
  for (int iter = 0; iter < 50; ++iter) {
    const uint8_t rep = rng() % 5;
    const BinaryRepeatParams p(1, rng() % 3, rng() % 3, 8, rng() % 20, rng() % 20);
    const CMPMODE mode = static_cast<CMPMODE>(rng() % 6);
    uint64_t mk[2] = {1, 0};  // reserved on Atlas A2: every lane is compared
    Compare(m, a, b, mode, mk, rep, p);
    const ops::Op pred[] = {ops::Op::lt, ops::Op::gt, ops::Op::eq, ops::Op::le, ops::Op::ge, ops::Op::ne};
    for (unsigned r = 0; r < rep; ++r)
      for (unsigned i = 0; i < 128; ++i) {
        const size_t ia = (r * p.src0RepStride + (i / 16) * p.src0BlkStride) * 16 + i % 16;
        const size_t ib = (r * p.src1RepStride + (i / 16) * p.src1BlkStride) * 16 + i % 16;
        uint8_t want = 0;
        ops::compare(pred[static_cast<int>(mode)], DType::fp16, &a(ia), &b(ib), &want, 1, ops::Path::Reference);
        ASSERT_EQ(bit(m, r * 128 + i), want != 0) << iter << " r " << r << " lane " << i;  // packed: 16 bytes a repeat
      }
  }
}

TEST_F(Cs, CmpMaskRegister) {
  auto a = at<float>(0), b = at<float>(1);
  auto m = at<uint8_t>(2);
  for (int i = 0; i < 64; ++i) a(i) = float(i), b(i) = 10.0f;
  Compare(a, b, CMPMODE::LT, 12, BinaryRepeatParams());  // lanes 0..11 active: 0..9 < 10
  GetCmpMask(m);
  uint64_t lo;
  std::memcpy(&lo, &m(0), 8);
  EXPECT_EQ(lo, 0x3FFu);
  EXPECT_EQ(ts::core().mask.lo, 0xFFFu);  // the mask stays in the register
}

TEST_F(Cs, SelectModes) {
  auto a = at<float>(0), b = at<float>(1), d = at<float>(2);
  auto m = at<uint8_t>(3);
  for (int i = 0; i < 128; ++i) a(i) = float(i), b(i) = -1.0f;
  for (int i = 0; i < 16; ++i) m(i) = 0;
  m(0) = 0x01;  // lane 0 of repeat 0
  m(8) = 0x02;  // modes 1/2: lane 1 of repeat 1 (8 bytes of bits a float repeat)
  Select(d, m, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, 128);
  EXPECT_EQ(d(0), 0.0f);
  EXPECT_EQ(d(1), -1.0f);
  EXPECT_EQ(d(64), -1.0f);
  EXPECT_EQ(d(65), 65.0f);
  Select(d, m, a, b, SELMODE::VSEL_CMPMASK_SPR, 128);  // mode 0: the same 64 bits every repeat
  EXPECT_EQ(d(0), 0.0f);
  EXPECT_EQ(d(64), 64.0f);
  EXPECT_EQ(d(65), -1.0f);
  Select(d, m, a, 7.5f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 128);
  EXPECT_EQ(d(1), 7.5f);
  EXPECT_EQ(d(65), 65.0f);
  // Mask + repeat form: inactive lanes keep dst.
  for (int i = 0; i < 128; ++i) d(i) = 99.0f;
  Select(d, m, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, 2, 2, BinaryRepeatParams());
  EXPECT_EQ(d(0), 0.0f);
  EXPECT_EQ(d(1), -1.0f);
  EXPECT_EQ(d(2), 99.0f);
  EXPECT_EQ(d(65), 65.0f);
  // The no-mask mode-0 form reads CMPMASK as loaded.
  SetCmpMask(m);
  SetVectorMask<float>(0, 3);
  Select<float, SELMODE::VSEL_CMPMASK_SPR>(d, a, b, 1, BinaryRepeatParams());
  EXPECT_EQ(d(0), 0.0f);
  EXPECT_EQ(d(1), -1.0f);
  EXPECT_EQ(d(2), 99.0f);  // lane 2 not in the register mask
  ResetMask();
}

TEST_F(Cs, CastAndDuplicateRepeatForms) {
  auto h = at<half>(0);
  auto f = at<float>(1);
  for (int i = 0; i < 256; ++i) h(i) = half(float(i) + 0.5f);
  for (int i = 0; i < 256; ++i) f(i) = -7.0f;
  // half -> float: 64 lanes a repeat; contiguous strides are dst 8, src 4 datablocks.
  Cast(f, h, RoundMode::CAST_NONE, 64, 2, UnaryRepeatParams(1, 1, 8, 4));
  EXPECT_EQ(f(0), 0.5f);
  EXPECT_EQ(f(127), 127.5f);
  EXPECT_EQ(f(128), -7.0f);
  // float -> half rounding toward -Inf, a source repeat stride of 16 datablocks (skip 64 floats).
  f(1) = 1.0f + 0x1p-20f;  // not a half: floor -> 1
  Cast(h, f, RoundMode::CAST_FLOOR, 64, 2, UnaryRepeatParams(1, 1, 4, 16));
  EXPECT_EQ(float(h(0)), 0.5f);
  EXPECT_EQ(float(h(1)), 1.0f);
  EXPECT_EQ(float(h(64)), -7.0f);  // repeat 1 reads f(128..191)
  uint64_t mk[2] = {0x5, 0};
  Duplicate(f, 3.0f, mk, 2, 1, 8);
  EXPECT_EQ(f(0), 3.0f);
  EXPECT_EQ(f(1), 1.0f + 0x1p-20f);  // lane 1 inactive
  EXPECT_EQ(f(66), 3.0f);
  expect_reject([&] { Cast(f, h, RoundMode::CAST_NONE, 65, 1, UnaryRepeatParams(1, 1, 8, 4)); },
                ErrorCode::Constraint, "continuous mask must be in [1, 64]");
}

TEST_F(Cs, ControlApis) {
  auto a = at<half>(0), d = at<half>(1);
  a(0) = half(60000.0f);
  SetCtrlSpr<48, 48>(1);  // non-saturating
  EXPECT_EQ((GetCtrlSpr<48, 48>()), 1);
  Add(d, a, a, 16);
  EXPECT_EQ(d(0).bits, 0x7C00);
  SetSaturationFlag<SaturationMode::FLOAT>(true);
  EXPECT_TRUE(GetSaturationFlag<SaturationMode::FLOAT>());
  Add(d, a, a, 16);
  EXPECT_EQ(float(d(0)), 65504.0f);
  expect_reject([] { ResetCtrlSpr<48, 48>(); }, ErrorCode::Unsupported, "Ascend 950 only");
  expect_reject([] { SetSaturationFlag<SaturationMode::INT>(true); }, ErrorCode::Unsupported, "saturating integer");
  expect_reject([] { SetCtrlSpr<48, 48>(2); }, ErrorCode::Constraint, "CTRL[48] takes 0");
  const int64_t c0 = GetSystemCycle();
  EXPECT_GT(GetSystemCycle(), c0);
  TPipe& p = *pipe;
  for (int k = 0; k < 8; ++k) EXPECT_EQ(p.AllocEventID<HardEvent::V_MTE3>(), k);
  expect_reject([&] { p.AllocEventID<HardEvent::V_MTE3>(); }, ErrorCode::Constraint, "all 8 event ids");
  p.ReleaseEventID<HardEvent::V_MTE3>(3);
  EXPECT_EQ(p.FetchEventID<HardEvent::V_MTE3>(), 3);
  EXPECT_EQ(p.FetchEventID(HardEvent::MTE2_V), 0);
  expect_reject([&] { p.ReleaseEventID<HardEvent::MTE2_V>(1); }, ErrorCode::Constraint, "not allocated");
}

TEST_F(Cs, Rejections) {
  auto a = at<float>(0), b = at<float>(1);
  auto i = at<int32_t>(0), j = at<int32_t>(1);
  auto m = at<uint8_t>(2);
  expect_reject([&] { Compare(m, a, b, CMPMODE::LT, 60); }, ErrorCode::Constraint, "multiple of 256 bytes");
  expect_reject([&] { Compare(m, i, j, CMPMODE::LT, 64); }, ErrorCode::Unsupported, "EQ only");
  expect_reject([&] { Compare(a.ReinterpretCast<uint8_t>(), a, b, CMPMODE::LT, 64); }, ErrorCode::Constraint, "overlap");
  expect_reject([&] { Select(a, m, a, b, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64); }, ErrorCode::Constraint,
                "takes a scalar src1");
  expect_reject([&] { Select(b, m[1], a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64); }, ErrorCode::Constraint,
                "32-byte aligned");
}

}  // namespace
