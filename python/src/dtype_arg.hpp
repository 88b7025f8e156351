// A dtype argument of any Python function (spec 60 §2): a name or alias ('fp16', 'float16', 'bf16')
// or anything numpy.dtype() takes (np.float16, np.dtype('int8'), 'f4'), resolved to the text the
// engines parse. NumPy's own name is one of the §2 aliases for every NumPy-carried dtype; formats
// carried as codes (bf16, e4m3, ...) have no NumPy dtype and are named by string.
// docs/python.md#dtype-arguments
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "tilesim/error.hpp"

namespace tilesim::pydtype {

inline std::string dtype_text(const pybind11::handle& o, const std::string& fn, const char* what) {
  namespace py = pybind11;
  if (py::isinstance<py::str>(o)) return o.cast<std::string>();
  if (!o.is_none()) {
    try {
      return py::dtype::from_args(py::reinterpret_borrow<py::object>(o)).attr("name").cast<std::string>();
    } catch (const py::error_already_set&) {
    }
  }
  tilesim::raise(ErrorCode::Constraint, fn,
                 std::string(what) + " must be a dtype name such as 'fp16' or a NumPy dtype such as "
                 "numpy.float16, got " + py::repr(o).cast<std::string>(),
                 "docs/python.md#dtype-arguments");
}

}  // namespace tilesim::pydtype
