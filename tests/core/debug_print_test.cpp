// The debug-print formatter (src/core/debug_print.cpp) on arbitrary formats: every format string,
// however malformed, with any arguments, either formats or raises Error(Constraint); nothing is
// read that the format's conversions were not checked against (run it under the asan preset too).
// And prefix_lines, the per-line prefix of TPRINT in a multi-block run.
#include "core/debug_print.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

using tilesim::debug::Arg;

TEST(DebugPrintFormat, RandomFormatsFormatOrRaise) {
  const std::string alphabet = "%%%%%-+ #0123456789.*hlLjztqdiuoxXcspfFeEgGaAnk \n\t\x01\xff";
  std::mt19937 rng(21);
  const char* text = "text";
  int value = 0;
  const std::vector<Arg> pool = {tilesim::debug::arg(-5),
                                 tilesim::debug::arg(uint64_t(1) << 63),
                                 tilesim::debug::arg(int8_t(-1)),
                                 tilesim::debug::arg(true),
                                 tilesim::debug::arg(2.5f),
                                 tilesim::debug::arg(tilesim::half(-0.5f)),
                                 tilesim::debug::arg(1e300),
                                 tilesim::debug::arg(text),
                                 tilesim::debug::arg(static_cast<const char*>(nullptr)),
                                 tilesim::debug::arg(&value),
                                 tilesim::debug::arg(nullptr),
                                 tilesim::debug::arg(4096),
                                 tilesim::debug::arg(-4096)};
  int formatted = 0, raised = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string fmt;
    const int len = int(rng() % 12);
    for (int i = 0; i < len; ++i) fmt += alphabet[rng() % alphabet.size()];
    std::vector<Arg> args;
    const int nargs = int(rng() % 4);
    for (int i = 0; i < nargs; ++i) args.push_back(pool[rng() % pool.size()]);
    try {
      const std::string out =
          tilesim::debug::format("printf", fmt.c_str(), args, "docs/ascendc.md#debug-prints");
      EXPECT_LT(out.size(), size_t(20000)) << fmt;
      ++formatted;
    } catch (const tilesim::Error& e) {
      EXPECT_EQ(e.code(), tilesim::ErrorCode::Constraint) << e.what();
      ++raised;
    }
  }
  EXPECT_GT(formatted, 1000);
  EXPECT_GT(raised, 1000);
}

TEST(DebugPrintFormat, PrefixLines) {
  EXPECT_EQ(tilesim::debug::prefix_lines("a\nb\n", "> "), "> a\n> b\n");
  EXPECT_EQ(tilesim::debug::prefix_lines("a\nb", "> "), "> a\n> b");
  EXPECT_EQ(tilesim::debug::prefix_lines("", "> "), "");
}

}  // namespace
