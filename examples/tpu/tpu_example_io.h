/* Host-side helpers shared by the TPU example drivers (examples/tpu): global memory filled
 * from / written to raw files, so check_examples.py can compare a kernel's bits with PyTorch. */
#ifndef TILESIM_TPU_EXAMPLE_IO_H_
#define TILESIM_TPU_EXAMPLE_IO_H_
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpu_kernel.h"

/* The chip named by $TILESIM_TPU_CHIP (check_examples.py runs every chip), else the default. */
static inline void example_init(void) {
  const char* chip = getenv("TILESIM_TPU_CHIP");
  if (chip && tilesim_tpu_init(chip) != 0) {
    fprintf(stderr, "%s\n", tilesim_tpu_last_error());
    exit(2);
  }
}

/* "fp32" / "fp16" / "bf16" / "int8" / "uint8" / "int32" -> data_type_t (-1 if unknown). */
static inline int example_dtype(const char* s) {
  if (!strcmp(s, "fp32")) return DT_FP32;
  if (!strcmp(s, "fp16")) return DT_FP16;
  if (!strcmp(s, "bf16")) return DT_BFP16;
  if (!strcmp(s, "int8")) return DT_INT8;
  if (!strcmp(s, "uint8")) return DT_UINT8;
  if (!strcmp(s, "int32")) return DT_INT32;
  return -1;
}

/* A global allocation of `bytes` filled from `path` (exits on a short file). */
static inline global_addr_t example_load(const char* path, size_t bytes) {
  global_addr_t a = tilesim_tpu_global_alloc(bytes);
  FILE* f = fopen(path, "rb");
  if (!f || fread(tilesim_tpu_global_ptr(a), 1, bytes, f) != bytes) {
    fprintf(stderr, "cannot read %zu bytes from %s\n", bytes, path);
    exit(2);
  }
  fclose(f);
  return a;
}

static inline void example_save(const char* path, global_addr_t a, size_t bytes) {
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(tilesim_tpu_global_ptr(a), 1, bytes, f) != bytes) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(2);
  }
  fclose(f);
}

/* "n,c,h,w" -> dim4 */
static inline dim4 example_shape(const char* s) {
  dim4 d = {1, 1, 1, 1};
  if (sscanf(s, "%d,%d,%d,%d", &d.n, &d.c, &d.h, &d.w) != 4) {
    fprintf(stderr, "bad shape %s (want n,c,h,w)\n", s);
    exit(2);
  }
  return d;
}

static inline size_t example_count(dim4 d) {
  return (size_t)d.n * (size_t)d.c * (size_t)d.h * (size_t)d.w;
}

#endif
