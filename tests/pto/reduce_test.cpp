// PTO reductions (spec 21 §2, spec 15 §3; docs/pto-instructions.md#reductions): the summation
// orders of the a2a3 and a5 backends as known answers (the worked examples of the research notes,
// computed from the vendor backends' instruction sequences) and against an independent per-node
// model written here (a port of the notes' reduction_order_model.py); TCOLSUM's isBinary forms;
// arg reductions (ties, NaN); every rejection with dst and tmp untouched; the fast path against
// the reference bit for bit on random and edge tiles across targets, thread counts and every SIMD
// target Highway compiled (the reductions' whole-tile kernels are per target).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <pto/pto-inst.hpp>
#include <random>
#include <string>
#include <vector>

#include "../ops/every_target.hpp"
#include "pto_test_util.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/parallel.hpp"

namespace {

using namespace pto_test;
using tilesim::formats::bits_to_f32;
using tilesim::formats::f32_to_bits;
using tilesim::pto::Call;
using tilesim::pto::execute;
using tilesim::pto::find_target;
using tilesim::pto::Instr;
using tilesim::pto::Path;

const Target& A2 = find_target("a2a3");
const Target& A5 = find_target("a5");
const Target& CPU = find_target("cpu");

struct TargetGuard {
  explicit TargetGuard(const char* t) { pto::set_target(t); }
  ~TargetGuard() { pto::set_target("a2a3"); }
};

// ---- the independent model (one node at a time, plain float arithmetic) ----
// Each node rounds to T: fp32 adds are IEEE single (-ffp-contract=off); fp16 adds are exact in
// fp32 and rounded once (spec 00 Numerics). NaN results canonical.
struct F32 {
  static constexpr size_t E = 64;
  static uint32_t add(uint32_t a, uint32_t b) {
    const float r = bits_to_f32(a) + bits_to_f32(b);
    return r != r ? 0x7FC00000u : f32_to_bits(r);
  }
};
struct F16 {
  static constexpr size_t E = 128;
  static uint32_t add(uint32_t a, uint32_t b) {
    const float r =
        tilesim::formats::f16_to_f32(uint16_t(a)) + tilesim::formats::f16_to_f32(uint16_t(b));
    return tilesim::formats::f32_to_f16(r);
  }
};
using V = std::vector<uint32_t>;

template <class N>
uint32_t tree(V v) {  // adjacent pairs, level by level
  while (v.size() > 1) {
    V n;
    for (size_t k = 0; k + 1 < v.size(); k += 2) n.push_back(N::add(v[k], v[k + 1]));
    if (v.size() % 2) n.push_back(v.back());
    v = n;
  }
  return v[0];
}
template <class N>
uint32_t vcadd(const uint32_t* x, size_t active) {  // inactive lanes +0
  V lanes(N::E, 0);
  std::copy(x, x + active, lanes.begin());
  return tree<N>(lanes);
}
template <class N>
uint32_t a2a3_rowsum(const V& x) {  // notes §7.2 Steps 1-3
  const size_t E = N::E, C = x.size(), n = C / E, rem = C % E;
  if (C <= E) return vcadd<N>(x.data(), C);
  std::vector<V> t;
  auto chunk = [&](size_t q) { return V(x.begin() + q * E, x.begin() + (q + 1) * E); };
  auto vadd = [](const V& a, const V& b) {
    V r(a.size());
    for (size_t l = 0; l < a.size(); ++l) r[l] = N::add(a[l], b[l]);
    return r;
  };
  if (C < 2 * E) {
    t.push_back(chunk(0));
  } else {
    for (size_t i = 0; i < n / 2; ++i) t.push_back(vadd(chunk(2 * i), chunk(2 * i + 1)));
    if (n % 2) t[0] = vadd(t[0], chunk(n - 1));
  }
  for (size_t l = 0; l < rem; ++l) t[0][l] = N::add(t[0][l], x[n * E + l]);
  size_t cur = n / 2;
  while (cur > 1) {
    std::vector<V> nw;
    for (size_t i = 0; i < cur / 2; ++i) nw.push_back(vadd(t[2 * i], t[2 * i + 1]));
    const std::vector<V> t0 = t;
    const bool odd = cur % 2;
    for (size_t i = 0; i < nw.size(); ++i) t[i] = nw[i];
    cur /= 2;
    if (odd) t[cur - 1] = vadd(t[cur - 1], t0[cur * 2]);
  }
  return vcadd<N>(t[0].data(), E);
}
// notes §7.2 Step 0: B = 8-float block sums; the four shapes.
uint32_t a2a3_special(const V& x) {
  V B;
  for (size_t b = 0; b < x.size() / 8; ++b)
    B.push_back(tree<F32>(V(x.begin() + 8 * b, x.begin() + 8 * b + 8)));
  V X(8);
  if (x.size() == 128) {
    for (int k = 0; k < 8; ++k) X[k] = F32::add(B[k], B[8 + k]);
  } else if (x.size() == 256) {
    V W(16);
    for (int h = 0; h < 2; ++h)
      for (int k = 0; k < 8; ++k) W[8 * h + k] = F32::add(B[16 * h + k], B[16 * h + 8 + k]);
    for (int k = 0; k < 8; ++k) X[k] = F32::add(W[k], W[8 + k]);
  } else {
    V G;
    for (size_t g = 0; g < B.size() / 8; ++g)
      G.push_back(tree<F32>(V(B.begin() + 8 * g, B.begin() + 8 * g + 8)));
    if (G.size() == 8)
      X = G;
    else
      for (int k = 0; k < 8; ++k) X[k] = F32::add(G[k], G[8 + k]);
  }
  return tree<F32>(X);
}
template <class N>
uint32_t a5_rowsum(const V& x) {  // notes §7.3: ((0 + vcadd(c0)) + vcadd(c1)) + ...
  uint32_t acc = 0;
  for (size_t j = 0; j * N::E < x.size(); ++j)
    acc = N::add(acc, vcadd<N>(x.data() + j * N::E, std::min(N::E, x.size() - j * N::E)));
  return acc;
}
// notes §7.5
template <class N>
uint32_t col_a2a3_seq(const V& c) {
  uint32_t d = c[0];
  for (size_t i = 1; i < c.size(); ++i) d = N::add(d, c[i]);
  return d;
}
template <class N>
uint32_t col_a2a3_bin(const V& c) {
  const size_t R = c.size();
  if (R == 1) return c[0];
  V t;
  for (size_t i = 0; i < R / 2; ++i) t.push_back(N::add(c[2 * i], c[2 * i + 1]));
  if (R % 2) t[0] = N::add(t[0], c[R - 1]);
  for (size_t cnt = R / 2; cnt > 1; cnt /= 2) {
    V nt;
    for (size_t i = 0; i < cnt / 2; ++i) nt.push_back(N::add(t[2 * i], t[2 * i + 1]));
    if (cnt % 2) nt[0] = N::add(nt[0], t[cnt - 1]);
    for (size_t i = 0; i < nt.size(); ++i) t[i] = nt[i];
  }
  return t[0];
}
template <class N>
uint32_t col_a5_seq(const V& c) {
  const size_t R = c.size();
  uint32_t d = c[0];
  for (size_t j = 0; j < (R - 1) / 2; ++j) d = N::add(d, N::add(c[2 * j + 1], c[2 * j + 2]));
  if ((R - 1) % 2) d = N::add(d, c[R - 1]);
  return d;
}
template <class N>
uint32_t col_a5_bin(const V& c) {
  const size_t R = c.size();
  size_t n = R / 2;
  uint32_t d = 0;
  V t;
  for (size_t j = 0; j < n; ++j) t.push_back(d = N::add(c[2 * j], c[2 * j + 1]));
  if (R % 2) {
    d = N::add(c[R - 1], d);
    if (n > 0)
      t[n - 1] = d;
    else
      t = {d};
  }
  for (int times = n > 0 ? int(std::bit_width(n)) - 1 : 0; times > 0; --times) {
    const bool odd = n % 2;
    n /= 2;
    for (size_t j = 0; j < n; ++j) t[j] = d = N::add(t[2 * j], t[2 * j + 1]);
    if (odd) t[n - 1] = d = N::add(t[2 * n], d);
  }
  return d;
}

uint32_t bits(float f) {
  return f32_to_bits(f);
}
V f32_codes(const std::vector<float>& v) {
  V r;
  for (float f : v) r.push_back(bits(f));
  return r;
}

// The worked examples' rows (notes §7.6).
std::vector<float> row8() {
  return {1.0f, float(3e-8), -1.0f, float(5e-8), 16777216.0f, 1.0f, 1.0f, -16777216.0f};
}
std::vector<float> row256(size_t n = 256) {
  std::vector<float> x;
  for (size_t j = 0; j < n; ++j)
    x.push_back(std::ldexp(float(int(37 * j % 101) - 50), int(13 * j % 23) - 11));
  return x;
}

// ---- the model agrees with the notes' worked examples (the model is the test's reference) ----

TEST(PtoReduceModel, ReproducesTheWorkedExamples) {
  // notes §7.6, reduction_order_model.py output
  EXPECT_EQ(a2a3_rowsum<F32>(f32_codes(row8())), 0x3f800000u);
  EXPECT_EQ(a5_rowsum<F32>(f32_codes(row8())), 0x3f800000u);
  EXPECT_EQ(col_a2a3_seq<F32>(f32_codes(row8())), 0x00000000u);  // sequential: 0.0
  EXPECT_EQ(a2a3_rowsum<F32>(f32_codes(row256())), 0x489ec66au);
  EXPECT_EQ(a2a3_special(f32_codes(row256())), 0x489ec668u);
  EXPECT_EQ(a5_rowsum<F32>(f32_codes(row256())), 0x489ec66au);
  EXPECT_EQ(a2a3_rowsum<F32>(f32_codes(row256(128))), 0x486543b0u);
  EXPECT_EQ(a2a3_special(f32_codes(row256(128))), 0x486543b0u);
  EXPECT_EQ(a5_rowsum<F32>(f32_codes(row256(128))), 0x486543b1u);
  EXPECT_EQ(a2a3_rowsum<F32>(f32_codes(row256(200))), 0x486dfe84u);
  EXPECT_EQ(a5_rowsum<F32>(f32_codes(row256(200))), 0x486dfe85u);
  const V col = f32_codes({16777216.0f, 1, 1, 1, 1, -16777216.0f, 3});
  EXPECT_EQ(col_a2a3_seq<F32>(col), bits(3.0f));
  EXPECT_EQ(col_a2a3_bin<F32>(col), bits(7.0f));
  EXPECT_EQ(col_a5_seq<F32>(col), bits(7.0f));
  EXPECT_EQ(col_a5_bin<F32>(col), bits(6.0f));
}

// ---- known answers through the vendor C++ API ----

template <class T, int R, int C>
using VecT = pto::Tile<pto::TileType::Vec, T, R, C>;
template <class T, int R, int C>
using DynT =
    pto::Tile<pto::TileType::Vec, T, R, C, pto::BLayout::RowMajor, pto::DYNAMIC, pto::DYNAMIC>;
template <class T, int R>
using ColT = pto::Tile<pto::TileType::Vec, T, R, 1, pto::BLayout::ColMajor>;

template <class TileT>
void fill_rows(TileT& t, const std::vector<float>& x, int rows) {
  for (int r = 0; r < rows; ++r)
    for (size_t j = 0; j < x.size(); ++j) t.at(r, int(j)) = x[j];
}

// Each row: input, target, expected bits, the source of the expected value.
TEST(PtoReduceKnown, RowSum8Elements) {
  // notes §7.6 "one row of 8 fp32": a2a3 one masked vcadd = 1.0; a5 0 + vcadd = 1.0 (sequential
  // left to right would give 0.0, the exact sum is 2.00000008)
  for (const char* tg : {"a2a3", "a5", "cpu"}) {
    TargetGuard g(tg);
    VecT<float, 1, 8> src, dst, tmp;
    fill_rows(src, row8(), 1);
    pto::TROWSUM(dst, src, tmp);
    EXPECT_EQ(bits(dst.at(0, 0)), 0x3f800000u) << tg;
    EXPECT_EQ(bits(dst.at(0, 1)), 0u) << "only column 0 is written";
  }
}

TEST(PtoReduceKnown, RowSum256A2A3GenericVersusSpecialShapeVersusA5) {
  const std::vector<float> x = row256();
  {  // notes §7.6: a2a3 generic (ND dst) 0x489ec66a
    TargetGuard g("a2a3");
    VecT<float, 32, 256> src, tmp;
    VecT<float, 32, 8> dst;
    fill_rows(src, x, 32);
    pto::TROWSUM(dst, src, tmp);
    for (int r = 0; r < 32; ++r) ASSERT_EQ(bits(dst.at(r, 0)), 0x489ec66au) << r;
  }
  {  // notes §7.6: a2a3 special shape (static 32x256 src, DN [32,1] dst) 0x489ec668
    TargetGuard g("a2a3");
    VecT<float, 32, 256> src;
    VecT<float, 8, 128> tmp;  // 1024 floats: R*C/8
    ColT<float, 32> dst;
    fill_rows(src, x, 32);
    pto::TROWSUM(dst, src, tmp);
    for (int r = 0; r < 32; ++r) ASSERT_EQ(bits(dst.at(r, 0)), 0x489ec668u) << r;
  }
  {  // a DYNAMIC valid shape never takes the special path (TryOptimizeFP32Reduce is static)
    TargetGuard g("a2a3");
    DynT<float, 32, 256> src(32, 256);
    VecT<float, 32, 256> tmp;
    ColT<float, 32> dst;
    fill_rows(src, x, 32);
    pto::TROWSUM(dst, src, tmp);
    EXPECT_EQ(bits(dst.at(5, 0)), 0x489ec66au);
  }
  for (const char* tg : {"a5", "cpu"}) {  // notes §7.6: a5 0x489ec66a; a5/cpu never take Step 0
    TargetGuard g(tg);
    VecT<float, 32, 256> src;
    VecT<float, 1, 8> tmp;  // unused on a5 / cpu
    ColT<float, 32> dst;
    fill_rows(src, x, 32);
    pto::TROWSUM(dst, src, tmp);
    EXPECT_EQ(bits(dst.at(31, 0)), 0x489ec66au) << tg;
  }
}

TEST(PtoReduceKnown, RowSum128And200A2A3VersusA5) {
  // notes §7.6: 128 elements a2a3 0x486543b0 (generic = special 64x128), a5 0x486543b1;
  // 200 elements a2a3 0x486dfe84, a5 0x486dfe85
  struct Row {
    const char* target;
    int n;
    uint32_t expect;
  };
  for (const Row& k :
       {Row{"a2a3", 128, 0x486543b0u}, Row{"a5", 128, 0x486543b1u}, Row{"cpu", 128, 0x486543b1u},
        Row{"a2a3", 200, 0x486dfe84u}, Row{"a5", 200, 0x486dfe85u}}) {
    TargetGuard g(k.target);
    DynT<float, 64, 256> src(64, k.n), tmp(64, 256);
    ColT<float, 64> dst;
    fill_rows(src, row256(size_t(k.n)), 64);
    pto::TROWSUM(dst, src, tmp);
    EXPECT_EQ(bits(dst.at(63, 0)), k.expect) << k.target << " " << k.n;
  }
  TargetGuard g("a2a3");
  VecT<float, 64, 128> src, tmp;
  ColT<float, 64> dst;
  fill_rows(src, row256(128), 64);
  pto::TROWSUM(dst, src, tmp);  // the special 64x128 path gives the same bits here
  EXPECT_EQ(bits(dst.at(0, 0)), 0x486543b0u);
}

TEST(PtoReduceKnown, NegativeZeroRowsAndHalfOverflow) {
  // a2a3 with all 64 lanes active keeps -0 (a tree of -0s); below 64 the inactive +0 lanes, and
  // on a5 the leading 0 + (notes §7.3), give +0.
  for (auto [tg, n, expect] :
       {std::tuple{"a2a3", 64, 0x80000000u}, {"a2a3", 63, 0u}, {"a5", 64, 0u}, {"cpu", 8, 0u}}) {
    TargetGuard g(tg);
    DynT<float, 8, 64> src(8, n), tmp(8, 64);
    VecT<float, 8, 8> dst;
    for (int j = 0; j < 64; ++j) src.at(3, j) = -0.0f;
    pto::TROWSUM(dst, src, tmp);
    EXPECT_EQ(bits(dst.at(3, 0)), expect) << tg << " " << n;
  }
  // half nodes round to half: 128 lanes of 60000 overflow to +Inf at the first level (spec 15
  // §1 add, no saturation in PTO); a NaN gives the canonical 0x7E00.
  for (const char* tg : {"a2a3", "a5"}) {
    TargetGuard g(tg);
    VecT<pto::half, 2, 128> src, tmp;
    VecT<pto::half, 2, 16> dst;
    for (int j = 0; j < 128; ++j)
      src.at(0, j) = pto::half(60000.0f), src.at(1, j) = pto::half(1.0f);
    src.at(1, 77).bits = 0x7D01;  // a signalling NaN payload
    pto::TROWSUM(dst, src, tmp);
    EXPECT_EQ(dst.at(0, 0).bits, 0x7C00) << tg;
    EXPECT_EQ(dst.at(1, 0).bits, 0x7E00) << tg;
  }
}

TEST(PtoReduceKnown, ColSumOrdersAndIsBinary) {
  // notes §7.6, one column of 7: a2a3 sequential 3.0, a2a3 isBinary 7.0, a5 default 7.0,
  // a5 isBinary 6.0 (cpu as a5, spec 21 §5); the exact sum is 7.
  const std::vector<float> col = {16777216.0f, 1, 1, 1, 1, -16777216.0f, 3};
  struct Row {
    const char* target;
    int form;  // 0: TCOLSUM(dst, src); 1: (dst, src, tmp, false); 2: (dst, src, tmp, true)
    float expect;
  };
  for (const Row& k :
       {Row{"a2a3", 0, 3.0f}, Row{"a2a3", 1, 3.0f}, Row{"a2a3", 2, 7.0f}, Row{"a5", 0, 7.0f},
        Row{"a5", 1, 7.0f}, Row{"a5", 2, 6.0f}, Row{"cpu", 0, 7.0f}, Row{"cpu", 2, 6.0f}}) {
    TargetGuard g(k.target);
    VecT<float, 7, 8> src;
    VecT<float, 1, 8> dst;
    VecT<float, 3, 8> tmp;  // floor(7/2) rows
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 8; ++j) src.at(i, j) = j == 2 ? col[i] : float(i);
    if (k.form == 0)
      pto::TCOLSUM(dst, src);
    else
      pto::TCOLSUM(dst, src, tmp, k.form == 2);
    EXPECT_EQ(dst.at(0, 2), k.expect) << k.target << " form " << k.form;
    EXPECT_EQ(dst.at(0, 5), 21.0f);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(bits(tmp.at(i, 2)), 0u) << "tmp is left unchanged";
  }
  // a5 isBinary with one row: s_0 + 0, so -0 becomes +0; a2a3 copies the row.
  for (auto [tg, expect] : {std::pair{"a2a3", 0x80000000u}, {"a5", 0u}}) {
    TargetGuard g(tg);
    VecT<float, 1, 8> src, dst, tmp;
    src.at(0, 0) = -0.0f;
    dst.at(0, 0) = 5.0f;
    pto::TCOLSUM(dst, src, tmp, true);
    EXPECT_EQ(bits(dst.at(0, 0)), expect) << tg;
  }
}

TEST(PtoReduceKnown, ColSumEmptyIsANoOpAndMaxMinFold) {
  TargetGuard g("a2a3");
  DynT<float, 4, 8> src(0, 8), dst(1, 8);
  dst.at(0, 0) = 9.0f;
  pto::TCOLSUM(dst, src);  // TCOLSUM.md: validRow 0 returns early
  EXPECT_EQ(dst.at(0, 0), 9.0f);
  VecT<float, 4, 8> s;
  VecT<float, 1, 8> d;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) s.at(i, j) = float((i * 5 + j * 3) % 7) - 3.0f;
  s.at(1, 4) = -0.0f, s.at(2, 4) = 0.0f, s.at(0, 4) = -1.0f, s.at(3, 4) = -2.0f;
  s.at(2, 6) = bits_to_f32(0xFFC12345u);
  pto::TCOLMAX(d, s);
  EXPECT_EQ(bits(d.at(0, 4)), 0u);           // max(-0, +0) = +0
  EXPECT_EQ(bits(d.at(0, 6)), 0x7FC00000u);  // NaN in, canonical NaN out
  pto::TCOLMIN(d, s);
  EXPECT_EQ(d.at(0, 4), -2.0f);
  VecT<int16_t, 3, 16> i16;
  VecT<int16_t, 1, 16> i16d;
  i16.at(0, 0) = 32767, i16.at(1, 0) = 2, i16.at(2, 0) = -5;
  pto::TCOLSUM(i16d, i16);  // wraps (spec 15 §1)
  EXPECT_EQ(i16d.at(0, 0), int16_t(32767 + 2 - 5 - 65536));
}

TEST(PtoReduceKnown, RowMaxMinAndIntegerSums) {
  for (const char* tg : {"a2a3", "a5"}) {
    TargetGuard g(tg);
    VecT<float, 2, 200> src, tmp;
    VecT<float, 2, 8> mx, mn;
    for (int j = 0; j < 200; ++j) src.at(0, j) = float(j % 37) - 18.0f, src.at(1, j) = -0.0f;
    src.at(1, 150) = 0.0f;
    pto::TROWMAX(mx, src, tmp);
    pto::TROWMIN(mn, src, tmp);
    EXPECT_EQ(mx.at(0, 0), 18.0f);
    EXPECT_EQ(mn.at(0, 0), -18.0f);
    EXPECT_EQ(bits(mx.at(1, 0)), 0u);           // max(-0, +0) = +0
    EXPECT_EQ(bits(mn.at(1, 0)), 0x80000000u);  // min(-0, +0) = -0
    VecT<int32_t, 1, 24> si, st;
    VecT<int32_t, 1, 8> sd;
    for (int j = 0; j < 24; ++j) si.at(0, j) = j == 3 ? INT32_MAX : j;
    pto::TROWSUM(sd, si, st);  // exact mod 2^32
    EXPECT_EQ(sd.at(0, 0), int32_t(uint32_t(INT32_MAX) + uint32_t(276 - 3)));
  }
}

TEST(PtoReduceKnown, ArgMaxTiesNaNAndValueForms) {
  for (const char* tg : {"a2a3", "a5", "cpu"}) {
    TargetGuard g(tg);
    VecT<float, 3, 8> src;
    VecT<float, 3, 8> tmp;
    pto::Tile<pto::TileType::Vec, uint32_t, 8, 1, pto::BLayout::ColMajor, 3, 1> idx;
    pto::Tile<pto::TileType::Vec, float, 8, 1, pto::BLayout::ColMajor, 3, 1> val;
    const float row0[8] = {1, 3, 3, 2, -1, 0, 3, 1};
    for (int j = 0; j < 8; ++j) {
      src.at(0, j) = row0[j];
      src.at(1, j) = 4.0f;
      src.at(2, j) = float(j);
    }
    src.at(1, 2) = -0.0f, src.at(1, 5) = 0.0f, src.at(1, 6) = -3.0f;
    src.at(2, 3) = bits_to_f32(0xFFC12345u), src.at(2, 6) = bits_to_f32(0x7FC00000u);
    pto::TROWARGMAX(idx, src, tmp);
    EXPECT_EQ(idx.at(0, 0), 1u) << "ties: the smallest index (spec 15 §3)";
    EXPECT_EQ(idx.at(2, 0), 3u) << "the first NaN wins (ops::arg_reduce)";
    pto::TROWARGMIN(val, idx, src, tmp);
    EXPECT_EQ(idx.at(0, 0), 4u);
    EXPECT_EQ(val.at(0, 0), -1.0f);
    EXPECT_EQ(idx.at(1, 0), 6u);
    EXPECT_EQ(idx.at(2, 0), 3u);
    EXPECT_EQ(bits(val.at(2, 0)), 0x7FC00000u) << "a NaN value is written canonical";
    src.at(1, 6) = 5.0f;
    pto::TROWARGMIN(val, idx, src, tmp);
    EXPECT_EQ(idx.at(1, 0), 2u) << "-0 and +0 tie";
    EXPECT_EQ(bits(val.at(1, 0)), 0x80000000u);
  }
  // TCOLARGMAX: index form u32; the value form of a 2-byte src takes a u16 index.
  for (const char* tg : {"a2a3", "a5"}) {
    TargetGuard g(tg);
    VecT<pto::half, 5, 16> src, tmp;
    VecT<uint32_t, 1, 16> idx;
    VecT<uint16_t, 1, 16> idx16;
    VecT<pto::half, 1, 16> val;
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 16; ++j) src.at(i, j) = pto::half(float((i * 7 + j) % 5));
    pto::TCOLARGMAX(idx, src, tmp);
    pto::TCOLARGMIN(val, idx16, src, tmp);
    for (int j = 0; j < 16; ++j) {
      int best = 0, worst = 0;
      for (int i = 1; i < 5; ++i) {
        if (float(src.at(i, j)) > float(src.at(best, j))) best = i;
        if (float(src.at(i, j)) < float(src.at(worst, j))) worst = i;
      }
      EXPECT_EQ(idx.at(0, j), uint32_t(best)) << j;
      EXPECT_EQ(idx16.at(0, j), uint16_t(worst)) << j;
      EXPECT_EQ(val.at(0, j).bits, src.at(worst, j).bits) << j;
    }
  }
}

// ---- rejections: one per rule, the message names instruction / operand / rule, dst and tmp
// untouched ----

struct Tiles {
  std::vector<HostTile*> all;
  std::vector<std::vector<uint8_t>> before;
  explicit Tiles(std::initializer_list<HostTile*> ts) : all(ts) {
    for (HostTile* t : all) {
      for (size_t i = 0; i < t->bytes.size(); ++i) t->bytes[i] = uint8_t(0xA5 ^ i);
      before.push_back(t->bytes);
    }
  }
};

void expect_reject(const Call& call, const Target& t, const Tiles& k, const std::string& needle,
                   tilesim::ErrorCode code = tilesim::ErrorCode::Constraint) {
  try {
    execute(call, t, Ub{});
    ADD_FAILURE() << "not rejected: " << needle;
  } catch (const tilesim::Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(tilesim::pto::instr_info(call.instr).name + std::string(": "), 0), 0u) << m;
    EXPECT_NE(m.find(needle), std::string::npos) << m;
    EXPECT_NE(m.find("[docs/pto-instructions.md#reductions]"), std::string::npos) << m;
    EXPECT_EQ(e.code(), code) << m;
  }
  for (size_t i = 0; i < k.all.size(); ++i) EXPECT_EQ(k.all[i]->bytes, k.before[i]) << "tile " << i;
}

TEST(PtoReduceReject, RowDstLayout) {
  HostTile src(Elem::f32, 8, 16, true), dst(Elem::f32, 8, 2, false), tmp(Elem::f32, 8, 16, true);
  Tiles k{&dst, &tmp};
  expect_reject({.instr = Instr::TROWSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, A2, k,
                "dst must be ND (RowMajor, NoneBox) or DN (ColMajor, NoneBox) with Cols == 1, got "
                "DN (ColMajor) with Cols == 2");
}

// cpu (the vendor CPU simulator's legality): a row reduction writes dst(i, 0) of any layout, as
// pto-isa's flash-attention CPU demo does into a 64 x 64 ColMajor tile; a2a3 and a5 still reject.
TEST(PtoReduce, CpuRowDstAnyLayoutWritesColumnZero) {
  HostTile src(Elem::f32, 8, 16, true), dst(Elem::f32, 8, 8, false), tmp(Elem::f32, 8, 16, true);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) src.set<float>(r, c, float((r * 7 + c * 5) % 23) - 11.0f);
  std::fill(dst.bytes.begin(), dst.bytes.end(), uint8_t(0x7F));
  const std::vector<uint8_t> before = dst.bytes;
  execute({.instr = Instr::TROWMAX, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, CPU, Ub{});
  for (int r = 0; r < 8; ++r) {
    float want = src.get<float>(r, 0);
    for (int c = 1; c < 16; ++c) want = std::max(want, src.get<float>(r, c));
    EXPECT_EQ(dst.get<float>(r, 0), want) << r;
    for (int c = 1; c < 8; ++c)
      EXPECT_EQ(std::memcmp(dst.at(r, c), before.data() + (c * 8 + r) * 4, 4), 0);
  }
  Tiles k{&dst, &tmp};
  for (const Target* t : {&A2, &A5})
    expect_reject({.instr = Instr::TROWMAX, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, *t, k,
                  "dst must be ND (RowMajor, NoneBox) or DN (ColMajor, NoneBox) with Cols == 1");
}

TEST(PtoReduceReject, RowSrcNotND) {
  HostTile src(Elem::f32, 8, 8, false), dst(Elem::f32, 8, 8, true), tmp(Elem::f32, 8, 8, true);
  Tiles k{&dst, &tmp};
  expect_reject({.instr = Instr::TROWMAX, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, A5, k,
                "src must be RowMajor with SLayout::NoneBox (ND), got ColMajor");
}

TEST(PtoReduceReject, RowDtypeMismatchAndTarget) {
  HostTile src(Elem::f32, 8, 8, true), dst(Elem::s32, 8, 8, true), tmp(Elem::f32, 8, 8, true);
  Tiles k{&dst, &tmp};
  expect_reject({.instr = Instr::TROWSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, A2, k,
                "dst and src must have the same dtype, got s32 and fp32");
  HostTile s64(Elem::s64, 8, 8, true), d64(Elem::s64, 8, 8, true);
  Tiles k2{&d64, &tmp};
  expect_reject({.instr = Instr::TROWSUM, .dst = &d64.d, .src0 = &s64.d, .tmp = &tmp.d}, A2, k2,
                "src dtype s64 is not supported on target a2a3", tilesim::ErrorCode::Unsupported);
}

TEST(PtoReduceReject, RowZeroValidShape) {
  HostTile src(Elem::f32, 8, 8, true, 8, 0), dst(Elem::f32, 8, 8, true), tmp(Elem::f32, 8, 8, true);
  Tiles k{&dst, &tmp};
  expect_reject({.instr = Instr::TROWSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, A5, k,
                "src valid shape must be non-zero, got 8x0");
}

TEST(PtoReduceReject, RowValidRowMismatch) {
  HostTile src(Elem::f32, 8, 8, true), dst(Elem::f32, 8, 1, false, 7, 1),
      tmp(Elem::f32, 8, 8, true);
  Tiles k{&dst, &tmp};
  expect_reject({.instr = Instr::TROWMIN, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, A2, k,
                "dst validRow must equal src validRow 8, got 7");
}

TEST(PtoReduceReject, RowTmpBetweenOneAndTwoRepeats) {
  // 64 < C < 128 with tmp Cols < 64: the a2a3 backend returns without writing dst
  // (TRowReduceOps.hpp); tilesim rejects it instead.
  HostTile src(Elem::f32, 4, 128, true, 4, 100), dst(Elem::f32, 8, 1, false, 4, 1);
  HostTile tmp(Elem::f32, 4, 56, true);
  Tiles k{&dst, &tmp};
  expect_reject({.instr = Instr::TROWSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, A2, k,
                "tmp must have Cols >= 64 (one repeat of fp32) when 64 < validCol < 128, got Cols "
                "== 56 (the a2a3 backend would silently do nothing)");
}

TEST(PtoReduceReject, RowTmpTooNarrowForTheChunkPairs) {
  // C = 512 fp32: n = 8 chunks, FillTmp writes 4 chunk pairs per row (notes §7.4).
  HostTile src(Elem::f32, 2, 512, true), dst(Elem::f32, 2, 8, true), tmp(Elem::f32, 2, 128, true);
  Tiles k{&dst, &tmp};
  expect_reject({.instr = Instr::TROWSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, A2, k,
                "tmp must have Rows >= 2 and Cols >= 256 on a2a3 (floor(floor(C/E)/2) repeats per "
                "row), got 2x128");
  HostTile tmp2(Elem::f32, 1, 256, true);
  Tiles k2{&dst, &tmp2};
  expect_reject({.instr = Instr::TROWMAX, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp2.d}, A2, k2,
                "tmp must have Rows >= 2 and Cols >= 64 on a2a3 (one repeat per row), got 1x256");
}

TEST(PtoReduceReject, RowTmpOfTheSpecialShape) {
  HostTile src(Elem::f32, 64, 128, true), dst(Elem::f32, 64, 1, false),
      tmp(Elem::f32, 4, 128, true);
  Tiles k{&dst, &tmp};
  expect_reject({.instr = Instr::TROWSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, A2, k,
                "tmp must hold at least 1024 elements on a2a3 (the special fp32 shape writes R*C/8 "
                "block sums from tmp's start), got 4x128 = 512");
}

TEST(PtoReduceReject, RowTmpDtypeLocationAndPresence) {
  HostTile src(Elem::f16, 4, 256, true), dst(Elem::f16, 4, 16, true), tmp(Elem::f32, 4, 256, true);
  Tiles k{&dst, &tmp};
  expect_reject({.instr = Instr::TROWSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, A2, k,
                "tmp must have src's dtype fp16 on a2a3, got fp32");
  HostTile mat(Elem::f16, 4, 256, true);
  mat.d.loc = 1;
  Tiles k2{&dst, &mat};
  expect_reject({.instr = Instr::TROWSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &mat.d}, A2, k2,
                "tmp must be a TileType::Vec tile, got Mat");
  expect_reject({.instr = Instr::TROWSUM, .dst = &dst.d, .src0 = &src.d}, A2, k2,
                "a tmp tile is required on a2a3");
  // a5 and cpu accept any tmp, unchecked and unwritten (spec 21 §5)
  for (const Target* t : {&A5, &CPU}) {
    execute({.instr = Instr::TROWSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, *t, Ub{});
    execute({.instr = Instr::TROWSUM, .dst = &dst.d, .src0 = &src.d}, *t, Ub{});
  }
  EXPECT_EQ(tmp.bytes, k.before[1]);
}

TEST(PtoReduceReject, ColDstNotND) {
  HostTile src(Elem::f32, 4, 8, true), dst(Elem::f32, 8, 8, false, 1, 8);
  Tiles k{&dst};
  expect_reject({.instr = Instr::TCOLSUM, .dst = &dst.d, .src0 = &src.d}, A2, k,
                "dst must be RowMajor with SLayout::NoneBox (ND), got ColMajor");
}

TEST(PtoReduceReject, ColValidColMismatch) {
  HostTile src(Elem::f32, 4, 8, true), dst(Elem::f32, 1, 8, true, 1, 6);
  Tiles k{&dst};
  expect_reject({.instr = Instr::TCOLMAX, .dst = &dst.d, .src0 = &src.d}, A5, k,
                "dst validCol must equal src validCol 8, got 6");
}

TEST(PtoReduceReject, ColDtypeNotOnTarget) {
  HostTile src(Elem::u8, 4, 32, true), dst(Elem::u8, 1, 32, true);
  Tiles k{&dst};
  expect_reject({.instr = Instr::TCOLSUM, .dst = &dst.d, .src0 = &src.d}, A2, k,
                "src dtype u8 is not supported on target a2a3", tilesim::ErrorCode::Unsupported);
}

TEST(PtoReduceReject, ColBinaryTmpRows) {
  HostTile src(Elem::f32, 9, 8, true), dst(Elem::f32, 1, 8, true), tmp(Elem::f32, 3, 8, true);
  Tiles k{&dst, &tmp};
  Call call{
      .instr = Instr::TCOLSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d, .is_binary = true};
  expect_reject(call, A2, k,
                "isBinary: tmp must have Rows >= floor(validRow/2) = 4 and a row stride (Cols) >= "
                "validCol = 8 on a2a3, got 3x8");
  call.is_binary = false;  // the sequential form does not use tmp's rows
  execute(call, A2, Ub{});
  call.is_binary = true;  // a5 does not check tmp (spec 21 §5)
  execute(call, A5, Ub{});
  EXPECT_EQ(tmp.bytes, k.before[1]);
}

TEST(PtoReduceReject, ColBinaryTmpStride) {
  HostTile src(Elem::f16, 4, 32, true, 4, 20), dst(Elem::f16, 1, 32, true, 1, 20);
  HostTile tmp(Elem::f16, 2, 16, true);
  Tiles k{&dst, &tmp};
  expect_reject(
      {.instr = Instr::TCOLSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d, .is_binary = true},
      A2, k, "a row stride (Cols) >= validCol = 20 on a2a3, got 2x16");
}

TEST(PtoReduceReject, ColTmpDtype) {
  HostTile src(Elem::f32, 4, 8, true), dst(Elem::f32, 1, 8, true), tmp(Elem::s32, 4, 8, true);
  Tiles k{&dst, &tmp};
  expect_reject({.instr = Instr::TCOLSUM, .dst = &dst.d, .src0 = &src.d, .tmp = &tmp.d}, A2, k,
                "tmp must have src's dtype fp32 on a2a3, got s32");
}

TEST(PtoReduceReject, RowArgIndexDtype) {
  HostTile src(Elem::f32, 8, 8, true), idx(Elem::f32, 8, 1, false), tmp(Elem::f32, 8, 8, true);
  Tiles k{&idx, &tmp};
  expect_reject({.instr = Instr::TROWARGMAX, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &idx.d}, A2,
                k, "dstIdx dtype must be u32 or s32, got fp32");
  HostTile h(Elem::f16, 16, 16, true), i16(Elem::u16, 16, 1, false), ht(Elem::f16, 16, 16, true);
  Tiles k2{&i16, &ht};
  expect_reject({.instr = Instr::TROWARGMIN, .src0 = &h.d, .tmp = &ht.d, .dst_idx = &i16.d}, A5, k2,
                "dstIdx dtype must be u32 or s32, got u16");  // u16 only in the value form
}

TEST(PtoReduceReject, RowArgIndexLayout) {
  HostTile src(Elem::f32, 8, 8, true), idx(Elem::u32, 8, 8, true, 8, 2), tmp(Elem::f32, 8, 8, true);
  Tiles k{&idx, &tmp};
  expect_reject({.instr = Instr::TROWARGMAX, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &idx.d}, A5,
                k, "dstIdx (ND) must have validCol == 1, got 2");
  HostTile dn(Elem::u32, 8, 2, false);
  Tiles k2{&dn};
  expect_reject({.instr = Instr::TROWARGMAX, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &dn.d}, A5,
                k2,
                "dstIdx must be ND (RowMajor, NoneBox) or DN (ColMajor, NoneBox) with Cols == 1");
}

TEST(PtoReduceReject, RowArgValueTile) {
  HostTile src(Elem::f32, 8, 8, true), idx(Elem::u32, 8, 1, false), val(Elem::s32, 8, 1, false);
  HostTile tmp(Elem::f32, 8, 8, true);
  Tiles k{&idx, &val, &tmp};
  expect_reject(
      {.instr = Instr::TROWARGMAX, .dst = &val.d, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &idx.d},
      A2, k, "dstVal and src must have the same dtype, got s32 and fp32");
  HostTile v7(Elem::f32, 8, 1, false, 7, 1);
  Tiles k2{&idx, &v7};
  expect_reject(
      {.instr = Instr::TROWARGMAX, .dst = &v7.d, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &idx.d},
      A2, k2, "dstVal validRow must equal src validRow 8, got 7");
}

TEST(PtoReduceReject, RowArgShape) {
  HostTile src(Elem::f32, 8, 8, true, 0, 8), idx(Elem::u32, 8, 1, false),
      tmp(Elem::f32, 8, 8, true);
  Tiles k{&idx, &tmp};
  expect_reject({.instr = Instr::TROWARGMIN, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &idx.d}, A2,
                k, "src valid shape must be non-zero, got 0x8");
  HostTile s2(Elem::f32, 8, 8, true, 6, 8);
  Tiles k2{&idx, &tmp};
  expect_reject({.instr = Instr::TROWARGMIN, .src0 = &s2.d, .tmp = &tmp.d, .dst_idx = &idx.d}, A2,
                k2, "dstIdx validRow must equal src validRow 6, got 8");
}

TEST(PtoReduceReject, RowArgA2A3Tmp) {
  // TROWARGMAX.md: case 1 value form 2 elements per row; case 2 (E < C <= E^2) stride
  // (ceil(2*R1/epb) + ceil(R1/epb)) * epb; case 3 max(...) + 2.
  HostTile src(Elem::f32, 16, 8, true), idx(Elem::u32, 16, 1, false), val(Elem::f32, 16, 1, false);
  HostTile t1(Elem::f32, 1, 8, true);
  Tiles k{&idx, &val, &t1};
  expect_reject(
      {.instr = Instr::TROWARGMAX, .dst = &val.d, .src0 = &src.d, .tmp = &t1.d, .dst_idx = &idx.d},
      A2, k,
      "tmp must hold at least 32 elements on a2a3 (2 elements per src row when "
      "validCol <= E), got 1x8 = 8");
  execute({.instr = Instr::TROWARGMAX, .src0 = &src.d, .tmp = &t1.d, .dst_idx = &idx.d}, A2, Ub{});
  HostTile s2(Elem::f32, 2, 200, true), i2(Elem::u32, 8, 1, false, 2, 1), t2(Elem::f32, 2, 8, true);
  Tiles k2{&i2, &t2};
  expect_reject(
      {.instr = Instr::TROWARGMAX, .src0 = &s2.d, .tmp = &t2.d, .dst_idx = &i2.d}, A2, k2,
      "tmp must have Rows >= 2 and Cols >= 16 on a2a3 (TROWARGMAX.md stage 1 stride), got "
      "2x8");
  HostTile s3(Elem::f32, 1, 4160, true), i3(Elem::u32, 8, 1, false, 1, 1),
      t3(Elem::f32, 1, 16, true);
  Tiles k3{&i3, &t3};
  expect_reject({.instr = Instr::TROWARGMAX, .src0 = &s3.d, .tmp = &t3.d, .dst_idx = &i3.d}, A2, k3,
                "Cols >= 138 on a2a3 (TROWARGMAX.md stage 2 stride), got 1x16");
}

TEST(PtoReduceReject, ColArgIndexShape) {
  HostTile src(Elem::f32, 4, 8, true), idx(Elem::u32, 2, 8, true), tmp(Elem::f32, 1, 64, true);
  Tiles k{&idx, &tmp};
  expect_reject({.instr = Instr::TCOLARGMAX, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &idx.d}, A2,
                k, "dstIdx valid shape must be 1 x src validCol = 1x8, got 2x8");
  HostTile i2(Elem::u32, 1, 8, true, 1, 7);
  Tiles k2{&i2};
  expect_reject({.instr = Instr::TCOLARGMAX, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &i2.d}, A2,
                k2, "got 1x7");
  HostTile cm(Elem::u32, 8, 8, false, 1, 8);
  Tiles k3{&cm};
  expect_reject({.instr = Instr::TCOLARGMIN, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &cm.d}, A5,
                k3, "dstIdx must be RowMajor with SLayout::NoneBox (ND), got ColMajor");
}

TEST(PtoReduceReject, ColArgValueFormDtypes) {
  HostTile src(Elem::f16, 4, 16, true), idx(Elem::u32, 1, 16, true), val(Elem::f16, 1, 16, true);
  HostTile tmp(Elem::f16, 1, 128, true);
  Tiles k{&idx, &val, &tmp};
  expect_reject(
      {.instr = Instr::TCOLARGMAX, .dst = &val.d, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &idx.d},
      A2, k, "dstIdx dtype must be u16 or s16 for a 2-byte src (value form), got u32");
  HostTile s8(Elem::s8, 4, 32, true), i8(Elem::u16, 1, 32, true), v8(Elem::s8, 1, 32, true);
  Tiles k2{&i8, &v8};
  expect_reject(
      {.instr = Instr::TCOLARGMAX, .dst = &v8.d, .src0 = &s8.d, .tmp = &tmp.d, .dst_idx = &i8.d},
      A5, k2, "the value form takes no 8-bit src, got s8", tilesim::ErrorCode::Unsupported);
  HostTile si(Elem::s32, 4, 8, true), ii(Elem::u32, 1, 8, true);
  Tiles k3{&ii};
  expect_reject({.instr = Instr::TCOLARGMAX, .src0 = &si.d, .tmp = &tmp.d, .dst_idx = &ii.d}, A2,
                k3, "src dtype s32 is not supported on target a2a3",
                tilesim::ErrorCode::Unsupported);
}

TEST(PtoReduceReject, ColArgA2A3Tmp) {
  // TCOLARGMAX.md: tmpGapEles = E when C >= E; a 2-byte index form needs the page's stride.
  HostTile src(Elem::f32, 4, 128, true, 4, 100), idx(Elem::u32, 1, 128, true, 1, 100);
  HostTile tmp(Elem::f32, 1, 32, true);
  Tiles k{&idx, &tmp};
  expect_reject({.instr = Instr::TCOLARGMAX, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &idx.d}, A2,
                k,
                "tmp must hold at least 64 elements on a2a3 (TCOLARGMAX.md: tmpGapEles), got "
                "1x32 = 32");
  HostTile h(Elem::f16, 2, 16, true, 2, 5), hi(Elem::u32, 1, 8, true, 1, 5),
      ht(Elem::f16, 1, 16, true);
  Tiles k2{&hi, &ht};
  expect_reject({.instr = Instr::TCOLARGMAX, .src0 = &h.d, .tmp = &ht.d, .dst_idx = &hi.d}, A2, k2,
                "tmp must hold at least 32 elements on a2a3 (TCOLARGMAX.md: 2-byte index form)");
  execute({.instr = Instr::TCOLARGMAX, .src0 = &h.d, .tmp = &ht.d, .dst_idx = &hi.d}, A5, Ub{});
}

TEST(PtoReduceReject, ColArgBoxedSrc) {
  HostTile src(Elem::f32, 16, 16, true), idx(Elem::u32, 1, 16, true), tmp(Elem::f32, 1, 64, true);
  src.d.slayout = 1;
  Tiles k{&idx, &tmp};
  expect_reject({.instr = Instr::TCOLARGMAX, .src0 = &src.d, .tmp = &tmp.d, .dst_idx = &idx.d}, A5,
                k, "src must be ND or DN with SLayout::NoneBox, got a boxed layout");
}

// ---- the fast path against the reference and the model: random and edge tiles ----

uint16_t dtypes_on(Instr i, const Target& t) {
  const auto& info = tilesim::pto::instr_info(i);
  return t.kind == tilesim::pto::TargetKind::a2a3 ? info.a2a3
         : t.kind == tilesim::pto::TargetKind::a5 ? info.a5
                                                  : uint16_t(info.a2a3 | info.a5);
}

// Runs `call` (dst tiles in outs) with the fast path on 1 and 2 threads and the reference path,
// and the fast path on one thread once more on every other SIMD target Highway compiled and this
// machine runs (the whole-tile reduction kernels of src/ops are per target); all must agree on
// every byte of every output; returns the fast result.
std::vector<std::vector<uint8_t>> run_all(Call call, const Target& t, std::vector<HostTile*> outs) {
  std::vector<std::vector<uint8_t>> init, res[3];
  for (HostTile* o : outs) init.push_back(o->bytes);
  const std::pair<Path, size_t> modes[3] = {{Path::Fast, 1}, {Path::Fast, 2}, {Path::Reference, 2}};
  auto run = [&](Path p, size_t threads) {
    for (size_t i = 0; i < outs.size(); ++i) outs[i]->bytes = init[i];
    tilesim::set_num_threads(threads);
    execute(call, t, Ub{}, p);
    std::vector<std::vector<uint8_t>> r;
    for (HostTile* o : outs) r.push_back(o->bytes);
    return r;
  };
  for (int m = 0; m < 3; ++m) res[m] = run(modes[m].first, modes[m].second);
  ops_test::every_target([&] { EXPECT_EQ(run(Path::Fast, 1), res[2]) << "fast vs reference"; });
  tilesim::set_num_threads(0);
  EXPECT_EQ(res[0], res[1]) << "threads";
  EXPECT_EQ(res[0], res[2]) << "fast vs reference";
  return res[0];
}

V row_codes(HostTile& s, int r, int C) {
  V v;
  for (int j = 0; j < C; ++j)
    v.push_back(s.sz() == 4 ? s.get<uint32_t>(r, j) : uint32_t(s.get<uint16_t>(r, j)));
  return v;
}

TEST(PtoReduceDiff, RowSumsFastEqualsReferenceEqualsModel) {
  std::mt19937 g(11);
  // Column counts for every step of both orders: one repeat or less, E < C < 2E, odd chunk
  // counts, odd TmpProc levels (fp32 645: cur 5; 849: 6 -> 3; 1408: 11 -> 5 -> 2; fp16 2900: 11),
  // remainders; 300x300 runs on several threads.
  const std::pair<int, int> shapes[] = {
      {5, 1},   {5, 7},   {5, 64},  {5, 65},   {5, 100},  {5, 127},  {5, 128},
      {5, 129}, {5, 200}, {5, 256}, {5, 300},  {5, 384},  {5, 448},  {5, 520},
      {5, 645}, {5, 849}, {5, 896}, {5, 1000}, {3, 1408}, {3, 2900}, {300, 300}};
  size_t runs = 0;
  for (const Target* t : {&A2, &A5, &CPU})
    for (Elem e : {Elem::f32, Elem::f16})
      for (auto [R, C] : shapes) {
        const int Cs = (C + 31) / 32 * 32, Rs = (R + 15) / 16 * 16;
        HostTile src(e, R, Cs, true, R, C), tmp(e, R, Cs, true);
        HostTile dn(e, Rs, 1, false, R, 1);  // DN [Rs, 1], valid rows R
        fill_random(g, e, src.bytes.data(), src.bytes.size() / src.sz());  // row 0: edges
        for (int r = 1; r < R; ++r)  // moderate values: sums that round, not overflow or NaN
          for (int j = 0; j < C; ++j) {
            if (e == Elem::f32)
              src.set<float>(r, j, std::ldexp(float(int(g() % 2001) - 1000), int(g() % 30) - 15));
            else
              src.set<uint16_t>(r, j, uint16_t((g() & 0x8000) | (0x2000 + g() % 0x3000)));
          }
        const auto out = run_all(
            {.instr = Instr::TROWSUM, .dst = &dn.d, .src0 = &src.d, .tmp = &tmp.d}, *t, {&dn});
        for (int r = 0; r < R; ++r) {
          const V x = row_codes(src, r, C);
          uint32_t want;
          if (e == Elem::f32)
            want = t == &A2 ? a2a3_rowsum<F32>(x) : a5_rowsum<F32>(x);
          else
            want = t == &A2 ? a2a3_rowsum<F16>(x) : a5_rowsum<F16>(x);
          uint32_t got = 0;
          std::memcpy(&got, out[0].data() + size_t(r) * dn.sz(), dn.sz());
          ASSERT_EQ(got, want) << t->name << " " << elem_name(e) << " C=" << C << " row " << r;
          ++runs;
        }
      }
  EXPECT_GT(runs, 2000u);
}

TEST(PtoReduceDiff, SpecialShapesFastEqualsReferenceEqualsModel) {
  std::mt19937 g(12);
  const int shapes[4][2] = {{64, 128}, {32, 256}, {16, 512}, {8, 1024}};
  for (auto [R, C] : shapes) {
    HostTile src(Elem::f32, R, C, true), dn(Elem::f32, R, 1, false), tmp(Elem::f32, 8, 128, true);
    HostTile nd(Elem::f32, R, 8, true, R, 1);
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < C; ++j)
        src.set<float>(r, j, std::ldexp(float(int(g() % 20001) - 10000), int(g() % 40) - 20));
    const auto special =
        run_all({.instr = Instr::TROWSUM, .dst = &dn.d, .src0 = &src.d, .tmp = &tmp.d}, A2, {&dn});
    HostTile big(Elem::f32, R, C, true);
    const auto generic =
        run_all({.instr = Instr::TROWSUM, .dst = &nd.d, .src0 = &src.d, .tmp = &big.d}, A2, {&nd});
    int differ = 0;
    for (int r = 0; r < R; ++r) {
      const V x = row_codes(src, r, C);
      uint32_t s, n;
      std::memcpy(&s, special[0].data() + 4 * r, 4);
      std::memcpy(&n, generic[0].data() + 4 * r * 8, 4);
      ASSERT_EQ(s, a2a3_special(x)) << R << "x" << C << " row " << r;
      ASSERT_EQ(n, a2a3_rowsum<F32>(x)) << R << "x" << C << " row " << r;
      differ += s != n;
    }
    EXPECT_GT(differ, 0) << R << "x" << C << ": the special tree is a different order";
    // TROWMAX on the same shape: the special path changes nothing (order-independent)
    run_all({.instr = Instr::TROWMAX, .dst = &dn.d, .src0 = &src.d, .tmp = &tmp.d}, A2, {&dn});
  }
}

TEST(PtoReduceDiff, ColSumsFastEqualsReferenceEqualsModel) {
  std::mt19937 g(13);
  // Odd rows at every level of both binary trees; 257 x 340 runs on several threads.
  const int rows[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 16, 17, 23, 31, 64, 100, 257};
  for (const Target* t : {&A2, &A5, &CPU})
    for (Elem e : {Elem::f32, Elem::f16})
      for (int R : rows)
        for (int binary = 0; binary < 2; ++binary) {
          const int C = 40 + R % 3 * 150;
          HostTile src(e, R, 352, true, R, C), dst(e, 1, 352, true, 1, C);
          HostTile tmp(e, std::max(R / 2, 1), 352, true);
          for (int i = 0; i < R; ++i) {  // edges in columns [0, 8), moderate values elsewhere
            fill_random(g, e, src.at(i, 0), 8);
            for (int j = 8; j < C; ++j) {
              if (e == Elem::f32)
                src.set<float>(i, j, std::ldexp(float(int(g() % 2001) - 1000), int(g() % 30) - 15));
              else
                src.set<uint16_t>(i, j, uint16_t((g() & 0x8000) | (0x2000 + g() % 0x3000)));
            }
          }
          const std::vector<uint8_t> tmp0 = tmp.bytes;
          const auto out = run_all({.instr = Instr::TCOLSUM,
                                    .dst = &dst.d,
                                    .src0 = &src.d,
                                    .tmp = &tmp.d,
                                    .is_binary = binary == 1},
                                   *t, {&dst, &tmp});
          for (int j = 0; j < C; ++j) {
            V col;
            for (int i = 0; i < R; ++i)
              col.push_back(e == Elem::f32 ? src.get<uint32_t>(i, j) : src.get<uint16_t>(i, j));
            auto model = [&](auto n) {
              using N = decltype(n);
              if (t == &A2) return binary ? col_a2a3_bin<N>(col) : col_a2a3_seq<N>(col);
              return binary ? col_a5_bin<N>(col) : col_a5_seq<N>(col);
            };
            const uint32_t want = e == Elem::f32 ? model(F32{}) : model(F16{});
            uint32_t got = 0;
            std::memcpy(&got, out[0].data() + size_t(j) * dst.sz(), dst.sz());
            ASSERT_EQ(got, want) << t->name << " " << elem_name(e) << " R=" << R << " binary "
                                 << binary << " col " << j;
          }
          EXPECT_EQ(out[1], tmp0) << "tmp unchanged";
        }
}

// An independent arg reference: values as doubles (NaN first, then the first strict best).
double value_of(HostTile& s, int r, int c) {
  const Elem e = s.d.dtype;
  switch (e) {
    case Elem::f32:
      return s.get<float>(r, c);
    case Elem::f16:
      return tilesim::formats::f16_to_f32(s.get<uint16_t>(r, c));
    case Elem::bf16:
      return tilesim::formats::bf16_to_f32(s.get<uint16_t>(r, c));
    case Elem::s8:
      return s.get<int8_t>(r, c);
    case Elem::u8:
      return s.get<uint8_t>(r, c);
    case Elem::s16:
      return s.get<int16_t>(r, c);
    case Elem::u16:
      return s.get<uint16_t>(r, c);
    case Elem::s32:
      return s.get<int32_t>(r, c);
    case Elem::u32:
      return s.get<uint32_t>(r, c);
    default:
      return 0;
  }
}
size_t arg_ref(const std::vector<double>& v, bool max) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != v[i]) return i;
  size_t b = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (max ? v[i] > v[b] : v[i] < v[b]) b = i;
  return b;
}

// Copies element (r0, c0)'s bytes to (r, c).
void copy_elem(HostTile& t, int r, int c, int r0, int c0) {
  std::memcpy(t.at(r, c), t.at(r0, c0), t.sz());
}

bool is_nan_code(Elem e, uint64_t code) {
  if (e == Elem::f32) return (code & 0x7FFFFFFFu) > 0x7F800000u;
  if (e == Elem::f16) return (code & 0x7FFFu) > 0x7C00u;
  if (e == Elem::bf16) return (code & 0x7FFFu) > 0x7F80u;
  return false;
}

TEST(PtoReduceDiff, FoldsAndArgsOnEveryDtypeAndTarget) {
  std::mt19937 g(14);
  size_t runs = 0;
  for (const Target* t : {&A2, &A5, &CPU})
    for (Instr in : {Instr::TROWMAX, Instr::TROWMIN, Instr::TROWSUM, Instr::TCOLMAX, Instr::TCOLMIN,
                     Instr::TCOLSUM, Instr::TROWARGMAX, Instr::TROWARGMIN, Instr::TCOLARGMAX,
                     Instr::TCOLARGMIN})
      for (int ei = 0; ei < kNumElems; ++ei) {
        const Elem e = Elem(ei);
        if (!(dtypes_on(in, *t) & (1u << ei))) continue;
        const bool row = in == Instr::TROWMAX || in == Instr::TROWMIN || in == Instr::TROWSUM ||
                         in == Instr::TROWARGMAX || in == Instr::TROWARGMIN;
        const bool arg = in == Instr::TROWARGMAX || in == Instr::TROWARGMIN ||
                         in == Instr::TCOLARGMAX || in == Instr::TCOLARGMIN;
        const bool is_max = in == Instr::TROWMAX || in == Instr::TCOLMAX ||
                            in == Instr::TROWARGMAX || in == Instr::TCOLARGMAX;
        for (auto [R, C] : {std::pair{3, 5}, {70, 300}, {600, 150}}) {
          const int sz = int(elem_size(e)), per = 32 / sz;
          const int Cs = (C + per - 1) / per * per, Rs = (R + 31) / 32 * 32;
          HostTile src(e, R, Cs, true, R, C), tmp(e, R, std::max(Cs, 256), true);
          fill_random(g, e, src.bytes.data(), src.bytes.size() / size_t(sz));
          for (int j = 0; j < C; j += 2) copy_elem(src, 1, j, 1, 0);  // ties along row 1
          for (int i = 0; i < R; i += 2) copy_elem(src, i, 1, 0, 1);  // and down column 1
          if (elem_is_float(e))  // zeros of both signs along row 2
            for (int j = 0; j < C; ++j) {
              std::memset(src.at(2, j), 0, size_t(sz));
              if (j % 3 == 1) src.at(2, j)[sz - 1] = 0x80;
            }
          // Outputs: rows -> DN [Rs, 1]; columns -> ND [1, Cs]
          HostTile dst = row ? HostTile(e, Rs, 1, false, R, 1) : HostTile(e, 1, Cs, true, 1, C);
          for (int form = 0; form < (arg ? 2 : 1); ++form) {
            Call call{.instr = in, .src0 = &src.d, .tmp = &tmp.d};
            std::vector<HostTile*> outs{&dst};
            Elem ie = Elem::u32;
            if (arg && form == 1 && !row && sz == 2) ie = Elem::s16;  // TCOLARG value form
            if (arg && form == 1 && sz == 1) continue;                // no 8-bit value form
            HostTile idx = row ? HostTile(ie, Rs, 1, false, R, 1) : HostTile(ie, 1, Cs, true, 1, C);
            if (arg) {
              call.dst_idx = &idx.d;
              outs = {&idx};
              if (form == 1) call.dst = &dst.d, outs.push_back(&dst);
            } else {
              call.dst = &dst.d;
            }
            const auto out = run_all(call, *t, outs);
            ++runs;
            if (!arg) continue;
            for (int k = 0; k < (row ? R : C); ++k) {
              std::vector<double> v;
              for (int m = 0; m < (row ? C : R); ++m)
                v.push_back(value_of(src, row ? k : m, row ? m : k));
              const size_t want = arg_ref(v, is_max);
              uint64_t got = 0;
              std::memcpy(&got, out[0].data() + size_t(k) * idx.sz(), idx.sz());
              ASSERT_EQ(got, want) << t->name << " " << tilesim::pto::instr_info(in).name << " "
                                   << elem_name(e) << " " << R << "x" << C << " at " << k;
              if (form == 0) continue;
              uint64_t val = 0, at_idx = 0;
              std::memcpy(&val, out[1].data() + size_t(k) * size_t(sz), size_t(sz));
              std::memcpy(&at_idx, row ? src.at(k, int(want)) : src.at(int(want), k), size_t(sz));
              if (is_nan_code(e, at_idx))
                EXPECT_EQ(val, e == Elem::f32 ? 0x7FC00000u : e == Elem::f16 ? 0x7E00u : 0x7FC0u);
              else
                EXPECT_EQ(val, at_idx);
            }
          }
        }
      }
  EXPECT_GT(runs, 200u);
}

TEST(PtoReduceDiff, ColArgOfADNSourceEqualsTheNDOne) {
  // TCOLARGMAX.md: src may be ND or DN; a DN column is contiguous, so the walker differs.
  std::mt19937 g(15);
  for (const Target* t : {&A2, &A5, &CPU})
    for (Elem e : {Elem::f32, Elem::f16})
      for (Instr in : {Instr::TCOLARGMAX, Instr::TCOLARGMIN})
        for (auto [R, C] : {std::pair{32, 5}, {96, 300}, {1024, 80}}) {
          HostTile nd(e, R, (C + 15) / 16 * 16, true, R, C), dn(e, R, C, false);
          fill_random(g, e, nd.bytes.data(), nd.bytes.size() / nd.sz());
          for (int i = 0; i < R; ++i)
            for (int j = 0; j < C; ++j) std::memcpy(dn.at(i, j), nd.at(i, j), nd.sz());
          HostTile tmp(e, 1, 256, true), i1(Elem::u32, 1, (C + 7) / 8 * 8, true, 1, C), i2 = i1;
          const auto a =
              run_all({.instr = in, .src0 = &nd.d, .tmp = &tmp.d, .dst_idx = &i1.d}, *t, {&i1});
          const auto b =
              run_all({.instr = in, .src0 = &dn.d, .tmp = &tmp.d, .dst_idx = &i2.d}, *t, {&i2});
          EXPECT_EQ(a, b) << t->name << " " << elem_name(e) << " " << R << "x" << C;
        }
}

}  // namespace
