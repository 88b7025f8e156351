// Fast path of the compare-select functions (spec 50 §3): Highway SIMD over the contiguous h*w
// plane of each (n, c), threads over planes. Bit-identical to select_reference (tested).
//
// Floats are compared through an integer key instead of decoding: for a sign-magnitude code,
// key = sign ? -|code| : |code| orders exactly like the values, maps +0 and -0 both to 0, and a
// NaN (|code| above the largest non-NaN magnitude) forces the result false — IEEE comparison
// (spec 50 §3) for fp32, fp16, bf16, e4m3 and e5m2 in one formula, on the codes' own width.
#ifndef TILESIM_TPU_SELECT_SIMD_COMMON_
#define TILESIM_TPU_SELECT_SIMD_COMMON_
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "tilesim/parallel.hpp"
#include "tpu/select.hpp"

namespace tilesim::tpu {
namespace simd {

// One operand stream of a plane: a pointer to h*w elements, or a constant (SCALAR / VECTOR).
struct Stream {
  const uint8_t* p;
  uint32_t bits;
};

struct PlaneArgs {
  Stream x, y;       // compare x > y (or x == y); Less / MinimumLess swap src0 and src1
  Stream t, f;       // src2 / src3 (value width)
  uint8_t* d_val;    // dst (select) or dst1 (extremum)
  uint8_t* d_ext;    // dst0 of the extremum functions, else nullptr
  bool ext_swapped;  // dst0 = g ? src0 : src1 with src0 == y when swapped
  bool eq;           // == instead of >
  uint8_t kind;      // CmpKind
  uint32_t mag, nan_above;
  size_t n;
};

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
      return;  // excluded by plan_select (width rules)
  }
}

}  // namespace tilesim::tpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::tpu {
namespace simd {
HWY_EXPORT(RunPlane);
}  // namespace simd

void select_fast(uint8_t* mem, const SelectPlan& p) {
  const int ec = dtype_bytes(*p.cmp), ev = dtype_bytes(*p.val);
  const int64_t HW = p.H * p.W;
  const int64_t planes = p.N * p.C;
  const bool swap = p.op == SelectOp::Less || p.op == SelectOp::MinimumLess;
  const int e_dst[2] = {p.extremum ? ec : ev, ev};
  const Strides* s_dst[2] = {p.extremum ? &p.cmp_s : &p.val_s, &p.val_s};
  const int ndst = p.extremum ? 2 : 1;

  // Reads before writes: when a destination overlaps a source other than element for element,
  // results go to dense staging buffers first and are copied in afterwards.
  std::vector<uint8_t> stage[2];
  if (p.stage)
    for (int d = 0; d < ndst; ++d) stage[d].resize(static_cast<size_t>(planes * HW * e_dst[d]));

  auto plane_ptr = [&](uint32_t r, int e, const Strides& st, int64_t n, int64_t c) {
    const ChannelPos pos = channel_pos(p.q, c, p.npu_num);
    return mem + pos.npu * p.lms + r + (n * st.n + pos.slot * st.c) * e;
  };
  auto stream = [&](int i, int64_t n, int64_t c) -> simd::Stream {
    const PlanSource& s = p.src[i];
    const int e = i < 2 ? ec : ev;
    if (s.kind == SCALAR) return {nullptr, s.bits};
    if (s.kind == VECTOR) {
      uint32_t v = 0;
      const ChannelPos pos = channel_pos(p.q, c, p.npu_num);
      std::memcpy(&v, mem + pos.npu * p.lms + s.r, static_cast<size_t>(e));
      return {nullptr, v};
    }
    return {plane_ptr(s.r, e, i < 2 ? p.cmp_s : p.val_s, n, c), 0};
  };
  auto dst_ptr = [&](int d, int64_t n, int64_t c) {
    if (p.stage) return stage[d].data() + (n * p.C + c) * HW * e_dst[d];
    return plane_ptr(p.dst_r[d], e_dst[d], *s_dst[d], n, c);
  };

  const auto run = HWY_DYNAMIC_DISPATCH(simd::RunPlane);
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, 32768 / HW));
  parallel_for(static_cast<size_t>(planes), grain, [&](size_t b, size_t e) {
    for (size_t k = b; k < e; ++k) {
      const int64_t n = static_cast<int64_t>(k) / p.C, c = static_cast<int64_t>(k) % p.C;
      simd::PlaneArgs a{};
      const simd::Stream s0 = stream(0, n, c), s1 = stream(1, n, c);
      a.x = swap ? s1 : s0;
      a.y = swap ? s0 : s1;
      a.t = stream(2, n, c);
      a.f = stream(3, n, c);
      a.ext_swapped = swap;
      a.eq = p.op == SelectOp::Equal;
      a.kind = static_cast<uint8_t>(p.cmp->kind);
      a.mag = p.cmp_nan.mag_mask;
      a.nan_above = p.cmp_nan.nan_above;
      a.n = static_cast<size_t>(HW);
      if (p.extremum) {
        a.d_ext = dst_ptr(0, n, c);
        a.d_val = dst_ptr(1, n, c);
      } else {
        a.d_val = dst_ptr(0, n, c);
      }
      run(a, ec, ev);
    }
  });
  if (!p.stage) return;
  for (int d = 0; d < ndst; ++d)
    parallel_for(static_cast<size_t>(planes), grain, [&](size_t b, size_t e) {
      for (size_t k = b; k < e; ++k) {
        const int64_t n = static_cast<int64_t>(k) / p.C, c = static_cast<int64_t>(k) % p.C;
        std::memcpy(plane_ptr(p.dst_r[d], e_dst[d], *s_dst[d], n, c),
                    stage[d].data() + static_cast<int64_t>(k) * HW * e_dst[d],
                    static_cast<size_t>(HW * e_dst[d]));
      }
    });
}

}  // namespace tilesim::tpu
#endif  // HWY_ONCE
