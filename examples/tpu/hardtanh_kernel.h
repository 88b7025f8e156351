/* The hardtanh example kernel (examples/tpu/hardtanh.c): y = x > hi ? hi : x, then
 * y = y < lo ? lo : y, over tiles of [1, NPU_NUM, 1, w] brought from global memory, w filling half
 * an NPU. Its TPUKERNEL_FUNC_REGISTER entry is "example_hardtanh". Shared by the example's host
 * driver and bench/bench_tpu.cpp (the end-to-end benchmark runs this very kernel). */
#ifndef TILESIM_EXAMPLE_TPU_HARDTANH_KERNEL_H_
#define TILESIM_EXAMPLE_TPU_HARDTANH_KERNEL_H_
#include "tpu_kernel.h"

typedef struct {
  global_addr_t in, out;
  int length;
  int dtype;
  scalar_t lo, hi; /* in dtype */
} hardtanh_args_t;

static int example_hardtanh(const void* p) {
  const hardtanh_args_t* a = (const hardtanh_args_t*)p;
  const data_type_t dt = (data_type_t)a->dtype;
  const int esz = tpu_data_type_size(dt);
  /* local memory: input tile in the first half, output tile in the second */
  const local_addr_t in_l = 0, out_l = (local_addr_t)(LOCAL_MEM_SIZE / 2);
  /* a tile's w fills half an NPU, at most 65535 (the shape limit: 64 Ki fp16 would not fit) */
  const int wmax = ALIGN_DOWN(MIN(LOCAL_MEM_SIZE / 2 / esz, 65535), tpu_eu_num(dt));
  variable_t x = {TENSOR, {.addr = in_l}}, y = {TENSOR, {.addr = out_l}};
  variable_t lo = {SCALAR, {.scalar = a->lo}}, hi = {SCALAR, {.scalar = a->hi}};
  /* this core's slice of the elements (every core has its own local memory) */
  const int slice = DIV_UP(a->length, tpu_core_num());
  const int begin = MIN(a->length, slice * tpu_core_index()), end = MIN(a->length, begin + slice);
  int done = begin;
  TPUKERNEL_ASSERT(esz > 0 && wmax > 0);
  tpu_initialize();
  while (done < end) {
    const int todo = end - done;
    dim4 shape = {1, 1, 1, 1};
    if (todo >= NPU_NUM) {
      shape.c = NPU_NUM;
      shape.w = MIN(todo / NPU_NUM, wmax);
    } else {
      shape.c = todo;
    }
    tpu_gdma_cpy_S2L(in_l, a->in + (global_addr_t)done * esz, &shape, NULL, NULL, dt);
    tpu_bdc_greater_select(out_l, &x, &hi, &hi, &x, &shape, dt, dt); /* y = x > hi ? hi : x */
    tpu_bdc_less_select(out_l, &y, &lo, &lo, &y, &shape, dt, dt);    /* y = y < lo ? lo : y */
    tpu_gdma_cpy_L2S(a->out + (global_addr_t)done * esz, out_l, &shape, NULL, NULL, dt);
    done += shape.c * shape.w;
  }
  tpu_poll();
  return 0;
}
TPUKERNEL_FUNC_REGISTER(example_hardtanh)

#endif /* TILESIM_EXAMPLE_TPU_HARDTANH_KERNEL_H_ */
