/* Compiled as C: the runtime of spec 51 §1 seen from a C kernel — TPUKERNEL_FUNC_REGISTER,
 * tilesim_tpu_launch over the chip's cores (each with its own zeroed local memory, global memory
 * shared), TPUKERNEL_ASSERT, the parallel state, global memory from C and the chip macros.
 * Each function returns 0, or the line of the first failing check. */
#include <string.h>

#include "tpu_kernel.h"

#define CHECK(cond)               \
  do {                            \
    if (!(cond)) return __LINE__; \
  } while (0)

int tilesim_tpu_c_runtime(void);
int tilesim_tpu_c_assert(void);
int tilesim_tpu_c_chip_macros(void);

typedef struct {
  global_addr_t out; /* one int32 per core: core index * 100 + core count, or -1 if dirty */
} cores_args_t;

/* Every core finds its local memory zeroed, leaves a mark in it, and reports through global memory. */
static int probe_cores(const void* p) {
  const cores_args_t* a = (const cores_args_t*)p;
  const int core = tpu_core_index();
  int32_t v = core * 100 + tpu_core_num();
  const unsigned char* mem = tilesim_tpu_local_mem();
  int i;
  for (i = 0; i < 4096; ++i)
    if (mem[i]) v = -1;
  {
    scalar_t c;
    dim4 s = {1, 1, 1, 1};
    c.s32 = 7;
    tpu_gdma_set_C_local(0, c, &s, NULL, DT_INT32); /* dirty the local memory */
    c.s32 = v;
    tpu_gdma_set_C_system(a->out + (global_addr_t)core * 4, c, &s, NULL, DT_INT32);
  }
  return 0;
}
TPUKERNEL_FUNC_REGISTER(probe_cores)

static int g_after_assert = 0;
static int failing_assert(const void* p) {
  (void)p;
  TPUKERNEL_ASSERT(1 + 1 == 2);
  TPUKERNEL_ASSERT(tpu_npu_num() == 3);
  g_after_assert = 1; /* not reached inside a launch in RECORD mode */
  return 0;
}
TPUKERNEL_FUNC_REGISTER(failing_assert)

int tilesim_tpu_c_runtime(void) {
  static const char* chips[3] = {"bm1684x", "bm1688", "bm1690"};
  static const int cores[3] = {1, 2, 8};
  int k;
  for (k = 0; k < 3; ++k) {
    cores_args_t args;
    int32_t* out;
    int i;
    CHECK(tilesim_tpu_init(chips[k]) == 0);
    CHECK(tpu_core_num() == cores[k] && tpu_core_index() == 0);
    args.out = tilesim_tpu_global_alloc(8 * 4);
    CHECK(args.out != 0 && (args.out >> 62) == 1 && args.out % 64 == 0);
    out = (int32_t*)tilesim_tpu_global_ptr(args.out);
    CHECK(out != NULL && out[0] == 0 && out[7] == 0); /* zeroed */
    CHECK(tilesim_tpu_launch("probe_cores", &args, sizeof args) == 0);
    for (i = 0; i < 8; ++i) CHECK(out[i] == (i < cores[k] ? i * 100 + cores[k] : 0));
    /* the caller's own local memory (core 0 outside the launch) is not the cores' */
    CHECK(tilesim_tpu_local_mem()[0] == 0);
    tilesim_tpu_global_free(args.out);
  }
  /* parallel state */
  CHECK(!tpu_is_parallel_state());
  tpu_parallel_start();
  CHECK(tpu_is_parallel_state());
  tpu_parallel_end();
  CHECK(!tpu_is_parallel_state());
  tpu_initialize();
  tpu_poll();
  /* errors, RECORD mode */
  tilesim_tpu_set_error_mode(TILESIM_TPU_ERRORS_RECORD);
  CHECK(tilesim_tpu_launch("no_such_kernel", NULL, 0) == 2);
  CHECK(strstr(tilesim_tpu_last_error(), "tilesim_tpu_launch: no kernel registered as 'no_such_kernel'") != NULL);
  CHECK(strstr(tilesim_tpu_last_error(), "probe_cores") != NULL);
  {
    /* a freed global address, then one past an allocation's end: errors, nothing written */
    global_addr_t g = tilesim_tpu_global_alloc(256);
    dim4 s = {1, 1, 1, 64};
    unsigned char before[512];
    memcpy(before, tilesim_tpu_local_mem(), sizeof before);
    tpu_gdma_cpy_S2L(0, g + 4, &s, NULL, NULL, DT_FP32); /* bytes [4, 260) of a 256-byte allocation */
    CHECK(tilesim_tpu_last_error_code() == 3);
    CHECK(strstr(tilesim_tpu_last_error(), "tpu_gdma_cpy_S2L: src [") != NULL);
    CHECK(strstr(tilesim_tpu_last_error(), "(256 bytes) is outside the live global allocation") != NULL);
    tilesim_tpu_global_free(g);
    CHECK(tilesim_tpu_last_error_code() == 0);
    tpu_gdma_cpy_S2L(0, g, &s, NULL, NULL, DT_FP32);
    CHECK(tilesim_tpu_last_error_code() == 3 && strstr(tilesim_tpu_last_error(), "lies in no live global allocation"));
    tilesim_tpu_global_free(g);
    CHECK(tilesim_tpu_last_error_code() == 3 && strstr(tilesim_tpu_last_error(), "not the base of a live global allocation"));
    CHECK(tilesim_tpu_global_ptr(g) == NULL && tilesim_tpu_last_error_code() == 3);
    CHECK(tilesim_tpu_global_alloc(0) == 0 && tilesim_tpu_last_error_code() == 2);
    CHECK(memcmp(before, tilesim_tpu_local_mem(), sizeof before) == 0);
  }
  tilesim_tpu_set_error_mode(TILESIM_TPU_ERRORS_ABORT);
  CHECK(tilesim_tpu_init(NULL) == 0);
  return 0;
}

int tilesim_tpu_c_assert(void) {
  tilesim_tpu_set_error_mode(TILESIM_TPU_ERRORS_RECORD);
  CHECK(tilesim_tpu_init("bm1688") == 0);
  /* inside a launch: the kernel ends at the failing assert; the code is 1 + Fault */
  g_after_assert = 0;
  CHECK(tilesim_tpu_launch("failing_assert", NULL, 0) == 5);
  CHECK(g_after_assert == 0);
  CHECK(tilesim_tpu_last_error_code() == 5);
  CHECK(strstr(tilesim_tpu_last_error(), "TPUKERNEL_ASSERT: condition `tpu_npu_num() == 3` failed at ") != NULL);
  CHECK(strstr(tilesim_tpu_last_error(), "runtime_c.c:") != NULL);
  CHECK(strstr(tilesim_tpu_last_error(), "in failing_assert()") != NULL);
  /* a direct call runs as core 0: recorded, and the kernel goes on */
  g_after_assert = 0;
  failing_assert(NULL);
  CHECK(g_after_assert == 1 && tilesim_tpu_last_error_code() == 5);
  /* a later launch that succeeds reports 0 */
  {
    cores_args_t args;
    args.out = tilesim_tpu_global_alloc(64);
    CHECK(tilesim_tpu_launch("probe_cores", &args, sizeof args) == 0 && tilesim_tpu_last_error_code() == 0);
    tilesim_tpu_global_free(args.out);
  }
  tilesim_tpu_set_error_mode(TILESIM_TPU_ERRORS_ABORT);
  CHECK(tilesim_tpu_init(NULL) == 0);
  return 0;
}

/* The vendor macros and chip queries per chip (spec 51 §1 table). */
int tilesim_tpu_c_chip_macros(void) {
  dim4 st, s = {2, 3, 4, 5};
  CHECK(tilesim_tpu_init("bm1684x") == 0);
  CHECK(NPU_NUM == 64 && LOCAL_MEM_SIZE == 262144 && LOCAL_MEM_BANKS == 16 && BANK_SIZE == 16384);
  CHECK(EU_NUM == 16 && tpu_eu_num(DT_INT8) == 64 && tpu_data_type_bits(DT_INT4) == 4);
  /* ALIGN(h*w, EU_NUM(dtype)) * size: fp32 5x3 -> 16 * 4; fp16 5x3 -> 32 * 2; int8 -> 64 */
  CHECK(tpu_aligned_feature_size(5, 3, DT_FP32) == 64 && tpu_aligned_feature_size(5, 3, DT_FP16) == 64);
  CHECK(tpu_aligned_feature_size(17, 1, DT_FP32) == 128 && tpu_aligned_feature_size(5, 3, DT_INT8) == 64);
  tpu_continuous_stride(&st, &s);
  CHECK(st.w == 1 && st.h == 5 && st.c == 20 && st.n == 60);
  CHECK(ALIGN(70, 64) == 128 && ALIGN_DOWN(70, 64) == 64 && DIV_UP(70, 64) == 2 && DIV_UP(0, 64) == 0);
  CHECK(MIN(3, 4) == 3 && MAX(3, 4) == 4);
  CHECK(tilesim_tpu_init("bm1688") == 0);
  CHECK(NPU_NUM == 32 && LOCAL_MEM_SIZE == 131072 && LOCAL_MEM_BANKS == 16 && BANK_SIZE == 8192);
  CHECK(EU_NUM == 4 && tpu_aligned_feature_size(5, 3, DT_FP32) == 64 && tpu_core_num() == 2);
  CHECK(tilesim_tpu_init("bm1690") == 0);
  CHECK(NPU_NUM == 64 && BANK_SIZE == 16384 && tpu_core_num() == 8);
  CHECK(sizeof(scalar_t) == 4 && sizeof(dim4) == 16 && sizeof(local_addr_t) == 4 && sizeof(global_addr_t) == 8);
  CHECK(RM_HALF_TO_EVEN == 0 && RM_HALF_DOWN == 6 && DT_BFP16 == 11 && DT_FP8E4M3 == 47);
  CHECK(tilesim_tpu_init(NULL) == 0);
  return 0;
}
