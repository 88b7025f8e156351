// Element-wise array kernels of the element-op core (spec 15 §1, §4, §5): rows of n contiguous
// elements of one core dtype, one op. The operand walkers of the models (PTO tile rows, Ascend C
// masked repeats, TPU NCHW) call these; nothing here knows about operands, layouts or models.
// Path::Reference runs the scalar definition (op_table.hpp eval) element by element; Path::Fast is
// SIMD where it pays, bit-identical to the reference for every input.
//
// The *_rows forms take `rows` rows at byte strides (a stride of 0 reads the same row for every
// row: a broadcast operand), so a walker makes one call per instruction, not one per row.
// A destination may be a source element for element (in place); any other overlap of a
// destination with a source is the caller's to copy first (PTO Source, TPU staging): the kernels
// write rows and parts of rows in any order (AVX3 fp32: every row's whole vectors, then the tails).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ops/op_table.hpp"

namespace tilesim::ops {

enum class Path : uint8_t { Fast, Reference };

// Profile switches an op may have (spec 15 §4). Off by default; a model turns one on only where
// its vendor page for that exact API says so.
struct Switches {
  bool ftz_in : 1 = false;   // subnormal inputs read as ±0 (floats)
  bool ftz_out : 1 = false;  // subnormal results written as ±0 (floats)
  // Float-narrowing saturation (spec 15 §4; Ascend C's CTRL saturation, spec 40 §5): an fp16 or
  // bf16 result ±Inf is written as ±max of the type and a NaN result as +0 (saturate_code). No
  // effect on other dtypes.
  bool saturate : 1 = false;
};

// The saturation switch's rule on one code of t: fp16/bf16 ±Inf -> ±max, NaN -> +0; any other
// code or dtype unchanged. saturate_codes applies it to n codes in place (SIMD).
uint64_t saturate_code(DType t, uint64_t code) noexcept;
void saturate_codes(DType t, void* p, size_t n) noexcept;

// dst[i] = code for n elements of t (a fill: store only).
void fill(DType t, void* dst, uint64_t code, size_t n) noexcept;
// A column broadcast: row r of `rows` rows (at dst + r * ds bytes) is n copies of code r (the
// element of t at codes + r * cs bytes). Row r's code is read before row r is written, so the
// codes may be column 0 of dst itself (ds == cs); any other overlap needs a copy first.
void fill_rows(DType t, void* dst, size_t ds, const void* codes, size_t cs, size_t rows,
               size_t n) noexcept;

// Rows of n elements: row r of an operand at p + r * stride bytes.
struct Rows2 {
  const void* a = nullptr;
  size_t as = 0;
  const void* b = nullptr;  // unused for unary ops and scalar forms
  size_t bs = 0;
  void* d = nullptr;
  size_t ds = 0;
  size_t rows = 1, n = 0;
};

// d = a OP b for a binary op (add sub mul div rem max min and or xor shl shr).
// Integer div/rem by zero must have been rejected by the caller (find_zero).
void binary_rows(Op op, DType t, const Rows2& g, Path path = Path::Fast, Switches sw = {});
// d = a OP s, or s OP a when scalar_first; s is a code of t.
void binary_scalar_rows(Op op, DType t, const Rows2& g, uint64_t s, bool scalar_first,
                        Path path = Path::Fast, Switches sw = {});
// d = OP a for a unary op (not abs neg relu exp ln sqrt rsqrt recip copy).
void unary_rows(Op op, DType t, const Rows2& g, Path path = Path::Fast, Switches sw = {});
// Packed predicates: bit j % 8 of byte j / 8 of row r (at d + r * ds) = a[r][j] PRED b[r][j]
// (or PRED s when b_scalar); ceil(n / 8) bytes per row are written, bits past n are 0.
void compare_bits_rows(Op op, DType t, const Rows2& g, bool b_scalar, uint64_t s,
                       Path path = Path::Fast);
// d[r][j] = bit j of row r of `bits` (at bits + r * bits_stride) ? a[r][j] : b[r][j] (or s when
// b_scalar); moves bits (spec 15 select).
void select_bits_rows(DType t, const uint8_t* bits, size_t bits_stride, const Rows2& g,
                      bool b_scalar, uint64_t s);

// One-row forms.
void binary(Op op, DType t, const void* a, const void* b, void* dst, size_t n,
            Path path = Path::Fast, Switches sw = {});
void binary_scalar(Op op, DType t, const void* a, uint64_t s, bool scalar_first, void* dst,
                   size_t n, Path path = Path::Fast, Switches sw = {});
void unary(Op op, DType t, const void* a, void* dst, size_t n, Path path = Path::Fast,
           Switches sw = {});
// out[i] = a[i] PRED b[i] (1 or 0) for a compare op; compare_scalar against one code s.
void compare(Op op, DType t, const void* a, const void* b, uint8_t* out, size_t n,
             Path path = Path::Fast);
void compare_scalar(Op op, DType t, const void* a, uint64_t s, uint8_t* out, size_t n,
                    Path path = Path::Fast);
// dst[i] = mask[i] ? a[i] : b[i] (one byte per element; moves bits).
void select(DType t, const uint8_t* mask, const void* a, const void* b, void* dst, size_t n);

// Index of the first zero of an integer array (the divisors of div/rem/recip), or n.
size_t find_zero(DType t, const void* a, size_t n) noexcept;

// Code of element i of a core-dtype array, and its store (the walkers' scalar access).
uint64_t load_code(DType t, const void* base, size_t i) noexcept;
void store_code(DType t, void* base, size_t i, uint64_t code) noexcept;

// Internal: the SIMD kernels (elementwise_simd.cpp). Each returns false when it has no fast
// form for (op, t); the caller then runs the scalar loop.
// sat: Switches::saturate (the 16-bit float kernels apply it in their rounding step; the others
// return false when it is set for fp16/bf16).
namespace simd {
bool binary(Op op, DType t, const Rows2& g, bool b_scalar, uint64_t s, bool scalar_first,
            bool sat);
bool unary(Op op, DType t, const Rows2& g, bool sat);
bool compare_bits(Op op, DType t, const Rows2& g, bool b_scalar, uint64_t s);
bool select_bits(DType t, const uint8_t* bits, size_t bits_stride, const Rows2& g, bool b_scalar,
                 uint64_t s);
bool saturate(DType t, void* p, size_t n);
// fp32 -> fp16/bf16 codes in RNE, NaN canonical, or (sat) with Switches::saturate's rule.
bool narrow_f32(DType t, const float* in, uint16_t* out, size_t n, bool sat);
bool fill(unsigned bytes, void* dst, uint64_t code, size_t n);
bool fill_rows(unsigned bytes, void* dst, size_t ds, const void* codes, size_t cs, size_t rows,
               size_t n);
// fp16 add/sub/mul on native fp16 lanes (AVX512-FP16, elementwise_f16_native.cpp; switched with
// reduce_simd::set_f16_native): the same bits as binary above; false for other ops, when off or
// unsupported, or when a source row overlaps its dst row other than exactly.
bool f16_native_binary(Op op, const Rows2& g, bool b_scalar, uint64_t s, bool scalar_first,
                       bool sat);
}  // namespace simd

}  // namespace tilesim::ops
