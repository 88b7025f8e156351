// TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF} (spec 20 §3–§5): the family's one execution path.
//   %dst = pto.trowexpandOP %src0, %src1 : ... ;  TROWEXPANDOP(dst, src0, src1[, tmp])
// make_plan (legality.cpp) has checked every rule; this file snapshots the expanded operand,
// writes the §5 broadcast buffer, then runs one row kernel per row (reference or fast).
#include <algorithm>
#include <cstring>
#include <vector>

#include "pto/instr.hpp"
#include "pto/kernels.hpp"
#include "pto/ops.hpp"
#include "pto/plan.hpp"
#include "tilesim/parallel.hpp"

namespace tilesim::pto {
namespace kernels {

// The definition (spec 70 item 5): each element is the element-op core's op on the two codes;
// EXPDIF is d = round_T(src0 - src1), then the core's correctly rounded e^d (spec 20 §4).
void reference_row(Op op, Elem dt, const uint8_t* full, const uint8_t* xs, uint8_t* dst, int C,
                   int Ex, bool swap) {
  const size_t sz = elem_size(dt);
  const formats::DType t = instr::core_dtype(dt);
  const ::tilesim::ops::Op cop = ops::core_op(op);
  for (int j = 0; j < C; ++j) {
    const uint64_t f = ::tilesim::ops::load_code(t, full + size_t(j) * sz, 0);
    const uint64_t x = ::tilesim::ops::load_code(t, xs + size_t(j % Ex) * sz, 0);
    // operand order is src0 OP src1 (spec 20 §4)
    uint64_t r = swap ? ::tilesim::ops::eval(cop, t, x, f) : ::tilesim::ops::eval(cop, t, f, x);
    if (op == Op::EXPDIF) r = ::tilesim::ops::eval(::tilesim::ops::Op::exp, t, r);
    ::tilesim::ops::store_code(t, dst + size_t(j) * sz, 0, r);
  }
}

}  // namespace kernels

namespace {
void row_expand_run(Op op, const TileDesc& dst, const TileDesc& src0, const TileDesc& src1,
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
}  // namespace

void row_expand(Op op, const TileDesc& dst, const TileDesc& src0, const TileDesc& src1,
                const TileDesc* tmp, const Target& t, const Ub& ub, Path path,
                const sync::Site& site, bool auto_sync) {
  row_expand_run(op, dst, src0, src1, tmp, t, ub, path);
  if (sync::on() && !auto_sync) [[unlikely]]
    instr::sync_record_row_expand(op_name(op), dst, src0, src1, tmp, ub, site);
}

}  // namespace tilesim::pto
