// The element-op core (spec 15): known answers per op, each row citing where its value comes
// from, and the fast array paths against the scalar definition on every SIMD target over random
// and edge inputs (spec 15 §5, spec 70 item 5).
#include <gtest/gtest.h>
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "ops/reduce.hpp"
#include "every_target.hpp"

namespace tilesim::ops {
namespace {

using formats::DType;

uint64_t f32c(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
uint64_t f16c(float f) { return formats::f32_to_f16(f); }
uint64_t bf16c(float f) { return formats::f32_to_bf16(f); }

struct Known {
  Op op;
  DType t;
  uint64_t a, b, want;
  const char* source;
};

// Each row: op, dtype, operand codes, expected code, where the value comes from.
const Known kKnown[] = {
    {Op::add, DType::fp32, f32c(1.5f), f32c(2.25f), f32c(3.75f), "exact arithmetic"},
    {Op::add, DType::fp32, f32c(0x1p24f), f32c(1.0f), f32c(0x1p24f), "IEEE RNE: tie to even"},
    {Op::add, DType::fp32, f32c(-0.0f), f32c(-0.0f), f32c(-0.0f), "IEEE: -0 + -0 = -0"},
    {Op::add, DType::fp32, f32c(INFINITY), f32c(-INFINITY), 0x7FC00000, "IEEE + canonical NaN (spec 00)"},
    {Op::add, DType::fp16, f16c(2048.f), f16c(1.f), f16c(2048.f), "fp16 RNE: 2049 ties to 2048"},
    {Op::add, DType::fp16, f16c(65504.f), f16c(8.f), f16c(65504.f), "fp16: 65512 rounds down to max"},
    {Op::add, DType::fp16, f16c(65504.f), f16c(16.f), 0x7C00, "fp16: 65520 is the tie, to even (Inf)"},
    {Op::add, DType::fp16, f16c(65504.f), f16c(32.f), 0x7C00, "fp16 overflow to +Inf"},
    {Op::add, DType::bf16, bf16c(1.f), 0x3B80 /*2^-8*/, 0x3F80, "bf16 RNE: 1 + 2^-8 ties to 1"},
    {Op::sub, DType::fp32, f32c(1.f), f32c(1.f), f32c(0.f), "IEEE: x - x = +0"},
    {Op::mul, DType::fp16, f16c(0x1p-14f), f16c(0.5f), 0x0200, "fp16 subnormal kept (no FTZ)"},
    {Op::div, DType::fp32, f32c(1.f), f32c(0.f), 0x7F800000, "spec 15: x/0 = ±Inf"},
    {Op::div, DType::fp32, f32c(-1.f), f32c(0.f), 0xFF800000, "spec 15: x/0 = ±Inf"},
    {Op::div, DType::fp32, f32c(0.f), f32c(0.f), 0x7FC00000, "spec 15: 0/0 = NaN"},
    {Op::div, DType::fp32, f32c(1.f), f32c(3.f), 0x3EAAAAAB, "1/3 RNE"},
    {Op::max, DType::fp32, f32c(-0.f), f32c(0.f), f32c(0.f), "spec 20 §4: max(-0,+0) = +0"},
    {Op::max, DType::fp32, f32c(0.f), f32c(-0.f), f32c(0.f), "spec 20 §4: either order"},
    {Op::min, DType::fp32, f32c(0.f), f32c(-0.f), f32c(-0.f), "spec 20 §4: min(+0,-0) = -0"},
    {Op::max, DType::fp32, 0x7FC00001, f32c(1.f), 0x7FC00000, "spec 20 §4: NaN in -> canonical NaN"},
    {Op::min, DType::fp16, f16c(1.f), 0x7D00 /*sNaN*/, 0x7E00, "NaN in -> canonical fp16 NaN"},
    {Op::rem, DType::fp32, f32c(5.f), f32c(3.f), f32c(2.f), "Python 5 % 3"},
    {Op::rem, DType::fp32, f32c(-5.f), f32c(3.f), f32c(1.f), "Python -5 % 3"},
    {Op::rem, DType::fp32, f32c(5.f), f32c(-3.f), f32c(-1.f), "Python 5 % -3"},
    {Op::rem, DType::fp32, f32c(6.f), f32c(-3.f), f32c(-0.f), "NumPy remainder: zero takes y's sign"},
    {Op::rem, DType::fp32, f32c(-6.f), f32c(3.f), f32c(0.f), "NumPy remainder: zero takes y's sign"},
    {Op::rem, DType::fp32, f32c(1.f), f32c(0.f), 0x7FC00000, "spec 15: y = 0 -> NaN"},
    {Op::rem, DType::fp32, f32c(INFINITY), f32c(2.f), 0x7FC00000, "spec 15: x = Inf -> NaN"},
    {Op::rem, DType::fp32, f32c(-2.f), f32c(INFINITY), f32c(INFINITY), "spec 15: signs differ -> y"},
    {Op::rem, DType::fp32, f32c(2.f), f32c(INFINITY), f32c(2.f), "spec 15: signs agree -> x"},
    {Op::rem, DType::fp16, f16c(-1.f), f16c(2048.f), f16c(2047.f), "-1 + 2048 exact in fp16"},
    {Op::rem, DType::fp16, f16c(-0x1p-24f), f16c(1024.f), f16c(1024.f), "1024 - 2^-24 rounds once to 1024"},
    {Op::abs, DType::fp32, f32c(-0.f), 0, f32c(0.f), "spec 15: sign bit cleared"},
    {Op::neg, DType::fp32, f32c(0.f), 0, f32c(-0.f), "spec 15: sign bit flipped"},
    {Op::neg, DType::bf16, 0xFFC1, 0, 0x7FC0, "spec 15: NaN -> canonical NaN"},
    {Op::relu, DType::fp32, f32c(-0.f), 0, f32c(0.f), "spec 15: x > 0 ? x : +0"},
    {Op::relu, DType::fp32, f32c(-3.f), 0, f32c(0.f), "spec 15 relu"},
    {Op::relu, DType::fp16, f16c(3.f), 0, f16c(3.f), "spec 15 relu"},
    {Op::exp, DType::fp32, f32c(0.f), 0, f32c(1.f), "exp(0) = 1"},
    {Op::exp, DType::fp32, f32c(-INFINITY), 0, f32c(0.f), "spec 15: exp(-Inf) = +0"},
    {Op::ln, DType::fp32, f32c(-0.f), 0, f32c(-INFINITY), "spec 15: ln(0) = -Inf"},
    {Op::ln, DType::fp32, f32c(-1.f), 0, 0x7FC00000, "spec 15: ln(x<0) = NaN"},
    {Op::sqrt, DType::fp32, f32c(-0.f), 0, f32c(-0.f), "spec 15: sqrt(-0) = -0"},
    {Op::sqrt, DType::fp16, f16c(4.f), 0, f16c(2.f), "exact"},
    {Op::rsqrt, DType::fp32, f32c(0.f), 0, f32c(INFINITY), "spec 15: rsqrt(+0) = +Inf"},
    {Op::rsqrt, DType::fp32, f32c(-0.f), 0, f32c(-INFINITY), "spec 15: rsqrt(-0) = -Inf"},
    {Op::rsqrt, DType::fp32, f32c(4.f), 0, f32c(0.5f), "exact"},
    {Op::recip, DType::fp32, f32c(-0.f), 0, f32c(-INFINITY), "spec 15: recip(-0) = -Inf"},
    {Op::recip, DType::fp32, f32c(3.f), 0, 0x3EAAAAAB, "1/3 RNE"},
    {Op::recip, DType::s32, 1, 0, 1, "spec 15 integer recip: 1 -> 1"},
    {Op::recip, DType::s32, uint32_t(-1), 0, uint32_t(-1), "spec 15 integer recip: -1 -> -1"},
    {Op::recip, DType::s16, 7, 0, 0, "spec 15 integer recip: truncated 1/7 = 0"},
    {Op::add, DType::s8, 127, 1, 0x80, "two's complement wrap"},
    {Op::sub, DType::u16, 0, 1, 0xFFFF, "unsigned wrap"},
    {Op::mul, DType::s32, 0x10000, 0x10000, 0, "wrap: 2^32 mod 2^32"},
    {Op::mul, DType::s8, uint8_t(-128), uint8_t(-1), 0x80, "wrap: -128 * -1 = -128"},
    {Op::div, DType::s32, uint32_t(-7), 2, uint32_t(-3), "truncates toward zero"},
    {Op::div, DType::s32, 0x80000000u, uint32_t(-1), 0x80000000u, "spec 15: MIN / -1 wraps"},
    {Op::div, DType::u8, 200, 7, 28, "unsigned division"},
    {Op::rem, DType::s32, uint32_t(-7), 2, 1, "floored: -7 rem 2 = 1 (sign of y)"},
    {Op::rem, DType::s32, 7, uint32_t(-2), uint32_t(-1), "floored: 7 rem -2 = -1"},
    {Op::rem, DType::s32, 0x80000000u, uint32_t(-1), 0, "spec 15: MIN rem -1 = 0"},
    {Op::rem, DType::u16, 65535, 10, 5, "unsigned remainder"},
    {Op::max, DType::s16, uint16_t(-3), 2, 2, "ordinary"},
    {Op::min, DType::u32, 0xFFFFFFFF, 2, 2, "unsigned order"},
    {Op::band, DType::u8, 0xF0, 0x3C, 0x30, "bitwise"},
    {Op::bor, DType::u8, 0xF0, 0x0F, 0xFF, "bitwise"},
    {Op::bxor, DType::s16, 0xFFFF, 0x00FF, 0xFF00, "bitwise"},
    {Op::bnot, DType::s32, 0, 0, 0xFFFFFFFF, "bitwise"},
    {Op::shl, DType::s16, 1, 15, 0x8000, "shift into the sign bit"},
    {Op::shl, DType::u32, 1, 32, 0, "spec 15: count >= width gives 0"},
    {Op::shr, DType::s16, 0x8000, 3, 0xF000, "arithmetic shift: sign fill"},
    {Op::shr, DType::s16, 0x8000, 16, 0xFFFF, "spec 15: count >= width, signed: sign fill"},
    {Op::shr, DType::u16, 0x8000, 16, 0, "spec 15: count >= width gives 0"},
    {Op::abs, DType::s8, 0x80, 0, 0x80, "spec 15: abs(MIN) = MIN"},
    {Op::neg, DType::s32, 5, 0, uint32_t(-5), "wrap"},
    {Op::relu, DType::s32, uint32_t(-5), 0, 0, "max(x, 0)"},
    {Op::eq, DType::fp32, 0x7FC00000, 0x7FC00000, 0, "IEEE: NaN == NaN is false"},
    {Op::ne, DType::fp32, 0x7FC00000, 0x7FC00000, 1, "IEEE: NaN != NaN is true"},
    {Op::eq, DType::fp32, f32c(0.f), f32c(-0.f), 1, "IEEE: +0 == -0"},
    {Op::lt, DType::s8, 0x80, 0x7F, 1, "signed order"},
    {Op::lt, DType::u8, 0x80, 0x7F, 0, "unsigned order"},
    {Op::ge, DType::bf16, bf16c(2.f), bf16c(2.f), 1, "ordinary"},
};

TEST(OpsKnown, EveryRowOnEveryPath) {
  for (const Known& k : kKnown) {
    SCOPED_TRACE(std::string(info(k.op).name) + " " + std::string(formats::name(k.t)) + " (" +
                 k.source + ")");
    EXPECT_TRUE(supports(k.op, k.t));
    EXPECT_EQ(eval(k.op, k.t, k.a, k.b), k.want);
    // The array entry points on both paths give the same bits.
    const size_t w = formats::info(k.t).storage_bits / 8;
    std::vector<uint8_t> a(w * 37), b(w * 37), d(w * 37);
    for (size_t i = 0; i < 37; ++i) {
      store_code(k.t, a.data(), i, k.a);
      store_code(k.t, b.data(), i, k.b);
    }
    for (Path p : {Path::Fast, Path::Reference}) {
      std::fill(d.begin(), d.end(), 0xAB);
      const OpInfo& oi = info(k.op);
      if (is_compare(k.op)) {
        std::vector<uint8_t> out(37);
        compare(k.op, k.t, a.data(), b.data(), out.data(), 37, p);
        EXPECT_EQ(out[36], k.want);
        compare_scalar(k.op, k.t, a.data(), k.b, out.data(), 37, p);
        EXPECT_EQ(out[0], k.want);
        continue;
      }
      if (oi.arity == 1)
        unary(k.op, k.t, a.data(), d.data(), 37, p);
      else
        binary(k.op, k.t, a.data(), b.data(), d.data(), 37, p);
      EXPECT_EQ(load_code(k.t, d.data(), 36), k.want);
      if (oi.arity == 2) {
        binary_scalar(k.op, k.t, a.data(), k.b, false, d.data(), 37, p);
        EXPECT_EQ(load_code(k.t, d.data(), 5), k.want);
        binary_scalar(k.op, k.t, b.data(), k.a, true, d.data(), 37, p);
        EXPECT_EQ(load_code(k.t, d.data(), 9), k.want);
      }
    }
  }
}

TEST(OpsKnown, FloatBitOpsAreNotDefined) {
  for (Op op : {Op::band, Op::bor, Op::bxor, Op::bnot, Op::shl, Op::shr})
    for (DType t : {DType::fp32, DType::fp16, DType::bf16}) EXPECT_FALSE(supports(op, t));
  for (Op op : {Op::exp, Op::ln, Op::sqrt, Op::rsqrt}) EXPECT_FALSE(supports(op, DType::s32));
  EXPECT_FALSE(supports(Op::add, DType::e4m3));
  EXPECT_TRUE(supports(Op::recip, DType::s16));
}

// ---- differential: every op x dtype, fast vs reference, every SIMD target ----

const DType kAll[] = {DType::fp32, DType::fp16, DType::bf16, DType::s8,  DType::s16, DType::s32,
                      DType::s64,  DType::u8,   DType::u16,  DType::u32, DType::u64};

// Random codes with a share of edge values (±0, ±Inf, NaNs, subnormals, extremes, MIN/-1).
void fill(std::mt19937_64& g, DType t, std::vector<uint8_t>& buf, size_t n, bool nonzero) {
  const size_t w = formats::info(t).storage_bits / 8;
  buf.assign(n * w, 0);
  std::vector<uint64_t> edges;
  if (t == DType::fp32)
    edges = {0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC12345, 1,
             0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x4B800000};
  else if (t == DType::fp16)
    edges = {0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE55, 1, 0x83FF, 0x0400, 0x7BFF, 0xFBFF,
             0x3C00, 0xBC00, 0x6800};
  else if (t == DType::bf16)
    edges = {0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC5, 1, 0x807F, 0x0080, 0x7F7F, 0xFF7F,
             0x3F80, 0xBF80, 0x4B80};
  else
    edges = {0, 1, ~uint64_t{0}, uint64_t{1} << (w * 8 - 1), (uint64_t{1} << (w * 8 - 1)) - 1, 2, 7,
             w * 8, w * 8 - 1, w * 8 + 1};
  for (size_t i = 0; i < n; ++i) {
    uint64_t c = (g() % 4 == 0) ? edges[g() % edges.size()] : g();
    if (t == DType::fp32 && g() % 2) c = f32c(float(int(g() % 2001) - 1000) / 8.0f);  // exact cases
    if (nonzero && !is_float_dtype(t))
      while ((c & (w >= 8 ? ~uint64_t{0} : ((uint64_t{1} << (w * 8)) - 1))) == 0) c = g();
    store_code(t, buf.data(), i, c);
  }
}

using ops_test::every_fp16_path;
using ops_test::every_target;

TEST(OpsDifferential, FastEqualsReference) {
  std::mt19937_64 g(15);
  const size_t kN = 1000 + 13;  // odd length: vector bodies and scalar tails
  every_fp16_path([&] {
    for (int oi = 0; oi < kNumOps; ++oi) {
      const Op op = Op(oi);
      if (op == Op::select || op == Op::copy) continue;
      for (DType t : kAll) {
        if (!supports(op, t)) continue;
        SCOPED_TRACE(std::string(info(op).name) + " " + std::string(formats::name(t)));
        const bool divisor = op == Op::div || op == Op::rem || op == Op::recip;
        std::vector<uint8_t> a, b, fast, ref;
        fill(g, t, a, kN, divisor && info(op).arity == 1);
        fill(g, t, b, kN, divisor);
        const size_t w = formats::info(t).storage_bits / 8;
        fast.assign(kN * w, 0);
        ref.assign(kN * w, 0);
        if (is_compare(op)) {
          std::vector<uint8_t> o1(kN), o2(kN);
          compare(op, t, a.data(), b.data(), o1.data(), kN, Path::Fast);
          compare(op, t, a.data(), b.data(), o2.data(), kN, Path::Reference);
          EXPECT_EQ(o1, o2);
          continue;
        }
        if (info(op).arity == 1) {
          unary(op, t, a.data(), fast.data(), kN, Path::Fast);
          unary(op, t, a.data(), ref.data(), kN, Path::Reference);
          EXPECT_EQ(fast, ref);
          continue;
        }
        binary(op, t, a.data(), b.data(), fast.data(), kN, Path::Fast);
        binary(op, t, a.data(), b.data(), ref.data(), kN, Path::Reference);
        EXPECT_EQ(fast, ref);
        for (bool first : {false, true}) {
          // The divisor (b, non-zero for div/rem) is the array when the scalar comes first.
          const void* arr = first ? b.data() : a.data();
          const uint64_t s = first ? load_code(t, a.data(), 0) : load_code(t, b.data(), 3);
          binary_scalar(op, t, arr, s, first, fast.data(), kN, Path::Fast);
          binary_scalar(op, t, arr, s, first, ref.data(), kN, Path::Reference);
          EXPECT_EQ(fast, ref) << "scalar_first " << first;
        }
        // In place (dst aliases a): the walkers rely on it.
        std::vector<uint8_t> inplace = a;
        binary(op, t, inplace.data(), b.data(), inplace.data(), kN, Path::Fast);
        binary(op, t, a.data(), b.data(), ref.data(), kN, Path::Reference);
        EXPECT_EQ(inplace, ref);
      }
    }
  });
}

// The multi-row kernels (stride 0 = a broadcast row), packed compares and bit selects, fast vs
// reference on every SIMD target: rows long enough for whole vectors and tails.
TEST(OpsDifferential, RowsComparesAndSelectsFastEqualsReference) {
  std::mt19937_64 g(16);
  const size_t R = 5, N = 203;
  every_target([&] {
    for (DType t : kAll) {
      const size_t w = formats::info(t).storage_bits / 8;
      std::vector<uint8_t> a, b, bits(R * 32);
      fill(g, t, a, R * N, false);
      fill(g, t, b, R * N, true);
      for (auto& x : bits) x = uint8_t(g());
      Rows2 rg;
      rg.a = a.data();
      rg.as = N * w;
      rg.b = b.data();
      rg.rows = R;
      rg.n = N;
      for (size_t bs : {N * w, size_t(0)}) {
        rg.bs = bs;
        std::vector<uint8_t> f(R * N * w, 1), r(R * N * w, 2);
        for (int oi = 0; oi < kNumOps; ++oi) {
          const Op op = Op(oi);
          if (!supports(op, t) || info(op).arity != 2 || op == Op::select) continue;
          SCOPED_TRACE(std::string(info(op).name) + " " + std::string(formats::name(t)) +
                       (bs ? "" : " broadcast"));
          rg.ds = N * w;
          if (is_compare(op)) {
            const size_t nb = (N + 7) / 8;
            std::vector<uint8_t> fb(R * nb, 7), rb(R * nb, 9);
            rg.ds = nb;
            rg.d = fb.data();
            compare_bits_rows(op, t, rg, false, 0, Path::Fast);
            rg.d = rb.data();
            compare_bits_rows(op, t, rg, false, 0, Path::Reference);
            EXPECT_EQ(fb, rb);
            const uint64_t s = load_code(t, b.data(), 1);
            rg.d = fb.data();
            compare_bits_rows(op, t, rg, true, s, Path::Fast);
            rg.d = rb.data();
            compare_bits_rows(op, t, rg, true, s, Path::Reference);
            EXPECT_EQ(fb, rb) << "scalar";
            continue;
          }
          rg.d = f.data();
          binary_rows(op, t, rg, Path::Fast);
          rg.d = r.data();
          binary_rows(op, t, rg, Path::Reference);
          EXPECT_EQ(f, r);
        }
        // select by bits: moves bits, both forms
        rg.ds = N * w;
        rg.d = f.data();
        select_bits_rows(t, bits.data(), 32, rg, false, 0);
        for (size_t i = 0; i < R; ++i)
          for (size_t j = 0; j < N; ++j) {
            const bool bit = (bits[i * 32 + j / 8] >> (j % 8)) & 1;
            const uint8_t* want = bit ? a.data() + (i * N + j) * w : b.data() + (i * (bs ? N : 0) + j) * w;
            ASSERT_EQ(std::memcmp(f.data() + (i * N + j) * w, want, w), 0) << i << "," << j;
          }
      }
    }
  });
}

// The fp32 kernels test a pair of vectors for NaN once and canonicalise only then: one NaN (an
// input NaN, or one made by Inf - Inf, 0 * Inf, 0 / 0, sqrt(-2)) at every position of otherwise ordinary
// rows, so both branches and every lane of the pair are reached, fast vs reference per target.
TEST(OpsDifferential, SparseNaNFastEqualsReference) {
  std::mt19937_64 g(17);
  const size_t kN = 2 * 64 + 5;  // two AVX-512 pairs and a tail
  const Op kOps[] = {Op::add, Op::sub, Op::mul, Op::div, Op::max, Op::min,
                     Op::abs, Op::neg, Op::relu, Op::sqrt, Op::recip};
  every_fp16_path([&] {
    for (DType t : {DType::fp32, DType::fp16, DType::bf16})
      for (Op op : kOps)
        for (size_t pos = 0; pos < kN; ++pos)
          for (int kind = 0; kind < 5; ++kind) {
            std::vector<uint8_t> a(kN * 4), b(kN * 4);
            for (size_t i = 0; i < kN; ++i) {
              const float x = float(int(g() % 2001) - 1000) / 8.0f + 0.5f;
              const float y = float(int(g() % 2001) - 1000) / 8.0f + 0.25f;
              const uint64_t cx = t == DType::fp32 ? f32c(x) : t == DType::fp16 ? f16c(x) : bf16c(x);
              const uint64_t cy = t == DType::fp32 ? f32c(y) : t == DType::fp16 ? f16c(y) : bf16c(y);
              store_code(t, a.data(), i, cx);
              store_code(t, b.data(), i, cy);
            }
            const auto code = [t](float v) {
              return t == DType::fp32 ? f32c(v) : t == DType::fp16 ? f16c(v) : bf16c(v);
            };
            const float inf = INFINITY;
            if (kind == 0) store_code(t, a.data(), pos, t == DType::fp32 ? 0x7FA00001u : t == DType::fp16 ? 0x7D01u : 0x7FA1u);
            if (kind == 1) {  // a NaN made by the op (add: Inf + -Inf, sub: Inf - Inf, ...)
              store_code(t, a.data(), pos, code(op == Op::mul || op == Op::div ? 0.0f
                                                : op == Op::sqrt               ? -2.0f
                                                                               : inf));
              store_code(t, b.data(), pos, code(op == Op::add ? -inf : op == Op::mul ? inf : op == Op::div ? 0.0f : inf));
            }
            if (kind == 2) store_code(t, b.data(), pos, code(-0.0f));  // ±0 ties of max/min
            // A quiet NaN with a payload in either operand (vrangeps, the AVX-512 max/min,
            // returns the number for these; a signaling NaN is kind 0).
            const uint64_t qnan = t == DType::fp32 ? 0xFFC01234u : t == DType::fp16 ? 0xFE01u : 0xFFC1u;
            if (kind == 3) store_code(t, a.data(), pos, qnan);
            if (kind == 4) store_code(t, b.data(), pos, qnan);
            const size_t w = formats::info(t).storage_bits / 8;
            std::vector<uint8_t> fast(kN * w, 1), ref(kN * w, 2);
            if (info(op).arity == 1) {
              unary(op, t, a.data(), fast.data(), kN, Path::Fast);
              unary(op, t, a.data(), ref.data(), kN, Path::Reference);
            } else {
              binary(op, t, a.data(), b.data(), fast.data(), kN, Path::Fast);
              binary(op, t, a.data(), b.data(), ref.data(), kN, Path::Reference);
              ASSERT_EQ(fast, ref) << info(op).name << " " << formats::name(t) << " pos " << pos
                                   << " kind " << kind;
              const uint64_t s = load_code(t, b.data(), pos);
              binary_scalar(op, t, a.data(), s, false, fast.data(), kN, Path::Fast);
              binary_scalar(op, t, a.data(), s, false, ref.data(), kN, Path::Reference);
            }
            ASSERT_EQ(fast, ref) << info(op).name << " " << formats::name(t) << " pos " << pos
                                 << " kind " << kind;
          }
  });
}

// The fp32 kernels test NaN once per row on AVX-512 and make the stored row canonical after it:
// the same bits when dst is a source (in place), NaN at every position of several rows.
TEST(OpsDifferential, SparseNaNInPlaceRows) {
  const size_t kN = 2 * 16 + 16 + 5, kRows = 3;  // a pair, a single vector and a tail per row
  const size_t ds = kN * 4;
  every_fp16_path([&] {
    for (Op op : {Op::add, Op::sub, Op::mul, Op::div})
      for (size_t pos = 0; pos < kRows * kN; ++pos) {
        std::vector<float> a(kRows * kN), b(kRows * kN);
        for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) + 0.5f, b[i] = float(i % 5) + 0.25f;
        a[pos] = INFINITY;
        b[pos] = op == Op::add ? -INFINITY : op == Op::mul ? 0.0f : INFINITY;
        std::vector<float> ref(a.size()), fast = a;
        Rows2 g;
        g.a = a.data(), g.as = ds, g.b = b.data(), g.bs = ds, g.d = ref.data(), g.ds = ds;
        g.rows = kRows, g.n = kN;
        binary_rows(op, DType::fp32, g, Path::Reference);
        g.a = fast.data(), g.d = fast.data();  // in place
        binary_rows(op, DType::fp32, g, Path::Fast);
        ASSERT_EQ(0, std::memcmp(fast.data(), ref.data(), ds * kRows))
            << info(op).name << " pos " << pos;
        uint32_t bits;
        std::memcpy(&bits, &fast[pos], 4);
        EXPECT_EQ(bits, 0x7FC00000u) << info(op).name << " pos " << pos;
      }
  });
}

// fill_rows (TROWEXPAND's column broadcast) for every code width, row lengths around the
// vector sizes, a padded dst stride left untouched, and codes read from dst's own column 0.
TEST(OpsFill, RowsEveryWidthAndLength) {
  every_target([&] {
    for (DType t : {DType::s8, DType::fp16, DType::fp32, DType::s64})
      for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{16}, size_t{17}, size_t{63},
                       size_t{64}, size_t{65}, size_t{200}}) {
        const size_t w = formats::info(t).storage_bits / 8, rows = 5, ds = (n + 3) * w;
        std::vector<uint8_t> codes(rows * 2 * w), dst(rows * ds, 0xEE);
        for (size_t i = 0; i < codes.size(); ++i) codes[i] = uint8_t(0x11 * (i + 1));
        fill_rows(t, dst.data(), ds, codes.data(), 2 * w, rows, n);
        for (size_t r = 0; r < rows; ++r)
          for (size_t j = 0; j < n + 3; ++j)
            ASSERT_EQ(0, std::memcmp(dst.data() + r * ds + j * w,
                                     j < n ? codes.data() + r * 2 * w : std::vector<uint8_t>(w, 0xEE).data(), w))
                << formats::name(t) << " n " << n << " row " << r << " col " << j;
        if (n == 0) continue;
        // In place: row r's code is dst's own element (r, 0).
        for (size_t r = 0; r < rows; ++r) dst[r * ds] = uint8_t(r + 1);
        fill_rows(t, dst.data(), ds, dst.data(), ds, rows, n);
        for (size_t r = 0; r < rows; ++r)
          for (size_t j = 0; j < n; ++j)
            ASSERT_EQ(dst[r * ds + j * w], uint8_t(r + 1)) << formats::name(t) << " in place";
      }
  });
}

// fp16/bf16 sqrt and recip on the fast path (fp32 vsqrtps/vdivps, or on AVX3 rsqrt14 with a Newton
// step for sqrt, HalfSqrt; one rounding) against the
// scalar definition for all 65536 codes, on every SIMD target.
TEST(OpsDifferential, HalfSqrtRecipAllCodesEveryTarget) {
  std::vector<uint16_t> all(65536), fast(65536);
  for (uint32_t c = 0; c < 65536; ++c) all[c] = uint16_t(c);
  every_fp16_path([&] {
    for (DType t : {DType::fp16, DType::bf16})
      for (Op op : {Op::sqrt, Op::recip}) {
        unary(op, t, all.data(), fast.data(), all.size(), Path::Fast);
        for (uint32_t c = 0; c < 65536; ++c)
          ASSERT_EQ(fast[c], eval(op, t, c)) << info(op).name << " " << formats::name(t) << " code " << c;
        // In place and at odd offsets (the vector body and the scalar tail).
        std::vector<uint16_t> inplace(all.begin() + 3, all.end());
        unary(op, t, inplace.data(), inplace.data(), inplace.size(), Path::Fast);
        for (size_t i = 0; i < inplace.size(); ++i) ASSERT_EQ(inplace[i], fast[i + 3]);
      }
  });
}

// fp32 max/min (AVX3: vmaxps/vminps with the sign bit fixed by vpternlog and an unordered compare)
// on every pair of edge values — ±0, ±Inf, NaNs of both signs with payloads, subnormals, equal
// values — tile by tile over several rows (every row's vectors first, then the tails), tile by
// scalar both ways, and in place over either operand.
TEST(OpsDifferential, F32MaxMinEdgePairsEveryFormEveryTarget) {
  const std::vector<uint32_t> edges = {0,          0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000,
                                       0xFFC00001, 0x7F800001, 0x7FA00000, 1,          0x80000001,
                                       0x007FFFFF, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF};
  const size_t E = edges.size(), rows = 5, n = E * E / rows + 3;  // rows with vectors and tails
  std::vector<uint32_t> a(rows * n), b(rows * n);
  for (size_t i = 0; i < rows * n; ++i) {
    a[i] = edges[(i / E) % E];
    b[i] = edges[i % E];
  }
  every_target([&] {
    for (Op op : {Op::max, Op::min}) {
      SCOPED_TRACE(info(op).name);
      auto rows_of = [&](const void* x, const void* y, void* d) {
        Rows2 g;
        g.a = x, g.as = n * 4, g.b = y, g.bs = n * 4, g.d = d, g.ds = n * 4, g.rows = rows, g.n = n;
        return g;
      };
      std::vector<uint32_t> fast(rows * n), ref(rows * n);
      binary_rows(op, DType::fp32, rows_of(a.data(), b.data(), fast.data()), Path::Fast);
      binary_rows(op, DType::fp32, rows_of(a.data(), b.data(), ref.data()), Path::Reference);
      ASSERT_EQ(fast, ref);
      std::vector<uint32_t> in_a = a, in_b = b;
      binary_rows(op, DType::fp32, rows_of(in_a.data(), b.data(), in_a.data()), Path::Fast);
      ASSERT_EQ(in_a, ref) << "dst == a";
      binary_rows(op, DType::fp32, rows_of(a.data(), in_b.data(), in_b.data()), Path::Fast);
      ASSERT_EQ(in_b, ref) << "dst == b";
      for (uint32_t sc : edges)
        for (bool first : {false, true}) {
          binary_scalar_rows(op, DType::fp32, rows_of(a.data(), nullptr, fast.data()), sc, first, Path::Fast);
          binary_scalar_rows(op, DType::fp32, rows_of(a.data(), nullptr, ref.data()), sc, first, Path::Reference);
          ASSERT_EQ(fast, ref) << "scalar " << std::hex << sc << " first " << first;
        }
    }
  });
}

// fp16/bf16 sqrt and recip with the saturation switch on (a NaN result, e.g. sqrt of a negative,
// is written as +0; ±Inf as ±max), all 65536 codes on every target.
TEST(OpsDifferential, HalfSqrtRecipSaturatingAllCodesEveryTarget) {
  std::vector<uint16_t> all(65536), fast(65536), ref(65536);
  for (uint32_t c = 0; c < 65536; ++c) all[c] = uint16_t(c);
  Switches sw;
  sw.saturate = true;
  every_fp16_path([&] {
    for (DType t : {DType::fp16, DType::bf16})
      for (Op op : {Op::sqrt, Op::recip}) {
        Rows2 g;
        g.a = all.data(), g.as = 0, g.d = fast.data(), g.ds = 0, g.rows = 1, g.n = all.size();
        unary_rows(op, t, g, Path::Fast, sw);
        g.d = ref.data();
        unary_rows(op, t, g, Path::Reference, sw);
        ASSERT_EQ(fast, ref) << info(op).name << " " << formats::name(t);
        if (op == Op::sqrt) {
          EXPECT_EQ(fast[0xBC00], 0u) << "sqrt of a negative: NaN -> +0 saturating";
        }
      }
  });
}

// fp16/bf16 division (HalfBinary: fp32 vdivps on the widened codes, or on AVX3 rcp14 with a fused
// correction, HalfDiv; one rounding) against the scalar definition: every dividend code by a
// sample of 96 divisors (the edges of fill and random codes) and every divisor code by 96
// dividends, tile by tile and tile by scalar both ways, on every SIMD target. (All 2^32 pairs of
// both formats were checked once by hand: docs/ops.md, "Intel host".)
TEST(OpsDifferential, HalfDivDenseEveryTarget) {
  std::mt19937_64 g(18);
  std::vector<uint16_t> sample = {0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE55, 1, 0x83FF,
                                  0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x6800, 0x3555};
  while (sample.size() < 96) sample.push_back(uint16_t(g()));
  std::vector<uint16_t> all(65536), other(65536), fast(65536);
  for (uint32_t c = 0; c < 65536; ++c) all[c] = uint16_t(c);
  every_fp16_path([&] {
    for (DType t : {DType::fp16, DType::bf16})
      for (uint16_t k : sample)
        for (bool k_divisor : {true, false}) {
          std::fill(other.begin(), other.end(), k);
          const uint16_t* x = k_divisor ? all.data() : other.data();
          const uint16_t* y = k_divisor ? other.data() : all.data();
          binary(Op::div, t, x, y, fast.data(), 65536, Path::Fast);
          for (uint32_t c = 0; c < 65536; ++c)
            ASSERT_EQ(fast[c], eval(Op::div, t, x[c], y[c]))
                << formats::name(t) << " " << x[c] << " / " << y[c];
          // The scalar k as the divisor (k_divisor) or the dividend.
          binary_scalar(Op::div, t, all.data(), k, !k_divisor, fast.data(), 65536, Path::Fast);
          for (uint32_t c = 0; c < 65536; ++c)
            ASSERT_EQ(fast[c], eval(Op::div, t, x[c], y[c]))
                << formats::name(t) << " " << x[c] << " / " << y[c] << " scalar";
        }
  });
}

// fp16/bf16 packed compares (elementwise_simd.cpp HalfCompareBits, widened lanes; the chunked
// fp32 route without F16C): every code against a sample of 40 (both signs of zero, NaN payloads of both signs, ±Inf,
// subnormals, random codes), both operand orders and the scalar form, every predicate, every
// SIMD target, against the definition (compare in fp32).
TEST(OpsDifferential, HalfCompareBitsDenseEveryTarget) {
  std::mt19937_64 g(19);
  std::vector<uint16_t> sample = {0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE55, 0xFFFF, 1, 0x8001,
                                  0x83FF, 0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x7F80, 0xFF80,
                                  0x7FC0, 0x7F7F, 0xFF7F, 0x7F81};
  while (sample.size() < 40) sample.push_back(uint16_t(g()));
  std::vector<uint16_t> all(65536), other(65536);
  for (uint32_t c = 0; c < 65536; ++c) all[c] = uint16_t(c);
  std::vector<uint8_t> bits(65536 / 8);
  every_target([&] {
    for (DType t : {DType::fp16, DType::bf16})
      for (Op op : {Op::eq, Op::ne, Op::lt, Op::le, Op::gt, Op::ge})
        for (uint16_t k : sample) {
          std::fill(other.begin(), other.end(), k);
          for (int form = 0; form < 3; ++form) {  // all OP k, k OP all, all OP scalar k
            Rows2 rg;
            rg.a = form == 1 ? other.data() : all.data();
            rg.b = form == 1 ? all.data() : other.data();
            rg.d = bits.data();
            rg.n = 65536 - 3;  // a tail too
            compare_bits_rows(op, t, rg, form == 2, k, Path::Fast);
            for (uint32_t c = 0; c < rg.n; ++c) {
              const uint64_t x = form == 1 ? k : c, y = form == 1 ? c : k;
              ASSERT_EQ((bits[c / 8] >> (c % 8)) & 1, eval(op, t, x, y))
                  << info(op).name << " " << formats::name(t) << " form " << form << " " << x << ", " << y;
            }
          }
        }
  });
}

TEST(OpsSwitches, FlushToZeroInAndOut) {
  // 2^-140 is an fp32 subnormal: ftz_in reads it as +0; ftz_out writes subnormal results as ±0.
  const float sub = 0x1p-140f, one = 1.0f;
  float out = 0;
  binary(Op::add, DType::fp32, &sub, &sub, &out, 1);
  EXPECT_EQ(out, 0x1p-139f);
  binary(Op::add, DType::fp32, &sub, &sub, &out, 1, Path::Fast, Switches{true, false});
  EXPECT_EQ(f32c(out), 0u);
  binary(Op::add, DType::fp32, &sub, &sub, &out, 1, Path::Fast, Switches{false, true});
  EXPECT_EQ(f32c(out), 0u);
  binary(Op::mul, DType::fp32, &sub, &one, &out, 1, Path::Reference, Switches{false, true});
  EXPECT_EQ(f32c(out), 0u);
  const float nsub = -0x1p-140f;
  unary(Op::neg, DType::fp32, &sub, &out, 1, Path::Fast, Switches{false, true});
  EXPECT_EQ(f32c(out), 0x80000000u) << "flushed to -0, sign kept";
  unary(Op::abs, DType::fp32, &nsub, &out, 1, Path::Fast, Switches{true, false});
  EXPECT_EQ(f32c(out), 0u);
}

TEST(OpsSelect, MovesBits) {
  const uint16_t a[3] = {0x7D01, 1, 2}, b[3] = {9, 0xFFFF, 0x7C01};
  const uint8_t m[3] = {1, 0, 0};
  uint16_t d[3];
  select(DType::fp16, m, a, b, d, 3);
  EXPECT_EQ(d[0], 0x7D01) << "a NaN payload is moved, not made canonical";
  EXPECT_EQ(d[1], 0xFFFF);
  EXPECT_EQ(d[2], 0x7C01);
}

// ---- reductions (spec 15 §3) ----

TEST(OpsReduce, AdjacentPairsTreeRoundsEveryNode) {
  // fp16 [2048, 1, 1, 1, 0, 0, 0, 0]: tree ((2048+1) + (1+1)) + 0 = 2048 + 2 = 2050 (2049 ties
  // to even, 2048); a left-to-right fold loses every +1 and gives 2048: the order is visible.
  const uint16_t x[8] = {uint16_t(f16c(2048)), uint16_t(f16c(1)), uint16_t(f16c(1)), uint16_t(f16c(1)), 0, 0, 0, 0};
  EXPECT_EQ(tree_reduce(Op::add, DType::fp16, x, 8), f16c(2050.f));
  // Odd count: the last element moves up unchanged: [1, 2, 4] -> (1+2) + 4.
  const float y[3] = {1, 2, 4};
  EXPECT_EQ(tree_reduce(Op::add, DType::fp32, y, 3), f32c(7.f));
  const float z[2] = {0x1p24f, 1};
  EXPECT_EQ(tree_reduce(Op::add, DType::fp32, z, 2), f32c(0x1p24f));
}

TEST(OpsReduce, MaxMinAndArg) {
  const float v[6] = {-0.0f, 3, 0.0f, 3, -7, -7};
  EXPECT_EQ(fold_reduce(Op::max, DType::fp32, v, 6), f32c(3));
  EXPECT_EQ(fold_reduce(Op::min, DType::fp32, v, 6), f32c(-7));
  EXPECT_EQ(fold_reduce(Op::max, DType::fp32, v, 1), f32c(-0.0f));
  const float zeros[2] = {-0.0f, 0.0f};
  EXPECT_EQ(fold_reduce(Op::max, DType::fp32, zeros, 2), f32c(0.0f));
  EXPECT_EQ(fold_reduce(Op::min, DType::fp32, zeros, 2), f32c(-0.0f));
  EXPECT_EQ(arg_reduce(Op::max, DType::fp32, v, 6), 1u) << "smallest index on ties";
  EXPECT_EQ(arg_reduce(Op::min, DType::fp32, v, 6), 4u);
  EXPECT_EQ(arg_reduce(Op::max, DType::fp32, zeros, 2), 0u) << "-0 and +0 tie";
  const float withnan[3] = {1, NAN, 5};
  EXPECT_EQ(fold_reduce(Op::max, DType::fp32, withnan, 3), 0x7FC00000u);
  EXPECT_EQ(arg_reduce(Op::max, DType::fp32, withnan, 3), 1u);
  EXPECT_EQ(arg_reduce(Op::min, DType::fp32, withnan, 3), 1u);
  const int8_t iv[4] = {-3, 9, 9, -3};
  EXPECT_EQ(arg_reduce(Op::max, DType::s8, iv, 4), 1u);
  EXPECT_EQ(arg_reduce(Op::min, DType::s8, iv, 4), 0u);
}

// ---- conversions (spec 15 §2) ----

struct CastCase {
  DType from, to;
  uint64_t in;
  formats::Rounding r;
  bool sat;
  uint64_t want;
  const char* source;
};
using R = formats::Rounding;
const CastCase kCasts[] = {
    {DType::fp32, DType::s8, f32c(NAN), R::rne, true, 0, "spec 15 §2: NaN -> 0 (sat on)"},
    {DType::fp32, DType::s8, f32c(NAN), R::rne, false, 0, "spec 15 §2: NaN -> 0 (sat off)"},
    {DType::fp32, DType::s8, f32c(INFINITY), R::rne, true, 0x7F, "sat on: +Inf -> max"},
    {DType::fp32, DType::s8, f32c(-INFINITY), R::rne, true, 0x80, "sat on: -Inf -> min"},
    {DType::fp32, DType::s8, f32c(INFINITY), R::rne, false, 0, "sat off: ±Inf -> 0"},
    {DType::fp32, DType::s8, f32c(300.f), R::rne, true, 0x7F, "sat on: clamp"},
    {DType::fp32, DType::s8, f32c(300.f), R::rne, false, 300 & 0xFF, "sat off: low 8 bits of 300"},
    {DType::fp32, DType::s8, f32c(-129.f), R::rne, false, 0x7F, "sat off: -129 wraps to 127"},
    {DType::fp32, DType::s16, f32c(0x1p40f + 0x1p17f), R::rne, false, 0, "sat off: low 16 bits of 2^40+2^17 = 0"},
    {DType::fp32, DType::s32, f32c(-0x1p100f), R::rne, false, 0, "sat off: n taken exactly, however large"},
    {DType::fp32, DType::u8, f32c(-1.f), R::rne, true, 0, "sat on: negative -> 0 for unsigned"},
    {DType::fp32, DType::u8, f32c(-1.f), R::rne, false, 0xFF, "sat off: -1 wraps to 255"},
    {DType::fp32, DType::s32, f32c(2.5f), R::rne, true, 2, "rne: ties to even"},
    {DType::fp32, DType::s32, f32c(2.5f), R::rna, true, 3, "rna: ties away"},
    {DType::fp32, DType::s32, f32c(-2.5f), R::rna, true, uint32_t(-3), "rna: ties away"},
    {DType::fp32, DType::s32, f32c(-2.5f), R::rhu, true, uint32_t(-2), "rhu: ties toward +Inf"},
    {DType::fp32, DType::s32, f32c(2.5f), R::rhd, true, 2, "rhd: ties toward -Inf"},
    {DType::fp32, DType::s32, f32c(2.7f), R::rhd, true, 3, "rhd: nearest"},
    {DType::fp32, DType::s32, f32c(2.7f), R::rtz, true, 2, "rtz"},
    {DType::fp32, DType::s32, f32c(-2.7f), R::rdn, true, uint32_t(-3), "rdn"},
    {DType::fp32, DType::s32, f32c(-2.7f), R::rup, true, uint32_t(-2), "rup"},
    {DType::fp32, DType::s32, f32c(2.25f), R::rto, true, 3, "rto: truncate to 2, inexact -> odd 3"},
    {DType::fp32, DType::s32, f32c(3.25f), R::rto, true, 3, "rto: 3 is odd already"},
    {DType::fp32, DType::s32, f32c(4.0f), R::rto, true, 4, "rto: exact stays even"},
    {DType::fp32, DType::fp16, f32c(1.0f + 0x1p-11f), R::rne, false, 0x3C00, "tie to even"},
    {DType::fp32, DType::fp16, f32c(1.0f + 0x1p-11f), R::rhu, false, 0x3C01, "rhu: tie up"},
    {DType::fp32, DType::fp16, f32c(1e6f), R::rne, false, 0x7C00, "overflow -> Inf"},
    {DType::fp32, DType::fp16, f32c(1e6f), R::rne, true, 0x7BFF, "float saturation -> max"},
    {DType::fp16, DType::s8, f16c(-200.f), R::rne, false, uint8_t(56), "sat off: -200 mod 256 = 56"},
    {DType::s32, DType::s8, 0x1FF, R::rne, true, 0x7F, "int narrow, sat on"},
    {DType::s32, DType::s8, 0x1FF, R::rne, false, 0xFF, "int narrow, sat off: low bits"},
    {DType::s32, DType::s16, uint32_t(-40000), R::rne, true, 0x8000, "int narrow, clamp to MIN"},
    {DType::s32, DType::u16, uint32_t(-1), R::rne, true, 0, "negative to unsigned, sat on"},
    {DType::u32, DType::s32, 0xFFFFFFFF, R::rne, true, 0x7FFFFFFF, "u32 max -> s32 max"},
    {DType::s32, DType::fp16, 2049, R::rne, false, 0x6800, "2049 -> 2048 (tie to even)"},
    {DType::s32, DType::fp16, 2049, R::rup, false, 0x6801, "2049 -> 2050 (rup)"},
    {DType::s64, DType::fp32, (uint64_t{1} << 62) + (uint64_t{1} << 38) + 1, R::rne, false,
     f32c(0x1p62f + 0x1p39f), "above the midpoint by 1: rounds up (no double rounding)"},
    {DType::s64, DType::fp32, (uint64_t{1} << 62) + (uint64_t{1} << 38), R::rne, false,
     f32c(0x1p62f), "exact midpoint: ties to even"},
    {DType::u64, DType::fp16, ~uint64_t{0}, R::rtz, false, 0x7BFF, "2^64-1 rtz -> fp16 max"},
    {DType::s16, DType::fp32, 0x8000, R::rne, false, f32c(-32768.f), "sign-extended"},
};

TEST(OpsCast, KnownAnswers) {
  for (const CastCase& c : kCasts) {
    SCOPED_TRACE(std::string(formats::name(c.from)) + "->" + std::string(formats::name(c.to)) +
                 " (" + c.source + ")");
    CastMode m;
    m.rounding = c.r;
    const bool to_int = !is_float_dtype(c.to);
    m.int_saturate = to_int ? c.sat : true;
    m.float_saturate = to_int ? false : c.sat;
    EXPECT_EQ(cast_one(c.from, c.to, c.in, m), c.want);
    for (Path p : {Path::Fast, Path::Reference}) {
      std::vector<uint8_t> src(8 * 9), dst(8 * 9, 0xCD);
      for (int i = 0; i < 9; ++i) store_code(c.from, src.data(), size_t(i), c.in);
      cast(c.from, c.to, src.data(), dst.data(), 9, m, p);
      EXPECT_EQ(load_code(c.to, dst.data(), 8), c.want);
    }
  }
}

// The integer-source SIMD kernels (cast_simd.cpp: int -> fp32, widenings to s32, s32's saturating
// narrowings) on every target: lengths around the vector widths, byte offsets that misalign both
// arrays, edge codes (MIN, MAX, -1, 2^24 + 1 and 2^31 - 1, which round to fp32) in random order.
TEST(OpsCast, IntegerKernelsEveryTarget) {
  const DType ints[] = {DType::s8, DType::u8, DType::s16, DType::u16, DType::s32};
  const DType tos[] = {DType::fp32, DType::s32, DType::s8, DType::u8, DType::s16, DType::u16};
  every_target([&] {
    std::mt19937_64 g(5);
    for (DType from : ints)
      for (DType to : tos)
        for (int sat = 0; sat < 2; ++sat)
          for (size_t n : {size_t(0), size_t(1), size_t(15), size_t(16), size_t(17), size_t(63), size_t(64),
                           size_t(65), size_t(257)})
            for (size_t off : {size_t(0), size_t(1), size_t(3)}) {
              std::vector<uint8_t> codes;
              fill(g, from, codes, n, false);
              if (from == DType::s32 && n > 2) {
                store_code(from, codes.data(), 0, (uint64_t{1} << 24) + 1);  // rounds to 2^24 in fp32
                store_code(from, codes.data(), n - 1, 0x7FFFFFFF);           // rounds to 2^31
              }
              const size_t wi = formats::info(from).storage_bits / 8, wo = formats::info(to).storage_bits / 8;
              std::vector<uint8_t> src(off + n * wi + 1), a(off + n * wo + 8, 0xA5), b(off + n * wo + 8, 0xA5);
              if (n) std::memcpy(src.data() + off, codes.data(), n * wi);
              CastMode m;
              m.int_saturate = sat == 1;
              cast(from, to, src.data() + off, a.data() + off, n, m, Path::Fast);
              cast(from, to, src.data() + off, b.data() + off, n, m, Path::Reference);
              ASSERT_EQ(a, b) << formats::name(from) << "->" << formats::name(to) << " n " << n << " off " << off
                              << " sat " << sat;
            }
  });
  // Known answers through the kernels (a whole vector of each).
  std::vector<int32_t> s32(64, 0x7FFFFFFF);
  std::vector<float> f(64);
  cast(DType::s32, DType::fp32, s32.data(), f.data(), 64, CastMode{}, Path::Fast);
  EXPECT_EQ(f[63], 0x1p31f);  // 2^31 - 1 rounds to nearest even: 2^31
  std::vector<int8_t> s8(64);
  cast(DType::s32, DType::s8, s32.data(), s8.data(), 64, CastMode{}, Path::Fast);
  EXPECT_EQ(s8[0], 127);  // saturated
}

TEST(OpsCast, FastEqualsReference) {
  std::mt19937_64 g(2);
  const R modes[] = {R::rne, R::rna, R::rtz, R::rdn, R::rup, R::rhu, R::rhd, R::rto};
  for (DType from : kAll)
    for (DType to : kAll)
      for (R r : modes)
        for (int sat = 0; sat < 2; ++sat) {
          std::vector<uint8_t> src, a, b;
          fill(g, from, src, 257, false);
          const size_t w = formats::info(to).storage_bits / 8;
          a.assign(257 * w, 0);
          b.assign(257 * w, 1);
          CastMode m{r, sat == 1, sat == 1};
          cast(from, to, src.data(), a.data(), 257, m, Path::Fast);
          cast(from, to, src.data(), b.data(), 257, m, Path::Reference);
          ASSERT_EQ(a, b) << formats::name(from) << "->" << formats::name(to) << " mode "
                          << int(r) << " sat " << sat;
        }
}

}  // namespace
}  // namespace tilesim::ops
