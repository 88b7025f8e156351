// Internal: row kernels of the TROWEXPAND* family. A row kernel computes dst[j] = src0 OP src1
// for j < C of one row, the expanded operand given as `xs` (Ex = 1 scalar in mode 1, E values of
// the 32-byte block in mode 2, read at j mod Ex); swap = the expanded operand is src0.
#pragma once
#include <cstdint>

#include "tilesim/pto/engine.hpp"

namespace tilesim::pto::kernels {

using RowFn = void (*)(const uint8_t* full, const uint8_t* xs, uint8_t* dst, int C, int Ex, bool swap);

// The scalar reference (the definition, spec 70 item 5): one element at a time.
void reference_row(Op op, Elem dt, const uint8_t* full, const uint8_t* xs, uint8_t* dst, int C, int Ex,
                   bool swap);
// The fast row kernel for (op, dt): Highway SIMD where available, bit-identical to the reference.
RowFn fast_row(Op op, Elem dt);

}  // namespace tilesim::pto::kernels
