// tilesim.ascendc bindings (spec 60 §4): converts NumPy arrays and Python masks into an engine
// call; every rule and all arithmetic are in src/ascendc.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <string>
#include <vector>

#include "py_ascendc_support.hpp"
#include "registry.hpp"

namespace {

using namespace tilesim::pyascendc;

ts::Elem elem_of(const py::array& a, const char* instr, const char* what) {
  const py::dtype dt = a.dtype();
  if (dt.kind() == 'f' && dt.itemsize() == 2) return ts::Elem::f16;
  if (dt.kind() == 'f' && dt.itemsize() == 4) return ts::Elem::f32;
  tilesim::raise(ErrorCode::Unsupported, instr,
                 std::string(what) +
                     ": T must be half or float (numpy float16 / float32), got dtype " +
                     py::str(static_cast<py::object>(dt)).cast<std::string>(),
                 "docs/ascendc.md#checks");
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
                   "docs/ascendc.md#python");
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
          "docs/ascendc.md#python");
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
    if (!given) tilesim::raise(ErrorCode::Constraint, instr, "dst must be an array", "docs/ascendc.md#python");
    if (given.ndim() != 1)
      tilesim::raise(ErrorCode::Constraint, instr,
                     "dst must be a 1-D array, got " + std::to_string(given.ndim()) + " dims",
                     "docs/ascendc.md#python");
    if (elem_of(given, instr, "dst") != t)
      tilesim::raise(ErrorCode::Constraint, instr,
                     std::string("dst and src must have the same T, got src ") + ts::name(t) +
                         " and dst " + ts::name(elem_of(given, instr, "dst")),
                     "docs/ascendc.md#checks");
    dst = py::array(given.dtype(), std::vector<py::ssize_t>{given.shape(0)});
    if (given.shape(0)) {
      py::array c = py::array::ensure(given, py::array::c_style);
      std::memcpy(dst.mutable_data(), c.data(), size_t(given.shape(0)) * sz);
    }
  }
  const bool sat = saturation_arg(saturation, prod.half_saturation, instr);
  ts::MaskRegister reg;  // a fresh core per call: reset state, normal mode
  ts::Operand d{dst.mutable_data(), 0, uint64_t(dst.shape(0))};
  ts::Operand s{const_cast<void*>(src.data()), 0, uint64_t(src.shape(0))};
  ts::block_reduce(prod, sat, reg, d, s, call);
  return dst;
}

// ---- spec 41 vector APIs (spec 60 §4): each call on a fresh simulated core ----

enum class Arity { Binary, Scalar, Unary };

// MulAddDst<float, half>: float32 dst, float16 sources (docs/ascendc.md#muladddst); 64 lanes per
// repeat, the dst's. Chosen by mul_add_dst when dst is float32 and the sources float16.
py::array mad_mixed_api(const py::array& a, const py::object& b_o, const py::object& count_o, const py::object& mask_o,
                        const py::object& repeat_o, const py::object& params_o, const py::array& dst_init,
                        const std::string& product, const py::object& saturation) {
  const char* instr = "MulAddDst";
  FreshCore fc(product, saturation, instr);
  const py::array b = one_d(b_o, instr, "src1");
  if (dtype_of(b, instr, "src1") != formats::DType::fp16)
    tilesim::raise(ErrorCode::Constraint, instr, "src0 and src1 must have the same dtype", "docs/ascendc.md#python");
  const Form f = form_of(count_o, mask_o, repeat_o, params_o, instr);
  int64_t count = 0, repeat = 0;
  ts::MaskArg m;
  ts::RepeatStrides st;
  if (f == Form::Count) {
    count = as_int(count_o, instr, "count");
    count_fits(instr, count, {{"src0", uint64_t(a.shape(0))}, {"src1", uint64_t(b.shape(0))},
                              {"dst", uint64_t(dst_init.shape(0))}});
  } else {
    m = mask_arg(mask_o, instr);
    repeat = as_int(repeat_o, instr, "repeat");
    st = binary_strides(params_o, instr);
    within_array(instr, "the walk of dst", mask_form_extent(m, repeat, 4, int64_t(st.dst_blk), int64_t(st.dst_rep)),
                 uint64_t(dst_init.shape(0)), "dst");
  }
  const ts::UbRef ra = fc.reserve(uint64_t(a.shape(0)), 2);
  const ts::UbRef rb = fc.reserve(uint64_t(b.shape(0)), 2);
  const ts::UbRef rd = fc.reserve(uint64_t(dst_init.shape(0)), 4);
  fc.bind();
  fc.put(ra, a);
  fc.put(rb, b);
  fc.put(rd, dst_init);
  if (f == Form::Count) ts::mul_add_dst_mixed_count(rd, ra, rb, count);
  else ts::mul_add_dst_mixed_repeat(rd, ra, rb, m, repeat, st);
  return fc.take(rd, dst_init.dtype(), uint64_t(dst_init.shape(0)));
}

py::array vector_api(ts::VecApi api, const char* instr, Arity arity, const py::object& a_o, const py::object& b_o,
                     const py::object& count_o, const py::object& mask_o, const py::object& repeat_o,
                     const py::object& params_o, const py::object& dst_o, const std::string& product,
                     const py::object& saturation, bool round_en) {
  const py::array a = one_d(a_o, instr, arity == Arity::Binary ? "src0" : "src");
  const formats::DType t = dtype_of(a, instr, "src");
  if (api == ts::VecApi::MulAddDst && t == formats::DType::fp16 && !dst_o.is_none()) {
    const py::array d = one_d(dst_o, instr, "dst");
    if (dtype_of(d, instr, "dst") == formats::DType::fp32)
      return mad_mixed_api(a, b_o, count_o, mask_o, repeat_o, params_o, d, product, saturation);
  }
  FreshCore fc(product, saturation, instr);
  const unsigned es = unsigned(a.itemsize());
  py::array b;
  uint64_t scalar = 0;
  if (arity == Arity::Binary) {
    b = one_d(b_o, instr, "src1");
    if (dtype_of(b, instr, "src1") != t)
      tilesim::raise(ErrorCode::Constraint, instr, "src0 and src1 must have the same dtype", "docs/ascendc.md#python");
  } else if (arity == Arity::Scalar) {
    scalar = scalar_code(b_o, a.dtype(), instr);
  }
  const bool count_form = form_of(count_o, mask_o, repeat_o, params_o, instr) == Form::Count;
  int64_t count = 0, repeat = 0;
  ts::MaskArg m;
  ts::RepeatStrides st;
  uint64_t dst_default = 0;
  if (count_form) {
    count = as_int(count_o, instr, "count");
    dst_default = count > 0 ? uint64_t(count) : 0;
  } else {
    m = mask_arg(mask_o, instr);
    repeat = as_int(repeat_o, instr, "repeat");
    st = arity == Arity::Binary ? binary_strides(params_o, instr) : unary_strides(params_o, instr);
    dst_default = mask_form_extent(m, repeat, es, int64_t(st.dst_blk), int64_t(st.dst_rep));
  }
  // py::array() is a 0-length array, not a null handle: track "dst given" explicitly.
  const bool have_dst = !dst_o.is_none();
  py::array dst_init;
  if (have_dst) {
    dst_init = one_d(dst_o, instr, "dst");
    if (dtype_of(dst_init, instr, "dst") != t)
      tilesim::raise(ErrorCode::Constraint, instr, "dst must have the dtype of src", "docs/ascendc.md#python");
  }
  const ts::UbRef ra = fc.reserve(uint64_t(a.shape(0)), es);
  const ts::UbRef rb = arity == Arity::Binary ? fc.reserve(uint64_t(b.shape(0)), es) : ts::UbRef{};
  const uint64_t dst_len = have_dst ? uint64_t(dst_init.shape(0)) : dst_default;
  if (count_form) {
    const bool bin = arity == Arity::Binary;
    count_fits(instr, count, {{bin ? "src0" : "src", uint64_t(a.shape(0))},
                              {bin ? "src1" : nullptr, bin ? uint64_t(b.shape(0)) : 0}, {"dst", dst_len}});
  } else {
    within_array(instr, "the walk of dst", dst_default, dst_len, "dst");
  }
  const ts::UbRef rd = fc.reserve(dst_len, es);
  fc.bind();
  fc.put(ra, a);
  if (arity == Arity::Binary) fc.put(rb, b);
  if (have_dst) fc.put(rd, dst_init);
  const ts::UbRef* pb = arity == Arity::Binary ? &rb : nullptr;
  if (count_form) ts::vector_count(api, t, rd, ra, pb, scalar, count, round_en);
  else ts::vector_repeat(api, t, rd, ra, pb, scalar, m, repeat, st, round_en);
  return fc.take(rd, a.dtype(), dst_len);
}

ts::ReduceOrderKind order_of(const std::string& s, const char* instr) {
  if (s == "ORDER_VALUE_INDEX") return ts::ReduceOrderKind::VALUE_INDEX;
  if (s == "ORDER_INDEX_VALUE") return ts::ReduceOrderKind::INDEX_VALUE;
  if (s == "ORDER_ONLY_VALUE") return ts::ReduceOrderKind::ONLY_VALUE;
  if (s == "ORDER_ONLY_INDEX") return ts::ReduceOrderKind::ONLY_INDEX;
  tilesim::raise(ErrorCode::Constraint, instr,
                 "order must be 'ORDER_VALUE_INDEX', 'ORDER_INDEX_VALUE', 'ORDER_ONLY_VALUE' or 'ORDER_ONLY_INDEX', got '" +
                     s + "'",
                 "docs/ascendc.md#python");
}

py::array whole_reduce_api(ts::ReduceOp op, const char* instr, const py::object& src_o, const py::object& count_o,
                           const py::object& mask_o, const py::object& repeat_o, const py::object& params_o,
                           const std::string& order_s, const py::object& dst_o, const std::string& product,
                           const py::object& saturation) {
  FreshCore fc(product, saturation, instr);
  const py::array src = one_d(src_o, instr, "src");
  const formats::DType t = dtype_of(src, instr, "src");
  const unsigned es = unsigned(src.itemsize()), lanes = 256 / es;
  const ts::ReduceOrderKind order = op == ts::ReduceOp::Sum ? ts::ReduceOrderKind::ONLY_VALUE : order_of(order_s, instr);
  const bool count_form = !count_o.is_none();
  if (count_form && !(mask_o.is_none() && repeat_o.is_none() && params_o.is_none()))
    tilesim::raise(ErrorCode::Constraint, instr, "count form: mask, repeat and params must be None", "docs/ascendc.md#python");
  if (!count_form && (mask_o.is_none() || repeat_o.is_none()))
    tilesim::raise(ErrorCode::Constraint, instr, "give count (count form) or mask and repeat (mask/repeat form)",
                   "docs/ascendc.md#python");
  const auto p = params_of(params_o, {"dst_rep_stride", "src_blk_stride", "src_rep_stride"}, {1, 1, 8}, instr);
  ts::MaskArg m;
  int64_t repeat = 1, count = 0, R = 0;
  if (count_form) {
    count = as_int(count_o, instr, "count");
    if (count < 1 || count > int64_t(src.shape(0)))
      tilesim::raise(ErrorCode::Constraint, instr,
                     "count " + std::to_string(count) + " must be in [1, len(src) = " + std::to_string(src.shape(0)) + "]",
                     "docs/ascendc.md#reductions");
    m.set_mask = false;  // counter mode: the register holds the count
    R = (count + lanes - 1) / lanes;
  } else {
    m = mask_arg(mask_o, instr);
    repeat = as_int(repeat_o, instr, "repeat");
    R = repeat;
  }
  // Slot unit u in elements (spec 60 §4).
  uint64_t u = 1;
  if (op != ts::ReduceOp::Sum && order != ts::ReduceOrderKind::ONLY_VALUE)
    u = order == ts::ReduceOrderKind::ONLY_INDEX ? (es == 2 ? 2 : 1) : 2;
  uint64_t dst_default = u;
  if (R >= 1 && R <= 255 && p[0] >= 0) dst_default = uint64_t(R - 1) * uint64_t(p[0]) * u + u;
  // py::array() is a 0-length array, not a null handle: track "dst given" explicitly.
  const bool have_dst = !dst_o.is_none();
  py::array dst_init;
  if (have_dst) {
    dst_init = one_d(dst_o, instr, "dst");
    if (dtype_of(dst_init, instr, "dst") != t)
      tilesim::raise(ErrorCode::Constraint, instr, "dst must have the dtype of src", "docs/ascendc.md#python");
  }
  const ts::UbRef rs = fc.reserve(uint64_t(src.shape(0)), es);
  const uint64_t dst_len = have_dst ? uint64_t(dst_init.shape(0)) : dst_default;
  within_array(instr, "the results", dst_default, dst_len, "dst");
  const ts::UbRef rd = fc.reserve(dst_len, es);
  fc.bind();
  fc.put(rs, src);
  if (have_dst) fc.put(rd, dst_init);
  if (count_form) {
    ts::set_mask_count(fc.core().mask);
    ts::set_vector_mask_count(fc.core().mask, 0, count);
  }
  ts::whole_reduce(op, t, rd, rs, m, repeat, p[0], p[1], p[2], order, instr);
  return fc.take(rd, src.dtype(), dst_len);
}

ts::CastRound round_of(const std::string& s, const char* instr) {
  static const std::pair<const char*, ts::CastRound> kModes[] = {
      {"CAST_NONE", ts::CastRound::CAST_NONE},   {"CAST_RINT", ts::CastRound::CAST_RINT},
      {"CAST_FLOOR", ts::CastRound::CAST_FLOOR}, {"CAST_CEIL", ts::CastRound::CAST_CEIL},
      {"CAST_ROUND", ts::CastRound::CAST_ROUND}, {"CAST_TRUNC", ts::CastRound::CAST_TRUNC},
      {"CAST_ODD", ts::CastRound::CAST_ODD}};
  for (auto [n, r] : kModes)
    if (s == n) return r;
  tilesim::raise(ErrorCode::Constraint, instr,
                 "round_mode must be one of CAST_NONE CAST_RINT CAST_FLOOR CAST_CEIL CAST_ROUND CAST_TRUNC CAST_ODD, got '" +
                     s + "'",
                 "docs/ascendc.md#python");
}

py::array cast_api(const py::object& src_o, const py::object& dtype, const std::string& round_mode,
                   const py::object& count_o, const py::object& mask_o, const py::object& repeat_o,
                   const py::object& params_o, const py::object& src_dtype, const py::object& dst_o,
                   const std::string& product, const py::object& saturation) {
  const char* instr = "Cast";
  FreshCore fc(product, saturation, instr);
  const py::array src = one_d(src_o, instr, "src");
  const formats::DType to = dtype_arg(dtype, instr, "dtype");
  const formats::DType from = src_dtype.is_none() ? dtype_of(src, instr, "src") : dtype_arg(src_dtype, instr, "src_dtype");
  if (src.itemsize() != carrier_of(from).itemsize())
    tilesim::raise(ErrorCode::Constraint, instr,
                   "src: a " + std::string(formats::name(from)) + " array must use its carrier " +
                       py::str(static_cast<py::object>(carrier_of(from))).cast<std::string>(),
                   "docs/formats.md#dtype-names");
  const ts::CastRound mode = round_of(round_mode, instr);
  const Form f = form_of(count_o, mask_o, repeat_o, params_o, instr);
  const py::dtype dt = carrier_of(to);
  const unsigned es_src = unsigned(src.itemsize()), es_dst = unsigned(dt.itemsize());
  int64_t count = 0, repeat = 0;
  ts::MaskArg m;
  ts::RepeatStrides st;
  uint64_t dst_default = 0;
  if (f == Form::Count) {
    count = as_int(count_o, instr, "count");
    dst_default = uint64_t(std::max<int64_t>(count, 0));
  } else {
    m = mask_arg(mask_o, instr);
    repeat = as_int(repeat_o, instr, "repeat");
    st = unary_strides(params_o, instr);
    // Lanes follow the wider type; each operand's strides count its own datablocks (spec 41 §3).
    dst_default = mask_form_extent(m, repeat, es_dst, int64_t(st.dst_blk), int64_t(st.dst_rep),
                                   256 / std::max(es_src, es_dst));
  }
  const bool have_dst = !dst_o.is_none();
  py::array dst_init;
  if (have_dst) {
    dst_init = one_d(dst_o, instr, "dst");
    if (dst_init.itemsize() != dt.itemsize())
      tilesim::raise(ErrorCode::Constraint, instr,
                     "dst must use the carrier of dtype " + std::string(formats::name(to)), "docs/ascendc.md#python");
  }
  const ts::UbRef rs = fc.reserve(uint64_t(src.shape(0)), es_src);
  const uint64_t dst_len = have_dst ? uint64_t(dst_init.shape(0)) : dst_default;
  if (f == Form::Count) {
    count_fits(instr, count, {{"src", uint64_t(src.shape(0))}, {"dst", dst_len}});
  } else {
    within_array(instr, "the walk of dst", dst_default, dst_len, "dst");
  }
  const ts::UbRef rd = fc.reserve(dst_len, es_dst);
  fc.bind();
  fc.put(rs, src);
  if (have_dst) fc.put(rd, dst_init);
  if (f == Form::Count) ts::cast_count(to, from, rd, rs, mode, count);
  else ts::cast_repeat(to, from, rd, rs, mode, m, repeat, st);
  return fc.take(rd, dt, dst_len);
}

// One Python function per row of the API table (TILESIM_ASCENDC_VECTOR_APIS), named in snake case
// ("AddRelu" -> add_relu; "And" -> and_, as Python reserves the word).
struct PyVec {
  const char* name;
  ts::VecApi api;
  Arity arity;
};
constexpr Arity arity_Binary = Arity::Binary, arity_BinaryRelu = Arity::Binary, arity_MulAddDst = Arity::Binary,
                arity_FusedMulAdd = Arity::Binary, arity_Scalar = Arity::Scalar, arity_LeakyRelu = Arity::Scalar,
                arity_Unary = Arity::Unary;
constexpr PyVec kPyVec[] = {
#define TILESIM_PY_VEC_ROW(NAME, KIND, OP, DTYPES, SAT, PIPE) {#NAME, ts::VecApi::NAME, arity_##KIND},
    TILESIM_ASCENDC_VECTOR_APIS(TILESIM_PY_VEC_ROW)
#undef TILESIM_PY_VEC_ROW
};

std::string snake(const std::string& n) {
  std::string out;
  for (char c : n) {
    if (c >= 'A' && c <= 'Z') {
      if (!out.empty()) out += '_';
      out += char(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  if (out == "and" || out == "or" || out == "not") out += '_';
  return out;
}

void init_vector_apis(py::module_& m) {
  // Each table API's vendor name and dtypes, for its docstring (tools/gen_py_docs.py).
  m.def("_api_table", [] {
    py::dict d;
    for (const PyVec& v : kPyVec) d[py::str(snake(v.name))] = py::make_tuple(v.name, ts::vector_api_dtypes(v.api));
    return d;
  });
  for (const PyVec& v : kPyVec) {
    const PyVec r = v;
    const std::string py_name = snake(r.name);
    if (r.arity == Arity::Unary) {
      m.def(
          py_name.c_str(),
          [r](const py::object& a, const py::object& count, const py::object& mask, const py::object& repeat,
              const py::object& params, const py::object& dst, const std::string& product,
              const py::object& saturation) {
            return vector_api(r.api, r.name, r.arity, a, py::none(), count, mask, repeat, params, dst, product,
                              saturation, false);
          },
          py::arg("a"), py::arg("count") = py::none(), py::kw_only(), py::arg("mask") = py::none(),
          py::arg("repeat") = py::none(), py::arg("params") = py::none(), py::arg("dst") = py::none(),
          py::arg("product") = "atlas_a2", py::arg("saturation") = py::none());
    } else if (r.api == ts::VecApi::ShiftRight) {  // the one API with roundEn
      m.def(
          py_name.c_str(),
          [r](const py::object& a, const py::object& s, const py::object& count, const py::object& mask,
              const py::object& repeat, const py::object& params, const py::object& dst, const std::string& product,
              const py::object& saturation, const py::object& round_en) {
            if (!py::isinstance<py::bool_>(round_en))
              tilesim::raise(ErrorCode::Constraint, r.name,
                             "round_en must be True or False, got " + py::repr(round_en).cast<std::string>(),
                             "docs/ascendc.md#shiftleft-shiftright");
            return vector_api(r.api, r.name, r.arity, a, s, count, mask, repeat, params, dst, product, saturation,
                              round_en.cast<bool>());
          },
          py::arg("a"), py::arg("s"), py::arg("count") = py::none(), py::kw_only(), py::arg("mask") = py::none(),
          py::arg("repeat") = py::none(), py::arg("params") = py::none(), py::arg("dst") = py::none(),
          py::arg("product") = "atlas_a2", py::arg("saturation") = py::none(), py::arg("round_en") = false);
    } else {
      m.def(
          py_name.c_str(),
          [r](const py::object& a, const py::object& b, const py::object& count, const py::object& mask,
              const py::object& repeat, const py::object& params, const py::object& dst, const std::string& product,
              const py::object& saturation) {
            return vector_api(r.api, r.name, r.arity, a, b, count, mask, repeat, params, dst, product, saturation,
                              false);
          },
          py::arg("a"), py::arg(r.arity == Arity::Binary ? "b" : "s"), py::arg("count") = py::none(), py::kw_only(),
          py::arg("mask") = py::none(), py::arg("repeat") = py::none(), py::arg("params") = py::none(),
          py::arg("dst") = py::none(), py::arg("product") = "atlas_a2", py::arg("saturation") = py::none());
    }
  }
  m.def("cast", &cast_api, py::arg("src"), py::arg("dtype"), py::arg("round_mode") = "CAST_RINT",
        py::arg("count") = py::none(), py::kw_only(), py::arg("mask") = py::none(), py::arg("repeat") = py::none(),
        py::arg("params") = py::none(), py::arg("src_dtype") = py::none(), py::arg("dst") = py::none(),
        py::arg("product") = "atlas_a2", py::arg("saturation") = py::none());
  m.def(
      "whole_reduce_sum",
      [](const py::object& src, const py::object& count, const py::object& mask, const py::object& repeat,
         const py::object& params, const py::object& dst, const std::string& product, const py::object& saturation) {
        return whole_reduce_api(ts::ReduceOp::Sum, "WholeReduceSum", src, count, mask, repeat, params,
                                "ORDER_ONLY_VALUE", dst, product, saturation);
      },
      py::arg("src"), py::arg("count") = py::none(), py::kw_only(), py::arg("mask") = py::none(),
      py::arg("repeat") = py::none(), py::arg("params") = py::none(), py::arg("dst") = py::none(),
      py::arg("product") = "atlas_a2", py::arg("saturation") = py::none());
  for (auto [pyname, op, api] : {std::tuple{"whole_reduce_max", ts::ReduceOp::Max, "WholeReduceMax"},
                                 std::tuple{"whole_reduce_min", ts::ReduceOp::Min, "WholeReduceMin"}}) {
    const ts::ReduceOp o = op;
    const char* a = api;
    m.def(
        pyname,
        [o, a](const py::object& src, const py::object& count, const py::object& mask, const py::object& repeat,
               const py::object& params, const std::string& order, const py::object& dst, const std::string& product) {
          return whole_reduce_api(o, a, src, count, mask, repeat, params, order, dst, product, py::none());
        },
        py::arg("src"), py::arg("count") = py::none(), py::kw_only(), py::arg("mask") = py::none(),
        py::arg("repeat") = py::none(), py::arg("params") = py::none(), py::arg("order") = "ORDER_VALUE_INDEX",
        py::arg("dst") = py::none(), py::arg("product") = "atlas_a2");
  }
}

void init_ascendc(py::module_&, py::module_& m) {
  m.doc() = "Ascend C vector model: BlockReduceSum/Max/Min (spec 40) and the spec 41 vector APIs";
  init_vector_apis(m);
  init_ascendc_api(m);
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
