// The saturation switch of the element-op core (ops::Switches::saturate, spec 15 §4: fp16/bf16
// results ±Inf -> ±max, NaN -> +0), the 16-bit float kernels that apply it in their rounding step
// (elementwise_simd.cpp: HalfStores, HalfSign incl. relu, HalfMaxMin on order keys), the fused
// fp32 -> fp16/bf16 Cast (CastMode::narrow_saturate) and the SIMD fill: the fast paths against
// the scalar definitions (eval, then saturate_code) on every SIMD target, over random and edge
// codes (NaN payloads of both signs, ±0, subnormals, ±Inf, ±max, values whose results overflow),
// odd lengths (vector pairs, single vectors, scalar tails), in place, and multi-row forms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "every_target.hpp"
#include "ops/cast.hpp"
#include "ops/elementwise.hpp"

namespace tilesim::ops {
namespace {

using formats::DType;
using ops_test::every_target;

const DType kHalves[] = {DType::fp16, DType::bf16};

uint64_t code_of(DType t, float v) {
  return t == DType::fp16 ? formats::f32_to_f16(v) : formats::f32_to_bf16(v);
}

// A quarter edge codes, a quarter large magnitudes (sums and products overflow), the rest
// random codes or moderate values.
std::vector<uint16_t> codes(std::mt19937_64& g, DType t, size_t n) {
  const bool h = t == DType::fp16;
  const std::vector<uint16_t> edges =
      h ? std::vector<uint16_t>{0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE55, 0x7FFF,
                                1, 0x83FF, 0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x7BFE}
        : std::vector<uint16_t>{0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC5, 0x7FFF,
                                1, 0x807F, 0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80, 0x7F7E};
  std::vector<uint16_t> v(n);
  for (auto& c : v) {
    const unsigned k = g() % 4;
    if (k == 0)
      c = edges[g() % edges.size()];
    else if (k == 1)
      c = uint16_t((h ? 0x7000 + g() % 0xC00 : 0x7E00 + g() % 0x180) | (g() % 2 ? 0x8000 : 0));
    else if (k == 2)
      c = uint16_t(g());
    else
      c = uint16_t(code_of(t, float(int(g() % 2001) - 1000) / 8.0f));
  }
  return v;
}

Switches sat_on() {
  Switches s;
  s.saturate = true;
  return s;
}

TEST(OpsSaturate, RuleKnownAnswers) {
  EXPECT_EQ(saturate_code(DType::fp16, 0x7C00), 0x7BFFu) << "+Inf -> +65504";
  EXPECT_EQ(saturate_code(DType::fp16, 0xFC00), 0xFBFFu) << "-Inf -> -65504";
  EXPECT_EQ(saturate_code(DType::fp16, 0x7E00), 0x0000u) << "NaN -> +0";
  EXPECT_EQ(saturate_code(DType::fp16, 0xFD01), 0x0000u) << "negative NaN with payload -> +0";
  EXPECT_EQ(saturate_code(DType::fp16, 0x7BFF), 0x7BFFu) << "finite unchanged";
  EXPECT_EQ(saturate_code(DType::fp16, 0x8000), 0x8000u) << "-0 unchanged";
  EXPECT_EQ(saturate_code(DType::bf16, 0xFF80), 0xFF7Fu);
  EXPECT_EQ(saturate_code(DType::bf16, 0x7FC1), 0x0000u);
  EXPECT_EQ(saturate_code(DType::fp32, 0x7F800000), 0x7F800000u) << "fp32 is never saturated";
  // In the ops: fp16 65504 + 16 rounds to +Inf (the tie goes to even), saturated to 65504.
  const uint16_t a = 0x7BFF, b = uint16_t(code_of(DType::fp16, 16.0f));
  uint16_t d = 0;
  binary(Op::add, DType::fp16, &a, &b, &d, 1, Path::Fast, sat_on());
  EXPECT_EQ(d, 0x7BFF);
  binary(Op::add, DType::fp16, &a, &b, &d, 1, Path::Fast);
  EXPECT_EQ(d, 0x7C00);
  const uint16_t inf = 0x7C00, ninf = 0xFC00;
  binary(Op::add, DType::fp16, &inf, &ninf, &d, 1, Path::Fast, sat_on());
  EXPECT_EQ(d, 0x0000) << "Inf - Inf = NaN -> +0";
  const float big = 1e6f;
  ops::CastMode m;
  m.narrow_saturate = true;
  uint16_t h = 0;
  cast(DType::fp32, DType::fp16, &big, &h, 1, m);
  EXPECT_EQ(h, 0x7BFF);
}

// saturate_codes (SIMD) against saturate_code over every 16-bit code, at odd offsets.
TEST(OpsSaturate, CodesAllCodesEveryTarget) {
  std::vector<uint16_t> all(65536 + 3);
  every_target([&] {
    for (DType t : kHalves) {
      for (uint32_t c = 0; c < all.size(); ++c) all[c] = uint16_t(c);
      saturate_codes(t, all.data() + 3, 65536);
      for (uint32_t c = 0; c < 65536; ++c)
        ASSERT_EQ(all[c + 3], saturate_code(t, uint16_t(c + 3)))
            << formats::name(t) << " code " << c + 3;
      ASSERT_EQ(all[0], 0u);
    }
  });
}

// Every float op on fp16/bf16 with the switch on: fast (SIMD where it applies) vs the reference
// (eval, then the rule), one row and in place, tensor-tensor and both scalar orders.
TEST(OpsSaturate, EveryOpFastEqualsReference) {
  std::mt19937_64 g(41);
  const size_t kN = 1000 + 13;
  every_target([&] {
    for (int oi = 0; oi < kNumOps; ++oi) {
      const Op op = Op(oi);
      if (op == Op::select || op == Op::copy || is_compare(op)) continue;
      for (DType t : kHalves) {
        if (!supports(op, t)) continue;
        SCOPED_TRACE(std::string(info(op).name) + " " + std::string(formats::name(t)));
        const auto a = codes(g, t, kN), b = codes(g, t, kN);
        std::vector<uint16_t> fast(kN, 1), ref(kN, 2);
        if (info(op).arity == 1) {
          unary(op, t, a.data(), fast.data(), kN, Path::Fast, sat_on());
          unary(op, t, a.data(), ref.data(), kN, Path::Reference, sat_on());
          ASSERT_EQ(fast, ref);
          for (size_t i = 0; i < kN; ++i) ASSERT_EQ(ref[i], saturate_code(t, eval(op, t, a[i])));
          std::vector<uint16_t> inplace = a;
          unary(op, t, inplace.data(), inplace.data(), kN, Path::Fast, sat_on());
          ASSERT_EQ(inplace, ref) << "in place";
          continue;
        }
        binary(op, t, a.data(), b.data(), fast.data(), kN, Path::Fast, sat_on());
        binary(op, t, a.data(), b.data(), ref.data(), kN, Path::Reference, sat_on());
        ASSERT_EQ(fast, ref);
        for (size_t i = 0; i < kN; ++i)
          ASSERT_EQ(ref[i], saturate_code(t, eval(op, t, a[i], b[i])));
        for (bool first : {false, true})
          for (uint16_t s :
               {b[3], uint16_t(t == DType::fp16 ? 0x7BFF : 0x7F7F), uint16_t(0x7E00)}) {
            binary_scalar(op, t, a.data(), s, first, fast.data(), kN, Path::Fast, sat_on());
            binary_scalar(op, t, a.data(), s, first, ref.data(), kN, Path::Reference, sat_on());
            ASSERT_EQ(fast, ref) << "scalar " << s << " first " << first;
          }
        std::vector<uint16_t> inplace = a;
        binary(op, t, inplace.data(), b.data(), inplace.data(), kN, Path::Fast, sat_on());
        binary(op, t, a.data(), b.data(), ref.data(), kN, Path::Reference, sat_on());
        ASSERT_EQ(inplace, ref) << "in place";
      }
    }
  });
}

// The multi-row forms with the switch on and off (broadcast rows: stride 0).
TEST(OpsSaturate, RowsFastEqualsReference) {
  std::mt19937_64 g(42);
  const size_t R = 5, N = 203;
  every_target([&] {
    for (DType t : kHalves)
      for (bool sat : {false, true}) {
        Switches sw;
        sw.saturate = sat;
        const auto a = codes(g, t, R * N), b = codes(g, t, R * N);
        for (size_t bs : {N * 2, size_t(0)})
          for (Op op : {Op::add, Op::sub, Op::mul, Op::div, Op::max, Op::min, Op::abs, Op::relu,
                        Op::sqrt}) {
            Rows2 rg;
            rg.a = a.data();
            rg.as = N * 2;
            rg.b = b.data();
            rg.bs = bs;
            rg.ds = N * 2;
            rg.rows = R;
            rg.n = N;
            std::vector<uint16_t> f(R * N, 1), r(R * N, 2);
            rg.d = f.data();
            if (info(op).arity == 1)
              unary_rows(op, t, rg, Path::Fast, sw);
            else
              binary_rows(op, t, rg, Path::Fast, sw);
            rg.d = r.data();
            if (info(op).arity == 1)
              unary_rows(op, t, rg, Path::Reference, sw);
            else
              binary_rows(op, t, rg, Path::Reference, sw);
            ASSERT_EQ(f, r) << info(op).name << " " << formats::name(t) << " sat " << sat << " bs "
                            << bs;
          }
      }
  });
}

// The 16-bit unary kernels over all 65536 codes, switch on and off, every target.
TEST(OpsSaturate, HalfUnaryAllCodesEveryTarget) {
  std::vector<uint16_t> all(65536), fast(65536);
  for (uint32_t c = 0; c < 65536; ++c) all[c] = uint16_t(c);
  every_target([&] {
    for (DType t : kHalves)
      for (bool sat : {false, true}) {
        Switches sw;
        sw.saturate = sat;
        for (Op op :
             {Op::abs, Op::neg, Op::relu, Op::sqrt, Op::recip, Op::exp, Op::ln, Op::rsqrt}) {
          unary(op, t, all.data(), fast.data(), 65536, Path::Fast, sw);
          for (uint32_t c = 0; c < 65536; ++c) {
            const uint64_t want = eval(op, t, c);
            ASSERT_EQ(fast[c], sat ? saturate_code(t, want) : want)
                << info(op).name << " " << formats::name(t) << " sat " << sat << " code " << c;
          }
        }
      }
  });
}

// max/min on order keys: every code against a sample of 48 (edges and random codes), both
// orders, tensor-tensor and scalar forms, switch on and off, every target.
TEST(OpsSaturate, HalfMaxMinDenseEveryTarget) {
  std::mt19937_64 g(43);
  std::vector<uint16_t> sample = {0,      0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE55,
                                  1,      0x8001, 0x83FF, 0x0400, 0x7BFF, 0xFBFF, 0x3C00,
                                  0xBC00, 0x7F80, 0xFF80, 0x7FC0, 0x7F7F, 0xFF7F, 0x7F81};
  while (sample.size() < 48) sample.push_back(uint16_t(g()));
  std::vector<uint16_t> all(65536), other(65536), fast(65536);
  for (uint32_t c = 0; c < 65536; ++c) all[c] = uint16_t(c);
  every_target([&] {
    for (DType t : kHalves)
      for (Op op : {Op::max, Op::min})
        for (bool sat : {false, true}) {
          Switches sw;
          sw.saturate = sat;
          for (uint16_t k : sample) {
            std::fill(other.begin(), other.end(), k);
            for (bool k_first : {false, true}) {
              const uint16_t* x = k_first ? other.data() : all.data();
              const uint16_t* y = k_first ? all.data() : other.data();
              binary(op, t, x, y, fast.data(), 65536, Path::Fast, sw);
              for (uint32_t c = 0; c < 65536; ++c) {
                const uint64_t want = eval(op, t, x[c], y[c]);
                ASSERT_EQ(fast[c], sat ? saturate_code(t, want) : want)
                    << info(op).name << " " << formats::name(t) << " sat " << sat << " " << x[c]
                    << ", " << y[c];
              }
              binary_scalar(op, t, all.data(), k, k_first, fast.data(), 65536, Path::Fast, sw);
              for (uint32_t c = 0; c < 65536; ++c) {
                const uint64_t want = k_first ? eval(op, t, k, c) : eval(op, t, c, k);
                ASSERT_EQ(fast[c], sat ? saturate_code(t, want) : want)
                    << info(op).name << " scalar " << k << " first " << k_first << " code " << c;
              }
            }
          }
        }
  });
}

// The pair-tested stores of the 16-bit kernels: one lane needing the fix (a NaN in, a NaN made
// by the op, or a result beyond max; or a sum just past max that rounds to max or to Inf) at every position of otherwise ordinary rows, switch on and
// off, so both branches and every lane of a pair are reached.
TEST(OpsSaturate, SparseFixesEveryPosition) {
  std::mt19937_64 g(44);
  const size_t kN = 2 * 64 + 5;
  every_target([&] {
    for (DType t : kHalves)
      for (Op op : {Op::add, Op::sub, Op::mul, Op::div, Op::sqrt, Op::recip, Op::relu, Op::max})
        for (bool sat : {false, true}) {
          Switches sw;
          sw.saturate = sat;
          for (size_t pos = 0; pos < kN; ++pos)
            for (int kind = 0; kind < 5; ++kind) {
              std::vector<uint16_t> a(kN), b(kN), fast(kN, 1), ref(kN, 2);
              for (size_t i = 0; i < kN; ++i) {
                a[i] = uint16_t(code_of(t, float(int(g() % 2001) - 1000) / 8.0f + 0.5f));
                b[i] = uint16_t(code_of(t, float(int(g() % 2001) - 1000) / 8.0f + 0.25f));
              }
              const float huge = t == DType::fp16 ? 60000.0f : 3e38f;
              if (kind == 0) a[pos] = t == DType::fp16 ? 0x7D01 : 0x7FA1;
              if (kind == 1) {  // Inf - Inf or 0 * Inf style NaN
                a[pos] = uint16_t(code_of(t, op == Op::mul || op == Op::div ? 0.0f
                                             : op == Op::sqrt               ? -2.0f
                                                                            : INFINITY));
                b[pos] = uint16_t(code_of(t, op == Op::add   ? -INFINITY
                                             : op == Op::div ? 0.0f
                                                             : INFINITY));
              }
              if (kind == 2) {  // overflow: huge + huge, huge * huge, huge / tiny
                a[pos] = uint16_t(code_of(t, huge));
                b[pos] = uint16_t(code_of(t, op == Op::div ? 1e-3f : op == Op::sub ? -huge : huge));
              }
              if (kind >= 3) {  // just past max: 65504 + 8 rounds to max, 65504 + 16 (= 65520) to Inf
                a[pos] = uint16_t(code_of(t, t == DType::fp16 ? 65504.0f : 3.3895314e38f));
                b[pos] = uint16_t(code_of(t, t == DType::fp16 ? (kind == 3 ? 8.0f : 16.0f)
                                                             : (kind == 3 ? 0x1p103f : 0x1p104f)));
              }
              if (info(op).arity == 1) {
                unary(op, t, a.data(), fast.data(), kN, Path::Fast, sw);
                unary(op, t, a.data(), ref.data(), kN, Path::Reference, sw);
              } else {
                binary(op, t, a.data(), b.data(), fast.data(), kN, Path::Fast, sw);
                binary(op, t, a.data(), b.data(), ref.data(), kN, Path::Reference, sw);
              }
              ASSERT_EQ(fast, ref) << info(op).name << " " << formats::name(t) << " sat " << sat
                                   << " pos " << pos << " kind " << kind;
            }
        }
  });
}

// The fp16 kernels' deferred test (HalfStores: outputs apart from the inputs are stored a block
// of pairs at a time and the block redone when one lane needed the fix): one such lane at the
// first, a middle and the last lane of each block and in the tails, saturation on and off, out of
// place (deferred) and in place (tested pair by pair), fast vs reference on every target.
TEST(OpsSaturate, DeferredBlocksFixEveryBlock) {
  std::mt19937_64 g(45);
  const size_t kN = 4 * 512 + 37;  // whole blocks at every width, then pairs, singles, a tail
  std::vector<size_t> positions;
  for (size_t b = 0; b < kN; b += 64) positions.insert(positions.end(), {b, b + 31, b + 63});
  for (size_t p = kN - 37; p < kN; ++p) positions.push_back(p);
  every_target([&] {
    for (Op op : {Op::add, Op::sub, Op::mul, Op::div, Op::sqrt, Op::recip})
      for (bool sat : {false, true}) {
        Switches sw;
        sw.saturate = sat;
        for (size_t pos : positions) {
          if (pos >= kN) continue;
          for (int kind = 0; kind < 3; ++kind) {
            std::vector<uint16_t> a(kN), b(kN), fast(kN, 1), ref(kN, 2);
            for (size_t i = 0; i < kN; ++i) {
              a[i] = uint16_t(code_of(DType::fp16, float(int(g() % 2001) - 1000) / 8.0f + 0.5f));
              b[i] = uint16_t(code_of(DType::fp16, float(int(g() % 2001) - 1000) / 8.0f + 0.25f));
            }
            if (kind == 0) a[pos] = 0x7D01;  // a NaN in
            if (kind == 1) {                 // overflow (or, unary, a negative: NaN)
              a[pos] = uint16_t(code_of(DType::fp16, op == Op::sqrt ? -2.0f : 60000.0f));
              b[pos] = uint16_t(code_of(DType::fp16, op == Op::div ? 1e-3f : op == Op::sub ? -60000.0f : 60000.0f));
            }
            if (kind == 2) {  // 65504 + 16 = 65520 rounds to Inf
              a[pos] = 0x7BFF;
              b[pos] = uint16_t(code_of(DType::fp16, 16.0f));
            }
            const bool unary_op = info(op).arity == 1;
            auto run = [&](uint16_t* dst, Path path) {
              if (unary_op) unary(op, DType::fp16, a.data(), dst, kN, path, sw);
              else binary(op, DType::fp16, a.data(), b.data(), dst, kN, path, sw);
            };
            run(fast.data(), Path::Fast);
            run(ref.data(), Path::Reference);
            ASSERT_EQ(fast, ref) << info(op).name << " sat " << sat << " pos " << pos << " kind " << kind;
            std::vector<uint16_t> inplace = a;
            if (unary_op) unary(op, DType::fp16, inplace.data(), inplace.data(), kN, Path::Fast, sw);
            else binary(op, DType::fp16, inplace.data(), b.data(), inplace.data(), kN, Path::Fast, sw);
            ASSERT_EQ(inplace, ref) << "in place " << info(op).name << " sat " << sat << " pos " << pos;
          }
        }
      }
  });
}

// fp32 -> fp16/bf16 Cast with narrow_saturate (the fused SIMD rounding) against cast_one, in
// both saturation states, with every fp32 edge: NaN payloads, ±Inf, values just below, at and
// above the overflow threshold, subnormal results, odd lengths.
TEST(OpsSaturate, CastNarrowFastEqualsReference) {
  std::mt19937_64 g(45);
  const uint32_t edges[] = {0,
                            0x80000000u,
                            0x7F800000u,
                            0xFF800000u,
                            0x7FC00000u,
                            0xFFC12345u,
                            0x7F800001u,
                            1,
                            0x477FE000u /*65504*/,
                            0x477FEFFFu /*just below the tie*/,
                            0x477FF000u /*65520: tie -> Inf*/,
                            0xC77FF000u,
                            0x7F7FFFFFu,
                            0xFF7FFFFFu,
                            0x7F7F8000u /*bf16 max + half ulp*/,
                            0x33800000u /*2^-24*/,
                            0x33000000u};
  every_target([&] {
    for (DType to : kHalves)
      for (bool sat : {false, true})
        for (size_t n : {1, 15, 16, 17, 31, 32, 33, 1001}) {
          std::vector<float> src(n);
          for (auto& f : src) {
            uint32_t b = g() % 3 == 0 ? edges[g() % (sizeof(edges) / 4)] : uint32_t(g());
            if (g() % 3 == 0) b = (b & 0x80000000u) | (0x38000000u + uint32_t(g() % 0x0F800000u));
            std::memcpy(&f, &b, 4);
          }
          CastMode m;
          m.narrow_saturate = sat;
          std::vector<uint16_t> fast(n, 1), ref(n, 2);
          cast(DType::fp32, to, src.data(), fast.data(), n, m, Path::Fast);
          cast(DType::fp32, to, src.data(), ref.data(), n, m, Path::Reference);
          ASSERT_EQ(fast, ref) << formats::name(to) << " sat " << sat << " n " << n;
          for (size_t i = 0; i < n; ++i) {
            uint32_t b;
            std::memcpy(&b, &src[i], 4);
            ASSERT_EQ(ref[i], cast_one(DType::fp32, to, b, m));
          }
        }
  });
}

// The other casts keep their bits with narrow_saturate on (the rule after the conversion).
TEST(OpsSaturate, CastOtherPairsWithTheRule) {
  std::mt19937_64 g(46);
  for (DType from : {DType::fp16, DType::bf16, DType::s32, DType::fp32})
    for (DType to : kHalves)
      for (formats::Rounding r :
           {formats::Rounding::rne, formats::Rounding::rtz, formats::Rounding::rup}) {
        const size_t w = formats::info(from).storage_bits / 8, n = 300;
        std::vector<uint8_t> src(n * w);
        for (auto& x : src) x = uint8_t(g());
        CastMode m;
        m.rounding = r;
        m.narrow_saturate = true;
        std::vector<uint16_t> fast(n, 1), ref(n, 2);
        cast(from, to, src.data(), fast.data(), n, m, Path::Fast);
        cast(from, to, src.data(), ref.data(), n, m, Path::Reference);
        ASSERT_EQ(fast, ref) << formats::name(from) << "->" << formats::name(to);
        for (size_t i = 0; i < n; ++i) {
          CastMode plain = m;
          plain.narrow_saturate = false;
          ASSERT_EQ(ref[i],
                    saturate_code(to, cast_one(from, to, load_code(from, src.data(), i), plain)));
        }
      }
}

// fill: every width, odd counts and offsets, nothing past the end written.
TEST(OpsFill, EveryWidthAndLength) {
  every_target([&] {
    for (DType t : {DType::u8, DType::fp16, DType::fp32, DType::s64})
      for (size_t off : {0, 1, 3})
        for (size_t n : {0, 1, 7, 16, 63, 64, 65, 257, 1000, 600001, 1048579}) {
          const size_t w = formats::info(t).storage_bits / 8;
          std::vector<uint8_t> buf((n + off + 4) * w, 0xEE);
          const uint64_t code = 0x0123456789ABCDEFull;
          fill(t, buf.data() + off * w, code, n);
          const uint64_t in = w == 8 ? code : code & ((uint64_t{1} << (8 * w)) - 1);
          const uint64_t out = w == 8 ? ~uint64_t{0} / 255 * 0xEE : (uint64_t{1} << (8 * w)) / 255 * 0xEE;
          for (size_t i = 0; i < n + off + 4; ++i) {
            const uint64_t want = i >= off && i < off + n ? in : out;
            ASSERT_EQ(load_code(t, buf.data(), i), want)
                << formats::name(t) << " off " << off << " n " << n << " i " << i;
          }
        }
  });
}

}  // namespace
}  // namespace tilesim::ops
