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
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "pto/kernels.hpp"
#include "pto/ops.hpp"

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
// at column j (a multiple of lanes) reads pat + j mod P (mode 2's 32-byte block repeated).
template <class S>
HWY_INLINE size_t FillPattern(S* pat, const S* xs, size_t lanes, int Ex) {
  const size_t P = std::max(lanes, size_t(Ex));  // both powers of two
  if (Ex == 1) {
    for (size_t k = 0; k < P; ++k) pat[k] = xs[0];
  } else {
    const size_t n = std::min(size_t(Ex), 32 / sizeof(S));  // Ex = 32/sizeof(T): one 32-byte block
    for (size_t k = 0; k < P; k += n) std::memcpy(pat + k, xs, n * sizeof(S));
  }
  return P;
}

template <Op op, class DF, class VF>
HWY_INLINE VF FloatOp(DF df, VF a, VF b) {
  const hn::RebindToUnsigned<DF> du;
  const VF nan = hn::BitCast(df, hn::Set(du, ops::kNanF32));
  if constexpr (op == Op::MAX || op == Op::MIN) {
    // spec 20 §4: NaN if either is NaN; equal values combine bitwise (max(-0,+0) = +0).
    const auto ua = hn::BitCast(du, a), ub = hn::BitCast(du, b);
    const VF eqv = hn::BitCast(df, op == Op::MAX ? hn::And(ua, ub) : hn::Or(ua, ub));
    const VF pick =
        op == Op::MAX ? hn::IfThenElse(hn::Gt(a, b), a, b) : hn::IfThenElse(hn::Lt(a, b), a, b);
    const VF r = hn::IfThenElse(hn::Eq(a, b), eqv, pick);
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

// e^d for fp32 d in place, the same bits as ops::exp_f32 (round_fp32(std::exp(double d)), spec 20
// §4): a SIMD double exp (Highway, <= 1 ulp of double) rounded to fp32 is the correctly rounded
// result unless the double lies within 2^12 double ulps of an fp32 rounding midpoint, or outside
// the normal fp32 range, or d outside [-88, 89]; those lanes (and NaN) take the scalar definition.
HWY_INLINE void ExpF32InPlace(float* p, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const hn::RebindToSigned<decltype(dd)> di;
  const size_t N = hn::Lanes(dd);
  const auto low_mask = hn::Set(di, (int64_t(1) << 29) - 1);
  const auto near_lo = hn::Set(di, (int64_t(1) << 28) - (int64_t(1) << 12));
  const auto near_w = hn::Set(di, int64_t(1) << 13);
  const auto zero = hn::Zero(di);
  const auto lo = hn::Set(dd, 0x1p-126), hi = hn::Set(dd, 3.4028234663852886e38);
  const auto dmin = hn::Set(dd, -88.0), dmax = hn::Set(dd, 89.0);  // e^d in (2^-127, 2^128.4)
  size_t k = 0;
  for (; k + N <= n; k += N) {
    const auto dv = hn::PromoteTo(dd, hn::LoadU(df, p + k));
    const auto e = hn::Exp(dd, dv);  // only trusted inside Highway's valid input range:
    const auto off = hn::Sub(hn::And(hn::BitCast(di, e), low_mask), near_lo);
    const auto near = hn::And(hn::Not(hn::Lt(off, zero)), hn::Lt(off, near_w));
    const auto in = hn::And(hn::Ge(dv, dmin), hn::Le(dv, dmax));
    const auto safe =
        hn::AndNot(hn::RebindMask(dd, near), hn::And(in, hn::And(hn::Ge(e, lo), hn::Le(e, hi))));
    if (HWY_LIKELY(hn::AllTrue(dd, safe))) {
      hn::StoreU(hn::DemoteTo(df, e), df, p + k);
    } else {
      for (size_t l = 0; l < N; ++l) p[k + l] = ops::exp_f32(p[k + l]);
    }
  }
  for (; k < n; ++k) p[k] = ops::exp_f32(p[k]);
}

template <Op op>
HWY_INLINE void RowF32(const uint8_t* full8, const uint8_t* xs8, uint8_t* dst8, int C, int Ex,
                       bool swap) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  const auto* full = reinterpret_cast<const float*>(full8);
  auto* dst = reinterpret_cast<float*>(dst8);
  HWY_ALIGN float pat[256];
  float xv[32];
  std::memcpy(xv, xs8, size_t(Ex) * 4);
  const size_t P = FillPattern(pat, xv, N, Ex);
  size_t j = 0;
  const size_t Pm = P - 1;
  auto loop = [&](auto sw) {
    if (P == N) {  // the pattern is one vector (mode 1, or a block no wider than a vector)
      const auto x = hn::Load(df, pat);
      for (; j + N <= size_t(C); j += N) {
        const auto f = hn::LoadU(df, full + j);
        hn::StoreU(sw ? FloatOp<op>(df, x, f) : FloatOp<op>(df, f, x), df, dst + j);
      }
    }
    for (; j + N <= size_t(C); j += N) {
      const auto f = hn::LoadU(df, full + j);
      const auto x = hn::Load(df, pat + (j & Pm));
      hn::StoreU(sw ? FloatOp<op>(df, x, f) : FloatOp<op>(df, f, x), df, dst + j);
    }
  };
  if (swap)
    loop(std::true_type{});
  else
    loop(std::false_type{});
  if constexpr (op == Op::EXPDIF) ExpF32InPlace(dst, j);  // d was rounded to fp32 above
  Tail(op, Elem::f32, full8, xs8, dst8, int(j), C, Ex, swap);
}

// The EXPDIF table for fp16: e^d for every code d, from the scalar definition (ops::exp_f16).
const uint16_t* ExpF16Table() {
  static const uint16_t* table = [] {
    static uint16_t t[65536];
    for (uint32_t c = 0; c < 65536; ++c) t[c] = ops::exp_f16(uint16_t(c));
    return t;
  }();
  return table;
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
  uint16_t xv[32];
  std::memcpy(xv, xs8, size_t(Ex) * 2);
  const size_t P = FillPattern(pat, xv, N, Ex);
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
  auto step = [&](auto sw, auto x) {
    const auto f = widen(hn::LoadU(d16, full + j));
    const auto r = sw ? FloatOp<op>(df, x, f) : FloatOp<op>(df, f, x);
    if constexpr (kF16C) {
      hn::StoreU(hn::BitCast(d16, hn::DemoteTo(dh, r)), d16, dst + j);
    } else {
      const auto bits = kBF16 ? F32ToBF16(df, r) : F32ToF16(df, r);
      hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, bits)), d16, dst + j);
    }
  };
  auto loop = [&](auto sw) {
    if (P == N) {
      const auto x = widen(hn::LoadU(d16, pat));
      for (; j + N <= size_t(C); j += N) step(sw, x);
    }
    for (; j + N <= size_t(C); j += N) step(sw, widen(hn::LoadU(d16, pat + (j & Pm))));
  };
  if (swap)
    loop(std::true_type{});
  else
    loop(std::false_type{});
  if constexpr (op == Op::EXPDIF && !kBF16) {
    const uint16_t* t = ExpF16Table();  // dst holds d = round_fp16(src0 - src1)
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
  T xv[32];
  std::memcpy(xv, xs8, size_t(Ex) * sizeof(T));
  size_t j = 0;
  constexpr bool kSimd = op == Op::ADD || op == Op::SUB || op == Op::MAX || op == Op::MIN ||
                         (op == Op::MUL && sizeof(T) >= 2);
  if constexpr (kSimd) {
    HWY_ALIGN T pat[256];
    const size_t P = FillPattern(pat, xv, N, Ex);
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
      if (P == N) {
        const auto x = hn::Load(d, pat);
        for (; j + N <= size_t(C); j += N) {
          const auto f = hn::LoadU(d, full + j);
          hn::StoreU(sw ? apply(x, f) : apply(f, x), d, dst + j);
        }
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

template <Op op>
RowsFn RowFor(Elem dt) {
  switch (dt) {
    case Elem::f32:
      return &Rows<&RowF32<op>>;
    case Elem::f16:
      return &Rows<&Row16<op, false>>;
    case Elem::bf16:
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
