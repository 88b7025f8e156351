// Bulk conversions between format codes and fp32/fp64 arrays (formats.hpp). The generic core
// defines every result; the fast paths here (SIMD for fp16/bf16, a table for 8-/4-bit codes,
// bit masks for fp32/tf32/hf32) are bit-identical to it and tested so. Big arrays are split
// across threads in chunks that never share a byte (even element counts for packed types).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "formats/convert_simd.hpp"
#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/parallel.hpp"

namespace tilesim::formats {
namespace {

// 64 Ki elements per chunk: large enough that thread hand-off is noise, even for packed types.
constexpr size_t kGrain = size_t{1} << 16;
// The memory-bound paths (fp16/bf16, tables, masks) run near memcpy speed on one core; waking a
// second thread only pays for arrays of several MiB (measured: 1 Mi elements got slower).
constexpr size_t kMemGrain = size_t{1} << 20;

uint64_t load_code(const uint8_t* p, unsigned storage_bits, size_t i) {
  switch (storage_bits) {
    case 4:
      return get_nibble(p, i);
    case 8:
      return p[i];
    case 16: {
      uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      return v;
    }
    case 32: {
      uint32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      return v;
    }
  }
}

void store_code(uint8_t* p, unsigned storage_bits, size_t i, uint64_t c) {
  switch (storage_bits) {
    case 4:
      set_nibble(p, i, static_cast<uint8_t>(c));
      break;
    case 8:
      p[i] = static_cast<uint8_t>(c);
      break;
    case 16: {
      uint16_t v = static_cast<uint16_t>(c);
      std::memcpy(p + 2 * i, &v, 2);
      break;
    }
    case 32: {
      uint32_t v = static_cast<uint32_t>(c);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    default:
      std::memcpy(p + 8 * i, &c, 8);
      break;
  }
}

// decode_f32 of every code of every format stored in <= 8 bits, built once.
const float* byte_lut(DType t) {
  static const auto tables = [] {
    std::array<std::array<float, 256>, kNumDTypes> lut{};
    for (const FormatInfo& f : all_formats())
      if (f.storage_bits <= 8)
        for (unsigned c = 0; c < 256; ++c) lut[static_cast<size_t>(f.id)][c] = decode_f32(c, f.id);
    return lut;
  }();
  return tables[static_cast<size_t>(t)].data();
}

// fp32 containers: value = the code with absent fraction bits masked (spec 10 §3); NaN ->
// canonical 0x7FC00000 as decode_f32.
void decode_f32_container(const uint8_t* p, uint32_t keep, float* out, size_t b, size_t e) {
  for (size_t i = b; i < e; ++i) {
    uint32_t c;
    std::memcpy(&c, p + 4 * i, 4);
    c &= keep;
    out[i] = bits_to_f32((c & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC00000u : c);
  }
}

// The SIMD minifloat encoder serves every float format but fp64, fp32 (identity) and e8m0
// (its own rule); its special-case codes are taken from the core so the two cannot disagree.
bool mini_encodable(const FormatInfo& f) {
  return f.kind == Kind::Float && f.id != DType::fp64 && f.id != DType::fp32 && f.id != DType::e8m0;
}

simd::MiniParams mini_params(const FormatInfo& f, Rounding mode, bool sat) {
  simd::MiniParams p{};
  p.man_bits = f.man_bits;
  p.bias = f.bias;
  p.man_shift = f.man_shift;
  p.mode = static_cast<int32_t>(mode);
  p.sign_bit = static_cast<uint32_t>(1u << (f.code_bits - 1));
  p.max_mag = static_cast<int32_t>(encode(f.max_finite, f.id) & (p.sign_bit - 1));
  p.ovf_pos = static_cast<uint32_t>(encode(2 * f.max_finite, f.id, mode, sat));
  p.ovf_neg = static_cast<uint32_t>(encode(-2 * f.max_finite, f.id, mode, sat));
  p.inf_pos = static_cast<uint32_t>(encode(HUGE_VAL, f.id, mode, sat));
  p.inf_neg = static_cast<uint32_t>(encode(-HUGE_VAL, f.id, mode, sat));
  p.nan = static_cast<uint32_t>(encode(std::nan(""), f.id, mode, sat));
  p.out_bytes = f.storage_bits <= 8 ? 1 : f.storage_bits / 8;
  return p;
}

// double -> any float format but fp64/e8m0, by integer operations on the double's bits: the
// same steps as the SIMD fp32 kernel in 64-bit arithmetic (the dropped-bit count is clamped to
// 55, past which every mode sees "below half, nonzero"); special codes from mini_params.
struct F64Encoder {
  simd::MiniParams p;
  uint64_t operator()(double x) const {
    uint64_t u;
    std::memcpy(&u, &x, 8);
    const bool neg = u >> 63;
    const uint64_t a = u & 0x7FFFFFFFFFFFFFFFull;
    if (a > 0x7FF0000000000000ull) return p.nan;
    if (a == 0x7FF0000000000000ull) return neg ? p.inf_neg : p.inf_pos;
    const int E64 = static_cast<int>(a >> 52);
    uint64_t sig = a & 0xFFFFFFFFFFFFFull;
    int e2 = -1074;
    if (E64 != 0) sig |= 1ull << 52, e2 = E64 - 1075;
    const int emin = 1 - p.bias;
    int et = E64 - 1023 < emin ? emin : E64 - 1023;
    int shift = et - p.man_bits - e2;
    const unsigned sh = static_cast<unsigned>(shift < 1    ? 1
                                              : shift > 55 ? 55
                                                           : shift);  // >= 1 here
    const uint64_t half = 1ull << (sh - 1), all = (1ull << sh) - 1;
    uint64_t add = 0, odd = 0;
    switch (static_cast<Rounding>(p.mode)) {
      case Rounding::rne:
        add = half - 1 + ((sig >> sh) & 1);
        break;
      case Rounding::rna:
        add = half;
        break;
      case Rounding::rtz:
        break;
      case Rounding::rdn:
        add = neg ? all : 0;
        break;
      case Rounding::rup:
        add = neg ? 0 : all;
        break;
      case Rounding::rhu:
        add = neg ? half - 1 : half;
        break;
      case Rounding::rhd:
        add = neg ? half : half - 1;
        break;
      case Rounding::rto:  // truncate, then set the kept lsb if any dropped bit was set
        odd = (sig & all) != 0;
        break;
    }
    uint64_t n = ((sig + add) >> sh) | odd;
    if (n >> (p.man_bits + 1)) n >>= 1, ++et;  // rounded into the next binade
    const uint64_t mag = ((static_cast<uint64_t>(et + p.bias - 1) << p.man_bits) + n)
                         << p.man_shift;
    if (mag > static_cast<uint64_t>(p.max_mag)) return neg ? p.ovf_neg : p.ovf_pos;
    return (neg ? p.sign_bit : 0) | mag;
  }
};

// Parameters of the 8-bit decode kernel, specials located by asking the core.
simd::MiniDecodeParams mini_decode_params(const FormatInfo& f) {
  simd::MiniDecodeParams p{};
  p.man_bits = f.man_bits;
  p.bias = f.bias;
  p.code_mask = static_cast<int32_t>((1u << f.code_bits) - 1);
  p.sign_bit = static_cast<int32_t>(1u << (f.code_bits - 1));
  p.inf_mag = -1;
  p.nan_min = 0x7FFFFFFF;
  for (int32_t m = p.sign_bit - 1; m >= 0; --m) {
    if (std::isinf(decode(static_cast<uint64_t>(m), f.id))) p.inf_mag = m;
    if (is_nan_code(static_cast<uint64_t>(m), f.id)) p.nan_min = m;
  }
  return p;
}

[[noreturn]] void too_few(const char* fn, const char* what, size_t have, size_t rows, size_t cols) {
  raise(ErrorCode::Constraint, std::string("formats.") + fn,
        std::string(what) + ": got " + std::to_string(have) + " for " + std::to_string(rows) +
            " rows x " + std::to_string(cols) +
            " elements (rows padded to whole bytes when packed)",
        "docs/formats.md#bulk-and-packed-helpers");
}

}  // namespace

void decode_array(const void* codes, DType t, float* out, size_t n) {
  const FormatInfo& f = info(t);
  const auto* p = static_cast<const uint8_t*>(codes);
  const auto* p16 = static_cast<const uint16_t*>(codes);
  switch (t) {
    case DType::fp16:
      return parallel_for(n, kMemGrain,
                          [&](size_t b, size_t e) { simd::f16_to_f32(p16 + b, out + b, e - b); });
    case DType::bf16:
      return parallel_for(n, kMemGrain,
                          [&](size_t b, size_t e) { simd::bf16_to_f32(p16 + b, out + b, e - b); });
    case DType::fp32:
    case DType::tf32:
    case DType::hf32: {
      const uint32_t keep = ~((1u << f.man_shift) - 1);
      return parallel_for(n, kMemGrain,
                          [&](size_t b, size_t e) { decode_f32_container(p, keep, out, b, e); });
    }
    default:
      break;
  }
  if (f.storage_bits == 8 && f.kind == Kind::Float && f.has_subnormal && f.man_bits >= 1) {
    const simd::MiniDecodeParams mp = mini_decode_params(f);
    return parallel_for(n, kMemGrain,
                        [&](size_t b, size_t e) { simd::mini8_to_f32(p + b, mp, out + b, e - b); });
  }
  if (f.storage_bits == 8) {
    const float* lut = byte_lut(t);
    return parallel_for(n, kMemGrain,
                        [&](size_t b, size_t e) { simd::lut8_to_f32(p + b, lut, out + b, e - b); });
  }
  if (f.storage_bits == 4) {
    const float* lut = byte_lut(t);
    return parallel_for(n, kGrain, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) out[i] = lut[get_nibble(p, i)];
    });
  }
  parallel_for(n, kGrain, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) out[i] = decode_f32(load_code(p, f.storage_bits, i), t);
  });
}

void decode_array_f64(const void* codes, DType t, double* out, size_t n) {
  const FormatInfo& f = info(t);
  const auto* p = static_cast<const uint8_t*>(codes);
  parallel_for(n, kGrain, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) out[i] = decode(load_code(p, f.storage_bits, i), t);
  });
}

void encode_array(const float* values, DType t, void* codes, size_t n, Rounding mode,
                  bool saturate) {
  require_rounding(t, mode, "formats.encode_array");
  const FormatInfo& f = info(t);
  auto* p = static_cast<uint8_t*>(codes);
  auto* p16 = static_cast<uint16_t*>(codes);
  if (mode == Rounding::rne && !saturate && t == DType::fp16)
    return parallel_for(n, kMemGrain,
                        [&](size_t b, size_t e) { simd::f32_to_f16(values + b, p16 + b, e - b); });
  if (mode == Rounding::rne && !saturate && t == DType::bf16)
    return parallel_for(n, kMemGrain,
                        [&](size_t b, size_t e) { simd::f32_to_bf16(values + b, p16 + b, e - b); });
  if (t == DType::fp32 && !saturate) {
    // Every fp32 value is exact in every mode: the code is the value's bits, NaN canonical.
    return parallel_for(n, kMemGrain, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        uint32_t c = f32_to_bits(values[i]);
        if ((c & 0x7FFFFFFFu) > 0x7F800000u) c = 0x7FC00000u;
        std::memcpy(p + 4 * i, &c, 4);
      }
    });
  }
  if (mini_encodable(f)) {
    const simd::MiniParams mp = mini_params(f, mode, saturate);
    parallel_for(n, kGrain, [&](size_t b, size_t e) {
      if (f.storage_bits != 4)
        return simd::f32_to_mini(values + b, mp, p + b * mp.out_bytes, e - b);
      uint8_t tmp[4096];  // one code per element, then packed (b is even: kGrain is)
      for (size_t i = b; i < e; i += sizeof tmp) {
        const size_t m = std::min(sizeof tmp, e - i);
        simd::f32_to_mini(values + i, mp, tmp, m);
        for (size_t j = 0; j < m; ++j) set_nibble(p, i + j, tmp[j]);
      }
    });
  } else {
    parallel_for(n, kGrain, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i)
        store_code(p, f.storage_bits, i, encode(values[i], t, mode, saturate));
    });
  }
  if (f.storage_bits == 4 && (n & 1)) p[n >> 1] &= 0x0F;  // padding nibble written 0 (spec 10 §2)
}

void encode_array_f64(const double* values, DType t, void* codes, size_t n, Rounding mode,
                      bool saturate) {
  require_rounding(t, mode, "formats.encode_array_f64");
  const FormatInfo& f = info(t);
  auto* p = static_cast<uint8_t*>(codes);
  if (mini_encodable(f) || t == DType::fp32) {
    const F64Encoder enc{mini_params(f, mode, saturate)};
    parallel_for(n, kGrain, [&](size_t b, size_t e) {
      switch (f.storage_bits) {
        case 8:
          for (size_t i = b; i < e; ++i) p[i] = static_cast<uint8_t>(enc(values[i]));
          break;
        case 16:
          for (size_t i = b; i < e; ++i) {
            const auto c = static_cast<uint16_t>(enc(values[i]));
            std::memcpy(p + 2 * i, &c, 2);
          }
          break;
        case 32:
          for (size_t i = b; i < e; ++i) {
            const auto c = static_cast<uint32_t>(enc(values[i]));
            std::memcpy(p + 4 * i, &c, 4);
          }
          break;
        default:
          for (size_t i = b; i < e; ++i) set_nibble(p, i, static_cast<uint8_t>(enc(values[i])));
      }
    });
  } else {
    parallel_for(n, kGrain, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i)
        store_code(p, f.storage_bits, i, encode(values[i], t, mode, saturate));
    });
  }
  if (f.storage_bits == 4 && (n & 1)) p[n >> 1] &= 0x0F;
}

std::vector<uint8_t> pack_x2(std::span<const uint8_t> codes, size_t rows, size_t cols) {
  const size_t row_bytes = (cols + 1) / 2;
  if (cols != 0 && rows > codes.size() / cols)
    too_few("pack_x2", "codes", codes.size(), rows, cols);
  if (codes.size() != rows * cols) too_few("pack_x2", "codes", codes.size(), rows, cols);
  std::vector<uint8_t> out(rows * row_bytes, 0);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      set_nibble(out.data() + r * row_bytes, c, codes[r * cols + c]);
  return out;
}

std::vector<uint8_t> unpack_x2(std::span<const uint8_t> packed, size_t rows, size_t cols) {
  const size_t row_bytes = (cols + 1) / 2;
  if (row_bytes != 0 && rows > packed.size() / row_bytes)
    too_few("unpack_x2", "packed bytes", packed.size(), rows, cols);
  std::vector<uint8_t> out(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      out[r * cols + c] = get_nibble(packed.data() + r * row_bytes, c);
  return out;
}

}  // namespace tilesim::formats
