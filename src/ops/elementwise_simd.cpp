// SIMD kernels of the element-op core (spec 15 §5), written once and compiled per Highway target
// (spec 70 "Highway"). Each lane computes exactly the scalar definition of op_table.hpp: fp32
// arithmetic is IEEE RNE lane by lane, NaN results are made canonical, max/min use the same
// bitwise rule for equal values, integers wrap; fp16/bf16 widen exactly to fp32 and round once
// (F16C's vcvtps2ph is RNE in hardware on AVX2 and AVX3; bf16 by the integer RNE of the formats
// core). Tails run the scalar definition. A kernel works on `rows` rows of n elements at byte
// strides (stride 0: the same row for every row), so a walker makes one call per instruction.
// Ops with no kernel here return false and the caller runs the scalar loop.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/elementwise_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstring>
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

// The walk of a one-operand 16-bit kernel: vec(x + i, o + i) for each whole vector of N lanes of
// each row, one(x[i]) -> o[i] for the tail.
template <class Vec, class One>
HWY_INLINE void Rows16(const void* a, size_t as, void* d, size_t ds, size_t rows, size_t n,
                       size_t N, Vec&& vec, One&& one) {
  for (size_t r = 0; r < rows; ++r) {
    const uint16_t* x = Row<uint16_t>(a, as, r);
    uint16_t* o = RowW<uint16_t>(d, ds, r);
    size_t i = 0;
    for (; i + N <= n; i += N) vec(x + i, o + i);
    for (; i < n; ++i) o[i] = one(x[i]);
  }
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

// The op with a canonical NaN result (spec 00): for + - * / a NaN result arises exactly where the
// lane is NaN after the op (max/min canonicalise inside F32Op).
template <Op op, class V>
HWY_INLINE V F32Full(V a, V b) {
  const V r = F32Op<op>(a, b);
  if constexpr (op == Op::max || op == Op::min) return r;
  return Canonical(r);
}

template <Op op, Mode m>
HWY_INLINE float F32Scalar(float a, float b) {
  return def::canon(m == kST ? def::fbinary<op>(b, a) : def::fbinary<op>(a, b));
}

template <Op op, Mode m>
HWY_NOINLINE void F32Binary(const void* a, size_t as, const void* b, size_t bs, float s, void* d,
                            size_t ds, size_t rows, size_t n) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  const auto vs = hn::Set(df, s);
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
    constexpr bool kCanon = op != Op::max && op != Op::min;  // max/min: canonical already
    size_t i = 0;
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
using DF = hn::ScalableTag<float>;
using DU16 = hn::Rebind<uint16_t, DF>;
using DU32 = hn::RebindToUnsigned<DF>;

template <bool kBf16>
HWY_INLINE hn::Vec<DF> Widen(const uint16_t* p) {
  const DF df;
  const DU16 d16;
  if constexpr (kBf16) {
    const DU32 du;
    return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(d16, p))));
  } else {
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::PromoteTo(df, hn::BitCast(dh, hn::LoadU(d16, p)));  // vcvtph2ps: exact
  }
}
template <bool kBf16>
HWY_INLINE void Narrow(hn::Vec<DF> v, uint16_t* p) {
  const DF df;
  const DU16 d16;
  const DU32 du;
  const auto nan = hn::IsNaN(v);
  if constexpr (kBf16) {  // RNE on the bits (the formats core's f32_to_bf16)
    const auto b = hn::BitCast(du, v);
    const auto odd = hn::And(hn::ShiftRight<16>(b), hn::Set(du, 1u));
    auto r = hn::ShiftRight<16>(hn::Add(b, hn::Add(hn::Set(du, 0x7FFFu), odd)));
    r = hn::IfThenElse(hn::RebindMask(du, nan), hn::Set(du, 0x7FC0u), r);
    const hn::RebindToSigned<DF> di;
    hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, r)), d16, p);  // values < 2^16: exact
  } else {
    // The canonical fp32 NaN converts to the canonical fp16 NaN 0x7E00 (as convert_simd.cpp).
    const hn::Rebind<hwy::float16_t, DF> dh;
    const auto c = hn::IfThenElse(nan, hn::BitCast(df, hn::Set(du, 0x7FC00000u)), v);
    hn::StoreU(hn::BitCast(d16, hn::DemoteTo(dh, c)), d16, p);  // vcvtps2ph: RNE
  }
}

template <Op op, Mode m, bool kBf16>
HWY_NOINLINE void HalfBinary(const void* a, size_t as, const void* b, size_t bs, float s, void* d,
                             size_t ds, size_t rows, size_t n) {
  const DF df;
  const size_t N = hn::Lanes(df);
  const auto vs = hn::Set(df, s);
  const DType t = kBf16 ? DType::bf16 : DType::fp16;
  const uint64_t sc = kBf16 ? formats::f32_to_bf16(s) : formats::f32_to_f16(s);
  for (size_t r = 0; r < rows; ++r) {
    const uint16_t* x = Row<uint16_t>(a, as, r);
    const uint16_t* y = m == kTT ? Row<uint16_t>(b, bs, r) : nullptr;
    uint16_t* o = RowW<uint16_t>(d, ds, r);
    size_t i = 0;
    for (; i + N <= n; i += N) {
      const auto vx = Widen<kBf16>(x + i);
      hn::Vec<DF> res;
      if constexpr (m == kTT) res = F32Op<op>(vx, Widen<kBf16>(y + i));
      else if constexpr (m == kTS) res = F32Op<op>(vx, vs);
      else res = F32Op<op>(vs, vx);
      Narrow<kBf16>(res, o + i);  // a NaN lane becomes the canonical NaN of T here
    }
    for (; i < n; ++i) {
      const uint64_t yc = m == kTT ? y[i] : sc;
      o[i] = uint16_t(m == kST ? eval(op, t, yc, x[i]) : eval(op, t, x[i], yc));
    }
  }
}

// fp16/bf16 sqrt and recip: the fp32 operation (vsqrtps, vdivps) on the exactly widened value,
// rounded once to T. That is the correctly rounded result spec 15 asks for: rounding to fp32
// (p' = 24 bits) and then to T (p = 11 for fp16, 8 for bf16) equals one rounding of the exact
// value whenever p' >= 2p + 2, for + - * / and sqrt (S. A. Figueroa, "When is double rounding
// innocuous?", ACM SIGNUM Newsletter 30(3), 1995). math_f16/math_bf16 (the definition) compute it
// the same way in scalar code; tests/ops checks all 65536 codes on every target.
template <Op op, bool kBf16>
HWY_NOINLINE void HalfRoot(const void* a, size_t as, void* d, size_t ds, size_t rows, size_t n) {
  const DF df;
  const size_t N = hn::Lanes(df);
  const auto one = hn::Set(df, 1.0f);
  const DType t = kBf16 ? DType::bf16 : DType::fp16;
  Rows16(
      a, as, d, ds, rows, n, N,
      [&](const uint16_t* x, uint16_t* o) HWY_ATTR {
        const auto v = Widen<kBf16>(x);
        Narrow<kBf16>(op == Op::sqrt ? hn::Sqrt(v) : hn::Div(one, v), o);  // NaN -> canonical
      },
      [&](uint16_t c) { return uint16_t(eval(op, t, c)); });
}
#endif

// fp16/bf16 abs, neg and relu on the codes: the sign bit cleared / flipped, a negative code
// (-0 included) made +0, a NaN made canonical (spec 15 §1) — no widening needed.
template <Op op, bool kBf16>
HWY_NOINLINE void HalfSign(const void* a, size_t as, void* d, size_t ds, size_t rows, size_t n) {
  const hn::ScalableTag<uint16_t> du;
  const size_t N = hn::Lanes(du);
  const auto mag_mask = hn::Set(du, uint16_t(0x7FFF));
  const auto inf = hn::Set(du, uint16_t(kBf16 ? 0x7F80 : 0x7C00));
  const auto qnan = hn::Set(du, uint16_t(kBf16 ? 0x7FC0 : 0x7E00));
  const auto sign = hn::Set(du, uint16_t(0x8000));
  const DType t = kBf16 ? DType::bf16 : DType::fp16;
  Rows16(
      a, as, d, ds, rows, n, N,
      [&](const uint16_t* x, uint16_t* o) HWY_ATTR {
        const auto v = hn::LoadU(du, x);
        const auto mag = hn::And(v, mag_mask);
        const auto res = op == Op::abs   ? mag
                         : op == Op::neg ? hn::Xor(v, sign)
                                         : hn::IfThenZeroElse(hn::Ne(mag, v), v);  // relu: sign set -> +0
        hn::StoreU(hn::IfThenElse(hn::Gt(mag, inf), qnan, res), du, o);
      },
      [&](uint16_t c) { return uint16_t(eval(op, t, c)); });
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
// lanes a vector, so whole bytes of bits.
template <Op op, bool kBf16>
HWY_NOINLINE void HalfCompareBits(const void* a, size_t as, const void* b, size_t bs,
                                  bool b_scalar, float s, uint8_t* out, size_t os, size_t rows,
                                  size_t n) {
  const DF df;
  const auto vs = hn::Set(df, s);
  auto widen1 = [](uint16_t c) { return kBf16 ? formats::bf16_to_f32(c) : formats::f16_to_f32(c); };
  BitsRows<uint16_t>(
      df, a, as, b, bs, b_scalar, out, os, rows, n,
      [&](const uint16_t* x, const uint16_t* y) HWY_ATTR {
        return CmpMask<op>(Widen<kBf16>(x), y ? Widen<kBf16>(y) : vs);
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
bool BinaryMode(Op op, DType t, const Rows2& g, uint64_t s) {
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
#if HWY_TARGET <= HWY_AVX2  // F16C: targets below take the chunked fp32 route
  if (t == DType::fp16 || t == DType::bf16) {
    const float fs = t == DType::fp16 ? formats::f16_to_f32(uint16_t(s))
                                      : formats::bf16_to_f32(uint16_t(s));
    const bool bf = t == DType::bf16;
    switch (op) {
#define TILESIM_K(o)                                                                         \
  case Op::o:                                                                                \
    if (bf) HalfBinary<Op::o, m, true>(g.a, g.as, g.b, g.bs, fs, g.d, g.ds, g.rows, g.n);    \
    else HalfBinary<Op::o, m, false>(g.a, g.as, g.b, g.bs, fs, g.d, g.ds, g.rows, g.n);      \
    return true;
      TILESIM_K(add) TILESIM_K(sub) TILESIM_K(mul) TILESIM_K(div) TILESIM_K(max) TILESIM_K(min)
#undef TILESIM_K
      default: return false;
    }
  }
#endif
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

bool BinaryImpl(Op op, DType t, const Rows2& g, bool b_scalar, uint64_t s, bool s_first) {
  if (!b_scalar) return BinaryMode<kTT>(op, t, g, s);
  return s_first ? BinaryMode<kST>(op, t, g, s) : BinaryMode<kTS>(op, t, g, s);
}

// Calls run(op constant, bf16 constant) for a 16-bit float kernel serving the two ops o1 and o2.
template <Op o1, Op o2, class F>
HWY_INLINE void HalfKernel(Op op, DType t, F&& run) {
  using B1 = std::true_type;
  using B0 = std::false_type;
  const bool bf = t == DType::bf16;
  if (op == o1) bf ? run(std::integral_constant<Op, o1>(), B1()) : run(std::integral_constant<Op, o1>(), B0());
  else bf ? run(std::integral_constant<Op, o2>(), B1()) : run(std::integral_constant<Op, o2>(), B0());
}

bool UnaryImpl(Op op, DType t, const Rows2& g) {
  const bool half = t == DType::fp16 || t == DType::bf16;
  if (half && (op == Op::abs || op == Op::neg)) {
    HalfKernel<Op::abs, Op::neg>(op, t, [&](auto o, auto bf) {
      HalfSign<decltype(o)::value, decltype(bf)::value>(g.a, g.as, g.d, g.ds, g.rows, g.n);
    });
    return true;
  }
  if (half && op == Op::relu) {
    HalfKernel<Op::relu, Op::relu>(op, t, [&](auto o, auto bf) {
      HalfSign<decltype(o)::value, decltype(bf)::value>(g.a, g.as, g.d, g.ds, g.rows, g.n);
    });
    return true;
  }
#if HWY_TARGET <= HWY_AVX2  // F16C: targets below take the 65536-entry tables (math_array)
  if (half && (op == Op::sqrt || op == Op::recip)) {
    HalfKernel<Op::sqrt, Op::recip>(op, t, [&](auto o, auto bf) {
      HalfRoot<decltype(o)::value, decltype(bf)::value>(g.a, g.as, g.d, g.ds, g.rows, g.n);
    });
    return true;
  }
#endif
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

}  // namespace tilesim::ops::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::ops::simd {
HWY_EXPORT(BinaryImpl);
HWY_EXPORT(UnaryImpl);
HWY_EXPORT(CompareImpl);
HWY_EXPORT(SelectImpl);

bool binary(Op op, DType t, const Rows2& g, bool b_scalar, uint64_t s, bool scalar_first) {
  return HWY_DYNAMIC_DISPATCH(BinaryImpl)(op, t, g, b_scalar, s, scalar_first);
}
bool unary(Op op, DType t, const Rows2& g) {
  return HWY_DYNAMIC_DISPATCH(UnaryImpl)(op, t, g);
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
