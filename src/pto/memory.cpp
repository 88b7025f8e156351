// PTO memory instructions (spec 21 §2 memory row; docs/pto-kernels.md#memory): TLOAD, TSTORE and
// TPREFETCH between a GlobalTensor view and a tile. A view of five dimensions is a 2-D array whose
// shape depends on its layout (docs/pto-kernels.md#globaltensor):
//   ND  rows = N0*N1*N2*N3 (i3 fastest), cols = N4
//   DN  rows = N3,                       cols = N0*N1*N2*N4 (i4 fastest)
//   NZ  rows = N2*N3 (i3 fastest),       cols = N0*N1*N4 (i4 fastest, then i1, then i0)
// (the vendor CPU simulator's MapTileIndicesToGlobalOffset, pto-isa include/pto/cpu/tile_offsets.hpp).
// View element (r, c) is tile element (r, c); the tile's valid shape must be the view's shape, so
// every access stays inside the view by construction; where the front end knows the allocation
// (Python, PTO-AS) every byte is also checked against it. Everything is checked before a byte moves.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "ops/op_table.hpp"
#include "pto/transfer.hpp"

namespace tilesim::pto::instr {
namespace {

const char* gm_layout_name(GmLayout l) {
  switch (l) {
    case GmLayout::ND: return "ND";
    case GmLayout::DN: return "DN";
    case GmLayout::NZ: return "NZ";
    default: return "an MX/HIF4 layout";
  }
}

// The view as a 2-D array: its shape and the offset (in elements) of element (r, c).
struct View2D {
  const GmDesc& g;
  int64_t rows = 0, cols = 0;
  explicit View2D(const GmDesc& gm) : g(gm) {
    const int64_t* n = g.shape;
    switch (g.layout) {
      case GmLayout::ND: rows = n[0] * n[1] * n[2] * n[3], cols = n[4]; break;
      case GmLayout::DN: rows = n[3], cols = n[0] * n[1] * n[2] * n[4]; break;
      default: rows = n[2] * n[3], cols = n[0] * n[1] * n[4]; break;
    }
  }
  // Element (r, c) of the view is at row[r] + col[c] for every layout (each dimension's index
  // comes from r alone or from c alone), for r < R, c < C; the mixed-radix indices are counted.
  // Fills p (its vectors keep their capacity: the callers reuse a per-thread Parts, so a small
  // call allocates nothing).
  void parts(int R, int C, layout::Parts& p) const {
    const int64_t* n = g.shape;
    const int64_t* s = g.stride;
    p.row.resize(size_t(R));
    p.col.resize(size_t(C));
    switch (g.layout) {
      case GmLayout::ND: {
        const int64_t rn[] = {n[0], n[1], n[2], n[3]}, rs[] = {s[0], s[1], s[2], s[3]};
        count(p.row, rn, rs, 4);
        for (int c = 0; c < C; ++c) p.col[size_t(c)] = c * s[4];
        break;
      }
      case GmLayout::DN: {
        for (int r = 0; r < R; ++r) p.row[size_t(r)] = r * s[3];
        const int64_t cn[] = {n[0], n[1], n[2], n[4]}, cs[] = {s[0], s[1], s[2], s[4]};
        count(p.col, cn, cs, 4);
        break;
      }
      default: {
        const int64_t rn[] = {n[2], n[3]}, rs[] = {s[2], s[3]};
        const int64_t cn[] = {n[0], n[1], n[4]}, cs[] = {s[0], s[1], s[4]};
        count(p.row, rn, rs, 2);
        count(p.col, cn, cs, 3);
        break;
      }
    }
  }
  // v[k] = sum of digit_i * stride_i for k written in the radices `radix` (last digit fastest).
  static void count(std::vector<int64_t>& v, const int64_t* radix, const int64_t* stride, int nd) {
    bool one_dim = true;  // every digit but the last has radix 1 (a 2-D view): k * stride
    for (int d = 0; d + 1 < nd; ++d) one_dim = one_dim && radix[d] == 1;
    if (one_dim) {
      for (size_t k = 0; k < v.size(); ++k) v[k] = int64_t(k) * stride[nd - 1];
      return;
    }
    int64_t digit[4] = {0, 0, 0, 0};
    int64_t off = 0;
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = off;
      for (int d = nd - 1; d >= 0; --d) {  // increment with carry
        off += stride[d];
        if (++digit[d] < radix[d]) break;
        off -= digit[d] * stride[d];
        digit[d] = 0;
      }
    }
  }
  // A 2-D ND view with unit column stride: element (r, c) at r * stride[3] + c.
  bool plain_2d() const {
    return g.layout == GmLayout::ND && g.shape[0] == 1 && g.shape[1] == 1 && g.shape[2] == 1 &&
           g.stride[4] == 1;
  }
  // Row r's elements are at row[r] + c: one block per row.
  bool rows_contiguous() const {
    return g.layout == GmLayout::ND ? g.stride[4] == 1
                                    : false;
  }
};

// The view's own rules: a known layout, a data pointer, extents >= 1, the offset range of every
// element representable, and inside the bound array when the front end knows it.
void gm_ok(const Ctx& c, const GmDesc& g, const TileDesc& t, std::string_view who) {
  if (g.layout == GmLayout::Other)
    c.fail(ErrorCode::Unsupported, fmt::format("{}: GlobalTensor layouts other than ND, DN and NZ "
                                               "(MX, HIF4) are not supported yet", who));
  if (!g.data) c.fail(ErrorCode::Constraint, fmt::format("{} GlobalTensor has a null data pointer", who));
  if (g.dtype != t.dtype && t.loc != kLocAcc)
    c.fail(ErrorCode::Constraint, fmt::format("{} GlobalTensor dtype {} must equal the tile's, {}",
                                              who, elem_name(g.dtype), elem_name(t.dtype)));
  int64_t lo = 0, hi = 0;  // element offsets of the view's first and last bytes
  for (int d = 0; d < 5; ++d) {
    const int64_t n = g.shape[d], s = g.stride[d];
    if (n < 1 || n > (int64_t(1) << 31))
      c.fail(ErrorCode::Constraint,
             fmt::format("{} GlobalTensor shape[{}] must be in 1..2^31, got {}", who, d, n));
    if (s < -(int64_t(1) << 40) || s > (int64_t(1) << 40))
      c.fail(ErrorCode::Constraint,
             fmt::format("{} GlobalTensor stride[{}] = {} is out of range", who, d, s));
    (s < 0 ? lo : hi) += (n - 1) * s;
  }
  if (g.layout == GmLayout::NZ) {
    // NZ views are fractal: the innermost box is N3 x N4 (rows x 32 bytes) with unit inner stride.
    if (g.stride[4] != 1)
      c.fail(ErrorCode::Constraint,
             fmt::format("{} NZ GlobalTensor stride[4] must be 1, got {}", who, g.stride[4]));
  }
  if (g.extent) {
    const int64_t es = int64_t(elem_size(g.dtype));
    if (lo < 0 || (hi + 1) * es > int64_t(g.extent))
      c.fail(ErrorCode::Bounds,
             fmt::format("{} GlobalTensor reaches bytes [{}, {}) of its array, which has {} bytes",
                         who, lo * es, (hi + 1) * es, g.extent));
  }
}

// Layout pairs (spec 21 §5): a2a3 and a5 move ND with RowMajor NoneBox tiles, DN with ColMajor
// NoneBox, NZ with NZ tiles; Mat tiles also take ND -> NZ and DN -> ZN; a one-row or one-column
// NoneBox tile takes either; cpu takes any pair.
void layout_pair_ok(const Ctx& c, const GmDesc& g, const TileDesc& t, std::string_view who) {
  if (c.target.kind == TargetKind::cpu) return;
  const bool nonebox = t.slayout == kSLayoutNoneBox;
  const bool nz = !t.row_major && t.slayout == kSLayoutRowMajor;
  const bool zn = t.row_major && t.slayout == kSLayoutColMajor;
  const bool vector_shape = nonebox && (t.valid_row == 1 || t.valid_col == 1);
  bool ok = false;
  if (t.loc == kLocAcc)  // the FIX pipe writes an Acc tile to an ND or NZ view (TSTORE only)
    ok = g.layout == GmLayout::ND || g.layout == GmLayout::NZ;
  else
  switch (g.layout) {
    case GmLayout::ND: ok = (nonebox && t.row_major) || vector_shape || (t.loc == kLocMat && nz); break;
    case GmLayout::DN: ok = (nonebox && !t.row_major) || vector_shape || (t.loc == kLocMat && zn); break;
    case GmLayout::NZ: ok = nz; break;
    default: break;
  }
  if (!ok)
    c.fail(ErrorCode::Constraint,
           fmt::format("{} GlobalTensor layout {} cannot move with a {} {}{} tile on target {} (ND "
                       "pairs with RowMajor NoneBox, DN with ColMajor NoneBox, NZ with NZ; Mat "
                       "tiles also ND->NZ and DN->ZN)",
                       who, gm_layout_name(g.layout), t.row_major ? "RowMajor" : "ColMajor",
                       t.slayout == kSLayoutNoneBox ? "NoneBox"
                       : t.slayout == kSLayoutRowMajor ? "RowMajor-box"
                                                       : "ColMajor-box",
                       nonebox ? "" : " (boxed)", c.target.name));
}

void shapes_match(const Ctx& c, const View2D& v, const TileDesc& t, std::string_view who) {
  if (v.rows != t.valid_row || v.cols != t.valid_col)
    c.fail(ErrorCode::Constraint,
           fmt::format("the {} GlobalTensor is a {}x{} view (shape [{}, {}, {}, {}, {}]) but the "
                       "{} tile's valid shape is {}x{}; they must be equal",
                       gm_layout_name(v.g.layout), v.rows, v.cols, v.g.shape[0], v.g.shape[1],
                       v.g.shape[2], v.g.shape[3], v.g.shape[4], who, t.valid_row, t.valid_col));
}

void location_ok(const Ctx& c, const TileDesc& t, bool store, std::string_view who) {
  if (c.target.kind == TargetKind::cpu) return;  // the simulator moves any tile
  // TSTORE from Mat exists on a2a3 only (a5's TStore.hpp takes Vec and Acc sources).
  const bool a5_store = store && c.target.kind == TargetKind::a5;
  const bool ok = t.loc == kLocVec || (t.loc == kLocMat && !a5_store) || (store && t.loc == kLocAcc);
  if (!ok)
    c.fail(ErrorCode::Constraint,
           fmt::format("{} must be a {} tile on target {}, got TileType::{}", who,
                       !store ? "Vec or Mat" : a5_store ? "Vec or Acc" : "Vec, Mat or Acc",
                       c.target.name, loc_name(t.loc)));
}

void tload(const Ctx& c, const Call& call) {
  const TileDesc& t = *call.dst;
  const GmDesc& g = *call.gm;
  tile_ok(c, t, "dst");
  location_ok(c, t, false, "dst");
  dtype_allowed(c, t, "dst");
  gm_ok(c, g, t, "src");
  layout_pair_ok(c, g, t, "src");
  if (elem_size(t.dtype) == 8 && c.target.kind != TargetKind::cpu) {
    // 64-bit tiles: a2a3 moves them ND->ND and DN->DN only; a5 pads them with 0 only.
    if (is_a2a3(c) && (t.slayout != kSLayoutNoneBox || g.layout == GmLayout::NZ))
      c.fail(ErrorCode::Constraint, fmt::format("a 64-bit dst ({}) loads only ND->ND or DN->DN on "
                                                "target a2a3", elem_name(t.dtype)));
    if (c.target.kind == TargetKind::a5 && t.pad != kPadNull && t.pad != kPadZero)
      c.fail(ErrorCode::Constraint, fmt::format("a 64-bit dst ({}) takes PadValue Null or Zero only "
                                                "on target a5", elem_name(t.dtype)));
  }
  const View2D v(g);
  shapes_match(c, v, t, "dst");
  // Pad first, then the valid region (spec 21 §2): when the valid region is the whole tile the
  // copy overwrites every padded element, so the fill is skipped (same result, one pass).
  if (t.valid_row != t.rows || t.valid_col != t.cols) fill_pad(t);
  const size_t es = esize(t);
  const int R = t.valid_row, C = t.valid_col;
  // The view's offset tables; a plain 2-D view (row r at r * stride[3]) needs them only for the
  // element mover at the end.
  thread_local layout::Parts gp;
  const bool plain = v.plain_2d();
  if (!plain) v.parts(R, C, gp);
  const auto row = [&](int r) {
    return g.data + (plain ? int64_t(r) * g.stride[3] : gp.row[size_t(r)]) * int64_t(es);
  };
  if (v.rows_contiguous() && layout::rows_contiguous(t)) {
    for (int r = 0; r < R; ++r) std::memcpy(t.data + size_t(r) * t.cols * es, row(r), C * es);
    return;
  }
  if (v.rows_contiguous() && rows_box_rows(t, 0, 0, R, C, true, row)) return;  // ND rows into NZ / ZZ box rows
  if (plain) v.parts(R, C, gp);
  // DN columns into ZN box columns: a ZN R x C tile is the NZ C x R tile of its transpose (same
  // storage index; docs/pto-kernels.md#tile-layouts) and a DN view's columns are contiguous rows
  // of the transposed view, so the same box-row mover applies (the K operand of attention).
  const bool zn = t.row_major && t.slayout == kSLayoutColMajor && (t.fractal == 512 || t.fractal == 1024);
  if (g.layout == GmLayout::DN && g.stride[3] == 1 && zn) {
    TileDesc tt = t;
    tt.row_major = false;
    tt.slayout = kSLayoutRowMajor;
    tt.rows = t.cols, tt.cols = t.rows, tt.valid_row = C, tt.valid_col = R;
    if (layout::inner_rows(tt) == layout::inner_cols(t) && layout::inner_cols(tt) == layout::inner_rows(t) &&
        rows_box_rows(tt, 0, 0, C, R, true, [&](int c) { return g.data + gp.col[size_t(c)] * int64_t(es); }))
      return;
  }
  layout::copy_region(t.data, layout::Parts(t, 0, R, 0, C), g.data, gp, R, C, es);
}

void tstore(const Ctx& c, const Call& call) {
  const TileDesc& t = *call.src0;
  const GmDesc& g = *call.gm;
  tile_ok(c, t, "src");
  location_ok(c, t, true, "src");
  if (t.loc != kLocAcc) dtype_allowed(c, t, "src");
  gm_ok(c, g, t, "dst");
  layout_pair_ok(c, g, t, "dst");
  const View2D v(g);
  shapes_match(c, v, t, "src");
  Conversion cv{t.dtype, g.dtype};
  if (t.loc == kLocAcc) {
    cv = acc_conversion(c, t.dtype, g.dtype, call.relu, call.has_quant, call.quant);
  } else if (call.relu || call.has_quant) {
    c.fail(ErrorCode::Constraint,
           "the ReLU and preQuantScalar forms of TSTORE take an Acc source tile");
  }
  if (call.atomic > 1)
    c.fail(ErrorCode::Constraint, fmt::format("unknown AtomicType {}", call.atomic));
  const formats::DType gd = core_dtype(g.dtype);
  const size_t es = elem_size(g.dtype), ts = esize(t);
  const int R = t.valid_row, C = t.valid_col;
  // As in tload: a plain 2-D view needs the offset tables only for the element movers below.
  thread_local layout::Parts gp;
  const bool plain = v.plain_2d();
  if (!plain) v.parts(R, C, gp);
  const auto row = [&](int r) {
    return g.data + (plain ? int64_t(r) * g.stride[3] : gp.row[size_t(r)]) * int64_t(es);
  };
  const bool moves = !call.atomic && cv.identity() && v.rows_contiguous();
  if (moves && layout::rows_contiguous(t)) {
    for (int r = 0; r < R; ++r) std::memcpy(row(r), t.data + size_t(r) * t.cols * ts, C * es);
    return;
  }
  if (moves && rows_box_rows(t, 0, 0, R, C, false, row)) return;  // NZ / ZZ box rows into ND rows
  if (plain) v.parts(R, C, gp);
  const layout::Parts tp(t, 0, R, 0, C);
  if (!call.atomic && cv.identity())
    return layout::copy_region(g.data, gp, t.data, tp, R, C, es);
  for (int r = 0; r < R; ++r)
    for (int col = 0; col < C; ++col) {
      uint8_t* p = g.data + (gp.row[size_t(r)] + gp.col[size_t(col)]) * int64_t(es);
      uint64_t code = convert(
          cv, ops::load_code(core_dtype(t.dtype), t.data + (tp.row[size_t(r)] + tp.col[size_t(col)]) * ts, 0));
      if (call.atomic)  // AtomicAdd: GM = GM + value in the GM's dtype (spec 15 add)
        code = ops::eval(ops::Op::add, gd, ops::load_code(gd, p, 0), code);
      ops::store_code(gd, p, 0, code);
    }
}

}  // namespace

void memory(const Ctx& c, const Call& call, Path) {
  if (!call.gm) c.fail(ErrorCode::Constraint, "a GlobalTensor operand is required");
  no_mx_locations(c, call);
  switch (c.info.kind) {
    case Kind::Load: return tload(c, call);
    case Kind::Store: return tstore(c, call);
    default: {  // TPREFETCH: checked like TLOAD, moves nothing (a cache hint on hardware)
      const TileDesc& t = *call.dst;
      tile_ok(c, t, "dst");
      gm_ok(c, *call.gm, t, "src");
      return;
    }
  }
}

}  // namespace tilesim::pto::instr
