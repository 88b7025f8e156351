// Kernel-side tiling macros of the vendor (spec 41 §1.1), each defined once under #ifndef of its
// own name so that an op's header that defines one first (or #undefs and redefines it) keeps its own.
#pragma once
#include <type_traits>

#include "tilesim/ascendc/launch.hpp"

// What GET_TILING_DATA reads without a REGISTER_TILING_DEFAULT in scope.
struct tilesim_no_tiling_default;
using tilesim_tiling_default_t = tilesim_no_tiling_default;

#ifndef GET_TILING_DATA_WITH_STRUCT
#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg)                           \
  static_assert(std::is_trivially_copyable_v<tiling_struct>,                                           \
                "GET_TILING_DATA_WITH_STRUCT: the tiling struct must be trivially copyable "           \
                "[docs/ascendc.md#tiling]");                                                           \
  tiling_struct tiling_data;                                                                           \
  ::tilesim::ascendc::tiling_copy(&tiling_data, sizeof(tiling_struct), (tiling_arg), "GET_TILING_DATA")
#endif

#ifndef REGISTER_TILING_DEFAULT
#define REGISTER_TILING_DEFAULT(tiling_struct) using tilesim_tiling_default_t = tiling_struct
#endif

#ifndef REGISTER_TILING_FOR_TILINGKEY
#define REGISTER_TILING_FOR_TILINGKEY(expr, tiling_struct) static_assert(true)
#endif

#ifndef GET_TILING_DATA
#define GET_TILING_DATA(tiling_data, tiling_arg)                                                       \
  static_assert(!std::is_same_v<tilesim_tiling_default_t, tilesim_no_tiling_default>,                  \
                "GET_TILING_DATA: no REGISTER_TILING_DEFAULT(S) before it in this function, and the "  \
                "op's tiling header defines no GET_TILING_DATA [docs/ascendc.md#tiling]");             \
  GET_TILING_DATA_WITH_STRUCT(tilesim_tiling_default_t, tiling_data, tiling_arg)
#endif

#ifndef GET_TILING_DATA_MEMBER
#define GET_TILING_DATA_MEMBER(tiling_struct, member, var, tiling_arg)                                 \
  decltype(tiling_struct::member) var;                                                                 \
  {                                                                                                    \
    GET_TILING_DATA_WITH_STRUCT(tiling_struct, tilesim_member_src_, tiling_arg);                       \
    var = tilesim_member_src_.member;                                                                  \
  }                                                                                                    \
  static_assert(true)
#endif

#ifndef GET_TILING_DATA_PTR_WITH_STRUCT
#define GET_TILING_DATA_PTR_WITH_STRUCT(tiling_struct, dst_ptr, tiling_arg)                            \
  GET_TILING_DATA_WITH_STRUCT(tiling_struct, tilesim_tiling_copy_##dst_ptr, tiling_arg);               \
  const tiling_struct* dst_ptr = &tilesim_tiling_copy_##dst_ptr
#endif

#ifndef TILING_KEY_IS
#define TILING_KEY_IS(k) (::tilesim::ascendc::tiling_key() == static_cast<uint64_t>(k))
#endif
