// Runs the C-compiled checks of c_api.c, and the default ABORT error mode of the C API.
#include <gtest/gtest.h>

#include <thread>

#include "tilesim/tpu_kernel.h"

extern "C" int tilesim_tpu_c_smoke(void);
extern "C" int tilesim_tpu_c_errors(void);
extern "C" int tilesim_tpu_c_runtime(void);
extern "C" int tilesim_tpu_c_assert(void);
extern "C" int tilesim_tpu_c_chip_macros(void);

TEST(TpuCApi, SmokeFromC) {
  EXPECT_EQ(tilesim_tpu_c_smoke(), 0) << "failed at c_api.c line";
}
TEST(TpuCApi, ErrorsFromC) {
  EXPECT_EQ(tilesim_tpu_c_errors(), 0) << "failed at c_api.c line";
}

// spec 51 §1: registry, launch per core, global memory, stale addresses (runtime_c.c).
TEST(TpuCApi, RuntimeFromC) {
  EXPECT_EQ(tilesim_tpu_c_runtime(), 0) << "failed at runtime_c.c line";
}
TEST(TpuCApi, KernelAssertFromC) {
  EXPECT_EQ(tilesim_tpu_c_assert(), 0) << "failed at runtime_c.c line";
}
TEST(TpuCApi, ChipMacrosFromC) {
  EXPECT_EQ(tilesim_tpu_c_chip_macros(), 0) << "failed at runtime_c.c line";
}

TEST(TpuCApiDeathTest, FailingAssertAbortsByDefault) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(tilesim_tpu_assert_fail("x > 0", "k.c", 12, "kern"),
               "tilesim: TPUKERNEL_ASSERT: condition `x > 0` failed at k.c:12 in kern\\(\\)");
}

// Each thread has its own device (spec 50 §5: "the current thread's simulated device").
TEST(TpuCApi, DevicePerThread) {
  ASSERT_EQ(tilesim_tpu_init("bm1688"), 0);
  int other = 0;
  std::thread t([&] { other = tpu_npu_num(); });
  t.join();
  EXPECT_EQ(other, 64);  // the default chip, created implicitly
  EXPECT_EQ(tpu_npu_num(), 32);
}

TEST(TpuCApiDeathTest, AbortModePrintsAndAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  dim4 shape = {1, 1, 1, 0};
  variable_t t{};
  EXPECT_DEATH(tpu_bdc_greater_select(0, &t, &t, &t, &t, &shape, DT_FP32, DT_FP32),
               "tilesim: tpu_bdc_greater_select: shape->w must be in \\[1, 65535\\], got 0");
}
