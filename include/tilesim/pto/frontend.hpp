// What the PTO front ends other than C++ (PTO-AS text, Python, the CLI) share when they turn their
// arguments into an engine Call (spec 60 §4, spec 21 §3): scalar literals as codes of a dtype,
// the names of the compare / rounding / saturation modes, the tmp forms of an instruction, and the
// shape of a destination the caller did not give. Conversions only: every rule and all
// arithmetic stay in the engine (spec 70 item 6).
#pragma once
#include <cstdint>
#include <string_view>

#include "tilesim/pto/engine.hpp"

namespace tilesim::pto::fe {

// The name of an operand shape ("Binary", "ScalarDiv", ...), as in `enum class Kind`.
const char* kind_name(Kind k) noexcept;

// A scalar literal read as dtype `e` (docs/pto.md#scalars-and-modes), returned as its code:
//   integer dtypes: a decimal integer in range ("-3"), or a hex bit pattern of at most the
//     dtype's width ("0xFFFF" for s16 is -1); "-0x10" is the value -16;
//   float dtypes: a decimal or hex float, an integer, "inf" or "nan" (optional sign), rounded
//     once (RNE) to the dtype; an unsigned hex integer without '.' or 'p' ("0x3F80") is the code.
// Raises Error(Constraint) naming `who` (the instruction) otherwise.
uint64_t scalar_code(std::string_view literal, Elem e, std::string_view who);

// Mode names, any case. CmpMode: EQ NE LT LE GT GE, also "CmpMode::LT" and PTOAS's "less_than"
// spellings -> 0..5. RoundMode: NONE RINT ROUND FLOOR CEIL TRUNC ODD, also "CAST_RINT" and
// "RoundMode::CAST_RINT" -> 0..6. SaturationMode: ON OFF, also "SaturationMode::OFF" -> 0, 1.
// Raise Error(Constraint) listing the names otherwise.
uint8_t parse_cmp(std::string_view name);
uint8_t parse_round(std::string_view name);
int8_t parse_sat(std::string_view name);
// MaskPattern: P0101 P1010 P0001 P0010 P0100 P1000 P1111, also "MaskPattern::P0101" -> 1..7.
uint8_t parse_mask_pattern(std::string_view name);

// Whether an instruction takes a tmp operand in some C++ overload (tilesim/pto.hpp): the kinds
// with a tmp form, and of the column reductions TCOLSUM only.
bool has_tmp_form(const InstrInfo& info) noexcept;
// The tile a scalar operand is read as (its dtype): dst for TEXPANDS, src0 otherwise.
bool scalar_is_dst_dtype(Kind k) noexcept;

// A tile a front end creates: dtype, storage shape, layout and valid shape.
struct DstSpec {
  Elem dtype = Elem::f32;
  int rows = 0, cols = 0;
  int valid_row = 0, valid_col = 0;
  bool row_major = true;
};

// The instructions whose every C++ overload takes a tmp and whose engine needs one on a2a3 (the
// row and the arg reductions): a front end given no tmp passes a scratch tile of this shape —
// src's dtype and rows, RowMajor, src's columns plus two 256-byte repeats, which meets every a2a3
// tmp rule of those pages. tmp's contents never change a result (spec 60 §4 tmp=None). For the
// other kinds with a tmp form the engine takes the call without one (tmp = nullptr).
bool needs_scratch_tmp(Kind k) noexcept;
DstSpec scratch_tmp(const TileDesc& src);

// The destination a front end creates when the caller gives none (spec 60 §4 `dst=None`, and the
// valid shape of a PTO-AS SSA result).
// src0 is the instruction's first source (the value source of TSEL/TSELS, src of the reductions),
// src1 its second tile source or nullptr. `extent` is the column count of TROWEXPAND's dst and the
// row count of TCOLEXPAND's (-1: none given, an error for them); `dtype` TCVT's destination dtype.
// Raises Error(Constraint) for TEXPANDS (no source) and for an expand without an extent.
DstSpec default_dst(const InstrInfo& info, const Target& t, const TileDesc& src0,
                    const TileDesc* src1, int extent = -1, Elem dtype = Elem::f32);

}  // namespace tilesim::pto::fe
