// The fast path of BlockReduceSum/Max/Min (spec 40 §2), bit-identical to run_reference.
// Datablocks of a chunk of repeats are staged as fp32 (inactive elements = identity), then each
// tree level is one pass over all blocks at once: out[k] = op(in[2k], in[2k+1]) with
// ConcatEven/ConcatOdd, so the SIMD lanes run across datablocks. Half SUM rounds every node to
// fp16 (and saturates) with integer ops in the fp32 domain, so no target-specific f16 rounding
// is relied on. All reads of a super-chunk happen before its writes; this is equivalent to the
// sequential order because the overlap rule (spec 40 §3) forbids a write landing on a later read.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ascendc/block_reduce_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "ascendc/plan.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/parallel.hpp"

HWY_BEFORE_NAMESPACE();
namespace tilesim::ascendc::detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Rounds fp32 values to the nearest fp16 value (RNE), kept as fp32; overflow gives ±Inf; NaN
// stays NaN (any payload: results are canonicalised on the way out).
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// F16C: vcvtps2ph rounds per MXCSR (RNE; the library never changes it) and keeps subnormals.
HWY_INLINE VF round_to_half(DF d, VF v) {
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(d, hn::DemoteTo(dh, v));
}
#else
// Portable: integer ops on the fp32 bits, so no target's f16 emulation is relied on.
HWY_INLINE VF round_to_half(DF d, VF v) {
  const hn::RebindToSigned<DF> di;
  const auto bits = hn::BitCast(di, v);
  const auto sign = hn::And(bits, hn::Set(di, int32_t(0x80000000u)));
  const auto a = hn::AndNot(sign, bits);  // |v| bits
  // Normal fp16 range: drop 13 mantissa bits, ties to even.
  const auto lsb = hn::And(hn::ShiftRight<13>(a), hn::Set(di, 1));
  auto rn = hn::And(hn::Add(a, hn::Add(hn::Set(di, 0xFFF), lsb)), hn::Set(di, int32_t(~0x1FFFu)));
  rn = hn::IfThenElse(hn::Gt(rn, hn::Set(di, 0x477FE000)), hn::Set(di, 0x7F800000), rn);
  // Subnormal fp16 range: a multiple of 2^-24; adding 0.5 puts the quantum at the last bit.
  const VF half_c = hn::Set(d, 0.5f);
  const auto sub = hn::BitCast(di, hn::Sub(hn::Add(hn::BitCast(d, a), half_c), half_c));
  const auto r = hn::Or(hn::IfThenElse(hn::Lt(a, hn::Set(di, 0x38800000)), sub, rn), sign);
  return hn::IfThenElse(hn::IsNaN(v), v, hn::BitCast(d, r));
}
#endif

// fp16 loads and stores: F16C where the target has it; elsewhere exact integer conversions
// (some targets' f16 emulation differs on specials, and these must be bit-exact).
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
template <class D>
HWY_INLINE hn::Vec<D> load_half(D d, const uint8_t* p) {
  const hn::Rebind<hwy::float16_t, D> dh;
  return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
}
template <class D>
HWY_INLINE void store_half(D d, hn::Vec<D> v, uint8_t* p) {  // v: exact fp16 values, NaN canonical
  const hn::Rebind<hwy::float16_t, D> dh;
  hn::StoreU(hn::DemoteTo(dh, v), dh, reinterpret_cast<hwy::float16_t*>(p));
}
#else
template <class D>
HWY_INLINE hn::Vec<D> load_half(D d, const uint8_t* p) {
  const hn::RebindToSigned<D> di;
  const hn::Rebind<uint16_t, D> d16;
  const auto h =
      hn::BitCast(di, hn::PromoteTo(hn::RebindToUnsigned<D>(),
                                    hn::LoadU(d16, reinterpret_cast<const uint16_t*>(p))));
  const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(di, 0x8000)));
  const auto mag = hn::ShiftLeft<13>(hn::And(h, hn::Set(di, 0x7FFF)));
  // Exponent rebias by 2^112 (exact for normals and subnormals alike); exponent 31 is Inf/NaN.
  const auto fin = hn::BitCast(di, hn::Mul(hn::BitCast(d, mag), hn::Set(d, 5.192296858534828e33f)));
  const auto special = hn::Or(mag, hn::Set(di, 0x7F800000));
  const auto r = hn::IfThenElse(hn::Gt(mag, hn::Set(di, 0x0F7FFFFF)), special, fin);
  return hn::BitCast(d, hn::Or(r, sign));
}
template <class D>
HWY_INLINE void store_half(D d, hn::Vec<D> v, uint8_t* p) {
  const hn::RebindToSigned<D> di;
  const auto bits = hn::BitCast(di, v);
  const auto sign =
      hn::And(hn::ShiftRight<16>(bits), hn::Set(di, 0x8000));  // in [0, 0xFFFF] for DemoteTo
  const auto a = hn::And(bits, hn::Set(di, 0x7FFFFFFF));
  const auto fin = hn::ShiftRight<13>(
      hn::BitCast(di, hn::Mul(hn::BitCast(d, a), hn::Set(d, 1.925929944387236e-34f))));
  const auto special =
      hn::IfThenElse(hn::Gt(a, hn::Set(di, 0x7F800000)), hn::Set(di, 0x7E00), hn::Set(di, 0x7C00));
  const auto h = hn::Or(hn::IfThenElse(hn::Gt(a, hn::Set(di, 0x7F7FFFFF)), special, fin), sign);
  const hn::Rebind<uint16_t, D> d16;
  hn::StoreU(hn::DemoteTo(d16, h), d16, reinterpret_cast<uint16_t*>(p));
}
#endif

// Rounds a clamped saturating-SUM node to fp16 precision (RNE), kept as fp32: Veltkamp's split
// with C = 2^13 + 1 keeps the top 24 - 13 = 11 significand bits. Three fp32 ops instead of the
// fp32->fp16->fp32 round trip (on Zen 4 the round trip costs about 2.5 Veltkamps). Exact here
// because the input is x = RN32(a + b) of fp16 values a, b, clamped to |x| <= 65504: for
// |x| >= 2^-14 the split equals RN16(x) on every such fp32 value (checked exhaustively against
// vcvtps2ph, ties included, and by SimdTree.EveryHalfCodeNodeRounding); below 2^-14, x is an exact multiple
// of 2^-24 with at most 10 significant bits, so the split returns it unchanged, as RN16 does.
// Needs -ffp-contract=off (the build's setting): a fused g - x would break the split.
HWY_INLINE VF round_sat_node(DF d, VF x) {
  const VF g = hn::Mul(x, hn::Set(d, 8193.0f));
  return hn::Sub(g, hn::MulAdd(x, hn::Set(d, -1.0f), g));  // g - x on the FMA pipes
}

// Clamps to [-65504, 65504] keeping the sign (and -0): one VRANGEPS (min of magnitudes, sign of
// the first operand) on AVX-512DQ, else Max+Min. A NaN stays NaN.
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
HWY_INLINE VF clamp_half_max(DF d, VF s) {
  return VF{_mm512_range_ps(s.raw, hn::Set(d, 65504.0f).raw, 0x02)};
}
#else
HWY_INLINE VF clamp_half_max(DF d, VF s) {
  return hn::Min(hn::Max(s, hn::Set(d, -65504.0f)), hn::Set(d, 65504.0f));
}
#endif

// kFirst: the tree's first level, the only one that can see NaN/Inf inputs when saturating
// (saturated nodes are finite, so later sums are finite and only need the clamp).
template <int kOp, bool kHalf, bool kSat, bool kFirst = true>
HWY_INLINE VF node(DF d, VF a, VF b) {
  if constexpr (kOp == int(ReduceOp::Sum)) {
    VF s = hn::Add(a, b);
    if constexpr (kHalf && kSat) {
      // Saturation mode: a node of ±Inf becomes ±65504, NaN becomes 0. Clamping before the
      // rounding is the same: every sum above 65504 rounds to 65504 or to +Inf (-> 65504).
      const VF c = round_sat_node(d, clamp_half_max(d, s));
      if constexpr (kFirst) return hn::IfThenZeroElse(hn::IsNaN(s), c);
      return c;
    } else if constexpr (kHalf) {
      s = round_to_half(d, s);
    }
    return s;
  } else {
    const auto nan = hn::Or(hn::IsNaN(a), hn::IsNaN(b));
    VF r;
    if constexpr (kOp == int(ReduceOp::Max))
      r = hn::IfThenElse(hn::Eq(a, b), hn::And(a, b),
                         hn::IfThenElse(hn::Lt(a, b), b, a));  // max(-0,+0)=+0
    else
      r = hn::IfThenElse(hn::Eq(a, b), hn::Or(a, b),
                         hn::IfThenElse(hn::Lt(b, a), b, a));  // min(-0,+0)=-0
    return hn::IfThenElse(nan, hn::Set(d, formats::bits_to_f32(0x7FC00000u)), r);
  }
}

// One tree level in place: s[0..n/2) = op over adjacent pairs of s[0..n). n is a multiple of 2N.
template <int kOp, bool kHalf, bool kSat, bool kFirst>
HWY_INLINE void level(float* HWY_RESTRICT s, size_t n) {
  const DF d;
  const size_t N = hn::Lanes(d);
#if HWY_TARGET == HWY_SCALAR
  (void)N;
  for (size_t i = 0; i < n / 2; ++i)
    s[i] = hn::GetLane(
        node<kOp, kHalf, kSat, kFirst>(d, hn::Set(d, s[2 * i]), hn::Set(d, s[2 * i + 1])));
#else
  for (size_t i = 0; i < n / 2; i += N) {
    const VF v0 = hn::LoadU(d, s + 2 * i), v1 = hn::LoadU(d, s + 2 * i + N);
    hn::StoreU(
        node<kOp, kHalf, kSat, kFirst>(d, hn::ConcatEven(d, v1, v0), hn::ConcatOdd(d, v1, v0)), d,
        s + i);
  }
#endif
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// Where each tree node sits when levels 1 and 2 pair lanes with SHUFPS (imm 0x88: lanes
// a0,a2,b0,b2 of every 128-bit quarter; 0xDD: a1,a3,b1,b3) instead of ConcatEven/ConcatOdd,
// found by running the same moves on (block, node) labels of one group of 16 datablocks (E
// vectors of 16 fp32 lanes, vector j lane l = element (16j + l) of the stream). The later levels
// then use two-source permutes whose index tables put each level's outputs in (block, node)
// order, so the last level leaves lane k = block k. `ok` is false if some pair were not siblings
// in the tree (cannot happen for E = 8, 16; then the ConcatEven/ConcatOdd code runs instead).
struct Layout {
  bool ok = true;
  alignas(64) int32_t idx[2][2][2][16];  // [permute level][pair][left, right][lane]
};

template <unsigned E>
const Layout& layout() {
  static const Layout L = [] {
    Layout r{};
    int lab[16][16];  // block * 16 + node
    for (int j = 0; j < int(E); ++j)
      for (int l = 0; l < 16; ++l) lab[j][l] = (16 * j + l) / int(E) * 16 + (16 * j + l) % int(E);
    const auto sibling = [&](int a, int b) { return a % 2 == 0 && b == a + 1; };
    const auto parent = [](int a) { return a / 16 * 16 + a % 16 / 2; };
    unsigned nv = E;
    for (int level = 0; level < 2; ++level, nv /= 2)
      for (unsigned j = 0; j < nv / 2; ++j) {
        const int* a = lab[2 * j];
        const int* b = lab[2 * j + 1];
        int o[16];
        for (int q = 0; q < 4; ++q) {
          const int ev[4] = {a[4 * q], a[4 * q + 2], b[4 * q], b[4 * q + 2]};
          const int od[4] = {a[4 * q + 1], a[4 * q + 3], b[4 * q + 1], b[4 * q + 3]};
          for (int k = 0; k < 4; ++k) {
            r.ok &= sibling(ev[k], od[k]);
            o[4 * q + k] = parent(ev[k]);
          }
        }
        std::copy(o, o + 16, lab[j]);
      }
    for (int lv = 0; nv > 1; nv /= 2, ++lv)
      for (unsigned j = 0; j < nv / 2; ++j) {
        int cat[32];
        std::copy(lab[2 * j], lab[2 * j] + 16, cat);
        std::copy(lab[2 * j + 1], lab[2 * j + 1] + 16, cat + 16);
        int lefts[16], n = 0;
        for (int p = 0; p < 32; ++p)
          if (cat[p] % 2 == 0 && n < 16) lefts[n++] = p;
        r.ok &= n == 16;
        std::sort(lefts, lefts + n, [&](int x, int y) { return cat[x] < cat[y]; });
        int o[16];
        for (int l = 0; l < n; ++l) {
          const int* rt = std::find(cat, cat + 32, cat[lefts[l]] + 1);
          r.ok &= rt != cat + 32;
          r.idx[lv][j][0][l] = lefts[l];
          r.idx[lv][j][1][l] = int(rt - cat) & 31;
          o[l] = parent(cat[lefts[l]]);
        }
        std::copy(o, o + 16, lab[j]);
      }
    // The last level's output must be blocks 0..15 in lane order.
    for (int l = 0; l < 16; ++l) r.ok &= lab[0][l] == l * 16;
    return r;
  }();
  return L;
}
#endif

#if HWY_TARGET != HWY_SCALAR
// N datablocks (E vectors) at a time, every level in registers: the same pairs as one pass per
// level over the whole stream, without storing the intermediate levels. kLoad: 0 = `in` is the
// fp32 staging buffer; 1 = `in` is the source itself (contiguous, fully active datablocks);
// 2 = fully active datablocks anywhere, each vector loaded from its block's address (needs
// N <= E, so a vector never spans two blocks, or float with N = 2E: two blocks per vector).
// The result of group g goes to out[g, g + N), below every input not yet loaded when out == in.
// kLoad 2's source: block k of the stream (counted from the first block of the repeat at base)
// is at base + (k / 8) * rep_bytes + boff[k % 8].
struct BlockSrc {
  const uint8_t* base;
  size_t rep_bytes;
  size_t boff[8];
};

// One group's view of a BlockSrc: small (no array), so it stays in registers; k0 = the group's
// first block within its repeat (0 when N >= 8: the offsets are then constants once the group
// loop is unrolled).
struct GroupSrc {
  const BlockSrc* b;
  const uint8_t* base;
  size_t k0;
};

// The input of the group starting at block g (a multiple of N): what load_vec reads with
// offsets from the group's first element.
template <bool kHalf, int kLoad>
HWY_INLINE const void* group_in(const void* in, size_t g, GroupSrc& tmp) {
  constexpr unsigned E = kHalf ? 16 : 8;
  if constexpr (kLoad == 0) {
    return static_cast<const float*>(in) + g * E;
  } else if constexpr (kLoad == 1) {
    return static_cast<const uint8_t*>(in) + g * E * (kHalf ? 2 : 4);
  } else {
    const BlockSrc* b = static_cast<const BlockSrc*>(in);
    tmp = GroupSrc{b, b->base + g / 8 * b->rep_bytes, g % 8};
    return &tmp;
  }
}

template <bool kHalf, int kLoad>
HWY_INLINE VF load_vec(DF d, const void* gin, size_t off) {
  constexpr unsigned E = kHalf ? 16 : 8;
  if constexpr (kLoad == 0) {
    return hn::LoadU(d, static_cast<const float*>(gin) + off);
  } else {
    const uint8_t* a;
    if constexpr (kLoad == 1) {
      a = static_cast<const uint8_t*>(gin) + off * (kHalf ? 2 : 4);
    } else {
      const GroupSrc& gs = *static_cast<const GroupSrc*>(gin);
      const auto blk = [&](size_t k) {
        k += gs.k0;
        return gs.base + k / 8 * gs.b->rep_bytes + gs.b->boff[k % 8];
      };
      const size_t q = off / E;  // off is a constant once the group loop is unrolled
      if (!kHalf && hn::Lanes(d) == 2 * E) {
        // A vector holds two whole float datablocks (off is a multiple of E): two half loads.
        const hn::Half<DF> dh;
        return hn::Combine(d, hn::LoadU(dh, reinterpret_cast<const float*>(blk(q + 1))),
                           hn::LoadU(dh, reinterpret_cast<const float*>(blk(q))));
      }
      a = blk(q) + off % E * (kHalf ? 2 : 4);
    }
    if constexpr (kHalf)
      return load_half(d, a);
    else
      return hn::LoadU(d, reinterpret_cast<const float*>(a));
  }
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// The AVX-512 tree with `layout`: levels 1 and 2 pair lanes with in-lane SHUFPS, the later
// levels with two-source permutes from the index tables. Software-pipelined: the last levels of
// group g run after levels 1-2 of group g+1, so their long dependency chain (permute, add, clamp,
// fp16 round trip per level) overlaps independent work. Same nodes, same order per node. Groups
// start at block g0 (the bounded tree below recomputes single groups with it).
template <int kOp, bool kHalf, bool kSat, int kLoad>
void tree_groups_x(const Layout& L, const void* in, float* out, size_t nblk, size_t g0 = 0) {
  constexpr unsigned E = kHalf ? 16 : 8;
  const DF d;
  constexpr size_t N = 16;
  VF pend[E / 4];
  const auto finish = [&](VF* w, size_t g) {
    unsigned lv = 0;
    for (unsigned n = E / 4; n > 1; n /= 2, ++lv)
      for (unsigned j = 0; j < n / 2; ++j) {
        const __m512i ie = _mm512_load_si512(L.idx[lv][j][0]);
        const __m512i io = _mm512_load_si512(L.idx[lv][j][1]);
        w[j] = node<kOp, kHalf, kSat, false>(
            d, VF{_mm512_permutex2var_ps(w[2 * j].raw, ie, w[2 * j + 1].raw)},
            VF{_mm512_permutex2var_ps(w[2 * j].raw, io, w[2 * j + 1].raw)});
      }
    hn::StoreU(w[0], d, out + g);
  };
  for (size_t g = g0; g < nblk; g += N) {
    VF v[E];
    GroupSrc tmp;
    const void* gin = group_in<kHalf, kLoad>(in, g, tmp);
    for (unsigned j = 0; j < E; ++j) v[j] = load_vec<kHalf, kLoad>(d, gin, j * N);
    for (unsigned j = 0; j < E / 2; ++j)
      v[j] = node<kOp, kHalf, kSat, true>(
          d, VF{_mm512_shuffle_ps(v[2 * j].raw, v[2 * j + 1].raw, 0x88)},
          VF{_mm512_shuffle_ps(v[2 * j].raw, v[2 * j + 1].raw, 0xDD)});
    for (unsigned j = 0; j < E / 4; ++j)
      v[j] = node<kOp, kHalf, kSat, false>(
          d, VF{_mm512_shuffle_ps(v[2 * j].raw, v[2 * j + 1].raw, 0x88)},
          VF{_mm512_shuffle_ps(v[2 * j].raw, v[2 * j + 1].raw, 0xDD)});
    // The previous group's output may be where this group was read from (out == in, kLoad 0):
    // out[g - N, g) lies below this group's input, which is already loaded.
    if (g > g0) finish(pend, g - N);
    std::copy(v, v + E / 4, pend);
  }
  if (nblk > g0) finish(pend, nblk - N);
}

// Half SUM over source data (kLoad 1, 2) when a group's values are small: if every level-1 sum
// has |s| <= 8188 = 65504 / 8, no node of the group can exceed 65504 (by induction a node over
// 2^k leaves is at most 2^(k-1) * 8188, exactly representable in fp16, and RN16 is monotonic), so
// no node saturates or overflows and each node is RN16(a + b) = Veltkamp's split of the fp32 sum
// (see round_sat_node), with or without saturation mode: 4 ops a node instead of 5-7. The check
// costs 7 VRANGEPS (max of magnitudes) and one compare per group; VRANGEPS drops a NaN operand,
// but a NaN level-1 sum propagates through every later node (add, split, shuffles), so it shows
// up as a NaN result: with saturation (where NaN -> 0 at level 1) that group is recomputed with
// the general nodes; without, NaN is the right result. A group that fails the bound (which
// includes ±Inf inputs) is recomputed the same way, after its fast result was stored.
template <bool kSat, int kLoad>
void tree_groups_bounded(const Layout& L, const void* in, float* out, size_t nblk) {
  constexpr unsigned E = 16;
  constexpr size_t N = 16;
  const DF d;
  const VF c = hn::Set(d, 8193.0f), lim = hn::Set(d, 8188.0f), neg1 = hn::Set(d, -1.0f);
  const auto add_round = [&](VF a, VF b) {
    const VF s = hn::Add(a, b), g = hn::Mul(s, c);
    return hn::Sub(g, hn::MulAdd(s, neg1, g));
  };
  const auto general = [&](size_t g) {  // group g again with the saturating/IEEE nodes
    tree_groups_x<int(ReduceOp::Sum), true, kSat, kLoad>(L, in, out, g + N, g);
  };
  VF pend[4];
  bool pend_big = false;
  const auto finish = [&](VF* w, size_t g, bool big) {
    for (unsigned lv = 0, n = 4; n > 1; n /= 2, ++lv)
      for (unsigned j = 0; j < n / 2; ++j) {
        const __m512i ie = _mm512_load_si512(L.idx[lv][j][0]);
        const __m512i io = _mm512_load_si512(L.idx[lv][j][1]);
        w[j] = add_round(VF{_mm512_permutex2var_ps(w[2 * j].raw, ie, w[2 * j + 1].raw)},
                         VF{_mm512_permutex2var_ps(w[2 * j].raw, io, w[2 * j + 1].raw)});
      }
    hn::StoreU(w[0], d, out + g);
    if (big || (kSat && _mm512_cmp_ps_mask(w[0].raw, w[0].raw, _CMP_UNORD_Q) != 0)) general(g);
  };
  for (size_t g = 0; g < nblk; g += N) {
    VF v[E];
    GroupSrc tmp;
    const void* gin = group_in<true, kLoad>(in, g, tmp);
    for (unsigned j = 0; j < E; ++j) v[j] = load_vec<true, kLoad>(d, gin, j * N);
    VF s[8];
    for (unsigned j = 0; j < 8; ++j)
      s[j] = hn::Add(VF{_mm512_shuffle_ps(v[2 * j].raw, v[2 * j + 1].raw, 0x88)},
                     VF{_mm512_shuffle_ps(v[2 * j].raw, v[2 * j + 1].raw, 0xDD)});
    // imm 0x0B: the larger magnitude, sign cleared.
    const auto mx = [](VF a, VF b) { return VF{_mm512_range_ps(a.raw, b.raw, 0x0B)}; };
    const VF m = mx(mx(mx(s[0], s[1]), mx(s[2], s[3])), mx(mx(s[4], s[5]), mx(s[6], s[7])));
    const bool big = _mm512_cmp_ps_mask(m.raw, lim.raw, _CMP_GT_OQ) != 0;
    for (unsigned j = 0; j < 8; ++j) {
      const VF gj = hn::Mul(s[j], c);
      v[j] = hn::Sub(gj, hn::MulAdd(s[j], neg1, gj));
    }
    for (unsigned j = 0; j < 4; ++j)
      v[j] = add_round(VF{_mm512_shuffle_ps(v[2 * j].raw, v[2 * j + 1].raw, 0x88)},
                       VF{_mm512_shuffle_ps(v[2 * j].raw, v[2 * j + 1].raw, 0xDD)});
    if (g > 0) finish(pend, g - N, pend_big);
    std::copy(v, v + 4, pend);
    pend_big = big;
  }
  if (nblk > 0) finish(pend, nblk - N, pend_big);
}
#endif

template <int kOp, bool kHalf, bool kSat, int kLoad>
void tree_groups(const void* in, float* out, size_t nblk) {
  constexpr unsigned E = kHalf ? 16 : 8;
  const DF d;
  const size_t N = hn::Lanes(d);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if (const Layout& L = layout<E>(); L.ok) {
    if constexpr (kOp == int(ReduceOp::Sum) && kHalf && kLoad != 0)
      return tree_groups_bounded<kSat, kLoad>(L, in, out, nblk);
    return tree_groups_x<kOp, kHalf, kSat, kLoad>(L, in, out, nblk);
  }
#endif
  for (size_t g = 0; g < nblk; g += N) {
    VF v[E];
    GroupSrc tmp;
    const void* gin = group_in<kHalf, kLoad>(in, g, tmp);
    for (unsigned j = 0; j < E; ++j) v[j] = load_vec<kHalf, kLoad>(d, gin, j * N);
    for (unsigned j = 0; j < E / 2; ++j)
      v[j] = node<kOp, kHalf, kSat, true>(d, hn::ConcatEven(d, v[2 * j + 1], v[2 * j]),
                                          hn::ConcatOdd(d, v[2 * j + 1], v[2 * j]));
    for (unsigned n = E / 2; n > 1; n /= 2)
      for (unsigned j = 0; j < n / 2; ++j)
        v[j] = node<kOp, kHalf, kSat, false>(d, hn::ConcatEven(d, v[2 * j + 1], v[2 * j]),
                                             hn::ConcatOdd(d, v[2 * j + 1], v[2 * j]));
    hn::StoreU(v[0], d, out + g);
  }
}
#endif

// The tree over staged blocks, results in place: s[b] = block b's result.
template <int kOp, bool kHalf, bool kSat>
void tree(float* s, size_t nblk_padded) {
#if HWY_TARGET == HWY_SCALAR
  constexpr unsigned E = kHalf ? 16 : 8;
  level<kOp, kHalf, kSat, true>(s, nblk_padded * E);
  for (size_t n = nblk_padded * E / 2; n > nblk_padded; n /= 2)
    level<kOp, kHalf, kSat, false>(s, n);
#else
  tree_groups<kOp, kHalf, kSat, 0>(s, s, nblk_padded);
#endif
}

constexpr uint64_t kChunk = 32;  // repeats staged at once (16 KB of fp32 for half)
constexpr uint64_t kSuper = 64 * kChunk;
constexpr size_t kChunkBlocks = kChunk * 8;
// A long (unstaged) chunk of kChunk * 8 repeats has kChunk * 64 results: they fit below the tail
// area at stage + kChunkBlocks * E for E >= 8; super-chunks hold whole long chunks.
static_assert(kChunk * 64 <= kChunkBlocks * 8 && kSuper % (kChunk * 8) == 0);

struct Ctx {
  const Plan* p;
  float identity;
  bool has_fill;
  float fill;                           // value of a fully masked block, as fp32 (exact in T)
  uint32_t lm_body[128], lm_last[128];  // lane masks: ~0 active, 0 inactive
  uint8_t act_body, act_last, full_body, full_last;  // per block: any active / all active
};

// Stages one datablock's E elements as fp32, inactive ones replaced by the identity.
template <bool kHalf>
HWY_INLINE void stage_block(const Ctx& c, const uint8_t* src, const uint32_t* lm, bool full,
                            float* out) {
  constexpr unsigned E = kHalf ? 16 : 8;
  const hn::CappedTag<float, E> dc;
  const size_t L = hn::Lanes(dc);
  const hn::RebindToUnsigned<decltype(dc)> du;
  for (size_t k = 0; k < E; k += L) {
    hn::Vec<decltype(dc)> v;
    if constexpr (kHalf) {
      v = load_half(dc, src + k * 2);
    } else {
      v = hn::LoadU(dc, reinterpret_cast<const float*>(src) + k);
    }
    if (!full) {
      const auto m = hn::MaskFromVec(hn::BitCast(dc, hn::LoadU(du, lm + k)));
      v = hn::IfThenElse(m, v, hn::Set(dc, c.identity));
    }
    hn::StoreU(v, dc, out + k);
  }
}

// Whether compute_chunk's tree reads fully active datablocks straight from the source (no
// staging): as one contiguous stream, or block by block when a vector never spans two blocks (or
// float with two whole blocks per vector).
template <bool kHalf>
bool loads_directly(const Plan& p) {
#if HWY_TARGET == HWY_SCALAR
  (void)p;
  return false;
#else
  constexpr unsigned E = kHalf ? 16 : 8;
  const size_t N = hn::Lanes(DF());
  return (p.src_blk == 1 && p.src_rep == 8) || N <= E || (!kHalf && N == 2 * E);
#endif
}

// Computes repeats [r0, r1) into bits[(r - r0) * 8 + b] (T's bits, canonical NaN; fill for
// fully masked blocks). Only reads src. At most kChunk repeats, or kChunk * 8 when every block is
// fully active and loads_directly (then `stage` only holds one fp32 result per block).
template <int kOp, bool kHalf, bool kSat>
void compute_chunk(const Ctx& c, uint64_t r0, uint64_t r1, float* stage, uint8_t* bits) {
  constexpr unsigned E = kHalf ? 16 : 8;
  const Plan& p = *c.p;
  const DF d;
  const size_t N = hn::Lanes(d);
  const size_t nblk = size_t(r1 - r0) * 8;
  const size_t padded = (nblk + N - 1) / N * N;
  constexpr size_t sz = kHalf ? 2 : 4;
#if HWY_TARGET != HWY_SCALAR
  // Fully active repeats: the tree reads the source directly (no staging pass), as one
  // contiguous stream or block by block.
  const bool all_full = c.full_body == 0xFF && (r1 < p.repeats || c.full_last == 0xFF);
  if (all_full && loads_directly<kHalf>(p)) {
    const bool contiguous = p.src_blk == 1 && p.src_rep == 8;
    const size_t whole = nblk / N * N;
    if (contiguous)
      tree_groups<kOp, kHalf, kSat, 1>(p.src + p.src_block(r0, 0) * sz, stage, whole);
    else {
      BlockSrc b{p.src + p.src_block(r0, 0) * sz, size_t(p.src_rep) * E * sz, {}};
      for (unsigned k = 0; k < 8; ++k) b.boff[k] = size_t(p.src_blk) * k * E * sz;
      tree_groups<kOp, kHalf, kSat, 2>(&b, stage, whole);
    }
    if (whole < nblk) {  // the last partial group goes through a small staging area
      float* tail = stage + kChunkBlocks * E;
      for (size_t b = whole; b < nblk; ++b)
        stage_block<kHalf>(c, p.src + p.src_block(r0 + b / 8, unsigned(b % 8)) * sz, nullptr, true,
                           tail + (b - whole) * E);
      std::fill(tail + (nblk - whole) * E, tail + N * E, c.identity);
      tree<kOp, kHalf, kSat>(tail, N);
      std::copy(tail, tail + (nblk - whole), stage + whole);
    }
    std::fill(stage + nblk, stage + padded, c.identity);
  } else
#endif
  {
    for (uint64_t r = r0; r < r1; ++r) {
      const bool last = r + 1 == p.repeats;
      const uint8_t act = last ? c.act_last : c.act_body, full = last ? c.full_last : c.full_body;
      const uint32_t* lm = last ? c.lm_last : c.lm_body;
      if (full == 0xFF && p.src_blk == 1) {  // the whole repeat is 8*E contiguous active elements
        const DF dfl;
        const size_t NL = hn::Lanes(dfl);
        const uint8_t* src = p.src + p.src_block(r, 0) * sz;
        float* out = stage + size_t(r - r0) * 8 * E;
        for (size_t k = 0; k < 8 * E; k += NL) {
          if constexpr (kHalf) {
            hn::StoreU(load_half(dfl, src + k * 2), dfl, out + k);
          } else {
            hn::StoreU(hn::LoadU(dfl, reinterpret_cast<const float*>(src) + k), dfl, out + k);
          }
        }
        continue;
      }
      for (unsigned b = 0; b < 8; ++b) {
        float* out = stage + (size_t(r - r0) * 8 + b) * E;
        if ((act >> b) & 1)
          stage_block<kHalf>(c, p.src + p.src_block(r, b) * sz, lm + b * E, (full >> b) & 1, out);
        else
          std::fill(out, out + E, c.identity);  // reads nothing (spec 40 §2)
      }
    }
    std::fill(stage + nblk * E, stage + padded * E, c.identity);
    tree<kOp, kHalf, kSat>(stage, padded);
  }
  // Fully masked blocks take the product's value.
  if (c.has_fill)
    for (uint64_t r = r0; r < r1; ++r) {
      const uint8_t act = r + 1 == p.repeats ? c.act_last : c.act_body;
      if (act != 0xFF)
        for (unsigned b = 0; b < 8; ++b)
          if (!((act >> b) & 1)) stage[size_t(r - r0) * 8 + b] = c.fill;
    }
  // Encode: canonical NaN, then to T's bits (values are exact in T, so the conversion is exact).
  // Exactly nblk results are written: `bits` may be the destination itself (see run).
  const hn::RebindToUnsigned<DF> du;
  const VF qnan = hn::Set(d, formats::bits_to_f32(0x7FC00000u));
  const auto encode = [&](size_t i, uint8_t* to) {
    VF v = hn::LoadU(d, stage + i);
    v = hn::IfThenElse(hn::IsNaN(v), qnan, v);
    if constexpr (kHalf) {
      store_half(d, v, to);
    } else {
      hn::StoreU(hn::BitCast(du, v), du, reinterpret_cast<uint32_t*>(to));
    }
  };
  size_t i = 0;
  for (; i + N <= nblk; i += N) encode(i, bits + i * sz);
  if (i < nblk) {
    alignas(64) uint8_t tmp[hn::MaxLanes(DF()) * 4];
    encode(i, tmp);
    std::memcpy(bits + i * sz, tmp, (nblk - i) * sz);
  }
}

template <int kOp, bool kHalf, bool kSat>
void run(const Ctx& c) {
  constexpr unsigned E = kHalf ? 16 : 8;
  const Plan& p = *c.p;
  constexpr size_t sz = kHalf ? 2 : 4;
  thread_local std::vector<uint8_t> bits;
  const uint64_t R = p.repeats;
  const uint64_t S = std::min<uint64_t>(R, kSuper);
  bits.resize((size_t(S) * 8 + 64) * sz);
  uint8_t* const B = bits.data();
  const bool all_written = c.has_fill || (c.act_body == 0xFF && c.act_last == 0xFF);
  // Every result written, one after the other, and no source byte under them: the chunks encode
  // straight into dst instead of a copy of B. With dst over the source (legal in-place use),
  // threaded chunks could write under reads of another chunk still running, so B stays.
  const uintptr_t src0 = reinterpret_cast<uintptr_t>(p.src), dst0 = reinterpret_cast<uintptr_t>(p.dst);
  const uintptr_t src_end = src0 + ((R - 1) * p.src_rep + 7 * p.src_blk + 1) * E * sz;
  const bool direct =
      all_written && p.dst_rep == 1 && (dst0 + R * 8 * sz <= src0 || dst0 >= src_end);
  // Threads only pay off for many elements; small calls stay on the calling thread.
  const size_t grain = R * 8 * E >= (size_t{1} << 16) ? 1 : size_t(-1) / 2;
  // Unstaged calls take 8x longer chunks: the same stage holds their results, and the software-
  // pipelined tree drains its last group once per chunk.
  const uint64_t chunk =
      c.full_body == 0xFF && c.full_last == 0xFF && loads_directly<kHalf>(p) ? kChunk * 8 : kChunk;
  for (uint64_t s0 = 0; s0 < R; s0 += kSuper) {
    const uint64_t s1 = std::min(R, s0 + kSuper);
    const size_t nchunks = size_t((s1 - s0 + chunk - 1) / chunk);
    parallel_for(nchunks, grain, [&](size_t cb, size_t ce) {
      thread_local std::vector<float> stage;
      stage.resize(size_t(kChunk) * 8 * E + 64 * E);
      for (size_t ch = cb; ch < ce; ++ch) {
        const uint64_t r0 = s0 + ch * chunk, r1 = std::min(s1, r0 + chunk);
        uint8_t* const to = direct ? p.dst + p.dst_index(r0, 0) * sz : B + (r0 - s0) * 8 * sz;
        compute_chunk<kOp, kHalf, kSat>(c, r0, r1, stage.data(), to);
      }
    });
    if (direct) continue;
    // Writes, in repeat order (dstRepStride 0: the last write wins).
    if (all_written && p.dst_rep == 1) {
      std::memcpy(p.dst + p.dst_index(s0, 0) * sz, B, size_t(s1 - s0) * 8 * sz);
      continue;
    }
    for (uint64_t r = s0; r < s1; ++r) {
      const uint8_t act = r + 1 == R ? c.act_last : c.act_body;
      const uint8_t w = c.has_fill ? 0xFF : act;
      const uint8_t* rb = B + (r - s0) * 8 * sz;
      uint8_t* dst = p.dst + p.dst_index(r, 0) * sz;
      if (w == 0xFF)
        std::memcpy(dst, rb, 8 * sz);
      else
        for (unsigned b = 0; b < 8; ++b)
          if ((w >> b) & 1) std::memcpy(dst + b * sz, rb + b * sz, sz);
    }
  }
}

void run_fast_impl(const Plan& p) {
  Ctx c;
  c.p = &p;
  constexpr float inf = std::numeric_limits<float>::infinity();
  c.identity = p.op == ReduceOp::Sum ? 0.0f : p.op == ReduceOp::Max ? -inf : inf;
  uint32_t fill_bits = 0;
  c.has_fill = masked_block_value(p, fill_bits);
  c.fill = p.elem == Elem::f16 ? formats::f16_to_f32(static_cast<uint16_t>(fill_bits))
                               : formats::bits_to_f32(fill_bits);
  const unsigned E = p.E;
  c.act_body = block_activity(p.body, E);
  c.act_last = block_activity(p.last, E);
  c.full_body = block_fullness(p.body, E);
  c.full_last = block_fullness(p.last, E);
  // Lane masks only matter for partially active blocks (stage_block with full == false).
  if (c.full_body != c.act_body || c.full_last != c.act_last)
    for (unsigned i = 0; i < 128; ++i) {
      c.lm_body[i] = p.body.bit(i) ? ~0u : 0u;
      c.lm_last[i] = p.last.bit(i) ? ~0u : 0u;
    }
  const bool h = p.elem == Elem::f16;
  switch (p.op) {
    case ReduceOp::Sum:
      if (!h) return run<int(ReduceOp::Sum), false, false>(c);
      return p.saturate ? run<int(ReduceOp::Sum), true, true>(c)
                        : run<int(ReduceOp::Sum), true, false>(c);
    case ReduceOp::Max:
      return h ? run<int(ReduceOp::Max), true, false>(c) : run<int(ReduceOp::Max), false, false>(c);
    case ReduceOp::Min:
      return h ? run<int(ReduceOp::Min), true, false>(c) : run<int(ReduceOp::Min), false, false>(c);
  }
}

}  // namespace tilesim::ascendc::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::ascendc::detail {
HWY_EXPORT(run_fast_impl);
void run_fast(const Plan& p) {
  if (p.repeats == 0) return;
  HWY_DYNAMIC_DISPATCH(run_fast_impl)(p);
}
}  // namespace tilesim::ascendc::detail
#endif
