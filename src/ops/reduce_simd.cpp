// SIMD kernels of the reduction nodes (ops/reduce.hpp), written once and compiled per Highway
// target, bit-identical to the scalar definitions (tree_reduce, fold_reduce, eval) on every
// target:
// - sums: every node is one fp32 add rounded to T (fp16/bf16 lanes hold exact fp32 values; each
//   add's result is rounded to T and widened back), in the adjacent-pairs tree. One tree level
//   over two vectors of consecutive nodes is ConcatEven + ConcatOdd: lane k of the result is
//   in[2k] + in[2k+1] of the pair. A stream of vectors reduced pairwise (a binary counter of
//   pending vectors, one slot per level, the older one always the low half) therefore gives the
//   trees of all w-element groups in order, N roots per vector, whether a group spans several
//   vectors or a vector several groups. A NaN stays a NaN through every node (whatever its
//   payload), so it is made canonical once, on the result.
// - max/min: order-independent under spec 15's rule, so a lane-wise fold on order keys: codes
//   mapped to integers that order like the values with -0 below +0 (k = c ^ ((c >> w-1) &
//   0x7F..F), its own inverse), so max(-0, +0) = +0 and min(-0, +0) = -0 as the rule says, equal
//   values are equal codes, and a NaN anywhere (magnitude bits above Inf's) gives the canonical
//   NaN.
// - integer sums wrap, so any order gives the same bits.
// A form without a kernel for (op, t) on the current target returns false and the caller runs
// the scalar definition (fp16 needs F16C's RNE conversions: AVX2 and up, as elementwise_simd.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/reduce_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/elementwise.hpp"
#include "ops/reduce.hpp"

HWY_BEFORE_NAMESPACE();
namespace tilesim::ops::reduce_simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
using DU = hn::RebindToUnsigned<DF>;

// f16fin: fp16 trees whose every node is known finite (TreesCannotOverflow): loads and stores as
// f16, the node rounding on the fp32 bits (Round).
enum class Fmt { f32, f16, bf16, f16fin };
constexpr bool IsF16(Fmt f) { return f == Fmt::f16 || f == Fmt::f16fin; }

template <Fmt f>
constexpr bool kHasKernel = !IsF16(f) || HWY_TARGET <= HWY_AVX2;

// N elements from element i of p, widened exactly to fp32.
template <Fmt f>
HWY_INLINE VF Load(const uint8_t* p, size_t i) {
  const DF df;
  if constexpr (f == Fmt::f32) {
    return hn::LoadU(df, reinterpret_cast<const float*>(p) + i);
  } else {
    const hn::Rebind<uint16_t, DF> d16;
    const auto c = hn::LoadU(d16, reinterpret_cast<const uint16_t*>(p) + i);
    if constexpr (f == Fmt::bf16) {
      return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(DU(), c)));
    } else {
      const hn::Rebind<hwy::float16_t, DF> dh;
      return hn::PromoteTo(df, hn::BitCast(dh, c));  // vcvtph2ps: exact
    }
  }
}

// Each lane rounded to T (RNE, overflow to ±Inf) and widened back: a node's rounding. kSat
// (fp16/bf16): then Switches::saturate's rule, ±Inf -> ±max and NaN -> +0, applied as a clamp to
// ±max before the rounding (rounding is monotone and max is a value of T, so a value beyond ±max
// rounds to ±max or ±Inf, both ±max after the rule).
template <Fmt f, bool kSat = false, class V>
HWY_INLINE V Round(V v) {
  if constexpr (kSat && f != Fmt::f32) {
    const hn::DFromV<V> d;
    const hn::RebindToUnsigned<decltype(d)> du;
    const V lim = hn::BitCast(d, hn::Set(du, IsF16(f) ? 0x477FE000u : 0x7F7F0000u));
    v = hn::IfThenElse(hn::IsNaN(v), hn::Zero(d), hn::Min(hn::Max(v, hn::Neg(lim)), lim));
  }
  if constexpr (f == Fmt::f32) {
    return v;
  } else if constexpr (f == Fmt::bf16) {  // the formats core's f32_to_bf16, on the bits
    const hn::DFromV<V> d;
    const hn::RebindToUnsigned<decltype(d)> du;
    const auto b = hn::BitCast(du, v);
    const auto odd = hn::And(hn::ShiftRight<16>(b), hn::Set(du, 1u));
    const auto r =
        hn::And(hn::Add(b, hn::Add(hn::Set(du, 0x7FFFu), odd)), hn::Set(du, 0xFFFF0000u));
    return hn::IfThenElse(hn::IsNaN(v), v, hn::BitCast(d, r));
  } else if constexpr (f == Fmt::f16fin) {
    // RNE to 11 significant bits on the bits (the bf16 rule at bit 13), cheaper here than the
    // conversion round trip. It is fp16's rounding for every node of these trees: a node is
    // finite and below 65520 in magnitude, so it rounds to a finite value; at or above 2^-14 the
    // fp16 significand has 11 bits as here; below, the node is the sum of two fp16 values, a
    // multiple of 2^-24 under 2^-14, so exact in fp32 and in fp16, with its 13 low bits zero,
    // which the rounding leaves unchanged (±0 included).
    const hn::DFromV<V> d;
    const hn::RebindToUnsigned<decltype(d)> du;
    const auto b = hn::BitCast(du, v);
    const auto odd = hn::And(hn::ShiftRight<13>(b), hn::Set(du, 1u));
    const auto r =
        hn::And(hn::Add(b, hn::Add(hn::Set(du, 0xFFFu), odd)), hn::Set(du, 0xFFFFE000u));
    return hn::BitCast(d, r);
  } else {
#if HWY_TARGET <= HWY_AVX2
    const hn::DFromV<V> d;
    const hn::Rebind<hwy::float16_t, decltype(d)> dh;
    return hn::PromoteTo(d, hn::DemoteTo(dh, v));  // vcvtps2ph: RNE
#else
    return v;  // unused: kHasKernel<f16> is false below AVX2
#endif
  }
}

// The scalar node: fp32 add rounded to T. fp16 (the chains of root sums: a dependency chain, so
// its latency counts): a sum below 65520 in magnitude rounds as Fmt::f16fin's nodes do, on the
// bits (finite, so the saturation rule leaves it unchanged too); the others (overflow, Inf, NaN)
// by the conversions.
template <Fmt f, bool kSat = false>
HWY_INLINE float Node(float a, float b) {
  const hn::CappedTag<float, 1> d1;
  const float s = a + b;
  if constexpr (IsF16(f)) {
    uint32_t u;
    std::memcpy(&u, &s, 4);
    if (HWY_LIKELY((u & 0x7FFFFFFFu) < 0x477FF000u)) {
      u = (u + 0xFFFu + ((u >> 13) & 1u)) & 0xFFFFE000u;
      float r;
      std::memcpy(&r, &u, 4);
      return r;
    }
    return hn::GetLane(Round<Fmt::f16, kSat>(hn::Set(d1, s)));
  }
  return hn::GetLane(Round<f, kSat>(hn::Set(d1, s)));
}

// The fp16 chains acc = ((+0 + r_0) + r_1) + ... of each row's ng roots, each node an fp32 add
// rounded by the conversion round trip (vcvtps2ph RNE, overflow to ±Inf: Node's rounding without
// saturation) in a vector register: a chain's latency is its cost, ~8 cycles a node this way
// against ~12 for the rounding on the bits and ~25 for Node's moves between register files
// (ReduceSum of 1 Mi halves spent 50 us in its 8 K nodes). Blocks feeds it each block's roots as
// they come, so it runs under the trees' work. Saturating chains: a row whose result is finite
// met no Inf (an Inf or NaN node stays non-finite to the end), so saturation changed nothing
// there; the caller reruns the others with Node's saturating rule.
struct F16Chain {
  using D4 = hn::CappedTag<float, 4>;
  hn::Vec<D4> acc;
  size_t ng, j, r;
  float* out;  // one result a row

  HWY_INLINE void Init(size_t groups, float* o) {
    acc = hn::Zero(D4());
    ng = groups;
    j = r = 0;
    out = o;
  }
  HWY_INLINE void Feed(const float* rr, size_t k) {
    const D4 d4;
    const hn::Rebind<hwy::float16_t, D4> dh;
    for (size_t i = 0; i < k; ++i) {
      acc = hn::PromoteTo(d4, hn::DemoteTo(dh, hn::Add(acc, hn::Set(d4, rr[i]))));
      if (++j == ng) {
        out[r++] = hn::GetLane(acc);
        acc = hn::Zero(d4);
        j = 0;
      }
    }
  }
};

// The codes of values of T (exact: node results or inputs), a NaN canonical, for a vector d of
// float lanes (full or one lane).
template <Fmt f, class D>
HWY_INLINE void StoreCodes(D d, hn::Vec<D> v, void* out) {
  const hn::RebindToUnsigned<D> du;
  const auto nan = hn::IsNaN(v);
  if constexpr (f == Fmt::f32) {
    hn::StoreU(hn::IfThenElse(nan, hn::BitCast(d, hn::Set(du, 0x7FC00000u)), v), d,
               static_cast<float*>(out));
  } else {
    const hn::Rebind<uint16_t, D> d16;
    hn::Vec<decltype(du)> c;
    if constexpr (f == Fmt::bf16) {
      c = hn::ShiftRight<16>(hn::BitCast(du, v));
    } else {
#if HWY_TARGET <= HWY_AVX2
      const hn::Rebind<hwy::float16_t, D> dh;
      c = hn::PromoteTo(du, hn::BitCast(d16, hn::DemoteTo(dh, v)));
#endif
    }
    c = hn::IfThenElse(hn::RebindMask(du, nan), hn::Set(du, IsF16(f) ? 0x7E00u : 0x7FC0u), c);
    const hn::RebindToSigned<D> di;
    hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, c)), d16, static_cast<uint16_t*>(out));  // < 2^16
  }
}
// n values of T at a as codes at out.
template <Fmt f>
HWY_INLINE void StoreAll(const float* a, size_t n, void* out) {
  const DF df;
  const hn::CappedTag<float, 1> d1;
  const size_t N = hn::Lanes(df);
  constexpr size_t esz = f == Fmt::f32 ? 4 : 2;
  auto* o = static_cast<uint8_t*>(out);
  size_t i = 0;
  for (; i + N <= n; i += N) StoreCodes<f>(df, hn::LoadU(df, a + i), o + i * esz);
  for (; i < n; ++i) StoreCodes<f>(d1, hn::LoadU(d1, a + i), o + i * esz);
}

// One tree level: lo and hi hold 2N consecutive nodes; the result their N parents in order.
template <Fmt f, bool kSat>
HWY_INLINE VF Pair(VF lo, VF hi) {
  const DF df;
  return Round<f, kSat>(hn::Add(hn::ConcatEven(df, hi, lo), hn::ConcatOdd(df, hi, lo)));
}

// The binary counter: vectors pushed in stream order come out as vectors of N roots (after L
// levels), appended to roots.
template <Fmt f, bool kSat>
struct Stream {
  static constexpr size_t kMaxLevels = 24;
  VF slot[kMaxLevels];
  uint32_t busy = 0;
  size_t L;
  float* roots;
  size_t nroots = 0;

  HWY_INLINE void Push(VF v, size_t l) {
    for (; l < L && ((busy >> l) & 1); ++l) {
      v = Pair<f, kSat>(slot[l], v);
      busy &= ~(1u << l);
    }
    if (l == L) {
      hn::StoreU(v, DF(), roots + nroots);
      nroots += hn::Lanes(DF());
    } else {
      slot[l] = v;
      busy |= 1u << l;
    }
  }
  // Completes the last vector of roots with +0 groups: a pending node of level l pairs with a
  // zero node of level l (the tree of +0 lanes is +0), so the real roots are unchanged.
  HWY_INLINE void Finish() {
    while (busy) {
      size_t l = 0;
      while (!((busy >> l) & 1)) ++l;
      const VF v = Pair<f, kSat>(slot[l], hn::Zero(DF()));
      busy &= ~(1u << l);
      Push(v, l + 1);
    }
  }
};

// Group g's w = VPG*N elements reduced to one vector of N nodes (its first log2(VPG) levels); a
// group reaching past the row end reads +0 there.
template <Fmt f, bool kSat, size_t VPG>
HWY_INLINE VF GroupVec(const uint8_t* x, size_t stride, size_t n, size_t w, size_t ng, size_t g) {
  const DF df;
  const size_t N = hn::Lanes(df);
  constexpr size_t esz = f == Fmt::f32 ? 4 : 2;
  const uint8_t* row = x + (g / ng) * stride;
  const size_t e0 = (g % ng) * w;
  VF u[VPG];
  if (e0 + w <= n) {
    for (size_t k = 0; k < VPG; ++k) u[k] = Load<f>(row, e0 + k * N);
  } else {
    HWY_ALIGN uint8_t tail[HWY_MAX_BYTES];
    for (size_t k = 0; k < VPG; ++k) {
      const size_t e = e0 + k * N;
      if (e + N <= n) {
        u[k] = Load<f>(row, e);
      } else if (e < n) {
        std::memset(tail, 0, sizeof(tail));
        std::memcpy(tail, row + e * esz, (n - e) * esz);
        u[k] = Load<f>(tail, 0);
      } else {
        u[k] = hn::Zero(df);
      }
    }
  }
  for (size_t m = VPG; m > 1; m /= 2)
    for (size_t k = 0; k < m / 2; ++k) u[k] = Pair<f, kSat>(u[2 * k], u[2 * k + 1]);
  return u[0];
}

// The nodes of groups [g, g + 2^L) at pack level L: level 0 is one group's vector; each level
// pairs two runs, so level log2(N) holds the N roots in order. Groups past G are +0.
template <Fmt f, bool kSat, size_t VPG, size_t L>
HWY_INLINE VF Packed(const uint8_t* x, size_t stride, size_t n, size_t w, size_t ng, size_t G,
                     size_t g) {
  if constexpr (L == 0) {
    return g < G ? GroupVec<f, kSat, VPG>(x, stride, n, w, ng, g) : hn::Zero(DF());
  } else {
    const VF lo = Packed<f, kSat, VPG, L - 1>(x, stride, n, w, ng, G, g);
    return Pair<f, kSat>(
        lo, Packed<f, kSat, VPG, L - 1>(x, stride, n, w, ng, G, g + (size_t{1} << (L - 1))));
  }
}

// Packed's nodes where the groups are whole and back to back from p (flat rows): no row or tail
// arithmetic per group (Packed's divisions and tail branches made a block of 16 fp16 groups of
// 128 ~2x slower).
template <Fmt f, bool kSat, size_t VPG, size_t L>
HWY_INLINE VF FlatPacked(const uint8_t* p) {
  constexpr size_t esz = f == Fmt::f32 ? 4 : 2;
  if constexpr (L == 0) {
    const size_t N = hn::Lanes(DF());
    VF u[VPG];
    for (size_t k = 0; k < VPG; ++k) u[k] = Load<f>(p, k * N);
    for (size_t m = VPG; m > 1; m /= 2)
      for (size_t k = 0; k < m / 2; ++k) u[k] = Pair<f, kSat>(u[2 * k], u[2 * k + 1]);
    return u[0];
  } else {
    const size_t half = (size_t{1} << (L - 1)) * VPG * hn::Lanes(DF()) * esz;
    const VF lo = FlatPacked<f, kSat, VPG, L - 1>(p);
    return Pair<f, kSat>(lo, FlatPacked<f, kSat, VPG, L - 1>(p + half));
  }
}

// The roots of all G groups, fed to the chains as they come when chain is set (fp16).
template <Fmt f, bool kSat, size_t VPG>
HWY_NOINLINE bool Blocks(const uint8_t* x, size_t stride, size_t n, size_t w, size_t ng, size_t G,
                         float* roots, F16Chain* chain) {
  constexpr size_t kN = HWY_MAX_BYTES / sizeof(float);
  constexpr size_t kL = kN == 16 ? 4 : kN == 8 ? 3 : kN == 4 ? 2 : 0;
  if constexpr (kL == 0) {
    return false;
  } else {
    const DF df;
    if (hn::Lanes(df) != kN) return false;
    constexpr size_t esz = f == Fmt::f32 ? 4 : 2;
    size_t g0 = 0;
    if (n % w == 0 && (G == ng || stride == n * esz)) {  // whole groups back to back
      for (; g0 + kN <= G; g0 += kN) {
        hn::StoreU(FlatPacked<f, kSat, VPG, kL>(x + g0 * w * esz), df, roots + g0);
        if (chain) chain->Feed(roots + g0, kN);
      }
    }
    for (; g0 < G; g0 += kN) {
      hn::StoreU(Packed<f, kSat, VPG, kL>(x, stride, n, w, ng, G, g0), df, roots + g0);
      if (chain) chain->Feed(roots + g0, std::min(kN, G - g0));
    }
    return true;
  }
}

// Trees of w-element groups (w a power of two): rows of n elements (row r at x + r*stride), each
// cut into ng = ceil(n/w) groups, the last padded with +0. chain: out[r] = ((+0 + root_0) +
// root_1) + ...; otherwise out[r*ng + j] = root_j.
template <Fmt f, bool kSat>
HWY_NOINLINE bool TreeSums(const void* xv, size_t stride, size_t rows, size_t n, size_t w,
                           bool chain, bool chain_sat, void* out) {
  if constexpr (!kHasKernel<f>) {
    return false;
  } else {
    const DF df;
    const size_t N = hn::Lanes(df);
    const size_t ng = (n + w - 1) / w, padded = ng * w, G = rows * ng;
    // No groups (n == 0): the definition's +0 per chained row, from the scalar path.
    if (G == 0 || N < 2 || w < 2 || (w & (w - 1)) != 0 || (w < N && padded % N != 0)) return false;
    const auto* x = static_cast<const uint8_t*>(xv);
    constexpr size_t esz = f == Fmt::f32 ? 4 : 2;
    thread_local std::vector<float> roots;
    roots.resize(G + N);
    HWY_ALIGN uint8_t tail[HWY_MAX_BYTES];
    auto load_tail = [&](const uint8_t* p, size_t k) HWY_ATTR {  // k < N elements, +0 after
      std::memset(tail, 0, sizeof(tail));
      std::memcpy(tail, p, k * esz);
      return Load<f>(tail, 0);
    };
    // fp16 chains run inside Blocks (F16Chain); their results land in chained.
    thread_local std::vector<float> chained;
    F16Chain f16c;
    F16Chain* f16chain = nullptr;
    if (IsF16(f) && chain && w >= N) {
      chained.resize(rows);
      f16c.Init(ng, chained.data());
      f16chain = &f16c;
    }
    if (w >= N) {
      const size_t vpg = w / N;
      bool done = false;
      switch (vpg) {  // the common shapes fully unrolled (vectors stay in registers)
#define TILESIM_VPG(k)                                         \
  case k:                                                      \
    done = Blocks<f, kSat, k>(x, stride, n, w, ng, G, roots.data(), f16chain); \
    break;
        TILESIM_VPG(1)
        TILESIM_VPG(2) TILESIM_VPG(4) TILESIM_VPG(8) TILESIM_VPG(16)
#undef TILESIM_VPG
            default : break;
      }
      if (!done) return false;
    } else {
      // Several groups per vector (the rows' padded lengths are whole vectors): the stream of
      // vectors through the binary counter.
      size_t L = 0;
      while ((size_t{1} << L) < w) ++L;
      Stream<f, kSat> s;
      s.L = L;
      s.roots = roots.data();
      const size_t full = n / N * N;
      for (size_t r = 0; r < rows; ++r) {
        const uint8_t* row = x + r * stride;
        size_t i = 0;
        for (; i < full; i += N) s.Push(Load<f>(row, i), 0);
        if (i < padded) {
          s.Push(load_tail(row + i * esz, n - i), 0);
          for (i += N; i < padded; i += N) s.Push(hn::Zero(df), 0);
        }
      }
      s.Finish();
    }
    if (chain) {  // +0, then each root in order (a5: acc = acc + vcadd(chunk)), in place
      constexpr Fmt fc = f == Fmt::f16fin ? Fmt::f16 : f;  // the chain may overflow
      for (size_t r = 0; r < rows; ++r) {
        const float* rr = roots.data() + r * ng;
        float acc = 0.0f;
        if (f16chain && (!chain_sat || std::isfinite(chained[r]))) {
          roots[r] = chained[r];
          continue;
        }
        if (chain_sat)
          for (size_t j = 0; j < ng; ++j) acc = Node<fc, true>(acc, rr[j]);
        else
          for (size_t j = 0; j < ng; ++j) acc = Node<fc, false>(acc, rr[j]);
        roots[r] = acc;
      }
    }
    StoreAll<f>(roots.data(), chain ? rows : G, out);
    return true;
  }
}

// Sequential lane-wise sums of rows onto one row (TCOLSUM's orders): pairs = false: d = x_0, then
// d = d + x_i; pairs = true: d = x_0, then d = d + (x_2k-1 + x_2k), and an even row count's last
// row added alone.
template <Fmt f>
HWY_NOINLINE bool ColumnSums(const void* xv, size_t stride, size_t rows, size_t n, bool pairs,
                             void* out) {
  if constexpr (!kHasKernel<f>) {
    return false;
  } else {
    const DF df;
    const size_t N = hn::Lanes(df);
    const auto* x = static_cast<const uint8_t*>(xv);
    thread_local std::vector<float> acc;
    acc.resize(n + N);
    float* a = acc.data();
    auto row = [&](size_t i) { return x + i * stride; };
    const size_t full = n / N * N;
    auto load = [&](size_t i, size_t j) HWY_ATTR { return Load<f>(row(i), j); };
    auto scalar = [&](size_t i, size_t j) {
      if constexpr (f == Fmt::f32) {
        float v;
        std::memcpy(&v, row(i) + 4 * j, 4);
        return v;
      } else {
        uint16_t c;
        std::memcpy(&c, row(i) + 2 * j, 2);
        return f == Fmt::f16 ? formats::f16_to_f32(c) : formats::bf16_to_f32(c);
      }
    };
    for (size_t j = 0; j < full; j += N) hn::StoreU(load(0, j), df, a + j);
    for (size_t j = full; j < n; ++j) a[j] = scalar(0, j);
    size_t i = 1;
    if (!pairs) {
      for (; i + 4 <= rows; i += 4) {  // four rows per pass over the accumulator
        for (size_t j = 0; j < full; j += N) {
          VF v = hn::LoadU(df, a + j);
          v = Round<f>(hn::Add(v, load(i, j)));
          v = Round<f>(hn::Add(v, load(i + 1, j)));
          v = Round<f>(hn::Add(v, load(i + 2, j)));
          v = Round<f>(hn::Add(v, load(i + 3, j)));
          hn::StoreU(v, df, a + j);
        }
        for (size_t j = full; j < n; ++j)
          for (size_t k = 0; k < 4; ++k) a[j] = Node<f>(a[j], scalar(i + k, j));
      }
      for (; i < rows; ++i) {
        for (size_t j = 0; j < full; j += N)
          hn::StoreU(Round<f>(hn::Add(hn::LoadU(df, a + j), load(i, j))), df, a + j);
        for (size_t j = full; j < n; ++j) a[j] = Node<f>(a[j], scalar(i, j));
      }
    } else {
      for (; i + 4 <= rows; i += 4) {  // two pairs per pass
        for (size_t j = 0; j < full; j += N) {
          VF v = hn::LoadU(df, a + j);
          v = Round<f>(hn::Add(v, Round<f>(hn::Add(load(i, j), load(i + 1, j)))));
          v = Round<f>(hn::Add(v, Round<f>(hn::Add(load(i + 2, j), load(i + 3, j)))));
          hn::StoreU(v, df, a + j);
        }
        for (size_t j = full; j < n; ++j)
          for (size_t k = 0; k < 4; k += 2)
            a[j] = Node<f>(a[j], Node<f>(scalar(i + k, j), scalar(i + k + 1, j)));
      }
      for (; i + 2 <= rows; i += 2) {
        for (size_t j = 0; j < full; j += N)
          hn::StoreU(Round<f>(hn::Add(hn::LoadU(df, a + j),
                                      Round<f>(hn::Add(load(i, j), load(i + 1, j))))),
                     df, a + j);
        for (size_t j = full; j < n; ++j)
          a[j] = Node<f>(a[j], Node<f>(scalar(i, j), scalar(i + 1, j)));
      }
      if (i < rows) {  // an even row count: the last row alone
        for (size_t j = 0; j < full; j += N)
          hn::StoreU(Round<f>(hn::Add(hn::LoadU(df, a + j), load(i, j))), df, a + j);
        for (size_t j = full; j < n; ++j) a[j] = Node<f>(a[j], scalar(i, j));
      }
    }
    StoreAll<f>(a, n, out);
    return true;
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

// Folds of N rows at a time: each row to one vector of lane-wise partial results (a partial
// last vector padded with a neutral code), then the N vectors combined pairwise level by level
// (lanes ConcatEven/ConcatOdd, any order: the op is associative and commutative here) into one
// vector whose lane q is row q's result. comb(a, b) combines lanes; key(v) maps loaded codes;
// fin(v) maps a combined vector to result codes.
template <class D, class Key, class Comb, class Fin>
HWY_INLINE void FoldBlocks(D d, const void* xv, size_t stride, size_t rows, size_t n,
                           hn::Vec<D> neutral, bool pad_first, Key key, Comb comb, Fin fin,
                           void* out) {
  using T = hn::TFromD<D>;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  constexpr size_t kMaxN = HWY_MAX_BYTES / sizeof(T);
  V v[kMaxN];
  HWY_ALIGN T tail[kMaxN], res[kMaxN];
  for (size_t r0 = 0; r0 < rows; r0 += N) {
    const size_t nr = rows - r0 < N ? rows - r0 : N;
    for (size_t q = 0; q < N; ++q) {
      if (q >= nr) {
        v[q] = neutral;
        continue;
      }
      const T* x = reinterpret_cast<const T*>(static_cast<const uint8_t*>(xv) + (r0 + q) * stride);
      V acc = neutral;
      size_t i = 0;
      for (; i + N <= n; i += N) acc = comb(acc, key(hn::LoadU(d, x + i)));
      if (i < n) {  // the rest, padded with the row's first code or the neutral one
        hn::Store(pad_first ? hn::Set(d, x[0]) : neutral, d, tail);
        std::memcpy(tail, x + i, (n - i) * sizeof(T));
        acc = comb(acc, key(hn::Load(d, tail)));
      }
      v[q] = acc;
    }
#if HWY_TARGET != HWY_SCALAR  // one lane there: nothing to combine
    for (size_t m = N; m > 1; m /= 2)
      for (size_t k = 0; k < m / 2; ++k)
        v[k] = comb(hn::ConcatEven(d, v[2 * k + 1], v[2 * k]),
                    hn::ConcatOdd(d, v[2 * k + 1], v[2 * k]));
#endif
    hn::Store(fin(v[0]), d, res);
    std::memcpy(static_cast<uint8_t*>(out) + r0 * sizeof(T), res, nr * sizeof(T));
  }
}

// Max/min of float codes through order keys (see the top), W the code's signed integer type, and
// in the same pass the largest magnitude code, which tells the rows holding a NaN. Rows as in
// FoldBlocks; each row's loop keeps two accumulators of each (the max/min latency, not the loads,
// would bound one).
template <Op op, class W>
HWY_NOINLINE void FloatFold(W inf, W qnan, const void* xv, size_t stride, size_t rows, size_t n,
                            void* out) {
  const hn::ScalableTag<W> d;
  using V = hn::Vec<decltype(d)>;
  constexpr W kMag = std::numeric_limits<W>::max();
  constexpr int kSign = int(sizeof(W) * 8 - 1);
  const size_t N = hn::Lanes(d);
  constexpr size_t kMaxN = HWY_MAX_BYTES / sizeof(W);
  const auto vmag = hn::Set(d, kMag);
  const V neutral = hn::Set(d, op == Op::max ? std::numeric_limits<W>::min() : kMag);
  auto key = [&](V c) HWY_ATTR { return hn::Xor(c, hn::And(hn::ShiftRight<kSign>(c), vmag)); };
  auto comb = [](V a, V b) HWY_ATTR {
    if constexpr (op == Op::max)
      return hn::Max(a, b);
    else
      return hn::Min(a, b);
  };
  V v[kMaxN], m[kMaxN];
  HWY_ALIGN W tail[kMaxN], res[kMaxN], mres[kMaxN];
  for (size_t r0 = 0; r0 < rows; r0 += N) {
    const size_t nr = rows - r0 < N ? rows - r0 : N;
    for (size_t q = 0; q < (nr == 1 ? 1 : N); ++q) {
      if (q >= nr) {
        v[q] = neutral;
        m[q] = hn::Zero(d);
        continue;
      }
      const W* x = reinterpret_cast<const W*>(static_cast<const uint8_t*>(xv) + (r0 + q) * stride);
#if HWY_TARGET == HWY_AVX3
      if constexpr (sizeof(W) == 4)
        if (n != 0) {
          // fp32: vrangeps on the values (imm 5 max / 4 min, as elementwise_simd.cpp's
          // F32MaxMinAvx3: -0 below +0, the keys' order) and a NaN noted by an unordered compare,
          // two ops a vector where the keys and magnitudes take six; the row's extreme then as a
          // key for the combination below (with a NaN the row's result is the canonical NaN
          // whatever the values). Ascend C ReduceMax fp32 64 K: 5.4 -> 2.7 us on the Intel host,
          // TROWMAX 256 x 256 6.8 -> 3.4.
          constexpr int kImm = op == Op::max ? 5 : 4;
          const float* xf = reinterpret_cast<const float*>(x);
          const __m512 start = _mm512_set1_ps(op == Op::max ? -HUGE_VALF : HUGE_VALF);
          __m512 a0 = start, a1 = start;
          __mmask16 nan = 0;
          size_t i = 0;
          for (; i + 2 * N <= n; i += 2 * N) {
            __m512 c0 = _mm512_loadu_ps(xf + i), c1 = _mm512_loadu_ps(xf + i + N);
            asm("" : "+v"(c0), "+v"(c1));  // one load of each (F32MaxMinAvx3)
            nan = _kor_mask16(nan, _mm512_cmp_ps_mask(c0, c1, _CMP_UNORD_Q));
            a0 = _mm512_range_ps(a0, c0, kImm);
            a1 = _mm512_range_ps(a1, c1, kImm);
          }
          for (; i < n; i += N) {  // the rest, padded with the row's first value
            const size_t left = n - i;
            const __mmask16 mk = left >= N ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1u);
            const __m512 c = _mm512_mask_loadu_ps(_mm512_set1_ps(xf[0]), mk, xf + i);
            nan = _kor_mask16(nan, _mm512_cmp_ps_mask(c, c, _CMP_UNORD_Q));
            a1 = _mm512_range_ps(a1, c, kImm);
          }
          v[q] = key(V{_mm512_castps_si512(_mm512_range_ps(a0, a1, kImm))});
          m[q] = nan ? hn::Set(d, qnan) : hn::Zero(d);
          continue;
        }
#endif
      V acc0 = neutral, acc1 = neutral, mag0 = hn::Zero(d), mag1 = hn::Zero(d);
      size_t i = 0;
      for (; i + 2 * N <= n; i += 2 * N) {
        const V c0 = hn::LoadU(d, x + i), c1 = hn::LoadU(d, x + i + N);
        acc0 = comb(acc0, key(c0));
        acc1 = comb(acc1, key(c1));
        mag0 = hn::Max(mag0, hn::And(c0, vmag));
        mag1 = hn::Max(mag1, hn::And(c1, vmag));
      }
      if (i + N <= n) {
        const V c0 = hn::LoadU(d, x + i);
        acc0 = comb(acc0, key(c0));
        mag0 = hn::Max(mag0, hn::And(c0, vmag));
        i += N;
      }
      if (i < n) {  // the rest, padded with the row's first code
        hn::Store(hn::Set(d, x[0]), d, tail);
        std::memcpy(tail, x + i, (n - i) * sizeof(W));
        const V c0 = hn::Load(d, tail);
        acc1 = comb(acc1, key(c0));
        mag1 = hn::Max(mag1, hn::And(c0, vmag));
      }
      v[q] = comb(acc0, acc1);
      m[q] = hn::Max(mag0, mag1);
    }
    if (nr == 1) {
      // One row (a whole-tensor ReduceMax, a 1-row tile): its two vectors folded across lanes,
      // not the N-row transposition below (~90 ops for one useful lane; Ascend C softmax's
      // ReduceMax of a 1024-element row 5.2 % of the example's samples before).
      const W k = hn::GetLane(op == Op::max ? hn::MaxOfLanes(d, v[0]) : hn::MinOfLanes(d, v[0]));
      const W mg = hn::GetLane(hn::MaxOfLanes(d, m[0]));
      const W kc = W(k ^ (W(k >> kSign) & kMag));  // key() is its own inverse
      const W c = mg > inf ? qnan : kc;
      std::memcpy(static_cast<uint8_t*>(out) + r0 * sizeof(W), &c, sizeof(W));
      continue;
    }
#if HWY_TARGET != HWY_SCALAR  // one lane there: nothing to combine
    for (size_t k2 = N; k2 > 1; k2 /= 2)
      for (size_t k = 0; k < k2 / 2; ++k) {
        v[k] = comb(hn::ConcatEven(d, v[2 * k + 1], v[2 * k]),
                    hn::ConcatOdd(d, v[2 * k + 1], v[2 * k]));
        m[k] = hn::Max(hn::ConcatEven(d, m[2 * k + 1], m[2 * k]),
                       hn::ConcatOdd(d, m[2 * k + 1], m[2 * k]));
      }
#endif
    hn::Store(key(v[0]), d, res);
    hn::Store(m[0], d, mres);
    for (size_t q = 0; q < nr; ++q) {
      const W c = mres[q] > inf ? qnan : res[q];
      std::memcpy(static_cast<uint8_t*>(out) + (r0 + q) * sizeof(W), &c, sizeof(W));
    }
  }
}

// Max/min/sum of integer codes (sums wrap: any order).
template <Op op, class T>
HWY_NOINLINE void IntFold(const void* xv, size_t stride, size_t rows, size_t n, void* out) {
  const hn::ScalableTag<T> d;
  const T id = op == Op::max   ? std::numeric_limits<T>::lowest()
               : op == Op::min ? std::numeric_limits<T>::max()
                               : T(0);
  auto same = [](auto c) { return c; };
  FoldBlocks(
      d, xv, stride, rows, n, hn::Set(d, id), false, same,
      [](auto a, auto b) HWY_ATTR {
        if constexpr (op == Op::max)
          return hn::Max(a, b);
        else if constexpr (op == Op::min)
          return hn::Min(a, b);
        else
          return hn::Add(a, b);
      },
      same, out);
}

// Whether no node of any w-element group tree over these rows can reach ±Inf or NaN, so the
// saturation rule changes nothing there: every code finite with |x| <= M, M * w * 1.125 <= max of
// T. A node over 2^d leaves is at most 2^d * M * (1 + 2^-p)^d (each rounding adds at most a
// relative 2^-p, p = 11 for fp16, 8 for bf16; d <= 16), below max of T, so it rounds to a finite
// value and no Inf - Inf arises. One pass of 16-bit integer maxima over the magnitude codes.
HWY_NOINLINE bool TreesCannotOverflow(const void* xv, size_t stride, size_t rows, size_t n,
                                      size_t w, bool bf16) {
  if (w > (size_t{1} << 16)) return false;
  const double top = bf16 ? 3.3895313892515355e38 : 65504.0;
  const float lim = float(top / (double(w) * 1.125));
  uint16_t lim_code = bf16 ? formats::f32_to_bf16(lim) : formats::f32_to_f16(lim);
  if ((bf16 ? formats::bf16_to_f32(lim_code) : formats::f16_to_f32(lim_code)) > lim) --lim_code;
  const hn::ScalableTag<int16_t> di;
  const size_t N = hn::Lanes(di);
  const auto mag = hn::Set(di, int16_t(0x7FFF));
  auto m = hn::Zero(di), m1 = m, m2 = m, m3 = m;  // four chains: loads, not max latency, bound it
  int16_t tail = 0;
  for (size_t r = 0; r < rows; ++r) {
    const auto* row =
        reinterpret_cast<const int16_t*>(static_cast<const uint8_t*>(xv) + r * stride);
    size_t i = 0;
    for (; i + 4 * N <= n; i += 4 * N) {
      m = hn::Max(m, hn::And(hn::LoadU(di, row + i), mag));
      m1 = hn::Max(m1, hn::And(hn::LoadU(di, row + i + N), mag));
      m2 = hn::Max(m2, hn::And(hn::LoadU(di, row + i + 2 * N), mag));
      m3 = hn::Max(m3, hn::And(hn::LoadU(di, row + i + 3 * N), mag));
    }
    for (; i + N <= n; i += N) m = hn::Max(m, hn::And(hn::LoadU(di, row + i), mag));
    for (; i < n; ++i) tail = std::max<int16_t>(tail, int16_t(row[i] & 0x7FFF));
  }
  m = hn::Max(hn::Max(m, m1), hn::Max(m2, m3));
  return std::max(tail, hn::GetLane(hn::MaxOfLanes(di, m))) <= int16_t(lim_code);
}

bool TreeSumsImpl(DType t, const void* x, size_t stride, size_t rows, size_t n, size_t w,
                  bool chain, bool sat, void* out) {
#if HWY_TARGET != HWY_SCALAR
  // Saturating trees that cannot overflow are the plain trees (the chain still saturates); fp16
  // trees that cannot overflow round their nodes on the bits (Fmt::f16fin).
  if (t == DType::fp16) {
    if (TreesCannotOverflow(x, stride, rows, n, w, false))
      return TreeSums<Fmt::f16fin, false>(x, stride, rows, n, w, chain, sat, out);
    return sat ? TreeSums<Fmt::f16, true>(x, stride, rows, n, w, chain, sat, out)
               : TreeSums<Fmt::f16, false>(x, stride, rows, n, w, chain, sat, out);
  }
  const bool tree_sat = sat && !TreesCannotOverflow(x, stride, rows, n, w, t == DType::bf16);
  switch (t) {
    case DType::fp32:  // nothing saturates
      return TreeSums<Fmt::f32, false>(x, stride, rows, n, w, chain, false, out);
    case DType::bf16:
      return tree_sat ? TreeSums<Fmt::bf16, true>(x, stride, rows, n, w, chain, sat, out)
                      : TreeSums<Fmt::bf16, false>(x, stride, rows, n, w, chain, sat, out);
    default:
      return false;
  }
#else
  (void)t, (void)x, (void)stride, (void)rows, (void)n, (void)w, (void)chain, (void)sat, (void)out;
  return false;
#endif
}

bool ColumnSumsImpl(DType t, const void* x, size_t stride, size_t rows, size_t n, bool pairs,
                    void* out) {
#if HWY_TARGET != HWY_SCALAR
  switch (t) {
    case DType::fp32:
      return ColumnSums<Fmt::f32>(x, stride, rows, n, pairs, out);
    case DType::fp16:
      return ColumnSums<Fmt::f16>(x, stride, rows, n, pairs, out);
    case DType::bf16:
      return ColumnSums<Fmt::bf16>(x, stride, rows, n, pairs, out);
    default:
      return false;
  }
#else
  (void)t, (void)x, (void)stride, (void)rows, (void)n, (void)pairs, (void)out;
  return false;
#endif
}

bool FoldRowsImpl(Op op, DType t, const void* x, size_t stride, size_t rows, size_t n, void* out) {
  auto run = [&](auto fn) {
    fn(x, stride, rows, n, out);
    return true;
  };
  if (op != Op::max && op != Op::min && (op != Op::add || is_float_dtype(t))) return false;
  switch (t) {
    case DType::fp32:
      return run([&](auto... a) {
        if (op == Op::max)
          FloatFold<Op::max, int32_t>(0x7F800000, 0x7FC00000, a...);
        else
          FloatFold<Op::min, int32_t>(0x7F800000, 0x7FC00000, a...);
      });
    case DType::fp16:
    case DType::bf16: {
      const int16_t inf = t == DType::fp16 ? 0x7C00 : 0x7F80;
      const int16_t nan = t == DType::fp16 ? 0x7E00 : 0x7FC0;
      return run([&](auto... a) {
        if (op == Op::max)
          FloatFold<Op::max, int16_t>(inf, nan, a...);
        else
          FloatFold<Op::min, int16_t>(inf, nan, a...);
      });
    }
    default:
      break;
  }
  auto ints = [&](auto v) -> bool {
    using T = decltype(v);
    if constexpr (sizeof(T) == 8) {
      if (op != Op::add) return false;  // 64-bit max/min: the scalar fold
    }
    return run([&](auto... a) {
      if (op == Op::add)
        IntFold<Op::add, T>(a...);
      else if constexpr (sizeof(T) < 8) {
        if (op == Op::max)
          IntFold<Op::max, T>(a...);
        else
          IntFold<Op::min, T>(a...);
      }
    });
  };
  switch (t) {
    case DType::s8:
      return ints(int8_t{});
    case DType::s16:
      return ints(int16_t{});
    case DType::s32:
      return ints(int32_t{});
    case DType::s64:
      return ints(int64_t{});
    case DType::u8:
      return ints(uint8_t{});
    case DType::u16:
      return ints(uint16_t{});
    case DType::u32:
      return ints(uint32_t{});
    case DType::u64:
      return ints(uint64_t{});
    default:
      return false;
  }
}

}  // namespace tilesim::ops::reduce_simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::ops::reduce_simd {
HWY_EXPORT(TreeSumsImpl);
HWY_EXPORT(ColumnSumsImpl);
HWY_EXPORT(FoldRowsImpl);

bool tree_sums(DType t, const void* x, size_t stride, size_t rows, size_t n, size_t w, bool chain,
               bool sat, void* out) {
  if (t == DType::fp16 && f16_native_tree_sums(x, stride, rows, n, w, chain, sat, out))
    return true;
  return HWY_DYNAMIC_DISPATCH(TreeSumsImpl)(t, x, stride, rows, n, w, chain, sat, out);
}
bool column_sums(DType t, const void* x, size_t stride, size_t rows, size_t n, bool pairs,
                 void* out) {
  return HWY_DYNAMIC_DISPATCH(ColumnSumsImpl)(t, x, stride, rows, n, pairs, out);
}
bool fold_rows(Op op, DType t, const void* x, size_t stride, size_t rows, size_t n, void* out) {
  return HWY_DYNAMIC_DISPATCH(FoldRowsImpl)(op, t, x, stride, rows, n, out);
}
}  // namespace tilesim::ops::reduce_simd
#endif
