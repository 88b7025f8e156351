// Fast row kernels of the TROWEXPAND* family: one Highway kernel per op family over contiguous
// rows, compiled for every SIMD target and picked at run time. Bit-identical to the scalar
// reference (kernels.hpp): fp32 + - * / are IEEE in SIMD as in scalar; fp16/bf16 are widened and
// rounded once with integer RNE code written here (Highway 1.0.3's emulated fp16/bf16 demotion
// truncates, so it is not used); every NaN result is replaced by the canonical NaN.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "pto/trowexpand_simd.cpp"
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "pto/kernels.hpp"
#include "pto/ops.hpp"

// Forces a lambda inline into its caller (GCC and clang).
#define TILESIM_ALWAYS_INLINE __attribute__((always_inline))

HWY_BEFORE_NAMESPACE();
namespace tilesim::pto::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The reference for the columns [j0, C) a vector does not cover.
HWY_INLINE void Tail(Op op, Elem dt, const uint8_t* full, const uint8_t* xs, uint8_t* dst, int j0,
                     int C, int Ex, bool swap) {
  const size_t sz = elem_size(dt);
  for (int j = j0; j < C; ++j)
    reference_row(op, dt, full + size_t(j) * sz, xs + size_t(j % Ex) * sz, dst + size_t(j) * sz, 1,
                  1, swap);
}

// Pattern of the expanded operand: P = max(lanes, Ex) values, pat[k] = xs[k mod Ex], so the vector
// at column j (a multiple of lanes) reads pat + j mod P (mode 2's 32-byte block repeated). pat
// has room for 256 values; mode 2 fills P + lanes of them (at most 128, int8 on AVX-512).
template <class S>
HWY_INLINE size_t FillPattern(S* pat, const S* xs, size_t lanes, int Ex) {
  const size_t P = std::max(lanes, size_t(Ex));  // both powers of two
  if (Ex == 1) {
    for (size_t k = 0; k < P; ++k) pat[k] = xs[0];
  } else {
    // Ex = 32/sizeof(T): one 32-byte block, copied with fixed-size moves (see CopyExpanded);
    // P + lanes values, so a vector may also start at any column (the fp32 peel, RowF32With).
    for (size_t k = 0; k < P + lanes; k += 32 / sizeof(S)) std::memcpy(pat + k, xs, 32);
  }
  return P;
}

// The expanded operand as one vector of d when it fits one (Ex == 1: the scalar broadcast; Ex
// equal to or half the lanes: the 32-byte block, repeated), read straight from the row's snapshot.
// A pattern copied to the stack and reloaded at once stalls: the wide load cannot be forwarded
// from the narrower stores (fp16 256x256 mode 2: ~1 us of 6). False: use FillPattern.
template <class D, class S>
HWY_INLINE bool ExpandedVector(D d, const uint8_t* xs8, const S* xv, int Ex, hn::Vec<D>& x) {
  const size_t N = hn::Lanes(d);
  if (Ex == 1) {
    x = hn::Set(d, xv[0]);
    return true;
  }
  if (size_t(Ex) == N) {
    x = hn::LoadU(d, reinterpret_cast<const S*>(xs8));
    return true;
  }
#if HWY_TARGET <= HWY_AVX3
  if (size_t(Ex) * 2 == N) {
    const hn::Half<D> dh;
    const auto blk = hn::LoadU(dh, reinterpret_cast<const S*>(xs8));
    x = hn::Combine(d, blk, blk);
    return true;
  }
#endif
  return false;
}

// Keeps a loop-invariant vector in a register. GCC otherwise folds constants such as the canonical
// NaN into the masked move as a memory operand, a merge-masked load that made the fp32 row loop
// ~20% slower on this machine (L2-resident 256x256: 3.0 vs 2.5 us).
template <class V>
HWY_INLINE V InRegister(V v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128 && defined(__GNUC__)
  asm("" : "+v"(v.raw));
#endif
  return v;
}

#if HWY_TARGET <= HWY_AVX3
// Indices for TableLookupLanes over 32-bit lanes: lane l takes lane (l + k) mod period (period a
// power of two up to the lane count). A mode-2 pattern read from column k on is its vector at
// column 0 rotated so (the aligned peels; 16-bit patterns rotate as pairs).
template <class D>
HWY_INLINE auto RotationIndices(D d, size_t k, size_t period) {
  const hn::RebindToSigned<D> di;
  return hn::IndicesFromVec(d, hn::And(hn::Add(hn::Iota(di, 0), hn::Set(di, int32_t(k))),
                                       hn::Set(di, int32_t(period - 1))));
}

// Columns [j, C) of a row, fewer than a vector, as one masked vector: dst = f(full), the lanes
// past C neither read (AVX-512 masked loads do not touch them) nor written. The per-element
// reference cost ~6 ns a column (a 256x248 valid region of 256x256 tiles: 14-18 us, not ~3).
// The fp32 loops (RowF32With, FlatF32) spell it out: routed through here, GCC stopped inlining
// their MAX/MIN loops (256x256 2.6 -> 4.5 us, padded 3.2 -> 4.2 us).
template <class D, class T, class F>
HWY_INLINE void MaskedTail(D d, const T* full, T* dst, size_t j, size_t C, const F& f) {
  const auto m = hn::FirstN(d, C - j);
  hn::BlendedStore(f(hn::MaskedLoad(m, d, full + j)), m, d, dst + j);
}
#endif

// a > b ? a : b, and a < b ? a : b: b when the lanes are equal or unordered. x86's vmaxps/vminps
// are exactly this; elsewhere it is spelled out.
template <Op op, class VF>
HWY_INLINE VF Pick(VF a, VF b) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  return op == Op::MAX ? hn::Max(a, b) : hn::Min(a, b);
#else
  return hn::IfThenElse(op == Op::MAX ? hn::Gt(a, b) : hn::Lt(a, b), a, b);
#endif
}

// a OP b for fp32 lanes (spec 20 §4), any NaN result replaced by `nan`, the canonical NaN.
// Copies the row's expanded values (1 in mode 1, the 32-byte block in mode 2: Ex = 32/sizeof(S))
// out of the snapshot. A copy of a fixed size compiles to plain moves; a variable-size memcpy is a
// library call per row whose stores the next broadcast load cannot forward from (~12 ns a row:
// fp16 256x256 5.5 -> 3 us). A loop of 32-byte copies up to Ex was merged by GCC into such a call
// (with a vzeroupper and spills around it): mode 2 cost 0.3-0.9 us more than mode 1 at 256x256.
template <class S>
HWY_INLINE void CopyExpanded(S* xv, const uint8_t* xs8, int Ex) {
  if (Ex == 1)
    std::memcpy(xv, xs8, sizeof(S));
  else
    std::memcpy(xv, xs8, 32);
}

template <Op op, class DF, class VF>
HWY_INLINE VF FloatOp(DF df, VF a, VF b, VF nan) {
  const hn::RebindToUnsigned<DF> du;
  if constexpr (op == Op::MAX || op == Op::MIN) {
    // spec 20 §4: NaN if either is NaN; equal values combine bitwise (max(-0,+0) = +0).
    const auto ua = hn::BitCast(du, a), ub = hn::BitCast(du, b);
    const VF eqv = hn::BitCast(df, op == Op::MAX ? hn::And(ua, ub) : hn::Or(ua, ub));
    const VF r = hn::IfThenElse(hn::Eq(a, b), eqv, Pick<op>(a, b));
    return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), nan, r);
  } else {
    VF r;
    if constexpr (op == Op::ADD)
      r = hn::Add(a, b);
    else if constexpr (op == Op::SUB || op == Op::EXPDIF)
      r = hn::Sub(a, b);
    else if constexpr (op == Op::MUL)
      r = hn::Mul(a, b);
    else
      r = hn::Div(a, b);
    return hn::IfThenElse(hn::IsNaN(r), nan, r);
  }
}

// fp16 bits (in u32 lanes) -> fp32, exact: finite values scale by 2^112, Inf/NaN keep their
// payload.
template <class DF, class VU>
HWY_INLINE hn::Vec<DF> F16ToF32(DF df, VU h) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const VU em = hn::And(h, hn::Set(du, 0x7FFFu));
  const VU sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)));
  const VU fin =
      hn::BitCast(du, hn::Mul(hn::BitCast(df, hn::ShiftLeft<13>(em)), hn::Set(df, 0x1p112f)));
  const VU special = hn::Or(hn::ShiftLeft<13>(em), hn::Set(du, 0x7F800000u));
  const auto is_special = hn::RebindMask(du, hn::Gt(hn::BitCast(di, em), hn::Set(di, 0x7BFF)));
  return hn::BitCast(df, hn::Or(hn::IfThenElse(is_special, special, fin), sign));
}

// fp32 -> fp16 bits (u32 lanes), RNE with subnormals, overflow to Inf, NaN -> 0x7E00. The scaling
// by 2^112 * 2^-110 and the add of a power of two let the FPU round at the fp16 position.
template <class DF, class VF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> F32ToF16(DF df, VF f) {
  const hn::RebindToUnsigned<DF> du;
  const auto w = hn::BitCast(du, f);
  VF base = hn::Mul(hn::Mul(hn::Abs(f), hn::Set(df, 0x1p112f)), hn::Set(df, 0x1p-110f));
  const auto shl1 = hn::Add(w, w);
  const auto bias = hn::Max(hn::And(shl1, hn::Set(du, 0xFF000000u)), hn::Set(du, 0x71000000u));
  base = hn::Add(hn::BitCast(df, hn::Add(hn::ShiftRight<1>(bias), hn::Set(du, 0x07800000u))), base);
  const auto bits = hn::BitCast(du, base);
  const auto nonsign = hn::Add(hn::And(hn::ShiftRight<13>(bits), hn::Set(du, 0x7C00u)),
                               hn::And(bits, hn::Set(du, 0x0FFFu)));
  const auto sign = hn::ShiftRight<16>(hn::And(w, hn::Set(du, 0x80000000u)));
  return hn::Or(
      sign, hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(f)), hn::Set(du, ops::kNanF16), nonsign));
}

// fp32 -> bf16 bits (u32 lanes), RNE, NaN -> 0x7FC0.
template <class DF, class VF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> F32ToBF16(DF df, VF f) {
  (void)df;
  const hn::RebindToUnsigned<DF> du;
  const auto w = hn::BitCast(du, f);
  const auto r = hn::ShiftRight<16>(
      hn::Add(hn::Add(w, hn::Set(du, 0x7FFFu)), hn::And(hn::ShiftRight<16>(w), hn::Set(du, 1u))));
  return hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(f)), hn::Set(du, ops::kNanBF16), r);
}

// e^d for fp32 d in place, the same bits as ops::exp_f32 (e^d correctly rounded, spec 20 §4 and
// spec 15 §1), in double lanes. Portable form: k = round(d / ln2) (the 1.5*2^52 shifter),
// r = d - k*ln2 with one fused multiply-add (|r| <= 0.347; |k| <= 150 so k times the rounding
// error of ln2 is < 2^-47), e^r by a degree-8 polynomial interpolating e^r at the Chebyshev nodes
// of [-0.35, 0.35] (relative error < 2^-39.6 there, measured at 200-bit precision with the double
// coefficients below), then 2^k added to the exponent bits. Total relative error < 2^-39.5.
// AVX-512 form (fewer FMAs, the bottleneck): k = round(16 d / ln2), e^d = 2^(k>>4) * T[k&15] *
// e^r with T[j] = 2^(j/16) (a two-register vpermi2pd lookup), r = d - k*ln2/16 (|r| <= ln2/32;
// |k| <= 2400 so k times the rounding error of ln2/16 is < 2^-48), e^r = 1 + r*P(r), P of
// degree 3 from the degree-4 interpolation of e^r at the Chebyshev nodes of [-ln2/32, ln2/32]
// (relative error < 2^-38.5, 200-bit precision), T + T*(r*P) fused. Both are within 2^14.6 double
// ulps of the exact e^d; rounding to fp32 (29 bits dropped) therefore gives its correctly rounded
// bits unless the double lies within 2^16 ulps of an fp32 midpoint (low 29 bits near 2^28): those
// lanes, d outside [-87.3, 88.7] (results outside the normal fp32 range) and NaN take the scalar
// definition, except d <= -104 (e^d < 2^-150: +0) and d >= 89 (e^d > FLT_MAX +
// ulp/2: +Inf), which are exact without it. Without hardware FMA (SSE4) MulAdd rounds twice; the
// extra error (< 2^-46 absolute in r) stays far inside the same bound. Checked exhaustively over
// every fp32 d on the best target (PtoDifferential.DISABLED_ExpdifF32Exhaustive).
HWY_INLINE void ExpF32InPlace(float* p, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const hn::RebindToSigned<decltype(dd)> di;
  const size_t N = hn::Lanes(dd);
  const auto shifter = hn::Set(dd, 0x1.8p52);
  const auto low29 = hn::Set(di, (int64_t(1) << 29) - 1);
  const auto near_shift = hn::Set(di, (int64_t(1) << 16) - (int64_t(1) << 28));
  const auto near_w = hn::Set(di, int64_t(1) << 17);
  const auto lo = hn::Set(dd, -87.3), hi = hn::Set(dd, 88.7);
  const auto inv_ln2 = hn::Set(dd, 1.4426950408889634), ln2 = hn::Set(dd, 0.6931471805599453);
  const auto c8 = hn::Set(dd, 2.487764798531672e-05), c7 = hn::Set(dd, 0.00019917351707533356);
  const auto c6 = hn::Set(dd, 0.0013888818977515853), c5 = hn::Set(dd, 0.008333263396367235);
  const auto c4 = hn::Set(dd, 0.041666666904604285), c3 = hn::Set(dd, 0.16666666904700334);
  const auto c2 = hn::Set(dd, 0.4999999999978138), c1 = hn::Set(dd, 0.9999999999781288);
  const auto one = hn::Set(dd, 1.0);
  auto approx = [&](auto x, auto& t) {
    t = hn::MulAdd(x, inv_ln2, shifter);
    const auto r = hn::NegMulAdd(hn::Sub(t, shifter), ln2, x);
    auto q = hn::MulAdd(c8, r, c7);
    q = hn::MulAdd(q, r, c6);
    q = hn::MulAdd(q, r, c5);
    q = hn::MulAdd(q, r, c4);
    q = hn::MulAdd(q, r, c3);
    q = hn::MulAdd(q, r, c2);
    q = hn::MulAdd(q, r, c1);
    q = hn::MulAdd(q, r, one);
    return hn::Add(hn::BitCast(di, q), hn::ShiftLeft<52>(hn::BitCast(di, t)));
  };
  size_t k = 0;
  for (; k + N <= n; k += N) {
    const auto xf = hn::LoadU(df, p + k);
    const auto x = hn::PromoteTo(dd, xf);
    auto t = x;
    const auto eb = approx(x, t);
    const auto near = hn::Lt(hn::And(hn::Add(eb, near_shift), low29), near_w);
    const auto fine = hn::AndNot(hn::RebindMask(dd, near), hn::And(hn::Ge(x, lo), hn::Le(x, hi)));
    if (HWY_LIKELY(hn::AllTrue(dd, fine))) {
      hn::StoreU(hn::DemoteTo(df, hn::BitCast(dd, eb)), df, p + k);
      continue;
    }
    // Off the common path: +0 / +Inf are exact; the lanes left take the definition.
    const auto zero_m = hn::Le(x, hn::Set(dd, -104.0)), inf_m = hn::Ge(x, hn::Set(dd, 89.0));
// SCALAR and EMU128: Highway 1.0.3's DemoteTo clamps to FLT_MAX, so overflow takes the definition.
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
    const auto exact = zero_m;
#else
    const auto exact = hn::Or(zero_m, inf_m);
#endif
    const auto e = hn::IfThenElse(inf_m, hn::Set(dd, HUGE_VAL),
                                  hn::IfThenZeroElse(zero_m, hn::BitCast(dd, eb)));
    HWY_ALIGN float d_in[hn::MaxLanes(df)];
    HWY_ALIGN uint8_t slow[hn::MaxLanes(dd)];
    hn::StoreU(xf, df, d_in);
    hn::StoreU(hn::DemoteTo(df, e), df, p + k);
    hn::StoreMaskBits(dd, hn::Not(hn::Or(fine, exact)), slow);
    for (size_t l = 0; l < N; ++l)
      if (slow[l / 8] >> (l % 8) & 1) p[k + l] = ops::exp_f32(d_in[l]);
  }
  for (; k < n; ++k) p[k] = ops::exp_f32(p[k]);
}

#if HWY_TARGET <= HWY_AVX3
// The AVX-512 form of ExpF32InPlace's exp (see there), fused into the row loop: d is rounded to
// fp32 in 16 lanes and never stored. 2^(k>>4) * T[k&15] is formed as one table entry plus k << 48:
// U[j] = bits(T[j]) - (j << 48), and k << 48 = ((k >> 4) << 52) + ((k & 15) << 48).
constexpr double kExp2Sixteenths[16] = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};
struct ExpScaleTable {  // U[j] = bits(2^(j/16)) - (j << 48)
  alignas(64) int64_t u[16];
  constexpr ExpScaleTable() : u{} {
    for (int j = 0; j < 16; ++j)
      u[j] = std::bit_cast<int64_t>(kExp2Sixteenths[j]) - (int64_t(j) << 48);
  }
};
constexpr ExpScaleTable kExpScale{};

struct ExpdifAvx3 {
  using DD = hn::ScalableTag<double>;
  using DI = hn::RebindToSigned<DD>;
  using DF = hn::ScalableTag<float>;
  using DH = hn::Half<DF>;
  DD dd;
  DI di;
  DF df;
  DH dh;
  __m512i u_lo = _mm512_load_si512(kExpScale.u),
          u_hi = _mm512_load_si512(kExpScale.u + 8);
  hn::Vec<DD> shifter = hn::Set(dd, 0x1.8p52), inv = hn::Set(dd, 23.083120654223414),
              ln2_16 = hn::Set(dd, 0x1.62e42fefa39efp-5), c4 = hn::Set(dd, 0.04166748140654907),
              c3 = hn::Set(dd, 0.16667155511961634), c2 = hn::Set(dd, 0.49999999990441324),
              c1 = hn::Set(dd, 0.9999999994264774);
  hn::Vec<DI> near_shift = hn::Set(di, (int64_t(1) << 16) - (int64_t(1) << 28)),
              near_bits = hn::Set(di, ((int64_t(1) << 29) - 1) & ~((int64_t(1) << 17) - 1));
  hn::Vec<DF> lo = hn::Set(df, -87.3f), hi = hn::Set(df, 88.7f);
  ExpdifAvx3() {}  // user-provided, so it is compiled for this SIMD target

  // e^x for 8 double lanes and, in `fine`, the lanes whose fp32 rounding is certain (not within
  // 2^16 ulps of a midpoint: bits 17..28 of eb + 2^16 - 2^28 not all zero).
  HWY_INLINE hn::Vec<DH> Half(hn::Vec<DD> x, hn::Mask<DD>& fine) const {
    const auto t = hn::MulAdd(x, inv, shifter);  // low mantissa bits: k (two's complement)
    const auto r = hn::NegMulAdd(hn::Sub(t, shifter), ln2_16, x);
    const auto tb = hn::BitCast(di, t);
    const auto scale = hn::BitCast(
        dd, hn::Add(hn::Vec<DI>{_mm512_permutex2var_epi64(u_lo, tb.raw, u_hi)},
                    hn::ShiftLeft<48>(tb)));  // 2^(k>>4) * T[k&15]
    auto q = hn::MulAdd(c4, r, c3);
    q = hn::MulAdd(q, r, c2);
    q = hn::MulAdd(q, r, c1);
    const auto y = hn::MulAdd(scale, hn::Mul(q, r), scale);
    // TestBit is vptestmq here: lanes where any of the bits is set (Highway documents it for one
    // bit; this AVX-512-only code relies on the instruction). Spelling the intrinsic out made GCC
    // emit slower code (256x256: 30 vs 24 us).
    const auto v = hn::Add(hn::BitCast(di, y), near_shift);
    fine = hn::RebindMask(dd, hn::TestBit(v, near_bits));
    return hn::DemoteTo(dh, y);
  }

  // e^d for 16 fp32 lanes, the bits of ops::exp_f32.
  HWY_INLINE hn::Vec<DF> Exp(hn::Vec<DF> d) const {
    hn::Mask<DD> fine_lo, fine_hi;
    const auto e_lo = Half(hn::PromoteTo(dd, hn::LowerHalf(dh, d)), fine_lo);
    const auto e_hi = Half(hn::PromoteTo(dd, hn::UpperHalf(dh, d)), fine_hi);
    const auto e = hn::Combine(df, e_hi, e_lo);
    const auto in_range = hn::And(hn::Ge(d, lo), hn::Le(d, hi));
    if (HWY_LIKELY(hn::AllTrue(dd, hn::And(fine_lo, fine_hi)) && hn::AllTrue(df, in_range)))
      return e;
    return Slow(d, e, in_range, fine_lo, fine_hi);
  }

  // Off the common path: +0 / +Inf are exact, the lanes left take the definition.
  HWY_NOINLINE hn::Vec<DF> Slow(hn::Vec<DF> d, hn::Vec<DF> e, hn::Mask<DF> in_range,
                                hn::Mask<DD> fine_lo, hn::Mask<DD> fine_hi) const {
    const auto zero_m = hn::Le(d, hn::Set(df, -104.0f)), inf_m = hn::Ge(d, hn::Set(df, 89.0f));
    HWY_ALIGN float dv[16], ev[16];
    uint8_t bits[8];
    hn::StoreMaskBits(dd, fine_lo, bits);
    hn::StoreMaskBits(dd, fine_hi, bits + 1);
    const uint32_t fine = uint32_t(bits[0]) | uint32_t(bits[1]) << 8;
    hn::Store(d, df, dv);
    hn::Store(hn::IfThenElse(inf_m, hn::Set(df, HUGE_VALF), hn::IfThenZeroElse(zero_m, e)), df,
              ev);
    hn::StoreMaskBits(df, in_range, bits);
    const uint32_t ok = (uint32_t(bits[0]) | uint32_t(bits[1]) << 8) & fine;
    hn::StoreMaskBits(df, hn::Or(zero_m, inf_m), bits);
    const uint32_t exact = uint32_t(bits[0]) | uint32_t(bits[1]) << 8;
    for (int l = 0; l < 16; ++l)
      if (!((ok | exact) >> l & 1)) ev[l] = ops::exp_f32(dv[l]);
    return hn::Load(df, ev);
  }
};
#endif

// The fp32 MAX/MIN formula for a row (RowF32 and FlatF32 share it): calls row(fn) with one of
// four per-vector formulas, chosen from the row's expanded operand (`scalar`: mode 1's one value,
// whose bits are x_bits; nan_x / zero_x: a NaN / a zero among its values). Operand order does not
// matter (spec 20 §4 is symmetric). A NaN scalar fills the row with the canonical NaN; with no NaN
// and no zero, Pick(x, f) is the result (equal lanes have equal bits) up to f's NaN; a lone +0
// (MAX) / -0 (MIN) wins every tie against a zero, so Pick(f, x) is, up to f's NaN; otherwise (a
// NaN or a mixed zero in a mode-2 block) the general formula. `row` must be always-inline: GCC
// otherwise keeps its four loops out of line and reloads the pointers every vector (256x256
// 2.6 -> 4.8 us).
template <Op op, class VF, class Row>
HWY_INLINE void WithMaxMinFormula(bool scalar, uint32_t x_bits, bool nan_x, bool zero_x, VF nan,
                                  const Row& row) {
  const hn::DFromV<VF> df;
  const uint32_t tie_winner = op == Op::MAX ? 0u : 0x80000000u;
  if (scalar && nan_x)
    row([&](VF, VF) TILESIM_ALWAYS_INLINE { return nan; });
  else if (!nan_x && !zero_x)
    row([&](VF f, VF x) TILESIM_ALWAYS_INLINE {
      const VF r = Pick<op>(x, f);
      return hn::IfThenElse(hn::IsNaN(r), nan, r);
    });
  else if (scalar && x_bits == tie_winner)
    row([&](VF f, VF x) TILESIM_ALWAYS_INLINE {
      return hn::IfThenElse(hn::IsNaN(f), nan, Pick<op>(f, x));
    });
  else
    row([&](VF f, VF x) TILESIM_ALWAYS_INLINE { return FloatOp<op>(df, f, x, nan); });
}

// One fp32 row with the per-vector operation fn(full, expanded). When the expanded operand is one
// vector (`one`, ExpandedVector) x0 is it, at column 0; otherwise the vector at column j reads
// pat + j mod P.
template <Op op, class F, class VF>
HWY_INLINE size_t RowF32With(const float* full, bool one, VF x0, const float* pat, size_t P,
                             float* dst, int C, int Ex, F fn) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  (void)Ex;
  size_t j = 0;
  if (one) {
    VF x = x0;
    // Long rows: the first vector covers columns up to a 64-byte boundary of the full operand, so
    // no later load splits a cache line, nor any store when dst is aligned alike. When they are
    // not, split stores cost less than split loads here (256x256, dst 16 bytes off full's
    // alignment: 3.6 us aligning the loads, 4.2 us aligning the stores, 3.1 us both aligned). The
    // columns left after the last whole vector are one masked vector (AVX-512 masked loads do
    // not touch the masked-off bytes), peeled or not, not the per-element reference.
#if HWY_TARGET <= HWY_AVX3
    const auto mis = reinterpret_cast<uintptr_t>(full) & 63;
    const bool peel = size_t(C) >= 8 * N && mis % 4 == 0 && mis != 0;
    if (peel) {
      j = (64 - mis) / 4;
      hn::BlendedStore(fn(hn::LoadU(df, full), x), hn::FirstN(df, j), df, dst);
      if (Ex > 1) x = hn::TableLookupLanes(x, RotationIndices(df, j, N));  // from column j on
    }
#endif
    x = InRegister(x);
    for (; j + N <= size_t(C); j += N) hn::StoreU(fn(hn::LoadU(df, full + j), x), df, dst + j);
#if HWY_TARGET <= HWY_AVX3
    if (j < size_t(C)) {  // with or without the peel: MaskedTail, spelled out (see there)
      const auto m = hn::FirstN(df, size_t(C) - j);
      hn::BlendedStore(fn(hn::MaskedLoad(m, df, full + j), x), m, df, dst + j);
      j = size_t(C);
    }
#endif
  } else {
    for (; j + N <= size_t(C); j += N)
      hn::StoreU(fn(hn::LoadU(df, full + j), hn::Load(df, pat + (j & (P - 1)))), df, dst + j);
  }
#if !(HWY_TARGET <= HWY_AVX3)
  if constexpr (op == Op::EXPDIF) ExpF32InPlace(dst, j);  // d was rounded to fp32 above
#endif
  return j;  // the columns done
}

template <Op op>
HWY_INLINE void RowF32(const uint8_t* full8, const uint8_t* xs8, uint8_t* dst8, int C, int Ex,
                       bool swap) {
  using VF = hn::Vec<hn::ScalableTag<float>>;
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const size_t N = hn::Lanes(df);
  const auto* full = reinterpret_cast<const float*>(full8);
  auto* dst = reinterpret_cast<float*>(dst8);
  HWY_ALIGN float pat[256];
  float xv[32] = {};  // zeroed: GCC cannot tell CopyExpanded fills what is read
  CopyExpanded(xv, xs8, Ex);
  VF x0 = hn::Zero(df);
  const bool one = ExpandedVector(df, xs8, xv, Ex, x0);
  const size_t P = one ? N : FillPattern(pat, xv, N, Ex);
  const VF nan = InRegister(hn::BitCast(df, hn::Set(du, ops::kNanF32)));
  size_t j = 0;
  auto row = [&](auto fn) TILESIM_ALWAYS_INLINE {
    j = RowF32With<op>(full, one, x0, pat, P, dst, C, Ex, fn);
  };
  if constexpr (op == Op::MAX || op == Op::MIN) {
    bool nan_x = false, zero_x = false;
    if (one) {  // a vector test: a scalar loop over a mode-2 block cost ~8 ns a row
      nan_x = !hn::AllFalse(df, hn::IsNaN(x0));
      zero_x = !hn::AllFalse(df, hn::Eq(x0, hn::Zero(df)));
    } else {
      for (int e = 0; e < Ex; ++e) {
        nan_x |= std::isnan(xv[e]);
        zero_x |= xv[e] == 0.0f;
      }
    }
    uint32_t x0_bits;
    std::memcpy(&x0_bits, xv, 4);
    WithMaxMinFormula<op>(Ex == 1, x0_bits, nan_x, zero_x, nan, row);
#if HWY_TARGET <= HWY_AVX3
  } else if constexpr (op == Op::EXPDIF) {
    const ExpdifAvx3 ex;
    if (swap)
      row([&](VF f, VF x) { return ex.Exp(hn::Sub(x, f)); });
    else
      row([&](VF f, VF x) { return ex.Exp(hn::Sub(f, x)); });
#endif
  } else if (swap) {
    row([&](VF f, VF x) { return FloatOp<op>(df, x, f, nan); });
  } else {
    row([&](VF f, VF x) { return FloatOp<op>(df, f, x, nan); });
  }
  Tail(op, Elem::f32, full8, xs8, dst8, int(j), C, Ex, swap);
}

// MAX/MIN of fp16/bf16 straight on the 16-bit codes, twice the lanes of the widening path and
// no conversion: key(v) = v ^ ((v >> 15) & 0x7FFF) maps sign-magnitude codes to int16 in the
// order of their values with -0 < +0 (key is its own inverse), so the int16 max/min of the keys is
// spec 20 §4's result for non-NaN inputs (max(-0,+0) = +0, min(-0,+0) = -0, equal values keep
// their bits: the widen-compute-round definition, exact here); any NaN input gives the canonical
// NaN of T. Operand order does not matter for either op.
template <Op op, bool kBF16>
HWY_INLINE void RowMaxMin16(const uint8_t* full8, const uint8_t* xs8, uint8_t* dst8, int C, int Ex,
                            bool swap) {
  const hn::ScalableTag<int16_t> d;
  const size_t N = hn::Lanes(d);
  const auto* full = reinterpret_cast<const int16_t*>(full8);
  auto* dst = reinterpret_cast<int16_t*>(dst8);
  HWY_ALIGN int16_t pat[256];
  int16_t xv[32] = {};
  CopyExpanded(xv, xs8, Ex);
  auto xvec = hn::Zero(d);
  const bool one = ExpandedVector(d, xs8, xv, Ex, xvec);
  const size_t P = one ? N : FillPattern(pat, xv, N, Ex);
  const auto mag = hn::Set(d, int16_t(0x7FFF));
  const auto inf = hn::Set(d, int16_t(kBF16 ? 0x7F80 : 0x7C00));
  const auto nan = hn::Set(d, int16_t(kBF16 ? ops::kNanBF16 : ops::kNanF16));
  auto key = [&](auto v) { return hn::Xor(v, hn::And(hn::ShiftRight<15>(v), mag)); };
  auto result = [&](auto a, auto kx, auto nx) {
    const auto kr = op == Op::MAX ? hn::Max(key(a), kx) : hn::Min(key(a), kx);
    const auto is_nan = hn::Or(hn::Gt(hn::And(a, mag), inf), hn::MaskFromVec(nx));
    return hn::IfThenElse(is_nan, nan, key(kr));
  };
  auto step = [&](size_t j, auto kx, auto nx) {
    hn::StoreU(result(hn::LoadU(d, full + j), kx, nx), d, dst + j);
  };
  auto prep = [&](auto v, auto& kx, auto& nx) {
    kx = key(v);
    nx = hn::VecFromMask(d, hn::Gt(hn::And(v, mag), inf));
  };
  size_t j = 0;
  if (one) {
    auto kx = hn::Zero(d), nx = hn::Zero(d);
#if HWY_TARGET <= HWY_AVX3
    // As RowF32With: long rows start with a vector ending at a 64-byte boundary of the full
    // operand and end with a masked one, so no load splits a cache line (64-byte vectors: at the
    // heap's 16-byte offset every one did; 256x256 4.96 -> 4.08 us interleaved, 2.9 us with the
    // tiles 64-byte aligned). The mode-2 pattern is rotated by the peeled lanes as 32-bit lanes
    // (Highway 1.0.3 has no 16-bit TableLookupLanes), so there the peel needs an even number of
    // them (mis % 4 == 0); mode 1's broadcast needs no rotation.
    const auto mis = reinterpret_cast<uintptr_t>(full) & 63;
    const bool peel = size_t(C) >= 4 * N && mis % 2 == 0 && mis != 0 && (Ex == 1 || mis % 4 == 0);
    if (peel) {
      j = (64 - mis) / 2;
      prep(xvec, kx, nx);
      hn::BlendedStore(result(hn::LoadU(d, full), kx, nx), hn::FirstN(d, j), d, dst);
      if (Ex > 1) {
        const hn::Repartition<uint32_t, decltype(d)> d32;
        xvec = hn::BitCast(d, hn::TableLookupLanes(hn::BitCast(d32, xvec),
                                                   RotationIndices(d32, j / 2, hn::Lanes(d32))));
      }
    }
#endif
    prep(xvec, kx, nx);
    for (; j + N <= size_t(C); j += N) step(j, kx, nx);
#if HWY_TARGET <= HWY_AVX3
    if (j < size_t(C)) {  // with or without the peel
      MaskedTail(d, full, dst, j, size_t(C), [&](auto a) { return result(a, kx, nx); });
      j = size_t(C);
    }
#endif
  } else {
    for (; j + N <= size_t(C); j += N) {
      auto kx = hn::Zero(d), nx = hn::Zero(d);
      prep(hn::Load(d, pat + (j & (P - 1))), kx, nx);
      step(j, kx, nx);
    }
  }
  Tail(op, kBF16 ? Elem::bf16 : Elem::f16, full8, xs8, dst8, int(j), C, Ex, swap);
}

template <Op op, bool kBF16>
HWY_INLINE void Row16(const uint8_t* full8, const uint8_t* xs8, uint8_t* dst8, int C, int Ex,
                      bool swap) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  const size_t N = hn::Lanes(df);
  const auto* full = reinterpret_cast<const uint16_t*>(full8);
  auto* dst = reinterpret_cast<uint16_t*>(dst8);
  HWY_ALIGN uint16_t pat[256];
  uint16_t xv[32] = {};
  CopyExpanded(xv, xs8, Ex);
  auto x16 = hn::Zero(d16);
  const bool one = ExpandedVector(d16, xs8, xv, Ex, x16);
  const size_t P = one ? N : FillPattern(pat, xv, N, Ex);
  const auto nan = InRegister(hn::BitCast(df, hn::Set(du, ops::kNanF32)));
#if HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
  // F16C hardware: vcvtph2ps is exact, vcvtps2ph rounds RNE with subnormals and turns the
  // canonical fp32 NaN into 0x7E00, the same bits as the integer code below.
  constexpr bool kF16C = !kBF16;
#else
  constexpr bool kF16C = false;
#endif
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  (void)dh;
  auto widen = [&](auto v16) {
    if constexpr (kF16C) {
      return hn::PromoteTo(df, hn::BitCast(dh, v16));
    } else {
      const auto u = hn::PromoteTo(du, v16);
      if constexpr (kBF16)
        return hn::BitCast(df, hn::ShiftLeft<16>(u));
      else
        return F16ToF32(df, u);
    }
  };
  size_t j = 0;
  const size_t Pm = P - 1;
  auto narrow = [&](auto r) {
    if constexpr (kF16C) {
      return hn::BitCast(d16, hn::DemoteTo(dh, r));
    } else {
      const auto bits = kBF16 ? F32ToBF16(df, r) : F32ToF16(df, r);
      return hn::DemoteTo(d16, hn::BitCast(di, bits));
    }
  };
  auto store = [&](auto r) { hn::StoreU(narrow(r), d16, dst + j); };
  auto step = [&](auto sw, auto x) {
    const auto f = widen(hn::LoadU(d16, full + j));
    store(sw ? FloatOp<op>(df, x, f, nan) : FloatOp<op>(df, f, x, nan));
  };
  auto loop = [&](auto sw) {
    if (one) {  // one vector: mode 1's scalar broadcast, or mode 2's block exactly a vector
      const auto x = widen(x16);
      for (; j + N <= size_t(C); j += N) step(sw, x);
#if HWY_TARGET <= HWY_AVX3
      if (j < size_t(C)) {
        MaskedTail(d16, full, dst, j, size_t(C), [&](auto a) {
          const auto f = widen(a);
          return narrow(sw ? FloatOp<op>(df, x, f, nan) : FloatOp<op>(df, f, x, nan));
        });
        j = size_t(C);
      }
#endif
    }
    for (; j + N <= size_t(C); j += N) step(sw, widen(hn::LoadU(d16, pat + (j & Pm))));
  };
  if (swap)
    loop(std::true_type{});
  else
    loop(std::false_type{});
  // EXPDIF: dst holds d = round_fp16(src0 - src1); e^d from the element-op core's fp16 table (the
  // bits of ops::exp_f16, spec 15 §1), looked up here (a call per row cost 2-4% at 256x256).
  if constexpr (op == Op::EXPDIF && !kBF16) {
    static const uint16_t* const t =
        ::tilesim::ops::math_table16(::tilesim::ops::MathFn::exp, formats::DType::fp16);
    for (size_t k = 0; k < j; ++k) dst[k] = t[dst[k]];
  }
  if constexpr (op == Op::EXPDIF && kBF16) j = 0;  // not a legal dtype (spec 20 §2); reference
  Tail(op, kBF16 ? Elem::bf16 : Elem::f16, full8, xs8, dst8, int(j), C, Ex, swap);
}

template <Op op, class T>
HWY_INLINE void RowInt(const uint8_t* full8, const uint8_t* xs8, uint8_t* dst8, int C, int Ex,
                       bool swap) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const auto* full = reinterpret_cast<const T*>(full8);
  auto* dst = reinterpret_cast<T*>(dst8);
  T xv[32] = {};
  CopyExpanded(xv, xs8, Ex);
  size_t j = 0;
  constexpr bool kSimd = op == Op::ADD || op == Op::SUB || op == Op::MAX || op == Op::MIN ||
                         (op == Op::MUL && sizeof(T) >= 2);
  if constexpr (kSimd) {
    HWY_ALIGN T pat[256];
    auto xvec = hn::Zero(d);
    const bool one = ExpandedVector(d, xs8, xv, Ex, xvec);
    const size_t P = one ? N : FillPattern(pat, xv, N, Ex);
    auto apply = [&](auto a, auto b) {
      if constexpr (op == Op::ADD)
        return hn::Add(a, b);
      else if constexpr (op == Op::SUB)
        return hn::Sub(a, b);
      else if constexpr (op == Op::MUL)
        return hn::Mul(a, b);
      else if constexpr (op == Op::MAX)
        return hn::Max(a, b);
      else
        return hn::Min(a, b);
    };
    const size_t Pm = P - 1;
    auto loop = [&](auto sw) {
      if (one) {
        const auto x = xvec;
        for (; j + N <= size_t(C); j += N) {
          const auto f = hn::LoadU(d, full + j);
          hn::StoreU(sw ? apply(x, f) : apply(f, x), d, dst + j);
        }
#if HWY_TARGET <= HWY_AVX3
        if (j < size_t(C)) {
          MaskedTail(d, full, dst, j, size_t(C),
                     [&](auto f) { return sw ? apply(x, f) : apply(f, x); });
          j = size_t(C);
        }
#endif
      }
      for (; j + N <= size_t(C); j += N) {
        const auto f = hn::LoadU(d, full + j);
        const auto x = hn::Load(d, pat + (j & Pm));
        hn::StoreU(sw ? apply(x, f) : apply(f, x), d, dst + j);
      }
    };
    if (swap)
      loop(std::true_type{});
    else
      loop(std::false_type{});
    Tail(op, elem_of_value<T>(), full8, xs8, dst8, int(j), C, Ex, swap);
  } else {
    // 8-bit MUL and integer DIV: the scalar definition, specialised (no SIMD op in Highway 1.0.3).
    for (; j < size_t(C); ++j) {
      T a, b;
      std::memcpy(&a, full + j, sizeof(T));
      b = xv[j & size_t(Ex - 1)];
      dst[j] = swap ? ops::iarith<op>(b, a) : ops::iarith<op>(a, b);
    }
  }
  (void)N;
}

// A whole tile (or a thread's share of rows): one indirect call, the row loop inlined.
template <void (*Row)(const uint8_t*, const uint8_t*, uint8_t*, int, int, bool)>
void Rows(const RowsArgs& a) {
  const size_t xstride = size_t(a.Ex) * a.elem;
  for (size_t i = 0; i < a.n; ++i)
    Row(a.full + i * a.full_stride, a.xs + i * xstride, a.dst + i * a.dst_stride, a.C, a.Ex,
        a.swap);
}

#if HWY_TARGET <= HWY_AVX3
// fp32 over rows stored back to back (full and dst without padding, C >= one vector), mode 1 and
// mode 2 with C a multiple of the block's 8 values: one flat loop over the whole share of rows
// instead of a loop per row, with the aligned peel once; the vector that crosses a row boundary
// takes each row's scalar (block) in its own lanes. Saves the per-row peel, tail and loop exit
// (256x256 SUB: 3.3 -> 2.6 us in one interleaved run). In mode 2, C % 8 == 0 makes the block
// value of every lane depend only on its flat index mod 8, so each row's block is one vector,
// rotated by the peel, for every vector of the row and both sides of a crossing. MAX/MIN choose
// each row's formula as RowF32 does; a crossing vector takes the general one. Not EXPDIF (RowsF32).
template <Op op>
HWY_INLINE bool FlatF32(const RowsArgs& a) {
  static_assert(op != Op::EXPDIF, "EXPDIF keeps the per-row loop (RowsF32)");
  using VF = hn::Vec<hn::ScalableTag<float>>;
  const hn::ScalableTag<float> df;
  const hn::Half<decltype(df)> dh;
  const hn::RebindToUnsigned<decltype(df)> du;
  const size_t N = hn::Lanes(df), C = size_t(a.C);
  const bool block = a.Ex == 8 && N == 16 && C % 8 == 0;  // mode 2
  if ((a.Ex != 1 && !block) || C < N || a.full_stride != C * 4 || a.dst_stride != C * 4 ||
      a.n == 0)
    return false;
  const auto* full = reinterpret_cast<const float*>(a.full);
  auto* dst = reinterpret_cast<float*>(a.dst);
  // Lane l of a vector at flat index j (j - j0 a multiple of N) takes block value (j0 + l) mod 8.
  auto idx = RotationIndices(df, 0, 8);
  auto xs = [&](size_t r) {
    if (block) {
      const auto blk = hn::LoadU(dh, reinterpret_cast<const float*>(a.xs + r * 32));
      return hn::TableLookupLanes(hn::ZeroExtendVector(df, blk), idx);
    }
    float v;
    std::memcpy(&v, a.xs + r * 4, 4);
    return hn::Set(df, v);
  };
  const VF nan = InRegister(hn::BitCast(df, hn::Set(du, ops::kNanF32)));
  auto run = [&](auto fn) {
    size_t j = 0;
    const auto mis = reinterpret_cast<uintptr_t>(full) & 63;
    if (mis % 4 == 0 && mis != 0) {  // (64 - mis) / 4 < N <= C: within row 0
      j = (64 - mis) / 4;
      hn::BlendedStore(fn(hn::LoadU(df, full), xs(0)), hn::FirstN(df, j), df, dst);
      idx = RotationIndices(df, j, 8);
    }
    for (size_t r = 0; r < a.n; ++r) {
      const size_t end = (r + 1) * C;
      const VF x = InRegister(xs(r));
      auto interior = [&](auto f_row) TILESIM_ALWAYS_INLINE {
        for (; j + N <= end; j += N) hn::StoreU(f_row(hn::LoadU(df, full + j), x), df, dst + j);
      };
      if constexpr (op == Op::MAX || op == Op::MIN) {  // the row's formula, as in RowF32
        float xv;
        std::memcpy(&xv, a.xs + r * (block ? 32 : 4), 4);
        uint32_t xb;
        std::memcpy(&xb, &xv, 4);
        const bool nan_x = block ? !hn::AllFalse(df, hn::IsNaN(x)) : std::isnan(xv);
        const bool zero_x = block ? !hn::AllFalse(df, hn::Eq(x, hn::Zero(df))) : xv == 0.0f;
        WithMaxMinFormula<op>(!block, xb, nan_x, zero_x, nan, interior);
      } else {
        interior(fn);
      }
      if (j == end) continue;
      // fn is the general formula for MAX/MIN: right for any mix of the two rows' scalars.
      const auto m = hn::FirstN(df, end - j);  // the lanes still in row r
      if (r + 1 < a.n) {  // C >= N: the rest lies in row r + 1
        hn::StoreU(fn(hn::LoadU(df, full + j), hn::IfThenElse(m, x, xs(r + 1))), df, dst + j);
        j += N;
      } else {
        hn::BlendedStore(fn(hn::MaskedLoad(m, df, full + j), x), m, df, dst + j);
        j = end;
      }
    }
  };
  if constexpr (op == Op::MAX || op == Op::MIN) {
    run([&](VF f, VF x) { return FloatOp<op>(df, f, x, nan); });  // symmetric (spec 20 §4)
  } else if (a.swap) {
    run([&](VF f, VF x) { return FloatOp<op>(df, x, f, nan); });
  } else {
    run([&](VF f, VF x) { return FloatOp<op>(df, f, x, nan); });
  }
  return true;
}
#endif

template <Op op>
void RowsF32(const RowsArgs& a) {
#if HWY_TARGET <= HWY_AVX3
  // EXPDIF keeps the per-row loop: in the flat one it ran 11-13% slower (256x256 and 1024x1024,
  // both modes, interleaved in one process), its exp's constants competing for registers.
  if constexpr (op != Op::EXPDIF)
    if (FlatF32<op>(a)) return;
#endif
  Rows<&RowF32<op>>(a);
}

template <Op op>
RowsFn RowFor(Elem dt) {
  switch (dt) {
    case Elem::f32:
      return &RowsF32<op>;
    case Elem::f16:
      if constexpr (op == Op::MAX || op == Op::MIN) return &Rows<&RowMaxMin16<op, false>>;
      return &Rows<&Row16<op, false>>;
    case Elem::bf16:
      if constexpr (op == Op::MAX || op == Op::MIN) return &Rows<&RowMaxMin16<op, true>>;
      return &Rows<&Row16<op, true>>;
    case Elem::s8:
      return &Rows<&RowInt<op, int8_t>>;
    case Elem::s16:
      return &Rows<&RowInt<op, int16_t>>;
    case Elem::s32:
      return &Rows<&RowInt<op, int32_t>>;
    case Elem::u8:
      return &Rows<&RowInt<op, uint8_t>>;
    case Elem::u16:
      return &Rows<&RowInt<op, uint16_t>>;
    case Elem::u32:
      return &Rows<&RowInt<op, uint32_t>>;
    case Elem::s64:
    case Elem::u64:
      break;  // no TROWEXPAND* dtype (spec 20 §2): rejected before any kernel is chosen
  }
  return nullptr;
}

RowsFn GetRow(int op, int dt) {
  const Elem e = Elem(dt);
  switch (Op(op)) {
    case Op::ADD:
      return RowFor<Op::ADD>(e);
    case Op::SUB:
      return RowFor<Op::SUB>(e);
    case Op::MUL:
      return RowFor<Op::MUL>(e);
    case Op::DIV:
      return RowFor<Op::DIV>(e);
    case Op::MAX:
      return RowFor<Op::MAX>(e);
    case Op::MIN:
      return RowFor<Op::MIN>(e);
    case Op::EXPDIF:
      return RowFor<Op::EXPDIF>(e);
  }
  return nullptr;
}

}  // namespace tilesim::pto::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::pto::kernels {
HWY_EXPORT(GetRow);

RowsFn fast_rows(Op op, Elem dt) {
  return HWY_DYNAMIC_DISPATCH(GetRow)(int(op), int(dt));
}
}  // namespace tilesim::pto::kernels
#endif
