// The `tilesim` CLI's extension points (spec 60 §5). args.cpp parses every option with CLI11;
// each model's front-end file registers what it runs with a static Hook, so adding a model never
// edits main.cpp. Front ends hold no arithmetic: they read files, call an engine, write files.
#pragma once
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tilesim/npy.hpp"

namespace tilesim::cli {

struct Options {
  std::string file;                // asm/disasm/run FILE ("" = none)
  std::string out;                 // asm -o
  bool hex = false;                // asm --hex
  bool fold = false;               // disasm --fold
  std::vector<std::string> words;  // disasm --words
  std::string target;              // run --target
  std::vector<std::string> in;     // run --in NAME=FILE.npy
  std::vector<std::string> outs;   // run --out NAME=FILE.npy
  std::vector<std::string> regs;   // run --reg a0=64
  std::vector<std::string> tiles;  // run --tile Q=FILE.npy:DTYPE:LAYOUT
  std::string acc_out;             // run --acc-out FILE.npy
  std::vector<std::string> mem;      // run --mem ADDR=FILE.npy|FILE.bin (LinxISA memory)
  std::vector<std::string> mem_out;  // run --mem-out ADDR:NBYTES=OUT.bin
  std::vector<std::string> args;   // run --arg NAME=VALUE (PTOAS scalar arguments)
  std::string entry;               // run --entry FUNC
  std::string max_mem;             // run --max-mem BYTES ("" = default)
  std::vector<std::string> expect;  // run --expect NAME=FILE.npy
  double rtol = 0, atol = 0;         // run --rtol / --atol (with --expect)
  bool bits = false;                 // run --bits (with --expect)
  std::string trace;                 // run --trace FILE ("-" = stdout)
  bool trace_values = false;         // run --trace-values
  std::string check;                 // run --check sync|off (PTO-AS; docs/sync.md#switches)
  std::string sync_timeline;         // run --sync-timeline FILE.json (with --check sync)
};

// Each returns the exit status; a tilesim::Error thrown out of it becomes exit 2 (spec 60 §5).
using Command = int (*)(const Options&);

struct Hooks {
  Command asm_cmd = nullptr;                                 // tilesim asm
  Command disasm_cmd = nullptr;                              // tilesim disasm
  std::vector<std::pair<std::string, Command>> run_by_ext;   // tilesim run FILE.ext
  std::vector<std::pair<std::string, Command>> run_default;  // tilesim run (model name, runner)
};

Hooks& hooks();

struct Hook {
  explicit Hook(void (*install)(Hooks&)) { install(hooks()); }
};

// The bytes of an input file; a directory, an unreadable file or an empty one is an Error(Io)
// naming the path and `what` ("program", "--in x"), never an empty program (args.cpp).
std::string read_input(const std::string& path, const std::string& what);

// --expect NAME=FILE.npy (docs/cli.md#expect): the expectations loaded before the run, then
// checked against the results `find` returns by name (nullptr: not a result; `names` lists the
// results for that message). Prints one report per expectation; returns 0 if all match, else 1.
struct Expectations {
  std::vector<std::pair<std::string, std::string>> items;  // (name, path)
  std::vector<npy::Array> arrays;
};
Expectations load_expectations(const Options& o);
int check_expectations(const Options& o, const Expectations& e,
                       const std::function<const npy::Array*(const std::string&)>& find,
                       const std::string& names);

// --trace FILE (docs/cli.md#trace): opened before the run ("-" = stdout); stream() is nullptr
// without --trace.
class TraceFile {
 public:
  explicit TraceFile(const Options& o);
  std::ostream* stream() { return out_; }

 private:
  std::unique_ptr<std::ofstream> file_;
  std::ostream* out_ = nullptr;
};

// An output path checked before the run, so a run never ends having written some outputs and not
// others: a directory, or a path in a folder that does not exist, is an Error(Io) (args.cpp).
void check_output_path(const std::string& path, const std::string& what);

// The directory of the bundled data `sub` ("examples/pto") for `tilesim run` with no FILE:
// <exe>/../share/tilesim/<sub> when installed, the source tree only for the CLI in its build
// directory; else an Error(Io) naming where it looked (share_dir.cpp, docs/cli.md#bundled-examples).
std::string data_dir(const std::string& sub);

// "NAME=VALUE" -> {NAME, VALUE}; raises Error(Parse) naming the option otherwise (args.cpp).
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option);

}  // namespace tilesim::cli
