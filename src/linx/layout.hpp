// Element offsets of the tile layouts (spec 30 §4), shared by pack/unpack and the machine.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilesim/linx.hpp"

namespace tilesim::linx {

struct LayoutMap {
  size_t rows, cols, rows_p = 0, cols_p = 0, k0 = 0, elements = 0, bytes = 0;
  unsigned bits = 0;
  Layout layout;
  LayoutMap(size_t rows, size_t cols, DType t, Layout l);
  // Element offset of logical (r, c).
  size_t offset(size_t r, size_t c) const {
    switch (layout) {
      case Layout::nz:  // fractal grid column-major, row-major inside
        return ((c / k0) * (rows_p / 16) + r / 16) * 16 * k0 + (r % 16) * k0 + c % k0;
      case Layout::zn:  // fractal grid row-major, column-major inside
        return ((r / k0) * (cols_p / 16) + c / 16) * k0 * 16 + (c % 16) * k0 + r % k0;
      default:
        return r * cols_p + c;
    }
  }
};

void store_element(uint8_t* raw, unsigned bits, size_t off, uint64_t code);
uint64_t load_element(const uint8_t* raw, unsigned bits, size_t off);

}  // namespace tilesim::linx
