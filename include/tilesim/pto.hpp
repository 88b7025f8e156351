// PTO tile ISA, C++ front end (spec 20, names of spec 60 §3): pto::Tile with the vendor's template
// parameters, TASSIGN, and the TROWEXPAND* family. A thin compile-time layer: static checks of
// what does not depend on the target (spec 20 §1), then one call into the engine
// (tilesim/pto/engine.hpp), which checks every run-time rule and computes.
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include "tilesim/half.hpp"
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "tilesim/error.hpp"
#include "tilesim/pto/engine.hpp"

namespace pto {

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling, ScaleLeft, ScaleRight, Ctrl };
enum class BLayout { RowMajor, ColMajor };
enum class SLayout { NoneBox, RowMajor, ColMajor };
enum class PadValue : uint64_t { Null, Zero, Max, Min, CustomBase = 1ull << 32 };
enum class CompactMode { Null, Normal, RowPlusOne, RowAlignedPadding };
// The vendor's enums (pto-isa include/pto/common/type.hpp), values as there.
enum class CmpMode : uint8_t { EQ = 0, NE = 1, LT = 2, LE = 3, GT = 4, GE = 5 };
enum class RoundMode : uint8_t {
  CAST_NONE = 0, CAST_RINT = 1, CAST_ROUND = 2, CAST_FLOOR = 3, CAST_CEIL = 4, CAST_TRUNC = 5,
  CAST_ODD = 6
};
enum class SaturationMode : uint8_t { ON = 0, OFF = 1 };
// Precision selectors: tilesim computes every mode correctly rounded (docs/pto-instructions.md).
enum class PowAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class DivAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class SqrtAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RsqrtAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RecipAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class ExpAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class LogAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class FmodAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class FmodSAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RemAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RemSAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
constexpr int DYNAMIC = -1;

// fp16 values as the vendor's `half`: portable (no _Float16, see tilesim/half.hpp).
using half = tilesim::half;

// bfloat16 storage (the upper half of fp32, spec 10 §1); conversion from float rounds RNE.
struct bfloat16_t {
  uint16_t bits = 0;
  constexpr bfloat16_t() = default;
  constexpr bfloat16_t(float f) : bits(round(f)) {}
  constexpr operator float() const { return std::bit_cast<float>(uint32_t(bits) << 16); }
  static constexpr bfloat16_t from_bits(uint16_t b) {
    bfloat16_t r;
    r.bits = b;
    return r;
  }

 private:
  static constexpr uint16_t round(float f) {
    uint32_t b = std::bit_cast<uint32_t>(f);
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
    return uint16_t((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
  }
};

// What every instruction returns (the vendor's RecordEvent). With the hazard checker on it carries
// the token under which the checker noted what the instruction's pipe had issued, and the call's
// source site: `Event<A, B> e = TLOAD(...)` sets its flag there, and passing it as a trailing
// event orders the consumer after the instruction (docs/pto-kernels.md#sync). Off: token 0.
struct RecordEvent {
  uint64_t token = 0;
  tilesim::sync::Site site{};
};

inline void set_target(std::string_view name) {
  tilesim::pto::set_current_target(name);
}

namespace detail {
using tilesim::pto::Elem;
template <class T>
inline constexpr bool kIsPtoDType =
    std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, bfloat16_t> ||
    std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>;
template <class T>
constexpr Elem elem_of() {
  if constexpr (std::is_same_v<T, half>)
    return Elem::f16;
  else if constexpr (std::is_same_v<T, bfloat16_t>)
    return Elem::bf16;
  else
    return tilesim::pto::elem_of_value<T>();
}
struct TileBase {};  // marks tiles, so trailing events never match the tmp overload
[[noreturn]] inline void bad_offset(uint32_t off, int numel) {
  tilesim::raise(tilesim::ErrorCode::Bounds, "Tile",
                 "GetValue/SetValue offset " + std::to_string(off) + " is outside the tile's " +
                     std::to_string(numel) + " elements",
                 "docs/pto-kernels.md#tile-layouts");
}
[[noreturn]] inline void bad_valid(const char* what, int v, int limit) {
  tilesim::raise(tilesim::ErrorCode::Bounds, "Tile",
                 std::string(what) + " must satisfy 0 <= valid <= " + std::to_string(limit) +
                     ", got " + std::to_string(v),
                 "docs/pto.md#tile-constraints");
}
}  // namespace detail

namespace detail {
// The box (fractal) of a tile layout in elements (the vendor's InnerRows x InnerCols): 1x1 for
// NoneBox; 16x16 for the 1024-byte Acc fractal; 16 x 32B for a row-major box, 32B x 16 for a
// column-major one (docs/pto-kernels.md#tile-layouts).
constexpr int inner_rows(SLayout sl, int fractal, size_t esize) {
  if (fractal == 1024) return 16;
  if (fractal == 32) return sl == SLayout::RowMajor ? 16 : 2;
  return sl == SLayout::NoneBox ? 1 : sl == SLayout::RowMajor ? 16 : int(32 / esize);
}
constexpr int inner_cols(SLayout sl, int fractal, size_t esize) {
  if (fractal == 1024) return 16;
  if (fractal == 32) return sl == SLayout::RowMajor ? 2 : 16;
  return sl == SLayout::NoneBox ? 1 : sl == SLayout::RowMajor ? int(32 / esize) : 16;
}
}  // namespace detail

template <TileType Loc_, typename T, int Rows_, int Cols_, BLayout BL = BLayout::RowMajor,
          int RowValid = Rows_, int ColValid = Cols_, SLayout SL = SLayout::NoneBox,
          int SFractalSize_ = 512, auto Pad = PadValue::Null,
          CompactMode Compact_ = CompactMode::Null>
struct Tile : detail::TileBase {
  using DType = T;
  static constexpr TileType Loc = Loc_;
  static constexpr int Rows = Rows_;
  static constexpr int Cols = Cols_;
  static constexpr int ValidRow = RowValid;
  static constexpr int ValidCol = ColValid;
  static constexpr BLayout BFractal = BL;
  static constexpr SLayout SFractal = SL;
  static constexpr int SFractalSize = SFractalSize_;
  static constexpr int SFractalSizeV = SFractalSize_;
  static constexpr auto PadVal = Pad;
  static constexpr CompactMode Compact = Compact_;
  static constexpr bool isRowMajor = BL == BLayout::RowMajor;
  static constexpr int Numel = Rows_ * Cols_;
  static constexpr int RowStride = isRowMajor ? Cols_ : 1;
  static constexpr int ColStride = isRowMajor ? 1 : Rows_;
  static constexpr bool isBoxedLayout = SL != SLayout::NoneBox;
  static constexpr bool isInnerRowMajor = SL == SLayout::RowMajor;
  static constexpr bool isInnerColMajor = SL == SLayout::ColMajor;
  static constexpr int InnerRows = detail::inner_rows(SL, SFractalSize_, sizeof(T));
  static constexpr int InnerCols = detail::inner_cols(SL, SFractalSize_, sizeof(T));
  static constexpr int InnerNumel = InnerRows * InnerCols;

  static_assert(Rows_ > 0 && Cols_ > 0, "Tile: Rows and Cols must be positive [docs/pto.md#tile-constraints]");
  static_assert(RowValid == DYNAMIC || (RowValid >= 0 && RowValid <= Rows_),
                "Tile: RowValid must be DYNAMIC or 0 <= RowValid <= Rows [docs/pto.md#tile-constraints]");
  static_assert(ColValid == DYNAMIC || (ColValid >= 0 && ColValid <= Cols_),
                "Tile: ColValid must be DYNAMIC or 0 <= ColValid <= Cols [docs/pto.md#tile-constraints]");
  static_assert(SL != SLayout::NoneBox || !isRowMajor || (Cols_ * sizeof(T)) % 32 == 0,
                "Tile: RowMajor NoneBox needs Cols*sizeof(T) % 32 == 0 [docs/pto.md#tile-constraints]");
  static_assert(SL != SLayout::NoneBox || isRowMajor || (Rows_ * sizeof(T)) % 32 == 0,
                "Tile: ColMajor NoneBox needs Rows*sizeof(T) % 32 == 0 [docs/pto.md#tile-constraints]");
  static_assert(SFractalSize_ == 512 || SFractalSize_ == 1024 || SFractalSize_ == 32,
                "Tile: SFractalSize must be 512, 1024 or 32 [docs/pto-kernels.md#tile-layouts]");
  static_assert(SL == SLayout::NoneBox || Cols_ % InnerCols == 0,
                "Tile: a boxed layout needs Cols to be a multiple of the box's columns "
                "[docs/pto-kernels.md#tile-layouts]");
  static_assert(SL == SLayout::NoneBox || Loc_ == TileType::Vec || SFractalSize_ == 32 ||
                    Rows_ == 1 || Rows_ % InnerRows == 0,
                "Tile: a boxed layout needs Rows to be a multiple of the box's rows "
                "[docs/pto-kernels.md#tile-layouts]");
  static_assert(SL == SLayout::NoneBox || BL == BLayout::RowMajor || SL == SLayout::RowMajor,
                "Tile: boxed layouts are NZ (ColMajor of RowMajor boxes), ZN or ZZ "
                "[docs/pto-kernels.md#tile-layouts]");

  // Auto mode: the tile owns zero-filled storage. A DYNAMIC valid dimension starts at its static
  // extent unless given to the constructor.
  Tile() : owned_(allocate_owned()), ptr_(owned_) {}
  Tile(int vr, int vc) requires(RowValid == DYNAMIC && ColValid == DYNAMIC) : Tile() {
    SetValidRow(vr);
    SetValidCol(vc);
  }
  explicit Tile(int v) requires((RowValid == DYNAMIC) != (ColValid == DYNAMIC)) : Tile() {
    if constexpr (RowValid == DYNAMIC)
      SetValidRow(v);
    else
      SetValidCol(v);
  }
  Tile(const Tile&) = delete;
  Tile& operator=(const Tile&) = delete;
  Tile(Tile&& o) noexcept
      : owned_(std::exchange(o.owned_, nullptr)),
        ptr_(std::exchange(o.ptr_, nullptr)),
        addr_(o.addr_),
        ub_(o.ub_),
        vr_(o.vr_),
        vc_(o.vc_) {}
  ~Tile() {
    if (owned_) tilesim::pto::tile_storage_free(owned_, sizeof(T) * size_t(Numel));
  }

  int GetValidRow() const { return vr_; }
  int GetValidCol() const { return vc_; }
  void SetValidRow(int v) {
    if (v < 0 || v > Rows_) detail::bad_valid("validRow", v, Rows_);
    vr_ = v;
  }
  void SetValidCol(int v) {
    if (v < 0 || v > Cols_) detail::bad_valid("validCol", v, Cols_);
    vc_ = v;
  }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  // Element (r, c) in logical coordinates: its storage index by the tile's layout (RowMajor
  // r*Cols + c, ColMajor c*Rows + r, boxed layouts as docs/pto-kernels.md#tile-layouts).
  static constexpr size_t offset(int r, int c) {
    if constexpr (!isBoxedLayout) {
      return size_t(r) * RowStride + size_t(c) * ColStride;
    } else {
      const int br = r / InnerRows, bc = c / InnerCols, ir = r % InnerRows, ic = c % InnerCols;
      constexpr int nbr = Rows_ / InnerRows, nbc = Cols_ / InnerCols;
      if constexpr (!isRowMajor)  // NZ: boxes column after column, row-major inside
        return size_t(nbr * bc + br) * InnerNumel + size_t(ir) * InnerCols + ic;
      else if constexpr (isInnerColMajor)  // ZN: boxes row after row, column-major inside
        return size_t(nbc * br + bc) * InnerNumel + size_t(ic) * InnerRows + ir;
      else  // ZZ
        return size_t(nbc * br + bc) * InnerNumel + size_t(ir) * InnerCols + ic;
    }
  }
  T& at(int r, int c) { return ptr_[offset(r, c)]; }
  const T& at(int r, int c) const { return ptr_[offset(r, c)]; }
  // The vendor CPU simulator's element accessors (logical coordinates) and Vec offset access.
  T GetElement(int64_t r, int64_t c) const { return at(int(r), int(c)); }
  void SetElement(int64_t r, int64_t c, const T& v) { at(int(r), int(c)) = v; }
  T GetValue(uint32_t off) const { return ptr_[checked(off)]; }
  void SetValue(uint32_t off, const T& v) { ptr_[checked(off)] = v; }
  void SetValidShape(int vr, int vc) {
    SetValidRow(vr);
    SetValidCol(vc);
  }
  // Manual mode: the UB byte address (TASSIGN), or -1 in auto mode.
  int64_t address() const { return addr_; }

  tilesim::pto::TileDesc desc() const {
    tilesim::pto::TileDesc d;
    d.dtype = detail::elem_of<T>();
    d.loc = uint8_t(Loc_);
    d.row_major = isRowMajor;
    d.slayout = uint8_t(SL);
    d.compact = uint8_t(Compact_);
    d.pad = uint64_t(Pad);
    d.fractal = SFractalSize_;
    d.rows = Rows_;
    d.cols = Cols_;
    d.valid_row = vr_;
    d.valid_col = vc_;
    d.data = reinterpret_cast<uint8_t*>(const_cast<T*>(ptr_));
    d.capacity = size_t(Numel) * sizeof(T);
    d.ub_addr = addr_;
    d.ub = ub_;
    d.static_valid = RowValid != DYNAMIC && ColValid != DYNAMIC;
    return d;
  }
  void bind(T* p, int64_t addr, const uint8_t* ub) {
    ptr_ = p;
    addr_ = addr;
    ub_ = ub;
  }

 private:
  static uint32_t checked(uint32_t off) {
    if (off >= uint32_t(Numel)) detail::bad_offset(off, Numel);
    return off;
  }
  // Owned storage is 64-byte aligned, as the UB's tiles are 32-byte aligned: the row kernels'
  // loads and stores then stay within cache lines (trowexpand_simd.cpp).
  static T* allocate_owned() {
    return static_cast<T*>(tilesim::pto::tile_storage_alloc(sizeof(T) * size_t(Numel)));
  }
  T* owned_ = nullptr;
  T* ptr_ = nullptr;
  int64_t addr_ = -1;
  const uint8_t* ub_ = nullptr;
  int vr_ = RowValid == DYNAMIC ? Rows_ : RowValid;
  int vc_ = ColValid == DYNAMIC ? Cols_ : ColValid;
};

template <class X>
inline constexpr bool is_tile_v = std::is_base_of_v<detail::TileBase, std::remove_cvref_t<X>>;

// Manual mode (spec 20 §1): bind the tile to byte `addr` of the current target's simulated UB
// (32-byte aligned, inside the UB); tiles bound to overlapping addresses alias.
template <class TileT>
requires is_tile_v<TileT>
void TASSIGN(TileT& tile, uint64_t addr) {
  const uint8_t* ub = nullptr;
  uint8_t* p = tilesim::pto::tassign_current(
      uint8_t(TileT::Loc), addr, size_t(TileT::Numel) * sizeof(typename TileT::DType), &ub);
  tile.bind(reinterpret_cast<typename TileT::DType*>(p), int64_t(addr), ub);
}

// ---- the instruction table's C++ names (spec 21 §2, rows in tilesim/pto/instructions.hpp) ----
namespace detail {
using tilesim::pto::Instr;
// A scalar argument as the code of its dtype (the engine reads it as the tile's dtype).
template <class T>
uint64_t code_of(const T& v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>)
    return v.bits;
  else if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<uint32_t>(v);
  else
    return uint64_t(std::make_unsigned_t<T>(v));
}
template <class T>
constexpr bool dtype_any(Instr i) {
  return (tilesim::pto::instr_dtypes_any(i) & (1u << unsigned(elem_of<T>()))) != 0;
}
template <class X>
inline constexpr bool kIsEvent = std::is_class_v<std::remove_cv_t<X>> && !is_tile_v<X> &&
                                 !std::is_same_v<std::remove_cv_t<X>, tilesim::sync::Site>;
// A trailing-event pack: one or more class objects (RecordEvent, Event<...>), never a tile.
template <class... X>
inline constexpr bool kEvents = sizeof...(X) > 0 && (... && kIsEvent<X>);
struct EventTag {};  // marks pto::Event (tilesim/pto/kernel.hpp)

// A trailing event, waited for before the call `consumer` runs (the vendor's TSYNC(events...)):
// an Event waits for its flag; a RecordEvent (tilesim also accepts the returned value itself)
// orders the consumer's pipe after the instruction that returned it.
template <class E>
void wait_event(E& e, const tilesim::pto::Call& consumer) {
  if constexpr (std::is_same_v<std::remove_cv_t<E>, RecordEvent>)
    tilesim::pto::sync_take(e.token, consumer);
  else if constexpr (std::is_base_of_v<EventTag, std::remove_cv_t<E>>)
    e.wait_at(tilesim::sync::Site{});
}

// One call of the instruction table from the C++ front end. With the checker off: the call, and
// an empty RecordEvent. On: the call's site, its events waited for first, then the call (which the
// engine records), then the RecordEvent's token.
template <class... E>
RecordEvent run_checked(const tilesim::pto::Call& c, const tilesim::sync::Site& site,
                        E&... events) {
  tilesim::pto::Call a = c;
  a.site = site;
#ifdef __PTO_AUTO__
  // The vendor's compiler synchronises an auto-mode translation unit: the checker skips its calls
  // and its events order nothing (docs/pto-kernels.md#sync).
  a.auto_sync = true;
  ((void)events, ...);
  tilesim::pto::execute_current(a);
  return {};
#else
  (wait_event(events, a), ...);
  tilesim::pto::execute_current(a);
  return {tilesim::pto::sync_post(a), site};
#endif
}
template <class... E>
inline RecordEvent run(const tilesim::pto::Call& c, const tilesim::sync::Site& site,
                       E&... events) {
  if (tilesim::sync::on()) [[unlikely]]
    return run_checked(c, site, events...);
  tilesim::pto::execute_current(c);
  return {};
}

// TROWEXPAND* run outside the instruction table (tilesim::pto::row_expand, which records the call);
// their RecordEvent is posted as the table's TROWEXPAND row's (pipe V).
template <class... E>
RecordEvent row_expand_checked(tilesim::pto::Op op, const tilesim::pto::TileDesc& d,
                               const tilesim::pto::TileDesc& a, const tilesim::pto::TileDesc& b,
                               const tilesim::pto::TileDesc* t, const tilesim::sync::Site& site,
                               E&... events) {
#ifdef __PTO_AUTO__
  ((void)events, ...);
  tilesim::pto::row_expand_current(op, d, a, b, t, site, true);
  return {};
#else
  const tilesim::pto::Call c{.instr = Instr::TROWEXPAND, .dst = &d, .src0 = &a, .src1 = &b,
                             .tmp = t};
  (wait_event(events, c), ...);
  tilesim::pto::row_expand_current(op, d, a, b, t, site);
  return {tilesim::pto::sync_post(c), site};
#endif
}
template <class... E>
inline RecordEvent row_expand(tilesim::pto::Op op, const tilesim::pto::TileDesc& d,
                              const tilesim::pto::TileDesc& a, const tilesim::pto::TileDesc& b,
                              const tilesim::pto::TileDesc* t, const tilesim::sync::Site& site,
                              E&... events) {
  if (tilesim::sync::on()) [[unlikely]]
    return row_expand_checked(op, d, a, b, t, site, events...);
  tilesim::pto::row_expand_current(op, d, a, b, t);
  return {};
}
template <class... X>
inline constexpr bool kNoTiles = (... && !is_tile_v<X>);
}  // namespace detail

// Each instruction form in four overloads, its body written once (the macro's last argument,
// which uses `site` and `events...`): with no trailing event, one, or two, the last parameter is
// the kernel's source site, captured by a default argument (a default cannot follow the vendor's
// `WaitEvents&...` pack); with more events the site is not known. Explicit template arguments
// (TCVT<false>, TSTORE<..., AtomicType::AtomicAdd>) select the same forms as the vendor's.
#define TILESIM_PTO_UNPAREN(...) __VA_ARGS__
#define TILESIM_PTO_FN(TPL, REQ, NAME, PARAMS, ...)                                           \
  template <TILESIM_PTO_UNPAREN TPL>                                                        \
  requires(TILESIM_PTO_UNPAREN REQ) RecordEvent                                             \
  NAME(TILESIM_PTO_UNPAREN PARAMS,                                                          \
       tilesim::sync::Site site = tilesim::sync::Site::here()) {                            \
    return [&](auto&... events) -> RecordEvent { __VA_ARGS__ }();                           \
  }                                                                                         \
  template <TILESIM_PTO_UNPAREN TPL, typename E0>                                           \
  requires(TILESIM_PTO_UNPAREN REQ && detail::kEvents<E0>) RecordEvent                       \
  NAME(TILESIM_PTO_UNPAREN PARAMS, E0& e0,                                                  \
       tilesim::sync::Site site = tilesim::sync::Site::here()) {                            \
    return [&](auto&... events) -> RecordEvent { __VA_ARGS__ }(e0);                         \
  }                                                                                         \
  template <TILESIM_PTO_UNPAREN TPL, typename E0, typename E1>                              \
  requires(TILESIM_PTO_UNPAREN REQ && detail::kEvents<E0, E1>) RecordEvent                   \
  NAME(TILESIM_PTO_UNPAREN PARAMS, E0& e0, E1& e1,                                          \
       tilesim::sync::Site site = tilesim::sync::Site::here()) {                            \
    return [&](auto&... events) -> RecordEvent { __VA_ARGS__ }(e0, e1);                     \
  }                                                                                         \
  template <TILESIM_PTO_UNPAREN TPL, typename... WaitEvents>                                \
  requires(TILESIM_PTO_UNPAREN REQ && sizeof...(WaitEvents) > 2 &&                          \
           detail::kEvents<WaitEvents...>) RecordEvent                                      \
  NAME(TILESIM_PTO_UNPAREN PARAMS, WaitEvents&... waits) {                                  \
    const tilesim::sync::Site site{};                                                       \
    return [&](auto&... events) -> RecordEvent { __VA_ARGS__ }(waits...);                   \
  }

// Compile-time rules of the family (spec 20 §1: RowMajor dst, one dtype, dtype in the union).
#define TILESIM_PTO_STATIC_CHECKS(NAME)                                                        \
  static_assert(TileDataDst::isRowMajor, NAME ": dst must be RowMajor [docs/pto.md#trowexpand-constraints]");   \
  static_assert(std::is_same_v<typename TileDataDst::DType, typename TileDataSrc0::DType> &&   \
                    std::is_same_v<typename TileDataDst::DType, typename TileDataSrc1::DType>, \
                NAME ": dst, src0 and src1 must have the same DType [docs/pto.md#trowexpand-constraints]");     \
  static_assert(                                                                               \
      detail::kIsPtoDType<typename TileDataDst::DType>, NAME                                   \
      ": DType must be one of half float int16 int32 uint16 uint32 bfloat16_t int8 uint8 "     \
      "[docs/pto.md#targets-and-dtypes]")

#define TILESIM_PTO_ROWEXPAND(NAME, OP, PREFIX)                                             \
  TILESIM_PTO_FN((PREFIX typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1),\
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc0> &&                       \
                  is_tile_v<TileDataSrc1>), NAME,                                            \
                 (TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1),                 \
    TILESIM_PTO_STATIC_CHECKS(#NAME);                                                       \
    const auto d = dst.desc(), a = src0.desc(), b = src1.desc();                            \
    return detail::row_expand(OP, d, a, b, nullptr, site, events...);)                      \
  TILESIM_PTO_FN((PREFIX typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, \
                  typename TileDataTmp),                                                    \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc0> &&                       \
                  is_tile_v<TileDataSrc1> && is_tile_v<TileDataTmp>), NAME,                  \
                 (TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1, TileDataTmp& tmp),\
    TILESIM_PTO_STATIC_CHECKS(#NAME);                                                       \
    const auto d = dst.desc(), a = src0.desc(), b = src1.desc(), t = tmp.desc();            \
    return detail::row_expand(OP, d, a, b, &t, site, events...);)

#define TILESIM_PTO_NO_PREFIX
TILESIM_PTO_ROWEXPAND(TROWEXPANDADD, tilesim::pto::Op::ADD, TILESIM_PTO_NO_PREFIX)
TILESIM_PTO_ROWEXPAND(TROWEXPANDSUB, tilesim::pto::Op::SUB, TILESIM_PTO_NO_PREFIX)
TILESIM_PTO_ROWEXPAND(TROWEXPANDMUL, tilesim::pto::Op::MUL, TILESIM_PTO_NO_PREFIX)
// DivAlgorithm: tilesim computes the correctly rounded quotient for every value (spec 20 §1).
#define TILESIM_PTO_DIV_PREFIX auto PrecisionType = DivAlgorithm::DEFAULT,
TILESIM_PTO_ROWEXPAND(TROWEXPANDDIV, tilesim::pto::Op::DIV, TILESIM_PTO_DIV_PREFIX)
TILESIM_PTO_ROWEXPAND(TROWEXPANDMAX, tilesim::pto::Op::MAX, TILESIM_PTO_NO_PREFIX)
TILESIM_PTO_ROWEXPAND(TROWEXPANDMIN, tilesim::pto::Op::MIN, TILESIM_PTO_NO_PREFIX)
TILESIM_PTO_ROWEXPAND(TROWEXPANDEXPDIF, tilesim::pto::Op::EXPDIF, TILESIM_PTO_NO_PREFIX)

// `auto PrecisionType = X::DEFAULT,` for the rows with an ALG column (the vendor's signatures).
#define TILESIM_PTO_TPL_NoAlg
#define TILESIM_PTO_TPL_DivAlgorithm auto PrecisionType = DivAlgorithm::DEFAULT,
#define TILESIM_PTO_TPL_RemAlgorithm auto PrecisionType = RemAlgorithm::DEFAULT,
#define TILESIM_PTO_TPL_RemSAlgorithm auto PrecisionType = RemSAlgorithm::DEFAULT,
#define TILESIM_PTO_TPL_ExpAlgorithm auto PrecisionType = ExpAlgorithm::DEFAULT,
#define TILESIM_PTO_TPL_LogAlgorithm auto PrecisionType = LogAlgorithm::DEFAULT,
#define TILESIM_PTO_TPL_SqrtAlgorithm auto PrecisionType = SqrtAlgorithm::DEFAULT,
#define TILESIM_PTO_TPL_RsqrtAlgorithm auto PrecisionType = RsqrtAlgorithm::DEFAULT,
#define TILESIM_PTO_TPL_RecipAlgorithm auto PrecisionType = RecipAlgorithm::DEFAULT,

#define TILESIM_PTO_DTYPE_ASSERT(NAME, T)                                                   \
  static_assert(detail::kIsPtoDType<T> && detail::dtype_any<T>(detail::Instr::NAME),      \
                #NAME ": DType is not supported by any target "                            \
                "[docs/pto-instructions.md#dtypes]")
#define TILESIM_PTO_SAME_ASSERT(NAME, A, B)                                                 \
  static_assert(std::is_same_v<typename A::DType, typename B::DType>,                      \
                #NAME ": operands must have the same DType [docs/pto-instructions.md]")

#define TILESIM_PTO_GEN_Binary(NAME, ALG)                                                       \
  TILESIM_PTO_FN((TILESIM_PTO_TPL_##ALG typename TileDataDst, typename TileDataSrc0,            \
                  typename TileDataSrc1),                                                       \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc0> &&                          \
                  is_tile_v<TileDataSrc1>), NAME,                                               \
                 (TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1),                    \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataDst::DType);                                \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataDst, TileDataSrc0);                                   \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataDst, TileDataSrc1);                                   \
    const auto d = dst.desc(), a = src0.desc(), b = src1.desc();                                \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .src1 = &b},       \
                       site, events...);)

#define TILESIM_PTO_GEN_BinaryTmp(NAME, ALG)                                                    \
  TILESIM_PTO_FN((TILESIM_PTO_TPL_##ALG typename TileDataDst, typename TileDataSrc0,            \
                  typename TileDataSrc1, typename TileDataTmp),                                 \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc0> &&                          \
                  is_tile_v<TileDataSrc1> && is_tile_v<TileDataTmp>), NAME,                     \
                 (TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1, TileDataTmp&        \
                  tmp),                                                                         \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataDst::DType);                                \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataDst, TileDataSrc0);                                   \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataDst, TileDataSrc1);                                   \
    const auto d = dst.desc(), a = src0.desc(), b = src1.desc(), t = tmp.desc();                \
    return detail::run(                                                                         \
        {.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .src1 = &b, .tmp = &t},           \
                       site, events...);)

#define TILESIM_PTO_GEN_Unary(NAME, ALG)                                                        \
  TILESIM_PTO_FN((TILESIM_PTO_TPL_##ALG typename TileDataDst, typename TileDataSrc),            \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc>), NAME,                      \
                 (TileDataDst& dst, TileDataSrc& src),                                          \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataDst::DType);                                \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataDst, TileDataSrc);                                    \
    const auto d = dst.desc(), a = src.desc();                                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a},                   \
                       site, events...);)

#define TILESIM_PTO_GEN_UnaryRsqrt(NAME, ALG)                                                   \
  TILESIM_PTO_GEN_Unary(NAME, ALG)                                                              \
  TILESIM_PTO_FN((TILESIM_PTO_TPL_##ALG typename TileDataDst, typename TileDataSrc,             \
                  typename TileDataTmp),                                                        \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc> &&                           \
                  is_tile_v<TileDataTmp>), NAME,                                                \
                 (TileDataDst& dst, TileDataSrc& src, TileDataTmp& tmp),                        \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataDst::DType);                                \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataDst, TileDataSrc);                                    \
    const auto d = dst.desc(), a = src.desc(), t = tmp.desc();                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .tmp = &t},        \
                       site, events...);)

#define TILESIM_PTO_GEN_Scalar(NAME, ALG)                                                       \
  TILESIM_PTO_FN((TILESIM_PTO_TPL_##ALG typename TileDataDst, typename TileDataSrc),            \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc>), NAME,                      \
                 (TileDataDst& dst, TileDataSrc& src, typename TileDataSrc::DType scalar),      \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataDst::DType);                                \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataDst, TileDataSrc);                                    \
    const auto d = dst.desc(), a = src.desc();                                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a,                    \
                 .scalar = detail::code_of(scalar)}, site, events...);)
#define TILESIM_PTO_GEN_LeakyRelu TILESIM_PTO_GEN_Scalar

#define TILESIM_PTO_GEN_ScalarDiv(NAME, ALG)                                                    \
  TILESIM_PTO_GEN_Scalar(NAME, ALG)                                                             \
  TILESIM_PTO_FN((TILESIM_PTO_TPL_##ALG typename TileDataDst, typename TileDataSrc),            \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc>), NAME,                      \
                 (TileDataDst& dst, typename TileDataDst::DType scalar, TileDataSrc& src),      \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataDst::DType);                                \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataDst, TileDataSrc);                                    \
    const auto d = dst.desc(), a = src.desc();                                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a,                    \
                 .scalar = detail::code_of(scalar), .scalar_first = true}, site, events...);)

#define TILESIM_PTO_GEN_ScalarTmp(NAME, ALG)                                                    \
  TILESIM_PTO_FN((TILESIM_PTO_TPL_##ALG typename TileDataDst, typename TileDataSrc,             \
                  typename TileDataTmp),                                                        \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc> &&                           \
                  is_tile_v<TileDataTmp>), NAME,                                                \
                 (TileDataDst& dst, TileDataSrc& src, typename TileDataSrc::DType scalar,       \
                  TileDataTmp& tmp),                                                            \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataDst::DType);                                \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataDst, TileDataSrc);                                    \
    const auto d = dst.desc(), a = src.desc(), t = tmp.desc();                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .tmp = &t,         \
                 .scalar = detail::code_of(scalar)}, site, events...);)

#define TILESIM_PTO_GEN_Axpy(NAME, ALG)                                                         \
  TILESIM_PTO_FN((typename TileDataDst, typename TileDataSrc),                                  \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc>), NAME,                      \
                 (TileDataDst& dst, TileDataSrc& src0, typename TileDataSrc::DType              \
                  scalar),                                                                      \
    using D = typename TileDataDst::DType;                                                      \
    using S = typename TileDataSrc::DType;                                                      \
    static_assert(std::is_same_v<D, S> || (std::is_same_v<D, float> && std::is_same_v<S, half>), \
                  "TAXPY: (dst, src0) must be (half, half), (float, float) or (float, half) "   \
                  "[docs/pto-instructions.md#tile-scalar]");                                    \
    TILESIM_PTO_DTYPE_ASSERT(NAME, D);                                                          \
    const auto d = dst.desc(), a = src0.desc();                                                 \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a,                    \
                 .scalar = detail::code_of(scalar)}, site, events...);)

#define TILESIM_PTO_GEN_ExpandScalar(NAME, ALG)                                                 \
  TILESIM_PTO_FN((typename TileData),                                                           \
                 (is_tile_v<TileData>), NAME,                                                   \
                 (TileData& dst, typename TileData::DType scalar),                              \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileData::DType);                                   \
    const auto d = dst.desc();                                                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .scalar = detail::code_of(scalar)}, \
                       site, events...);)

#define TILESIM_PTO_GEN_Compare(NAME, ALG)                                                      \
  TILESIM_PTO_FN((typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1),          \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc0> &&                          \
                  is_tile_v<TileDataSrc1>), NAME,                                               \
                 (TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1, CmpMode             \
                  cmpMode),                                                                     \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataSrc0::DType);                               \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataSrc0, TileDataSrc1);                                  \
    const auto d = dst.desc(), a = src0.desc(), b = src1.desc();                                \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .src1 = &b,        \
                 .cmp = uint8_t(cmpMode)}, site, events...);)

#define TILESIM_PTO_GEN_CompareScalar(NAME, ALG)                                                \
  TILESIM_PTO_FN((typename TileDataDst, typename TileDataSrc),                                  \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc>), NAME,                      \
                 (TileDataDst& dst, TileDataSrc& src0, typename TileDataSrc::DType src1,        \
                  CmpMode mode),                                                                \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataSrc::DType);                                \
    const auto d = dst.desc(), a = src0.desc();                                                 \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a,                    \
                 .scalar = detail::code_of(src1), .cmp = uint8_t(mode)}, site, events...);)     \
  TILESIM_PTO_FN((typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1),          \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc0> &&                          \
                  is_tile_v<TileDataSrc1>), NAME,                                               \
                 (TileDataDst& dst, TileDataSrc0& src0, TileDataSrc1& src1, CmpMode mode),      \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataSrc0::DType);                               \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataSrc0, TileDataSrc1);                                  \
    const auto d = dst.desc(), a = src0.desc(), b = src1.desc();                                \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .src1 = &b,        \
                 .cmp = uint8_t(mode)}, site, events...);)

#define TILESIM_PTO_GEN_Select(NAME, ALG)                                                       \
  TILESIM_PTO_FN((typename TileData, typename MaskTile, typename TmpTile),                      \
                 (is_tile_v<TileData> && is_tile_v<MaskTile> && is_tile_v<TmpTile>), NAME,      \
                 (TileData& dst, MaskTile& selMask, TileData& src0, TileData& src1,             \
                  TmpTile& tmp),                                                                \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileData::DType);                                   \
    const auto d = dst.desc(), m = selMask.desc(), a = src0.desc(), b = src1.desc(),            \
               t = tmp.desc();                                                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .src1 = &b,        \
                 .mask = &m, .tmp = &t}, site, events...);)

#define TILESIM_PTO_GEN_SelectScalar(NAME, ALG)                                                 \
  TILESIM_PTO_FN((typename TileDataDst, typename TileDataMask, typename TileDataSrc,            \
                  typename TileDataTmp),                                                        \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataMask> &&                          \
                  is_tile_v<TileDataSrc> && is_tile_v<TileDataTmp>), NAME,                      \
                 (TileDataDst& dst, TileDataMask& mask, TileDataSrc& src, TileDataTmp&          \
                  tmp, typename TileDataSrc::DType scalar),                                     \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataDst::DType);                                \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataDst, TileDataSrc);                                    \
    const auto d = dst.desc(), m = mask.desc(), a = src.desc(), t = tmp.desc();                 \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .mask = &m,        \
                 .tmp = &t, .scalar = detail::code_of(scalar)}, site, events...);)

#define TILESIM_PTO_GEN_RowReduce(NAME, ALG)                                                    \
  TILESIM_PTO_FN((typename TileDataOut, typename TileDataIn, typename TileDataTmp),             \
                 (is_tile_v<TileDataOut> && is_tile_v<TileDataIn> &&                            \
                  is_tile_v<TileDataTmp>), NAME,                                                \
                 (TileDataOut& dst, TileDataIn& src, TileDataTmp& tmp),                         \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataIn::DType);                                 \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataOut, TileDataIn);                                     \
    const auto d = dst.desc(), a = src.desc(), t = tmp.desc();                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .tmp = &t},        \
                       site, events...);)

#define TILESIM_PTO_GEN_ColReduce(NAME, ALG)                                                    \
  TILESIM_PTO_FN((typename TileDataOut, typename TileDataIn),                                   \
                 (is_tile_v<TileDataOut> && is_tile_v<TileDataIn>), NAME,                       \
                 (TileDataOut& dst, TileDataIn& src),                                           \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataIn::DType);                                 \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataOut, TileDataIn);                                     \
    const auto d = dst.desc(), a = src.desc();                                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a},                   \
                       site, events...);)                                                       \
  TILESIM_PTO_FN((typename TileDataOut, typename TileDataIn, typename TileDataTmp),             \
                 (detail::Instr::NAME == detail::Instr::TCOLSUM && /* only TCOLSUM has a        \
                  tmp form */ is_tile_v<TileDataOut> && is_tile_v<TileDataIn> &&                \
                  is_tile_v<TileDataTmp>), NAME,                                                \
                 (TileDataOut& dst, TileDataIn& src, TileDataTmp& tmp, bool isBinary),          \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataIn::DType);                                 \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataOut, TileDataIn);                                     \
    const auto d = dst.desc(), a = src.desc(), t = tmp.desc();                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .tmp = &t,         \
                 .is_binary = isBinary}, site, events...);)

#define TILESIM_PTO_GEN_RowArg(NAME, ALG)                                                       \
  TILESIM_PTO_FN((typename TileDataOut, typename TileDataIn, typename TileDataTmp),             \
                 (is_tile_v<TileDataOut> && is_tile_v<TileDataIn> &&                            \
                  is_tile_v<TileDataTmp>), NAME,                                                \
                 (TileDataOut& dst, TileDataIn& src, TileDataTmp& tmp),                         \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataIn::DType);                                 \
    const auto d = dst.desc(), a = src.desc(), t = tmp.desc();                                  \
    return detail::run({.instr = detail::Instr::NAME, .src0 = &a, .tmp = &t, .dst_idx = &d},    \
                       site, events...);)                                                       \
  TILESIM_PTO_FN((typename TileDataOutVal, typename TileDataOutIdx, typename TileDataIn,        \
                  typename TileDataTmp),                                                        \
                 (is_tile_v<TileDataOutVal> && is_tile_v<TileDataOutIdx> &&                     \
                  is_tile_v<TileDataIn> && is_tile_v<TileDataTmp>), NAME,                       \
                 (TileDataOutVal& dstVal, TileDataOutIdx& dstIdx, TileDataIn& src,              \
                  TileDataTmp& tmp),                                                            \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataIn::DType);                                 \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataOutVal, TileDataIn);                                  \
    const auto v = dstVal.desc(), d = dstIdx.desc(), a = src.desc(), t = tmp.desc();            \
    return detail::run(                                                                         \
        {.instr = detail::Instr::NAME, .dst = &v, .src0 = &a, .tmp = &t, .dst_idx = &d},        \
                       site, events...);)
#define TILESIM_PTO_GEN_ColArg TILESIM_PTO_GEN_RowArg

#define TILESIM_PTO_GEN_RowExpand(NAME, ALG)                                                    \
  TILESIM_PTO_FN((typename TileDataDst, typename TileDataSrc),                                  \
                 (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc>), NAME,                      \
                 (TileDataDst& dst, TileDataSrc& src),                                          \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataDst::DType);                                \
    TILESIM_PTO_SAME_ASSERT(NAME, TileDataDst, TileDataSrc);                                    \
    const auto d = dst.desc(), a = src.desc();                                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a},                   \
                       site, events...);)
#define TILESIM_PTO_GEN_ColExpand TILESIM_PTO_GEN_RowExpand
#define TILESIM_PTO_GEN_ColExpandOp TILESIM_PTO_GEN_Binary

#define TILESIM_PTO_GEN_Convert(NAME, ALG)                                                      \
  TILESIM_PTO_FN((bool NeedSetCtrl = true, typename TileDataD, typename TileDataS,              \
                  typename TmpTileData),                                                        \
                 (is_tile_v<TileDataD> && is_tile_v<TileDataS> && is_tile_v<TmpTileData>),      \
                  NAME,                                                                         \
                 (TileDataD& dst, TileDataS& src, TmpTileData& tmp, RoundMode mode,             \
                  SaturationMode satMode),                                                      \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataS::DType);                                  \
    const auto d = dst.desc(), a = src.desc(), t = tmp.desc();                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .tmp = &t,         \
                 .round = uint8_t(mode), .sat = int8_t(satMode), .need_set_ctrl = NeedSetCtrl}, \
                       site, events...);)                                                       \
  TILESIM_PTO_FN((bool NeedSetCtrl = true, typename TileDataD, typename TileDataS,              \
                  typename TmpTileData),                                                        \
                 (is_tile_v<TileDataD> && is_tile_v<TileDataS> && is_tile_v<TmpTileData>),      \
                  NAME,                                                                         \
                 (TileDataD& dst, TileDataS& src, TmpTileData& tmp, RoundMode mode),            \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataS::DType);                                  \
    const auto d = dst.desc(), a = src.desc(), t = tmp.desc();                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .tmp = &t,         \
                 .round = uint8_t(mode), .need_set_ctrl = NeedSetCtrl}, site, events...);)      \
  TILESIM_PTO_FN((bool NeedSetCtrl = true, typename TileDataD, typename TileDataS),             \
                 (is_tile_v<TileDataD> && is_tile_v<TileDataS>), NAME,                          \
                 (TileDataD& dst, TileDataS& src, RoundMode mode, SaturationMode satMode),      \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataS::DType);                                  \
    const auto d = dst.desc(), a = src.desc();                                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .round = uint8_t(mode), \
                 .sat = int8_t(satMode), .need_set_ctrl = NeedSetCtrl}, site, events...);)      \
  TILESIM_PTO_FN((bool NeedSetCtrl = true, typename TileDataD, typename TileDataS),             \
                 (is_tile_v<TileDataD> && is_tile_v<TileDataS>), NAME,                          \
                 (TileDataD& dst, TileDataS& src, RoundMode mode),                              \
    TILESIM_PTO_DTYPE_ASSERT(NAME, typename TileDataS::DType);                                  \
    const auto d = dst.desc(), a = src.desc();                                                  \
    return detail::run({.instr = detail::Instr::NAME, .dst = &d, .src0 = &a, .round = uint8_t(mode), \
                 .need_set_ctrl = NeedSetCtrl}, site, events...);)

// Memory, movement and matrix rows have families of overloads: written out in tilesim/pto/kernel.hpp.
#define TILESIM_PTO_GEN_Load(NAME, ALG)
#define TILESIM_PTO_GEN_Store(NAME, ALG)
#define TILESIM_PTO_GEN_Prefetch(NAME, ALG)
#define TILESIM_PTO_GEN_Move(NAME, ALG)
#define TILESIM_PTO_GEN_Transpose(NAME, ALG)
#define TILESIM_PTO_GEN_Extract(NAME, ALG)
#define TILESIM_PTO_GEN_Reshape(NAME, ALG)
#define TILESIM_PTO_GEN_FillPad(NAME, ALG)
#define TILESIM_PTO_GEN_Matmul(NAME, ALG)
#define TILESIM_PTO_GEN_MatmulAcc(NAME, ALG)
#define TILESIM_PTO_GEN_MatmulBias(NAME, ALG)
#define TILESIM_PTO_GEN_Gather(NAME, ALG)
#define TILESIM_PTO_GEN_Scatter(NAME, ALG)
#define TILESIM_PTO_GEN(NAME, KIND, OP, ALG, PIPE, A2A3, A5) TILESIM_PTO_GEN_##KIND(NAME, ALG)
TILESIM_PTO_INSTRS(TILESIM_PTO_GEN)
#undef TILESIM_PTO_GEN

}  // namespace pto

#include "tilesim/pto/kernel.hpp"
// TPRINT (docs/pto.md#tprint).
#include "tilesim/pto/print.hpp"

#undef TILESIM_PTO_NO_PREFIX
#undef TILESIM_PTO_DIV_PREFIX
#undef TILESIM_PTO_ROWEXPAND
#undef TILESIM_PTO_STATIC_CHECKS
#undef TILESIM_PTO_FN
#undef TILESIM_PTO_UNPAREN

// The element types at global scope, as the vendor's CPU-simulator headers declare them (spec 21
// §1): `half` and `bfloat16_t` name pto's entities, so `using namespace pto;` stays unambiguous.
using pto::bfloat16_t;
using pto::half;
using aclFloat16 = pto::half;
using float16_t = pto::half;
using float32_t = float;

#ifdef __CPU_SIM
// The vendor's CPU build defines __CPU_SIM: such a translation unit runs on the `cpu` target's
// legality by default (spec 21 §5); pto::set_target still switches it.
namespace pto::detail {
inline const bool kCpuSimTarget = (tilesim::pto::set_default_target_cpu_sim(), true);
}
#endif
