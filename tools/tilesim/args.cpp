// The `tilesim` command line (spec 60 §5): CLI11 parses the subcommands and options; the few
// values CLI11 cannot type (NAME=FILE, Q=FILE:DTYPE:LAYOUT, REG=VALUE, words) are parsed here with
// strict rules, so a typo is an error naming the option rather than a silently different value.
#include "args.hpp"

#include <CLI/CLI.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <sstream>

#include "tilesim/compare.hpp"
#include "tilesim/error.hpp"
#include "tilesim/version.hpp"

namespace tilesim::cli {

std::string check_run_options(const CLI::App& run, const std::string& file);

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
  // Each engine's options are in its group; a run of another engine's program rejects them
  // (check_run_options) rather than ignoring them.
  rn->add_option("--target", o.target, "PTO target (a2a3, a5, cpu)")->group(kPtoGroup);
  rn->add_option("--in", o.in, "NAME=FILE.npy input (PTO)")->allow_extra_args(false)->group(kPtoGroup);
  rn->add_option("--out", o.outs, "NAME=FILE.npy output (PTO)")->allow_extra_args(false)->group(kPtoGroup);
  rn->add_option("--reg", o.regs,
                 "REG=VALUE (LinxISA; decimal, 0x hex or 0b binary, '-' = two's complement)")
      ->allow_extra_args(false)
      ->group(kLinxGroup);
  rn->add_option("--tile", o.tiles, "Q=FILE.npy:DTYPE:LAYOUT tile pushed to queue Q (LinxISA)")
      ->allow_extra_args(false)
      ->group(kLinxGroup);
  rn->add_option("--acc-out", o.acc_out, "write ACC to FILE.npy (LinxISA)")->group(kLinxGroup);
  rn->add_option("--mem", o.mem, "ADDR=FILE.npy|FILE.bin bytes written to memory before the run (LinxISA)")
      ->allow_extra_args(false)
      ->group(kLinxGroup);
  rn->add_option("--mem-out", o.mem_out, "ADDR:NBYTES=OUT.bin memory bytes written after the run (LinxISA)")
      ->allow_extra_args(false)
      ->group(kLinxGroup);
  rn->add_option("--arg", o.args, "NAME=VALUE scalar argument of a PTOAS func.func (PTO)")
      ->allow_extra_args(false)
      ->group(kPtoGroup);
  rn->add_option("--entry", o.entry,
                 "the func.func to run (PTO; default: the one marked pto.entry, else the first)")
      ->group(kPtoGroup);
  rn->add_option("--check", o.check, "sync: report pipeline hazards (missing set_flag/wait_flag), exit 1 on any (PTO)")
      ->check(CLI::IsMember({"sync", "off"}))
      ->group(kPtoGroup);
  rn->add_option("--sync-timeline", o.sync_timeline,
                 "with --check sync: write the run as a Chrome/Perfetto trace FILE.json (PTO)")
      ->group(kPtoGroup);
  rn->add_option("--max-mem", o.max_mem, "cap on the bytes of a PTO-AS run's tiles (default 2^30)")
      ->group(kPtoGroup);
  rn->add_option("--expect", o.expect, "NAME=FILE.npy: exit 1 unless result NAME matches (LinxISA: acc)")
      ->allow_extra_args(false)
      ->group(kCheckGroup);
  auto* rtol = rn->add_option("--rtol", o.rtol, "relative tolerance of --expect (default 0)")->group(kCheckGroup);
  auto* atol = rn->add_option("--atol", o.atol, "absolute tolerance of --expect (default 0)")->group(kCheckGroup);
  rn->add_flag("--bits", o.bits, "--expect compares bit patterns")
      ->group(kCheckGroup)
      ->excludes(rtol)
      ->excludes(atol);
  rn->add_option("--trace", o.trace, "write one JSON line per executed instruction to FILE ('-': stdout)")
      ->group(kCheckGroup);
  rn->add_flag("--trace-values", o.trace_values, "the trace holds the full contents of small results")
      ->group(kCheckGroup);

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
  if (cmd == Subcommand::run) {
    if (const std::string why = check_run_options(*rn, o.file); !why.empty()) {
      err << "tilesim run: " << why << "\n";
      return 1;
    }
  }
  return -1;
}

const char* engine_group(const std::string& file) {
  std::string ext = std::filesystem::path(file).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".pto") return kPtoGroup;
  if (ext == ".s" || ext == ".bin") return kLinxGroup;
  return nullptr;
}

// No silent success (docs/cli.md#run): an option of another engine's group is an error naming
// it, not ignored. Without FILE (the bundled examples) only --target applies (the PTO example's
// target); an unknown extension is left to the dispatcher, which names it.
std::string check_run_options(const CLI::App& run, const std::string& file) {
  const char* engine = file.empty() ? nullptr : engine_group(file);
  if (!file.empty() && !engine) return {};
  for (const CLI::Option* opt : run.get_options()) {
    if (opt->count() == 0 || opt->get_group() == "Options" || opt->get_positional()) continue;
    const std::string& g = opt->get_group();
    if (g == kCheckGroup) {
      if (file.empty())
        return opt->get_name() + " applies to a program run (tilesim run FILE ...), not to the bundled examples"
                                 " [docs/cli.md#run]";
      const std::string n = opt->get_name();
      if ((n == "--rtol" || n == "--atol" || n == "--bits") && run.get_option("--expect")->count() == 0)
        return n + " applies only with --expect [docs/cli.md#expect]";
      if (n == "--trace-values" && run.get_option("--trace")->count() == 0)
        return "--trace-values applies only with --trace FILE [docs/cli.md#trace]";
      continue;
    }
    if (g != kPtoGroup && g != kLinxGroup) continue;
    if (opt->get_name() == "--sync-timeline" && run.get_option("--check")->as<std::string>() != "sync")
      return "--sync-timeline applies only with --check sync [docs/sync.md#timeline]";
    if (file.empty() && opt->get_name() == "--target") continue;
    if (engine && g == engine) continue;
    return opt->get_name() + " applies to " + g + " programs, not to " +
           (file.empty() ? std::string("the bundled examples (tilesim run with no FILE)")
                         : "'" + file + "' (" + engine + ")") +
           " [docs/cli.md#run]";
  }
  return {};
}

std::string read_input(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    raise(ErrorCode::Io, "tilesim", what + " '" + path + "' is a directory, not a file",
          "docs/cli.md#input-files");
  std::ifstream f(path, std::ios::binary);
  if (!f)
    raise(ErrorCode::Io, "tilesim",
          "cannot read " + what + " '" + path + "'" +
              (std::filesystem::exists(path, ec) ? " (permission denied)" : " (no such file)"),
          "docs/cli.md#input-files");
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad())
    raise(ErrorCode::Io, "tilesim", "read error on " + what + " '" + path + "'",
          "docs/cli.md#input-files");
  std::string bytes = s.str();
  if (bytes.empty())
    raise(ErrorCode::Io, "tilesim", what + " '" + path + "' is empty", "docs/cli.md#input-files");
  return bytes;
}

void check_output_path(const std::string& path, const std::string& what) {
  std::error_code ec;
  namespace fs = std::filesystem;
  if (fs::is_directory(path, ec))
    raise(ErrorCode::Io, "tilesim", what + ": '" + path + "' is a directory, not a file",
          "docs/cli.md#input-files");
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    raise(ErrorCode::Io, "tilesim",
          what + ": cannot write '" + path + "': folder '" + parent.string() + "' does not exist",
          "docs/cli.md#input-files");
}

TraceFile::TraceFile(const Options& o) {
  if (o.trace.empty()) return;
  if (o.trace == "-") {
    out_ = &std::cout;
    return;
  }
  check_output_path(o.trace, "--trace");
  file_ = std::make_unique<std::ofstream>(o.trace, std::ios::trunc);
  if (!*file_) raise(ErrorCode::Io, "tilesim run --trace", "cannot write '" + o.trace + "'", "docs/cli.md#trace");
  out_ = file_.get();
}

Expectations load_expectations(const Options& o) {
  if (!(o.rtol >= 0) || !(o.atol >= 0))
    raise(ErrorCode::Parse, "tilesim run", "--rtol and --atol must be >= 0", "docs/cli.md#expect");
  Expectations e;
  for (const auto& s : o.expect) {
    auto [name, path] = split_assignment(s, "--expect");
    if (name[0] == '%') name = name.substr(1);
    for (const auto& [n, p] : e.items)
      if (n == name) raise(ErrorCode::Parse, "tilesim run --expect", "'" + name + "' given twice", "docs/cli.md#expect");
    e.arrays.push_back(npy::load(path));
    e.items.emplace_back(name, path);
  }
  return e;
}

int check_expectations(const Options& o, const Expectations& e,
                       const std::function<const npy::Array*(const std::string&)>& find,
                       const std::string& names) {
  CompareOptions co;
  co.rtol = o.rtol;
  co.atol = o.atol;
  co.bits = o.bits;
  // Every name resolved and every pair comparable before any verdict is printed.
  std::vector<CompareReport> reports;
  for (size_t k = 0; k < e.items.size(); ++k) {
    const npy::Array* got = find(e.items[k].first);
    if (!got)
      raise(ErrorCode::Constraint, "tilesim run --expect",
            "'" + e.items[k].first + "' is not a result of the run (its results: " + names + ")",
            "docs/cli.md#expect");
    try {
      reports.push_back(compare(*got, e.arrays[k], co));
    } catch (const Error& err) {
      throw Error(err.code(), "tilesim run --expect " + e.items[k].first + "=" + e.items[k].second + ": " + err.what());
    }
  }
  int status = 0;
  for (size_t k = 0; k < reports.size(); ++k) {
    std::cout << "expect " << reports[k].text(e.items[k].first);
    if (!reports[k].ok()) status = 1;
  }
  return status;
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    raise(ErrorCode::Parse, option, "expected NAME=VALUE, got '" + text + "'", "docs/cli.md#run");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

uint64_t parse_integer(const std::string& text, const char* option, bool negative_ok,
                       uint64_t max) {
  auto bad = [&](const std::string& why) {
    raise(ErrorCode::Parse, option, "'" + text + "' is not a valid number: " + why, "docs/cli.md#run");
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
          "docs/cli.md#run");
  TileArg t;
  t.queue = q[0];
  t.path = rest.substr(0, c1);
  try {  // the engine's own name lookups, so the CLI accepts exactly the names the engine does
    t.dtype = formats::parse_dtype(rest.substr(c1 + 1, c2 - c1 - 1), "dtype");
    t.layout = linx::parse_layout(rest.substr(c2 + 1));
  } catch (const Error& e) {
    throw Error(ErrorCode::Parse,
                "--tile: in '" + text + "': " + e.what());  // keeps the engine's [docs/...] citation
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
