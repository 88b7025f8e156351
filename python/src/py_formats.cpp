// tilesim.formats bindings (spec 60 §4). Conversions only; the arithmetic is in src/formats.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "registry.hpp"
#include "tilesim/formats.hpp"

namespace py = pybind11;
namespace fm = tilesim::formats;

namespace {
void init_formats(py::module_&, py::module_& m) {
  m.doc() = "Number formats (spec 10)";
  m.def("names", &fm::names);
}
tilesim::py::Registrar reg("formats", &init_formats);
}  // namespace
