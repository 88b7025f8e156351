// PTO-AS text (spec 20 §6, spec 21 §3): parse a .pto program and run it on the engine. Two forms:
// the `.arg` form (tiles in and out, shaped (Rows, Cols) in logical coordinates) and the
// `module { func.func @f(%arg0: !pto.ptr<f32>, ...) {...} }` files PTOAS reads (docs/pto.md,
// "func.func files"): pointer arguments are bound to arrays (the GM) and returned after the run.
// Arrays in and out are tilesim::npy::Array values in spec 60 §2 carriers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilesim/npy.hpp"

namespace tilesim::pto::as {

struct RunOptions {
  std::string target;                                // "" = .target line, else a2a3
  std::map<std::string, npy::Array> inputs;          // by .arg / argument name without '%'
  std::map<std::string, std::pair<int, int>> valid;  // valid shapes for '?' dimensions (.arg form)
  // func.func files only:
  std::string entry;  // the function to run; "" = the one marked {pto.entry}, else the first
  std::map<std::string, std::string> scalar_text;    // scalar arguments as text (CLI --arg)
  size_t max_mem = size_t{1} << 30;                  // cap on the live bytes of allocated tiles
  uint64_t max_ops = 0;                              // cap on executed operations; 0 = none
  // .arg form: an .arg without an input is an error listing them (docs/pto.md#running-a-program);
  // true starts it zero-filled instead (the engine's own tests and fuzzers, not the CLI or Python).
  bool zero_fill_unbound = false;
  // Trace (docs/cli.md#trace): one JSON line per executed instruction to *trace; trace_values
  // adds the full contents of small destinations.
  std::ostream* trace = nullptr;
  bool trace_values = false;
};

// An argument of a func.func (docs/pto.md#funcfunc-files): name without '%', its type as written,
// whether it is a !pto.ptr (else a scalar), and the element / scalar type name (f32, i1, index).
struct Param {
  std::string name;
  std::string type;
  bool is_ptr = false;
  std::string elem;
};

struct Output {
  std::string name;   // without '%'
  std::string dtype;  // canonical dtype name (spec 60 §2)
  npy::Array array;
};

// Parses (every syntax error before anything runs) and executes. Errors carry
// "file:line:column" and the offending token; engine rejections carry the statement's position.
// Returns every .arg and every named SSA result, in order of definition; for a func.func file,
// every !pto.ptr argument (its array after the run), in argument order.
std::vector<Output> run(std::string_view text, std::string_view filename,
                        const RunOptions& options);

// Whether `text` is a func.func file (its first token is `module` or `func.func`).
bool is_func_file(std::string_view text);
// The arguments of the function `entry` ("" = the one marked pto.entry, else the first) of a
// func.func file, after parsing the whole file (every error raised as run() would).
std::vector<Param> parameters(std::string_view text, std::string_view filename,
                              std::string_view entry = {});

// Carrier descr of a PTO dtype name ("fp32" -> "<f4", "bf16" -> "<u2", ...).
std::string carrier_descr(std::string_view dtype);

}  // namespace tilesim::pto::as
