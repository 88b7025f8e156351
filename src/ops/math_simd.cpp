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

#include <bit>
#include <cmath>
#include <cstring>

#include "ops/math_simd.hpp"

#ifndef TILESIM_OPS_MATH_SIMD_TABLES
#define TILESIM_OPS_MATH_SIMD_TABLES
namespace tilesim::ops::math_simd {
// exp: bits(2^(j/16)) - (j << 48), as doubles (bit patterns; see ExpKernel). 2^(j/16) rounded to
// nearest double (checked against MPFR by tests/ops).
constexpr double from_bits(uint64_t b) { return std::bit_cast<double>(b); }
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
    0x1.661ec6ap+0, 0x1.571ed3cp+0, 0x1.49539e4p+0, 0x1.3c995a4p+0, 0x1.30d1901p+0,
    0x1.25e2271p+0, 0x1.1bb4a4p+0,  0x1.12358e7p+0, 0x1.0953f39p+0, 0x1p+0,
    0x1.e573ac9p-1, 0x1.ca4b305p-1, 0x1.b20364p-1,  0x1.9c2d14fp-1, 0x1.886e5f1p-1,
    0x1.767dce4p-1};
alignas(64) inline constexpr double kLnLogc[16] = {
    -0x1.57bf752e0d1fbp-2, -0x1.2bef07bec9354p-2, -0x1.01eae5716c691p-2, -0x1.b31d8543bce3dp-3,
    -0x1.6574ebd44133ap-3, -0x1.1aa2b819bf72ap-3, -0x1.a4e763cb1bc38p-4, -0x1.1973bcbd65567p-4,
    -0x1.252f32f6d183fp-5, 0x0p+0,                0x1.b42dd713971bfp-5,  0x1.c5e5492abc743p-4,
    0x1.526e5e5a1b438p-3,  0x1.bc28673a58cd6p-3,  0x1.1058bf8d24ad5p-2,  0x1.404308716a7e4p-2};
}  // namespace tilesim::ops::math_simd
#endif

HWY_BEFORE_NAMESPACE();
namespace tilesim::ops::math_simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DD = hn::ScalableTag<double>;
using DI = hn::RebindToSigned<DD>;
using DF = hn::Rebind<float, DD>;  // the fp32 lanes of one double vector
using VD = hn::Vec<DD>;
using VI = hn::Vec<DI>;
using VF = hn::Vec<DF>;
using MD = hn::Mask<DD>;
using MF = hn::Mask<DF>;

// A 16-entry double table indexed by the low 4 bits of each lane of i.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
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

// Lanes of y (the double approximation) whose low 29 significand bits lie within W ulps of 2^28,
// i.e. of an fp32 midpoint: ((bits + W - 2^28) mod 2^29) < 2W.
template <int64_t W>
struct NearMidpoint {
  VI off = hn::Set(DI(), W - (int64_t(1) << 28)), low29 = hn::Set(DI(), (int64_t(1) << 29) - 1),
     width = hn::Set(DI(), 2 * W);
  NearMidpoint() {}  // user-provided, so it is compiled for this SIMD target
  HWY_INLINE MD operator()(VD y) const {
    const DI di;
    return hn::RebindMask(DD(), hn::Lt(hn::And(hn::Add(hn::BitCast(di, y), off), low29), width));
  }
};

// e^x. k = round(16 x / ln2) by the 1.5*2^52 shifter (k in t's low bits), r = x - k*ln2/16
// (|r| <= ln2/32, up to a rounding of 16x/ln2 without FMA), e^x = 2^(k>>4) * 2^((k&15)/16) *
// e^r, the first two factors one table entry plus k << 48 (kExpU), e^r = 1 + r*g(r), g of degree
// 4 fitted at the Chebyshev nodes of [-ln2/32, ln2/32] (relative error 2^-46.6 with these double
// coefficients, measured at 200 bits). Errors: r is off by |k| * |ln2/16 - double| < 2^11 *
// 2^-58 plus, without FMA, the rounding of k*ln2/16 (< 2^-47); the table 2^-53; the evaluation a
// few 2^-53. Total < 2^-45: 2^8 ulps of y, W = 2^10. Range: [-87.3, 88.7], normal fp32 results.
struct ExpKernel {
  static constexpr int64_t kW = int64_t(1) << 10;
  Lut16 lut{kExpU};
  VD shifter = hn::Set(DD(), 0x1.8p52), inv = hn::Set(DD(), 0x1.71547652b82fep4),
     ln2_16 = hn::Set(DD(), 0x1.62e42fefa39efp-5), c0 = hn::Set(DD(), 1.0),
     c1 = hn::Set(DD(), 0x1.fffffffe5bc58p-2), c2 = hn::Set(DD(), 0x1.55555554dd44bp-3),
     c3 = hn::Set(DD(), 0x1.55570aa826c45p-5), c4 = hn::Set(DD(), 0x1.11120af7211b8p-7),
     lo = hn::Set(DD(), -87.3), hi = hn::Set(DD(), 88.7);
  NearMidpoint<kW> near;
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
  HWY_INLINE MD InRange(VD x) const { return hn::And(hn::Ge(x, lo), hn::Le(x, hi)); }
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
  static constexpr int64_t kW = int64_t(1) << 13;
  Lut16 invc_t{kLnInvc}, logc_t{kLnLogc};
  VI off = hn::Set(DI(), int64_t(0x3FE6600000000000)),  // bits of 0.69921875 (fp32 0x3f330000)
      exp_mask = hn::Set(DI(), int64_t(0xFFF0000000000000ull)),
      shifter_bits = hn::Set(DI(), int64_t(0x4338000000000000));
  VD shifter = hn::Set(DD(), 0x1.8p52), one = hn::Set(DD(), 1.0),
     ln2 = hn::Set(DD(), 0x1.62e42fefa39efp-1), p0 = hn::Set(DD(), -0x1.0000000005d18p-1),
     p1 = hn::Set(DD(), 0x1.555555555fad7p-2), p2 = hn::Set(DD(), -0x1.fffff8b811db9p-3),
     p3 = hn::Set(DD(), 0x1.99999320bc229p-3), p4 = hn::Set(DD(), -0x1.55abb44c5d8e2p-3),
     p5 = hn::Set(DD(), 0x1.24df0fafe22f3p-3), lo = hn::Set(DD(), 0x1p-126),
     hi = hn::Set(DD(), 0x1.fffffep127);
  NearMidpoint<kW> near;
  LnKernel() {}

  HWY_INLINE VD Approx(VD x) const {
    const DI di;
    const VI xb = hn::BitCast(di, x);
    const VI tmp = hn::Sub(xb, off);
    const VI k = hn::ShiftRight<52>(tmp);  // arithmetic
    const VI i = hn::ShiftRight<48>(tmp);  // the interval in the low 4 bits
    const VD z = hn::BitCast(DD(), hn::Sub(xb, hn::And(tmp, exp_mask)));
    const VD r = hn::MulSub(z, invc_t(i), one);  // exact (with or without FMA)
    const VD kd = hn::Sub(hn::BitCast(DD(), hn::Add(k, shifter_bits)), shifter);
    const VD hi_part = hn::MulAdd(kd, ln2, logc_t(i));
    VD p = hn::MulAdd(p5, r, p4);
    p = hn::MulAdd(p, r, p3);
    p = hn::MulAdd(p, r, p2);
    p = hn::MulAdd(p, r, p1);
    p = hn::MulAdd(p, r, p0);
    return hn::Add(hi_part, hn::MulAdd(hn::Mul(r, r), p, r));
  }
  HWY_INLINE MD InRange(VD x) const { return hn::And(hn::Ge(x, lo), hn::Le(x, hi)); }
  HWY_INLINE MF Shortcut(VF, VF&) const { return hn::FirstN(DF(), 0); }
};

// 1/sqrt(x) as two correctly rounded double operations: relative error < 2^-53 + 2^-53 (1 +
// 2^-53): 2^1.1 ulps of y, W = 2^4. Range: positive finite x (subnormals included: the results,
// 2^-63.5 .. 2^74.5, are normal fp32).
struct RsqrtKernel {
  static constexpr int64_t kW = int64_t(1) << 4;
  VD one = hn::Set(DD(), 1.0), zero = hn::Zero(DD()), hi = hn::Set(DD(), 0x1.fffffep127);
  NearMidpoint<kW> near;
  RsqrtKernel() {}

  HWY_INLINE VD Approx(VD x) const { return hn::Div(one, hn::Sqrt(x)); }
  HWY_INLINE MD InRange(VD x) const { return hn::And(hn::Gt(x, zero), hn::Le(x, hi)); }
  HWY_INLINE MF Shortcut(VF, VF&) const { return hn::FirstN(DF(), 0); }
};

// One vector of fp32 lanes: the rounded approximation and, in ok, the lanes that are final.
template <class K>
HWY_INLINE VF Round(const K& k, VF xf, MD& ok) {
  const VD x = hn::PromoteTo(DD(), xf);
  const VD y = k.Approx(x);
  ok = hn::AndNot(k.near(y), k.InRange(x));
  return hn::DemoteTo(DF(), y);
}

// The lanes not ok: the kernel's exact shortcuts, else the definition.
template <class K>
HWY_NOINLINE void Fix(const K& k, MathFn f, VF x, VF r, MD ok, float* out) {
  const DF df;
  constexpr size_t kMax = hn::MaxLanes(DF());
  HWY_ALIGN float xs[kMax];
  uint8_t ok_bits[(kMax + 7) / 8] = {}, done_bits[(kMax + 7) / 8] = {};
  hn::StoreU(x, df, xs);
  const MF done = k.Shortcut(x, r);
  hn::StoreMaskBits(DD(), ok, ok_bits);
  hn::StoreMaskBits(df, done, done_bits);
  hn::StoreU(r, df, out);
  uint64_t redone = 0;
  for (size_t l = 0; l < hn::Lanes(df); ++l)
    if (!((ok_bits[l / 8] | done_bits[l / 8]) >> (l % 8) & 1)) {
      out[l] = math_f32(f, xs[l]);
      ++redone;
    }
  if (redone) note_redone(f, redone);
}

template <class K>
HWY_INLINE void Two(const K& k, MathFn f, const float* src, float* dst, size_t N) {
  const DF df;
  const VF x0 = hn::LoadU(df, src), x1 = hn::LoadU(df, src + N);
  MD ok0, ok1;
  const VF r0 = Round(k, x0, ok0), r1 = Round(k, x1, ok1);
  if (HWY_LIKELY(hn::AllTrue(DD(), hn::And(ok0, ok1)))) {
    hn::StoreU(r0, df, dst);
    hn::StoreU(r1, df, dst + N);
    return;
  }
  Fix(k, f, x0, r0, ok0, dst);
  Fix(k, f, x1, r1, ok1, dst + N);
}

template <class K>
HWY_NOINLINE void RunDouble(MathFn f, const float* src, float* dst, size_t n) {
  const K k;
  const size_t N = hn::Lanes(DD());
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) Two(k, f, src + i, dst + i, N);
  if (i == n) return;
  // The last n - i < 2N elements through a buffer padded with 1 (in every kernel's range).
  HWY_ALIGN float buf[2 * hn::MaxLanes(DF())];
  for (size_t l = 0; l < 2 * N; ++l) buf[l] = 1.0f;
  std::memcpy(buf, src + i, (n - i) * sizeof(float));
  Two(k, f, buf, buf, N);
  std::memcpy(dst + i, buf, (n - i) * sizeof(float));
}

// sqrt and recip: the IEEE fp32 operation, as math_f32.
template <bool kSqrt>
HWY_NOINLINE void RunFloat(MathFn f, const float* src, float* dst, size_t n) {
  const hn::ScalableTag<float> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const auto qnan = hn::BitCast(d, hn::Set(du, 0x7FC00000u)), one = hn::Set(d, 1.0f);
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto x = hn::LoadU(d, src + i);
    const auto r = kSqrt ? hn::Sqrt(x) : hn::Div(one, x);
    hn::StoreU(hn::IfThenElse(hn::IsNaN(r), qnan, r), d, dst + i);
  }
  for (; i < n; ++i) dst[i] = math_f32(f, src[i]);
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
  const DF df;
  const size_t N = hn::Lanes(dd);
  HWY_ALIGN float xs[hn::MaxLanes(DF())];
  for (size_t i = 0; i < n; i += N) {
    const size_t m = n - i < N ? n - i : N;
    for (size_t l = 0; l < N; ++l) xs[l] = l < m ? src[i + l] : 1.0f;
    HWY_ALIGN double ys[hn::MaxLanes(DD())];
    hn::Store(k.Approx(hn::PromoteTo(dd, hn::Load(df, xs))), dd, ys);
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

#if HWY_ONCE
namespace tilesim::ops::math_simd {
HWY_EXPORT(F32);
HWY_EXPORT(Approx);

void f32(MathFn f, const float* src, float* dst, size_t n) noexcept {
  HWY_DYNAMIC_DISPATCH(F32)(f, src, dst, n);
}
void approx_f64(MathFn f, const float* src, double* dst, size_t n) noexcept {
  HWY_DYNAMIC_DISPATCH(Approx)(f, src, dst, n);
}
}  // namespace tilesim::ops::math_simd
#endif
