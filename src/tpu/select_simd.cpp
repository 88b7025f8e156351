// The TPU model's Highway SIMD kernels (one dispatch unit): the compare-select plane and the
// integer add/sub fast path of int_simd.hpp.
//
// Compare-select (spec 50 §3): SIMD over one contiguous run of elements; the BDC walker
// (src/tpu/bdc.cpp) calls it on each (n, c) plane, threads over planes. Bit-identical to
// select_reference (tested).
//
// Floats are compared through an integer key instead of decoding: for a sign-magnitude code,
// key = sign ? -|code| : |code| orders exactly like the values, maps +0 and -0 both to 0, and a
// NaN (|code| above the largest non-NaN magnitude) forces the result false — IEEE comparison
// (spec 50 §3) for fp32, fp16, bf16, e4m3 and e5m2 in one formula, on the codes' own width.
//
// Integer add/sub (int_simd.hpp): with one dtype and no shift the exact sum or difference needs no
// 64-bit intermediate: saturation is an overflow test on the dtype's own lanes (Highway's
// saturating add/sub for 8- and 16-bit lanes; for 32-bit a sign test, which gives the bound the
// exact result passed), wrapping is the lanes' own modular add/sub.
#ifndef TILESIM_TPU_SELECT_SIMD_COMMON_
#define TILESIM_TPU_SELECT_SIMD_COMMON_
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tpu/int_simd.hpp"
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

namespace tilesim::tpu::isimd {

struct Args {
  bool sub, saturate, c_first;
  const uint8_t *a, *b;
  uint32_t c;
  uint8_t* d;
  size_t n;
  size_t rows, as, bs, ds;  // rows of n elements, each operand's bytes from row to row
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
#endif  // TILESIM_TPU_SELECT_SIMD_COMMON_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tpu/select_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tilesim::tpu::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// kKind (CmpKind) and kEq are template parameters: as run-time flags the compiler evaluated both
// == and > and picked one through a general register in every iteration (kmov, cmov, kmov), which
// cost more than the compare itself on 16-bit lanes.
template <uint8_t kKind, bool kEq, class D, class V = hn::Vec<D>>
HWY_INLINE hn::Mask<D> Compare(D d, V x, V y, const PlaneArgs& a) {
  using T = hn::TFromD<D>;
  constexpr uint8_t kFloat = static_cast<uint8_t>(CmpKind::Float);
  if constexpr (sizeof(T) == 4 && kKind == kFloat) {
    // fp32 is the only 32-bit select float (tf32 is rejected): the FPU's ordered compares are
    // exactly IEEE (NaN false, +0 == -0; DAZ is off, so subnormals compare by value).
    const hn::Rebind<float, D> df;
    const auto fx = hn::BitCast(df, x), fy = hn::BitCast(df, y);
    return hn::RebindMask(d, kEq ? hn::Eq(fx, fy) : hn::Gt(fx, fy));
  } else if constexpr (kKind == kFloat) {
    const V mag = hn::Set(d, static_cast<T>(a.mag));
    const V thr = hn::Set(d, static_cast<T>(a.nan_above));
    const V z = hn::Zero(d);
    const V mx = hn::And(x, mag), my = hn::And(y, mag);
    const auto nan = hn::Or(hn::Gt(mx, thr), hn::Gt(my, thr));
    const V kx = hn::IfThenElse(hn::Lt(x, z), hn::Sub(z, mx), mx);
    const V ky = hn::IfThenElse(hn::Lt(y, z), hn::Sub(z, my), my);
    return hn::AndNot(nan, kEq ? hn::Eq(kx, ky) : hn::Gt(kx, ky));
  } else {
    if constexpr (kKind == static_cast<uint8_t>(CmpKind::Unsigned)) {
      // Flipping the sign bit maps unsigned order onto signed order.
      const V flip = hn::Set(d, hwy::LimitsMin<T>());
      x = hn::Xor(x, flip);
      y = hn::Xor(y, flip);
    }
    return kEq ? hn::Eq(x, y) : hn::Gt(x, y);
  }
}

// TC: signed lane type of the compared codes, TV: of the selected values (sizeof TC <= TV);
// kKind / kEq: a.kind and a.eq (Compare).
template <class TC, class TV, uint8_t kKind, bool kEq>
void Plane(const PlaneArgs& args) {
  // A local copy: the stores below could alias `args` as far as the compiler knows, which made it
  // reload kind, eq and n in every iteration; a copy keeps them in registers and lets the loop be
  // unswitched on them.
  const PlaneArgs a = args;
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
    const auto mc = Compare<kKind, kEq>(dc, x, y, a);
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

template <class TC, class TV>
void PlaneOf(const PlaneArgs& a) {
  constexpr uint8_t kF = static_cast<uint8_t>(CmpKind::Float), kU = static_cast<uint8_t>(CmpKind::Unsigned),
                    kS = static_cast<uint8_t>(CmpKind::Signed);
  if (a.kind == kF) return a.eq ? Plane<TC, TV, kF, true>(a) : Plane<TC, TV, kF, false>(a);
  if (a.kind == kU) return a.eq ? Plane<TC, TV, kU, true>(a) : Plane<TC, TV, kU, false>(a);
  return a.eq ? Plane<TC, TV, kS, true>(a) : Plane<TC, TV, kS, false>(a);
}

void RunPlane(const PlaneArgs& a, int cmp_bytes, int val_bytes) {
  switch (cmp_bytes * 8 + val_bytes) {
    case 1 * 8 + 1:
      return PlaneOf<int8_t, int8_t>(a);
    case 1 * 8 + 2:
      return PlaneOf<int8_t, int16_t>(a);
    case 1 * 8 + 4:
      return PlaneOf<int8_t, int32_t>(a);
    case 2 * 8 + 2:
      return PlaneOf<int16_t, int16_t>(a);
    case 2 * 8 + 4:
      return PlaneOf<int16_t, int32_t>(a);
    case 4 * 8 + 4:
      return PlaneOf<int32_t, int32_t>(a);
    default:
      return;  // excluded by the walker's width rules
  }
}

}  // namespace tilesim::tpu::simd::HWY_NAMESPACE

namespace tilesim::tpu::isimd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One vector of x OP y with the flags fixed at compile time (the loops below are instantiated per
// flag set, so no flag is tested per vector).
template <bool kSub, bool kSat, class D, class V = hn::Vec<D>>
HWY_INLINE V AddSub(D d, V x, V y) {
  using T = hn::TFromD<D>;
  if constexpr (!kSat) {
    return kSub ? hn::Sub(x, y) : hn::Add(x, y);
  } else if constexpr (sizeof(T) <= 2) {
    return kSub ? hn::SaturatedSub(x, y) : hn::SaturatedAdd(x, y);
  } else if constexpr (hwy::IsSigned<T>()) {
    const V r = kSub ? hn::Sub(x, y) : hn::Add(x, y);
    // Overflow: add when x and y share a sign that r lacks; sub when x and y differ in sign and r
    // differs from x (t's sign bit). The exact result then lies beyond the bound on x's side:
    // MAX ^ (x >> 31) is MAX for x >= 0 and MIN for x < 0.
    const V t =
        kSub ? hn::And(hn::Xor(x, y), hn::Xor(x, r)) : hn::And(hn::Xor(x, r), hn::Xor(y, r));
    const V bound = hn::Xor(hn::ShiftRight<sizeof(T) * 8 - 1>(x), hn::Set(d, hwy::LimitsMax<T>()));
    return hn::IfNegativeThenElse(t, bound, r);
  } else {
    // Unsigned: add overflows when the wrapped sum is below x, sub when y > x.
    if constexpr (kSub) return hn::IfThenElse(hn::Lt(x, y), hn::Zero(d), hn::Sub(x, y));
    const V r = hn::Add(x, y);
    return hn::IfThenElse(hn::Lt(r, x), hn::Set(d, hwy::LimitsMax<T>()), r);
  }
}

template <class T, bool kSub, bool kSat>
void RunFlags(const Args& args) {
  const Args g = args;  // a local copy: the stores cannot alias it, so n is not reloaded
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  T c;
  std::memcpy(&c, &g.c, sizeof(T));  // the low bytes of the code (little-endian host)
  const auto cv = hn::Set(d, c);
  for (size_t row = 0; row < g.rows; ++row) {
    const uint8_t* const ra = g.a + row * g.as;
    const uint8_t* const rb = g.b ? g.b + row * g.bs : nullptr;
    uint8_t* const rd = g.d + row * g.ds;
    const T* a = reinterpret_cast<const T*>(ra);
    const T* b = reinterpret_cast<const T*>(rb);
    T* out = reinterpret_cast<T*>(rd);
    size_t i = 0;
    if (b != nullptr) {
      for (; i + N <= g.n; i += N)
        hn::StoreU(AddSub<kSub, kSat>(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, out + i);
    } else if (g.c_first) {
      for (; i + N <= g.n; i += N)
        hn::StoreU(AddSub<kSub, kSat>(d, cv, hn::LoadU(d, a + i)), d, out + i);
    } else {
      for (; i + N <= g.n; i += N)
        hn::StoreU(AddSub<kSub, kSat>(d, hn::LoadU(d, a + i), cv), d, out + i);
    }
    for (; i < g.n; ++i) {
      T x, y = c;
      std::memcpy(&x, ra + i * sizeof(T), sizeof(T));
      if (rb) std::memcpy(&y, rb + i * sizeof(T), sizeof(T));
      const T r = one<T>(x, y, g);
      std::memcpy(rd + i * sizeof(T), &r, sizeof(T));
    }
  }
}

template <class T>
void Run(const Args& g) {
  if (g.sub) return g.saturate ? RunFlags<T, true, true>(g) : RunFlags<T, true, false>(g);
  return g.saturate ? RunFlags<T, false, true>(g) : RunFlags<T, false, false>(g);
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
namespace simd {
HWY_EXPORT(RunPlane);
}  // namespace simd

void select_plane(const simd::PlaneArgs& a, int cmp_bytes, int val_bytes) {
  HWY_DYNAMIC_DISPATCH(simd::RunPlane)(a, cmp_bytes, val_bytes);
}

namespace isimd {
HWY_EXPORT(Dispatch);
}  // namespace isimd

void int_addsub_same_dtype(bool sub, int e, bool is_signed, const uint8_t* a, size_t as, const uint8_t* b,
                           size_t bs, uint32_t c, bool c_first, uint8_t* d, size_t ds, size_t rows, size_t n,
                           bool saturate) {
  const isimd::Args g{sub, saturate, c_first, a, b, c, d, n, rows, as, bs, ds};
  HWY_DYNAMIC_DISPATCH(isimd::Dispatch)(g, e, is_signed);
}

}  // namespace tilesim::tpu
#endif  // HWY_ONCE
