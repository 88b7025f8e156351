// TGATHER / TSCATTER (docs/pto-instructions.md#gather-and-scatter): element moves by an index tile
// or a MaskPattern. Bits are moved, never converted. Every rule and every index is checked before
// anything is written; the result is built in a scratch copy of dst and written once, so sources
// that share bytes with dst are read as they were before the call.
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "pto/instr.hpp"

namespace tilesim::pto::instr {
namespace {

using namespace dts;

constexpr uint16_t kIdx16 = S16 | U16, kIdx32 = S32 | U32;

// MaskPattern P0101 (1) ... P1111 (7): of every `factor` elements the one at `pos` is taken
// (pto-isa type.hpp's values; the pattern's rightmost digit is element 0).
struct Pattern {
  int factor, pos;
  const char* name;
};
constexpr Pattern kPatterns[8] = {{0, 0, "?"},     {2, 0, "P0101"}, {2, 1, "P1010"}, {4, 0, "P0001"},
                                  {4, 1, "P0010"}, {4, 2, "P0100"}, {4, 3, "P1000"}, {1, 0, "P1111"}};

Pattern pattern_of(const Ctx& c, const Call& call) {
  if (call.pattern < 1 || call.pattern > 7)
    c.fail(ErrorCode::Constraint,
           fmt::format("maskPattern must be P0101 (1) ... P1111 (7), got {}", call.pattern));
  if (call.axis > 1)
    c.fail(ErrorCode::Constraint, fmt::format("the axis must be ROW (0) or COL (1), got {}", call.axis));
  return kPatterns[call.pattern];
}

const char* axis_name(const Ctx& c, uint8_t axis) {
  const bool g = c.info.id == Instr::TGATHER;
  return axis ? (g ? "GATHER_COL" : "SCATTER_COL") : (g ? "GATHER_ROW" : "SCATTER_ROW");
}

void vec_nd(const Ctx& c, const TileDesc& t, std::string_view who) {
  tile_ok(c, t, who);
  vec(c, t, who);
  row_major(c, t, who);
}

// The index tile's dtype: one of `allowed`, and the size the data size pairs with.
void index_dtype(const Ctx& c, const TileDesc& idx, const TileDesc& data, uint16_t allowed,
                 std::string_view who) {
  if (!(allowed & (1u << unsigned(idx.dtype))))
    c.fail(ErrorCode::Constraint, fmt::format("{} dtype must be one of {} on target {}, got {}", who,
                                              dtype_list(allowed), c.target.name, elem_name(idx.dtype)));
  const size_t ds = esize(data), is = esize(idx);
  // The backends' index widths per data width: b8 data takes b16 indices, b16 takes b16 (TGATHER on
  // a5 and cpu also b32), b32 and b64 take b32.
  const bool two_ok = ds == 1 || ds == 2, four_ok = ds >= 4 || (ds == 2 && c.info.id == Instr::TGATHER && !is_a2a3(c));
  if ((is == 2 && !two_ok) || (is == 4 && !four_ok))
    c.fail(ErrorCode::Constraint,
           fmt::format("{} dtype {} ({} bytes) does not pair with {} data ({} bytes): b8 and b16 data "
                       "take 2-byte indices{}, b32 and b64 data 4-byte ones",
                       who, elem_name(idx.dtype), is, elem_name(data.dtype), ds,
                       c.info.id == Instr::TGATHER && !is_a2a3(c) ? " (b16 also 4-byte ones)" : ""));
}

// Index (r, col) of an integer tile, widened (signed dtypes sign-extended).
int64_t index_at(const TileDesc& t, int r, int col) {
  const uint8_t* p = at(t, r, col);
  switch (t.dtype) {
    case Elem::s16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case Elem::u16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case Elem::s32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    default: { uint32_t v; std::memcpy(&v, p, 4); return v; }
  }
}

// Every index of idx's first R x C elements in [0, n), else an error naming the element.
void indices_in_range(const Ctx& c, const TileDesc& idx, int R, int C, int64_t n, std::string_view who,
                      std::string_view what) {
  for (int r = 0; r < R; ++r)
    for (int col = 0; col < C; ++col) {
      const int64_t v = index_at(idx, r, col);
      if (v < 0 || v >= n)
        c.fail(ErrorCode::Constraint,
               fmt::format("{} element ({}, {}) is {}, outside {} (0 .. {})", who, r, col, v, what, n - 1));
    }
}

// ---- TGATHER ----

void gather_index(const Ctx& c, const Call& call) {
  if (!call.src0 || !call.src1)
    c.fail(ErrorCode::Constraint, "the index form needs dst, src0 and indices");
  const TileDesc &dst = *call.dst, &src = *call.src0, &idx = *call.src1;
  vec_nd(c, dst, "dst");
  vec_nd(c, src, "src0");
  vec_nd(c, idx, "indices");
  dtype_allowed(c, dst, "dst");
  same_dtype(c, dst, "dst", src, "src0");
  index_dtype(c, idx, dst, is_a2a3(c) ? kIdx32 : kIdx16 | kIdx32, "indices");
  const int R = dst.valid_row, C = dst.valid_col;
  if (C != dst.cols)
    c.fail(ErrorCode::Constraint,
           fmt::format("dst must be continuous: its validCol must equal its Cols, got {} and {}", C, dst.cols));
  if (idx.valid_row < R || idx.valid_col < C)
    c.fail(ErrorCode::Constraint,
           fmt::format("indices valid shape must cover dst's, got {}x{} for {}x{}", idx.valid_row,
                       idx.valid_col, R, C));
  if (c.target.kind == TargetKind::a5 && idx.valid_col != idx.cols)
    c.fail(ErrorCode::Constraint,
           fmt::format("on a5 indices must be continuous: validCol must equal Cols, got {} and {}",
                       idx.valid_col, idx.cols));
  if (is_a2a3(c)) {
    if (!call.tmp) c.fail(ErrorCode::Constraint, "a2a3 needs the tmp tile (TGATHER(dst, src0, indices, tmp))");
    const TileDesc& tmp = *call.tmp;
    tile_ok(c, tmp, "tmp");
    vec(c, tmp, "tmp");
    if (tmp.dtype != idx.dtype)
      c.fail(ErrorCode::Constraint, fmt::format("tmp dtype must be indices' ({}), got {}",
                                                elem_name(idx.dtype), elem_name(tmp.dtype)));
    if (tmp.rows != idx.valid_row || tmp.cols != idx.valid_col)
      c.fail(ErrorCode::Constraint,
             fmt::format("tmp Rows x Cols must equal indices' valid shape, got {}x{} and {}x{}", tmp.rows,
                         tmp.cols, idx.valid_row, idx.valid_col));
  }
  const int64_t n = int64_t(src.rows) * src.cols;
  indices_in_range(c, idx, R, C, n, "indices", fmt::format("src0's {}x{} elements", src.rows, src.cols));
  const size_t es = esize(dst);
  std::vector<uint8_t> out(size_t(R) * size_t(C) * es);
  for (int r = 0; r < R; ++r)
    for (int col = 0; col < C; ++col)
      std::memcpy(&out[(size_t(r) * C + col) * es], src.data + size_t(index_at(idx, r, col)) * es, es);
  if (!out.empty()) std::memcpy(dst.data, out.data(), out.size());  // rows [0, R) of a continuous dst
}

void gather_mask(const Ctx& c, const Call& call) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  vec_nd(c, dst, "dst");
  vec_nd(c, src, "src");
  dtype_allowed(c, src, "src");
  dtype_allowed(c, dst, "dst");
  if (esize(dst) != esize(src))
    c.fail(ErrorCode::Constraint, fmt::format("dst and src must have the same element size, got {} ({}) and {} ({})",
                                              elem_name(dst.dtype), esize(dst), elem_name(src.dtype), esize(src)));
  const Pattern p = pattern_of(c, call);
  const int R = src.valid_row, C = src.valid_col;
  const size_t es = esize(src);
  if (call.axis == 0) {
    if (dst.valid_col != dst.cols)
      c.fail(ErrorCode::Constraint,
             fmt::format("{} packs into a continuous dst: its validCol must equal its Cols, got {} and {}",
                         axis_name(c, 0), dst.valid_col, dst.cols));
    const int per_row = C > p.pos ? (C - p.pos + p.factor - 1) / p.factor : 0;
    const int64_t n = int64_t(R) * per_row, room = int64_t(dst.valid_row) * dst.cols;
    if (n > room)
      c.fail(ErrorCode::Constraint,
             fmt::format("{} {} selects {} elements ({} rows x {}), dst's valid region holds {}", axis_name(c, 0),
                         p.name, n, R, per_row, room));
    std::vector<uint8_t> out(size_t(n) * es);
    size_t k = 0;
    for (int r = 0; r < R; ++r)
      for (int col = p.pos; col < C; col += p.factor, ++k) std::memcpy(&out[k * es], at(src, r, col), es);
    if (!out.empty()) std::memcpy(dst.data, out.data(), out.size());
    return;
  }
  if (es == 8 && !is_a2a3(c))
    c.fail(ErrorCode::Unsupported,
           fmt::format("GATHER_COL has no 8-byte form on target {} (its backend gathers b64 by rows only)",
                       c.target.name));
  if (R != dst.valid_row * p.factor || dst.valid_col != C)
    c.fail(ErrorCode::Constraint,
           fmt::format("GATHER_COL {} needs src validRow = dst validRow x {} and equal validCol, got src {}x{}, "
                       "dst {}x{}", p.name, p.factor, R, C, dst.valid_row, dst.valid_col));
  std::vector<uint8_t> out(size_t(dst.valid_row) * size_t(C) * es);
  if (out.empty()) return;
  for (int k = 0; k < dst.valid_row; ++k)
    std::memcpy(&out[size_t(k) * C * es], at(src, k * p.factor + p.pos, 0), size_t(C) * es);
  for (int k = 0; k < dst.valid_row; ++k)
    std::memcpy(at(dst, k, 0), &out[size_t(k) * C * es], size_t(C) * es);
}

// ---- TSCATTER ----

void scatter_index(const Ctx& c, const Call& call) {
  const TileDesc &dst = *call.dst, &src = *call.src0, &idx = *call.src1;
  vec_nd(c, dst, "dst");
  vec_nd(c, src, "src");
  vec_nd(c, idx, "indexes");
  dtype_allowed(c, dst, "dst");
  same_dtype(c, dst, "dst", src, "src");
  index_dtype(c, idx, dst, kIdx16 | kIdx32, "indexes");
  const int R = idx.valid_row, C = idx.valid_col;
  if (src.valid_row < R || src.valid_col < C)
    c.fail(ErrorCode::Constraint,
           fmt::format("src valid shape must cover indexes', got {}x{} for {}x{}", src.valid_row, src.valid_col, R, C));
  const int64_t n = int64_t(dst.rows) * dst.cols;
  indices_in_range(c, idx, R, C, n, "indexes", fmt::format("dst's {}x{} elements", dst.rows, dst.cols));
  const size_t es = esize(dst);
  std::vector<uint8_t> out(dst.bytes(), 0);  // the backends zero the whole dst tile first
  for (int r = 0; r < R; ++r)
    for (int col = 0; col < C; ++col)
      std::memcpy(&out[size_t(index_at(idx, r, col)) * es], at(src, r, col), es);
  std::memcpy(dst.data, out.data(), out.size());
}

void scatter_mask(const Ctx& c, const Call& call) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  vec_nd(c, dst, "dst");
  vec_nd(c, src, "src");
  dtype_allowed(c, dst, "dst");
  same_dtype(c, dst, "dst", src, "src");
  const Pattern p = pattern_of(c, call);
  const int R = src.valid_row, C = src.valid_col;
  const int fr = call.axis ? p.factor : 1, fc = call.axis ? 1 : p.factor;
  if (dst.valid_row != R * fr || dst.valid_col != C * fc)
    c.fail(ErrorCode::Constraint,
           fmt::format("{} {} needs dst valid shape {}x{} (src's {}x{} expanded {}x along {}), got {}x{}",
                       axis_name(c, call.axis), p.name, R * fr, C * fc, R, C, p.factor,
                       call.axis ? "rows" : "columns", dst.valid_row, dst.valid_col));
  const size_t es = esize(dst);
  std::vector<uint8_t> out(dst.bytes(), 0);
  if (p.factor == 1) std::memcpy(out.data(), dst.data, out.size());  // P1111 is TMOV: the valid region only
  const size_t line = size_t(dst.cols) * es;
  for (int r = 0; r < R; ++r)
    for (int col = 0; col < C; ++col) {
      const size_t dr = size_t(r) * fr + (call.axis ? p.pos : 0), dc = size_t(col) * fc + (call.axis ? 0 : p.pos);
      std::memcpy(&out[dr * line + dc * es], at(src, r, col), es);
    }
  std::memcpy(dst.data, out.data(), out.size());
}

}  // namespace

void gather(const Ctx& c, const Call& call, Path) {
  if (!call.dst || !call.src0) c.fail(ErrorCode::Constraint, "needs dst and a source tile");
  const bool index_form = call.pattern == 0;
  if (index_form && !call.src1) c.fail(ErrorCode::Constraint, "needs an index tile or a maskPattern");
  if (!index_form && call.src1)
    c.fail(ErrorCode::Constraint, "takes an index tile or a maskPattern, not both");
  if (c.info.id == Instr::TGATHER)
    return index_form ? gather_index(c, call) : gather_mask(c, call);
  return index_form ? scatter_index(c, call) : scatter_mask(c, call);
}

}  // namespace tilesim::pto::instr
