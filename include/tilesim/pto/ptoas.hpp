// PTO-AS text (spec 20 §6): parse a .pto program and run it on the engine. Arrays in and out are
// tilesim::npy::Array values in spec 60 §2 carriers, shaped (Rows, Cols) in logical coordinates.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilesim/npy.hpp"

namespace tilesim::pto::as {

struct RunOptions {
  std::string target;                                // "" = .target line, else a2a3
  std::map<std::string, npy::Array> inputs;          // by .arg name without '%'
  std::map<std::string, std::pair<int, int>> valid;  // valid shapes for '?' dimensions
};

struct Output {
  std::string name;   // without '%'
  std::string dtype;  // canonical dtype name (spec 60 §2)
  npy::Array array;
};

// Parses (every syntax error before anything runs) and executes. Errors carry
// "file:line:column" and the offending token; engine rejections carry the statement's position.
// Returns every .arg and every named SSA result, in order of definition.
std::vector<Output> run(std::string_view text, std::string_view filename,
                        const RunOptions& options);

// Carrier descr of a PTO dtype name ("fp32" -> "<f4", "bf16" -> "<u2", ...).
std::string carrier_descr(std::string_view dtype);

}  // namespace tilesim::pto::as
