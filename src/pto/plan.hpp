// Internal: the result of checking one TROWEXPAND* call (legality.cpp) that the kernel
// (trowexpand.cpp) executes. Nothing in here is written before make_plan returns.
#pragma once
#include "tilesim/pto/engine.hpp"

namespace tilesim::pto::detail {

struct Plan {
  Op op;
  Elem dt;
  int R = 0, C = 0;
  int E = 0;           // 32 / sizeof(T)
  int mode = 0;        // 1: ColMajor expanded operand, 2: RowMajor (spec 20 §3 rule 3)
  bool empty = false;  // R == 0 or C == 0 (spec 20 §3 rule 5)
  bool full_is_src0 = true;
  const TileDesc* dst = nullptr;
  const TileDesc* full = nullptr;
  const TileDesc* expanded = nullptr;
  uint8_t* buffer = nullptr;  // §5 broadcast buffer to write, or null (a5, mode 2, auto mode)
  size_t buffer_bytes = 0;
};

Plan make_plan(Op op, const TileDesc& dst, const TileDesc& src0, const TileDesc& src1,
               const TileDesc* tmp, const Target& t, const Ub& ub);

// §5: bytes of the a2a3 broadcast buffer for R rows.
constexpr size_t broadcast_bytes(int R) {
  return R < 256 ? size_t((R + 7) / 8) * 256 : 30 * 256;
}

inline uint8_t* element(const TileDesc& t, int r, int c) {
  const size_t idx =
      t.row_major ? size_t(r) * size_t(t.cols) + size_t(c) : size_t(c) * size_t(t.rows) + size_t(r);
  return t.data + idx * elem_size(t.dtype);
}

}  // namespace tilesim::pto::detail
