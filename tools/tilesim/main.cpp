// tilesim — the command-line front end (spec 60 §5). Parses options and dispatches to the
// commands the model front ends registered (cli.hpp).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli.hpp"
#include "tilesim/error.hpp"
#include "tilesim/version.hpp"

namespace tilesim::cli {

Hooks& hooks() {
  static Hooks h;
  return h;
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    raise(ErrorCode::Parse, option, "expected NAME=VALUE, got '" + text + "'", "60 §5");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

namespace {

int not_built(const char* what) {
  std::cerr << "tilesim " << what << ": the engine for this is not built yet\n";
  return 1;
}

int run_command(const Options& o) {
  const Hooks& h = hooks();
  if (o.file.empty()) {
    if (h.run_default.empty()) return not_built("run");
    int status = 0;
    for (const auto& [model, fn] : h.run_default) {
      std::cout << "== " << model << " ==\n";
      status = std::max(status, fn(o));
    }
    return status;
  }
  std::string ext = std::filesystem::path(o.file).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const auto& [e, fn] : h.run_by_ext)
    if (e == ext) return fn(o);
  std::cerr << "tilesim run: no engine runs '" << ext << "' files (" << o.file << ")\n";
  return 1;
}

}  // namespace
}  // namespace tilesim::cli

int main(int argc, char** argv) {
  using namespace tilesim::cli;
  Options o;
  CLI::App app{"tilesim: a bit-exact, fast CPU twin of AI-accelerator tile and vector instructions"};
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

  auto* rn = app.add_subcommand("run", "run a PTO-AS (.pto) or LinxISA (.s/.bin) program; no FILE: bundled examples");
  rn->add_option("FILE", o.file, "program file");
  rn->add_option("--target", o.target, "PTO target (a2a3, a5)");
  rn->add_option("--in", o.in, "NAME=FILE.npy input (PTO)");
  rn->add_option("--out", o.outs, "NAME=FILE.npy output (PTO)");
  rn->add_option("--reg", o.regs, "REG=VALUE (LinxISA)");
  rn->add_option("--tile", o.tiles, "Q=FILE.npy:DTYPE:LAYOUT tile pushed to queue Q (LinxISA)");
  rn->add_option("--acc-out", o.acc_out, "write ACC to FILE.npy (LinxISA)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 1;  // usage error (spec 60 §5)
  }

  try {
    const Hooks& h = hooks();
    if (*as) return h.asm_cmd ? h.asm_cmd(o) : not_built("asm");
    if (*ds) {
      if (o.file.empty() && o.words.empty()) {
        std::cerr << "tilesim disasm: give FILE.bin or --words\n";
        return 1;
      }
      return h.disasm_cmd ? h.disasm_cmd(o) : not_built("disasm");
    }
    return run_command(o);
  } catch (const tilesim::Error& e) {
    std::cerr << "tilesim: error (" << tilesim::to_string(e.code()) << "): " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tilesim: internal error: " << e.what() << "\n";
    return 3;
  }
}
