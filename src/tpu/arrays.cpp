// Array-level compare-select: placement of host arrays in local memory (spec 50 §5: every operand
// at start NPU 0, 64-byte aligned layout), then the engine's own Device calls.
#include "tpu/arrays.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <vector>

#include "tilesim/formats.hpp"
#include "tpu/dtype.hpp"
#include "tpu/layout.hpp"

namespace tilesim::tpu {

namespace {
const char* py_name(SelectOp op) {
  switch (op) {
    case SelectOp::Greater:
      return "tilesim.tpu.greater_select";
    case SelectOp::Less:
      return "tilesim.tpu.less_select";
    case SelectOp::Equal:
      return "tilesim.tpu.equal_select";
    case SelectOp::MaximumGreater:
      return "tilesim.tpu.maximum_greater_select";
    case SelectOp::MinimumLess:
      return "tilesim.tpu.minimum_less_select";
  }
  return "tilesim.tpu";
}
}  // namespace

int data_type_bytes(data_type_t dt) {
  const DTypeInfo* d = dtype_info(raw_enum(dt));
  return d ? dtype_bytes(*d) : 0;
}

data_type_t parse_data_type(std::string_view name) {
  static constexpr data_type_t kAll[] = {DT_UINT8, DT_INT8,    DT_FP16,  DT_FP32,  DT_UINT16,
                                         DT_INT16, DT_UINT32,  DT_INT32, DT_BFP16, DT_UINT4,
                                         DT_INT4,  DT_FP8E5M2, DT_FP20,  DT_TF32,  DT_FP8E4M3};
  for (data_type_t dt : kAll) {
    std::string_view v = dtype_info(dt)->vendor;
    if (v.size() == name.size() && std::equal(v.begin(), v.end(), name.begin(), [](char a, char b) {
          return std::toupper(static_cast<unsigned char>(a)) ==
                 std::toupper(static_cast<unsigned char>(b));
        }))
      return dt;
  }
  const formats::DType f = formats::parse_dtype(name, "tilesim.tpu dtype");
  for (data_type_t dt : kAll)
    if (dt != DT_FP20 && dtype_info(dt)->fmt == f) return dt;
  raise(ErrorCode::Unsupported, "tilesim.tpu",
        fmt::format("dtype '{}' ({}) has no TPU-Kernel data_type_t", name, formats::name(f)),
        "docs/tpu.md#python");
}

uint32_t scalar_code(double value, data_type_t dt, std::string_view what, std::string_view operand,
                     int64_t index) {
  const DTypeInfo* d = dtype_info(raw_enum(dt));
  if (!d || !dtype_bytes(*d))
    raise(ErrorCode::Unsupported, what,
          fmt::format("dtype {} has no scalar form", dtype_label(raw_enum(dt))), "docs/tpu.md#python");
  const formats::FormatInfo& f = formats::info(d->fmt);
  // A NaN given as a number of another format has no exact image; it becomes the destination
  // format's canonical quiet NaN (spec 00 Numerics) and keeps its sign, the one NaN bit every
  // format has. A NaN in the operand's own format arrives as bits and never comes here.
  if (std::isnan(value) && d->kind == CmpKind::Float && f.nan != formats::NanKind::None) {
    const uint64_t sign = std::signbit(value) ? uint64_t{1} << (f.code_bits - 1) : 0;
    return static_cast<uint32_t>(f.canonical_nan | sign);
  }
  const uint64_t code = formats::encode(value, d->fmt);
  const double back = formats::decode(code, d->fmt);
  const bool exact =
      back == value && (d->kind != CmpKind::Float || std::signbit(back) == std::signbit(value));
  if (!exact)
    raise(ErrorCode::Constraint, what,
          fmt::format("{} {}{} is not exactly representable in {}", operand, value,
                      index < 0 ? std::string() : fmt::format(" (element {})", index),
                      dtype_label(raw_enum(dt))),
          "docs/tpu.md#python");
  return static_cast<uint32_t>(code);
}

void select_arrays(std::string_view chip, SelectOp op, const HostOperand src[4], const dim4& shape,
                   data_type_t dtype_a, data_type_t dtype_b, OutputAlloc alloc, void* ctx) {
  Device dev(chip);
  const char* what = py_name(op);
  const bool ext = op == SelectOp::MaximumGreater || op == SelectOp::MinimumLess;
  // dtype and shape problems are reported by the engine's own checks; placement needs sizes.
  const int ea = data_type_bytes(dtype_a), eb = data_type_bytes(dtype_b);
  for (int d : {shape.n, shape.c, shape.h, shape.w})
    if (d < 1 || d > 65535 || !ea || !eb) {
      // Let the engine name the rule (shape range / dtype) with nothing placed.
      const variable_t s = tensor(0);
      dev.select(op, 0, 0, &s, &s, &s, &s, &shape, dtype_a, dtype_b);
    }
  const int64_t N = shape.n, C = shape.c, H = shape.h, W = shape.w;
  // 65535^4 elements overflow int64: multiply checked, never into signed overflow (spec 00).
  int64_t elems = 0;
  if (__builtin_mul_overflow(N, C, &elems) || __builtin_mul_overflow(elems, H, &elems) ||
      __builtin_mul_overflow(elems, W, &elems))
    raise(ErrorCode::Bounds, what,
          fmt::format("shape [{}, {}, {}, {}] has more than 2^63 - 1 elements (N*C*H*W "
                      "overflows int64); no operand of it fits LOCAL_MEM_SIZE {} ({})",
                      N, C, H, W, dev.local_mem_size(), dev.profile().name),
          "docs/tpu.md#python");
  const size_t total = static_cast<size_t>(elems);
  const int A = dev.align_bytes(), NPU = dev.npu_num();
  int64_t cursor = 0;
  auto place_tensor = [&](int e) {
    const Strides s = aligned_strides(0, C, H, W, e, A, NPU);
    const int64_t at = cursor;
    cursor = align_up(at + tensor_extent_bytes(s, 0, N, C, H, W, e, NPU), A);
    return at;
  };
  const int64_t vec_len = std::min<int64_t>(C, NPU);
  variable_t v[4];
  int64_t at[4] = {};
  for (int i = 0; i < 4; ++i) {
    const int e = i < 2 ? ea : eb;
    switch (src[i].kind) {
      case TENSOR:
        if (src[i].count != total)
          raise(ErrorCode::Constraint, what,
                fmt::format("src{} has {} elements, the shape [{}, {}, {}, {}] needs {}", i,
                            src[i].count, N, C, H, W, total),
                "docs/tpu.md#python");
        at[i] = place_tensor(e);
        v[i] = tensor(static_cast<local_addr_t>(at[i]));
        break;
      case VECTOR:
        if (static_cast<int64_t>(src[i].count) < vec_len)
          raise(ErrorCode::Constraint, what,
                fmt::format("src{} vector has {} values, needs at least min(C, NPU_NUM) = {}", i,
                            src[i].count, vec_len),
                "docs/tpu.md#python");
        at[i] = cursor;
        cursor = align_up(cursor + e, A);
        v[i] = vector(static_cast<local_addr_t>(at[i]));
        break;
      case SCALAR:
        v[i] = scalar_bits(src[i].bits);
        break;
    }
  }
  const int64_t d0 = place_tensor(ext ? ea : eb);
  const int64_t d1 = ext ? place_tensor(eb) : 0;
  if (cursor > static_cast<int64_t>(dev.local_mem_size()))
    raise(ErrorCode::Bounds, what,
          fmt::format("the operands need {} bytes per NPU, LOCAL_MEM_SIZE is {} ({})", cursor,
                      dev.local_mem_size(), dev.profile().name),
          "docs/tpu.md#python");
  for (int i = 0; i < 4; ++i) {
    const data_type_t dt = i < 2 ? dtype_a : dtype_b;
    if (src[i].kind == TENSOR)
      dev.gdma_cpy_S2L(static_cast<local_addr_t>(at[i]), src[i].data, &shape, nullptr, nullptr, dt);
    if (src[i].kind == VECTOR) {
      const dim4 vs{1, static_cast<int>(vec_len), 1, 1};
      dev.gdma_cpy_S2L(static_cast<local_addr_t>(at[i]), src[i].data, &vs, nullptr, nullptr, dt);
    }
  }
  dev.select(op, static_cast<local_addr_t>(d0), static_cast<local_addr_t>(d1), &v[0], &v[1], &v[2],
             &v[3], &shape, dtype_a, dtype_b);
  dev.gdma_cpy_L2S(alloc(ctx, 0), static_cast<local_addr_t>(d0), &shape, nullptr, nullptr,
                   ext ? dtype_a : dtype_b);
  if (ext)
    dev.gdma_cpy_L2S(alloc(ctx, 1), static_cast<local_addr_t>(d1), &shape, nullptr, nullptr,
                     dtype_b);
}

}  // namespace tilesim::tpu
