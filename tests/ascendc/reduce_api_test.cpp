// The repeat reductions, the high-level ReduceSum/Max/Min and Brcb (spec 41 §3,
// docs/ascendc.md#reductions): known answers (hand-computed), the element-op core's reduction
// definitions (ops::tree_reduce, fold_reduce, arg_reduce, chained_tree_sums) on random inputs with
// NaN/±0/Inf, and the rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "ops/reduce.hpp"
#include "tilesim/error.hpp"

using namespace AscendC;
namespace ts = tilesim::ascendc;
namespace ops = tilesim::ops;
using tilesim::ErrorCode;
using tilesim::formats::DType;

namespace {

struct Reduce : ::testing::Test {
  TPipe* pipe = nullptr;
  TBuf<TPosition::VECCALC> buf;
  void SetUp() override {
    set_product("atlas_a2");
    pipe = new TPipe;
    pipe->InitBuffer(buf, 4 * 16384);
  }
  void TearDown() override { delete pipe; }
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

template <class T>
uint64_t code_at(const LocalTensor<T>& x, size_t i) {
  uint64_t c = 0;
  std::memcpy(&c, &x(i), sizeof(T));
  return c;
}

template <class T>
void fill(LocalTensor<T>& x, std::mt19937_64& rng, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    if constexpr (std::is_same_v<T, half>) {
      const uint16_t sp[] = {0x7E00, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001};
      half h;
      h.bits = r % 64 == 0 ? sp[(r >> 8) % 6] : static_cast<uint16_t>((r >> 16) % 0x5800 | ((r >> 40) & 1) << 15);
      x(i) = h;
    } else {
      const uint32_t sp[] = {0x7FC00000u, 0x7F800000u, 0xFF800000u, 0, 0x80000000u, 1};
      uint32_t c = r % 64 == 0 ? sp[(r >> 8) % 6] : static_cast<uint32_t>((r >> 16) % 0x4A000000u | ((r >> 50) & 1) << 31);
      std::memcpy(&x(i), &c, 4);
    }
  }
}

// ---- known answers ----

TEST_F(Reduce, WholeReduceSumKnownAnswers) {
  auto s = at<half>(0), d = at<half>(1);
  for (int i = 0; i < 256; ++i) s(i) = half(1.0f);
  WholeReduceSum(d, s, 128, 2, 1, 1, 8);  // two repeats of 128 ones
  EXPECT_EQ(float(d(0)), 128.0f);
  EXPECT_EQ(float(d(1)), 128.0f);
  for (int i = 0; i < 128; ++i) s(i) = half(60000.0f);
  WholeReduceSum(d, s, 4, 1, 1, 1, 8);  // 60000 + 60000 = +Inf -> 65504 (saturation on), then 65504 + 65504 -> 65504
  EXPECT_EQ(float(d(0)), 65504.0f);
  SetSaturation(false);
  WholeReduceSum(d, s, 4, 1, 1, 1, 8);
  EXPECT_EQ(d(0).bits, 0x7C00);  // +Inf
  SetSaturation(true);
}

TEST_F(Reduce, WholeReduceMaxOrders) {
  auto s = at<float>(0), d = at<float>(1);
  for (int i = 0; i < 64; ++i) s(i) = float(i % 7);
  s(20) = 9.0f, s(33) = 9.0f;  // tie: the smaller lane wins
  WholeReduceMax(d, s, 64, 1, 1, 1, 8);  // ORDER_VALUE_INDEX
  EXPECT_EQ(d(0), 9.0f);
  uint32_t idx;
  std::memcpy(&idx, &d(1), 4);
  EXPECT_EQ(idx, 20u);
  WholeReduceMax(d, s, 64, 1, 1, 1, 8, ReduceOrder::ORDER_INDEX_VALUE);
  std::memcpy(&idx, &d(0), 4);
  EXPECT_EQ(idx, 20u);
  EXPECT_EQ(d(1), 9.0f);
  WholeReduceMin(d, s, 64, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_INDEX);
  std::memcpy(&idx, &d(0), 4);
  EXPECT_EQ(idx, 0u);  // 0 at lanes 0, 7, 14, ...: lane 0
  s(3) = NAN;
  WholeReduceMin(d, s, 64, 1, 1, 1, 8);
  EXPECT_EQ(code_at(d, 0), 0x7FC00000u);  // NaN wins, canonical
  std::memcpy(&idx, &d(1), 4);
  EXPECT_EQ(idx, 3u);
}

TEST_F(Reduce, PairReduceSumAndBrcb) {
  auto s = at<float>(0), d = at<float>(1);
  for (int i = 0; i < 64; ++i) s(i) = float(i);
  for (int i = 0; i < 64; ++i) d(i) = -1.0f;
  PairReduceSum(d, s, 1, 6, 1, 1, 8);  // lanes 0..5 active: (0+1), (2+3), (4+5); pair 3.. untouched
  EXPECT_EQ(d(0), 1.0f);
  EXPECT_EQ(d(2), 9.0f);
  EXPECT_EQ(d(3), -1.0f);
  // Brcb: src element 8i + j fills datablock i * 8 + j.
  auto b = at<int32_t>(2), o = at<int32_t>(3);
  for (int i = 0; i < 16; ++i) b(i) = 100 + i;
  Brcb(o, b, 2, BrcbRepeatParams(1, 8));
  EXPECT_EQ(o(0), 100);
  EXPECT_EQ(o(7), 100);
  EXPECT_EQ(o(8), 101);
  EXPECT_EQ(o(15 * 8 + 7), 115);
  EXPECT_EQ(ts::core().mask.lo, ~uint64_t{0});
}

TEST_F(Reduce, HighLevelKnownAnswers) {
  auto s = at<float>(0), d = at<float>(1), w = at<float>(2);
  for (int i = 0; i < 1000; ++i) s(i) = 1.0f;
  s(700) = 5.0f;
  ReduceSum(d, s, w, 1000);
  EXPECT_EQ(d(0), 1004.0f);
  ReduceMax(d, s, w, 1000, true);
  EXPECT_EQ(d(0), 5.0f);
  int32_t idx;
  std::memcpy(&idx, &d(1), 4);
  EXPECT_EQ(idx, 700);
  // Mask/repeat form: 3 repeats of the first 10 lanes, srcRepStride 16 datablocks = 128 floats.
  for (int i = 0; i < 512; ++i) s(i) = float(i);
  ReduceMin(d, s, w, 10, 3, 16, true);
  EXPECT_EQ(d(0), 0.0f);
  ReduceMax(d, s, w, 10, 3, 16, true);
  EXPECT_EQ(d(0), 265.0f);  // repeat 2 starts at element 256: lanes 256..265
  std::memcpy(&idx, &d(1), 4);
  EXPECT_EQ(idx, 265);  // the index counts source elements, stride gaps included
  ReduceSum(d, s, w, 10, 3, 16);  // 45 + (1280 + 45) + (2560 + 45)
  EXPECT_EQ(d(0), 3975.0f);
}

// ---- against the element-op core's reductions (saturation off: plain IEEE nodes) ----

struct ReduceDiff : Reduce {
  void TestBody() override {}
};

template <class T>
void differential(uint64_t seed) {
  std::mt19937_64 rng(seed);
  ReduceDiff fx;
  fx.SetUp();
  SetSaturation(false);
  const DType t = std::is_same_v<T, half> ? DType::fp16 : DType::fp32;
  const unsigned P = 256 / sizeof(T);
  auto s = fx.at<T>(0), d = fx.at<T>(1), w = fx.at<T>(2);
  for (int iter = 0; iter < 200; ++iter) {
    fill(s, rng, s.GetSize());
    const int32_t rep = 1 + rng() % 4;
    const int32_t len = 1 + rng() % P;
    const int32_t srcRep = rng() % 12;
    // WholeReduceSum / Max with a continuous mask.
    WholeReduceSum(d, s, len, rep, 1, 1, srcRep);
    for (int r = 0; r < rep; ++r) {
      std::vector<uint64_t> lanes(P, 0);
      for (int i = 0; i < len; ++i) lanes[i] = code_at(s, r * srcRep * (32 / sizeof(T)) + i);
      std::vector<uint8_t> raw(P * sizeof(T));
      for (unsigned i = 0; i < P; ++i) std::memcpy(&raw[i * sizeof(T)], &lanes[i], sizeof(T));
      ASSERT_EQ(code_at(d, r), ops::tree_reduce(ops::Op::add, t, raw.data(), P)) << "WholeReduceSum iter " << iter;
    }
    WholeReduceMax(d, s, len, rep, 1, 1, srcRep);
    for (int r = 0; r < rep; ++r) {
      std::vector<uint8_t> raw(len * sizeof(T));
      std::memcpy(raw.data(), &s(r * srcRep * (32 / sizeof(T))), raw.size());
      ASSERT_EQ(code_at(d, 2 * r), ops::fold_reduce(ops::Op::max, t, raw.data(), len)) << iter;
      uint64_t idx = code_at(d, 2 * r + 1);
      ASSERT_EQ(idx, ops::arg_reduce(ops::Op::max, t, raw.data(), len)) << iter;
    }
    // High-level count forms.
    const int32_t count = 1 + rng() % (8 * P);
    ReduceSum(d, s, w, count);
    uint64_t want = 0;
    ops::chained_tree_sums(t, &s(0), 0, 1, count, P, &want, ops::Path::Reference);
    ASSERT_EQ(code_at(d, 0), want) << "ReduceSum count " << count;
    ReduceMin(d, s, w, count, true);
    ASSERT_EQ(code_at(d, 0), ops::fold_reduce(ops::Op::min, t, &s(0), count));
    uint64_t idx = code_at(d, 1);
    ASSERT_EQ(idx, ops::arg_reduce(ops::Op::min, t, &s(0), count));
  }
  SetSaturation(true);
  fx.TearDown();
}

TEST(ReduceDifferential, Half) { differential<half>(11); }
TEST(ReduceDifferential, Float) { differential<float>(12); }

// ---- rules ----

TEST_F(Reduce, Rejections) {
  auto s = at<float>(0), d = at<float>(1), w = at<float>(2);
  expect_reject([&] { WholeReduceSum(d, s, 65, 1, 1, 1, 8); }, ErrorCode::Constraint, "continuous mask must be in [1, 64]");
  expect_reject([&] { WholeReduceSum(d, s, 64, 256, 1, 1, 8); }, ErrorCode::Constraint, "repeatTime must be in [0, 255]");
  expect_reject([&] { WholeReduceSum(d, s[4090], 64, 1, 1, 1, 8); }, ErrorCode::Constraint, "32-byte aligned");
  expect_reject([&] { WholeReduceSum(d, s[4088], 64, 1, 1, 1, 8); }, ErrorCode::Bounds, "the walk reaches element");
  // In place: repeat 0's result lands on bytes repeat 1 reads.
  expect_reject([&] { WholeReduceSum(s[64], s, 64, 2, 1, 1, 8); }, ErrorCode::Constraint, "reads later");
  expect_reject([&] { WholeReduceMax(d[1], s, 64, 1, 1, 1, 8); }, ErrorCode::Constraint, "8-byte aligned");
  expect_reject([&] { ReduceMax(d, s, w[4095], 64, 4, 8, true); }, ErrorCode::Constraint, "sharedTmpBuffer holds");
  set_product("atlas_training");
  {
    TPipe p2;
    TBuf<TPosition::VECCALC> b2;
    p2.InitBuffer(b2, 4096);
    auto x = b2.Get<half>();
    expect_reject([&] { WholeReduceMax(x[1024], x, 128, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE); },
                  ErrorCode::Unsupported, "ORDER_ONLY_VALUE is not supported on product atlas_training");
  }
  set_product("atlas_a2");
}

}  // namespace
