// PTO target profiles (spec 20 §2, §5) as one data table, the simulated UB of each target, the
// current target of the C++ front end, and dtype names.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>

#include <fmt/format.h>

#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/profile.hpp"
#include "tilesim/pto/engine.hpp"

namespace tilesim::pto {
namespace {

constexpr uint16_t bit(Elem e) {
  return uint16_t(1u << unsigned(e));
}
constexpr uint16_t kA2A3Basic = bit(Elem::f16) | bit(Elem::f32) | bit(Elem::s16) | bit(Elem::s32);
constexpr uint16_t kA5Basic =
    kA2A3Basic | bit(Elem::u16) | bit(Elem::u32) | bit(Elem::bf16) | bit(Elem::s8) | bit(Elem::u8);
constexpr uint16_t kHalfFloat = bit(Elem::f16) | bit(Elem::f32);

// spec 20 §2 table; §5: a2a3 broadcasts through an 8 KB buffer at 184 KB (TMP_UB_OFFSET).
// cpu (spec 21 §5): the vendor CPU simulator's legality, the union of a2a3 and a5, its 512 KB UB.
// Buffers (spec 21 §5 table, KB): L1 / L0A / L0B / L0C / bias table.
constexpr size_t KB = 1024;
constexpr Target kTargets[] = {
    {"a2a3", TargetKind::a2a3, 192 * KB, kA2A3Basic, kHalfFloat, kHalfFloat, true, 184 * KB, 8 * KB,
     512 * KB, 64 * KB, 64 * KB, 128 * KB, 1 * KB},
    {"a5", TargetKind::a5, 256 * KB, kA5Basic, kA5Basic, kHalfFloat, false, 0, 0, 512 * KB, 64 * KB,
     64 * KB, 256 * KB, 4 * KB},
    {"cpu", TargetKind::cpu, 512 * KB, kA5Basic, kA5Basic, kHalfFloat, false, 0, 0, 512 * KB,
     64 * KB, 64 * KB, 256 * KB, 4 * KB},
};
constexpr size_t kNumTargets = sizeof(kTargets) / sizeof(kTargets[0]);

std::atomic<const Target*> g_current{&kTargets[0]};

// One buffer per (target, location with a buffer): UB, L1, L0A, L0B, L0C, bias table.
constexpr size_t kNumBuffers = 6;
// 64-byte aligned, as the chip's buffers are to their blocks: a 32-byte UB block of a TASSIGN'd
// tile is then one 32-byte block of host memory (the hazard checker's shadow, docs/sync.md).
struct AlignedFree {
  void operator()(uint8_t* p) const noexcept { ::operator delete[](p, std::align_val_t(64)); }
};
struct UbStore {
  std::mutex mu;
  std::array<std::unique_ptr<uint8_t[], AlignedFree>, kNumTargets * kNumBuffers> bytes;
  std::array<std::atomic<uint8_t*>, kNumTargets * kNumBuffers> ready{};
};
constexpr const char* kBufferNames[kNumBuffers] = {"UB", "L1", "L0A", "L0B", "L0C", "bias table"};
// Locations Vec Mat Left Right Acc Bias are 0..5, the buffer index.
size_t buffer_bytes(const Target& t, uint8_t loc) {
  switch (loc) {
    case kLocVec: return t.ub_bytes;
    case kLocMat: return t.l1_bytes;
    case kLocLeft: return t.l0a_bytes;
    case kLocRight: return t.l0b_bytes;
    case kLocAcc: return t.l0c_bytes;
    case kLocBias: return t.bias_bytes;
    default: return 0;
  }
}
UbStore& ub_store() {
  static UbStore s;
  return s;
}

constexpr const char* kElemNames[kNumElems] = {"fp16", "bf16", "fp32", "s8",  "s16", "s32",
                                               "u8",   "u16",  "u32",  "s64", "u64"};
constexpr const char* kOpNames[kNumOps] = {"TROWEXPANDADD",   "TROWEXPANDSUB", "TROWEXPANDMUL",
                                           "TROWEXPANDDIV",   "TROWEXPANDMAX", "TROWEXPANDMIN",
                                           "TROWEXPANDEXPDIF"};
}  // namespace

const char* elem_name(Elem e) noexcept {
  return kElemNames[unsigned(e)];
}
const char* op_name(Op op) noexcept {
  return kOpNames[unsigned(op)];
}

Elem parse_elem(std::string_view name, std::string_view what) {
  // PTO-AS spellings (spec 20 §6) first: f16 f32 bf16 i8 i16 i32 ui8 ui16 ui32 u8 u16 u32.
  static constexpr std::pair<const char*, Elem> kAs[] = {
      {"f16", Elem::f16},  {"f32", Elem::f32}, {"bf16", Elem::bf16}, {"i8", Elem::s8},
      {"i16", Elem::s16},  {"i32", Elem::s32}, {"ui8", Elem::u8},    {"ui16", Elem::u16},
      {"ui32", Elem::u32}, {"u8", Elem::u8},   {"u16", Elem::u16},   {"u32", Elem::u32},
      {"i64", Elem::s64},  {"ui64", Elem::u64}, {"u64", Elem::u64}};
  for (const auto& [n, e] : kAs)
    if (detail::iequals(n, name)) return e;
  formats::DType d;
  if (formats::try_parse_dtype(name, d)) {
    using formats::DType;
    switch (d) {
      case DType::fp16:
        return Elem::f16;
      case DType::bf16:
        return Elem::bf16;
      case DType::fp32:
        return Elem::f32;
      case DType::s8:
        return Elem::s8;
      case DType::s16:
        return Elem::s16;
      case DType::s32:
        return Elem::s32;
      case DType::u8:
        return Elem::u8;
      case DType::u16:
        return Elem::u16;
      case DType::u32:
        return Elem::u32;
      case DType::s64:
        return Elem::s64;
      case DType::u64:
        return Elem::u64;
      default:
        break;
    }
  }
  raise(ErrorCode::Unsupported, what,
        "dtype '" + std::string(name) +
            "' is not a PTO tile dtype (fp16 bf16 fp32 s8 s16 s32 u8 u16 u32 s64 u64)",
        "docs/pto.md#targets-and-dtypes");
}

const Target& find_target(std::string_view name) {
  return find_profile(std::span<const Target>(kTargets), "PTO target", name);
}
const Target& default_target() noexcept {
  return kTargets[0];
}
const Target& current_target() noexcept {
  return *g_current.load();
}
void set_current_target(std::string_view name) {
  g_current.store(&find_target(name));
}

const char* buffer_name(uint8_t loc) noexcept {
  return loc < kNumBuffers ? kBufferNames[loc] : "no buffer";
}

Ub global_buffer(const Target& t, uint8_t loc) {
  const size_t ti = size_t(&t - kTargets);
  if (ti >= kNumTargets)
    raise(ErrorCode::Unsupported, "pto", "target is not in the profile table", "docs/pto.md#targets-and-dtypes");
  const size_t size = buffer_bytes(t, loc);
  if (size == 0)
    raise(ErrorCode::Unsupported, "TASSIGN",
          "tiles of this TileType (Scaling, ScaleLeft, ScaleRight, Ctrl) have no manual-mode "
          "buffer yet",
          "docs/pto-kernels.md#storage");
  const size_t idx = ti * kNumBuffers + loc;
  UbStore& s = ub_store();
  // Every instruction call of the C++ front end asks for its UB: after the first allocation the
  // pointer is read without the lock (the fixed cost of a small-tile call, issue 16 §5).
  if (uint8_t* p = s.ready[idx].load(std::memory_order_acquire)) return Ub{p, size};
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.bytes[idx]) {
    s.bytes[idx].reset(new (std::align_val_t(64)) uint8_t[size]());  // value-initialised: zeros
    s.ready[idx].store(s.bytes[idx].get(), std::memory_order_release);
  }
  return Ub{s.bytes[idx].get(), size};
}

Ub global_ub(const Target& t) {
  return global_buffer(t, kLocVec);
}

void set_default_target_cpu_sim() {
  g_current.store(&find_target("cpu"));
}

void row_expand_current(Op op, const TileDesc& dst, const TileDesc& src0, const TileDesc& src1,
                        const TileDesc* tmp, const sync::Site& site, bool auto_sync) {
  const Target& t = current_target();
  row_expand(op, dst, src0, src1, tmp, t, global_ub(t), Path::Fast, site, auto_sync);
}

uint8_t* tassign_current(uint8_t loc, uint64_t addr, size_t bytes, const uint8_t** ub_out) {
  const Target& t = current_target();
  const Ub ub = global_buffer(t, loc);
  if (addr > uint64_t(INT64_MAX))
    raise(ErrorCode::Bounds, "TASSIGN",
          fmt::format("address {:#x} exceeds the {}", addr, buffer_name(loc)),
          "docs/pto-kernels.md#storage");
  uint8_t* p = ub_bind(ub, t, int64_t(addr), bytes, "tile", buffer_name(loc));
  *ub_out = ub.base;
  return p;
}

}  // namespace tilesim::pto
