/* torch.where(cond, self, other) with broadcasting, as a TPU-Kernel kernel: each operand is an
 * NCHW tensor whose dims equal the output's or are 1. Tiles of [1, c, h, W] (c <= NPU_NUM) come in
 * through GDMA with stride 0 on every broadcast dim, one tpu_bdc_equal_select picks
 * (cond == 0 ? other : self) as torch-tpu's nodechip_where.c does, and the tile goes out with the
 * output's contiguous strides. Selects move bits: NaNs keep their payloads.
 *
 *   example_tpu_where_bcast                                                  self-check
 *   example_tpu_where_bcast DTYPE CDTYPE out cond self other c.bin s.bin o.bin out.bin
 *     (shapes as n,c,h,w; check_examples.py) */
#include <stdint.h>

#include "tpu_example_io.h"

typedef struct {
  global_addr_t out, cond, self, other;
  dim4 out_shape, cond_shape, self_shape, other_shape;
  int dtype, cond_dtype;
} where_args_t;

/* Contiguous strides of `s`, 0 on the dims `s` broadcasts (size 1 against a larger output). */
static dim4 bcast_stride(const dim4* s, const dim4* out) {
  dim4 st;
  tpu_continuous_stride(&st, s);
  if (s->n != out->n) st.n = 0;
  if (s->c != out->c) st.c = 0;
  if (s->h != out->h) st.h = 0;
  if (s->w != out->w) st.w = 0;
  return st;
}

static global_addr_t at(global_addr_t base, const dim4* st, int n, int c, int h, int esz) {
  return base + ((global_addr_t)n * st->n + (global_addr_t)c * st->c + (global_addr_t)h * st->h) * esz;
}

static int example_where(const void* p) {
  const where_args_t* a = (const where_args_t*)p;
  const data_type_t dt = (data_type_t)a->dtype, cdt = (data_type_t)a->cond_dtype;
  const int esz = tpu_data_type_size(dt), cesz = tpu_data_type_size(cdt);
  const dim4* o = &a->out_shape;
  const dim4 cst = bcast_stride(&a->cond_shape, o), sst = bcast_stride(&a->self_shape, o);
  const dim4 ost = bcast_stride(&a->other_shape, o);
  dim4 out_st;
  /* four tiles of a quarter of each NPU's memory: out, cond, self, other */
  const int quarter = ALIGN_DOWN(LOCAL_MEM_SIZE / 4, 64);
  const local_addr_t out_l = 0, cond_l = (local_addr_t)quarter, self_l = (local_addr_t)(2 * quarter),
                     other_l = (local_addr_t)(3 * quarter);
  variable_t cond_v = {TENSOR, {.addr = cond_l}}, self_v = {TENSOR, {.addr = self_l}};
  variable_t other_v = {TENSOR, {.addr = other_l}}, zero = {SCALAR, {.scalar = {.u32 = 0}}};
  int hmax = o->h, n, c, h;
  tpu_continuous_stride(&out_st, o);
  while (hmax > 1 && tpu_aligned_feature_size(hmax, o->w, dt) > quarter) hmax = DIV_UP(hmax, 2);
  TPUKERNEL_ASSERT(tpu_aligned_feature_size(hmax, o->w, dt) <= quarter);
  TPUKERNEL_ASSERT(cesz <= esz);
  tpu_initialize();
  /* cores split the n x c-chunk tiles */
  for (n = 0; n < o->n; ++n)
    for (c = 0; c < o->c; c += NPU_NUM) {
      if (((n * DIV_UP(o->c, NPU_NUM) + c / NPU_NUM) % tpu_core_num()) != tpu_core_index()) continue;
      for (h = 0; h < o->h; h += hmax) {
        const dim4 shape = {1, MIN(NPU_NUM, o->c - c), MIN(hmax, o->h - h), o->w};
        tpu_gdma_cpy_S2L(cond_l, at(a->cond, &cst, n, c, h, cesz), &shape, NULL, &cst, cdt);
        tpu_gdma_cpy_S2L(self_l, at(a->self, &sst, n, c, h, esz), &shape, NULL, &sst, dt);
        tpu_gdma_cpy_S2L(other_l, at(a->other, &ost, n, c, h, esz), &shape, NULL, &ost, dt);
        tpu_bdc_equal_select(out_l, &cond_v, &zero, &other_v, &self_v, &shape, cdt, dt);
        tpu_gdma_cpy_L2S(at(a->out, &out_st, n, c, h, esz), out_l, &shape, &out_st, NULL, dt);
      }
    }
  tpu_poll();
  return 0;
}
TPUKERNEL_FUNC_REGISTER(example_where)

int main(int argc, char** argv) {
  example_init();
  where_args_t args;
  memset(&args, 0, sizeof args);
  if (argc == 11) {
    args.dtype = example_dtype(argv[1]);
    args.cond_dtype = example_dtype(argv[2]);
    args.out_shape = example_shape(argv[3]);
    args.cond_shape = example_shape(argv[4]);
    args.self_shape = example_shape(argv[5]);
    args.other_shape = example_shape(argv[6]);
    {
      const size_t e = (size_t)tpu_data_type_size((data_type_t)args.dtype);
      const size_t ce = (size_t)tpu_data_type_size((data_type_t)args.cond_dtype);
      int rc;
      args.cond = example_load(argv[7], example_count(args.cond_shape) * ce);
      args.self = example_load(argv[8], example_count(args.self_shape) * e);
      args.other = example_load(argv[9], example_count(args.other_shape) * e);
      args.out = tilesim_tpu_global_alloc(example_count(args.out_shape) * e);
      rc = tilesim_tpu_launch("example_where", &args, sizeof args);
      if (rc) return fprintf(stderr, "%s\n", tilesim_tpu_last_error()), rc;
      example_save(argv[10], args.out, example_count(args.out_shape) * e);
      return 0;
    }
  }
  {
    /* self-check: out [2, 70, 3, 5] fp32; cond [1, 70, 1, 5] uint8, self [2, 1, 3, 5], other a scalar */
    const dim4 os = {2, 70, 3, 5}, cs = {1, 70, 1, 5}, ss = {2, 1, 3, 5}, ts = {1, 1, 1, 1};
    int n, c, h, w, bad = 0;
    uint8_t* cond;
    float *self, *other;
    const float* out;
    args.dtype = DT_FP32;
    args.cond_dtype = DT_UINT8;
    args.out_shape = os, args.cond_shape = cs, args.self_shape = ss, args.other_shape = ts;
    args.cond = tilesim_tpu_global_alloc(example_count(cs));
    args.self = tilesim_tpu_global_alloc(example_count(ss) * 4);
    args.other = tilesim_tpu_global_alloc(4);
    args.out = tilesim_tpu_global_alloc(example_count(os) * 4);
    cond = (uint8_t*)tilesim_tpu_global_ptr(args.cond);
    self = (float*)tilesim_tpu_global_ptr(args.self);
    other = (float*)tilesim_tpu_global_ptr(args.other);
    out = (const float*)tilesim_tpu_global_ptr(args.out);
    for (c = 0; c < 70; ++c)
      for (w = 0; w < 5; ++w) cond[c * 5 + w] = (uint8_t)((c + w) % 3 == 0);
    for (n = 0; n < (int)example_count(ss); ++n) self[n] = (float)n;
    other[0] = -1.f;
    if (tilesim_tpu_launch("example_where", &args, sizeof args)) return fprintf(stderr, "%s\n", tilesim_tpu_last_error()), 1;
    for (n = 0; n < 2; ++n)
      for (c = 0; c < 70; ++c)
        for (h = 0; h < 3; ++h)
          for (w = 0; w < 5; ++w) {
            const float want = cond[c * 5 + w] ? self[(n * 3 + h) * 5 + w] : -1.f;
            const float got = out[((n * 70 + c) * 3 + h) * 5 + w];
            if (got != want && bad++ < 5) printf("mismatch at [%d,%d,%d,%d]: %g, want %g\n", n, c, h, w, got, want);
          }
    printf("where with broadcast on %s (%d cores): out [2, 70, 3, 5]: %s\n", tilesim_tpu_chip(), tpu_core_num(),
           bad ? "FAILED" : "ok");
    return bad ? 1 : 0;
  }
}
