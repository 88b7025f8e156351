// tilesim.formats bindings (spec 60 §4). Conversions between NumPy arrays and code buffers
// only; every value comes from the bulk functions of src/formats (no arithmetic here).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "dtype_arg.hpp"
#include "registry.hpp"
#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"

namespace py = pybind11;
namespace fm = tilesim::formats;
using tilesim::ErrorCode;

namespace {

constexpr char kSpec[] = "docs/formats.md#python";

std::vector<py::ssize_t> shape_of(const py::array& a) {
  return {a.shape(), a.shape() + a.ndim()};
}

// C-contiguous view of any array-like (no copy when it already is one).
// Native byte order too, since codes are read as raw little-endian bytes.
py::array contiguous(const py::object& obj) {
  py::array a = py::module_::import("numpy").attr("ascontiguousarray")(obj).cast<py::array>();
  if (a.dtype().attr("byteorder").cast<std::string>() == ">")
    a = a.attr("astype")(a.dtype().attr("newbyteorder")("=")).cast<py::array>();
  return a;
}

// Reads an integer array as codes: each element reinterpreted as the unsigned integer of its own
// width (two's complement for signed input), required to fit `bits` (spec 60 §4: codes are
// unsigned integers). A negative element of a signed array that fits `bits` as a signed value is
// its two's complement in `bits` bits, so s4 values in their int8 carrier (spec 60 §2) decode as
// themselves (-1 -> code 0xF). Fills `out` with one code per element.
void read_codes(const char* fn, const py::array& a, unsigned bits, std::vector<uint64_t>& out) {
  const char kind = a.dtype().kind();
  if (kind != 'u' && kind != 'i' && kind != 'b')
    tilesim::raise(ErrorCode::Constraint, fn,
                   std::string("codes must be an integer array (got dtype ") +
                       py::str(a.dtype()).cast<std::string>() + "); use encode() for values",
                   kSpec);
  const size_t n = static_cast<size_t>(a.size());
  const size_t isz = static_cast<size_t>(a.itemsize());
  const auto* p = static_cast<const uint8_t*>(a.data());
  out.resize(n);
  const uint64_t limit = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  for (size_t i = 0; i < n; ++i) {
    uint64_t c = 0;
    std::memcpy(&c, p + i * isz, isz);  // little-endian host
    if (kind == 'i' && isz < 8 && bits < 64 && (c >> (isz * 8 - 1)) & 1) {  // negative element
      const int64_t v = static_cast<int64_t>(c | (~0ull << (isz * 8)));        // sign-extended
      if (v >= -(int64_t{1} << (bits - 1))) c = static_cast<uint64_t>(v) & limit;
    } else if (kind == 'i' && isz == 8 && bits < 64 && static_cast<int64_t>(c) < 0 &&
               static_cast<int64_t>(c) >= -(int64_t{1} << (bits - 1))) {
      c &= limit;
    }
    if (c > limit)
      tilesim::raise(ErrorCode::Constraint, fn,
                     "code " + std::to_string(c) + " at index " + std::to_string(i) +
                         " does not fit " + std::to_string(bits) + " bits",
                     kSpec);
    out[i] = c;
  }
}

// Packs one code per element into the format's storage (packed x2 for 4-bit types).
std::vector<uint8_t> to_storage(fm::DType t, const std::vector<uint64_t>& codes) {
  const fm::FormatInfo& f = fm::info(t);
  std::vector<uint8_t> buf(fm::storage_bytes(t, codes.size()), 0);
  const size_t w = f.storage_bits / 8;
  for (size_t i = 0; i < codes.size(); ++i) {
    if (f.storage_bits == 4)
      fm::set_nibble(buf.data(), i, static_cast<uint8_t>(codes[i]));
    else
      std::memcpy(buf.data() + i * w, &codes[i], w);
  }
  return buf;
}

py::array decode(const py::object& codes_obj, const py::object& fmt) {
  const fm::DType t = fm::parse_dtype(tilesim::pydtype::dtype_text(fmt, "formats.decode", "fmt"), "formats.decode");
  const fm::FormatInfo& f = fm::info(t);
  const py::array a = contiguous(codes_obj);
  std::vector<uint64_t> codes;
  read_codes("formats.decode", a, f.storage_bits == 4 ? 4 : f.storage_bits, codes);
  const std::vector<uint8_t> buf = to_storage(t, codes);
  const size_t n = codes.size();
  if (t == fm::DType::fp64) {
    py::array_t<double> out(shape_of(a));
    double* o = out.mutable_data();
    {
      py::gil_scoped_release nogil;
      fm::decode_array_f64(buf.data(), t, o, n);
    }
    return out;
  }
  py::array_t<float> out(shape_of(a));
  float* o = out.mutable_data();
  {
    py::gil_scoped_release nogil;
    fm::decode_array(buf.data(), t, o, n);
  }
  return out;
}

// Codes come back as the smallest unsigned dtype holding them (integers: unsigned of their width).
// float32 input goes to the fp32 bulk path directly (same values: fp32 -> double is exact).
template <class U, class T>
py::array encode_as(const py::array_t<T, py::array::c_style | py::array::forcecast>& v, fm::DType t,
                    fm::Rounding mode, bool sat) {
  const size_t n = static_cast<size_t>(v.size());
  const T* in = v.data();
  py::array_t<U> out(shape_of(v));
  U* o = out.mutable_data();
  {
    py::gil_scoped_release nogil;
    auto run = [&](void* dst) {
      if constexpr (std::is_same_v<T, float>)
        fm::encode_array(in, t, dst, n, mode, sat);
      else
        fm::encode_array_f64(in, t, dst, n, mode, sat);
    };
    if (fm::is_packed4(t)) {
      std::vector<uint8_t> packed(fm::storage_bytes(t, n));
      run(packed.data());
      for (size_t i = 0; i < n; ++i) o[i] = fm::get_nibble(packed.data(), i);
    } else {
      run(o);
    }
  }
  return out;
}

template <class T>
py::array encode_typed(const py::array& a, fm::DType t, fm::Rounding mode, bool sat) {
  const auto v = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  switch (fm::info(t).storage_bits) {
    case 4:
    case 8:
      return encode_as<uint8_t, T>(v, t, mode, sat);
    case 16:
      return encode_as<uint16_t, T>(v, t, mode, sat);
    case 32:
      return encode_as<uint32_t, T>(v, t, mode, sat);
    default:
      return encode_as<uint64_t, T>(v, t, mode, sat);
  }
}

py::array encode(const py::object& values, const py::object& fmt, const std::string& rounding,
                 const py::object& saturate_o) {
  // saturate: True or False only (numpy.bool_ too); 2 or 'yes' is a mistake, not "true".
  if (!py::isinstance<py::bool_>(saturate_o) &&
      !py::isinstance(saturate_o, py::module_::import("numpy").attr("bool_")))
    tilesim::raise(ErrorCode::Constraint, "formats.encode",
                   "saturate must be True or False, got " + py::repr(saturate_o).cast<std::string>(),
                   "docs/formats.md#python");
  const bool saturate = PyObject_IsTrue(saturate_o.ptr()) == 1;
  const fm::DType t = fm::parse_dtype(tilesim::pydtype::dtype_text(fmt, "formats.encode", "fmt"), "formats.encode");
  const fm::Rounding mode = fm::parse_rounding(rounding);
  fm::require_rounding(t, mode, "formats.encode");  // rto into e8m0, before any work (10 §4)
  py::array asarr = py::module_::import("numpy").attr("asarray")(values).cast<py::array>();
  const char kind = asarr.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
    tilesim::raise(ErrorCode::Constraint, "formats.encode",
                   "values must be a real numeric array (got dtype " +
                       py::str(asarr.dtype()).cast<std::string>() + ")",
                   kSpec);
  if (kind == 'f' && asarr.itemsize() == 4) return encode_typed<float>(asarr, t, mode, saturate);
  return encode_typed<double>(asarr, t, mode, saturate);
}

// 4-bit codes of an integer array: 0..15, or -8..-1 in a signed array (two's complement nibble).
std::vector<uint8_t> nibbles(const py::array& a) {
  const char kind = a.dtype().kind();
  if (kind != 'u' && kind != 'i')
    tilesim::raise(
        ErrorCode::Constraint, "formats.pack_x2",
        "codes must be an integer array (got dtype " + py::str(a.dtype()).cast<std::string>() + ")",
        kSpec);
  const auto v = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
  std::vector<uint8_t> out(static_cast<size_t>(v.size()));
  const int64_t* p = v.data();
  const int64_t lo = kind == 'i' ? -8 : 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (p[i] < lo || p[i] > 15 || (kind == 'u' && static_cast<uint64_t>(p[i]) > 15))
      tilesim::raise(ErrorCode::Constraint, "formats.pack_x2",
                     "code " + std::to_string(p[i]) + " at index " + std::to_string(i) +
                         " is not a 4-bit code (0..15, or -8..-1 in a signed array)",
                     "docs/formats.md#bulk-and-packed-helpers");
    out[i] = static_cast<uint8_t>(p[i] & 0xF);
  }
  return out;
}

py::array pack_x2(const py::object& codes_obj) {
  const py::array a = contiguous(codes_obj);
  if (a.ndim() != 1 && a.ndim() != 2)
    tilesim::raise(ErrorCode::Constraint, "formats.pack_x2",
                   "codes must be 1-D or 2-D (got " + std::to_string(a.ndim()) + "-D)", "docs/formats.md#bulk-and-packed-helpers");
  const size_t rows = a.ndim() == 2 ? static_cast<size_t>(a.shape(0)) : 1;
  const size_t cols = static_cast<size_t>(a.shape(a.ndim() - 1));
  const std::vector<uint8_t> packed = fm::pack_x2(nibbles(a), rows, cols);
  std::vector<py::ssize_t> shape = {static_cast<py::ssize_t>((cols + 1) / 2)};
  if (a.ndim() == 2) shape.insert(shape.begin(), static_cast<py::ssize_t>(rows));
  py::array_t<uint8_t> out(shape);
  if (!packed.empty()) std::memcpy(out.mutable_data(), packed.data(), packed.size());
  return out;
}

py::array unpack_x2(const py::object& packed_obj, const py::object& count_or_shape) {
  const py::array a = contiguous(packed_obj);
  if ((a.dtype().kind() != 'u' && a.dtype().kind() != 'i') || a.itemsize() != 1)
    tilesim::raise(
        ErrorCode::Constraint, "formats.unpack_x2",
        "packed must be a uint8 array (got dtype " + py::str(a.dtype()).cast<std::string>() + ")",
        "docs/formats.md#bulk-and-packed-helpers");
  std::vector<py::ssize_t> shape;
  try {
    const bool is_array = py::isinstance<py::array>(count_or_shape);
    if (PyIndex_Check(count_or_shape.ptr()) &&
        (!is_array || count_or_shape.cast<py::array>().ndim() == 0)) {  // int, NumPy integer
      shape.push_back(py::int_(count_or_shape).cast<py::ssize_t>());
    } else {
      for (const py::handle h : count_or_shape)
        shape.push_back(py::int_(py::reinterpret_borrow<py::object>(h)).cast<py::ssize_t>());
    }
  } catch (const py::error_already_set&) {
    shape.clear();
  } catch (const py::cast_error&) {
    shape.clear();
  }
  if (shape.empty() || shape.size() > 2 || shape[0] < 0 || shape.back() < 0)
    tilesim::raise(ErrorCode::Constraint, "formats.unpack_x2",
                   "count_or_shape must be a count or a (rows, cols) shape with non-negative sizes",
                   "docs/formats.md#bulk-and-packed-helpers");
  const size_t rows = shape.size() == 2 ? static_cast<size_t>(shape[0]) : 1;
  const size_t cols = static_cast<size_t>(shape.back());
  const size_t row_bytes = (cols + 1) / 2;
  const size_t have = static_cast<size_t>(a.size());
  if ((row_bytes != 0 && rows > have / row_bytes) || rows * row_bytes != have)
    tilesim::raise(ErrorCode::Constraint, "formats.unpack_x2",
                   "packed has " + std::to_string(have) + " bytes; " + std::to_string(rows) +
                       " rows x " + std::to_string(cols) + " elements need " +
                       std::to_string(rows) + " x " + std::to_string(row_bytes),
                   "docs/formats.md#bulk-and-packed-helpers");
  const auto* p = static_cast<const uint8_t*>(a.data());
  const std::vector<uint8_t> codes = fm::unpack_x2(std::span<const uint8_t>(p, have), rows, cols);
  py::array_t<uint8_t> out(shape);
  if (!codes.empty()) std::memcpy(out.mutable_data(), codes.data(), codes.size());
  return out;
}

void init_formats(py::module_&, py::module_& m) {
  m.doc() = "Number formats (spec 10)";
  m.def("names", &fm::names, "Canonical dtype names (spec 60 §2), in table order.");
  m.def("decode", &decode, py::arg("codes"), py::arg("fmt"),
        "Codes (unsigned integers, one per element) -> float32 values (float64 for fp64).");
  m.def("encode", &encode, py::arg("values"), py::arg("fmt"), py::arg("rounding") = "rne",
        py::arg("saturate") = false,
        "Values (converted to float64) -> codes in the smallest unsigned dtype holding them.\n"
        "rounding: 'rne' (nearest, ties to even), 'rna' (ties away), 'rtz', 'rdn' (toward -Inf),\n"
        "'rup' (toward +Inf), 'rhu' (nearest, ties toward +Inf), 'rhd' (ties toward -Inf), 'rto'\n"
        "(round to odd; not for e8m0); case-insensitive. saturate: overflow gives +-max.");
  m.def("pack_x2", &pack_x2, py::arg("codes"),
        "4-bit codes -> packed bytes (2-D: rows padded to whole bytes).");
  m.def("unpack_x2", &unpack_x2, py::arg("packed"), py::arg("count_or_shape"),
        "Packed bytes -> one 4-bit code per element (uint8), shaped by count_or_shape.");
}
tilesim::py::Registrar reg("formats", &init_formats);

}  // namespace
