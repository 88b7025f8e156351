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
// on the output; saturation (±Inf -> ±max, NaN -> +0) is applied to every node's result.
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/reduce.hpp"

#if defined(__x86_64__) && \
    ((defined(__clang__) && __clang_major__ >= 14) || (!defined(__clang__) && __GNUC__ >= 12))
#define TILESIM_F16_NATIVE 1
#include <immintrin.h>
#else
#define TILESIM_F16_NATIVE 0
#endif

namespace tilesim::ops::reduce_simd {

#if TILESIM_F16_NATIVE
namespace {

#define TILESIM_FP16_TARGET \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16"), always_inline)) inline

constexpr size_t kN = 32;                             // fp16 lanes of a 512-bit vector
constexpr int kNanOrInf = 0x01 | 0x08 | 0x10 | 0x80;  // vfpclassph: QNaN, +Inf, -Inf, SNaN
constexpr int kNan = 0x01 | 0x80;

// The node's result under the saturation rule: ±Inf -> ±max (the code minus one), NaN -> +0.
template <bool kSat>
TILESIM_FP16_TARGET __m512h Fix(__m512h r) {
  if constexpr (!kSat) {
    return r;
  } else {
    const __mmask32 inf = _mm512_fpclass_ph_mask(r, 0x08 | 0x10);
    const __mmask32 nan = _mm512_fpclass_ph_mask(r, kNan);
    __m512i b = _mm512_castph_si512(r);
    b = _mm512_mask_sub_epi16(b, inf, b, _mm512_set1_epi16(1));
    return _mm512_castsi512_ph(_mm512_maskz_mov_epi16(_knot_mask32(nan), b));
  }
}

// One tree level: lo and hi hold 64 consecutive nodes; the result their 32 parents in order.
template <bool kSat>
TILESIM_FP16_TARGET __m512h Pair(__m512h lo, __m512h hi) {
  const __m512i even =
      _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32, 30, 28, 26,
                       24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_add_epi16(even, _mm512_set1_epi16(1));
  const __m512i l = _mm512_castph_si512(lo), h = _mm512_castph_si512(hi);
  return Fix<kSat>(_mm512_add_ph(_mm512_castsi512_ph(_mm512_permutex2var_epi16(l, even, h)),
                                 _mm512_castsi512_ph(_mm512_permutex2var_epi16(l, odd, h))));
}

// The scalar node of the chains: fp16 add (vaddsh: the correctly rounded sum, as above).
template <bool kSat>
TILESIM_FP16_TARGET uint16_t Node(uint16_t a, uint16_t b) {
  const __m128h s =
      _mm_add_sh(_mm_castsi128_ph(_mm_cvtsi32_si128(a)), _mm_castsi128_ph(_mm_cvtsi32_si128(b)));
  uint16_t c = uint16_t(_mm_cvtsi128_si32(_mm_castph_si128(s)));
  if constexpr (kSat) {
    if ((c & 0x7C00u) == 0x7C00u) c = (c & 0x3FFu) ? 0 : uint16_t(c - 1);
  }
  return c;
}

// The binary counter: group vectors pushed in stream order come out as vectors of 32 roots.
template <bool kSat>
struct Stream {
  __m512h slot[5];
  uint32_t busy = 0;
  uint16_t* roots;

  TILESIM_FP16_TARGET void Push(__m512h v, unsigned l) {
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
  TILESIM_FP16_TARGET void Finish() {
    while (busy) {
      unsigned l = 0;
      while (!((busy >> l) & 1u)) ++l;
      const __m512h v = Pair<kSat>(slot[l], _mm512_setzero_ph());
      busy &= ~(1u << l);
      Push(v, l + 1);
    }
  }
};

// The roots of every group of VPG vectors (w = 32 * VPG) of every row, in order, into roots.
template <bool kSat, size_t VPG>
TILESIM_FP16_TARGET void Roots(const uint8_t* x, size_t stride, size_t rows, size_t n,
                               uint16_t* roots) {
  constexpr size_t w = VPG * kN;
  Stream<kSat> s;
  s.roots = roots;
  for (size_t r = 0; r < rows; ++r) {
    const auto* row = reinterpret_cast<const uint16_t*>(x + r * stride);
    size_t e0 = 0;
    for (; e0 + w <= n; e0 += w) {  // whole groups
      __m512h u[VPG];
      for (size_t k = 0; k < VPG; ++k) u[k] = _mm512_loadu_ph(row + e0 + k * kN);
      for (size_t m = VPG; m > 1; m /= 2)
        for (size_t k = 0; k < m / 2; ++k) u[k] = Pair<kSat>(u[2 * k], u[2 * k + 1]);
      s.Push(u[0], 0);
    }
    if (e0 < n) {  // the last group, +0 past the row's end
      __m512h u[VPG];
      for (size_t k = 0; k < VPG; ++k) {
        const size_t e = e0 + k * kN;
        const size_t left = e < n ? n - e : 0;
        const __mmask32 m = left >= kN ? ~__mmask32{0} : __mmask32((uint32_t{1} << left) - 1u);
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
TILESIM_FP16_TARGET void StoreCanonical(const uint16_t* in, size_t count, uint8_t* out) {
  const __m512i qnan = _mm512_set1_epi16(0x7E00);
  size_t i = 0;
  for (; i < count; i += kN) {
    const size_t left = count - i;
    const __mmask32 m = left >= kN ? ~__mmask32{0} : __mmask32((uint32_t{1} << left) - 1u);
    const __m512i c = _mm512_maskz_loadu_epi16(m, in + i);
    const __mmask32 nan = _mm512_fpclass_ph_mask(_mm512_castsi512_ph(c), kNan);
    _mm512_mask_storeu_epi16(out + 2 * i, m, _mm512_mask_mov_epi16(c, nan, qnan));
  }
}

template <bool kSat>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512fp16"))) bool TreeSums(
    const void* xv, size_t stride, size_t rows, size_t n, size_t w, bool chain, void* out) {
  const size_t ng = (n + w - 1) / w, G = rows * ng;
  const auto* x = static_cast<const uint8_t*>(xv);
  thread_local std::vector<uint16_t> roots;
  roots.resize(G + kN);
  switch (w) {  // the group's vectors fully unrolled
    case 32:
      Roots<kSat, 1>(x, stride, rows, n, roots.data());
      break;
    case 64:
      Roots<kSat, 2>(x, stride, rows, n, roots.data());
      break;
    case 128:
      Roots<kSat, 4>(x, stride, rows, n, roots.data());
      break;
    case 256:
      Roots<kSat, 8>(x, stride, rows, n, roots.data());
      break;
    case 512:
      Roots<kSat, 16>(x, stride, rows, n, roots.data());
      break;
    default:
      return false;
  }
  if (chain) {  // +0, then each root in order, in place (row r's result to roots[r])
    for (size_t r = 0; r < rows; ++r) {
      const uint16_t* rr = roots.data() + r * ng;
      uint16_t acc = 0;
      for (size_t j = 0; j < ng; ++j) acc = Node<kSat>(acc, rr[j]);
      roots[r] = acc;
    }
  }
  StoreCanonical(roots.data(), chain ? rows : G, static_cast<uint8_t*>(out));
  return true;
}

bool Detect() noexcept {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512fp16") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
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
  return sat ? TreeSums<true>(x, stride, rows, n, w, chain, out)
             : TreeSums<false>(x, stride, rows, n, w, chain, out);
#else
  (void)x, (void)stride, (void)rows, (void)n, (void)w, (void)chain, (void)sat, (void)out;
  return false;
#endif
}

}  // namespace tilesim::ops::reduce_simd
