/* tilesim TPU-Kernel C API (spec 50, spec 60 §3): the Sophgo BDC compare-select functions and
 * the GDMA copies they need, on a simulated NPU local memory. Callable from C and C++.
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

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Unified local-memory address: NPU = addr / LOCAL_MEM_SIZE, offset = addr % LOCAL_MEM_SIZE. */
typedef uint32_t local_addr_t;
/* A host address in the twin: cast a pointer, (system_addr_t)(uintptr_t)ptr. */
typedef uint64_t system_addr_t;

typedef struct {
  int n, c, h, w;
} dim4;

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

typedef union {
  unsigned short bits;
} float16;
typedef union {
  unsigned short bits;
} bfloat16;

/* A SCALAR operand's value is the low bits of this union read as the operand's dtype. */
typedef union {
  int8_t s8;
  uint8_t u8;
  int16_t s16;
  uint16_t u16;
  float16 f16;
  bfloat16 bf16;
  int32_t s32;
  uint32_t u32;
  float f32;
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
/* The current chip's name, and its local memory (NPU_NUM * LOCAL_MEM_SIZE bytes, NPU k at
 * offset k * LOCAL_MEM_SIZE) for inspection. */
const char* tilesim_tpu_chip(void);
unsigned char* tilesim_tpu_local_mem(void);
/* ALIGN_BYTES of the chip (the EU width in bytes, spec 50 §1). */
int tilesim_tpu_align_bytes(void);

/* ---- chip constants and layout helpers (vendor names) ---- */
int tpu_npu_num(void);
int tpu_local_mem_size_per_npu(void);
/* EU_NUM(dtype) = ALIGN_BYTES / sizeof(dtype) (spec 50 §1); 0 for a dtype without whole bytes. */
int tpu_eu_num(data_type_t dtype);
int tpu_data_type_size(data_type_t dtype);
/* Start NPU of a local address: addr / LOCAL_MEM_SIZE. */
int tpu_npu_index(local_addr_t addr);
/* Element strides of the 64-byte aligned / compact layouts (spec 50 §1) of a tensor whose
 * first channel is on NPU start_idx. */
void tpu_aligned_stride(dim4* stride, int start_idx, const dim4* shape, data_type_t dtype);
void tpu_compact_stride(dim4* stride, int start_idx, const dim4* shape);

#ifndef NPU_NUM
#define NPU_NUM tpu_npu_num()
#endif
#ifndef LOCAL_MEM_SIZE
#define LOCAL_MEM_SIZE tpu_local_mem_size_per_npu()
#endif
/* Number of 32-bit execution units per NPU (vendor EU_NUM); per dtype use tpu_eu_num(). */
#ifndef EU_NUM
#define EU_NUM tpu_eu_num(DT_FP32)
#endif

/* ---- GDMA (spec 50 §5): NULL strides = continuous (system) / 64-byte aligned (local) ---- */
void tpu_gdma_cpy_S2L(local_addr_t dst_addr, system_addr_t src_addr, const dim4* shape,
                      const dim4* dst_stride, const dim4* src_stride, data_type_t dtype);
void tpu_gdma_cpy_L2S(system_addr_t dst_addr, local_addr_t src_addr, const dim4* shape,
                      const dim4* dst_stride, const dim4* src_stride, data_type_t dtype);

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
