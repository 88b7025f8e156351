// tilesim.ascendc bindings (spec 60 §4): converts NumPy arrays and Python masks into an engine
// call; every rule and all arithmetic are in src/ascendc.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <string>
#include <vector>

#include "registry.hpp"
#include "tilesim/ascendc/engine.hpp"
#include "tilesim/ascendc/vector.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/error.hpp"

namespace py = pybind11;
namespace ts = tilesim::ascendc;
namespace formats = tilesim::formats;
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
                 "docs/ascendc.md#checks");
}

int64_t as_int(const py::handle& h, const char* instr, const char* what) {
  // bool is an int subclass in Python; mask=True meaning "1 element" would hide a caller's mistake.
  if (PyBool_Check(h.ptr()))
    tilesim::raise(ErrorCode::Constraint, instr,
                   std::string(what) + " must be an integer, got a bool (" +
                       py::repr(h).cast<std::string>() + ")",
                   "docs/ascendc.md#python");
  try {
    return py::reinterpret_steal<py::int_>(PyNumber_Index(h.ptr())).cast<int64_t>();
  } catch (const std::exception&) {
    PyErr_Clear();
    tilesim::raise(
        ErrorCode::Constraint, instr,
        std::string(what) + " must be an integer in range, got " + py::repr(h).cast<std::string>(),
        "docs/ascendc.md#checks");
  }
}

uint64_t as_word(const py::handle& h, const char* instr) {
  if (PyBool_Check(h.ptr()))
    tilesim::raise(ErrorCode::Constraint, instr,
                   "bit-mode mask words must be integers, got a bool (" +
                       py::repr(h).cast<std::string>() + ")",
                   "docs/ascendc.md#python");
  py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!idx) {
    PyErr_Clear();
    tilesim::raise(ErrorCode::Constraint, instr,
                   "mask word must be an integer, got " + py::repr(h).cast<std::string>(), "docs/ascendc.md#the-mask-register");
  }
  const py::int_ v(idx);
  if (v < py::int_(0) ||
      v > py::int_(py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(~0ull))))
    tilesim::raise(ErrorCode::Constraint, instr,
                   "mask words must be in [0, 2^64-1], got " + py::repr(h).cast<std::string>(),
                   "docs/ascendc.md#the-mask-register");
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
  bool sat = prod.half_saturation;
  if (!saturation.is_none()) {
    const std::string tn = py::str(py::type::of(saturation).attr("__name__")).cast<std::string>();
    if (!py::isinstance<py::bool_>(saturation) && tn != "bool_")
      tilesim::raise(ErrorCode::Constraint, instr,
                     "saturation must be None, True or False, got " + py::repr(saturation).cast<std::string>(),
                     "docs/ascendc.md#python");
    sat = saturation.cast<bool>();
  }
  ts::MaskRegister reg;  // a fresh core per call: reset state, normal mode
  ts::Operand d{dst.mutable_data(), 0, uint64_t(dst.shape(0))};
  ts::Operand s{const_cast<void*>(src.data()), 0, uint64_t(src.shape(0))};
  ts::block_reduce(prod, sat, reg, d, s, call);
  return dst;
}

// ---- spec 41 vector APIs (spec 60 §4): each call on a fresh simulated core ----

// The §2 dtype of a NumPy array (float16/float32 and the integer types the vendor pages list);
// the engine rejects a dtype the API lacks with its own message.
formats::DType dtype_of(const py::array& a, const char* instr, const char* what) {
  const py::dtype dt = a.dtype();
  const char k = dt.kind();
  const auto n = dt.itemsize();
  if (k == 'f' && n == 2) return formats::DType::fp16;
  if (k == 'f' && n == 4) return formats::DType::fp32;
  if (k == 'i' && n == 1) return formats::DType::s8;
  if (k == 'i' && n == 2) return formats::DType::s16;
  if (k == 'i' && n == 4) return formats::DType::s32;
  if (k == 'u' && n == 1) return formats::DType::u8;
  if (k == 'u' && n == 2) return formats::DType::u16;
  if (k == 'u' && n == 4) return formats::DType::u32;
  tilesim::raise(ErrorCode::Unsupported, instr,
                 std::string(what) + ": no Ascend C element type for NumPy dtype " +
                     py::str(static_cast<py::object>(dt)).cast<std::string>(),
                 "docs/ascendc.md#python");
}

py::array one_d(const py::object& o, const char* instr, const char* what) {
  py::array a = py::array::ensure(o, py::array::c_style);
  if (!a) tilesim::raise(ErrorCode::Constraint, instr, std::string(what) + " must be an array", "docs/ascendc.md#python");
  if (a.ndim() != 1)
    tilesim::raise(ErrorCode::Constraint, instr,
                   std::string(what) + " must be a 1-D array, got " + std::to_string(a.ndim()) + " dims", "docs/ascendc.md#python");
  return a;
}

// A fresh core (spec 60 §4): the product's state, a UB large enough for the operands laid out one
// after another at 32-byte aligned addresses (at least the product's UB size), bound to this thread
// for the call's duration.
class FreshCore {
 public:
  FreshCore(const std::string& product, const py::object& saturation, const char* instr) {
    c_.product = &ts::find_product(product);
    if (!saturation.is_none()) {
      const std::string tn = py::str(py::type::of(saturation).attr("__name__")).cast<std::string>();
      if (!py::isinstance<py::bool_>(saturation) && tn != "bool_")
        tilesim::raise(ErrorCode::Constraint, instr,
                       "saturation must be None, True or False, got " + py::repr(saturation).cast<std::string>(),
                       "docs/ascendc.md#python");
      c_.saturation = saturation.cast<bool>();
    }
  }
  ~FreshCore() { ts::bind_core(nullptr); }
  FreshCore(const FreshCore&) = delete;
  FreshCore& operator=(const FreshCore&) = delete;
  // Reserves room for `elems` elements of `bytes` each, as a LocalTensor whose buffer is rounded up
  // to whole 32-byte datablocks like every UB allocation (InitBuffer, docs/ascendc.md#ub): the
  // walker may read the rest of a source's last datablock (zeros here), never past it.
  ts::UbRef reserve(uint64_t elems, unsigned bytes) {
    const uint64_t addr = (top_ + 31) / 32 * 32;
    const uint64_t padded = (elems * bytes + 31) / 32 * 32;
    top_ = addr + padded;
    return ts::UbRef{addr, padded / bytes};
  }
  // Allocates the UB, binds the core, and copies the sources in.
  void bind() {
    c_.ub.assign(std::max<uint64_t>(c_.product->ub_bytes, (top_ + 31) / 32 * 32), 0);
    ts::bind_core(&c_);
  }
  void put(const ts::UbRef& r, const py::array& a) {
    if (a.shape(0)) std::memcpy(c_.ub.data() + r.addr, a.data(), size_t(a.shape(0)) * size_t(a.itemsize()));
  }
  // The first n elements of an operand: the array the caller sees, without the datablock padding.
  py::array take(const ts::UbRef& r, const py::dtype& dt, uint64_t n) {
    py::array out(dt, std::vector<py::ssize_t>{static_cast<py::ssize_t>(n)});
    if (n) std::memcpy(out.mutable_data(), c_.ub.data() + r.addr, n * size_t(dt.itemsize()));
    return out;
  }
  ts::Core& core() { return c_; }

 private:
  ts::Core c_;
  uint64_t top_ = 0;
};

// The scalar argument read as T (spec 60 §4): NumPy's conversion to the dtype, then its code.
uint64_t scalar_code(const py::object& s, const py::dtype& dt, const char* instr) {
  py::array v;
  try {
    v = py::module_::import("numpy").attr("asarray")(s, dt);
  } catch (const py::error_already_set&) {
    tilesim::raise(ErrorCode::Constraint, instr,
                   "scalar " + py::repr(s).cast<std::string>() + " cannot be read as " +
                       py::str(static_cast<py::object>(dt)).cast<std::string>(),
                   "docs/ascendc.md#python");
  }
  if (v.ndim() != 0)
    tilesim::raise(ErrorCode::Constraint, instr, "scalar must be a number, got " + py::repr(s).cast<std::string>(),
                   "docs/ascendc.md#python");
  uint64_t code = 0;
  std::memcpy(&code, v.data(), size_t(dt.itemsize()));
  return code;
}

// The mask argument of a mask/repeat form: an int (continuous) or a list of 1-2 words (bit mode).
ts::MaskArg mask_arg(const py::object& mask, const char* instr) {
  ts::MaskArg m;
  if (py::isinstance<py::list>(mask) || py::isinstance<py::tuple>(mask) || py::isinstance<py::array>(mask)) {
    const py::sequence seq = py::reinterpret_borrow<py::sequence>(mask);
    if (seq.size() < 1 || seq.size() > 2)
      tilesim::raise(ErrorCode::Constraint, instr,
                     "bit-mode mask must be a list of 1 or 2 words, got " + std::to_string(seq.size()), "docs/ascendc.md#python");
    m.kind = ts::MaskArg::Kind::Bits;
    m.words = static_cast<unsigned>(seq.size());
    for (size_t i = 0; i < seq.size(); ++i) m.bits[i] = as_word(seq[i], instr);
  } else {
    m.kind = ts::MaskArg::Kind::Continuous;
    m.len = as_int(mask, instr, "continuous mask");
  }
  return m;
}

// params: None = contiguous, else a dict with exactly `keys` (spec 60 §4).
std::vector<int64_t> params_of(const py::object& params, std::initializer_list<const char*> keys,
                               std::initializer_list<int64_t> defaults, const char* instr) {
  std::vector<int64_t> out(defaults);
  if (params.is_none()) return out;
  if (!py::isinstance<py::dict>(params))
    tilesim::raise(ErrorCode::Constraint, instr, "params must be None or a dict, got " + py::repr(params).cast<std::string>(),
                   "docs/ascendc.md#python");
  const py::dict d = params.cast<py::dict>();
  std::string want;
  for (const char* k : keys) want += std::string(want.empty() ? "" : ", ") + k;
  for (auto item : d) {
    const std::string k = py::str(item.first).cast<std::string>();
    bool known = false;
    for (const char* kk : keys) known |= k == kk;
    if (!known)
      tilesim::raise(ErrorCode::Constraint, instr, "params: unknown key '" + k + "' (the keys are " + want + ")",
                     "docs/ascendc.md#python");
  }
  size_t i = 0;
  for (const char* k : keys) {
    if (!d.contains(k))
      tilesim::raise(ErrorCode::Constraint, instr, std::string("params: missing key '") + k + "' (the keys are " + want + ")",
                     "docs/ascendc.md#python");
    out[i++] = as_int(d[k], instr, k);
  }
  return out;
}

// 1 + the largest destination element an active lane of the mask/repeat form writes (0 if none):
// the default dst length of spec 60 §4. Out-of-range arguments give 0; the engine rejects them.
uint64_t mask_form_extent(const ts::MaskArg& m, int64_t repeat, unsigned es, int64_t dst_blk, int64_t dst_rep) {
  const unsigned lanes = 256 / es, per_blk = 32 / es;
  if (repeat < 1 || repeat > 255 || dst_blk < 0 || dst_rep < 0) return 0;
  uint64_t best = 0;
  for (unsigned l = 0; l < lanes; ++l) {
    bool on = false;
    if (m.kind == ts::MaskArg::Kind::Continuous) on = m.len >= 0 && int64_t(l) < m.len;
    else on = (m.bits[l / 64] >> (l % 64)) & 1;
    if (!on) continue;
    const uint64_t idx = (uint64_t(repeat - 1) * uint64_t(dst_rep) + (l / per_blk) * uint64_t(dst_blk)) * per_blk +
                         l % per_blk;
    best = std::max(best, idx + 1);
  }
  return best;
}

// The arrays are the tensors (docs/ascendc.md#python): a count or a destination walk beyond an
// array's length is an error even where the 32-byte padding of its UB copy would absorb it.
void within_array(const char* instr, const char* what, uint64_t need, uint64_t len, const char* operand) {
  if (need > len)
    tilesim::raise(ErrorCode::Bounds, instr,
                   std::string(what) + " reaches element " + std::to_string(need) + " but " + operand + " has " +
                       std::to_string(len),
                   "docs/ascendc.md#python");
}

enum class Arity { Binary, Scalar, Unary };

py::array vector_api(ts::VecApi api, const char* instr, Arity arity, const py::object& a_o, const py::object& b_o,
                     const py::object& count_o, const py::object& mask_o, const py::object& repeat_o,
                     const py::object& params_o, const py::object& dst_o, const std::string& product,
                     const py::object& saturation) {
  FreshCore fc(product, saturation, instr);
  const py::array a = one_d(a_o, instr, arity == Arity::Binary ? "src0" : "src");
  const formats::DType t = dtype_of(a, instr, "src");
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
  const bool count_form = !count_o.is_none();
  if (count_form && !(mask_o.is_none() && repeat_o.is_none() && params_o.is_none()))
    tilesim::raise(ErrorCode::Constraint, instr, "count form: mask, repeat and params must be None", "docs/ascendc.md#python");
  if (!count_form && (mask_o.is_none() || repeat_o.is_none()))
    tilesim::raise(ErrorCode::Constraint, instr, "give count (count form) or mask and repeat (mask/repeat form)",
                   "docs/ascendc.md#python");
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
    if (arity == Arity::Binary) {
      const auto p = params_of(params_o,
                               {"dst_blk_stride", "src0_blk_stride", "src1_blk_stride", "dst_rep_stride",
                                "src0_rep_stride", "src1_rep_stride"},
                               {1, 1, 1, 8, 8, 8}, instr);
      for (int64_t v : p)
        if (v < 0) tilesim::raise(ErrorCode::Constraint, instr, "params: strides must be >= 0", "docs/ascendc.md#python");
      st = {uint64_t(p[0]), uint64_t(p[1]), uint64_t(p[2]), uint64_t(p[3]), uint64_t(p[4]), uint64_t(p[5])};
    } else {
      const auto p = params_of(params_o, {"dst_blk_stride", "src_blk_stride", "dst_rep_stride", "src_rep_stride"},
                               {1, 1, 8, 8}, instr);
      for (int64_t v : p)
        if (v < 0) tilesim::raise(ErrorCode::Constraint, instr, "params: strides must be >= 0", "docs/ascendc.md#python");
      st = {uint64_t(p[0]), uint64_t(p[1]), 1, uint64_t(p[2]), uint64_t(p[3]), 8};
    }
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
  if (count_form && count > 0) {
    within_array(instr, "count", uint64_t(count), uint64_t(a.shape(0)), arity == Arity::Binary ? "src0" : "src");
    if (arity == Arity::Binary) within_array(instr, "count", uint64_t(count), uint64_t(b.shape(0)), "src1");
    within_array(instr, "count", uint64_t(count), dst_len, "dst");
  } else if (!count_form) {
    within_array(instr, "the walk of dst", dst_default, dst_len, "dst");
  }
  const ts::UbRef rd = fc.reserve(dst_len, es);
  fc.bind();
  fc.put(ra, a);
  if (arity == Arity::Binary) fc.put(rb, b);
  if (have_dst) fc.put(rd, dst_init);
  const ts::UbRef* pb = arity == Arity::Binary ? &rb : nullptr;
  if (count_form) ts::vector_count(api, t, rd, ra, pb, scalar, count);
  else ts::vector_repeat(api, t, rd, ra, pb, scalar, m, repeat, st);
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

py::dtype carrier_of(formats::DType t) {
  switch (formats::info(t).carrier) {
    case formats::Carrier::f64: return py::dtype("float64");
    case formats::Carrier::f32: return py::dtype("float32");
    case formats::Carrier::f16: return py::dtype("float16");
    case formats::Carrier::u8: return py::dtype("uint8");
    case formats::Carrier::u16: return py::dtype("uint16");
    case formats::Carrier::u32: return py::dtype("uint32");
    case formats::Carrier::u64: return py::dtype("uint64");
    case formats::Carrier::i8: return py::dtype("int8");
    case formats::Carrier::i16: return py::dtype("int16");
    case formats::Carrier::i32: return py::dtype("int32");
    default: return py::dtype("int64");
  }
}

py::array cast_api(const py::object& src_o, const std::string& dtype, const std::string& round_mode,
                   const py::object& count_o, const py::object& mask_o, const py::object& repeat_o,
                   const py::object& params_o, const py::object& src_dtype, const py::object& dst_o,
                   const std::string& product, const py::object& saturation) {
  const char* instr = "Cast";
  FreshCore fc(product, saturation, instr);
  const py::array src = one_d(src_o, instr, "src");
  const formats::DType to = formats::parse_dtype(dtype, "Cast dtype");
  const formats::DType from = src_dtype.is_none() ? dtype_of(src, instr, "src")
                                                  : formats::parse_dtype(src_dtype.cast<std::string>(), "Cast src_dtype");
  if (src.itemsize() != carrier_of(from).itemsize())
    tilesim::raise(ErrorCode::Constraint, instr,
                   "src: a " + std::string(formats::name(from)) + " array must use its carrier " +
                       py::str(static_cast<py::object>(carrier_of(from))).cast<std::string>(),
                   "docs/formats.md#dtype-names");
  const ts::CastRound mode = round_of(round_mode, instr);
  if (count_o.is_none() || !mask_o.is_none() || !repeat_o.is_none() || !params_o.is_none())
    tilesim::raise(ErrorCode::Unsupported, instr,
                   "only the count form (count given; mask, repeat, params None) is bound so far: the engine has "
                   "no Cast mask/repeat form yet",
                   "docs/ascendc.md#python");
  const int64_t count = as_int(count_o, instr, "count");
  const py::dtype dt = carrier_of(to);
  // py::array() is a 0-length array, not a null handle: track "dst given" explicitly.
  const bool have_dst = !dst_o.is_none();
  py::array dst_init;
  if (have_dst) {
    dst_init = one_d(dst_o, instr, "dst");
    if (dst_init.itemsize() != dt.itemsize())
      tilesim::raise(ErrorCode::Constraint, instr, "dst must use the carrier of dtype " + dtype, "docs/ascendc.md#python");
  }
  const ts::UbRef rs = fc.reserve(uint64_t(src.shape(0)), unsigned(src.itemsize()));
  const uint64_t dst_len = have_dst ? uint64_t(dst_init.shape(0)) : uint64_t(std::max<int64_t>(count, 0));
  if (count > 0) {
    within_array(instr, "count", uint64_t(count), uint64_t(src.shape(0)), "src");
    within_array(instr, "count", uint64_t(count), dst_len, "dst");
  }
  const ts::UbRef rd = fc.reserve(dst_len, unsigned(dt.itemsize()));
  fc.bind();
  fc.put(rs, src);
  if (have_dst) fc.put(rd, dst_init);
  ts::cast_count(to, from, rd, rs, mode, count);
  return fc.take(rd, dt, dst_len);
}

void init_vector_apis(py::module_& m) {
#define TILESIM_PY_VEC(NAME, PYNAME, ARITY)                                                                   \
  m.def(                                                                                                      \
      PYNAME,                                                                                                 \
      [](const py::object& a, const py::object& b, const py::object& count, const py::object& mask,          \
         const py::object& repeat, const py::object& params, const py::object& dst, const std::string& product, \
         const py::object& saturation) {                                                                      \
        return vector_api(ts::VecApi::NAME, #NAME, ARITY, a, b, count, mask, repeat, params, dst, product,    \
                          saturation);                                                                        \
      },                                                                                                      \
      py::arg("a"), py::arg(ARITY == Arity::Binary ? "b" : "s"), py::arg("count") = py::none(), py::kw_only(), \
      py::arg("mask") = py::none(), py::arg("repeat") = py::none(), py::arg("params") = py::none(),          \
      py::arg("dst") = py::none(), py::arg("product") = "atlas_a2", py::arg("saturation") = py::none());
#define TILESIM_PY_UNARY(NAME, PYNAME)                                                                        \
  m.def(                                                                                                      \
      PYNAME,                                                                                                 \
      [](const py::object& a, const py::object& count, const py::object& mask, const py::object& repeat,     \
         const py::object& params, const py::object& dst, const std::string& product,                        \
         const py::object& saturation) {                                                                      \
        return vector_api(ts::VecApi::NAME, #NAME, Arity::Unary, a, py::none(), count, mask, repeat, params,  \
                          dst, product, saturation);                                                          \
      },                                                                                                      \
      py::arg("a"), py::arg("count") = py::none(), py::kw_only(), py::arg("mask") = py::none(),             \
      py::arg("repeat") = py::none(), py::arg("params") = py::none(), py::arg("dst") = py::none(),          \
      py::arg("product") = "atlas_a2", py::arg("saturation") = py::none());
  TILESIM_PY_VEC(Add, "add", Arity::Binary)
  TILESIM_PY_VEC(Sub, "sub", Arity::Binary)
  TILESIM_PY_VEC(Mul, "mul", Arity::Binary)
  TILESIM_PY_VEC(Div, "div", Arity::Binary)
  TILESIM_PY_VEC(Max, "max", Arity::Binary)
  TILESIM_PY_VEC(Min, "min", Arity::Binary)
  TILESIM_PY_VEC(Adds, "adds", Arity::Scalar)
  TILESIM_PY_VEC(Muls, "muls", Arity::Scalar)
  TILESIM_PY_VEC(Maxs, "maxs", Arity::Scalar)
  TILESIM_PY_VEC(Mins, "mins", Arity::Scalar)
  TILESIM_PY_UNARY(Exp, "exp")
  TILESIM_PY_UNARY(Ln, "ln")
  TILESIM_PY_UNARY(Abs, "abs")
  TILESIM_PY_UNARY(Sqrt, "sqrt")
  TILESIM_PY_UNARY(Rsqrt, "rsqrt")
  TILESIM_PY_UNARY(Reciprocal, "reciprocal")
  TILESIM_PY_UNARY(Relu, "relu")
#undef TILESIM_PY_VEC
#undef TILESIM_PY_UNARY
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
