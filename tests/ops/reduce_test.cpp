// The whole-tile reduction forms of the element-op core (ops/reduce.hpp): the SIMD kernels
// (reduce_simd.cpp) against the definitions node by node (Path::Reference), on every Highway
// target this machine runs, over random and edge codes (NaN of both signs and any payload, ±0,
// subnormals, ±Inf, the largest finite values whose sums overflow), row lengths around every
// vector and group boundary, and group widths below, at and above the vector length.
#include "ops/reduce.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "every_target.hpp"

namespace {

using namespace tilesim::ops;

using ops_test::every_fp16_path;
using ops_test::every_target;

size_t width(DType t) {
  return tilesim::formats::info(t).storage_bits / 8;
}

// Codes of t: a quarter edges, the rest random codes or (floats) moderate values whose sums round.
std::vector<uint8_t> random_codes(std::mt19937_64& g, DType t, size_t n) {
  std::vector<uint64_t> edges;
  if (t == DType::fp32)
    edges = {0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001,
             1, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000};
  else if (t == DType::fp16)
    edges = {0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE05,
             1, 0x83FF, 0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00};
  else if (t == DType::bf16)
    edges = {0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC5,
             1, 0x807F, 0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80};
  else
    edges = {0, 1, ~uint64_t{0}, uint64_t{1} << (width(t) * 8 - 1),
             (uint64_t{1} << (width(t) * 8 - 1)) - 1};
  std::vector<uint8_t> buf(n * width(t));
  for (size_t i = 0; i < n; ++i) {
    uint64_t c = g();
    if (g() % 4 == 0)
      c = edges[g() % edges.size()];
    else if (t == DType::fp32)
      c = (c & 0x80000000u) | (0x38000000u + c % 0x0F000000u);
    else if (t == DType::fp16)
      c = (c & 0x8000u) | (0x2000u + c % 0x3000u);
    else if (t == DType::bf16)
      c = (c & 0x8000u) | (0x3000u + c % 0x1800u);
    store_code(t, buf.data(), i, c);
  }
  return buf;
}

// Elements [i0, i0 + n) without any edge code, so that long sums really round at every node
// instead of being NaN.
void calm(std::mt19937_64& g, DType t, std::vector<uint8_t>& buf, size_t i0, size_t n) {
  for (size_t i = i0; i < i0 + n && is_float_dtype(t); ++i) {
    const uint64_t c = g();
    store_code(t, buf.data(), i,
               t == DType::fp32   ? (c & 0x80000000u) | (0x38000000u + c % 0x0F000000u)
               : t == DType::fp16 ? (c & 0x8000u) | (0x2000u + c % 0x3000u)
                                  : (c & 0x8000u) | (0x3000u + c % 0x1800u));
  }
}

// tree_sums (chain: chained_tree_sums) of the rows at x, the fast path into fast and the
// definition into ref.
void sums_both_paths(bool chain, DType t, const std::vector<uint8_t>& x, size_t stride, size_t rows,
                     size_t n, size_t w, std::vector<uint8_t>& fast, std::vector<uint8_t>& ref,
                     bool sat = false) {
  const auto sums = chain ? chained_tree_sums : tree_sums;
  sums(t, x.data(), stride, rows, n, w, fast.data(), Path::Fast, sat);
  sums(t, x.data(), stride, rows, n, w, ref.data(), Path::Reference, sat);
}

const DType kFloats[] = {DType::fp32, DType::fp16, DType::bf16};

TEST(OpsReduceRows, TreeSumsFastEqualsReference) {
  std::mt19937_64 g(31);
  size_t runs = 0;
  every_fp16_path([&] {
    for (DType t : kFloats)
      for (size_t w : {8, 16, 32, 64, 128, 512})
        for (size_t n : {1, 5, 8, 15, 16, 17, 63, 64, 65, 100, 128, 129, 200, 256, 300, 1024})
          for (size_t rows : {1, 3, 17, 40}) {
            const size_t cols = n + 7, esz = width(t);  // a row stride past the valid length
            auto x = random_codes(g, t, rows * cols);
            if (rows > 1) calm(g, t, x, 0, cols);  // row 0 without edges
            const size_t ng = (n + w - 1) / w;
            for (int chain = 0; chain < 2; ++chain) {
              std::vector<uint8_t> fast(rows * ng * esz, 0xAB), ref(rows * ng * esz, 0xAB);
              sums_both_paths(chain, t, x, cols * esz, rows, n, w, fast, ref);
              ASSERT_EQ(fast, ref) << tilesim::formats::name(t) << " w=" << w << " n=" << n
                                   << " rows=" << rows << " chain=" << chain;
              ++runs;
            }
          }
  });
  EXPECT_GT(runs, 1000u);
}

// Every node rule on fp16 code pairs drawn from all 65536 codes (NaNs, ±Inf, subnormals, ±0 and
// sums that overflow or round): groups of 32 whose first two elements are a and b and the rest +0,
// so each root is the node a + b (then + +0), as the definition computes it, saturating or not.
TEST(OpsReduceRows, Fp16NodesOnCodePairsFastEqualsReference) {
  std::mt19937_64 g(35);
  constexpr size_t kPairs = 1 << 16, w = 32;
  std::vector<uint8_t> x(kPairs * w * 2, 0);
  for (size_t i = 0; i < kPairs; ++i) {
    const uint16_t a = uint16_t(i), b = uint16_t(g());  // every code once as a
    std::memcpy(&x[i * w * 2], &a, 2);
    std::memcpy(&x[i * w * 2 + 2], &b, 2);
  }
  every_fp16_path([&] {
    for (bool sat : {false, true})
      for (int chain = 0; chain < 2; ++chain) {
        const size_t rows = chain ? kPairs : 1, n = chain ? w : kPairs * w;
        const size_t outs = chain ? rows : kPairs;
        std::vector<uint8_t> fast(outs * 2, 0xAB), ref(outs * 2, 0xAB);
        sums_both_paths(chain, DType::fp16, x, w * 2, rows, n, w, fast, ref, sat);
        ASSERT_EQ(fast, ref) << "sat=" << sat << " chain=" << chain;
      }
  });
}

// Long chains that overflow part way: 300 groups of 128 whose sums climb past fp16's max after
// ~160 groups (a saturating chain then sits near ±max), then fall; the native kernels run such a
// chain plain in blocks of 64 nodes and from the first non-finite block with the rule.
TEST(OpsReduceRows, Fp16LongChainsOverflowingPartWayFastEqualsReference) {
  std::mt19937_64 g(36);
  constexpr size_t w = 128, ng = 300, n = w * ng;
  every_fp16_path([&] {
    for (int shape = 0; shape < 3; ++shape) {
      std::vector<uint8_t> x(n * 2);
      for (size_t i = 0; i < n; ++i) {
        const size_t grp = i / w;
        float v = 2.5f + float(g() % 1000) * 1e-3f;  // ~380 a group
        if (shape == 1 && grp >= 200) v = -v;          // back down after saturating
        if (shape == 2 && grp % 97 == 96) v = -40.0f;  // dips
        const uint16_t c = tilesim::formats::f32_to_f16(v);
        std::memcpy(&x[2 * i], &c, 2);
      }
      for (bool sat : {false, true})
        for (size_t rows : {size_t{1}, size_t{3}}) {
          const size_t per = n / rows / w * w;  // rows of whole groups
          std::vector<uint8_t> fast(rows * 2, 0xAB), ref(rows * 2, 0xAB);
          sums_both_paths(true, DType::fp16, x, per * 2, rows, per, w, fast, ref, sat);
          ASSERT_EQ(fast, ref) << "shape=" << shape << " sat=" << sat << " rows=" << rows;
        }
    }
  });
}

// Rows back to back (stride = n elements: the kernels' flat path, which the padded strides above
// never take) and empty rows (n = 0: every chained row is +0, also right after a call that left
// other results in the kernels' scratch).
TEST(OpsReduceRows, FlatAndEmptyRowsFastEqualsReference) {
  std::mt19937_64 g(32);
  every_fp16_path([&] {
    for (DType t : kFloats)
      for (size_t w : {16, 32, 64, 128, 256})
        for (size_t n : {w, 2 * w, 8 * w})
          for (size_t rows : {2, 3, 17, 33})
            for (int chain = 0; chain < 2; ++chain)
              for (bool sat : {false, true}) {
                const size_t esz = width(t), ng = n / w;
                auto x = random_codes(g, t, rows * n);
                if (g() % 2) calm(g, t, x, 0, rows * n);
                std::vector<uint8_t> fast(rows * ng * esz, 0xAB), ref(rows * ng * esz, 0xAB);
                sums_both_paths(chain, t, x, n * esz, rows, n, w, fast, ref, sat);
                ASSERT_EQ(fast, ref) << tilesim::formats::name(t) << " w=" << w << " n=" << n
                                     << " rows=" << rows << " chain=" << chain << " sat=" << sat;
              }
    for (DType t : kFloats) {
      const size_t esz = width(t), rows = 40;  // more rows than lanes
      std::vector<uint8_t> ones(rows * 256 * esz);
      for (size_t i = 0; i < rows * 256; ++i)
        store_code(t, ones.data(), i,
                   t == DType::fp32   ? 0x3F800000
                   : t == DType::fp16 ? 0x3C00
                                      : 0x3F80);
      std::vector<uint8_t> out(rows * esz, 0xAB);
      chained_tree_sums(t, ones.data(), 256 * esz, rows, 256, 128, out.data());  // 256 per row
      ASSERT_NE(load_code(t, out.data(), 0), 0u);
      chained_tree_sums(t, ones.data(), 256 * esz, rows, 0, 128, out.data());
      for (size_t r = 0; r < rows; ++r)
        ASSERT_EQ(load_code(t, out.data(), r), 0u)
            << tilesim::formats::name(t) << " row " << r << ": +0";
    }
  });
}

TEST(OpsReduceRows, FoldRowsFastEqualsReference) {
  std::mt19937_64 g(32);
  const DType types[] = {DType::fp32, DType::fp16, DType::bf16, DType::s8,  DType::s16, DType::s32,
                         DType::s64,  DType::u8,   DType::u16,  DType::u32, DType::u64};
  every_target([&] {
    for (DType t : types)
      for (Op op : {Op::max, Op::min, Op::add}) {
        if (op == Op::add && is_float_dtype(t)) continue;
        for (size_t n : {1, 2, 7, 16, 31, 32, 33, 64, 100, 300})
          for (size_t rows : {1, 5, 16, 33, 70}) {
            const size_t esz = width(t), cols = n + 3;
            auto x = random_codes(g, t, rows * cols);
            if (is_float_dtype(t) && rows > 2) {
              // row 1: only ±0; row 2: moderate values and one NaN (the rule's cases alone)
              const uint64_t neg0 = uint64_t{0x80} << (esz * 8 - 8);
              for (size_t j = 0; j < n; ++j) store_code(t, x.data(), cols + j, g() % 2 ? 0 : neg0);
              calm(g, t, x, 2 * cols, n);
              store_code(t, x.data(), 2 * cols + g() % n,
                         t == DType::fp32   ? 0xFFC00123
                         : t == DType::fp16 ? 0xFE01
                                            : 0xFFC1);
            }
            std::vector<uint8_t> fast(rows * esz), ref(rows * esz);
            fold_rows(op, t, x.data(), cols * esz, rows, n, fast.data());
            fold_rows(op, t, x.data(), cols * esz, rows, n, ref.data(), Path::Reference);
            ASSERT_EQ(fast, ref) << tilesim::formats::name(t) << " " << info(op).name << " n=" << n
                                 << " rows=" << rows;
            if (is_float_dtype(t) && rows > 2)
              for (size_t r : {1, 2}) {  // the ±0 row and the NaN row alone: the one-row fold
                std::vector<uint8_t> f1(esz), r1(esz);
                const uint8_t* row = x.data() + r * cols * esz;
                fold_rows(op, t, row, cols * esz, 1, n, f1.data());
                fold_rows(op, t, row, cols * esz, 1, n, r1.data(), Path::Reference);
                ASSERT_EQ(f1, r1) << tilesim::formats::name(t) << " " << info(op).name << " n=" << n
                                  << " row " << r << " alone";
              }
          }
      }
  });
}

TEST(OpsReduceRows, ColumnReduceFastEqualsReference) {
  std::mt19937_64 g(33);
  every_target([&] {
    for (DType t : {DType::fp32, DType::fp16, DType::bf16, DType::s32, DType::u8})
      for (Op op : {Op::add, Op::max, Op::min})
        for (ColumnOrder o : {ColumnOrder::Sequential, ColumnOrder::FirstThenPairs})
          for (size_t rows : {1, 2, 3, 4, 5, 6, 7, 8, 9, 33, 100})
            for (size_t n : {1, 15, 16, 17, 40, 333}) {
              const size_t esz = width(t), cols = n + 5;
              auto x = random_codes(g, t, rows * cols);
              for (size_t i = 1; i < rows; i += 2)
                calm(g, t, x, i * cols, cols);  // sums that round
              std::vector<uint8_t> fast(n * esz), ref(n * esz);
              column_reduce(op, t, x.data(), cols * esz, rows, n, o, fast.data());
              column_reduce(op, t, x.data(), cols * esz, rows, n, o, ref.data(), Path::Reference);
              ASSERT_EQ(fast, ref) << tilesim::formats::name(t) << " " << info(op).name << " order "
                                   << int(o) << " rows=" << rows << " n=" << n;
            }
  });
}

// Sums that overflow fp16 at one node (+Inf, then NaN with -Inf) and an all-(-0) row: +0 from
// the chain's leading +0, -0 from a bare tree (the definitions, spec 15 §3).
TEST(OpsReduceRows, OverflowAndNegativeZeroKnownAnswers) {
  every_fp16_path([&] {
    std::vector<uint16_t> x(128, 0x8000);
    uint16_t r = 0;
    tree_sums(DType::fp16, x.data(), 0, 1, 128, 128, &r);
    EXPECT_EQ(r, 0x8000);
    chained_tree_sums(DType::fp16, x.data(), 0, 1, 128, 128, &r);
    EXPECT_EQ(r, 0x0000);
    x.assign(128, 0);
    x[0] = x[1] = 0x7BFF;  // 65504 + 65504 overflows to +Inf at the first node
    tree_sums(DType::fp16, x.data(), 0, 1, 128, 128, &r);
    EXPECT_EQ(r, 0x7C00);
    x[64] = x[65] = 0xFBFF;  // and -Inf in the other half: NaN, canonical
    tree_sums(DType::fp16, x.data(), 0, 1, 128, 128, &r);
    EXPECT_EQ(r, 0x7E00);
  });
}

}  // namespace

// Saturating sums (Switches::saturate's rule at every node: ±Inf -> ±max, NaN -> +0), fast vs
// reference on every target: edge codes (the saturating trees), codes whose magnitudes stay at or
// just above the bound under which no tree node can overflow (the plain trees, with the
// saturating chain), and values whose group trees overflow only near that bound.
TEST(OpsReduceRows, SaturatingTreeSumsFastEqualsReference) {
  std::mt19937_64 g(34);
  size_t runs = 0;
  every_fp16_path([&] {
    for (DType t : {DType::fp16, DType::bf16})
      for (size_t w : {8, 16, 128})
        for (size_t n : {1, 16, 17, 128, 129, 1000, 4096})
          for (int kind = 0; kind < 4; ++kind) {
            const size_t rows = n > 1000 ? 2 : 5, cols = n + 3, esz = width(t);
            auto x = random_codes(g, t, rows * cols);
            // The largest magnitude the plain trees take: max of T / (w * 1.125), and above it.
            const double top = t == DType::fp16 ? 65504.0 : 3.3895313892515355e38;
            const float lim = float(top / (double(w) * 1.125));
            if (kind > 0)
              for (size_t i = 0; i < rows * cols; ++i) {
                const float scale = kind == 1 ? lim * 0.99f : kind == 2 ? lim * 1.01f : lim * 1.2f;
                const float v = float(int(g() % 2001) - 1000) / 1000.0f * scale;
                store_code(t, x.data(), i, t == DType::fp16 ? tilesim::formats::f32_to_f16(v)
                                                            : tilesim::formats::f32_to_bf16(v));
              }
            if (kind == 3)  // same-signed runs: sums that do overflow
              for (size_t i = 0; i < rows * cols; ++i)
                store_code(t, x.data(), i, load_code(t, x.data(), i) & 0x7FFF);
            const size_t ng = (n + w - 1) / w;
            for (int chain = 0; chain < 2; ++chain) {
              std::vector<uint8_t> fast(rows * ng * esz, 0xAB), ref(rows * ng * esz, 0xAB);
              sums_both_paths(chain, t, x, cols * esz, rows, n, w, fast, ref, true);
              ASSERT_EQ(fast, ref) << tilesim::formats::name(t) << " w=" << w << " n=" << n
                                   << " kind=" << kind << " chain=" << chain;
              ++runs;
            }
          }
  });
  EXPECT_GT(runs, 300u);
}

// fp16 trees whose codes bound every node below max (reduce_simd.cpp Fmt::f16fin: the nodes rounded
// on the fp32 bits), with and without the saturation switch, fast vs reference on every target:
// magnitudes up to and at the bound, subnormals with ±0 and sums cancelling to zero (results in
// the subnormal range), and chains of many groups (the chain may still overflow: kind 0 sums
// same-signed values).
TEST(OpsReduceRows, BoundedFp16TreeSumsFastEqualsReference) {
  std::mt19937_64 g(35);
  size_t runs = 0;
  every_fp16_path([&] {
    for (size_t w : {2, 8, 16, 64, 128, 256})
      for (size_t n : {1, 15, 16, 17, 128, 129, 1000, 4096})
        for (int kind = 0; kind < 3; ++kind)
          for (bool sat : {false, true}) {
            const size_t rows = n > 1000 ? 2 : 5, cols = n + 3, esz = 2;
            std::vector<uint8_t> x(rows * cols * esz);
            const float lim = float(65504.0 / (double(w) * 1.125));
            uint16_t lim_code = tilesim::formats::f32_to_f16(lim);
            if (tilesim::formats::f16_to_f32(lim_code) > lim) --lim_code;
            for (size_t i = 0; i < rows * cols; ++i) {
              uint16_t c;
              if (kind == 0)  // same-signed up to the bound, the bound itself now and then
                c = g() % 8 == 0 ? lim_code : uint16_t(g() % (uint32_t(lim_code) + 1));
              else if (kind == 1)  // both signs up to the bound
                c = uint16_t((g() % (uint32_t(lim_code) + 1)) | (g() % 2 ? 0x8000 : 0));
              else  // subnormals, ±0 and the smallest normals, both signs
                c = uint16_t((g() % 4 == 0 ? 0 : g() % 0x0480) | (g() % 2 ? 0x8000 : 0));
              store_code(DType::fp16, x.data(), i, c);
            }
            const size_t ng = (n + w - 1) / w;
            for (int chain = 0; chain < 2; ++chain) {
              std::vector<uint8_t> fast(rows * ng * esz, 0xAB), ref(rows * ng * esz, 0xAB);
              sums_both_paths(chain, DType::fp16, x, cols * esz, rows, n, w, fast, ref, sat);
              ASSERT_EQ(fast, ref) << "w=" << w << " n=" << n << " kind=" << kind << " sat=" << sat
                                   << " chain=" << chain;
              ++runs;
            }
          }
  });
  EXPECT_GT(runs, 500u);
}

// spec 40's saturating nodes: 65504 + 65504 -> 65504 (not +Inf), NaN + 1 -> +0, and the chain
// saturates too; fp32 ignores the switch.
TEST(OpsReduceRows, SaturatingKnownAnswers) {
  every_fp16_path([&] {
    std::vector<uint16_t> x(128, 0);
    x[0] = x[1] = 0x7BFF;
    uint16_t r = 0;
    tree_sums(DType::fp16, x.data(), 0, 1, 128, 128, &r, Path::Fast, true);
    EXPECT_EQ(r, 0x7BFF);
    x[64] = x[65] = 0xFBFF;  // -65504 on the other side: 65504 + -65504 = +0
    tree_sums(DType::fp16, x.data(), 0, 1, 128, 128, &r, Path::Fast, true);
    EXPECT_EQ(r, 0x0000);
    x.assign(128, 0);
    x[0] = 0x7E01;  // NaN + 0 -> NaN -> +0 at the first node
    x[2] = 0x3C00;
    tree_sums(DType::fp16, x.data(), 0, 1, 128, 128, &r, Path::Fast, true);
    EXPECT_EQ(r, 0x3C00);
    std::vector<uint16_t> y(256, 0);
    y[0] = y[128] = 0x7A00;  // 49152 per group, 98304 in the chain -> 65504
    chained_tree_sums(DType::fp16, y.data(), 0, 1, 256, 128, &r, Path::Fast, true);
    EXPECT_EQ(r, 0x7BFF);
    chained_tree_sums(DType::fp16, y.data(), 0, 1, 256, 128, &r, Path::Fast, false);
    EXPECT_EQ(r, 0x7C00);
    const float f[2] = {3e38f, 3e38f};
    float fr = 0;
    tree_sums(DType::fp32, f, 0, 1, 2, 2, &fr, Path::Fast, true);
    EXPECT_EQ(fr, INFINITY);
  });
}
