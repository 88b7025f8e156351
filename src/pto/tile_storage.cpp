// Storage of auto-mode pto::Tile objects (include/tilesim/pto/engine.hpp, tile_storage_alloc):
// 64-byte aligned (as the UB's tiles are 32-byte aligned, the row kernels' loads and stores stay
// within cache lines, trowexpand_simd.cpp) and zero-filled, from a per-thread cache of freed
// blocks. A kernel function declares its tiles anew on every call; with plain operator new the
// allocator trimmed the freed top of the heap and the next call faulted the pages in again
// (measured: a 128 x 64 flash-attention call, 15 tiles of 172 KB, 250 -> 90 us).
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "tilesim/pto/engine.hpp"

namespace tilesim::pto {
namespace {

constexpr std::align_val_t kAlign{64};
constexpr size_t kMaxBlocks = 64;                  // kept per thread, at most
constexpr size_t kMaxBytes = size_t{16} << 20;     // and at most this many bytes

struct Cache {
  std::vector<std::pair<void*, size_t>> blocks;  // (block, bytes), most recently freed last
  size_t bytes = 0;
  ~Cache();
};
// Trivially destructible, so still readable while (and after) the thread's Cache is destroyed: a
// tile destroyed after it (a static tile at exit) is given back to the allocator.
thread_local bool t_closed = false;
thread_local Cache t_cache;

Cache::~Cache() {
  t_closed = true;
  for (auto& [p, n] : blocks) ::operator delete[](p, kAlign);
  blocks.clear();
}

}  // namespace

void* tile_storage_alloc(size_t bytes) {
  void* p = nullptr;
  if (!t_closed) {
    auto& b = t_cache.blocks;
    for (size_t i = b.size(); i-- > 0;)
      if (b[i].second == bytes) {
        p = b[i].first;
        b.erase(b.begin() + std::ptrdiff_t(i));
        t_cache.bytes -= bytes;
        break;
      }
  }
  if (!p) p = ::operator new[](bytes, kAlign);
  std::memset(p, 0, bytes);
  return p;
}

void tile_storage_free(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (t_closed || t_cache.blocks.size() >= kMaxBlocks || t_cache.bytes + bytes > kMaxBytes) {
    ::operator delete[](p, kAlign);
    return;
  }
  try {
    t_cache.blocks.emplace_back(p, bytes);
    t_cache.bytes += bytes;
  } catch (...) {  // no room to remember it
    ::operator delete[](p, kAlign);
  }
}

}  // namespace tilesim::pto
