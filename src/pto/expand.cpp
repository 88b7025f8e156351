// Expand instructions (spec 21 §2; docs/pto-instructions.md#expand):
//   TROWEXPAND(dst, src)            dst[i][j] = src[i][0]
//   TCOLEXPAND(dst, src)            dst[i][j] = src[0][j]
//   TCOLEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF}(dst, src0, src1)
//                                   dst[i][j] = src0 OP src1 with the expanded operand read as s_j
// The column family is spec 20's row family with rows and columns exchanged; each dst row is one
// element-op core call against the expanded row (a contiguous vector).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "pto/instr.hpp"

namespace tilesim::pto::instr {
namespace {

void nonempty(const Ctx& c, const TileDesc& dst) {
  if (dst.valid_row < 1 || dst.valid_col < 1)
    c.fail(ErrorCode::Constraint,
           fmt::format("dst valid shape must be at least 1x1, got {}x{}", dst.valid_row,
                       dst.valid_col));
}

void basic(const Ctx& c, const TileDesc& t, const char* who) {
  tile_ok(c, t, who);
  vec(c, t, who);
  dtype_allowed(c, t, who);
}

void row_expand_copy(const Ctx& c, const Call& call) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  basic(c, dst, "dst");
  basic(c, src, "src");
  row_major(c, dst, "dst");
  same_dtype(c, dst, "dst", src, "src");
  if (src.slayout != kSLayoutNoneBox)
    c.fail(ErrorCode::Constraint, "src must have SLayout::NoneBox");
  nonempty(c, dst);
  const int R = dst.valid_row, C = dst.valid_col;
  if (src.valid_row != R || src.valid_col < 1)
    c.fail(ErrorCode::Constraint,
           fmt::format("src must have validRow == dst validRow {} and validCol >= 1, got {}x{}", R,
                       src.valid_row, src.valid_col));
  if (c.target.kind == TargetKind::a5 && src.static_valid && src.valid_col != 1)
    c.fail(ErrorCode::Constraint,
           fmt::format("src's static ValidCol must be 1 on a5, got {}", src.valid_col));
  // Row r is the broadcast of src's element (r, 0): one core fill per share of rows. Column 0 of
  // src steps by a row (RowMajor) or by one element (ColMajor). It is read in place when src is
  // apart from dst, or dst itself (element (r, 0) is read before row r is written); any other
  // overlap reads a copy of it first.
  const size_t sz = esize(src);
  const uint8_t* codes = src.data;
  size_t cs = src.row_major ? size_t(src.cols) * sz : sz;
  const bool self = src.data == dst.data && src.row_major && src.cols == dst.cols;
  std::vector<uint8_t> copy;
  if (!self && overlaps(src, dst)) [[unlikely]] {
    copy.resize(size_t(R) * sz);
    for (int r = 0; r < R; ++r) std::memcpy(copy.data() + size_t(r) * sz, at(src, r, 0), sz);
    codes = copy.data();
    cs = sz;
  }
  const formats::DType dt = core_dtype(dst.dtype);
  const size_t ds = size_t(dst.cols) * esize(dst);
  for_rows(R, C, 18, [&](size_t r0, size_t r1) {
    ops::fill_rows(dt, at(dst, int(r0), 0), ds, codes + r0 * cs, cs, r1 - r0, size_t(C));
  });
}

void col_expand_copy(const Ctx& c, const Call& call) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  basic(c, dst, "dst");
  basic(c, src, "src");
  row_major(c, dst, "dst");
  row_major(c, src, "src");
  same_dtype(c, dst, "dst", src, "src");
  nonempty(c, dst);
  const int R = dst.valid_row, C = dst.valid_col;
  if (src.valid_col != C || src.valid_row < 1)
    c.fail(ErrorCode::Constraint,
           fmt::format("src must have validCol == dst validCol {} and validRow >= 1, got {}x{}", C,
                       src.valid_row, src.valid_col));
  // Row 0 of src, read through a copy if it overlaps dst other than as dst's own row 0 (which
  // the first copy leaves as it is).
  const Source s(src, dst, 1, C);
  const size_t n = size_t(C) * esize(dst);
  for (int r = 0; r < R; ++r) std::memmove(at(dst, r, 0), s.row(0), n);
}

ops::Op op_of(Instr i) {
  switch (i) {
    case Instr::TCOLEXPANDADD: return ops::Op::add;
    case Instr::TCOLEXPANDSUB: return ops::Op::sub;
    case Instr::TCOLEXPANDMUL: return ops::Op::mul;
    case Instr::TCOLEXPANDDIV: return ops::Op::div;
    case Instr::TCOLEXPANDMAX: return ops::Op::max;
    case Instr::TCOLEXPANDMIN: return ops::Op::min;
    default: return ops::Op::sub;  // EXPDIF: the difference, then exp
  }
}

// The expanded row (x's row 0): read in place when x shares no byte with dst, else from a copy
// (a row of dst itself would change under the walk). Inline storage covers rows up to 4 KiB.
class ExpandedRow {
 public:
  ExpandedRow(const TileDesc& x, const TileDesc& dst, size_t n) : p_(x.data) {
    if (overlaps(x, dst)) [[unlikely]] {
      uint8_t* buf = n <= sizeof(small_) ? small_ : (big_.resize(n), big_.data());
      std::memcpy(buf, x.data, n);
      p_ = buf;
    }
  }
  const uint8_t* data() const noexcept { return p_; }

 private:
  const uint8_t* p_;
  alignas(64) uint8_t small_[4096];
  std::vector<uint8_t> big_;
};

void col_expand_op_checks(const Ctx& c, const TileDesc& dst, const TileDesc& s0,
                          const TileDesc& s1) {
  basic(c, dst, "dst");
  basic(c, s0, "src0");
  basic(c, s1, "src1");
  for (auto [t, who] : {std::pair{&dst, "dst"}, {&s0, "src0"}, {&s1, "src1"}}) row_major(c, *t, who);
  same_dtype(c, dst, "dst", s0, "src0");
  same_dtype(c, dst, "dst", s1, "src1");
}

void col_expand_op(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &s0 = *call.src0, &s1 = *call.src1;
  // The usual call (three ND Vec tiles of one allowed dtype) in one branchless test; the rules
  // one by one only to name the first that fails (as the element-wise walker, issue 16 §5).
  if (!(plain_nd_vec(c, dst) & plain_nd_vec(c, s0) & plain_nd_vec(c, s1) &
        (s0.dtype == dst.dtype) & (s1.dtype == dst.dtype) &
        ((allowed(c) >> unsigned(dst.dtype)) & 1u))) [[unlikely]]
    col_expand_op_checks(c, dst, s0, s1);
  const int R = dst.valid_row, C = dst.valid_col;
  if (R == 0 || C == 0) return;
  // The full operand: src0 if its valid shape is dst's, else src1 (spec 21 §2).
  const bool full0 = s0.valid_row == R && s0.valid_col == C;
  const bool full1 = !full0 && s1.valid_row == R && s1.valid_col == C;
  if (!full0 && !full1)
    c.fail(ErrorCode::Constraint,
           fmt::format("no source matches dst's valid shape {}x{} (src0 valid {}x{}, src1 valid "
                       "{}x{}); one must be the full operand",
                       R, C, s0.valid_row, s0.valid_col, s1.valid_row, s1.valid_col));
  const TileDesc& full = full0 ? s0 : s1;
  const TileDesc& x = full0 ? s1 : s0;
  if (x.valid_col != C || x.valid_row < 1)
    c.fail(ErrorCode::Constraint,
           fmt::format("{} (expanded operand) must have validCol == {} and validRow >= 1, got {}x{}",
                       full0 ? "src1" : "src0", C, x.valid_row, x.valid_col));
  const ops::Op op = op_of(c.info.id);
  const formats::DType dt = core_dtype(dst.dtype);
  if (op == ops::Op::div && !elem_is_float(dst.dtype)) {
    if (full0) {  // divisor: the expanded row
      for (int j = 0; j < C; ++j)
        if (ops::load_code(dt, at(s1, 0, j), 0) == 0)
          c.fail(ErrorCode::Constraint,
                 fmt::format("integer division by zero: src1 (expanded operand) element (0, {}) is 0",
                             j));
    } else {
      no_zero_divisor(c, s1, "src1 (full operand)");
    }
  }
  const ExpandedRow s(x, dst, size_t(C) * esize(dst));
  const Source f(full, dst, R, C);
  const bool expdif = c.info.id == Instr::TCOLEXPANDEXPDIF;
  // One core call per share of rows: the expanded row is an operand of stride 0.
  for_rows(R, C, expdif ? 13 : 18, [&](size_t r0, size_t r1) {
    ops::Rows2 g;
    g.a = full0 ? f.row(int(r0)) : s.data();
    g.as = full0 ? f.stride() : 0;
    g.b = full0 ? s.data() : f.row(int(r0));
    g.bs = full0 ? 0 : f.stride();
    g.d = at(dst, int(r0), 0);
    g.ds = size_t(dst.cols) * esize(dst);
    g.rows = r1 - r0;
    g.n = size_t(C);
    ops::binary_rows(op, dt, g, core_path(path));
    // EXPDIF = round_T(src0 - src1), then e^d correctly rounded (spec 20 §4, column form).
    if (expdif) {
      g.a = g.d;
      g.as = g.ds;
      ops::unary_rows(ops::Op::exp, dt, g, core_path(path));
    }
  });
}

}  // namespace

void expand(const Ctx& c, const Call& call, Path path) {
  switch (c.info.kind) {
    case Kind::RowExpand:
      return row_expand_copy(c, call);
    case Kind::ColExpand:
      return col_expand_copy(c, call);
    default:
      return col_expand_op(c, call, path);
  }
}

}  // namespace tilesim::pto::instr
