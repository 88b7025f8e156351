// The `tilesim` command line (spec 60 §5): CLI11 parses the subcommands and options; the few
// values CLI11 cannot type (NAME=FILE, Q=FILE:DTYPE:LAYOUT, REG=VALUE, words) are parsed here with
// strict rules, so a typo is an error naming the option rather than a silently different value.
#include "args.hpp"

#include <CLI/CLI.hpp>
#include <ostream>

#include "tilesim/error.hpp"
#include "tilesim/version.hpp"

namespace tilesim::cli {

int parse_command_line(int argc, const char* const* argv, Options& o, Subcommand& cmd,
                       std::ostream& out, std::ostream& err) {
  CLI::App app{
      "tilesim: a bit-exact, fast CPU twin of AI-accelerator tile and vector instructions"};
  app.set_version_flag("--version", std::string("tilesim ") + tilesim::version());
  app.require_subcommand(1);

  auto* as = app.add_subcommand("asm", "assemble LinxISA text into 32-bit words");
  as->add_option("FILE", o.file, "LinxISA assembly file")->required();
  as->add_option("-o", o.out, "write the words to OUT.bin (little-endian)");
  as->add_flag("--hex", o.hex, "print \"0xXXXXXXXX  <raw form>\" per word");

  auto* ds = app.add_subcommand("disasm", "disassemble LinxISA words");
  ds->add_option("FILE", o.file, "binary file of little-endian 32-bit words");
  ds->add_option("--words", o.words, "words given on the command line (0x...)");
  ds->add_flag("--fold", o.fold, "fold block headers back into template form");

  auto* rn = app.add_subcommand(
      "run", "run a PTO-AS (.pto) or LinxISA (.s/.bin) program; no FILE: bundled examples");
  rn->add_option("FILE", o.file, "program file");
  rn->add_option("--target", o.target, "PTO target (a2a3, a5, cpu)");
  rn->add_option("--in", o.in, "NAME=FILE.npy input (PTO)")->allow_extra_args(false);
  rn->add_option("--out", o.outs, "NAME=FILE.npy output (PTO)")->allow_extra_args(false);
  rn->add_option("--reg", o.regs,
                 "REG=VALUE (LinxISA; decimal, 0x hex or 0b binary, '-' = two's complement)")
      ->allow_extra_args(false);
  rn->add_option("--tile", o.tiles, "Q=FILE.npy:DTYPE:LAYOUT tile pushed to queue Q (LinxISA)")
      ->allow_extra_args(false);
  rn->add_option("--acc-out", o.acc_out, "write ACC to FILE.npy (LinxISA)");
  rn->add_option("--mem", o.mem, "ADDR=FILE.npy|FILE.bin bytes written to memory before the run (LinxISA)")
      ->allow_extra_args(false);
  rn->add_option("--mem-out", o.mem_out, "ADDR:NBYTES=OUT.bin memory bytes written after the run (LinxISA)")
      ->allow_extra_args(false);
  rn->add_option("--arg", o.args, "NAME=VALUE scalar argument of a PTOAS func.func (PTO)")
      ->allow_extra_args(false);
  rn->add_option("--entry", o.entry, "the func.func to run (PTO; default: the first)");
  rn->add_option("--max-mem", o.max_mem, "cap on the bytes of a PTO-AS run's tiles (default 2^30)");

  // --in/--out/--reg/--tile repeat per value (spec 60 §5: "[--reg a0=64]..."), so each takes
  // exactly one: otherwise `run --tile T=x.npy:fp16:nz prog.s` would swallow the program as another
  // tile.
  cmd = Subcommand::none;
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    app.exit(e, out, err);
    return 1;  // usage error (spec 60 §5)
  }
  cmd = *as ? Subcommand::asm_ : *ds ? Subcommand::disasm : Subcommand::run;
  if (cmd == Subcommand::disasm && o.file.empty() && o.words.empty()) {
    err << "tilesim disasm: give FILE.bin or --words\n";
    return 1;
  }
  return -1;
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    raise(ErrorCode::Parse, option, "expected NAME=VALUE, got '" + text + "'", "60 §5");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

uint64_t parse_integer(const std::string& text, const char* option, bool negative_ok,
                       uint64_t max) {
  auto bad = [&](const std::string& why) {
    raise(ErrorCode::Parse, option, "'" + text + "' is not a valid number: " + why, "60 §5");
  };
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) {
    if (!negative_ok) bad("no sign allowed");
    i = 1;
  }
  unsigned base = 10;
  if (text.size() > i + 1 && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X'))
    base = 16, i += 2;
  else if (text.size() > i + 1 && text[i] == '0' && (text[i + 1] == 'b' || text[i + 1] == 'B'))
    base = 2, i += 2;
  if (i == text.size()) bad("no digits");
  const uint64_t limit = negative ? (uint64_t{1} << 63) : max;
  uint64_t v = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    unsigned d = 16;
    if (c >= '0' && c <= '9')
      d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a') + 10;
    else if (c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A') + 10;
    if (d >= base) bad(std::string("unexpected character '") + c + "'");
    if (v > (limit - d) / base) bad("out of range (largest " + std::to_string(limit) + ")");
    v = v * base + d;
  }
  return negative ? ~v + 1 : v;  // two's complement of the magnitude
}

TileArg parse_tile_arg(const std::string& text) {
  const auto [q, rest] = split_assignment(text, "--tile");
  // FILE may itself hold ':' (a Windows-style or odd path), so DTYPE and LAYOUT are the last two
  // fields.
  const size_t c2 = rest.rfind(':');
  const size_t c1 =
      c2 == std::string::npos || c2 == 0 ? std::string::npos : rest.rfind(':', c2 - 1);
  if (q.size() != 1 || c1 == std::string::npos || c1 == 0)
    raise(ErrorCode::Parse, "--tile", "expected Q=FILE.npy:DTYPE:LAYOUT, got '" + text + "'",
          "60 §5");
  TileArg t;
  t.queue = q[0];
  t.path = rest.substr(0, c1);
  try {  // the engine's own name lookups, so the CLI accepts exactly the names the engine does
    t.dtype = formats::parse_dtype(rest.substr(c1 + 1, c2 - c1 - 1), "dtype");
    t.layout = linx::parse_layout(rest.substr(c2 + 1));
  } catch (const Error& e) {
    throw Error(ErrorCode::Parse,
                "--tile: in '" + text + "': " + e.what());  // keeps the engine's [spec ...]
  }
  return t;
}

std::pair<std::string, uint64_t> parse_reg_arg(const std::string& text) {
  auto [name, value] = split_assignment(text, "--reg");
  return {std::move(name), parse_integer(value, "--reg", true, ~uint64_t{0})};
}

uint32_t parse_word(const std::string& text) {
  return static_cast<uint32_t>(parse_integer(text, "--words", false, 0xFFFFFFFFu));
}

}  // namespace tilesim::cli
