// tilesim.ascendc: the closure APIs beyond the arithmetic table (docs/ascendc.md#python) —
// Duplicate, Compare/Compares, Select, PairReduceSum, the high-level ReduceSum/ReduceMax/ReduceMin
// and Brcb. Each converts its arguments into one engine call on a fresh core; every rule is the
// engine's (src/ascendc/compare_select.cpp, reduce_repeat.cpp, vector.cpp).
#include <string>
#include <tuple>
#include <utility>

#include "py_ascendc_support.hpp"

namespace tilesim::pyascendc {
namespace {

constexpr const char* kDocPy = "docs/ascendc.md#python";

const py::dtype kU8("uint8");

// The optional `dst` argument: its contents (checked against the dtype) or nothing.
struct DstArg {
  bool given = false;
  py::array init;
  uint64_t len(uint64_t dflt) const { return given ? uint64_t(init.shape(0)) : dflt; }
};
DstArg dst_arg(const py::object& dst_o, formats::DType t, const char* instr) {
  DstArg d;
  d.given = !dst_o.is_none();
  if (d.given) {
    d.init = one_d(dst_o, instr, "dst");
    if (dtype_of(d.init, instr, "dst") != t)
      tilesim::raise(ErrorCode::Constraint, instr, "dst must have the dtype of the call's tensors", kDocPy);
  }
  return d;
}

ts::CmpMode cmp_of(const std::string& s, const char* instr) {
  static const std::pair<const char*, ts::CmpMode> k[] = {{"LT", ts::CmpMode::LT}, {"GT", ts::CmpMode::GT},
                                                          {"EQ", ts::CmpMode::EQ}, {"LE", ts::CmpMode::LE},
                                                          {"GE", ts::CmpMode::GE}, {"NE", ts::CmpMode::NE}};
  for (auto [n, m] : k)
    if (s == n) return m;
  tilesim::raise(ErrorCode::Constraint, instr, "cmp_mode must be 'LT', 'GT', 'EQ', 'LE', 'GE' or 'NE', got '" + s + "'",
                 "docs/ascendc.md#compare-and-select");
}

ts::SelMode sel_of(const std::string& s) {
  if (s == "VSEL_CMPMASK_SPR") return ts::SelMode::VSEL_CMPMASK_SPR;
  if (s == "VSEL_TENSOR_SCALAR_MODE") return ts::SelMode::VSEL_TENSOR_SCALAR_MODE;
  if (s == "VSEL_TENSOR_TENSOR_MODE") return ts::SelMode::VSEL_TENSOR_TENSOR_MODE;
  tilesim::raise(ErrorCode::Constraint, "Select",
                 "sel_mode must be 'VSEL_CMPMASK_SPR', 'VSEL_TENSOR_SCALAR_MODE' or 'VSEL_TENSOR_TENSOR_MODE', got '" +
                     s + "'",
                 "docs/ascendc.md#compare-and-select");
}

bool is_array_like(const py::object& o) {
  return py::isinstance<py::array>(o) || py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o);
}

// The second source of Compare/Select: an array of src0's dtype, or a number read as T (the
// scalar forms).
struct Second {
  bool scalar = false;
  py::array b;
  uint64_t code = 0;
};
Second second_operand(const py::object& b_o, const py::array& a, formats::DType t, const char* instr) {
  Second r;
  r.scalar = !is_array_like(b_o);
  if (r.scalar) {
    r.code = scalar_code(b_o, a.dtype(), instr);
  } else {
    r.b = one_d(b_o, instr, "src1");
    if (dtype_of(r.b, instr, "src1") != t)
      tilesim::raise(ErrorCode::Constraint, instr, "src0 and src1 must have the same dtype", kDocPy);
  }
  return r;
}

// Duplicate(dst, scalarValue, count) and its mask/repeat form.
py::array duplicate_api(const py::object& value, const py::object& count_o, const py::object& dtype_o,
                        const py::object& mask_o, const py::object& repeat_o, const py::object& params_o,
                        const py::object& dst_o, const std::string& product) {
  const char* instr = "Duplicate";
  FreshCore fc(product, py::none(), instr);
  if (dtype_o.is_none() && dst_o.is_none())
    tilesim::raise(ErrorCode::Constraint, instr, "give dtype or dst (the element type of dst)", kDocPy);
  formats::DType t = dtype_o.is_none() ? formats::DType::fp32 : dtype_arg(dtype_o, instr, "dtype");
  if (dtype_o.is_none()) t = dtype_of(one_d(dst_o, instr, "dst"), instr, "dst");
  const DstArg d = dst_arg(dst_o, t, instr);
  const py::dtype dt = carrier_of(t);
  const unsigned es = unsigned(dt.itemsize());
  const uint64_t code = scalar_code(value, dt, instr);
  const Form f = form_of(count_o, mask_o, repeat_o, params_o, instr);
  int64_t count = 0, repeat = 0;
  ts::MaskArg m;
  uint64_t blk = 1, rep = 8, dflt = 0;
  if (f == Form::Count) {
    count = as_int(count_o, instr, "count");
    dflt = uint64_t(std::max<int64_t>(count, 0));
  } else {
    m = mask_arg(mask_o, instr);
    repeat = as_int(repeat_o, instr, "repeat");
    const auto p = params_of(params_o, {"dst_blk_stride", "dst_rep_stride"}, {1, 8}, instr);
    non_negative(p, instr);
    blk = uint64_t(p[0]), rep = uint64_t(p[1]);
    dflt = mask_form_extent(m, repeat, es, int64_t(blk), int64_t(rep));
  }
  const uint64_t n = d.len(dflt);
  within_array(instr, f == Form::Count ? "count" : "the walk of dst", f == Form::Count ? uint64_t(std::max<int64_t>(count, 0)) : dflt, n, "dst");
  const ts::UbRef rd = fc.reserve(n, es);
  fc.bind();
  if (d.given) fc.put(rd, d.init);
  if (f == Form::Count) ts::duplicate_count(t, rd, code, count);
  else ts::duplicate_repeat(t, rd, code, m, repeat, blk, rep);
  return fc.take(rd, dt, n);
}

// Compare / Compares into a bit mask: uint8, bit i % 8 of byte i // 8 = element i.
py::array compare_api(const py::object& a_o, const py::object& b_o, const std::string& mode_s, const py::object& count_o,
                       const py::object& mask_o, const py::object& repeat_o, const py::object& params_o,
                       const std::string& product) {
  const bool scalar = !is_array_like(b_o);
  const char* instr = scalar ? "Compares" : "Compare";
  FreshCore fc(product, py::none(), instr);
  const py::array a = one_d(a_o, instr, scalar ? "src" : "src0");
  const formats::DType t = dtype_of(a, instr, "src0");
  const unsigned es = unsigned(a.itemsize()), lanes = 256 / es;
  const ts::CmpMode mode = cmp_of(mode_s, instr);
  const Second sec = second_operand(b_o, a, t, instr);
  const py::array& b = sec.b;
  const uint64_t code = sec.code;
  const Form f = form_of(count_o, mask_o, repeat_o, params_o, instr, /*mask_reserved=*/true);
  int64_t count = 0, repeat = 0;
  ts::RepeatStrides st;
  uint64_t out = 0;
  if (f == Form::Count) {
    count = as_int(count_o, instr, "count");
    count_fits(instr, count, {{scalar ? "src" : "src0", uint64_t(a.shape(0))},
                              {scalar ? nullptr : "src1", scalar ? 0 : uint64_t(b.shape(0))}});
    out = (uint64_t(std::max<int64_t>(count, 0)) + 7) / 8;
  } else {
    repeat = as_int(repeat_o, instr, "repeat");
    st = scalar ? unary_strides(params_o, instr) : binary_strides(params_o, instr);
    out = repeat > 0 && repeat <= 255 ? uint64_t(repeat) * lanes / 8 : 0;
  }
  const ts::UbRef ra = fc.reserve(uint64_t(a.shape(0)), es);
  const ts::UbRef rb = scalar ? ts::UbRef{} : fc.reserve(uint64_t(b.shape(0)), es);
  const ts::UbRef rd = fc.reserve(out, 1);
  fc.bind();
  fc.put(ra, a);
  if (!scalar) fc.put(rb, b);
  const ts::UbRef* pb = scalar ? nullptr : &rb;
  if (f == Form::Count) ts::compare_bits_count(mode, t, rd, ra, pb, code, count, instr);
  else ts::compare_bits(mode, t, rd, ra, pb, code, repeat, st, instr);
  return fc.take(rd, kU8, out);
}

// Select: a set bit of sel_mask takes a, a clear bit b (or the scalar b).
py::array select_api(const py::object& sel_o, const py::object& a_o, const py::object& b_o, const std::string& mode_s,
                     const py::object& count_o, const py::object& mask_o, const py::object& repeat_o,
                     const py::object& params_o, const py::object& dst_o, const std::string& product) {
  const char* instr = "Select";
  FreshCore fc(product, py::none(), instr);
  const ts::SelMode mode = sel_of(mode_s);
  const py::array sel = one_d(sel_o, instr, "sel_mask");
  if (sel.dtype().kind() != 'u' || sel.itemsize() != 1)
    tilesim::raise(ErrorCode::Constraint, instr,
                   "sel_mask must be a uint8 array (as compare returns it), got dtype " +
                       py::str(static_cast<py::object>(sel.dtype())).cast<std::string>(),
                   kDocPy);
  const py::array a = one_d(a_o, instr, "src0");
  const formats::DType t = dtype_of(a, instr, "src0");
  const unsigned es = unsigned(a.itemsize());
  const bool scalar = !is_array_like(b_o);
  const Second sec = second_operand(b_o, a, t, instr);
  const py::array& b = sec.b;
  const uint64_t code = sec.code;
  const Form f = form_of(count_o, mask_o, repeat_o, params_o, instr);
  int64_t count = 0, repeat = 0;
  ts::MaskArg m;
  ts::RepeatStrides st;
  uint64_t dflt = 0;
  if (f == Form::Count) {
    count = as_int(count_o, instr, "count");
    dflt = uint64_t(std::max<int64_t>(count, 0));
    count_fits(instr, count, {{"src0", uint64_t(a.shape(0))},
                              {scalar ? nullptr : "src1", scalar ? 0 : uint64_t(b.shape(0))}});
  } else {
    m = mask_arg(mask_o, instr);
    repeat = as_int(repeat_o, instr, "repeat");
    st = binary_strides(params_o, instr);
    dflt = mask_form_extent(m, repeat, es, int64_t(st.dst_blk), int64_t(st.dst_rep));
  }
  const DstArg d = dst_arg(dst_o, t, instr);
  const uint64_t n = d.len(dflt);
  within_array(instr, f == Form::Count ? "count" : "the walk of dst", dflt, n, "dst");
  const ts::UbRef rs = fc.reserve(uint64_t(sel.shape(0)), 1);
  const ts::UbRef ra = fc.reserve(uint64_t(a.shape(0)), es);
  const ts::UbRef rb = scalar ? ts::UbRef{} : fc.reserve(uint64_t(b.shape(0)), es);
  const ts::UbRef rd = fc.reserve(n, es);
  fc.bind();
  fc.put(rs, sel);
  fc.put(ra, a);
  if (!scalar) fc.put(rb, b);
  if (d.given) fc.put(rd, d.init);
  // The selMask tensor holds exactly the caller's bytes: the padding of its UB copy is not bits.
  const ts::UbRef sel_ref{rs.addr, uint64_t(sel.shape(0))};
  ts::select(mode, t, rd, &sel_ref, ra, scalar ? nullptr : &rb, code, f == Form::Repeat ? &m : nullptr, repeat, st,
             f == Form::Count, count);
  return fc.take(rd, a.dtype(), n);
}

// PairReduceSum (ReducePairElem): lanes (2k, 2k+1) of each repeat summed into result k; repeat r's
// lanes / 2 results start at byte r * dst_rep_stride * 128.
py::array pair_reduce_sum_api(const py::object& src_o, const py::object& mask_o, const py::object& repeat_o,
                              const py::object& params_o, const py::object& dst_o, const std::string& product,
                              const py::object& saturation) {
  const char* instr = "PairReduceSum";
  FreshCore fc(product, saturation, instr);
  const py::array src = one_d(src_o, instr, "src");
  const formats::DType t = dtype_of(src, instr, "src");
  const unsigned es = unsigned(src.itemsize()), lanes = 256 / es;
  if (mask_o.is_none() || repeat_o.is_none())
    tilesim::raise(ErrorCode::Constraint, instr, "mask and repeat are required (the vendor API has no count form)",
                   kDocPy);
  const ts::MaskArg m = mask_arg(mask_o, instr);
  const int64_t repeat = as_int(repeat_o, instr, "repeat");
  const auto p = params_of(params_o, {"dst_rep_stride", "src_blk_stride", "src_rep_stride"}, {1, 1, 8}, instr);
  uint64_t dflt = lanes / 2;
  if (repeat >= 1 && repeat <= 255 && p[0] >= 0) dflt = uint64_t(repeat - 1) * uint64_t(p[0]) * (128 / es) + lanes / 2;
  const DstArg d = dst_arg(dst_o, t, instr);
  const uint64_t n = d.len(dflt);
  within_array(instr, "the results", dflt, n, "dst");
  const ts::UbRef rs = fc.reserve(uint64_t(src.shape(0)), es);
  const ts::UbRef rd = fc.reserve(n, es);
  fc.bind();
  fc.put(rs, src);
  if (d.given) fc.put(rd, d.init);
  ts::pair_reduce_sum(t, rd, rs, m, repeat, p[0], p[1], p[2], instr);
  return fc.take(rd, src.dtype(), n);
}

// ReduceSum / ReduceMax / ReduceMin (high level): [value] or, with cal_index, [value, index bits].
// The work buffer is the binding's: sized for any call (the C++ API checks the caller's size).
py::array reduce_api(ts::ReduceOp op, const char* instr, const py::object& src_o, const py::object& count_o,
                     const py::object& mask_o, const py::object& repeat_o, const py::object& src_rep_o,
                     bool cal_index, const std::string& product, const py::object& saturation) {
  FreshCore fc(product, saturation, instr);
  const py::array src = one_d(src_o, instr, "src");
  const formats::DType t = dtype_of(src, instr, "src");
  const unsigned es = unsigned(src.itemsize()), lanes = 256 / es, E = 32 / es;
  const bool count_form = !count_o.is_none();
  if (count_form && !(mask_o.is_none() && repeat_o.is_none() && src_rep_o.is_none()))
    tilesim::raise(ErrorCode::Constraint, instr, "count form: mask, repeat and src_rep_stride must be None", kDocPy);
  if (!count_form && (mask_o.is_none() || repeat_o.is_none()))
    tilesim::raise(ErrorCode::Constraint, instr, "give count (count form) or mask and repeat (mask/repeat form)",
                   kDocPy);
  int64_t count = 0, repeat = 0, src_rep = 8;
  ts::MaskArg m;
  uint64_t R = 0;
  if (count_form) {
    count = as_int(count_o, instr, "count");
    count_fits(instr, count, {{"src", uint64_t(src.shape(0))}});
    R = uint64_t(std::max<int64_t>(count, 0)) / lanes + 1;
  } else {
    m = mask_arg(mask_o, instr);
    repeat = as_int(repeat_o, instr, "repeat");
    if (!src_rep_o.is_none()) src_rep = as_int(src_rep_o, instr, "src_rep_stride");
    R = uint64_t(std::clamp<int64_t>(repeat, 0, int64_t(1) << 24));
  }
  const uint64_t n = cal_index ? 2 : 1;
  // Enough for every formula of docs/ascendc.md#reducesum-reducemax-reducemin: 2R rounded up to E,
  // twice, plus the third stage.
  const uint64_t work = 6 * R + 6 * E;
  const ts::UbRef rs = fc.reserve(uint64_t(src.shape(0)), es);
  const ts::UbRef rd = fc.reserve(n, es);
  const ts::UbRef rt = fc.reserve(work, es);
  fc.bind();
  fc.put(rs, src);
  if (count_form) ts::reduce_count(op, t, rd, rs, rt, count, cal_index, true, instr);
  else ts::reduce_repeat(op, t, rd, rs, rt, m, repeat, src_rep, cal_index, instr);
  return fc.take(rd, src.dtype(), n);
}

// Brcb: element 8i + j of src fills datablock i * dst_rep_stride + j * dst_blk_stride of dst.
py::array brcb_api(const py::object& src_o, const py::object& repeat_o, const py::object& params_o,
                   const py::object& dst_o, const std::string& product) {
  const char* instr = "Brcb";
  FreshCore fc(product, py::none(), instr);
  const py::array src = one_d(src_o, instr, "src");
  const formats::DType t = dtype_of(src, instr, "src");
  const unsigned es = unsigned(src.itemsize()), E = 32 / es;
  const int64_t repeat = as_int(repeat_o, instr, "repeat");
  const auto p = params_of(params_o, {"dst_blk_stride", "dst_rep_stride"}, {1, 8}, instr);
  non_negative(p, instr);
  uint64_t dflt = 0;
  if (repeat >= 1 && repeat <= 255)
    dflt = (uint64_t(repeat - 1) * uint64_t(p[1]) + 7 * uint64_t(p[0] == 0 ? 1 : p[0])) * E + E;
  if (repeat > 0 && repeat <= 255) within_array(instr, "8 * repeat", 8 * uint64_t(repeat), uint64_t(src.shape(0)), "src");
  const DstArg d = dst_arg(dst_o, t, instr);
  const uint64_t n = d.len(dflt);
  within_array(instr, "the walk of dst", dflt, n, "dst");
  const ts::UbRef rs = fc.reserve(uint64_t(src.shape(0)), es);
  const ts::UbRef rd = fc.reserve(n, es);
  fc.bind();
  fc.put(rs, src);
  if (d.given) fc.put(rd, d.init);
  ts::brcb(t, rd, rs, repeat, uint64_t(p[0]), uint64_t(p[1]));
  return fc.take(rd, src.dtype(), n);
}

}  // namespace

void init_ascendc_api(py::module_& m) {
  m.def("duplicate", &duplicate_api, py::arg("value"), py::arg("count") = py::none(), py::kw_only(),
        py::arg("dtype") = py::none(), py::arg("mask") = py::none(), py::arg("repeat") = py::none(),
        py::arg("params") = py::none(), py::arg("dst") = py::none(), py::arg("product") = "atlas_a2");
  m.def("compare", &compare_api, py::arg("a"), py::arg("b"), py::arg("cmp_mode"), py::arg("count") = py::none(),
        py::kw_only(), py::arg("mask") = py::none(), py::arg("repeat") = py::none(), py::arg("params") = py::none(),
        py::arg("product") = "atlas_a2");
  m.def("select", &select_api, py::arg("sel_mask"), py::arg("a"), py::arg("b"),
        py::arg("sel_mode") = "VSEL_TENSOR_TENSOR_MODE", py::arg("count") = py::none(), py::kw_only(),
        py::arg("mask") = py::none(), py::arg("repeat") = py::none(), py::arg("params") = py::none(),
        py::arg("dst") = py::none(), py::arg("product") = "atlas_a2");
  m.def("pair_reduce_sum", &pair_reduce_sum_api, py::arg("src"), py::kw_only(), py::arg("mask") = py::none(),
        py::arg("repeat") = py::none(), py::arg("params") = py::none(), py::arg("dst") = py::none(),
        py::arg("product") = "atlas_a2", py::arg("saturation") = py::none());
  m.def(
      "reduce_sum",
      [](const py::object& src, const py::object& count, const py::object& mask, const py::object& repeat,
         const py::object& src_rep_stride, const std::string& product, const py::object& saturation) {
        return reduce_api(ts::ReduceOp::Sum, "ReduceSum", src, count, mask, repeat, src_rep_stride, false, product,
                          saturation);
      },
      py::arg("src"), py::arg("count") = py::none(), py::kw_only(), py::arg("mask") = py::none(),
      py::arg("repeat") = py::none(), py::arg("src_rep_stride") = py::none(), py::arg("product") = "atlas_a2",
      py::arg("saturation") = py::none());
  for (auto [pyname, op, api] : {std::tuple{"reduce_max", ts::ReduceOp::Max, "ReduceMax"},
                                 std::tuple{"reduce_min", ts::ReduceOp::Min, "ReduceMin"}}) {
    const ts::ReduceOp o = op;
    const char* a = api;
    m.def(
        pyname,
        [o, a](const py::object& src, const py::object& count, const py::object& mask, const py::object& repeat,
               const py::object& src_rep_stride, const py::object& cal_index, const std::string& product) {
          if (!py::isinstance<py::bool_>(cal_index))
            tilesim::raise(ErrorCode::Constraint, a,
                           "cal_index must be True or False, got " + py::repr(cal_index).cast<std::string>(), kDocPy);
          return reduce_api(o, a, src, count, mask, repeat, src_rep_stride, cal_index.cast<bool>(), product,
                            py::none());
        },
        py::arg("src"), py::arg("count") = py::none(), py::kw_only(), py::arg("mask") = py::none(),
        py::arg("repeat") = py::none(), py::arg("src_rep_stride") = py::none(), py::arg("cal_index") = false,
        py::arg("product") = "atlas_a2");
  }
  m.def("brcb", &brcb_api, py::arg("src"), py::arg("repeat"), py::kw_only(), py::arg("params") = py::none(),
        py::arg("dst") = py::none(), py::arg("product") = "atlas_a2");
}

}  // namespace tilesim::pyascendc
