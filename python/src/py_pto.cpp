// tilesim.pto bindings (spec 60 §4): descriptors over NumPy storage, the engine call, the PTO-AS
// runner. Conversions only; every rule and all arithmetic are in src/pto.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>

#include "registry.hpp"
#include "tilesim/error.hpp"
#include "tilesim/pto/engine.hpp"
#include "tilesim/pto/ptoas.hpp"

namespace py = pybind11;
namespace tp = tilesim::pto;

namespace {

tp::Op op_of(const std::string& name) {
  static const char* kNames[] = {"add", "sub", "mul", "div", "max", "min", "expdif"};
  for (int k = 0; k < tp::kNumOps; ++k)
    if (name == kNames[k]) return tp::Op(k);
  tilesim::raise(tilesim::ErrorCode::Unsupported, "tilesim.pto", "unknown op '" + name + "'");
}

// (storage, dtype, row_major, valid_row, valid_col, loc): storage is the C-contiguous array in
// storage order, shape (rows, cols) for row-major tiles and (cols, rows) for col-major ones.
tp::TileDesc desc_of(const py::tuple& t, const char* who) {
  auto a = t[0].cast<py::array>();
  tp::TileDesc d;
  d.dtype = tp::parse_elem(t[1].cast<std::string>(), who);
  d.row_major = t[2].cast<bool>();
  if (a.ndim() != 2 || !(a.flags() & py::array::c_style) || !a.writeable() ||
      size_t(a.itemsize()) != tp::elem_size(d.dtype))
    tilesim::raise(tilesim::ErrorCode::Constraint, who,
                   "tile storage must be a writeable C-contiguous 2-D array");
  d.rows = int(d.row_major ? a.shape(0) : a.shape(1));
  d.cols = int(d.row_major ? a.shape(1) : a.shape(0));
  d.valid_row = t[3].cast<int>();
  d.valid_col = t[4].cast<int>();
  d.loc = t.size() > 5 ? t[5].cast<uint8_t>() : tp::kLocVec;
  d.data = static_cast<uint8_t*>(a.mutable_data());
  d.capacity = size_t(a.nbytes());
  return d;
}

tilesim::npy::Array to_npy(const py::array& in) {
  py::array a = py::array::ensure(in, py::array::c_style);
  if (!a)
    tilesim::raise(tilesim::ErrorCode::Constraint, "tilesim.pto.run", "inputs must be arrays");
  tilesim::npy::Array out;
  out.descr = py::str(a.dtype().attr("str")).cast<std::string>();
  for (py::ssize_t k = 0; k < a.ndim(); ++k) out.shape.push_back(size_t(a.shape(k)));
  const auto* p = static_cast<const uint8_t*>(a.data());
  out.data.assign(p, p + a.nbytes());
  return out;
}

void init_pto(py::module_&, py::module_& m) {
  m.doc() = "PTO tile ISA engine (spec 20); the public API is tilesim.pto";
  m.def("_canonical", [](const std::string& n) {
    return std::string(tp::elem_name(tp::parse_elem(n, "dtype")));
  });
  m.def("_carrier", [](const std::string& n) { return tilesim::pto::as::carrier_descr(n); });
  m.def("_check_tile",
        [](const py::tuple& t) { tp::check_tile(desc_of(t, "Tile"), "Tile", "tile"); });
  m.def("_row_expand", [](const std::string& op, const py::tuple& dst, const py::tuple& s0,
                          const py::tuple& s1, const py::object& tmp, const std::string& target) {
    const tp::Target& t = tp::find_target(target);
    const tp::TileDesc d = desc_of(dst, "dst"), a = desc_of(s0, "src0"), b = desc_of(s1, "src1");
    tp::TileDesc tt;
    if (!tmp.is_none()) tt = desc_of(tmp.cast<py::tuple>(), "tmp");
    py::gil_scoped_release nogil;
    tp::row_expand(op_of(op), d, a, b, tmp.is_none() ? nullptr : &tt, t, tp::Ub{});
  });
  m.def("_run", [](const std::string& text, const py::dict& inputs, const py::dict& valid,
                   const py::object& target) {
    tilesim::pto::as::RunOptions o;
    if (!target.is_none()) o.target = target.cast<std::string>();
    for (auto [k, v] : inputs) o.inputs[k.cast<std::string>()] = to_npy(v.cast<py::array>());
    for (auto [k, v] : valid) {
      auto t = v.cast<py::tuple>();
      o.valid[k.cast<std::string>()] = {t[0].cast<int>(), t[1].cast<int>()};
    }
    std::vector<tilesim::pto::as::Output> outs;
    {
      py::gil_scoped_release nogil;
      outs = tilesim::pto::as::run(text, "<program>", o);
    }
    py::dict r;
    for (const auto& x : outs) {
      std::vector<py::ssize_t> shape(x.array.shape.begin(), x.array.shape.end());
      py::array a(py::dtype(x.array.descr), shape);
      std::memcpy(a.mutable_data(), x.array.data.data(), x.array.data.size());
      r[py::str(x.name)] = a;
    }
    return r;
  });
}
tilesim::py::Registrar reg("pto", &init_pto);
}  // namespace
