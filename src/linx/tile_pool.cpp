// The storage of tile bytes (machine_state.hpp, TileBytes): blocks of 64 KiB and more are kept for
// reuse when a tile is released, up to kKeep bytes, and handed out again for the same size.
//
// Why: every TLOAD, ACCCVT and TEPL pushes a new tile, and the queue's oldest or a released one is
// freed at the same time. glibc serves a 256 KiB request with mmap until its dynamic threshold has
// grown past that size (whether it has depends on what the process allocated before), so in one
// process every push cost 64 page faults and the page zeroing: the 512^3 fp32 GEMM program took
// 8.7-9.1 ms against 1.5-1.6 ms with the threshold raised (MALLOC_MMAP_THRESHOLD_), the same
// program, the same build (2026-12-07). Tile sizes come from a short list (spec 30's size codes),
// so exact-size reuse finds a block on every push after the first few.
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "linx/machine_state.hpp"

namespace tilesim::linx {
namespace {

constexpr size_t kMinPooled = size_t{64} << 10;
constexpr size_t kKeep = size_t{64}
                         << 20;  // cached bytes at most (16 queues' worth of 256 KiB tiles)

struct Pool {
  std::mutex m;
  std::map<size_t, std::vector<void*>> free;  // by exact size
  size_t cached = 0;
  ~Pool() {
    for (auto& [size, blocks] : free)
      for (void* p : blocks) ::operator delete(p);
  }
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void* tile_alloc(size_t bytes) {
  if (bytes >= kMinPooled) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lk(p.m);
    auto it = p.free.find(bytes);
    if (it != p.free.end() && !it->second.empty()) {
      void* b = it->second.back();
      it->second.pop_back();
      p.cached -= bytes;
      return b;
    }
  }
  return ::operator new(bytes);
}

void tile_free(void* b, size_t bytes) noexcept {
  if (b && bytes >= kMinPooled) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lk(p.m);
    if (p.cached + bytes <= kKeep) {
      try {
        p.free[bytes].push_back(b);
        p.cached += bytes;
        return;
      } catch (...) {  // no memory for the list entry: free the block instead
      }
    }
  }
  ::operator delete(b);
}

}  // namespace tilesim::linx
