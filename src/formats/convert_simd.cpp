// SIMD kernels of convert_simd.hpp, written once and compiled per target (spec 70 "Highway").
// fp16 conversions use integer bit manipulation rather than Highway's f16 Demote/Promote,
// because Highway 1.0.3's emulation on targets without F16C does not round every input as
// IEEE RNE; the one floating-point step (subnormal fp16 results) is an fp32 add, which rounds
// RNE under the default MXCSR.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "formats/convert_simd.cpp"
#include "formats/convert_simd.hpp"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>

#include "tilesim/formats.hpp"  // Rounding

HWY_BEFORE_NAMESPACE();
namespace tilesim::formats::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DI = hn::ScalableTag<int32_t>;
using DF = hn::Rebind<float, DI>;
using DH = hn::Rebind<uint16_t, DI>;  // u16 codes, same lane count
using DB = hn::Rebind<uint8_t, DI>;
using VI = hn::Vec<DI>;

// fp32 bits -> fp16 code in the low 16 bits of each lane (spec 10 §4, RNE, non-saturating).
HWY_INLINE VI F16Code(VI x) {
  const DI di;
  const DF df;
  const VI a = hn::And(x, hn::Set(di, 0x7FFFFFFF));
  const VI sign = hn::And(hn::ShiftRight<16>(x), hn::Set(di, 0x8000));
  // Normal results: rebias 127 -> 15 and round the 13 dropped bits to nearest even.
  const VI odd = hn::And(hn::ShiftRight<13>(a), hn::Set(di, 1));
  const VI normal = hn::ShiftRight<13>(
      hn::Add(hn::Sub(a, hn::Set(di, 112 << 23)), hn::Add(hn::Set(di, 0xFFF), odd)));
  // Subnormal results (|x| < 2^-14): adding 0.5f aligns the value so the fp32 ulp is the fp16
  // subnormal ulp 2^-24; the fp32 add does the RNE rounding, possibly up to 0x0400 (min normal).
  const VI half = hn::Set(di, 0x3F000000);
  const VI sub = hn::Sub(hn::BitCast(di, hn::Add(hn::BitCast(df, a), hn::BitCast(df, half))), half);
  VI r = hn::IfThenElse(hn::Lt(a, hn::Set(di, 0x38800000)), sub, normal);
  // |x| >= 65520 rounds to Inf (65520 is the tie between 65504 and 2^16, odd mantissa).
  r = hn::IfThenElse(hn::Gt(a, hn::Set(di, 0x477FEFFF)), hn::Set(di, 0x7C00), r);
  r = hn::Or(r, sign);
  return hn::IfThenElse(hn::Gt(a, hn::Set(di, 0x7F800000)), hn::Set(di, 0x7E00), r);
}

HWY_INLINE VI Bf16Code(VI x) {
  const DI di;
  const VI a = hn::And(x, hn::Set(di, 0x7FFFFFFF));
  const VI odd = hn::And(hn::ShiftRight<16>(x), hn::Set(di, 1));
  // Logical shift: the sum may carry into bit 31 for negative inputs.
  const hn::RebindToUnsigned<DI> du;
  const VI r = hn::BitCast(
      di, hn::ShiftRight<16>(hn::BitCast(du, hn::Add(x, hn::Add(hn::Set(di, 0x7FFF), odd)))));
  return hn::IfThenElse(hn::Gt(a, hn::Set(di, 0x7F800000)), hn::Set(di, 0x7FC0), r);
}

HWY_INLINE VI F16ToF32Bits(VI h) {
  const DI di;
  const DF df;
  const VI sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(di, 0x8000)));
  const VI mag = hn::And(h, hn::Set(di, 0x7FFF));
  const VI normal = hn::Add(hn::ShiftLeft<13>(mag), hn::Set(di, 112 << 23));
  // Subnormal: m · 2^-24, exact in fp32.
  const VI sub =
      hn::BitCast(di, hn::Mul(hn::ConvertTo(df, mag), hn::Set(df, 5.9604644775390625e-8f)));
  VI r = hn::IfThenElse(hn::Lt(mag, hn::Set(di, 0x0400)), sub, normal);
  r = hn::IfThenElse(hn::Gt(mag, hn::Set(di, 0x7BFF)), hn::Set(di, 0x7F800000), r);
  r = hn::Or(r, sign);
  return hn::IfThenElse(hn::Gt(mag, hn::Set(di, 0x7C00)), hn::Set(di, 0x7FC00000), r);
}

HWY_INLINE VI Bf16ToF32Bits(VI h) {
  const DI di;
  const VI r = hn::ShiftLeft<16>(h);
  return hn::IfThenElse(hn::Gt(hn::And(h, hn::Set(di, 0x7FFF)), hn::Set(di, 0x7F80)),
                        hn::Set(di, 0x7FC00000), r);
}

// One loop shape for the four 16-bit conversions; the tail goes through a zero-padded buffer
// so every lane runs the same code.
template <VI (*Op)(VI)>
HWY_INLINE void Encode16(const float* HWY_RESTRICT in, uint16_t* HWY_RESTRICT out, size_t n) {
  const DI di;
  const DF df;
  const DH dh;
  const size_t N = hn::Lanes(di);
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  // Two vectors per step, their low halves joined by one ConcatEven: cheaper than two
  // saturating demotes and a full-width store.
  const hn::Repartition<uint16_t, DI> d16;
  for (; i + 2 * N <= n; i += 2 * N) {
    const VI lo = Op(hn::BitCast(di, hn::LoadU(df, in + i)));
    const VI hi = Op(hn::BitCast(di, hn::LoadU(df, in + i + N)));
    hn::StoreU(hn::ConcatEven(d16, hn::BitCast(d16, hi), hn::BitCast(d16, lo)), d16, out + i);
  }
#endif
  for (; i + N <= n; i += N)
    hn::StoreU(hn::DemoteTo(dh, Op(hn::BitCast(di, hn::LoadU(df, in + i)))), dh, out + i);
  if (i < n) {
    HWY_ALIGN float buf[64] = {};
    HWY_ALIGN uint16_t res[64];
    for (size_t j = 0; j < n - i; ++j) buf[j] = in[i + j];
    hn::Store(hn::DemoteTo(dh, Op(hn::BitCast(di, hn::Load(df, buf)))), dh, res);
    for (size_t j = 0; j < n - i; ++j) out[i + j] = res[j];
  }
}

template <VI (*Op)(VI)>
HWY_INLINE void Decode16(const uint16_t* HWY_RESTRICT in, float* HWY_RESTRICT out, size_t n) {
  const DI di;
  const DF df;
  const DH dh;
  const size_t N = hn::Lanes(di);
  size_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(hn::BitCast(df, Op(hn::PromoteTo(di, hn::LoadU(dh, in + i)))), df, out + i);
  if (i < n) {
    HWY_ALIGN uint16_t buf[64] = {};
    HWY_ALIGN float res[64];
    for (size_t j = 0; j < n - i; ++j) buf[j] = in[i + j];
    hn::Store(hn::BitCast(df, Op(hn::PromoteTo(di, hn::Load(dh, buf)))), df, res);
    for (size_t j = 0; j < n - i; ++j) out[i + j] = res[j];
  }
}

// AVX2 and AVX3 imply F16C: its vcvtps2ph / vcvtph2ps round RNE in hardware (immediate mode,
// not MXCSR) and are exact for every input; NaN inputs are made the canonical fp32 NaN first,
// which converts to 0x7E00. Older targets use the integer kernels above.
#if HWY_TARGET <= HWY_AVX2
using DF16 = hn::Rebind<hwy::float16_t, DF>;

HWY_INLINE hn::Vec<DF> CanonicalNan(hn::Vec<DF> v) {
  const DF df;
  return hn::IfThenElse(hn::IsNaN(v), hn::BitCast(df, hn::Set(DI(), 0x7FC00000)), v);
}

void F32ToF16(const float* HWY_RESTRICT in, uint16_t* HWY_RESTRICT out, size_t n) {
  const DF df;
  const DF16 d16;
  const size_t N = hn::Lanes(df);
  auto* o = reinterpret_cast<hwy::float16_t*>(out);
  size_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(hn::DemoteTo(d16, CanonicalNan(hn::LoadU(df, in + i))), d16, o + i);
  if (i < n) Encode16<F16Code>(in + i, out + i, n - i);
}

void F16ToF32(const uint16_t* HWY_RESTRICT in, float* HWY_RESTRICT out, size_t n) {
  const DF df;
  const DF16 d16;
  const size_t N = hn::Lanes(df);
  const auto* p = reinterpret_cast<const hwy::float16_t*>(in);
  size_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(CanonicalNan(hn::PromoteTo(df, hn::LoadU(d16, p + i))), df, out + i);
  if (i < n) Decode16<F16ToF32Bits>(in + i, out + i, n - i);
}
#else
void F32ToF16(const float* in, uint16_t* out, size_t n) {
  Encode16<F16Code>(in, out, n);
}
void F16ToF32(const uint16_t* in, float* out, size_t n) {
  Decode16<F16ToF32Bits>(in, out, n);
}
#endif
// bf16 = the high half of the rounded fp32 bits: NaN inputs are made 0x7FC00000 first (which
// rounds to 0x7FC0), and ConcatOdd keeps the high halves of two vectors at once.
void F32ToBf16(const float* HWY_RESTRICT in, uint16_t* HWY_RESTRICT out, size_t n) {
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const DI di;
  const DF df;
  const hn::Repartition<uint16_t, DI> d16;
  const size_t N = hn::Lanes(di);
  const VI qnan = hn::Set(di, 0x7FC00000), bias = hn::Set(di, 0x7FFF), one = hn::Set(di, 1);
  auto round = [&](hn::Vec<DF> v) {
    const VI x = hn::IfThenElse(hn::RebindMask(di, hn::IsNaN(v)), qnan, hn::BitCast(di, v));
    return hn::Add(x, hn::Add(bias, hn::And(hn::ShiftRight<16>(x), one)));
  };
  for (; i + 2 * N <= n; i += 2 * N) {
    const VI lo = round(hn::LoadU(df, in + i)), hi = round(hn::LoadU(df, in + i + N));
    hn::StoreU(hn::ConcatOdd(d16, hn::BitCast(d16, hi), hn::BitCast(d16, lo)), d16, out + i);
  }
#endif
  if (i < n) Encode16<Bf16Code>(in + i, out + i, n - i);
}
void Bf16ToF32(const uint16_t* in, float* out, size_t n) {
  Decode16<Bf16ToF32Bits>(in, out, n);
}

void Lut8ToF32(const uint8_t* HWY_RESTRICT in, const float* HWY_RESTRICT lut,
               float* HWY_RESTRICT out, size_t n) {
  const DI di;
  const DF df;
  const DB db;
  const size_t N = hn::Lanes(di);
  size_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(hn::GatherIndex(df, lut, hn::PromoteTo(di, hn::LoadU(db, in + i))), df, out + i);
  for (; i < n; ++i) out[i] = lut[in[i]];
}

// Generic fp32 -> minifloat (spec 10 §4), lane by lane. value = sig·2^e2 with sig < 2^24;
// the target quantum is 2^(et-M) with et = max(E32-127, emin) (fp32 subnormals are below every
// emin here); the mode's increment is added below the dropped bits and the sum shifted. The
// dropped-bit count is clamped to 25, where every mode already sees "below half, nonzero".
// rto adds nothing and ORs the sticky bit into the kept lsb instead (it never carries).
// mag = ((et + bias - 1) << M) + n covers subnormal, normal and the carry into E = 1.
template <Rounding kMode>
HWY_INLINE VI MiniCode(VI x, const MiniParams& p) {
  const DI di;
  const hn::RebindToUnsigned<DI> du;
  const VI one = hn::Set(di, 1);
  const VI a = hn::And(x, hn::Set(di, 0x7FFFFFFF));
  const auto neg = hn::Lt(x, hn::Zero(di));
  const VI E32 = hn::ShiftRight<23>(a);
  const auto normal = hn::Gt(E32, hn::Zero(di));
  const VI m32 = hn::And(a, hn::Set(di, 0x7FFFFF));
  const VI sig = hn::IfThenElse(normal, hn::Or(m32, hn::Set(di, 0x800000)), m32);
  const VI e2 = hn::IfThenElse(normal, hn::Sub(E32, hn::Set(di, 150)), hn::Set(di, -149));
  VI et = hn::Max(hn::Sub(E32, hn::Set(di, 127)), hn::Set(di, 1 - p.bias));
  const VI sh = hn::Min(hn::Sub(hn::Sub(et, hn::Set(di, p.man_bits)), e2), hn::Set(di, 25));
  const VI half = hn::BitCast(di, hn::Shl(hn::BitCast(du, one), hn::BitCast(du, hn::Sub(sh, one))));
  const VI all = hn::Sub(hn::Add(half, half), one);
  const auto shr = [&](VI v, VI s) {
    return hn::BitCast(di, hn::Shr(hn::BitCast(du, v), hn::BitCast(du, s)));
  };
  VI add = hn::Zero(di);
  if constexpr (kMode == Rounding::rne)
    add = hn::Add(hn::Sub(half, one), hn::And(shr(sig, sh), one));
  if constexpr (kMode == Rounding::rna) add = half;
  if constexpr (kMode == Rounding::rdn) add = hn::IfThenElseZero(neg, all);
  if constexpr (kMode == Rounding::rup) add = hn::IfThenZeroElse(neg, all);
  if constexpr (kMode == Rounding::rhu) add = hn::Sub(half, hn::IfThenElseZero(neg, one));
  if constexpr (kMode == Rounding::rhd) add = hn::Sub(half, hn::IfThenZeroElse(neg, one));
  VI n = shr(hn::Add(sig, add), sh);
  if constexpr (kMode == Rounding::rto)
    n = hn::Or(n, hn::IfThenElseZero(hn::Ne(hn::And(sig, all), hn::Zero(di)), one));
  const VI carry = shr(n, hn::Set(di, p.man_bits + 1));  // n == 2^(M+1): next binade
  n = shr(n, carry);
  et = hn::Add(et, carry);
  VI mag = hn::Add(hn::BitCast(di, hn::Shl(hn::BitCast(du, hn::Add(et, hn::Set(di, p.bias - 1))),
                                           hn::BitCast(du, hn::Set(di, p.man_bits)))),
                   n);
  mag = hn::BitCast(di, hn::Shl(hn::BitCast(du, mag), hn::BitCast(du, hn::Set(di, p.man_shift))));
  VI r = hn::Or(mag, hn::IfThenElseZero(neg, hn::Set(di, static_cast<int32_t>(p.sign_bit))));
  const VI ovf = hn::IfThenElse(neg, hn::Set(di, static_cast<int32_t>(p.ovf_neg)),
                                hn::Set(di, static_cast<int32_t>(p.ovf_pos)));
  r = hn::IfThenElse(hn::Gt(mag, hn::Set(di, p.max_mag)), ovf, r);
  const VI inf = hn::IfThenElse(neg, hn::Set(di, static_cast<int32_t>(p.inf_neg)),
                                hn::Set(di, static_cast<int32_t>(p.inf_pos)));
  r = hn::IfThenElse(hn::Eq(a, hn::Set(di, 0x7F800000)), inf, r);
  return hn::IfThenElse(hn::Gt(a, hn::Set(di, 0x7F800000)),
                        hn::Set(di, static_cast<int32_t>(p.nan)), r);
}

HWY_INLINE void StoreCodes(VI c, int32_t bytes, void* out, size_t i) {
  const DI di;
  if (bytes == 1) {
    hn::StoreU(hn::DemoteTo(DB(), c), DB(), static_cast<uint8_t*>(out) + i);
  } else if (bytes == 2) {
    hn::StoreU(hn::DemoteTo(DH(), c), DH(), static_cast<uint16_t*>(out) + i);
  } else {
    hn::StoreU(c, di, static_cast<int32_t*>(out) + i);
  }
}

template <Rounding kMode>
HWY_INLINE void F32ToMiniMode(const float* HWY_RESTRICT in, const MiniParams& p,
                              void* HWY_RESTRICT out, size_t n) {
  const DI di;
  const DF df;
  const size_t N = hn::Lanes(di);
  size_t i = 0;
  for (; i + N <= n; i += N)
    StoreCodes(MiniCode<kMode>(hn::BitCast(di, hn::LoadU(df, in + i)), p), p.out_bytes, out, i);
  if (i < n) {
    HWY_ALIGN float buf[64] = {};
    HWY_ALIGN int32_t res[64] = {};
    for (size_t j = 0; j < n - i; ++j) buf[j] = in[i + j];
    hn::Store(MiniCode<kMode>(hn::BitCast(di, hn::Load(df, buf)), p), di, res);
    for (size_t j = 0; j < n - i; ++j) {
      const uint32_t c = static_cast<uint32_t>(res[j]);
      if (p.out_bytes == 1)
        static_cast<uint8_t*>(out)[i + j] = static_cast<uint8_t>(c);
      else if (p.out_bytes == 2)
        static_cast<uint16_t*>(out)[i + j] = static_cast<uint16_t>(c);
      else
        static_cast<uint32_t*>(out)[i + j] = c;
    }
  }
}

// The mode is a template argument so the per-vector code has no branch on it.
void F32ToMini(const float* HWY_RESTRICT in, const MiniParams& params, void* HWY_RESTRICT out,
               size_t n) {
  const MiniParams p = params;  // a local copy: stores through `out` cannot alias it
  switch (static_cast<Rounding>(p.mode)) {
    case Rounding::rne:
      return F32ToMiniMode<Rounding::rne>(in, p, out, n);
    case Rounding::rna:
      return F32ToMiniMode<Rounding::rna>(in, p, out, n);
    case Rounding::rtz:
      return F32ToMiniMode<Rounding::rtz>(in, p, out, n);
    case Rounding::rdn:
      return F32ToMiniMode<Rounding::rdn>(in, p, out, n);
    case Rounding::rup:
      return F32ToMiniMode<Rounding::rup>(in, p, out, n);
    case Rounding::rhu:
      return F32ToMiniMode<Rounding::rhu>(in, p, out, n);
    case Rounding::rhd:
      return F32ToMiniMode<Rounding::rhd>(in, p, out, n);
    case Rounding::rto:
      return F32ToMiniMode<Rounding::rto>(in, p, out, n);
  }
}

// Decode: normal codes shift into fp32 position and rebias; subnormals (E = 0) are m·2^(emin-M),
// an exact fp32 product; Inf/NaN by magnitude; the sign moves to bit 31.
void Mini8ToF32(const uint8_t* HWY_RESTRICT in, const MiniDecodeParams& p, float* HWY_RESTRICT out,
                size_t n) {
  const DI di;
  const DF df;
  const DB db;
  const hn::RebindToUnsigned<DI> du;
  const size_t N = hn::Lanes(di);
  const VI rebias = hn::Set(di, (127 - p.bias) << 23);
  const VI shl = hn::Set(di, 23 - p.man_bits);
  const hn::Vec<DF> sub_scale = hn::Set(df, std::ldexp(1.0f, 1 - p.bias - p.man_bits));
  const VI mag_mask = hn::Set(di, p.sign_bit - 1), sign = hn::Set(di, p.sign_bit);
  const VI min_normal = hn::Set(di, 1 << p.man_bits);
  const int sign_shift = 31 - (31 - __builtin_clz(static_cast<unsigned>(p.sign_bit)));
  auto one = [&](VI c) {
    c = hn::And(c, hn::Set(di, p.code_mask));
    const VI mag = hn::And(c, mag_mask);
    const VI normal =
        hn::Add(hn::BitCast(di, hn::Shl(hn::BitCast(du, mag), hn::BitCast(du, shl))), rebias);
    const VI sub = hn::BitCast(di, hn::Mul(hn::ConvertTo(df, mag), sub_scale));
    VI r = hn::IfThenElse(hn::Lt(mag, min_normal), sub, normal);
    r = hn::IfThenElse(hn::Eq(mag, hn::Set(di, p.inf_mag)), hn::Set(di, 0x7F800000), r);
    const VI s = hn::BitCast(
        di, hn::Shl(hn::BitCast(du, hn::And(c, sign)), hn::BitCast(du, hn::Set(di, sign_shift))));
    r = hn::Or(r, s);
    return hn::IfThenElse(hn::Gt(mag, hn::Set(di, p.nan_min - 1)), hn::Set(di, 0x7FC00000), r);
  };
  size_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(hn::BitCast(df, one(hn::PromoteTo(di, hn::LoadU(db, in + i)))), df, out + i);
  if (i < n) {
    HWY_ALIGN uint8_t buf[64] = {};
    HWY_ALIGN float res[64] = {};
    for (size_t j = 0; j < n - i; ++j) buf[j] = in[i + j];
    hn::Store(hn::BitCast(df, one(hn::PromoteTo(di, hn::Load(db, buf)))), df, res);
    for (size_t j = 0; j < n - i; ++j) out[i + j] = res[j];
  }
}

int64_t Target() {
  return HWY_TARGET;
}

}  // namespace tilesim::formats::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::formats::simd {
HWY_EXPORT(F32ToF16);
HWY_EXPORT(F32ToBf16);
HWY_EXPORT(F16ToF32);
HWY_EXPORT(Bf16ToF32);
HWY_EXPORT(Lut8ToF32);
HWY_EXPORT(Target);
HWY_EXPORT(F32ToMini);
HWY_EXPORT(Mini8ToF32);

void mini8_to_f32(const uint8_t* in, const MiniDecodeParams& p, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(Mini8ToF32)(in, p, out, n);
}

void f32_to_mini(const float* in, const MiniParams& p, void* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(F32ToMini)(in, p, out, n);
}

int64_t dispatched_target() {
  return HWY_DYNAMIC_DISPATCH(Target)();
}

void f32_to_f16(const float* in, uint16_t* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(F32ToF16)(in, out, n);
}
void f32_to_bf16(const float* in, uint16_t* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(F32ToBf16)(in, out, n);
}
void f16_to_f32(const uint16_t* in, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(F16ToF32)(in, out, n);
}
void bf16_to_f32(const uint16_t* in, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(Bf16ToF32)(in, out, n);
}
void lut8_to_f32(const uint8_t* in, const float* lut, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(Lut8ToF32)(in, lut, out, n);
}
}  // namespace tilesim::formats::simd
#endif
