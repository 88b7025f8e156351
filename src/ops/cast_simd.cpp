// SIMD kernels of ops::cast's integer sources (spec 15 §2), compiled per Highway target: integer
// -> fp32 (s8, u8, s16, u16 widen exactly; s32 rounds once, to nearest even: vcvtdq2ps in the
// default environment, as float(x) does) and the integer widenings and saturating narrowings
// between s32 and the 8- and 16-bit types (the lanes' own saturating packs). Bit-identical to
// cast_one element by element (tests/ops elementwise_test OpsCast.*, every target). The generic
// loops in cast.cpp, compiled for the baseline target only, ran 64 K s32 -> fp32 at 3x memcpy's
// time (TPU tpu_bdc_cast, issue 19).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/cast_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/cast.hpp"

HWY_BEFORE_NAMESPACE();
namespace tilesim::ops::cast_simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// S -> T, T fp32 (s8, u8, s16, u16 exact; s32 rounded to nearest even: vcvtdq2ps in the default
// environment, as float(x)) or s32 (the 8- and 16-bit types, exact). The arrays need only byte
// alignment (here and below): vectors load and store unaligned, the tail goes through memcpy.
template <class S, class T>
void Widen(const uint8_t* HWY_RESTRICT src, uint8_t* HWY_RESTRICT dst, size_t n) {
  const hn::ScalableTag<T> dt;
  const hn::RebindToSigned<decltype(dt)> di;
  const hn::Rebind<S, decltype(dt)> ds;
  const size_t N = hn::Lanes(dt);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(ds, reinterpret_cast<const S*>(src + i * sizeof(S)));
    hn::Vec<decltype(di)> w;
    if constexpr (sizeof(S) == 4) w = v;
    else w = hn::PromoteTo(di, v);
    if constexpr (std::is_same_v<T, float>) hn::StoreU(hn::ConvertTo(dt, w), dt, reinterpret_cast<T*>(dst + i * 4));
    else hn::StoreU(w, dt, reinterpret_cast<T*>(dst + i * 4));
  }
  for (; i < n; ++i) {
    S x;
    std::memcpy(&x, src + i * sizeof(S), sizeof(S));
    const T y = T(x);
    std::memcpy(dst + i * 4, &y, 4);
  }
}

// s32 -> s8 / u8 / s16 / u16, clamped to the destination's range (saturation on).
template <class D>
void NarrowS32(const uint8_t* HWY_RESTRICT src, uint8_t* HWY_RESTRICT dst, size_t n) {
  const hn::ScalableTag<int32_t> di;
  const hn::Rebind<D, decltype(di)> dd;
  const size_t N = hn::Lanes(di);
  size_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(hn::DemoteTo(dd, hn::LoadU(di, reinterpret_cast<const int32_t*>(src + i * 4))), dd,
               reinterpret_cast<D*>(dst + i * sizeof(D)));
  constexpr int64_t lo = int64_t(std::numeric_limits<D>::min()), hi = int64_t(std::numeric_limits<D>::max());
  for (; i < n; ++i) {
    int32_t x;
    std::memcpy(&x, src + i * 4, 4);
    const D y = D(x < lo ? lo : x > hi ? hi : x);
    std::memcpy(dst + i * sizeof(D), &y, sizeof(D));
  }
}

// The pair's kernel: true when there is one (and it ran).
bool IntCast(DType from, DType to, const uint8_t* src, uint8_t* dst, size_t n, bool saturate) {
  if (to == DType::fp32) {
    switch (from) {
      case DType::s8: Widen<int8_t, float>(src, dst, n); return true;
      case DType::u8: Widen<uint8_t, float>(src, dst, n); return true;
      case DType::s16: Widen<int16_t, float>(src, dst, n); return true;
      case DType::u16: Widen<uint16_t, float>(src, dst, n); return true;
      case DType::s32: Widen<int32_t, float>(src, dst, n); return true;
      default: return false;
    }
  }
  if (to == DType::s32) {  // exact: the saturation switch changes nothing
    switch (from) {
      case DType::s8: Widen<int8_t, int32_t>(src, dst, n); return true;
      case DType::u8: Widen<uint8_t, int32_t>(src, dst, n); return true;
      case DType::s16: Widen<int16_t, int32_t>(src, dst, n); return true;
      case DType::u16: Widen<uint16_t, int32_t>(src, dst, n); return true;
      default: return false;
    }
  }
  if (from == DType::s32 && saturate) {
    switch (to) {
      case DType::s8: NarrowS32<int8_t>(src, dst, n); return true;
      case DType::u8: NarrowS32<uint8_t>(src, dst, n); return true;
      case DType::s16: NarrowS32<int16_t>(src, dst, n); return true;
      case DType::u16: NarrowS32<uint16_t>(src, dst, n); return true;
      default: return false;
    }
  }
  return false;
}

}  // namespace tilesim::ops::cast_simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::ops::cast_simd {
HWY_EXPORT(IntCast);
bool int_cast(DType from, DType to, const void* src, void* dst, size_t n, bool saturate) {
  return HWY_DYNAMIC_DISPATCH(IntCast)(from, to, static_cast<const uint8_t*>(src),
                                       static_cast<uint8_t*>(dst), n, saturate);
}
}  // namespace tilesim::ops::cast_simd
#endif
