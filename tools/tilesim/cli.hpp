// The `tilesim` CLI's extension points (spec 60 §5). args.cpp parses every option with CLI11;
// each model's front-end file registers what it runs with a static Hook, so adding a model never
// edits main.cpp. Front ends hold no arithmetic: they read files, call an engine, write files.
#pragma once
#include <string>
#include <utility>
#include <vector>

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

// "NAME=VALUE" -> {NAME, VALUE}; raises Error(Parse) naming the option otherwise (args.cpp).
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option);

}  // namespace tilesim::cli
