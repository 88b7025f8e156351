// libFuzzer target: the `tilesim` command line (spec 60 §5) — CLI11's parse of the subcommands and
// options, and the CLI's own value parsers (NAME=FILE, Q=FILE:DTYPE:LAYOUT, REG=VALUE, words).
// The input is the argument list, one argument per '\n'-separated line. Every argument list must
// either parse or be a usage error (status 1) / help (status 0); every value must parse or raise
// tilesim::Error; what parses must print back to text that parses to the same value. Shared by
// fuzz_cli_args.cpp and the replay in tests/robust/regress_test.cpp.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#ifndef TILESIM_FUZZ_FAIL
#define TILESIM_FUZZ_FAIL(why) std::abort()
#endif

#include "tilesim/args.hpp"
#include "tilesim/error.hpp"

namespace tilesim_fuzz {
namespace detail {
namespace cli = tilesim::cli;

inline void tile_value(const std::string& s) {
  try {
    const cli::TileArg t = cli::parse_tile_arg(s);
    const std::string back = std::string(1, t.queue) + "=" + t.path + ":" +
                             std::string(tilesim::formats::name(t.dtype)) + ":" +
                             std::string(tilesim::linx::name(t.layout));
    const cli::TileArg u = cli::parse_tile_arg(back);
    if (u.queue != t.queue || u.path != t.path || u.dtype != t.dtype || u.layout != t.layout)
      TILESIM_FUZZ_FAIL("--tile value does not survive print and parse");
  } catch (const tilesim::Error&) {
  }
}

inline void reg_value(const std::string& s) {
  try {
    const auto [name, v] = cli::parse_reg_arg(s);
    if (name.empty() || cli::parse_reg_arg(name + "=" + std::to_string(v)).second != v)
      TILESIM_FUZZ_FAIL("--reg value does not survive print and parse");
    if (v >= uint64_t{1} << 63 &&
        cli::parse_reg_arg(name + "=-" + std::to_string(~v + 1)).second != v)
      TILESIM_FUZZ_FAIL("--reg two's complement does not survive print and parse");
  } catch (const tilesim::Error&) {
  }
}

inline void word_value(const std::string& s) {
  try {
    const uint32_t w = cli::parse_word(s);
    std::ostringstream hex;
    hex << "0x" << std::hex << w;
    if (cli::parse_word(hex.str()) != w || cli::parse_word(std::to_string(w)) != w)
      TILESIM_FUZZ_FAIL("--words value does not survive print and parse");
  } catch (const tilesim::Error&) {
  }
}

inline void assignment_value(const std::string& s) {
  try {
    const auto [name, file] = cli::split_assignment(s, "--in");
    if (name.empty() || file.empty() || name.find('=') != std::string::npos ||
        name + "=" + file != s)
      TILESIM_FUZZ_FAIL("NAME=FILE split is not the text it came from");
  } catch (const tilesim::Error&) {
  }
}
}  // namespace detail

inline int cli_args_one(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // a command line, not a file
  std::vector<std::string> args{"tilesim"};
  std::string cur;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n')
      args.push_back(std::move(cur)), cur.clear();
    else
      cur.push_back(static_cast<char>(data[i]));
  }
  args.push_back(cur);
  if (args.size() > 64) return 0;
  for (const auto& a : args) {  // every argument through every value parser, as CLI11 may reject it
    detail::tile_value(a);
    detail::reg_value(a);
    detail::word_value(a);
    detail::assignment_value(a);
  }

  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  tilesim::cli::Options o;
  tilesim::cli::Subcommand cmd = tilesim::cli::Subcommand::none;
  std::ostringstream out, err;
  const int status = tilesim::cli::parse_command_line(static_cast<int>(argv.size()), argv.data(), o,
                                                      cmd, out, err);
  if (status != -1 && status != 0 && status != 1)
    TILESIM_FUZZ_FAIL("exit status outside spec 60 §5");
  if (status == 1 && err.str().empty()) TILESIM_FUZZ_FAIL("usage error without a message");
  if (status == -1) {
    if (cmd == tilesim::cli::Subcommand::none) TILESIM_FUZZ_FAIL("parsed without a subcommand");
    for (const auto& s : o.tiles) detail::tile_value(s);
    for (const auto& s : o.regs) detail::reg_value(s);
    for (const auto& s : o.words) detail::word_value(s);
  }
  return 0;
}
}  // namespace tilesim_fuzz
