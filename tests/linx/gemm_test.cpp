// The GEMM core: hand-computed answers per type, every legal type pair against an independent
// computation, and the fast engine against the scalar reference (bits) over shapes, specials
// and thread counts.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <random>
#include <tuple>
#include <vector>

#include "linx/gemm_core.hpp"
#include "support.hpp"
#include "tilesim/parallel.hpp"

using namespace tilesim::linx;
using namespace linx_test;

namespace {
const DType kFloat[] = {DType::fp64, DType::fp32, DType::tf32, DType::hf32, DType::fp16, DType::bf16, DType::e4m3,
                        DType::e5m2, DType::e2m3, DType::e3m2, DType::e2m1, DType::e1m2};
const DType kSigned[] = {DType::s64, DType::s32, DType::s16, DType::s8, DType::s4};
const DType kUnsigned[] = {DType::u64, DType::u32, DType::u16, DType::u8, DType::u4};
const core::Rules kRules{core::FloatOrder::sequential_fma, core::IntOverflow::wrap32};  // linx_v056 (spec 30 §3)

std::vector<uint32_t> run_gemm(const std::vector<uint8_t>& A, DType ta, const std::vector<uint8_t>& B, DType tb, size_t M,
                               size_t N, size_t K, const uint32_t* bias, const uint32_t* start, Engine e) {
  std::vector<uint32_t> acc(M * N, 0);
  if (start) acc.assign(start, start + M * N);
  gemm({A.data(), M, K}, {B.data(), K, N}, bias, acc.data(), {ta, tb, start != nullptr, e});
  return acc;
}
uint32_t fbits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }
}  // namespace

// Hand-computed 2x2 answers (independent of any table).
TEST(LinxGemm, HandComputedFp32WithBias) {
  const float A[] = {1, 2, 3, 4}, B[] = {5, 6, 7, 8};
  const float bias[] = {0.5f, -100};
  uint32_t acc[4];
  gemm({A, 2, 2}, {B, 2, 2}, bias, acc, {DType::fp32, DType::fp32});
  EXPECT_EQ(acc[0], fbits(19.5f));   // 1*5 + 2*7 + 0.5
  EXPECT_EQ(acc[1], fbits(-78.0f));  // 1*6 + 2*8 - 100
  EXPECT_EQ(acc[2], fbits(43.5f));   // 3*5 + 4*7 + 0.5
  EXPECT_EQ(acc[3], fbits(-50.0f));  // 3*6 + 4*8 - 100
}

TEST(LinxGemm, HandComputedFp16TimesE4M3) {
  const uint16_t A[] = {0x3C00, 0xC000};  // 1.0, -2.0 (fp16), 1 x 2
  const uint8_t B[] = {0x7E, 0x38};       // 448, 1.0 (e4m3), 2 x 1
  uint32_t acc[1];
  gemm({A, 1, 2}, {B, 2, 1}, nullptr, acc, {DType::fp16, DType::e4m3});
  EXPECT_EQ(acc[0], fbits(446.0f));
}

TEST(LinxGemm, HandComputedPacked4Bit) {
  const uint8_t A[] = {0x7, 0x9};  // e2m1: 6, -0.5
  const uint8_t B[] = {0x7, 0x4};  // e1m2: 1.75, 1.0
  uint32_t acc[1];
  gemm({A, 1, 2}, {B, 2, 1}, nullptr, acc, {DType::e2m1, DType::e1m2});
  EXPECT_EQ(acc[0], fbits(10.0f));  // 6*1.75 - 0.5
  const int8_t sa[] = {-8, 7, -1};
  const uint8_t ua[] = {15, 1, 2};
  const int8_t sb[] = {3, -2, 5};
  gemm({sa, 1, 3}, {sb, 3, 1}, nullptr, acc, {DType::s4, DType::s4});
  EXPECT_EQ(static_cast<int32_t>(acc[0]), -24 - 14 - 5);
  gemm({ua, 1, 3}, {ua, 3, 1}, nullptr, acc, {DType::u4, DType::u8});
  EXPECT_EQ(acc[0], 225u + 1 + 4);
}

TEST(LinxGemm, IntegerWrapsAndWideTypesTruncate) {
  const int32_t A[] = {0x40000000, 0x40000000};
  const int32_t B[] = {4, 4};
  uint32_t acc[1];
  gemm({A, 1, 2}, {B, 2, 1}, nullptr, acc, {DType::s32, DType::s32});
  EXPECT_EQ(acc[0], 0u);  // 2 * 2^32 wraps to 0 (spec 30 §3)
  const int64_t A64[] = {(int64_t{5} << 32) + 3};
  const int64_t B64[] = {-2};
  gemm({A64, 1, 1}, {B64, 1, 1}, nullptr, acc, {DType::s64, DType::s64});
  EXPECT_EQ(static_cast<int32_t>(acc[0]), -6);  // low 32 bits of each operand
  const uint32_t UA[] = {0xFFFFFFFFu};
  const uint32_t ub[] = {7};
  gemm({UA, 1, 1}, {UA, 1, 1}, ub, acc, {DType::u32, DType::u32});
  EXPECT_EQ(acc[0], 1u + 7u);  // (2^32-1)^2 mod 2^32 = 1, + bias
}

TEST(LinxGemm, FloatRulesDefaultNanSignedZeroFp64Rounding) {
  uint32_t acc[1];
  const float A[] = {INFINITY, 1}, B[] = {0, 1};
  gemm({A, 1, 2}, {B, 2, 1}, nullptr, acc, {DType::fp32, DType::fp32});
  EXPECT_EQ(acc[0], 0x7FC00000u);  // Inf*0 = NaN -> default NaN
  const float nz[] = {-1}, pz[] = {0};
  gemm({nz, 1, 1}, {pz, 1, 1}, nullptr, acc, {DType::fp32, DType::fp32});
  EXPECT_EQ(acc[0], 0u);  // fma(-1, 0, +0) = +0
  const float nbias[] = {-0.0f};
  gemm({nz, 1, 1}, {pz, 1, 1}, nbias, acc, {DType::fp32, DType::fp32});
  EXPECT_EQ(acc[0], 0u);  // +0 + -0 = +0
  const double d[] = {1.0 + 0x1p-24 + 0x1p-50};  // just above a tie: rounds up in fp32
  const double one[] = {1.0};
  gemm({d, 1, 1}, {one, 1, 1}, nullptr, acc, {DType::fp64, DType::fp64});
  EXPECT_EQ(acc[0], fbits(1.0f + 0x1p-23f));
  const uint32_t tf[] = {0x3F801FFFu};  // 1 + low bits that tf32 masks
  const float onef[] = {1.0f};
  gemm({tf, 1, 1}, {onef, 1, 1}, nullptr, acc, {DType::tf32, DType::fp32});
  EXPECT_EQ(acc[0], 0x3F800000u);
  // The chain is fused: fma(a, b, acc) differs from a*b + acc here.
  // Step 0 rounds (1+2^-12)^2 to 1+2^-11 (tie to even); step 1 adds -(1+2^-12)^2 exactly.
  const float a2[] = {1.0f + 0x1p-12f, 1.0f + 0x1p-12f}, b2[] = {1.0f + 0x1p-12f, -(1.0f + 0x1p-12f)};
  gemm({a2, 1, 2}, {b2, 2, 1}, nullptr, acc, {DType::fp32, DType::fp32});
  EXPECT_EQ(acc[0], fbits(-0x1p-24f));
}

TEST(LinxGemm, RejectsIllegalTypesAndShapes) {
  const uint8_t x[4] = {};
  uint32_t acc[4];
  auto msg = [&](DType a, DType b, size_t k2) {
    try {
      gemm({x, 1, 1}, {x, k2, 1}, nullptr, acc, {a, b});
    } catch (const tilesim::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg(DType::e8m0, DType::e8m0, 1).find("A type e8m0 is not a TMATMUL operand type"), std::string::npos);
  EXPECT_NE(msg(DType::s8, DType::u8, 1).find("different classes"), std::string::npos);
  EXPECT_NE(msg(DType::fp16, DType::s8, 1).find("different classes"), std::string::npos);
  EXPECT_NE(msg(DType::s8, DType::s8, 2).find("shapes must be"), std::string::npos);
}

// Every legal same-class pair against the independent computation (with bias and .ACC start).
TEST(LinxGemm, EveryTypePairMatchesIndependentComputation) {
  std::mt19937 rng(1);
  const size_t M = 5, N = 7, K = 9;
  auto pairs = [&](const DType* cls, size_t n) {
    for (size_t x = 0; x < n; ++x)
      for (size_t y = 0; y < n; ++y) {
        const DType ta = cls[x], tb = cls[y];
        const auto A = random_codes(ta, M * K, rng), B = random_codes(tb, K * N, rng);
        std::vector<uint32_t> bias(N), start(M * N);
        for (auto& b : bias) b = fm::is_float(ta) ? fbits(static_cast<float>(rng() % 100) - 50) : rng();
        for (auto& s : start) s = fm::is_float(ta) ? fbits(static_cast<float>(rng() % 64) / 8) : rng();
        for (Engine e : {Engine::reference, Engine::fast}) {
          EXPECT_EQ(run_gemm(A, ta, B, tb, M, N, K, nullptr, nullptr, e), expected(A, ta, B, tb, M, N, K, nullptr, nullptr))
              << fm::name(ta) << " x " << fm::name(tb);
          EXPECT_EQ(run_gemm(A, ta, B, tb, M, N, K, bias.data(), nullptr, e),
                    expected(A, ta, B, tb, M, N, K, bias.data(), nullptr));
          EXPECT_EQ(run_gemm(A, ta, B, tb, M, N, K, nullptr, start.data(), e),
                    expected(A, ta, B, tb, M, N, K, nullptr, start.data()));
        }
      }
  };
  pairs(kFloat, std::size(kFloat));
  pairs(kSigned, std::size(kSigned));
  pairs(kUnsigned, std::size(kUnsigned));
}

// Fast engine == scalar reference, bit for bit: shapes not multiple of 16/K0/the micro-tile,
// K = 1, K across several K blocks, special values, 1..3 threads.
TEST(LinxGemm, FastEngineMatchesReferenceBits) {
  std::mt19937 rng(5);
  struct Shape { size_t m, n, k; };
  const Shape shapes[] = {{1, 1, 1}, {3, 5, 1}, {17, 33, 7}, {8, 32, 256}, {9, 31, 257}, {70, 65, 600}, {130, 40, 33}};
  const DType types[] = {DType::fp32, DType::fp16, DType::bf16, DType::e4m3, DType::e5m2, DType::fp64, DType::s8,
                         DType::u16, DType::s32};
  for (size_t threads : {1, 2, 3}) {
    tilesim::set_num_threads(threads);
    for (const Shape& s : shapes)
      for (DType t : types)
        for (bool special : {false, true}) {
          const auto A = random_codes(t, s.m * s.k, rng, special), B = random_codes(t, s.k * s.n, rng, special);
          std::vector<uint32_t> start(s.m * s.n);
          for (auto& x : start) x = fm::is_float(t) ? fbits(static_cast<float>(rng() % 7) - 3) : rng();
          const auto ref = run_gemm(A, t, B, t, s.m, s.n, s.k, nullptr, start.data(), Engine::reference);
          const auto fast = run_gemm(A, t, B, t, s.m, s.n, s.k, nullptr, start.data(), Engine::fast);
          ASSERT_EQ(fast, ref) << fm::name(t) << " " << s.m << "x" << s.n << "x" << s.k << " threads " << threads
                               << " special " << special;
        }
  }
  tilesim::set_num_threads(0);
}

TEST(LinxGemm, SubnormalsAreKept) {
  const float a[] = {0x1p-130f}, b[] = {0.5f};
  uint32_t acc[1];
  gemm({a, 1, 1}, {b, 1, 1}, nullptr, acc, {DType::fp32, DType::fp32});
  EXPECT_EQ(acc[0], fbits(0x1p-131f));
  // The same through the fast kernel on a shape that uses full micro-tiles.
  std::vector<float> A(16 * 64, 0x1p-130f), B(64 * 64, 0.5f);
  std::vector<uint32_t> C(16 * 64), R(16 * 64);
  gemm({A.data(), 16, 64}, {B.data(), 64, 64}, nullptr, C.data(), {DType::fp32, DType::fp32, false, Engine::fast});
  gemm({A.data(), 16, 64}, {B.data(), 64, 64}, nullptr, R.data(), {DType::fp32, DType::fp32, false, Engine::reference});
  EXPECT_EQ(C, R);
  EXPECT_EQ(C[0], fbits(64 * 0x1p-131f));
}

// The core with B column-major (as the machine passes ZN tiles) equals the row-major run, for
// both engines, float and integer, with and without a start value.
TEST(LinxGemm, CoreColumnMajorBMatchesRowMajor) {
  std::mt19937 rng(21);
  for (const auto& [M, N, K] : {std::tuple<size_t, size_t, size_t>{7, 45, 300}, {16, 32, 8}, {1, 1, 1}}) {
    std::vector<float> A(M * K), B(K * N), Bt(N * K), start(M * N);
    std::vector<int32_t> Ai(M * K), Bi(K * N), Bti(N * K);
    std::uniform_real_distribution<float> u(-2, 2);
    for (size_t i = 0; i < A.size(); ++i) { A[i] = u(rng); Ai[i] = static_cast<int32_t>(rng()); }
    for (size_t k = 0; k < K; ++k)
      for (size_t j = 0; j < N; ++j) {
        B[k * N + j] = Bt[j * K + k] = u(rng);
        Bi[k * N + j] = Bti[j * K + k] = static_cast<int32_t>(rng());
      }
    for (auto& s : start) s = u(rng);
    for (Engine e : {Engine::reference, Engine::fast})
      for (const float* st : {static_cast<const float*>(nullptr), static_cast<const float*>(start.data())}) {
        std::vector<float> r(M * N), c(M * N);
        core::run(core::Domain::f32, A.data(), B.data(), nullptr, st, r.data(), M, N, K, Engine::reference, false, kRules);
        core::run(core::Domain::f32, A.data(), Bt.data(), nullptr, st, c.data(), M, N, K, e, true, kRules);
        ASSERT_EQ(std::memcmp(r.data(), c.data(), r.size() * 4), 0) << M << "x" << N << "x" << K;
        std::vector<int32_t> ri(M * N), ci(M * N);
        core::run(core::Domain::i32, Ai.data(), Bi.data(), nullptr, nullptr, ri.data(), M, N, K, Engine::reference, false, kRules);
        core::run(core::Domain::i32, Ai.data(), Bti.data(), nullptr, nullptr, ci.data(), M, N, K, e, true, kRules);
        ASSERT_EQ(ri, ci);
      }
  }
}

// A rule the core does not implement is Error(Unsupported) before anything is written; only the
// rule of the domain being computed matters (spec 30 §1 "Profile", §3).
TEST(LinxGemm, CoreRejectsUnimplementedRulesBeforeWriting) {
  const float A[1] = {2.0f}, B[1] = {3.0f};
  const int32_t Ai[1] = {2}, Bi[1] = {3};
  core::Rules bad_float = kRules, bad_int = kRules;
  bad_float.float_order = static_cast<core::FloatOrder>(3);
  bad_int.int_overflow = static_cast<core::IntOverflow>(4);
  float out = -1.0f;
  try {
    core::run(core::Domain::f32, A, B, nullptr, nullptr, &out, 1, 1, 1, Engine::fast, false, bad_float);
    ADD_FAILURE() << "accepted";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("floating accumulation order 3 is not implemented"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out, -1.0f);
  int32_t outi = -1;
  EXPECT_THROW(core::run(core::Domain::i32, Ai, Bi, nullptr, nullptr, &outi, 1, 1, 1, Engine::reference, false, bad_int),
               tilesim::Error);
  EXPECT_EQ(outi, -1);
  core::run(core::Domain::f32, A, B, nullptr, nullptr, &out, 1, 1, 1, Engine::fast, false, bad_int);
  EXPECT_EQ(out, 6.0f);
  core::run(core::Domain::i32, Ai, Bi, nullptr, nullptr, &outi, 1, 1, 1, Engine::fast, false, bad_float);
  EXPECT_EQ(outi, 6);
}

// Operand views (the TMATMUL block path reads NZ A and ZN B tiles in place): random shapes across
// micro-tile, K-block and fractal edges, K0 of every element width, values with NaN, Inf,
// subnormals and signed zeros, with and without a start value, 1 and 2 threads, every SIMD target
// Highway compiles for: bit for bit the reference chain on the flattened operands.
TEST(LinxGemm, CoreViewsMatchReferenceEveryTarget) {
  std::mt19937 rng(77);
  const float specials[] = {NAN, INFINITY, -INFINITY, 0x1p-140f, -0x1p-149f, 0.0f, -0.0f, 0x1p100f, -3.5f};
  const auto value = [&](bool special) {
    if (special && rng() % 8 == 0) return specials[rng() % std::size(specials)];
    return std::uniform_real_distribution<float>(-2, 2)(rng);
  };
  struct Shape {
    size_t M, N, K, k0a, k0b;
  };
  std::vector<Shape> shapes = {{1, 1, 1, 8, 8}, {17, 33, 9, 8, 8}, {40, 70, 300, 16, 16}, {13, 64, 257, 32, 64}};
  for (int r = 0; r < 6; ++r) {
    const size_t k0s[] = {4, 8, 16, 32, 64};
    shapes.push_back({1 + rng() % 50, 1 + rng() % 90, 1 + rng() % 600, k0s[rng() % 5], k0s[rng() % 5]});
  }
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (size_t threads : {size_t{1}, size_t{2}}) {
      tilesim::set_num_threads(threads);
      for (size_t si = 0; si < shapes.size(); ++si) {
        const auto [M, N, K, k0a, k0b] = shapes[si];
        const bool special = si % 2 == 1;
        const size_t Mp = (M + 15) / 16 * 16, Np = (N + 15) / 16 * 16, Kpa = (K + k0a - 1) / k0a * k0a,
                     Kpb = (K + k0b - 1) / k0b * k0b;
        // A in NZ order (S = Mp * k0a), B in ZN order (S = Np * k0b); padding holds garbage that
        // must never be read into a valid element's chain.
        std::vector<float> nz(Mp * Kpa, 1e30f), zn(Np * Kpb, -1e30f), A(M * K), Bt(N * K);
        std::vector<int32_t> nzi(Mp * Kpa, 7), zni(Np * Kpb, -7), Ai(M * K), Bti(N * K);
        for (size_t i = 0; i < M; ++i)
          for (size_t k = 0; k < K; ++k) {
            const size_t o = (k / k0a) * Mp * k0a + i * k0a + k % k0a;
            nz[o] = A[i * K + k] = value(special);
            nzi[o] = Ai[i * K + k] = static_cast<int32_t>(rng());
          }
        for (size_t j = 0; j < N; ++j)
          for (size_t k = 0; k < K; ++k) {
            const size_t o = (k / k0b) * Np * k0b + j * k0b + k % k0b;
            zn[o] = Bt[j * K + k] = value(special);
            zni[o] = Bti[j * K + k] = static_cast<int32_t>(rng());
          }
        std::vector<float> start(M * N);
        for (auto& s : start) s = value(special);
        const core::PanelView va{nz.data(), k0a, Mp * k0a}, vb{zn.data(), k0b, Np * k0b};
        const core::PanelView vai{nzi.data(), k0a, Mp * k0a}, vbi{zni.data(), k0b, Np * k0b};
        std::vector<float> bias(N);  // the epilogue (+ bias, default NaN) is fused into the fast chain
        for (auto& b : bias) b = value(special);
        std::vector<int32_t> biasi(N);
        for (auto& b : biasi) b = static_cast<int32_t>(rng());
        for (int variant = 0; variant < 4; ++variant) {
          const bool with_start = variant & 1, with_bias = variant & 2;
          std::vector<float> want(M * N), got(M * N, 5.0f);
          const float* st = with_start ? start.data() : nullptr;
          const float* bi = with_bias ? bias.data() : nullptr;
          core::run(core::Domain::f32, A.data(), Bt.data(), bi, st, want.data(), M, N, K, Engine::reference, true, kRules);
          core::run_views(core::Domain::f32, va, vb, bi, st, got.data(), M, N, K, kRules);
          ASSERT_EQ(std::memcmp(want.data(), got.data(), want.size() * 4), 0)
              << hwy::TargetName(target) << " threads " << threads << " " << M << "x" << N << "x" << K << " k0 " << k0a
              << "/" << k0b << " start " << with_start << " bias " << with_bias;
        }
        for (bool with_bias : {false, true}) {
          std::vector<int32_t> wi(M * N), gi(M * N, 5);
          const int32_t* bi = with_bias ? biasi.data() : nullptr;
          core::run(core::Domain::i32, Ai.data(), Bti.data(), bi, nullptr, wi.data(), M, N, K, Engine::reference, true,
                    kRules);
          core::run_views(core::Domain::i32, vai, vbi, bi, nullptr, gi.data(), M, N, K, kRules);
          ASSERT_EQ(wi, gi) << hwy::TargetName(target) << " " << M << "x" << N << "x" << K << " bias " << with_bias;
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  tilesim::set_num_threads(0);
}
