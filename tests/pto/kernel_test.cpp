// PTO whole-kernel instructions (spec 21 §2 memory, movement, matrix rows; §5 targets) through the
// vendor C++ API: hand-computed boxed-layout offsets, TLOAD/TSTORE over ND, DN and NZ views with
// pad values, Acc conversions, the location pairs of each target, TMATMUL's bits against the
// LinxISA GEMM core, and rejections with nothing written.
#include <gtest/gtest.h>
#include <pto/pto-inst.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tilesim/formats.hpp"
#include "tilesim/linx.hpp"
#include "tilesim/parallel.hpp"

namespace {

using namespace pto;

struct TargetGuard {
  explicit TargetGuard(const char* t) { set_target(t); }
  ~TargetGuard() { set_target("a2a3"); }
};

// Runs f, expects a tilesim::Error whose message contains `part`.
template <class F>
void expect_error(F&& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << part;
  } catch (const tilesim::Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

using Gm2D = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, DYNAMIC, 1>>;

// ---- boxed layouts: the vendor's element-offset rule, hand-computed ----

TEST(PtoKernelLayout, BoxedOffsetsHandComputed) {
  // TileLeft<float, 32, 16>: NZ (ColMajor boxes of RowMajor 16 x 8 fp32 = 512 B). Element (17, 9):
  // box row 1, box col 1, inner (1, 1); 2 box rows: box index 2*1 + 1 = 3 -> 3*128 + 1*8 + 1.
  using L = TileLeft<float, 32, 16>;
  static_assert(L::InnerRows == 16 && L::InnerCols == 8);
  EXPECT_EQ(L::offset(17, 9), 393u);
  EXPECT_EQ(L::offset(0, 8), 2u * 128u);  // the second box column starts after both box rows
  // TileRight<float, 16, 32>: ZN (RowMajor boxes of ColMajor 8 x 16). Element (9, 17): box (1, 1),
  // inner row 1, inner col 1; 2 box columns: box 3 -> 3*128 + 1*8 + 1 (column-major inside).
  using Rt = TileRight<float, 16, 32>;
  static_assert(Rt::InnerRows == 8 && Rt::InnerCols == 16);
  EXPECT_EQ(Rt::offset(9, 17), 393u);
  EXPECT_EQ(Rt::offset(1, 0), 1u);    // down a column inside the box
  EXPECT_EQ(Rt::offset(0, 1), 8u);    // next column: 8 rows later
  // TileAcc<float, 32, 32>: NZ with the 1024-byte 16 x 16 box. (17, 18): box (1, 1), inner (1, 2).
  using A = TileAcc<float, 32, 32>;
  static_assert(A::InnerRows == 16 && A::InnerCols == 16);
  EXPECT_EQ(A::offset(17, 18), 3u * 256u + 16u + 2u);
  // fp16 TileLeft: boxes of 16 x 16 fp16 (32 B rows).
  static_assert(TileLeft<half, 32, 32>::InnerCols == 16);
  EXPECT_EQ((TileLeft<half, 32, 32>::offset(1, 16)), 2u * 256u + 16u);
}

TEST(PtoKernelLayout, EngineAndFrontEndAgreeOnEveryElement) {
  // TMOV a boxed tile into a NoneBox Vec tile on the cpu target (any pair): element (r, c) of the
  // boxed tile, placed by the front end's offset(), must arrive at (r, c).
  TargetGuard g("cpu");
  TileAcc<float, 32, 48> acc;
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 48; ++c) acc.at(r, c) = float(r * 100 + c);
  Tile<TileType::Vec, float, 32, 48> v;
  TMOV(v, acc);
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 48; ++c) ASSERT_EQ(v.at(r, c), float(r * 100 + c)) << r << "," << c;
  TileRight<half, 32, 64> right;
  Tile<TileType::Vec, half, 32, 64> h;
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 64; ++c) h.at(r, c) = half(float(r + c));
  TMOV(right, h);
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 64; ++c) ASSERT_EQ(float(right.at(r, c)), float(r + c));
}

// ---- TLOAD / TSTORE ----

TEST(PtoKernelMemory, TloadNdPadsFirstThenCopiesTheValidRegion) {
  // A 3 x 8 view with row stride 10 into an 8 x 8 tile of valid 3 x 8 with PadValue::Max.
  std::vector<float> gm(40);
  for (size_t i = 0; i < gm.size(); ++i) gm[i] = float(i);
  Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512,
       PadValue::Max>
      t(3, 8);
  Gm2D view(gm.data(), {3, 8}, {10});
  TLOAD(t, view);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c)
      if (r < 3)
        EXPECT_EQ(t.at(r, c), float(r * 10 + c));
      else
        EXPECT_EQ(t.at(r, c), std::numeric_limits<float>::infinity());
}

TEST(PtoKernelMemory, PadValuesPerDtype) {
  std::vector<int16_t> gm(16, 7);
  using G = GlobalTensor<int16_t, Shape<1, 1, 1, 1, 16>, Stride<16, 16, 16, 16, 1>>;
  G view(gm.data());
  Tile<TileType::Vec, int16_t, 2, 16, BLayout::RowMajor, 1, 16, SLayout::NoneBox, 512,
       PadValue::Min>
      lo;
  TLOAD(lo, view);
  EXPECT_EQ(lo.at(0, 3), 7);
  EXPECT_EQ(lo.at(1, 3), std::numeric_limits<int16_t>::min());
  Tile<TileType::Vec, int16_t, 2, 16, BLayout::RowMajor, 1, 16, SLayout::NoneBox, 512,
       PadValueCustom(int16_t(-5))>
      custom;
  TLOAD(custom, view);
  EXPECT_EQ(custom.at(1, 15), -5);
  std::vector<half> hg(16, half(1.0f));
  GlobalTensor<half, Shape<1, 1, 1, 1, 16>, Stride<16, 16, 16, 16, 1>> hv(hg.data());
  Tile<TileType::Vec, half, 2, 16, BLayout::RowMajor, 1, 16, SLayout::NoneBox, 512, PadValue::Min>
      h;
  TLOAD(h, hv);
  EXPECT_EQ(h.at(1, 0).bits, 0xFC00);  // -Inf
  EXPECT_EQ(h.at(0, 0).bits, 0x3C00);
}

TEST(PtoKernelMemory, DnAndNzViewsMapAsDocumented) {
  // DN: a 4 x 8 column-major matrix (column stride 4) into a ColMajor tile.
  std::vector<float> gm(32);
  for (size_t i = 0; i < gm.size(); ++i) gm[i] = float(i);
  using Dn = GlobalTensor<float, Shape<1, 1, 1, 4, 8>, Stride<32, 32, 32, 1, 4>, Layout::DN>;
  Dn dn(gm.data());
  Tile<TileType::Vec, float, 8, 8, BLayout::ColMajor, 4, 8> t;
  TLOAD(t, dn);
  EXPECT_EQ(t.at(3, 5), float(5 * 4 + 3));
  // NZ: fp32 boxes of 16 x 8 (N3 = 16 rows, N4 = 8 columns of 32 B); shape [1, 2, 2, 16, 8] is a
  // 32 x 16 matrix: tile (r, c) <- i1 = c / 8, i2 = r / 16, i3 = r % 16, i4 = c % 8.
  std::vector<float> nz(512);
  for (size_t i = 0; i < nz.size(); ++i) nz[i] = float(i);
  using Nz = GlobalTensor<float, Shape<1, 2, 2, 16, 8>, Stride<512, 256, 128, 8, 1>, Layout::NZ>;
  Nz nv(nz.data());
  Tile<TileType::Mat, float, 32, 16, BLayout::ColMajor, 32, 16, SLayout::RowMajor, 512> m;
  TLOAD(m, nv);
  // (17, 9): i1 = 1, i2 = 1, i3 = 1, i4 = 1 -> 256 + 128 + 8 + 1.
  EXPECT_EQ(m.at(17, 9), 393.0f);
  // NZ tile and NZ GM share the box order: the bytes are the same.
  EXPECT_EQ(std::memcmp(m.data(), nz.data(), nz.size() * 4), 0);
}

// ND rows into and out of tiles of row-major boxes go as box-row runs (src/pto/transfer.hpp
// rows_box_rows): a strided view, valid regions that end inside a box, NZ with fp32 16 x 8 and
// fp16 16 x 16 boxes; every element where at() says, nothing else written.
TEST(PtoKernelMemory, NdRowsIntoAndOutOfBoxRows) {
  std::vector<float> gm(40 * 50), back(40 * 50, -7.0f);
  for (size_t i = 0; i < gm.size(); ++i) gm[i] = float(i);
  Gm2D in(gm.data(), {27, 37}, {50}), out(back.data(), {27, 37}, {50});
  Tile<TileType::Mat, float, 32, 48, BLayout::ColMajor, DYNAMIC, DYNAMIC, SLayout::RowMajor, 512> nz(27, 37);
  TLOAD(nz, in);
  for (int r = 0; r < 27; ++r)
    for (int c = 0; c < 37; ++c) ASSERT_EQ(nz.at(r, c), float(r * 50 + c)) << r << "," << c;
  TSTORE(out, nz);
  for (int i = 0; i < 40 * 50; ++i) {
    const int r = i / 50, c = i % 50;
    ASSERT_EQ(back[i], r < 27 && c < 37 ? float(i) : -7.0f) << i;
  }
  std::vector<half> hg(40 * 50);
  for (size_t i = 0; i < hg.size(); ++i) hg[i] = half(float(i % 2000));
  using GmH = GlobalTensor<half, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, DYNAMIC, 1>>;
  GmH hin(hg.data(), {30, 35}, {50});
  Tile<TileType::Mat, half, 32, 48, BLayout::ColMajor, DYNAMIC, DYNAMIC, SLayout::RowMajor, 512> hnz(30, 35);
  TLOAD(hnz, hin);
  for (int r = 0; r < 30; ++r)
    for (int c = 0; c < 35; ++c) ASSERT_EQ(float(hnz.at(r, c)), float((r * 50 + c) % 2000)) << r << "," << c;
}

// An ND view with a leading dimension (rows = shape[2] x shape[3], row (i, r) at i * stride[2] + r *
// stride[3]) takes the general path (offset tables); a 2-D view the plain one (row r at r *
// stride[3]): both into and out of a RowMajor Vec tile and an NZ Mat tile, every element where
// the view says, nothing else in GM written.
TEST(PtoKernelMemory, NdViewsWithLeadingDimsAndPlain2D) {
  std::vector<float> gm(3 * 100), back(3 * 100, -5.0f), back2(3 * 100, -5.0f);
  for (size_t i = 0; i < gm.size(); ++i) gm[i] = float(i);
  // 2 blocks of 4 rows of 16: block i at 100 * i, row r at 20 * r (gaps between rows and blocks)
  using G3 = GlobalTensor<float, Shape<1, 1, 2, 4, 16>, Stride<1, 1, 100, 20, 1>>;
  using G2 = GlobalTensor<float, Shape<1, 1, 1, 8, 16>, Stride<1, 1, 1, 20, 1>>;
  G3 v3(gm.data()), o3(back.data());
  G2 v2(gm.data()), o2(back2.data());
  const auto want = [](int r, int c) { return float((r / 4) * 100 + (r % 4) * 20 + c); };
  Tile<TileType::Vec, float, 8, 16> vec;
  TLOAD(vec, v3);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) ASSERT_EQ(vec.at(r, c), want(r, c)) << r << "," << c;
  Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 8, 16, SLayout::RowMajor, 512> nz;
  TLOAD(nz, v3);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) ASSERT_EQ(nz.at(r, c), want(r, c)) << r << "," << c;
  TSTORE(o3, nz);
  for (int i = 0; i < 300; ++i) {
    const int b = i / 100, r = (i % 100) / 20, c = i % 20;
    ASSERT_EQ(back[i], b < 2 && r < 4 && c < 16 ? float(i) : -5.0f) << i;
  }
  TLOAD(vec, v2);  // the plain 2-D view: rows 20 apart
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) ASSERT_EQ(vec.at(r, c), float(r * 20 + c)) << r << "," << c;
  TSTORE(o2, vec);
  for (int i = 0; i < 300; ++i) ASSERT_EQ(back2[i], i < 160 && i % 20 < 16 ? float(i) : -5.0f) << i;
}

TEST(PtoKernelMemory, TstoreWritesTheValidRegionOnly) {
  std::vector<float> gm(40, -1.0f);
  Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC> t(3, 5);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) t.at(r, c) = float(r * 8 + c);
  Gm2D view(gm.data(), {3, 5}, {10});
  TSTORE(view, t);
  for (int i = 0; i < 40; ++i) {
    const int r = i / 10, c = i % 10;
    EXPECT_EQ(gm[i], r < 3 && c < 5 ? float(r * 8 + c) : -1.0f) << i;
  }
}

TEST(PtoKernelMemory, TstoreFromAccConvertsWithReluAndAtomicAdd) {
  TileAcc<float, 16, 16> acc;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) acc.at(r, c) = (c % 2 ? -1.0f : 1.0f) * (1.0f + 1.0f / 4096.0f) * float(r + 1);
  std::vector<half> out(256);
  GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>> g(out.data());
  TSTORE<TileAcc<float, 16, 16>, decltype(g), AtomicType::AtomicNone, ReluPreMode::NormalRelu>(g, acc);
  // 1 + 2^-12 is a tie between fp16 neighbours 1 and 1 + 2^-10... no: fp16 has 10 fraction bits,
  // 1 + 2^-12 rounds to 1 (RNE); negative columns become +0 under ReLU.
  EXPECT_EQ(out[0].bits, 0x3C00);
  EXPECT_EQ(out[1].bits, 0x0000);
  EXPECT_EQ(float(out[16 * 3]), 4.0f);
  // AtomicAdd: GM += value.
  std::vector<float> acc_out(256, 0.5f);
  GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>> ga(acc_out.data());
  TSTORE<TileAcc<float, 16, 16>, decltype(ga), AtomicType::AtomicAdd>(ga, acc);
  EXPECT_EQ(acc_out[0], 0.5f + acc.at(0, 0));
}

// ---- TMOV location pairs per target (spec 21 §5) ----

TEST(PtoKernelMove, LocationPairsPerTarget) {
  Tile<TileType::Vec, float, 16, 16> v;
  TileLeft<float, 16, 16> left;
  TileAcc<float, 16, 16> acc;
  Tile<TileType::Vec, float, 16, 16> out;
  for (int i = 0; i < 256; ++i) v.data()[i] = float(i);
  {
    TargetGuard g("a2a3");
    expect_error([&] { TMOV(left, v); }, "TMOV from TileType::Vec to TileType::Left");
    expect_error([&] { TMOV(out, acc); }, "is not a location pair of target a2a3");
  }
  {
    TargetGuard g("a5");
    expect_error([&] { TMOV(left, v); }, "target a5");
    TMOV(out, acc);  // Acc -> Vec with conversion is an a5 pair
  }
  {
    TargetGuard g("cpu");
    TMOV(left, v);  // the vendor CPU simulator's pairs (the flash-attention demo's)
    EXPECT_EQ(left.at(3, 5), 3.0f * 16 + 5);
  }
}

TEST(PtoKernelMove, TransExtractReshapeFillpad) {
  TargetGuard g("cpu");
  Tile<TileType::Vec, float, 8, 16> a;
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) a.at(r, c) = float(r * 16 + c);
  Tile<TileType::Vec, float, 16, 8> t;
  TTRANS(t, a, a);
  EXPECT_EQ(t.at(5, 3), a.at(3, 5));
  Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, 2, 8> e;
  TEXTRACT(e, a, 4, 8);
  EXPECT_EQ(e.at(1, 2), a.at(5, 10));
  expect_error([&] { TEXTRACT(e, a, 7, 8); }, "leaves src's valid region");
  // Between boxed tiles at a box offset (the box-by-box mover): Mat NZ 32 x 32 fp16 into Left NZ
  // and Right ZN 16 x 16 at (16, 16), every element.
  Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor, 512> mat;
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) mat.at(r, c) = half(float(r * 32 + c));
  TileLeft<half, 16, 16> left;
  TileRight<half, 16, 16> right;
  TEXTRACT(left, mat, 16, 16);
  TEXTRACT(right, mat, 16, 0);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      ASSERT_EQ(float(left.at(r, c)), float((16 + r) * 32 + 16 + c)) << r << "," << c;
      ASSERT_EQ(float(right.at(r, c)), float((16 + r) * 32 + c)) << r << "," << c;
    }
  Tile<TileType::Vec, float, 16, 8> rs;
  TRESHAPE(rs, a);
  EXPECT_EQ(rs.at(1, 0), a.at(0, 8));  // the same bytes
  Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC> part(3, 5);
  for (int i = 0; i < 128; ++i) part.data()[i] = 9.0f;
  Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, 8, 16, SLayout::NoneBox, 512,
       PadValue::Min>
      filled;
  TFILLPAD(filled, part);
  EXPECT_EQ(filled.at(2, 4), 9.0f);
  EXPECT_EQ(filled.at(2, 5), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(filled.at(7, 0), -std::numeric_limits<float>::infinity());
}

// ---- TMATMUL: the LinxISA GEMM core's bits ----

template <class T>
std::vector<T> random_vals(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<T> v(n);
  for (auto& x : v) x = T(d(g));
  return v;
}

TEST(PtoKernelMatmul, A2a3PathGivesTheLinxGemmBits) {
  // GM (ND) -> Mat (NZ) -> TMOV -> Left/Right -> TMATMUL -> TSTORE from Acc, all a2a3 rules.
  constexpr int M = 32, K = 48, N = 64;
  const auto a = random_vals<half>(M * K, 1), b = random_vals<half>(K * N, 2);
  using GA = GlobalTensor<half, Shape<1, 1, 1, M, K>, Stride<M * K, M * K, M * K, K, 1>>;
  using GB = GlobalTensor<half, Shape<1, 1, 1, K, N>, Stride<K * N, K * N, K * N, N, 1>>;
  using GC = GlobalTensor<float, Shape<1, 1, 1, M, N>, Stride<M * N, M * N, M * N, N, 1>>;
  GA ga(const_cast<half*>(a.data()));
  GB gb(const_cast<half*>(b.data()));
  std::vector<float> c(M * N, 0.0f);
  GC gc(c.data());
  Tile<TileType::Mat, half, M, K, BLayout::ColMajor, M, K, SLayout::RowMajor, 512> ma;
  Tile<TileType::Mat, half, K, N, BLayout::ColMajor, K, N, SLayout::RowMajor, 512> mb;
  TileLeft<half, M, K> left;
  TileRight<half, K, N> right;
  TileAcc<float, M, N> acc;
  TLOAD(ma, ga);
  TLOAD(mb, gb);
  TMOV(left, ma);
  TMOV(right, mb);
  TMATMUL(acc, left, right);
  TSTORE(gc, acc);

  std::vector<float> want(M * N);
  tilesim::linx::gemm({a.data(), M, K}, {b.data(), K, N}, nullptr, want.data(),
                      {tilesim::formats::DType::fp16, tilesim::formats::DType::fp16});
  EXPECT_EQ(std::memcmp(c.data(), want.data(), want.size() * 4), 0);

  // _ACC seeds the chain with C; _BIAS adds once at the end: again the core's bits.
  TMATMUL_ACC(acc, left, right);
  std::vector<float> want2 = want;
  tilesim::linx::gemm({a.data(), M, K}, {b.data(), K, N}, nullptr, want2.data(),
                      {tilesim::formats::DType::fp16, tilesim::formats::DType::fp16, true});
  TSTORE(gc, acc);
  EXPECT_EQ(std::memcmp(c.data(), want2.data(), want2.size() * 4), 0);
}

TEST(PtoKernelMatmul, BiasAndIntegerKnownAnswers) {
  TargetGuard g("cpu");
  TileLeft<int8_t, 16, 32> a;
  TileRight<int8_t, 32, 16> b;
  TileAcc<int32_t, 16, 16> c;
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 32; ++k) a.at(r, k) = int8_t(k % 2 ? -r : r);
  for (int k = 0; k < 32; ++k)
    for (int j = 0; j < 16; ++j) b.at(k, j) = int8_t(j + 1);
  TMATMUL(c, a, b);
  // sum_k a[r][k] * (j + 1) = (16 r - 16 r) (j + 1) = 0 for every element.
  for (int r = 0; r < 16; ++r) EXPECT_EQ(c.at(r, 3), 0);
  for (int k = 0; k < 32; ++k) a.at(2, k) = 1;
  Tile<TileType::Bias, int32_t, 1, 16> bias;
  for (int j = 0; j < 16; ++j) bias.at(0, j) = 1000 * j;
  TMATMUL_BIAS(c, a, b, bias);
  EXPECT_EQ(c.at(2, 4), 32 * 5 + 4000);
  EXPECT_EQ(c.at(3, 4), 4000);
}

TEST(PtoKernelMatmul, DemoShapesAreThreadCountIndependent) {
  TargetGuard g("cpu");
  const auto a = random_vals<float>(64 * 128, 3), b = random_vals<float>(128 * 96, 4);
  std::vector<float> r1, r2;
  for (int threads : {1, 2}) {
    tilesim::set_num_threads(threads);
    TileLeft<float, 64, 128> l;
    TileRight<float, 128, 96> rr;
    TileAcc<float, 64, 96> acc;
    for (int i = 0; i < 64; ++i)
      for (int k = 0; k < 128; ++k) l.at(i, k) = a[i * 128 + k];
    for (int k = 0; k < 128; ++k)
      for (int j = 0; j < 96; ++j) rr.at(k, j) = b[k * 96 + j];
    TMATMUL(acc, l, rr);
    auto& out = threads == 1 ? r1 : r2;
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < 96; ++j) out.push_back(acc.at(i, j));
  }
  tilesim::set_num_threads(0);
  EXPECT_EQ(r1, r2);
}

// ---- rejections: nothing written ----

TEST(PtoKernelRejections, NothingWrittenOnError) {
  std::vector<float> gm(64, 1.0f);
  Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC> t(4, 8);
  for (int i = 0; i < 64; ++i) t.data()[i] = 5.0f;
  Gm2D wrong(gm.data(), {3, 8}, {8});  // a 3 x 8 view for a 4 x 8 valid region
  expect_error([&] { TLOAD(t, wrong); }, "is a 3x8 view");
  for (int i = 0; i < 64; ++i) ASSERT_EQ(t.data()[i], 5.0f);
  expect_error([&] { TSTORE(wrong, t); }, "they must be equal");
  for (float x : gm) ASSERT_EQ(x, 1.0f);
  // A Vec tile cannot load from a DN view on a2a3 (ColMajor pairs with DN).
  using Dn = GlobalTensor<float, Shape<1, 1, 1, 4, 8>, Stride<32, 32, 32, 1, 4>, Layout::DN>;
  Dn dn(gm.data());
  expect_error([&] { TLOAD(t, dn); }, "cannot move with a RowMajor NoneBox tile on target a2a3");
  // TMATMUL dtype pairs and shapes.
  TileLeft<half, 16, 16> l;
  TileRight<half, 16, 16> r;
  TileAcc<int32_t, 16, 16> bad_acc;
  expect_error([&] { TMATMUL(bad_acc, l, r); }, "cMatrix dtype must be fp32 for fp16 operands");
  // Per-target rules from the backends: a5 stores no Mat tile; a2a3's Acc -> Mat converts fp32 to
  // fp16/bf16 only; a5 multiplies only NZ x ZN -> NZ tiles; a2a3/a5 limit M, N, K to 4095.
  {
    TargetGuard g("a5");
    Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512> mat;
    std::vector<float> out(256, 3.0f);
    GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>, Layout::NZ> gz(out.data());
    expect_error([&] { TSTORE(gz, mat); }, "must be a Vec or Acc tile on target a5");
    for (float x : out) ASSERT_EQ(x, 3.0f);
    Tile<TileType::Left, half, 16, 16> plain_left;
    TileRight<half, 16, 16> rr;
    TileAcc<float, 16, 16> aa;
    expect_error([&] { TMATMUL(aa, plain_left, rr); }, "aMatrix must be NZ");
  }
  {
    TargetGuard g("a2a3");
    TileAcc<float, 16, 16> acc;
    Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512> m32;
    expect_error([&] { TMOV(m32, acc); }, "converts fp32 to fp16 or bf16 only, got fp32 -> fp32");
    Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512> m16;
    TMOV(m16, acc);
  }
  // ScaleLeft tiles are names only (spec 21 §1).
  {
    TargetGuard g("cpu");
    TileLeftScale<int8_t, 16, 32> sl;
    Tile<TileType::Mat, int8_t, 16, 32> mat;
    expect_error([&] { TMOV(sl, mat); }, "instructions on ScaleLeft, ScaleRight and Ctrl");
  }
  // A tile leaving its buffer: L0A is 64 KB.
  TileLeft<float, 64, 64> big;  // 16 KB
  expect_error([&] { TASSIGN(big, 60 * 1024); }, "exceeds the a2a3 L0A of 65536 bytes");
}

}  // namespace
