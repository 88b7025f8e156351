// NZ / ZN / ND tile layouts (spec 30 §4) and the host-side pack / unpack built on them.
#include "linx/layout.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

#include "tilesim/error.hpp"

namespace tilesim::linx {

Layout parse_layout(std::string_view s) {
  std::string l(s);
  for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "nz") return Layout::nz;
  if (l == "zn") return Layout::zn;
  if (l == "nd") return Layout::nd;
  raise(ErrorCode::Constraint, "linx layout", "unknown layout '" + std::string(s) + "' (valid: nz, zn, nd)",
        "docs/linx.md#tile-layouts");
}

std::string_view name(Layout l) noexcept {
  switch (l) {
    case Layout::nz: return "nz";
    case Layout::zn: return "zn";
    default: return "nd";
  }
}

size_t carrier_bytes(DType t) noexcept {
  const unsigned b = formats::info(t).storage_bits;
  return b == 4 ? 1 : b / 8;
}

LayoutMap::LayoutMap(size_t r, size_t c, DType t, Layout l) : rows(r), cols(c), layout(l) {
  bits = formats::info(t).storage_bits;
  k0 = 256 / bits;  // 32 bytes per fractal line (spec 30 §4)
  const auto up = [](size_t v, size_t m) { return (v + m - 1) / m * m; };
  if (l == Layout::nz) {  // A: M x K, fractals 16 x K0
    rows_p = up(r, 16);
    cols_p = up(c, k0);
    elements = rows_p * cols_p;
  } else if (l == Layout::zn) {  // B: K x N, fractals K0 x 16
    rows_p = up(r, k0);
    cols_p = up(c, 16);
    elements = rows_p * cols_p;
  } else {  // row-major; a 4-bit row starts on a byte boundary (spec 10 §2)
    rows_p = r;
    cols_p = bits == 4 ? up(c, 2) : c;
    elements = rows_p * cols_p;
  }
  bytes = bits == 4 ? elements / 2 + (elements & 1) : elements * (bits / 8);
}

size_t packed_bytes(size_t rows, size_t cols, DType t, Layout l) { return LayoutMap(rows, cols, t, l).bytes; }

namespace {
void check_shape(size_t rows, size_t cols, const char* what) {
  // Bounds keep every size computation far from overflow; a tile holds at most 256 KB anyway.
  if (rows == 0 || cols == 0 || rows > (1u << 20) || cols > (1u << 20) || rows * cols > (size_t{1} << 28))
    raise(ErrorCode::Constraint, what,
          "matrix shape must be 1..2^20 per side and at most 2^28 elements, got " + std::to_string(rows) + "x" +
              std::to_string(cols),
          "docs/linx.md#tile-layouts");
}
uint64_t load_carrier(const uint8_t* p, size_t cb) {
  uint64_t v = 0;
  std::memcpy(&v, p, cb);
  return v;
}
}  // namespace

void store_element(uint8_t* raw, unsigned bits, size_t off, uint64_t code) {
  if (bits == 4) {
    formats::set_nibble(raw, off, static_cast<uint8_t>(code & 0xF));
    return;
  }
  std::memcpy(raw + off * (bits / 8), &code, bits / 8);
}
uint64_t load_element(const uint8_t* raw, unsigned bits, size_t off) {
  if (bits == 4) return formats::get_nibble(raw, off);
  uint64_t v = 0;
  std::memcpy(&v, raw + off * (bits / 8), bits / 8);
  return v;
}

std::vector<uint8_t> pack(const void* elems, size_t rows, size_t cols, DType t, Layout l) {
  check_shape(rows, cols, "linx pack");
  const LayoutMap m(rows, cols, t, l);
  const size_t cb = carrier_bytes(t);
  const auto& fi = formats::info(t);
  const uint64_t code_mask = fi.code_bits >= 64 ? ~uint64_t{0} : ((uint64_t{1} << fi.code_bits) - 1);
  std::vector<uint8_t> raw(m.bytes, 0);
  const auto* src = static_cast<const uint8_t*>(elems);
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j)
      store_element(raw.data(), m.bits, m.offset(i, j), load_carrier(src + (i * cols + j) * cb, cb) & code_mask);
  return raw;
}

std::vector<uint8_t> unpack(std::span<const uint8_t> raw, size_t rows, size_t cols, DType t, Layout l) {
  check_shape(rows, cols, "linx unpack");
  const LayoutMap m(rows, cols, t, l);
  if (raw.size() < m.bytes)
    raise(ErrorCode::Constraint, "linx unpack",
          "raw tile of " + std::to_string(raw.size()) + " bytes is smaller than the " + std::to_string(m.bytes) +
              " bytes of a " + std::to_string(rows) + "x" + std::to_string(cols) + " " +
              std::string(formats::name(t)) + " matrix in layout " + std::string(name(l)),
          "docs/linx.md#tile-layouts");
  const size_t cb = carrier_bytes(t);
  const bool s4 = t == DType::s4;
  std::vector<uint8_t> out(rows * cols * cb);
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j) {
      uint64_t v = load_element(raw.data(), m.bits, m.offset(i, j));
      if (s4 && (v & 8)) v |= 0xF0;  // int8 carrier of a negative s4 (spec 60 §2)
      std::memcpy(out.data() + (i * cols + j) * cb, &v, cb);
    }
  return out;
}

}  // namespace tilesim::linx
