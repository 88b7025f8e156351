// tilesim::ascendc — the Ascend C vector engine (spec 40): product profiles, the simulated core
// (UB + mask register), and BlockReduceSum/Max/Min. The vendor-shaped header
// <tilesim/ascendc.hpp> is a thin layer over this; Python and the CLI call it directly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilesim::ascendc {

enum class Elem : uint8_t { f16, f32 };
enum class ReduceOp : uint8_t { Sum, Max, Min };

inline constexpr unsigned elem_bytes(Elem e) noexcept {
  return e == Elem::f16 ? 2 : 4;
}
// E: elements per 32-byte datablock (spec 40 §1).
inline constexpr unsigned block_elems(Elem e) noexcept {
  return 32 / elem_bytes(e);
}
// Elements per 256-byte repeat.
inline constexpr unsigned repeat_elems(Elem e) noexcept {
  return 8 * block_elems(e);
}
const char* name(Elem e) noexcept;       // "half" / "float"
const char* name(ReduceOp op) noexcept;  // "BlockReduceSum" / ...

// What a datablock with no active element gets (spec 40 §2, §5).
enum class MaskedBlock : uint8_t {
  NotWritten,    // dst keeps its old value
  Identity,      // SUM +0, MAX -Inf, MIN +Inf
  Identity200I,  // SUM +0; MAX -65504 (half) / -Inf (float); MIN +65504 (half) / +Inf (float)
};

// One row per product (docs/ascendc.md#products). A data table, never #ifdef (spec 00 "Target profiles").
struct Product {
  const char* name;   // profile name: atlas_a2, ...
  const char* title;  // the vendor's product name
  bool block_reduce;  // BlockReduce* supported at all (Vector Core: no)
  bool f16;           // half supported
  bool f32;           // float supported
  MaskedBlock masked_block;
  bool dst_rep_stride0;  // dstRepStride == 0 allowed
  bool half_saturation;  // default of the saturation mode for half SUM
  uint32_t ub_bytes;     // Unified Buffer size
};

std::span<const Product> products() noexcept;
const Product& default_product() noexcept;  // atlas_a2
const Product& find_product(std::string_view name);

// The vector mask register of one simulated core (spec 40 §1): 128 bits, reset all ones;
// normal mode reads them as per-element bits, counter mode reads `lo` as an element count.
struct MaskRegister {
  uint64_t lo = ~uint64_t{0};
  uint64_t hi = ~uint64_t{0};
  bool counter = false;
};

// The mask argument of one BlockReduce call.
struct MaskArg {
  enum class Kind : uint8_t { Bits, Continuous } kind = Kind::Continuous;
  uint64_t bits[2] = {0, 0};  // bit mode words
  unsigned words = 0;         // how many words the caller gave (1 or 2; 0 = unknown, read per T)
  int64_t len = 0;            // continuous mode
  bool set_mask = true;       // the isSetMask template argument; false = use the register
};

// An operand: host pointer to element 0, its simulated UB byte address (alignment rules),
// and its extent in elements.
struct Operand {
  void* data = nullptr;
  uint64_t addr = 0;
  uint64_t size = 0;
};

struct ReduceCall {
  ReduceOp op = ReduceOp::Sum;
  Elem elem = Elem::f16;
  int64_t repeat = 1;
  MaskArg mask;
  int64_t dst_rep_stride = 1;
  int64_t src_blk_stride = 1;
  int64_t src_rep_stride = 8;
};

enum class Path : uint8_t { Fast, Reference };

// Checks every rule of spec 40 §3 (raising tilesim::Error, nothing written, register unchanged),
// then updates the mask register as the call does (§1) and executes. `saturation` is the
// half-SUM saturation mode in effect (the product's default unless the user overrode it).
void block_reduce(const Product& product, bool saturation, MaskRegister& reg, const Operand& dst,
                  const Operand& src, const ReduceCall& call, Path path = Path::Fast);

// ---- the mask register API (spec 40 §1); T given as Elem ----
void set_vector_mask_bits(MaskRegister& reg, Elem t, uint64_t high,
                          uint64_t low);                                    // NORMAL (high, low)
void set_vector_mask_len(MaskRegister& reg, Elem t, int64_t len);           // NORMAL (len)
void set_vector_mask_count(MaskRegister& reg, uint64_t high, int64_t len);  // COUNTER
void reset_mask(MaskRegister& reg) noexcept;
void set_mask_count(MaskRegister& reg) noexcept;
void set_mask_norm(MaskRegister& reg) noexcept;

// Storage aligned to 64-byte lines: the UB starts on a cache line, so a 64-byte aligned UB
// address is one whole line (and one whole AVX-512 vector for the SIMD kernels).
template <class T>
struct LineAligned {
  using value_type = T;
  LineAligned() = default;
  template <class U>
  LineAligned(const LineAligned<U>&) noexcept {}
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64}));
  }
  void deallocate(T* p, size_t) noexcept { ::operator delete(p, std::align_val_t{64}); }
  template <class U>
  bool operator==(const LineAligned<U>&) const noexcept {
    return true;
  }
};
using UbBytes = std::vector<uint8_t, LineAligned<uint8_t>>;

// ---- the simulated core: one per process outside ICPU_RUN_KF, one per block inside it ----
struct Core {
  const Product* product = nullptr;
  UbBytes ub;               // the Unified Buffer, ub_bytes long, 64-byte aligned
  uint64_t ub_top = 0;      // bump allocator of TPipe::InitBuffer
  MaskRegister mask;
  std::optional<bool> saturation;  // SetSaturation override; nullopt = product default
  std::map<uint32_t, int64_t> flags;  // SetFlag count minus WaitFlag count per (HardEvent, id)
  uint64_t cmpmask[2] = {0, 0};       // the CMPMASK register (Compare, Select, Get/SetCmpMask)
  uint8_t events[64] = {};            // TPipe event ids in use, a bitmap of 8 per HardEvent
  void* tpipe = nullptr;  // the AscendC::TPipe GetTPipePtr() returns: the newest one alive
  int atomic_add = -1;    // SetAtomicAdd<T>: UB -> GM copies add in T (a formats::DType code); -1: store
  bool half_saturation() const { return saturation ? *saturation : product->half_saturation; }
};
// The core of the calling thread: the block's own inside ICPU_RUN_KF, else the process's.
Core& core();
// Makes `c` the calling thread's core (nullptr: back to the process core).
void bind_core(Core* c) noexcept;
// The core bound to the calling thread by bind_core (nullptr: none, core() is the process's).
Core* bound_core() noexcept;
// Resets the core for the product: fresh zeroed UB of its size, mask register reset, saturation
// back to the product default, no allocations.
void set_product(std::string_view name);
// Reserves `bytes` of UB (32-byte aligned start); raises Error(Bounds) beyond the UB size.
uint64_t ub_alloc(uint64_t bytes, std::string_view what);

}  // namespace tilesim::ascendc
