// The count forms' single-call fast paths (src/ascendc/vector.cpp, compare_select.cpp): the
// binary, scalar and unary APIs with the CTRL saturation applied inside the element-op call,
// Cast (fp32 -> half rounding and saturating in one pass), Duplicate (a SIMD fill) and Select
// (one call for the bit-driven modes, whole repeats as rows in CMPMASK mode), each against a
// lane-by-lane reference from the element-op core's scalar definitions: random codes mixed with
// NaN payloads, ±0, ±Inf, ±max, subnormals and values whose results overflow half, saturation
// on and off, counts of one lane, around a repeat and a vector, and up to 8192 elements.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "tilesim/ascendc/engine.hpp"
#include "tilesim/ascendc/vector.hpp"

namespace ts = tilesim::ascendc;
namespace ops = tilesim::ops;
using tilesim::formats::DType;

namespace {

constexpr uint64_t kA = 0, kB = 40960, kD = 81920, kS = 122880;  // UB byte addresses (192 KB UB)
constexpr uint64_t kMaxBytes = 32768;

struct CountForm : ::testing::Test {
  void SetUp() override { ts::set_product("atlas_a2"); }
  void TearDown() override { ts::set_product("atlas_a2"); }
  uint8_t* ub() { return ts::core().ub.data(); }
};

unsigned bytes_of(DType t) {
  return tilesim::formats::info(t).storage_bits / 8;
}

void fill(std::mt19937_64& g, DType t, uint8_t* p, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t c;
    const unsigned k = g() % 8;
    if (t == DType::fp16) {
      static const uint16_t edges[] = {0,      0x8000, 0x7C00, 0xFC00, 0x7E00,
                                       0xFD01, 0x7BFF, 0xFBFF, 1,      0x83FF};
      c = k == 0  ? edges[g() % 10]
          : k < 3 ? ((0x7400 + g() % 0x800) | (g() % 2 ? 0x8000 : 0))
                  : (g() % 0x4C00) | (g() % 2 ? 0x8000 : 0);
    } else {
      static const uint32_t edges[] = {
          0,           0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
          0xFFC00123u, 0x7F7FFFFFu, 0x477FF000u, 0x477FE000u, 1};
      c = k == 0  ? edges[g() % 10]
          : k < 3 ? ((0x47000000u + g() % 0x1000000u) |
                     (g() % 2 ? 0x80000000u : 0))  // beyond half's range
                  : ((0x30000000u + g() % 0x18000000u) | (g() % 2 ? 0x80000000u : 0));
    }
    std::memcpy(p + i * bytes_of(t), &c, bytes_of(t));
  }
}

uint64_t code_at(const uint8_t* p, DType t, uint64_t i) {
  return ops::load_code(t, p, i);
}

const uint64_t kCounts[] = {1, 31, 127, 128, 129, 255, 1000, 4099, 8192};

struct Api {
  ts::VecApi api;
  ops::Op op;
  int form;  // 0 binary, 1 scalar, 2 unary
  bool saturates;
};
const Api kApis[] = {
    {ts::VecApi::Add, ops::Op::add, 0, true},     {ts::VecApi::Sub, ops::Op::sub, 0, true},
    {ts::VecApi::Mul, ops::Op::mul, 0, true},     {ts::VecApi::Div, ops::Op::div, 0, true},
    {ts::VecApi::Max, ops::Op::max, 0, false},    {ts::VecApi::Min, ops::Op::min, 0, false},
    {ts::VecApi::Adds, ops::Op::add, 1, true},    {ts::VecApi::Muls, ops::Op::mul, 1, true},
    {ts::VecApi::Maxs, ops::Op::max, 1, false},   {ts::VecApi::Mins, ops::Op::min, 1, false},
    {ts::VecApi::Exp, ops::Op::exp, 2, true},     {ts::VecApi::Ln, ops::Op::ln, 2, true},
    {ts::VecApi::Abs, ops::Op::abs, 2, true},     {ts::VecApi::Sqrt, ops::Op::sqrt, 2, true},
    {ts::VecApi::Rsqrt, ops::Op::rsqrt, 2, true}, {ts::VecApi::Reciprocal, ops::Op::recip, 2, true},
    {ts::VecApi::Relu, ops::Op::relu, 2, true},
};

// The UB starts on a 64-byte line (engine.hpp UbBytes): 64-byte aligned operands load whole lines.
TEST_F(CountForm, UbIsLineAligned) {
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ts::core().ub.data()) % 64, 0u);
  ts::set_product("ascend950");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ts::core().ub.data()) % 64, 0u);
}

TEST_F(CountForm, VectorApisEqualLaneReference) {
  std::mt19937_64 g(2718);
  for (const Api& api : kApis)
    for (DType t : {DType::fp16, DType::fp32})
      for (uint64_t count : kCounts)
        for (bool sat : {false, true}) {
          const unsigned es = bytes_of(t);
          const uint64_t cap = kMaxBytes / es;
          fill(g, t, ub() + kA, cap);
          fill(g, t, ub() + kB, cap);
          std::memset(ub() + kD, 0xA5, kMaxBytes);
          uint64_t s = 0;
          fill(g, t, reinterpret_cast<uint8_t*>(&s), 1);
          if (g() % 4 == 0) s = t == DType::fp16 ? 0x7BFF : 0x7F7FFFFF;  // scalar at max: overflows
          ts::core().saturation = sat;
          const ts::UbRef a{kA, cap}, b{kB, cap}, d{kD, cap};
          const bool in_place = g() % 5 == 0;
          if (in_place) std::memcpy(ub() + kD, ub() + kA, kMaxBytes);
          const std::vector<uint8_t> src(ub() + kA, ub() + kA + kMaxBytes);
          ts::vector_count(api.api, t, d, in_place ? d : a, api.form == 0 ? &b : nullptr, s,
                           int64_t(count));
          const bool rule = api.saturates && sat && t == DType::fp16;
          for (uint64_t i = 0; i < cap; ++i) {
            uint64_t want;
            if (i >= count) {
              want = t == DType::fp16 ? 0xA5A5u : 0xA5A5A5A5u;
              if (in_place) want = code_at(src.data(), t, i);
            } else {
              const uint64_t x = code_at(src.data(), t, i);
              want = api.form == 0   ? ops::eval(api.op, t, x, code_at(ub() + kB, t, i))
                     : api.form == 1 ? ops::eval(api.op, t, x, s)
                                     : ops::eval(api.op, t, x);
              if (rule) want = ops::saturate_code(t, want);
            }
            ASSERT_EQ(code_at(ub() + kD, t, i), want)
                << "op " << ops::info(api.op).name << " form " << api.form << " "
                << tilesim::formats::name(t) << " count " << count << " sat " << sat << " in place "
                << in_place << " element " << i;
          }
        }
  ts::core().saturation.reset();
}

// Cast fp32 -> half in every RoundMode and half -> fp32, saturation on and off.
TEST_F(CountForm, CastEqualsLaneReference) {
  std::mt19937_64 g(3141);
  const ts::CastRound modes[] = {ts::CastRound::CAST_NONE,  ts::CastRound::CAST_RINT,
                                 ts::CastRound::CAST_FLOOR, ts::CastRound::CAST_CEIL,
                                 ts::CastRound::CAST_ROUND, ts::CastRound::CAST_TRUNC,
                                 ts::CastRound::CAST_ODD};
  const tilesim::formats::Rounding rnd[] = {
      tilesim::formats::Rounding::rne, tilesim::formats::Rounding::rne,
      tilesim::formats::Rounding::rdn, tilesim::formats::Rounding::rup,
      tilesim::formats::Rounding::rna, tilesim::formats::Rounding::rtz,
      tilesim::formats::Rounding::rto};
  for (uint64_t count : kCounts)
    for (bool sat : {false, true})
      for (int m = 0; m < 7; ++m) {
        ts::core().saturation = sat;
        fill(g, DType::fp32, ub() + kA, kMaxBytes / 4);
        std::memset(ub() + kD, 0xA5, kMaxBytes);
        ts::cast_count(DType::fp16, DType::fp32, ts::UbRef{kD, kMaxBytes / 2},
                       ts::UbRef{kA, kMaxBytes / 4}, modes[m], int64_t(count));
        ops::CastMode cm;
        cm.rounding = rnd[m];
        for (uint64_t i = 0; i < kMaxBytes / 2; ++i) {
          uint64_t want = 0xA5A5;
          if (i < count) {
            want = ops::cast_one(DType::fp32, DType::fp16, code_at(ub() + kA, DType::fp32, i), cm);
            if (sat) want = ops::saturate_code(DType::fp16, want);
          }
          ASSERT_EQ(code_at(ub() + kD, DType::fp16, i), want)
              << "fp32->fp16 " << ts::name(modes[m]) << " count " << count << " sat " << sat
              << " element " << i;
        }
        if (m != 0) continue;
        fill(g, DType::fp16, ub() + kA, kMaxBytes / 4);
        std::memset(ub() + kD, 0xA5, kMaxBytes);
        ts::cast_count(DType::fp32, DType::fp16, ts::UbRef{kD, kMaxBytes / 4},
                       ts::UbRef{kA, kMaxBytes / 4}, ts::CastRound::CAST_NONE, int64_t(count));
        for (uint64_t i = 0; i < kMaxBytes / 4; ++i) {
          const uint64_t want = i < count ? ops::cast_one(DType::fp16, DType::fp32,
                                                          code_at(ub() + kA, DType::fp16, i), cm)
                                          : 0xA5A5A5A5u;
          ASSERT_EQ(code_at(ub() + kD, DType::fp32, i), want)
              << "fp16->fp32 count " << count << " element " << i;
        }
      }
  ts::core().saturation.reset();
}

TEST_F(CountForm, DuplicateWritesCountElementsOnly) {
  for (DType t : {DType::fp16, DType::fp32, DType::s16, DType::u32})
    for (uint64_t count : kCounts) {
      const unsigned es = bytes_of(t);
      std::memset(ub() + kD, 0xA5, kMaxBytes);
      const uint64_t v = 0x89ABCDEF;
      ts::duplicate_count(t, ts::UbRef{kD, kMaxBytes / es}, v, int64_t(count));
      for (uint64_t i = 0; i < kMaxBytes / es; ++i) {
        const uint64_t want =
            i < count ? (es == 2 ? 0xCDEFu : 0x89ABCDEFu) : (es == 2 ? 0xA5A5u : 0xA5A5A5A5u);
        ASSERT_EQ(code_at(ub() + kD, t, i), want)
            << tilesim::formats::name(t) << " count " << count << " i " << i;
      }
    }
}

// Select in its three modes, count form: bit i of selMask (modes 1 and 2) or bit i % lanes of
// CMPMASK (mode 0, every repeat the same 128 bits, the last repeat partial) picks src0.
TEST_F(CountForm, SelectEqualsLaneReference) {
  std::mt19937_64 g(1618);
  for (DType t : {DType::fp16, DType::fp32})
    for (ts::SelMode mode : {ts::SelMode::VSEL_CMPMASK_SPR, ts::SelMode::VSEL_TENSOR_TENSOR_MODE,
                             ts::SelMode::VSEL_TENSOR_SCALAR_MODE})
      for (uint64_t count : kCounts) {
        const unsigned es = bytes_of(t), lanes = 256 / es;
        const uint64_t cap = kMaxBytes / es;
        fill(g, t, ub() + kA, cap);
        fill(g, t, ub() + kB, cap);
        for (uint64_t i = 0; i < 2048; ++i) ub()[kS + i] = uint8_t(g());
        std::memset(ub() + kD, 0xA5, kMaxBytes);
        const bool scalar = mode == ts::SelMode::VSEL_TENSOR_SCALAR_MODE;
        const uint64_t s =
            t == DType::fp16 ? 0x7E01 : 0x7FC00001;  // a NaN payload: moved, not made canonical
        const ts::UbRef a{kA, cap}, b{kB, cap}, d{kD, cap}, sel{kS, 2048};
        ts::select(mode, t, d, &sel, a, scalar ? nullptr : &b, s, nullptr, 0, ts::RepeatStrides{},
                   true, int64_t(count));
        for (uint64_t i = 0; i < cap; ++i) {
          uint64_t want = es == 2 ? 0xA5A5u : 0xA5A5A5A5u;
          if (i < count) {
            const uint64_t bit_index = mode == ts::SelMode::VSEL_CMPMASK_SPR ? i % lanes : i;
            const bool pick = (ub()[kS + bit_index / 8] >> (bit_index % 8)) & 1;
            want = pick ? code_at(ub() + kA, t, i) : scalar ? s : code_at(ub() + kB, t, i);
          }
          ASSERT_EQ(code_at(ub() + kD, t, i), want)
              << tilesim::formats::name(t) << " mode " << int(mode) << " count " << count
              << " element " << i;
        }
      }
}

}  // namespace
