#include "tilesim/profile.hpp"

#include <cctype>

namespace tilesim::detail {

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

void unknown_profile(std::string_view kind, std::string_view name, std::string valid_list) {
  std::string detail = "unknown ";
  detail.append(kind).append(" '").append(name).append("'; valid names: ").append(valid_list);
  raise(ErrorCode::Unsupported, "profile", detail, "docs/getting-started.md#target-profiles");
}

}  // namespace tilesim::detail
