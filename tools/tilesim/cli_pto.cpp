// `tilesim run FILE.pto [--target T] [--in NAME=FILE.npy]... [--arg NAME=VALUE]... [--entry FUNC]
// [--max-mem BYTES] [--out NAME=FILE.npy]...` and the
// bundled PTO-AS example of `tilesim run` (spec 60 §5). Reads files, calls the PTO-AS runner,
// writes files; no arithmetic.
#include <cctype>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "tilesim/error.hpp"
#include "tilesim/npy.hpp"
#include "tilesim/pto/ptoas.hpp"
#include "tilesim/sync.hpp"

namespace {
using tilesim::ErrorCode;
namespace as = tilesim::pto::as;

std::string read_text(const std::string& path) { return tilesim::cli::read_input(path, "program"); }

std::string shape_of(const tilesim::npy::Array& a) {
  std::string s;
  for (size_t k = 0; k < a.shape.size(); ++k) {
    if (k) s.push_back('x');
    s.append(std::to_string(a.shape[k]));
  }
  return s;
}

std::string bare(const std::string& name) { return name[0] == '%' ? name.substr(1) : name; }

std::vector<as::Output> run_file(const std::string& file, const std::string& target,
                                 const std::vector<std::pair<std::string, std::string>>& ins,
                                 const tilesim::cli::Options* cli = nullptr, std::ostream* trace = nullptr) {
  as::RunOptions o;
  o.target = target;
  o.trace = trace;
  o.trace_values = cli && cli->trace_values;
  for (const auto& [name, path] : ins) o.inputs[bare(name)] = tilesim::npy::load(path);
  if (cli) {
    for (const auto& s : cli->args) {
      const auto [name, value] = tilesim::cli::split_assignment(s, "--arg");
      if (!o.scalar_text.emplace(bare(name), value).second)
        tilesim::raise(ErrorCode::Parse, "tilesim run --arg", "'" + name + "' given twice", "docs/cli.md#run");
    }
    o.entry = cli->entry;
    if (!cli->max_mem.empty()) {
      const std::string& m = cli->max_mem;
      size_t used = 0;
      unsigned long long v = 0;
      try {
        v = std::stoull(m, &used, 10);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != m.size() || m.empty() || !std::isdigit(static_cast<unsigned char>(m[0])))
        tilesim::raise(ErrorCode::Parse, "tilesim run --max-mem",
                       "expected a byte count (decimal), got '" + m + "'", "docs/cli.md#run");
      o.max_mem = size_t(v);
    }
  }
  return as::run(read_text(file), file, o);
}

int run_pto_file(const tilesim::cli::Options& o) {
  std::vector<std::pair<std::string, std::string>> ins, outs;
  for (const auto& s : o.in) ins.push_back(tilesim::cli::split_assignment(s, "--in"));
  for (const auto& s : o.outs) outs.push_back(tilesim::cli::split_assignment(s, "--out"));
  for (const auto& [name, path] : outs) tilesim::cli::check_output_path(path, "--out " + name);
  const tilesim::cli::Expectations expect = tilesim::cli::load_expectations(o);
  tilesim::cli::TraceFile trace(o);
  // --check sync (or TILESIM_CHECK=sync): the hazard checker watches the run (docs/sync.md).
  namespace sync = tilesim::sync;
  if (!o.check.empty()) sync::enable(o.check == "sync");
  if (!o.sync_timeline.empty()) tilesim::cli::check_output_path(o.sync_timeline, "--sync-timeline");
  if (sync::on() && !o.sync_timeline.empty()) sync::set_timeline_path(o.sync_timeline);  // else TILESIM_SYNC_TIMELINE's
  const auto results = run_file(o.file, o.target, ins, &o, trace.stream());
  size_t hazards = 0;
  if (sync::on()) {
    if (!o.sync_timeline.empty()) sync::write_timeline(o.sync_timeline);
    hazards = sync::hazard_count();
    std::cerr << sync::report_text();
    sync::clear_reports();
  }
  // Every --out resolved before any is written: a bad name writes nothing (docs/cli.md#run).
  std::vector<std::pair<const as::Output*, std::string>> writes;
  for (const auto& [name, path] : outs) {
    const std::string n = bare(name);
    const as::Output* found = nullptr;
    for (const auto& r : results)
      if (r.name == n) found = &r;
    if (!found) {
      std::string names;
      for (const auto& r : results) names += (names.empty() ? "" : ", ") + r.name;
      tilesim::raise(ErrorCode::Constraint, "tilesim run --out",
                     "'" + n + "' is not an output of " + o.file + " (its outputs: " + names + ")",
                     "docs/cli.md#run");
    }
    writes.emplace_back(found, path);
  }
  for (const auto& [r, path] : writes) tilesim::npy::save(path, r->array);
  for (const auto& r : results)
    std::cout << r.name << ": " << shape_of(r.array) << " " << r.dtype << "\n";
  std::string names;
  for (const auto& r : results) names += (names.empty() ? "" : ", ") + r.name;
  const int status = tilesim::cli::check_expectations(
      o, expect,
      [&](const std::string& n) -> const tilesim::npy::Array* {
        for (const auto& r : results)
          if (r.name == n) return &r.array;
        return nullptr;
      },
      names);
  // A hazard fails the run after every output is written (results are unchanged by checking).
  return hazards > 0 && status == 0 ? 1 : status;
}

float f32_at(const tilesim::npy::Array& a, size_t i) {
  float v;
  std::memcpy(&v, a.data.data() + 4 * i, 4);
  return v;
}

// The bundled example: the row-normalisation step of examples/pto/rownorm.pto on its .npy inputs,
// compared with the expected result stored next to it (computed independently with NumPy).
int run_pto_examples(const tilesim::cli::Options& o) {
  const std::string dir = tilesim::cli::data_dir("examples/pto") + "/";
  const auto results = run_file(
      dir + "rownorm.pto", o.target,
      {{"x", dir + "rownorm_x.npy"}, {"m", dir + "rownorm_m.npy"}, {"lo", dir + "rownorm_lo.npy"}});
  const auto expect = tilesim::npy::load(dir + "rownorm_expected_z.npy");
  int status = 0;
  std::cout
      << "examples/pto/rownorm.pto: y = TROWEXPANDSUB(x, rowmax), z = TROWEXPANDMAX(y, floor), "
         "e = TROWEXPANDEXPDIF(x, rowmax)\n";
  for (const auto& r : results) {
    std::cout << "  %" << r.name << ": " << shape_of(r.array) << " " << r.dtype;
    if (r.name == "z") {
      const bool same = r.array.data == expect.data && r.array.shape == expect.shape;
      std::cout << "  row 0: " << f32_at(r.array, 0) << " " << f32_at(r.array, 1) << " "
                << f32_at(r.array, 2)
                << " ...  matches NumPy: " << (same ? "yes (bit-exact)" : "NO");
      if (!same) status = 1;
    }
    std::cout << "\n";
  }
  return status;
}

tilesim::cli::Hook hook([](tilesim::cli::Hooks& h) {
  h.run_by_ext.push_back({".pto", &run_pto_file});
  h.run_default.push_back({"pto", &run_pto_examples});
});
}  // namespace
