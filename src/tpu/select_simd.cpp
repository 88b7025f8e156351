// Fast path of the compare-select functions (spec 50 §3): Highway SIMD over one contiguous run of
// elements; the BDC walker (src/tpu/bdc.cpp) calls it on each (n, c) plane, threads over planes.
// Bit-identical to select_reference (tested).
//
// Floats are compared through an integer key instead of decoding: for a sign-magnitude code,
// key = sign ? -|code| : |code| orders exactly like the values, maps +0 and -0 both to 0, and a
// NaN (|code| above the largest non-NaN magnitude) forces the result false — IEEE comparison
// (spec 50 §3) for fp32, fp16, bf16, e4m3 and e5m2 in one formula, on the codes' own width.
#ifndef TILESIM_TPU_SELECT_SIMD_COMMON_
#define TILESIM_TPU_SELECT_SIMD_COMMON_
#include <cstring>
#include <type_traits>

#include "tpu/select.hpp"

namespace tilesim::tpu {
namespace simd {

// Scalar version of the key comparison, for plane tails (same formula as the vector code).
template <class TC>
inline bool cmp_scalar(TC x, TC y, const PlaneArgs& a) {
  using U = std::make_unsigned_t<TC>;
  int64_t kx, ky;
  if (a.kind == static_cast<uint8_t>(CmpKind::Float)) {
    const U mx = static_cast<U>(static_cast<U>(x) & static_cast<U>(a.mag));
    const U my = static_cast<U>(static_cast<U>(y) & static_cast<U>(a.mag));
    if (mx > a.nan_above || my > a.nan_above) return false;
    kx = x < 0 ? -static_cast<int64_t>(mx) : static_cast<int64_t>(mx);
    ky = y < 0 ? -static_cast<int64_t>(my) : static_cast<int64_t>(my);
  } else if (a.kind == static_cast<uint8_t>(CmpKind::Unsigned)) {
    kx = static_cast<U>(x);
    ky = static_cast<U>(y);
  } else {
    kx = x;
    ky = y;
  }
  return a.eq ? kx == ky : kx > ky;
}

}  // namespace simd
}  // namespace tilesim::tpu
#endif  // TILESIM_TPU_SELECT_SIMD_COMMON_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tpu/select_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tilesim::tpu::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class V = hn::Vec<D>>
HWY_INLINE hn::Mask<D> Compare(D d, V x, V y, const PlaneArgs& a) {
  using T = hn::TFromD<D>;
  if constexpr (sizeof(T) == 4) {
    // fp32 is the only 32-bit select float (tf32 is rejected): the FPU's ordered compares are
    // exactly IEEE (NaN false, +0 == -0; DAZ is off, so subnormals compare by value).
    if (a.kind == static_cast<uint8_t>(CmpKind::Float)) {
      const hn::Rebind<float, D> df;
      const auto fx = hn::BitCast(df, x), fy = hn::BitCast(df, y);
      return hn::RebindMask(d, a.eq ? hn::Eq(fx, fy) : hn::Gt(fx, fy));
    }
  }
  if (a.kind == static_cast<uint8_t>(CmpKind::Float)) {
    const V mag = hn::Set(d, static_cast<T>(a.mag));
    const V thr = hn::Set(d, static_cast<T>(a.nan_above));
    const V z = hn::Zero(d);
    const V mx = hn::And(x, mag), my = hn::And(y, mag);
    const auto nan = hn::Or(hn::Gt(mx, thr), hn::Gt(my, thr));
    const V kx = hn::IfThenElse(hn::Lt(x, z), hn::Sub(z, mx), mx);
    const V ky = hn::IfThenElse(hn::Lt(y, z), hn::Sub(z, my), my);
    return hn::AndNot(nan, a.eq ? hn::Eq(kx, ky) : hn::Gt(kx, ky));
  }
  if (a.kind == static_cast<uint8_t>(CmpKind::Unsigned)) {
    // Flipping the sign bit maps unsigned order onto signed order.
    const V flip = hn::Set(d, hwy::LimitsMin<T>());
    x = hn::Xor(x, flip);
    y = hn::Xor(y, flip);
  }
  return a.eq ? hn::Eq(x, y) : hn::Gt(x, y);
}

// TC: signed lane type of the compared codes, TV: of the selected values (sizeof TC <= TV).
template <class TC, class TV>
void Plane(const PlaneArgs& a) {
  const hn::ScalableTag<TV> dv;
  const hn::Rebind<TC, decltype(dv)> dc;  // same lane count, compare width
  const size_t N = hn::Lanes(dv);
  auto ld_c = [](const Stream& s, size_t i, TC& v) {
    std::memcpy(&v, s.p + i * sizeof(TC), sizeof(TC));
  };
  auto ld_v = [](const Stream& s, size_t i, TV& v) {
    std::memcpy(&v, s.p + i * sizeof(TV), sizeof(TV));
  };
  const auto xs = hn::Set(dc, static_cast<TC>(a.x.bits)),
             ys = hn::Set(dc, static_cast<TC>(a.y.bits));
  const auto ts = hn::Set(dv, static_cast<TV>(a.t.bits)),
             fs = hn::Set(dv, static_cast<TV>(a.f.bits));
  const TC* xp = reinterpret_cast<const TC*>(a.x.p);
  const TC* yp = reinterpret_cast<const TC*>(a.y.p);
  const TV* tp = reinterpret_cast<const TV*>(a.t.p);
  const TV* fp = reinterpret_cast<const TV*>(a.f.p);
  TV* dp = reinterpret_cast<TV*>(a.d_val);
  TC* ep = reinterpret_cast<TC*>(a.d_ext);
  size_t i = 0;
  for (; i + N <= a.n; i += N) {
    const auto x = xp ? hn::LoadU(dc, xp + i) : xs;
    const auto y = yp ? hn::LoadU(dc, yp + i) : ys;
    const auto t = tp ? hn::LoadU(dv, tp + i) : ts;
    const auto f = fp ? hn::LoadU(dv, fp + i) : fs;
    const auto mc = Compare(dc, x, y, a);
    if constexpr (sizeof(TC) == sizeof(TV)) {
      if (ep)
        hn::StoreU(a.ext_swapped ? hn::IfThenElse(mc, y, x) : hn::IfThenElse(mc, x, y), dc, ep + i);
      hn::StoreU(hn::IfThenElse(mc, t, f), dv, dp + i);
    } else {
      // 0 / -1 compare lanes sign-extend to 0 / -1 value lanes.
      const auto mv = hn::MaskFromVec(hn::PromoteTo(dv, hn::VecFromMask(dc, mc)));
      hn::StoreU(hn::IfThenElse(mv, t, f), dv, dp + i);
    }
  }
  for (; i < a.n; ++i) {
    TC x = static_cast<TC>(a.x.bits), y = static_cast<TC>(a.y.bits);
    TV t = static_cast<TV>(a.t.bits), f = static_cast<TV>(a.f.bits);
    if (a.x.p) ld_c(a.x, i, x);
    if (a.y.p) ld_c(a.y, i, y);
    if (a.t.p) ld_v(a.t, i, t);
    if (a.f.p) ld_v(a.f, i, f);
    const bool g = cmp_scalar<TC>(x, y, a);
    if (ep) {
      const TC e = g != a.ext_swapped ? x : y;  // swapped: g ? y : x
      std::memcpy(a.d_ext + i * sizeof(TC), &e, sizeof(TC));
    }
    const TV v = g ? t : f;
    std::memcpy(a.d_val + i * sizeof(TV), &v, sizeof(TV));
  }
}

void RunPlane(const PlaneArgs& a, int cmp_bytes, int val_bytes) {
  switch (cmp_bytes * 8 + val_bytes) {
    case 1 * 8 + 1:
      return Plane<int8_t, int8_t>(a);
    case 1 * 8 + 2:
      return Plane<int8_t, int16_t>(a);
    case 1 * 8 + 4:
      return Plane<int8_t, int32_t>(a);
    case 2 * 8 + 2:
      return Plane<int16_t, int16_t>(a);
    case 2 * 8 + 4:
      return Plane<int16_t, int32_t>(a);
    case 4 * 8 + 4:
      return Plane<int32_t, int32_t>(a);
    default:
      return;  // excluded by the walker's width rules
  }
}

}  // namespace tilesim::tpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::tpu {
namespace simd {
HWY_EXPORT(RunPlane);
}  // namespace simd

void select_plane(const simd::PlaneArgs& a, int cmp_bytes, int val_bytes) {
  HWY_DYNAMIC_DISPATCH(simd::RunPlane)(a, cmp_bytes, val_bytes);
}

}  // namespace tilesim::tpu
#endif  // HWY_ONCE
