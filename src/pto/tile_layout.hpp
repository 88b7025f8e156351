// Internal: where element (r, c) of a tile lives in its storage, for every layout a tile can have
// (docs/pto-kernels.md#tile-layouts): NoneBox row- or column-major, and the boxed (fractal)
// layouts NZ, ZN and ZZ with the vendor's box sizes. The vector families only take NoneBox
// row-major tiles (instr.hpp `at`); memory, movement and matrix instructions use this.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tilesim/pto/engine.hpp"

namespace tilesim::pto::layout {

// Box extents in elements (the vendor's InnerRows x InnerCols).
inline int inner_rows(const TileDesc& t) noexcept {
  if (t.slayout == kSLayoutNoneBox) return 1;
  if (t.fractal == 1024) return 16;
  if (t.fractal == 32) return t.slayout == kSLayoutRowMajor ? 16 : 2;
  return t.slayout == kSLayoutRowMajor ? 16 : int(32 / elem_size(t.dtype));
}
inline int inner_cols(const TileDesc& t) noexcept {
  if (t.slayout == kSLayoutNoneBox) return 1;
  if (t.fractal == 1024) return 16;
  if (t.fractal == 32) return t.slayout == kSLayoutRowMajor ? 2 : 16;
  return t.slayout == kSLayoutRowMajor ? int(32 / elem_size(t.dtype)) : 16;
}

// Inside a box, elements run row-major but for ZN (RowMajor blocks of ColMajor boxes): the rule
// index() below applies (NZ and ZZ boxes are row-major inside).
inline bool box_row_major(const TileDesc& t) noexcept { return !(t.row_major && t.slayout == kSLayoutColMajor); }

// Storage index of element (r, c).
inline size_t index(const TileDesc& t, int r, int c) noexcept {
  if (t.slayout == kSLayoutNoneBox)
    return t.row_major ? size_t(r) * size_t(t.cols) + size_t(c)
                       : size_t(c) * size_t(t.rows) + size_t(r);
  const int IR = inner_rows(t), IC = inner_cols(t);
  const size_t box = size_t(IR) * size_t(IC);
  const int br = r / IR, bc = c / IC, ir = r % IR, ic = c % IC;
  const int nbr = t.rows / IR, nbc = t.cols / IC;
  if (!t.row_major)  // NZ: boxes down the columns, row-major inside
    return (size_t(nbr) * bc + br) * box + size_t(ir) * IC + ic;
  if (t.slayout == kSLayoutColMajor)  // ZN: boxes along the rows, column-major inside
    return (size_t(nbc) * br + bc) * box + size_t(ic) * IR + ir;
  return (size_t(nbc) * br + bc) * box + size_t(ir) * IC + ic;  // ZZ
}
inline uint8_t* at(const TileDesc& t, int r, int c) noexcept {
  return t.data + index(t, r, c) * elem_size(t.dtype);
}

// Every layout's index is separable: index(r, c) = index(r, 0) + index(0, c) (NZ: the box row and
// inner row give the first, the box column and inner column the second; likewise ZN, ZZ,
// NoneBox). The movers precompute both parts for a region and copy with typed loads and stores.

// index(r, 0) / index(0, c) for rows [r0, r0 + R) and columns [c0, c0 + C), in elements, computed
// incrementally (box counters instead of a division per element).
struct Parts {
  std::vector<int64_t> row, col;
  Parts() = default;
  Parts(const TileDesc& t, int r0, int R, int c0, int C) : row(size_t(R)), col(size_t(C)) {
    const int64_t IR = inner_rows(t), IC = inner_cols(t), box = IR * IC;
    int64_t rs_box, rs_in, cs_box, cs_in;  // element steps per box / per position inside a box
    if (t.slayout == kSLayoutNoneBox) {
      rs_box = rs_in = t.row_major ? t.cols : 1;
      cs_box = cs_in = t.row_major ? 1 : t.rows;
    } else if (!t.row_major) {  // NZ
      rs_box = box, rs_in = IC, cs_box = (t.rows / IR) * box, cs_in = 1;
    } else if (t.slayout == kSLayoutColMajor) {  // ZN
      rs_box = (t.cols / IC) * box, rs_in = 1, cs_box = box, cs_in = IR;
    } else {  // ZZ
      rs_box = (t.cols / IC) * box, rs_in = IC, cs_box = box, cs_in = 1;
    }
    fill(row, r0, IR, rs_box, rs_in);
    fill(col, c0, IC, cs_box, cs_in);
  }
  // A dense row-major R x C array, and a dense column-major one (element (r, c) at c * R + r).
  static Parts row_major(int R, int C) { return dense(R, C, C, 1); }
  static Parts col_major(int R, int C) { return dense(R, C, 1, R); }

 private:
  static Parts dense(int R, int C, int64_t row_step, int64_t col_step) {
    Parts p;
    p.row.resize(size_t(R));
    p.col.resize(size_t(C));
    for (int r = 0; r < R; ++r) p.row[size_t(r)] = r * row_step;
    for (int c = 0; c < C; ++c) p.col[size_t(c)] = c * col_step;
    return p;
  }
  // v[k] = (i / n) * step_box + (i % n) * step_in for i = i0 + k (n = 1: i * step_in).
  static void fill(std::vector<int64_t>& v, int i0, int64_t n, int64_t step_box, int64_t step_in) {
    if (n == 1) {
      for (size_t k = 0; k < v.size(); ++k) v[k] = (i0 + int64_t(k)) * step_in;
      return;
    }
    int64_t b = i0 / n, in = i0 % n;
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = b * step_box + in * step_in;
      if (++in == n) in = 0, ++b;
    }
  }
};

// dst[drow[r] + dcol[c]] = src[srow[r] + scol[c]] for an R x C region of `esize`-byte elements
// (1, 2, 4 or 8); the regions must not overlap (the callers stage overlapping sources).
void copy_region(uint8_t* dst, const Parts& d, const uint8_t* src, const Parts& s, int R, int C,
                 size_t esize) noexcept;

// True when element (r, c) is at r * cols + c (rows contiguous): the fast paths' case.
inline bool rows_contiguous(const TileDesc& t) noexcept {
  return t.slayout == kSLayoutNoneBox && t.row_major;
}

}  // namespace tilesim::pto::layout
