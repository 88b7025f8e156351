// Element-wise and tile-scalar PTO instructions (spec 21 §2; docs/pto-instructions.md):
//   TADD TSUB TMUL TDIV TMAX TMIN TAND TOR TSHL TSHR TXOR TREM   dst = src0 OP src1
//   TNOT TABS TNEG TRELU TEXP TLOG TSQRT TRSQRT TRECIP           dst = OP src
//   TADDS ... TSHRS TXORS TREMS, TDIVS both ways                 dst = src OP s (s OP src)
//   TLRELU (src > 0 ? src : src*s), TAXPY (dst = s*src + dst), TEXPANDS (dst = s)
// Each instruction is a row of the table naming its spec 15 op; this file is the one walker over
// tile rows for all of them: check the rules, then one element-op core call per row (or one for
// the whole region when its rows are back to back).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "ops/cast.hpp"
#include "pto/instr.hpp"

namespace tilesim::pto::instr {
namespace {

ops::Op op_of(Instr i) {
  switch (i) {
#define TILESIM_PTO_OP_CASE(NAME, KIND, OP, ALG, PIPE, A2A3, A5) \
  case Instr::NAME:                                        \
    return ops::Op::OP;
    TILESIM_PTO_INSTRS(TILESIM_PTO_OP_CASE)
#undef TILESIM_PTO_OP_CASE
  }
  return ops::Op::copy;
}

int64_t signed_value(formats::DType dt, uint64_t code) {
  const unsigned w = formats::info(dt).storage_bits;
  if (formats::info(dt).kind != formats::Kind::Signed || w >= 64) return int64_t(code);
  const uint64_t sign = uint64_t{1} << (w - 1);
  return int64_t((code ^ sign) - sign);
}

// dst's valid region and its sources as the element-op core's rows, one core call per thread's
// share of rows (one for the whole region on small tiles); rows that are back to back in every
// operand merge into one long row, so the vector tail is paid once.
template <class F>
void walk(const TileDesc& dst, const Source* a, const Source* b, int R, int C, int wlog, F&& fn) {
  const size_t sz = esize(dst), ds = size_t(dst.cols) * sz, row = size_t(C) * sz;
  const bool flat = ds == row && (!a || a->stride() == row) && (!b || b->stride() == row);
  for_rows(R, C, wlog, [&](size_t r0, size_t r1) {
    ops::Rows2 g;
    g.a = a ? a->row(int(r0)) : nullptr;
    g.as = a ? a->stride() : 0;
    g.b = b ? b->row(int(r0)) : nullptr;
    g.bs = b ? b->stride() : 0;
    g.d = dst.data + r0 * ds;
    g.ds = ds;
    g.rows = r1 - r0;
    g.n = size_t(C);
    if (flat) {
      g.n *= g.rows;
      g.rows = 1;
    }
    fn(g);
  });
}

// Threads from 2^18 elements for memory-bound ops, 2^13 for the transcendental ones (measured for
// the TROWEXPAND family, trowexpand.cpp).
int work_log2(ops::Op op) {
  return (op == ops::Op::exp || op == ops::Op::ln || op == ops::Op::rsqrt) ? 13 : 18;
}

void common_dst_src(const Ctx& c, const TileDesc& dst, const TileDesc& src,
                    std::string_view sname) {
  if (plain_nd_vec(c, dst) & plain_nd_vec(c, src) & (dst.dtype == src.dtype) &
      ((allowed(c) >> unsigned(dst.dtype)) & 1u)) [[likely]]
    return;
  tile_ok(c, dst, "dst");
  tile_ok(c, src, sname);
  vec(c, dst, "dst");
  vec(c, src, sname);
  row_major(c, dst, "dst");
  row_major(c, src, sname);
  dtype_allowed(c, dst, "dst");
  same_dtype(c, dst, "dst", src, sname);
}

// a5 checks only validCol equality for TADDS, TMULS, TMINS (their pages); src must still hold
// dst's rows.
bool valid_col_only(const Ctx& c) {
  const Instr i = c.info.id;
  return c.target.kind != TargetKind::a2a3 &&
         (i == Instr::TADDS || i == Instr::TMULS || i == Instr::TMINS);
}
void scalar_valid(const Ctx& c, const TileDesc& dst, const TileDesc& src) {
  if (!valid_col_only(c)) return same_valid(c, src, "src", dst, "dst");
  if (src.valid_col != dst.valid_col || src.rows < dst.valid_row)
    c.fail(ErrorCode::Constraint,
           fmt::format("src validCol must equal dst's and src must hold dst's {} valid rows, got "
                       "src valid {}x{} ({} rows), dst valid {}x{}",
                       dst.valid_row, src.valid_row, src.valid_col, src.rows, dst.valid_row,
                       dst.valid_col));
}

void check_tmp_basic(const Ctx& c, const TileDesc& tmp, const TileDesc& dst) {
  tile_ok(c, tmp, "tmp");
  vec(c, tmp, "tmp");
  same_dtype(c, tmp, "tmp", dst, "dst");
  row_major(c, tmp, "tmp");
}

// ---- the kinds ----

void binary_tmp(const Ctx& c, const Call& call, Path path);
void prelu(const Ctx& c, const Call& call, Path path);

// The operand rules of the binary kinds one by one (plain_same failed: one of them may raise).
[[gnu::noinline, gnu::cold]] void binary_rules(const Ctx& c, const TileDesc& dst,
                                               const TileDesc& s0, const TileDesc& s1) {
  common_dst_src(c, dst, s0, "src0");
  tile_ok(c, s1, "src1");
  vec(c, s1, "src1");
  row_major(c, s1, "src1");
  same_dtype(c, dst, "dst", s1, "src1");
  same_valid(c, s0, "src0", dst, "dst");
  same_valid(c, s1, "src1", dst, "dst");
}

void binary(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &s0 = *call.src0, &s1 = *call.src1;
  if (!plain_same(c, dst, s0, s1)) [[unlikely]]
    binary_rules(c, dst, s0, s1);
  const ops::Op op = op_of(c.info.id);
  const formats::DType dt = core_dtype(dst.dtype);
  if (op == ops::Op::div || op == ops::Op::rem) no_zero_divisor(c, s1, "src1 (divisor)");

  const TileDesc* tmp = call.tmp;
  if (c.info.id == Instr::TPRELU) [[unlikely]]
    return prelu(c, call, path);
  if (c.info.kind == Kind::BinaryTmp && tmp && is_a2a3(c)) [[unlikely]]
    return binary_tmp(c, call, path);
  const int R = dst.valid_row, C = dst.valid_col;
  if (R == 0 || C == 0) return;
  const Source a(s0, dst, R, C), b(s1, dst, R, C);
  walk(dst, &a, &b, R, C, work_log2(op),
       [&](const ops::Rows2& g) { ops::binary_rows(op, dt, g, core_path(path)); });
}

// a2a3 TXOR and TREM with their tmp tiles (the checks after binary's own). Out of line: the plain
// binary call stays small.
[[gnu::noinline]] void binary_tmp(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &s0 = *call.src0, &s1 = *call.src1;
  const ops::Op op = op_of(c.info.id);
  const formats::DType dt = core_dtype(dst.dtype);
  const TileDesc* tmp = call.tmp;
  {
    check_tmp_basic(c, *tmp, dst);
    if (c.info.id == Instr::TXOR) {  // TXOR.md: tmp shaped like dst, no operand shares bytes
      same_valid(c, *tmp, "tmp", dst, "dst");
      no_overlap(c, dst, "dst", s0, "src0");
      no_overlap(c, dst, "dst", s1, "src1");
      no_overlap(c, dst, "dst", *tmp, "tmp");
      no_overlap(c, s0, "src0", *tmp, "tmp");
      no_overlap(c, s1, "src1", *tmp, "tmp");
    } else {  // TREM.md: tmp >= 1 row and Cols + 2*ceil(Cols/64) columns (Cols of dst)
      const int need = dst.cols + 2 * ((dst.cols + 63) / 64);
      if (tmp->valid_row < 1 || tmp->valid_col < need)
        c.fail(ErrorCode::Constraint,
               fmt::format("tmp must have validRow >= 1 and validCol >= Cols + 2*ceil(Cols/64) = {} "
                           "(Cols of dst = {}), got valid {}x{}",
                           need, dst.cols, tmp->valid_row, tmp->valid_col));
    }
  }
  const int R = dst.valid_row, C = dst.valid_col;
  if (R == 0 || C == 0) return;
  const Source a(s0, dst, R, C), b(s1, dst, R, C);
  // a2a3 TXOR computes tmp = src0 | src1 on its way (TXOR.md); written before dst, from the
  // sources as read (they cannot overlap tmp, checked above).
  if (c.info.id == Instr::TXOR) {
    for (int r = 0; r < R; ++r)
      ops::binary(ops::Op::bor, dt, a.row(r), b.row(r), at(*tmp, r, 0), size_t(C),
                  core_path(path));
  }
  walk(dst, &a, &b, R, C, work_log2(op),
       [&](const ops::Rows2& g) { ops::binary_rows(op, dt, g, core_path(path)); });
}

// TRSQRT(dst, src, tmp) on a2a3 is sqrt, then 1/x (TRSQRT.md backend: two roundings), with 1.0
// left in tmp's first 32 bytes; a5 and cpu ignore tmp (docs/pto-instructions.md#element-wise).
// Out of line: the plain unary call stays small.
[[gnu::noinline]] void rsqrt_two_step(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  const formats::DType dt = core_dtype(dst.dtype);
  check_tmp_basic(c, *call.tmp, dst);
  if (call.tmp->bytes() < 32)
    c.fail(ErrorCode::Constraint,
           fmt::format("tmp must hold at least 32 bytes (one block), got {}", call.tmp->bytes()));
  no_overlap(c, *call.tmp, "tmp", dst, "dst");
  no_overlap(c, *call.tmp, "tmp", src, "src");
  const int R = dst.valid_row, C = dst.valid_col;
  if (R == 0 || C == 0) return;
  const Source a(src, dst, R, C);
  const uint64_t one = ops::cast_one(formats::DType::fp32, dt, 0x3F800000u, {});
  for (size_t k = 0; k < 32 / esize(dst); ++k) ops::store_code(dt, call.tmp->data, k, one);
  walk(dst, &a, nullptr, R, C, 13, [&](const ops::Rows2& g) {
    ops::unary_rows(ops::Op::sqrt, dt, g, core_path(path));
    ops::Rows2 in_place = g;  // then 1 / the rounded root, in dst
    in_place.a = g.d;
    in_place.as = g.ds;
    ops::binary_scalar_rows(ops::Op::div, dt, in_place, one, true, core_path(path));
  });
}

[[gnu::noinline, gnu::cold]] void unary_rules(const Ctx& c, const TileDesc& dst,
                                              const TileDesc& src) {
  common_dst_src(c, dst, src, "src");
  same_valid(c, src, "src", dst, "dst");
}

void unary(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  if (!plain_same(c, dst, src)) [[unlikely]]
    unary_rules(c, dst, src);
  const ops::Op op = op_of(c.info.id);
  const formats::DType dt = core_dtype(dst.dtype);
  if (op == ops::Op::recip) {
    no_zero_divisor(c, src, "src (divisor)");
    if (is_a2a3(c)) no_overlap(c, src, "src", dst, "dst");  // TRECIP.md: A3, src != dst
  }
  if (call.tmp && c.info.kind == Kind::UnaryRsqrt && is_a2a3(c)) [[unlikely]]
    return rsqrt_two_step(c, call, path);
  const int R = dst.valid_row, C = dst.valid_col;
  if (R == 0 || C == 0) return;
  const Source a(src, dst, R, C);
  walk(dst, &a, nullptr, R, C, work_log2(op),
       [&](const ops::Rows2& g) { ops::unary_rows(op, dt, g, core_path(path)); });
}

// a2a3 TXORS and TREMS with their tmp tiles (TXORS.md, TREMS.md). Out of line: the plain
// tile-scalar call stays small.
[[gnu::noinline]] void scalar_tmp_rules(const Ctx& c, const Call& call, uint64_t s) {
  const TileDesc &dst = *call.dst, &src = *call.src0, *tmp = call.tmp;
  const formats::DType dt = core_dtype(dst.dtype);
  const Instr id = c.info.id;
  check_tmp_basic(c, *tmp, dst);
  if (id == Instr::TXORS) {  // TXORS.md: tmp shaped like dst, the three pairwise apart
    same_valid(c, *tmp, "tmp", dst, "dst");
    no_overlap(c, dst, "dst", src, "src");
    no_overlap(c, dst, "dst", *tmp, "tmp");
    no_overlap(c, src, "src", *tmp, "tmp");
  } else {  // TREMS.md
    if (tmp->valid_row < 1 || tmp->valid_col < dst.valid_col)
      c.fail(ErrorCode::Constraint,
             fmt::format("tmp must have validRow >= 1 and validCol >= dst validCol {}, got "
                         "valid {}x{}",
                         dst.valid_col, tmp->valid_row, tmp->valid_col));
    if (dst.valid_row == 0 || dst.valid_col == 0)
      c.fail(ErrorCode::Constraint, fmt::format("valid shape must be non-zero on a2a3, got {}x{}",
                                                dst.valid_row, dst.valid_col));
    if (dst.dtype == Elem::s32) {  // the a2a3 int32 path computes in fp32 (TREMS.md)
      const int64_t k = signed_value(dt, s);
      if (k < -(int64_t{1} << 24) || k > (int64_t{1} << 24))
        c.fail(ErrorCode::Constraint,
               fmt::format("int32 scalar must lie in [-2^24, 2^24] on a2a3, got {}", k));
      for (int r = 0; r < dst.valid_row; ++r)
        for (int col = 0; col < dst.valid_col; ++col) {
          const int64_t v = signed_value(dt, ops::load_code(dt, at(src, r, col), 0));
          if (v < -(int64_t{1} << 24) || v > (int64_t{1} << 24))
            c.fail(ErrorCode::Constraint,
                   fmt::format("int32 src element ({}, {}) must lie in [-2^24, 2^24] on a2a3, "
                               "got {}",
                               r, col, v));
        }
    }
  }
}

// Also where a5's TADDS / TMULS / TMINS take a src of other validRow (scalar_valid).
[[gnu::noinline, gnu::cold]] void scalar_rules(const Ctx& c, const TileDesc& dst,
                                               const TileDesc& src) {
  common_dst_src(c, dst, src, "src");
  scalar_valid(c, dst, src);
}

void scalar(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  if (!plain_same(c, dst, src)) [[unlikely]]
    scalar_rules(c, dst, src);
  const ops::Op op = op_of(c.info.id);
  const formats::DType dt = core_dtype(dst.dtype);
  const uint64_t s = scalar_code(call, dt);
  const Instr id = c.info.id;
  if ((id == Instr::TANDS || id == Instr::TORS) && dst.ub_addr >= 0 && src.ub_addr >= 0)
    no_overlap(c, dst, "dst", src, "src");  // TANDS.md / TORS.md: manual mode, dst != src
  if ((id == Instr::TSHLS || id == Instr::TSHRS) && signed_value(dt, s) < 0)
    c.fail(ErrorCode::Constraint,
           fmt::format("the shift count (scalar) must be >= 0, got {}", signed_value(dt, s)));
  if (op == ops::Op::div || op == ops::Op::rem) {
    if (call.scalar_first)
      no_zero_divisor(c, src, "src (divisor)");
    else if (!elem_is_float(dst.dtype) && s == 0)
      c.fail(ErrorCode::Constraint, "integer division by zero: the scalar divisor is 0");
  }
  const TileDesc* tmp = call.tmp;
  if (c.info.kind == Kind::ScalarTmp && tmp && is_a2a3(c)) [[unlikely]]
    scalar_tmp_rules(c, call, s);
  const int R = dst.valid_row, C = dst.valid_col;
  if (R == 0 || C == 0) return;
  const Source a(src, dst, R, C);
  if (id == Instr::TXORS && tmp && is_a2a3(c))
    for (int r = 0; r < R; ++r)
      ops::binary_scalar(ops::Op::bor, dt, a.row(r), s, false, at(*tmp, r, 0), size_t(C),
                         core_path(path));
  walk(dst, &a, nullptr, R, C, work_log2(op), [&](const ops::Rows2& g) {
    ops::binary_scalar_rows(op, dt, g, s, call.scalar_first, core_path(path));
  });
}

// TLRELU: src > 0 ? src : src * slope — the core's mul, gt and select (NaN: the product's NaN).
void leaky_relu(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  common_dst_src(c, dst, src, "src");
  same_valid(c, src, "src", dst, "dst");
  const formats::DType dt = core_dtype(dst.dtype);
  const uint64_t s = scalar_code(call, dt);
  const int R = dst.valid_row, C = dst.valid_col;
  if (R == 0 || C == 0) return;
  const Source a(src, dst, R, C);
  // x * slope into dst, then the positive lanes of x over it (select moves bits): every x is
  // read before dst is written only when x is not dst itself, so an aliasing x is copied first.
  const std::vector<uint8_t> xcopy = a.row(0) == dst.data
                                         ? std::vector<uint8_t>(dst.data, dst.data + dst.bytes())
                                         : std::vector<uint8_t>();
  const uint8_t* x0 = xcopy.empty() ? a.row(0) : xcopy.data();
  const size_t xs = xcopy.empty() ? a.stride() : size_t(dst.cols) * esize(dst);
  const size_t bits_row = (size_t(C) + 7) / 8;
  std::vector<uint8_t> pos(size_t(R) * bits_row);
  ops::Rows2 g;
  g.a = x0;
  g.as = xs;
  g.d = pos.data();
  g.ds = bits_row;
  g.rows = size_t(R);
  g.n = size_t(C);
  ops::compare_bits_rows(ops::Op::gt, dt, g, true, 0, core_path(path));
  g.d = dst.data;
  g.ds = size_t(dst.cols) * esize(dst);
  ops::binary_scalar_rows(ops::Op::mul, dt, g, s, false, core_path(path));
  g.b = g.d;
  g.bs = g.ds;
  ops::select_bits_rows(dt, pos.data(), bits_row, g, false, 0);
}

// TPRELU: src0 > 0 ? src0 : src0 * src1 (a slope per element) — the core's gt, mul and select
// (NaN: the product's NaN), as TLRELU with a tile for the slope. a2a3 computes in tmp: shaped like
// dst, and no two of the four tiles may share bytes (TPRELU.md); a5 and cpu ignore tmp.
[[gnu::noinline]] void prelu(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &s0 = *call.src0, &s1 = *call.src1;
  if (is_a2a3(c) && call.tmp) {
    const TileDesc& tmp = *call.tmp;
    check_tmp_basic(c, tmp, dst);
    same_valid(c, tmp, "tmp", dst, "dst");
    no_overlap(c, dst, "dst", s0, "src0");
    no_overlap(c, dst, "dst", s1, "src1");
    no_overlap(c, dst, "dst", tmp, "tmp");
    no_overlap(c, s0, "src0", tmp, "tmp");
    no_overlap(c, s1, "src1", tmp, "tmp");
  }
  const formats::DType dt = core_dtype(dst.dtype);
  const int R = dst.valid_row, C = dst.valid_col;
  if (R == 0 || C == 0) return;
  const size_t es = esize(dst), row = size_t(C) * es;
  // The valid regions of both sources, read before dst is written (either may alias it).
  std::vector<uint8_t> x(size_t(R) * row), k(size_t(R) * row);
  for (int r = 0; r < R; ++r) {
    std::memcpy(x.data() + size_t(r) * row, at(s0, r, 0), row);
    std::memcpy(k.data() + size_t(r) * row, at(s1, r, 0), row);
  }
  const size_t bits_row = (size_t(C) + 7) / 8;
  std::vector<uint8_t> pos(size_t(R) * bits_row);
  ops::Rows2 g;
  g.a = x.data();
  g.as = row;
  g.d = pos.data();
  g.ds = bits_row;
  g.rows = size_t(R);
  g.n = size_t(C);
  ops::compare_bits_rows(ops::Op::gt, dt, g, true, 0, core_path(path));
  g.b = k.data();
  g.bs = row;
  g.d = dst.data;
  g.ds = size_t(dst.cols) * es;
  ops::binary_rows(ops::Op::mul, dt, g, core_path(path));
  g.b = g.d;
  g.bs = g.ds;
  ops::select_bits_rows(dt, pos.data(), bits_row, g, false, 0);
}

// TAXPY: dst = scalar * src + dst, the product rounded to the accumulation type, then the sum
// (two roundings; a README decision: the page does not say vaxpy is fused). (float dst, half src,
// half scalar): src and scalar widen exactly to float first (the a5 backend's vcvt).
void axpy(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  tile_ok(c, dst, "dst");
  tile_ok(c, src, "src");
  vec(c, dst, "dst");
  vec(c, src, "src");
  row_major(c, dst, "dst");
  row_major(c, src, "src");
  dtype_allowed(c, dst, "dst");
  const bool mixed = dst.dtype == Elem::f32 && src.dtype == Elem::f16;
  if (!mixed) same_dtype(c, dst, "dst", src, "src");
  same_valid(c, src, "src", dst, "dst");
  const formats::DType dt = core_dtype(dst.dtype), st = core_dtype(src.dtype);
  uint64_t s = scalar_code(call, st);
  if (mixed) s = ops::cast_one(st, dt, s, {});
  const int R = dst.valid_row, C = dst.valid_col;
  if (R == 0 || C == 0) return;
  const Source a(src, dst, R, C);
  for_rows(R, C, 18, [&](size_t r0, size_t r1) {
    std::vector<uint8_t> prod(size_t(C) * esize(dst)), wide(size_t(C) * esize(dst));
    for (size_t r = r0; r < r1; ++r) {
      const uint8_t* x = a.row(int(r));
      if (mixed) {
        ops::cast(st, dt, x, wide.data(), size_t(C), {});
        x = wide.data();
      }
      uint8_t* d = at(dst, int(r), 0);
      ops::binary_scalar(ops::Op::mul, dt, x, s, false, prod.data(), size_t(C), core_path(path));
      ops::binary(ops::Op::add, dt, prod.data(), d, d, size_t(C), core_path(path));
    }
  });
}

// TEXPANDS: Vec fills dst's valid region; Mat fills the whole Rows x Cols (TEXPANDS.md).
void expand_scalar(const Ctx& c, const Call& call) {
  const TileDesc& dst = *call.dst;
  tile_ok(c, dst, "dst");
  dtype_allowed(c, dst, "dst");
  const bool mat = dst.loc == 1;  // TileType::Mat
  if (!mat) {
    vec(c, dst, "dst");
    if (c.target.kind != TargetKind::a2a3) row_major(c, dst, "dst");
  } else {
    const size_t blocks = dst.bytes() / 32;
    if (blocks < 1 || blocks > 32767)
      c.fail(ErrorCode::Constraint,
             fmt::format("a Mat dst must hold 1..32767 blocks of 32 bytes, got {} bytes",
                         dst.bytes()));
  }
  const formats::DType dt = core_dtype(dst.dtype);
  const uint64_t s = scalar_code(call, dt);
  const int R = mat ? dst.rows : dst.valid_row, C = mat ? dst.cols : dst.valid_col;
  if (R <= 0 || C <= 0) return;
  // One SIMD fill per line of the region (a whole Mat tile is one line): a store_code per element
  // was ~4% of the attention example. Lines are rows (RowMajor) or columns (ColMajor, a2a3), each
  // `line` elements at `stride` bytes from the last (at() places element (r, c)).
  const size_t lines = mat ? 1 : size_t(dst.row_major ? R : C);
  const size_t line = mat ? size_t(R) * size_t(C) : size_t(dst.row_major ? C : R);
  const size_t stride = size_t(dst.row_major ? dst.cols : dst.rows) * esize(dst);
  ops::fill_rows(dt, dst.data, stride, &s, 0, lines, line);  // s's low bytes, little-endian
}

}  // namespace

void elementwise(const Ctx& c, const Call& call, Path path) {
  switch (c.info.kind) {
    case Kind::Binary:
    case Kind::BinaryTmp:
      return binary(c, call, path);
    case Kind::Unary:
    case Kind::UnaryRsqrt:
      return unary(c, call, path);
    case Kind::Scalar:
    case Kind::ScalarDiv:
    case Kind::ScalarTmp:
      return scalar(c, call, path);
    case Kind::LeakyRelu:
      return leaky_relu(c, call, path);
    case Kind::Axpy:
      return axpy(c, call, path);
    case Kind::ExpandScalar:
      return expand_scalar(c, call);
    default:
      break;
  }
}

}  // namespace tilesim::pto::instr
