// The arguments of the vendors' kernel printf (Ascend C printf / PRINTF / ascendc_assert): each C++
// argument becomes a typed Arg here, so the formatter (src/core/debug_print.cpp) checks every
// conversion against the type it is given and never reads a C varargs list
// (docs/ascendc.md#debug-prints). A type printf cannot print is a compile-time error; a format that
// does not fit its arguments is a tilesim::Error at run time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include "tilesim/error.hpp"  // tilesim::Error, what formatting throws (issue 21 §5)
#include "tilesim/half.hpp"

namespace tilesim::debug {

struct Arg {
  enum class Kind : uint8_t { Int, Float, String, Pointer };
  Kind kind = Kind::Int;
  bool is_signed = false;
  uint8_t bytes = 0;      // Int: the argument's size
  const char* type = "";  // the argument's type, for messages ("int32_t", "half", "const char*")
  uint64_t bits = 0;      // Int: the value, sign-extended to 64 bits when signed
  double value = 0;       // Float
  const void* ptr = nullptr;  // String (a C string) and Pointer
};

namespace detail {
template <class T>
inline constexpr bool kAlwaysFalse = false;
template <class T>
constexpr const char* int_name() {
  if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_same_v<T, char>)
    return "char";
  else if constexpr (std::is_signed_v<T>)
    return sizeof(T) == 1   ? "int8_t"
           : sizeof(T) == 2 ? "int16_t"
           : sizeof(T) == 4 ? "int32_t"
                            : "int64_t";
  else
    return sizeof(T) == 1   ? "uint8_t"
           : sizeof(T) == 2 ? "uint16_t"
           : sizeof(T) == 4 ? "uint32_t"
                            : "uint64_t";
}
template <class C>
inline constexpr bool kCharLike = std::is_same_v<std::remove_cv_t<C>, char>;
}  // namespace detail

// The Arg of one printf argument.
template <class T>
Arg arg(const T& v) {
  using U = std::remove_cv_t<T>;
  Arg a;
  if constexpr (std::is_array_v<U>) {
    return arg(static_cast<const std::remove_extent_t<U>*>(v));
  } else if constexpr (std::is_enum_v<U>) {
    return arg(static_cast<std::underlying_type_t<U>>(v));
  } else if constexpr (std::is_integral_v<U>) {
    static_assert(
        sizeof(U) <= 8,
        "printf: integers of more than 64 bits are not printable [docs/ascendc.md#debug-prints]");
    a.kind = Arg::Kind::Int;
    a.is_signed = std::is_signed_v<U>;
    a.bytes = static_cast<uint8_t>(sizeof(U));
    a.type = detail::int_name<U>();
    if constexpr (std::is_signed_v<U>)
      a.bits = static_cast<uint64_t>(static_cast<int64_t>(v));
    else
      a.bits = static_cast<uint64_t>(v);
  } else if constexpr (std::is_floating_point_v<U>) {
    a.kind = Arg::Kind::Float;
    a.type = std::is_same_v<U, float>    ? "float"
             : std::is_same_v<U, double> ? "double"
                                         : "long double";
    a.value = static_cast<double>(v);
  } else if constexpr (std::is_same_v<U, tilesim::half> || std::is_same_v<U, tilesim::bfloat16>) {
    a.kind = Arg::Kind::Float;
    a.type = std::is_same_v<U, tilesim::half> ? "half" : "bfloat16_t";
    a.value = static_cast<double>(static_cast<float>(v));  // exact
  } else if constexpr (std::is_null_pointer_v<U>) {
    a.kind = Arg::Kind::Pointer;
    a.type = "nullptr_t";
  } else if constexpr (std::is_pointer_v<U> && detail::kCharLike<std::remove_pointer_t<U>>) {
    a.kind = Arg::Kind::String;
    a.type = "const char*";
    a.ptr = static_cast<const void*>(v);
  } else if constexpr (std::is_pointer_v<U> && std::is_object_v<std::remove_pointer_t<U>>) {
    a.kind = Arg::Kind::Pointer;
    a.type = "a pointer";
    a.ptr = const_cast<const void*>(static_cast<const volatile void*>(v));
  } else {
    static_assert(
        detail::kAlwaysFalse<U>,
        "printf: an argument must be an integer, a floating-point value (float, double, half, "
        "bfloat16_t), a C string or an object pointer [docs/ascendc.md#debug-prints]");
  }
  return a;
}

}  // namespace tilesim::debug
