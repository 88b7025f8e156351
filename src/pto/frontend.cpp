// The PTO front ends' shared conversions (include/tilesim/pto/frontend.hpp): scalar literals to
// codes through the formats core, mode names, tmp forms and default destinations. No rule of an
// instruction is checked here; the engine checks every one (spec 70 item 6).
#include "tilesim/pto/frontend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cfenv>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"

namespace tilesim::pto::fe {
namespace {

constexpr const char* kDoc = "docs/pto.md#scalars-and-modes";

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// Drops a "Prefix::" (any case) from a mode name.
std::string_view strip(std::string_view s, std::string_view prefix) {
  if (s.size() > prefix.size() && iequal(s.substr(0, prefix.size()), prefix))
    s.remove_prefix(prefix.size());
  return s;
}

formats::DType core(Elem e) {
  return formats::parse_dtype(elem_name(e), "PTO scalar");
}

// Fewest elements >= want (at least one) whose bytes are a whole number of 32-byte blocks: the
// alignment of a NoneBox row (RowMajor) or column (ColMajor), spec 20 §1.
int aligned(int want, Elem e) {
  const int per_block = int(32 / elem_size(e));
  const int blocks = want <= 0 ? 1 : (want + per_block - 1) / per_block;
  return blocks * per_block;
}

}  // namespace

const char* kind_name(Kind k) noexcept {
  switch (k) {
    case Kind::Binary: return "Binary";
    case Kind::BinaryTmp: return "BinaryTmp";
    case Kind::Unary: return "Unary";
    case Kind::UnaryRsqrt: return "UnaryRsqrt";
    case Kind::Scalar: return "Scalar";
    case Kind::ScalarDiv: return "ScalarDiv";
    case Kind::ScalarTmp: return "ScalarTmp";
    case Kind::LeakyRelu: return "LeakyRelu";
    case Kind::Axpy: return "Axpy";
    case Kind::ExpandScalar: return "ExpandScalar";
    case Kind::Compare: return "Compare";
    case Kind::CompareScalar: return "CompareScalar";
    case Kind::Select: return "Select";
    case Kind::SelectScalar: return "SelectScalar";
    case Kind::RowReduce: return "RowReduce";
    case Kind::ColReduce: return "ColReduce";
    case Kind::RowArg: return "RowArg";
    case Kind::ColArg: return "ColArg";
    case Kind::RowExpand: return "RowExpand";
    case Kind::ColExpand: return "ColExpand";
    case Kind::ColExpandOp: return "ColExpandOp";
    case Kind::Convert: return "Convert";
    case Kind::Load: return "Load";
    case Kind::Store: return "Store";
    case Kind::Prefetch: return "Prefetch";
    case Kind::Move: return "Move";
    case Kind::Transpose: return "Transpose";
    case Kind::Extract: return "Extract";
    case Kind::Reshape: return "Reshape";
    case Kind::FillPad: return "FillPad";
    case Kind::Matmul: return "Matmul";
    case Kind::MatmulAcc: return "MatmulAcc";
    case Kind::MatmulBias: return "MatmulBias";
    case Kind::Gather: return "Gather";
    case Kind::Scatter: return "Scatter";
  }
  return "?";
}

uint64_t scalar_code(std::string_view literal, Elem e, std::string_view who) {
  const std::string lit(literal);
  const auto fail = [&](const std::string& detail) {
    raise(ErrorCode::Constraint, who, detail, kDoc);
  };
  const unsigned bits = unsigned(elem_size(e) * 8);
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  // Integer syntax: [+-] (0x HEX | DEC).
  size_t p = 0;
  const bool neg = !lit.empty() && lit[0] == '-';
  if (!lit.empty() && (lit[0] == '-' || lit[0] == '+')) p = 1;
  const bool hex = lit.size() > p + 2 && lit[p] == '0' && (lit[p + 1] == 'x' || lit[p + 1] == 'X');
  const size_t digits = hex ? p + 2 : p;
  bool is_int = digits < lit.size();
  for (size_t i = digits; i < lit.size() && is_int; ++i)
    is_int = hex ? std::isxdigit(static_cast<unsigned char>(lit[i])) != 0
                 : std::isdigit(static_cast<unsigned char>(lit[i])) != 0;
  uint64_t mag = 0;
  bool too_big = false;
  if (is_int) {
    const auto r = std::from_chars(lit.data() + digits, lit.data() + lit.size(), mag, hex ? 16 : 10);
    too_big = r.ec == std::errc::result_out_of_range;
  }
  const std::string name = elem_name(e);

  if (!elem_is_float(e)) {
    if (!is_int) fail(fmt::format("an {} scalar must be an integer, got '{}'", name, lit));
    const bool is_signed = e == Elem::s8 || e == Elem::s16 || e == Elem::s32 || e == Elem::s64;
    if (hex && p == 0) {  // a bit pattern of the dtype's width
      if (too_big || (mag & ~mask) != 0)
        fail(fmt::format("hex scalar '{}' does not fit the {} bits of {}", lit, bits, name));
      return mag;
    }
    const uint64_t max_pos = is_signed ? (mask >> 1) : mask;
    const uint64_t max_neg = is_signed ? (mask >> 1) + 1 : 0;
    if (too_big || (neg ? mag > max_neg : mag > max_pos)) {
      const std::string lo = is_signed ? fmt::format("-{}", max_neg) : "0";
      fail(fmt::format("scalar {} is out of range for {} ({}..{})", lit, name, lo, max_pos));
    }
    return (neg ? (~mag + 1) : mag) & mask;  // two's complement of the value, the dtype's code
  }

  if (is_int && hex && p == 0) {  // "0x3F80": the code itself (MLIR's bit-pattern float literal)
    if (too_big || (mag & ~mask) != 0)
      fail(fmt::format("hex code '{}' does not fit the {} bits of {}", lit, bits, name));
    return mag;
  }
  // A value: decimal or hex float, integer, inf, nan. Read twice, rounded down and up to double:
  // equal, the literal is that double; else it lies strictly between two neighbours lo < hi, and
  // when they round to different codes of T the rounding boundary of T between them (a midpoint
  // or the overflow threshold, both doubles for fp32/fp16/bf16) is lo or hi itself. T's RNE
  // takes a boundary to the even one of its two neighbours: lo rounding to an even code means lo
  // is the boundary and the literal, above it, rounds up (hi's code); else it rounds down.
  // So the literal is rounded once, as spec 60 §4 asks, without a decimal reader of our own.
  const char* b = lit.c_str();
  if (lit.empty() || std::isspace(static_cast<unsigned char>(lit[0])))
    fail(fmt::format("expected a number for a {} scalar, got '{}'", name, lit));
  char* end = nullptr;
  const int old_round = std::fegetround();
  std::fesetround(FE_DOWNWARD);
  const double lo = std::strtod(b, &end);
  const bool whole = end == b + lit.size();
  std::fesetround(FE_UPWARD);
  const double hi = std::strtod(b, nullptr);
  std::fesetround(old_round);
  if (!whole) fail(fmt::format("expected a number for a {} scalar, got '{}'", name, lit));
  const formats::DType dt = core(e);
  const uint64_t clo = formats::encode(lo, dt), chi = formats::encode(hi, dt);
  if (clo == chi || std::isnan(lo)) return clo;
  return (clo & 1) == 0 ? chi : clo;
}

uint8_t parse_cmp(std::string_view name) {
  static constexpr const char* kShort[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  static constexpr const char* kLong[] = {"equal",     "not_equal",    "less_than",
                                          "less_equal", "greater_than", "greater_equal"};
  const std::string_view n = strip(name, "CmpMode::");
  for (uint8_t k = 0; k < 6; ++k)
    if (iequal(n, kShort[k]) || iequal(n, kLong[k])) return k;
  raise(ErrorCode::Constraint, "CmpMode",
        fmt::format("unknown compare mode '{}' (EQ NE LT LE GT GE, any case; also CmpMode::LT, "
                    "less_than)",
                    name),
        kDoc);
}

uint8_t parse_round(std::string_view name) {
  static constexpr const char* kNames[] = {"NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD"};
  const std::string_view n = strip(strip(name, "RoundMode::"), "CAST_");
  for (uint8_t k = 0; k < 7; ++k)
    if (iequal(n, kNames[k])) return k;
  raise(ErrorCode::Constraint, "RoundMode",
        fmt::format("unknown rounding mode '{}' (NONE RINT ROUND FLOOR CEIL TRUNC ODD, any case; "
                    "also CAST_RINT, RoundMode::CAST_RINT)",
                    name),
        kDoc);
}

int8_t parse_sat(std::string_view name) {
  const std::string_view n = strip(name, "SaturationMode::");
  if (iequal(n, "ON")) return 0;
  if (iequal(n, "OFF")) return 1;
  raise(ErrorCode::Constraint, "SaturationMode",
        fmt::format("unknown saturation mode '{}' (ON OFF, any case; also SaturationMode::OFF)",
                    name),
        kDoc);
}

uint8_t parse_mask_pattern(std::string_view name) {
  static constexpr const char* kNames[] = {"P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111"};
  const std::string_view n = strip(name, "MaskPattern::");
  for (uint8_t k = 0; k < 7; ++k)
    if (iequal(n, kNames[k])) return uint8_t(k + 1);
  raise(ErrorCode::Constraint, "MaskPattern",
        fmt::format("unknown mask pattern '{}' (P0101 P1010 P0001 P0010 P0100 P1000 P1111; also "
                    "MaskPattern::P0101)",
                    name),
        "docs/pto-instructions.md#gather-and-scatter");
}

bool has_tmp_form(const InstrInfo& info) noexcept {
  switch (info.kind) {
    case Kind::BinaryTmp:
    case Kind::UnaryRsqrt:
    case Kind::ScalarTmp:
    case Kind::Select:
    case Kind::SelectScalar:
    case Kind::RowReduce:
    case Kind::RowArg:
    case Kind::ColArg:
    case Kind::Convert:
      return true;
    case Kind::ColReduce:  // the C++ tmp overload exists for TCOLSUM only (tilesim/pto.hpp)
      return info.id == Instr::TCOLSUM;
    default:
      return false;
  }
}

bool scalar_is_dst_dtype(Kind k) noexcept {
  return k == Kind::ExpandScalar;
}

bool needs_scratch_tmp(Kind k) noexcept {
  return k == Kind::RowReduce || k == Kind::RowArg || k == Kind::ColArg;
}

DstSpec scratch_tmp(const TileDesc& src) {
  DstSpec d;
  d.dtype = src.dtype;
  d.rows = d.valid_row = std::max(src.rows, 1);
  d.cols = d.valid_col = aligned(src.cols + int(2 * 256 / elem_size(src.dtype)), src.dtype);
  return d;
}

DstSpec default_dst(const InstrInfo& info, const Target& t, const TileDesc& src0,
                    const TileDesc* src1, int extent, Elem dtype) {
  DstSpec d;
  d.dtype = src0.dtype;
  d.rows = src0.rows;
  d.cols = src0.cols;
  d.valid_row = src0.valid_row;
  d.valid_col = src0.valid_col;
  const auto need_extent = [&](const char* what) {
    if (extent < 0)
      raise(ErrorCode::Constraint, info.name,
            fmt::format("without a dst, the {} count of the result must be given", what),
            "docs/pto.md#python");
  };
  switch (info.kind) {
    case Kind::ExpandScalar:
      raise(ErrorCode::Constraint, info.name,
            "without a dst, the shape and dtype of the result must be given", "docs/pto.md#python");
    case Kind::Compare:
    case Kind::CompareScalar: {  // spec 60 §4: the packed mask of spec 21 §2
      d.dtype = t.kind == TargetKind::a5 ? Elem::u32 : Elem::u8;
      const int w = t.kind == TargetKind::a5 ? 32 : 8;
      d.valid_col = (src0.valid_col + w - 1) / w;
      d.cols = aligned(d.valid_col, d.dtype);
      break;
    }
    case Kind::RowReduce:
    case Kind::RowArg:  // (R, 1) ColMajor; the argmax indices int32
      if (info.kind == Kind::RowArg) d.dtype = Elem::s32;
      d.row_major = false;
      d.rows = aligned(src0.rows, d.dtype);
      d.cols = 1;
      d.valid_col = 1;
      break;
    case Kind::ColReduce:
    case Kind::ColArg:  // (1, C) RowMajor
      if (info.kind == Kind::ColArg) d.dtype = Elem::s32;
      d.rows = 1;
      d.cols = aligned(src0.cols, d.dtype);
      d.valid_row = 1;
      break;
    case Kind::RowExpand:
      need_extent("column");
      d.cols = d.valid_col = extent;
      break;
    case Kind::ColExpand:
      need_extent("row");
      d.rows = d.valid_row = extent;
      break;
    case Kind::ColExpandOp:
      // spec 60 §4: the expanded operand is the source with validRow 1 if exactly one has it,
      // else src1; dst is shaped like the other (the full operand).
      if (src1 && src0.valid_row == 1 && src1->valid_row != 1) {
        d.rows = src1->rows;
        d.cols = src1->cols;
        d.valid_row = src1->valid_row;
        d.valid_col = src1->valid_col;
        d.dtype = src1->dtype;
      }
      break;
    case Kind::Convert:
      d.dtype = dtype;
      d.cols = aligned(src0.cols, dtype);
      break;
    default:  // shaped like src0
      break;
  }
  return d;
}

}  // namespace tilesim::pto::fe
