/* relu(a + b) as a TPU-Kernel kernel: tiles of [1, NPU_NUM, 1, w] through local memory,
 * tpu_bdc_fp_add then tpu_bdc_relu (spec 51 §3, spec 15 add and relu: fp16/bf16 computed in fp32
 * and rounded once; a NaN result is the canonical quiet NaN). Cores split the elements.
 *
 *   example_tpu_add_relu                                self-check on known answers
 *   example_tpu_add_relu DTYPE N a.bin b.bin out.bin    run on files (check_examples.py) */
#include <math.h>
#include <stdint.h>

#include "tpu_example_io.h"

typedef struct {
  global_addr_t a, b, out;
  int length;
  int dtype;
} add_relu_args_t;

static int example_add_relu(const void* p) {
  const add_relu_args_t* k = (const add_relu_args_t*)p;
  const data_type_t dt = (data_type_t)k->dtype;
  const int esz = tpu_data_type_size(dt);
  /* three tiles: a, b (the sum is written over a), out */
  const int third = ALIGN_DOWN(LOCAL_MEM_SIZE / 3, 64);
  const local_addr_t a_l = 0, b_l = (local_addr_t)third, o_l = (local_addr_t)(2 * third);
  const int wmax = ALIGN_DOWN(third / esz, tpu_eu_num(dt));
  const int slice = DIV_UP(k->length, tpu_core_num());
  const int begin = MIN(k->length, slice * tpu_core_index()), end = MIN(k->length, begin + slice);
  int done = begin;
  TPUKERNEL_ASSERT(dt == DT_FP32 || dt == DT_FP16 || dt == DT_BFP16);
  tpu_initialize();
  while (done < end) {
    const int todo = end - done;
    dim4 shape = {1, 1, 1, 1};
    const global_addr_t off = (global_addr_t)done * esz;
    if (todo >= NPU_NUM) {
      shape.c = NPU_NUM;
      shape.w = MIN(todo / NPU_NUM, wmax);
    } else {
      shape.c = todo;
    }
    tpu_gdma_cpy_S2L(a_l, k->a + off, &shape, NULL, NULL, dt);
    tpu_gdma_cpy_S2L(b_l, k->b + off, &shape, NULL, NULL, dt);
    tpu_bdc_fp_add(a_l, a_l, b_l, &shape, NULL, NULL, NULL, dt);
    tpu_bdc_relu(o_l, a_l, &shape, NULL, NULL, dt);
    tpu_gdma_cpy_L2S(k->out + off, o_l, &shape, NULL, NULL, dt);
    done += shape.c * shape.w;
  }
  tpu_poll();
  return 0;
}
TPUKERNEL_FUNC_REGISTER(example_add_relu)

static int run(int dtype, int n, global_addr_t a, global_addr_t b, global_addr_t out) {
  add_relu_args_t args;
  memset(&args, 0, sizeof args);
  args.a = a;
  args.b = b;
  args.out = out;
  args.length = n;
  args.dtype = dtype;
  return tilesim_tpu_launch("example_add_relu", &args, sizeof args);
}

int main(int argc, char** argv) {
  example_init();
  if (argc == 6) {
    const int dt = example_dtype(argv[1]), n = atoi(argv[2]);
    const size_t bytes = (size_t)n * (size_t)tpu_data_type_size((data_type_t)dt);
    global_addr_t a = example_load(argv[3], bytes), b = example_load(argv[4], bytes);
    global_addr_t out = tilesim_tpu_global_alloc(bytes);
    const int rc = run(dt, n, a, b, out);
    if (rc) return fprintf(stderr, "%s\n", tilesim_tpu_last_error()), rc;
    example_save(argv[5], out, bytes);
    return 0;
  }
  {
    /* self-check: relu(a + b) on 777 fp32 values; the sums are exact, so the answers are known */
    enum { n = 777 };
    global_addr_t a = tilesim_tpu_global_alloc(n * 4), b = tilesim_tpu_global_alloc(n * 4);
    global_addr_t out = tilesim_tpu_global_alloc(n * 4);
    float* x = (float*)tilesim_tpu_global_ptr(a);
    float* y = (float*)tilesim_tpu_global_ptr(b);
    const float* z = (const float*)tilesim_tpu_global_ptr(out);
    int i, bad = 0;
    for (i = 0; i < n; ++i) {
      x[i] = (float)(i % 41 - 20) * 0.25f;
      y[i] = (float)(i % 7 - 3) * 0.5f;
    }
    x[0] = -0.f, y[0] = -0.f; /* -0 + -0 = -0, relu(-0) = +0 (spec 15 relu) */
    x[1] = INFINITY, y[1] = -INFINITY; /* NaN -> the canonical 0x7FC00000 */
    if (run(DT_FP32, n, a, b, out)) return fprintf(stderr, "%s\n", tilesim_tpu_last_error()), 1;
    for (i = 0; i < n; ++i) {
      const float s = x[i] + y[i];
      const float want = i == 1 ? z[1] : s > 0.f ? s : 0.f;
      if (memcmp(&z[i], &want, 4) != 0 && bad++ < 5) printf("mismatch at %d: relu(%g + %g) = %g, want %g\n", i, x[i], y[i], z[i], want);
    }
    {
      uint32_t nan_bits;
      memcpy(&nan_bits, &z[1], 4);
      if (nan_bits != 0x7FC00000u) bad++, printf("inf + -inf gave 0x%08x, want 0x7fc00000\n", nan_bits);
    }
    printf("add+relu on %s (%d cores): %d fp32 elements: %s\n", tilesim_tpu_chip(), tpu_core_num(), n, bad ? "FAILED" : "ok");
    return bad ? 1 : 0;
  }
}
