// tilesim.pto bindings (spec 60 §4): descriptors over NumPy storage, the engine calls (the
// TROWEXPAND* family and every row of the instruction table through one generic entry point), the
// PTO-AS runner. Conversions only; every rule and all arithmetic are in src/pto.
#include <algorithm>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "registry.hpp"
#include "tilesim/error.hpp"
#include "tilesim/pto/engine.hpp"
#include "tilesim/pto/frontend.hpp"
#include "tilesim/pto/ptoas.hpp"
#include "pto/tile_layout.hpp"

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

const tp::InstrInfo& instr_of(const std::string& name) {
  const tp::InstrInfo* info = tp::find_instr(name);
  if (!info)
    tilesim::raise(tilesim::ErrorCode::Unsupported, "tilesim.pto",
                   "unknown instruction '" + name + "'");
  return *info;
}

// tilesim.pto.tmatmul (spec 60 §4): a (M, K) and b (K, N) in cube tiles of the vendor's layouts
// (Left NZ, Right ZN, Acc NZ; sizes rounded up to whole boxes), one TMATMUL / _ACC / _BIAS on the
// engine, the M x N Acc values back as an array. Arrays are logical (row, col) carriers.
struct CubeTile {
  std::vector<uint8_t> bytes;
  tp::TileDesc d;
  CubeTile(tp::Elem e, uint8_t loc, bool row_major, uint8_t slayout, int fractal, int R, int C) {
    d.dtype = e;
    d.loc = loc;
    d.row_major = row_major;
    d.slayout = slayout;
    d.fractal = fractal;
    d.valid_row = R;
    d.valid_col = C;
    const int ir = tilesim::pto::layout::inner_rows(d), ic = tilesim::pto::layout::inner_cols(d);
    d.rows = (R + ir - 1) / ir * ir;
    d.cols = (C + ic - 1) / ic * ic;
    if (slayout == tp::kSLayoutNoneBox) d.cols = (C * int(tp::elem_size(e)) + 31) / 32 * 32 / int(tp::elem_size(e));
    bytes.assign(d.bytes(), 0);
    d.data = bytes.data();
    d.capacity = bytes.size();
  }
  void put(const py::array& a) {
    const size_t es = tp::elem_size(d.dtype);
    const auto* src = static_cast<const uint8_t*>(a.data());
    for (int r = 0; r < d.valid_row; ++r)
      for (int c = 0; c < d.valid_col; ++c)
        std::memcpy(tilesim::pto::layout::at(d, r, c), src + (size_t(r) * d.valid_col + c) * es, es);
  }
  py::array get(const std::string& descr) const {
    py::array out(py::dtype(descr), std::vector<py::ssize_t>{d.valid_row, d.valid_col});
    auto* dst = static_cast<uint8_t*>(out.mutable_data());
    for (int r = 0; r < d.valid_row; ++r)
      for (int c = 0; c < d.valid_col; ++c)
        std::memcpy(dst + (size_t(r) * d.valid_col + c) * 4, tilesim::pto::layout::at(d, r, c), 4);
    return out;
  }
};

py::array cube_matmul(const py::array& a, const std::string& a_dtype, const py::array& b,
                      const std::string& b_dtype, const py::object& acc, const py::object& bias,
                      const std::string& target) {
  const tp::Elem ea = tp::parse_elem(a_dtype, "a"), eb = tp::parse_elem(b_dtype, "b");
  if (a.ndim() != 2 || b.ndim() != 2)
    tilesim::raise(tilesim::ErrorCode::Constraint, "tmatmul", "a and b must be 2-D arrays",
                   "docs/pto-kernels.md#matrix");
  const int M = int(a.shape(0)), K = int(a.shape(1)), N = int(b.shape(1));
  CubeTile A(ea, tp::kLocLeft, false, tp::kSLayoutRowMajor, 512, M, K);
  CubeTile B(eb, tp::kLocRight, true, tp::kSLayoutColMajor, 512, int(b.shape(0)), N);
  const tp::Elem ec = ea == tp::Elem::s8 ? tp::Elem::s32 : tp::Elem::f32;
  CubeTile C(ec, tp::kLocAcc, false, tp::kSLayoutRowMajor, 1024, M, N);
  A.put(a);
  B.put(b);
  tp::Call call;
  call.instr = tp::Instr::TMATMUL;
  call.dst = &C.d;
  call.src0 = &A.d;
  call.src1 = &B.d;
  CubeTile Bias(ec, tp::kLocBias, true, tp::kSLayoutNoneBox, 512, 1, N);
  const std::string descr = ec == tp::Elem::s32 ? "<i4" : "<f4";
  const auto check = [&](const py::array& x, int r, int c, const char* who) {
    if (x.ndim() != 2 || x.shape(0) != r || x.shape(1) != c || !x.dtype().is(py::dtype(descr)))
      tilesim::raise(tilesim::ErrorCode::Constraint, "tmatmul",
                     std::string(who) + " must be a " + std::to_string(r) + " x " + std::to_string(c) +
                         " array of the Acc dtype (" + tp::elem_name(ec) + ")",
                     "docs/pto-kernels.md#matrix");
  };
  if (!acc.is_none()) {
    const py::array x = py::array::ensure(acc, py::array::c_style);
    check(x, M, N, "acc");
    C.put(py::array(py::dtype(descr), x.request().shape, x.data()));
    call.instr = tp::Instr::TMATMUL_ACC;
    call.acc_in = &C.d;
  }
  if (!bias.is_none()) {
    if (call.instr != tp::Instr::TMATMUL)
      tilesim::raise(tilesim::ErrorCode::Constraint, "tmatmul", "give acc or bias, not both",
                     "docs/pto-kernels.md#matrix");
    py::array x = py::array::ensure(bias, py::array::c_style);
    check(x.ndim() == 1 ? x.reshape({py::ssize_t(1), x.shape(0)}) : x, 1, N, "bias");
    Bias.put(x.ndim() == 1 ? x.reshape({py::ssize_t(1), x.shape(0)}) : x);
    call.instr = tp::Instr::TMATMUL_BIAS;
    call.bias = &Bias.d;
  }
  {
    py::gil_scoped_release nogil;
    call.auto_sync = true;  // one instruction, no kernel: nothing to order (docs/sync.md#switches)
    tp::execute(call, tp::find_target(target), tp::Ub{});
  }
  return C.get(descr);
}

py::tuple spec_tuple(const tp::fe::DstSpec& d) {
  return py::make_tuple(std::string(tp::elem_name(d.dtype)), d.rows, d.cols, d.valid_row,
                        d.valid_col, d.row_major);
}

// One call of a table instruction (tilesim.pto.tadd, ...): operand descriptors or None, the
// scalar as literal text (read as its tile's dtype by fe::scalar_code), modes by name.
void execute_instr(const std::string& name, const std::string& target, const py::object& dst,
                   const py::object& src0, const py::object& src1, const py::object& mask,
                   const py::object& tmp, const py::object& dst_idx, const py::object& scalar,
                   bool scalar_first, const py::object& cmp, const py::object& rmode,
                   const py::object& sat, bool is_binary, int pattern, int axis) {
  const tp::InstrInfo& info = instr_of(name);
  const tp::Target& t = tp::find_target(target);
  struct Slot {
    tp::TileDesc d;
    bool present = false;
  };
  const auto slot = [](const py::object& o, const char* who) {
    Slot s;
    if (!o.is_none()) {
      s.d = desc_of(o.cast<py::tuple>(), who);
      s.present = true;
    }
    return s;
  };
  const Slot d = slot(dst, "dst"), a = slot(src0, "src0"), b = slot(src1, "src1"),
             mk = slot(mask, "mask"), tm = slot(tmp, "tmp"), di = slot(dst_idx, "dst_idx");
  const auto ptr = [](const Slot& s) { return s.present ? &s.d : nullptr; };
  tp::Call c;
  c.instr = info.id;
  c.dst = ptr(d);
  c.src0 = ptr(a);
  c.src1 = ptr(b);
  c.mask = ptr(mk);
  c.tmp = ptr(tm);
  c.dst_idx = ptr(di);
  c.scalar_first = scalar_first;
  c.is_binary = is_binary;
  c.pattern = uint8_t(std::clamp(pattern, 0, 255));  // the engine checks the range (1..7)
  c.axis = uint8_t(std::clamp(axis, 0, 255));
  if (!cmp.is_none()) c.cmp = tp::fe::parse_cmp(cmp.cast<std::string>());
  if (!rmode.is_none()) c.round = tp::fe::parse_round(rmode.cast<std::string>());
  if (!sat.is_none()) c.sat = tp::fe::parse_sat(sat.cast<std::string>());
  if (!scalar.is_none()) {
    const tp::TileDesc* owner = tp::fe::scalar_is_dst_dtype(info.kind) ? c.dst : c.src0;
    if (!owner)
      tilesim::raise(tilesim::ErrorCode::Constraint, info.name, "no tile to read the scalar as");
    c.scalar = tp::fe::scalar_code(scalar.cast<std::string>(), owner->dtype, info.name);
  }
  std::vector<uint8_t> scratch;
  tp::TileDesc scratch_desc;
  if (!c.tmp && c.src0 && tp::fe::needs_scratch_tmp(info.kind)) {  // spec 60 §4 tmp=None
    const tp::fe::DstSpec s = tp::fe::scratch_tmp(*c.src0);
    scratch_desc.dtype = s.dtype;
    scratch_desc.rows = scratch_desc.valid_row = s.rows;
    scratch_desc.cols = scratch_desc.valid_col = s.cols;
    scratch.assign(scratch_desc.bytes(), 0);
    scratch_desc.data = scratch.data();
    scratch_desc.capacity = scratch.size();
    c.tmp = &scratch_desc;
  }
  py::gil_scoped_release nogil;
  c.auto_sync = true;  // one instruction, no kernel: nothing to order (docs/sync.md#switches)
  tp::execute(c, t, tp::Ub{});
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
    tp::row_expand(op_of(op), d, a, b, tmp.is_none() ? nullptr : &tt, t, tp::Ub{}, tp::Path::Fast, {},
                   /*auto_sync=*/true);
  });
  // The instruction table as Python builds its functions from it: (NAME, kind, has a tmp form).
  m.def("_instructions", [] {
    py::list l;
    for (int i = 0; i < tp::num_instrs(); ++i) {
      const tp::InstrInfo& info = tp::instr_info(tp::Instr(i));
      if (!tp::is_vector_kind(info.kind)) continue;
      l.append(py::make_tuple(std::string(info.name), std::string(tp::fe::kind_name(info.kind)),
                              tp::fe::has_tmp_form(info)));
    }
    return l;
  });
  // An instruction's dtype sets per target, for its docstring: [(target, [dtype names])].
  m.def("_dtypes", [](const std::string& name) {
    const tp::InstrInfo* info = tp::find_instr(name);
    py::list out;
    if (!info) return out;
    for (const auto& [target, set] : {std::pair<const char*, uint16_t>{"a2a3", info->a2a3}, {"a5", info->a5}}) {
      py::list names;
      for (int e = 0; e <= static_cast<int>(tp::Elem::u64); ++e)
        if (set & (1u << e)) names.append(std::string(tp::elem_name(tp::Elem(e))));
      out.append(py::make_tuple(target, names));
    }
    return out;
  });
  m.def("_is_float", [](const std::string& n) { return tp::elem_is_float(tp::parse_elem(n, "dtype")); });
  m.def("_execute", &execute_instr);
  m.def("_tmatmul", &cube_matmul);
  m.def("_default_dst", [](const std::string& name, const std::string& target, const py::tuple& src0,
                           const py::object& src1, int extent, const std::string& dtype) {
    const tp::TileDesc a = desc_of(src0, "src0");
    tp::TileDesc b;
    if (!src1.is_none()) b = desc_of(src1.cast<py::tuple>(), "src1");
    const tp::Elem e = dtype.empty() ? a.dtype : tp::parse_elem(dtype, "dtype");
    return spec_tuple(tp::fe::default_dst(instr_of(name), tp::find_target(target), a,
                                          src1.is_none() ? nullptr : &b, extent, e));
  });
  m.def("_scalar_code", [](const std::string& text, const std::string& dtype) {
    return tp::fe::scalar_code(text, tp::parse_elem(dtype, "dtype"), "scalar");
  });
  // The arguments of a func.func file's function (name, type, is a pointer, element / scalar type).
  m.def("_parameters", [](const std::string& text, const std::string& file, const py::object& entry) {
    py::list l;
    for (const auto& p : tilesim::pto::as::parameters(
             text, file, entry.is_none() ? std::string() : entry.cast<std::string>()))
      l.append(py::make_tuple(p.name, p.type, p.is_ptr, p.elem));
    return l;
  });
  m.def("_run", [](const std::string& text, const py::dict& inputs, const py::dict& valid,
                   const py::object& target, const py::object& entry, const py::object& max_mem,
                   int trace_mode) {
    tilesim::pto::as::RunOptions o;
    std::ostringstream trace;  // docs/cli.md#trace; 1 = trace, 2 = with values
    if (trace_mode > 0) o.trace = &trace;
    o.trace_values = trace_mode > 1;
    if (!target.is_none()) o.target = target.cast<std::string>();
    if (!entry.is_none()) o.entry = entry.cast<std::string>();
    if (!max_mem.is_none()) {
      const long long m = max_mem.cast<long long>();
      if (m < 0)
        tilesim::raise(tilesim::ErrorCode::Constraint, "tilesim.pto.run",
                       "max_mem must be a byte count >= 0, got " + std::to_string(m));
      o.max_mem = size_t(m);
    }
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
    if (trace_mode > 0) return py::object(py::make_tuple(r, trace.str()));
    return py::object(r);
  }, py::arg("text"), py::arg("inputs"), py::arg("valid"), py::arg("target"), py::arg("entry"),
     py::arg("max_mem"), py::arg("trace_mode") = 0);
}
tilesim::py::Registrar reg("pto", &init_pto);
}  // namespace
