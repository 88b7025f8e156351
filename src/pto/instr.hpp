// Internal: what the instruction families (elementwise.cpp, compare.cpp, reduce.cpp, expand.cpp,
// tcvt.cpp) share — the legality predicates (spec 70 item 13: one small named check each, its
// message naming instruction, operand, rule, actual values and the docs section), the tile-row
// walker, and the mapping of PTO element types onto the element-op core's dtypes.
#pragma once
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include <string_view>

#include "ops/elementwise.hpp"
#include "tilesim/error.hpp"
#include "tilesim/pto/engine.hpp"

namespace tilesim::pto::instr {

// The docs section of an instruction's rules (docs/pto-instructions.md, the section of the kind's family).
const char* doc_of(Kind k) noexcept;

inline formats::DType core_dtype(Elem e) noexcept {
  using formats::DType;
  switch (e) {
    case Elem::f16: return DType::fp16;
    case Elem::bf16: return DType::bf16;
    case Elem::f32: return DType::fp32;
    case Elem::s8: return DType::s8;
    case Elem::s16: return DType::s16;
    case Elem::s32: return DType::s32;
    case Elem::u8: return DType::u8;
    case Elem::u16: return DType::u16;
    case Elem::u32: return DType::u32;
    case Elem::s64: return DType::s64;
    default: return DType::u64;
  }
}

// The context every predicate reports with.
struct Ctx {
  const InstrInfo& info;
  const Target& target;
  const Ub& ub;
  // Raises with the docs citation of the instruction's family (doc_of: looked up only here, off
  // the path of a call that passes).
  [[noreturn]] void fail(ErrorCode code, const std::string& detail) const;
};

// ---- predicates (each raises tilesim::Error before anything is written) ----
// Each is an inline test with its message in an out-of-line cold function (namespace slow): the
// checks of a small-tile call cost a few compares, not calls (issue 16 §5).
namespace slow {
[[noreturn, gnu::cold]] void vec(const Ctx& c, const TileDesc& t, std::string_view who);
[[noreturn, gnu::cold]] void row_major(const Ctx& c, const TileDesc& t, std::string_view who);
[[noreturn, gnu::cold]] void dtype_allowed(const Ctx& c, const TileDesc& t, std::string_view who);
[[noreturn, gnu::cold]] void same_dtype(const Ctx& c, const TileDesc& a, std::string_view wa,
                                        const TileDesc& b, std::string_view wb);
[[noreturn, gnu::cold]] void same_valid(const Ctx& c, const TileDesc& a, std::string_view wa,
                                        const TileDesc& b, std::string_view wb);
[[gnu::cold]] void tile_ok(const Ctx& c, const TileDesc& t, std::string_view who);
}  // namespace slow

// Shape, storage and alignment of a tile as a front end built it (check_tile); a TASSIGN'd tile
// must be in this call's UB.
inline void tile_ok(const Ctx& c, const TileDesc& t, std::string_view who) {
  const size_t line = (t.row_major ? size_t(t.cols) : size_t(t.rows)) * elem_size(t.dtype);
  const bool ok = t.rows > 0 && t.cols > 0 && t.rows <= (1 << 24) && t.cols <= (1 << 24) &&
                  t.valid_row >= 0 && t.valid_row <= t.rows && t.valid_col >= 0 &&
                  t.valid_col <= t.cols && t.data != nullptr && t.capacity >= t.bytes() &&
                  (t.slayout != kSLayoutNoneBox || line % 32 == 0) &&
                  (t.ub_addr < 0 || (t.ub != nullptr && (t.ub == c.ub.base || t.loc != kLocVec)));
  if (!ok) [[unlikely]]
    slow::tile_ok(c, t, who);
}
// tile_ok, vec and row_major at once, as one test without branches (`&` of the conditions): the
// element-wise families test their operands with it first and run the predicates one by one (for
// the message of the first that fails) only when it is false.
inline bool plain_nd_vec(const Ctx& c, const TileDesc& t) noexcept {
  const size_t line = size_t(t.cols) * elem_size(t.dtype);
  // rows, cols in [1, 2^24] and valid in [0, rows] / [0, cols], each as one unsigned compare.
  return (t.loc == kLocVec) & t.row_major & (t.slayout == kSLayoutNoneBox) &
         (uint32_t(t.rows) - 1u < (1u << 24)) & (uint32_t(t.cols) - 1u < (1u << 24)) &
         (uint32_t(t.valid_row) <= uint32_t(t.rows)) & (uint32_t(t.valid_col) <= uint32_t(t.cols)) &
         (t.data != nullptr) & (t.capacity >= size_t(t.rows) * line) & (line % 32 == 0) &
         ((t.ub_addr < 0) | ((t.ub != nullptr) & (t.ub == c.ub.base)));
}
// TileType::Vec.
inline void vec(const Ctx& c, const TileDesc& t, std::string_view who) {
  if (t.loc != kLocVec) [[unlikely]]
    slow::vec(c, t, who);
}
// BLayout::RowMajor, SLayout::NoneBox (ND).
inline void row_major(const Ctx& c, const TileDesc& t, std::string_view who) {
  if (!t.row_major || t.slayout != kSLayoutNoneBox) [[unlikely]]
    slow::row_major(c, t, who);
}
// The dtype set of the row for the target (a2a3, a5, or cpu = their union).
inline uint16_t allowed(const Ctx& c) noexcept {
  switch (c.target.kind) {
    case TargetKind::a2a3: return c.info.a2a3;
    case TargetKind::a5: return c.info.a5;
    default: return uint16_t(c.info.a2a3 | c.info.a5);
  }
}
// The whole rule set of a plain element-wise call as one test: every operand plain_nd_vec, of
// dst's dtype (one the row allows), with dst's valid shape. The families run their predicates one
// by one (for the message of the first that fails) only when it is false.
template <class... S>
inline bool plain_same(const Ctx& c, const TileDesc& dst, const S&... src) noexcept {
  return plain_nd_vec(c, dst) & (unsigned(dst.dtype) < unsigned(kNumElems)) &
         ((allowed(c) >> (unsigned(dst.dtype) & 15u)) & 1u) &
         (... & (plain_nd_vec(c, src) & (src.dtype == dst.dtype) &
                 (src.valid_row == dst.valid_row) & (src.valid_col == dst.valid_col)));
}
inline void dtype_allowed(const Ctx& c, const TileDesc& t, std::string_view who) {
  if (!(allowed(c) & (1u << unsigned(t.dtype)))) [[unlikely]]
    slow::dtype_allowed(c, t, who);
}
std::string dtype_list(uint16_t mask);
// a and b have the same dtype.
inline void same_dtype(const Ctx& c, const TileDesc& a, std::string_view wa, const TileDesc& b,
                       std::string_view wb) {
  if (a.dtype != b.dtype) [[unlikely]]
    slow::same_dtype(c, a, wa, b, wb);
}
// a's valid shape equals b's.
inline void same_valid(const Ctx& c, const TileDesc& a, std::string_view wa, const TileDesc& b,
                       std::string_view wb) {
  if (a.valid_row != b.valid_row || a.valid_col != b.valid_col) [[unlikely]]
    slow::same_valid(c, a, wa, b, wb);
}
// No byte of a is a byte of b (both tiles' whole storage).
void no_overlap(const Ctx& c, const TileDesc& a, std::string_view wa, const TileDesc& b,
                std::string_view wb);
inline bool overlaps(const TileDesc& a, const TileDesc& b) noexcept {
  const auto alo = reinterpret_cast<uintptr_t>(a.data), blo = reinterpret_cast<uintptr_t>(b.data);
  return alo < blo + b.bytes() && blo < alo + a.bytes();
}
// No integer element of t's valid region is 0 (divisors, spec 15 §1).
void no_zero_divisor(const Ctx& c, const TileDesc& t, std::string_view who);

inline bool is_a2a3(const Ctx& c) noexcept { return c.target.kind == TargetKind::a2a3; }
// A call's scalar operand as a code of dt (front ends pass the code of the tile's dtype).
inline uint64_t scalar_code(const Call& call, formats::DType dt) noexcept {
  const unsigned bits = formats::info(dt).storage_bits;
  return bits >= 64 ? call.scalar : (call.scalar & ((uint64_t{1} << bits) - 1));
}

// ---- walking ----
inline size_t esize(const TileDesc& t) noexcept { return elem_size(t.dtype); }
// Element (r, c) of a tile (RowMajor r*cols + c, ColMajor c*rows + r).
inline uint8_t* at(const TileDesc& t, int r, int c) noexcept {
  const size_t idx = t.row_major ? size_t(r) * size_t(t.cols) + size_t(c)
                                 : size_t(c) * size_t(t.rows) + size_t(r);
  return t.data + idx * esize(t);
}

// A RowMajor source that overlaps dst other than element for element is read from a copy, so the
// instruction reads every input before writing (spec 00: results as if sources were read first).
// Inline: the usual operand (dst itself, or apart from it) costs two compares, no call.
class Source {
 public:
  Source(const TileDesc& src, const TileDesc& dst, int R, int C)
      : base_(src.data), stride_(size_t(src.cols) * esize(src)) {
    const bool same = src.data == dst.data && src.cols == dst.cols && esize(dst) == esize(src);
    if (!same && overlaps(src, dst)) [[unlikely]]
      copy(R, C, esize(src));
  }
  const uint8_t* row(int r) const noexcept { return base_ + size_t(r) * stride_; }
  size_t stride() const noexcept { return stride_; }

 private:
  [[gnu::cold]] void copy(int R, int C, size_t sz);
  std::vector<uint8_t> copy_;
  const uint8_t* base_;
  size_t stride_;
};

// Runs fn(r0, r1) over rows [0, R) of a valid region of R x C elements, on several threads when
// the work is large (work_log2: threads from 2^work_log2 elements on; spec 00 Threading: results
// never depend on the count, every row is written by one thread). Small regions call fn directly
// (no std::function, no allocation: the fixed cost of a 64x64 call matters, issue 16 §5).
void for_rows_threaded(int R, int C, int work_log2, const std::function<void(size_t, size_t)>& fn);
template <class F>
inline void for_rows(int R, int C, int work_log2, F&& fn) {
  if (size_t(R) * size_t(C) < (size_t(1) << work_log2) || R < 2) return fn(size_t(0), size_t(R));
  for_rows_threaded(R, C, work_log2, fn);
}

// ---- the families: each checks its kinds' rules, then computes (one file per family) ----
void elementwise(const Ctx& c, const Call& call, Path path);  // elementwise.cpp
void compare(const Ctx& c, const Call& call, Path path);      // compare.cpp
void reduce(const Ctx& c, const Call& call, Path path);       // reduce.cpp
void expand(const Ctx& c, const Call& call, Path path);       // expand.cpp
void convert(const Ctx& c, const Call& call, Path path);      // tcvt.cpp
void memory(const Ctx& c, const Call& call, Path path);       // memory.cpp
void movement(const Ctx& c, const Call& call, Path path);     // movement.cpp
void matmul(const Ctx& c, const Call& call, Path path);       // matmul.cpp
void gather(const Ctx& c, const Call& call, Path path);       // gather.cpp (TGATHER, TSCATTER)
// The pipeline-hazard checker's record of a call that ran (sync.cpp; issue 22, docs/sync.md).
void sync_record(const InstrInfo& info, const Call& call, const Ub& ub);
// The TROWEXPAND* family's (row_expand): pipe V, src0 and src1 read, dst and tmp written.
void sync_record_row_expand(const char* name, const TileDesc& dst, const TileDesc& src0,
                            const TileDesc& src1, const TileDesc* tmp, const Ub& ub,
                            const sync::Site& site);
// The pipe a call issues on (the PIPE column, resolved by operand locations).
uint8_t sync_pipe(const InstrInfo& info, const Call& call);

inline ops::Path core_path(Path p) noexcept {
  return p == Path::Fast ? ops::Path::Fast : ops::Path::Reference;
}

}  // namespace tilesim::pto::instr
