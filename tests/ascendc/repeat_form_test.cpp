// The mask + repeat forms of the vector APIs on the one operand walker (spec 40 §1, spec 41 §3):
// every API against a lane-by-lane reference written here from the spec's addressing formula
// (lane i of repeat r of an operand is element (r * repStride + (i / E) * blkStride) * E + i % E),
// over random strides, bit and continuous masks, the register (isSetMask = false), counter mode
// and saturation; known answers; the overlap and mask rules, each leaving the UB untouched.
#include <gtest/gtest.h>

#include <array>
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

void expect_reject(const std::function<void()>& fn, ErrorCode code, const std::string& message) {
  const auto ub = ts::core().ub;
  const ts::MaskRegister reg = ts::core().mask;
  try {
    fn();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << "got: " << e.what() << "\nwant: " << message;
  }
  EXPECT_TRUE(ts::core().ub == ub) << "UB changed by a rejected call";
  EXPECT_EQ(ts::core().mask.lo, reg.lo);
  EXPECT_EQ(ts::core().mask.counter, reg.counter);
}

// Four 16 KB operands in the process core's UB.
struct Ub {
  TPipe* pipe = nullptr;
  TBuf<TPosition::VECCALC> buf;
  void SetUp() {
    set_product("atlas_a2");
    pipe = new TPipe;
    pipe->InitBuffer(buf, 4 * 16384);
  }
  void TearDown() {
    delete pipe;
    ResetMask();
    SetMaskNorm();
  }
  template <class T>
  LocalTensor<T> at(int k) const {
    LocalTensor<T> t = buf.Get<uint8_t>()[k * 16384].ReinterpretCast<T>();
    t.SetSize(16384 / sizeof(T));
    return t;
  }
};
struct Repeat : ::testing::Test, Ub {
  void SetUp() override { Ub::SetUp(); }
  void TearDown() override { Ub::TearDown(); }
};

template <class T>
constexpr DType dt() {
  if constexpr (std::is_same_v<T, half>) return DType::fp16;
  else if constexpr (std::is_same_v<T, float>) return DType::fp32;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::s16;
  else return DType::s32;
}

// What one API computes on one lane, from the element-op core's scalar definitions.
enum class Form { Binary, Scalar, Unary };
struct ApiCase {
  const char* name;
  Form form;
  std::function<void(DType, const void*, const void*, const void*, uint64_t, void*)> lane;  // a, b, dst_old, s
  bool saturates;
};

void op2(ops::Op op, DType t, const void* a, const void* b, void* d) {
  ops::binary(op, t, a, b, d, 1, ops::Path::Reference);
}

std::vector<ApiCase> cases() {
  using O = ops::Op;
  auto bin = [](O op) {
    return [op](DType t, const void* a, const void* b, const void*, uint64_t, void* d) { op2(op, t, a, b, d); };
  };
  auto relu_of = [](O op) {
    return [op](DType t, const void* a, const void* b, const void*, uint64_t, void* d) {
      op2(op, t, a, b, d);
      ops::unary(O::relu, t, d, d, 1, ops::Path::Reference);
    };
  };
  auto sc = [](O op) {
    return [op](DType t, const void* a, const void*, const void*, uint64_t s, void* d) {
      ops::binary_scalar(op, t, a, s, false, d, 1, ops::Path::Reference);
    };
  };
  auto un = [](O op) {
    return [op](DType t, const void* a, const void*, const void*, uint64_t, void* d) {
      ops::unary(op, t, a, d, 1, ops::Path::Reference);
    };
  };
  return {
      {"Add", Form::Binary, bin(O::add), true},
      {"Sub", Form::Binary, bin(O::sub), true},
      {"Mul", Form::Binary, bin(O::mul), true},
      {"Max", Form::Binary, bin(O::max), false},
      {"AddRelu", Form::Binary, relu_of(O::add), true},
      {"SubRelu", Form::Binary, relu_of(O::sub), true},
      {"MulAddDst", Form::Binary,
       [](DType t, const void* a, const void* b, const void* d0, uint64_t, void* d) {
         uint64_t m = 0;
         op2(O::mul, t, a, b, &m);
         op2(O::add, t, &m, d0, d);
       },
       true},
      {"FusedMulAdd", Form::Binary,
       [](DType t, const void* a, const void* b, const void* d0, uint64_t, void* d) {
         uint64_t m = 0;
         op2(O::mul, t, a, d0, &m);
         op2(O::add, t, &m, b, d);
       },
       true},
      {"Adds", Form::Scalar, sc(O::add), true},
      {"Muls", Form::Scalar, sc(O::mul), true},
      {"Mins", Form::Scalar, sc(O::min), false},
      {"LeakyRelu", Form::Scalar,
       [](DType t, const void* a, const void*, const void*, uint64_t s, void* d) {
         uint8_t ge = 0;
         ops::compare_scalar(O::ge, t, a, 0, &ge, 1, ops::Path::Reference);
         if (ge) {
           std::memcpy(d, a, tilesim::formats::info(t).storage_bits / 8);
         } else {
           ops::binary_scalar(O::mul, t, a, s, false, d, 1, ops::Path::Reference);
         }
       },
       true},
      {"Exp", Form::Unary, un(O::exp), true},
      {"Sqrt", Form::Unary, un(O::sqrt), true},
      {"Abs", Form::Unary, un(O::abs), true},
  };
}

// Calls API `name` in its mask/repeat form.
template <class T, bool isSetMask>
void call(const std::string& name, const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, T s,
          bool bits, uint64_t* mask, uint64_t len, uint8_t rep, const BinaryRepeatParams& bp,
          const UnaryRepeatParams& up) {
#define BIN(N)                                                      \
  if (name == #N) {                                                 \
    if (bits) N<T, isSetMask>(d, a, b, mask, rep, bp);              \
    else N<T, isSetMask>(d, a, b, len, rep, bp);                    \
    return;                                                         \
  }
#define SCA(N)                                                      \
  if (name == #N) {                                                 \
    if (bits) N<T, isSetMask>(d, a, s, mask, rep, up);              \
    else N<T, isSetMask>(d, a, s, len, rep, up);                    \
    return;                                                         \
  }
#define UNA(N)                                                      \
  if (name == #N) {                                                 \
    if (bits) N<T, isSetMask>(d, a, mask, rep, up);                 \
    else N<T, isSetMask>(d, a, len, rep, up);                       \
    return;                                                         \
  }
  BIN(Add) BIN(Sub) BIN(Mul) BIN(Max) BIN(AddRelu) BIN(SubRelu) BIN(MulAddDst) BIN(FusedMulAdd)
  SCA(Adds) SCA(Muls) SCA(Mins) SCA(LeakyRelu) UNA(Exp) UNA(Sqrt) UNA(Abs)
#undef BIN
#undef SCA
#undef UNA
  FAIL() << name;
}

bool takes(const std::string& name, DType t) {
  const bool fl = t == DType::fp16 || t == DType::fp32;
  if (name == "Exp" || name == "Sqrt" || name == "Abs" || name == "MulAddDst" || name == "FusedMulAdd" ||
      name == "LeakyRelu")
    return fl;
  if (name == "AddRelu" || name == "SubRelu") return fl || t == DType::s16;
  return true;
}

// Random codes: mostly finite values of moderate size, with NaN, ±Inf, ±0, subnormals and large values.
template <class T>
void fill(LocalTensor<T>& x, std::mt19937_64& rng) {
  const size_t n = x.GetSize();
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, half>) {
      const uint16_t specials[] = {0x7E00, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001, 0x83FF, 0x7BFF, 0xFBFF};
      const uint64_t r = rng();
      half h;
      h.bits = (r % 16 == 0) ? specials[(r >> 8) % 9] : static_cast<uint16_t>(((r >> 16) % 0x4800) | ((r >> 40) & 1) << 15);
      x(i) = h;
    } else if constexpr (std::is_same_v<T, float>) {
      const uint32_t specials[] = {0x7FC00000u, 0x7F800000u, 0xFF800000u, 0, 0x80000000u, 1, 0x807FFFFFu,
                                   0x7F7FFFFFu, 0x42000000u};
      const uint64_t r = rng();
      uint32_t c = (r % 16 == 0) ? specials[(r >> 8) % 9]
                                 : static_cast<uint32_t>(((r >> 16) % 0x48000000u) | (((r >> 50) & 1) << 31));
      std::memcpy(&x(i), &c, 4);
    } else {
      x(i) = static_cast<T>(rng());
    }
  }
}

template <class T>
void differential(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Ub fx;
  fx.SetUp();
  const DType t = dt<T>();
  const unsigned es = sizeof(T), E = 32 / es, lanes = 256 / es;
  auto a = fx.at<T>(0), b = fx.at<T>(1), d = fx.at<T>(2);
  for (const ApiCase& api : cases()) {
    if (!takes(api.name, t)) continue;
    for (int iter = 0; iter < 40; ++iter) {
      fill(a, rng);
      fill(b, rng);
      fill(d, rng);
      const bool sat = rng() % 2;
      SetSaturation(sat);
      T s;
      {
        LocalTensor<T> tmp = fx.at<T>(3);
        fill(tmp, rng);
        s = tmp(0);
      }
      const uint64_t sc = [&] { uint64_t c = 0; std::memcpy(&c, &s, sizeof(T)); return c; }();
      const int form = static_cast<int>(rng() % 4);  // 0 bits, 1 len, 2 register (normal), 3 counter
      uint64_t words[2] = {rng() | 1, es == 2 ? rng() : 0};
      if (rng() % 3 == 0) words[0] = ~uint64_t{0}, words[1] = es == 2 ? ~uint64_t{0} : 0;
      const uint64_t len = 1 + rng() % lanes;
      uint8_t rep = static_cast<uint8_t>(rng() % 6);
      const BinaryRepeatParams bp(static_cast<uint8_t>(rng() % 4), static_cast<uint8_t>(rng() % 4),
                                  static_cast<uint8_t>(rng() % 4), static_cast<uint8_t>(rng() % 13),
                                  static_cast<uint8_t>(rng() % 13), static_cast<uint8_t>(rng() % 13));
      UnaryRepeatParams up(bp.dstBlkStride, bp.src0BlkStride, bp.dstRepStride, bp.src0RepStride);
      // The lanes of each repeat that the call uses.
      uint64_t count = 0;
      std::vector<std::array<bool, 128>> active;
      auto from_bits = [&](uint64_t lo, uint64_t hi) {
        std::array<bool, 128> m{};
        for (unsigned i = 0; i < lanes; ++i) m[i] = i < 64 ? (lo >> i) & 1 : (hi >> (i - 64)) & 1;
        return m;
      };
      if (form == 3) {
        count = rng() % (lanes * 5);
        const uint64_t R = (count + lanes - 1) / lanes;
        for (uint64_t r = 0; r < R; ++r) {
          std::array<bool, 128> m{};
          for (unsigned i = 0; i < lanes; ++i) m[i] = r * lanes + i < count;
          active.push_back(m);
        }
      } else {
        std::array<bool, 128> m{};
        if (form == 1)
          for (unsigned i = 0; i < len; ++i) m[i] = true;
        else
          m = from_bits(words[0], words[1]);
        active.assign(rep, m);
      }
      // Reference, from a copy of the UB before the call.
      const auto before = ts::core().ub;
      auto want = before;
      const uint64_t base_a = a.address(), base_b = b.address(), base_d = d.address();
      const bool binary = api.form == Form::Binary;
      const uint64_t a_blk = binary ? bp.src0BlkStride : up.srcBlkStride;
      const uint64_t a_rep = binary ? bp.src0RepStride : up.srcRepStride;
      const uint64_t d_blk = binary ? bp.dstBlkStride : up.dstBlkStride;
      const uint64_t d_rep = binary ? bp.dstRepStride : up.dstRepStride;
      for (size_t r = 0; r < active.size(); ++r) {
        const auto cur = want;  // a repeat reads what earlier repeats wrote
        for (unsigned blk = 0; blk < 8; ++blk)  // block order: with dst block stride 0 the last one wins
          for (unsigned l = 0; l < E; ++l) {
            const unsigned i = blk * E + l;
            if (!active[r][i]) continue;
            auto at = [&](uint64_t base, uint64_t bs, uint64_t rs) {
              return base + ((r * rs + blk * bs) * E + l) * es;
            };
            uint64_t out = 0;
            api.lane(t, &cur[at(base_a, a_blk, a_rep)], &cur[at(base_b, bp.src1BlkStride, bp.src1RepStride)],
                     &cur[at(base_d, d_blk, d_rep)], sc, &out);
            if (api.saturates && sat) ts::saturate_results(t, &out, 1);
            std::memcpy(&want[at(base_d, d_blk, d_rep)], &out, es);
          }
      }
      const std::string what = std::string(api.name) + " form " + std::to_string(form) + " iter " + std::to_string(iter);
      if (form == 0) {
        call<T, true>(api.name, d, a, b, s, true, words, len, rep, bp, up);
        EXPECT_EQ(ts::core().mask.lo, words[0]) << what << ": the mask stays in the register";
      } else if (form == 1) {
        call<T, true>(api.name, d, a, b, s, false, words, len, rep, bp, up);
      } else if (form == 2) {
        SetVectorMask<T>(words[1], words[0]);
        call<T, false>(api.name, d, a, b, s, true, nullptr, 0, rep, bp, up);
      } else {
        SetMaskCount();
        SetVectorMask<T, MaskMode::COUNTER>(0, count);
        call<T, false>(api.name, d, a, b, s, false, nullptr, 0, 0, bp, up);  // repeatTime ignored
        SetMaskNorm();
        ResetMask();
      }
      ASSERT_TRUE(ts::core().ub == want) << what;
    }
  }
  SetSaturation(true);
  fx.TearDown();
}

TEST(RepeatForm, MatchesLaneReferenceHalf) { differential<half>(1); }
TEST(RepeatForm, MatchesLaneReferenceFloat) { differential<float>(2); }
TEST(RepeatForm, MatchesLaneReferenceInt16) { differential<int16_t>(3); }
TEST(RepeatForm, MatchesLaneReferenceInt32) { differential<int32_t>(4); }

// ---- known answers (hand-computed) ----

TEST_F(Repeat, StridedAddKnownAnswer) {
  auto a = at<float>(0), b = at<float>(1), d = at<float>(2);
  for (int i = 0; i < 512; ++i) a(i) = float(i), b(i) = 1000.0f, d(i) = -1.0f;
  // 2 repeats, mask 10 lanes (blocks 0 and lanes 0-1 of block 1), src0 block stride 2, repeat stride 4:
  // repeat 1 block 1 lane 1 reads src0 element (1*4 + 1*2)*8 + 1 = 49, writes dst (1*8 + 1)*8 + 1 = 73.
  Add(d, a, b, 10, 2, BinaryRepeatParams(1, 2, 1, 8, 4, 8));
  EXPECT_EQ(d(73), 1049.0f);
  EXPECT_EQ(d(0), 1000.0f);
  EXPECT_EQ(d(8), 1016.0f);   // block 1 of repeat 0: src0 element 16
  EXPECT_EQ(d(10), -1.0f);    // lane 10 inactive: untouched
  EXPECT_EQ(d(64), 1032.0f);  // repeat 1 block 0: src0 element 32
  EXPECT_EQ(ts::core().mask.lo, 0x3FFu);  // the continuous mask stays in the register
}

TEST_F(Repeat, AccumulatePatternSumsRepeatsInOrder) {
  // dst coincides with src1, dst and src1 repeat stride 0: dst = ((dst + r0) + r1) + r2.
  auto a = at<float>(0), d = at<float>(2);
  for (int i = 0; i < 64; ++i) d(i) = 0.5f;
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 64; ++i) a(r * 64 + i) = float(r + 1);
  Add(d, a, d, 64, 3, BinaryRepeatParams(1, 1, 1, 0, 8, 0));
  EXPECT_EQ(d(0), 6.5f);
  EXPECT_EQ(d(63), 6.5f);
}

TEST_F(Repeat, MulAddDstAndFusedMulAdd) {
  auto a = at<float>(0), b = at<float>(1), d = at<float>(2);
  a(0) = 3.0f, b(0) = 5.0f, d(0) = 7.0f;
  MulAddDst(d, a, b, 8);  // 3 * 5 + 7
  EXPECT_EQ(d(0), 22.0f);
  FusedMulAdd(d, a, b, 8);  // 3 * 22 + 5
  EXPECT_EQ(d(0), 71.0f);
}

// MulAddDst<float, half> (docs/ascendc.md#muladddst): the product of two halves is exact in float,
// so the reference is float(a) * float(b) + dst with one IEEE rounding (the add's).
TEST_F(Repeat, MulAddDstFloatHalfCountAndMaskForms) {
  auto a = at<half>(0), b = at<half>(1);
  auto d = at<float>(2);
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> u(-300.0f, 300.0f);
  const int n = 200;
  std::vector<float> d0(n), want(n);
  for (int i = 0; i < n; ++i) {
    a.SetValue(i, half(u(rng)));
    b.SetValue(i, half(u(rng)));
    d(i) = d0[i] = u(rng) * 1000.0f;
  }
  a.SetValue(0, half(0x1p-24f));  // subnormal halves: exact in float
  b.SetValue(0, half(-0x1p-20f));
  a.SetValue(1, half(-0.0f)), b.SetValue(1, half(3.0f)), d(1) = d0[1] = 0.0f;  // -0 + +0 = +0
  for (int i = 0; i < n; ++i) {
    const float p = float(a.GetValue(i)) * float(b.GetValue(i));
    want[i] = p + d0[i];
  }
  MulAddDst(d, a, b, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(tilesim::formats::f32_to_bits(d(i)), tilesim::formats::f32_to_bits(want[i])) << i;
  EXPECT_EQ(tilesim::formats::f32_to_bits(d(1)), 0u);
  // The mask form: 64 lanes (the float dst's); src repeat stride 4 halves-datablocks, dst 8.
  for (int i = 0; i < 128; ++i) d(i) = d0[i % n] = -1.0f;
  MulAddDst<float, half>(d, a, b, 10, 2, BinaryRepeatParams(1, 1, 1, 8, 4, 4));
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 64; ++i) {
      const int k = r * 64 + i;
      const float w = i < 10 ? float(a.GetValue(k)) * float(b.GetValue(k)) + -1.0f : -1.0f;
      ASSERT_EQ(tilesim::formats::f32_to_bits(d(k)), tilesim::formats::f32_to_bits(w)) << k;
    }
  // Bounds: a count past a half source.
  auto small = a[0];
  small.SetSize(16);
  expect_reject([&] { MulAddDst(d, small, b, 32); }, ErrorCode::Bounds, "count must be in [0, 16]");
}

TEST_F(Repeat, LeakyReluAndShifts) {
  auto a = at<half>(0), d = at<half>(2);
  a.SetValue(0, -4.0f), a.SetValue(1, 3.0f), a.SetValue(2, -0.0f);
  LeakyRelu(d, a, half(0.25f), 16);
  EXPECT_EQ(float(d.GetValue(0)), -1.0f);
  EXPECT_EQ(float(d.GetValue(1)), 3.0f);
  EXPECT_EQ(d.GetValue(2).bits, 0x8000);  // -0 >= 0: kept
  auto x = at<int32_t>(0), y = at<int32_t>(2);
  x(0) = -7, x(1) = 6, x(2) = 5;
  ShiftRight(y, x, 1, 64, 1, UnaryRepeatParams(), true);  // rounding: (x + 1) >> 1
  EXPECT_EQ(y(0), -3);                                    // -7 + 1 = -6, >> 1 = -3
  EXPECT_EQ(y(1), 3);
  EXPECT_EQ(y(2), 3);
  ShiftRight(y, x, 1, 64);  // plain arithmetic shift
  EXPECT_EQ(y(0), -4);
  EXPECT_EQ(y(2), 2);
  ShiftLeft(y, x, 4, 64);
  EXPECT_EQ(y(1), 96);
  ShiftRight(y, x, 32, 64);  // a count of the full width: sign fill
  EXPECT_EQ(y(0), -1);
  EXPECT_EQ(y(1), 0);
}

// ---- rules ----

TEST_F(Repeat, Rejections) {
  auto a = at<float>(0), b = at<float>(1), d = at<float>(2);
  uint64_t m2[2] = {0, 0};
  expect_reject([&] { Add(d, a, b, m2, 1, BinaryRepeatParams()); }, ErrorCode::Constraint, "mask[0] must not be 0");
  expect_reject([&] { Add(d, a, b, 65, 1, BinaryRepeatParams()); }, ErrorCode::Constraint,
                "continuous mask must be in [1, 64]");
  // Within a repeat, dst block 1 is src0 block 0: partial overlap.
  expect_reject([&] { Add(d, d[8], b, 64, 1, BinaryRepeatParams()); }, ErrorCode::Constraint,
                "identical or disjoint");
  // Repeat 0 writes bytes repeat 1 reads (src0 one repeat above dst... reversed).
  expect_reject([&] { Add(d[64], d, b, 64, 2, BinaryRepeatParams()); }, ErrorCode::Constraint,
                "no repeat may write bytes a later repeat reads");
  expect_reject([&] { Exp(d, a[4088], 64, 1, UnaryRepeatParams()); }, ErrorCode::Bounds, "the walk reaches element");
  expect_reject([&] { Add(d, a[4], b, 64, 1, BinaryRepeatParams()); }, ErrorCode::Constraint, "32-byte aligned");
  SetMaskCount();
  expect_reject([&] { Add(d, a, b, 64, 1, BinaryRepeatParams()); }, ErrorCode::Constraint,
                "isSetMask = true is not allowed in counter mode");
  SetMaskNorm();
  auto x = at<int32_t>(0), y = at<int32_t>(2);
  expect_reject([&] { ShiftLeft(y, x, 33, 64); }, ErrorCode::Constraint, "shift count must be in [0, 32]");
  auto u = at<uint32_t>(0), v = at<uint32_t>(2);
  expect_reject([&] { ShiftRight(v, u, 1u, 64, 1, UnaryRepeatParams(), true); }, ErrorCode::Constraint,
                "roundEn applies to int16_t and int32_t only");
  expect_reject([&] { Exp(x, x, 64); }, ErrorCode::Unsupported, "dtype s32 is not supported");
}

TEST_F(Repeat, LegalOverlaps) {
  auto b = at<float>(1), d = at<float>(2);
  for (int i = 0; i < 256; ++i) d(i) = float(i), b(i) = 1.0f;
  Add(d, d, b, 64, 2, BinaryRepeatParams());  // in place
  EXPECT_EQ(d(100), 101.0f);
  Add(d, d[64], b, 64, 2, BinaryRepeatParams());  // dst below src0 by one repeat: reads before writes
  EXPECT_EQ(d(0), 66.0f);                         // d(64) was 65
  EXPECT_EQ(d(64), 129.0f);                       // d(128) was 128 (the first call covered 0..127)
}

}  // namespace
