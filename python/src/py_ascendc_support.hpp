// Shared helpers of the tilesim.ascendc bindings (docs/ascendc.md#python): NumPy arrays and Python
// arguments into engine operands on a fresh simulated core. No rule and no arithmetic of the model
// lives here; every check on values a kernel could pass is the engine's.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "dtype_arg.hpp"
#include "tilesim/ascendc/engine.hpp"
#include "tilesim/ascendc/vector.hpp"
#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"

namespace tilesim::pyascendc {

namespace py = pybind11;
namespace ts = tilesim::ascendc;
namespace formats = tilesim::formats;
using tilesim::ErrorCode;

inline int64_t as_int(const py::handle& h, const char* instr, const char* what) {
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

inline uint64_t as_word(const py::handle& h, const char* instr) {
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


// The §2 dtype of a NumPy array (float16/float32 and the integer types the vendor pages list);
// the engine rejects a dtype the API lacks with its own message.
inline formats::DType dtype_of(const py::array& a, const char* instr, const char* what) {
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

inline py::array one_d(const py::object& o, const char* instr, const char* what) {
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
// The saturation argument: None keeps `dflt` (the product's CTRL default), else True/False
// (a NumPy bool too); anything else is an error.
inline bool saturation_arg(const py::object& saturation, bool dflt, const char* instr) {
  if (saturation.is_none()) return dflt;
  const std::string tn = py::str(py::type::of(saturation).attr("__name__")).cast<std::string>();
  if (!py::isinstance<py::bool_>(saturation) && tn != "bool_")
    tilesim::raise(ErrorCode::Constraint, instr,
                   "saturation must be None, True or False, got " + py::repr(saturation).cast<std::string>(),
                   "docs/ascendc.md#python");
  return saturation.cast<bool>();
}

class FreshCore {
 public:
  FreshCore(const std::string& product, const py::object& saturation, const char* instr) {
    c_.product = &ts::find_product(product);
    if (!saturation.is_none()) c_.saturation = saturation_arg(saturation, false, instr);
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
inline uint64_t scalar_code(const py::object& s, const py::dtype& dt, const char* instr) {
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
inline ts::MaskArg mask_arg(const py::object& mask, const char* instr) {
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
inline std::vector<int64_t> params_of(const py::object& params, std::initializer_list<const char*> keys,
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
// `lanes`: lanes per repeat when another operand is wider (Cast); 0 = 256 / es.
inline uint64_t mask_form_extent(const ts::MaskArg& m, int64_t repeat, unsigned es, int64_t dst_blk, int64_t dst_rep,
                                 unsigned lanes = 0) {
  if (lanes == 0) lanes = 256 / es;
  const unsigned per_blk = 32 / es;
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
inline void within_array(const char* instr, const char* what, uint64_t need, uint64_t len, const char* operand) {
  if (need > len)
    tilesim::raise(ErrorCode::Bounds, instr,
                   std::string(what) + " reaches element " + std::to_string(need) + " but " + operand + " has " +
                       std::to_string(len),
                   "docs/ascendc.md#python");
}


inline py::dtype carrier_of(formats::DType t) {
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


// A count form's count against every array it runs over (name, length); `len` 0 names skipped.
struct Extent {
  const char* name;
  uint64_t len;
};
inline void count_fits(const char* instr, int64_t count, std::initializer_list<Extent> arrays) {
  if (count <= 0) return;  // negative counts are the engine's error
  for (const Extent& e : arrays)
    if (e.name) within_array(instr, "count", uint64_t(count), e.len, e.name);
}

// Which vendor form a call uses: count (count given; mask, repeat, params None) or mask + repeat
// (count None; mask and repeat given). Anything else is an error: nothing is silently ignored.
enum class Form { Count, Repeat };
inline Form form_of(const py::object& count, const py::object& mask, const py::object& repeat,
                    const py::object& params, const char* instr, bool mask_reserved = false) {
  if (!count.is_none()) {
    if (!(mask.is_none() && repeat.is_none() && params.is_none()))
      tilesim::raise(ErrorCode::Constraint, instr, "count form: mask, repeat and params must be None",
                     "docs/ascendc.md#python");
    return Form::Count;
  }
  if (mask_reserved) {
    if (!mask.is_none())
      tilesim::raise(ErrorCode::Constraint, instr,
                     "the mask is reserved here on Atlas A2 (every lane of every repeat is used): pass repeat "
                     "without mask",
                     "docs/ascendc.md#compare-and-select");
    if (repeat.is_none())
      tilesim::raise(ErrorCode::Constraint, instr, "give count (count form) or repeat (repeat form)",
                     "docs/ascendc.md#python");
    return Form::Repeat;
  }
  if (mask.is_none() || repeat.is_none())
    tilesim::raise(ErrorCode::Constraint, instr, "give count (count form) or mask and repeat (mask/repeat form)",
                   "docs/ascendc.md#python");
  return Form::Repeat;
}

inline void non_negative(const std::vector<int64_t>& p, const char* instr) {
  for (int64_t v : p)
    if (v < 0)
      tilesim::raise(ErrorCode::Constraint, instr, "params: strides must be >= 0, got " + std::to_string(v),
                     "docs/ascendc.md#python");
}

// BinaryRepeatParams as a dict (None = contiguous).
inline ts::RepeatStrides binary_strides(const py::object& params, const char* instr) {
  const auto p = params_of(params,
                           {"dst_blk_stride", "src0_blk_stride", "src1_blk_stride", "dst_rep_stride",
                            "src0_rep_stride", "src1_rep_stride"},
                           {1, 1, 1, 8, 8, 8}, instr);
  non_negative(p, instr);
  return {uint64_t(p[0]), uint64_t(p[1]), uint64_t(p[2]), uint64_t(p[3]), uint64_t(p[4]), uint64_t(p[5])};
}

// UnaryRepeatParams as a dict (None = contiguous), into the dst and src0 fields.
inline ts::RepeatStrides unary_strides(const py::object& params, const char* instr) {
  const auto p =
      params_of(params, {"dst_blk_stride", "src_blk_stride", "dst_rep_stride", "src_rep_stride"}, {1, 1, 8, 8}, instr);
  non_negative(p, instr);
  return {uint64_t(p[0]), uint64_t(p[1]), 1, uint64_t(p[2]), uint64_t(p[3]), 8};
}

// A dtype argument: a §2 name or alias ('float16', 'bf16', ...) or a NumPy dtype (np.float16,
// np.dtype('int32')), read through its kind and size.
inline formats::DType dtype_arg(const py::object& o, const char* instr, const char* what) {
  return formats::parse_dtype(tilesim::pydtype::dtype_text(o, instr, what), what);
}

// The closure functions beyond the arithmetic table (py_ascendc_api.cpp).
void init_ascendc_api(py::module_& m);

}  // namespace tilesim::pyascendc
