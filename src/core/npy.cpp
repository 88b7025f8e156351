// .npy reader/writer (NumPy format versions 1, 2 and 3), the on-disk arrays of the CLI
// (spec 60 §5) in the carriers of spec 60 §2. The parser treats the file as untrusted: every
// length is checked before use, shape products are overflow-checked, and every defect raises
// tilesim::Error(Io) naming the file and the problem.
#include "tilesim/npy.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "tilesim/error.hpp"

namespace tilesim::npy {
namespace {

constexpr char kSpec[] = "docs/formats.md#npy-files";
constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

[[noreturn]] void fail(const std::string& what, const std::string& detail) {
  raise(ErrorCode::Io, "npy " + what, detail, kSpec);
}

// Supported carriers (spec 60 §2), normalised descr -> item size.
struct Carrier {
  const char* descr;
  size_t size;
};
constexpr Carrier kCarriers[] = {
    {"<f8", 8}, {"<f4", 4}, {"<f2", 2}, {"|u1", 1}, {"<u2", 2}, {"<u4", 4},
    {"<u8", 8}, {"|i1", 1}, {"<i2", 2}, {"<i4", 4}, {"<i8", 8},
};

std::string valid_descrs() {
  std::string s;
  for (const auto& c : kCarriers) s.append(s.empty() ? "" : ", ").append(c.descr);
  return s;
}

const Carrier* find_carrier(std::string_view d) {
  for (const auto& c : kCarriers)
    if (d == c.descr) return &c;
  return nullptr;
}

// Normalises a descr as NumPy writes it (or equivalently) to the table's spelling and reports
// whether the data is big-endian (then byteswapped on load). Returns nullptr if unsupported.
const Carrier* normalise_descr(std::string_view d, bool& big_endian) {
  big_endian = false;
  if (d.size() != 3) return nullptr;
  const char order = d[0], kind = d[1], size = d[2];
  if (order != '<' && order != '>' && order != '|' && order != '=') return nullptr;
  if (kind != 'f' && kind != 'u' && kind != 'i') return nullptr;
  if (size == '1') {  // byte order is irrelevant for one-byte items
    if (kind == 'f') return nullptr;
    return find_carrier(kind == 'u' ? "|u1" : "|i1");
  }
  if (order == '|') return nullptr;  // multi-byte items need a byte order
  big_endian = order == '>';
  const char norm[4] = {'<', kind, size, 0};
  return find_carrier(norm);
}

// ---- a tiny parser for the header's Python dict literal ----
struct Header {
  bool has_descr = false, has_order = false, has_shape = false;
  std::string descr;
  bool fortran = false;
  std::vector<size_t> shape;
};

class Lexer {
 public:
  Lexer(std::string_view s, const std::string& what) : s_(s), what_(what) {}
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool peek(char c) {
    ws();
    return i_ < s_.size() && s_[i_] == c;
  }
  void expect(char c, const char* ctx) {
    ws();
    if (i_ >= s_.size() || s_[i_] != c) bad(std::string("expected '") + c + "' " + ctx);
    ++i_;
  }
  bool accept(char c) {
    if (!peek(c)) return false;
    ++i_;
    return true;
  }
  std::string string() {
    ws();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) bad("expected a quoted string");
    const char q = s_[i_++];
    std::string out;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\') bad("escape sequences are not supported in header strings");
      out.push_back(s_[i_++]);
    }
    if (i_ >= s_.size()) bad("unterminated string");
    ++i_;
    return out;
  }
  bool boolean() {
    ws();
    if (s_.substr(i_, 4) == "True") return i_ += 4, true;
    if (s_.substr(i_, 5) == "False") return i_ += 5, false;
    bad("fortran_order must be True or False");
  }
  size_t integer() {
    ws();
    if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9')
      bad("shape entries must be non-negative integers");
    size_t v = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      const size_t d = static_cast<size_t>(s_[i_] - '0');
      if (v > (std::numeric_limits<size_t>::max() - d) / 10) bad("shape entry too large");
      v = v * 10 + d;
      ++i_;
    }
    if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 long suffix, as old NumPy wrote it
    return v;
  }
  bool at_end() {
    ws();
    return i_ >= s_.size();
  }
  [[noreturn]] void bad(const std::string& msg) {
    fail(what_, "malformed header: " + msg + " at offset " + std::to_string(i_) + " of '" +
                    std::string(s_.substr(0, 200)) + "'");
  }

 private:
  std::string_view s_;
  const std::string& what_;
  size_t i_ = 0;
};

Header parse_header(std::string_view text, const std::string& what) {
  // NumPy pads with spaces and ends with '\n'; accept any trailing whitespace.
  Lexer lx(text, what);
  Header h;
  lx.expect('{', "at the start of the header dict");
  while (!lx.peek('}')) {
    const std::string key = lx.string();
    lx.expect(':', "after a header key");
    if (key == "descr") {
      if (h.has_descr) lx.bad("duplicate key 'descr'");
      if (!lx.peek('\'') && !lx.peek('"'))
        lx.bad("descr must be a simple type string (structured dtypes are not supported)");
      h.descr = lx.string();
      h.has_descr = true;
    } else if (key == "fortran_order") {
      if (h.has_order) lx.bad("duplicate key 'fortran_order'");
      h.fortran = lx.boolean();
      h.has_order = true;
    } else if (key == "shape") {
      if (h.has_shape) lx.bad("duplicate key 'shape'");
      lx.expect('(', "to open the shape tuple");
      while (!lx.peek(')')) {
        h.shape.push_back(lx.integer());
        if (h.shape.size() > 64) lx.bad("more than 64 dimensions");
        if (!lx.accept(',')) break;
      }
      lx.expect(')', "to close the shape tuple");
      h.has_shape = true;
    } else {
      lx.bad("unexpected key '" + key + "'");
    }
    if (!lx.accept(',')) break;
  }
  lx.expect('}', "at the end of the header dict");
  if (!lx.at_end()) lx.bad("trailing characters after the header dict");
  if (!h.has_descr || !h.has_order || !h.has_shape)
    lx.bad("the header must have the keys 'descr', 'fortran_order' and 'shape'");
  return h;
}

bool mul_overflows(size_t a, size_t b, size_t& out) {
  if (a != 0 && b > std::numeric_limits<size_t>::max() / a) return true;
  out = a * b;
  return false;
}

uint64_t read_le(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

// Fortran-order element bytes -> C order (shape given in C's outer-to-inner order).
std::vector<uint8_t> fortran_to_c(const uint8_t* src, const std::vector<size_t>& shape, size_t item,
                                  size_t count) {
  std::vector<uint8_t> dst(count * item);
  if (count == 0) return dst;
  const size_t nd = shape.size();
  // Fortran stride of dimension k (in elements): product of shape[0..k).
  std::vector<size_t> fstride(nd);
  size_t s = 1;
  for (size_t k = 0; k < nd; ++k) fstride[k] = s, s *= shape[k];
  std::vector<size_t> idx(nd, 0);
  size_t f = 0;  // Fortran linear index of the current C-order element
  for (size_t c = 0; c < count; ++c) {
    std::memcpy(dst.data() + c * item, src + f * item, item);
    for (size_t k = nd; k-- > 0;) {  // odometer over C order: last index fastest
      if (++idx[k] < shape[k]) {
        f += fstride[k];
        break;
      }
      f -= fstride[k] * (shape[k] - 1);
      idx[k] = 0;
    }
  }
  return dst;
}

}  // namespace

size_t Array::itemsize() const {
  bool big = false;
  const Carrier* c = normalise_descr(descr, big);
  return c ? c->size : 0;
}

size_t Array::size() const {
  size_t n = 1;
  for (size_t d : shape)
    if (mul_overflows(n, d, n)) return std::numeric_limits<size_t>::max();
  return n;
}

Array parse(const uint8_t* bytes, size_t n, const std::string& what) {
  if (n < 10) fail(what, "file too short for a .npy header (" + std::to_string(n) + " bytes)");
  if (std::memcmp(bytes, kMagic, 6) != 0) fail(what, "not a .npy file (bad magic string)");
  const unsigned major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0)
    fail(what, "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor) +
                   " (supported: 1.0, 2.0, 3.0)");
  const unsigned len_bytes = major == 1 ? 2 : 4;
  const size_t prefix = 8 + len_bytes;
  if (n < prefix) fail(what, "file too short for the header length field");
  const uint64_t hlen = read_le(bytes + 8, len_bytes);
  if (hlen > n - prefix)
    fail(what, "header length " + std::to_string(hlen) + " exceeds the file (" +
                   std::to_string(n - prefix) + " bytes after the length field)");
  const std::string_view text(reinterpret_cast<const char*>(bytes + prefix),
                              static_cast<size_t>(hlen));
  for (char ch : text)
    if (ch == '\0' || (major < 3 && static_cast<unsigned char>(ch) >= 0x80))
      fail(what, "malformed header: non-ASCII byte in the header");
  const Header h = parse_header(text, what);

  bool big = false;
  const Carrier* c = normalise_descr(h.descr, big);
  if (!c)
    fail(what,
         "unsupported descr '" + h.descr + "'; supported: " + valid_descrs() +
             " ('>' big-endian forms are byteswapped; bool, complex and structured dtypes are "
             "not carriers, docs/formats.md#npy-files)");
  Array a;
  a.descr = c->descr;
  a.shape = h.shape;
  size_t count = 1, nbytes = 0;
  for (size_t d : a.shape)
    if (mul_overflows(count, d, count)) fail(what, "shape element count overflows");
  if (mul_overflows(count, c->size, nbytes)) fail(what, "data size overflows");
  const size_t data_off = prefix + static_cast<size_t>(hlen);
  const size_t avail = n - data_off;
  if (avail < nbytes)
    fail(what, "truncated data: the header promises " + std::to_string(nbytes) +
                   " bytes, the file has " + std::to_string(avail));
  if (avail > nbytes)
    fail(what, "size mismatch: " + std::to_string(avail - nbytes) + " bytes after the " +
                   std::to_string(nbytes) + " data bytes");
  const uint8_t* data = bytes + data_off;
  if (h.fortran && a.shape.size() > 1)
    a.data = fortran_to_c(data, a.shape, c->size, count);
  else
    a.data.assign(data, data + nbytes);
  if (big && c->size > 1)
    for (size_t i = 0; i < nbytes; i += c->size)
      std::reverse(a.data.begin() + i, a.data.begin() + i + c->size);
  return a;
}

Array load(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory, not a .npy file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open file for reading");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "read error");
  return parse(bytes.data(), bytes.size(), path);
}

std::vector<uint8_t> serialize(const Array& a) {
  bool big = false;
  const Carrier* c = normalise_descr(a.descr, big);  // "<u1" and "=f4" are the same carriers
  if (!c || big)
    fail("<save>", "unsupported descr '" + a.descr + "'; supported: " + valid_descrs() +
                       " (data is written little-endian)");
  size_t count = 1, nbytes = 0;
  for (size_t d : a.shape)
    if (mul_overflows(count, d, count)) fail("<save>", "shape element count overflows");
  if (mul_overflows(count, c->size, nbytes) || nbytes != a.data.size())
    fail("<save>", "data has " + std::to_string(a.data.size()) + " bytes, the shape needs " +
                       std::to_string(count) + " x " + std::to_string(c->size));
  std::string dict =
      std::string("{'descr': '") + c->descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < a.shape.size(); ++i) {
    if (i) dict += ", ";
    dict += std::to_string(a.shape[i]);
  }
  if (a.shape.size() == 1) dict += ",";
  dict += "), }";
  // Pad so the data starts on a 64-byte boundary, header ending in '\n' (NumPy's layout).
  const bool v2 = dict.size() + 1 + 10 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  size_t total = prefix + dict.size() + 1;
  total = (total + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  const size_t hl = dict.size();
  std::vector<uint8_t> out(prefix + hl + nbytes);
  std::memcpy(out.data(), kMagic, 6);
  out[6] = v2 ? 2 : 1;
  out[7] = 0;
  for (size_t i = 0; i + 8 < prefix; ++i) out[8 + i] = static_cast<uint8_t>(hl >> (8 * i));
  std::memcpy(out.data() + prefix, dict.data(), hl);
  if (nbytes) std::memcpy(out.data() + prefix + hl, a.data.data(), nbytes);
  return out;
}

void save(const std::string& path, const Array& a) {
  const std::vector<uint8_t> bytes = serialize(a);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, "cannot open file for writing");
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) fail(path, "write error");
}

}  // namespace tilesim::npy
