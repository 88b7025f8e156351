// Highway SIMD for int_simd.hpp. With one dtype and no shift the exact sum or difference needs no
// 64-bit intermediate: saturation is an overflow test on the dtype's own lanes (Highway's
// saturating add/sub for 8- and 16-bit lanes; for 32-bit a sign test, which gives the bound the
// exact result passed), wrapping is the lanes' own modular add/sub.
#ifndef TILESIM_TPU_INT_SIMD_COMMON_
#define TILESIM_TPU_INT_SIMD_COMMON_
#include <algorithm>
#include <cstring>
#include <limits>

#include "tpu/int_simd.hpp"

namespace tilesim::tpu::isimd {

struct Args {
  bool sub, saturate, c_first;
  const uint8_t *a, *b;
  uint32_t c;
  uint8_t* d;
  size_t n;
};

// One element, exactly as the generic path: the int64 result, then clamp or the low bits.
template <class T>
inline T one(T x, T y, const Args& g) {
  if (g.c_first) std::swap(x, y);
  const int64_t r = g.sub ? int64_t(x) - int64_t(y) : int64_t(x) + int64_t(y);
  if (!g.saturate) return T(r);
  return T(std::clamp<int64_t>(r, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

}  // namespace tilesim::tpu::isimd
#endif  // TILESIM_TPU_INT_SIMD_COMMON_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tpu/int_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tilesim::tpu::isimd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class V = hn::Vec<D>>
HWY_INLINE V AddSub(D d, V x, V y, const Args& g) {
  using T = hn::TFromD<D>;
  if (!g.saturate) return g.sub ? hn::Sub(x, y) : hn::Add(x, y);
  if constexpr (sizeof(T) <= 2) {
    return g.sub ? hn::SaturatedSub(x, y) : hn::SaturatedAdd(x, y);
  } else if constexpr (hwy::IsSigned<T>()) {
    const V z = hn::Zero(d);
    const V r = g.sub ? hn::Sub(x, y) : hn::Add(x, y);
    // Overflow: add when x and y share a sign that r lacks; sub when x and y differ in sign and r
    // differs from x. The exact result then lies beyond the bound on x's side.
    const V t = g.sub ? hn::And(hn::Xor(x, y), hn::Xor(x, r)) : hn::And(hn::Xor(x, r), hn::Xor(y, r));
    const V bound = hn::IfThenElse(hn::Lt(x, z), hn::Set(d, hwy::LimitsMin<T>()), hn::Set(d, hwy::LimitsMax<T>()));
    return hn::IfThenElse(hn::Lt(t, z), bound, r);
  } else {
    // Unsigned: add overflows when the wrapped sum is below x, sub when y > x.
    if (g.sub) return hn::IfThenElse(hn::Lt(x, y), hn::Zero(d), hn::Sub(x, y));
    const V r = hn::Add(x, y);
    return hn::IfThenElse(hn::Lt(r, x), hn::Set(d, hwy::LimitsMax<T>()), r);
  }
}

template <class T>
void Run(const Args& g) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const T* a = reinterpret_cast<const T*>(g.a);
  const T* b = reinterpret_cast<const T*>(g.b);
  T* out = reinterpret_cast<T*>(g.d);
  T c;
  std::memcpy(&c, &g.c, sizeof(T));  // the low bytes of the code (little-endian host)
  const auto cv = hn::Set(d, c);
  size_t i = 0;
  for (; i + N <= g.n; i += N) {
    const auto x = hn::LoadU(d, a + i);
    const auto y = b ? hn::LoadU(d, b + i) : cv;
    hn::StoreU(g.c_first ? AddSub(d, y, x, g) : AddSub(d, x, y, g), d, out + i);
  }
  for (; i < g.n; ++i) {
    T x, y = c;
    std::memcpy(&x, g.a + i * sizeof(T), sizeof(T));
    if (b) std::memcpy(&y, g.b + i * sizeof(T), sizeof(T));
    const T r = one<T>(x, y, g);
    std::memcpy(g.d + i * sizeof(T), &r, sizeof(T));
  }
}

void Dispatch(const Args& g, int e, bool is_signed) {
  switch (e * 2 + (is_signed ? 1 : 0)) {
    case 2: return Run<uint8_t>(g);
    case 3: return Run<int8_t>(g);
    case 4: return Run<uint16_t>(g);
    case 5: return Run<int16_t>(g);
    case 8: return Run<uint32_t>(g);
    case 9: return Run<int32_t>(g);
    default: return;
  }
}

}  // namespace tilesim::tpu::isimd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::tpu {
namespace isimd {
HWY_EXPORT(Dispatch);
}  // namespace isimd

void int_addsub_same_dtype(bool sub, int e, bool is_signed, const uint8_t* a, const uint8_t* b, uint32_t c,
                           bool c_first, uint8_t* d, size_t n, bool saturate) {
  const isimd::Args g{sub, saturate, c_first, a, b, c, d, n};
  HWY_DYNAMIC_DISPATCH(isimd::Dispatch)(g, e, is_signed);
}

}  // namespace tilesim::tpu
#endif  // HWY_ONCE
