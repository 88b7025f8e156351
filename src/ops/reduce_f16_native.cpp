// fp16 sum trees on native fp16 lanes (AVX512-FP16: Sapphire Rapids and later), the same bits
// as the definitions (ops/reduce.hpp tree_sums / chained_tree_sums) and reduce_simd.cpp's kernels.
//
// Why the bits are the same: a node of an fp16 tree is the fp32 add of two fp16 values rounded to
// fp16 (spec 15 §3). The fp32 sum is exact or rounded once; rounding it to fp16 then gives the
// correctly rounded fp16 sum, since 24 >= 2 * 11 + 2 (double rounding is innocuous there). vaddph
// computes that correctly rounded sum directly (RNE, overflow to ±Inf, subnormals kept: the FP16
// instructions ignore MXCSR.DAZ/FTZ), on 32 lanes where the fp32 kernels have 16 and a conversion
// round trip per node. The tree shape is reduce_simd.cpp's: a level over two vectors of
// consecutive nodes is ConcatEven + ConcatOdd (lane k = in[2k] + in[2k+1]), a group's vectors are
// paired down to one vector of nodes, and 32 groups' vectors are paired down to their 32 roots (a
// binary counter over the stream of groups, as Stream there). A NaN result is made canonical once,
// on the output; saturation (±Inf -> ±max, NaN -> +0) applies to every node's result (TreeSums
// below: only recomputed when a result shows a node met it).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/f16_native.hpp"
#include "ops/reduce.hpp"

namespace tilesim::ops::reduce_simd {

#if TILESIM_F16_NATIVE
namespace {

using f16_native::Canonical;
using f16_native::Head;
using f16_native::kN;
using f16_native::kNanOrInf;

// The node's result under the saturation rule (kSat): ±Inf -> ±max, NaN -> +0.
template <bool kSat>
TILESIM_FP16_INLINE __m512h Fix(__m512h r) {
  if constexpr (!kSat)
    return r;
  else
    return _mm512_castsi512_ph(f16_native::Saturate(r));
}

// Byte indices of vpermt2b picking the even (kEven) or odd (kEven + 2) fp16 lanes of two vectors.
// vpermt2b (AVX512-VBMI) is one uop; vpermt2w is three on Intel cores (a Pair with it cost ~2x).
alignas(64) constexpr uint8_t kEven[64] = {
    0,  1,  4,   5,   8,   9,   12,  13,  16,  17,  20,  21,  24,  25,  28,  29,
    32, 33, 36,  37,  40,  41,  44,  45,  48,  49,  52,  53,  56,  57,  60,  61,
    64, 65, 68,  69,  72,  73,  76,  77,  80,  81,  84,  85,  88,  89,  92,  93,
    96, 97, 100, 101, 104, 105, 108, 109, 112, 113, 116, 117, 120, 121, 124, 125};

// One tree level: lo and hi hold 64 consecutive nodes; the result their 32 parents in order.
template <bool kSat>
TILESIM_FP16_INLINE __m512h Pair(__m512h lo, __m512h hi) {
  const __m512i even = _mm512_load_si512(kEven);
  const __m512i odd = _mm512_add_epi8(even, _mm512_set1_epi8(2));
  const __m512i l = _mm512_castph_si512(lo), h = _mm512_castph_si512(hi);
  return Fix<kSat>(_mm512_add_ph(_mm512_castsi512_ph(_mm512_permutex2var_epi8(l, even, h)),
                                 _mm512_castsi512_ph(_mm512_permutex2var_epi8(l, odd, h))));
}

// The binary counter: group vectors pushed in stream order come out as vectors of 32 roots.
template <bool kSat>
struct Stream {
  __m512h slot[5];
  uint32_t busy = 0;
  uint16_t* roots;

  TILESIM_FP16_INLINE void Push(__m512h v, unsigned l) {
    for (; l < 5 && ((busy >> l) & 1u); ++l) {
      v = Pair<kSat>(slot[l], v);
      busy &= ~(1u << l);
    }
    if (l == 5) {
      _mm512_storeu_ph(roots, v);
      roots += kN;
    } else {
      slot[l] = v;
      busy |= 1u << l;
    }
  }
  // A pending node of level l pairs with a +0 node of level l (the tree of +0 lanes is +0): the
  // real roots are unchanged and the last vector is complete.
  TILESIM_FP16_INLINE void Finish() {
    while (busy) {
      unsigned l = 0;
      while (!((busy >> l) & 1u)) ++l;
      const __m512h v = Pair<kSat>(slot[l], _mm512_setzero_ph());
      busy &= ~(1u << l);
      Push(v, l + 1);
    }
  }
};

// The group vector of the VPG vectors at p: its first log2(VPG) levels.
template <bool kSat, size_t VPG>
TILESIM_FP16_INLINE __m512h GroupVec(const uint16_t* p) {
  __m512h u[VPG];
  for (size_t k = 0; k < VPG; ++k) u[k] = _mm512_loadu_ph(p + k * kN);
  for (size_t m = VPG; m > 1; m /= 2)
    for (size_t k = 0; k < m / 2; ++k) u[k] = Pair<kSat>(u[2 * k], u[2 * k + 1]);
  return u[0];
}

// The nodes of the 2^L whole groups back to back from p at pack level L (L = 5: their 32 roots),
// depth first in registers: the binary counter's slots in memory and its carry branches cost a
// 64 K-element tree ~40%.
template <bool kSat, size_t VPG, size_t L>
TILESIM_FP16_INLINE __m512h Flat(const uint16_t* p) {
  if constexpr (L == 0) {
    return GroupVec<kSat, VPG>(p);
  } else {
    const __m512h lo = Flat<kSat, VPG, L - 1>(p);
    return Pair<kSat>(lo, Flat<kSat, VPG, L - 1>(p + (size_t{1} << (L - 1)) * VPG * kN));
  }
}

// The roots of every group of VPG vectors (w = 32 * VPG) of every row, in order, into roots.
template <bool kSat, size_t VPG>
TILESIM_FP16_INLINE void Roots(const uint8_t* x, size_t stride, size_t rows, size_t n,
                               uint16_t* roots) {
  constexpr size_t w = VPG * kN;
  Stream<kSat> s;
  if (n % w == 0 && (rows == 1 || stride == n * 2)) {  // whole groups back to back
    const size_t G = rows * (n / w);
    const auto* p = reinterpret_cast<const uint16_t*>(x);
    size_t g = 0;
    for (; g + kN <= G; g += kN, roots += kN)
      _mm512_storeu_ph(roots, Flat<kSat, VPG, 5>(p + g * w));
    s.roots = roots;
    for (; g < G; ++g) s.Push(GroupVec<kSat, VPG>(p + g * w), 0);
    return s.Finish();
  }
  s.roots = roots;
  for (size_t r = 0; r < rows; ++r) {
    const auto* row = reinterpret_cast<const uint16_t*>(x + r * stride);
    size_t e0 = 0;
    for (; e0 + w <= n; e0 += w) s.Push(GroupVec<kSat, VPG>(row + e0), 0);  // whole groups
    if (e0 < n) {  // the last group, +0 past the row's end
      __m512h u[VPG];
      for (size_t k = 0; k < VPG; ++k) {
        const size_t e = e0 + k * kN;
        const size_t left = e < n ? n - e : 0;
        const __mmask32 m = Head(left);
        u[k] = _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(m, row + (left ? e : 0)));
      }
      for (size_t m = VPG; m > 1; m /= 2)
        for (size_t k = 0; k < m / 2; ++k) u[k] = Pair<kSat>(u[2 * k], u[2 * k + 1]);
      s.Push(u[0], 0);
    }
  }
  s.Finish();
}

// count codes from in to out, a NaN as the canonical 0x7E00.
TILESIM_FP16_INLINE void StoreCanonical(const uint16_t* in, size_t count, uint8_t* out) {
  for (size_t i = 0; i < count; i += kN) {
    const __mmask32 m = Head(count - i);
    const __m512h c = _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(m, in + i));
    _mm512_mask_storeu_epi16(out + 2 * i, m, Canonical(c));
  }
}

// Whether any of count codes is ±Inf or NaN.
TILESIM_FP16_INLINE bool AnyNonFinite(const uint16_t* in, size_t count) {
  __mmask32 any = 0;
  for (size_t i = 0; i < count; i += kN) {
    const __mmask32 m = Head(count - i);
    const __m512h c = _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(m, in + i));
    any = _kor_mask32(any, _mm512_fpclass_ph_mask(c, kNanOrInf));
  }
  return any != 0;
}

template <bool kSat>
TILESIM_FP16_INLINE bool AllRoots(const uint8_t* x, size_t stride, size_t rows, size_t n, size_t w,
                                  uint16_t* roots) {
  switch (w) {  // the group's vectors fully unrolled
    case 32:
      Roots<kSat, 1>(x, stride, rows, n, roots);
      return true;
    case 64:
      Roots<kSat, 2>(x, stride, rows, n, roots);
      return true;
    case 128:
      Roots<kSat, 4>(x, stride, rows, n, roots);
      return true;
    case 256:
      Roots<kSat, 8>(x, stride, rows, n, roots);
      return true;
    case 512:
      Roots<kSat, 16>(x, stride, rows, n, roots);
      return true;
    default:
      return false;
  }
}

// The chain acc = ((+0 + r_0) + r_1) + ... of ng roots; a chain's latency is its cost. Plain:
// vaddsh only. Saturating: the plain chain a block of 64 nodes at a time while it stays finite (a
// finite acc met no ±Inf or NaN node, as in TreeSums below); from the first block that is not,
// the rule at every node, in the vector registers: ±Inf -> ±max (the code minus one), NaN -> +0.
TILESIM_FP16_INLINE uint16_t Chain(const uint16_t* rr, size_t ng, bool sat) {
  __m128h acc = _mm_setzero_ph();
  size_t j = 0;
  if (!sat) {
    for (; j < ng; ++j) acc = _mm_add_sh(acc, _mm_load_sh(rr + j));
  } else {
    for (; j < ng; j += 64) {
      __m128h a = acc;
      const size_t end = std::min(ng, j + 64);
      for (size_t k = j; k < end; ++k) a = _mm_add_sh(a, _mm_load_sh(rr + k));
      if (_mm_fpclass_sh_mask(a, kNanOrInf)) break;
      acc = a;
    }
    // Here every root is finite (saturated trees) and so is acc, so a node is never NaN and
    // the rule is a clamp of the code to sign | 0x7BFF (±Inf -> ±max; an unsigned minimum on
    // the sign-magnitude codes): two integer ops after the add, not a class test and two masks.
    const __m128i lim = _mm_set1_epi16(0x7BFF);
    for (; j < ng; ++j) {
      const __m128i s = _mm_castph_si128(_mm_add_sh(acc, _mm_load_sh(rr + j)));
      const __m128i sl = _mm_ternarylogic_epi32(s, _mm_set1_epi16(int16_t(0x8000)), lim, 0xEA);
      acc = _mm_castsi128_ph(_mm_min_epu16(s, sl));
    }
  }
  return uint16_t(_mm_cvtsi128_si32(_mm_castph_si128(acc)));
}

// Saturation: a node that is ±Inf or NaN makes every node above it ±Inf or NaN (Inf + finite is
// Inf, Inf - Inf and NaN + anything NaN), so when every root (every chain result) is finite no
// node met the rule and the plain sums are the saturating ones. Only otherwise (rare) are the
// trees (a chain) recomputed with the rule at every node: most saturating calls cost the plain
// ones.
TILESIM_FP16_FN bool TreeSums(
    const void* xv, size_t stride, size_t rows, size_t n, size_t w, bool chain, bool sat,
    void* out) {
  const size_t ng = (n + w - 1) / w, G = rows * ng;
  const auto* x = static_cast<const uint8_t*>(xv);
  thread_local std::vector<uint16_t> roots;
  roots.resize(G + kN);
  if (!AllRoots<false>(x, stride, rows, n, w, roots.data())) return false;
  if (sat && AnyNonFinite(roots.data(), G)) AllRoots<true>(x, stride, rows, n, w, roots.data());
  if (chain)  // +0, then each root in order, in place (row r's result to roots[r])
    for (size_t r = 0; r < rows; ++r) roots[r] = Chain(roots.data() + r * ng, ng, sat);
  StoreCanonical(roots.data(), chain ? rows : G, static_cast<uint8_t*>(out));
  return true;
}

bool Detect() noexcept {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512fp16") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vbmi");
}

}  // namespace

bool f16_native_supported() noexcept {
  static const bool yes = Detect();
  return yes;
}
#else
bool f16_native_supported() noexcept {
  return false;
}
#endif

namespace {
bool& f16_native_flag() noexcept {
  static bool on = f16_native_supported();
  return on;
}
}  // namespace

bool f16_native_on() noexcept {
  return f16_native_flag();
}
void set_f16_native(bool on) noexcept {
  f16_native_flag() = on && f16_native_supported();
}

bool f16_native_tree_sums(const void* x, size_t stride, size_t rows, size_t n, size_t w, bool chain,
                          bool sat, void* out) {
#if TILESIM_F16_NATIVE
  if (!f16_native_on() || rows == 0 || n == 0) return false;
  return TreeSums(x, stride, rows, n, w, chain, sat, out);
#else
  (void)x, (void)stride, (void)rows, (void)n, (void)w, (void)chain, (void)sat, (void)out;
  return false;
#endif
}

}  // namespace tilesim::ops::reduce_simd
