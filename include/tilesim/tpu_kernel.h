/* tilesim TPU-Kernel C API (spec 50, spec 51, spec 60 §3): torch-tpu's tpu_kernel.h + tpu_defs.h
 * names (types, enums, macros, runtime, GDMA, the BDC arithmetic closure and the compare-selects)
 * on a simulated chip: NPU local memory per core and a bounds-checked global memory. Valid C11
 * (gcc) and C++; a .c kernel written for the vendor header builds against this one unchanged.
 *
 * Context (spec 50 §5): the vendor API has no context parameter, so every call works on the
 * calling thread's simulated device, created by tilesim_tpu_init(chip) or, on first use,
 * implicitly with the default chip "bm1684x".
 *
 * Errors: C has no exceptions. A call that breaks a rule of spec 50 §4 writes nothing and then,
 * in the default mode TILESIM_TPU_ERRORS_ABORT, prints "tilesim: <message>" to stderr and calls
 * abort() (the vendor library asserts, too). In TILESIM_TPU_ERRORS_RECORD mode it returns
 * instead; tilesim_tpu_last_error_code() / tilesim_tpu_last_error() describe the most recent
 * call of this thread (each API call clears them on entry). The C++ API (tilesim/tpu.hpp)
 * throws tilesim::Error with the same message. */
#ifndef TILESIM_TPU_KERNEL_H_
#define TILESIM_TPU_KERNEL_H_

/* As the vendor header: kernels use bool, int types and printf without including them. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- types and enums of torch-tpu's tpu_defs.h (spec 51 §1) ---- */
/* Unified local-memory address: NPU = addr / LOCAL_MEM_SIZE, offset = addr % LOCAL_MEM_SIZE. */
typedef unsigned int local_addr_t;
typedef unsigned int static_addr_t;
typedef unsigned long long l2_sram_addr_t;
/* A system / global address (spec 51 §1): an address of tilesim's simulated global memory
 * (tilesim_tpu_global_alloc; bit 62 set, bounds-checked) or a host pointer cast to an integer,
 * (system_addr_t)(uintptr_t)ptr (unchecked on the system side, spec 50 §5). */
typedef unsigned long long system_addr_t;
typedef unsigned long long global_addr_t;
typedef unsigned long long addr_t;
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
#define NO_USE 0
#define TENSOR_N_DIM 0
#define TENSOR_C_DIM 1
#define TENSOR_H_DIM 2
#define TENSOR_W_DIM 3

/* Vendor values (spec 50 §2): bit 0 signed, bits 1..4 precision, bit 5 fp8 subtype. */
typedef enum {
  DT_UINT8 = 0,
  DT_INT8 = 1,
  DT_FP16 = 3,
  DT_FP32 = 5,
  DT_UINT16 = 6,
  DT_INT16 = 7,
  DT_UINT32 = 8,
  DT_INT32 = 9,
  DT_BFP16 = 11,
  DT_UINT4 = 12,
  DT_INT4 = 13,
  DT_FP8E5M2 = 15,
  DT_FP20 = 17,
  DT_TF32 = 19,
  DT_FP8E4M3 = 47
} data_type_t;

/* Rounding of casts and of the integer forms' right shift (spec 15 §2 maps each to a mode). */
typedef enum {
  RM_HALF_TO_EVEN = 0,
  RM_HALF_AWAY_FROM_ZERO = 1,
  RM_TOWARDS_ZERO = 2,
  RM_DOWN = 3, /* floor */
  RM_UP = 4,   /* ceil */
  RM_HALF_UP = 5,
  RM_HALF_DOWN = 6
} rounding_mode_t;

typedef enum {
  REDUCE_MEAN = 0,
  REDUCE_SUM = 1,
  REDUCE_MAX = 2,
  REDUCE_MIN = 3,
  REDUCE_PROD = 4,
  REDUCE_L2 = 5,
  REDUCE_L1 = 6
} reduce_method_t;

typedef struct {
  int n, c, d, h, w;
} dim5;
typedef struct {
  int n, c, h, w;
} dim4;
typedef struct {
  int h, w;
} dim2;
typedef struct {
  int top, bottom, left, right;
} padding_t;
typedef struct {
  int front, back, top, bottom, left, right;
} padding3d_t;
typedef struct {
  int start, end;
} range_t;

/* The vendor's float unions; the bit fields sit in a named `format` member (the vendor's
 * float8e5m2 has them in an anonymous struct, which ISO C++ does not allow). */
typedef union {
  unsigned short bits;
  struct {
    unsigned short frac : 2;
    unsigned short exp : 5;
    unsigned short sign : 1;
  } format;
} float8e5m2;
typedef union {
  unsigned short bits;
  struct {
    unsigned short frac : 3;
    unsigned short exp : 4;
    unsigned short sign : 1;
  } format;
} float8e4m3;
typedef union {
  unsigned short bits;
  struct {
    unsigned short frac : 10;
    unsigned short exp : 5;
    unsigned short sign : 1;
  } format;
} float16;
typedef union {
  unsigned short bits;
  struct {
    unsigned short frac : 7;
    unsigned short exp : 8;
    unsigned short sign : 1;
  } format;
} bfloat16;
typedef union {
  unsigned short bits;
  struct {
    unsigned short frac : 11;
    unsigned short exp : 8;
    unsigned short sign : 1;
  } format;
} float20;

/* A SCALAR operand's value is the low bits of this union read as the operand's dtype. */
typedef union {
  char s4;
  unsigned char u4;
  char s8;
  unsigned char u8;
  float8e5m2 f8e5m2;
  float8e4m3 f8e3m4;
  short s16;
  unsigned short u16;
  float16 f16;
  bfloat16 bf16;
  int s32;
  unsigned int u32;
  float f32;
  float20 f20;
} scalar_t;

typedef enum { TENSOR = 0, SCALAR = 1, VECTOR = 2 } var_type_t;

typedef union {
  scalar_t scalar;
  local_addr_t addr;
} var_context_t;

typedef struct {
  var_type_t type;
  var_context_t context;
} variable_t;

/* ---- tilesim context and errors ---- */
typedef enum {
  TILESIM_TPU_ERRORS_ABORT = 0,
  TILESIM_TPU_ERRORS_RECORD = 1
} tilesim_tpu_error_mode_t;

/* (Re)creates this thread's device for chip "bm1684x", "bm1688" or "bm1690" (NULL = default),
 * with zeroed local memory. Returns 0, or the error code of tilesim_tpu_last_error_code(). */
int tilesim_tpu_init(const char* chip);
/* Process-wide error mode (default TILESIM_TPU_ERRORS_ABORT). */
void tilesim_tpu_set_error_mode(tilesim_tpu_error_mode_t mode);
/* 0 = the last call succeeded; else 1 + the tilesim::ErrorCode (1 Parse, 2 Constraint, 3 Bounds,
 * 4 Unsupported, 5 Fault, 6 Io). */
int tilesim_tpu_last_error_code(void);
/* The message of the last failed call of this thread ("" if none). Valid until the next call. */
const char* tilesim_tpu_last_error(void);
/* The current chip's name, and its local memory for inspection. The host layout is not the
 * address space: NPU k's LOCAL_MEM_SIZE bytes start at tilesim_tpu_local_mem() + k *
 * tilesim_tpu_npu_stride(), and the stride is larger than LOCAL_MEM_SIZE (padding, so that the
 * NPUs do not share cache sets; docs/tpu.md "Host layout"). tilesim_tpu_local_ptr(addr) is the
 * host byte of local address addr (NULL and an error outside NPU_NUM * LOCAL_MEM_SIZE). */
const char* tilesim_tpu_chip(void);
unsigned char* tilesim_tpu_local_mem(void);
size_t tilesim_tpu_npu_stride(void);
unsigned char* tilesim_tpu_local_ptr(local_addr_t addr);
/* ALIGN_BYTES of the chip (the EU width in bytes, spec 50 §1). */
int tilesim_tpu_align_bytes(void);

/* ---- global memory (spec 51 §1): host side ----
 * A simulated, bounds-checked DDR shared by every core and thread. An allocation is 64-byte
 * aligned, zeroed, never at address 0, and its addresses are never reused after a free, so a
 * stale address is always caught. Every GDMA access to a global address must lie inside one
 * live allocation. Returns 0 (and records the error) when bytes is 0 or too large. */
global_addr_t tilesim_tpu_global_alloc(size_t bytes);
void tilesim_tpu_global_free(global_addr_t addr);
/* Host view of a global address (inside a live allocation) for filling and reading. */
void* tilesim_tpu_global_ptr(global_addr_t addr);

/* ---- runtime (spec 51 §1) ---- */
typedef void (*tpu_kernel_func_t)(const void*);
void tpu_register_kernel_func(const char* name, tpu_kernel_func_t func);
void tpu_dump_registered_kernel_funcs(void);
/* Registers `func` (int or void func(const void*)) under its own name before main runs. */
#define TPUKERNEL_FUNC_REGISTER(func)                                           \
  static void func##_wrapper(const void* arg) { func(arg); }                    \
  __attribute__((constructor)) static void tpu_kernel_register_##func(void) {   \
    tpu_register_kernel_func(#func, func##_wrapper);                            \
  }
/* Runs the registered kernel `name` once per core of the chip, in core-index order, each core
 * with its own zeroed local memory (global memory is shared). Returns 0 or the error code of
 * the first failing call (an unregistered name is an error, too). */
int tilesim_tpu_launch(const char* name, const void* args, size_t args_size);
void tpu_initialize(void);
void tpu_poll(void);
void tpu_parallel_start(void);
void tpu_parallel_end(void);
bool tpu_is_parallel_state(void);
/* Cores: outside a launch the caller is core 0 of tpu_core_num() (the chip's core count). */
int tpu_core_num(void);
int tpu_core_index(void);

/* A failing TPUKERNEL_ASSERT is a tilesim error of code Fault naming the condition, file and line
 * (never the firmware's spin). In RECORD mode inside tilesim_tpu_launch it ends the kernel; in a
 * direct call it is recorded and the kernel goes on. */
void tilesim_tpu_assert_fail(const char* cond, const char* file, int line, const char* func);
#define TPUKERNEL_LOG(...) ((void)0)
#define TPUKERNEL_DBG(...) ((void)0)
#define TPUKERNEL_ASSERT_INFO(assertion, ...) \
  ((assertion) ? (void)0 : tilesim_tpu_assert_fail(#assertion, __FILE__, __LINE__, __func__))
#define TPUKERNEL_ASSERT(assertion) TPUKERNEL_ASSERT_INFO(assertion, "")
#define TPUKERNEL_ERR(...) tilesim_tpu_assert_fail("TPUKERNEL_ERR", __FILE__, __LINE__, __func__)

/* ---- chip constants and layout helpers (vendor names) ---- */
int tpu_npu_num(void);
int tpu_bank_num(void);
int tpu_local_mem_size_per_npu(void);
/* EU_NUM(dtype) = ALIGN_BYTES / sizeof(dtype) (spec 50 §1); 0 for a dtype without whole bytes. */
int tpu_eu_num(data_type_t dtype);
int tpu_data_type_size(data_type_t dtype);
int tpu_data_type_bits(data_type_t dtype);
/* Start NPU of a local address: addr / LOCAL_MEM_SIZE. */
int tpu_npu_index(local_addr_t addr);
/* ALIGN(h * w, EU_NUM(dtype)) * the element size, in bytes. */
int tpu_aligned_feature_size(int h, int w, data_type_t dtype);
/* Element strides of the 64-byte aligned / compact layouts (spec 50 §1) of a tensor whose
 * first channel is on NPU start_idx, and the contiguous NCHW strides (w 1, h W, c HW, n CHW). */
void tpu_aligned_stride(dim4* stride, int start_idx, const dim4* shape, data_type_t dtype);
void tpu_compact_stride(dim4* stride, int start_idx, const dim4* shape);
void tpu_continuous_stride(dim4* stride, const dim4* shape);

#ifndef UNUSED
#define UNUSED(x) (void)(x)
#endif
#ifndef MIN
#define MIN(x, y) (((x)) < ((y)) ? (x) : (y))
#endif
#ifndef MAX
#define MAX(x, y) (((x)) > ((y)) ? (x) : (y))
#endif
#ifndef ALIGN_MASK
#define ALIGN_MASK(x, mask) (((x) + (mask)) & ~(mask))
#endif
#ifndef ALIGN
#define ALIGN(x, a) ALIGN_MASK(x, (__typeof__(x))(a)-1)
#endif
#ifndef ALIGN_MASK_DOWN
#define ALIGN_MASK_DOWN(x, mask) ((x) & ~(mask))
#endif
#ifndef ALIGN_DOWN
#define ALIGN_DOWN(x, a) ALIGN_MASK_DOWN(x, (__typeof__(x))(a)-1)
#endif
#ifndef DIV_UP
#define DIV_UP(a, b) ((a) == 0 ? 0 : ((a)-1) / (b) + 1)
#endif
#ifndef NPU_NUM
#define NPU_NUM tpu_npu_num()
#endif
#ifndef LOCAL_MEM_SIZE
#define LOCAL_MEM_SIZE tpu_local_mem_size_per_npu()
#endif
#ifndef LOCAL_MEM_BANKS
#define LOCAL_MEM_BANKS tpu_bank_num()
#endif
#ifndef BANK_SIZE
#define BANK_SIZE (LOCAL_MEM_SIZE / LOCAL_MEM_BANKS)
#endif
#ifndef LOCAL_BANK_SIZE
#define LOCAL_BANK_SIZE (LOCAL_MEM_SIZE / LOCAL_MEM_BANKS)
#endif
/* Number of 32-bit execution units per NPU (vendor EU_NUM); per dtype use tpu_eu_num(). */
#ifndef EU_NUM
#define EU_NUM tpu_eu_num(DT_FP32)
#endif
#ifndef EU_NUM_32BIT
#define EU_NUM_32BIT tpu_eu_num(DT_FP32)
#endif
#ifndef EU_NUM_16BIT
#define EU_NUM_16BIT tpu_eu_num(DT_FP16)
#endif
#ifndef EU_NUM_8BIT
#define EU_NUM_8BIT tpu_eu_num(DT_INT8)
#endif

/* ---- scalar casts (spec 15 §2 rounding, integer destinations saturate) ---- */
scalar_t tpu_cast(scalar_t src, data_type_t dst_dtype, data_type_t src_dtype, rounding_mode_t mode);
scalar_t tpu_fp_cast(scalar_t src, data_type_t dst_dtype, data_type_t src_dtype,
                     rounding_mode_t mode);
scalar_t tpu_int_cast(scalar_t src, data_type_t dst_dtype, data_type_t src_dtype);

/* ---- GDMA (spec 51 §2): NULL strides = continuous (system) / 64-byte aligned (local) ---- */
void tpu_gdma_cpy_S2L(local_addr_t dst_addr, system_addr_t src_addr, const dim4* shape,
                      const dim4* dst_stride, const dim4* src_stride, data_type_t dtype);
void tpu_gdma_cpy_L2S(system_addr_t dst_addr, local_addr_t src_addr, const dim4* shape,
                      const dim4* dst_stride, const dim4* src_stride, data_type_t dtype);
void tpu_gdma_cpy_L2L(local_addr_t dst_addr, local_addr_t src_addr, const dim4* shape,
                      const dim4* dst_stride, const dim4* src_stride, data_type_t dtype);
void tpu_gdma_cpy_S2S(system_addr_t dst_addr, system_addr_t src_addr, const dim4* shape,
                      const dim4* dst_stride, const dim4* src_stride, data_type_t dtype);
void tpu_gdma_set_C_system(system_addr_t dst_addr, scalar_t C, const dim4* shape,
                           const dim4* dst_stride, data_type_t dtype);
void tpu_gdma_set_C_local(local_addr_t dst_addr, scalar_t C, const dim4* shape,
                          const dim4* dst_stride, data_type_t dtype);
/* count contiguous elements of dtype. */
void tpu_gdma_system_cpy(system_addr_t dst_addr, system_addr_t src_addr, unsigned int count,
                         data_type_t dtype);

/* ---- BDC arithmetic (spec 51 §3): NULL strides = 64-byte aligned layout ---- */
#define TILESIM_TPU_BINARY(name)                                                              \
  void name(local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr,            \
            const dim4* shape, const dim4* dst_stride, const dim4* src0_stride,               \
            const dim4* src1_stride, data_type_t dtype);
#define TILESIM_TPU_BINARY_C(name)                                                            \
  void name(local_addr_t dst_addr, local_addr_t src_addr, scalar_t C, const dim4* shape,       \
            const dim4* dst_stride, const dim4* src_stride, data_type_t dtype);
#define TILESIM_TPU_UNARY(name)                                                               \
  void name(local_addr_t dst_addr, local_addr_t src_addr, const dim4* shape,                  \
            const dim4* dst_stride, const dim4* src_stride, data_type_t dtype);
#define TILESIM_TPU_INT_BINARY(name)                                                          \
  void name(local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr,            \
            const dim4* shape, const dim4* dst_stride, const dim4* src0_stride,               \
            const dim4* src1_stride, data_type_t dst_dtype, data_type_t src0_dtype,           \
            data_type_t src1_dtype, char shift, rounding_mode_t rounding_mode, bool saturation);
#define TILESIM_TPU_INT_BINARY_C(name)                                                        \
  void name(local_addr_t dst_addr, local_addr_t src_addr, scalar_t C, const dim4* shape,       \
            const dim4* dst_stride, const dim4* src_stride, data_type_t dst_dtype,            \
            data_type_t src_dtype, data_type_t C_dtype, char shift,                           \
            rounding_mode_t rounding_mode, bool saturation);
#define TILESIM_TPU_COMPARE(name)                                                             \
  void name(local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr,            \
            scalar_t true_val, const dim4* shape, const dim4* dst_stride,                     \
            const dim4* src0_stride, const dim4* src1_stride, data_type_t dst_dtype,          \
            data_type_t src_dtype);
#define TILESIM_TPU_COMPARE_C(name)                                                           \
  void name(local_addr_t dst_addr, local_addr_t src_addr, scalar_t C, scalar_t true_val,       \
            const dim4* shape, const dim4* dst_stride, const dim4* src_stride,                \
            data_type_t dst_dtype, data_type_t src_dtype);

TILESIM_TPU_BINARY(tpu_bdc_fp_add)
TILESIM_TPU_BINARY(tpu_bdc_fp_sub)
TILESIM_TPU_BINARY(tpu_bdc_fp_mul)
TILESIM_TPU_BINARY(tpu_bdc_fp_div)
TILESIM_TPU_BINARY_C(tpu_bdc_fp_add_C)
TILESIM_TPU_BINARY_C(tpu_bdc_fp_sub_C)
TILESIM_TPU_BINARY_C(tpu_bdc_fp_mul_C)
TILESIM_TPU_BINARY_C(tpu_bdc_fp_div_C)
TILESIM_TPU_BINARY_C(tpu_bdc_fp_C_sub)
TILESIM_TPU_BINARY_C(tpu_bdc_fp_C_div)
TILESIM_TPU_BINARY(tpu_bdc_max)
TILESIM_TPU_BINARY(tpu_bdc_min)
TILESIM_TPU_BINARY_C(tpu_bdc_max_C)
TILESIM_TPU_BINARY_C(tpu_bdc_min_C)
TILESIM_TPU_INT_BINARY(tpu_bdc_int_add)
TILESIM_TPU_INT_BINARY(tpu_bdc_int_sub)
TILESIM_TPU_INT_BINARY(tpu_bdc_int_mul)
TILESIM_TPU_INT_BINARY_C(tpu_bdc_int_add_C)
TILESIM_TPU_INT_BINARY_C(tpu_bdc_int_sub_C)
TILESIM_TPU_INT_BINARY_C(tpu_bdc_int_mul_C)
TILESIM_TPU_INT_BINARY_C(tpu_bdc_int_C_sub)
TILESIM_TPU_COMPARE(tpu_bdc_equal)
TILESIM_TPU_COMPARE(tpu_bdc_not_equal)
TILESIM_TPU_COMPARE(tpu_bdc_greater)
TILESIM_TPU_COMPARE(tpu_bdc_less)
TILESIM_TPU_COMPARE(tpu_bdc_greater_equal)
TILESIM_TPU_COMPARE(tpu_bdc_less_equal)
TILESIM_TPU_COMPARE_C(tpu_bdc_equal_C)
TILESIM_TPU_COMPARE_C(tpu_bdc_not_equal_C)
TILESIM_TPU_COMPARE_C(tpu_bdc_greater_C)
TILESIM_TPU_COMPARE_C(tpu_bdc_less_C)
TILESIM_TPU_COMPARE_C(tpu_bdc_greater_equal_C)
TILESIM_TPU_COMPARE_C(tpu_bdc_less_equal_C)
TILESIM_TPU_BINARY(tpu_bdc_and)
TILESIM_TPU_BINARY(tpu_bdc_or)
TILESIM_TPU_BINARY(tpu_bdc_xor)
TILESIM_TPU_UNARY(tpu_bdc_not)
TILESIM_TPU_BINARY_C(tpu_bdc_and_C)
TILESIM_TPU_BINARY_C(tpu_bdc_or_C)
TILESIM_TPU_BINARY_C(tpu_bdc_xor_C)
TILESIM_TPU_UNARY(tpu_bdc_abs)
TILESIM_TPU_UNARY(tpu_bdc_neg)
TILESIM_TPU_UNARY(tpu_bdc_relu)
/* exp of the aligned-layout tensor at src_addr; the work and coefficient buffers of the vendor's
 * polynomial are not used by tilesim (the result is spec 15's correctly rounded exp). */
void tpu_bdc_fp_exp(local_addr_t dst_addr, local_addr_t src_addr, local_addr_t work0_addr,
                    local_addr_t work1_addr, local_addr_t coeff_addr, const dim4* shape,
                    data_type_t dtype);
void tpu_bdc_set_C(local_addr_t dst_addr, scalar_t C, const dim4* shape, const dim4* dst_stride,
                   data_type_t dtype);
TILESIM_TPU_UNARY(tpu_bdc_cpy)
/* Channel 0 of src (on its NPU) copied to shape->c channels starting on dst's NPU. */
void tpu_bdc_npu_bcast(local_addr_t dst_addr, local_addr_t src_addr, const dim4* shape,
                       data_type_t dtype);
void tpu_bdc_cast(local_addr_t dst_addr, local_addr_t src_addr, const dim4* shape,
                  const dim4* dst_stride, const dim4* src_stride, data_type_t dst_dtype,
                  data_type_t src_dtype, rounding_mode_t mode);

/* ---- BDC compare-select (seed 001, spec 50 §3) ---- */
void tpu_bdc_greater_select(local_addr_t dst_addr, const variable_t* src0, const variable_t* src1,
                            const variable_t* src2, const variable_t* src3, const dim4* shape,
                            data_type_t src0_src1_dtype, data_type_t dst_dtype);
void tpu_bdc_less_select(local_addr_t dst_addr, const variable_t* src0, const variable_t* src1,
                         const variable_t* src2, const variable_t* src3, const dim4* shape,
                         data_type_t src0_src1_dtype, data_type_t dst_dtype);
void tpu_bdc_equal_select(local_addr_t dst_addr, const variable_t* src0, const variable_t* src1,
                          const variable_t* src2, const variable_t* src3, const dim4* shape,
                          data_type_t src0_src1_dtype, data_type_t dst_dtype);
void tpu_bdc_maximum_greater_select(local_addr_t dst0_addr, local_addr_t dst1_addr,
                                    const variable_t* src0, const variable_t* src1,
                                    const variable_t* src2, const variable_t* src3,
                                    const dim4* shape, data_type_t dst0_dtype,
                                    data_type_t dst1_dtype);
void tpu_bdc_minimum_less_select(local_addr_t dst0_addr, local_addr_t dst1_addr,
                                 const variable_t* src0, const variable_t* src1,
                                 const variable_t* src2, const variable_t* src3, const dim4* shape,
                                 data_type_t dst0_dtype, data_type_t dst1_dtype);

#ifdef __cplusplus
}
#endif

#endif /* TILESIM_TPU_KERNEL_H_ */
