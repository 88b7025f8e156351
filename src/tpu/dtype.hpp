// data_type_t of the TPU-Kernel model (spec 50 §2): what each vendor value means to tilesim.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

#include "tilesim/formats.hpp"
#include "tilesim/tpu.hpp"

namespace tilesim::tpu {

enum class CmpKind : uint8_t { Signed, Unsigned, Float };

struct DTypeInfo {
  data_type_t dt;
  const char* vendor;  // "DT_FP32"
  formats::DType fmt;  // tilesim format (spec 10)
  uint8_t bits;        // 4, 8, 16, 20 or 32
  CmpKind kind;
};

// Floats: a code is NaN iff (code & mag_mask) > nan_above, the largest non-NaN magnitude; derived
// from the formats table so the NaN rule has one definition (spec 10 §1). {0, 0} for integers.
struct NanRule {
  uint32_t mag_mask, nan_above;
};
NanRule nan_rule(const DTypeInfo& d) noexcept;

// The stored value of a C enum argument, read without an enum-typed load: a C caller may pass any
// int in a data_type_t / var_type_t, which would be out of the C++ enum's range (no UB, spec 00).
template <class E>
inline int raw_enum(const E& e) noexcept {
  static_assert(sizeof(E) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// nullptr when `dt` is not one of the vendor's values.
const DTypeInfo* dtype_info(int dt) noexcept;
inline int dtype_bytes(const DTypeInfo& d) noexcept {
  return d.bits % 8 == 0 ? d.bits / 8 : 0;
}
// "DT_FP32 (fp32)" or "data_type_t 99" for an unknown value, for messages.
std::string dtype_label(int dt);

}  // namespace tilesim::tpu

namespace tilesim::tpu {
// rounding_mode_t (spec 51 §1) onto the formats core's modes (spec 15 §2 table); an out-of-range
// value is Error(Unsupported) naming `fn`.
formats::Rounding rounding_of(int rm, const char* fn);
// A scalar_t's bits converted from src_dtype to dst_dtype (spec 15 §2; integer destinations
// saturate). `kind`: 0 any (tpu_cast), 1 float source (tpu_fp_cast), 2 integer source (tpu_int_cast).
uint32_t cast_scalar(const char* fn, uint32_t bits, int dst_dtype, int src_dtype, int rm, int kind);
}  // namespace tilesim::tpu
