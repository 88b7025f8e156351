// tilesim::formats — every number format the instructions read or write (spec 10), and the one
// dtype-name vocabulary of spec 60 §2. Formats are table rows (FormatInfo); one generic
// minifloat core encodes and decodes all of them; rounding and saturation are parameters.
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include "tilesim/error.hpp"  // tilesim::Error, what tilesim calls throw (issue 21 §5)
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilesim::formats {

enum class DType : uint8_t {
  fp64, fp32, tf32, hf32, fp16, bf16, e4m3, e5m2, e3m2, e2m3, e2m1, e1m2, e8m0,
  s8, s16, s32, s64, u8, u16, u32, u64, s4, u4,
};
inline constexpr size_t kNumDTypes = 23;

enum class Kind : uint8_t { Float, Signed, Unsigned };
enum class NanKind : uint8_t {
  Ieee,     // exponent all ones, mantissa != 0 (fp64/fp32/tf32/hf32/fp16/bf16/e5m2)
  AllOnes,  // only the all-ones magnitude (e4m3 S.1111.111, e8m0 0xFF)
  None,     // fp6, fp4: no NaN code
};
// Spec 10 §4 (rhu, rhd, rto added by spec 15 §2; values are stable, new modes appended).
enum class Rounding : uint8_t { rne, rna, rtz, rdn, rup, rhu, rhd, rto };
inline constexpr size_t kNumRoundings = 8;

// NumPy carrier of a dtype in Python and .npy files (spec 60 §2).
enum class Carrier : uint8_t { f64, f32, f16, u8, u16, u32, u64, i8, i16, i32, i64 };

// One row per format (spec 10 §1). For floats the code is laid out as
// [sign][exponent exp_bits][mantissa man_bits][man_shift zero bits], code_bits wide.
struct FormatInfo {
  DType id;
  const char* name;       // canonical name (spec 60 §2)
  Kind kind;
  uint8_t storage_bits;   // bits per element in memory: 64..8, or 4 for packed x2 types
  uint8_t code_bits;      // meaningful code bits (6 for fp6, 4 for fp4 / s4 / u4)
  uint8_t exp_bits;
  uint8_t man_bits;
  uint8_t man_shift;      // tf32: 13, hf32: 12 (low fraction bits of the fp32 container)
  int16_t bias;
  bool has_sign;
  bool has_inf;
  bool has_subnormal;
  NanKind nan;
  Carrier carrier;
  uint64_t canonical_nan; // code of the canonical quiet NaN (0 when the format has none)
  double max_finite;
};

const FormatInfo& info(DType t) noexcept;
std::span<const FormatInfo> all_formats() noexcept;

// Canonical names in table order (Python tilesim.formats.names()).
std::vector<std::string> names();
std::string_view name(DType t) noexcept;
// Resolves a canonical name or alias, case-insensitively; raises Error(Unsupported) listing the
// valid names otherwise. `what` names the caller for the message (e.g. "tilesim run --tile").
DType parse_dtype(std::string_view name, std::string_view what = "dtype");
bool try_parse_dtype(std::string_view name, DType& out) noexcept;
// Mode names rne rna rtz rdn rup rhu rhd rto, case-insensitively; raises Error(Unsupported)
// listing them otherwise.
Rounding parse_rounding(std::string_view name);
std::string_view name(Rounding r) noexcept;
// Legality of a conversion's mode (spec 10 §4): every mode serves every format except rto into
// e8m0. require_rounding raises Error(Unsupported) naming `what` (the operation) when it fails.
bool rounding_supported(DType t, Rounding mode) noexcept;
void require_rounding(DType t, Rounding mode, std::string_view what = "formats.encode");

inline bool is_float(DType t) noexcept { return info(t).kind == Kind::Float; }
inline bool is_packed4(DType t) noexcept { return info(t).storage_bits == 4; }
// Bytes needed for `count` elements of t (packed types round up to whole bytes).
inline size_t storage_bytes(DType t, size_t count) noexcept {
  const unsigned b = info(t).storage_bits;
  return b == 4 ? (count + 1) / 2 : count * (b / 8);
}

// ---- generic scalar core (the definition; spec 10 §3–§4) ----
// Value of a code, exactly (every format's values are doubles). Integer codes are
// sign-extended by code_bits. Bits above code_bits are ignored (spec 10 §1 fp6 rule).
double decode(uint64_t code, DType t) noexcept;
// Same, as fp32 (exact for every format but fp64 and 64-bit integers).
float decode_f32(uint64_t code, DType t) noexcept;
// Encodes a double into the format's code (spec 10 §4); integers round per mode and saturate.
// Raises Error(Unsupported) only for a mode the format does not take (require_rounding).
uint64_t encode(double value, DType t, Rounding mode = Rounding::rne, bool saturate = false);
// True when the code is a NaN of the format.
bool is_nan_code(uint64_t code, DType t) noexcept;

// ---- hot scalar helpers (inline; bit-identical to the generic core for every non-NaN code;
// NaN codes decode to some quiet NaN here, to the canonical 0x7FC00000 in the core) ----
inline float bits_to_f32(uint32_t b) noexcept { float f; std::memcpy(&f, &b, 4); return f; }
inline uint32_t f32_to_bits(float f) noexcept { uint32_t b; std::memcpy(&b, &f, 4); return b; }
inline float bf16_to_f32(uint16_t c) noexcept { return bits_to_f32(uint32_t{c} << 16); }
// RNE, canonical NaN 0x7FC0 (spec 00 Numerics).
inline uint16_t f32_to_bf16(float f) noexcept {
  uint32_t b = f32_to_bits(f);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
  b += 0x7FFFu + ((b >> 16) & 1u);
  return static_cast<uint16_t>(b >> 16);
}
// Portable bit manipulation, not _Float16: clang 14 has no _Float16 on x86-64 without
// AVX512-FP16, and the fuzz build (clang) compiles this header too.
inline float f16_to_f32(uint16_t c) noexcept {
  const uint32_t s = uint32_t{c & 0x8000u} << 16;
  const uint32_t e = (c >> 10) & 0x1Fu, m = c & 0x3FFu;
  if (e == 0x1F) return bits_to_f32(s | 0x7F800000u | (m << 13) | (m ? 0x400000u : 0u));
  if (e == 0) {
    const float v = static_cast<float>(m) * 0x1p-24f;  // exact: m < 2^10
    return s ? -v : v;
  }
  return bits_to_f32(s | ((e + 112u) << 23) | (m << 13));
}
// RNE, canonical NaN 0x7E00.
inline uint16_t f32_to_f16(float f) noexcept {
  const uint32_t b = f32_to_bits(f);
  const uint16_t s = static_cast<uint16_t>((b >> 16) & 0x8000u);
  const uint32_t a = b & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return 0x7E00;
  if (a >= 0x477FF000u) return s | 0x7C00u;  // >= 65520 rounds to Inf (and Inf itself)
  if (a < 0x38800000u) {                     // below 2^-14: subnormal result or zero
    const float t = bits_to_f32(a) * 0x1p24f;                      // exact scaling
    const float r = (t + 0x1p23f) - 0x1p23f;                       // RNE to an integer (t < 2^10)
    return s | static_cast<uint16_t>(r);     // r == 1024 is exactly the min normal 0x0400
  }
  const uint32_t r = a + 0x0FFFu + ((a >> 13) & 1u) - (112u << 23);
  return s | static_cast<uint16_t>(r >> 13);
}

// ---- bulk conversions (SIMD where it pays; bit-identical to the core) ----
// codes: storage of n elements of `t` (packed x2 for 4-bit types, element 0 in the low nibble).
// The encoders check require_rounding before writing anything.
void decode_array(const void* codes, DType t, float* out, size_t n);
void decode_array_f64(const void* codes, DType t, double* out, size_t n);
void encode_array(const float* values, DType t, void* codes, size_t n,
                  Rounding mode = Rounding::rne, bool saturate = false);
void encode_array_f64(const double* values, DType t, void* codes, size_t n,
                      Rounding mode = Rounding::rne, bool saturate = false);

// ---- packed 4-bit helpers (spec 10 §2) ----
// Element i of a packed buffer / set element i (other nibble untouched).
inline uint8_t get_nibble(const uint8_t* p, size_t i) noexcept {
  return static_cast<uint8_t>((p[i >> 1] >> ((i & 1) * 4)) & 0xF);
}
inline void set_nibble(uint8_t* p, size_t i, uint8_t v) noexcept {
  const unsigned sh = (i & 1) * 4;
  p[i >> 1] = static_cast<uint8_t>((p[i >> 1] & ~(0xF << sh)) | ((v & 0xF) << sh));
}
// One code per element -> packed pairs; `cols` per row, each row padded to a whole byte
// (high nibble of an odd row's last byte written 0). rows = 1 for a 1-D array.
std::vector<uint8_t> pack_x2(std::span<const uint8_t> codes, size_t rows, size_t cols);
std::vector<uint8_t> unpack_x2(std::span<const uint8_t> packed, size_t rows, size_t cols);

}  // namespace tilesim::formats
