// Hand-computed known answers, one table row per case (spec 70 item 7): src0 (full) OP src1
// (mode 1 scalar), codes in hex, each row saying where its expected value comes from. Both paths
// (reference and fast) must give it. Plus the exhaustive EXPDIF fp16 check of spec 20 §4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "pto_test_util.hpp"
#include "tilesim/formats.hpp"

using namespace pto_test;

namespace {
struct Row {
  const char* target;
  Op op;
  Elem e;
  uint32_t a, b, expect;
  const char* why;
};

constexpr Elem F32 = Elem::f32, F16 = Elem::f16, BF = Elem::bf16, S8 = Elem::s8, S16 = Elem::s16,
               S32 = Elem::s32, U8 = Elem::u8, U16 = Elem::u16, U32 = Elem::u32;

const Row kRows[] = {
    {"a2a3", Op::ADD, F32, 0x3F800000, 0x40000000, 0x40400000, "1 + 2 = 3"},
    {"a2a3", Op::ADD, F32, 0x7F7FFFFF, 0x7F7FFFFF, 0x7F800000, "max + max overflows to +Inf (RNE)"},
    {"a2a3", Op::ADD, F32, 0x80000000, 0x80000000, 0x80000000, "-0 + -0 = -0 (IEEE 754 §6.3)"},
    {"a2a3", Op::ADD, F32, 0x7F800000, 0xFF800000, 0x7FC00000,
     "Inf - Inf = canonical NaN (spec 00)"},
    {"a2a3", Op::ADD, F32, 0x7F812345, 0x3F800000, 0x7FC00000,
     "NaN payload not propagated (spec 00)"},
    {"a2a3", Op::ADD, F32, 0x00000001, 0x00000001, 0x00000002, "subnormals kept: 2^-149 + 2^-149"},
    {"a2a3", Op::SUB, F32, 0x40400000, 0x3F800000, 0x40000000, "3 - 1 = 2 (seed 000: full - s_i)"},
    {"a2a3", Op::SUB, F32, 0x3F800000, 0x3F800000, 0x00000000, "1 - 1 = +0 (RNE)"},
    {"a2a3", Op::MUL, F32, 0x40400000, 0xC0000000, 0xC0C00000, "3 * -2 = -6"},
    {"a2a3", Op::MUL, F32, 0x00000000, 0x7F800000, 0x7FC00000, "0 * Inf = NaN"},
    {"a2a3", Op::DIV, F32, 0x3F800000, 0x40400000, 0x3EAAAAAB, "1/3 correctly rounded"},
    {"a2a3", Op::DIV, F32, 0xBF800000, 0x00000000, 0xFF800000, "-1/+0 = -Inf (spec 20 §4)"},
    {"a2a3", Op::DIV, F32, 0x00000000, 0x00000000, 0x7FC00000, "0/0 = NaN (spec 20 §4)"},
    {"a2a3", Op::MAX, F32, 0x80000000, 0x00000000, 0x00000000,
     "max(-0, +0) = +0 (spec 20 §4 decision)"},
    {"a2a3", Op::MAX, F32, 0x00000000, 0x80000000, 0x00000000,
     "max(+0, -0) = +0, order-independent"},
    {"a2a3", Op::MIN, F32, 0x00000000, 0x80000000, 0x80000000, "min(+0, -0) = -0"},
    {"a2a3", Op::MIN, F32, 0x80000000, 0x00000000, 0x80000000, "min(-0, +0) = -0"},
    {"a2a3", Op::MAX, F32, 0x7FC00001, 0x3F800000, 0x7FC00000, "max(NaN, 1) = NaN (spec 20 §4)"},
    {"a2a3", Op::MIN, F32, 0x3F800000, 0xFF800001, 0x7FC00000, "min(1, NaN) = canonical NaN"},
    {"a2a3", Op::MAX, F32, 0xFF800000, 0xC2C80000, 0xC2C80000, "max(-Inf, -100) = -100"},
    {"a2a3", Op::EXPDIF, F32, 0x3F800000, 0x3F800000, 0x3F800000, "exp(1 - 1) = 1"},
    {"a2a3", Op::EXPDIF, F32, 0x40000000, 0x3F800000, 0x402DF854, "exp(1) = 2.7182817 (RNE of e)"},
    {"a2a3", Op::EXPDIF, F32, 0x00000000, 0x42C80000, 0x0000001B,
     "exp(-100) = 3.72e-44, subnormal 27 * 2^-149"},
    {"a2a3", Op::EXPDIF, F32, 0x42C80000, 0x00000000, 0x7F800000, "exp(100) overflows to +Inf"},
    {"a2a3", Op::EXPDIF, F32, 0xFF800000, 0x00000000, 0x00000000, "exp(-Inf) = +0"},
    {"a2a3", Op::EXPDIF, F32, 0x7F800000, 0x7F800000, 0x7FC00000, "exp(Inf - Inf) = NaN"},
    {"a2a3", Op::ADD, F16, 0x3C00, 0x3C00, 0x4000, "1 + 1 = 2"},
    {"a2a3", Op::ADD, F16, 0x7BFF, 0x4800, 0x7BFF, "65504 + 8 rounds back to 65504"},
    {"a2a3", Op::ADD, F16, 0x7BFF, 0x4C00, 0x7C00, "65504 + 16 = 65520 ties to even -> +Inf"},
    {"a2a3", Op::ADD, F16, 0x3C00, 0x1000, 0x3C00, "1 + 2^-11 = 1 + half-ulp: tie to even -> 1"},
    {"a2a3", Op::ADD, F16, 0x3C01, 0x1000, 0x3C02, "(1+2^-10) + 2^-11: tie to even -> 1+2^-9"},
    {"a2a3", Op::SUB, F16, 0x0001, 0x0002, 0x8001, "subnormals: 2^-24 - 2^-23 = -2^-24"},
    {"a2a3", Op::MUL, F16, 0x0001, 0x3800, 0x0000, "2^-24 * 0.5 = 2^-25, tie to even -> +0"},
    {"a2a3", Op::MUL, F16, 0x0003, 0x3800, 0x0002, "3*2^-24 * 0.5 = 1.5*2^-24, tie -> 2*2^-24"},
    {"a2a3", Op::DIV, F16, 0x3C00, 0x4200, 0x3555,
     "1/3 in fp16 = 0x3555 (fp32 quotient rounded once)"},
    {"a2a3", Op::DIV, F16, 0x3C00, 0x8000, 0xFC00, "1/-0 = -Inf"},
    {"a2a3", Op::MAX, F16, 0x8000, 0x0000, 0x0000, "max(-0, +0) = +0"},
    {"a2a3", Op::MIN, F16, 0x7E01, 0x3C00, 0x7E00, "min(NaN, 1) = canonical 0x7E00"},
    {"a2a3", Op::EXPDIF, F16, 0x3C00, 0x0000, 0x4170, "exp(1) = 2.71875 in fp16"},
    {"a2a3", Op::EXPDIF, F16, 0x4A00, 0x0000, 0x7C00, "exp(12) = 162755 > 65504 -> +Inf"},
    {"a2a3", Op::EXPDIF, F16, 0x0000, 0x4A00, 0x0067,
     "exp(-12) = 6.144e-6 = 103.08 * 2^-24 -> 103 (subnormal)"},
    {"a2a3", Op::EXPDIF, F16, 0x7BFF, 0xFBFF, 0x7C00,
     "d = round(65504 + 65504) = Inf, exp(Inf) = Inf"},
    {"a5", Op::ADD, BF, 0x3F80, 0x3B80, 0x3F80, "1 + 2^-8: tie to even -> 1 (bf16 RNE)"},
    {"a5", Op::ADD, BF, 0x3F81, 0x3B80, 0x3F82, "(1+2^-7) + 2^-8: tie to even -> 1+2^-6"},
    {"a5", Op::MUL, BF, 0x7F7F, 0x4000, 0x7F80, "bf16 max * 2 = +Inf"},
    {"a5", Op::DIV, BF, 0x3F80, 0x4040, 0x3EAB, "1/3 in bf16 = 0x3EAB"},
    {"a5", Op::MAX, BF, 0xFFC1, 0x3F80, 0x7FC0, "max(NaN, 1) = canonical 0x7FC0"},
    {"a2a3", Op::ADD, S16, 0x7FFF, 0x0001, 0x8000, "32767 + 1 wraps to -32768"},
    {"a2a3", Op::SUB, S16, 0x8000, 0x0001, 0x7FFF, "-32768 - 1 wraps to 32767"},
    {"a2a3", Op::MUL, S16, 0x0100, 0x0100, 0x0000, "256 * 256 = 65536 wraps to 0"},
    {"a2a3", Op::MAX, S16, 0xFFFF, 0x0001, 0x0001, "max(-1, 1) = 1 (signed)"},
    {"a2a3", Op::MIN, S32, 0x80000000, 0x7FFFFFFF, 0x80000000, "min(INT_MIN, INT_MAX) = INT_MIN"},
    {"a2a3", Op::MUL, S32, 0x00010000, 0x00010000, 0x00000000, "2^16 * 2^16 wraps to 0"},
    {"a2a3", Op::ADD, S32, 0x7FFFFFFF, 0x7FFFFFFF, 0xFFFFFFFE, "INT_MAX + INT_MAX = -2 (wrap)"},
    {"a5", Op::DIV, S32, 0x80000000, 0xFFFFFFFF, 0x80000000,
     "INT_MIN / -1 wraps to INT_MIN (spec 20 §4)"},
    {"a5", Op::DIV, S32, 0xFFFFFFF9, 0x00000002, 0xFFFFFFFD, "-7 / 2 = -3 (toward zero)"},
    {"a5", Op::DIV, S16, 0x0007, 0xFFFE, 0xFFFD, "7 / -2 = -3 (toward zero)"},
    {"a5", Op::DIV, S8, 0x80, 0xFF, 0x80, "-128 / -1 wraps to -128"},
    {"a5", Op::DIV, U8, 0xFF, 0x10, 0x0F, "255 / 16 = 15 (unsigned)"},
    {"a5", Op::DIV, U32, 0xFFFFFFFF, 0x00000002, 0x7FFFFFFF, "UINT_MAX / 2"},
    {"a5", Op::ADD, U8, 0xFF, 0x02, 0x01, "255 + 2 wraps to 1"},
    {"a5", Op::SUB, U16, 0x0000, 0x0001, 0xFFFF, "0 - 1 wraps to 65535"},
    {"a5", Op::MUL, U8, 0x10, 0x11, 0x10, "16 * 17 = 272 wraps to 16"},
    {"a5", Op::MUL, S8, 0x7F, 0x7F, 0x01, "127 * 127 = 16129 = 63*256 + 1 wraps to 1"},
    {"a5", Op::MAX, U32, 0xFFFFFFFF, 0x00000001, 0xFFFFFFFF, "max is unsigned for u32"},
    {"a5", Op::MIN, S8, 0x80, 0x7F, 0x80, "min(-128, 127) = -128"},
    {"a5", Op::MAX, U16, 0x8000, 0x7FFF, 0x8000, "max is unsigned for u16"},
};

uint32_t run_one(const Row& r, Path path, bool swap) {
  const Target& t = find_target(r.target);
  const int E = int(32 / elem_size(r.e));
  HostTile full(r.e, 1, E, true, 1, E), dst(r.e, 1, E, true, 1, E), s(r.e, E, 1, false, 1, 1);
  for (int j = 0; j < E; ++j) std::memcpy(full.at(0, j), swap ? &r.b : &r.a, elem_size(r.e));
  std::memcpy(s.at(0, 0), swap ? &r.a : &r.b, elem_size(r.e));
  if (swap)
    row_expand(r.op, dst.d, s.d, full.d, nullptr, t, Ub{}, path);
  else
    row_expand(r.op, dst.d, full.d, s.d, nullptr, t, Ub{}, path);
  uint32_t out = 0;
  std::memcpy(&out, dst.at(0, E - 1), elem_size(r.e));
  return out;
}
}  // namespace

TEST(PtoKnownAnswers, Table) {
  for (const Row& r : kRows)
    for (Path p : {Path::Reference, Path::Fast}) {
      EXPECT_EQ(run_one(r, p, false), r.expect)
          << op_name(r.op) << " " << elem_name(r.e) << ": " << r.why
          << (p == Path::Fast ? " (fast)" : " (ref)");
      // Swapped roles (src0 expanded) compute the same src0 OP src1 (spec 20 §4 operand order).
      EXPECT_EQ(run_one(r, p, true), r.expect) << op_name(r.op) << " swapped: " << r.why;
    }
}

// spec 20 §4: exp((double)d) rounded once to fp16 is the correctly rounded e^d for every fp16 d;
// checked against long double exp rounded once.
TEST(PtoKnownAnswers, ExpdifHalfExhaustive) {
  const Target& t = find_target("a2a3");
  HostTile full(Elem::f16, 1, 65536, true), dst(Elem::f16, 1, 65536, true),
      s(Elem::f16, 16, 1, false, 1, 1);
  for (uint32_t c = 0; c < 65536; ++c) full.set<uint16_t>(0, int(c), uint16_t(c));  // d = c - 0 = c
  for (Path p : {Path::Reference, Path::Fast}) {
    row_expand(Op::EXPDIF, dst.d, full.d, s.d, nullptr, t, Ub{}, p);
    int bad = 0;
    for (uint32_t c = 0; c < 65536; ++c) {
      const float d = tilesim::formats::f16_to_f32(uint16_t(c));
      uint16_t want;
      if (d != d) {
        want = 0x7E00;
      } else {
        const long double e = std::exp(static_cast<long double>(d));
        // Round the long double to binary16 directly (RNE by rintl), independent of the core:
        // 11 significant bits at the exponent of e, fp16 subnormals below 2^-14.
        if (e >= 65520.0L) {
          want = 0x7C00;
        } else {
          int ex;
          std::frexp(e, &ex);
          const int E = std::max(ex - 1, -14);
          const long double n = std::rint(std::ldexp(e, 10 - E));  // n <= 2048, exact below
          want = uint16_t(tilesim::formats::encode(double(std::ldexp(n, E - 10)),
                                                   tilesim::formats::DType::fp16));
        }
      }
      // d - 0 for d = -0 is -0; exp(-0) = 1 either way.
      bad += dst.get<uint16_t>(0, int(c)) != want;
    }
    EXPECT_EQ(bad, 0);
  }
}
