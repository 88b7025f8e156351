// Benchmarks of the TROWEXPAND* family (spec 60 §6): every op at fp32 64x64, 256x256, 1024x1024
// and fp16 16x256, 256x256, mode 1 (per-row scalar) and mode 2 (per-row 32-byte block).
// Names: BM_pto_trowexpand<op>/<f32|f16>/<R>x<C>/mode<1|2>; bench/peers_pto.py has the peers.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "tilesim/formats.hpp"
#include "tilesim/pto/engine.hpp"

namespace {
using namespace tilesim::pto;

// Page-aligned tile storage, as tiles placed at aligned UB addresses (pto::Tile's own storage is
// 64-byte aligned). Plain heap vectors land at arbitrary 16-byte offsets from each other, so
// which case paid for split stores (full and dst aligned differently) or 4K-aliased loads (dst
// 16 bytes past full modulo 4096: every load waited on the previous store) changed with the
// allocator's state: 256x256 fp32 SUB took 3.2 us in one run, 2.6 us in another.
// bench/peers_pto.py gives the NumPy and PyTorch arrays the same alignment.
struct PageAligned {
  void operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t{4096}); }
};

struct Buf {
  std::unique_ptr<uint8_t[], PageAligned> storage;
  TileDesc d;
  uint8_t* data() { return storage.get(); }
  // Finite values in [-1, 3) (the peers use standard normal + 1), fixed pseudo-random sequence;
  // for EXPDIF they give differences in (-4, 4), as in the peers.
  Buf(Elem e, int rows, int cols, bool row_major, uint32_t seed) {
    d.dtype = e;
    d.rows = rows;
    d.cols = cols;
    d.row_major = row_major;
    d.valid_row = rows;
    d.valid_col = cols;
    d.capacity = d.bytes();
    storage.reset(static_cast<uint8_t*>(::operator new[](d.capacity, std::align_val_t{4096})));
    std::memset(storage.get(), 0, d.capacity);
    const size_t sz = elem_size(e), n = d.capacity / sz;
    uint8_t* bytes = storage.get();
    uint32_t st = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; ++i) {
      st = st * 1664525u + 1013904223u;
      const float v = -1.0f + 4.0f * float(st >> 8) * 0x1p-24f;
      if (sz == 4) {
        std::memcpy(bytes + 4 * i, &v, 4);
      } else {
        const uint16_t h = tilesim::formats::f32_to_f16(v);
        std::memcpy(bytes + 2 * i, &h, 2);
      }
    }
    d.data = bytes;
  }
};

void run(benchmark::State& st, Op op, Elem e, int R, int C, int mode) {
  const int E = int(32 / elem_size(e));
  Buf full(e, R, C, true, 1), dst(e, R, C, true, 2);
  Buf x = mode == 1 ? Buf(e, ((R + E - 1) / E) * E, 1, false, 3) : Buf(e, R, E, true, 3);
  x.d.valid_row = R;
  const Target& t = find_target("a5");  // no broadcast buffer: the arithmetic is what is timed
  for (auto _ : st) {
    row_expand(op, dst.d, full.d, x.d, nullptr, t, Ub{});
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(int64_t(st.iterations()) *
                       int64_t(full.d.capacity + x.d.capacity + dst.d.capacity));
}

// The roofline reference (not a tilesim kernel): dst = full - s[row] as the plainest loop the
// compiler vectorizes for this CPU (target_clones), no checks, no NaN canonicalization, on the
// same page-aligned tiles. For the memory-bound sizes it is what the memory system allows;
// bench/peers_pto.py times NumPy and PyTorch against it too.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void roofline_sub(const float* full, const float* s, float* dst, int R, int C) {
  for (int r = 0; r < R; ++r) {
    const float x = s[r];
    const float* f = full + size_t(r) * size_t(C);
    float* d = dst + size_t(r) * size_t(C);
    for (int j = 0; j < C; ++j) d[j] = f[j] - x;
  }
}

void roofline(benchmark::State& st, int R, int C) {
  Buf full(Elem::f32, R, C, true, 1), dst(Elem::f32, R, C, true, 2), x(Elem::f32, R, 1, false, 3);
  for (auto _ : st) {
    roofline_sub(reinterpret_cast<const float*>(full.data()),
                 reinterpret_cast<const float*>(x.data()), reinterpret_cast<float*>(dst.data()),
                 R, C);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(full.d.capacity + x.d.capacity + dst.d.capacity));
}

const int kReg = [] {
  for (int n : {256, 1024})
    benchmark::RegisterBenchmark(
        ("BM_pto_roofline_sub/f32/" + std::to_string(n) + "x" + std::to_string(n) + "/mode1")
            .c_str(),
        [=](benchmark::State& st) { roofline(st, n, n); });
  const char* names[] = {"add", "sub", "mul", "div", "max", "min", "expdif"};
  struct Shape {
    Elem e;
    const char* tag;
    int R, C;
  };
  const Shape shapes[] = {{Elem::f32, "f32", 64, 64},
                          {Elem::f32, "f32", 256, 256},
                          {Elem::f32, "f32", 1024, 1024},
                          {Elem::f16, "f16", 16, 256},
                          {Elem::f16, "f16", 256, 256}};
  for (int o = 0; o < kNumOps; ++o)
    for (const Shape& s : shapes)
      for (int mode = 1; mode <= 2; ++mode) {
        const std::string name = std::string("BM_pto_trowexpand") + names[o] + "/" + s.tag + "/" +
                                 std::to_string(s.R) + "x" + std::to_string(s.C) + "/mode" +
                                 std::to_string(mode);
        benchmark::RegisterBenchmark(
            name.c_str(), [=](benchmark::State& st) { run(st, Op(o), s.e, s.R, s.C, mode); });
      }
  return 0;
}();
}  // namespace
