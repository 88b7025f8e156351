// The count-form vector APIs, Cast, Duplicate, DataCopy(Pad) and the TQue rules (spec 41 §2-§3):
// known answers (hand-computed, each row says how), every API against the element-op core's scalar
// definition (ops::eval) on random and edge inputs, and rejections that leave the UB untouched.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "ops/op_table.hpp"
#include "tilesim/error.hpp"

using namespace AscendC;
namespace ts = tilesim::ascendc;
namespace ops = tilesim::ops;
using tilesim::ErrorCode;
using tilesim::formats::DType;

namespace {

void expect_reject(const std::function<void()>& fn, ErrorCode code, const std::string& message) {
  const auto ub = ts::core().ub;
  try {
    fn();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << "got: " << e.what() << "\nwant: " << message;
  }
  EXPECT_TRUE(ts::core().ub == ub) << "UB changed by a rejected call";
}

struct Api : ::testing::Test {
  TPipe* pipe = nullptr;
  TBuf<TPosition::VECCALC> buf;
  void SetUp() override {
    set_product("atlas_a2");
    pipe = new TPipe;
    pipe->InitBuffer(buf, 3 * 16384);
  }
  void TearDown() override { delete pipe; }
  // Operand k (0..2): 16 KB of UB at 16 KB * k, as T.
  template <class T>
  LocalTensor<T> at(int k) const {
    LocalTensor<T> t = buf.Get<uint8_t>()[k * 16384].ReinterpretCast<T>();
    t.SetSize(16384 / sizeof(T));
    return t;
  }
};

template <class T>
uint64_t code(T v) {
  uint64_t c = 0;
  std::memcpy(&c, &v, sizeof(T));
  return c;
}

// ---- known answers ----

TEST_F(Api, BinaryKnownAnswers) {
  auto a = at<half>(0), b = at<half>(1), d = at<half>(2);
  const float av[] = {1.5f, 60000.0f, -0.0f, 1.0f, 2048.0f};
  const float bv[] = {2.25f, 60000.0f, 0.0f, 0.0f, 1.0f};
  for (int i = 0; i < 5; ++i) a.SetValue(i, av[i]), b.SetValue(i, bv[i]);
  Add(d, a, b, 5);
  EXPECT_EQ(float(d.GetValue(0)), 3.75f);   // exact
  EXPECT_EQ(float(d.GetValue(1)), 65504.0f);  // 120000 overflows fp16: +Inf, saturated (CTRL default on)
  EXPECT_EQ(d.GetValue(2).bits, 0x0000);    // -0 + +0 = +0 (RNE)
  EXPECT_EQ(float(d.GetValue(4)), 2048.0f);  // 2049 is a tie between 2048 and 2050: even
  Div(d, a, b, 5);
  EXPECT_EQ(float(d.GetValue(3)), 65504.0f);  // 1 / 0 = +Inf, saturated
  EXPECT_EQ(d.GetValue(2).bits, 0);           // -0 / +0 = NaN, saturated to +0
  SetSaturation(false);
  Div(d, a, b, 5);
  EXPECT_EQ(d.GetValue(3).bits, 0x7C00);  // +Inf
  EXPECT_EQ(d.GetValue(2).bits, 0x7E00);  // canonical NaN
  Max(d, a, b, 5);
  EXPECT_EQ(d.GetValue(2).bits, 0x0000);  // max(-0, +0) = +0 (spec 15)
  Min(d, a, b, 5);
  EXPECT_EQ(d.GetValue(2).bits, 0x8000);
  auto ai = at<int16_t>(0), bi = at<int16_t>(1), di = at<int16_t>(2);
  ai.SetValue(0, int16_t(0x0F0F)), bi.SetValue(0, int16_t(0x00FF));
  ai.SetValue(1, int16_t(32767)), bi.SetValue(1, int16_t(1));
  And(di, ai, bi, 2);
  EXPECT_EQ(di.GetValue(0), 0x000F);
  Or(di, ai, bi, 2);
  EXPECT_EQ(di.GetValue(0), 0x0FFF);
  Add(di, ai, bi, 2);
  EXPECT_EQ(di.GetValue(1), -32768);  // integers wrap
  Not(di, ai, 1);
  EXPECT_EQ(di.GetValue(0), int16_t(0xF0F0));
}

TEST_F(Api, ScalarAndUnaryKnownAnswers) {
  auto a = at<float>(0), d = at<float>(1);
  const float av[] = {4.0f, -2.5f, 0.0f, -0.0f, 1.0f, 0.25f, 100.0f, -1.0f};
  for (int i = 0; i < 8; ++i) a.SetValue(i, av[i]);
  Adds(d, a, 0.5f, 8);
  EXPECT_EQ(d.GetValue(1), -2.0f);
  Muls(d, a, -2.0f, 8);
  EXPECT_EQ(d.GetValue(0), -8.0f);
  Maxs(d, a, 0.0f, 8);
  EXPECT_EQ(d.GetValue(1), 0.0f);
  Mins(d, a, 0.0f, 8);
  EXPECT_EQ(d.GetValue(0), 0.0f);
  Sqrt(d, a, 8);
  EXPECT_EQ(d.GetValue(0), 2.0f);
  EXPECT_TRUE(std::signbit(d.GetValue(3)));  // sqrt(-0) = -0
  Rsqrt(d, a, 8);
  EXPECT_EQ(d.GetValue(5), 2.0f);
  EXPECT_EQ(d.GetValue(2), INFINITY);  // rsqrt(+0) = +Inf, float is never saturated
  Reciprocal(d, a, 8);
  EXPECT_EQ(d.GetValue(5), 4.0f);
  Abs(d, a, 8);
  EXPECT_EQ(d.GetValue(1), 2.5f);
  Relu(d, a, 8);
  EXPECT_EQ(d.GetValue(1), 0.0f);
  EXPECT_EQ(d.GetValue(6), 100.0f);
  Exp(d, a, 8);
  EXPECT_EQ(d.GetValue(2), 1.0f);
  EXPECT_EQ(d.GetValue(6), INFINITY);  // e^100 overflows fp32
  Ln(d, a, 8);
  EXPECT_EQ(d.GetValue(4), 0.0f);
  EXPECT_EQ(d.GetValue(2), -INFINITY);
  // half Exp saturates: e^100 -> 65504.
  auto ah = at<half>(0), dh = at<half>(1);
  ah.SetValue(0, half(100.0f));
  ah.SetValue(1, half(0.0f));
  Exp(dh, ah, 2);
  EXPECT_EQ(float(dh.GetValue(0)), 65504.0f);
  EXPECT_EQ(float(dh.GetValue(1)), 1.0f);
  // Duplicate moves bits.
  Duplicate(dh, half(-3.5f), 100);
  EXPECT_EQ(float(dh.GetValue(99)), -3.5f);
}

TEST_F(Api, CastKnownAnswers) {
  auto f = at<float>(0);
  auto h = at<half>(1);
  auto s = at<int32_t>(2);
  const float v[] = {2.5f, -2.5f, 3.5f, -0.4f, 1e10f, NAN, 65520.0f, 1.0f + 0x1p-12f};
  for (int i = 0; i < 8; ++i) f.SetValue(i, v[i]);
  // fp32 -> s32 (saturating, NaN -> 0), ties by mode (spec 15 §2).
  Cast(s, f, RoundMode::CAST_RINT, 8);
  const int32_t rint[] = {2, -2, 4, 0, INT32_MAX, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(s.GetValue(i), rint[i]) << i;
  Cast(s, f, RoundMode::CAST_ROUND, 3);
  EXPECT_EQ(s.GetValue(0), 3);
  EXPECT_EQ(s.GetValue(1), -3);
  Cast(s, f, RoundMode::CAST_FLOOR, 4);
  EXPECT_EQ(s.GetValue(3), -1);
  Cast(s, f, RoundMode::CAST_CEIL, 2);
  EXPECT_EQ(s.GetValue(1), -2);
  Cast(s, f, RoundMode::CAST_TRUNC, 2);
  EXPECT_EQ(s.GetValue(0), 2);
  // fp32 -> fp16: 65520 rounds to +Inf in RNE, saturated to 65504; 1 + 2^-12 is a quarter ulp above 1
  // (RINT: 1; ODD: 1 + 2^-10, the sticky bit; CEIL: 1 + 2^-10).
  Cast(h, f, RoundMode::CAST_RINT, 8);
  EXPECT_EQ(float(h.GetValue(6)), 65504.0f);
  EXPECT_EQ(h.GetValue(5).bits, 0);  // NaN -> +0 under saturation
  EXPECT_EQ(float(h.GetValue(7)), 1.0f);
  Cast(h, f, RoundMode::CAST_ODD, 8);
  EXPECT_EQ(float(h.GetValue(7)), 1.0f + 0x1p-10f);
  Cast(h, f, RoundMode::CAST_CEIL, 8);
  EXPECT_EQ(float(h.GetValue(7)), 1.0f + 0x1p-10f);
  // fp16 -> fp32 exact; fp32 -> fp32 rounds to an integral value.
  Cast(f, h, RoundMode::CAST_NONE, 2);
  EXPECT_EQ(f.GetValue(0), 2.5f);
  Cast(f, f, RoundMode::CAST_FLOOR, 2);
  EXPECT_EQ(f.GetValue(0), 2.0f);
  EXPECT_EQ(f.GetValue(1), -3.0f);
  // fp16 -> s8 saturates: 300 -> 127.
  h.SetValue(0, half(300.0f));
  auto s8 = at<int8_t>(2);
  Cast(s8, h, RoundMode::CAST_RINT, 1);
  EXPECT_EQ(s8.GetValue(0), 127);
}

// ---- every API against the scalar definition ----

template <class T>
void fill_random(const LocalTensor<T>& t, uint32_t n, std::mt19937& rng) {
  T* p = t.GetPhyAddr();
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t c = rng();
    if constexpr (std::is_same_v<T, half>) {
      // mostly ordinary values, some specials
      const uint32_t r = rng() % 16;
      c = r == 0 ? 0x7C00 : r == 1 ? 0xFC00 : r == 2 ? 0x7E01 : r == 3 ? 0x8000 : (c & 0x3FFF) | ((c >> 20) & 0x8000);
      c |= (r > 8 ? 0x4000 : 0);
    } else if constexpr (std::is_same_v<T, float>) {
      const uint32_t r = rng() % 16;
      c = r == 0 ? 0x7F800000 : r == 1 ? 0x00000001 : r == 2 ? 0x7FC00001 : (c & 0xBFFFFFFF) | (r > 9 ? 0x40000000 : 0);
      c &= 0xFFFFFFFF;
    }
    std::memcpy(p + i, &c, sizeof(T));
  }
}

template <class T>
void check_against_eval(const char* name, ops::Op op, int arity, bool saturates, const LocalTensor<T>& a,
                        const LocalTensor<T>& b, const LocalTensor<T>& d, uint64_t s, uint32_t n, bool scalar) {
  const DType t = detail::dtype_of<T>();
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t x = code(a.GetValue(i));
    const uint64_t y = scalar ? s : arity == 2 ? code(b.GetValue(i)) : 0;
    uint64_t want = ops::eval(op, t, x, y);
    if (saturates && t == DType::fp16) {
      if ((want & 0x7FFF) > 0x7C00) want = 0;
      else if ((want & 0x7FFF) == 0x7C00) want = (want & 0x8000) | 0x7BFF;
    }
    ASSERT_EQ(code(d.GetValue(i)), want) << name << " element " << i << " a=" << x << " b=" << y;
  }
}

template <class T>
void differential(Api& f, std::mt19937& rng) {
  const uint32_t n = 1000;  // not a multiple of a repeat: the count form's tail
  auto a = f.at<T>(0), b = f.at<T>(1), d = f.at<T>(2);
  fill_random(a, n, rng);
  fill_random(b, n, rng);
  const T s = b.GetValue(7);
#define BIN(NAME, OP, SAT)                                                  \
  NAME(d, a, b, n);                                                         \
  check_against_eval(#NAME, ops::Op::OP, 2, SAT, a, b, d, 0, n, false);
#define SCA(NAME, OP, SAT)                                                  \
  NAME(d, a, s, n);                                                         \
  check_against_eval(#NAME, ops::Op::OP, 2, SAT, a, b, d, code(s), n, true);
#define UNA(NAME, OP, SAT)                                                  \
  NAME(d, a, n);                                                            \
  check_against_eval(#NAME, ops::Op::OP, 1, SAT, a, b, d, 0, n, false);
  BIN(Add, add, true)
  BIN(Sub, sub, true)
  BIN(Mul, mul, true)
  BIN(Max, max, false)
  BIN(Min, min, false)
  SCA(Adds, add, true)
  SCA(Muls, mul, true)
  SCA(Maxs, max, false)
  SCA(Mins, min, false)
  if constexpr (!std::is_integral_v<T>) {
    BIN(Div, div, true)
    UNA(Exp, exp, true)
    UNA(Ln, ln, true)
    UNA(Abs, abs, true)
    UNA(Sqrt, sqrt, true)
    UNA(Rsqrt, rsqrt, true)
    UNA(Reciprocal, recip, true)
  }
  if constexpr (!std::is_same_v<T, int16_t>) {
    UNA(Relu, relu, true)
  } else {
    BIN(And, band, false)
    BIN(Or, bor, false)
    UNA(Not, bnot, false)
  }
#undef BIN
#undef SCA
#undef UNA
}

TEST_F(Api, EveryApiMatchesTheDefinition) {
  std::mt19937 rng(18);
  for (int round = 0; round < 3; ++round) {
    differential<half>(*this, rng);
    differential<float>(*this, rng);
    differential<int16_t>(*this, rng);
    differential<int32_t>(*this, rng);
  }
}

TEST_F(Api, InPlaceAndWholeRepeatOverlapAreLegal) {
  auto a = at<half>(0);
  for (int i = 0; i < 512; ++i) a.SetValue(i, half(float(i)));
  Add(a, a, a, 256);  // in place
  EXPECT_EQ(float(a.GetValue(255)), 510.0f);
  // dst one repeat (128 halves) below src: every repeat reads its source before it is overwritten.
  Adds(a, a[128], half(1.0f), 384);
  EXPECT_EQ(float(a.GetValue(0)), 257.0f);  // a[128] was doubled by the Add
  EXPECT_EQ(float(a.GetValue(383)), 512.0f);
}

// ---- rejections (nothing written) ----

TEST_F(Api, VectorRejections) {
  auto a = at<half>(0), d = at<half>(2);
  auto ai = at<int16_t>(0), di = at<int16_t>(2);
  expect_reject([&] { Div(di, ai, ai, 16); }, ErrorCode::Unsupported,
                "Div: dtype s16 is not supported (takes: fp32 fp16) [docs/ascendc.md#vector-apis]");
  expect_reject([&] { Add(d, a, a, 8193); }, ErrorCode::Bounds,
                "Add: count must be in [0, 8192] (dst's elements), got 8193 [docs/ascendc.md#vector-apis]");
  expect_reject([&] { Add(d, a, a[8100], 100); }, ErrorCode::Bounds, "count must be in [0, 92] (src1's elements)");
  expect_reject([&] { Exp(d, a, -1); }, ErrorCode::Bounds, "got -1");
  expect_reject([&] { Add(d[8], a, a, 16); }, ErrorCode::Constraint,
                "Add: dst: UB address 32784 must be 32-byte aligned [docs/ascendc.md#vector-apis]");
  expect_reject([&] { Add(a[16], a, a, 256); }, ErrorCode::Constraint, "overlap partially");
  expect_reject([&] { Add(a, a[16], a[16], 256); }, ErrorCode::Constraint, "[docs/ascendc.md#overlap]");
  auto f = at<float>(1);
  auto s = at<int32_t>(2);
  expect_reject([&] { Cast(f, s, RoundMode::CAST_ODD, 8); }, ErrorCode::Unsupported,
                "Cast: s32 -> fp32 with CAST_ODD is not in the product's Cast table [docs/ascendc.md#cast]");
  expect_reject([&] { Cast(a, ai, RoundMode::CAST_RINT, 8); }, ErrorCode::Unsupported, "s16 -> fp16");
  expect_reject([&] { Duplicate(d, half(1.0f), 8193); }, ErrorCode::Bounds, "Duplicate: count must be in [0, 8192]");
}

// ---- DataCopy and DataCopyPad ----

TEST_F(Api, DataCopyPadGmToUbAndBack) {
  std::vector<half> gm(64);
  for (int i = 0; i < 64; ++i) gm[i] = half(float(i + 1));
  GlobalTensor<half> g;
  g.SetGlobalBuffer(gm.data(), 64);
  auto u = at<half>(0);
  Duplicate(u, half(-1.0f), 64);
  // 2 blocks of 3 halves (6 bytes), GM gap 4 bytes (2 halves): blocks [1 2 3] and [6 7 8]; in UB
  // each takes 1 left pad, 3 data, 2 right pads = 6 halves, rounded up to 32 bytes (16 halves).
  DataCopyPad(u, g, DataCopyExtParams{2, 6, 4, 0, 0}, DataCopyPadExtParams<half>{true, 1, 2, half(9.0f)});
  const float want0[] = {9, 1, 2, 3, 9, 9, 0};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(float(u.GetValue(i)), want0[i]) << i;
  EXPECT_EQ(float(u.GetValue(15)), 0.0f);  // the rest of the 32 bytes: zero (the page: undefined)
  EXPECT_EQ(float(u.GetValue(16)), 9.0f);
  EXPECT_EQ(float(u.GetValue(17)), 6.0f);
  EXPECT_EQ(float(u.GetValue(19)), 8.0f);
  EXPECT_EQ(float(u.GetValue(32)), -1.0f);  // untouched
  // isPad false, no padding: the fill repeats the block's first element.
  DataCopyPad(u, g, DataCopyParams{1, 6, 0, 0}, DataCopyPadParams{false, 0, 0, 0});
  EXPECT_EQ(float(u.GetValue(2)), 3.0f);
  EXPECT_EQ(float(u.GetValue(3)), 1.0f);
  EXPECT_EQ(float(u.GetValue(15)), 1.0f);
  // UB -> GM: blocks of 3 halves from 32-byte UB blocks, 2 halves apart in GM; only data written.
  std::vector<half> out(16, half(0.0f));
  GlobalTensor<half> go;
  go.SetGlobalBuffer(out.data(), 16);
  for (int i = 0; i < 32; ++i) u.SetValue(i, half(float(100 + i)));
  DataCopyPad(go, u, DataCopyExtParams{2, 6, 0, 4, 0});
  const float wout[] = {100, 101, 102, 0, 0, 116, 117, 118, 0};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(float(out[i]), wout[i]) << i;
  expect_reject([&] { DataCopyPad(u, g, DataCopyExtParams{2, 6, 4, 0, 0}, DataCopyPadExtParams<half>{true, 17, 0, half(0.0f)}); },
                ErrorCode::Constraint, "leftPadding and rightPadding must be in [0, 16] elements");
  expect_reject([&] { DataCopyPad(u, g, DataCopyExtParams{2, 5, 4, 0, 0}, DataCopyPadExtParams<half>{}); },
                ErrorCode::Constraint, "not a whole number of 2-byte elements");
  expect_reject([&] { DataCopyPad(u, g, DataCopyExtParams{2, 100, 4, 0, 0}, DataCopyPadExtParams<half>{}); },
                ErrorCode::Bounds, "DataCopyPad");
}

TEST_F(Api, DataCopyRejections) {
  std::vector<float> gm(64, 1.0f);
  GlobalTensor<float> g;
  g.SetGlobalBuffer(gm.data(), 64);
  auto u = at<float>(0);
  expect_reject([&] { DataCopy(u, g, 72); }, ErrorCode::Bounds,
                "DataCopy: src: bytes [0, 288) of the tensor are past its 256 bytes [docs/ascendc.md#datacopy]");
  expect_reject([&] { DataCopy(u[4], g, 8); }, ErrorCode::Constraint, "dst: UB address 16 must be 32-byte aligned");
  expect_reject([&] { DataCopy(u, g, 4); }, ErrorCode::Constraint, "multiple of 32 bytes");
  DataCopy(u, g[1], 8);  // the GM address may be any element's
  EXPECT_EQ(u.GetValue(0), 1.0f);
}

// ---- TQue rules ----

TEST_F(Api, TQueMisuse) {
  TQue<TPosition::VECIN, 1> q;
  pipe->InitBuffer(q, 2, 256);
  auto t0 = q.AllocTensor<half>();
  auto t1 = q.AllocTensor<half>();
  expect_reject([&] { q.AllocTensor<half>(); }, ErrorCode::Constraint,
                "TQue::AllocTensor: no free buffer: all 2 buffers of the queue are allocated or enqueued");
  q.EnQue(t0);
  expect_reject([&] { q.EnQue(t1); }, ErrorCode::Constraint,
                "TQue::EnQue: the queue already holds 1 tensors, its depth is 1 [docs/ascendc.md#tque]");
  expect_reject([&] { q.FreeTensor(t0); }, ErrorCode::Constraint, "is still enqueued (DeQue it first)");
  auto back = q.DeQue<half>();
  EXPECT_EQ(back.address(), t0.address());
  expect_reject([&] { q.DeQue<half>(); }, ErrorCode::Constraint, "TQue::DeQue: the queue is empty");
  q.FreeTensor(back);
  expect_reject([&] { q.FreeTensor(back); }, ErrorCode::Constraint, "is already free (double free)");
  EXPECT_TRUE(q.VacantInQue());
  q.FreeTensor(t1);
  LocalTensor<half> unbound;
  expect_reject([&] { unbound.GetValue(0); }, ErrorCode::Bounds, "index 0 out of range for 0 elements");
  expect_reject([&] { Add(unbound, unbound, unbound, 1); }, ErrorCode::Bounds, "count must be in [0, 0]");
}

TEST_F(Api, TensorElementAccess) {
  auto t = at<half>(0);
  t(3) = half(2.0f);
  EXPECT_EQ(float(-t(3)), -2.0f);
  t.SetValue(4, 1.0 / 3.0);  // converted as C++ would: RNE to half
  EXPECT_EQ(t.GetValue(4).bits, half(float(1.0 / 3.0)).bits);
  EXPECT_EQ(t[2].GetSize(), t.GetSize() - 2);
  EXPECT_EQ(float(t[2](1)), 2.0f);
  expect_reject([&] { t(t.GetSize()); }, ErrorCode::Bounds, "LocalTensor::operator(): index 8192 out of range");
}

}  // namespace
