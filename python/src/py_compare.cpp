// tilesim.compare (docs/cli.md#expect): the C++ comparison (tilesim::compare) on two NumPy arrays;
// python/tilesim/_compare.py wraps the result in a report object. No arithmetic here.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstring>

#include "registry.hpp"
#include "tilesim/compare.hpp"
#include "tilesim/error.hpp"

namespace py = pybind11;

namespace {

tilesim::npy::Array array_of(const py::array& a, const char* which) {
  tilesim::npy::Array out;
  const py::dtype dt = a.dtype();
  const char kind = dt.kind();
  const size_t size = static_cast<size_t>(dt.itemsize());
  if (!(kind == 'f' || kind == 'i' || kind == 'u' || kind == 'b'))
    tilesim::raise(tilesim::ErrorCode::Unsupported, "tilesim.compare",
                   std::string(which) + " has NumPy dtype '" + dt.attr("name").cast<std::string>() +
                       "'; compare takes float, integer or bool arrays",
                   "docs/cli.md#expect");
  out.descr = std::string(size == 1 ? "|" : "<") + kind + std::to_string(size);
  for (py::ssize_t k = 0; k < a.ndim(); ++k) out.shape.push_back(static_cast<size_t>(a.shape(k)));
  const py::array c = py::array::ensure(a, py::array::c_style);
  out.data.resize(static_cast<size_t>(c.nbytes()));
  if (c.nbytes()) std::memcpy(out.data.data(), c.data(), out.data.size());
  return out;
}

void init_compare(py::module_&, py::module_& m) {
  m.def("_compare", [](const py::array& got, const py::array& want, double rtol, double atol, bool bits) {
    tilesim::CompareOptions o;
    o.rtol = rtol;
    o.atol = atol;
    o.bits = bits;
    const tilesim::CompareReport r = tilesim::compare(array_of(got, "got"), array_of(want, "want"), o);
    py::list first;
    for (const auto& mm : r.first) {
      py::dict d;
      py::tuple idx(mm.index.size());
      for (size_t k = 0; k < mm.index.size(); ++k) idx[k] = py::int_(mm.index[k]);
      d["index"] = idx;
      d["got"] = mm.got;
      d["want"] = mm.want;
      d["got_bits"] = mm.got_bits;
      d["want_bits"] = mm.want_bits;
      d["ulp"] = mm.has_ulp ? py::object(py::int_(mm.ulp)) : py::object(py::none());
      first.append(d);
    }
    py::dict d;
    d["count"] = r.count;
    d["mismatches"] = r.mismatches;
    d["nan_got"] = r.nan_got;
    d["nan_want"] = r.nan_want;
    d["max_ulp"] = r.max_ulp;
    d["first"] = first;
    d["text"] = r.text();
    return d;
  });
}

tilesim::py::Registrar reg("_compare", &init_compare);

}  // namespace
