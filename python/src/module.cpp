// tilesim._tilesim: the compiled half of the Python package (spec 60 §4).
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "registry.hpp"
#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/parallel.hpp"
#include "tilesim/version.hpp"

namespace py = pybind11;

namespace tilesim::py {
namespace {
std::vector<std::pair<const char*, Init>>& registry() {
  static std::vector<std::pair<const char*, Init>> r;
  return r;
}
}  // namespace

Registrar::Registrar(const char* name, Init init) { registry().emplace_back(name, init); }

}  // namespace tilesim::py

PYBIND11_MODULE(_tilesim, m) {
  m.doc() = "tilesim: bit-exact CPU twin of AI-accelerator tile and vector instructions";
  m.attr("__version__") = tilesim::version();
  m.def("num_threads", &tilesim::num_threads);
  // n: 0 (back to the default) or 1..1024; anything else, bool and float included, is an error
  // naming it rather than a TypeError or a silent clamp (docs/python.md#threads).
  m.def("set_num_threads", [](const py::object& n) {
    const bool integral = !py::isinstance<py::bool_>(n) &&
                          (py::isinstance<py::int_>(n) || py::hasattr(n, "__index__"));
    if (integral) {
      const long long v = PyNumber_AsSsize_t(py::reinterpret_steal<py::object>(PyNumber_Index(n.ptr())).ptr(), nullptr);
      if (!PyErr_Occurred() && v >= 0) return tilesim::set_num_threads(static_cast<size_t>(v));
      PyErr_Clear();
    }
    tilesim::raise(tilesim::ErrorCode::Constraint, "tilesim.set_num_threads",
                   "n must be 0 (the default) or 1..1024, got " + py::repr(n).cast<std::string>(),
                   "docs/python.md#threads");
  }, py::arg("n"));
  // Resolves a dtype name or alias to its canonical name (spec 60 §2); used by the Python layer.
  m.def("canonical_dtype", [](const std::string& name) {
    return std::string(tilesim::formats::name(tilesim::formats::parse_dtype(name)));
  }, py::arg("name"));

  // Replaces a compiled function's docstring (tilesim/_docstrings.py holds the text, one table for
  // every public function). pybind11 owns ml_doc as a malloc'd string and frees it with free(), so
  // the new text is strdup'd the same way. docs/python.md#docstrings
  m.def("_set_doc", [](const py::object& fn, const std::string& text) {
    PyObject* f = fn.ptr();
    if (PyInstanceMethod_Check(f)) f = PyInstanceMethod_GET_FUNCTION(f);  // a class's method
    if (!PyCFunction_Check(f)) throw py::type_error("_set_doc: not a compiled function");
    auto* def = reinterpret_cast<PyCFunctionObject*>(f)->m_ml;
    char* copy = strdup(text.c_str());
    if (!copy) throw std::bad_alloc();
    std::free(const_cast<char*>(def->ml_doc));
    def->ml_doc = copy;
  });

  // tilesim::Error -> tilesim.Error (code Fault -> tilesim.linx.Fault, a subclass), spec 60 §4.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tilesim::Error& e) {
      py::object errors = py::module_::import("tilesim._errors");
      py::object cls = errors.attr(e.code() == tilesim::ErrorCode::Fault ? "Fault" : "Error");
      py::object inst = cls(e.what(), tilesim::to_string(e.code()));
      PyErr_SetObject(cls.ptr(), inst.ptr());
    }
  });

  for (auto& [name, init] : tilesim::py::registry()) {
    py::module_ sub = m.def_submodule(name);
    init(m, sub);
  }
}
