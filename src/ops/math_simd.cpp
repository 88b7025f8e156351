// fp32 SIMD kernels of exp, ln, sqrt, rsqrt, recip (spec 15 §1), written once and compiled per
// Highway target (spec 70 "Highway"), bit-identical to math_f32 on every target.
// - sqrt, recip: the IEEE fp32 operation lane by lane (what math_f32 computes), NaN made canonical.
// - exp, ln, rsqrt: a double approximation y with a bound |y - v| <= 2^B |v| on its error to the
//   exact value v (B per kernel below), rounded to fp32 (RNE). For a normal fp32 result the
//   rounding drops the low 29 bits of y's significand; it can differ from v's rounding only if a
//   rounding boundary (a midpoint between two fp32 values: low 29 bits 2^28) lies between y and
//   v. So a lane whose low 29 bits are not within W double ulps of 2^28, with W >= 4x the bound
//   in ulps, is final; every other lane (near a midpoint, or an input outside the kernel's range:
//   subnormal or overflowing results, zeros, negatives, Inf, NaN) is redone by math_f32, the
//   definition. exp's exact +0 (x <= -104: e^x < 2^-150) and +Inf (x >= 89: e^x > FLT_MAX +
//   ulp/2) are set here, so masked softmax rows (-Inf) stay on the fast path.
// Without hardware FMA (SSE4, SSSE3, EMU128, SCALAR) MulAdd rounds twice; the bounds below
// include that. The error bounds are checked against MPFR by tests/ops (math_simd_approx_f64)
// and the results against math_f32 for all 2^32 inputs (OpsMathExhaustive in release builds).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/math_simd.cpp"
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

#include "ops/math_simd.hpp"
#include "ops/nan_simd-inl.h"

#include <bit>
#include <cmath>
#include <cstring>

#ifndef TILESIM_OPS_MATH_SIMD_TABLES
#define TILESIM_OPS_MATH_SIMD_TABLES
namespace tilesim::ops::math_simd {
// exp: bits(2^(j/16)) - (j << 48), as doubles (bit patterns; see ExpKernel). 2^(j/16) rounded to
// nearest double (checked against MPFR by tests/ops).
constexpr double from_bits(uint64_t b) {
  return std::bit_cast<double>(b);
}
alignas(64) inline constexpr double kExpU[16] = {
    from_bits(0x3ff0000000000000 - (0ull << 48)),  from_bits(0x3ff0b5586cf9890f - (1ull << 48)),
    from_bits(0x3ff172b83c7d517b - (2ull << 48)),  from_bits(0x3ff2387a6e756238 - (3ull << 48)),
    from_bits(0x3ff306fe0a31b715 - (4ull << 48)),  from_bits(0x3ff3dea64c123422 - (5ull << 48)),
    from_bits(0x3ff4bfdad5362a27 - (6ull << 48)),  from_bits(0x3ff5ab07dd485429 - (7ull << 48)),
    from_bits(0x3ff6a09e667f3bcd - (8ull << 48)),  from_bits(0x3ff7a11473eb0187 - (9ull << 48)),
    from_bits(0x3ff8ace5422aa0db - (10ull << 48)), from_bits(0x3ff9c49182a3f090 - (11ull << 48)),
    from_bits(0x3ffae89f995ad3ad - (12ull << 48)), from_bits(0x3ffc199bdd85529c - (13ull << 48)),
    from_bits(0x3ffd5818dcfba487 - (14ull << 48)), from_bits(0x3ffea4afa2a490da - (15ull << 48))};
// ln: for z in [0x3f330000 + i*2^19, +2^19) (fp32 bits, z in [0.699, 1.398)): invc ~ 1/centre
// with at most 29 significant bits (so z*invc is exact) and 1 for the interval holding 1, and
// logc = -ln(invc) rounded to nearest double (checked against MPFR by tests/ops).
alignas(64) inline constexpr double kLnInvc[16] = {
    0x1.661ec6ap+0, 0x1.571ed3cp+0, 0x1.49539e4p+0, 0x1.3c995a4p+0, 0x1.30d1901p+0, 0x1.25e2271p+0,
    0x1.1bb4a4p+0,  0x1.12358e7p+0, 0x1.0953f39p+0, 0x1p+0,         0x1.e573ac9p-1, 0x1.ca4b305p-1,
    0x1.b20364p-1,  0x1.9c2d14fp-1, 0x1.886e5f1p-1, 0x1.767dce4p-1};
alignas(64) inline constexpr double kLnLogc[16] = {-0x1.57bf752e0d1fbp-2, -0x1.2bef07bec9354p-2,
                                                   -0x1.01eae5716c691p-2, -0x1.b31d8543bce3dp-3,
                                                   -0x1.6574ebd44133ap-3, -0x1.1aa2b819bf72ap-3,
                                                   -0x1.a4e763cb1bc38p-4, -0x1.1973bcbd65567p-4,
                                                   -0x1.252f32f6d183fp-5, 0x0p+0,
                                                   0x1.b42dd713971bfp-5,  0x1.c5e5492abc743p-4,
                                                   0x1.526e5e5a1b438p-3,  0x1.bc28673a58cd6p-3,
                                                   0x1.1058bf8d24ad5p-2,  0x1.404308716a7e4p-2};
}  // namespace tilesim::ops::math_simd
#endif

HWY_BEFORE_NAMESPACE();
namespace tilesim::ops::math_simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DD = hn::ScalableTag<double>;
using DI = hn::RebindToSigned<DD>;
using DF = hn::ScalableTag<float>;  // full fp32 vectors: two double vectors each (one on SCALAR)
using DU = hn::RebindToUnsigned<DF>;
using VD = hn::Vec<DD>;
using VI = hn::Vec<DI>;
using VF = hn::Vec<DF>;
using VU = hn::Vec<DU>;
using MD = hn::Mask<DD>;
using MF = hn::Mask<DF>;
#if HWY_TARGET == HWY_SCALAR
using DH = DF;  // one fp32 lane, one double lane
#else
using DH = hn::Half<DF>;
#endif
#define TILESIM_AVX3 (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3)

// A 16-entry double table indexed by the low 4 bits of each lane of i.
#if TILESIM_AVX3
struct Lut16 {  // two registers, one vpermt2pd (it reads only the low 4 index bits)
  __m512d lo, hi;
  explicit Lut16(const double* t) : lo(_mm512_load_pd(t)), hi(_mm512_load_pd(t + 8)) {}
  HWY_INLINE VD operator()(VI i) const { return VD{_mm512_permutex2var_pd(lo, i.raw, hi)}; }
};
#else
struct Lut16 {
  const double* t;
  explicit Lut16(const double* p) : t(p) {}
  HWY_INLINE VD operator()(VI i) const {
    return hn::GatherIndex(DD(), t, hn::And(i, hn::Set(DI(), 15)));
  }
};
#endif

// Lanes of y (the double approximation) whose low 29 significand bits are not within W ulps of
// 2^28, i.e. of an fp32 midpoint: ((bits + W - 2^28) mod 2^29) >= 2W, some bit of [log2(2W), 29)
// set. (vptestmq on AVX-512: Highway's TestBit there is that instruction, any bit of the mask.)
template <int64_t W>
struct FarFromMidpoint {
  VI off = hn::Set(DI(), W - (int64_t(1) << 28)),
     bits = hn::Set(DI(), ((int64_t(1) << 29) - 1) & ~(2 * W - 1));
  FarFromMidpoint() {}  // user-provided, so it is compiled for this SIMD target
  HWY_INLINE MD operator()(VD y) const {
    const VI v = hn::Add(hn::BitCast(DI(), y), off);
#if TILESIM_AVX3
    return hn::RebindMask(DD(), hn::TestBit(v, bits));
#else
    return hn::RebindMask(DD(), hn::Ne(hn::And(v, bits), hn::Zero(DI())));
#endif
  }
#if TILESIM_AVX3
  // The same test under the mask m (vptestmq's own mask: the lanes outside m false).
  HWY_INLINE __mmask8 Masked(__mmask8 m, VD y) const {
    return _mm512_mask_test_epi64_mask(m, hn::Add(hn::BitCast(DI(), y), off).raw, bits.raw);
  }
#endif
};

// x's fp32 bits in [lo, hi] (unsigned): one subtraction and one compare.
HWY_INLINE MF BitsIn(VF x, uint32_t lo, uint32_t hi) {
  const DU du;
  const VU d = hn::Sub(hn::BitCast(du, x), hn::Set(du, lo));
  return hn::RebindMask(DF(), hn::Lt(d, hn::Set(du, hi - lo + 1)));
}

// e^x. k = round(16 x / ln2) by the 1.5*2^52 shifter (k in t's low bits), r = x - k*ln2/16
// (|r| <= ln2/32, up to a rounding of 16x/ln2 without FMA), e^x = 2^(k>>4) * 2^((k&15)/16) *
// e^r, the first two factors one table entry plus k << 48 (kExpU), e^r = 1 + r*g(r), g of degree
// 4 fitted at the Chebyshev nodes of [-ln2/32, ln2/32] (relative error 2^-46.6 with these double
// coefficients, measured at 200 bits). Errors: r is off by |k| * |ln2/16 - double| < 2^11 *
// 2^-58 plus, without FMA, the rounding of k*ln2/16 (< 2^-47); the table 2^-53; the evaluation a
// few 2^-53. Total < 2^-45: 2^8 ulps of y, W = 2^10. Range: |x| <= 87.3 (normal fp32 results).
struct ExpKernel {
  Lut16 lut{kExpU};
  VD shifter = hn::Set(DD(), 0x1.8p52), inv = hn::Set(DD(), 0x1.71547652b82fep4),
     ln2_16 = hn::Set(DD(), 0x1.62e42fefa39efp-5), c0 = hn::Set(DD(), 1.0),
     c1 = hn::Set(DD(), 0x1.fffffffe5bc58p-2), c2 = hn::Set(DD(), 0x1.55555554dd44bp-3),
     c3 = hn::Set(DD(), 0x1.55570aa826c45p-5), c4 = hn::Set(DD(), 0x1.11120af7211b8p-7);
  VF limit = hn::Set(DF(), 87.3f);
  FarFromMidpoint<int64_t(1) << 10> far;
  ExpKernel() {}  // user-provided, so it is compiled for this SIMD target

  HWY_INLINE VD Approx(VD x) const {
    const DI di;
    const VD t = hn::MulAdd(x, inv, shifter);
    const VD r = hn::NegMulAdd(hn::Sub(t, shifter), ln2_16, x);
    const VI tb = hn::BitCast(di, t);
    const VD scale = hn::BitCast(DD(), hn::Add(hn::BitCast(di, lut(tb)), hn::ShiftLeft<48>(tb)));
    VD q = hn::MulAdd(c4, r, c3);
    q = hn::MulAdd(q, r, c2);
    q = hn::MulAdd(q, r, c1);
    q = hn::MulAdd(q, r, c0);
    return hn::MulAdd(hn::Mul(scale, r), q, scale);
  }
  HWY_INLINE MF InRange(VF x) const { return hn::Le(hn::Abs(x), limit); }  // NaN: false
  // Exact results outside the range: +0 and +Inf (NaN fails both compares).
  HWY_INLINE MF Shortcut(VF x, VF& r) const {
    const DF df;
    const MF zero = hn::Le(x, hn::Set(df, -104.0f)), inf = hn::Ge(x, hn::Set(df, 89.0f));
    r = hn::IfThenElse(inf, hn::Set(df, HUGE_VALF), hn::IfThenZeroElse(zero, r));
    return hn::Or(zero, inf);
  }
};

// ln x for positive normal x. x = 2^k z with z in [0.699, 1.398) (integer steps on the bits, as
// in ARM's optimized-routines logf), z's interval i of 16 gives invc and logc (kLnInvc/kLnLogc),
// r = z*invc - 1 exactly (|r| <= 0.02963), ln x = k ln2 + logc + log1p(r), log1p(r) = r + r^2
// P(r), P of degree 5 fitted at the Chebyshev nodes (relative error 2^-43.5, 200 bits). Errors,
// relative to ln x: r = 0 at x = 1 (y = +0 exactly); for k = 0 and invc = 1, P's error and a few
// 2^-53; for k = 0 otherwise |ln x| >= 0.0197 and |logc| <= 0.36: 1.5 * 2^-43.5 + 18 * 2^-53; for
// k != 0 |ln x| >= 0.335, k*ln2 is off by < 2^7 * 2^-54: < 2^-45. Total < 2^-42.7: 2^10.3 ulps
// of y, W = 2^13 (7x). Range: positive normal fp32 x (the results are normal or x = 1).
struct LnKernel {
  Lut16 invc_t{kLnInvc}, logc_t{kLnLogc};
  VI off = hn::Set(DI(), int64_t(0x3FE6600000000000)),  // bits of 0.69921875 (fp32 0x3f330000)
      exp_mask = hn::Set(DI(), int64_t(0xFFF0000000000000ull)),
     shifter_bits = hn::Set(DI(), int64_t(0x4338000000000000));
  VD shifter = hn::Set(DD(), 0x1.8p52), one = hn::Set(DD(), 1.0),
     ln2 = hn::Set(DD(), 0x1.62e42fefa39efp-1), p0 = hn::Set(DD(), -0x1.0000000005d18p-1),
     p1 = hn::Set(DD(), 0x1.555555555fad7p-2), p2 = hn::Set(DD(), -0x1.fffff8b811db9p-3),
     p3 = hn::Set(DD(), 0x1.99999320bc229p-3), p4 = hn::Set(DD(), -0x1.55abb44c5d8e2p-3),
     p5 = hn::Set(DD(), 0x1.24df0fafe22f3p-3);
  FarFromMidpoint<int64_t(1) << 13> far;
  LnKernel() {}

  HWY_INLINE VD Approx(VD x) const {
    const DI di;
    const VI xb = hn::BitCast(di, x);
    const VI tmp = hn::Sub(xb, off);
    const VI k = hn::ShiftRight<52>(tmp);  // arithmetic
    const VI i = hn::ShiftRight<48>(tmp);  // the interval in the low 4 bits
    const VD z = hn::BitCast(DD(), hn::Sub(xb, hn::And(tmp, exp_mask)));
    const VD r = hn::MulSub(z, invc_t(i), one);  // exact (with or without FMA)
#if TILESIM_AVX3
    const VD kd = hn::ConvertTo(DD(), k);  // one vcvtqq2pd
#else
    const VD kd = hn::Sub(hn::BitCast(DD(), hn::Add(k, shifter_bits)), shifter);
#endif
    const VD hi_part = hn::MulAdd(kd, ln2, logc_t(i));
    VD p = hn::MulAdd(p5, r, p4);
    p = hn::MulAdd(p, r, p3);
    p = hn::MulAdd(p, r, p2);
    p = hn::MulAdd(p, r, p1);
    p = hn::MulAdd(p, r, p0);
    return hn::Add(hi_part, hn::MulAdd(hn::Mul(r, r), p, r));
  }
  HWY_INLINE MF InRange(VF x) const {
    return BitsIn(x, 0x00800000u, 0x7F7FFFFFu);
  }
  HWY_INLINE MF Shortcut(VF, VF&) const {
    return hn::FirstN(DF(), 0);
  }
};

// 1/sqrt(x), x positive finite (subnormals included: the results, 2^-64 .. 2^74.5, are normal).
// Portable: two correctly rounded double operations, relative error < 2^-53 + 2^-53 (1 + 2^-53).
// AVX-512: y0 = vrsqrt14pd(x) (relative error < 2^-14), e = 1 - (x y0) y0 (|e| < 2^-13 + 2^-28;
// the rounding of x y0 makes it off by < 2^-53), y = y0 + y0 e (1/2 + e (3/8 + e 5/16)), the
// series of (1 - e)^-1/2 whose remainder is < 0.28 e^4 < 2^-53.8; with the roundings relative
// error < 2^-51.5. Either way < 2^1.5 ulps of y, W = 2^4.
struct RsqrtKernel {
  VD one = hn::Set(DD(), 1.0), half = hn::Set(DD(), 0.5), c2 = hn::Set(DD(), 0.375),
     c3 = hn::Set(DD(), 0.3125);
  FarFromMidpoint<int64_t(1) << 4> far;
  RsqrtKernel() {}

  HWY_INLINE VD Approx(VD x) const {
#if TILESIM_AVX3
    const VD y0{_mm512_rsqrt14_pd(x.raw)};
    const VD e = hn::NegMulAdd(hn::Mul(x, y0), y0, one);
    const VD p = hn::MulAdd(hn::MulAdd(e, c3, c2), e, half);
    return hn::MulAdd(hn::Mul(y0, e), p, y0);
#else
    return hn::Div(one, hn::Sqrt(x));
#endif
  }
  HWY_INLINE MF InRange(VF x) const {
    return BitsIn(x, 0x00000001u, 0x7F7FFFFFu);
  }
  HWY_INLINE MF Shortcut(VF, VF&) const {
    return hn::FirstN(DF(), 0);
  }
};

// One fp32 vector: its rounded approximation, and which lanes are final: ok_lo/ok_hi for the
// double halves' windows, in for the input range.
template <class K>
HWY_INLINE VF Round(const K& k, VF x, MD& ok_lo, MD& ok_hi, MF& in) {
  const DD dd;
  in = k.InRange(x);
#if HWY_TARGET == HWY_SCALAR
  const VD y = k.Approx(hn::PromoteTo(dd, x));
  ok_lo = ok_hi = k.far(y);
  return hn::DemoteTo(DF(), y);
#else
  const DH dh;
  const VD y0 = k.Approx(hn::PromoteTo(dd, hn::LowerHalf(dh, x)));
  const VD y1 = k.Approx(hn::PromoteTo(dd, hn::UpperHalf(dh, x)));
  ok_lo = k.far(y0);
  ok_hi = k.far(y1);
  return hn::Combine(DF(), hn::DemoteTo(dh, y1), hn::DemoteTo(dh, y0));
#endif
}

// The lanes not final: the kernel's exact shortcuts (a whole vector of them, e.g. a masked
// softmax row of -Inf, stays vector code), else the definition.
template <class K>
HWY_NOINLINE void Fix(const K& k, MathFn f, VF x, VF r, MD ok_lo, MD ok_hi, MF in, float* out) {
  const DF df;
  constexpr size_t kMax = hn::MaxLanes(DF());
  uint8_t bits[(kMax + 7) / 8 + 8] = {};
  const size_t N = hn::Lanes(df), H = hn::Lanes(DD());
  // The windows' verdicts as one fp32 mask (the low half's lanes first).
  hn::StoreMaskBits(DD(), ok_lo, bits);
  if (N > H) {
    uint8_t hi[8] = {};
    hn::StoreMaskBits(DD(), ok_hi, hi);
    for (size_t l = 0; l < H; ++l)
      bits[(H + l) / 8] |= uint8_t(((hi[l / 8] >> (l % 8)) & 1) << ((H + l) % 8));
  }
  const MF final_lanes = hn::Or(hn::And(hn::LoadMaskBits(df, bits), in), k.Shortcut(x, r));
  hn::StoreU(r, df, out);
  if (hn::AllTrue(df, final_lanes)) return;
  HWY_ALIGN float xs[kMax];
  hn::Store(x, df, xs);
  uint8_t fin[(kMax + 7) / 8 + 8] = {};
  hn::StoreMaskBits(df, final_lanes, fin);
  uint64_t redone = 0;
  for (size_t l = 0; l < N; ++l)
    if (!((fin[l / 8] >> (l % 8)) & 1)) {
      out[l] = math_f32(f, xs[l]);
      ++redone;
    }
  note_redone(f, redone);
}

template <class K>
HWY_INLINE void One(const K& k, MathFn f, const float* src, float* dst) {
  const VF x = hn::LoadU(DF(), src);
  MD ok_lo, ok_hi;
  MF in;
#if TILESIM_AVX3
  if constexpr (hn::MaxLanes(DF()) == 16) {
    // The halves widened straight from memory and narrowed straight to it (no vextract or
    // vinsert), and the range folded into the windows' tests as their mask (no kand): on the
    // Intel host TEXP fp32 256 x 256 30.4 -> 27.5 us, TLOG 40.3 -> 36.6, TRSQRT 26.0 -> 24.5.
    // Same values and verdicts as Round below.
    in = k.InRange(x);
    const VD y0 = k.Approx(VD{_mm512_cvtps_pd(_mm256_loadu_ps(src))});
    const VD y1 = k.Approx(VD{_mm512_cvtps_pd(_mm256_loadu_ps(src + 8))});
    ok_lo.raw = k.far.Masked(__mmask8(in.raw), y0);
    ok_hi.raw = k.far.Masked(__mmask8(in.raw >> 8), y1);
    const __m256 r0 = _mm512_cvtpd_ps(y0.raw), r1 = _mm512_cvtpd_ps(y1.raw);
    if (HWY_LIKELY(_kand_mask8(ok_lo.raw, ok_hi.raw) == 0xFF)) {
      _mm256_storeu_ps(dst, r0);
      _mm256_storeu_ps(dst + 8, r1);
      return;
    }
    Fix(k, f, x, VF{_mm512_insertf32x8(_mm512_castps256_ps512(r0), r1, 1)}, ok_lo, ok_hi, in, dst);
    return;
  }
#endif
  const VF r = Round(k, x, ok_lo, ok_hi, in);
  if (HWY_LIKELY(hn::AllTrue(DD(), hn::And(ok_lo, ok_hi)) && hn::AllTrue(DF(), in))) {
    hn::StoreU(r, DF(), dst);
    return;
  }
  Fix(k, f, x, r, ok_lo, ok_hi, in, dst);
}

template <class K>
HWY_NOINLINE void RunDouble(MathFn f, const float* src, float* dst, size_t n) {
  const K k;
  const size_t N = hn::Lanes(DF());
  size_t i = 0;
  for (; i + N <= n; i += N) One(k, f, src + i, dst + i);
  if (i == n) return;
  // The last n - i < N elements through a buffer padded with 1 (in every kernel's range).
  HWY_ALIGN float buf[hn::MaxLanes(DF())];
  for (size_t l = 0; l < N; ++l) buf[l] = 1.0f;
  std::memcpy(buf, src + i, (n - i) * sizeof(float));
  One(k, f, buf, buf);
  std::memcpy(dst + i, buf, (n - i) * sizeof(float));
}

// sqrt and recip: the IEEE fp32 operation, as math_f32. A NaN lane (NaN in, or sqrt of a negative)
// is made canonical; a pair of vectors is tested once (nan_simd-inl.h).
template <bool kSqrt>
HWY_NOINLINE void RunFloat(MathFn f, const float* src, float* dst, size_t n) {
  using nan_simd::HWY_NAMESPACE::AnyNaN;
  using nan_simd::HWY_NAMESPACE::Canonical;
  const DF d;
  const auto one = hn::Set(d, 1.0f);
  const size_t N = hn::Lanes(d);
  auto op = [&](hn::Vec<DF> x) HWY_ATTR { return kSqrt ? hn::Sqrt(x) : hn::Div(one, x); };
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    auto r0 = op(hn::LoadU(d, src + i)), r1 = op(hn::LoadU(d, src + i + N));
    if (HWY_UNLIKELY(AnyNaN(r0, r1))) {
      r0 = Canonical(r0);
      r1 = Canonical(r1);
    }
    hn::StoreU(r0, d, dst + i);
    hn::StoreU(r1, d, dst + i + N);
  }
  for (; i + N <= n; i += N) hn::StoreU(Canonical(op(hn::LoadU(d, src + i))), d, dst + i);
  for (; i < n; ++i) dst[i] = math_f32(f, src[i]);
}

// fp16 e^x in fp32 lanes, for the lanes whose result is certainly rounded right; the others
// (and the inputs out of range) take the 65536-entry table `t` of correctly rounded codes (the
// definition). x is an fp16 value widened exactly; k = round(x log2 e) by the 1.5*2^23 shifter
// (k in its low bits), r = x - k ln2 (two FMAs, ln2 split in hi + lo; |r| <= 0.35), e^r by its
// Taylor polynomial of degree 6 (truncation < 0.35^7/7! < 2^-22.8 relative), y = 2^k e^r by the
// exponent bits. The input range [-9.5, 11] keeps every result a normal fp16 value (e^-9.5 >
// 2^-14, e^11 < 65504) and holds 37442 fp16 codes: over all of them this exact sequence of fp32
// operations is within 2.54 fp32 ulps of e^x (measured against the double exp). A lane is final
// when y's 13 bits below the fp16 significand are more than W = 8 ulps from the fp16 midpoint
// 0x1000, so e^x and y round to the same fp16 value (52 of the 37442 codes are not, 0.14%).
// Being a finite domain, the bits are proved by tests/ops (math_test.cpp Fp16ExpKernel), which
// runs every fp16 code through this path on every SIMD target against the table.
#if HWY_TARGET <= HWY_AVX2
// The table's code for an fp16 code, with Switches::saturate's rule when sat (±Inf -> ±max, NaN
// -> +0; the lanes the kernels compute themselves are finite non-NaN results, which the rule
// leaves as they are). Inline: a call here would cost the loop its vector registers.
HWY_INLINE uint16_t F16Table(const uint16_t* t, uint16_t c, bool sat) {
  uint16_t v = t[c];
  if (sat) {
    const uint16_t mag = v & 0x7FFF;
    v = mag == 0x7C00 ? uint16_t(v - 1) : mag > 0x7C00 ? uint16_t(0) : v;
  }
  return v;
}

// The lanes of a vector of fp16 kernel results at dst that `ok` does not vouch for, from the
// table: c holds the vector's input codes (dst may be the source).
template <class V16>
HWY_INLINE void F16Redo(const uint16_t* t, MF ok, V16 c, uint16_t* dst, bool sat) {
  using D16 = hn::DFromV<V16>;
  const size_t N = hn::Lanes(DF());
  uint8_t bits[8] = {};
  hn::StoreMaskBits(DF(), ok, bits);
  uint64_t bad;
  std::memcpy(&bad, bits, 8);
  bad = ~bad & (N >= 64 ? ~uint64_t{0} : (uint64_t{1} << N) - 1);
  HWY_ALIGN uint16_t codes[hn::MaxLanes(DF())];
  hn::Store(c, D16(), codes);
  for (; bad != 0; bad &= bad - 1) {
    const unsigned l = unsigned(std::countr_zero(bad));
    dst[l] = F16Table(t, codes[l], sat);
  }
}

HWY_NOINLINE void F16Exp(const uint16_t* t, const uint16_t* src, uint16_t* dst, size_t n,
                         bool sat) {
  const DF df;
  const DU du;
  const hn::Rebind<uint16_t, DF> d16;
  const hn::Rebind<hwy::float16_t, DF> dh;
  const size_t N = hn::Lanes(df);
  const VF log2e = hn::Set(df, 1.44269504088896341f), shifter = hn::Set(df, 0x1.8p23f),
           ln2_hi = hn::Set(df, 0.693145751953125f), ln2_lo = hn::Set(df, 1.42860682030941723e-06f),
           lo = hn::Set(df, -9.5f), hi = hn::Set(df, 11.0f), c1 = hn::Set(df, 1.0f),
           c2 = hn::Set(df, 0.5f), c3 = hn::Set(df, 1.0f / 6), c4 = hn::Set(df, 1.0f / 24),
           c5 = hn::Set(df, 1.0f / 120), c6 = hn::Set(df, 1.0f / 720);
  constexpr uint32_t kW = 8;
  const VU off = hn::Set(du, kW - 0x1000u), far_bits = hn::Set(du, 0x1FFFu & ~(2 * kW - 1)),
           shifter_bits = hn::Set(du, 0x4B400000u);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto c = hn::LoadU(d16, src + i);
    const VF x = hn::PromoteTo(df, hn::BitCast(dh, c));
    const VF ks = hn::MulAdd(x, log2e, shifter);  // k in the low bits
    const VF kf = hn::Sub(ks, shifter);
    const VF r = hn::NegMulAdd(kf, ln2_lo, hn::NegMulAdd(kf, ln2_hi, x));
    VF p = hn::MulAdd(c6, r, c5);
    p = hn::MulAdd(p, r, c4);
    p = hn::MulAdd(p, r, c3);
    p = hn::MulAdd(p, r, c2);
    p = hn::MulAdd(p, r, c1);
    p = hn::MulAdd(p, r, c1);
    const VU k23 = hn::ShiftLeft<23>(hn::Sub(hn::BitCast(du, ks), shifter_bits));  // k << 23
    const VU yb = hn::Add(hn::BitCast(du, p), k23);
    const VF y = hn::BitCast(df, yb);
    const auto in = hn::And(hn::Ge(x, lo), hn::Le(x, hi));  // false for NaN
    const auto far = hn::RebindMask(
        df, hn::Ne(hn::And(hn::Add(yb, off), far_bits), hn::Zero(du)));
    const auto ok = hn::And(in, far);
    hn::StoreU(hn::BitCast(d16, hn::DemoteTo(dh, y)), d16, dst + i);  // vcvtps2ph: RNE
    if (HWY_UNLIKELY(!hn::AllTrue(df, ok))) F16Redo(t, ok, c, dst + i, sat);
  }
  for (; i < n; ++i) dst[i] = F16Table(t, src[i], sat);
}

#endif

#if TILESIM_AVX3
// The AVX-512 form of F16Exp, with fewer fp32 operations (on Zen 4 the 512-bit fp32 operations
// bound that loop): k = round(32 x / ln2); j = k mod 32 picks 2^(j/32) (fp32, correctly rounded)
// from two registers (vpermt2ps); r = x - k ln2/32 (|r| <= ln2/64; ln2/32's high part has 15
// significant bits, so k ln2hi is exact for |k| <= 508); e^r - 1 ~ r (1 + r/2) (truncation
// < r^3/6 < 2^-22.2 relative); y = 2^(j/32) + 2^(j/32) (e^r - 1) in one FMA, times 2^(k div 32)
// by the exponent bits. y is within 5 fp32 ulps of e^x. A line with every x in [-9.5, 11] (tested
// on x's fp32 bits, integer lanes) has normal fp16 results, tested in the same W = 8 window; a
// line with any other x (fp16 subnormal results, +0, +Inf: softmax inputs) and the next 15 take
// F16ExpWide's test, which holds for every result, so only NaN, saturating overflow and
// near-midpoint lanes take the table. tests/ops Fp16ExpKernel checks every fp16 code on this
// target (in place and not, saturating and not) against the table.
// Measured on the tpu fp_exp f16 64 K row: 23.3 -> 19.6 us; on 1 Mi inputs uniform in [-20, 20]
// (ops math_exp fp16, half of them outside [-9.5, 11]; Zen 5): 1490 -> 271 us.
alignas(64) inline constexpr float kExp2J32[32] = {
    0x1.000000p+0f, 0x1.059b0ep+0f, 0x1.0b5586p+0f, 0x1.11301ep+0f, 0x1.172b84p+0f, 0x1.1d4874p+0f,
    0x1.2387a6p+0f, 0x1.29e9e0p+0f, 0x1.306fe0p+0f, 0x1.371a74p+0f, 0x1.3dea64p+0f, 0x1.44e086p+0f,
    0x1.4bfdaep+0f, 0x1.5342b6p+0f, 0x1.5ab07ep+0f, 0x1.6247ecp+0f, 0x1.6a09e6p+0f, 0x1.71f75ep+0f,
    0x1.7a1148p+0f, 0x1.82589ap+0f, 0x1.8ace54p+0f, 0x1.93737cp+0f, 0x1.9c4918p+0f, 0x1.a5503cp+0f,
    0x1.ae89fap+0f, 0x1.b7f770p+0f, 0x1.c199bep+0f, 0x1.cb720ep+0f, 0x1.d5818ep+0f, 0x1.dfc974p+0f,
    0x1.ea4afap+0f, 0x1.f50766p+0f};
// e^x's fp32 bits within 5 ulps, for |x| <= 20 (see above).
struct F16ExpCore {
  DF df;
  DU du;
  __m512 tlo, thi;
  VF scale, shifter, ln2_hi, ln2_lo, c1, c2;
  VU exp_bits;
  HWY_INLINE F16ExpCore()
      : tlo(_mm512_load_ps(kExp2J32)),
        thi(_mm512_load_ps(kExp2J32 + 16)),
        scale(hn::Set(df, 46.1662413084468283f)),  // 32 / ln2
        shifter(hn::Set(df, 0x1.8p23f)),
        ln2_hi(hn::Set(df, 0.693145751953125f / 32)),
        ln2_lo(hn::Set(df, 1.42860682030941723e-06f / 32)),
        c1(hn::Set(df, 1.0f)),
        c2(hn::Set(df, 0.5f)),
        exp_bits(hn::Set(du, 0xFF800000u)) {}
  HWY_INLINE VU operator()(VF x) const {
    const VF ks = hn::MulAdd(x, scale, shifter);  // k in the low bits (and j in the lowest 5)
    const VF kf = hn::Sub(ks, shifter);
    const VF r = hn::NegMulAdd(kf, ln2_lo, hn::NegMulAdd(kf, ln2_hi, x));
    const VF q = hn::MulAdd(r, c2, c1);
    const VF tj{_mm512_permutex2var_ps(tlo, _mm512_castps_si512(ks.raw), thi)};
    const VF y0 = hn::MulAdd(tj, hn::Mul(r, q), tj);
    // (k div 32) << 23 = (k << 18) with the low 23 bits cleared (k = bits(ks) - bits(shifter),
    // whose low 23 bits are cleared anyway).
    const VU m23 = hn::And(hn::ShiftLeft<18>(hn::BitCast(du, ks)), exp_bits);
    return hn::Add(hn::BitCast(du, y0), m23);
  }
};

// The lines [i, end) (a line with a lane outside [-9.5, 11] and its next ones: fp16 subnormal
// results, +0, +Inf; testing each line again measured slower than taking a few narrow lines this
// way — the results are the same). x is clamped to [-20, 20] (e^-20 rounds to +0
// as every e^x below -17.33 does, e^20 to +Inf as every e^x above 11.09 does); e^x lies in
// (y (1 - 2^-19), y (1 + 2^-19)) (y's 5 ulps are < 2^-20.6 relative, the products' own rounding
// 2^-24): where both round to one fp16 code, so does e^x.
HWY_NOINLINE void F16ExpWide(const uint16_t* t, const uint16_t* src, uint16_t* dst, size_t i,
                             size_t end, bool sat) {
  const DF df;
  const hn::Rebind<uint16_t, DF> d16;
  const hn::Rebind<hwy::float16_t, DF> dh;
  const size_t N = hn::Lanes(df);
  const F16ExpCore core;
  const VF lo = hn::Set(df, -20.0f), hi = hn::Set(df, 20.0f), below = hn::Set(df, 1.0f - 0x1p-19f),
           above = hn::Set(df, 1.0f + 0x1p-19f), sat_end = hn::Set(df, 11.0f);
  for (; i < end; i += N) {
    const auto c = hn::LoadU(d16, src + i);
    const VF x = hn::PromoteTo(df, hn::BitCast(dh, c));
    const VF y = hn::BitCast(df, core(hn::Min(hn::Max(x, lo), hi)));  // NaN lanes: not `in`
    const auto code_lo = hn::BitCast(d16, hn::DemoteTo(dh, hn::Mul(y, below)));  // RNE
    const auto code_hi = hn::BitCast(d16, hn::DemoteTo(dh, hn::Mul(y, above)));
    hn::StoreU(code_hi, d16, dst + i);
    const auto in = sat ? hn::Lt(x, sat_end) : hn::Eq(x, x);  // NaN: false; the table saturates
    const decltype(in) same{hn::Eq(code_lo, code_hi).raw};    // both __mmask16
    const auto ok = hn::And(in, same);
    if (HWY_UNLIKELY(!hn::AllTrue(df, ok))) F16Redo(t, ok, c, dst + i, sat);
  }
}

HWY_NOINLINE void F16ExpAvx3(const uint16_t* t, const uint16_t* src, uint16_t* dst, size_t n,
                            bool sat) {
  const DF df;
  const DU du;
  const hn::Rebind<uint16_t, DF> d16;
  const hn::Rebind<hwy::float16_t, DF> dh;
  const size_t N = hn::Lanes(df);
  const F16ExpCore core;
  constexpr uint32_t kW = 8;
  const VU off = hn::Set(du, kW - 0x1000u), far_bits = hn::Set(du, 0x1FFFu & ~(2 * kW - 1));
  const VF lo = hn::Set(df, -9.5f), hi = hn::Set(df, 11.0f);
  size_t i = 0;
  while (i + N <= n) {
    const auto c = hn::LoadU(d16, src + i);
    const VF x = hn::PromoteTo(df, hn::BitCast(dh, c));
    const VU yb = core(x);
    const auto codes = hn::BitCast(d16, hn::DemoteTo(dh, hn::BitCast(df, yb)));  // RNE
    // x in [-9.5, 11] (NaN: not) gives a normal fp16 result, which keeps 10 of y's
    // 23 fraction bits: far from a midpoint when the 13 dropped bits are not within kW of 0x1000.
    // The range as two compares, the second and the far test under the first's mask (no kand:
    // TEXP fp16 256 x 256 17.7 -> 14.5 us on the Intel host).
    const __mmask16 in = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(x.raw, hi.raw, _CMP_LE_OQ), x.raw,
                                                 lo.raw, _CMP_GE_OQ);
    const __mmask16 ok = _mm512_mask_test_epi32_mask(in, _mm512_add_epi32(yb.raw, off.raw), far_bits.raw);
    if (HWY_LIKELY(ok == 0xFFFF)) {
      hn::StoreU(codes, d16, dst + i);
      i += N;
      continue;
    }
    if (in != 0xFFFF) {  // this line and the next few, for any result (src unchanged)
      const size_t end = std::min(i + 16 * N, n - (n - i) % N);
      F16ExpWide(t, src, dst, i, end, sat);
      i = end;
      continue;
    }
    hn::StoreU(codes, d16, dst + i);
    MF far;
    far.raw = ok;
    F16Redo(t, far, c, dst + i, sat);
    i += N;
  }
  for (; i < n; ++i) dst[i] = F16Table(t, src[i], sat);
}

// ln for fp16 inputs on fp32 lanes (AVX-512). x = 2^k z with z in [0.699, 1.398) (the bits of x
// minus those of 0.699, as LnKernel above and ARM's logf); the top 4 fraction bits of that
// difference pick one of 16 sub-intervals, whose 1/c and ln(c) (fp32, from double) are one vpermps
// each (not LnKernel's kLnInvc: its 1/c have up to 28 bits, so z * 1/c would not be exact in an
// fp32 FMA); r = z/c - 1 in one FMA (exact product, |r| < 0.0297); ln(1 + r) by its Taylor polynomial
// of degree 4 (truncation < r^4/5 < 2^-22.4 relative); y = (k ln2 + ln c) + ln(1 + r). The
// sub-interval holding 1 has c = 1 (no table term), so results near x = 1, the smallest
// (|ln x| >= 2^-11 for x != 1), keep their relative accuracy. Over every positive finite fp16 x
// this sequence of fp32 operations is within 1.76 fp32 ulps of ln x (measured against the double
// log); each result is a normal fp16 value or ln 1 = +0, so a lane is final when y's 13 dropped
// bits are more than W = 4 ulps from the midpoint 0x1000 (as F16Exp). Other inputs (<= 0, Inf,
// NaN) and the near-midpoint lanes (72 of the 31742 codes) take the table. tests/ops Fp16LnKernel
// checks every fp16 code on this target against the table. Measured (64 K inputs uniform in
// [0.25, 4], one thread, Zen 4): the table loop 18.4 us, this 16.7 us (NumPy's float16 log 15.7).
alignas(64) inline constexpr float kLnInvC[16] = {
    0x1.661ec6p+0f, 0x1.571ed4p+0f, 0x1.49539ep+0f, 0x1.3c995ap+0f, 0x1.30d190p+0f, 0x1.25e228p+0f,
    0x1.1bb4a4p+0f, 0x1.12358ep+0f, 0x1.0953f4p+0f, 0x1.000000p+0f, 0x1.e573acp-1f, 0x1.ca4b30p-1f,
    0x1.b20364p-1f, 0x1.9c2d14p-1f, 0x1.886e60p-1f, 0x1.767dcep-1f};
alignas(64) inline constexpr float kLnLogC[16] = {  // -ln(kLnInvC[i]) rounded to fp32
    -0x1.57bf74p-2f, -0x1.2bef08p-2f, -0x1.01eae4p-2f, -0x1.b31d84p-3f, -0x1.6574ecp-3f, -0x1.1aa2bep-3f,
    -0x1.a4e764p-4f, -0x1.1973b6p-4f, -0x1.252f40p-5f, 0.0f,            0x1.b42de0p-5f,  0x1.c5e54cp-4f,
    0x1.526e5ep-3f,  0x1.bc286cp-3f,  0x1.1058bep-2f,  0x1.40430ap-2f};
HWY_NOINLINE void F16LnAvx3(const uint16_t* t, const uint16_t* src, uint16_t* dst, size_t n, bool sat) {
  const DF df;
  const DU du;
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint16_t, DF> d16;
  const hn::Rebind<hwy::float16_t, DF> dh;
  const size_t N = hn::Lanes(df);
  const __m512 invc_t = _mm512_load_ps(kLnInvC), logc_t = _mm512_load_ps(kLnLogC);
  const VU z0 = hn::Set(du, 0x3F330000u), exp_mask = hn::Set(du, 0xFF800000u);
  const VF ln2 = hn::Set(df, 0x1.62e430p-1f), m1 = hn::Set(df, -1.0f), c2 = hn::Set(df, -0.5f),
           c3 = hn::Set(df, 1.0f / 3), c4 = hn::Set(df, -0.25f);
  constexpr uint32_t kW = 4;
  const __m512i off = _mm512_set1_epi32(int(kW - 0x1000u)), far_bits = _mm512_set1_epi32(0x1FFF & ~int(2 * kW - 1));
  // x's bits in [2^-24, 65504]: the positive finite fp16 values (one subtraction, one compare).
  const __m512i in_lo = _mm512_set1_epi32(0x33800000), in_span = _mm512_set1_epi32(0x477FE000 - 0x33800000 + 1);
  // One line of N codes at src + i: results stored at dst + i; the lanes that are final, and the
  // codes (dst may be src).
  struct Line {
    MF ok;
    hn::Vec<decltype(d16)> c;
  };
  const auto line = [&](size_t i) HWY_ATTR {
    const auto c = hn::LoadU(d16, src + i);
    const VF x = hn::PromoteTo(df, hn::BitCast(dh, c));
    const VU xb = hn::BitCast(du, x);
    const VU tmp = hn::Sub(xb, z0);
    const VF z = hn::BitCast(df, hn::Sub(xb, hn::And(tmp, exp_mask)));
    const __m512i j = _mm512_srli_epi32(tmp.raw, 19);  // vpermps reads its low 4 bits
    const VF invc{_mm512_permutexvar_ps(j, invc_t)}, logc{_mm512_permutexvar_ps(j, logc_t)};
    const VF kf = hn::ConvertTo(df, hn::ShiftRight<23>(hn::BitCast(di, tmp)));
    const VF r = hn::MulAdd(z, invc, m1);
    const VF q = hn::MulAdd(hn::MulAdd(c4, r, c3), r, c2);
    const VF y = hn::Add(hn::MulAdd(kf, ln2, logc), hn::MulAdd(hn::Mul(r, r), q, r));
    hn::StoreU(hn::BitCast(d16, hn::DemoteTo(dh, y)), d16, dst + i);  // vcvtps2ph: RNE
    // In range, then (the compare's mask on the test: no mask AND) far from a midpoint.
    MF ok;
    ok.raw = _mm512_mask_test_epi32_mask(_mm512_cmplt_epu32_mask(_mm512_sub_epi32(xb.raw, in_lo), in_span),
                                         _mm512_add_epi32(_mm512_castps_si512(y.raw), off), far_bits);
    return Line{ok, c};
  };
  // Two lines a step (two independent chains for the out-of-order core); the table redoes the
  // lanes a line does not vouch for.
  const auto redo = [&](size_t i, const Line& l) HWY_ATTR {
    if (HWY_UNLIKELY(l.ok.raw != 0xFFFF)) F16Redo(t, l.ok, l.c, dst + i, sat);
  };
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const Line l0 = line(i), l1 = line(i + N);
    redo(i, l0);
    redo(i + N, l1);
  }
  for (; i + N <= n; i += N) redo(i, line(i));
  for (; i < n; ++i) dst[i] = F16Table(t, src[i], sat);
}
#endif

bool F16Fast(MathFn f, const uint16_t* t, const uint16_t* src, uint16_t* dst, size_t n, bool sat) {
#if HWY_TARGET <= HWY_AVX2  // F16C
  if (f == MathFn::exp) {
#if TILESIM_AVX3
    F16ExpAvx3(t, src, dst, n, sat);
#else
    F16Exp(t, src, dst, n, sat);
#endif
    return true;
  }
#endif
#if TILESIM_AVX3
  if (f == MathFn::ln) {
    F16LnAvx3(t, src, dst, n, sat);
    return true;
  }
#endif
  (void)f, (void)t, (void)src, (void)dst, (void)n, (void)sat;
  return false;
}

void F32(MathFn f, const float* src, float* dst, size_t n) {
  switch (f) {
    case MathFn::exp:
      return RunDouble<ExpKernel>(f, src, dst, n);
    case MathFn::ln:
      return RunDouble<LnKernel>(f, src, dst, n);
    case MathFn::rsqrt:
      return RunDouble<RsqrtKernel>(f, src, dst, n);
    case MathFn::sqrt:
      return RunFloat<true>(f, src, dst, n);
    case MathFn::recip:
      return RunFloat<false>(f, src, dst, n);
  }
}

template <class K>
void ApproxAll(const float* src, double* dst, size_t n) {
  const K k;
  const DD dd;
  const hn::Rebind<float, DD> dr;
  const size_t N = hn::Lanes(dd);
  HWY_ALIGN float xs[hn::MaxLanes(DD())];
  HWY_ALIGN double ys[hn::MaxLanes(DD())];
  for (size_t i = 0; i < n; i += N) {
    const size_t m = n - i < N ? n - i : N;
    for (size_t l = 0; l < N; ++l) xs[l] = l < m ? src[i + l] : 1.0f;
    hn::Store(k.Approx(hn::PromoteTo(dd, hn::Load(dr, xs))), dd, ys);
    std::memcpy(dst + i, ys, m * sizeof(double));
  }
}

void Approx(MathFn f, const float* src, double* dst, size_t n) {
  switch (f) {
    case MathFn::exp:
      return ApproxAll<ExpKernel>(src, dst, n);
    case MathFn::ln:
      return ApproxAll<LnKernel>(src, dst, n);
    case MathFn::rsqrt:
      return ApproxAll<RsqrtKernel>(src, dst, n);
    default:
      for (size_t i = 0; i < n; ++i) dst[i] = 0.0;
  }
}

}  // namespace tilesim::ops::math_simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
#undef TILESIM_AVX3

#if HWY_ONCE
namespace tilesim::ops::math_simd {
HWY_EXPORT(F32);
HWY_EXPORT(Approx);
HWY_EXPORT(F16Fast);

bool f16(MathFn f, const uint16_t* table, const uint16_t* src, uint16_t* dst, size_t n,
         bool sat) noexcept {
  return HWY_DYNAMIC_DISPATCH(F16Fast)(f, table, src, dst, n, sat);
}

void f32(MathFn f, const float* src, float* dst, size_t n) noexcept {
  HWY_DYNAMIC_DISPATCH(F32)(f, src, dst, n);
}
void approx_f64(MathFn f, const float* src, double* dst, size_t n) noexcept {
  HWY_DYNAMIC_DISPATCH(Approx)(f, src, dst, n);
}
}  // namespace tilesim::ops::math_simd
#endif
