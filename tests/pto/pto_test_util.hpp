// Test helpers: tiles as descriptors over owned byte vectors or over a private simulated UB.
#pragma once
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "tilesim/pto/engine.hpp"

namespace pto_test {
using namespace tilesim::pto;

struct HostTile {
  std::vector<uint8_t> bytes;
  TileDesc d;
  HostTile() = default;
  HostTile(Elem e, int rows, int cols, bool row_major, int vr = -1, int vc = -1) {
    d.dtype = e;
    d.rows = rows;
    d.cols = cols;
    d.row_major = row_major;
    d.valid_row = vr < 0 ? rows : vr;
    d.valid_col = vc < 0 ? cols : vc;
    bytes.assign(d.bytes(), 0);
    d.data = bytes.data();
    d.capacity = bytes.size();
  }
  HostTile(const HostTile& o) : bytes(o.bytes), d(o.d) { d.data = bytes.data(); }
  HostTile& operator=(const HostTile& o) {
    bytes = o.bytes;
    d = o.d;
    d.data = bytes.data();
    return *this;
  }
  size_t sz() const { return elem_size(d.dtype); }
  uint8_t* at(int r, int c) {
    const size_t i = d.row_major ? size_t(r) * d.cols + c : size_t(c) * d.rows + r;
    return d.data + i * sz();
  }
  template <class T>
  T get(int r, int c) {
    T v;
    std::memcpy(&v, at(r, c), sizeof(T));
    return v;
  }
  template <class T>
  void set(int r, int c, T v) {
    std::memcpy(at(r, c), &v, sizeof(T));
  }
};

// A private UB and tiles bound into it (manual mode).
struct UbArena {
  std::vector<uint8_t> bytes;
  Ub ub;
  explicit UbArena(const Target& t) : bytes(t.ub_bytes, 0) { ub = Ub{bytes.data(), bytes.size()}; }
  TileDesc bind(Elem e, int rows, int cols, bool row_major, int64_t addr, int vr = -1,
                int vc = -1) {
    TileDesc d;
    d.dtype = e;
    d.rows = rows;
    d.cols = cols;
    d.row_major = row_major;
    d.valid_row = vr < 0 ? rows : vr;
    d.valid_col = vc < 0 ? cols : vc;
    d.data = ub.base + addr;
    d.capacity = d.bytes();
    d.ub_addr = addr;
    d.ub = ub.base;
    return d;
  }
};

// Random element codes with a large share of edge values (±0, ±Inf, NaNs, subnormals, extremes).
inline void fill_random(std::mt19937& g, Elem e, uint8_t* p, size_t n) {
  const size_t sz = elem_size(e);
  static const uint32_t f32_edges[] = {0x00000000, 0x80000000, 0x7F800000, 0xFF800000,
                                       0x7FC00000, 0x7F800001, 0xFFC12345, 0x00000001,
                                       0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000,
                                       0xBF800000, 0x00800000, 0x33800000, 0x4B000001};
  static const uint16_t f16_edges[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01,
                                       0xFE01, 0x0001, 0x83FF, 0x7BFF, 0xFBFF, 0x3C00,
                                       0xBC00, 0x0400, 0x4900, 0x1400};
  static const uint16_t bf16_edges[] = {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81,
                                        0xFFC1, 0x0001, 0x807F, 0x7F7F, 0xFF7F, 0x3F80,
                                        0xBF80, 0x0080, 0x4300, 0x3B80};
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = uint32_t(g());
    const bool edge = (g() % 4) == 0;
    uint32_t v = r;
    if (edge) {
      if (e == Elem::f32)
        v = f32_edges[r % 16];
      else if (e == Elem::f16)
        v = f16_edges[r % 16];
      else if (e == Elem::bf16)
        v = bf16_edges[r % 16];
      else  // MIN / MAX of the width (sz <= 4 here; 8-byte edges are sign-extended below)
        v = (r & 1) ? 0xFFFFFFFFu << (8 * std::min<size_t>(sz, 4) - 1)
                    : ~(0xFFFFFFFFu << (8 * std::min<size_t>(sz, 4) - 1));
      if (e != Elem::f32 && e != Elem::f16 && e != Elem::bf16 && (r & 2))
        v = r % 3 == 0 ? 0 : 0xFFFFFFFFu;
    } else if (e == Elem::f16 || e == Elem::bf16) {
      // keep values moderate half of the time so sums and products round, not overflow
      if (g() % 2) v = (r & 0x8000) | (0x3000 + (r % 0x2000));
    }
    uint64_t v64 = v;  // 8-byte dtypes (s64/u64): a second random word, the edges sign-extended
    if (sz == 8) v64 = edge ? uint64_t(int64_t(int32_t(v))) : (uint64_t(g()) << 32) | v;
    std::memcpy(p + i * sz, &v64, sz);
  }
}
}  // namespace pto_test
