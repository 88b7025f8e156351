// tilesim._tilesim._sync: the pipeline-hazard checker's switch and verdict for the Python front
// ends' check='sync' (docs/sync.md#switches). No arithmetic: it calls tilesim/sync.hpp.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "registry.hpp"
#include "tilesim/sync.hpp"

namespace py = pybind11;
namespace ts = tilesim::sync;

namespace {

void init_sync(py::module_&, py::module_& m) {
  // Returns whether the checker was on before (the caller restores it with _end).
  m.def("_begin", [](const std::string& check, const std::string& timeline) {
    const bool was = ts::on();
    ts::enable(ts::parse_check(check, "check="));
    if (ts::on() && !timeline.empty()) ts::set_timeline_path(timeline);  // else TILESIM_SYNC_TIMELINE's
    return was;
  });
  // Ends a checked run: writes the timeline, returns (hazard count, report text), forgets the
  // reports and restores the switch.
  m.def("_end", [](bool was_on, const std::string& timeline) {
    std::pair<size_t, std::string> r{0, {}};
    if (ts::on()) {
      if (!timeline.empty()) ts::write_timeline(timeline);
      r = {ts::hazard_count(), ts::report_text()};
      ts::clear_reports();
      if (!timeline.empty()) ts::set_timeline_path("");
    }
    ts::enable(was_on);
    return r;
  });
}

tilesim::py::Registrar reg("_sync", &init_sync);

}  // namespace
