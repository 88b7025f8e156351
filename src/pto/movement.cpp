// PTO movement instructions (spec 21 §2 movement row; docs/pto-kernels.md#movement): TMOV, TTRANS,
// TEXTRACT, TRESHAPE, TFILLPAD, and what the memory family shares with them (pad codes, the Acc
// conversion, the element mover; transfer.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/op_table.hpp"
#include "pto/transfer.hpp"

namespace tilesim::pto::instr {

namespace {
constexpr const char* kLocNames[] = {"Vec",  "Mat",     "Left",      "Right",      "Acc",
                                     "Bias", "Scaling", "ScaleLeft", "ScaleRight", "Ctrl"};
}  // namespace

std::string loc_name(uint8_t loc) {
  return loc < 10 ? kLocNames[loc] : fmt::format("TileType({})", loc);
}

void loc_is(const Ctx& c, const TileDesc& t, uint8_t loc, std::string_view who) {
  if (t.loc != loc)
    c.fail(ErrorCode::Constraint, fmt::format("{} must be a TileType::{} tile, got TileType::{}",
                                              who, loc_name(loc), loc_name(t.loc)));
}

void no_mx_locations(const Ctx& c, const Call& call) {
  const std::pair<const TileDesc*, const char*> ops[] = {
      {call.dst, "dst"}, {call.src0, "src"}, {call.src1, "src1"}, {call.tmp, "tmp"},
      {call.acc_in, "cInMatrix"}, {call.bias, "biasData"}};
  for (const auto& [t, who] : ops)
    if (t && (t->loc == kLocScaleLeft || t->loc == kLocScaleRight || t->loc == kLocCtrl))
      c.fail(ErrorCode::Unsupported,
             fmt::format("{} is a TileType::{} tile: instructions on ScaleLeft, ScaleRight and Ctrl "
                         "tiles are not supported yet (the MX formats)",
                         who, loc_name(t->loc)));
}

uint64_t pad_code(Elem e, uint64_t pad) {
  const formats::DType dt = core_dtype(e);
  const unsigned bits = unsigned(elem_size(e) * 8);
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  if (pad >= (uint64_t{1} << 32))  // PadCustom: the low bits are the code (the vendor's encoding)
    return (pad & 0xFFFFFFFFu) & mask;
  const bool is_signed = e == Elem::s8 || e == Elem::s16 || e == Elem::s32 || e == Elem::s64;
  const formats::FormatInfo& fi = formats::info(dt);
  const uint64_t inf = ((uint64_t{1} << fi.exp_bits) - 1) << fi.man_bits;  // IEEE-style +Inf
  switch (pad) {
    case kPadMax:
      if (elem_is_float(e)) return inf;
      return is_signed ? mask >> 1 : mask;
    case kPadMin:
      if (elem_is_float(e)) return inf | (uint64_t{1} << (bits - 1));
      return is_signed ? (mask >> 1) + 1 : 0;
    default:  // Null, Zero
      return 0;
  }
}

void fill_pad(const TileDesc& t) {
  const uint64_t code = pad_code(t.dtype, t.pad);
  const size_t n = size_t(t.rows) * size_t(t.cols), es = esize(t);
  if (code == 0) {
    std::memset(t.data, 0, n * es);
    return;
  }
  const formats::DType dt = core_dtype(t.dtype);
  for (size_t i = 0; i < n; ++i) ops::store_code(dt, t.data, i, code);
}

Conversion acc_conversion(const Ctx& c, Elem from, Elem to, uint8_t relu, bool has_quant,
                          uint64_t quant) {
  // The FIX pipe's conversions from L0C (docs/pto-kernels.md#acc-conversion): fp32 to fp32,
  // fp16 or bf16; s32 to s32, and with a pre-quantisation scalar to fp16 or s8.
  bool ok = false;
  if (from == Elem::f32) ok = (to == Elem::f32 || to == Elem::f16 || to == Elem::bf16) && !has_quant;
  if (from == Elem::s32) ok = to == Elem::s32 ? !has_quant : (has_quant && (to == Elem::f16 || to == Elem::s8));
  if (!ok)
    c.fail(ErrorCode::Constraint,
           fmt::format("no conversion from an Acc {} tile to {}{} (fp32 -> fp32/fp16/bf16; s32 -> "
                       "s32; s32 with preQuantScalar -> fp16/s8)",
                       elem_name(from), elem_name(to), has_quant ? " with preQuantScalar" : ""));
  if (relu > 1) c.fail(ErrorCode::Constraint, fmt::format("unknown ReluPreMode {}", relu));
  return Conversion{from, to, relu == 1, has_quant, quant};
}

uint64_t convert(const Conversion& cv, uint64_t code) {
  if (cv.identity()) return code;
  const formats::DType from = core_dtype(cv.from), to = core_dtype(cv.to);
  if (cv.relu) code = ops::eval(ops::Op::relu, from, code);
  if (cv.quant) {
    // Dequantise / requantise: the s32 value times the fp32 scale in the scalar's low 32 bits,
    // one fp32 rounding, then to the destination (RNE, saturating).
    const uint64_t f = ops::cast_one(from, formats::DType::fp32, code, ops::CastMode{});
    const uint64_t scaled =
        ops::eval(ops::Op::mul, formats::DType::fp32, f, cv.quant_scalar & 0xFFFFFFFFu);
    return ops::cast_one(formats::DType::fp32, to, scaled, ops::CastMode{});
  }
  return ops::cast_one(from, to, code, ops::CastMode{});
}

namespace {
// An IR x IC box from row-major (element (i, j) at i * IC + j) to column-major (j * IR + i), or
// the reverse when !s_rm; the destination written in order.
template <class U, int kOuter, int kInner>
void transpose_box_fixed(uint8_t* db, const uint8_t* sb) {
  U in[kInner * kOuter], out[kOuter * kInner];
  std::memcpy(in, sb, sizeof in);
  for (int o = 0; o < kOuter; ++o)
    for (int i = 0; i < kInner; ++i) out[o * kInner + i] = in[i * kOuter + o];
  std::memcpy(db, out, sizeof out);
}
template <class U>
void transpose_box(uint8_t* db, const uint8_t* sb, int IR, int IC, bool s_rm) {
  const int outer = s_rm ? IC : IR, inner = s_rm ? IR : IC;  // destination lines and their length
  if (outer == 16 && inner == 16) {  // the cube boxes
    if constexpr (sizeof(U) == 2) return transpose_box16x16_u16(db, sb);  // fp16 / bf16: SIMD
    return transpose_box_fixed<U, 16, 16>(db, sb);
  }
  for (int o = 0; o < outer; ++o)
    for (int i = 0; i < inner; ++i) {
      U v;
      std::memcpy(&v, sb + size_t(i * outer + o) * sizeof(U), sizeof(U));
      std::memcpy(db + size_t(o * inner + i) * sizeof(U), &v, sizeof(U));
    }
}
}  // namespace

void move_region(const TileDesc& dst, const TileDesc& src, int r0, int c0, int R, int C,
                 const Conversion& cv) {
  const size_t ds = esize(dst), ss = esize(src);
  if (cv.identity() && layout::rows_contiguous(dst) && layout::rows_contiguous(src)) {
    for (int r = 0; r < R; ++r)
      std::memmove(dst.data + size_t(r) * dst.cols * ds,
                   src.data + (size_t(r0 + r) * src.cols + c0) * ss, size_t(C) * ds);
    return;
  }
  // The same layout, the whole tile: one block copy (Mat -> Left/Right of the cube path).
  if (cv.identity() && r0 == 0 && c0 == 0 && R == src.rows && C == src.cols && dst.rows == src.rows &&
      dst.cols == src.cols && dst.dtype == src.dtype && dst.row_major == src.row_major &&
      dst.slayout == src.slayout && (dst.slayout == kSLayoutNoneBox || dst.fractal == src.fractal)) {
    std::memmove(dst.data, src.data, src.bytes());
    return;
  }
  // Boxed to boxed with the same box shape over whole boxes: box by box, one block copy when the
  // boxes agree inside, else a transpose of the box (Mat NZ -> Right ZN of the cube path; the
  // generic mover found no contiguous run there and went element by element).
  if (cv.identity() && dst.dtype == src.dtype && dst.slayout != kSLayoutNoneBox && src.slayout != kSLayoutNoneBox &&
      !overlaps(dst, src)) {
    const int IR = layout::inner_rows(src), IC = layout::inner_cols(src);
    if (IR == layout::inner_rows(dst) && IC == layout::inner_cols(dst) && r0 % IR == 0 && c0 % IC == 0 && R % IR == 0 &&
        C % IC == 0) {
      const bool s_rm = layout::box_row_major(src), d_rm = layout::box_row_major(dst);
      const size_t box = size_t(IR) * size_t(IC) * ds;
      // A box's offset is its box row's part plus its box column's (layout::index is separable):
      // the column parts once per call, not two index divisions per box.
      thread_local std::vector<size_t> dcol, scol;
      dcol.resize(size_t(C / IC)), scol.resize(size_t(C / IC));
      for (int bc = 0; bc < C; bc += IC) {
        dcol[size_t(bc / IC)] = layout::index(dst, 0, bc) * ds;
        scol[size_t(bc / IC)] = layout::index(src, 0, c0 + bc) * ss;
      }
      for (int br = 0; br < R; br += IR) {
        uint8_t* const drow = dst.data + layout::index(dst, br, 0) * ds;
        const uint8_t* const srow = src.data + layout::index(src, r0 + br, 0) * ss;
        for (int bc = 0; bc < C; bc += IC) {
          uint8_t* db = drow + dcol[size_t(bc / IC)];
          const uint8_t* sb = srow + scol[size_t(bc / IC)];
          if (s_rm == d_rm) {
            std::memcpy(db, sb, box);
            continue;
          }
          switch (ds) {
            case 1: transpose_box<uint8_t>(db, sb, IR, IC, s_rm); break;
            case 2: transpose_box<uint16_t>(db, sb, IR, IC, s_rm); break;
            case 4: transpose_box<uint32_t>(db, sb, IR, IC, s_rm); break;
            default: transpose_box<uint64_t>(db, sb, IR, IC, s_rm); break;
          }
        }
      }
      return;
    }
  }
  // Row-major rows to or from a boxed tile whose boxes are row-major inside (NZ, ZZ: Acc -> Vec,
  // the matrix result's staging).
  if (cv.identity() && dst.dtype == src.dtype && !overlaps(dst, src) &&
      (layout::rows_contiguous(dst) != layout::rows_contiguous(src))) {
    const bool src_boxed = layout::rows_contiguous(dst);
    const TileDesc& plain = src_boxed ? dst : src;
    uint8_t* const base = src_boxed ? dst.data : src.data + (size_t(r0) * src.cols + c0) * ss;
    const size_t pitch = size_t(plain.cols) * ds;
    if (rows_box_rows(src_boxed ? src : dst, src_boxed ? r0 : 0, src_boxed ? c0 : 0, R, C, !src_boxed,
                      [&](int r) { return base + size_t(r) * pitch; }))
      return;
  }
  const layout::Parts dp(dst, 0, R, 0, C), sp(src, r0, R, c0, C);
  if (cv.identity()) {
    if (!overlaps(dst, src)) return layout::copy_region(dst.data, dp, src.data, sp, R, C, ds);
    // dst aliases src: stage the source region (row-major) first, then place it.
    std::vector<uint8_t> stage(size_t(R) * size_t(C) * ss);
    const layout::Parts rm = layout::Parts::row_major(R, C);
    layout::copy_region(stage.data(), rm, src.data, sp, R, C, ss);
    return layout::copy_region(dst.data, dp, stage.data(), rm, R, C, ds);
  }
  // Converting: read (and convert) every source element before writing (dst may alias src).
  std::vector<uint64_t> v(size_t(R) * size_t(C));
  const formats::DType sd = core_dtype(src.dtype), dd = core_dtype(dst.dtype);
  for (int r = 0; r < R; ++r)
    for (int col = 0; col < C; ++col)
      v[size_t(r) * C + col] =
          convert(cv, ops::load_code(sd, src.data + (sp.row[size_t(r)] + sp.col[size_t(col)]) * ss, 0));
  for (int r = 0; r < R; ++r)
    for (int col = 0; col < C; ++col)
      ops::store_code(dd, dst.data + (dp.row[size_t(r)] + dp.col[size_t(col)]) * ds, 0,
                      v[size_t(r) * C + col]);
}

namespace {

// TMOV location pairs (spec 21 §5 table).
bool mov_pair_ok(TargetKind k, uint8_t from, uint8_t to) {
  switch (k) {
    case TargetKind::a2a3:
      return (from == kLocMat &&
              (to == kLocLeft || to == kLocRight || to == kLocBias || to == kLocScaling)) ||
             (from == kLocVec && to == kLocVec) || (from == kLocAcc && to == kLocMat);
    case TargetKind::a5:
      return (from == kLocMat && (to == kLocLeft || to == kLocRight || to == kLocBias ||
                                  to == kLocScaling || to == kLocScaleLeft ||
                                  to == kLocScaleRight)) ||
             (from == kLocVec && (to == kLocVec || to == kLocMat)) ||
             (from == kLocAcc && (to == kLocVec || to == kLocMat));
    default:
      return true;
  }
}

void tmov(const Ctx& c, const Call& call) {
  const TileDesc& d = *call.dst;
  const TileDesc& s = *call.src0;
  tile_ok(c, d, "dst");
  tile_ok(c, s, "src");
  if (!mov_pair_ok(c.target.kind, s.loc, d.loc))
    c.fail(ErrorCode::Constraint,
           fmt::format("TMOV from TileType::{} to TileType::{} is not a location pair of target {} "
                       "(a2a3: Mat->Left/Right/Bias/Scaling, Vec->Vec, Acc->Mat; a5 adds Vec->Mat, "
                       "Acc->Vec; cpu: any)",
                       loc_name(s.loc), loc_name(d.loc), c.target.name));
  same_valid(c, d, "dst", s, "src");
  Conversion cv{s.dtype, d.dtype};
  if (s.loc == kLocAcc) {
    // a2a3's Acc -> Mat (its only Acc move) converts fp32 to fp16 or bf16 and nothing else
    // (pto-isa npu/a2a3 CheckTMovAccToMat); a5 and cpu take every pair of the Acc conversion.
    if (is_a2a3(c) && !call.has_quant &&
        !(s.dtype == Elem::f32 && (d.dtype == Elem::f16 || d.dtype == Elem::bf16)))
      c.fail(ErrorCode::Constraint,
             fmt::format("TMOV Acc -> Mat on target a2a3 converts fp32 to fp16 or bf16 only, got {} "
                         "-> {}",
                         elem_name(s.dtype), elem_name(d.dtype)));
    cv = acc_conversion(c, s.dtype, d.dtype, call.relu, call.has_quant, call.quant);
  } else if (d.loc == kLocBias && d.dtype == Elem::f32 &&
             (s.dtype == Elem::f16 || (s.dtype == Elem::bf16 && !is_a2a3(c)))) {
    cv = Conversion{s.dtype, d.dtype};  // Mat -> Bias widens fp16 (and bf16 on a5) exactly
  } else {
    same_dtype(c, d, "dst", s, "src");
    dtype_allowed(c, d, "dst");
    if (call.relu || call.has_quant)
      c.fail(ErrorCode::Constraint, "the ReLU and preQuantScalar forms of TMOV take an Acc source tile");
  }
  move_region(d, s, 0, 0, d.valid_row, d.valid_col, cv);
}

void ttrans(const Ctx& c, const Call& call) {
  const TileDesc& d = *call.dst;
  const TileDesc& s = *call.src0;
  tile_ok(c, d, "dst");
  tile_ok(c, s, "src");
  same_dtype(c, d, "dst", s, "src");
  dtype_allowed(c, d, "dst");
  if (c.target.kind != TargetKind::cpu) {
    vec(c, d, "dst");
    vec(c, s, "src");
    row_major(c, d, "dst");
    row_major(c, s, "src");
    if (esize(s) == 8)
      c.fail(ErrorCode::Constraint,
             fmt::format("TTRANS moves 1-, 2- or 4-byte elements on target {}, got {}", c.target.name,
                         elem_name(s.dtype)));
    if (call.tmp) tile_ok(c, *call.tmp, "tmp");
  }
  if (d.valid_row != s.valid_col || d.valid_col != s.valid_row)
    c.fail(ErrorCode::Constraint,
           fmt::format("dst valid shape must be src's transposed ({}x{}), got {}x{}", s.valid_col,
                       s.valid_row, d.valid_row, d.valid_col));
  const int R = s.valid_row, C = s.valid_col;
  const formats::DType dt = core_dtype(s.dtype);
  std::vector<uint64_t> v(size_t(R) * size_t(C));  // dst may alias src
  for (int r = 0; r < R; ++r)
    for (int col = 0; col < C; ++col) v[size_t(r) * C + col] = ops::load_code(dt, layout::at(s, r, col), 0);
  for (int r = 0; r < R; ++r)
    for (int col = 0; col < C; ++col) ops::store_code(dt, layout::at(d, col, r), 0, v[size_t(r) * C + col]);
}

void textract(const Ctx& c, const Call& call) {
  const TileDesc& d = *call.dst;
  const TileDesc& s = *call.src0;
  tile_ok(c, d, "dst");
  tile_ok(c, s, "src");
  const int r0 = call.index_row, c0 = call.index_col;
  if (r0 + d.valid_row > s.valid_row || c0 + d.valid_col > s.valid_col)
    c.fail(ErrorCode::Bounds,
           fmt::format("the {}x{} region at ({}, {}) leaves src's valid region {}x{}", d.valid_row,
                       d.valid_col, r0, c0, s.valid_row, s.valid_col));
  if (c.target.kind != TargetKind::cpu && !mov_pair_ok(c.target.kind, s.loc, d.loc) &&
      !(s.loc == d.loc && s.loc == kLocVec))
    c.fail(ErrorCode::Constraint,
           fmt::format("TEXTRACT from TileType::{} to TileType::{} is not a location pair of "
                       "target {}",
                       loc_name(s.loc), loc_name(d.loc), c.target.name));
  Conversion cv{s.dtype, d.dtype};
  if (s.loc == kLocAcc) {
    cv = acc_conversion(c, s.dtype, d.dtype, call.relu, call.has_quant, call.quant);
  } else {
    same_dtype(c, d, "dst", s, "src");
    dtype_allowed(c, d, "dst");
  }
  move_region(d, s, r0, c0, d.valid_row, d.valid_col, cv);
}

void treshape(const Ctx& c, const Call& call) {
  const TileDesc& d = *call.dst;
  const TileDesc& s = *call.src0;
  tile_ok(c, d, "dst");
  tile_ok(c, s, "src");
  if (d.loc != s.loc)
    c.fail(ErrorCode::Constraint, fmt::format("dst TileType::{} must equal src's, TileType::{}",
                                              loc_name(d.loc), loc_name(s.loc)));
  if (d.bytes() != s.bytes())
    c.fail(ErrorCode::Constraint,
           fmt::format("dst ({} bytes) and src ({} bytes) must have the same size", d.bytes(), s.bytes()));
  if (elem_is_float(d.dtype) != elem_is_float(s.dtype))
    c.fail(ErrorCode::Constraint,
           fmt::format("dst {} and src {} must both be float or both integer types",
                       elem_name(d.dtype), elem_name(s.dtype)));
  if ((d.slayout == kSLayoutNoneBox) != (s.slayout == kSLayoutNoneBox))
    c.fail(ErrorCode::Constraint, "cannot reshape between boxed and NoneBox layouts");
  // The bytes are reinterpreted (on hardware the tiles share storage; auto-mode tiles here own
  // theirs, so the bytes are copied: docs/pto-kernels.md#movement).
  if (d.data != s.data) std::memmove(d.data, s.data, s.bytes());
}

void tfillpad(const Ctx& c, const Call& call) {
  const TileDesc& d = *call.dst;
  const TileDesc& s = *call.src0;
  tile_ok(c, d, "dst");
  tile_ok(c, s, "src");
  same_dtype(c, d, "dst", s, "src");
  if (d.pad == kPadNull)
    c.fail(ErrorCode::Constraint, "dst's PadValue must not be Null (it is the fill value)");
  if (s.valid_row > d.rows || s.valid_col > d.cols)
    c.fail(ErrorCode::Constraint,
           fmt::format("src's valid region {}x{} must fit dst's {}x{}", s.valid_row, s.valid_col,
                       d.rows, d.cols));
  if (d.valid_row == 0 || d.valid_col == 0) return;
  // dst = src inside src's valid region, dst's pad everywhere else (all Rows x Cols).
  std::vector<uint64_t> v(size_t(s.valid_row) * size_t(s.valid_col));
  const formats::DType dt = core_dtype(s.dtype);
  for (int r = 0; r < s.valid_row; ++r)
    for (int col = 0; col < s.valid_col; ++col)
      v[size_t(r) * s.valid_col + col] = ops::load_code(dt, layout::at(s, r, col), 0);
  fill_pad(d);
  for (int r = 0; r < s.valid_row; ++r)
    for (int col = 0; col < s.valid_col; ++col)
      ops::store_code(dt, layout::at(d, r, col), 0, v[size_t(r) * s.valid_col + col]);
}

}  // namespace

void movement(const Ctx& c, const Call& call, Path) {
  no_mx_locations(c, call);
  switch (c.info.kind) {
    case Kind::Move: return tmov(c, call);
    case Kind::Transpose: return ttrans(c, call);
    case Kind::Extract: return textract(c, call);
    case Kind::Reshape: return treshape(c, call);
    default: return tfillpad(c, call);
  }
}

}  // namespace tilesim::pto::instr

namespace tilesim::pto::layout {
namespace {
// runs[k]: how many consecutive entries from k step by exactly 1 element (a contiguous run).
void runs_of(const std::vector<int64_t>& v, std::vector<int32_t>& runs) {
  runs.resize(v.size());
  for (size_t k = v.size(); k-- > 0;)
    runs[k] = k + 1 < v.size() && v[k + 1] == v[k] + 1 ? runs[k + 1] + 1 : 1;
}
double mean_run(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  double s = 0;
  size_t n = 0;
  for (size_t k = 0; k < a.size(); k += size_t(std::min(a[k], b[k])), ++n) s += std::min(a[k], b[k]);
  return n ? s / double(n) : 0;
}
template <class U>
void copy_typed(uint8_t* dst, const Parts& d, const uint8_t* src, const Parts& s, int R, int C) {
  U* D = reinterpret_cast<U*>(dst);
  const U* S = reinterpret_cast<const U*>(src);
  const int64_t* dc = d.col.data();
  const int64_t* sc = s.col.data();
  for (int r = 0; r < R; ++r) {
    U* drow = D + d.row[size_t(r)];
    const U* srow = S + s.row[size_t(r)];
    for (int c = 0; c < C; ++c) drow[dc[c]] = srow[sc[c]];
  }
}
// Copies along `inner` (the axis with contiguous runs in both layouts) in block copies. The inner
// offsets are the same for every outer line, so the runs are listed once.
void copy_runs(uint8_t* dst, const std::vector<int64_t>& d_outer, const std::vector<int64_t>& d_inner,
               const uint8_t* src, const std::vector<int64_t>& s_outer,
               const std::vector<int64_t>& s_inner, const std::vector<int32_t>& dr,
               const std::vector<int32_t>& sr, size_t es) {
  struct Run {
    int64_t d, s, bytes;
  };
  thread_local std::vector<Run> runs;
  runs.clear();
  bool all32 = true;
  for (size_t k = 0; k < d_inner.size();) {
    const size_t len = size_t(std::min(dr[k], sr[k]));
    runs.push_back({d_inner[k] * int64_t(es), s_inner[k] * int64_t(es), int64_t(len * es)});
    all32 = all32 && len * es == 32;
    k += len;
  }
  for (size_t o = 0; o < d_outer.size(); ++o) {
    uint8_t* drow = dst + d_outer[o] * int64_t(es);
    const uint8_t* srow = src + s_outer[o] * int64_t(es);
    if (all32) {  // box rows of 32 bytes: fixed-size moves, no call
      for (const Run& r : runs) std::memcpy(drow + r.d, srow + r.s, 32);
    } else {
      for (const Run& r : runs) std::memcpy(drow + r.d, srow + r.s, size_t(r.bytes));
    }
  }
}
}  // namespace

void copy_region(uint8_t* dst, const Parts& d, const uint8_t* src, const Parts& s, int R, int C,
                 size_t esize) noexcept {
  if (R <= 0 || C <= 0) return;
  // Contiguous runs along columns (row-major rows, RowMajor boxes) or along rows (column-major
  // layouts, ColMajor boxes): block copies along the better axis; else element by element.
  thread_local std::vector<int32_t> dcr, scr, drr, srr;
  runs_of(d.col, dcr);
  runs_of(s.col, scr);
  runs_of(d.row, drr);
  runs_of(s.row, srr);
  const double along_c = mean_run(dcr, scr), along_r = mean_run(drr, srr);
  if (along_c >= 4 && along_c >= along_r)
    return copy_runs(dst, d.row, d.col, src, s.row, s.col, dcr, scr, esize);
  if (along_r >= 4)
    return copy_runs(dst, d.col, d.row, src, s.col, s.row, drr, srr, esize);
  switch (esize) {
    case 1: return copy_typed<uint8_t>(dst, d, src, s, R, C);
    case 2: return copy_typed<uint16_t>(dst, d, src, s, R, C);
    case 4: return copy_typed<uint32_t>(dst, d, src, s, R, C);
    default: return copy_typed<uint64_t>(dst, d, src, s, R, C);
  }
}
}  // namespace tilesim::pto::layout
