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

// The docs section of an instruction's rules (docs/pto-instructions.md#<kind's family>).
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
  const char* doc;  // docs citation for this instruction's rules
  [[noreturn]] void fail(ErrorCode code, const std::string& detail) const;
};

// ---- predicates (each raises tilesim::Error before anything is written) ----
// Shape, storage and alignment of a tile as a front end built it; TASSIGN'd tiles in this UB.
void tile_ok(const Ctx& c, const TileDesc& t, std::string_view who);
// TileType::Vec.
void vec(const Ctx& c, const TileDesc& t, std::string_view who);
// BLayout::RowMajor, SLayout::NoneBox (ND).
void row_major(const Ctx& c, const TileDesc& t, std::string_view who);
// The tile's dtype is in the row's set for the target (a2a3, a5, or cpu = their union).
void dtype_allowed(const Ctx& c, const TileDesc& t, std::string_view who);
uint16_t allowed(const Ctx& c) noexcept;
std::string dtype_list(uint16_t mask);
// a and b have the same dtype.
void same_dtype(const Ctx& c, const TileDesc& a, std::string_view wa, const TileDesc& b,
                std::string_view wb);
// a's valid shape equals b's.
void same_valid(const Ctx& c, const TileDesc& a, std::string_view wa, const TileDesc& b,
                std::string_view wb);
// No byte of a is a byte of b (both tiles' whole storage).
void no_overlap(const Ctx& c, const TileDesc& a, std::string_view wa, const TileDesc& b,
                std::string_view wb);
bool overlaps(const TileDesc& a, const TileDesc& b) noexcept;
// No integer element of t's valid region is 0 (divisors, spec 15 §1).
void no_zero_divisor(const Ctx& c, const TileDesc& t, std::string_view who);

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
class Source {
 public:
  Source(const TileDesc& src, const TileDesc& dst, int R, int C);
  const uint8_t* row(int r) const noexcept { return base_ + size_t(r) * stride_; }
  size_t stride() const noexcept { return stride_; }

 private:
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

inline ops::Path core_path(Path p) noexcept {
  return p == Path::Fast ? ops::Path::Fast : ops::Path::Reference;
}

}  // namespace tilesim::pto::instr
