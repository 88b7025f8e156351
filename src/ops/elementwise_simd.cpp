// SIMD kernels of the element-op core (spec 15 §5), written once and compiled per Highway target
// (spec 70 "Highway"). Each lane computes exactly the scalar definition of op_table.hpp: fp32
// arithmetic is IEEE RNE lane by lane, NaN results are made canonical, max/min use the same
// bitwise rule for equal values, integers wrap; fp16/bf16 widen exactly to fp32 and round once
// (F16C's vcvtps2ph is RNE in hardware on AVX2 and AVX3; bf16 by the integer RNE of the formats
// core; Switches::saturate applied before that rounding, see HalfOut); fp16/bf16 max, min, abs,
// neg and relu work on the codes. Tails run the scalar definition. A kernel works on `rows` rows
// of n elements at byte strides (stride 0: the same row for every row), so a walker makes one
// call per instruction.
// Ops with no kernel here return false and the caller runs the scalar loop.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/elementwise_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/elementwise.hpp"
#include "ops/nan_simd-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tilesim::ops::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
HWY_INLINE const T* Row(const void* p, size_t stride, size_t r) {
  return reinterpret_cast<const T*>(static_cast<const uint8_t*>(p) + r * stride);
}
template <class T>
HWY_INLINE T* RowW(void* p, size_t stride, size_t r) {
  return reinterpret_cast<T*>(static_cast<uint8_t*>(p) + r * stride);
}

// Operand shapes, fixed at compile time so the loops carry no per-vector branches.
enum Mode { kTT, kTS, kST };  // tile op tile, tile op scalar, scalar op tile

// ---- fp32 ----
template <Op op, class V>
HWY_INLINE V F32Op(V a, V b) {
  const hn::DFromV<V> d;
  if constexpr (op == Op::add) return hn::Add(a, b);
  else if constexpr (op == Op::sub) return hn::Sub(a, b);
  else if constexpr (op == Op::mul) return hn::Mul(a, b);
  else if constexpr (op == Op::div) return hn::Div(a, b);
  else {
    // max/min: the larger/smaller; equal values combine bitwise (±0); NaN in -> canonical NaN.
    // Where every lane is ordered and unequal (one mask test), vmaxps/vminps give exactly that.
#if HWY_TARGET <= HWY_AVX2  // Ne is _CMP_NEQ_OQ there: false for NaN
    const auto plain = hn::Ne(a, b);
#else
    const auto plain = hn::Or(hn::Lt(a, b), hn::Gt(a, b));
#endif
    if (HWY_LIKELY(hn::AllTrue(d, plain))) return op == Op::max ? hn::Max(a, b) : hn::Min(a, b);
    const hn::RebindToUnsigned<decltype(d)> du;
    const auto ua = hn::BitCast(du, a), ub = hn::BitCast(du, b);
    const auto eq = hn::RebindMask(d, hn::Eq(a, b));
    const V qnan = hn::BitCast(d, hn::Set(du, 0x7FC00000u));
    const auto nan = hn::Or(hn::IsNaN(a), hn::IsNaN(b));
    V r;
    if constexpr (op == Op::max)
      r = hn::IfThenElse(eq, hn::BitCast(d, hn::And(ua, ub)), hn::IfThenElse(hn::Gt(a, b), a, b));
    else
      r = hn::IfThenElse(eq, hn::BitCast(d, hn::Or(ua, ub)), hn::IfThenElse(hn::Lt(a, b), a, b));
    return hn::IfThenElse(nan, qnan, r);
  }
}

using nan_simd::HWY_NAMESPACE::AnyNaN;
using nan_simd::HWY_NAMESPACE::Canonical;
using nan_simd::HWY_NAMESPACE::CanonicalInPlace;

template <Op op, Mode m>
HWY_INLINE float F32Scalar(float a, float b) {
  return def::canon(m == kST ? def::fbinary<op>(b, a) : def::fbinary<op>(a, b));
}

// AVX3 max/min of one vector pair: vrangeps (AVX512DQ) with imm 5 (max) or 4 (min) — the sign
// from the comparison — orders -0 below +0, so max(-0, +0) = +0 and min = -0 in either order as
// the definition's rule (imm values checked on every ±0/±Inf/finite pair by the tests); it drops a
// NaN operand, so an unordered compare puts the canonical NaN. Three ops where vmaxps needed five
// (a vpand/vpor and vpternlog for the sign): TMAX 64x64 was 2.4x its plain loop.
#if HWY_TARGET == HWY_AVX3
template <Op op, class V>
HWY_INLINE V F32MaxMinAvx3(V vx, V vy) {
  // One load of each: without this GCC folds the loads into both instructions, and the extra
  // loads made the loop load-bound.
  asm("" : "+v"(vx.raw), "+v"(vy.raw));
  const __m512 r = _mm512_range_ps(vx.raw, vy.raw, op == Op::max ? 5 : 4);
  const __mmask16 un = _mm512_cmp_ps_mask(vx.raw, vy.raw, _CMP_UNORD_Q);
  return V{_mm512_mask_mov_ps(r, un, _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)))};
}
#endif

template <Op op, Mode m>
HWY_NOINLINE void F32Binary(const void* a, size_t as, const void* b, size_t bs, float s, void* d,
                            size_t ds, size_t rows, size_t n) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  const auto vs = hn::Set(df, s);
  constexpr bool kCanon = op != Op::max && op != Op::min;  // max/min: canonical already
  size_t done = 0;  // elements of every row already written
#if HWY_TARGET == HWY_AVX3
  {
    // AVX3 (16 lanes): the whole vectors of every row in one loop nest, then the tails below.
    // + - * /: one unordered compare per pair, ORed into the call's "a NaN result" mask (kor: a
    // 1-cycle chain; a test and branch per pair cost the small tiles ~20%, issue 16 §5), and a
    // call that had one makes its results canonical afterwards in dst: Canonical changes only NaN
    // lanes, and a NaN operand gives a NaN whatever its payload, so fixing the stored results
    // gives the same bits, in place too (a source that overlaps dst other than element for
    // element is a copy, pto Source). No per-row set-up or test either: 64 rows of 64 cost
    // TCOLEXPANDSUB ~1.5 ns a row.
    const size_t nv = n / N * N;
    __mmask16 bad = 0;
    for (size_t r = 0; r < rows; ++r) {
      const float* x = Row<float>(a, as, r);
      const float* y = m == kTT ? Row<float>(b, bs, r) : nullptr;
      float* o = RowW<float>(d, ds, r);
      auto raw = [&](size_t i) HWY_ATTR {
        const auto vx = hn::LoadU(df, x + i);
        const auto vy = m == kTT ? hn::LoadU(df, y + i) : vs;
        if constexpr (!kCanon)  // max/min: symmetric, ±0 and NaN included
          return F32MaxMinAvx3<op>(vx, vy);
        else
          return m == kST ? F32Op<op>(vy, vx) : F32Op<op>(vx, vy);
      };
      size_t i = 0;
      for (; i + 2 * N <= nv; i += 2 * N) {
        const auto r0 = raw(i), r1 = raw(i + N);
        if constexpr (kCanon)
          bad = _kor_mask16(bad, _mm512_cmp_ps_mask(r0.raw, r1.raw, _CMP_UNORD_Q));
        hn::StoreU(r0, df, o + i);
        hn::StoreU(r1, df, o + i + N);
      }
      if (i < nv) {
        const auto r0 = raw(i);
        if constexpr (kCanon)
          bad = _kor_mask16(bad, _mm512_cmp_ps_mask(r0.raw, r0.raw, _CMP_UNORD_Q));
        hn::StoreU(r0, df, o + i);
      }
    }
    if (HWY_UNLIKELY(bad != 0))
      for (size_t r = 0; r < rows; ++r) CanonicalInPlace(RowW<float>(d, ds, r), nv);
    if (nv == n) return;
    done = nv;
  }
#endif
  for (size_t r = 0; r < rows; ++r) {
    const float* x = Row<float>(a, as, r);
    const float* y = m == kTT ? Row<float>(b, bs, r) : nullptr;
    float* o = RowW<float>(d, ds, r);
    auto step = [&](size_t i) HWY_ATTR {  // the op, NaN lanes not yet canonical for + - * /
      const auto vx = hn::LoadU(df, x + i);
      if constexpr (m == kTT) return F32Op<op>(vx, hn::LoadU(df, y + i));
      else if constexpr (m == kTS) return F32Op<op>(vx, vs);
      else return F32Op<op>(vs, vx);
    };
    size_t i = done;
    for (; i + 2 * N <= n; i += 2 * N) {  // two vectors a step: both pipes busy
      auto r0 = step(i), r1 = step(i + N);
      if (kCanon && HWY_UNLIKELY(AnyNaN(r0, r1))) {
        r0 = Canonical(r0);
        r1 = Canonical(r1);
      }
      hn::StoreU(r0, df, o + i);
      hn::StoreU(r1, df, o + i + N);
    }
    for (; i + N <= n; i += N) hn::StoreU(kCanon ? Canonical(step(i)) : step(i), df, o + i);
    for (; i < n; ++i) o[i] = F32Scalar<op, m>(x[i], m == kTT ? y[i] : s);
  }
}

template <Op op>
HWY_NOINLINE void F32Unary(const void* a, size_t as, void* d, size_t ds, size_t rows, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const size_t N = hn::Lanes(df);
  const auto qnan = hn::BitCast(df, hn::Set(du, 0x7FC00000u));
  for (size_t r = 0; r < rows; ++r) {
    const float* x = Row<float>(a, as, r);
    float* o = RowW<float>(d, ds, r);
    auto plain = [&](hn::Vec<decltype(df)> v) HWY_ATTR {
      if constexpr (op == Op::abs) return hn::Abs(v);
      else if constexpr (op == Op::neg) return hn::Neg(v);
      else return hn::IfThenElse(hn::Gt(v, hn::Zero(df)), v, hn::Zero(df));  // relu
    };
    auto full = [&](hn::Vec<decltype(df)> v) HWY_ATTR {
      return hn::IfThenElse(hn::IsNaN(v), qnan, plain(v));
    };
    size_t i = 0;
#if HWY_TARGET == HWY_AVX3
    if constexpr (op != Op::relu) {
      // abs and neg keep a NaN a NaN, so as F32Binary's AVX3 loop: the pairs' unordered masks
      // ORed (no branch per pair: TABS 64x64 was 0.80x the plain loop, issue 16 §5), and a row
      // that had a NaN made canonical in dst afterwards (in place too).
      __mmask16 bad = 0;
      for (; i + 2 * N <= n; i += 2 * N) {
        const auto v0 = hn::LoadU(df, x + i), v1 = hn::LoadU(df, x + i + N);
        bad = _kor_mask16(bad, _mm512_cmp_ps_mask(v0.raw, v1.raw, _CMP_UNORD_Q));
        hn::StoreU(plain(v0), df, o + i);
        hn::StoreU(plain(v1), df, o + i + N);
      }
      if (HWY_UNLIKELY(bad != 0)) CanonicalInPlace(o, i);
    }
#endif
    for (; i + 2 * N <= n; i += 2 * N) {  // a NaN input is the only NaN result: tested per pair
      const auto v0 = hn::LoadU(df, x + i), v1 = hn::LoadU(df, x + i + N);
      if (HWY_UNLIKELY(AnyNaN(v0, v1))) {
        hn::StoreU(full(v0), df, o + i);
        hn::StoreU(full(v1), df, o + i + N);
      } else {
        hn::StoreU(plain(v0), df, o + i);
        hn::StoreU(plain(v1), df, o + i + N);
      }
    }
    for (; i + N <= n; i += N) hn::StoreU(full(hn::LoadU(df, x + i)), df, o + i);
    for (; i < n; ++i) o[i] = def::funary<op>(x[i]);
  }
}

// ---- fp16 / bf16 through fp32 lanes (exact widening, one RNE rounding) ----
#if HWY_TARGET <= HWY_AVX2
// The full vector width of the target. (AMD Zen 4 splits the 512-bit vcvtph2ps and vcvtps2ph into
// two halves, and 256-bit kernels measured 10% faster there; on Zen 5, which executes them whole,
// the full width measured 1.5x (half Add 6.1 -> 4.0 us) and 2x (half Sqrt 12.2 -> 6.3 us) faster at
// 64 K elements, bench_ascendc_api — so the width is no longer capped.)
using DF = hn::ScalableTag<float>;
using DU16 = hn::Rebind<uint16_t, DF>;
using DU32 = hn::RebindToUnsigned<DF>;

template <bool kBf16, class D = DF>
HWY_INLINE hn::Vec<D> Widen(const uint16_t* p) {
  const D df;
  const hn::Rebind<uint16_t, D> d16;
  if constexpr (kBf16) {
    const hn::RebindToUnsigned<D> du;
    return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(d16, p))));
  } else {
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::PromoteTo(df, hn::BitCast(dh, hn::LoadU(d16, p)));  // vcvtph2ps: exact
  }
}
// fp16 codes of fp32 lanes, vcvtps2ph's RNE (overflow to ±Inf, a NaN stays a NaN).
HWY_INLINE hn::Vec<DU16> F16Codes(hn::Vec<DF> v) {
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::BitCast(DU16(), hn::DemoteTo(dh, v));
}
// Rounds fp32 lanes to T and stores the codes, for lanes that are not NaN and (saturating) within
// ±max of T: vcvtps2ph's RNE for fp16, the formats core's integer RNE on the bits for bf16.
template <bool kBf16>
HWY_INLINE void NarrowRaw(hn::Vec<DF> v, uint16_t* p) {
  const DU16 d16;
  if constexpr (kBf16) {
    const DU32 du;
    const auto b = hn::BitCast(du, v);
    const auto odd = hn::And(hn::ShiftRight<16>(b), hn::Set(du, 1u));
    const auto r = hn::ShiftRight<16>(hn::Add(b, hn::Add(hn::Set(du, 0x7FFFu), odd)));
    const hn::RebindToSigned<DF> di;
    hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, r)), d16, p);  // values < 2^16: exact
  } else {
    hn::StoreU(F16Codes(v), d16, p);  // vcvtps2ph: RNE
  }
}

// Whether n codes at o and at x share no byte.
HWY_INLINE bool Disjoint(const uint16_t* o, const uint16_t* x, size_t n) {
  return o + n <= x || x + n <= o;
}

// How a 16-bit float kernel writes its fp32 results (Switches::saturate off or on): `lim` is +Inf
// or max of T, `nan` the fp32 value a NaN lane is written as (the canonical NaN, which rounds to
// T's canonical NaN, or +0). A lane needs Fix exactly when !(|v| <= lim): a NaN, or (saturating)
// beyond ±max. Clamping to ±max before the rounding is the rule "±Inf after rounding -> ±max":
// rounding is monotone and max is a value of T, so a value beyond ±max rounds to ±max or ±Inf.
struct HalfOut {
  hn::Vec<DF> lim, nlim, nan;
  HWY_INLINE HalfOut(bool sat, bool bf16) {
    const DF df;
    const DU32 du;
    lim = sat ? hn::BitCast(df, hn::Set(du, bf16 ? 0x7F7F0000u : 0x477FE000u))  // 65504
              : hn::Set(df, std::numeric_limits<float>::infinity());
    nlim = hn::Neg(lim);
    nan = sat ? hn::Zero(df) : hn::BitCast(df, hn::Set(du, 0x7FC00000u));
  }
  HWY_INLINE auto Ok(hn::Vec<DF> v) const { return hn::Le(hn::Abs(v), lim); }
  HWY_INLINE hn::Vec<DF> Fix(hn::Vec<DF> v) const {
    return hn::IfThenElse(hn::IsNaN(v), nan, hn::Min(hn::Max(v, nlim), lim));
  }
};

// The stores of a 16-bit float kernel: f(i) gives the fp32 results of lanes [i, i + N); two
// vectors a step, tested once (the common case writes them as they are), then single vectors
// (always fixed), then the tail lane by lane with one(j) -> o[j].
// fp16: the rounded codes are tested instead of the fp32 values (one test for both vectors, and
// one store): a code with the exponent bits all ones (±Inf or NaN) is where Fix can change
// anything — a NaN lane, or (saturating) |v| >= 65520, which rounds to ±Inf; values in
// (65504, 65520) round to ±65504 as Fix's clamp does. Other lanes are final as rounded.
// When the results do not overlap the inputs (`defer`), blocks of kBlock pairs are stored as
// rounded with only a running maximum of their magnitude codes, and a block that reached the
// exponent all ones is recomputed pair by pair with the test (f reads the unchanged inputs).
template <bool kBf16, class F, class One>
HWY_INLINE void HalfStores(const HalfOut& h, uint16_t* o, size_t n, F&& f, One&& one,
                           bool defer = false) {
  const DF df;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  if constexpr (!kBf16) {
    const hn::Twice<DU16> d2;
    const auto exp = hn::Set(d2, uint16_t(0x7C00));
    const auto mag = hn::Set(d2, uint16_t(0x7FFF));
    constexpr size_t kBlock = 16;
    if (defer) {
      for (; i + 2 * N * kBlock <= n; i += 2 * N * kBlock) {
        auto top = hn::Zero(d2);
        for (size_t j = i; j < i + 2 * N * kBlock; j += 2 * N) {
          const auto c = hn::Combine(d2, F16Codes(f(j + N)), F16Codes(f(j)));
          top = hn::Max(top, hn::And(c, mag));
          hn::StoreU(c, d2, o + j);
        }
        const hn::RebindToSigned<decltype(d2)> ds;  // magnitudes: positive as int16
        if (HWY_LIKELY(hn::AllFalse(ds, hn::Gt(hn::BitCast(ds, top), hn::Set(ds, int16_t(0x7BFF))))))
          continue;
        for (size_t j = i; j < i + 2 * N * kBlock; j += 2 * N)
          hn::StoreU(hn::Combine(d2, F16Codes(h.Fix(f(j + N))), F16Codes(h.Fix(f(j)))), d2, o + j);
      }
    }
    for (; i + 2 * N <= n; i += 2 * N) {
      const auto r0 = f(i), r1 = f(i + N);
      auto c = hn::Combine(d2, F16Codes(r1), F16Codes(r0));
      if (HWY_UNLIKELY(!hn::AllFalse(d2, hn::Eq(hn::And(c, exp), exp))))
        c = hn::Combine(d2, F16Codes(h.Fix(r1)), F16Codes(h.Fix(r0)));
      hn::StoreU(c, d2, o + i);
    }
  }
  for (; i + 2 * N <= n; i += 2 * N) {
    auto r0 = f(i), r1 = f(i + N);
    if (HWY_UNLIKELY(!hn::AllTrue(df, hn::And(h.Ok(r0), h.Ok(r1))))) {
      r0 = h.Fix(r0);
      r1 = h.Fix(r1);
    }
    NarrowRaw<kBf16>(r0, o + i);
    NarrowRaw<kBf16>(r1, o + i + N);
  }
  for (; i + N <= n; i += N) NarrowRaw<kBf16>(h.Fix(f(i)), o + i);
  for (; i < n; ++i) o[i] = one(i);
}

// Division of exactly widened fp16/bf16 values for HalfBinary and HalfRoot (recip). AVX3: vdivps
// bound those loops (one zmm per ~10 cycles), so q0 = x * rcp14(y) (relative error d <= 2^-13),
// e = x - y * q0 (fused: exact, ~20 significant bits; for a bf16 dividend below ~2^-113 an fp32
// subnormal rounded at 2^-149, which stays well inside the margin below as the exponents of y and
// the midpoint sum to at least -149) and q1 = q0 + e * rcp14(y) (fused), whose
// error is |d * 2^-14| + half an fp32 ulp < 0.57 * 2^-23 of x / y. A quotient of codes with p-bit
// significands that is not a midpoint of T lies at least 1 / (Y * M) >= 2^-23 (fp16: Y < 2^11,
// M < 2^12 the midpoint's significand; bf16 2^-17) of itself from every midpoint, and one that is
// exactly representable comes out exact: q1 rounds to the same code of T as vdivps's result, for
// every pair of finite non-zero codes whose quotient is a normal fp32. The other lanes (x or y
// ±0, ±Inf or NaN; a bf16 quotient out of fp32's normal range) give q1 zero, infinite, NaN or
// subnormal, and then the vector takes vdivps. docs/ops.md, "Intel host".
template <class V>
HWY_INLINE V HalfDiv(V x, V y) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (hn::MaxLanes(DF()) == 16) {
    const __m512 a = x.raw, b = y.raw, r = _mm512_rcp14_ps(b), q0 = _mm512_mul_ps(a, r);
    const __m512 q1 = _mm512_fmadd_ps(_mm512_fnmadd_ps(b, q0, a), r, q0);
    // vfpclassps: QNaN 0x01, ±0 0x06, ±Inf 0x18, subnormal 0x20, SNaN 0x80.
    if (HWY_LIKELY(_mm512_fpclass_ps_mask(q1, 0xBF) == 0)) return V{q1};
  }
#endif
  return hn::Div(x, y);
}

template <Op op, Mode m, bool kBf16>
HWY_NOINLINE void HalfBinary(const void* a, size_t as, const void* b, size_t bs, float s, void* d,
                             size_t ds, size_t rows, size_t n, bool sat) {
  const DF df;
  const auto vs = hn::Set(df, s);
  const DType t = kBf16 ? DType::bf16 : DType::fp16;
  const uint64_t sc = kBf16 ? formats::f32_to_bf16(s) : formats::f32_to_f16(s);
  const HalfOut h(sat, kBf16);
  for (size_t r = 0; r < rows; ++r) {
    const uint16_t* x = Row<uint16_t>(a, as, r);
    const uint16_t* y = m == kTT ? Row<uint16_t>(b, bs, r) : nullptr;
    uint16_t* o = RowW<uint16_t>(d, ds, r);
    HalfStores<kBf16>(
        h, o, n,
        [&](size_t i) HWY_ATTR {  // max/min make a NaN canonical here; HalfOut fixes it
          const auto f = [](auto u, auto v) HWY_ATTR {
            if constexpr (op == Op::div) return HalfDiv(u, v);
            else return F32Op<op>(u, v);
          };
          const auto vx = Widen<kBf16>(x + i);
          if constexpr (m == kTT) return f(vx, Widen<kBf16>(y + i));
          else if constexpr (m == kTS) return f(vx, vs);
          else return f(vs, vx);
        },
        [&](size_t i) {
          const uint64_t yc = m == kTT ? y[i] : sc;
          const uint64_t c = m == kST ? eval(op, t, yc, x[i]) : eval(op, t, x[i], yc);
          return uint16_t(sat ? saturate_code(t, c) : c);
        },
        Disjoint(o, x, n) && (m != kTT || Disjoint(o, y, n)));
  }
}

// sqrt of exactly widened fp16/bf16 values for HalfRoot. AVX3: vsqrtps bound the loop, so
// s = x * rsqrt14(x) with one Newton step, s + (r / 2)(x - s * s) (fused residual), whose
// relative error (~2^-24) keeps it on the same side of every midpoint of T as the exact root: it
// rounds to the same code as vsqrtps's result for every positive finite code (tests/ops checks all
// 65536 codes of both formats on every target). The other classes come out NaN there (0 * Inf,
// Inf * 0, rsqrt of a negative); one vfixupimmps puts sqrt's values back by the class of x:
// ±0, +Inf and NaN give x (a NaN made canonical by HalfOut), -Inf and negative values the default
// NaN. (Masks from vfpclassps cost more than the saved vsqrtps on Zen 5.) Half Sqrt 64 Ki: 6.0 ->
// 4.7 us in isolation.
template <bool kBf16>
HWY_INLINE hn::Vec<DF> HalfSqrt(hn::Vec<DF> v) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (hn::MaxLanes(DF()) == 16) {
    const __m512 x = v.raw, r = _mm512_rsqrt14_ps(x), s = _mm512_mul_ps(x, r);
    const __m512 e = _mm512_fnmadd_ps(s, s, x);
    const __m512 q = _mm512_fmadd_ps(_mm512_mul_ps(r, _mm512_set1_ps(0.5f)), e, s);
    // Responses by the class of x, 4 bits each from QNaN (bits 0-3) up: QNaN -> x (1), SNaN ->
    // x quietened (2), ±0 -> x, 1.0 -> q (0), -Inf -> default NaN (3), +Inf -> x, negative ->
    // default NaN, positive -> q.
    constexpr int kTable = 1 | 2 << 4 | 1 << 8 | 0 << 12 | 3 << 16 | 1 << 20 | 3 << 24 | 0 << 28;
    return hn::Vec<DF>{_mm512_fixupimm_ps(q, x, _mm512_set1_epi32(kTable), 0)};
  }
#endif
  return hn::Sqrt(v);
}

// fp16/bf16 sqrt and recip: the fp32 operation (HalfSqrt, vdivps) on the exactly widened value,
// rounded once to T. That is the correctly rounded result spec 15 asks for: rounding to fp32
// (p' = 24 bits) and then to T (p = 11 for fp16, 8 for bf16) equals one rounding of the exact
// value whenever p' >= 2p + 2, for + - * / and sqrt (S. A. Figueroa, "When is double rounding
// innocuous?", ACM SIGNUM Newsletter 30(3), 1995). math_f16/math_bf16 (the definition) compute it
// the same way in scalar code; tests/ops checks all 65536 codes on every target.
template <Op op, bool kBf16>
HWY_NOINLINE void HalfRoot(const void* a, size_t as, void* d, size_t ds, size_t rows, size_t n,
                           bool sat) {
  const DF df;
  const auto one = hn::Set(df, 1.0f);
  const DType t = kBf16 ? DType::bf16 : DType::fp16;
  const HalfOut h(sat, kBf16);
  for (size_t r = 0; r < rows; ++r) {
    const uint16_t* x = Row<uint16_t>(a, as, r);
    uint16_t* o = RowW<uint16_t>(d, ds, r);
    HalfStores<kBf16>(
        h, o, n,
        [&](size_t i) HWY_ATTR {
          const auto v = Widen<kBf16>(x + i);
          return op == Op::sqrt ? HalfSqrt<kBf16>(v) : HalfDiv(one, v);
        },
        [&](size_t i) {
          const uint64_t c = eval(op, t, x[i]);
          return uint16_t(sat ? saturate_code(t, c) : c);
        },
        Disjoint(o, x, n));
  }
}
#endif

// The saturation rule on 16-bit float codes (Switches::saturate): ±Inf -> ±max, NaN -> +0.
template <class V>
HWY_INLINE V SatCodes(V c, bool bf16) {
  const hn::DFromV<V> du;
  const hn::RebindToSigned<decltype(du)> di;
  const auto mag = hn::BitCast(di, hn::And(c, hn::Set(du, uint16_t(0x7FFF))));
  const auto inf = hn::Set(di, int16_t(bf16 ? 0x7F80 : 0x7C00));
  const auto to_max = hn::Sub(c, hn::Set(du, uint16_t(1)));  // ±Inf - 1 = ±max
  c = hn::IfThenElse(hn::RebindMask(du, hn::Eq(mag, inf)), to_max, c);
  return hn::IfThenElse(hn::RebindMask(du, hn::Gt(mag, inf)), hn::Zero(du), c);
}

// fp16/bf16 abs, neg and relu on the codes: the sign bit cleared / flipped / a negative or -0
// code made +0 (signed 16-bit max with 0), a NaN made canonical (spec 15 §1) or, saturating, +0
// and ±Inf ±max — no widening needed. A vector with a NaN (or, saturating, an Inf) code is
// redone with those rules; the others are stored as computed.
template <Op op, bool kBf16>
HWY_NOINLINE void HalfSign(const void* a, size_t as, void* d, size_t ds, size_t rows, size_t n,
                           bool sat) {
  const hn::ScalableTag<uint16_t> du;
  const hn::RebindToSigned<decltype(du)> di;
  const size_t N = hn::Lanes(du);
  const auto mag_mask = hn::Set(du, uint16_t(0x7FFF));
  const auto inf = hn::Set(di, int16_t(kBf16 ? 0x7F80 : 0x7C00));
  // |code| > ok_max: a NaN, or (saturating) an Inf too
  const auto ok_max = hn::Set(di, int16_t((kBf16 ? 0x7F80 : 0x7C00) - (sat ? 1 : 0)));
  const auto qnan = hn::Set(du, uint16_t(kBf16 ? 0x7FC0 : 0x7E00));
  const auto sign = hn::Set(du, uint16_t(0x8000));
  const DType t = kBf16 ? DType::bf16 : DType::fp16;
  for (size_t r = 0; r < rows; ++r) {
    const uint16_t* x = Row<uint16_t>(a, as, r);
    uint16_t* o = RowW<uint16_t>(d, ds, r);
    size_t i = 0;
    for (; i + N <= n; i += N) {
      const auto v = hn::LoadU(du, x + i);
      const auto mag = hn::BitCast(di, hn::And(v, mag_mask));
      hn::Vec<decltype(du)> res;
      if constexpr (op == Op::abs) res = hn::BitCast(du, mag);
      else if constexpr (op == Op::neg) res = hn::Xor(v, sign);
      else res = hn::BitCast(du, hn::Max(hn::BitCast(di, v), hn::Zero(di)));  // relu
      if (HWY_UNLIKELY(!hn::AllFalse(di, hn::Gt(mag, ok_max)))) {
        res = hn::IfThenElse(hn::RebindMask(du, hn::Gt(mag, inf)), qnan, res);
        if (sat) res = SatCodes(res, kBf16);
      }
      hn::StoreU(res, du, o + i);
    }
    for (; i < n; ++i) {
      const uint64_t c = eval(op, t, x[i]);
      o[i] = uint16_t(sat ? saturate_code(t, c) : c);
    }
  }
}

// Switches::saturate over n 16-bit float codes in place.
HWY_NOINLINE void SaturateCodes(uint16_t* p, size_t n, bool bf16) {
  const hn::ScalableTag<uint16_t> du;
  const size_t N = hn::Lanes(du);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(SatCodes(hn::LoadU(du, p + i), bf16), du, p + i);
  const DType t = bf16 ? DType::bf16 : DType::fp16;
  for (; i < n; ++i) p[i] = uint16_t(saturate_code(t, p[i]));
}

// fp16/bf16 max and min on the codes: order keys k = c ^ ((c >> 15) & 0x7FFF) (signed 16-bit,
// their own inverse) order like the values with -0 just below +0, so the larger / smaller key is
// the definition's result — max(-0, +0) = +0 and min = -0 as its bitwise rule for equal values
// says, and other equal values have equal codes. A vector with a NaN operand (or, saturating, an
// Inf) is redone with the rules: NaN in -> canonical NaN (saturating: +0), then the saturation.
template <Op op, Mode m, bool kBf16>
HWY_NOINLINE void HalfMaxMin(const void* a, size_t as, const void* b, size_t bs, uint16_t s,
                             void* d, size_t ds, size_t rows, size_t n, bool sat) {
  const hn::ScalableTag<int16_t> di;
  const size_t N = hn::Lanes(di);
  const auto mag_mask = hn::Set(di, int16_t(0x7FFF));
  const auto inf = hn::Set(di, int16_t(kBf16 ? 0x7F80 : 0x7C00));
  const auto ok_max = hn::Set(di, int16_t((kBf16 ? 0x7F80 : 0x7C00) - (sat ? 1 : 0)));
  const auto qnan = hn::Set(di, int16_t(kBf16 ? 0x7FC0 : 0x7E00));
  const hn::RebindToUnsigned<decltype(di)> du;
  auto key = [&](hn::Vec<decltype(di)> c) HWY_ATTR {
    return hn::Xor(c, hn::And(hn::ShiftRight<15>(c), mag_mask));
  };
  const DType t = kBf16 ? DType::bf16 : DType::fp16;
  const auto vs = hn::Set(di, int16_t(s));
  const auto ks = key(vs);
  for (size_t r = 0; r < rows; ++r) {
    const int16_t* x = Row<int16_t>(a, as, r);
    const int16_t* y = m == kTT ? Row<int16_t>(b, bs, r) : nullptr;
    int16_t* o = RowW<int16_t>(d, ds, r);
    size_t i = 0;
    for (; i + N <= n; i += N) {
      const auto vx = hn::LoadU(di, x + i);
      const auto vy = m == kTT ? hn::LoadU(di, y + i) : vs;
      const auto kx = key(vx), ky = m == kTT ? key(vy) : ks;
      auto res = key(op == Op::max ? hn::Max(kx, ky) : hn::Min(kx, ky));
      const auto mx = hn::And(vx, mag_mask), my = hn::And(vy, mag_mask);
      if (HWY_UNLIKELY(!hn::AllFalse(di, hn::Gt(hn::Max(mx, my), ok_max)))) {
        res = hn::IfThenElse(hn::Or(hn::Gt(mx, inf), hn::Gt(my, inf)), qnan, res);
        if (sat) res = hn::BitCast(di, SatCodes(hn::BitCast(du, res), kBf16));
      }
      hn::StoreU(res, di, o + i);
    }
    for (; i < n; ++i) {
      const uint64_t xc = uint16_t(x[i]), yc = m == kTT ? uint16_t(y[i]) : s;
      const uint64_t c = m == kST ? eval(op, t, yc, xc) : eval(op, t, xc, yc);
      o[i] = int16_t(uint16_t(sat ? saturate_code(t, c) : c));
    }
  }
}

// n elements of `bytes` bytes, each the code's low bytes: whole vectors of the repeated code,
// then the tail (scalar: Highway 1.0.3's BlendedStore of 8/16-bit lanes on AVX2 loads and stores
// the whole vector, past the end of the row).
template <class T>
HWY_INLINE void FillRun(T* p, T v, size_t n) {
  const hn::ScalableTag<T> dt;
  const size_t N = hn::Lanes(dt);
  const auto vv = hn::Set(dt, v);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    hn::StoreU(vv, dt, p + i);
    hn::StoreU(vv, dt, p + i + N);
    hn::StoreU(vv, dt, p + i + 2 * N);
    hn::StoreU(vv, dt, p + i + 3 * N);
  }
  for (; i + N <= n; i += N) hn::StoreU(vv, dt, p + i);
  for (; i < n; ++i) p[i] = v;
}

// Row r (p + r * ds bytes) gets n copies of the code at codes + r * cs bytes, read just before.
template <class T>
HWY_NOINLINE void FillRowCodes(void* p, size_t ds, const void* codes, size_t cs, size_t rows,
                               size_t n) {
  for (size_t r = 0; r < rows; ++r) {
    T v;
    std::memcpy(&v, static_cast<const uint8_t*>(codes) + r * cs, sizeof(T));
    FillRun(RowW<T>(p, ds, r), v, n);
  }
}

// ---- integers ----
template <Op op, class T>
constexpr bool IntBinaryHasKernel() {
  if constexpr (op == Op::add || op == Op::sub || op == Op::band || op == Op::bor ||
                op == Op::bxor)
    return true;
  else if constexpr (op == Op::max || op == Op::min)
    return sizeof(T) <= 4;
  else if constexpr (op == Op::mul)
    return sizeof(T) == 2 || sizeof(T) == 4;
  else
    return false;
}

template <Op op, class V>
HWY_INLINE V IntOp(V a, V b) {
  if constexpr (op == Op::add) return hn::Add(a, b);
  else if constexpr (op == Op::sub) return hn::Sub(a, b);
  else if constexpr (op == Op::mul) return hn::Mul(a, b);
  else if constexpr (op == Op::max) return hn::Max(a, b);
  else if constexpr (op == Op::min) return hn::Min(a, b);
  else if constexpr (op == Op::band) return hn::And(a, b);
  else if constexpr (op == Op::bor) return hn::Or(a, b);
  else return hn::Xor(a, b);
}

template <Op op, Mode m, class T>
HWY_NOINLINE void IntBinary(const void* a, size_t as, const void* b, size_t bs, T s, void* d,
                            size_t ds, size_t rows, size_t n) {
  const hn::ScalableTag<T> dt;
  const size_t N = hn::Lanes(dt);
  const auto vs = hn::Set(dt, s);
  for (size_t r = 0; r < rows; ++r) {
    const T* x = Row<T>(a, as, r);
    const T* y = m == kTT ? Row<T>(b, bs, r) : nullptr;
    T* o = RowW<T>(d, ds, r);
    size_t i = 0;
    for (; i + N <= n; i += N) {
      const auto vx = hn::LoadU(dt, x + i);
      if constexpr (m == kTT) hn::StoreU(IntOp<op>(vx, hn::LoadU(dt, y + i)), dt, o + i);
      else if constexpr (m == kTS) hn::StoreU(IntOp<op>(vx, vs), dt, o + i);
      else hn::StoreU(IntOp<op>(vs, vx), dt, o + i);
    }
    for (; i < n; ++i) {
      const T yv = m == kTT ? y[i] : s;
      o[i] = m == kST ? def::integer<op, T>(yv, x[i]) : def::integer<op, T>(x[i], yv);
    }
  }
}

template <Op op, class T>
HWY_NOINLINE void IntUnary(const void* a, size_t as, void* d, size_t ds, size_t rows, size_t n) {
  const hn::ScalableTag<T> dt;
  const size_t N = hn::Lanes(dt);
  for (size_t r = 0; r < rows; ++r) {
    const T* x = Row<T>(a, as, r);
    T* o = RowW<T>(d, ds, r);
    size_t i = 0;
    for (; i + N <= n; i += N) {
      const auto v = hn::LoadU(dt, x + i);
      hn::Vec<decltype(dt)> res;
      if constexpr (op == Op::bnot) res = hn::Not(v);
      else if constexpr (op == Op::neg) res = hn::Sub(hn::Zero(dt), v);  // wraps: -MIN = MIN
      else if constexpr (op == Op::abs) {
        if constexpr (hwy::IsSigned<T>())
          res = hn::IfThenElse(hn::Lt(v, hn::Zero(dt)), hn::Sub(hn::Zero(dt), v), v);
        else
          res = v;
      } else {  // relu
        if constexpr (hwy::IsSigned<T>())
          res = hn::IfThenElse(hn::Gt(v, hn::Zero(dt)), v, hn::Zero(dt));
        else
          res = v;
      }
      hn::StoreU(res, dt, o + i);
    }
    for (; i < n; ++i) o[i] = def::integer_unary<op, T>(x[i]);
  }
}

// ---- compare: packed bits, bit j of byte j/8 = predicate j (LSB first) ----
template <Op op, class V>
HWY_INLINE auto CmpMask(V a, V b) {
  if constexpr (op == Op::eq) return hn::Eq(a, b);
  // IEEE: NaN != x is true. Highway 1.0.3's float Ne is the ordered compare (false for NaN), so
  // ne is the negation of Eq.
  else if constexpr (op == Op::ne) return hn::Not(hn::Eq(a, b));
  else if constexpr (op == Op::lt) return hn::Lt(a, b);
  else if constexpr (op == Op::gt) return hn::Gt(a, b);
  // Highway 1.0.3 has no integer Le/Ge on every target; for integers they are the negations.
  else if constexpr (std::is_floating_point_v<hn::TFromV<V>>)
    return op == Op::le ? hn::Le(a, b) : hn::Ge(a, b);
  else if constexpr (op == Op::le) return hn::Not(hn::Gt(a, b));
  else return hn::Not(hn::Lt(a, b));
}

// The walk of a packed-bits compare of rows of T codes: each whole vector of d's lanes as
// mask(x + i, y + i) (y null for a scalar operand) stored at o + i / 8, the tail bit by bit as
// pred(x[j], y + j or null); bits past n stay 0.
template <class T, class D, class Mask, class Pred>
HWY_INLINE void BitsRows(D d, const void* a, size_t as, const void* b, size_t bs, bool b_scalar,
                         uint8_t* out, size_t os, size_t rows, size_t n, Mask&& mask,
                         Pred&& pred) {
  const size_t N = hn::Lanes(d);
  for (size_t r = 0; r < rows; ++r) {
    const T* x = Row<T>(a, as, r);
    const T* y = b_scalar ? nullptr : Row<T>(b, bs, r);
    uint8_t* o = out + r * os;
    size_t i = 0;
    for (; i + N <= n; i += N) hn::StoreMaskBits(d, mask(x + i, y ? y + i : nullptr), o + i / 8);
    if (i == n) continue;
    std::memset(o + i / 8, 0, (n - i + 7) / 8);
    for (size_t j = i; j < n; ++j)
      if (pred(x[j], y ? y + j : nullptr)) o[j / 8] |= uint8_t(1u << (j % 8));
  }
}

// Lanes of a vector of T give a whole number of bytes of bits only from 8 lanes on.
template <Op op, class T>
HWY_NOINLINE bool CompareBits(const void* a, size_t as, const void* b, size_t bs, bool b_scalar,
                              T s, uint8_t* out, size_t os, size_t rows, size_t n) {
  const hn::ScalableTag<T> dt;
  const size_t N = hn::Lanes(dt);
  if (N < 8 || N % 8 != 0) return false;
  const auto vs = hn::Set(dt, s);
  BitsRows<T>(
      dt, a, as, b, bs, b_scalar, out, os, rows, n,
      [&](const T* x, const T* y) HWY_ATTR {
        return CmpMask<op>(hn::LoadU(dt, x), y ? hn::LoadU(dt, y) : vs);
      },
      [&](T xv, const T* y) {
        const T yv = y ? *y : s;
        if constexpr (std::is_floating_point_v<T>) return def::fcompare<op>(xv, yv);
        else return def::icompare<op, T>(xv, yv);
      });
  return true;
}

#if HWY_TARGET <= HWY_AVX2
// fp16/bf16 compares on the exactly widened values (the definition: compare in fp32), 8 or 16
// lanes a vector, so whole bytes of bits (full vectors here: the mask stores favour them).
template <Op op, bool kBf16>
HWY_NOINLINE void HalfCompareBits(const void* a, size_t as, const void* b, size_t bs,
                                  bool b_scalar, float s, uint8_t* out, size_t os, size_t rows,
                                  size_t n) {
  using D = hn::ScalableTag<float>;
  const D df;
  const auto vs = hn::Set(df, s);
  auto widen1 = [](uint16_t c) { return kBf16 ? formats::bf16_to_f32(c) : formats::f16_to_f32(c); };
  BitsRows<uint16_t>(
      df, a, as, b, bs, b_scalar, out, os, rows, n,
      [&](const uint16_t* x, const uint16_t* y) HWY_ATTR {
        return CmpMask<op>(Widen<kBf16, D>(x), y ? Widen<kBf16, D>(y) : vs);
      },
      [&](uint16_t xv, const uint16_t* y) {
        return def::fcompare<op>(widen1(xv), y ? widen1(*y) : s);
      });
}
#endif

// ---- select by packed bits: d = bit ? a : b (moves bits) ----
template <class T>
HWY_NOINLINE bool SelectBits(const uint8_t* bits, size_t bits_stride, const void* a, size_t as,
                             const void* b, size_t bs, bool b_scalar, T s, void* d, size_t ds,
                             size_t rows, size_t n) {
  const hn::ScalableTag<T> dt;
  const size_t N = hn::Lanes(dt);
  if (N < 8 || N % 8 != 0) return false;
  const auto vs = hn::Set(dt, s);
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* m = bits + r * bits_stride;
    const T* x = Row<T>(a, as, r);
    const T* y = b_scalar ? nullptr : Row<T>(b, bs, r);
    T* o = RowW<T>(d, ds, r);
    size_t i = 0;
    for (; i + N <= n; i += N) {
      const auto mask = hn::LoadMaskBits(dt, m + i / 8);
      hn::StoreU(hn::IfThenElse(mask, hn::LoadU(dt, x + i), b_scalar ? vs : hn::LoadU(dt, y + i)),
                 dt, o + i);
    }
    for (; i < n; ++i) o[i] = ((m[i / 8] >> (i % 8)) & 1) ? x[i] : (b_scalar ? s : y[i]);
  }
  return true;
}

template <class F>
HWY_INLINE bool ForIntType(DType t, F&& f) {
  switch (t) {
    case DType::s8: return f(int8_t{});
    case DType::s16: return f(int16_t{});
    case DType::s32: return f(int32_t{});
    case DType::s64: return f(int64_t{});
    case DType::u8: return f(uint8_t{});
    case DType::u16: return f(uint16_t{});
    case DType::u32: return f(uint32_t{});
    case DType::u64: return f(uint64_t{});
    default: return false;
  }
}

template <class T>
HWY_INLINE T CodeAs(uint64_t c) {
  T v;
  std::memcpy(&v, &c, sizeof(T));  // little-endian: the low bytes of the code
  return v;
}

template <Mode m>
bool BinaryMode(Op op, DType t, const Rows2& g, uint64_t s, bool sat) {
  if (t == DType::fp32) {
    const float fs = CodeAs<float>(s);
    switch (op) {
#define TILESIM_K(o) \
  case Op::o: F32Binary<Op::o, m>(g.a, g.as, g.b, g.bs, fs, g.d, g.ds, g.rows, g.n); return true;
      TILESIM_K(add) TILESIM_K(sub) TILESIM_K(mul) TILESIM_K(div) TILESIM_K(max) TILESIM_K(min)
#undef TILESIM_K
      default: return false;
    }
  }
  if ((t == DType::fp16 || t == DType::bf16) && (op == Op::max || op == Op::min)) {
    const bool bf = t == DType::bf16;
    const uint16_t hs = uint16_t(s);
    if (op == Op::max)
      bf ? HalfMaxMin<Op::max, m, true>(g.a, g.as, g.b, g.bs, hs, g.d, g.ds, g.rows, g.n, sat)
         : HalfMaxMin<Op::max, m, false>(g.a, g.as, g.b, g.bs, hs, g.d, g.ds, g.rows, g.n, sat);
    else
      bf ? HalfMaxMin<Op::min, m, true>(g.a, g.as, g.b, g.bs, hs, g.d, g.ds, g.rows, g.n, sat)
         : HalfMaxMin<Op::min, m, false>(g.a, g.as, g.b, g.bs, hs, g.d, g.ds, g.rows, g.n, sat);
    return true;
  }
#if HWY_TARGET <= HWY_AVX2  // F16C: targets below take the chunked fp32 route
  if (t == DType::fp16 || t == DType::bf16) {
    const float fs = t == DType::fp16 ? formats::f16_to_f32(uint16_t(s))
                                      : formats::bf16_to_f32(uint16_t(s));
    const bool bf = t == DType::bf16;
    switch (op) {
#define TILESIM_K(o)                                                                         \
  case Op::o:                                                                                \
    if (bf) HalfBinary<Op::o, m, true>(g.a, g.as, g.b, g.bs, fs, g.d, g.ds, g.rows, g.n, sat); \
    else HalfBinary<Op::o, m, false>(g.a, g.as, g.b, g.bs, fs, g.d, g.ds, g.rows, g.n, sat);   \
    return true;
      TILESIM_K(add) TILESIM_K(sub) TILESIM_K(mul) TILESIM_K(div)
#undef TILESIM_K
      default: return false;
    }
  }
#endif
  if (sat && (t == DType::fp16 || t == DType::bf16)) return false;
  return ForIntType(t, [&](auto v) -> bool {
    using T = decltype(v);
    const T ts = CodeAs<T>(s);
    switch (op) {
#define TILESIM_K(o)                                                            \
  case Op::o:                                                                   \
    if constexpr (IntBinaryHasKernel<Op::o, T>()) {                             \
      IntBinary<Op::o, m, T>(g.a, g.as, g.b, g.bs, ts, g.d, g.ds, g.rows, g.n); \
      return true;                                                              \
    }                                                                           \
    return false;
      TILESIM_K(add) TILESIM_K(sub) TILESIM_K(mul) TILESIM_K(max) TILESIM_K(min) TILESIM_K(band)
      TILESIM_K(bor) TILESIM_K(bxor)
#undef TILESIM_K
      default: return false;
    }
  });
}

bool BinaryImpl(Op op, DType t, const Rows2& g, bool b_scalar, uint64_t s, bool s_first, bool sat) {
  if (!b_scalar) return BinaryMode<kTT>(op, t, g, s, sat);
  return s_first ? BinaryMode<kST>(op, t, g, s, sat) : BinaryMode<kTS>(op, t, g, s, sat);
}

// Calls run(op constant, bf16 constant) for a 16-bit float kernel serving the ops o1, o2 (and o3).
template <Op o1, Op o2, Op o3 = o2, class F>
HWY_INLINE void HalfKernel(Op op, DType t, F&& run) {
  using B1 = std::true_type;
  using B0 = std::false_type;
  const bool bf = t == DType::bf16;
  if (op == o1) bf ? run(std::integral_constant<Op, o1>(), B1()) : run(std::integral_constant<Op, o1>(), B0());
  else if (op == o2) bf ? run(std::integral_constant<Op, o2>(), B1()) : run(std::integral_constant<Op, o2>(), B0());
  else bf ? run(std::integral_constant<Op, o3>(), B1()) : run(std::integral_constant<Op, o3>(), B0());
}

bool UnaryImpl(Op op, DType t, const Rows2& g, bool sat) {
  const bool half = t == DType::fp16 || t == DType::bf16;
  if (half && (op == Op::abs || op == Op::neg || op == Op::relu)) {
    HalfKernel<Op::abs, Op::neg, Op::relu>(op, t, [&](auto o, auto bf) {
      HalfSign<decltype(o)::value, decltype(bf)::value>(g.a, g.as, g.d, g.ds, g.rows, g.n, sat);
    });
    return true;
  }
#if HWY_TARGET <= HWY_AVX2  // F16C: targets below take the 65536-entry tables (math_array)
  if (half && (op == Op::sqrt || op == Op::recip)) {
    HalfKernel<Op::sqrt, Op::recip>(op, t, [&](auto o, auto bf) {
      HalfRoot<decltype(o)::value, decltype(bf)::value>(g.a, g.as, g.d, g.ds, g.rows, g.n, sat);
    });
    return true;
  }
#endif
  if (half && sat) return false;
  if (t == DType::fp32) {
    switch (op) {
      case Op::abs: F32Unary<Op::abs>(g.a, g.as, g.d, g.ds, g.rows, g.n); return true;
      case Op::neg: F32Unary<Op::neg>(g.a, g.as, g.d, g.ds, g.rows, g.n); return true;
      case Op::relu: F32Unary<Op::relu>(g.a, g.as, g.d, g.ds, g.rows, g.n); return true;
      default: return false;
    }
  }
  return ForIntType(t, [&](auto v) -> bool {
    using T = decltype(v);
    switch (op) {
      case Op::bnot: IntUnary<Op::bnot, T>(g.a, g.as, g.d, g.ds, g.rows, g.n); return true;
      case Op::neg: IntUnary<Op::neg, T>(g.a, g.as, g.d, g.ds, g.rows, g.n); return true;
      case Op::abs: IntUnary<Op::abs, T>(g.a, g.as, g.d, g.ds, g.rows, g.n); return true;
      case Op::relu: IntUnary<Op::relu, T>(g.a, g.as, g.d, g.ds, g.rows, g.n); return true;
      default: return false;
    }
  });
}

bool CompareImpl(Op op, DType t, const Rows2& g, bool b_scalar, uint64_t s) {
  auto run = [&](auto v) -> bool {
    using T = decltype(v);
    const T ts = CodeAs<T>(s);
    auto* out = static_cast<uint8_t*>(g.d);
    switch (op) {
#define TILESIM_K(o) \
  case Op::o: return CompareBits<Op::o, T>(g.a, g.as, g.b, g.bs, b_scalar, ts, out, g.ds, g.rows, g.n);
      TILESIM_K(eq) TILESIM_K(ne) TILESIM_K(lt) TILESIM_K(le) TILESIM_K(gt) TILESIM_K(ge)
#undef TILESIM_K
      default: return false;
    }
  };
  if (t == DType::fp32) return run(float{});
#if HWY_TARGET <= HWY_AVX2  // F16C: targets below widen in chunks (compare_row_fallback)
  if (t == DType::fp16 || t == DType::bf16) {
    const bool bf = t == DType::bf16;
    const float fs = bf ? formats::bf16_to_f32(uint16_t(s)) : formats::f16_to_f32(uint16_t(s));
    auto* out = static_cast<uint8_t*>(g.d);
    switch (op) {
#define TILESIM_K(o)                                                                              \
  case Op::o:                                                                                     \
    if (bf) HalfCompareBits<Op::o, true>(g.a, g.as, g.b, g.bs, b_scalar, fs, out, g.ds, g.rows, g.n); \
    else HalfCompareBits<Op::o, false>(g.a, g.as, g.b, g.bs, b_scalar, fs, out, g.ds, g.rows, g.n);  \
    return true;
      TILESIM_K(eq) TILESIM_K(ne) TILESIM_K(lt) TILESIM_K(le) TILESIM_K(gt) TILESIM_K(ge)
#undef TILESIM_K
      default: return false;
    }
  }
#endif
  if (t == DType::s64 || t == DType::u64) return false;  // 64-bit compares: the scalar loop
  return ForIntType(t, run);
}

bool SelectImpl(DType t, const uint8_t* bits, size_t bits_stride, const Rows2& g, bool b_scalar,
                uint64_t s) {
  switch (formats::info(t).storage_bits) {
    case 16: return SelectBits<uint16_t>(bits, bits_stride, g.a, g.as, g.b, g.bs, b_scalar, uint16_t(s), g.d, g.ds, g.rows, g.n);
    case 32: return SelectBits<uint32_t>(bits, bits_stride, g.a, g.as, g.b, g.bs, b_scalar, uint32_t(s), g.d, g.ds, g.rows, g.n);
    case 64: return SelectBits<uint64_t>(bits, bits_stride, g.a, g.as, g.b, g.bs, b_scalar, s, g.d, g.ds, g.rows, g.n);
    default: return false;
  }
}

bool SaturateImpl(DType t, void* p, size_t n) {
  if (t != DType::fp16 && t != DType::bf16) return false;
  SaturateCodes(static_cast<uint16_t*>(p), n, t == DType::bf16);
  return true;
}

bool NarrowImpl(DType t, const float* in, uint16_t* out, size_t n, bool sat) {
#if HWY_TARGET <= HWY_AVX2
  if (t != DType::fp16 && t != DType::bf16) return false;
  const DF df;
  const HalfOut h(sat, t == DType::bf16);
  auto run = [&](auto bf) HWY_ATTR {
    constexpr bool kBf16 = decltype(bf)::value;
    HalfStores<kBf16>(
        h, out, n, [&](size_t i) HWY_ATTR { return hn::LoadU(df, in + i); },
        [&](size_t i) {
          const uint64_t c = kBf16 ? formats::f32_to_bf16(in[i]) : formats::f32_to_f16(in[i]);
          return uint16_t(sat ? saturate_code(t, c) : c);
        });
  };
  if (t == DType::bf16) run(std::true_type());
  else run(std::false_type());
  return true;
#else
  (void)t, (void)in, (void)out, (void)n, (void)sat;
  return false;
#endif
}

bool FillRowsImpl(unsigned bytes, void* p, size_t ds, const void* codes, size_t cs, size_t rows,
                  size_t n) {
  switch (bytes) {
    case 1: FillRowCodes<uint8_t>(p, ds, codes, cs, rows, n); return true;
    case 2: FillRowCodes<uint16_t>(p, ds, codes, cs, rows, n); return true;
    case 4: FillRowCodes<uint32_t>(p, ds, codes, cs, rows, n); return true;
    case 8: FillRowCodes<uint64_t>(p, ds, codes, cs, rows, n); return true;
    default: return false;
  }
}

}  // namespace tilesim::ops::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::ops::simd {
HWY_EXPORT(BinaryImpl);
HWY_EXPORT(UnaryImpl);
HWY_EXPORT(CompareImpl);
HWY_EXPORT(SelectImpl);
HWY_EXPORT(SaturateImpl);
HWY_EXPORT(FillRowsImpl);
HWY_EXPORT(NarrowImpl);

bool binary(Op op, DType t, const Rows2& g, bool b_scalar, uint64_t s, bool scalar_first,
            bool sat) {
  if (t == DType::fp16 && f16_native_binary(op, g, b_scalar, s, scalar_first, sat)) return true;
  return HWY_DYNAMIC_DISPATCH(BinaryImpl)(op, t, g, b_scalar, s, scalar_first, sat);
}
bool unary(Op op, DType t, const Rows2& g, bool sat) {
  return HWY_DYNAMIC_DISPATCH(UnaryImpl)(op, t, g, sat);
}
bool saturate(DType t, void* p, size_t n) {
  return HWY_DYNAMIC_DISPATCH(SaturateImpl)(t, p, n);
}
bool fill(unsigned bytes, void* p, uint64_t code, size_t n) {  // one row of fill_rows
  return HWY_DYNAMIC_DISPATCH(FillRowsImpl)(bytes, p, 0, &code, 0, 1, n);
}
bool fill_rows(unsigned bytes, void* p, size_t ds, const void* codes, size_t cs, size_t rows,
               size_t n) {
  return HWY_DYNAMIC_DISPATCH(FillRowsImpl)(bytes, p, ds, codes, cs, rows, n);
}
bool narrow_f32(DType t, const float* in, uint16_t* out, size_t n, bool sat) {
  return HWY_DYNAMIC_DISPATCH(NarrowImpl)(t, in, out, n, sat);
}
bool compare_bits(Op op, DType t, const Rows2& g, bool b_scalar, uint64_t s) {
  return HWY_DYNAMIC_DISPATCH(CompareImpl)(op, t, g, b_scalar, s);
}
bool select_bits(DType t, const uint8_t* bits, size_t bits_stride, const Rows2& g, bool b_scalar,
                 uint64_t s) {
  return HWY_DYNAMIC_DISPATCH(SelectImpl)(t, bits, bits_stride, g, b_scalar, s);
}
}  // namespace tilesim::ops::simd
#endif
