// Storage of auto-mode pto::Tile objects (include/tilesim/pto/engine.hpp, tile_storage_alloc):
// 64-byte aligned (as the UB's tiles are 32-byte aligned, the row kernels' loads and stores stay
// within cache lines, trowexpand_simd.cpp) and zero-filled, from a per-thread cache of freed
// blocks. A kernel function declares its tiles anew on every call; with plain operator new the
// allocator trimmed the freed top of the heap and the next call faulted the pages in again
// (measured on a 128 x 64 flash-attention call, 15 tiles of 172 KB together: 330 -> 65 us).
#include <cstddef>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "tilesim/pto/engine.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
// A cached block is poisoned, so a tile used after its destruction still fails under ASan.
#define TILESIM_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define TILESIM_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define TILESIM_POISON(p, n) ((void)(p), (void)(n))
#define TILESIM_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace tilesim::pto {
namespace {

constexpr std::align_val_t kAlign{64};
constexpr size_t kMaxBlocks = 64;               // kept per thread, at most
constexpr size_t kMaxBytes = size_t{16} << 20;  // and at most this many bytes

struct Cache {
  std::vector<std::pair<void*, size_t>> blocks;  // (block, bytes), oldest first
  size_t bytes = 0;
  void drop_oldest() {
    TILESIM_UNPOISON(blocks.front().first, blocks.front().second);
    ::operator delete[](blocks.front().first, kAlign);
    bytes -= blocks.front().second;
    blocks.erase(blocks.begin());
  }
  ~Cache();
};
// Trivially destructible, so still readable while (and after) the thread's Cache is destroyed: a
// tile destroyed after it (a static tile at exit) is given back to the allocator. (A thread whose
// first tile is freed from a static destructor after its thread_local destructors ran keeps that
// block until the process ends.)
thread_local bool t_closed = false;
thread_local Cache t_cache;

Cache::~Cache() {
  t_closed = true;
  while (!blocks.empty()) drop_oldest();
}

}  // namespace

void* tile_storage_alloc(size_t bytes) {
  void* p = nullptr;
  if (!t_closed) {
    auto& b = t_cache.blocks;
    for (size_t i = b.size(); i-- > 0;)  // the most recently freed block of this size
      if (b[i].second == bytes) {
        p = b[i].first;
        b.erase(b.begin() + std::ptrdiff_t(i));
        t_cache.bytes -= bytes;
        TILESIM_UNPOISON(p, bytes);
        break;
      }
  }
  if (!p) p = ::operator new[](bytes, kAlign);
  std::memset(p, 0, bytes);
  return p;
}

void tile_storage_free(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (t_closed || bytes > kMaxBytes) {
    ::operator delete[](p, kAlign);
    return;
  }
  // The oldest blocks make room: a cache full of sizes no kernel uses any more must not turn the
  // cache off for the ones that run now.
  while (!t_cache.blocks.empty() &&
         (t_cache.blocks.size() >= kMaxBlocks || t_cache.bytes + bytes > kMaxBytes))
    t_cache.drop_oldest();
  try {
    t_cache.blocks.emplace_back(p, bytes);
    t_cache.bytes += bytes;
    TILESIM_POISON(p, bytes);
  } catch (...) {  // no room to remember it
    ::operator delete[](p, kAlign);
  }
}

}  // namespace tilesim::pto
