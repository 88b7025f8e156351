// The fast engine of the GEMM core: panel packing, an MR x (2 vectors) register-blocked
// micro-kernel and cache blocking over K, threaded over M x N tiles. Each C element keeps the
// exact chain of spec 30 §3: its accumulator is stored after a K block and reloaded for the next,
// so the fma (or wrapping add) sequence per element is k = 0..K-1 in order, whatever the thread
// count or vector width. Bit-identical to chain_*_reference (tests check it).
#include <algorithm>
#include <cstring>
#include <type_traits>
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

// dst[c][r] = src[r][c] for 32-bit elements, r < rows, c < cols (row strides in bytes): 8 x 8
// blocks through three rounds of in-register interleaves, the rest element by element.
void Transpose32(const uint8_t* HWY_RESTRICT src, size_t ss, uint8_t* HWY_RESTRICT dst, size_t ds, size_t rows,
                 size_t cols) {
  size_t r0 = 0;
#if TILESIM_LINX_SIMD
  const hn::Full256<float> d;
  const hn::Repartition<uint64_t, decltype(d)> d64;
  const auto lo64 = [&](auto a, auto b) { return hn::BitCast(d, hn::InterleaveLower(d64, hn::BitCast(d64, a), hn::BitCast(d64, b))); };
  const auto hi64 = [&](auto a, auto b) { return hn::BitCast(d, hn::InterleaveUpper(d64, hn::BitCast(d64, a), hn::BitCast(d64, b))); };
  for (; r0 + 8 <= rows; r0 += 8)
    for (size_t c0 = 0; c0 + 8 <= cols; c0 += 8) {
      const uint8_t* s0 = src + r0 * ss + c0 * 4;
      using V = hn::Vec<decltype(d)>;
      V r[8];
      for (size_t i = 0; i < 8; ++i) r[i] = hn::LoadU(d, reinterpret_cast<const float*>(s0 + i * ss));
      const V t0 = hn::InterleaveLower(d, r[0], r[1]), t1 = hn::InterleaveUpper(d, r[0], r[1]);
      const V t2 = hn::InterleaveLower(d, r[2], r[3]), t3 = hn::InterleaveUpper(d, r[2], r[3]);
      const V t4 = hn::InterleaveLower(d, r[4], r[5]), t5 = hn::InterleaveUpper(d, r[4], r[5]);
      const V t6 = hn::InterleaveLower(d, r[6], r[7]), t7 = hn::InterleaveUpper(d, r[6], r[7]);
      const V u0 = lo64(t0, t2), u1 = hi64(t0, t2), u2 = lo64(t1, t3), u3 = hi64(t1, t3);
      const V u4 = lo64(t4, t6), u5 = hi64(t4, t6), u6 = lo64(t5, t7), u7 = hi64(t5, t7);
      const V o[8] = {hn::ConcatLowerLower(d, u4, u0), hn::ConcatLowerLower(d, u5, u1), hn::ConcatLowerLower(d, u6, u2),
                      hn::ConcatLowerLower(d, u7, u3), hn::ConcatUpperUpper(d, u4, u0), hn::ConcatUpperUpper(d, u5, u1),
                      hn::ConcatUpperUpper(d, u6, u2), hn::ConcatUpperUpper(d, u7, u3)};
      uint8_t* d0 = dst + c0 * ds + r0 * 4;
      for (size_t i = 0; i < 8; ++i) hn::StoreU(o[i], d, reinterpret_cast<float*>(d0 + i * ds));
    }
  for (size_t r = 0; r < r0; ++r)  // the columns the blocks left
    for (size_t c = cols / 8 * 8; c < cols; ++c) std::memcpy(dst + c * ds + r * 4, src + r * ss + c * 4, 4);
#endif
  for (size_t r = r0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) std::memcpy(dst + c * ds + r * 4, src + r * ss + c * 4, 4);
}

// The same for 16-bit elements (TMA's transposing layouts of fp16 / bf16 / s16 tiles): 8 x 8
// blocks of 128-bit rows through 16-, 32- and 64-bit interleaves, the rest element by element.
void Transpose16(const uint8_t* HWY_RESTRICT src, size_t ss, uint8_t* HWY_RESTRICT dst, size_t ds, size_t rows,
                 size_t cols) {
  size_t r0 = 0;
#if TILESIM_LINX_SIMD
  const hn::Full128<uint16_t> d;
  const hn::Repartition<uint32_t, decltype(d)> d32;
  const hn::Repartition<uint64_t, decltype(d)> d64;
  using V = hn::Vec<decltype(d)>;
  const auto lo32 = [&](V a, V b) { return hn::BitCast(d, hn::InterleaveLower(d32, hn::BitCast(d32, a), hn::BitCast(d32, b))); };
  const auto hi32 = [&](V a, V b) { return hn::BitCast(d, hn::InterleaveUpper(d32, hn::BitCast(d32, a), hn::BitCast(d32, b))); };
  const auto lo64 = [&](V a, V b) { return hn::BitCast(d, hn::InterleaveLower(d64, hn::BitCast(d64, a), hn::BitCast(d64, b))); };
  const auto hi64 = [&](V a, V b) { return hn::BitCast(d, hn::InterleaveUpper(d64, hn::BitCast(d64, a), hn::BitCast(d64, b))); };
  for (; r0 + 8 <= rows; r0 += 8)
    for (size_t c0 = 0; c0 + 8 <= cols; c0 += 8) {
      const uint8_t* s0 = src + r0 * ss + c0 * 2;
      V r[8];
      for (size_t i = 0; i < 8; ++i) r[i] = hn::LoadU(d, reinterpret_cast<const uint16_t*>(s0 + i * ss));
      // t: row pairs interleaved (t0 = columns 0-3 of rows 0, 1); u: 4 rows per column pair; o: columns.
      const V t0 = hn::InterleaveLower(d, r[0], r[1]), t1 = hn::InterleaveUpper(d, r[0], r[1]);
      const V t2 = hn::InterleaveLower(d, r[2], r[3]), t3 = hn::InterleaveUpper(d, r[2], r[3]);
      const V t4 = hn::InterleaveLower(d, r[4], r[5]), t5 = hn::InterleaveUpper(d, r[4], r[5]);
      const V t6 = hn::InterleaveLower(d, r[6], r[7]), t7 = hn::InterleaveUpper(d, r[6], r[7]);
      const V u0 = lo32(t0, t2), u1 = hi32(t0, t2), u2 = lo32(t1, t3), u3 = hi32(t1, t3);
      const V u4 = lo32(t4, t6), u5 = hi32(t4, t6), u6 = lo32(t5, t7), u7 = hi32(t5, t7);
      const V o[8] = {lo64(u0, u4), hi64(u0, u4), lo64(u1, u5), hi64(u1, u5),
                      lo64(u2, u6), hi64(u2, u6), lo64(u3, u7), hi64(u3, u7)};
      uint8_t* d0 = dst + c0 * ds + r0 * 2;
      for (size_t i = 0; i < 8; ++i) hn::StoreU(o[i], d, reinterpret_cast<uint16_t*>(d0 + i * ds));
    }
  for (size_t r = 0; r < r0; ++r)  // the columns the blocks left
    for (size_t c = cols / 8 * 8; c < cols; ++c) std::memcpy(dst + c * ds + r * 2, src + r * ss + c * 2, 2);
#endif
  for (size_t r = r0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) std::memcpy(dst + c * ds + r * 2, src + r * ss + c * 2, 2);
}

// The same for 8-bit elements (s8 / u8 / fp8 tiles): 16 x 16 blocks through 8-, 16-, 32- and
// 64-bit interleaves (round by round: row pairs, quads, octets, then all 16 rows per column).
void Transpose8(const uint8_t* HWY_RESTRICT src, size_t ss, uint8_t* HWY_RESTRICT dst, size_t ds, size_t rows,
                size_t cols) {
  size_t r0 = 0;
#if TILESIM_LINX_SIMD
  const hn::Full128<uint8_t> d;
  const hn::Repartition<uint16_t, decltype(d)> d16;
  const hn::Repartition<uint32_t, decltype(d)> d32;
  const hn::Repartition<uint64_t, decltype(d)> d64;
  using V = hn::Vec<decltype(d)>;
  const auto lo = [&](auto dw, V a, V b) { return hn::BitCast(d, hn::InterleaveLower(dw, hn::BitCast(dw, a), hn::BitCast(dw, b))); };
  const auto hi = [&](auto dw, V a, V b) { return hn::BitCast(d, hn::InterleaveUpper(dw, hn::BitCast(dw, a), hn::BitCast(dw, b))); };
  for (; r0 + 16 <= rows; r0 += 16)
    for (size_t c0 = 0; c0 + 16 <= cols; c0 += 16) {
      V r[16];
      for (size_t i = 0; i < 16; ++i) r[i] = hn::LoadU(d, src + (r0 + i) * ss + c0);
      V a[8][2], b[4][4], e[2][8];  // a[pair][cols 0-7 | 8-15], b[quad][4 columns], e[octet][2 columns]
      for (size_t p = 0; p < 8; ++p) a[p][0] = lo(d, r[2 * p], r[2 * p + 1]), a[p][1] = hi(d, r[2 * p], r[2 * p + 1]);
      for (size_t q = 0; q < 4; ++q)
        for (size_t h = 0; h < 2; ++h)
          b[q][2 * h] = lo(d16, a[2 * q][h], a[2 * q + 1][h]), b[q][2 * h + 1] = hi(d16, a[2 * q][h], a[2 * q + 1][h]);
      for (size_t o = 0; o < 2; ++o)
        for (size_t g = 0; g < 4; ++g)
          e[o][2 * g] = lo(d32, b[2 * o][g], b[2 * o + 1][g]), e[o][2 * g + 1] = hi(d32, b[2 * o][g], b[2 * o + 1][g]);
      uint8_t* d0 = dst + c0 * ds + r0;
      for (size_t h = 0; h < 8; ++h) {
        hn::StoreU(lo(d64, e[0][h], e[1][h]), d, d0 + (2 * h) * ds);
        hn::StoreU(hi(d64, e[0][h], e[1][h]), d, d0 + (2 * h + 1) * ds);
      }
    }
  for (size_t r = 0; r < r0; ++r)  // the columns the blocks left
    for (size_t c = cols / 16 * 16; c < cols; ++c) dst[c * ds + r] = src[r * ss + c];
#endif
  for (size_t r = r0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) dst[c * ds + r] = src[r * ss + c];
}

// Element (i, j) of C in its view (gemm_core.hpp CView).
HWY_INLINE size_t ViewIndex(const CView& v, size_t i, size_t j) {
  return v.bw ? (j / v.bw) * v.bs + i * v.ldc + j % v.bw : i * v.ldc + j;
}

// Spec 30 §3's epilogue on an h x w block (row stride ldc): + bias[q] (one fp32 add), default NaN.
inline void FinishScalar(float* C, size_t ldc, size_t h, size_t w, const float* bias) {
  for (size_t r = 0; r < h; ++r)
    for (size_t q = 0; q < w; ++q) {
      float v = C[r * ldc + q];
      if (bias) v = v + bias[q];
      if (v != v) {
        const uint32_t qn = 0x7FC00000u;
        std::memcpy(&v, &qn, 4);
      }
      C[r * ldc + q] = v;
    }
}

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

// nt C tiles (each MR x 2L: row r's first L columns at c + r * ldc, its next L at c + r * ldc +
// c1, so a tile spanning two boxes of an NZ Acc tile is read in place; tile t at c + t * c_step,
// its A at ap + t * a_step: a run of row panels over one B panel, one call) = chain over kc steps,
// starting from the tile's current values, or from zero when `zero` (the first K block of a zero
// start). B's row k is bp + k * ldb, 2L elements of T, or of fp16 codes (TB = hwy::float16_t)
// decoded exactly as they load (non-NaN codes; any NaN result becomes the default NaN at `fin`).
// A's element (r, k) is ap[k * kMR + r] (a packed panel, AK0 = 0) or, read in place from an NZ
// view, ap[(k / AK0) * aS + r * AK0 + k % AK0] (no packing: broadcasts load from anywhere).
// fin (the last K block of a float chain): + bias[j] (when fbias, the tile's first column's) then
// the default NaN, in registers before the store (spec 30 §3's epilogue, without a pass over C).
template <size_t MR, size_t AK0, class D, class T, class TB>
HWY_NOINLINE void Micro(D d, const T* HWY_RESTRICT ap, size_t aS, const TB* HWY_RESTRICT bp,
                        size_t ldb, size_t kc, T* HWY_RESTRICT c, size_t ldc, size_t c1, bool zero,
                        bool fin, const T* HWY_RESTRICT fbias, size_t nt, size_t a_step,
                        size_t c_step) {
  const size_t L = hn::Lanes(d);
  const size_t NR = 2 * L;
  using V = hn::Vec<D>;
  for (size_t t = 0; t < nt; ++t, ap += a_step, c += c_step) {
    V c0[MR], c1v[MR];
    // (HWY_UNROLL takes kMR >= MR: GCC's unroll pragma takes no template parameter.)
    if (zero) {
      HWY_UNROLL(kMR)
      for (size_t r = 0; r < MR; ++r) c0[r] = c1v[r] = hn::Zero(d);
    } else {
      HWY_UNROLL(kMR)
      for (size_t r = 0; r < MR; ++r) {
        c0[r] = hn::LoadU(d, c + r * ldc);
        c1v[r] = hn::LoadU(d, c + r * ldc + c1);
      }
    }
    constexpr size_t kRow = AK0 ? AK0 : 1;
    for (size_t k = 0; k < kc; ++k) {
      V b0, b1;
      if constexpr (std::is_same_v<TB, T>) {
        b0 = hn::LoadU(d, bp + k * ldb), b1 = hn::LoadU(d, bp + k * ldb + L);
      } else {  // fp16 codes of B, decoded exactly as they load (a conversion per vector, off the
                // FMA pipes)
        const hn::Rebind<hwy::float16_t, D> dh;
        b0 = hn::PromoteTo(d, hn::LoadU(dh, bp + k * ldb)),
        b1 = hn::PromoteTo(d, hn::LoadU(dh, bp + k * ldb + L));
      }
      const T* a = AK0 ? ap + (k / kRow) * aS + k % kRow : ap + k * kMR;
      HWY_UNROLL(kMR)
      for (size_t r = 0; r < MR; ++r) {
        const V x = hn::Set(d, a[r * kRow]);
        c0[r] = Step(x, b0, c0[r]);
        c1v[r] = Step(x, b1, c1v[r]);
      }
    }
    if constexpr (hwy::IsFloat<T>()) {
      if (fin) {
        const V qnan = hn::BitCast(d, hn::Set(hn::RebindToUnsigned<D>(), 0x7FC00000u));
        const V bias0 = fbias ? hn::LoadU(d, fbias) : hn::Zero(d),
                bias1 = fbias ? hn::LoadU(d, fbias + L) : hn::Zero(d);
        HWY_UNROLL(kMR)
        for (size_t r = 0; r < MR; ++r) {
          if (fbias) {
            c0[r] = hn::Add(c0[r], bias0);
            c1v[r] = hn::Add(c1v[r], bias1);
          }
          c0[r] = hn::IfThenElse(hn::IsNaN(c0[r]), qnan, c0[r]);
          c1v[r] = hn::IfThenElse(hn::IsNaN(c1v[r]), qnan, c1v[r]);
        }
      }
    }
    HWY_UNROLL(kMR)
    for (size_t r = 0; r < MR; ++r) {
      hn::StoreU(c0[r], d, c + r * ldc);
      hn::StoreU(c1v[r], d, c + r * ldc + c1);
    }
  }
}

// nt micro-tiles of mr rows (kMR; 4 or 8 for a short last panel) with A packed (ak0 == 0) or in
// place from its view with line length ak0 (8, 16 or 32: the NZ K0 of 32-, 16- and 8-bit tiles).
template <class D, class T, class TB>
HWY_INLINE void MicroA(D d, size_t mr, size_t ak0, const T* ap, size_t aS, const TB* bp, size_t ldb,
                       size_t kc, T* c, size_t ldc, size_t c1, bool zero, bool fin, const T* fbias,
                       size_t nt = 1, size_t a_step = 0, size_t c_step = 0) {
  // The kernel for (rows, A line length), both compile-time.
  const auto run = [&](auto rows, auto line) {
    return Micro<decltype(rows)::value, decltype(line)::value>(d, ap, aS, bp, ldb, kc, c, ldc, c1, zero, fin,
                                                               fbias, nt, a_step, c_step);
  };
  using Z0 = std::integral_constant<size_t, 0>;
  using Z8 = std::integral_constant<size_t, 8>;
  using Z16 = std::integral_constant<size_t, 16>;
  using Z32 = std::integral_constant<size_t, 32>;
  using R4 = std::integral_constant<size_t, 4>;
  using R8 = std::integral_constant<size_t, 8>;
  using RM = std::integral_constant<size_t, kMR>;
  if (mr == 4 || (mr == 8 && kMR != 8)) {  // a short last panel, packed or in place
    switch (ak0 + mr) {
      case 4: return run(R4{}, Z0{});
      case 12: return run(R4{}, Z8{});
      case 20: return run(R4{}, Z16{});
      case 36: return run(R4{}, Z32{});
      case 8: return run(R8{}, Z0{});
      case 16: return run(R8{}, Z8{});
      case 24: return run(R8{}, Z16{});
      default: return run(R8{}, Z32{});
    }
  }
  switch (ak0) {
    case 0: return run(RM{}, Z0{});
    case 8: return run(RM{}, Z8{});
    case 16: return run(RM{}, Z16{});
    default: return run(RM{}, Z32{});
  }
}

// Grow-only aligned buffers, one set per thread (slot 0: A panels, 1: B panels, 2: fp16 B rows
// decoded).
template <class T>
T* scratch(int slot, size_t n) {
  thread_local hwy::AlignedFreeUniquePtr<uint8_t[]> buf[3];
  thread_local size_t cap[3] = {0, 0, 0};
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
// Per K0 block the w lines of the view are one contiguous w x K0 block (line x at x * K0): a
// transpose, done with the destination written in order.
template <class T>
void PackView(const PanelView& v, size_t x0, size_t w, size_t W, size_t K, T* HWY_RESTRICT dst) {
  static_assert(sizeof(T) == 4, "the core's domains are 32-bit");
  for (size_t kb = 0, k0 = 0; k0 < K; ++kb, k0 += v.k0) {
    const size_t n = std::min(v.k0, K - k0);
    Transpose32(reinterpret_cast<const uint8_t*>(Line<T>(v, x0, kb)), v.k0 * 4, reinterpret_cast<uint8_t*>(dst + k0 * W),
                W * 4, w, n);
    for (size_t q = 0; q < n; ++q)
      for (size_t c = w; c < W; ++c) dst[(k0 + q) * W + c] = T(0);
  }
}

// av: A as a view (x = i); bv: B as a view (x = j), or Brow (row-major K x N) when not null.
// finish (float): the epilogue of spec 30 §3 (+ bias, default NaN) fused into the last K block.
// cv: where C is (row-major, or the boxes of an NZ Acc tile).
// BrowH (T = float only): B row-major K x N as fp16 codes instead of Brow; read in place and
// decoded in the kernel when it is small and its panels are whole, else decoded into rows first.
template <class T>
void Chain(const PanelView& av, const PanelView& bv, const T* Brow, const CView& cv, size_t M,
           size_t N, size_t K, bool zero_start, bool finish, const T* bias,
           const hwy::float16_t* BrowH = nullptr) {
  const hn::ScalableTag<T> d;
  const size_t L = hn::Lanes(d), NR = 2 * L;
  const bool bh_in_place = BrowH && N % NR == 0 && K * N * 2 <= (size_t{64} << 10);
  if (BrowH && !bh_in_place) {
    T* const rows = scratch<T>(2, K * N);
    decode(reinterpret_cast<const uint8_t*>(BrowH), DType::fp16, 0, K * N, rows);
    Brow = rows;
  }
  T* const C = static_cast<T*>(cv.p);
  // A full micro-tile is two vectors per row, each inside one box of C: so its boxes must be a
  // multiple of the vector (16 fp32 columns: one zmm, two ymm); other views take the edge path.
  const bool tiles_fit = cv.bw == 0 || cv.bw % L == 0;
  const size_t mp = (M + kMR - 1) / kMR, np = (N + NR - 1) / NR;
  // Packed panels, zero padded: Ap[ip][k][r] = A[ip*MR + r][k]; Bp[jp][k][c] = B[k][jp*NR + c].
  // Scratch kept per thread across calls (no page faults per call on large sizes).
  T* const ApBuf = scratch<T>(0, mp * K * kMR);
  T* const BpBuf = scratch<T>(1, np * K * NR);
  // A full-height A panel of an NZ view is read in place (its K0 divides kKC, so a K block starts
  // a line); only the others are packed.
  const size_t ak0 = (av.k0 == 8 || av.k0 == 16 || av.k0 == 32) ? av.k0 : 0;
  // The kernel rows of panel ip: kMR, or 4 / 8 for a short last panel.
  const auto panel_mr = [&](size_t ip) {
    const size_t h = std::min(kMR, M - ip * kMR);
    return h <= 4 && kMR > 4 ? size_t{4} : h <= 8 && kMR > 8 ? size_t{8} : kMR;
  };
  // Rows the view holds (an NZ tile's padded rows): a short last panel whose kernel rows fit is read
  // in place too (rows past M only feed the staged rows an edge tile discards).
  const size_t a_rows = av.S ? av.S / av.k0 : M;
  const auto a_in_place = [&](size_t ip) { return ak0 && ip * kMR + panel_mr(ip) <= a_rows; };
  // Packing is split over the threads too (panels are independent): the B panels, then the A
  // panels that are not read in place.
  const size_t a_pack = !ak0 ? mp : a_in_place(mp - 1) ? 0 : 1;  // in place: all but maybe the short last
  // A small row-major B whose panels are all full is read in place too (row stride N instead of
  // NR; it stays in L1/L2): one PTO TMATMUL tile, no packing copy.
  const bool b_in_place = Brow && N % NR == 0 && K * N * sizeof(T) <= (size_t{64} << 10);
  const size_t b_pack = b_in_place || bh_in_place ? 0 : np;
  if (b_pack + a_pack) parallel_for(b_pack + a_pack, 1, [&](size_t p0, size_t p1) {
    for (size_t p = p0; p < p1; ++p) {
      if (p >= b_pack) {
        const size_t ip = mp - a_pack + (p - b_pack), i0 = ip * kMR;
        PackView<T>(av, i0, std::min(kMR, M - i0), kMR, K, ApBuf + ip * K * kMR);
        continue;
      }
      const size_t jp = p;
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
  // At least four tasks per thread where the shape allows (fewer B panels per task), so the
  // threads' shares even out; the tiling never changes an element's chain.
  const size_t tiles_m = (mp + kMC / kMR - 1) / (kMC / kMR);
  size_t ncp = kNCp;
  while (ncp > 1 && tiles_m * ((np + ncp - 1) / ncp) < 4 * num_threads()) ncp /= 2;
  const size_t tiles_n = (np + ncp - 1) / ncp;
  const T* ApP = ApBuf;
  const T* BpP = BpBuf;
  const T* const Av = static_cast<const T*>(av.p);
  parallel_for(tiles_m * tiles_n, 1, [&](size_t t0, size_t t1) {
    // The edge tiles' staging on the stack (a heap block per task cost a malloc per TMATMUL).
    alignas(64) T c[kMR * 2 * (HWY_MAX_BYTES / sizeof(T))];
    for (size_t t = t0; t < t1; ++t) {
      const size_t tm = t / tiles_n, tn = t % tiles_n;
      // Bands of panels as even as the count allows (at most kMC / kMR panels each): parallel_for
      // gives each thread a run of whole bands, so the threads' rows differ by a panel at most.
      const size_t ip0 = tm * mp / tiles_m, ip1 = (tm + 1) * mp / tiles_m;
      const size_t jp0 = tn * ncp, jp1 = std::min(np, jp0 + ncp);
      for (size_t k0 = 0; k0 < K; k0 += kKC) {
        const size_t kc = std::min(kKC, K - k0);
        for (size_t jp = jp0; jp < jp1; ++jp) {
          const size_t j0 = jp * NR, w = std::min(NR, N - j0);
          // C's index is separable (row part i * ldc): the column parts once per panel, not a
          // division by the box width per tile.
          const size_t cj0 = ViewIndex(cv, 0, j0), c1 = w == NR ? ViewIndex(cv, 0, j0 + L) - cj0 : L;
          for (size_t ip = ip0; ip < ip1; ++ip) {
            const size_t i0 = ip * kMR, h = std::min(kMR, M - i0);
            const bool zero = zero_start && k0 == 0;
            const bool in_place = a_in_place(ip);
            const size_t mk0 = in_place ? ak0 : 0;
            const T* const ap = in_place ? Av + (k0 / ak0) * av.S + i0 * ak0 : ApP + ip * K * kMR + k0 * kMR;
            const T* const bp = b_in_place ? Brow + k0 * N + j0 : BpP + jp * K * NR + k0 * NR;
            const size_t ldb = b_in_place ? N : NR;
            T* const dst = C + i0 * cv.ldc + cj0;
            // A short last panel runs the 4- or 8-row kernel (its packed rows past h are zero).
            const size_t mr = panel_mr(ip);
            const bool fin = finish && k0 + kc == K;
            // The kernel with this panel's B: fp16 codes in place (float chains), or B in T.
            const auto with_b = [&](auto&& kernel) {
              if constexpr (hwy::IsFloat<T>())
                if (bh_in_place) return kernel(BrowH + k0 * N + j0, N);
              return kernel(bp, ldb);
            };
            if (h == mr && w == NR && tiles_fit) {  // full tile: accumulate in place
              // The full kMR-row panels after it that read A the same way run in the same kernel
              // call (its tile loop: one call and one set-up per run, not per tile).
              size_t run = 1;
              if (mr == kMR)
                while (ip + run < ip1 && (ip + run + 1) * kMR <= M &&
                       a_in_place(ip + run) == in_place)
                  ++run;
              const size_t a_step = in_place ? kMR * ak0 : K * kMR, c_step = kMR * cv.ldc;
              const T* const fb = bias ? bias + j0 : nullptr;
              with_b([&](auto b, size_t ld) {
                MicroA(d, mr, mk0, ap, av.S, b, ld, kc, dst, cv.ldc, c1, zero, fin, fb, run, a_step, c_step);
              });
              ip += run - 1;
              continue;
            }
            // Edge tile: run on a zero-padded copy, finish it there (the bias has no columns past
            // N), store the valid part.
            for (size_t r = 0; r < mr; ++r)
              for (size_t q = 0; q < NR; ++q)
                c[r * NR + q] = (r < h && q < w && !zero) ? C[ViewIndex(cv, i0 + r, j0 + q)] : T(0);
            with_b([&](auto b, size_t ld) {
              MicroA(d, mr, mk0, ap, av.S, b, ld, kc, c, NR, L, false, false, static_cast<const T*>(nullptr));
            });
            if constexpr (hwy::IsFloat<T>())
              if (fin) FinishScalar(c, NR, h, w, bias ? bias + j0 : nullptr);
            for (size_t r = 0; r < h; ++r)
              if (!cv.bw)
                std::memcpy(dst + r * cv.ldc, c + r * NR, w * sizeof(T));
              else
                for (size_t q = 0; q < w; ++q) C[ViewIndex(cv, i0 + r, j0 + q)] = c[r * NR + q];
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
void EpilogueF32(float* C, const float* bias, size_t M, size_t N);
// C of a view as a row-major M x N array for the reference chains (its start values when `read`),
// and back.
template <class T>
std::vector<T> FromView(const CView& v, size_t M, size_t N, bool read) {
  std::vector<T> out(M * N);
  if (read)
    for (size_t i = 0; i < M; ++i)
      for (size_t j = 0; j < N; ++j) out[i * N + j] = static_cast<const T*>(v.p)[ViewIndex(v, i, j)];
  return out;
}
template <class T>
void ToView(const std::vector<T>& in, const CView& v, size_t M, size_t N) {
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) static_cast<T*>(v.p)[ViewIndex(v, i, j)] = in[i * N + j];
}
void ChainF32(PanelView av, PanelView bv, const float* Brow, CView cv, size_t M, size_t N, size_t K,
              bool zero_start, bool finish, const float* bias, const uint16_t* BrowH) {
#if TILESIM_LINX_SIMD
  Chain<float>(av, bv, Brow, cv, M, N, K, zero_start, finish, bias,
               reinterpret_cast<const hwy::float16_t*>(BrowH));
#else
  std::vector<float> rows;
  if (BrowH) {
    rows.resize(K * N);
    decode(reinterpret_cast<const uint8_t*>(BrowH), DType::fp16, 0, K * N, rows.data());
    Brow = rows.data();
  }
  std::vector<float> Cv = FromView<float>(cv, M, N, !zero_start);
  float* const C = Cv.data();
  const std::vector<float> A = Flat<float>(av, M, K);
  if (Brow) {
    chain_f32_reference(A.data(), Brow, BStride{N, 1}, C, M, N, K);
  } else {
    const std::vector<float> B = Flat<float>(bv, N, K);
    chain_f32_reference(A.data(), B.data(), BStride{1, K}, C, M, N, K);
  }
  if (finish) EpilogueF32(C, bias, M, N);
  ToView(Cv, cv, M, N);
#endif
}
void ChainI32(PanelView av, PanelView bv, const int32_t* Brow, CView cv, size_t M, size_t N, size_t K,
              bool zero_start) {
#if TILESIM_LINX_SIMD
  Chain<int32_t>(av, bv, Brow, cv, M, N, K, zero_start, false, static_cast<const int32_t*>(nullptr));
#else
  std::vector<int32_t> Cv = FromView<int32_t>(cv, M, N, !zero_start);
  int32_t* const C = Cv.data();
  const std::vector<int32_t> A = Flat<int32_t>(av, M, K);
  if (Brow) {
    chain_i32_reference(A.data(), Brow, BStride{N, 1}, C, M, N, K);
  } else {
    const std::vector<int32_t> B = Flat<int32_t>(bv, N, K);
    chain_i32_reference(A.data(), B.data(), BStride{1, K}, C, M, N, K);
  }
  ToView(Cv, cv, M, N);
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
    FinishScalar(row + j, N, 1, N - j, bias ? bias + j : nullptr);
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
HWY_EXPORT(Transpose32);
HWY_EXPORT(Transpose16);
HWY_EXPORT(Transpose8);
void transpose32(const void* src, size_t ss, void* dst, size_t ds, size_t rows, size_t cols) {
  HWY_DYNAMIC_DISPATCH(Transpose32)(static_cast<const uint8_t*>(src), ss, static_cast<uint8_t*>(dst), ds, rows, cols);
}
void transpose16(const void* src, size_t ss, void* dst, size_t ds, size_t rows, size_t cols) {
  HWY_DYNAMIC_DISPATCH(Transpose16)(static_cast<const uint8_t*>(src), ss, static_cast<uint8_t*>(dst), ds, rows, cols);
}
void transpose8(const void* src, size_t ss, void* dst, size_t ds, size_t rows, size_t cols) {
  HWY_DYNAMIC_DISPATCH(Transpose8)(static_cast<const uint8_t*>(src), ss, static_cast<uint8_t*>(dst), ds, rows, cols);
}
void chain_f32_fast(const float* A, const float* B, BStride bs, float* C, size_t M, size_t N, size_t K,
                    bool zero_start, bool finish, const float* bias) {
  const bool row = bs.sj == 1;
  chain_f32_views(PanelView{A, K, 0}, PanelView{B, K, 0}, row ? B : nullptr, C, M, N, K, zero_start, finish, bias);
}
void chain_i32_fast(const int32_t* A, const int32_t* B, BStride bs, int32_t* C, size_t M, size_t N, size_t K,
                    bool zero_start) {
  const bool row = bs.sj == 1;
  chain_i32_views(PanelView{A, K, 0}, PanelView{B, K, 0}, row ? B : nullptr, C, M, N, K, zero_start);
}
void chain_f32_views(PanelView a, PanelView b, const float* b_row, float* C, size_t M, size_t N, size_t K,
                     bool zero_start, bool finish, const float* bias) {
  if (M && N && K)
    return HWY_DYNAMIC_DISPATCH(ChainF32)(a, b, b_row, CView{C, N, 0, 0}, M, N, K, zero_start,
                                          finish, bias, nullptr);
  if (zero_start) std::memset(C, 0, M * N * sizeof(float));
  if (finish) epilogue_f32_fast(C, bias, M, N);
}
void chain_i32_views(PanelView a, PanelView b, const int32_t* b_row, int32_t* C, size_t M, size_t N, size_t K,
                     bool zero_start) {
  if (!K && zero_start) std::memset(C, 0, M * N * sizeof(int32_t));
  if (M && N && K) HWY_DYNAMIC_DISPATCH(ChainI32)(a, b, b_row, CView{C, N, 0, 0}, M, N, K, zero_start);
}
void chain_f32_views_c(PanelView a, PanelView b, const float* b_row, CView c, size_t M, size_t N,
                       size_t K, bool zero_start, bool finish, const float* bias,
                       const uint16_t* b_row_f16) {
  if (M && N && K)
    return HWY_DYNAMIC_DISPATCH(ChainF32)(a, b, b_row, c, M, N, K, zero_start, finish, bias,
                                          b_row_f16);
  // No k step: the start values (or zeros), finished as the chain's epilogue would.
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      float& x = static_cast<float*>(c.p)[c.bw ? (j / c.bw) * c.bs + i * c.ldc + j % c.bw : i * c.ldc + j];
      if (zero_start) x = 0.0f;
      if (finish) epilogue_f32_fast(&x, bias ? bias + j : nullptr, 1, 1);
    }
}
void chain_i32_views_c(PanelView a, PanelView b, CView c, size_t M, size_t N, size_t K, bool zero_start) {
  if (M && N && K) return HWY_DYNAMIC_DISPATCH(ChainI32)(a, b, nullptr, c, M, N, K, zero_start);
  if (zero_start)
    for (size_t i = 0; i < M; ++i)
      for (size_t j = 0; j < N; ++j)
        static_cast<int32_t*>(c.p)[c.bw ? (j / c.bw) * c.bs + i * c.ldc + j % c.bw : i * c.ldc + j] = 0;
}
void epilogue_f32_fast(float* C, const float* bias, size_t M, size_t N) {
  HWY_DYNAMIC_DISPATCH(EpilogueF32)(C, bias, M, N);
}
}  // namespace tilesim::linx::core
#endif
