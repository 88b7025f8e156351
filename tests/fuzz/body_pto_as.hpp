// libFuzzer target: the PTO-AS parser and interpreter (spec 20 §6) on arbitrary text, through the
// same entry point as tilesim.pto.run and `tilesim run FILE.pto` (tilesim::pto::as::run). Every
// input must either run or raise tilesim::Error; a crash, hang or sanitizer report is a bug.
// A program that runs is run a second time with every .arg supplied (the first run's outputs,
// refilled with a byte pattern taken from the text, so NaN/Inf/subnormal codes reach the engine),
// and the outputs must keep the shapes and carriers the first run reported.
// The body is shared by the libFuzzer binary fuzz_pto_as.cpp and the replay of tests/regress/ in
// tests/robust/regress_test.cpp; TILESIM_FUZZ_FAIL reports a broken invariant (abort by default).
#pragma once
#include <cstdint>
#include <cstdlib>

#ifndef TILESIM_FUZZ_FAIL
#define TILESIM_FUZZ_FAIL(why) std::abort()
#endif
#include <string>
#include <string_view>

#include "tilesim/error.hpp"
#include "tilesim/npy.hpp"
#include "tilesim/pto/ptoas.hpp"
#include "tilesim/sync.hpp"

namespace as = tilesim::pto::as;

namespace tilesim_fuzz {
// A func.func file (docs/pto.md#funcfunc-files): every argument is bound (each !pto.ptr to a 4096-
// element array of a byte pattern, each scalar to a small value taken from the text), with caps
// on executed operations and tile bytes so loops and allocations stay short; the outputs must be
// the pointer arguments, with the shapes and carriers they were given.
inline int pto_as_func_one(std::string_view text) {
  std::vector<as::Param> params;
  try {
    params = as::parameters(text, "fuzz.pto");
  } catch (const tilesim::Error&) {
    return 0;
  }
  uint32_t h = 2166136261u;
  for (char c : text) h = (h ^ uint8_t(c)) * 16777619u;
  as::RunOptions opts;
  opts.max_ops = 20000;
  opts.max_mem = size_t{16} << 20;
  static const char* kScalars[] = {"0", "1", "3", "-1", "16", "0.5", "true"};
  size_t nptr = 0;
  for (const auto& p : params) {
    h = h * 1103515245u + 12345u;
    if (!p.is_ptr) {
      opts.scalar_text[p.name] = kScalars[(h >> 16) % 7];
      continue;
    }
    tilesim::npy::Array a;
    try {
      a.descr = as::carrier_descr(p.elem);
    } catch (const tilesim::Error&) {
      return 0;
    }
    a.shape = {4096};
    a.data.resize(4096 * a.itemsize());
    for (auto& b : a.data) {
      h = h * 1103515245u + 12345u;
      b = static_cast<uint8_t>(h >> 24);
    }
    opts.inputs[p.name] = std::move(a);
    ++nptr;
  }
  std::vector<as::Output> out;
  try {
    out = as::run(text, "fuzz.pto", opts);
  } catch (const tilesim::Error&) {
    return 0;
  }
  if (out.size() != nptr) TILESIM_FUZZ_FAIL("a func.func run returned other than its pointers");
  for (const auto& o : out) {
    const auto& in = opts.inputs.at(o.name);
    if (o.array.shape != in.shape || o.array.descr != in.descr || o.array.data.size() != in.data.size())
      TILESIM_FUZZ_FAIL("a func.func run changed a GM array's shape, carrier or size");
  }
  // The pipeline-hazard checker only watches (docs/sync.md): the same run checked gives the same
  // bits, and its reports are forgotten (the process must not fail at exit on a fuzz input).
  tilesim::sync::enable(true);
  std::vector<as::Output> checked;
  try {
    checked = as::run(text, "fuzz.pto", opts);
  } catch (const tilesim::Error&) {
    tilesim::sync::enable(false);
    tilesim::sync::clear_reports();
    TILESIM_FUZZ_FAIL("a func.func run that passed unchecked was rejected with the checker on");
  }
  (void)tilesim::sync::report_text();
  tilesim::sync::enable(false);
  tilesim::sync::clear_reports();
  for (size_t i = 0; i < out.size(); ++i)
    if (checked[i].array.data != out[i].array.data)
      TILESIM_FUZZ_FAIL("the sync checker changed a func.func run's results");
  return 0;
}

inline int pto_as_one(const uint8_t* data, size_t size) {
  if (size > 8192) return 0;  // programs are short; long inputs only slow the search
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (as::is_func_file(text)) return pto_as_func_one(text);
  std::vector<as::Output> first;
  try {
    as::RunOptions zero;
    zero.zero_fill_unbound = true;  // unbound .args zero-filled, so random programs run
    first = as::run(text, "fuzz.pto", zero);
  } catch (const tilesim::Error&) {
    return 0;
  }
  for (const auto& o : first)
    if (o.array.data.size() != o.array.size() * o.array.itemsize())
      TILESIM_FUZZ_FAIL("an output array whose bytes do not match its shape");

  // Second run: every output whose name follows ".arg %" in the text is an .arg; supply it.
  // Only for programs of at most 1 MiB of tiles: a legal 140 MB tile (the 256 MiB program-tile
  // limit allows it) took > 10 s to refill and copy in element order under the sanitizers, a
  // harness timeout, not an engine fault (tests/regress/fuzz_pto_as/timeout-big-arg.pto).
  size_t total = 0;
  for (const auto& o : first) total += o.array.data.size();
  if (total > (size_t{1} << 20)) return 0;
  uint32_t h = 2166136261u;
  for (uint8_t c : text) h = (h ^ c) * 16777619u;
  as::RunOptions opts;
  opts.zero_fill_unbound = true;
  for (const auto& o : first) {
    if (text.find(".arg %" + o.name) == std::string_view::npos) continue;
    tilesim::npy::Array a = o.array;
    for (size_t i = 0; i < a.data.size(); ++i) {
      h = h * 1103515245u + 12345u;
      a.data[i] = static_cast<uint8_t>(h >> 24);
    }
    opts.inputs[o.name] = std::move(a);
  }
  if (opts.inputs.empty()) return 0;
  try {
    const auto second = as::run(text, "fuzz.pto", opts);
    if (second.size() != first.size()) TILESIM_FUZZ_FAIL("the second run returned other outputs");
    for (size_t k = 0; k < second.size(); ++k)
      if (second[k].name != first[k].name || second[k].array.shape != first[k].array.shape ||
          second[k].array.descr != first[k].array.descr)
        TILESIM_FUZZ_FAIL("the second run changed an output's name, shape or carrier");
  } catch (const tilesim::Error&) {
    // e.g. a '.arg %x' inside a comment: the supplied name is not an .arg
  }
  return 0;
}
}  // namespace tilesim_fuzz
