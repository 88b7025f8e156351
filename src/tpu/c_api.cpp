// The C API of spec 50 / spec 60 §3 (tilesim/tpu_kernel.h): thin extern "C" shims over the
// calling thread's tilesim::tpu::Device. No exception crosses into C: a tilesim::Error becomes
// the thread's last error and then, in ABORT mode, a message on stderr and abort().
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "tilesim/tpu.hpp"
#include "tilesim/tpu_kernel.h"
#include "tpu/dtype.hpp"

namespace {

using tilesim::tpu::Device;
using tilesim::tpu::SelectOp;

std::atomic<int> g_mode{TILESIM_TPU_ERRORS_ABORT};

struct ThreadState {
  std::unique_ptr<Device> dev;
  int code = 0;
  std::string message;
};
thread_local ThreadState t_state;

Device& device() {
  if (!t_state.dev) t_state.dev = std::make_unique<Device>(tilesim::tpu::kDefaultChip);
  return *t_state.dev;
}

void record(int code, const char* msg) {
  t_state.code = code;
  t_state.message = msg;
  if (g_mode.load(std::memory_order_relaxed) == TILESIM_TPU_ERRORS_ABORT) {
    std::fprintf(stderr, "tilesim: %s\n", msg);
    std::fflush(stderr);
    std::abort();
  }
}

// Runs f, turning every exception into the C error convention. Returns the error code (0 = ok).
template <class F>
int guarded(F&& f) noexcept {
  t_state.code = 0;
  t_state.message.clear();
  try {
    f();
    return 0;
  } catch (const tilesim::Error& e) {
    record(1 + static_cast<int>(e.code()), e.what());
  } catch (const std::exception& e) {
    record(1 + static_cast<int>(tilesim::ErrorCode::Fault), e.what());
  } catch (...) {
    record(1 + static_cast<int>(tilesim::ErrorCode::Fault), "unknown error");
  }
  return t_state.code;
}

int R(const data_type_t& d) {
  return tilesim::tpu::raw_enum(d);
}

const void* host_ptr(system_addr_t a) {
  return reinterpret_cast<const void*>(static_cast<uintptr_t>(a));
}

}  // namespace

extern "C" {

int tilesim_tpu_init(const char* chip) {
  return guarded([&] {
    auto dev = std::make_unique<Device>(chip ? chip : tilesim::tpu::kDefaultChip);
    t_state.dev = std::move(dev);
  });
}

void tilesim_tpu_set_error_mode(tilesim_tpu_error_mode_t mode) {
  g_mode.store(mode == TILESIM_TPU_ERRORS_RECORD ? TILESIM_TPU_ERRORS_RECORD
                                                 : TILESIM_TPU_ERRORS_ABORT);
}
int tilesim_tpu_last_error_code(void) {
  return t_state.code;
}
const char* tilesim_tpu_last_error(void) {
  return t_state.message.c_str();
}
const char* tilesim_tpu_chip(void) {
  return device().profile().name;
}
unsigned char* tilesim_tpu_local_mem(void) {
  return device().memory().data();
}
int tilesim_tpu_align_bytes(void) {
  return device().align_bytes();
}

int tpu_npu_num(void) {
  return device().npu_num();
}
int tpu_local_mem_size_per_npu(void) {
  return static_cast<int>(device().local_mem_size());
}
int tpu_eu_num(data_type_t dtype) {
  return device().eu_num_raw(tilesim::tpu::raw_enum(dtype));
}
int tpu_data_type_size(data_type_t dtype) {
  const int e = device().eu_num_raw(tilesim::tpu::raw_enum(dtype));
  return e ? device().align_bytes() / e : 0;
}
int tpu_npu_index(local_addr_t addr) {
  return device().npu_index(addr);
}
void tpu_aligned_stride(dim4* stride, int start_idx, const dim4* shape, data_type_t dtype) {
  guarded([&] {
    device().aligned_stride_raw(stride, start_idx, shape, tilesim::tpu::raw_enum(dtype));
  });
}
void tpu_compact_stride(dim4* stride, int start_idx, const dim4* shape) {
  guarded([&] { device().compact_stride(stride, start_idx, shape); });
}

void tpu_gdma_cpy_S2L(local_addr_t dst_addr, system_addr_t src_addr, const dim4* shape,
                      const dim4* dst_stride, const dim4* src_stride, data_type_t dtype) {
  guarded([&] {
    device().gdma_cpy_S2L_raw(dst_addr, host_ptr(src_addr), shape, dst_stride, src_stride,
                              tilesim::tpu::raw_enum(dtype));
  });
}
void tpu_gdma_cpy_L2S(system_addr_t dst_addr, local_addr_t src_addr, const dim4* shape,
                      const dim4* dst_stride, const dim4* src_stride, data_type_t dtype) {
  guarded([&] {
    device().gdma_cpy_L2S_raw(const_cast<void*>(host_ptr(dst_addr)), src_addr, shape, dst_stride,
                              src_stride, tilesim::tpu::raw_enum(dtype));
  });
}

void tpu_bdc_greater_select(local_addr_t dst_addr, const variable_t* src0, const variable_t* src1,
                            const variable_t* src2, const variable_t* src3, const dim4* shape,
                            data_type_t src0_src1_dtype, data_type_t dst_dtype) {
  guarded([&] {
    device().select_raw(SelectOp::Greater, dst_addr, 0, src0, src1, src2, src3, shape,
                        R(src0_src1_dtype), R(dst_dtype));
  });
}
void tpu_bdc_less_select(local_addr_t dst_addr, const variable_t* src0, const variable_t* src1,
                         const variable_t* src2, const variable_t* src3, const dim4* shape,
                         data_type_t src0_src1_dtype, data_type_t dst_dtype) {
  guarded([&] {
    device().select_raw(SelectOp::Less, dst_addr, 0, src0, src1, src2, src3, shape,
                        R(src0_src1_dtype), R(dst_dtype));
  });
}
void tpu_bdc_equal_select(local_addr_t dst_addr, const variable_t* src0, const variable_t* src1,
                          const variable_t* src2, const variable_t* src3, const dim4* shape,
                          data_type_t src0_src1_dtype, data_type_t dst_dtype) {
  guarded([&] {
    device().select_raw(SelectOp::Equal, dst_addr, 0, src0, src1, src2, src3, shape,
                        R(src0_src1_dtype), R(dst_dtype));
  });
}
void tpu_bdc_maximum_greater_select(local_addr_t dst0_addr, local_addr_t dst1_addr,
                                    const variable_t* src0, const variable_t* src1,
                                    const variable_t* src2, const variable_t* src3,
                                    const dim4* shape, data_type_t dst0_dtype,
                                    data_type_t dst1_dtype) {
  guarded([&] {
    device().select_raw(SelectOp::MaximumGreater, dst0_addr, dst1_addr, src0, src1, src2, src3,
                        shape, R(dst0_dtype), R(dst1_dtype));
  });
}
void tpu_bdc_minimum_less_select(local_addr_t dst0_addr, local_addr_t dst1_addr,
                                 const variable_t* src0, const variable_t* src1,
                                 const variable_t* src2, const variable_t* src3, const dim4* shape,
                                 data_type_t dst0_dtype, data_type_t dst1_dtype) {
  guarded([&] {
    device().select_raw(SelectOp::MinimumLess, dst0_addr, dst1_addr, src0, src1, src2, src3, shape,
                        R(dst0_dtype), R(dst1_dtype));
  });
}

}  // extern "C"
