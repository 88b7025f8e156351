// Ascend C's debug prints in the vendor's names (docs/ascendc.md#debug-prints): AscendC::printf and
// PRINTF, AscendC::DumpTensor of a LocalTensor or GlobalTensor (with or without a ShapeInfo), and
// ascendc_assert (the vendor path "kernel_operator.h" also makes `assert` this one). Inside
// ICPU_RUN_KF each print is prefixed "[AIV Block i/n] " and kept in its block's buffer; the launch
// writes the buffers to stdout in block order. -DASCENDC_DUMP=0 turns them all off, NDEBUG the
// asserts, as the vendor's switches do. Included by <tilesim/ascendc.hpp>.
// Throws tilesim::Error: a format that does not fit its arguments (Constraint), a dump beyond its
// tensor (Bounds), a failed assert (Fault).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "tilesim/ascendc.hpp"
#include "tilesim/debug_print.hpp"
#include "tilesim/error.hpp"

namespace tilesim::ascendc {

// printf / PRINTF ("printf" or "PRINTF" is `api`, named by errors).
void debug_printf(const char* api, const char* fmt, std::initializer_list<debug::Arg> args);

// A failed ascendc_assert: prints the vendor's "[ASSERT] file:line: function: Assertion `expr'
// failed." line (and the formatted message), then throws Error(Fault). `fmt` may be null.
[[noreturn]] void assert_failed(const char* expr, const char* file, unsigned line, const char* func,
                                const char* fmt, std::initializer_list<debug::Arg> args);
[[noreturn]] inline void assert_fail(const char* expr, const char* file, unsigned line,
                                     const char* func) {
  assert_failed(expr, file, line, func, nullptr, {});
}
template <class... A>
[[noreturn]] void assert_fail(const char* expr, const char* file, unsigned line, const char* func,
                              const char* fmt, const A&... args) {
  assert_failed(expr, file, line, func, fmt, {debug::arg(args)...});
}

// DumpTensor of `dump_size` elements of `m` (a UB tensor or a GM view) of type t; `bool_elems`:
// the tensor is of bool (printed 0 / 1, data_type=bool). `shape`: the ShapeInfo form's shape.
struct DumpShape {
  uint32_t dim = 0;
  const uint32_t* extents = nullptr;
};
void dump_tensor(const MemRef& m, formats::DType t, bool bool_elems, uint32_t desc,
                 uint32_t dump_size, const DumpShape* shape);

}  // namespace tilesim::ascendc

namespace AscendC {

inline constexpr uint32_t K_MAX_SHAPE_DIM = 8;

enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };

// A tensor's shape for DumpTensor's shaped form (at most K_MAX_SHAPE_DIM dimensions).
struct ShapeInfo {
  ShapeInfo() = default;
  ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[],
            const uint8_t inputOriginalShapeDim, const uint32_t inputOriginalShape[],
            const DataFormat inputFormat)
      : shapeDim(inputShapeDim), originalShapeDim(inputOriginalShapeDim), dataFormat(inputFormat) {
    check(inputShapeDim);
    check(inputOriginalShapeDim);
    for (uint32_t i = 0; i < shapeDim && i < K_MAX_SHAPE_DIM; ++i) shape[i] = inputShape[i];
    for (uint32_t i = 0; i < originalShapeDim && i < K_MAX_SHAPE_DIM; ++i)
      originalShape[i] = inputOriginalShape[i];
  }
  ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[], const DataFormat inputFormat)
      : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, inputFormat) {}
  ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[])
      : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, DataFormat::ND) {}

  uint8_t shapeDim = 0;
  uint8_t originalShapeDim = 0;
  uint32_t shape[K_MAX_SHAPE_DIM] = {};
  uint32_t originalShape[K_MAX_SHAPE_DIM] = {};
  DataFormat dataFormat = DataFormat::ND;

 private:
  static void check(uint8_t dim) {
    if (dim > K_MAX_SHAPE_DIM)
      tilesim::raise(tilesim::ErrorCode::Constraint, "ShapeInfo",
                     "shapeDim must be at most " + std::to_string(K_MAX_SHAPE_DIM) + ", got " +
                         std::to_string(dim),
                     "docs/ascendc.md#debug-prints");
  }
};

inline uint64_t GetShapeSize(const ShapeInfo& shapeInfo) {
  uint64_t n = 1;
  for (uint32_t i = 0; i < shapeInfo.shapeDim && i < K_MAX_SHAPE_DIM; ++i) n *= shapeInfo.shape[i];
  return n;
}

// printf and its older name PRINTF (docs/ascendc.md#debug-prints).
template <class... Args>
inline void printf(const char* fmt, Args&&... args) {
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0)
  tilesim::ascendc::debug_printf("printf", fmt, {tilesim::debug::arg(args)...});
#else
  (void)fmt;
  ((void)args, ...);
#endif
}
template <class... Args>
inline void PRINTF(const char* fmt, Args&&... args) {
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0)
  tilesim::ascendc::debug_printf("PRINTF", fmt, {tilesim::debug::arg(args)...});
#else
  (void)fmt;
  ((void)args, ...);
#endif
}

namespace detail {
template <class T>
constexpr tilesim::formats::DType dump_dtype() {
  if constexpr (std::is_same_v<T, bool>)
    return tilesim::formats::DType::u8;
  else
    return dtype_of<T>();
}
inline void dump(const tilesim::ascendc::MemRef& m, tilesim::formats::DType t, bool b,
                 uint32_t desc, uint32_t size, const ShapeInfo* s) {
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0)
  const tilesim::ascendc::DumpShape shape{s ? s->shapeDim : 0u, s ? s->shape : nullptr};
  tilesim::ascendc::dump_tensor(m, t, b, desc, size, s ? &shape : nullptr);
#else
  (void)m, (void)t, (void)b, (void)desc, (void)size, (void)s;
#endif
}
}  // namespace detail

// DumpTensor: "DumpTensor: desc=…, addr=…, data_type=…, position=…, dump_size=…" and the first
// dumpSize elements (docs/ascendc.md#debug-prints).
template <typename T>
void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
  detail::dump(detail::mem_ref(tensor), detail::dump_dtype<T>(), std::is_same_v<T, bool>, desc,
               dumpSize, nullptr);
}
template <typename T>
void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
  detail::dump(detail::mem_ref(tensor), detail::dump_dtype<T>(), std::is_same_v<T, bool>, desc,
               dumpSize, nullptr);
}
template <typename T>
void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                const ShapeInfo& shapeInfo) {
  detail::dump(detail::mem_ref(tensor), detail::dump_dtype<T>(), std::is_same_v<T, bool>, desc,
               dumpSize, &shapeInfo);
}
template <typename T>
void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize,
                const ShapeInfo& shapeInfo) {
  detail::dump(detail::mem_ref(tensor), detail::dump_dtype<T>(), std::is_same_v<T, bool>, desc,
               dumpSize, &shapeInfo);
}

}  // namespace AscendC

// ascendc_assert(expr) and ascendc_assert(expr, fmt, args...): on a false expr the block prints the
// vendor's [ASSERT] line and fails with tilesim::Error (docs/ascendc.md#debug-prints).
#undef ascendc_assert
#if (defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0) || defined(NDEBUG)
#define ascendc_assert(...) ((void)0)
#else
#define ascendc_assert(expr, ...)                                   \
  (static_cast<bool>(expr)                                          \
       ? void(0)                                                    \
       : ::tilesim::ascendc::assert_fail(#expr, __FILE__, __LINE__, \
                                         __PRETTY_FUNCTION__ __VA_OPT__(, ) __VA_ARGS__))
#endif
