// Chip profiles and data types of the TPU-Kernel model (spec 50 §1, §2). Data tables only.
#include <fmt/format.h>

#include <cstring>

#include "tilesim/profile.hpp"
#include "tpu/dtype.hpp"

namespace tilesim::tpu {
namespace {

using formats::DType;

constexpr uint64_t bit(data_type_t d) {
  return uint64_t{1} << static_cast<unsigned>(d);
}
// spec 50 §2: the select instructions accept these on every chip ...
constexpr uint64_t kSelectBase = bit(DT_INT8) | bit(DT_UINT8) | bit(DT_INT16) | bit(DT_UINT16) |
                                 bit(DT_INT32) | bit(DT_UINT32) | bit(DT_FP16) | bit(DT_BFP16) |
                                 bit(DT_FP32);
// ... and fp8 on bm1690 only.
constexpr uint64_t kSelectFp8 = bit(DT_FP8E4M3) | bit(DT_FP8E5M2);

// spec 50 §1: name, NPU_NUM, LOCAL_MEM_SIZE, ALIGN_BYTES; the select dtypes (§2), the float
// compare rule (§3); LOCAL_MEM_BANKS and cores (spec 51 §1 table: tpu-mlir BM168x headers for
// NPU/EU/LMEM/banks, TPU1686 MAX_TPU_CORE_NUM and torch-tpu Matmul.cpp for the core counts).
constexpr ChipProfile kChips[] = {
    {"bm1684x", 64, 256 * 1024, 64, kSelectBase, FloatCompare::ieee, 16, 1},
    {"bm1688", 32, 128 * 1024, 16, kSelectBase, FloatCompare::ieee, 16, 2},
    {"bm1690", 64, 256 * 1024, 64, kSelectBase | kSelectFp8, FloatCompare::ieee, 16, 8},
};

// spec 50 §2 values.
constexpr DTypeInfo kDTypes[] = {
    {DT_UINT8, "DT_UINT8", DType::u8, 8, CmpKind::Unsigned},
    {DT_INT8, "DT_INT8", DType::s8, 8, CmpKind::Signed},
    {DT_FP16, "DT_FP16", DType::fp16, 16, CmpKind::Float},
    {DT_FP32, "DT_FP32", DType::fp32, 32, CmpKind::Float},
    {DT_UINT16, "DT_UINT16", DType::u16, 16, CmpKind::Unsigned},
    {DT_INT16, "DT_INT16", DType::s16, 16, CmpKind::Signed},
    {DT_UINT32, "DT_UINT32", DType::u32, 32, CmpKind::Unsigned},
    {DT_INT32, "DT_INT32", DType::s32, 32, CmpKind::Signed},
    {DT_BFP16, "DT_BFP16", DType::bf16, 16, CmpKind::Float},
    {DT_UINT4, "DT_UINT4", DType::u4, 4, CmpKind::Unsigned},
    {DT_INT4, "DT_INT4", DType::s4, 4, CmpKind::Signed},
    {DT_FP8E5M2, "DT_FP8E5M2", DType::e5m2, 8, CmpKind::Float},
    // FP20 has no tilesim format; it is only ever named in a rejection.
    {DT_FP20, "DT_FP20", DType::fp32, 20, CmpKind::Float},
    {DT_TF32, "DT_TF32", DType::tf32, 32, CmpKind::Float},
    {DT_FP8E4M3, "DT_FP8E4M3", DType::e4m3, 8, CmpKind::Float},
};

}  // namespace

std::span<const ChipProfile> chips() noexcept {
  return kChips;
}

const ChipProfile& find_chip(std::string_view name) {
  return find_profile<ChipProfile>(kChips, "TPU chip", name);
}

NanRule nan_rule(const DTypeInfo& d) noexcept {
  if (d.kind != CmpKind::Float) return {0, 0};
  // From the format's row (spec 10 §1): the magnitude is the code without its sign bit; the
  // largest non-NaN magnitude is Inf's (IEEE NaN: exponent all ones, mantissa != 0), all ones
  // but one (e4m3: only S.1111.111 is NaN) or all ones (no NaN code). Container bits below the
  // mantissa (tf32's man_shift) are not part of the value.
  const formats::FormatInfo& f = formats::info(d.fmt);
  const uint64_t mag = (uint64_t{1} << (f.code_bits - 1)) - 1;
  const unsigned man_pos = f.man_bits + f.man_shift;
  const uint64_t exp_all = ((uint64_t{1} << f.exp_bits) - 1) << man_pos;
  uint64_t above = mag;
  if (f.nan == formats::NanKind::Ieee) above = exp_all | ((uint64_t{1} << f.man_shift) - 1);
  if (f.nan == formats::NanKind::AllOnes) above = mag - 1;
  return {static_cast<uint32_t>(mag), static_cast<uint32_t>(above)};
}

const DTypeInfo* dtype_info(int dt) noexcept {
  for (const DTypeInfo& d : kDTypes)
    if (static_cast<int>(d.dt) == dt) return &d;
  return nullptr;
}

std::string dtype_label(int dt) {
  const DTypeInfo* d = dtype_info(dt);
  if (!d) return fmt::format("data_type_t {}", dt);
  if (d->dt == DT_FP20) return "DT_FP20 (fp20)";
  return fmt::format("{} ({})", d->vendor, formats::name(d->fmt));
}

const char* instruction_name(SelectOp op) noexcept {
  switch (op) {
    case SelectOp::Greater:
      return "tpu_bdc_greater_select";
    case SelectOp::Less:
      return "tpu_bdc_less_select";
    case SelectOp::Equal:
      return "tpu_bdc_equal_select";
    case SelectOp::MaximumGreater:
      return "tpu_bdc_maximum_greater_select";
    case SelectOp::MinimumLess:
      return "tpu_bdc_minimum_less_select";
  }
  return "tpu_bdc_select";
}

variable_t scalar_f32(float x) {
  variable_t v{};
  v.type = SCALAR;
  v.context.scalar.f32 = x;
  return v;
}

}  // namespace tilesim::tpu
