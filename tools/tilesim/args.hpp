// The `tilesim` command line as data (spec 60 §5): the CLI11 description of every subcommand and
// option, and the parsers of the option values the CLI reads itself (NAME=FILE,
// Q=FILE:DTYPE:LAYOUT, REG=VALUE, 32-bit words). Kept apart from main.cpp and the model front ends
// so the libFuzzer target tests/fuzz/fuzz_cli_args.cpp and the unit tests in tests/cli run exactly
// this code.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/linx.hpp"

namespace tilesim::cli {

enum class Subcommand { none, asm_, disasm, run };

// The option groups of `tilesim run`, one per engine (docs/cli.md#run).
inline constexpr const char* kPtoGroup = "PTO-AS (.pto)";
inline constexpr const char* kLinxGroup = "LinxISA (.s, .bin)";
inline constexpr const char* kCheckGroup = "Checking and tracing (.pto, .s, .bin)";

// The group of the engine that runs FILE (by its extension), or nullptr if none does.
const char* engine_group(const std::string& file);

// Parses argv into `o` and `cmd`. Returns -1 when the command should go on; otherwise the exit
// status to return at once (0 after --help/--version, 1 for a usage error, spec 60 §5), having
// written the help, version or usage message to `out` / `err`.
int parse_command_line(int argc, const char* const* argv, Options& o, Subcommand& cmd,
                       std::ostream& out, std::ostream& err);

// --tile Q=FILE.npy:DTYPE:LAYOUT (spec 60 §5): one queue letter, a path (which may itself hold
// ':'), a format name (spec 10 §1) and a layout (nz, zn, nd; spec 30 §2).
struct TileArg {
  char queue = 0;
  std::string path;
  formats::DType dtype{};
  linx::Layout layout{};
};
TileArg parse_tile_arg(const std::string& text);

// --reg REG=VALUE: VALUE is a 64-bit register value, decimal, 0x hexadecimal or 0b binary, with an
// optional leading '-' meaning its two's complement (README "Semantics decisions": no octal, no
// spaces, no '+'). The register name is checked by the machine (linx::Machine::set_reg).
std::pair<std::string, uint64_t> parse_reg_arg(const std::string& text);

// disasm --words: one 32-bit word, 0x hexadecimal, 0b binary or decimal, no sign.
uint32_t parse_word(const std::string& text);

// The integer syntax shared by --reg and --words. `negative_ok` allows the leading '-'; `max` is
// the largest magnitude accepted (for '-', up to 2^63). Raises Error(Parse) naming `option`.
uint64_t parse_integer(const std::string& text, const char* option, bool negative_ok, uint64_t max);

}  // namespace tilesim::cli
