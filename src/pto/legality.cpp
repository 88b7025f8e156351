// Legality predicates of the TROWEXPAND* family (spec 20 §1–§5). Each rule is one small check
// whose message names the instruction, operand, rule, actual values and spec section; all of
// them run before the kernel writes anything.
#include <fmt/format.h>

#include <cstring>
#include <string>

#include "pto/instr.hpp"
#include "pto/plan.hpp"
#include "tilesim/error.hpp"

namespace tilesim::pto {
namespace {

[[noreturn]] void fail(ErrorCode code, std::string_view instr, const std::string& detail,
                       std::string_view spec) {
  raise(code, instr, detail, spec);
}

const char* layout_name(bool row_major) {
  return row_major ? "RowMajor" : "ColMajor";
}

constexpr const char* kLocNames[] = {"Vec",  "Mat",     "Left",      "Right",      "Acc",
                                     "Bias", "Scaling", "ScaleLeft", "ScaleRight", "Ctrl"};
std::string loc_name(uint8_t loc) {
  return loc < 10 ? kLocNames[loc] : fmt::format("TileType({})", loc);
}

struct Range {
  uintptr_t lo = 0, hi = 0;
  bool overlaps(const Range& o) const { return lo < o.hi && o.lo < hi; }
};
Range storage(const TileDesc& t) {
  const auto lo = reinterpret_cast<uintptr_t>(t.data);
  return {lo, lo + t.bytes()};
}

uint16_t allowed_mask(Op op, const Target& t) {
  if (op == Op::DIV) return t.div_mask;
  if (op == Op::EXPDIF) return t.expdif_mask;
  return t.basic_mask;
}

using instr::dtype_list;  // one dtype-list formatter for every PTO message

}  // namespace

void check_tile(const TileDesc& t, std::string_view instr, std::string_view who) {
  if (t.rows <= 0 || t.cols <= 0 || t.rows > (1 << 24) || t.cols > (1 << 24))
    fail(ErrorCode::Bounds, instr,
         fmt::format("{} shape must be positive (at most 2^24), got {}x{}", who, t.rows, t.cols),
         "docs/pto.md#tile-constraints");
  if (t.valid_row < 0 || t.valid_row > t.rows || t.valid_col < 0 || t.valid_col > t.cols)
    fail(ErrorCode::Bounds, instr,
         fmt::format(
             "{} valid shape must satisfy 0 <= valid <= static, got valid {}x{} for a {}x{} tile",
             who, t.valid_row, t.valid_col, t.rows, t.cols),
         "docs/pto.md#tile-constraints");
  if (t.data == nullptr || t.capacity < t.bytes())
    fail(ErrorCode::Bounds, instr,
         fmt::format("{} storage holds {} bytes, the {}x{} {} tile needs {}", who,
                     t.data ? t.capacity : 0, t.rows, t.cols, elem_name(t.dtype), t.bytes()),
         "docs/pto.md#tile-constraints");
  if (t.ub_addr >= 0 && t.ub == nullptr)
    fail(ErrorCode::Bounds, instr,
         fmt::format("{} is bound to UB address {} but to no UB", who, t.ub_addr), "docs/pto.md#tile-constraints");
  if (t.slayout == kSLayoutNoneBox) {
    const size_t sz = elem_size(t.dtype);
    const size_t line = t.row_major ? size_t(t.cols) * sz : size_t(t.rows) * sz;
    if (line % 32 != 0)
      fail(ErrorCode::Constraint, instr,
           t.row_major ? fmt::format("{} (RowMajor) needs Cols*sizeof(T) % 32 == 0, got Cols={} "
                                     "sizeof={} ({} bytes)",
                                     who, t.cols, sz, line)
                       : fmt::format("{} (ColMajor) needs Rows*sizeof(T) % 32 == 0, got Rows={} "
                                     "sizeof={} ({} bytes)",
                                     who, t.rows, sz, line),
           "docs/pto.md#tile-constraints");
  }
}

uint8_t* ub_bind(const Ub& ub, const Target& t, int64_t addr, size_t bytes, std::string_view who,
                 const char* buffer) {
  if (addr < 0 || addr % 32 != 0)
    fail(ErrorCode::Constraint, "TASSIGN",
         fmt::format("{} address in the {} must be 32-byte aligned and non-negative, got {:#x}",
                     who, buffer, addr),
         "docs/pto.md#tile-constraints");
  if (uint64_t(addr) > ub.size || bytes > ub.size - uint64_t(addr))
    fail(ErrorCode::Bounds, "TASSIGN",
         fmt::format("{} at {:#x} + {} bytes exceeds the {} {} of {} bytes", who, addr, bytes,
                     t.name, buffer, ub.size),
         "docs/pto.md#tile-constraints");
  return ub.base + addr;
}

namespace detail {

Plan make_plan(Op op, const TileDesc& dst, const TileDesc& src0, const TileDesc& src1,
               const TileDesc* tmp, const Target& tg, const Ub& ub) {
  const char* I = op_name(op);
  // spec 21 §5: the cpu target accepts tmp without checking or writing it (it may alias any
  // operand: the vendor demo passes src as tmp).
  if (tg.kind == TargetKind::cpu) tmp = nullptr;
  check_tile(dst, I, "dst");
  check_tile(src0, I, "src0");
  check_tile(src1, I, "src1");
  if (tmp) check_tile(*tmp, I, "tmp");

  // Rule 1: Vec tiles of one dtype, dst RowMajor.
  const std::pair<const TileDesc*, const char*> ops[] = {
      {&dst, "dst"}, {&src0, "src0"}, {&src1, "src1"}, {tmp, "tmp"}};
  for (const auto& [t, name] : ops)
    if (t && t->loc != kLocVec)
      fail(ErrorCode::Constraint, I,
           fmt::format("{} must be a TileType::Vec tile, got {}", name, loc_name(t->loc)),
           "docs/pto.md#trowexpand-constraints");
  if (src0.dtype != dst.dtype || src1.dtype != dst.dtype)
    fail(ErrorCode::Constraint, I,
         fmt::format("dst, src0 and src1 must have the same dtype, got {}, {}, {}",
                     elem_name(dst.dtype), elem_name(src0.dtype), elem_name(src1.dtype)),
         "docs/pto.md#trowexpand-constraints");
  const uint16_t mask = allowed_mask(op, tg);
  if (!(mask & (1u << unsigned(dst.dtype))))
    fail(ErrorCode::Unsupported, I,
         fmt::format("dtype {} is not supported on target {} (supported: {})", elem_name(dst.dtype),
                     tg.name, dtype_list(mask)),
         "docs/pto.md#targets-and-dtypes");
  if (!dst.row_major)
    fail(ErrorCode::Constraint, I, "dst must be RowMajor, got ColMajor", "docs/pto.md#trowexpand-constraints");
  // Rule 4: boxed layouts, Pad and Compact are not modelled by these instructions.
  for (const auto& [t, name] : ops) {
    if (!t || t == tmp) continue;
    if (t->slayout != kSLayoutNoneBox)
      fail(ErrorCode::Unsupported, I,
           fmt::format("{} must have SLayout::NoneBox, got a boxed layout (SLayout {})", name,
                       t->slayout),
           "docs/pto.md#trowexpand-constraints");
    if (t->pad != 0 || t->compact != 0)
      fail(ErrorCode::Unsupported, I,
           fmt::format("{} must have PadValue::Null and CompactMode::Null, got pad {} compact {}",
                       name, t->pad, t->compact),
           "docs/pto.md#trowexpand-constraints");
  }
  for (const auto& [t, name] : ops)
    if (t && t->ub_addr >= 0 && t->ub != ub.base)
      fail(
          ErrorCode::Constraint, I,
          fmt::format("{} is bound (TASSIGN) to the UB of another target, the current target is {}",
                      name, tg.name),
          "docs/pto.md#tile-constraints");

  Plan p;
  p.op = op;
  p.dt = dst.dtype;
  p.dst = &dst;
  p.R = dst.valid_row;
  p.C = dst.valid_col;
  p.E = int(32 / elem_size(dst.dtype));
  if (p.R == 0 || p.C == 0) {  // rule 5: nothing to do, not an error
    p.empty = true;
    return p;
  }

  // Rule 2: the full operand matches dst's valid shape (src0 first, as the vendor library does).
  auto matches = [&](const TileDesc& s) { return s.valid_row == p.R && s.valid_col == p.C; };
  if (matches(src0)) {
    p.full = &src0, p.expanded = &src1, p.full_is_src0 = true;
  } else if (matches(src1)) {
    p.full = &src1, p.expanded = &src0, p.full_is_src0 = false;
  } else {
    fail(ErrorCode::Constraint, I,
         fmt::format("no source matches dst's valid shape {}x{} (src0 valid {}x{}, src1 valid "
                     "{}x{}); one must be the "
                     "full operand",
                     p.R, p.C, src0.valid_row, src0.valid_col, src1.valid_row, src1.valid_col),
         "docs/pto.md#trowexpand-constraints");
  }
  const char* fname = p.full_is_src0 ? "src0" : "src1";
  const char* xname = p.full_is_src0 ? "src1" : "src0";
  if (!p.full->row_major)
    fail(ErrorCode::Constraint, I,
         fmt::format("{} (full operand) must be RowMajor, got ColMajor", fname), "docs/pto.md#trowexpand-constraints");

  // Rule 3: the expanded operand's layout picks the mode.
  const TileDesc& x = *p.expanded;
  p.mode = x.row_major ? 2 : 1;
  const int want_col = p.mode == 1 ? 1 : p.E;
  // cpu, mode 1: the vendor CPU simulator reads element (i, 0) of a ColMajor expanded operand of
  // any width (its flash-attention demo passes the 64 x 64 ColMajor tile its TROWMAX wrote).
  if (x.valid_col != want_col && !(tg.kind == TargetKind::cpu && p.mode == 1))
    fail(ErrorCode::Constraint, I,
         fmt::format("{} (expanded operand, {}) must have validCol == {}, got {}", xname,
                     layout_name(x.row_major),
                     p.mode == 1 ? std::string("1") : fmt::format("32/sizeof(T) = {}", p.E),
                     x.valid_col),
         "docs/pto.md#trowexpand-constraints");
  if (x.valid_row != p.R)
    fail(ErrorCode::Constraint, I,
         fmt::format("{} (expanded operand, {}) must have validRow == dst validRow {}, got {}",
                     xname, layout_name(x.row_major), p.R, x.valid_row),
         "docs/pto.md#trowexpand-constraints");

  // §5: tmp form is mode 1 only; a2a3 broadcasts through a buffer, a5 ignores it.
  if (tmp && p.mode == 2 && tg.kind != TargetKind::cpu)  // spec 21 §5: cpu accepts any tmp
    fail(
        ErrorCode::Constraint, I,
        fmt::format(
            "the tmp overload supports mode 1 only, but {} (expanded operand) is RowMajor (mode 2)",
            xname),
        "docs/pto.md#the-tmp-buffer");
  const std::string buf_what = tmp ? "tmp buffer" : "internal 8 KB buffer (TMP_UB_OFFSET)";
  if (tg.broadcast_buffer && p.mode == 1) {
    const size_t need = broadcast_bytes(p.R);
    if (tmp && tmp->ub_addr >= 0) {
      if (uint64_t(tmp->ub_addr) > ub.size || need > ub.size - uint64_t(tmp->ub_addr))
        fail(ErrorCode::Bounds, I,
             fmt::format("tmp buffer [{:#x}, {:#x}) ({} bytes for R = {}) lies outside the {} UB "
                         "of {} bytes",
                         tmp->ub_addr, tmp->ub_addr + int64_t(need), need, p.R, tg.name, ub.size),
             "docs/pto.md#the-tmp-buffer");
      p.buffer = ub.base + tmp->ub_addr;
    } else if (tmp) {
      if (tmp->bytes() < need)
        fail(ErrorCode::Constraint, I,
             fmt::format("tmp holds {} bytes ({}x{} {}), R = {} needs {}", tmp->bytes(), tmp->rows,
                         tmp->cols, elem_name(tmp->dtype), p.R, need),
             "docs/pto.md#the-tmp-buffer");
      p.buffer = tmp->data;
    } else {
      // 3-argument form: the internal area is written only in manual mode (an operand in the UB).
      bool manual = false;
      for (const auto& [t, name] : ops) manual |= (t && t->ub_addr >= 0);
      if (manual) {
        const Range area{reinterpret_cast<uintptr_t>(ub.base + tg.tmp_ub_offset),
                         reinterpret_cast<uintptr_t>(ub.base + tg.tmp_ub_offset + tg.tmp_ub_bytes)};
        for (const auto& [t, name] : ops)
          if (t && t->ub_addr >= 0 && storage(*t).overlaps(area))
            fail(ErrorCode::Constraint, I,
                 fmt::format("{} [{:#x}, {:#x}) overlaps the internal 8 KB buffer [{:#x}, {:#x}) "
                             "of target {}",
                             name, t->ub_addr, t->ub_addr + int64_t(t->bytes()), tg.tmp_ub_offset,
                             tg.tmp_ub_offset + tg.tmp_ub_bytes, tg.name),
                 "docs/pto.md#the-tmp-buffer");
        p.buffer = ub.base + tg.tmp_ub_offset;
      }
    }
    if (p.buffer) {
      p.buffer_bytes = need;
      const auto lo = reinterpret_cast<uintptr_t>(p.buffer);
      const Range buf{lo, lo + need};
      for (const auto& [t, name] : ops) {
        if (!t || t == tmp) continue;
        if (t == p.expanded && p.R < 256) continue;  // §5: may share the expanded operand's space
        if (storage(*t).overlaps(buf))
          fail(ErrorCode::Constraint, I,
               fmt::format("{} ({} bytes for R = {}) overlaps {}{}", buf_what, need, p.R, name,
                           t == p.expanded ? " (expanded operand; allowed only when R < 256)" : ""),
               "docs/pto.md#the-tmp-buffer");
      }
    }
  }

  // §4: integer division by zero is an error, found before anything is written.
  if (op == Op::DIV && !elem_is_float(p.dt)) {
    const size_t sz = elem_size(p.dt);
    const int cols = !p.full_is_src0 ? p.C : (p.mode == 1 ? 1 : std::min(p.C, p.E));
    static const uint8_t zero[4] = {0, 0, 0, 0};
    for (int i = 0; i < p.R; ++i)
      for (int j = 0; j < cols; ++j)
        if (std::memcmp(element(src1, i, j), zero, sz) == 0)
          fail(ErrorCode::Constraint, I,
               fmt::format("integer division by zero: src1 ({}) element ({}, {}) is 0",
                           p.full_is_src0 ? "expanded operand" : "full operand", i, j),
               "docs/pto.md#trowexpand-semantics");
  }
  return p;
}

}  // namespace detail
}  // namespace tilesim::pto
