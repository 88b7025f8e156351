// The one GEMM core of the TMATMUL family (spec 30 §3): operands decoded to fp32 or int32, a
// scalar reference (the definition) and a blocked SIMD kernel that keeps every element's k order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "tilesim/linx.hpp"

namespace tilesim::linx::core {

enum class Domain : uint8_t { f32, i32 };
Domain domain_of(DType t) noexcept;

// The accumulation rules a LinxISA target profile chooses (spec 30 §1 "Profile", §3): kept as
// values so a hardware-specific order can be added next to the one the seed defines.
enum class FloatOrder : uint8_t { sequential_fma };  // k = 0..K-1 in order, one fp32 fma per step
enum class IntOverflow : uint8_t { wrap32 };         // 32-bit two's-complement wrap at every step
struct Rules {
  FloatOrder float_order;
  IntOverflow int_overflow;
};
// Empty when the core implements the rule that governs domain d; else what it lacks.
std::string unsupported(const Rules& r, Domain d);

// Decodes n storage elements of t (element `first` on) into the core's number domain: floats
// exactly to fp32 (fp64 rounded RNE, tf32/hf32 low bits masked), integers sign/zero-extended to
// 32 bits (64-bit ones keep their low 32 bits). out is float* or int32_t* per domain_of(t).
void decode(const uint8_t* storage, DType t, size_t first, size_t n, void* out);

// B's element (k, j) is B[k * sk + j * sj]: (sk, sj) = (N, 1) row-major, (1, K) column-major.
struct BStride {
  size_t sk, sj;
};
// The accumulation chain of spec 30 §3 (A row-major M x K, C row-major M x N): for every (i, j),
// in k order, C = fma(A[i][k], B[k][j], C) in fp32 / C = C + A*B in wrapping 32-bit integers.
// C holds the start values (0 or ACC) on entry.
void chain_f32_reference(const float* A, const float* B, BStride bs, float* C, size_t M, size_t N, size_t K);
void chain_i32_reference(const int32_t* A, const int32_t* B, BStride bs, int32_t* C, size_t M, size_t N, size_t K);
// zero_start: C is not read; the chains start from +0 / 0.
// finish: then + bias[j] (when bias) and the default NaN (spec 30 §3's epilogue, fused into the
// last K block).
void chain_f32_fast(const float* A, const float* B, BStride bs, float* C, size_t M, size_t N, size_t K,
                    bool zero_start, bool finish = false, const float* bias = nullptr);
void chain_i32_fast(const int32_t* A, const int32_t* B, BStride bs, int32_t* C, size_t M, size_t N, size_t K,
                    bool zero_start);
// An operand read in place from the layout it is stored in: element (x, k) — x the row of A or the
// column of B — at p[(k / k0) * S + x * k0 + k % k0]. NZ A tiles and ZN B tiles (spec 30 §4) are
// this with their k0 and S = padded x count * k0; a K-contiguous matrix is {p, K, 0}.
struct PanelView {
  const void* p;
  size_t k0, S;
};
// The fast chains on views; b_row (row-major K x N B) replaces b when not null. Same bits.
void chain_f32_views(PanelView a, PanelView b, const float* b_row, float* C, size_t M, size_t N, size_t K,
                     bool zero_start, bool finish = false, const float* bias = nullptr);
void chain_i32_views(PanelView a, PanelView b, const int32_t* b_row, int32_t* C, size_t M, size_t N, size_t K,
                     bool zero_start);
// Where a chain keeps C: element (i, j) at p[(j / bw) * bs + i * ldc + j % bw], or p[i * ldc + j]
// when bw == 0 (row-major). A PTO Acc tile in NZ (docs/pto-kernels.md#tile-layouts: 16-wide
// boxes of 16 x 16, box columns Rows * 16 apart) is {p, 16, 16, Rows * 16}: the chain then
// accumulates in the tile itself, no staging copy of C per TMATMUL_ACC step.
struct CView {
  void* p;
  size_t ldc, bw, bs;
};
// chain_*_views writing C through a view (same bits as on a row-major C); b_row as there (a small
// one with N a multiple of the micro-tile width is read in place, not packed). b_row_f16 instead
// of b_row: B row-major K x N as fp16 codes (non-NaN codes decoded exactly; a NaN code gives a
// NaN, which `finish` makes the default NaN; read in place when small, the kernel converting as it
// loads: no fp32 copy of B).
void chain_f32_views_c(PanelView a, PanelView b, const float* b_row, CView c, size_t M, size_t N,
                       size_t K, bool zero_start, bool finish = false, const float* bias = nullptr,
                       const uint16_t* b_row_f16 = nullptr);
void chain_i32_views_c(PanelView a, PanelView b, CView c, size_t M, size_t N, size_t K, bool zero_start);
// dst[c][r] = src[r][c] for 32-bit elements, r < rows, c < cols; row strides ss / ds in bytes, any
// alignment (the core's panel packing and TMA's transposing layouts).
void transpose32(const void* src, size_t ss, void* dst, size_t ds, size_t rows, size_t cols);
void transpose16(const void* src, size_t ss, void* dst, size_t ds, size_t rows, size_t cols);  // 16-bit elements
void transpose8(const void* src, size_t ss, void* dst, size_t ds, size_t rows, size_t cols);   // 8-bit elements
// C = C + bias[j] (when bias) then NaN -> 0x7FC00000, SIMD; identical to the scalar epilogue.
void epilogue_f32_fast(float* C, const float* bias, size_t M, size_t N);

// The whole TMATMUL / .BIAS / .ACC result on decoded operands: C = start (zeros when start is
// null), the chain under `rules`, then + bias (one fp32 / wrapping add) and default NaN. `out` M x N.
// b_col_major: B is stored K-contiguous per column (N x K row-major), as a ZN tile's lines are.
// Error(Unsupported), before anything is written, when unsupported(rules, d) is not empty.
void run(Domain d, const void* A, const void* B, const void* bias, const void* start, void* out, size_t M,
         size_t N, size_t K, Engine e, bool b_col_major, const Rules& rules);

// run() with the fast engine on operand views (the TMATMUL block path: no flattening copy).
void run_views(Domain d, PanelView A, PanelView B, const void* bias, const void* start, void* out, size_t M,
               size_t N, size_t K, const Rules& rules);
// run_views() accumulating in C's own layout: C holds the start values when `accumulate`, else
// the chains start from zero (C is not read); only C's M x N elements are written. B_row, when not
// null, is B row-major K x N in the domain (replaces B, as chain_*_views' b_row; f32 only), or
// fp16 codes when b_row_f16 (f32 domain; chain_f32_views_c's b_row_f16).
void run_views_into(Domain d, PanelView A, PanelView B, const void* B_row, const void* bias,
                    bool accumulate, CView C, size_t M, size_t N, size_t K, const Rules& rules,
                    bool b_row_f16 = false);

}  // namespace tilesim::linx::core
