// tilesim — the command-line front end (spec 60 §5). args.cpp parses the options; this dispatches
// to the commands the model front ends registered (cli.hpp) and maps errors to exit statuses.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "args.hpp"
#include "cli.hpp"
#include "tilesim/error.hpp"
#include "tilesim/parallel.hpp"

namespace tilesim::cli {

Hooks& hooks() {
  static Hooks h;
  return h;
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
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
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
  Subcommand cmd = Subcommand::none;
  if (const int status = parse_command_line(argc, argv, o, cmd, std::cout, std::cerr); status >= 0)
    return status;

  try {
    const Hooks& h = hooks();
    // Checked before anything runs (docs/cli.md#tilesim_threads), not at the first parallel loop.
    if (const char* env = std::getenv("TILESIM_THREADS"); env && cmd == Subcommand::run)
      tilesim::threads_from_env(env);
    if (cmd == Subcommand::asm_) return h.asm_cmd ? h.asm_cmd(o) : not_built("asm");
    if (cmd == Subcommand::disasm) return h.disasm_cmd ? h.disasm_cmd(o) : not_built("disasm");
    return run_command(o);
  } catch (const tilesim::Error& e) {
    std::cerr << "tilesim: error (" << tilesim::to_string(e.code()) << "): " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tilesim: internal error: " << e.what() << "\n";
    return 3;
  }
}
