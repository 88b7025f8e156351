// Where `tilesim run` with no FILE finds its bundled examples (docs/cli.md#bundled-examples): an
// installed CLI reads <prefix>/share/tilesim found from its own executable (bin/../share), so a relocated install
// works without the source tree; only the CLI in its own build directory falls back to the
// source tree it was built from (there is no share/ beside it). Never a path guessed elsewhere.
#include <filesystem>
#include <system_error>

#include "cli.hpp"
#include "tilesim/error.hpp"

namespace tilesim::cli {

namespace {
namespace fs = std::filesystem;

fs::path own_directory() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);  // Linux: the running executable
  return ec ? fs::path() : exe.parent_path();
}

bool same_directory(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return !a.empty() && fs::equivalent(a, b, ec) && !ec;
}
}  // namespace

std::string data_dir(const std::string& sub) {
  std::error_code ec;
  const fs::path bin = own_directory();
  const fs::path installed = bin / TILESIM_BIN_TO_DATA / "tilesim" / sub;
  if (!bin.empty() && fs::is_directory(installed, ec)) return installed.lexically_normal().string();
  if (same_directory(bin, TILESIM_CLI_BUILD_DIR)) {
    const fs::path source = fs::path(TILESIM_SOURCE_DIR) / sub;
    if (fs::is_directory(source, ec)) return source.string();
  }
  raise(ErrorCode::Io, "tilesim run",
        "the bundled " + sub + " are not installed: no directory '" +
            installed.lexically_normal().string() +
            "' (install tilesim with cmake --install, which puts them in <prefix>/share/tilesim)",
        "docs/cli.md#bundled-examples");
}

}  // namespace tilesim::cli
