// tilesim::compare (docs/cli.md#expect): element-by-element comparison of two .npy-shaped arrays
// with a mismatch report. Values are read from the carriers' bytes; the ulp distance is the
// difference of the codes mapped to a monotonic integer order (so +0 and -0 are 0 apart and
// the smallest subnormal is 1 ulp from zero).
#include "tilesim/compare.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"

namespace tilesim {
namespace {

enum class Kind { f, i, u };

struct Elem {
  Kind kind;
  size_t size;
};

Elem elem_of(const std::string& descr) {
  if (descr.size() != 3) raise(ErrorCode::Unsupported, "compare", "unsupported dtype '" + descr + "'", "docs/cli.md#expect");
  const char k = descr[1];
  const size_t n = static_cast<size_t>(descr[2] - '0');
  if (k == 'f' && (n == 2 || n == 4 || n == 8)) return {Kind::f, n};
  if ((k == 'i' || k == 'u') && (n == 1 || n == 2 || n == 4 || n == 8)) return {k == 'i' ? Kind::i : Kind::u, n};
  if (k == 'b' && n == 1) return {Kind::u, 1};  // bool as 0/1
  raise(ErrorCode::Unsupported, "compare", "unsupported dtype '" + descr + "'", "docs/cli.md#expect");
}

uint64_t bits_at(const uint8_t* p, size_t size) {
  uint64_t b = 0;
  std::memcpy(&b, p, size);  // little-endian carriers (npy::Array)
  return b;
}

double float_of(uint64_t b, size_t size) {
  if (size == 2) return formats::f16_to_f32(static_cast<uint16_t>(b));
  if (size == 4) {
    float f;
    const uint32_t w = static_cast<uint32_t>(b);
    std::memcpy(&f, &w, 4);
    return f;
  }
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

bool is_nan(uint64_t b, size_t size) {
  if (size == 2) return (b & 0x7C00) == 0x7C00 && (b & 0x3FF);
  if (size == 4) return (b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu);
  return (b & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (b & 0xFFFFFFFFFFFFFull);
}

// Sign-magnitude code -> an integer order in which adjacent floats differ by 1.
int64_t ordered(uint64_t b, size_t size) {
  const unsigned w = static_cast<unsigned>(size * 8);
  const uint64_t sign = uint64_t{1} << (w - 1);
  const int64_t mag = static_cast<int64_t>(b & (sign - 1));
  return (b & sign) ? -mag : mag;
}

int64_t sext(uint64_t b, size_t size) {
  const unsigned w = static_cast<unsigned>(size * 8);
  if (w == 64) return static_cast<int64_t>(b);
  const uint64_t sign = uint64_t{1} << (w - 1);
  return static_cast<int64_t>((b ^ sign) - sign);
}

uint64_t absdiff(int64_t a, int64_t b) {
  return a > b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b) : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
}

std::string shape_text(const std::vector<size_t>& s) {
  std::string t = "(";
  for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
  return t + (s.size() == 1 ? ",)" : ")");
}

std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

std::string hex_of(uint64_t b, size_t size) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*" PRIX64, static_cast<int>(size * 2), b);
  return buf;
}

}  // namespace

CompareReport compare(const npy::Array& got, const npy::Array& want, const CompareOptions& o) {
  if (got.descr != want.descr)
    raise(ErrorCode::Constraint, "compare",
          "dtypes differ: got '" + got.descr + "', expected '" + want.descr + "'", "docs/cli.md#expect");
  if (got.shape != want.shape)
    raise(ErrorCode::Constraint, "compare",
          "shapes differ: got " + shape_text(got.shape) + ", expected " + shape_text(want.shape),
          "docs/cli.md#expect");
  if (!(o.rtol >= 0) || !(o.atol >= 0) || std::isinf(o.rtol) || std::isinf(o.atol))
    raise(ErrorCode::Constraint, "compare",
          "rtol and atol must be finite and >= 0, got rtol " + num(o.rtol) + ", atol " + num(o.atol),
          "docs/cli.md#expect");
  const Elem e = elem_of(got.descr);
  CompareReport r;
  r.descr = got.descr;
  r.shape = got.shape;
  r.options = o;
  r.count = got.size();
  if (got.data.size() != r.count * e.size || want.data.size() != r.count * e.size)
    raise(ErrorCode::Constraint, "compare", "array data does not match its shape", "docs/cli.md#expect");
  for (size_t i = 0; i < r.count; ++i) {
    const uint64_t gb = bits_at(got.data.data() + i * e.size, e.size);
    const uint64_t wb = bits_at(want.data.data() + i * e.size, e.size);
    Mismatch m;
    bool same;
    if (e.kind == Kind::f) {
      const bool gn = is_nan(gb, e.size), wn = is_nan(wb, e.size);
      r.nan_got += gn;
      r.nan_want += wn;
      m.got = float_of(gb, e.size);
      m.want = float_of(wb, e.size);
      m.has_ulp = !gn && !wn;
      if (m.has_ulp) m.ulp = absdiff(ordered(gb, e.size), ordered(wb, e.size));
      if (o.bits)
        same = gb == wb;
      else if (gn || wn)
        same = gn && wn;  // NaN matches NaN (any payload), nothing else
      else if (std::isinf(m.got) || std::isinf(m.want))
        same = m.got == m.want;
      else
        same = m.got == m.want || std::fabs(m.got - m.want) <= o.atol + o.rtol * std::fabs(m.want);
    } else {
      const bool sgn = e.kind == Kind::i;
      const int64_t gi = sgn ? sext(gb, e.size) : static_cast<int64_t>(gb);
      const int64_t wi = sgn ? sext(wb, e.size) : static_cast<int64_t>(wb);
      m.has_ulp = true;
      if (sgn || e.size < 8) {
        m.ulp = absdiff(gi, wi);
        m.got = static_cast<double>(gi);
        m.want = static_cast<double>(wi);
      } else {  // u64: the full unsigned range
        m.ulp = gb > wb ? gb - wb : wb - gb;
        m.got = static_cast<double>(gb);
        m.want = static_cast<double>(wb);
      }
      same = gb == wb || (!o.bits && static_cast<double>(m.ulp) <= o.atol + o.rtol * std::fabs(m.want));
    }
    if (same) continue;
    ++r.mismatches;
    if (m.has_ulp && m.ulp > r.max_ulp) r.max_ulp = m.ulp;
    if (r.first.size() < o.keep) {
      m.flat = i;
      m.got_bits = gb;
      m.want_bits = wb;
      m.index.assign(got.shape.size(), 0);
      size_t rest = i;
      for (size_t k = got.shape.size(); k-- > 0;) {
        m.index[k] = got.shape[k] ? rest % got.shape[k] : 0;
        rest = got.shape[k] ? rest / got.shape[k] : 0;
      }
      r.first.push_back(std::move(m));
    }
  }
  return r;
}

std::string CompareReport::text(const std::string& name) const {
  const std::string who = name.empty() ? "" : name + ": ";
  const std::string how = options.bits ? "bit patterns"
                                       : "rtol " + num(options.rtol) + ", atol " + num(options.atol);
  const size_t size = descr.size() == 3 ? static_cast<size_t>(descr[2] - '0') : 1;
  if (ok())
    return who + "all " + std::to_string(count) + " elements match (" + how + ")\n";
  std::string s = who + std::to_string(mismatches) + " of " + std::to_string(count) + " elements differ (" +
                  how + ")";
  if (max_ulp) s += ", max ulp " + std::to_string(max_ulp);
  s += "\n";
  for (const Mismatch& m : first) {
    std::string idx = "[";
    for (size_t k = 0; k < m.index.size(); ++k) idx += (k ? ", " : "") + std::to_string(m.index[k]);
    idx += "]";
    s += "  " + idx + "  got " + num(m.got) + " (" + hex_of(m.got_bits, size) + ")  want " + num(m.want) + " (" +
         hex_of(m.want_bits, size) + ")  ulp " + (m.has_ulp ? std::to_string(m.ulp) : std::string("-")) + "\n";
  }
  if (mismatches > first.size()) s += "  ... " + std::to_string(mismatches - first.size()) + " more\n";
  return s;
}

}  // namespace tilesim
