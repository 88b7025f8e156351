// Element-wise array kernels of the element-op core (spec 15 §1, §4, §5): n contiguous elements
// of one core dtype, one op. The operand walkers of the models (PTO tile rows, Ascend C masked
// repeats, TPU NCHW) call these per contiguous run; nothing here knows about operands, layouts
// or models. Path::Reference runs the scalar definition (op_table.hpp eval) element by element;
// Path::Fast is SIMD where it pays, bit-identical to the reference for every input.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ops/op_table.hpp"

namespace tilesim::ops {

enum class Path : uint8_t { Fast, Reference };

// Profile switches an op may have (spec 15 §4). Off by default; a model turns one on only where
// its vendor page for that exact API says so.
struct Switches {
  bool ftz_in = false;   // subnormal inputs read as ±0 (floats)
  bool ftz_out = false;  // subnormal results written as ±0 (floats)
};

// dst[i] = a[i] OP b[i] for a binary op (add sub mul div rem max min and or xor shl shr).
// Integer div/rem by zero must have been rejected by the caller (find_zero).
void binary(Op op, DType t, const void* a, const void* b, void* dst, size_t n,
            Path path = Path::Fast, Switches sw = {});
// dst[i] = a[i] OP s, or s OP a[i] when scalar_first; s is a code of t.
void binary_scalar(Op op, DType t, const void* a, uint64_t s, bool scalar_first, void* dst,
                   size_t n, Path path = Path::Fast, Switches sw = {});
// dst[i] = OP a[i] for a unary op (not abs neg relu exp ln sqrt rsqrt recip copy).
void unary(Op op, DType t, const void* a, void* dst, size_t n, Path path = Path::Fast,
           Switches sw = {});
// out[i] = a[i] PRED b[i] (1 or 0) for a compare op; b_scalar: b is one code, not an array.
void compare(Op op, DType t, const void* a, const void* b, uint8_t* out, size_t n,
             Path path = Path::Fast);
void compare_scalar(Op op, DType t, const void* a, uint64_t s, uint8_t* out, size_t n,
                    Path path = Path::Fast);
// dst[i] = mask[i] ? a[i] : b[i] (moves bits, spec 15 select).
void select(DType t, const uint8_t* mask, const void* a, const void* b, void* dst, size_t n);

// Index of the first zero of an integer array (the divisors of div/rem/recip), or n.
size_t find_zero(DType t, const void* a, size_t n) noexcept;

// Code of element i of a core-dtype array, and its store (the walkers' scalar access).
uint64_t load_code(DType t, const void* base, size_t i) noexcept;
void store_code(DType t, void* base, size_t i, uint64_t code) noexcept;

// Internal: the SIMD kernels (elementwise_simd.cpp). Each returns false when it has no fast
// form for (op, t); the caller then runs the scalar loop.
namespace simd {
bool binary(Op op, DType t, const void* a, const void* b, void* dst, size_t n);
bool binary_scalar(Op op, DType t, const void* a, uint64_t s, bool scalar_first, void* dst,
                   size_t n);
bool unary(Op op, DType t, const void* a, void* dst, size_t n);
}  // namespace simd

}  // namespace tilesim::ops
