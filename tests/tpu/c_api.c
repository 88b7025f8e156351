/* Compiled as C (a .c file in tests/tpu): proves tilesim/tpu_kernel.h and "tpu_kernel.h" are valid C and
 * exercises the C API the way a C kernel would. Returns 0, or the line of the first failure. */
#include <stdint.h>
#include <string.h>

#include "tpu_kernel.h" /* the vendor include path (spec 60 §3) */

#define CHECK(cond) \
  do {              \
    if (!(cond)) return __LINE__; \
  } while (0)

int tilesim_tpu_c_smoke(void);
int tilesim_tpu_c_errors(void);

int tilesim_tpu_c_smoke(void) {
  CHECK(tilesim_tpu_init("bm1684x") == 0);
  CHECK(NPU_NUM == 64 && LOCAL_MEM_SIZE == 256 * 1024 && EU_NUM == 16);
  CHECK(tpu_eu_num(DT_FP16) == 32 && tpu_data_type_size(DT_BFP16) == 2);
  /* hardtanh on 1x2x1x4 fp32: x > -1 ? x : -1, then x < 1 ? x : 1 */
  float x[8] = {-3.f, -1.f, -0.5f, 0.f, 0.25f, 1.f, 2.f, -0.f};
  float y[8];
  dim4 shape = {1, 2, 1, 4};
  const local_addr_t a = 0, b = 4096;
  tpu_gdma_cpy_S2L(a, (system_addr_t)(uintptr_t)x, &shape, NULL, NULL, DT_FP32);
  variable_t src = {TENSOR, {.addr = a}};
  variable_t lo = {SCALAR, {.scalar = {.f32 = -1.f}}};
  variable_t hi = {SCALAR, {.scalar = {.f32 = 1.f}}};
  tpu_bdc_greater_select(b, &src, &lo, &src, &lo, &shape, DT_FP32, DT_FP32);
  variable_t mid = {TENSOR, {.addr = b}};
  tpu_bdc_less_select(b, &mid, &hi, &mid, &hi, &shape, DT_FP32, DT_FP32);
  CHECK(tilesim_tpu_last_error_code() == 0);
  tpu_gdma_cpy_L2S((system_addr_t)(uintptr_t)y, b, &shape, NULL, NULL, DT_FP32);
  {
    const float want[8] = {-1.f, -1.f, -0.5f, 0.f, 0.25f, 1.f, 1.f, -0.f};
    CHECK(memcmp(y, want, sizeof want) == 0);
  }
  /* channel 1 lives on NPU 1 at offset 0 (spec 50 §1); on the host NPU k starts k * the NPU
   * stride into tilesim_tpu_local_mem(), which is more than LOCAL_MEM_SIZE (docs/tpu.md host layout) */
  {
    float f;
    const size_t stride = tilesim_tpu_npu_stride();
    CHECK(stride > (size_t)LOCAL_MEM_SIZE && stride % 64 == 0);
    memcpy(&f, tilesim_tpu_local_ptr(LOCAL_MEM_SIZE + 4096), 4);
    CHECK(f == 0.25f);
    CHECK(tilesim_tpu_local_ptr(LOCAL_MEM_SIZE + 4096) == tilesim_tpu_local_mem() + stride + 4096);
    /* and a host write there is what the kernel reads at that local address */
    f = 7.5f;
    memcpy(tilesim_tpu_local_ptr((local_addr_t)(63 * LOCAL_MEM_SIZE + 128)), &f, 4);
    {
      dim4 one = {1, 1, 1, 1};
      float g = 0.f;
      tpu_gdma_cpy_L2S((system_addr_t)(uintptr_t)&g, (local_addr_t)(63 * LOCAL_MEM_SIZE + 128), &one, NULL, NULL,
                       DT_FP32);
      CHECK(g == 7.5f);
    }
  }
  /* layout helpers */
  {
    dim4 st;
    dim4 s2 = {2, 70, 3, 5};
    tpu_aligned_stride(&st, 3, &s2, DT_FP32);
    CHECK(st.c == 16 && st.n == 32 && st.h == 5 && st.w == 1);
    tpu_compact_stride(&st, 0, &s2);
    CHECK(st.c == 15 && st.n == 30);
    CHECK(tpu_npu_index(5 * LOCAL_MEM_SIZE + 64) == 5);
  }
  /* maximum_greater_select with VECTOR indices, int16 */
  {
    int16_t v0[4] = {5, -7, 3, 3}, v1[4] = {4, -6, 3, 9}, out0[4], out1[4];
    uint16_t idx[2] = {0xAAAA, 0xBBBB};
    dim4 s = {1, 1, 1, 4}, vs = {1, 2, 1, 1};
    tpu_gdma_cpy_S2L(0, (system_addr_t)(uintptr_t)v0, &s, NULL, NULL, DT_INT16);
    tpu_gdma_cpy_S2L(64, (system_addr_t)(uintptr_t)v1, &s, NULL, NULL, DT_INT16);
    tpu_gdma_cpy_S2L(128, (system_addr_t)(uintptr_t)idx, &vs, NULL, NULL, DT_UINT16);
    variable_t s0 = {TENSOR, {.addr = 0}}, s1 = {TENSOR, {.addr = 64}};
    variable_t i0 = {VECTOR, {.addr = 128}}, i1 = {SCALAR, {.scalar = {.u16 = 1}}};
    tpu_bdc_maximum_greater_select(192, 256, &s0, &s1, &i0, &i1, &s, DT_INT16, DT_UINT16);
    tpu_gdma_cpy_L2S((system_addr_t)(uintptr_t)out0, 192, &s, NULL, NULL, DT_INT16);
    tpu_gdma_cpy_L2S((system_addr_t)(uintptr_t)out1, 256, &s, NULL, NULL, DT_UINT16);
    CHECK(out0[0] == 5 && out0[1] == -6 && out0[2] == 3 && out0[3] == 9);
    CHECK(out1[0] == (int16_t)0xAAAA && out1[1] == 1 && out1[2] == 1 && out1[3] == 1);
  }
  CHECK(tilesim_tpu_init("bm1688") == 0 && NPU_NUM == 32 && tilesim_tpu_align_bytes() == 16);
  CHECK(strcmp(tilesim_tpu_chip(), "bm1688") == 0);
  return 0;
}

/* RECORD mode: a rejected call writes nothing and reports code + message. */
int tilesim_tpu_c_errors(void) {
  float x[4] = {1, 2, 3, 4};
  dim4 shape = {1, 1, 1, 4};
  variable_t t = {TENSOR, {.addr = 0}};
  variable_t bad;
  unsigned char before[256];
  tilesim_tpu_set_error_mode(TILESIM_TPU_ERRORS_RECORD);
  CHECK(tilesim_tpu_init("bm9999") == 4); /* 1 + Unsupported */
  CHECK(strstr(tilesim_tpu_last_error(), "bm1684x, bm1688, bm1690") != NULL);
  CHECK(tilesim_tpu_init(NULL) == 0 && tilesim_tpu_last_error_code() == 0);
  tpu_gdma_cpy_S2L(0, (system_addr_t)(uintptr_t)x, &shape, NULL, NULL, DT_FP32);
  memcpy(before, tilesim_tpu_local_mem(), sizeof before);
  /* a data_type_t value the vendor does not define, as C allows */
  tpu_bdc_greater_select(64, &t, &t, &t, &t, &shape, (data_type_t)99, DT_FP32);
  CHECK(tilesim_tpu_last_error_code() == 4);
  CHECK(strstr(tilesim_tpu_last_error(), "tpu_bdc_greater_select: src0_src1_dtype 99 is not a data_type_t value [docs/tpu.md#checks]") != NULL);
  /* a var_type_t value out of range */
  bad.type = (var_type_t)7;
  bad.context.addr = 0;
  tpu_bdc_less_select(64, &t, &bad, &t, &t, &shape, DT_FP32, DT_FP32);
  CHECK(tilesim_tpu_last_error_code() == 2);
  CHECK(strstr(tilesim_tpu_last_error(), "src1->type must be TENSOR (0), SCALAR (1) or VECTOR (2), got 7") != NULL);
  tpu_bdc_minimum_less_select(64, 64, &t, &t, &t, &t, &shape, DT_FP32, DT_FP32);
  CHECK(tilesim_tpu_last_error_code() == 2 && strstr(tilesim_tpu_last_error(), "must not overlap"));
  tpu_bdc_equal_select(64, &t, NULL, &t, &t, &shape, DT_FP32, DT_FP32);
  CHECK(strstr(tilesim_tpu_last_error(), "src1 is NULL") != NULL);
  CHECK(memcmp(before, tilesim_tpu_local_mem(), sizeof before) == 0);
  /* a host pointer of a local address outside local memory: NULL and a Bounds error */
  CHECK(tilesim_tpu_local_ptr((local_addr_t)(NPU_NUM * LOCAL_MEM_SIZE)) == NULL);
  CHECK(tilesim_tpu_last_error_code() == 3);
  CHECK(strstr(tilesim_tpu_last_error(), "tilesim_tpu_local_ptr: address 0x1000000 is outside local memory") != NULL);
  /* the next good call clears the error */
  tpu_bdc_equal_select(64, &t, &t, &t, &t, &shape, DT_FP32, DT_FP32);
  CHECK(tilesim_tpu_last_error_code() == 0 && tilesim_tpu_last_error()[0] == 0);
  tilesim_tpu_set_error_mode(TILESIM_TPU_ERRORS_ABORT);
  return 0;
}
