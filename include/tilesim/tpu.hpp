// tilesim::tpu — the C++ face of the Sophgo TPU-Kernel model (spec 50): an explicit Device
// holding one chip's simulated NPU local memory, with the same calls as the C API
// (tilesim/tpu_kernel.h). Every rule of spec 50 §4 is checked before anything is written;
// a violation throws tilesim::Error.
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tilesim/error.hpp"
#include "tilesim/tpu_kernel.h"

namespace tilesim::tpu {

// How the selects compare floats. The vendor documents no NaN or signed-zero rule; spec 50 §3's
// decision (IEEE: a NaN makes >, <, == false, +0 == -0) is kept in the chip profile, so a chip
// found to differ is one row plus one implementation, not a search through the code.
enum class FloatCompare : uint8_t { ieee };

// One row per chip (spec 50 §1, §2; spec 00 "Target profiles").
struct ChipProfile {
  const char* name;
  int npu_num;
  uint32_t local_mem_size;  // bytes per NPU
  int align_bytes;          // ALIGN_BYTES = EU bytes
  uint64_t select_dtypes;   // bit d set: data_type_t d accepted by the select instructions
  FloatCompare float_compare = FloatCompare::ieee;  // spec 50 §3
  int banks = 16;           // LOCAL_MEM_BANKS (spec 51 §1 table)
  int cores = 1;            // tpu_core_num() (spec 51 §1 table)
};

std::span<const ChipProfile> chips() noexcept;
const ChipProfile& find_chip(std::string_view name);  // Error(Unsupported) listing valid names
inline constexpr const char* kDefaultChip = "bm1684x";

// ---- global memory (spec 51 §1) ----
// Global addresses carry bit 62 (no user-space host pointer on x86-64 or AArch64 has it): an
// address with the tag must lie in a live allocation; one without it is a host pointer.
inline constexpr uint64_t kGlobalTag = 0x4000000000000000ull;
inline bool is_global(uint64_t addr) noexcept { return (addr & kGlobalTag) != 0; }
// 64-byte aligned, zeroed, never 0; addresses are never reused after a free.
global_addr_t global_alloc(size_t bytes);
void global_free(global_addr_t addr);  // Error(Bounds) for an address that is not a live base
// Host view of [addr, addr + bytes) inside one live allocation; `fn`/`operand` name the caller
// in the error message. bytes = 0 checks addr only.
uint8_t* global_span(global_addr_t addr, uint64_t bytes, const char* fn = "tilesim_tpu_global_ptr",
                     const char* operand = "addr");
// Bytes of live allocations (tests: frees really free).
size_t global_live_bytes() noexcept;

// The five functions (spec 50 §3).
enum class SelectOp : uint8_t { Greater, Less, Equal, MaximumGreater, MinimumLess };
const char* instruction_name(SelectOp op) noexcept;  // "tpu_bdc_greater_select", ...

// Operand constructors.
inline variable_t tensor(local_addr_t addr) {
  variable_t v{};
  v.type = TENSOR;
  v.context.addr = addr;
  return v;
}
inline variable_t vector(local_addr_t addr) {
  variable_t v{};
  v.type = VECTOR;
  v.context.addr = addr;
  return v;
}
// SCALAR from raw bits (the low bits of the union are the value, spec 50 §2).
inline variable_t scalar_bits(uint32_t bits) {
  variable_t v{};
  v.type = SCALAR;
  v.context.scalar.u32 = bits;
  return v;
}
variable_t scalar_f32(float x);

// One BDC arithmetic call (spec 51 §3), whatever its vendor signature: the C shims and the
// Python methods fill the fields the function has; the rest stay at their defaults.
struct BdcCall {
  const char* fn = nullptr;  // vendor name, "tpu_bdc_fp_add"
  local_addr_t dst = 0, src0 = 0, src1 = 0;
  const dim4* shape = nullptr;
  const dim4* dst_stride = nullptr;  // NULL = 64-byte aligned layout
  const dim4* src0_stride = nullptr;
  const dim4* src1_stride = nullptr;
  int dst_dtype = -1, src0_dtype = -1, src1_dtype = -1;  // data_type_t values (-1: the one dtype)
  uint32_t c_bits = 0;     // the scalar_t C (its low bits are the value)
  uint32_t true_bits = 1;  // the compares' true_val
  int shift = 0;           // integer forms: right shift of the exact result
  int rounding = 0;        // rounding_mode_t of that shift / of tpu_bdc_cast
  bool saturation = true;  // integer forms: clamp (true) or wrap to dst
};

// The chip rows' names, for messages and Python.
std::vector<std::string> bdc_function_names();
// Each function's vendor prototype: parameter names in order ("dst_addr", "src0_addr", ...,
// "shape", "dst_stride", ..., "dtype"), and the parameter whose dtype the scalar C is read in
// (empty when there is no C). The Python methods are generated from this list.
struct BdcSignature {
  std::string name;
  std::vector<std::string> params;
  std::string c_dtype;
};
std::vector<BdcSignature> bdc_signatures();

namespace detail {
// Host memory of a chip's local memory (and large global allocations): 2 MiB-aligned and, where
// the OS offers them, on transparent huge pages (the simulated memory is walked NPU by NPU: with
// 4 KiB pages the TLB misses cost as much as the data). nullptr on failure; not zeroed.
void* alloc_big(size_t bytes);
void free_big(void* p) noexcept;
template <class T>
struct BigAllocator {
  using value_type = T;
  BigAllocator() = default;
  template <class U>
  BigAllocator(const BigAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    if (void* p = alloc_big(n * sizeof(T))) return static_cast<T*>(p);
    throw std::bad_alloc();
  }
  void deallocate(T* p, size_t) noexcept { free_big(p); }
  template <class U>
  bool operator==(const BigAllocator<U>&) const noexcept { return true; }
};
// A set of in-NPU granules, the unit of the launch's lazy zeroing (Device::zero_memory): granule k
// is in-NPU bytes [k, k + 1) * LOCAL_MEM_SIZE / kCount, on every NPU. 256 of them (1 KiB on
// bm1684x) so that a kernel's tiles of a few KiB per NPU cover theirs whole and need no zeros
// (with 64, a 2 KiB fp16 tile zeroed 4 KiB per NPU before every write).
struct Granules {
  static constexpr int kCount = 256;
  uint64_t w[kCount / 64] = {};
  static constexpr Granules all() noexcept {
    Granules g;
    for (uint64_t& x : g.w) x = ~uint64_t{0};
    return g;
  }
  bool any() const noexcept {
    uint64_t o = 0;
    for (uint64_t x : w) o |= x;
    return o != 0;
  }
  bool test(int k) const noexcept { return (w[k / 64] >> (k % 64) & 1) != 0; }
  Granules operator&(const Granules& o) const noexcept {
    Granules r;
    for (int i = 0; i < kCount / 64; ++i) r.w[i] = w[i] & o.w[i];
    return r;
  }
  Granules operator~() const noexcept {
    Granules r;
    for (int i = 0; i < kCount / 64; ++i) r.w[i] = ~w[i];
    return r;
  }
  Granules& operator|=(const Granules& o) noexcept {
    for (int i = 0; i < kCount / 64; ++i) w[i] |= o.w[i];
    return *this;
  }
  Granules& operator&=(const Granules& o) noexcept {
    for (int i = 0; i < kCount / 64; ++i) w[i] &= o.w[i];
    return *this;
  }
};
}  // namespace detail

class Device {
 public:
  explicit Device(std::string_view chip = kDefaultChip);

  const ChipProfile& profile() const noexcept { return *chip_; }
  int npu_num() const noexcept { return chip_->npu_num; }
  uint32_t local_mem_size() const noexcept { return chip_->local_mem_size; }
  int align_bytes() const noexcept { return chip_->align_bytes; }
  int eu_num(data_type_t dtype) const;  // ALIGN_BYTES / sizeof(dtype)

  // Host layout of the local memory (docs/tpu.md#host-layout): NPU k's local_mem_size() bytes
  // start at byte k * npu_stride() of memory(); the npu_stride() - local_mem_size() bytes after
  // each NPU are padding no operation reads or writes. The stride is not LOCAL_MEM_SIZE so that the
  // NPUs' channel planes do not all fall into the same cache sets. Simulated local addresses are
  // unchanged: use npu_memory(k) or host_offset(addr) rather than addr itself as a host offset.
  size_t npu_stride() const noexcept { return stride_; }
  // Byte of memory() holding local address addr (NPU addr / LOCAL_MEM_SIZE, offset addr %
  // LOCAL_MEM_SIZE); addr < NPU_NUM * LOCAL_MEM_SIZE is not checked.
  size_t host_offset(local_addr_t addr) const noexcept {
    return size_t{addr / local_mem_size()} * stride_ + addr % local_mem_size();
  }
  // The whole host buffer (npu_num() * npu_stride() bytes, padding included). Writable access
  // counts as writing all of it (see zero_memory). Every view (memory, npu_memory) hands out host
  // memory, after which zero_memory zeroes at once (a view must see the zeros).
  std::span<uint8_t> memory() noexcept {
    settle(detail::Granules::all());
    viewed_ = true;
    written_ = detail::Granules::all();
    return mem_;
  }
  std::span<const uint8_t> memory() const noexcept {
    settle(detail::Granules::all());
    viewed_ = true;
    return mem_;
  }
  // NPU k's local memory: local_mem_size() bytes, in-NPU offset 0 first (k in [0, npu_num()),
  // else Error(Bounds)). Same rules as memory().
  std::span<uint8_t> npu_memory(int k);
  std::span<const uint8_t> npu_memory(int k) const;
  // tilesim's own operations (GDMA, BDC), after every check passed: data_read before reading
  // in-NPU bytes [lo, hi) (of any NPU), then data_written for the bytes they write, which returns
  // the memory (host layout as memory(): NPU k at k * npu_stride()). `whole`: the operation
  // writes every byte of [lo, hi) on every NPU.
  void data_read(uint32_t lo, uint32_t hi) noexcept;
  uint8_t* data_written(uint32_t lo, uint32_t hi, bool whole = false) noexcept;
  // Every byte reads as zero afterwards: what tilesim_tpu_launch gives each core. Only the
  // in-NPU granules (LOCAL_MEM_SIZE / 256 bytes) written since the last zeroing can be non-zero,
  // and they are zeroed lazily: a granule is zeroed when an operation first reads it, or a host
  // view is taken, and never when an operation writes all of it first.
  void zero_memory() noexcept;

  // Layout helpers (spec 50 §1), vendor semantics.
  int npu_index(local_addr_t addr) const noexcept {
    return static_cast<int>(addr / local_mem_size());
  }
  void aligned_stride(dim4* stride, int start_idx, const dim4* shape, data_type_t dtype) const;
  void compact_stride(dim4* stride, int start_idx, const dim4* shape) const;
  // Contiguous NCHW strides (w 1, h W, c H*W, n C*H*W), and ALIGN(h*w, EU_NUM(dtype)) * size.
  void continuous_stride(dim4* stride, const dim4* shape) const;
  int aligned_feature_size(int h, int w, int dtype) const;

  // GDMA (spec 50 §5). Host pointers; NULL strides = continuous / 64-byte aligned.
  void gdma_cpy_S2L(local_addr_t dst, const void* src, const dim4* shape, const dim4* dst_stride,
                    const dim4* src_stride, data_type_t dtype);
  void gdma_cpy_L2S(void* dst, local_addr_t src, const dim4* shape, const dim4* dst_stride,
                    const dim4* src_stride, data_type_t dtype);

  // GDMA on system addresses (spec 51 §2): a global address (bounds-checked) or a host pointer.
  // dtype as the stored int of a data_type_t (see the *_raw note below).
  void gdma_S2L(local_addr_t dst, system_addr_t src, const dim4* shape, const dim4* dst_stride,
                const dim4* src_stride, int dtype);
  void gdma_L2S(system_addr_t dst, local_addr_t src, const dim4* shape, const dim4* dst_stride,
                const dim4* src_stride, int dtype);
  void gdma_L2L(local_addr_t dst, local_addr_t src, const dim4* shape, const dim4* dst_stride,
                const dim4* src_stride, int dtype);
  void gdma_S2S(system_addr_t dst, system_addr_t src, const dim4* shape, const dim4* dst_stride,
                const dim4* src_stride, int dtype);
  void gdma_set_C_system(system_addr_t dst, uint32_t c_bits, const dim4* shape,
                         const dim4* dst_stride, int dtype);
  void gdma_set_C_local(local_addr_t dst, uint32_t c_bits, const dim4* shape,
                        const dim4* dst_stride, int dtype);
  void gdma_system_cpy(system_addr_t dst, system_addr_t src, uint64_t count, int dtype);

  // BDC arithmetic (spec 51 §3): one entry for every function of the closure, by vendor name
  // ("tpu_bdc_fp_add", ...). See BdcCall.
  void bdc(const struct BdcCall& call);

  // BDC compare-select (seed 001, spec 50 §3).
  void greater_select(local_addr_t dst, const variable_t* src0, const variable_t* src1,
                      const variable_t* src2, const variable_t* src3, const dim4* shape,
                      data_type_t src0_src1_dtype, data_type_t dst_dtype);
  void less_select(local_addr_t dst, const variable_t* src0, const variable_t* src1,
                   const variable_t* src2, const variable_t* src3, const dim4* shape,
                   data_type_t src0_src1_dtype, data_type_t dst_dtype);
  void equal_select(local_addr_t dst, const variable_t* src0, const variable_t* src1,
                    const variable_t* src2, const variable_t* src3, const dim4* shape,
                    data_type_t src0_src1_dtype, data_type_t dst_dtype);
  void maximum_greater_select(local_addr_t dst0, local_addr_t dst1, const variable_t* src0,
                              const variable_t* src1, const variable_t* src2,
                              const variable_t* src3, const dim4* shape, data_type_t dst0_dtype,
                              data_type_t dst1_dtype);
  void minimum_less_select(local_addr_t dst0, local_addr_t dst1, const variable_t* src0,
                           const variable_t* src1, const variable_t* src2, const variable_t* src3,
                           const dim4* shape, data_type_t dst0_dtype, data_type_t dst1_dtype);

  // One entry for all five: dst1 is ignored by the three selects; dtype_a is src0_src1_dtype or
  // dst0_dtype, dtype_b is dst_dtype or dst1_dtype.
  void select(SelectOp op, local_addr_t dst0, local_addr_t dst1, const variable_t* src0,
              const variable_t* src1, const variable_t* src2, const variable_t* src3,
              const dim4* shape, data_type_t dtype_a, data_type_t dtype_b);

  // The same entries with each dtype given as the stored int of a data_type_t: the C API passes
  // whatever int a C caller put in the enum, which may lie outside the C++ enum's range.
  int eu_num_raw(int dtype) const;
  void aligned_stride_raw(dim4* stride, int start_idx, const dim4* shape, int dtype) const;
  void gdma_cpy_S2L_raw(local_addr_t dst, const void* src, const dim4* shape,
                        const dim4* dst_stride, const dim4* src_stride, int dtype);
  void gdma_cpy_L2S_raw(void* dst, local_addr_t src, const dim4* shape, const dim4* dst_stride,
                        const dim4* src_stride, int dtype);
  void select_raw(SelectOp op, local_addr_t dst0, local_addr_t dst1, const variable_t* src0,
                  const variable_t* src1, const variable_t* src2, const variable_t* src3,
                  const dim4* shape, int dtype_a, int dtype_b);

  // Testing hook: run the scalar reference (the definition, spec 70 item 5) instead of the
  // SIMD/threaded fast path. Results are bit-identical either way.
  void set_reference(bool on) noexcept { reference_ = on; }
  bool reference() const noexcept { return reference_; }

 private:
  const ChipProfile* chip_;
  // Zeroes the pending granules of `mask` on every NPU.
  void settle(const detail::Granules& mask) const noexcept;

  size_t stride_;  // npu_stride()
  mutable std::vector<uint8_t, detail::BigAllocator<uint8_t>> mem_;  // mutable: settle
  detail::Granules written_;          // granule k may be non-zero on some NPU
  mutable detail::Granules pending_;  // granule k reads as zero but is not zeroed yet
  mutable bool viewed_ = false;    // a host view of the memory was handed out
  bool reference_ = false;
};

}  // namespace tilesim::tpu
