/* hardtanh(x) = min(max(x, lo), hi) as a TPU-Kernel kernel: global memory in, tiles of
 * [1, NPU_NUM, 1, w] through local memory, two BDC compare-selects with SCALAR bounds (the way
 * torch-tpu's nodechip_hardtanh.c does it), global memory out. A C program: the kernel, its
 * TPUKERNEL_FUNC_REGISTER entry (hardtanh_kernel.h, which bench/bench_tpu.cpp times too), and a
 * host driver.
 *
 *   example_tpu_hardtanh                                  self-check on known answers
 *   example_tpu_hardtanh DTYPE N LO HI in.bin out.bin     run on a file (check_examples.py)
 *
 * Selects move bits (spec 50 §3): a NaN input comes out with its own bits. */
#include <math.h>
#include <stdint.h>

#include "tpu_example_io.h"

#include "hardtanh_kernel.h"

static int run(int dtype, int n, float lo, float hi, global_addr_t in, global_addr_t out) {
  hardtanh_args_t args;
  scalar_t lo32, hi32;
  memset(&args, 0, sizeof args);
  lo32.f32 = lo;
  hi32.f32 = hi;
  args.in = in;
  args.out = out;
  args.length = n;
  args.dtype = dtype;
  /* the bounds in the kernel's dtype, rounded to nearest even as torch-tpu's driver does */
  args.lo = tpu_cast(lo32, (data_type_t)dtype, DT_FP32, RM_HALF_TO_EVEN);
  args.hi = tpu_cast(hi32, (data_type_t)dtype, DT_FP32, RM_HALF_TO_EVEN);
  return tilesim_tpu_launch("example_hardtanh", &args, sizeof args);
}

int main(int argc, char** argv) {
  example_init();
  if (argc == 7) {
    const int dt = example_dtype(argv[1]), n = atoi(argv[2]);
    const size_t bytes = (size_t)n * (size_t)tpu_data_type_size((data_type_t)dt);
    global_addr_t in = example_load(argv[5], bytes), out = tilesim_tpu_global_alloc(bytes);
    const int rc = run(dt, n, (float)atof(argv[3]), (float)atof(argv[4]), in, out);
    if (rc) return fprintf(stderr, "%s\n", tilesim_tpu_last_error()), rc;
    example_save(argv[6], out, bytes);
    return 0;
  }
  {
    /* self-check: 1000 fp32 values (not a multiple of NPU_NUM), hardtanh to [-1, 1] */
    enum { n = 1000 };
    global_addr_t in = tilesim_tpu_global_alloc(n * 4), out = tilesim_tpu_global_alloc(n * 4);
    float* x = (float*)tilesim_tpu_global_ptr(in);
    const float* y = (const float*)tilesim_tpu_global_ptr(out);
    int i, bad = 0;
    for (i = 0; i < n; ++i) x[i] = (float)(i % 61 - 30) / 10.f; /* -3.0 .. 3.0 */
    x[0] = -0.f;
    x[1] = NAN;
    if (run(DT_FP32, n, -1.f, 1.f, in, out)) return fprintf(stderr, "%s\n", tilesim_tpu_last_error()), 1;
    for (i = 0; i < n; ++i) {
      const float want = isnan(x[i]) ? x[i] : x[i] > 1.f ? 1.f : x[i] < -1.f ? -1.f : x[i];
      if (memcmp(&y[i], &want, 4) != 0 && bad++ < 5) printf("mismatch at %d: %g -> %g, want %g\n", i, x[i], y[i], want);
    }
    printf("hardtanh on %s (%d cores): %d fp32 elements: %s\n", tilesim_tpu_chip(), tpu_core_num(), n,
           bad ? "FAILED" : "ok");
    tilesim_tpu_global_free(in);
    tilesim_tpu_global_free(out);
    return bad ? 1 : 0;
  }
}
