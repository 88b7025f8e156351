// Internal: row kernels of the TROWEXPAND* family. A row kernel computes dst[j] = src0 OP src1
// for j < C of one row, the expanded operand given as `xs` (Ex = 1 scalar in mode 1, E values of
// the 32-byte block in mode 2, read at j mod Ex); swap = the expanded operand is src0.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilesim/pto/engine.hpp"

namespace tilesim::pto::kernels {

// n consecutive rows: row i of full / dst at full + i*full_stride / dst + i*dst_stride (bytes),
// its expanded values at xs + i*Ex*elem.
struct RowsArgs {
  const uint8_t* full;
  size_t full_stride;
  const uint8_t* xs;
  uint8_t* dst;
  size_t dst_stride;
  size_t n;
  size_t elem;
  int C, Ex;
  bool swap;
};
using RowsFn = void (*)(const RowsArgs& a);

// The scalar reference (the definition, spec 70 item 5): one element at a time.
void reference_row(Op op, Elem dt, const uint8_t* full, const uint8_t* xs, uint8_t* dst, int C,
                   int Ex, bool swap);
// The fast kernel for (op, dt): Highway SIMD where available, bit-identical to the reference.
RowsFn fast_rows(Op op, Elem dt);

}  // namespace tilesim::pto::kernels
