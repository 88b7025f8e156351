// The vendor include path "acl/acl.h" as far as CPU-debug sample mains use it (the samples'
// data_utils.h includes it unconditionally): aclError and its success code, and the fp16 value
// type with its conversions (through tilesim's format core). No runtime (aclInit, aclrtMalloc,
// streams): kernels run through ICPU_RUN_KF (docs/ascendc.md#launch).
#pragma once
#include <cstdint>

#include "tilesim/formats.hpp"

typedef int aclError;
#ifndef ACL_SUCCESS
#define ACL_SUCCESS 0
#endif
#ifndef ACL_ERROR_NONE
#define ACL_ERROR_NONE 0
#endif
typedef uint16_t aclFloat16;
inline float aclFloat16ToFloat(aclFloat16 value) {
  return tilesim::formats::f16_to_f32(value);
}
inline aclFloat16 aclFloatToFloat16(float value) {
  return tilesim::formats::f32_to_f16(value);
}
