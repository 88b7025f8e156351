// tilesim.tpu bindings (spec 60 §4). Conversions only: NumPy buffers in and out, names to
// data_type_t; placement and semantics are in src/tpu (arrays.cpp, Device).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "registry.hpp"
#include "tilesim/error.hpp"
#include "tilesim/tpu.hpp"
#include "tpu/arrays.hpp"
#include "tpu/dtype.hpp"

namespace py = pybind11;
namespace tp = tilesim::tpu;

namespace {

tp::SelectOp parse_op(const std::string& s) {
  if (s == "greater") return tp::SelectOp::Greater;
  if (s == "less") return tp::SelectOp::Less;
  if (s == "equal") return tp::SelectOp::Equal;
  if (s == "maximum_greater") return tp::SelectOp::MaximumGreater;
  if (s == "minimum_less") return tp::SelectOp::MinimumLess;
  tilesim::raise(tilesim::ErrorCode::Parse, "tilesim.tpu", "unknown select function '" + s + "'",
                 "docs/tpu.md#python");
}

data_type_t to_dt(int v) {
  data_type_t dt;
  static_assert(sizeof dt == sizeof v);
  std::memcpy(&dt, &v, sizeof v);
  return dt;
}

// NumPy carrier of a data_type_t (spec 60 §2): values for ints/fp16/fp32, uint codes otherwise.
std::string carrier(int v) {
  switch (v) {
    case DT_UINT8:
    case DT_FP8E4M3:
    case DT_FP8E5M2:
    case DT_UINT4:
      return "uint8";
    case DT_INT8:
    case DT_INT4:
      return "int8";
    case DT_FP16:
      return "float16";
    case DT_FP32:
      return "float32";
    case DT_UINT16:
    case DT_BFP16:
      return "uint16";
    case DT_INT16:
      return "int16";
    case DT_UINT32:
    case DT_TF32:
    case DT_FP20:
      return "uint32";
    case DT_INT32:
      return "int32";
  }
  return "uint8";
}

dim4 to_dim4(const std::vector<int>& v, const char* what) {
  if (v.size() != 4)
    tilesim::raise(
        tilesim::ErrorCode::Constraint, "tilesim.tpu",
        std::string(what) + " must have 4 entries (n, c, h, w), got " + std::to_string(v.size()),
        "docs/tpu.md#python");
  return dim4{v[0], v[1], v[2], v[3]};
}

py::array new_array(const std::vector<int>& shape, int dt) {
  std::vector<py::ssize_t> sh(shape.begin(), shape.end());
  return py::array(py::dtype(carrier(dt)), sh);
}

// Operand tuples from tilesim/tpu.py: (kind, addr_or_bits).
variable_t to_variable(const py::tuple& t) {
  const int kind = t[0].cast<int>();
  const uint32_t x = t[1].cast<uint32_t>();
  if (kind == TENSOR) return tp::tensor(x);
  if (kind == VECTOR) return tp::vector(x);
  if (kind == SCALAR) return tp::scalar_bits(x);
  tilesim::raise(tilesim::ErrorCode::Constraint, "tilesim.tpu",
                 "bad operand kind " + std::to_string(kind), "docs/tpu.md#python");
}

std::optional<dim4> opt_dim4(const py::object& o, const char* what) {
  if (o.is_none()) return std::nullopt;
  return to_dim4(o.cast<std::vector<int>>(), what);
}

// One BDC call from the vendor parameters the Python method was given (tilesim/tpu.py converts
// and checks each value; this only moves them into BdcCall's fields, whatever the prototype).
void run_bdc(tp::Device& d, const std::string& fn, const py::dict& a) {
  tp::BdcCall k;
  k.fn = fn.c_str();
  dim4 shape{};
  std::optional<dim4> st[3];
  std::optional<int> c_dtype;
  for (const auto& item : a) {
    const std::string key = item.first.cast<std::string>();
    const py::handle v = item.second;
    if (key == "dst_addr") k.dst = v.cast<uint32_t>();
    else if (key == "src0_addr" || key == "src_addr") k.src0 = v.cast<uint32_t>();
    else if (key == "src1_addr") k.src1 = v.cast<uint32_t>();
    else if (key == "shape") shape = to_dim4(v.cast<std::vector<int>>(), "shape");
    else if (key == "dst_stride") st[0] = opt_dim4(py::reinterpret_borrow<py::object>(v), "dst_stride");
    else if (key == "src0_stride" || key == "src_stride")
      st[1] = opt_dim4(py::reinterpret_borrow<py::object>(v), "src_stride");
    else if (key == "src1_stride") st[2] = opt_dim4(py::reinterpret_borrow<py::object>(v), "src1_stride");
    else if (key == "dtype") k.dst_dtype = k.src0_dtype = k.src1_dtype = v.cast<int>();
    else if (key == "dst_dtype") k.dst_dtype = v.cast<int>();
    else if (key == "src_dtype") k.src0_dtype = k.src1_dtype = v.cast<int>();
    else if (key == "src0_dtype") k.src0_dtype = v.cast<int>();
    else if (key == "src1_dtype") k.src1_dtype = v.cast<int>();
    else if (key == "C_dtype") c_dtype = v.cast<int>();
    else if (key == "C") k.c_bits = v.cast<uint32_t>();
    else if (key == "true_val") k.true_bits = v.cast<uint32_t>();
    else if (key == "shift") k.shift = v.cast<int>();
    else if (key == "rounding_mode" || key == "mode") k.rounding = v.cast<int>();
    else if (key == "saturation") k.saturation = v.cast<bool>();
    // work0_addr, work1_addr, coeff_addr: fp_exp's buffers, unused (docs/tpu.md#bdc-arithmetic)
  }
  if (c_dtype) k.src1_dtype = *c_dtype;  // the integer _C forms read C as C_dtype
  k.shape = &shape;
  if (st[0]) k.dst_stride = &*st[0];
  if (st[1]) k.src0_stride = &*st[1];
  if (st[2]) k.src1_stride = &*st[2];
  d.bdc(k);
}

size_t nbytes_of(const std::vector<int64_t>& shape, int dt, const char* fn) {
  const int e = tp::data_type_bytes(to_dt(dt));
  if (!e)
    tilesim::raise(tilesim::ErrorCode::Unsupported, fn,
                   "dtype " + tp::dtype_label(dt) + " has no whole-byte element size", "docs/tpu.md#python");
  size_t n = static_cast<size_t>(e);
  for (int64_t x : shape) n *= static_cast<size_t>(x);
  return n;
}

void init_tpu(py::module_&, py::module_& m) {
  m.doc() = "Sophgo TPU-Kernel compare-select on a simulated NPU local memory (spec 50)";
  m.def("parse_dtype",
        [](const std::string& s) { return static_cast<int>(tp::parse_data_type(s)); });
  m.def("carrier", &carrier);
  m.def("dtype_bytes", [](int dt) { return tp::data_type_bytes(to_dt(dt)); });
  m.def("scalar_code",
        [](double value, int dt, const std::string& what, const std::string& operand) {
          return tp::scalar_code(value, to_dt(dt), what, operand);
        });
  // Codes of a list of numbers given to tilesim.tpu.vector, in the operand's dtype (spec 60 §4).
  m.def("value_codes", [](py::array_t<double, py::array::c_style | py::array::forcecast> values,
                          int dt, const std::string& what, const std::string& operand) {
    py::array_t<uint32_t> out(values.size());
    const double* v = values.data();
    uint32_t* o = out.mutable_data();
    for (py::ssize_t i = 0; i < values.size(); ++i)
      o[i] = tp::scalar_code(v[i], to_dt(dt), what, operand, static_cast<int64_t>(i));
    return out;
  });
  m.def("chips", [] {
    std::vector<std::string> r;
    for (const auto& c : tp::chips()) r.emplace_back(c.name);
    return r;
  });
  m.def("npu_num", [](const std::string& chip) { return tp::find_chip(chip).npu_num; });

  // select_arrays(op, kinds, arrays, bits, shape, dtype_a, dtype_b, chip) -> (out0, out1|None)
  m.def("select_arrays",
        [](const std::string& op_name, const std::vector<int>& kinds,
           const std::vector<py::object>& arrays, const std::vector<uint32_t>& bits,
           const std::vector<int>& shape_v, int a, int b, const std::string& chip) {
          const tp::SelectOp op = parse_op(op_name);
          const dim4 shape = to_dim4(shape_v, "shape");
          tp::HostOperand src[4];
          std::vector<py::array> keep;
          for (int i = 0; i < 4; ++i) {
            src[i] = tp::HostOperand{static_cast<var_type_t>(kinds.at(i) == TENSOR   ? TENSOR
                                                             : kinds.at(i) == VECTOR ? VECTOR
                                                                                     : SCALAR),
                                     nullptr, 0, bits.at(i)};
            if (src[i].kind != SCALAR) {
              const int dt = i < 2 ? a : b;
              py::array arr = py::array::ensure(arrays.at(i), py::array::c_style);
              if (!arr || !arr.dtype().is(py::dtype(carrier(dt))))
                tilesim::raise(tilesim::ErrorCode::Constraint, "tilesim.tpu",
                               "src" + std::to_string(i) + " must be a " + carrier(dt) + " array",
                               "docs/tpu.md#python");
              src[i].data = arr.data();
              src[i].count = static_cast<size_t>(arr.size());
              keep.push_back(arr);
            }
          }
          const bool ext = op == tp::SelectOp::MaximumGreater || op == tp::SelectOp::MinimumLess;
          struct Outs {
            std::vector<int> shape;
            int dt[2];
            py::object arr[2];
          } outs{shape_v, {ext ? a : b, b}, {py::none(), py::none()}};
          auto alloc = [](void* ctx, int which) -> void* {
            auto* o = static_cast<Outs*>(ctx);
            py::array arr = new_array(o->shape, o->dt[which]);
            o->arr[which] = arr;
            return arr.mutable_data();
          };
          tp::select_arrays(chip, op, src, shape, to_dt(a), to_dt(b), alloc, &outs);
          py::object out0 = outs.arr[0], out1 = outs.arr[1];
          return py::make_tuple(out0, out1);
        });

  m.def("bdc_signatures", [] {
    py::list out;
    for (const auto& sig : tp::bdc_signatures())
      out.append(py::make_tuple(sig.name, sig.params, sig.c_dtype));
    return out;
  });
  m.def("scalar_cast", [](const std::string& fn, uint32_t bits, int dst, int src, int rm, int kind) {
    return tp::cast_scalar(fn.c_str(), bits, dst, src, rm, kind);
  });
  // Global memory (process-wide, spec 51 §1).
  m.def("global_alloc", [](size_t n) { return tp::global_alloc(n); });
  m.def("global_free", [](uint64_t g) { tp::global_free(g); });
  m.def("global_write", [](uint64_t g, py::array arr) {
    py::array c = py::array::ensure(arr, py::array::c_style);
    const size_t n = static_cast<size_t>(c.nbytes());
    uint8_t* p = tp::global_span(g, n, "tilesim.tpu.Device.global_write", "addr");
    if (n) std::memcpy(p, c.data(), n);
  });
  m.def("global_read", [](uint64_t g, const std::vector<int64_t>& shape, int dt) {
    const size_t n = nbytes_of(shape, dt, "tilesim.tpu.Device.global_read");
    const uint8_t* p = tp::global_span(g, n, "tilesim.tpu.Device.global_read", "addr");
    std::vector<py::ssize_t> sh(shape.begin(), shape.end());
    py::array out(py::dtype(carrier(dt)), sh);
    if (n) std::memcpy(out.mutable_data(), p, n);
    return out;
  });

  py::class_<tp::Device>(m, "Device")
      .def(py::init<std::string>(), py::arg("chip") = std::string(tp::kDefaultChip))
      .def_property_readonly("npu_num", &tp::Device::npu_num)
      .def_property_readonly("local_mem_size", &tp::Device::local_mem_size)
      .def_property_readonly("align_bytes", &tp::Device::align_bytes)
      .def_property_readonly("bank_num", [](const tp::Device& d) { return d.profile().banks; })
      .def_property_readonly("core_num", [](const tp::Device& d) { return d.profile().cores; })
      .def_property_readonly("chip",
                             [](const tp::Device& d) { return std::string(d.profile().name); })
      .def_property_readonly("npu_stride", &tp::Device::npu_stride)
      // (NPU_NUM, LOCAL_MEM_SIZE) view: row k is NPU k, so callers index by NPU and in-NPU offset
      // and never see the host layout's padding between NPUs (docs/tpu.md#host-layout).
      .def("memory",
           [](py::object self) {
             auto& d = self.cast<tp::Device&>();
             uint8_t* base = d.memory().data();
             return py::array(py::dtype("uint8"),
                              {static_cast<py::ssize_t>(d.npu_num()), static_cast<py::ssize_t>(d.local_mem_size())},
                              {static_cast<py::ssize_t>(d.npu_stride()), static_cast<py::ssize_t>(1)}, base, self);
           })
      .def("_s2l",
           [](tp::Device& d, uint32_t addr, py::array arr, const std::vector<int>& shape_v, int dt,
              std::optional<std::vector<int>> stride) {
             const dim4 shape = to_dim4(shape_v, "shape");
             py::array c = py::array::ensure(arr, py::array::c_style);
             if (!c.dtype().is(py::dtype(carrier(dt))))
               tilesim::raise(tilesim::ErrorCode::Constraint, "tilesim.tpu.Device.s2l",
                              "array must be " + carrier(dt), "docs/tpu.md#python");
             dim4 st{};
             if (stride) st = to_dim4(*stride, "stride");
             d.gdma_cpy_S2L(addr, c.data(), &shape, stride ? &st : nullptr, nullptr, to_dt(dt));
           })
      .def("_l2s",
           [](tp::Device& d, uint32_t addr, const std::vector<int>& shape_v, int dt,
              std::optional<std::vector<int>> stride) {
             const dim4 shape = to_dim4(shape_v, "shape");
             for (int x : shape_v)
               if (x < 1 || x > 65535)
                 tilesim::raise(tilesim::ErrorCode::Constraint, "tpu_gdma_cpy_L2S",
                                "shape entries must be in [1, 65535], got " + std::to_string(x),
                                "docs/tpu.md#python");
             py::array out = new_array(shape_v, dt);
             dim4 st{};
             if (stride) st = to_dim4(*stride, "stride");
             d.gdma_cpy_L2S(out.mutable_data(), addr, &shape, nullptr, stride ? &st : nullptr,
                            to_dt(dt));
             return out;
           })
      .def("_bdc", &run_bdc)
      // GDMA with system (global) addresses (spec 51 §2): kind names the vendor function.
      .def("_gdma",
           [](tp::Device& d, const std::string& kind, uint64_t dst, uint64_t src, const std::vector<int>& shape_v,
              const py::object& dst_stride, const py::object& src_stride, int dt, uint32_t c_bits,
              uint64_t count) {
             const dim4 shape = kind == "system_cpy" ? dim4{} : to_dim4(shape_v, "shape");
             const auto ds = opt_dim4(dst_stride, "dst_stride"), ss = opt_dim4(src_stride, "src_stride");
             const dim4* dp = ds ? &*ds : nullptr;
             const dim4* sp = ss ? &*ss : nullptr;
             const auto l = [](uint64_t a) { return static_cast<local_addr_t>(a); };
             if (kind == "cpy_S2L") d.gdma_S2L(l(dst), src, &shape, dp, sp, dt);
             else if (kind == "cpy_L2S") d.gdma_L2S(dst, l(src), &shape, dp, sp, dt);
             else if (kind == "cpy_L2L") d.gdma_L2L(l(dst), l(src), &shape, dp, sp, dt);
             else if (kind == "cpy_S2S") d.gdma_S2S(dst, src, &shape, dp, sp, dt);
             else if (kind == "set_C_system") d.gdma_set_C_system(dst, c_bits, &shape, dp, dt);
             else if (kind == "set_C_local") d.gdma_set_C_local(l(dst), c_bits, &shape, dp, dt);
             else if (kind == "system_cpy") d.gdma_system_cpy(dst, src, count, dt);
             else
               tilesim::raise(tilesim::ErrorCode::Parse, "tilesim.tpu", "unknown GDMA function '" + kind + "'",
                              "docs/tpu.md#python");
           })
      .def("_select",
           [](tp::Device& d, const std::string& op_name, uint32_t dst0, uint32_t dst1,
              const std::vector<py::tuple>& ops, const std::vector<int>& shape_v, int a, int b) {
             const dim4 shape = to_dim4(shape_v, "shape");
             if (ops.size() != 4)
               tilesim::raise(tilesim::ErrorCode::Constraint, "tilesim.tpu", "four operands needed",
                              "docs/tpu.md#python");
             const variable_t v[4] = {to_variable(ops[0]), to_variable(ops[1]), to_variable(ops[2]),
                                      to_variable(ops[3])};
             d.select(parse_op(op_name), dst0, dst1, &v[0], &v[1], &v[2], &v[3], &shape, to_dt(a),
                      to_dt(b));
           });
}

tilesim::py::Registrar reg("tpu", &init_tpu);

}  // namespace
