// The example kernels of examples/ascendc (softmax_custom, layernorm_custom) through ICPU_RUN_KF:
// bit-identical results for 1, 2 and 4 threads, and agreement with an fp64 golden within the
// tolerance each example states. add_custom is covered by kernel_launch_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../../examples/ascendc/layernorm_custom.hpp"
#include "../../examples/ascendc/softmax_custom.hpp"
#include "kernel_operator.h"
#include "tikicpulib.h"
#include "tilesim/parallel.hpp"

namespace {

struct Gm {
  size_t bytes;
  uint8_t* p;
  explicit Gm(size_t n) : bytes(n), p(static_cast<uint8_t*>(AscendC::GmAlloc(n))) {}
  ~Gm() { AscendC::GmFree(p); }
  Gm(const Gm&) = delete;
  Gm& operator=(const Gm&) = delete;
  float* f() const { return reinterpret_cast<float*>(p); }
};

struct Examples : ::testing::Test {
  void SetUp() override {
    AscendC::set_product("atlas_a2");
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
  }
  void TearDown() override { tilesim::set_num_threads(0); }
};

std::vector<uint8_t> run_softmax(unsigned threads, uint32_t rows, uint32_t cols, uint32_t blocks, uint32_t seed,
                                 double* err) {
  tilesim::set_num_threads(threads);
  const size_t n = size_t(rows) * cols;
  Gm x(n * 4), y(n * 4), tiling(sizeof(SoftmaxTiling));
  const SoftmaxTiling t{rows, cols, rows / blocks, softmax_ex::kRowsPerTile};
  std::memcpy(tiling.p, &t, sizeof t);
  softmax_ex::fill_inputs(x.f(), n, seed);
  std::memset(y.p, 0xFF, y.bytes);  // NaN: any element the kernel misses fails the golden check
  ICPU_RUN_KF(softmax_custom, blocks, x.p, y.p, tiling.p);
  *err = softmax_ex::max_rel_error(x.f(), y.f(), rows, cols);
  return std::vector<uint8_t>(y.p, y.p + y.bytes);
}

TEST_F(Examples, SoftmaxBitIdenticalAcrossThreadsAndWithinTolerance) {
  using namespace softmax_ex;
  double e1 = 1, e2 = 1, e4 = 1;
  const auto one = run_softmax(1, kRows, kCols, kBlocks, 2024, &e1);
  const auto two = run_softmax(2, kRows, kCols, kBlocks, 2024, &e2);
  const auto four = run_softmax(4, kRows, kCols, kBlocks, 2024, &e4);
  EXPECT_TRUE(one == two);
  EXPECT_TRUE(one == four);
  EXPECT_LE(e1, kRelTol);
  EXPECT_GT(e1, 0.0);  // fp32, not fp64: some rounding error must show
  EXPECT_EQ(e1, e2);
}

// Another shape and seed: 64 rows of 2048 on 4 blocks (4 tiles of 4 rows each per block).
TEST_F(Examples, SoftmaxOtherShape) {
  double e1 = 1, e2 = 1;
  const auto one = run_softmax(1, 64, 2048, 4, 99, &e1);
  const auto two = run_softmax(2, 64, 2048, 4, 99, &e2);
  EXPECT_TRUE(one == two);
  EXPECT_LE(e1, softmax_ex::kRelTol);
}

// A row of equal values gives exactly 1/cols; one dominant element (x - max = -40 elsewhere) gives a
// row sum that rounds to exactly 1, so 1 at the maximum and fp32 exp(-40) ~ 4.2e-18 elsewhere.
TEST_F(Examples, SoftmaxKnownAnswers) {
  const uint32_t rows = 8, cols = 256;
  Gm x(rows * cols * 4), y(rows * cols * 4), tiling(sizeof(SoftmaxTiling));
  const SoftmaxTiling t{rows, cols, rows / 2, 4};
  std::memcpy(tiling.p, &t, sizeof t);
  for (uint32_t i = 0; i < rows * cols; ++i) x.f()[i] = 3.5f;
  for (uint32_t c = 0; c < cols; ++c) x.f()[cols + c] = c == 17 ? 20.0f : -20.0f;
  ICPU_RUN_KF(softmax_custom, 2, x.p, y.p, tiling.p);
  for (uint32_t c = 0; c < cols; ++c) EXPECT_EQ(y.f()[c], 1.0f / 256.0f) << c;
  EXPECT_EQ(y.f()[cols + 17], 1.0f);
  const double tiny = std::exp(-40.0);
  for (uint32_t c = 0; c < cols; ++c) {
    if (c == 17) continue;
    EXPECT_NEAR(y.f()[cols + c], tiny, tiny * 1e-5) << c;
  }
}

std::vector<uint8_t> run_layernorm(unsigned threads, uint32_t rows, uint32_t cols, uint32_t blocks, uint32_t seed,
                                   double* err) {
  tilesim::set_num_threads(threads);
  const size_t n = size_t(rows) * cols;
  Gm x(n * 4), y(n * 4), gamma(cols * 4), beta(cols * 4), tiling(sizeof(LayerNormTiling));
  const LayerNormTiling t{rows, cols, rows / blocks, layernorm_ex::kRowsPerTile, layernorm_ex::kEps};
  std::memcpy(tiling.p, &t, sizeof t);
  layernorm_ex::fill_inputs(x.f(), gamma.f(), beta.f(), rows, cols, seed);
  std::memset(y.p, 0xFF, y.bytes);
  ICPU_RUN_KF(layernorm_custom, blocks, x.p, gamma.p, beta.p, y.p, tiling.p);
  *err = layernorm_ex::max_abs_error(x.f(), gamma.f(), beta.f(), y.f(), rows, cols, layernorm_ex::kEps);
  return std::vector<uint8_t>(y.p, y.p + y.bytes);
}

TEST_F(Examples, LayerNormBitIdenticalAcrossThreadsAndWithinTolerance) {
  using namespace layernorm_ex;
  double e1 = 1, e2 = 1, e4 = 1;
  const auto one = run_layernorm(1, kRows, kCols, kBlocks, 7, &e1);
  const auto two = run_layernorm(2, kRows, kCols, kBlocks, 7, &e2);
  const auto four = run_layernorm(4, kRows, kCols, kBlocks, 7, &e4);
  EXPECT_TRUE(one == two);
  EXPECT_TRUE(one == four);
  EXPECT_LE(e1, kAbsTol);
  EXPECT_GT(e1, 0.0);
}

TEST_F(Examples, LayerNormOtherShape) {
  double e1 = 1, e2 = 1;
  const auto one = run_layernorm(1, 48, 512, 3, 5, &e1);
  const auto two = run_layernorm(2, 48, 512, 3, 5, &e2);
  EXPECT_TRUE(one == two);
  EXPECT_LE(e1, layernorm_ex::kAbsTol);
}

// Constant rows: mean = the value, variance 0, so y = beta exactly (0 * rstd * gamma + beta).
TEST_F(Examples, LayerNormConstantRowsGiveBeta) {
  const uint32_t rows = 4, cols = 64;
  Gm x(rows * cols * 4), y(rows * cols * 4), gamma(cols * 4), beta(cols * 4), tiling(sizeof(LayerNormTiling));
  const LayerNormTiling t{rows, cols, rows, 4, 1e-5f};
  std::memcpy(tiling.p, &t, sizeof t);
  for (uint32_t i = 0; i < rows * cols; ++i) x.f()[i] = float(i / cols) * 0.25f - 3.0f;
  for (uint32_t c = 0; c < cols; ++c) {
    gamma.f()[c] = 1.5f;
    beta.f()[c] = float(c) - 20.0f;
  }
  ICPU_RUN_KF(layernorm_custom, 1, x.p, gamma.p, beta.p, y.p, tiling.p);
  for (uint32_t i = 0; i < rows * cols; ++i) EXPECT_EQ(y.f()[i], float(i % cols) - 20.0f) << i;
}

}  // namespace
