// tilesim.linx bindings (spec 60 §4). Conversions between NumPy arrays and carrier codes only;
// the semantics are in src/linx.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "dtype_arg.hpp"
#include "registry.hpp"
#include "tilesim/error.hpp"
#include "tilesim/linx.hpp"

namespace py = pybind11;
namespace fm = tilesim::formats;
namespace lx = tilesim::linx;

namespace {

[[noreturn]] void bad(const std::string& what, const std::string& msg) {
  tilesim::raise(tilesim::ErrorCode::Constraint, what, msg, "docs/linx.md#python");
}

// A Python integer argument (int or NumPy integer, not float or bool-like strings) in
// [lo, hi]; anything else is tilesim.Error, never TypeError (spec 60 §4). Negative values are
// returned as their two's complement.
uint64_t int_arg(const py::handle& h, const std::string& what, const char* name, long double lo, long double hi) {
  if (!PyIndex_Check(h.ptr()) || PyFloat_Check(h.ptr()))
    bad(what, std::string(name) + " must be an integer, got " + py::repr(h).cast<std::string>());
  const py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(h.ptr()));
  if (!i) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow > 0) {  // above 2^63 - 1: only the unsigned range is left
    const unsigned long long u = PyLong_AsUnsignedLongLong(i.ptr());
    if (PyErr_Occurred()) PyErr_Clear();
    else if (static_cast<long double>(u) <= hi) return u;
  } else if (overflow == 0 && static_cast<long double>(v) >= lo && static_cast<long double>(v) <= hi) {
    return static_cast<uint64_t>(v);
  }
  bad(what, std::string(name) + " = " + py::repr(h).cast<std::string>() + " is outside [" +
                py::repr(py::int_(static_cast<long long>(lo))).cast<std::string>() + ", " +
                (hi >= 18446744073709551615.0L ? std::string("2**64 - 1") : std::to_string(static_cast<unsigned long long>(hi))) + "]");
}
constexpr long double kSizeMax = 4294967295.0L;  // sizes and dims: far beyond any tile, still exact

py::dtype carrier_dtype(fm::DType t) {
  switch (fm::info(t).carrier) {
    case fm::Carrier::f64: return py::dtype("float64");
    case fm::Carrier::f32: return py::dtype("float32");
    case fm::Carrier::f16: return py::dtype("float16");
    case fm::Carrier::u8: return py::dtype("uint8");
    case fm::Carrier::u16: return py::dtype("uint16");
    case fm::Carrier::u32: return py::dtype("uint32");
    case fm::Carrier::u64: return py::dtype("uint64");
    case fm::Carrier::i8: return py::dtype("int8");
    case fm::Carrier::i16: return py::dtype("int16");
    case fm::Carrier::i32: return py::dtype("int32");
    default: return py::dtype("int64");
  }
}

struct Codes {
  std::vector<uint8_t> bytes;  // carrier elements
  size_t rows, cols;
};

// A 1-D (N,) or 2-D array -> carrier codes of t. Float-valued formats with a float carrier take
// any real array (encoded RNE by the formats core); the others take integer codes / values,
// range-checked against the type.
Codes to_codes(const py::array& arr, fm::DType t, const char* what) {
  Codes c{};
  if (arr.ndim() == 1) {
    c.rows = 1;
    c.cols = static_cast<size_t>(arr.shape(0));
  } else if (arr.ndim() == 2) {
    c.rows = static_cast<size_t>(arr.shape(0));
    c.cols = static_cast<size_t>(arr.shape(1));
  } else {
    bad(what, "matrix must be 1-D or 2-D, got " + std::to_string(arr.ndim()) + " dimensions");
  }
  const size_t n = c.rows * c.cols, cb = lx::carrier_bytes(t);
  const auto& fi = fm::info(t);
  c.bytes.resize(n * cb);
  const char kind = arr.dtype().kind();
  const bool float_carrier = fi.carrier == fm::Carrier::f64 || fi.carrier == fm::Carrier::f32 ||
                             fi.carrier == fm::Carrier::f16;
  if (float_carrier) {
    if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
      bad(what, "cannot read a " + std::string(fm::name(t)) + " matrix from a NumPy array of kind '" + kind + "'");
    auto v = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(arr);
    fm::encode_array_f64(v.data(), t, c.bytes.data(), n);  // one code per carrier unit
    return c;
  }
  if (kind != 'i' && kind != 'u' && kind != 'b')
    bad(what, std::string(fm::name(t)) + " data is given as integer codes or values, got a NumPy array of kind '" +
                  kind + "'");
  const bool is_signed = fi.kind == fm::Kind::Signed;
  const unsigned bits = fi.storage_bits == 4 ? 4 : fi.storage_bits;
  const auto check_store = [&](size_t i, uint64_t code, bool ok, const std::string& shown) {
    if (!ok) bad(what, "element " + std::to_string(i) + " = " + shown + " is out of range for " + std::string(fm::name(t)));
    std::memcpy(c.bytes.data() + i * cb, &code, cb);
  };
  if (kind == 'u') {
    auto v = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
    const uint64_t max = is_signed ? (bits >= 64 ? ~uint64_t{0} >> 1 : (uint64_t{1} << (bits - 1)) - 1)
                                   : (bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
    for (size_t i = 0; i < n; ++i) check_store(i, v.data()[i], v.data()[i] <= max, std::to_string(v.data()[i]));
  } else {
    auto v = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
    for (size_t i = 0; i < n; ++i) {
      const int64_t x = v.data()[i];
      bool ok;
      if (is_signed)
        ok = bits >= 64 || (x >= -(int64_t{1} << (bits - 1)) && x < (int64_t{1} << (bits - 1)));
      else
        ok = x >= 0 && (bits >= 64 || x < (int64_t{1} << bits));
      check_store(i, static_cast<uint64_t>(x), ok, std::to_string(x));
    }
  }
  return c;
}

std::string shown(const py::handle& h) { return py::repr(h).cast<std::string>(); }

// A str argument; anything else is tilesim.Error naming function, argument, value and what is
// expected (spec 60 §4: every rejection, never TypeError).
std::string str_arg(const py::handle& h, const std::string& fn, const char* name, const char* expected) {
  if (!py::isinstance<py::str>(h)) bad(fn, std::string(name) + " must be " + expected + ", got " + shown(h));
  return h.cast<std::string>();
}

// Python bool or numpy.bool_ (not 0/1 or 'x').
bool bool_arg(const py::handle& h, const std::string& fn, const char* name) {
  if (py::isinstance<py::bool_>(h) || py::isinstance(h, py::module_::import("numpy").attr("bool_")))
    return PyObject_IsTrue(h.ptr()) == 1;
  bad(fn, std::string(name) + " must be True or False, got " + shown(h));
}

// A matrix argument: an array, or any array-like NumPy can convert (a nested list).
py::array matrix_arg(const py::handle& h, const std::string& fn) {
  if (py::isinstance<py::array>(h)) return py::reinterpret_borrow<py::array>(h);
  if (py::isinstance<py::str>(h) || py::isinstance<py::bytes>(h))
    bad(fn, "matrix must be a NumPy array or array-like of numbers, got " + shown(h));
  try {
    return py::module_::import("numpy").attr("asarray")(h).cast<py::array>();
  } catch (py::error_already_set& e) {  // e.g. a ragged list
    bad(fn, "matrix must be a NumPy array or array-like of numbers, got " + shown(h) + " (" + e.what() + ")");
  }
}

// A dtype argument: a name or alias of spec 60 §2 (or a numpy.dtype, by its name). None takes it
// from the array's NumPy dtype (spec 60 §2 "Where a dtype argument is omitted").
// arr null: the call has no array to take it from (unpack), so the dtype is required.
fm::DType dtype_arg(const py::handle& d, const py::array* arr, const std::string& fn) {
  if (d.is_none() && !arr) bad(fn, "dtype must be a dtype name such as 'fp16', got None");
  if (d.is_none()) {
    const py::dtype dt = arr->dtype();
    const char kind = dt.kind();
    fm::DType t;
    if ((kind == 'f' || kind == 'i' || kind == 'u') && fm::try_parse_dtype(dt.attr("name").cast<std::string>(), t))
      return t;
    bad(fn, "dtype omitted and the array's NumPy dtype " + py::str(py::handle(dt)).cast<std::string>() +
                " maps to no format (float16/32/64 and [u]int8..64 do; bit-carried formats need dtype=)");
  }
  return fm::parse_dtype(tilesim::pydtype::dtype_text(d, fn, "dtype"), fn + " dtype");
}

lx::Layout layout_arg(const py::handle& h, const std::string& fn) {
  return lx::parse_layout(str_arg(h, fn, "layout", "one of 'nz', 'zn', 'nd'"));
}

std::vector<uint8_t> raw_bytes(const py::object& o) {
  if (py::isinstance<py::bytes>(o) || py::isinstance<py::bytearray>(o)) {
    const std::string s = py::isinstance<py::bytes>(o) ? o.cast<std::string>()
                                                       : std::string(PyByteArray_AsString(o.ptr()),
                                                                     static_cast<size_t>(PyByteArray_Size(o.ptr())));
    return {s.begin(), s.end()};
  }
  auto a = py::array::ensure(o);
  if (!a || a.dtype().kind() != 'u' || a.itemsize() != 1)
    bad("tilesim.linx push_raw", "raw tile bytes must be bytes or a uint8 array");
  auto v = py::array_t<uint8_t, py::array::c_style>::ensure(a);
  return {v.data(), v.data() + v.size()};
}

std::vector<uint32_t> words_of(const py::object& o) {
  std::vector<uint32_t> w;
  if (py::isinstance<py::str>(o) || !py::isinstance<py::iterable>(o))
    bad("tilesim.linx", "words must be a sequence of integers");
  for (const py::handle h : o) {
    if (!PyIndex_Check(h.ptr()) || PyFloat_Check(h.ptr()))
      bad("tilesim.linx", "word " + py::repr(h).cast<std::string>() + " is not an integer");
    const py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(h.ptr()));
    if (!i) throw py::error_already_set();
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow || v < 0 || v > 0xFFFFFFFFLL) bad("tilesim.linx", "word " + py::repr(h).cast<std::string>() + " is not a 32-bit value");
    w.push_back(static_cast<uint32_t>(v));
  }
  return w;
}

char queue_of(const py::handle& h, const std::string& fn) {
  const std::string q = str_arg(h, fn, "queue", "one of 'T', 'U', 'M', 'N'");
  if (q.size() != 1) bad(fn, "queue must be one of 'T', 'U', 'M', 'N', got '" + q + "'");
  return q[0];
}

// lx::Fault -> tilesim.linx.Fault with its kind, commit-word index and block text (spec 30 §1);
// a host-side push has no block: word_index and block_text are None. Registered after the
// module's generic translator, so it is tried first.
void translate_fault(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const lx::Fault& f) {
    const py::object cls = py::module_::import("tilesim._errors").attr("Fault");
    const bool host = f.word_index() < 0;
    const py::object inst = cls(f.what(), tilesim::to_string(f.code()), f.kind(),
                                host ? py::object(py::none()) : py::object(py::int_(f.word_index())),
                                host ? py::object(py::none()) : py::object(py::str(f.block_text())));
    PyErr_SetObject(cls.ptr(), inst.ptr());
  }
}

void init_linx(py::module_&, py::module_& m) {
  m.doc() = "LinxISA tile blocks: TMATMUL, TMATMUL.BIAS, TMATMUL.ACC (spec 30)";
  py::register_exception_translator(&translate_fault);
  m.def(
      "assemble",
      [](const py::object& text) {
        return lx::assemble(str_arg(text, "tilesim.linx.assemble", "text", "LinxISA assembly text (a str)"));
      },
      py::arg("text"));
  m.def(
      "disassemble",
      [](const py::object& words, const py::object& fold) {
        const bool f = bool_arg(fold, "tilesim.linx.disassemble", "fold");
        return lx::disassemble(words_of(words), f);
      },
      py::arg("words"), py::arg("fold") = false);
  m.def(
      "pack",
      [](const py::object& matrix, const py::object& dtype, const py::object& layout) {
        const std::string fn = "tilesim.linx.pack";
        const py::array arr = matrix_arg(matrix, fn);
        const fm::DType t = dtype_arg(dtype, &arr, fn);
        const lx::Layout l = layout_arg(layout, fn);
        const Codes c = to_codes(arr, t, fn.c_str());
        const auto raw = lx::pack(c.bytes.data(), c.rows, c.cols, t, l);
        py::array_t<uint8_t> out(static_cast<py::ssize_t>(raw.size()));
        std::memcpy(out.mutable_data(), raw.data(), raw.size());
        return out;
      },
      py::arg("matrix"), py::arg("dtype"), py::arg("layout"));
  m.def(
      "unpack",
      [](const py::object& raw, const py::object& shape, const py::object& dtype, const py::object& layout) {
        const std::string what = "tilesim.linx.unpack";
        const fm::DType t = dtype_arg(dtype, nullptr, what);
        const lx::Layout l = layout_arg(layout, what);
        size_t rows = 1, cols;
        bool one_d = false;
        if (PyIndex_Check(shape.ptr())) {
          cols = int_arg(shape, what, "shape", 0, kSizeMax);
          one_d = true;
        } else {
          if (py::isinstance<py::str>(shape) || !py::isinstance<py::sequence>(shape))
            bad(what, "shape must be (rows, cols) or (n,), got " + py::repr(shape).cast<std::string>());
          const auto s = shape.cast<py::sequence>();
          if (s.size() == 1) { cols = int_arg(s[0], what, "shape[0]", 0, kSizeMax); one_d = true; }
          else if (s.size() == 2) { rows = int_arg(s[0], what, "shape[0]", 0, kSizeMax); cols = int_arg(s[1], what, "shape[1]", 0, kSizeMax); }
          else bad(what, "shape must be (rows, cols) or (n,)");
        }
        const auto bytes = raw_bytes(raw);
        const auto el = lx::unpack(bytes, rows, cols, t, l);
        std::vector<py::ssize_t> dims = one_d ? std::vector<py::ssize_t>{static_cast<py::ssize_t>(cols)}
                                              : std::vector<py::ssize_t>{static_cast<py::ssize_t>(rows),
                                                                         static_cast<py::ssize_t>(cols)};
        py::array out(carrier_dtype(t), dims);
        std::memcpy(out.mutable_data(), el.data(), el.size());
        return out;
      },
      py::arg("raw"), py::arg("shape"), py::arg("dtype"), py::arg("layout"));

  py::class_<lx::Machine>(m, "Machine")
      .def(py::init([](const py::object& profile, const py::object& mem_bytes) {
             const char* want = "a profile name such as 'linx_v056'";
             const std::string fn = "tilesim.linx.Machine";
             const size_t mb = int_arg(mem_bytes, fn, "mem_bytes", 1, 1099511627776.0L);
             return lx::Machine(str_arg(profile, fn, "profile", want), mb);
           }),
           py::arg("profile") = "linx_v056", py::arg("mem_bytes") = lx::kDefaultMemBytes)
      .def_property_readonly("mem_bytes", &lx::Machine::mem_bytes)
      .def(
          "write_mem",
          [](lx::Machine& self, const py::object& addr, const py::object& data) {
            const std::string fn = "tilesim.linx.Machine.write_mem";
            const uint64_t a = int_arg(addr, fn, "addr", 0, 18446744073709551615.0L);
            if (py::isinstance<py::bytes>(data) || py::isinstance<py::bytearray>(data)) {
              const auto b = raw_bytes(data);
              self.write_mem(a, b);
              return;
            }
            auto arr = py::array::ensure(data);
            if (!arr || py::isinstance<py::str>(data))
              bad(fn, "data must be bytes or a NumPy array, got " + py::repr(data).cast<std::string>());
            // The array's raw bytes in C order (little-endian on every host tilesim builds for).
            const py::array c = py::array::ensure(arr, py::array::c_style);
            const auto* p = static_cast<const uint8_t*>(c.data());
            self.write_mem(a, std::span<const uint8_t>(p, static_cast<size_t>(c.nbytes())));
          },
          py::arg("addr"), py::arg("data"))
      .def(
          "read_mem",
          [](const lx::Machine& self, const py::object& addr, const py::object& nbytes) {
            const std::string fn = "tilesim.linx.Machine.read_mem";
            const auto b = self.read_mem(int_arg(addr, fn, "addr", 0, 18446744073709551615.0L),
                                         int_arg(nbytes, fn, "nbytes", 0, 1099511627776.0L));
            return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
          },
          py::arg("addr"), py::arg("nbytes"))
      .def(
          "read_array",
          [](const lx::Machine& self, const py::object& addr, const py::object& shape, const py::object& dtype,
             const py::object& layout) {
            const std::string fn = "tilesim.linx.Machine.read_array";
            const fm::DType t = dtype_arg(dtype, nullptr, fn);
            const lx::Layout l = layout_arg(layout, fn);
            size_t rows = 1, cols;
            bool one_d = false;
            if (PyIndex_Check(shape.ptr())) {
              cols = int_arg(shape, fn, "shape", 0, kSizeMax);
              one_d = true;
            } else {
              if (py::isinstance<py::str>(shape) || !py::isinstance<py::sequence>(shape))
                bad(fn, "shape must be (rows, cols) or (n,), got " + py::repr(shape).cast<std::string>());
              const auto sq = shape.cast<py::sequence>();
              if (sq.size() == 1) { cols = int_arg(sq[0], fn, "shape[0]", 0, kSizeMax); one_d = true; }
              else if (sq.size() == 2) { rows = int_arg(sq[0], fn, "shape[0]", 0, kSizeMax); cols = int_arg(sq[1], fn, "shape[1]", 0, kSizeMax); }
              else bad(fn, "shape must be (rows, cols) or (n,)");
            }
            const auto el = self.read_array(int_arg(addr, fn, "addr", 0, 18446744073709551615.0L), rows, cols, t, l);
            std::vector<py::ssize_t> dims = one_d ? std::vector<py::ssize_t>{static_cast<py::ssize_t>(cols)}
                                                  : std::vector<py::ssize_t>{static_cast<py::ssize_t>(rows),
                                                                             static_cast<py::ssize_t>(cols)};
            py::array out(carrier_dtype(t), dims);
            std::memcpy(out.mutable_data(), el.data(), el.size());
            return out;
          },
          py::arg("addr"), py::arg("shape"), py::arg("dtype"), py::arg("layout") = "nd")
      .def("set_reg",
           [](lx::Machine& self, const py::object& reg, const py::object& v) {
             const std::string fn = "tilesim.linx.Machine.set_reg";
             const std::string r = str_arg(reg, fn, "reg", "a register name such as 'a0' or 'R2'");
             // 64-bit registers; a negative value is its two's complement, as `tilesim run --reg`
             self.set_reg(r, int_arg(v, fn, "value", -9223372036854775808.0L, 18446744073709551615.0L));
           },
           py::arg("reg"), py::arg("value"))
      .def(
          "push_tile",
          [](lx::Machine& self, const py::object& q, const py::object& matrix, const py::object& dtype,
             const py::object& layout, const py::object& size) {
            const std::string fn = "tilesim.linx.Machine.push_tile";
            const char queue = queue_of(q, fn);
            const py::array arr = matrix_arg(matrix, fn);
            const fm::DType t = dtype_arg(dtype, &arr, fn);
            const lx::Layout l = layout_arg(layout, fn);
            const size_t sz = size.is_none() ? 0 : int_arg(size, fn, "size", 0, kSizeMax);
            const Codes c = to_codes(arr, t, fn.c_str());
            self.push_tile(queue, c.bytes.data(), c.rows, c.cols, t, l, sz);
          },
          py::arg("queue"), py::arg("matrix"), py::arg("dtype") = py::none(), py::arg("layout") = "nz",
          py::arg("size") = py::none())
      .def(
          "push_raw",
          [](lx::Machine& self, const py::object& q, const py::object& raw, const py::object& size) {
            const std::string fn = "tilesim.linx.Machine.push_raw";
            const char queue = queue_of(q, fn);
            const auto b = raw_bytes(raw);
            self.push_raw(queue, b, size.is_none() ? 0 : int_arg(size, fn, "size", 0, kSizeMax));
          },
          py::arg("queue"), py::arg("raw_bytes"), py::arg("size") = py::none())
      .def(
          "run",
          [](lx::Machine& self, const py::object& prog, const py::object& trace, const py::object& tv) {
            // trace= (docs/cli.md#trace): a path, a file object or a list; the lines written up to
            // a fault are delivered too. trace_values without trace= has nothing to apply to.
            const bool trace_values = bool_arg(tv, "tilesim.linx.Machine.run", "trace_values");
            if (trace_values && trace.is_none())
              bad("tilesim.linx.Machine.run", "trace_values=True applies only with trace=");
            std::ostringstream lines;
            if (!trace.is_none()) self.set_trace(&lines, trace_values);
            const auto deliver = [&] {
              self.set_trace(nullptr);
              if (!trace.is_none())
                py::module_::import("tilesim._trace").attr("deliver")(trace, lines.str(), "tilesim.linx.Machine.run");
            };
            try {
              if (py::isinstance<py::str>(prog))
                self.run(prog.cast<std::string>());
              else
                self.run(words_of(prog));
            } catch (...) {
              deliver();
              throw;
            }
            deliver();
          },
          py::arg("program"), py::arg("trace") = py::none(), py::arg("trace_values") = false)
      .def("acc",
           [](const lx::Machine& self) {
             const lx::AccView& a = self.acc();
             if (!a.valid && a.released_at >= 0)
               tilesim::raise(tilesim::ErrorCode::Constraint, "tilesim.linx.Machine.acc",
                              "ACC released by ACCCVT at block " + std::to_string(a.released_at), "docs/linx.md#acccvt");
             if (!a.valid) tilesim::raise(tilesim::ErrorCode::Constraint, "tilesim.linx.Machine.acc", "ACC holds no result", "docs/linx.md#machine");
             py::array out(carrier_dtype(a.type),
                           std::vector<py::ssize_t>{static_cast<py::ssize_t>(a.m), static_cast<py::ssize_t>(a.n)});
             std::memcpy(out.mutable_data(), a.data.data(), a.data.size() * 4);
             return out;
           })
      .def("tiles", [](const lx::Machine& self) {
        py::dict d;
        for (const char q : std::string("TUMN")) {
          py::list l;
          for (const auto& t : self.tiles(q)) l.append(py::make_tuple(t.index, t.size, t.live));
          d[py::str(std::string(1, q))] = l;
        }
        return d;
      });
}

tilesim::py::Registrar reg("linx", &init_linx);
}  // namespace
