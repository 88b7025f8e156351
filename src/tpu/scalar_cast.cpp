// tpu_cast / tpu_fp_cast / tpu_int_cast on scalar_t (spec 51 §3 "scalar"): the element-op core's
// one conversion routine (ops::cast_one, spec 15 §2) with the vendor's rounding modes.
#include <fmt/format.h>

#include "ops/cast.hpp"
#include "tpu/dtype.hpp"

namespace tilesim::tpu {

formats::Rounding rounding_of(int rm, const char* fn) {
  using formats::Rounding;
  // spec 15 §2 table, TPU column: RM_HALF_TO_EVEN .. RM_HALF_DOWN.
  static constexpr Rounding kModes[] = {Rounding::rne, Rounding::rna, Rounding::rtz, Rounding::rdn,
                                        Rounding::rup, Rounding::rhu, Rounding::rhd};
  if (rm < 0 || rm > 6)
    raise(ErrorCode::Unsupported, fn,
          fmt::format("rounding_mode_t {} is not one of RM_HALF_TO_EVEN (0) .. RM_HALF_DOWN (6)", rm),
          "docs/tpu.md#bdc-arithmetic");
  return kModes[rm];
}

uint32_t cast_scalar(const char* fn, uint32_t bits, int dst_dtype, int src_dtype, int rm, int kind) {
  auto core = [&](int dt, const char* what) -> const DTypeInfo& {
    const DTypeInfo* d = dtype_info(dt);
    if (!d || !ops::is_core_dtype(d->fmt) || d->bits == 20)
      raise(ErrorCode::Unsupported, fn,
            fmt::format("{} {} is not one of the cast types (INT8/UINT8, INT16/UINT16, INT32/UINT32, FP16, "
                        "BFP16, FP32)",
                        what, dtype_label(dt)),
            "docs/tpu.md#scalar-casts");
    return *d;
  };
  const DTypeInfo& to = core(dst_dtype, "dst_dtype");
  const DTypeInfo& from = core(src_dtype, "src_dtype");
  const bool src_float = from.kind == CmpKind::Float;
  if (kind == 1 && !src_float)
    raise(ErrorCode::Unsupported, fn, fmt::format("src_dtype {} is not a float type", dtype_label(src_dtype)),
          "docs/tpu.md#scalar-casts");
  if (kind == 2 && (src_float || to.kind == CmpKind::Float))
    raise(ErrorCode::Unsupported, fn,
          fmt::format("src_dtype {} and dst_dtype {} must both be integer types", dtype_label(src_dtype),
                      dtype_label(dst_dtype)),
          "docs/tpu.md#scalar-casts");
  ops::CastMode m;
  m.rounding = rounding_of(rm, fn);
  m.int_saturate = true;
  const uint64_t mask = from.bits == 32 ? 0xFFFFFFFFull : ((uint64_t{1} << from.bits) - 1);
  return static_cast<uint32_t>(ops::cast_one(from.fmt, to.fmt, bits & mask, m));
}

}  // namespace tilesim::tpu
