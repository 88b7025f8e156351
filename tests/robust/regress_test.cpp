// Replays every checked-in fuzz input through the same entry points as the libFuzzer targets
// (tests/fuzz/body_*.hpp): the minimized findings in tests/regress/<target>/ (each one a crash,
// hang, sanitizer report or wrong acceptance that was fixed) and the seed corpora in
// tests/fuzz/corpus/<target>/. A broken invariant throws here instead of aborting, so the test
// names the file; a crash or sanitizer report fails the test binary (run under the asan preset).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#define TILESIM_FUZZ_FAIL(why) throw std::logic_error(why)
#include "fuzz/body_cli_args.hpp"
#include "fuzz/body_linx_asm.hpp"
#include "fuzz/body_linx_machine.hpp"
#include "fuzz/body_npy.hpp"
#include "fuzz/body_pto_as.hpp"

namespace fs = std::filesystem;

namespace {

using Body = std::function<int(const uint8_t*, size_t)>;

struct Target {
  const char* name;
  Body body;
};

const Target kTargets[] = {
    {"fuzz_npy", tilesim_fuzz::npy_one},
    {"fuzz_linx_asm", tilesim_fuzz::linx_asm_one},
    {"fuzz_linx_machine", tilesim_fuzz::linx_machine_one},
    {"fuzz_pto_as", tilesim_fuzz::pto_as_one},
    {"fuzz_cli_args", tilesim_fuzz::cli_args_one},
};

std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Replays the files of `dir` (if it exists); returns how many.
int replay(const fs::path& dir, const Target& t) {
  if (!fs::is_directory(dir)) return 0;
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const auto bytes = read_all(e.path());
    try {
      t.body(bytes.data(), bytes.size());
    } catch (const std::logic_error& err) {
      ADD_FAILURE() << t.name << " " << e.path() << ": " << err.what();
    } catch (const std::exception& err) {
      ADD_FAILURE() << t.name << " " << e.path() << ": escaped " << err.what();
    }
    ++n;
  }
  return n;
}

const fs::path kRoot = fs::path(TILESIM_SOURCE_DIR) / "tests";

TEST(Regress, EveryFindingReplaysClean) {
  int n = 0;
  for (const auto& t : kTargets) n += replay(kRoot / "regress" / t.name, t);
  // the folder holds the fixed findings; every target directory listed above may be empty
  RecordProperty("regress_files", n);
}

TEST(Regress, EverySeedCorpusReplaysClean) {
  for (const auto& t : kTargets)
    EXPECT_GT(replay(kRoot / "fuzz" / "corpus" / t.name, t), 0) << t.name;
}

}  // namespace
