// The 5-bit data-type codes of BSTART.CUBE / B.DATR (spec 30 §2) and the TMATMUL operand classes
// (spec 30 §3).
#include <string>

#include "tilesim/linx.hpp"
#include "tilesim/profile.hpp"  // detail::iequals

namespace tilesim::linx {
namespace {
using D = DType;
// HiF8, E8M0, HiF4x2 are listed codes but not TMATMUL operands (matmul = false).
constexpr TypeCode kCodes[32] = {
    {0, "FP64", true, true, D::fp64},     {1, "FP32", true, true, D::fp32},
    {2, "TF32", true, true, D::tf32},     {3, "HF32", true, true, D::hf32},
    {4, "FP16", true, true, D::fp16},     {5, "BF16", true, true, D::bf16},
    {6, "HiF8", true, false, D::fp32},    {7, "E4M3", true, true, D::e4m3},
    {8, "E5M2", true, true, D::e5m2},     {9, "E3M2", true, true, D::e3m2},
    {10, "E2M3", true, true, D::e2m3},    {11, "E2M1x2", true, true, D::e2m1},
    {12, "E1M2x2", true, true, D::e1m2},  {13, "E8M0", true, false, D::e8m0},
    {14, "HiF4x2", true, false, D::fp32}, {15, "15", false, false, D::fp32},
    {16, "S64", true, true, D::s64},      {17, "S32", true, true, D::s32},
    {18, "S16", true, true, D::s16},      {19, "S8", true, true, D::s8},
    {20, "S4x2", true, true, D::s4},      {21, "21", false, false, D::fp32},
    {22, "22", false, false, D::fp32},    {23, "23", false, false, D::fp32},
    {24, "U64", true, true, D::u64},      {25, "U32", true, true, D::u32},
    {26, "U16", true, true, D::u16},      {27, "U8", true, true, D::u8},
    {28, "U4x2", true, true, D::u4},      {29, "29", false, false, D::fp32},
    {30, "30", false, false, D::fp32},    {31, "31", false, false, D::fp32},
};

}  // namespace

const TypeCode& type_code(unsigned code) { return kCodes[code & 31]; }

bool parse_type_name(std::string_view s, unsigned& code) noexcept {
  for (const TypeCode& t : kCodes)
    if (t.known && tilesim::detail::iequals(s, t.name)) { code = t.code; return true; }
  return false;
}

bool matmul_operand(DType t) noexcept {
  for (const TypeCode& c : kCodes)
    if (c.matmul && c.dtype == t) return true;
  return false;
}

DType acc_type(DType t) noexcept {
  switch (formats::info(t).kind) {
    case formats::Kind::Float: return D::fp32;
    case formats::Kind::Signed: return D::s32;
    default: return D::u32;
  }
}

}  // namespace tilesim::linx
