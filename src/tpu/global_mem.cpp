// The simulated global memory (DDR) of spec 51 §1: a process-wide set of live allocations, shared
// by every core and thread. Addresses are kGlobalTag + a byte offset that only grows, so a freed
// range is never handed out again and a stale address is always an error (never another
// allocation's bytes). Lookups take a shared lock; alloc/free an exclusive one. The host blocks
// behind freed allocations are kept for reuse (a bounded cache): a fresh block of many MiB costs
// a page fault per 4 KiB on first touch, which on a virtual machine dwarfs zeroing it.
//
// Zeroing is lazy: an allocation keeps the byte ranges not yet zeroed ("pending"), and a byte is
// zeroed before anything can read it: the whole allocation when a host view is taken
// (global_span: the caller may read any of it), a GDMA's source range before it reads, and a
// GDMA destination range before a write that does not cover every byte of it. A GDMA write that
// covers every byte of its range (a contiguous system side) drops the range from pending
// unzeroed. So a kernel's output tensor, written whole by L2S, is never zeroed first.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "tilesim/tpu.hpp"
#include "tpu/global_mem.hpp"

namespace tilesim::tpu {
namespace {

struct FreeAligned {
  void operator()(uint8_t* p) const noexcept { detail::free_big(p); }
};
using Block = std::unique_ptr<uint8_t, FreeAligned>;
// Byte ranges [first, second) of an allocation not zeroed yet: sorted, disjoint.
using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;
struct Allocation {
  uint64_t bytes;
  uint64_t capacity;  // of the host block
  Block data;
  Ranges pending;  // guarded by Space::pending_mu
};

// Offsets below 2^40 (1 TiB of address space handed out over a process's life) keep every
// address inside [kGlobalTag, kGlobalTag + 2^40): bit 62 set, bit 63 clear.
constexpr uint64_t kSpace = uint64_t{1} << 40;
constexpr uint64_t kAlign = 64;
// Freed host blocks of at least kCacheMin bytes are kept, kCacheMax bytes in all, and reused for a
// request of at least half their capacity.
constexpr uint64_t kCacheMin = uint64_t{64} << 10;
constexpr uint64_t kCacheMax = uint64_t{64} << 20;

struct Space {
  std::shared_mutex mu;
  std::map<uint64_t, Allocation> live;  // by offset
  uint64_t next = kAlign;               // offset 0 is never used: an address is never kGlobalTag
  size_t live_bytes = 0;
  std::multimap<uint64_t, Block> cache;  // freed host blocks by capacity
  uint64_t cached_bytes = 0;
  std::mutex pending_mu;  // every Allocation::pending (taken under mu, shared or exclusive)
};
Space& space() {
  static Space s;
  return s;
}

}  // namespace

// The host memory behind local and global memory (tilesim/tpu.hpp detail): nullptr on failure.
namespace detail {
void* alloc_big(size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  if (bytes < kHuge) return std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
  const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, rounded);
#ifdef MADV_HUGEPAGE
  if (p) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: a refusal changes nothing
#endif
  return p;
}
void free_big(void* p) noexcept {
  std::free(p);
}
}  // namespace detail

global_addr_t global_alloc(size_t bytes) {
  constexpr const char* fn = "tilesim_tpu_global_alloc";
  if (bytes == 0) raise(ErrorCode::Constraint, fn, "bytes must be at least 1, got 0", "docs/tpu.md#global-memory");
  Space& s = space();
  std::unique_lock lock(s.mu);
  const uint64_t rounded = (uint64_t{bytes} + kAlign - 1) / kAlign * kAlign;
  if (bytes > kSpace || s.next + rounded > kSpace)
    raise(ErrorCode::Bounds, fn,
          fmt::format("{} bytes do not fit the global address space (offset 0x{:x}, limit 0x{:x})",
                      bytes, s.next, kSpace),
          "docs/tpu.md#global-memory");
  Block block;
  uint64_t capacity = rounded;
  const auto hit = s.cache.lower_bound(rounded);
  if (hit != s.cache.end() && hit->first / 2 <= rounded) {
    capacity = hit->first;
    block = std::move(hit->second);
    s.cached_bytes -= capacity;
    s.cache.erase(hit);
  } else {
    block.reset(static_cast<uint8_t*>(detail::alloc_big(rounded)));
    if (!block)
      raise(ErrorCode::Bounds, fn, fmt::format("host allocation of {} bytes failed", bytes),
            "docs/tpu.md#global-memory");
  }
  const uint64_t off = s.next;
  s.next += rounded;
  s.live.emplace(off, Allocation{bytes, capacity, std::move(block), Ranges{{0, bytes}}});
  s.live_bytes += bytes;
  return kGlobalTag + off;
}

void global_free(global_addr_t addr) {
  constexpr const char* fn = "tilesim_tpu_global_free";
  Space& s = space();
  std::unique_lock lock(s.mu);
  const auto it = is_global(addr) ? s.live.find(addr - kGlobalTag) : s.live.end();
  if (it == s.live.end())
    raise(ErrorCode::Bounds, fn,
          fmt::format("addr 0x{:x} is not the base of a live global allocation (freed twice, never "
                      "allocated, or not a global address)",
                      addr),
          "docs/tpu.md#global-memory");
  s.live_bytes -= it->second.bytes;
  Allocation& a = it->second;
  if (a.capacity >= kCacheMin && a.capacity <= kCacheMax) {
    s.cached_bytes += a.capacity;
    s.cache.emplace(a.capacity, std::move(a.data));
    while (s.cached_bytes > kCacheMax) {  // drop the largest blocks first
      auto big = std::prev(s.cache.end());
      s.cached_bytes -= big->first;
      s.cache.erase(big);
    }
  }
  s.live.erase(it);
}

namespace {
// The live allocation holding [addr, addr + bytes) (bytes = 0: addr only), else the error. The
// caller holds s.mu (shared).
std::map<uint64_t, Allocation>::iterator find_live(Space& s, global_addr_t addr, uint64_t bytes, const char* fn,
                                                   const char* operand) {
  if (!is_global(addr))
    raise(ErrorCode::Bounds, fn, fmt::format("{} 0x{:x} is not a global address (bit 62 clear)", operand, addr),
          "docs/tpu.md#global-memory");
  const uint64_t off = addr - kGlobalTag;
  auto it = s.live.upper_bound(off);
  if (it != s.live.begin()) --it;
  if (it == s.live.end() || off < it->first || off >= it->first + it->second.bytes)
    raise(ErrorCode::Bounds, fn,
          fmt::format("{} 0x{:x} lies in no live global allocation (stale, freed or never allocated)", operand,
                      addr),
          "docs/tpu.md#global-memory");
  const uint64_t base = it->first, size = it->second.bytes;
  if (bytes && (bytes > size || off - base > size - bytes))
    raise(ErrorCode::Bounds, fn,
          fmt::format("{} [0x{:x}, 0x{:x}) ({} bytes) is outside the live global allocation [0x{:x}, 0x{:x}) ({} "
                      "bytes)",
                      operand, addr, addr + bytes, bytes, kGlobalTag + base, kGlobalTag + base + size, size),
          "docs/tpu.md#global-memory");
  return it;
}

// Removes [lo, hi) from a's pending ranges, zeroing what it removes unless `writes_all`.
void settle(Allocation& a, uint64_t lo, uint64_t hi, bool writes_all) {
  Ranges kept;
  for (const auto& [b, e] : a.pending) {
    if (e <= lo || hi <= b) {
      kept.emplace_back(b, e);
      continue;
    }
    if (b < lo) kept.emplace_back(b, lo);
    if (!writes_all) std::memset(a.data.get() + std::max(b, lo), 0, std::min(e, hi) - std::max(b, lo));
    if (hi < e) kept.emplace_back(hi, e);
  }
  a.pending.swap(kept);
}
}  // namespace

uint8_t* global_span(global_addr_t addr, uint64_t bytes, const char* fn, const char* operand) {
  Space& s = space();
  std::shared_lock lock(s.mu);
  const auto it = find_live(s, addr, bytes, fn, operand);
  {  // a host view: any byte of the allocation may be read through it
    std::lock_guard zero(s.pending_mu);
    if (!it->second.pending.empty()) settle(it->second, 0, it->second.bytes, false);
  }
  return it->second.data.get() + (addr - kGlobalTag - it->first);
}

uint8_t* global_span_lazy(global_addr_t addr, uint64_t bytes, const char* fn, const char* operand) {
  Space& s = space();
  std::shared_lock lock(s.mu);
  const auto it = find_live(s, addr, bytes, fn, operand);
  return it->second.data.get() + (addr - kGlobalTag - it->first);
}

void global_touch(global_addr_t addr, uint64_t bytes, bool writes_all) {
  Space& s = space();
  std::shared_lock lock(s.mu);
  const auto it = find_live(s, addr, bytes, "tilesim_tpu_global_ptr", "addr");  // checked by the caller already
  std::lock_guard zero(s.pending_mu);
  if (it->second.pending.empty()) return;
  const uint64_t lo = addr - kGlobalTag - it->first;
  settle(it->second, lo, lo + bytes, writes_all);
}

size_t global_live_bytes() noexcept {
  Space& s = space();
  std::shared_lock lock(s.mu);
  return s.live_bytes;
}

}  // namespace tilesim::tpu
