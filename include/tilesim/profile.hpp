// Target/product/chip profiles are data tables, one per model (spec 00 "Target profiles").
// A model declares `struct XProfile { const char* name; ...fields... };` and a
// `static constexpr XProfile kRows[] = {...}`, then looks a name up with find_profile.
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include <span>
#include <string>
#include <string_view>

#include "tilesim/error.hpp"

namespace tilesim {

namespace detail {
bool iequals(std::string_view a, std::string_view b) noexcept;
[[noreturn]] void unknown_profile(std::string_view kind, std::string_view name, std::string valid_list);
}  // namespace detail

// Returns the row whose name matches (case-insensitive), or raises Error(Unsupported) naming
// the kind ("PTO target", "Ascend C product", ...) and listing every valid name.
template <class Row>
const Row& find_profile(std::span<const Row> rows, std::string_view kind, std::string_view name) {
  for (const Row& r : rows)
    if (detail::iequals(r.name, name)) return r;
  std::string valid;
  for (const Row& r : rows) {
    if (!valid.empty()) valid += ", ";
    valid += r.name;
  }
  detail::unknown_profile(kind, name, valid);
}

}  // namespace tilesim
