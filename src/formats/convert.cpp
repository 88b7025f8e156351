// Bulk conversions between format codes and fp32/fp64 arrays. Scalar loops over the generic core
// with lookup tables for the 8-bit formats; SIMD fast paths live in convert_simd.cpp.
#include <array>
#include <cstring>

#include "tilesim/formats.hpp"

namespace tilesim::formats {
namespace {

uint64_t load_code(const uint8_t* p, const FormatInfo& f, size_t i) {
  switch (f.storage_bits) {
    case 4: return get_nibble(p, i);
    case 8: return p[i];
    case 16: { uint16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
    case 32: { uint32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    default: { uint64_t v; std::memcpy(&v, p + 8 * i, 8); return v; }
  }
}

void store_code(uint8_t* p, const FormatInfo& f, size_t i, uint64_t c) {
  switch (f.storage_bits) {
    case 4: set_nibble(p, i, static_cast<uint8_t>(c)); break;
    case 8: p[i] = static_cast<uint8_t>(c); break;
    case 16: { uint16_t v = static_cast<uint16_t>(c); std::memcpy(p + 2 * i, &v, 2); break; }
    case 32: { uint32_t v = static_cast<uint32_t>(c); std::memcpy(p + 4 * i, &v, 4); break; }
    default: std::memcpy(p + 8 * i, &c, 8); break;
  }
}

}  // namespace

void decode_array(const void* codes, DType t, float* out, size_t n) {
  const FormatInfo& f = info(t);
  const auto* p = static_cast<const uint8_t*>(codes);
  if (f.storage_bits <= 8) {
    std::array<float, 256> lut;
    for (unsigned c = 0; c < 256; ++c) lut[c] = decode_f32(c, t);
    if (f.storage_bits == 8)
      for (size_t i = 0; i < n; ++i) out[i] = lut[p[i]];
    else
      for (size_t i = 0; i < n; ++i) out[i] = lut[get_nibble(p, i)];
    return;
  }
  for (size_t i = 0; i < n; ++i) out[i] = decode_f32(load_code(p, f, i), t);
}

void decode_array_f64(const void* codes, DType t, double* out, size_t n) {
  const FormatInfo& f = info(t);
  const auto* p = static_cast<const uint8_t*>(codes);
  for (size_t i = 0; i < n; ++i) out[i] = decode(load_code(p, f, i), t);
}

void encode_array(const float* values, DType t, void* codes, size_t n, Rounding mode, bool saturate) {
  const FormatInfo& f = info(t);
  auto* p = static_cast<uint8_t*>(codes);
  for (size_t i = 0; i < n; ++i) store_code(p, f, i, encode(values[i], t, mode, saturate));
  if (f.storage_bits == 4 && (n & 1)) p[n >> 1] &= 0x0F;  // padding nibble written 0 (spec 10 §2)
}

void encode_array_f64(const double* values, DType t, void* codes, size_t n, Rounding mode,
                      bool saturate) {
  const FormatInfo& f = info(t);
  auto* p = static_cast<uint8_t*>(codes);
  for (size_t i = 0; i < n; ++i) store_code(p, f, i, encode(values[i], t, mode, saturate));
  if (f.storage_bits == 4 && (n & 1)) p[n >> 1] &= 0x0F;
}

std::vector<uint8_t> pack_x2(std::span<const uint8_t> codes, size_t rows, size_t cols) {
  const size_t row_bytes = (cols + 1) / 2;
  std::vector<uint8_t> out(rows * row_bytes, 0);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) set_nibble(out.data() + r * row_bytes, c, codes[r * cols + c]);
  return out;
}

std::vector<uint8_t> unpack_x2(std::span<const uint8_t> packed, size_t rows, size_t cols) {
  const size_t row_bytes = (cols + 1) / 2;
  std::vector<uint8_t> out(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) out[r * cols + c] = get_nibble(packed.data() + r * row_bytes, c);
  return out;
}

}  // namespace tilesim::formats
