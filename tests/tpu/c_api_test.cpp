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

// Each core of a launch starts from zeroed local memory although tilesim zeroes only what was
// written (Device::zero_memory): every core images its whole local memory into global memory
// first, then writes through each kind of operation at scattered offsets without ever taking
// tilesim_tpu_local_mem(). bm1690 has 8 cores.
namespace {
struct image_args {
  global_addr_t out;  // one whole local memory image per core
};
int dirty_cores(const void* p) {
  const image_args* a = static_cast<const image_args*>(p);
  const int esz = 4, per_npu = LOCAL_MEM_SIZE / esz;
  dim4 whole = {1, NPU_NUM, 2, per_npu / 2};
  tpu_gdma_cpy_L2S(a->out + global_addr_t(tpu_core_index()) * NPU_NUM * LOCAL_MEM_SIZE, 0, &whole, nullptr,
                   nullptr, DT_INT32);
  const local_addr_t q = LOCAL_MEM_SIZE / 8;  // granule-scattered offsets, some on start NPU 5
  dim4 s = {1, 70, 3, 5};
  scalar_t c;
  c.s32 = 0x01020304;
  tpu_gdma_set_C_local(q, c, &s, nullptr, DT_INT32);
  tpu_gdma_cpy_L2L(5 * LOCAL_MEM_SIZE + 3 * q, q, &s, nullptr, nullptr, DT_INT32);
  tpu_bdc_set_C(2 * q, c, &s, nullptr, DT_INT32);
  tpu_bdc_int_add(7 * q, q, 2 * q, &s, nullptr, nullptr, nullptr, DT_INT32, DT_INT32, DT_INT32, 0, RM_HALF_TO_EVEN,
                  true);
  variable_t x{TENSOR, {.addr = q}}, y{SCALAR, {.scalar = c}};
  tpu_bdc_greater_select(4 * q + 64, &x, &y, &x, &y, &s, DT_INT32, DT_INT32);
  tpu_bdc_maximum_greater_select(6 * q, 6 * q + 4096, &x, &y, &x, &y, &s, DT_INT32, DT_INT32);
  return 0;
}
TPUKERNEL_FUNC_REGISTER(dirty_cores)
}  // namespace

TEST(TpuCApi, LaunchCoresSeeZeroedLocalMemory) {
  ASSERT_EQ(tilesim_tpu_init("bm1690"), 0);
  const size_t image = size_t(tpu_npu_num()) * tpu_local_mem_size_per_npu();
  const int cores = tpu_core_num();
  image_args a{tilesim_tpu_global_alloc(image * size_t(cores))};
  for (int launch = 0; launch < 2; ++launch) {  // the second launch starts from the first's last core
    ASSERT_EQ(tilesim_tpu_launch("dirty_cores", &a, sizeof a), 0) << tilesim_tpu_last_error();
    const auto* img = static_cast<const unsigned char*>(tilesim_tpu_global_ptr(a.out));
    for (int core = 0; core < cores; ++core) {
      size_t nonzero = 0;
      for (size_t i = 0; i < image; ++i) nonzero += img[size_t(core) * image + i] != 0;
      EXPECT_EQ(nonzero, 0u) << "launch " << launch << " core " << core;
    }
  }
  tilesim_tpu_global_free(a.out);
  ASSERT_EQ(tilesim_tpu_init("bm1684x"), 0);
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
