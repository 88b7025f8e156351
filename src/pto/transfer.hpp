// Internal: what the memory (memory.cpp) and movement (movement.cpp) families share — pad codes,
// the Acc -> T conversion of TSTORE / TMOV / TEXTRACT from Acc (relu, pre-quantisation), the
// location rule helpers, and the element mover between any two tile layouts.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ops/cast.hpp"
#include "pto/instr.hpp"
#include "pto/tile_layout.hpp"

namespace tilesim::pto::instr {

// "Vec", "Mat", ... (TileType names).
std::string loc_name(uint8_t loc);
// No operand of the call is a ScaleLeft, ScaleRight or Ctrl tile: those names exist so vendor
// sources compile; instructions on them are Unsupported until the MX formats come (spec 21 §1).
void no_mx_locations(const Ctx& c, const Call& call);
// t is a tile of location `loc`.
void loc_is(const Ctx& c, const TileDesc& t, uint8_t loc, std::string_view who);

// The code of a tile's PadValue in its dtype (docs/pto-kernels.md#tload): Null and Zero 0; Min the
// lowest value (-Inf for floats); Max the highest (+Inf); a custom pad (PadCustom, bits 32..63 the
// fp32 pattern) converted to the dtype by spec 15 §2 (RNE, saturating).
uint64_t pad_code(Elem e, uint64_t pad);
// Fills all Rows x Cols elements of t with its pad code.
void fill_pad(const TileDesc& t);

// The conversion of a transfer: identity (same dtype, bits moved), or Acc -> T (fp32 -> fp16 /
// bf16 / fp32, s32 -> s32 / fp16 / s8 ...), with ReLU before the conversion and the
// preQuantScalar form (docs/pto-kernels.md#acc-conversion).
struct Conversion {
  Elem from, to;
  bool relu = false;
  bool quant = false;
  uint64_t quant_scalar = 0;
  bool identity() const noexcept { return from == to && !relu && !quant; }
};
// Checks that `cv` is a conversion the instruction may do from an Acc tile (else Constraint
// naming the pair) and returns it; identity when from == to.
Conversion acc_conversion(const Ctx& c, Elem from, Elem to, uint8_t relu, bool has_quant,
                          uint64_t quant);
uint64_t convert(const Conversion& cv, uint64_t code);

// For r < R, k < full: n bytes from srow[r] + k * sstep to drow[r] + k * dstep (no overlap): the
// box-row runs of rows_box_rows, one vector move per run where n is 32 or 64 (box_simd.cpp; the
// baseline build moves 16 bytes at a time, which left TLOAD / TSTORE store-bound). `far_source`:
// the source rows are far apart in memory (GM rows into a tile), so they are requested ahead.
void box_runs(uint8_t* const* drow, const uint8_t* const* srow, size_t R, size_t full, size_t dstep, size_t sstep,
              size_t n, bool far_source);

// Rows of a row-major array (row r at row(r), contiguous along the row) to (to_tile) or from the
// R x C region at (r0, c0) of tile t, when t's boxes are row-major inside (NZ, ZZ) and c0 starts a
// box: runs of a box row (IC elements) copied as such, t's offsets taken once per run and row
// (layout::index is separable). False, nothing moved, for any other layout.
template <class RowPtr>
bool rows_box_rows(const TileDesc& t, int r0, int c0, int R, int C, bool to_tile, RowPtr row) {
  const bool box_rm = t.slayout != kSLayoutNoneBox && layout::box_row_major(t);
  const int IC = layout::inner_cols(t);
  if (!box_rm || IC <= 1 || c0 % IC != 0) return false;
  const size_t es = elem_size(t.dtype), run = size_t(IC) * es;
  // Box column k of the region starts k * step bytes after the first (index is linear in the box
  // column for NZ and ZZ), so each row is `full` whole runs and a partial one.
  const size_t step = (layout::index(t, 0, IC) - layout::index(t, 0, 0)) * es;
  const size_t full = size_t(C) / size_t(IC), tail = size_t(C % IC) * es;
  uint8_t* const base = t.data + layout::index(t, 0, c0) * es;
  thread_local std::vector<uint8_t*> trows, prows;
  trows.resize(size_t(R));
  prows.resize(size_t(R));
  // Row r0 + r of t at box row br, row ir inside it: counted, not divided per row (an idiv per row
  // was a third of a 64-row TLOAD).
  const int IR = layout::inner_rows(t);
  const size_t box_row = (layout::index(t, IR, 0) - layout::index(t, 0, 0)) * es, in_row = run;
  int br = r0 / IR, ir = r0 % IR;
  for (int r = 0; r < R; ++r) {
    trows[size_t(r)] = base + size_t(br) * box_row + size_t(ir) * in_row;
    prows[size_t(r)] = row(r);
    if (++ir == IR) ir = 0, ++br;
  }
  uint8_t* const* const drow = to_tile ? trows.data() : prows.data();
  uint8_t* const* const srow = to_tile ? prows.data() : trows.data();
  const size_t dstep = to_tile ? step : run, sstep = to_tile ? run : step;
  box_runs(drow, srow, size_t(R), full, dstep, sstep, run, to_tile);
  if (tail)
    for (size_t r = 0; r < size_t(R); ++r) std::memcpy(drow[r] + full * dstep, srow[r] + full * sstep, tail);
  return true;
}

// A 16 x 16 box of 16-bit elements from row-major (element (i, j) at i * 16 + j) to column-major
// (j * 16 + i), or back (the same permutation); SIMD where the target has it (box_simd.cpp).
void transpose_box16x16_u16(uint8_t* db, const uint8_t* sb);
// out[c * ldo + i] = fp32 value of the fp16 (bf16 when `bf16`) code (i, c) of a row-major 16 x 16
// box: a ZN box (column-major inside) becomes 16 row-major rows of fp32 (TMATMUL's Right operand).
// Exact for every non-NaN code; a NaN code gives some NaN.
void box16x16_to_f32_transposed(const uint8_t* sb, bool bf16, float* out, size_t ldo);
// out[c * ldo + i] = the 16-bit code (i, c) of a row-major 16 x 16 box (the codes as they are).
void box16x16_transposed(const uint8_t* sb, uint16_t* out, size_t ldo);

// Copies the R x C region starting at (r0, c0) of src into (0, 0) of dst element by element, any
// layouts, converting each element; rows of contiguous tiles are block copies.
void move_region(const TileDesc& dst, const TileDesc& src, int r0, int c0, int R, int C,
                 const Conversion& cv);

}  // namespace tilesim::pto::instr
