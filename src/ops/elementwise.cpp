// The element-op core's definition on one element (eval) and its array entry points: the
// reference loops, the typed scalar loops the fast path falls back to, and the fp16/bf16 route
// through fp32 chunks (widen exactly, compute, round once: spec 00 Numerics).
#include "ops/elementwise.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

#include "formats/convert_simd.hpp"
#include "ops/math.hpp"

namespace tilesim::ops {
namespace {

constexpr OpInfo kInfo[] = {
#define TILESIM_OP_ROW(name, arity, classes) {Op::name, #name, arity, classes},
    TILESIM_OPS(TILESIM_OP_ROW)
#undef TILESIM_OP_ROW
};

// fp32 value <-> code of a float dtype (RNE, canonical NaN).
float to_f32(DType t, uint64_t c) {
  switch (t) {
    case DType::fp16: return formats::f16_to_f32(uint16_t(c));
    case DType::bf16: return formats::bf16_to_f32(uint16_t(c));
    default: return def::bits_f32(uint32_t(c));
  }
}
uint64_t from_f32(DType t, float v) {
  switch (t) {
    case DType::fp16: return formats::f32_to_f16(v);
    case DType::bf16: return formats::f32_to_bf16(v);
    default: return def::f32_bits(def::canon(v));
  }
}
uint64_t from_f64(DType t, double v) {  // one rounding, double -> T (RNE, canonical NaN)
  if (v != v) return formats::info(t).canonical_nan;
  return formats::encode(v, t);
}

// Subnormal -> signed zero (spec 15 §4 ftz), on codes.
uint64_t flush(DType t, uint64_t c) {
  switch (t) {
    case DType::fp16: return (c & 0x7C00u) == 0 ? (c & 0x8000u) : c;
    case DType::bf16: return (c & 0x7F80u) == 0 ? (c & 0x8000u) : c;
    case DType::fp32: return (c & 0x7F800000u) == 0 ? (c & 0x80000000u) : c;
    default: return c;
  }
}

MathFn math_fn(Op op) {
  switch (op) {
    case Op::exp: return MathFn::exp;
    case Op::ln: return MathFn::ln;
    case Op::sqrt: return MathFn::sqrt;
    case Op::rsqrt: return MathFn::rsqrt;
    default: return MathFn::recip;
  }
}
bool is_math(Op op) {
  return op == Op::exp || op == Op::ln || op == Op::sqrt || op == Op::rsqrt || op == Op::recip;
}

uint64_t eval_float(Op op, DType t, uint64_t ca, uint64_t cb) {
  if (is_math(op)) {
    switch (t) {
      case DType::fp16: return math_f16(math_fn(op), uint16_t(ca));
      case DType::bf16: return math_bf16(math_fn(op), uint16_t(ca));
      default: return def::f32_bits(math_f32(math_fn(op), def::bits_f32(uint32_t(ca))));
    }
  }
  const float a = to_f32(t, ca), b = to_f32(t, cb);
  switch (op) {
#define TILESIM_FB(o) \
  case Op::o: return from_f32(t, def::fbinary<Op::o>(a, b));
    TILESIM_FB(add) TILESIM_FB(sub) TILESIM_FB(mul) TILESIM_FB(div) TILESIM_FB(max) TILESIM_FB(min)
#undef TILESIM_FB
    case Op::rem:
      if (t == DType::fp32) return from_f32(t, def::frem<float>(a, b));
      return from_f64(t, def::frem<double>(a, b));
#define TILESIM_FU(o) \
  case Op::o: return from_f32(t, def::funary<Op::o>(a));
    TILESIM_FU(abs) TILESIM_FU(neg) TILESIM_FU(relu)
#undef TILESIM_FU
#define TILESIM_FC(o) \
  case Op::o: return def::fcompare<Op::o>(a, b) ? 1 : 0;
    TILESIM_FC(eq) TILESIM_FC(ne) TILESIM_FC(lt) TILESIM_FC(le) TILESIM_FC(gt) TILESIM_FC(ge)
#undef TILESIM_FC
    case Op::copy: return ca;  // moves bits
    default: return 0;         // not a float op: callers check supports() first
  }
}

template <class T>
uint64_t eval_int(Op op, uint64_t ca, uint64_t cb) {
  const T a = T(ca), b = T(cb);
  using U = std::make_unsigned_t<T>;
  auto code = [](T v) { return uint64_t(U(v)); };
  switch (op) {
#define TILESIM_IB(o) \
  case Op::o: return code(def::integer<Op::o, T>(a, b));
    TILESIM_IB(add) TILESIM_IB(sub) TILESIM_IB(mul) TILESIM_IB(div) TILESIM_IB(rem)
    TILESIM_IB(max) TILESIM_IB(min) TILESIM_IB(band) TILESIM_IB(bor) TILESIM_IB(bxor)
    TILESIM_IB(shl) TILESIM_IB(shr)
#undef TILESIM_IB
#define TILESIM_IU(o) \
  case Op::o: return code(def::integer_unary<Op::o, T>(a));
    TILESIM_IU(bnot) TILESIM_IU(abs) TILESIM_IU(neg) TILESIM_IU(relu) TILESIM_IU(recip)
    TILESIM_IU(copy)
#undef TILESIM_IU
#define TILESIM_IC(o) \
  case Op::o: return def::icompare<Op::o, T>(a, b) ? 1 : 0;
    TILESIM_IC(eq) TILESIM_IC(ne) TILESIM_IC(lt) TILESIM_IC(le) TILESIM_IC(gt) TILESIM_IC(ge)
#undef TILESIM_IC
    default: return 0;
  }
}

size_t width(DType t) { return formats::info(t).storage_bits / 8; }

// ---- typed scalar loops (the fast path's fallback: the definition, without per-element
// dispatch) ----
template <class T>
T ld(const void* p, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(p) + i * sizeof(T), sizeof(T));
  return v;
}
template <class T>
void st(void* p, size_t i, T v) {
  std::memcpy(static_cast<uint8_t*>(p) + i * sizeof(T), &v, sizeof(T));
}

const uint8_t* row_of(const void* p, size_t stride, size_t r) {
  return static_cast<const uint8_t*>(p) + r * stride;
}
uint8_t* row_of(void* p, size_t stride, size_t r) {
  return static_cast<uint8_t*>(p) + r * stride;
}

template <class T>
void int_binary_loop(Op op, const void* a, const void* b, bool b_scalar, T s, bool s_first,
                     void* dst, size_t n) {
  auto run = [&](auto fn) {
    for (size_t i = 0; i < n; ++i) {
      const T x = ld<T>(a, i);
      const T y = b_scalar ? s : ld<T>(b, i);
      st<T>(dst, i, s_first ? fn(y, x) : fn(x, y));
    }
  };
  switch (op) {
#define TILESIM_L(o) \
  case Op::o: return run([](T x, T y) { return def::integer<Op::o, T>(x, y); });
    TILESIM_L(add) TILESIM_L(sub) TILESIM_L(mul) TILESIM_L(div) TILESIM_L(rem) TILESIM_L(max)
    TILESIM_L(min) TILESIM_L(band) TILESIM_L(bor) TILESIM_L(bxor) TILESIM_L(shl) TILESIM_L(shr)
#undef TILESIM_L
    default: assert(false);
  }
}
template <class T>
void int_unary_loop(Op op, const void* a, void* dst, size_t n) {
  auto run = [&](auto fn) {
    for (size_t i = 0; i < n; ++i) st<T>(dst, i, fn(ld<T>(a, i)));
  };
  switch (op) {
#define TILESIM_L(o) \
  case Op::o: return run([](T x) { return def::integer_unary<Op::o, T>(x); });
    TILESIM_L(bnot) TILESIM_L(abs) TILESIM_L(neg) TILESIM_L(relu) TILESIM_L(recip) TILESIM_L(copy)
#undef TILESIM_L
    default: assert(false);
  }
}

template <class F>
void for_int_type(DType t, F&& f) {
  switch (t) {
    case DType::s8: return f(int8_t{});
    case DType::s16: return f(int16_t{});
    case DType::s32: return f(int32_t{});
    case DType::s64: return f(int64_t{});
    case DType::u8: return f(uint8_t{});
    case DType::u16: return f(uint16_t{});
    case DType::u32: return f(uint32_t{});
    default: return f(uint64_t{});
  }
}

// fp32 loop of the definition (fp32 ops without a SIMD form, e.g. rem).
void f32_binary_loop(Op op, const float* a, const float* b, bool b_scalar, float s, bool s_first,
                     float* dst, size_t n) {
  auto run = [&](auto fn) {
    for (size_t i = 0; i < n; ++i) {
      const float x = a[i], y = b_scalar ? s : b[i];
      dst[i] = def::canon(s_first ? fn(y, x) : fn(x, y));
    }
  };
  switch (op) {
#define TILESIM_L(o) \
  case Op::o: return run([](float x, float y) { return def::fbinary<Op::o>(x, y); });
    TILESIM_L(add) TILESIM_L(sub) TILESIM_L(mul) TILESIM_L(div) TILESIM_L(rem) TILESIM_L(max)
    TILESIM_L(min)
#undef TILESIM_L
    default: assert(false);
  }
}

// Ops whose fp16/bf16 result is "compute in fp32, round once" (spec 00 Numerics); rem and the
// correctly rounded functions are not among them.
bool via_f32(Op op) {
  switch (op) {
    case Op::add: case Op::sub: case Op::mul: case Op::div: case Op::max: case Op::min:
    case Op::abs: case Op::neg: case Op::relu:
      return true;
    default:
      return false;
  }
}

constexpr size_t kChunk = 512;  // a multiple of 8: chunks start on whole bytes of packed bits

void widen(DType t, const void* p, float* out, size_t n) {
  if (t == DType::fp16)
    formats::simd::f16_to_f32(static_cast<const uint16_t*>(p), out, n);
  else
    formats::simd::bf16_to_f32(static_cast<const uint16_t*>(p), out, n);
}
void narrow(DType t, const float* in, void* p, size_t n) {
  if (t == DType::fp16)
    formats::simd::f32_to_f16(in, static_cast<uint16_t*>(p), n);
  else
    formats::simd::f32_to_bf16(in, static_cast<uint16_t*>(p), n);
}

Rows2 one_row(const void* a, const void* b, void* d, size_t n) {
  Rows2 g;
  g.a = a;
  g.b = b;
  g.d = d;
  g.n = n;
  return g;
}

// One row of a binary op on the fast path, for what has no multi-row SIMD kernel: fp32 loops,
// fp16/bf16 through fp32 chunks (targets without F16C), integers' typed loops, rem.
void binary_row_fallback(Op op, DType t, const void* a, const void* b, bool bsc, uint64_t s,
                         bool first, void* d, size_t n) {
  if (t == DType::fp32) {
    const float fs = def::bits_f32(uint32_t(s));
    if (!simd::binary(op, t, one_row(a, b, d, n), bsc, s, first, false))
      f32_binary_loop(op, static_cast<const float*>(a), static_cast<const float*>(b), bsc, fs,
                      first, static_cast<float*>(d), n);
    return;
  }
  if (is_float_dtype(t)) {
    if (!via_f32(op)) {
      for (size_t i = 0; i < n; ++i) {
        const uint64_t x = load_code(t, a, i), y = bsc ? s : load_code(t, b, i);
        store_code(t, d, i, first ? eval(op, t, y, x) : eval(op, t, x, y));
      }
      return;
    }
    alignas(64) float fa[kChunk], fb[kChunk], fr[kChunk];
    const uint64_t fs = def::f32_bits(to_f32(t, s));
    for (size_t i = 0; i < n; i += kChunk) {
      const size_t m = std::min(kChunk, n - i);
      widen(t, static_cast<const uint8_t*>(a) + 2 * i, fa, m);
      if (!bsc) widen(t, static_cast<const uint8_t*>(b) + 2 * i, fb, m);
      binary_row_fallback(op, DType::fp32, fa, fb, bsc, fs, first, fr, m);
      narrow(t, fr, static_cast<uint8_t*>(d) + 2 * i, m);
    }
    return;
  }
  for_int_type(t, [&](auto v) {
    using T = decltype(v);
    T ts;
    std::memcpy(&ts, &s, sizeof(T));
    int_binary_loop<T>(op, a, b, bsc, ts, first, d, n);
  });
}

// ftz_in: the rows of a (and b) copied with subnormals flushed, contiguous.
struct Flushed {
  std::vector<uint8_t> a, b;
};
Rows2 flush_inputs(DType t, Rows2 g, bool has_b, Flushed& f) {
  const size_t w = width(t), row = g.n * w;
  f.a.resize(g.rows * row);
  if (has_b) f.b.resize(g.rows * row);
  for (size_t r = 0; r < g.rows; ++r) {
    std::memcpy(f.a.data() + r * row, row_of(g.a, g.as, r), row);
    if (has_b) std::memcpy(f.b.data() + r * row, row_of(g.b, g.bs, r), row);
  }
  for (size_t i = 0; i < g.rows * g.n; ++i) {
    store_code(t, f.a.data(), i, flush(t, load_code(t, f.a.data(), i)));
    if (has_b) store_code(t, f.b.data(), i, flush(t, load_code(t, f.b.data(), i)));
  }
  g.a = f.a.data();
  g.as = row;
  if (has_b) {
    g.b = f.b.data();
    g.bs = row;
  }
  return g;
}
void flush_outputs(DType t, const Rows2& g) {
  for (size_t r = 0; r < g.rows; ++r) {
    uint8_t* d = row_of(g.d, g.ds, r);
    for (size_t i = 0; i < g.n; ++i) store_code(t, d, i, flush(t, load_code(t, d, i)));
  }
}

// Switches::saturate acts on fp16/bf16 results only.
bool saturates(DType t, Switches sw) {
  return sw.saturate && (t == DType::fp16 || t == DType::bf16);
}
// The saturation rule on every result, after an op computed without it.
void saturate_outputs(DType t, const Rows2& g) {
  for (size_t r = 0; r < g.rows; ++r) saturate_codes(t, row_of(g.d, g.ds, r), g.n);
}

void binary_fallback_rows(Op op, DType t, const Rows2& g, bool bsc, uint64_t s, bool first) {
  for (size_t r = 0; r < g.rows; ++r)
    binary_row_fallback(op, t, row_of(g.a, g.as, r), bsc ? nullptr : row_of(g.b, g.bs, r), bsc, s,
                        first, row_of(g.d, g.ds, r), g.n);
}

// The reference path and the ftz switches (out of line: the fast path of a small call is a
// SIMD dispatch and nothing else, issue 16 §5).
[[gnu::noinline]] void binary_any(Op op, DType t, Rows2 g, bool bsc, uint64_t s, bool first,
                                  Path path, Switches sw) {
  Flushed f;
  const bool ftz = is_float_dtype(t);
  if (sw.ftz_in && ftz) {
    g = flush_inputs(t, g, !bsc, f);
    s = flush(t, s);
  }
  if (path == Path::Reference) {
    for (size_t r = 0; r < g.rows; ++r) {
      const uint8_t* a = row_of(g.a, g.as, r);
      const uint8_t* b = bsc ? nullptr : row_of(g.b, g.bs, r);
      uint8_t* d = row_of(g.d, g.ds, r);
      for (size_t i = 0; i < g.n; ++i) {
        const uint64_t x = load_code(t, a, i), y = bsc ? s : load_code(t, b, i);
        store_code(t, d, i, first ? eval(op, t, y, x) : eval(op, t, x, y));
      }
    }
  } else if (!simd::binary(op, t, g, bsc, s, first, false)) {
    binary_fallback_rows(op, t, g, bsc, s, first);
  }
  if (sw.ftz_out && ftz) flush_outputs(t, g);
  if (saturates(t, sw)) saturate_outputs(t, g);
}

void unary_row_fast(Op op, DType t, const void* a, void* d, size_t n) {
  if (op == Op::copy) {
    if (a != d) std::memmove(d, a, n * width(t));
  } else if (is_float_dtype(t) && is_math(op)) {
    math_array(math_fn(op), t, a, d, n);
  } else if (simd::unary(op, t, one_row(a, nullptr, d, n), false)) {
  } else if (t == DType::fp32) {
    for (size_t i = 0; i < n; ++i) store_code(t, d, i, eval(op, t, load_code(t, a, i)));
  } else if (is_float_dtype(t)) {
    // abs, neg, relu: through fp32 chunks (exact both ways).
    alignas(64) float fa[kChunk], fr[kChunk];
    for (size_t i = 0; i < n; i += kChunk) {
      const size_t m = std::min(kChunk, n - i);
      widen(t, static_cast<const uint8_t*>(a) + 2 * i, fa, m);
      unary_row_fast(op, DType::fp32, fa, fr, m);
      narrow(t, fr, static_cast<uint8_t*>(d) + 2 * i, m);
    }
  } else {
    for_int_type(t, [&](auto v) { int_unary_loop<decltype(v)>(op, a, d, n); });
  }
}

void compare_row_fallback(Op op, DType t, const void* a, const void* b, bool bsc, uint64_t s,
                          uint8_t* out, size_t n) {
  if (t == DType::fp16 || t == DType::bf16) {
    alignas(64) float fa[kChunk], fb[kChunk];
    const uint64_t fs = def::f32_bits(to_f32(t, s));
    for (size_t i = 0; i < n; i += kChunk) {
      const size_t m = std::min(kChunk, n - i);
      widen(t, static_cast<const uint8_t*>(a) + 2 * i, fa, m);
      if (!bsc) widen(t, static_cast<const uint8_t*>(b) + 2 * i, fb, m);
      compare_row_fallback(op, DType::fp32, fa, fb, bsc, fs, out + i / 8, m);
    }
    return;
  }
  Rows2 g = one_row(a, b, out, n);
  if (simd::compare_bits(op, t, g, bsc, s)) return;
  std::memset(out, 0, (n + 7) / 8);
  for (size_t i = 0; i < n; ++i)
    if (eval(op, t, load_code(t, a, i), bsc ? s : load_code(t, b, i)))
      out[i / 8] |= uint8_t(1u << (i % 8));
}

// The fast path: the SIMD kernel (saturating in its rounding step), else the typed loops and the
// saturation rule after them.
void binary_fast(Op op, DType t, const Rows2& g, bool bsc, uint64_t s, bool first, Switches sw) {
  const bool sat = saturates(t, sw);
  if (simd::binary(op, t, g, bsc, s, first, sat)) return;
  binary_fallback_rows(op, t, g, bsc, s, first);
  if (sat) saturate_outputs(t, g);
}

}  // namespace

const OpInfo& info(Op op) noexcept {
  return kInfo[unsigned(op)];
}

bool supports(Op op, DType t) noexcept {
  if (!is_core_dtype(t)) return false;
  return (info(op).classes & (is_float_dtype(t) ? kFloat : kInt)) != 0;
}

uint64_t eval(Op op, DType t, uint64_t a, uint64_t b) {
  if (is_float_dtype(t)) return eval_float(op, t, a, b);
  uint64_t r = 0;
  for_int_type(t, [&](auto v) { r = eval_int<decltype(v)>(op, a, b); });
  return r;
}

uint64_t load_code(DType t, const void* base, size_t i) noexcept {
  const auto* p = static_cast<const uint8_t*>(base);
  switch (width(t)) {
    case 1: return p[i];
    case 2: return ld<uint16_t>(p, i);
    case 4: return ld<uint32_t>(p, i);
    default: return ld<uint64_t>(p, i);
  }
}
void store_code(DType t, void* base, size_t i, uint64_t c) noexcept {
  auto* p = static_cast<uint8_t*>(base);
  switch (width(t)) {
    case 1: p[i] = uint8_t(c); return;
    case 2: return st<uint16_t>(p, i, uint16_t(c));
    case 4: return st<uint32_t>(p, i, uint32_t(c));
    default: return st<uint64_t>(p, i, c);
  }
}

size_t find_zero(DType t, const void* a, size_t n) noexcept {
  for (size_t i = 0; i < n; ++i)
    if (load_code(t, a, i) == 0) return i;
  return n;
}

uint64_t saturate_code(DType t, uint64_t c) noexcept {
  if (t != DType::fp16 && t != DType::bf16) return c;
  const uint64_t inf = t == DType::fp16 ? 0x7C00 : 0x7F80, mag = c & 0x7FFF;
  if (mag > inf) return 0;                         // NaN -> +0
  if (mag == inf) return (c & 0x8000) | (inf - 1);  // ±Inf -> ±max
  return c;
}

void saturate_codes(DType t, void* p, size_t n) noexcept {
  if (t != DType::fp16 && t != DType::bf16) return;
  if (simd::saturate(t, p, n)) return;
  for (size_t i = 0; i < n; ++i) store_code(t, p, i, saturate_code(t, load_code(t, p, i)));
}

void fill(DType t, void* dst, uint64_t code, size_t n) noexcept {
  const size_t w = width(t), bytes = n * w;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // Beyond the L2 (1 MiB here), `rep stosq` of the code repeated to 64 bits writes without
  // reading the lines first (as glibc's memset does): measured 18% faster than vector stores at
  // 2-4 MiB, slower below 512 KiB. From 4 MiB on, the Zen 4 microcode turns it into streaming
  // stores that bypass the caches: 112 us for 4 MiB against 54 us of vector stores (41 us at
  // 4092 KiB), 228 against 92 us at 8 MiB, so large fills take the vector stores again. Every
  // 8-byte word holds 8 / w whole codes from dst on.
  if (bytes >= (size_t{1} << 20) && bytes < (size_t{4} << 20) &&
      (w == 1 || w == 2 || w == 4 || w == 8)) {
    uint64_t v = code & (w == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * w)) - 1);
    for (size_t k = w; k < 8; k *= 2) v |= v << (8 * k);
    void* d = dst;
    size_t words = bytes / 8;
    asm volatile("rep stosq" : "+D"(d), "+c"(words) : "a"(v) : "memory");
    std::memcpy(static_cast<uint8_t*>(dst) + bytes / 8 * 8, &v, bytes % 8);
    return;
  }
#endif
  if (simd::fill(unsigned(w), dst, code, n)) return;
  for (size_t i = 0; i < n; ++i) store_code(t, dst, i, code);
}

void fill_rows(DType t, void* dst, size_t ds, const void* codes, size_t cs, size_t rows,
               size_t n) noexcept {
  if (simd::fill_rows(unsigned(width(t)), dst, ds, codes, cs, rows, n)) return;
  for (size_t r = 0; r < rows; ++r) {
    const uint64_t code = load_code(t, static_cast<const uint8_t*>(codes) + r * cs, 0);
    uint8_t* row = static_cast<uint8_t*>(dst) + r * ds;
    for (size_t i = 0; i < n; ++i) store_code(t, row, i, code);
  }
}

void binary_rows(Op op, DType t, const Rows2& g, Path path, Switches sw) {
  if (path == Path::Fast && !sw.ftz_in && !sw.ftz_out) [[likely]]
    return binary_fast(op, t, g, false, 0, false, sw);
  binary_any(op, t, g, false, 0, false, path, sw);
}
void binary_scalar_rows(Op op, DType t, const Rows2& g, uint64_t s, bool first, Path path,
                        Switches sw) {
  if (path == Path::Fast && !sw.ftz_in && !sw.ftz_out) [[likely]]
    return binary_fast(op, t, g, true, s, first, sw);
  binary_any(op, t, g, true, s, first, path, sw);
}

// The reference path, copy, the math functions and the ftz switches (see binary_any).
[[gnu::noinline]] static void unary_any(Op op, DType t, const Rows2& g0, Path path, Switches sw) {
  Flushed f;
  const bool ftz = is_float_dtype(t);
  const Rows2 g = sw.ftz_in && ftz ? flush_inputs(t, g0, false, f) : g0;
  if (path == Path::Reference && op != Op::copy) {
    for (size_t r = 0; r < g.rows; ++r) {
      const uint8_t* a = row_of(g.a, g.as, r);
      uint8_t* d = row_of(g.d, g.ds, r);
      for (size_t i = 0; i < g.n; ++i) store_code(t, d, i, eval(op, t, load_code(t, a, i)));
    }
  } else if (is_math(op) && ftz && !sw.ftz_out) {
    // The saturation inside math_array (fp16 exp: in its kernel; the others: a saturated
    // table), not a second pass over the results.
    for (size_t r = 0; r < g.rows; ++r)
      math_array(math_fn(op), t, row_of(g.a, g.as, r), row_of(g.d, g.ds, r), g.n, saturates(t, sw));
    return;
  } else if (op == Op::copy || is_math(op) || !simd::unary(op, t, g, false)) {
    for (size_t r = 0; r < g.rows; ++r)
      unary_row_fast(op, t, row_of(g.a, g.as, r), row_of(g.d, g.ds, r), g.n);
  }
  if (sw.ftz_out && ftz) flush_outputs(t, g);
  if (saturates(t, sw)) saturate_outputs(t, g);
}

void unary_rows(Op op, DType t, const Rows2& g, Path path, Switches sw) {
  // The math functions have SIMD kernels here only for fp16/bf16 sqrt and recip (fp32 and the
  // others: math_array, via unary_any).
  if (path == Path::Fast && !sw.ftz_in && !sw.ftz_out && op != Op::copy &&
      (!is_math(op) || (t != DType::fp32 && (op == Op::sqrt || op == Op::recip))) &&
      simd::unary(op, t, g, saturates(t, sw))) [[likely]]
    return;
  unary_any(op, t, g, path, sw);
}

void compare_bits_rows(Op op, DType t, const Rows2& g, bool bsc, uint64_t s, Path path) {
  if (path == Path::Fast && simd::compare_bits(op, t, g, bsc, s)) return;
  for (size_t r = 0; r < g.rows; ++r) {
    const uint8_t* a = row_of(g.a, g.as, r);
    const uint8_t* b = bsc ? nullptr : row_of(g.b, g.bs, r);
    uint8_t* out = row_of(g.d, g.ds, r);
    if (path == Path::Fast) {
      compare_row_fallback(op, t, a, b, bsc, s, out, g.n);
      continue;
    }
    std::memset(out, 0, (g.n + 7) / 8);
    for (size_t i = 0; i < g.n; ++i)
      if (eval(op, t, load_code(t, a, i), bsc ? s : load_code(t, b, i)))
        out[i / 8] |= uint8_t(1u << (i % 8));
  }
}

void select_bits_rows(DType t, const uint8_t* bits, size_t bits_stride, const Rows2& g, bool bsc,
                      uint64_t s) {
  if (simd::select_bits(t, bits, bits_stride, g, bsc, s)) return;
  for (size_t r = 0; r < g.rows; ++r) {
    const uint8_t* m = bits + r * bits_stride;
    const uint8_t* a = row_of(g.a, g.as, r);
    const uint8_t* b = bsc ? nullptr : row_of(g.b, g.bs, r);
    uint8_t* d = row_of(g.d, g.ds, r);
    for (size_t i = 0; i < g.n; ++i)
      store_code(t, d, i,
                 ((m[i / 8] >> (i % 8)) & 1) ? load_code(t, a, i) : (bsc ? s : load_code(t, b, i)));
  }
}

void binary(Op op, DType t, const void* a, const void* b, void* dst, size_t n, Path path,
            Switches sw) {
  binary_rows(op, t, one_row(a, b, dst, n), path, sw);
}
void binary_scalar(Op op, DType t, const void* a, uint64_t s, bool first, void* dst, size_t n,
                   Path path, Switches sw) {
  binary_scalar_rows(op, t, one_row(a, nullptr, dst, n), s, first, path, sw);
}
void unary(Op op, DType t, const void* a, void* dst, size_t n, Path path, Switches sw) {
  unary_rows(op, t, one_row(a, nullptr, dst, n), path, sw);
}

void compare(Op op, DType t, const void* a, const void* b, uint8_t* out, size_t n, Path) {
  for (size_t i = 0; i < n; ++i)
    out[i] = uint8_t(eval(op, t, load_code(t, a, i), load_code(t, b, i)));
}
void compare_scalar(Op op, DType t, const void* a, uint64_t s, uint8_t* out, size_t n, Path) {
  for (size_t i = 0; i < n; ++i) out[i] = uint8_t(eval(op, t, load_code(t, a, i), s));
}

void select(DType t, const uint8_t* mask, const void* a, const void* b, void* dst, size_t n) {
  const size_t w = width(t);
  const auto* pa = static_cast<const uint8_t*>(a);
  const auto* pb = static_cast<const uint8_t*>(b);
  auto* pd = static_cast<uint8_t*>(dst);
  for (size_t i = 0; i < n; ++i) std::memmove(pd + i * w, (mask[i] ? pa : pb) + i * w, w);
}

}  // namespace tilesim::ops
