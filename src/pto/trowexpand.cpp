// TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF} (spec 20 §3–§5): the family's one execution path.
//   %dst = pto.trowexpandOP %src0, %src1 : ... ;  TROWEXPANDOP(dst, src0, src1[, tmp])
// make_plan (legality.cpp) has checked every rule; this file snapshots the expanded operand,
// writes the §5 broadcast buffer, then runs one row kernel per row (reference or fast).
#include <algorithm>
#include <cstring>
#include <vector>

#include "pto/kernels.hpp"
#include "pto/ops.hpp"
#include "pto/plan.hpp"
#include "tilesim/parallel.hpp"

namespace tilesim::pto {
namespace kernels {
namespace {

float load_f(Elem dt, const uint8_t* p) {
  uint16_t h;
  float f;
  switch (dt) {
    case Elem::f16:
      std::memcpy(&h, p, 2);
      return formats::f16_to_f32(h);
    case Elem::bf16:
      std::memcpy(&h, p, 2);
      return formats::bf16_to_f32(h);
    default:
      std::memcpy(&f, p, 4);
      return f;
  }
}
void store_f(Elem dt, uint8_t* p, float v) {  // one RNE rounding to T, canonical NaN
  uint16_t h;
  switch (dt) {
    case Elem::f16:
      h = formats::f32_to_f16(v);
      std::memcpy(p, &h, 2);
      return;
    case Elem::bf16:
      h = formats::f32_to_bf16(v);
      std::memcpy(p, &h, 2);
      return;
    default:
      v = ops::canon(v);
      std::memcpy(p, &v, 4);
      return;
  }
}

float farith(Op op, float a, float b) {
  switch (op) {
    case Op::ADD:
      return ops::farith<Op::ADD>(a, b);
    case Op::SUB:
      return ops::farith<Op::SUB>(a, b);
    case Op::MUL:
      return ops::farith<Op::MUL>(a, b);
    case Op::DIV:
      return ops::farith<Op::DIV>(a, b);
    case Op::MAX:
      return ops::farith<Op::MAX>(a, b);
    case Op::MIN:
      return ops::farith<Op::MIN>(a, b);
    case Op::EXPDIF:
      break;
  }
  return ops::farith<Op::EXPDIF>(a, b);
}

template <class T>
void int_elem(Op op, const uint8_t* p0, const uint8_t* p1, uint8_t* out) {
  T a, b, r = 0;
  std::memcpy(&a, p0, sizeof(T));
  std::memcpy(&b, p1, sizeof(T));
  switch (op) {
    case Op::ADD:
      r = ops::iarith<Op::ADD>(a, b);
      break;
    case Op::SUB:
      r = ops::iarith<Op::SUB>(a, b);
      break;
    case Op::MUL:
      r = ops::iarith<Op::MUL>(a, b);
      break;
    case Op::DIV:
      r = ops::iarith<Op::DIV>(a, b);
      break;
    case Op::MAX:
      r = ops::iarith<Op::MAX>(a, b);
      break;
    case Op::MIN:
      r = ops::iarith<Op::MIN>(a, b);
      break;
    case Op::EXPDIF:
      break;  // rejected for integers by make_plan (spec 20 §2)
  }
  std::memcpy(out, &r, sizeof(T));
}

void float_elem(Op op, Elem dt, const uint8_t* p0, const uint8_t* p1, uint8_t* out) {
  const float a = load_f(dt, p0), b = load_f(dt, p1);
  if (op != Op::EXPDIF) return store_f(dt, out, farith(op, a, b));
  // EXPDIF: d = round_T(src0 - src1), then e^d correctly rounded to T (spec 20 §4).
  uint16_t h;
  switch (dt) {
    case Elem::f16:
      h = ops::exp_f16(formats::f32_to_f16(a - b));
      std::memcpy(out, &h, 2);
      return;
    case Elem::bf16:
      h = ops::exp_bf16(formats::f32_to_bf16(a - b));
      std::memcpy(out, &h, 2);
      return;
    default: {
      const float r = ops::exp_f32(a - b);  // a NaN difference gives the canonical NaN
      std::memcpy(out, &r, 4);
      return;
    }
  }
}

}  // namespace

void reference_row(Op op, Elem dt, const uint8_t* full, const uint8_t* xs, uint8_t* dst, int C,
                   int Ex, bool swap) {
  const size_t sz = elem_size(dt);
  for (int j = 0; j < C; ++j) {
    const uint8_t* f = full + size_t(j) * sz;
    const uint8_t* x = xs + size_t(j % Ex) * sz;
    const uint8_t* p0 = swap ? x : f;  // operand order is src0 OP src1 (spec 20 §4)
    const uint8_t* p1 = swap ? f : x;
    uint8_t* o = dst + size_t(j) * sz;
    switch (dt) {
      case Elem::s8:
        int_elem<int8_t>(op, p0, p1, o);
        break;
      case Elem::s16:
        int_elem<int16_t>(op, p0, p1, o);
        break;
      case Elem::s32:
        int_elem<int32_t>(op, p0, p1, o);
        break;
      case Elem::u8:
        int_elem<uint8_t>(op, p0, p1, o);
        break;
      case Elem::u16:
        int_elem<uint16_t>(op, p0, p1, o);
        break;
      case Elem::u32:
        int_elem<uint32_t>(op, p0, p1, o);
        break;
      default:
        float_elem(op, dt, p0, p1, o);
        break;
    }
  }
}

}  // namespace kernels

void row_expand(Op op, const TileDesc& dst, const TileDesc& src0, const TileDesc& src1,
                const TileDesc* tmp, const Target& t, const Ub& ub, Path path) {
  const detail::Plan p = detail::make_plan(op, dst, src0, src1, tmp, t, ub);
  if (p.empty) return;
  const size_t sz = elem_size(p.dt);
  const int Ex = p.mode == 1 ? 1 : p.E;

  // Read every scalar / block of the expanded operand first: dst and the broadcast buffer may
  // alias it (spec 20 §1 aliasing, §5 buffer sharing the expanded operand's space).
  const size_t xs_bytes = size_t(p.R) * size_t(Ex) * sz;
  alignas(64) uint8_t xs_small[8192];
  std::vector<uint8_t> xs_big;
  uint8_t* xs = xs_small;
  if (xs_bytes > sizeof(xs_small)) {
    xs_big.resize(xs_bytes);
    xs = xs_big.data();
  }
  const bool contiguous = p.mode == 1 ? p.expanded->rows >= p.R  // ColMajor [R_pad, 1]
                                      : p.expanded->row_major && p.expanded->cols == p.E;
  if (contiguous) {
    std::memcpy(xs, p.expanded->data, xs_bytes);  // the scalars / blocks are back to back
  } else {
    for (int i = 0; i < p.R; ++i) {
      uint8_t* to = xs + size_t(i) * Ex * sz;
      if (p.mode == 2)  // one 32-byte block: a fixed-size copy, not a library call per row
        std::memcpy(to, detail::element(*p.expanded, i, 0), 32);
      else
        std::memcpy(to, detail::element(*p.expanded, i, 0), sz);
    }
  }

  // The full operand is read in place unless it overlaps dst other than element-for-element
  // (in-place TROWEXPANDSUB(dst, dst, s) is the common legal alias); then it is copied first.
  const size_t dst_stride = size_t(dst.cols) * sz;
  const uint8_t* full = p.full->data;
  size_t full_stride = size_t(p.full->cols) * sz;
  std::vector<uint8_t> full_copy;
  const bool same = p.full->data == dst.data && p.full->cols == dst.cols;
  const auto flo = reinterpret_cast<uintptr_t>(p.full->data),
             dlo = reinterpret_cast<uintptr_t>(dst.data);
  const uintptr_t fhi = flo + (size_t(p.R - 1) * full_stride + size_t(p.C) * sz);
  const uintptr_t dhi = dlo + (size_t(p.R - 1) * dst_stride + size_t(p.C) * sz);
  if (!same && flo < dhi && dlo < fhi) {
    full_copy.resize(size_t(p.R) * size_t(p.C) * sz);
    for (int i = 0; i < p.R; ++i)
      std::memcpy(full_copy.data() + size_t(i) * p.C * sz, full + size_t(i) * full_stride,
                  size_t(p.C) * sz);
    full = full_copy.data();
    full_stride = size_t(p.C) * sz;
  }

  // §5 contents: block k (32 bytes) of the buffer holds row k's scalar repeated E times; rows are
  // processed in chunks of 240 when R >= 256 (block i mod 240), in order, so later chunks win.
  if (p.buffer) {
    for (int i = 0; i < p.R; ++i) {
      const size_t k = p.R < 256 ? size_t(i) : size_t(i % 240);
      for (int e = 0; e < p.E; ++e)
        std::memcpy(p.buffer + 32 * k + size_t(e) * sz, xs + size_t(i) * sz, sz);
    }
  }

  const bool swap = !p.full_is_src0;
  auto rows = [&](size_t lo, size_t hi, auto&& fn) {
    for (size_t i = lo; i < hi; ++i)
      fn(full + i * full_stride, xs + i * Ex * sz, dst.data + i * dst_stride, p.C, Ex, swap);
  };
  if (path == Path::Reference) {
    rows(0, size_t(p.R), [&](const uint8_t* f, const uint8_t* x, uint8_t* d, int C, int e, bool s) {
      kernels::reference_row(p.op, p.dt, f, x, d, C, e, s);
    });
    return;
  }
  const kernels::RowsFn fn = kernels::fast_rows(p.op, p.dt);
  auto share = [&](size_t lo, size_t hi) {
    fn(kernels::RowsArgs{full + lo * full_stride, full_stride, xs + lo * Ex * sz,
                         dst.data + lo * dst_stride, dst_stride, hi - lo, sz, p.C, Ex, swap});
  };
  // Threads only where they pay (measured on 2 cores): the memory-bound ops gain from 2^18
  // elements on (fp32 512x512: 21 -> 14 us; 256x256 stays faster on one thread, its tiles live
  // in one core's L2); fp32 EXPDIF, ~0.55 ns an element, from 2^13.
  const size_t work = size_t(p.R) * size_t(p.C);
  const int log_min = p.op == Op::EXPDIF && p.dt == Elem::f32 ? 13 : 18;
  if (work < (size_t(1) << log_min) || p.R < 2) {
    share(0, size_t(p.R));
  } else {
    const size_t grain = std::max<size_t>(1, (size_t(1) << (log_min - 1)) / size_t(p.C));
    parallel_for(size_t(p.R), grain, share);
  }
}

}  // namespace tilesim::pto
