// SIMD kernels of the element-op core (spec 15 §5), written once and compiled per Highway target
// (spec 70 "Highway"). Each lane computes exactly the scalar definition of op_table.hpp: fp32
// arithmetic is IEEE RNE lane by lane, NaN results are made canonical, max/min use the same
// bitwise rule for equal values, integers wrap. Tails run the scalar definition. Ops with no
// kernel here return false and the caller runs the scalar loop.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/elementwise_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstring>

#include "ops/elementwise.hpp"

HWY_BEFORE_NAMESPACE();
namespace tilesim::ops::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- fp32 ----
template <Op op, class V>
HWY_INLINE V F32Op(V a, V b) {
  const hn::DFromV<V> d;
  if constexpr (op == Op::add) return hn::Add(a, b);
  else if constexpr (op == Op::sub) return hn::Sub(a, b);
  else if constexpr (op == Op::mul) return hn::Mul(a, b);
  else if constexpr (op == Op::div) return hn::Div(a, b);
  else {
    // max/min: the larger/smaller; equal values combine bitwise (±0); NaN is handled by the caller.
    const hn::RebindToUnsigned<decltype(d)> du;
    const auto ua = hn::BitCast(du, a), ub = hn::BitCast(du, b);
    const auto eq = hn::RebindMask(d, hn::Eq(a, b));
    if constexpr (op == Op::max)
      return hn::IfThenElse(eq, hn::BitCast(d, hn::And(ua, ub)),
                            hn::IfThenElse(hn::Gt(a, b), a, b));
    else
      return hn::IfThenElse(eq, hn::BitCast(d, hn::Or(ua, ub)),
                            hn::IfThenElse(hn::Lt(a, b), a, b));
  }
}

// Canonical NaN (spec 00): for + - * / a NaN result arises exactly where the lane is NaN after the
// op; for max/min wherever an input is NaN.
template <Op op, class V>
HWY_INLINE V F32Canon(V a, V b, V r) {
  const hn::DFromV<V> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const V qnan = hn::BitCast(d, hn::Set(du, 0x7FC00000u));
  if constexpr (op == Op::max || op == Op::min)
    return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), qnan, r);
  else
    return hn::IfThenElse(hn::IsNaN(r), qnan, r);
}

template <Op op>
HWY_NOINLINE void F32Binary(const float* a, const float* b, bool b_scalar, float s, bool s_first,
                            float* dst, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto vs = hn::Set(d, s);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    auto x = hn::LoadU(d, a + i);
    auto y = b_scalar ? vs : hn::LoadU(d, b + i);
    if (s_first) std::swap(x, y);
    hn::StoreU(F32Canon<op>(x, y, F32Op<op>(x, y)), d, dst + i);
  }
  for (; i < n; ++i) {
    float x = a[i], y = b_scalar ? s : b[i];
    if (s_first) std::swap(x, y);
    dst[i] = def::canon(def::fbinary<op>(x, y));
  }
}

template <Op op>
HWY_NOINLINE void F32Unary(const float* a, float* dst, size_t n) {
  const hn::ScalableTag<float> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const size_t N = hn::Lanes(d);
  const auto qnan = hn::BitCast(d, hn::Set(du, 0x7FC00000u));
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto x = hn::LoadU(d, a + i);
    hn::Vec<decltype(d)> r;
    if constexpr (op == Op::abs) r = hn::Abs(x);
    else if constexpr (op == Op::neg) r = hn::Neg(x);
    else r = hn::IfThenElse(hn::Gt(x, hn::Zero(d)), x, hn::Zero(d));  // relu
    hn::StoreU(hn::IfThenElse(hn::IsNaN(x), qnan, r), d, dst + i);
  }
  for (; i < n; ++i) dst[i] = def::funary<op>(a[i]);
}

// ---- integers ----
template <class T>
constexpr bool kHasMul = sizeof(T) == 2 || sizeof(T) == 4;

template <Op op, class T>
constexpr bool IntBinaryHasKernel() {
  if constexpr (op == Op::add || op == Op::sub || op == Op::band || op == Op::bor ||
                op == Op::bxor)
    return true;
  else if constexpr (op == Op::max || op == Op::min)
    return sizeof(T) <= 4;
  else if constexpr (op == Op::mul)
    return kHasMul<T>;
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

template <Op op, class T>
HWY_NOINLINE void IntBinary(const T* a, const T* b, bool b_scalar, T s, bool s_first, T* dst,
                            size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const auto vs = hn::Set(d, s);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    auto x = hn::LoadU(d, a + i);
    auto y = b_scalar ? vs : hn::LoadU(d, b + i);
    if (s_first) std::swap(x, y);
    hn::StoreU(IntOp<op>(x, y), d, dst + i);
  }
  for (; i < n; ++i) {
    T x = a[i], y = b_scalar ? s : b[i];
    if (s_first) std::swap(x, y);
    dst[i] = def::integer<op, T>(x, y);
  }
}

template <Op op, class T>
HWY_NOINLINE void IntUnary(const T* a, T* dst, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto x = hn::LoadU(d, a + i);
    hn::Vec<decltype(d)> r;
    if constexpr (op == Op::bnot) r = hn::Not(x);
    else if constexpr (op == Op::neg) r = hn::Sub(hn::Zero(d), x);  // wraps: -MIN = MIN
    else if constexpr (op == Op::abs) {
      if constexpr (hwy::IsSigned<T>())
        r = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Sub(hn::Zero(d), x), x);
      else
        r = x;
    } else {  // relu
      if constexpr (hwy::IsSigned<T>())
        r = hn::IfThenElse(hn::Gt(x, hn::Zero(d)), x, hn::Zero(d));
      else
        r = x;
    }
    hn::StoreU(r, d, dst + i);
  }
  for (; i < n; ++i) dst[i] = def::integer_unary<op, T>(a[i]);
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

bool BinaryImpl(Op op, DType t, const void* a, const void* b, bool b_scalar, uint64_t s,
                bool s_first, void* dst, size_t n) {
  if (t == DType::fp32) {
    const auto* fa = static_cast<const float*>(a);
    const auto* fb = static_cast<const float*>(b);
    auto* fd = static_cast<float*>(dst);
    const float fs = CodeAs<float>(s);
    switch (op) {
#define TILESIM_K(o) \
  case Op::o: F32Binary<Op::o>(fa, fb, b_scalar, fs, s_first, fd, n); return true;
      TILESIM_K(add) TILESIM_K(sub) TILESIM_K(mul) TILESIM_K(div) TILESIM_K(max) TILESIM_K(min)
#undef TILESIM_K
      default: return false;
    }
  }
  return ForIntType(t, [&](auto v) -> bool {
    using T = decltype(v);
    const auto* ta = static_cast<const T*>(a);
    const auto* tb = static_cast<const T*>(b);
    auto* td = static_cast<T*>(dst);
    const T ts = CodeAs<T>(s);
    switch (op) {
#define TILESIM_K(o)                                                \
  case Op::o:                                                       \
    if constexpr (IntBinaryHasKernel<Op::o, T>()) {                 \
      IntBinary<Op::o, T>(ta, tb, b_scalar, ts, s_first, td, n);    \
      return true;                                                  \
    }                                                               \
    return false;
      TILESIM_K(add) TILESIM_K(sub) TILESIM_K(mul) TILESIM_K(max) TILESIM_K(min) TILESIM_K(band)
      TILESIM_K(bor) TILESIM_K(bxor)
#undef TILESIM_K
      default: return false;
    }
  });
}

bool UnaryImpl(Op op, DType t, const void* a, void* dst, size_t n) {
  if (t == DType::fp32) {
    const auto* fa = static_cast<const float*>(a);
    auto* fd = static_cast<float*>(dst);
    switch (op) {
      case Op::abs: F32Unary<Op::abs>(fa, fd, n); return true;
      case Op::neg: F32Unary<Op::neg>(fa, fd, n); return true;
      case Op::relu: F32Unary<Op::relu>(fa, fd, n); return true;
      default: return false;
    }
  }
  return ForIntType(t, [&](auto v) -> bool {
    using T = decltype(v);
    const auto* ta = static_cast<const T*>(a);
    auto* td = static_cast<T*>(dst);
    switch (op) {
      case Op::bnot: IntUnary<Op::bnot, T>(ta, td, n); return true;
      case Op::neg: IntUnary<Op::neg, T>(ta, td, n); return true;
      case Op::abs: IntUnary<Op::abs, T>(ta, td, n); return true;
      case Op::relu: IntUnary<Op::relu, T>(ta, td, n); return true;
      default: return false;
    }
  });
}

}  // namespace tilesim::ops::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::ops::simd {
HWY_EXPORT(BinaryImpl);
HWY_EXPORT(UnaryImpl);

bool binary(Op op, DType t, const void* a, const void* b, void* dst, size_t n) {
  return HWY_DYNAMIC_DISPATCH(BinaryImpl)(op, t, a, b, false, 0, false, dst, n);
}
bool binary_scalar(Op op, DType t, const void* a, uint64_t s, bool scalar_first, void* dst,
                   size_t n) {
  return HWY_DYNAMIC_DISPATCH(BinaryImpl)(op, t, a, nullptr, true, s, scalar_first, dst, n);
}
bool unary(Op op, DType t, const void* a, void* dst, size_t n) {
  return HWY_DYNAMIC_DISPATCH(UnaryImpl)(op, t, a, dst, n);
}
}  // namespace tilesim::ops::simd
#endif
