// The fast engine of the GEMM core: panel packing, an MR x (2 vectors) register-blocked
// micro-kernel and cache blocking over K, threaded over M x N tiles. Each C element keeps the
// exact chain of spec 30 §3: its accumulator is stored after a K block and reloaded for the next,
// so the fma (or wrapping add) sequence per element is k = 0..K-1 in order, whatever the thread
// count or vector width. Bit-identical to chain_*_reference (tests check it).
#include <algorithm>
#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "linx/gemm_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/aligned_allocator.h>
#include <hwy/highway.h>

#include "linx/gemm_core.hpp"
#include "tilesim/parallel.hpp"

HWY_BEFORE_NAMESPACE();
namespace tilesim::linx::core::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET <= HWY_AVX2 && (HWY_ARCH_X86)
#define TILESIM_LINX_SIMD 1
#else
#define TILESIM_LINX_SIMD 0  // SSSE3/SSE4/EMU128 MulAdd is not fused: use the reference there
#endif

#if TILESIM_LINX_SIMD
// Rows per micro-tile: 2 * kMR accumulators + 2 B vectors + 1 broadcast fit the register file
// (32 zmm on AVX-512: 12 rows = 24 accumulators; 16 ymm on AVX2: 6 rows = 12).
#ifndef TILESIM_LINX_MR
#define TILESIM_LINX_MR 12
#endif
constexpr size_t kMR = HWY_TARGET <= HWY_AVX3 ? TILESIM_LINX_MR : 6;
constexpr size_t kKC = 256;   // K block (packed B panel slice stays in L1/L2)
constexpr size_t kMC = kMR * (HWY_TARGET <= HWY_AVX3 ? 6 : 10);  // rows per task tile
constexpr size_t kNCp = 8;    // B panels per task tile

template <class V>
HWY_INLINE V Step(V a, V b, V c) {
  if constexpr (hwy::IsFloat<hn::TFromV<V>>())
    return hn::MulAdd(a, b, c);  // fused, as the reference's std::fma
  else
    return hn::Add(hn::Mul(a, b), c);  // wraps mod 2^32
}

// C tile (kMR x 2L at c, row stride ldc) = chain over kc steps of the packed panels, starting
// from the tile's current values, or from zero when `zero` (the first K block of a zero start).
template <class D, class T>
HWY_NOINLINE void Micro(D d, const T* HWY_RESTRICT ap, const T* HWY_RESTRICT bp, size_t kc, T* HWY_RESTRICT c,
                        size_t ldc, bool zero) {
  const size_t L = hn::Lanes(d);
  const size_t NR = 2 * L;
  using V = hn::Vec<D>;
  V c0[kMR], c1[kMR];
  if (zero) {
    HWY_UNROLL(kMR)
    for (size_t r = 0; r < kMR; ++r) c0[r] = c1[r] = hn::Zero(d);
  } else {
    HWY_UNROLL(kMR)
    for (size_t r = 0; r < kMR; ++r) {
      c0[r] = hn::LoadU(d, c + r * ldc);
      c1[r] = hn::LoadU(d, c + r * ldc + L);
    }
  }
  for (size_t k = 0; k < kc; ++k) {
    const V b0 = hn::Load(d, bp + k * NR), b1 = hn::Load(d, bp + k * NR + L);
    const T* a = ap + k * kMR;
    HWY_UNROLL(kMR)
    for (size_t r = 0; r < kMR; ++r) {
      const V x = hn::Set(d, a[r]);
      c0[r] = Step(x, b0, c0[r]);
      c1[r] = Step(x, b1, c1[r]);
    }
  }
  HWY_UNROLL(kMR)
  for (size_t r = 0; r < kMR; ++r) {
    hn::StoreU(c0[r], d, c + r * ldc);
    hn::StoreU(c1[r], d, c + r * ldc + L);
  }
}

// Grow-only aligned buffers, one set per thread (slot 0: A panels, 1: B panels).
template <class T>
T* scratch(int slot, size_t n) {
  thread_local hwy::AlignedFreeUniquePtr<uint8_t[]> buf[2];
  thread_local size_t cap[2] = {0, 0};
  const size_t bytes = n * sizeof(T);
  if (cap[slot] < bytes) {
    buf[slot] = hwy::AllocateAligned<uint8_t>(bytes);
    cap[slot] = bytes;
  }
  return reinterpret_cast<T*>(buf[slot].get());
}

// A operand's element (x, k) (x = row of A / column of B): view.p[(k / k0) * S + x * k0 + k % k0].
template <class T>
HWY_INLINE const T* Line(const PanelView& v, size_t x, size_t kb) {
  return static_cast<const T*>(v.p) + kb * v.S + x * v.k0;
}
// dst[k * W + c] = view(x0 + c, k) for c < w, k < K; zero for w <= c < W (the panel's padding).
template <class T>
void PackView(const PanelView& v, size_t x0, size_t w, size_t W, size_t K, T* HWY_RESTRICT dst) {
  for (size_t c = 0; c < W; ++c) {
    if (c >= w) {
      for (size_t k = 0; k < K; ++k) dst[k * W + c] = T(0);
      continue;
    }
    for (size_t kb = 0, k0 = 0; k0 < K; ++kb, k0 += v.k0) {
      const T* src = Line<T>(v, x0 + c, kb);
      const size_t n = std::min(v.k0, K - k0);
      for (size_t q = 0; q < n; ++q) dst[(k0 + q) * W + c] = src[q];
    }
  }
}

// av: A as a view (x = i); bv: B as a view (x = j), or Brow (row-major K x N) when not null.
template <class T>
void Chain(const PanelView& av, const PanelView& bv, const T* Brow, T* C, size_t M, size_t N, size_t K,
           bool zero_start) {
  const hn::ScalableTag<T> d;
  const size_t NR = 2 * hn::Lanes(d);
  const size_t mp = (M + kMR - 1) / kMR, np = (N + NR - 1) / NR;
  // Packed panels, zero padded: Ap[ip][k][r] = A[ip*MR + r][k]; Bp[jp][k][c] = B[k][jp*NR + c].
  // Scratch kept per thread across calls (no page faults per call on large sizes).
  T* const ApBuf = scratch<T>(0, mp * K * kMR);
  T* const BpBuf = scratch<T>(1, np * K * NR);
  // Packing is split over the threads too (panels are independent).
  parallel_for(mp + np, 8, [&](size_t p0, size_t p1) {
    for (size_t p = p0; p < p1; ++p) {
      if (p < mp) {
        const size_t i0 = p * kMR;
        PackView<T>(av, i0, std::min(kMR, M - i0), kMR, K, ApBuf + p * K * kMR);
        continue;
      }
      const size_t jp = p - mp;
      T* dst = BpBuf + jp * K * NR;
      const size_t j0 = jp * NR, w = N - j0 < NR ? N - j0 : NR;
      if (!Brow) {
        PackView<T>(bv, j0, w, NR, K, dst);
        continue;
      }
      for (size_t k = 0; k < K; ++k) {  // row-major B: panel rows are contiguous runs
        std::memcpy(dst + k * NR, Brow + k * N + j0, w * sizeof(T));
        for (size_t c = w; c < NR; ++c) dst[k * NR + c] = T(0);
      }
    }
  });
  const size_t tiles_m = (mp + kMC / kMR - 1) / (kMC / kMR), tiles_n = (np + kNCp - 1) / kNCp;
  const T* ApP = ApBuf;
  const T* BpP = BpBuf;
  parallel_for(tiles_m * tiles_n, 1, [&](size_t t0, size_t t1) {
    auto ct = hwy::AllocateAligned<T>(kMR * NR);
    T* c = ct.get();
    for (size_t t = t0; t < t1; ++t) {
      const size_t tm = t / tiles_n, tn = t % tiles_n;
      const size_t ip0 = tm * (kMC / kMR), ip1 = std::min(mp, ip0 + kMC / kMR);
      const size_t jp0 = tn * kNCp, jp1 = std::min(np, jp0 + kNCp);
      for (size_t k0 = 0; k0 < K; k0 += kKC) {
        const size_t kc = std::min(kKC, K - k0);
        for (size_t jp = jp0; jp < jp1; ++jp) {
          const size_t j0 = jp * NR, w = std::min(NR, N - j0);
          for (size_t ip = ip0; ip < ip1; ++ip) {
            const size_t i0 = ip * kMR, h = std::min(kMR, M - i0);
            const bool zero = zero_start && k0 == 0;
            T* const dst = C + i0 * N + j0;
            if (h == kMR && w == NR) {  // full tile: accumulate in place
              Micro(d, ApP + ip * K * kMR + k0 * kMR, BpP + jp * K * NR + k0 * NR, kc, dst, N, zero);
              continue;
            }
            // Edge tile: run on a zero-padded copy, store the valid part.
            for (size_t r = 0; r < kMR; ++r)
              for (size_t q = 0; q < NR; ++q) c[r * NR + q] = (r < h && q < w && !zero) ? dst[r * N + q] : T(0);
            Micro(d, ApP + ip * K * kMR + k0 * kMR, BpP + jp * K * NR + k0 * NR, kc, c, NR, false);
            for (size_t r = 0; r < h; ++r) std::memcpy(dst + r * N, c + r * NR, w * sizeof(T));
          }
        }
      }
    }
  });
}
#endif

// Flattens the views for the reference chain (targets without a fused SIMD fma).
template <class T>
std::vector<T> Flat(const PanelView& v, size_t X, size_t K) {
  std::vector<T> out(X * K);
  for (size_t x = 0; x < X; ++x)
    for (size_t k = 0; k < K; ++k) out[x * K + k] = static_cast<const T*>(v.p)[(k / v.k0) * v.S + x * v.k0 + k % v.k0];
  return out;
}
void ChainF32(PanelView av, PanelView bv, const float* Brow, float* C, size_t M, size_t N, size_t K, bool zero_start) {
#if TILESIM_LINX_SIMD
  Chain<float>(av, bv, Brow, C, M, N, K, zero_start);
#else
  if (zero_start) std::memset(C, 0, M * N * sizeof(float));
  const std::vector<float> A = Flat<float>(av, M, K);
  if (Brow) {
    chain_f32_reference(A.data(), Brow, BStride{N, 1}, C, M, N, K);
  } else {
    const std::vector<float> B = Flat<float>(bv, N, K);
    chain_f32_reference(A.data(), B.data(), BStride{1, K}, C, M, N, K);
  }
#endif
}
void ChainI32(PanelView av, PanelView bv, const int32_t* Brow, int32_t* C, size_t M, size_t N, size_t K,
              bool zero_start) {
#if TILESIM_LINX_SIMD
  Chain<int32_t>(av, bv, Brow, C, M, N, K, zero_start);
#else
  if (zero_start) std::memset(C, 0, M * N * sizeof(int32_t));
  const std::vector<int32_t> A = Flat<int32_t>(av, M, K);
  if (Brow) {
    chain_i32_reference(A.data(), Brow, BStride{N, 1}, C, M, N, K);
  } else {
    const std::vector<int32_t> B = Flat<int32_t>(bv, N, K);
    chain_i32_reference(A.data(), B.data(), BStride{1, K}, C, M, N, K);
  }
#endif
}

// Bias add (one fp32 add) and default NaN, over rows; exact like the scalar loop.
void EpilogueF32(float* C, const float* bias, size_t M, size_t N) {
  const hn::ScalableTag<float> d;
  const size_t L = hn::Lanes(d);
  const auto qnan = hn::BitCast(d, hn::Set(hn::RebindToUnsigned<decltype(d)>(), 0x7FC00000u));
  for (size_t i = 0; i < M; ++i) {
    float* row = C + i * N;
    size_t j = 0;
    for (; j + L <= N; j += L) {
      auto v = hn::LoadU(d, row + j);
      if (bias) v = hn::Add(v, hn::LoadU(d, bias + j));
      hn::StoreU(hn::IfThenElse(hn::IsNaN(v), qnan, v), d, row + j);
    }
    for (; j < N; ++j) {
      float v = row[j];
      if (bias) v = v + bias[j];
      if (v != v) {
        const uint32_t q = 0x7FC00000u;
        std::memcpy(&v, &q, 4);
      }
      row[j] = v;
    }
  }
}
#undef TILESIM_LINX_SIMD

}  // namespace tilesim::linx::core::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::linx::core {
HWY_EXPORT(ChainF32);
HWY_EXPORT(ChainI32);
HWY_EXPORT(EpilogueF32);
void chain_f32_fast(const float* A, const float* B, BStride bs, float* C, size_t M, size_t N, size_t K,
                    bool zero_start) {
  const bool row = bs.sj == 1;
  chain_f32_views(PanelView{A, K, 0}, PanelView{B, K, 0}, row ? B : nullptr, C, M, N, K, zero_start);
}
void chain_i32_fast(const int32_t* A, const int32_t* B, BStride bs, int32_t* C, size_t M, size_t N, size_t K,
                    bool zero_start) {
  const bool row = bs.sj == 1;
  chain_i32_views(PanelView{A, K, 0}, PanelView{B, K, 0}, row ? B : nullptr, C, M, N, K, zero_start);
}
void chain_f32_views(PanelView a, PanelView b, const float* b_row, float* C, size_t M, size_t N, size_t K,
                     bool zero_start) {
  if (!K && zero_start) std::memset(C, 0, M * N * sizeof(float));
  if (M && N && K) HWY_DYNAMIC_DISPATCH(ChainF32)(a, b, b_row, C, M, N, K, zero_start);
}
void chain_i32_views(PanelView a, PanelView b, const int32_t* b_row, int32_t* C, size_t M, size_t N, size_t K,
                     bool zero_start) {
  if (!K && zero_start) std::memset(C, 0, M * N * sizeof(int32_t));
  if (M && N && K) HWY_DYNAMIC_DISPATCH(ChainI32)(a, b, b_row, C, M, N, K, zero_start);
}
void epilogue_f32_fast(float* C, const float* bias, size_t M, size_t N) {
  HWY_DYNAMIC_DISPATCH(EpilogueF32)(C, bias, M, N);
}
}  // namespace tilesim::linx::core
#endif
