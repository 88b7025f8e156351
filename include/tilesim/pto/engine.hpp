// The PTO engine's runtime interface (spec 20): a tile is a plain descriptor (dtype, shape,
// layout, valid shape, storage); targets are rows of a data table; one entry point runs any of
// the seven TROWEXPAND* ops. The C++ template (tilesim/pto.hpp), Python and PTO-AS all call it,
// so there is one implementation. Kept light: it is included by every kernel translation unit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace tilesim::pto {

// Element types of spec 20 §2 (the union over targets).
enum class Elem : uint8_t { f16, bf16, f32, s8, s16, s32, u8, u16, u32 };
inline constexpr int kNumElems = 9;

// The Elem of a C++ element type carried by value: float and the integer types. The 16-bit float
// carriers (pto::half, pto::bfloat16_t) are mapped by the front end, which owns those types.
template <class T>
constexpr Elem elem_of_value() {
  if constexpr (std::is_same_v<T, float>)
    return Elem::f32;
  else if constexpr (std::is_same_v<T, int8_t>)
    return Elem::s8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return Elem::s16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return Elem::s32;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return Elem::u8;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return Elem::u16;
  else {
    static_assert(std::is_same_v<T, uint32_t>, "not a PTO element type [spec 20 §2]");
    return Elem::u32;
  }
}

constexpr size_t elem_size(Elem e) noexcept {
  switch (e) {
    case Elem::s8:
    case Elem::u8:
      return 1;
    case Elem::f16:
    case Elem::bf16:
    case Elem::s16:
    case Elem::u16:
      return 2;
    default:
      return 4;
  }
}
constexpr bool elem_is_float(Elem e) noexcept {
  return e == Elem::f16 || e == Elem::bf16 || e == Elem::f32;
}
// Canonical dtype name of spec 60 §2 ("fp16", "bf16", "fp32", "s8", ...).
const char* elem_name(Elem e) noexcept;
// Parses a spec 60 §2 name or alias, or a PTO-AS element type (f16 i8 ui16 u16 ...);
// raises Error(Unsupported) for names outside spec 20 §2's union.
Elem parse_elem(std::string_view name, std::string_view what);

// The seven ops of the family (spec 20 §4); the order is the op table's.
enum class Op : uint8_t { ADD, SUB, MUL, DIV, MAX, MIN, EXPDIF };
inline constexpr int kNumOps = 7;
const char* op_name(Op op) noexcept;  // "TROWEXPANDADD", ...

// Mirrors pto::TileType / SLayout / PadValue / CompactMode numerically (spec 20 §1).
inline constexpr uint8_t kLocVec = 0;
inline constexpr uint8_t kSLayoutNoneBox = 0;

struct TileDesc {
  Elem dtype = Elem::f32;
  uint8_t loc = kLocVec;  // pto::TileType value
  bool row_major = true;  // BLayout
  uint8_t slayout = kSLayoutNoneBox;
  uint8_t compact = 0;  // CompactMode, 0 = Null
  uint64_t pad = 0;     // PadValue, 0 = Null
  int32_t fractal = 512;
  int32_t rows = 0, cols = 0;
  int32_t valid_row = 0, valid_col = 0;
  // Element (r, c) is at index r*cols + c (RowMajor) or c*rows + r (ColMajor).
  uint8_t* data = nullptr;
  size_t capacity = 0;          // bytes addressable at data (>= rows*cols*elem_size)
  int64_t ub_addr = -1;         // manual mode: byte address in the UB `ub`; -1 = auto mode
  const uint8_t* ub = nullptr;  // base of the simulated UB the tile is bound to
  size_t bytes() const noexcept { return size_t(rows) * size_t(cols) * elem_size(dtype); }
};

// A target profile (spec 20 §2, §5): one row of the data table in target.cpp.
struct Target {
  const char* name;
  size_t ub_bytes;
  uint16_t basic_mask;  // ADD SUB MUL MAX MIN dtypes, bit (1 << Elem)
  uint16_t div_mask;
  uint16_t expdif_mask;
  bool broadcast_buffer;  // a2a3: the tmp / internal 8 KB buffer of §5 is used
  size_t tmp_ub_offset;   // TMP_UB_OFFSET of the internal buffer
  size_t tmp_ub_bytes;
};
const Target& find_target(std::string_view name);  // Error(Unsupported) listing valid names
const Target& default_target() noexcept;           // a2a3

// The simulated UB of a target as a front end sees it: base and size.
struct Ub {
  uint8_t* base = nullptr;
  size_t size = 0;
};
// Process-wide UB per target (C++ front end manual mode), zero-filled at first use.
Ub global_ub(const Target& t);

// The C++ front end's current target (pto::set_target).
const Target& current_target() noexcept;
void set_current_target(std::string_view name);

// Checks a descriptor as created by a front end (spec 20 §1): shape positive, 0 <= valid <= static,
// storage present and big enough, NoneBox alignment. `who` names the tile in messages.
void check_tile(const TileDesc& t, std::string_view instr, std::string_view who);

// Manual mode (TASSIGN, spec 20 §1): address of `bytes` bytes at `addr` in `ub`, after checking
// 32-byte alignment and the UB bound.
uint8_t* ub_bind(const Ub& ub, const Target& t, int64_t addr, size_t bytes, std::string_view who);

enum class Path : uint8_t { Fast, Reference };

// Runs `op` (spec 20 §3–§5): every rule checked before anything is written, then only dst's
// valid region (and the §5 broadcast buffer) is written. tmp = nullptr for the 3-argument form.
// `ub` is the UB of `t` that manual-mode operands are bound to.
void row_expand(Op op, const TileDesc& dst, const TileDesc& src0, const TileDesc& src1,
                const TileDesc* tmp, const Target& t, const Ub& ub, Path path = Path::Fast);

// The C++ front end's calls: current target, its process-wide UB.
void row_expand_current(Op op, const TileDesc& dst, const TileDesc& src0, const TileDesc& src1,
                        const TileDesc* tmp);
// TASSIGN on the current target: returns the bound address; `ub_out` receives the UB's base.
uint8_t* tassign_current(uint64_t addr, size_t bytes, const uint8_t** ub_out);

}  // namespace tilesim::pto
