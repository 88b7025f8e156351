// The C API of spec 50 / spec 51 / spec 60 §3 (tilesim/tpu_kernel.h): thin extern "C" shims over
// the calling thread's tilesim::tpu::Device, plus the runtime (kernel registry, launch, cores,
// TPUKERNEL_ASSERT). No exception crosses into C: a tilesim::Error becomes the thread's last
// error and then, in ABORT mode, a message on stderr and abort().
#include <fmt/format.h>

#include <atomic>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "tilesim/tpu.hpp"
#include "tilesim/tpu_kernel.h"
#include "tpu/dtype.hpp"

namespace {

using tilesim::ErrorCode;
using tilesim::tpu::BdcCall;
using tilesim::tpu::Device;
using tilesim::tpu::SelectOp;

std::atomic<int> g_mode{TILESIM_TPU_ERRORS_ABORT};

struct ThreadState {
  std::unique_ptr<Device> dev;     // the caller's device (core 0 outside a launch)
  std::unique_ptr<Device> launch;  // the cores' device during tilesim_tpu_launch
  bool in_launch = false;
  int core = 0;
  int launch_code = 0;  // first error of the running launch
  bool parallel = false;
  int code = 0;
  std::string message;
};
thread_local ThreadState t_state;
// The launch's escape for a failing TPUKERNEL_ASSERT in RECORD mode (spec 51 §1). Only trivially
// destructible frames lie between the setjmp and the longjmp (run_core, the C kernel,
// tilesim_tpu_assert_fail after its locals are gone).
thread_local std::jmp_buf t_assert_jmp;

Device& caller_device() {
  if (!t_state.dev) t_state.dev = std::make_unique<Device>(tilesim::tpu::kDefaultChip);
  return *t_state.dev;
}
Device& device() {
  return t_state.in_launch ? *t_state.launch : caller_device();
}

void record(int code, const char* msg) {
  t_state.code = code;
  t_state.message = msg;
  if (t_state.in_launch && !t_state.launch_code) t_state.launch_code = code;
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
    record(1 + static_cast<int>(ErrorCode::Fault), e.what());
  } catch (...) {
    record(1 + static_cast<int>(ErrorCode::Fault), "unknown error");
  }
  return t_state.code;
}

int R(const data_type_t& d) {
  return tilesim::tpu::raw_enum(d);
}
uint32_t bits_of(const scalar_t& s) {
  uint32_t b;
  static_assert(sizeof(scalar_t) == 4);
  std::memcpy(&b, &s, 4);
  return b;
}
scalar_t scalar_of(uint32_t b) {
  scalar_t s;
  std::memcpy(&s, &b, 4);
  return s;
}

// The kernel registry (TPUKERNEL_FUNC_REGISTER runs before main, from static constructors).
struct Registry {
  std::mutex mu;
  std::map<std::string, tpu_kernel_func_t> fns;
};
Registry& registry() {
  static Registry r;
  return r;
}

int run_core(tpu_kernel_func_t fn, const void* args) {
  if (setjmp(t_assert_jmp) != 0) return 1;
  fn(args);
  return 0;
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
  g_mode.store(mode == TILESIM_TPU_ERRORS_RECORD ? TILESIM_TPU_ERRORS_RECORD : TILESIM_TPU_ERRORS_ABORT);
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
size_t tilesim_tpu_npu_stride(void) {
  return device().npu_stride();
}
unsigned char* tilesim_tpu_local_ptr(local_addr_t addr) {
  unsigned char* p = nullptr;
  guarded([&] {
    Device& d = device();
    const uint64_t total = uint64_t{d.local_mem_size()} * static_cast<uint64_t>(d.npu_num());
    if (addr >= total)
      tilesim::raise(ErrorCode::Bounds, "tilesim_tpu_local_ptr",
                     fmt::format("address 0x{:x} is outside local memory (NPU_NUM {} x LOCAL_MEM_SIZE {} = {} bytes)",
                                 addr, d.npu_num(), d.local_mem_size(), total),
                     "docs/tpu.md#host-layout");
    p = d.memory().data() + d.host_offset(addr);
  });
  return p;
}
int tilesim_tpu_align_bytes(void) {
  return device().align_bytes();
}

// ---- global memory ----
global_addr_t tilesim_tpu_global_alloc(size_t bytes) {
  global_addr_t a = 0;
  guarded([&] { a = tilesim::tpu::global_alloc(bytes); });
  return a;
}
void tilesim_tpu_global_free(global_addr_t addr) {
  guarded([&] { tilesim::tpu::global_free(addr); });
}
void* tilesim_tpu_global_ptr(global_addr_t addr) {
  void* p = nullptr;
  guarded([&] { p = tilesim::tpu::global_span(addr, 0); });
  return p;
}

// ---- runtime ----
void tpu_register_kernel_func(const char* name, tpu_kernel_func_t func) {
  if (!name || !func) return;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  r.fns[name] = func;
}
void tpu_dump_registered_kernel_funcs(void) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  for (const auto& [name, fn] : r.fns) std::printf("%s\n", name.c_str());
}

int tilesim_tpu_launch(const char* name, const void* args, size_t args_size) {
  tpu_kernel_func_t fn = nullptr;
  const int pre = guarded([&] {
    if (t_state.in_launch)
      tilesim::raise(ErrorCode::Constraint, "tilesim_tpu_launch",
                     fmt::format("launch of '{}' from inside a running launch", name ? name : "(null)"),
                     "docs/tpu.md#runtime");
    if (!name) tilesim::raise(ErrorCode::Constraint, "tilesim_tpu_launch", "name is NULL", "docs/tpu.md#runtime");
    if (!args && args_size)
      tilesim::raise(ErrorCode::Constraint, "tilesim_tpu_launch",
                     fmt::format("args is NULL but args_size is {}", args_size), "docs/tpu.md#runtime");
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    const auto it = r.fns.find(name);
    if (it == r.fns.end()) {
      std::string known;
      for (const auto& kv : r.fns) known += (known.empty() ? "" : ", ") + kv.first;
      tilesim::raise(ErrorCode::Constraint, "tilesim_tpu_launch",
                     fmt::format("no kernel registered as '{}' (TPUKERNEL_FUNC_REGISTER; registered: {})", name,
                                 known.empty() ? "none" : known),
                     "docs/tpu.md#runtime");
    }
    fn = it->second;
  });
  if (pre) return pre;
  Device& caller = caller_device();
  const int cores = caller.profile().cores;
  if (!t_state.launch || t_state.launch->profile().name != caller.profile().name)
    t_state.launch = std::make_unique<Device>(caller.profile().name);
  t_state.in_launch = true;
  t_state.launch_code = 0;
  for (int core = 0; core < cores; ++core) {
    t_state.core = core;
    t_state.parallel = false;
    t_state.launch->zero_memory();  // every byte the previous core (or launch) may have written
    if (run_core(fn, args) != 0) break;  // TPUKERNEL_ASSERT failed (RECORD mode)
    if (t_state.launch_code) break;
  }
  const int code = t_state.launch_code;
  t_state.in_launch = false;
  t_state.core = 0;
  t_state.parallel = false;
  if (code) {
    t_state.code = code;  // the message stays the failing call's
  } else {
    t_state.code = 0;
    t_state.message.clear();
  }
  return code;
}

void tilesim_tpu_assert_fail(const char* cond, const char* file, int line, const char* func) {
  {
    const std::string msg = fmt::format(
        "TPUKERNEL_ASSERT: condition `{}` failed at {}:{} in {}() [docs/tpu.md#runtime]", cond ? cond : "?",
        file ? file : "?", line, func ? func : "?");
    t_state.code = 0;
    record(1 + static_cast<int>(ErrorCode::Fault), msg.c_str());
  }
  if (t_state.in_launch) std::longjmp(t_assert_jmp, 1);
}

void tpu_initialize(void) {
  t_state.code = 0;
  t_state.message.clear();
}
void tpu_poll(void) {
  t_state.code = 0;
  t_state.message.clear();
}
void tpu_parallel_start(void) {
  t_state.parallel = true;
}
void tpu_parallel_end(void) {
  t_state.parallel = false;
}
bool tpu_is_parallel_state(void) {
  return t_state.parallel;
}
int tpu_core_num(void) {
  return device().profile().cores;
}
int tpu_core_index(void) {
  return t_state.in_launch ? t_state.core : 0;
}

// ---- chip queries ----
int tpu_npu_num(void) {
  return device().npu_num();
}
int tpu_bank_num(void) {
  return device().profile().banks;
}
int tpu_local_mem_size_per_npu(void) {
  return static_cast<int>(device().local_mem_size());
}
int tpu_eu_num(data_type_t dtype) {
  return device().eu_num_raw(R(dtype));
}
int tpu_data_type_size(data_type_t dtype) {
  const tilesim::tpu::DTypeInfo* d = tilesim::tpu::dtype_info(R(dtype));
  return d ? tilesim::tpu::dtype_bytes(*d) : 0;
}
int tpu_data_type_bits(data_type_t dtype) {
  const tilesim::tpu::DTypeInfo* d = tilesim::tpu::dtype_info(R(dtype));
  return d ? d->bits : 0;
}
int tpu_npu_index(local_addr_t addr) {
  return device().npu_index(addr);
}
int tpu_aligned_feature_size(int h, int w, data_type_t dtype) {
  int out = 0;
  guarded([&] { out = device().aligned_feature_size(h, w, R(dtype)); });
  return out;
}
void tpu_aligned_stride(dim4* stride, int start_idx, const dim4* shape, data_type_t dtype) {
  guarded([&] { device().aligned_stride_raw(stride, start_idx, shape, R(dtype)); });
}
void tpu_compact_stride(dim4* stride, int start_idx, const dim4* shape) {
  guarded([&] { device().compact_stride(stride, start_idx, shape); });
}
void tpu_continuous_stride(dim4* stride, const dim4* shape) {
  guarded([&] { device().continuous_stride(stride, shape); });
}

// ---- scalar casts ----
scalar_t tpu_cast(scalar_t src, data_type_t dst_dtype, data_type_t src_dtype, rounding_mode_t mode) {
  uint32_t out = 0;
  guarded([&] {
    out = tilesim::tpu::cast_scalar("tpu_cast", bits_of(src), R(dst_dtype), R(src_dtype),
                                    tilesim::tpu::raw_enum(mode), 0);
  });
  return scalar_of(out);
}
scalar_t tpu_fp_cast(scalar_t src, data_type_t dst_dtype, data_type_t src_dtype, rounding_mode_t mode) {
  uint32_t out = 0;
  guarded([&] {
    out = tilesim::tpu::cast_scalar("tpu_fp_cast", bits_of(src), R(dst_dtype), R(src_dtype),
                                    tilesim::tpu::raw_enum(mode), 1);
  });
  return scalar_of(out);
}
scalar_t tpu_int_cast(scalar_t src, data_type_t dst_dtype, data_type_t src_dtype) {
  uint32_t out = 0;
  guarded([&] {
    out = tilesim::tpu::cast_scalar("tpu_int_cast", bits_of(src), R(dst_dtype), R(src_dtype), 0, 2);
  });
  return scalar_of(out);
}

// ---- GDMA ----
void tpu_gdma_cpy_S2L(local_addr_t dst_addr, system_addr_t src_addr, const dim4* shape, const dim4* dst_stride,
                      const dim4* src_stride, data_type_t dtype) {
  guarded([&] { device().gdma_S2L(dst_addr, src_addr, shape, dst_stride, src_stride, R(dtype)); });
}
void tpu_gdma_cpy_L2S(system_addr_t dst_addr, local_addr_t src_addr, const dim4* shape, const dim4* dst_stride,
                      const dim4* src_stride, data_type_t dtype) {
  guarded([&] { device().gdma_L2S(dst_addr, src_addr, shape, dst_stride, src_stride, R(dtype)); });
}
void tpu_gdma_cpy_L2L(local_addr_t dst_addr, local_addr_t src_addr, const dim4* shape, const dim4* dst_stride,
                      const dim4* src_stride, data_type_t dtype) {
  guarded([&] { device().gdma_L2L(dst_addr, src_addr, shape, dst_stride, src_stride, R(dtype)); });
}
void tpu_gdma_cpy_S2S(system_addr_t dst_addr, system_addr_t src_addr, const dim4* shape, const dim4* dst_stride,
                      const dim4* src_stride, data_type_t dtype) {
  guarded([&] { device().gdma_S2S(dst_addr, src_addr, shape, dst_stride, src_stride, R(dtype)); });
}
void tpu_gdma_set_C_system(system_addr_t dst_addr, scalar_t C, const dim4* shape, const dim4* dst_stride,
                           data_type_t dtype) {
  guarded([&] { device().gdma_set_C_system(dst_addr, bits_of(C), shape, dst_stride, R(dtype)); });
}
void tpu_gdma_set_C_local(local_addr_t dst_addr, scalar_t C, const dim4* shape, const dim4* dst_stride,
                          data_type_t dtype) {
  guarded([&] { device().gdma_set_C_local(dst_addr, bits_of(C), shape, dst_stride, R(dtype)); });
}
void tpu_gdma_system_cpy(system_addr_t dst_addr, system_addr_t src_addr, unsigned int count, data_type_t dtype) {
  guarded([&] { device().gdma_system_cpy(dst_addr, src_addr, count, R(dtype)); });
}

// ---- BDC arithmetic: each shim names its function and fills the BdcCall fields it has ----
#define BDC_RUN(...)              \
  guarded([&] {                   \
    BdcCall k;                    \
    __VA_ARGS__;                  \
    device().bdc(k);              \
  })
#define TILESIM_BIN(name)                                                                                   \
  void name(local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4* shape,      \
            const dim4* dst_stride, const dim4* src0_stride, const dim4* src1_stride, data_type_t dtype) { \
    BDC_RUN(k.fn = #name; k.dst = dst_addr; k.src0 = src0_addr; k.src1 = src1_addr; k.shape = shape;     \
            k.dst_stride = dst_stride; k.src0_stride = src0_stride; k.src1_stride = src1_stride;          \
            k.dst_dtype = k.src0_dtype = k.src1_dtype = R(dtype));                                        \
  }
#define TILESIM_BIN_C(name)                                                                              \
  void name(local_addr_t dst_addr, local_addr_t src_addr, scalar_t C, const dim4* shape,               \
            const dim4* dst_stride, const dim4* src_stride, data_type_t dtype) {                        \
    BDC_RUN(k.fn = #name; k.dst = dst_addr; k.src0 = src_addr; k.c_bits = bits_of(C); k.shape = shape; \
            k.dst_stride = dst_stride; k.src0_stride = src_stride;                                      \
            k.dst_dtype = k.src0_dtype = k.src1_dtype = R(dtype));                                      \
  }
#define TILESIM_UN(name)                                                                                \
  void name(local_addr_t dst_addr, local_addr_t src_addr, const dim4* shape, const dim4* dst_stride,   \
            const dim4* src_stride, data_type_t dtype) {                                               \
    BDC_RUN(k.fn = #name; k.dst = dst_addr; k.src0 = src_addr; k.shape = shape;                        \
            k.dst_stride = dst_stride; k.src0_stride = src_stride; k.dst_dtype = k.src0_dtype = R(dtype)); \
  }
#define TILESIM_INT_BIN(name)                                                                               \
  void name(local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, const dim4* shape,      \
            const dim4* dst_stride, const dim4* src0_stride, const dim4* src1_stride, data_type_t dst_dtype, \
            data_type_t src0_dtype, data_type_t src1_dtype, char shift, rounding_mode_t rounding_mode,    \
            bool saturation) {                                                                            \
    BDC_RUN(k.fn = #name; k.dst = dst_addr; k.src0 = src0_addr; k.src1 = src1_addr; k.shape = shape;     \
            k.dst_stride = dst_stride; k.src0_stride = src0_stride; k.src1_stride = src1_stride;          \
            k.dst_dtype = R(dst_dtype); k.src0_dtype = R(src0_dtype); k.src1_dtype = R(src1_dtype);      \
            k.shift = static_cast<signed char>(shift); k.rounding = tilesim::tpu::raw_enum(rounding_mode); \
            k.saturation = saturation);                                                                   \
  }
#define TILESIM_INT_BIN_C(name)                                                                            \
  void name(local_addr_t dst_addr, local_addr_t src_addr, scalar_t C, const dim4* shape,                 \
            const dim4* dst_stride, const dim4* src_stride, data_type_t dst_dtype, data_type_t src_dtype, \
            data_type_t C_dtype, char shift, rounding_mode_t rounding_mode, bool saturation) {            \
    BDC_RUN(k.fn = #name; k.dst = dst_addr; k.src0 = src_addr; k.c_bits = bits_of(C); k.shape = shape;   \
            k.dst_stride = dst_stride; k.src0_stride = src_stride; k.dst_dtype = R(dst_dtype);            \
            k.src0_dtype = R(src_dtype); k.src1_dtype = R(C_dtype); k.shift = static_cast<signed char>(shift); \
            k.rounding = tilesim::tpu::raw_enum(rounding_mode); k.saturation = saturation);               \
  }
#define TILESIM_CMP(name)                                                                                   \
  void name(local_addr_t dst_addr, local_addr_t src0_addr, local_addr_t src1_addr, scalar_t true_val,     \
            const dim4* shape, const dim4* dst_stride, const dim4* src0_stride, const dim4* src1_stride,  \
            data_type_t dst_dtype, data_type_t src_dtype) {                                               \
    BDC_RUN(k.fn = #name; k.dst = dst_addr; k.src0 = src0_addr; k.src1 = src1_addr; k.shape = shape;     \
            k.true_bits = bits_of(true_val); k.dst_stride = dst_stride; k.src0_stride = src0_stride;      \
            k.src1_stride = src1_stride; k.dst_dtype = R(dst_dtype); k.src0_dtype = k.src1_dtype = R(src_dtype)); \
  }
#define TILESIM_CMP_C(name)                                                                                \
  void name(local_addr_t dst_addr, local_addr_t src_addr, scalar_t C, scalar_t true_val, const dim4* shape, \
            const dim4* dst_stride, const dim4* src_stride, data_type_t dst_dtype, data_type_t src_dtype) {  \
    BDC_RUN(k.fn = #name; k.dst = dst_addr; k.src0 = src_addr; k.c_bits = bits_of(C);                      \
            k.true_bits = bits_of(true_val); k.shape = shape; k.dst_stride = dst_stride;                   \
            k.src0_stride = src_stride; k.dst_dtype = R(dst_dtype); k.src0_dtype = k.src1_dtype = R(src_dtype)); \
  }

TILESIM_BIN(tpu_bdc_fp_add)
TILESIM_BIN(tpu_bdc_fp_sub)
TILESIM_BIN(tpu_bdc_fp_mul)
TILESIM_BIN(tpu_bdc_fp_div)
TILESIM_BIN_C(tpu_bdc_fp_add_C)
TILESIM_BIN_C(tpu_bdc_fp_sub_C)
TILESIM_BIN_C(tpu_bdc_fp_mul_C)
TILESIM_BIN_C(tpu_bdc_fp_div_C)
TILESIM_BIN_C(tpu_bdc_fp_C_sub)
TILESIM_BIN_C(tpu_bdc_fp_C_div)
TILESIM_BIN(tpu_bdc_max)
TILESIM_BIN(tpu_bdc_min)
TILESIM_BIN_C(tpu_bdc_max_C)
TILESIM_BIN_C(tpu_bdc_min_C)
TILESIM_INT_BIN(tpu_bdc_int_add)
TILESIM_INT_BIN(tpu_bdc_int_sub)
TILESIM_INT_BIN(tpu_bdc_int_mul)
TILESIM_INT_BIN_C(tpu_bdc_int_add_C)
TILESIM_INT_BIN_C(tpu_bdc_int_sub_C)
TILESIM_INT_BIN_C(tpu_bdc_int_mul_C)
TILESIM_INT_BIN_C(tpu_bdc_int_C_sub)
TILESIM_CMP(tpu_bdc_equal)
TILESIM_CMP(tpu_bdc_not_equal)
TILESIM_CMP(tpu_bdc_greater)
TILESIM_CMP(tpu_bdc_less)
TILESIM_CMP(tpu_bdc_greater_equal)
TILESIM_CMP(tpu_bdc_less_equal)
TILESIM_CMP_C(tpu_bdc_equal_C)
TILESIM_CMP_C(tpu_bdc_not_equal_C)
TILESIM_CMP_C(tpu_bdc_greater_C)
TILESIM_CMP_C(tpu_bdc_less_C)
TILESIM_CMP_C(tpu_bdc_greater_equal_C)
TILESIM_CMP_C(tpu_bdc_less_equal_C)
TILESIM_BIN(tpu_bdc_and)
TILESIM_BIN(tpu_bdc_or)
TILESIM_BIN(tpu_bdc_xor)
TILESIM_UN(tpu_bdc_not)
TILESIM_BIN_C(tpu_bdc_and_C)
TILESIM_BIN_C(tpu_bdc_or_C)
TILESIM_BIN_C(tpu_bdc_xor_C)
TILESIM_UN(tpu_bdc_abs)
TILESIM_UN(tpu_bdc_neg)
TILESIM_UN(tpu_bdc_relu)
TILESIM_UN(tpu_bdc_cpy)

void tpu_bdc_fp_exp(local_addr_t dst_addr, local_addr_t src_addr, local_addr_t work0_addr, local_addr_t work1_addr,
                    local_addr_t coeff_addr, const dim4* shape, data_type_t dtype) {
  (void)work0_addr;
  (void)work1_addr;
  (void)coeff_addr;
  BDC_RUN(k.fn = "tpu_bdc_fp_exp"; k.dst = dst_addr; k.src0 = src_addr; k.shape = shape;
          k.dst_dtype = k.src0_dtype = R(dtype));
}
void tpu_bdc_set_C(local_addr_t dst_addr, scalar_t C, const dim4* shape, const dim4* dst_stride, data_type_t dtype) {
  BDC_RUN(k.fn = "tpu_bdc_set_C"; k.dst = dst_addr; k.c_bits = bits_of(C); k.shape = shape;
          k.dst_stride = dst_stride; k.dst_dtype = k.src0_dtype = R(dtype));
}
void tpu_bdc_npu_bcast(local_addr_t dst_addr, local_addr_t src_addr, const dim4* shape, data_type_t dtype) {
  BDC_RUN(k.fn = "tpu_bdc_npu_bcast"; k.dst = dst_addr; k.src0 = src_addr; k.shape = shape;
          k.dst_dtype = k.src0_dtype = R(dtype));
}
void tpu_bdc_cast(local_addr_t dst_addr, local_addr_t src_addr, const dim4* shape, const dim4* dst_stride,
                  const dim4* src_stride, data_type_t dst_dtype, data_type_t src_dtype, rounding_mode_t mode) {
  BDC_RUN(k.fn = "tpu_bdc_cast"; k.dst = dst_addr; k.src0 = src_addr; k.shape = shape; k.dst_stride = dst_stride;
          k.src0_stride = src_stride; k.dst_dtype = R(dst_dtype); k.src0_dtype = R(src_dtype);
          k.rounding = tilesim::tpu::raw_enum(mode));
}

// ---- compare-selects ----
void tpu_bdc_greater_select(local_addr_t dst_addr, const variable_t* src0, const variable_t* src1,
                            const variable_t* src2, const variable_t* src3, const dim4* shape,
                            data_type_t src0_src1_dtype, data_type_t dst_dtype) {
  guarded([&] {
    device().select_raw(SelectOp::Greater, dst_addr, 0, src0, src1, src2, src3, shape, R(src0_src1_dtype),
                        R(dst_dtype));
  });
}
void tpu_bdc_less_select(local_addr_t dst_addr, const variable_t* src0, const variable_t* src1,
                         const variable_t* src2, const variable_t* src3, const dim4* shape,
                         data_type_t src0_src1_dtype, data_type_t dst_dtype) {
  guarded([&] {
    device().select_raw(SelectOp::Less, dst_addr, 0, src0, src1, src2, src3, shape, R(src0_src1_dtype),
                        R(dst_dtype));
  });
}
void tpu_bdc_equal_select(local_addr_t dst_addr, const variable_t* src0, const variable_t* src1,
                          const variable_t* src2, const variable_t* src3, const dim4* shape,
                          data_type_t src0_src1_dtype, data_type_t dst_dtype) {
  guarded([&] {
    device().select_raw(SelectOp::Equal, dst_addr, 0, src0, src1, src2, src3, shape, R(src0_src1_dtype),
                        R(dst_dtype));
  });
}
void tpu_bdc_maximum_greater_select(local_addr_t dst0_addr, local_addr_t dst1_addr, const variable_t* src0,
                                    const variable_t* src1, const variable_t* src2, const variable_t* src3,
                                    const dim4* shape, data_type_t dst0_dtype, data_type_t dst1_dtype) {
  guarded([&] {
    device().select_raw(SelectOp::MaximumGreater, dst0_addr, dst1_addr, src0, src1, src2, src3, shape,
                        R(dst0_dtype), R(dst1_dtype));
  });
}
void tpu_bdc_minimum_less_select(local_addr_t dst0_addr, local_addr_t dst1_addr, const variable_t* src0,
                                 const variable_t* src1, const variable_t* src2, const variable_t* src3,
                                 const dim4* shape, data_type_t dst0_dtype, data_type_t dst1_dtype) {
  guarded([&] {
    device().select_raw(SelectOp::MinimumLess, dst0_addr, dst1_addr, src0, src1, src2, src3, shape, R(dst0_dtype),
                        R(dst1_dtype));
  });
}

}  // extern "C"
