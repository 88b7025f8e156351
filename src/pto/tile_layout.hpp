// Internal: where element (r, c) of a tile lives in its storage, for every layout a tile can have
// (docs/pto-kernels.md#tile-layouts): NoneBox row- or column-major, and the boxed (fractal)
// layouts NZ, ZN and ZZ with the vendor's box sizes. The vector families only take NoneBox
// row-major tiles (instr.hpp `at`); memory, movement and matrix instructions use this.
#pragma once
#include <cstddef>
#include <cstdint>

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

// True when element (r, c) is at r * cols + c (rows contiguous): the fast paths' case.
inline bool rows_contiguous(const TileDesc& t) noexcept {
  return t.slayout == kSLayoutNoneBox && t.row_major;
}

}  // namespace tilesim::pto::layout
