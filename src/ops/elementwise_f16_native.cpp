// fp16 add, sub and mul on native fp16 lanes (AVX512-FP16: Sapphire Rapids and later), the same
// bits as the definitions (op_table.hpp: computed in fp32, rounded once to fp16) and as
// elementwise_simd.cpp's HalfBinary.
//
// Why the bits are the same: for + - * the fp32 result of fp16 operands, rounded to fp16, is the
// correctly rounded fp16 result, since fp32 has 24 >= 2 * 11 + 2 bits (the double rounding is
// innocuous, subnormal fp16 results included: they keep fewer bits). vaddph, vsubph and vmulph
// compute that correctly rounded result directly (RNE, overflow to ±Inf; the FP16 instructions
// ignore MXCSR.DAZ/FTZ), 32 lanes at a time where the fp32 route widens, computes on 16 and
// narrows. A NaN result is made canonical (0x7E00); with saturation ±Inf becomes ±max and NaN +0
// (Switches::saturate). Division and sqrt give the same bits the same way, but vdivph and vsqrtph
// measured 1.5x and 2.4x slower than the fp32 route on the Intel host (64 K fp16 Div 13.1 -> 18.9
// us, Sqrt 9.0 -> 22.1 us), so they stay there.
#include <cstdint>
#include <cstring>

#include "ops/elementwise.hpp"
#include "ops/f16_native.hpp"
#include "ops/reduce.hpp"

namespace tilesim::ops::simd {

#if TILESIM_F16_NATIVE
namespace {

using f16_native::Canonical;
using f16_native::Head;
using f16_native::Saturate;

enum class Form { TT, TS, ST };  // tile op tile, tile op scalar, scalar op tile

// The result codes: NaN canonical, or (sat) ±Inf -> ±max and NaN -> +0.
template <bool kSat>
TILESIM_FP16_INLINE __m512i Out(__m512h r) {
  if constexpr (kSat)
    return Saturate(r);
  else
    return Canonical(r);
}

template <Op op>
TILESIM_FP16_INLINE __m512h Apply(__m512h a, __m512h b) {
  if constexpr (op == Op::add)
    return _mm512_add_ph(a, b);
  else if constexpr (op == Op::sub)
    return _mm512_sub_ph(a, b);
  else
    return _mm512_mul_ph(a, b);
}

// Rows of n codes; the last vector of a row under a mask (masked-off lanes neither fault nor
// store).
template <Op op, Form f, bool kSat>
TILESIM_FP16_FN void Rows(const Rows2& g, uint16_t s) {
  const __m512h vs = _mm512_castsi512_ph(_mm512_set1_epi16(int16_t(s)));
  for (size_t r = 0; r < g.rows; ++r) {
    const auto* x = reinterpret_cast<const uint16_t*>(static_cast<const uint8_t*>(g.a) + r * g.as);
    const uint16_t* y = nullptr;
    if constexpr (f == Form::TT)
      y = reinterpret_cast<const uint16_t*>(static_cast<const uint8_t*>(g.b) + r * g.bs);
    auto* o = reinterpret_cast<uint16_t*>(static_cast<uint8_t*>(g.d) + r * g.ds);
    for (size_t i = 0; i < g.n; i += 32) {
      const __mmask32 m = Head(g.n - i);
      const __m512h vx = _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(m, x + i));
      __m512h v;
      if constexpr (f == Form::TT)
        v = Apply<op>(vx, _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(m, y + i)));
      else if constexpr (f == Form::TS)
        v = Apply<op>(vx, vs);
      else
        v = Apply<op>(vs, vx);
      _mm512_mask_storeu_epi16(o + i, m, Out<kSat>(v));
    }
  }
}

// Whether every row of dst is the source row itself or apart from it (a vector read after an
// earlier vector's store must see the source's codes).
bool Apart(const void* src, size_t ss, const Rows2& g) {
  for (size_t r = 0; r < g.rows; ++r) {
    const auto* x = static_cast<const uint8_t*>(src) + r * ss;
    const auto* o = static_cast<const uint8_t*>(g.d) + r * g.ds;
    const size_t bytes = g.n * 2;
    if (x != o && x < o + bytes && o < x + bytes) return false;
  }
  return true;
}

template <Op op, bool kSat>
bool Run(const Rows2& g, bool b_scalar, uint16_t s, bool scalar_first) {
  if (b_scalar)
    scalar_first ? Rows<op, Form::ST, kSat>(g, s) : Rows<op, Form::TS, kSat>(g, s);
  else
    Rows<op, Form::TT, kSat>(g, s);
  return true;
}

template <Op op>
bool RunSat(const Rows2& g, bool b_scalar, uint16_t s, bool scalar_first, bool sat) {
  return sat ? Run<op, true>(g, b_scalar, s, scalar_first)
             : Run<op, false>(g, b_scalar, s, scalar_first);
}

}  // namespace

bool f16_native_binary(Op op, const Rows2& g, bool b_scalar, uint64_t s, bool scalar_first,
                       bool sat) {
  if (!reduce_simd::f16_native_on() || (op != Op::add && op != Op::sub && op != Op::mul))
    return false;
  if (!Apart(g.a, g.as, g) || (!b_scalar && !Apart(g.b, g.bs, g))) return false;
  const uint16_t c = uint16_t(s);
  switch (op) {
    case Op::add:
      return RunSat<Op::add>(g, b_scalar, c, scalar_first, sat);
    case Op::sub:
      return RunSat<Op::sub>(g, b_scalar, c, scalar_first, sat);
    case Op::mul:
      return RunSat<Op::mul>(g, b_scalar, c, scalar_first, sat);
    default:
      return false;
  }
}

#else
bool f16_native_binary(Op, const Rows2&, bool, uint64_t, bool, bool) {
  return false;
}
#endif

}  // namespace tilesim::ops::simd
