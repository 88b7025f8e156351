// PTO TPRINT (docs/pto.md#tprint): a Vec tile, a GlobalTensor (ND, DN, NZ), or an Acc / Mat tile
// through a GM tmp, printed to stdout in pto-isa's format for the current target: the device's
// ("=== [TPRINT Tile] ... ===", every element, '|' and '-' marking the valid region) on a2a3 and
// a5, the CPU simulator's ("TPRINT RxC", the valid region) on cpu. Inside a multi-block launch
// every line starts with "[Block i/n] " and goes to the block's buffer. Included by tilesim/pto.hpp
// after the tiles and GlobalTensor. Throws tilesim::Error: a tile or dtype the target cannot print.
#pragma once
#include <cstdint>
#include <string>

#include "tilesim/pto.hpp"
#include "tilesim/pto/engine.hpp"

namespace pto {
// The vendor's print formats (pto-isa include/pto/common/type.hpp values).
enum class PrintFormat : uint8_t {
  Width8_Precision4 = 0,
  Width8_Precision2 = 1,
  Width10_Precision6 = 2
};
}  // namespace pto

namespace tilesim::pto {

// TPRINT(tile) (tmp = nullptr) and TPRINT(tile, tmp) on target t: the text it prints; the tmp form
// of an Acc or Mat tile also leaves the tile's elements in tmp, row-major, as the device does.
std::string tprint(const TileDesc& tile, const GmDesc* tmp, ::pto::PrintFormat format,
                   const Target& t);
// TPRINT(globalTensor) on target t.
std::string tprint(const GmDesc& g, ::pto::PrintFormat format, const Target& t);
// The C++ front end's calls: the current target; the text goes to stdout (or the block's buffer).
void tprint_current(const TileDesc& tile, const GmDesc* tmp, ::pto::PrintFormat format);
void tprint_current(const GmDesc& g, ::pto::PrintFormat format);

}  // namespace tilesim::pto

namespace pto {

template <PrintFormat Format = PrintFormat::Width8_Precision4, typename TileData>
requires(is_tile_v<TileData>) void TPRINT(TileData& src) {
  static_assert(detail::kIsPtoDType<typename TileData::DType>,
                "TPRINT: DType is not a PTO tile type [docs/pto.md#tprint]");
  const auto d = src.desc();
  tilesim::pto::tprint_current(d, nullptr, Format);
}

template <PrintFormat Format = PrintFormat::Width8_Precision4, typename GlobalData>
requires(detail::kIsGm<GlobalData>) void TPRINT(GlobalData& src) {
  constexpr Layout L = std::remove_cvref_t<GlobalData>::layout;
  static_assert(L == Layout::ND || L == Layout::DN || L == Layout::NZ,
                "TPRINT: a GlobalTensor prints in layout ND, DN or NZ [docs/pto.md#tprint]");
  const auto g = src.gm_desc();
  tilesim::pto::tprint_current(g, Format);
}

template <PrintFormat Format = PrintFormat::Width8_Precision4, typename TileData,
          typename GlobalData>
requires(is_tile_v<TileData>&& detail::kIsGm<GlobalData>) void TPRINT(TileData& src,
                                                                      GlobalData& tmp) {
  static_assert(detail::kIsPtoDType<typename TileData::DType>,
                "TPRINT: DType is not a PTO tile type [docs/pto.md#tprint]");
  const auto d = src.desc();
  const auto g = tmp.gm_desc();
  tilesim::pto::tprint_current(d, &g, Format);
}

}  // namespace pto
