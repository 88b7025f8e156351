/* hardtanh(x) = min(max(x, -1), 1) written the way Sophgo TPU-Kernel kernels do it: two BDC
 * compare-selects with SCALAR bounds, on a 64-byte aligned tensor in local memory (seed 001).
 * Built as a C program against the vendor include "tpu_kernel.h"; checks and prints its result. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "tpu_kernel.h"

#define N 1
#define C 70 /* not a multiple of NPU_NUM: channels 64..69 go to slot 1 */
#define H 3
#define W 7 /* H*W = 21, not a multiple of EU_NUM */

static float host_in[N * C * H * W], host_out[N * C * H * W];

static void hardtanh(local_addr_t out, local_addr_t in, const dim4* shape) {
  variable_t x = {TENSOR, {.addr = in}};
  variable_t y = {TENSOR, {.addr = out}};
  variable_t lo = {SCALAR, {.scalar = {.f32 = -1.f}}};
  variable_t hi = {SCALAR, {.scalar = {.f32 = 1.f}}};
  tpu_bdc_greater_select(out, &x, &lo, &x, &lo, shape, DT_FP32, DT_FP32); /* y = x > -1 ? x : -1 */
  tpu_bdc_less_select(out, &y, &hi, &y, &hi, shape, DT_FP32, DT_FP32);   /* y = y < 1 ? y : 1 */
}

int main(void) {
  int i, bad = 0;
  dim4 shape = {N, C, H, W}, stride;
  const local_addr_t in = 0;
  local_addr_t out;
  uint32_t s = 12345;
  if (tilesim_tpu_init("bm1684x") != 0) return 1;
  for (i = 0; i < N * C * H * W; ++i) {
    s = s * 1103515245u + 12345u;
    host_in[i] = (float)((int)(s >> 16) % 601 - 300) / 100.f; /* -3.00 .. 3.00 */
  }
  host_in[0] = -0.f;
  host_in[1] = NAN;
  /* place the output after the input: n stride of the aligned layout, in bytes */
  tpu_aligned_stride(&stride, 0, &shape, DT_FP32);
  out = (local_addr_t)(N * stride.n * 4);
  tpu_gdma_cpy_S2L(in, (system_addr_t)(uintptr_t)host_in, &shape, NULL, NULL, DT_FP32);
  hardtanh(out, in, &shape);
  tpu_gdma_cpy_L2S((system_addr_t)(uintptr_t)host_out, out, &shape, NULL, NULL, DT_FP32);
  for (i = 0; i < N * C * H * W; ++i) {
    const float x = host_in[i];
    /* NaN > -1 is false -> -1; then -1 < 1 keeps -1 (spec 50 §3: NaN compares false) */
    const float want = isnan(x) ? -1.f : x > 1.f ? 1.f : x < -1.f ? -1.f : x;
    if (host_out[i] != want || signbit(host_out[i]) != signbit(want)) {
      if (bad++ < 5) printf("mismatch at %d: hardtanh(%g) = %g, want %g\n", i, x, host_out[i], want);
    }
  }
  printf("hardtanh on %s: [%d, %d, %d, %d] fp32, NPU_NUM %d, c_stride %d: %s (x[0] = -0 -> %g, "
         "x[1] = NaN -> %g, x[2] = %g -> %g)\n",
         tilesim_tpu_chip(), N, C, H, W, NPU_NUM, stride.c, bad ? "FAILED" : "ok", host_out[0],
         host_out[1], host_in[2], host_out[2]);
  return bad ? 1 : 0;
}
