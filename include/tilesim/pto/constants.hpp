// The PTO library's named constants that kernels use (spec 60 §3), values as the vendor's
// include/pto/common/constants.hpp defines them, and the custom pad value helpers.
#pragma once
#include <bit>
#include <cstdint>

namespace pto {

constexpr int REPEAT_BYTE = 256;
constexpr uint64_t BLOCK_MAX_PER_REPEAT = 8;  // 256 / 32
constexpr int REPEAT_MAX = 255;
constexpr int BLOCK_BYTE_SIZE = 32;
constexpr int FIXP_BURST_UNIT_LEN = 64;
constexpr uint32_t SHIFT_BLOCK_LEN = 4;
constexpr uint32_t SHIFT_BLOCK_BYTE = 5;
constexpr uint32_t SHIFT_FRACTAL_BYTE = 9;
constexpr int REPEAT_STRIDE_MAX = 255;
constexpr uint32_t TMP_UB_SIZE = 8 * 1024;
constexpr uint32_t TMP_UB_OFFSET = 184 * 1024;
constexpr uint64_t MASK_LEN = 64;
constexpr int BLOCK_LEN = 16;
constexpr int CUBE_BLOCK_SIZE = 512;
constexpr int C0_SIZE_BYTE = 32;
constexpr int FRACTAL_NZ_ROW = 16;
constexpr int FRACTAL_ZZ_ROW = 16;
constexpr int ACC_C0_SIZE = 16;
constexpr uint32_t B4_C0_SIZE = 64;
constexpr int MX_COL_LEN = 2;
constexpr int MX_ROW_LEN = 16;
constexpr int MX_BLOCK_SIZE = 32;
constexpr int HIF4_COL_LEN = 4;
constexpr int HIF4_ROW_LEN = 16;
constexpr int HIF4_BLOCK_SIZE = 64;
constexpr int B8_DATA_TYPE_OFFSET = 8;
constexpr int MAD_MODE_BIT = 46;
constexpr int MAD_ROUND_MODE_BIT = 47;
constexpr int PAD_SHIFT_LENGTH = 32;

// Custom pad values: PadValue::CustomBase | the pad's code in its low bits (the tile dtype's
// width is taken from them: docs/pto-kernels.md#tload).
constexpr bool isCustomPadValue(PadValue pv) {
  return uint64_t(pv) >= uint64_t(PadValue::CustomBase);
}
constexpr uint32_t getCustomPadBits(PadValue pv) {
  return uint32_t(uint64_t(pv) & 0xFFFFFFFFull);
}
constexpr PadValue PadValueCustom(float v) {
  return PadValue(uint64_t(PadValue::CustomBase) | std::bit_cast<uint32_t>(v));
}
constexpr PadValue PadValueCustom(int32_t v) {
  return PadValue(uint64_t(PadValue::CustomBase) | uint32_t(v));
}
constexpr PadValue PadValueCustom(uint32_t v) {
  return PadValue(uint64_t(PadValue::CustomBase) | v);
}
constexpr PadValue PadValueCustom(int16_t v) {
  return PadValue(uint64_t(PadValue::CustomBase) | uint16_t(v));
}
constexpr PadValue PadValueCustom(int8_t v) {
  return PadValue(uint64_t(PadValue::CustomBase) | uint8_t(v));
}
constexpr PadValue PadValueCustom(uint8_t v) {
  return PadValue(uint64_t(PadValue::CustomBase) | v);
}
constexpr PadValue PadValueCustom16(uint16_t bits16) {
  return PadValue(uint64_t(PadValue::CustomBase) | bits16);
}
template <auto V>
inline constexpr PadValue PadCustom = PadValueCustom(V);

}  // namespace pto
