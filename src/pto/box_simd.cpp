// SIMD kernels of the boxed movers (transfer.hpp; docs/pto-kernels.md#tile-layouts): a 16 x 16 box
// of 16-bit elements transposed (Mat NZ -> Right ZN of the cube path, fp16 / bf16) or transposed
// and decoded to fp32 (TMATMUL's Right operand), and the box-row runs of rows_box_rows. The moves
// move bits only, so every target gives the same bytes; targets without 256-bit vectors use the
// element loops.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "pto/box_simd.cpp"
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

#include <cstdint>
#include <cstring>

#include "tilesim/formats.hpp"
#include "pto/transfer.hpp"

HWY_BEFORE_NAMESPACE();
namespace tilesim::pto::instr::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
using D16 = hn::Full256<uint16_t>;
using V16 = hn::Vec<D16>;
// o[c] = src column c (the box row-major, one 16-element row per 256-bit vector): the classic four
// rounds of interleaves (16-, 32-, 64-bit inside each 128-bit block, then the blocks).
// Line c goes to sink(c, vector) as it is made (an array of the 16 results made GCC move them
// through the stack in 512-bit pieces, stalling on store forwarding).
template <class Sink>
HWY_INLINE void Transpose16x16(const uint8_t* HWY_RESTRICT sb, const Sink& sink) {
  const D16 d16;
  const hn::Repartition<uint32_t, D16> d32;
  const hn::Repartition<uint64_t, D16> d64;
  V16 r[16], s[16];
  // s[2i], s[2i+1]: rows 2i, 2i+1 interleaved, columns 0-3 / 4-7 of each 8-column block. (The rows
  // are loaded right here: loaded into an array first, GCC merged pairs into 512-bit loads and
  // read the halves back through the stack.)
  const uint16_t* const p = reinterpret_cast<const uint16_t*>(sb);
  for (size_t i = 0; i < 8; ++i) {
    const V16 a = hn::LoadU(d16, p + 32 * i), b = hn::LoadU(d16, p + 32 * i + 16);
    s[2 * i] = hn::InterleaveLower(d16, a, b);
    s[2 * i + 1] = hn::InterleaveUpper(d16, a, b);
  }
  // r[4j + q]: rows 4j..4j+3, columns 2q, 2q+1 of each block.
  const auto lo32 = [&](V16 a, V16 b) { return hn::BitCast(d16, hn::InterleaveLower(d32, hn::BitCast(d32, a), hn::BitCast(d32, b))); };
  const auto hi32 = [&](V16 a, V16 b) { return hn::BitCast(d16, hn::InterleaveUpper(d32, hn::BitCast(d32, a), hn::BitCast(d32, b))); };
  for (size_t j = 0; j < 4; ++j) {
    r[4 * j + 0] = lo32(s[4 * j], s[4 * j + 2]);
    r[4 * j + 1] = hi32(s[4 * j], s[4 * j + 2]);
    r[4 * j + 2] = lo32(s[4 * j + 1], s[4 * j + 3]);
    r[4 * j + 3] = hi32(s[4 * j + 1], s[4 * j + 3]);
  }
  // s[8m + c]: rows 8m..8m+7 of column c of each block.
  const auto lo64 = [&](V16 a, V16 b) { return hn::BitCast(d16, hn::InterleaveLower(d64, hn::BitCast(d64, a), hn::BitCast(d64, b))); };
  const auto hi64 = [&](V16 a, V16 b) { return hn::BitCast(d16, hn::InterleaveUpper(d64, hn::BitCast(d64, a), hn::BitCast(d64, b))); };
  for (size_t m = 0; m < 2; ++m)
    for (size_t q = 0; q < 4; ++q) {
      s[8 * m + 2 * q] = lo64(r[8 * m + q], r[8 * m + 4 + q]);
      s[8 * m + 2 * q + 1] = hi64(r[8 * m + q], r[8 * m + 4 + q]);
    }
  // Column c (c < 8) is block 0 of s[c] then of s[8 + c]; column 8 + c the blocks 1.
  for (size_t c = 0; c < 8; ++c) {
    sink(c, hn::ConcatLowerLower(d16, s[8 + c], s[c]));
    sink(8 + c, hn::ConcatUpperUpper(d16, s[8 + c], s[c]));
  }
}
#endif

// out[c * ldo + i] = code (i, c) of a row-major 16 x 16 box of 16-bit codes: the box transposed
// into 16 lines ldo elements apart (TMATMUL's fp16 Right operand as row-major rows).
void Box16T(const uint8_t* HWY_RESTRICT sb, uint16_t* HWY_RESTRICT out, size_t ldo) {
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
  Transpose16x16(sb, [&](size_t c, V16 v) { hn::StoreU(v, D16(), out + c * ldo); });
#else
  for (size_t i = 0; i < 16; ++i)
    for (size_t c = 0; c < 16; ++c) std::memcpy(out + c * ldo + i, sb + (i * 16 + c) * 2, 2);
#endif
}

void TransposeBox16(uint8_t* HWY_RESTRICT db, const uint8_t* HWY_RESTRICT sb) {
  Box16T(sb, reinterpret_cast<uint16_t*>(db), 16);  // the box's lines back to back
}

// out[c * ldo + i] = the fp32 value of code (i, c) of a row-major 16 x 16 box of fp16 (bf16 when
// `bf16`) codes: the transposed box, decoded exactly (fp16 by the F16C conversion, bf16 by a
// shift; a NaN code may keep its payload: the GEMM core makes every NaN result the default NaN).
void Box16ToF32T(const uint8_t* HWY_RESTRICT sb, bool bf16, float* HWY_RESTRICT out, size_t ldo) {
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
#if HWY_TARGET <= HWY_AVX3
  const hn::Full512<float> df;  // one conversion and one store per line
  const hn::Full256<hwy::float16_t> dh16;
  const hn::Full512<uint32_t> du;
  const auto line = [&](size_t c, V16 v) {
    const auto f = bf16 ? hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, v))) : hn::PromoteTo(df, hn::BitCast(dh16, v));
    hn::StoreU(f, df, out + c * ldo);
  };
#else
  const hn::Full256<float> df;
  const hn::Full128<uint16_t> dh;
  const hn::Full128<hwy::float16_t> dh16;
  const hn::Full256<uint32_t> du;
  const auto line = [&](size_t c, V16 v) {
    const hn::Vec<decltype(dh)> halves[2] = {hn::LowerHalf(dh, v), hn::UpperHalf(dh, v)};
    for (size_t h = 0; h < 2; ++h) {
      const auto f = bf16 ? hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, halves[h])))
                          : hn::PromoteTo(df, hn::BitCast(dh16, halves[h]));
      hn::StoreU(f, df, out + c * ldo + h * 8);
    }
  };
#endif
  Transpose16x16(sb, line);
#else
  for (size_t i = 0; i < 16; ++i)
    for (size_t c = 0; c < 16; ++c) {
      uint16_t code;
      std::memcpy(&code, sb + (i * 16 + c) * 2, 2);
      out[c * ldo + i] = bf16 ? formats::bf16_to_f32(code) : formats::f16_to_f32(code);
    }
#endif
}

void BoxRuns(uint8_t* const* HWY_RESTRICT drow, const uint8_t* const* HWY_RESTRICT srow, size_t R, size_t full,
             size_t dstep, size_t sstep, size_t n, bool far_source) {
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
  const hn::Full256<uint8_t> d;
  if (n == 32 || n == 64) {
    for (size_t r = 0; r < R; ++r) {
      uint8_t* dp = drow[r];
      const uint8_t* sp = srow[r];
      // The source row 16 ahead is requested now: a TLOAD's GM rows are far apart (a tile of a
      // large matrix), so neither the hardware's stride detection (the loads step by a run, then
      // jump a row) nor the out-of-order window (~10 rows) keeps enough misses in flight. A
      // cache hint only: it changes no byte.
      if (far_source && r + 16 < R)
        for (size_t o = 0; o < full * n; o += 64) __builtin_prefetch(srow[r + 16] + o);
      for (size_t k = 0; k < full; ++k, dp += dstep, sp += sstep) {
        hn::StoreU(hn::LoadU(d, sp), d, dp);
        if (n == 64) hn::StoreU(hn::LoadU(d, sp + 32), d, dp + 32);
      }
    }
    return;
  }
#endif
  (void)far_source;  // (the plain loop requests nothing ahead)
  for (size_t r = 0; r < R; ++r)
    for (size_t k = 0; k < full; ++k) std::memcpy(drow[r] + k * dstep, srow[r] + k * sstep, n);
}

}  // namespace tilesim::pto::instr::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tilesim::pto::instr {
HWY_EXPORT(TransposeBox16);
HWY_EXPORT(Box16ToF32T);
HWY_EXPORT(Box16T);
HWY_EXPORT(BoxRuns);
void box_runs(uint8_t* const* drow, const uint8_t* const* srow, size_t R, size_t full, size_t dstep, size_t sstep,
              size_t n, bool far_source) {
  HWY_DYNAMIC_DISPATCH(BoxRuns)(drow, srow, R, full, dstep, sstep, n, far_source);
}
void transpose_box16x16_u16(uint8_t* db, const uint8_t* sb) { HWY_DYNAMIC_DISPATCH(TransposeBox16)(db, sb); }
void box16x16_transposed(const uint8_t* sb, uint16_t* out, size_t ldo) {
  HWY_DYNAMIC_DISPATCH(Box16T)(sb, out, ldo);
}
void box16x16_to_f32_transposed(const uint8_t* sb, bool bf16, float* out, size_t ldo) {
  HWY_DYNAMIC_DISPATCH(Box16ToF32T)(sb, bf16, out, ldo);
}
}  // namespace tilesim::pto::instr
#endif
