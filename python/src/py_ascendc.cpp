// tilesim.ascendc bindings (spec 60 §4): converts NumPy arrays and Python masks into an engine
// call; every rule and all arithmetic are in src/ascendc.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstring>
#include <string>
#include <vector>

#include "registry.hpp"
#include "tilesim/ascendc/engine.hpp"
#include "tilesim/error.hpp"

namespace py = pybind11;
namespace ts = tilesim::ascendc;
using tilesim::ErrorCode;

namespace {

ts::Elem elem_of(const py::array& a, const char* instr, const char* what) {
  const py::dtype dt = a.dtype();
  if (dt.kind() == 'f' && dt.itemsize() == 2) return ts::Elem::f16;
  if (dt.kind() == 'f' && dt.itemsize() == 4) return ts::Elem::f32;
  tilesim::raise(ErrorCode::Unsupported, instr,
                 std::string(what) +
                     ": T must be half or float (numpy float16 / float32), got dtype " +
                     py::str(static_cast<py::object>(dt)).cast<std::string>(),
                 "40 §3");
}

int64_t as_int(const py::handle& h, const char* instr, const char* what) {
  // bool is an int subclass in Python; mask=True meaning "1 element" would hide a caller's mistake.
  if (PyBool_Check(h.ptr()))
    tilesim::raise(ErrorCode::Constraint, instr,
                   std::string(what) + " must be an integer, got a bool (" +
                       py::repr(h).cast<std::string>() + ")",
                   "60 §4");
  try {
    return py::reinterpret_steal<py::int_>(PyNumber_Index(h.ptr())).cast<int64_t>();
  } catch (const std::exception&) {
    PyErr_Clear();
    tilesim::raise(
        ErrorCode::Constraint, instr,
        std::string(what) + " must be an integer in range, got " + py::repr(h).cast<std::string>(),
        "40 §3");
  }
}

uint64_t as_word(const py::handle& h, const char* instr) {
  if (PyBool_Check(h.ptr()))
    tilesim::raise(ErrorCode::Constraint, instr,
                   "bit-mode mask words must be integers, got a bool (" +
                       py::repr(h).cast<std::string>() + ")",
                   "60 §4");
  py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!idx) {
    PyErr_Clear();
    tilesim::raise(ErrorCode::Constraint, instr,
                   "mask word must be an integer, got " + py::repr(h).cast<std::string>(), "40 §1");
  }
  const py::int_ v(idx);
  if (v < py::int_(0) ||
      v > py::int_(py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(~0ull))))
    tilesim::raise(ErrorCode::Constraint, instr,
                   "mask words must be in [0, 2^64-1], got " + py::repr(h).cast<std::string>(),
                   "40 §1");
  return v.cast<uint64_t>();
}

py::array block_reduce(ts::ReduceOp op, const py::array& src_in, const py::object& repeat_o,
                       const py::object& mask, const py::object& dst_rep_o,
                       const py::object& src_blk_o, const py::object& src_rep_o,
                       const py::object& dst_o, const std::string& product,
                       const py::object& saturation) {
  const char* instr = ts::name(op);
  const ts::Product& prod = ts::find_product(product);
  if (src_in.ndim() != 1)
    tilesim::raise(ErrorCode::Constraint, instr,
                   "src must be a 1-D array, got " + std::to_string(src_in.ndim()) + " dims",
                   "60 §4");
  const ts::Elem t = elem_of(src_in, instr, "src");
  ts::ReduceCall call;
  call.op = op;
  call.elem = t;
  call.repeat = as_int(repeat_o, instr, "repeatTime");
  call.dst_rep_stride = as_int(dst_rep_o, instr, "dstRepStride");
  call.src_blk_stride = as_int(src_blk_o, instr, "srcBlkStride");
  call.src_rep_stride = as_int(src_rep_o, instr, "srcRepStride");
  if (py::isinstance<py::list>(mask) || py::isinstance<py::tuple>(mask) ||
      py::isinstance<py::array>(mask)) {
    const py::sequence seq = py::reinterpret_borrow<py::sequence>(mask);
    if (seq.size() < 1 || seq.size() > 2)
      tilesim::raise(
          ErrorCode::Constraint, instr,
          "bit-mode mask must be a list of 1 or 2 words, got " + std::to_string(seq.size()),
          "60 §4");
    call.mask.kind = ts::MaskArg::Kind::Bits;
    call.mask.words = static_cast<unsigned>(seq.size());
    for (size_t i = 0; i < seq.size(); ++i) call.mask.bits[i] = as_word(seq[i], instr);
  } else {
    call.mask.kind = ts::MaskArg::Kind::Continuous;
    call.mask.len = as_int(mask, instr, "continuous mask");
  }

  const unsigned sz = ts::elem_bytes(t);
  py::array src = py::array::ensure(src_in, py::array::c_style);
  py::array dst;
  if (dst_o.is_none()) {
    // spec 60 §4: zeros of length max(repeat-1, 0)*dst_rep_stride*8 + 8 (for in-range arguments;
    // out-of-range ones are rejected by the engine before anything is written).
    uint64_t n = 8;
    if (call.repeat >= 1 && call.repeat <= 255 && call.dst_rep_stride >= 0 &&
        call.dst_rep_stride <= 65535)
      n = uint64_t(call.repeat - 1) * uint64_t(call.dst_rep_stride) * 8 + 8;
    dst = py::array(src.dtype(), std::vector<py::ssize_t>{static_cast<py::ssize_t>(n)});
    std::memset(dst.mutable_data(), 0, n * sz);
  } else {
    py::array given = py::array::ensure(dst_o);
    if (!given) tilesim::raise(ErrorCode::Constraint, instr, "dst must be an array", "60 §4");
    if (given.ndim() != 1)
      tilesim::raise(ErrorCode::Constraint, instr,
                     "dst must be a 1-D array, got " + std::to_string(given.ndim()) + " dims",
                     "60 §4");
    if (elem_of(given, instr, "dst") != t)
      tilesim::raise(ErrorCode::Constraint, instr,
                     std::string("dst and src must have the same T, got src ") + ts::name(t) +
                         " and dst " + ts::name(elem_of(given, instr, "dst")),
                     "40 §3");
    dst = py::array(given.dtype(), std::vector<py::ssize_t>{given.shape(0)});
    if (given.shape(0)) {
      py::array c = py::array::ensure(given, py::array::c_style);
      std::memcpy(dst.mutable_data(), c.data(), size_t(given.shape(0)) * sz);
    }
  }
  bool sat = prod.half_saturation;
  if (!saturation.is_none()) {
    const std::string tn = py::str(py::type::of(saturation).attr("__name__")).cast<std::string>();
    if (!py::isinstance<py::bool_>(saturation) && tn != "bool_")
      tilesim::raise(ErrorCode::Constraint, instr,
                     "saturation must be None, True or False, got " + py::repr(saturation).cast<std::string>(),
                     "60 §4");
    sat = saturation.cast<bool>();
  }
  ts::MaskRegister reg;  // a fresh core per call: reset state, normal mode
  ts::Operand d{dst.mutable_data(), 0, uint64_t(dst.shape(0))};
  ts::Operand s{const_cast<void*>(src.data()), 0, uint64_t(src.shape(0))};
  ts::block_reduce(prod, sat, reg, d, s, call);
  return dst;
}

void init_ascendc(py::module_&, py::module_& m) {
  m.doc() = "Ascend C vector model: BlockReduceSum/Max/Min (spec 40)";
  for (auto [pyname, op] : {std::pair{"block_reduce_sum", ts::ReduceOp::Sum},
                            std::pair{"block_reduce_max", ts::ReduceOp::Max},
                            std::pair{"block_reduce_min", ts::ReduceOp::Min}}) {
    const ts::ReduceOp o = op;
    m.def(
        pyname,
        [o](const py::array& src, const py::object& repeat, const py::object& mask,
            const py::object& dst_rep, const py::object& src_blk, const py::object& src_rep,
            const py::object& dst, const std::string& product, const py::object& saturation) {
          return block_reduce(o, src, repeat, mask, dst_rep, src_blk, src_rep, dst, product,
                              saturation);
        },
        py::arg("src"), py::arg("repeat"), py::arg("mask"), py::arg("dst_rep_stride"),
        py::arg("src_blk_stride"), py::arg("src_rep_stride"), py::kw_only(),
        py::arg("dst") = py::none(), py::arg("product") = "atlas_a2",
        py::arg("saturation") = py::none());
  }
  m.def("products", [] {
    py::list l;
    for (const ts::Product& p : ts::products()) l.append(p.name);
    return l;
  });
}

tilesim::py::Registrar reg("ascendc", &init_ascendc);

}  // namespace
