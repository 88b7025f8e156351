// Scalar definitions of exp, ln, sqrt, rsqrt, recip (spec 15 §1: correctly rounded to T, RNE).
//
// Method (spec 15 "Why correctly rounded"; the CORE-MATH approach): a fast evaluation with a
// proven error bound, and an exact fallback for the rare inputs it cannot round.
// - sqrt, recip: one IEEE operation in fp32, rounded once to fp16/bf16: exact, because fp32's
//   24 bits >= 2p+2 for p = 11 and 8 (spec 00 Numerics).
// - exp, ln, rsqrt: y = the double result of glibc's exp / log (0.511 and 0.519 ulp, the bounds
//   their sources state) or 1/sqrt (two correctly rounded operations, < 1.5 ulp), so
//   |y - v| < 2^-51 |v| for the exact value v. v is taken to lie in [y(1 - 2^-44), y(1 + 2^-44)]
//   (a 2^7 safety factor, which also absorbs the rounding of those products). Rounding is
//   monotone, so when both ends round to the same value of T, so does v. Otherwise (about 2^-20
//   of fp32 inputs, 2^-32 of fp16; tests/ops prints the measured rate) the input goes to MPFR,
//   which rounds the exact value once to T's precision and exponent range (mpfr_subnormalize):
//   the correct result by construction. The ends are rounded by T's own rule (subnormal quantum,
//   overflow to Inf), so subnormal and overflowing results need no special case.
#include "ops/math.hpp"

#include <mpfr.h>

#include <atomic>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "ops/elementwise.hpp"
#include "ops/math_simd.hpp"

namespace tilesim::ops {
namespace {

using formats::DType;

// A binary interchange format as the rounding needs it. MPFR's exponent convention is
// x = m * 2^e with 1/2 <= m < 1, hence its emin = emin_ieee - p + 2 (the smallest subnormal is
// 2^(emin-1)) and emax = emax_ieee + 1 (mpfr_subnormalize's documentation).
struct Fmt {
  int p;              // precision, bits (implicit bit included)
  int emin;           // exponent of the smallest normal, 2^emin
  double max_finite;  // largest finite value
  mpfr_exp_t mpfr_emin, mpfr_emax;
  // exp(x) is +0 for x <= exp_zero (e^x below half the smallest subnormal) and +Inf for
  // x >= exp_inf (e^x above max + ulp/2): fp32 -150 ln2 = -103.97, ln(2^128 (1 - 2^-25)) =
  // 88.72; fp16 -25 ln2 = -17.33, ln 65520 = 11.09; bf16 -134 ln2 = -92.88, 88.72.
  double exp_zero, exp_inf;
};
constexpr Fmt kF32{24, -126, 0x1.fffffep127, -148, 128, -104.0, 89.0};
constexpr Fmt kF16{11, -14, 65504.0, -23, 16, -17.5, 11.1};
constexpr Fmt kBF16{8, -126, 0x1.fep127, -132, 128, -93.0, 89.0};

std::atomic<uint64_t> g_exact[kNumMathFns];
std::atomic<uint64_t> g_redone[kNumMathFns];

constexpr double kQNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// y rounded to T (RNE), as a double; y finite or infinite, not NaN.
double round_to(double y, const Fmt& t) {
  if (t.p == 24) return double(static_cast<float>(y));  // the hardware's RNE, subnormals included
  const double a = std::fabs(y);
  if (a == 0.0 || a == kInf) return y;
  const int e = std::max(std::ilogb(a), t.emin);
  const int s = t.p - 1 - e;  // a * 2^s: the significand in units of T's quantum at a's exponent
  double r = std::ldexp(std::nearbyint(std::ldexp(a, s)), -s);  // scalings by 2^s are exact
  if (r > t.max_finite) r = kInf;  // RNE overflow: a >= max + ulp/2 rounded to 2^(emax+1)
  return std::copysign(r, y);
}

// The exact value of f(x) rounded once to T (x is a value of T, f(x) finite or ±Inf, not NaN).
double exact(MathFn f, double x, const Fmt& t) {
  g_exact[int(f)].fetch_add(1, std::memory_order_relaxed);
  // The exponent range is MPFR state, per thread when MPFR is built thread-safe (Debian's is);
  // otherwise concurrent callers here are serialised. It is restored for the caller's other use.
  static std::mutex mutex;
  std::unique_lock<std::mutex> lock(mutex, std::defer_lock);
  if (!mpfr_buildopt_tls_p()) lock.lock();
  const mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
  mpfr_set_emin(t.mpfr_emin);
  mpfr_set_emax(t.mpfr_emax);
  mpfr_t a, r;
  mpfr_init2(a, 64);
  mpfr_init2(r, t.p);
  mpfr_set_d(a, x, MPFR_RNDN);  // exact: x has at most 24 bits
  int inex = 0;
  switch (f) {
    case MathFn::exp:
      inex = mpfr_exp(r, a, MPFR_RNDN);
      break;
    case MathFn::ln:
      inex = mpfr_log(r, a, MPFR_RNDN);
      break;
    case MathFn::sqrt:
      inex = mpfr_sqrt(r, a, MPFR_RNDN);
      break;
    case MathFn::rsqrt:
      inex = mpfr_rec_sqrt(r, a, MPFR_RNDN);
      break;
    case MathFn::recip:
      inex = mpfr_ui_div(r, 1, a, MPFR_RNDN);
      break;
  }
  inex = mpfr_check_range(r, inex, MPFR_RNDN);
  mpfr_subnormalize(r, inex, MPFR_RNDN);
  const double y = mpfr_get_d(r, MPFR_RNDN);  // exact: r is a value of T
  mpfr_clears(a, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_emin(old_emin);
  mpfr_set_emax(old_emax);
  // MPFR caches constants (log 2) per thread; freed here so a pool thread that ends leaks nothing.
  mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
  return y;
}

// exp, ln, rsqrt of a value x of T, correctly rounded to T (the file comment's method). NaN
// results are returned as some NaN; the callers store T's canonical NaN.
double transcendental(MathFn f, double x, const Fmt& t) {
  if (x != x) return kQNaN;
  double y = 0.0;
  switch (f) {
    case MathFn::exp:
      if (x <= t.exp_zero) return 0.0;  // -Inf included
      if (x >= t.exp_inf) return kInf;
      y = std::exp(x);
      break;
    case MathFn::ln:
      if (x < 0.0) return kQNaN;
      if (x == 0.0) return -kInf;  // both zeros
      if (x == kInf) return kInf;
      y = std::log(x);
      break;
    default:  // rsqrt
      if (x < 0.0) return kQNaN;
      if (x == 0.0) return std::copysign(kInf, x);  // rsqrt(±0) = ±Inf (spec 15 §1)
      if (x == kInf) return 0.0;
      y = 1.0 / std::sqrt(x);
      break;
  }
  const double lo = round_to(y * (1.0 - 0x1p-44), t), hi = round_to(y * (1.0 + 0x1p-44), t);
  return lo == hi ? lo : exact(f, x, t);
}

float canon(float r) {
  return r != r ? formats::bits_to_f32(0x7FC00000u) : r;
}

template <DType dt>
uint16_t math16(MathFn f, uint16_t code) {
  constexpr bool bf = dt == DType::bf16;
  const float x = bf ? formats::bf16_to_f32(code) : formats::f16_to_f32(code);
  float r;
  if (f == MathFn::sqrt)
    r = std::sqrt(x);  // fp32 then one rounding: exact (2p+2, spec 00)
  else if (f == MathFn::recip)
    r = 1.0f / x;
  else
    r = static_cast<float>(transcendental(f, x, bf ? kBF16 : kF16));  // exact: a value of T
  return bf ? formats::f32_to_bf16(r) : formats::f32_to_f16(r);       // NaN -> canonical
}

// The fp16/bf16 fast path: every code's result, built once per (function, format) on first use
// (a function-local static: initialised once, thread-safely).
template <DType dt, MathFn f>
const uint16_t* table16() {
  static const std::vector<uint16_t> t = [] {
    std::vector<uint16_t> v(65536);
    for (uint32_t c = 0; c < 65536; ++c) v[c] = math16<dt>(f, uint16_t(c));
    return v;
  }();
  return t.data();
}
// The same with Switches::saturate's rule on every entry (a saturating caller's table: one pass
// over its codes, not a lookup then a saturation pass).
template <DType dt, MathFn f>
const uint16_t* table16_sat() {
  static const std::vector<uint16_t> t = [] {
    const uint16_t* plain = table16<dt, f>();
    std::vector<uint16_t> v(65536);
    for (uint32_t c = 0; c < 65536; ++c) v[c] = uint16_t(saturate_code(dt, plain[c]));
    return v;
  }();
  return t.data();
}
template <DType dt>
const uint16_t* table_for(MathFn f, bool sat = false) {
  switch (f) {
    case MathFn::exp:
      return sat ? table16_sat<dt, MathFn::exp>() : table16<dt, MathFn::exp>();
    case MathFn::ln:
      return sat ? table16_sat<dt, MathFn::ln>() : table16<dt, MathFn::ln>();
    case MathFn::sqrt:
      return sat ? table16_sat<dt, MathFn::sqrt>() : table16<dt, MathFn::sqrt>();
    case MathFn::rsqrt:
      return sat ? table16_sat<dt, MathFn::rsqrt>() : table16<dt, MathFn::rsqrt>();
    case MathFn::recip:
      break;
  }
  return sat ? table16_sat<dt, MathFn::recip>() : table16<dt, MathFn::recip>();
}

}  // namespace

const char* math_fn_name(MathFn f) noexcept {
  static constexpr const char* kNames[kNumMathFns] = {"exp", "ln", "sqrt", "rsqrt", "recip"};
  return unsigned(f) < unsigned(kNumMathFns) ? kNames[int(f)] : "?";
}

float math_f32(MathFn f, float x) noexcept {
  switch (f) {
    case MathFn::sqrt:
      return canon(std::sqrt(x));  // IEEE sqrt is correctly rounded; sqrt(-0) = -0
    case MathFn::recip:
      return canon(1.0f / x);  // recip(±0) = ±Inf
    default:
      return canon(static_cast<float>(transcendental(f, x, kF32)));  // exact: a value of fp32
  }
}

uint16_t math_f16(MathFn f, uint16_t code) noexcept {
  return math16<DType::fp16>(f, code);
}
uint16_t math_bf16(MathFn f, uint16_t code) noexcept {
  return math16<DType::bf16>(f, code);
}

void math_array(MathFn f, DType dt, const void* src, void* dst, size_t n, bool saturate) noexcept {
  assert(dt == DType::fp32 || dt == DType::fp16 || dt == DType::bf16);
  if (dt == DType::fp32) {
    math_simd::f32(f, static_cast<const float*>(src), static_cast<float*>(dst), n);
    return;
  }
  // fp16 exp on fp32 lanes where that is certainly rounded right, the table elsewhere (2-byte
  // aligned arrays, as every caller's operands are); it saturates the table's lanes itself.
  if (dt == DType::fp16 && reinterpret_cast<uintptr_t>(src) % 2 == 0 &&
      reinterpret_cast<uintptr_t>(dst) % 2 == 0 &&
      math_simd::f16(f, table_for<DType::fp16>(f), static_cast<const uint16_t*>(src),
                     static_cast<uint16_t*>(dst), n, saturate))
    return;
  const uint16_t* t =
      dt == DType::bf16 ? table_for<DType::bf16>(f, saturate) : table_for<DType::fp16>(f, saturate);
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  // Two codes a step, read and written as one 32-bit word (memcpy: the arrays need only byte
  // alignment): half the loads and stores of the code stream, which measured faster (and
  // steadier) than one code a step and than wider steps.
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    uint32_t c;
    std::memcpy(&c, s + 2 * i, 4);
    const uint32_t r = uint32_t(t[c & 0xFFFF]) | uint32_t(t[c >> 16]) << 16;
    std::memcpy(d + 2 * i, &r, 4);
  }
  if (i < n) {
    uint16_t c;
    std::memcpy(&c, s + 2 * i, 2);
    std::memcpy(d + 2 * i, t + c, 2);
  }
}

void math_array_reference(MathFn f, DType dt, const void* src, void* dst, size_t n) noexcept {
  assert(dt == DType::fp32 || dt == DType::fp16 || dt == DType::bf16);
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  if (dt == DType::fp32) {
    for (size_t i = 0; i < n; ++i) {
      float x;
      std::memcpy(&x, s + 4 * i, 4);
      const float r = math_f32(f, x);
      std::memcpy(d + 4 * i, &r, 4);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    uint16_t c;
    std::memcpy(&c, s + 2 * i, 2);
    c = dt == DType::bf16 ? math_bf16(f, c) : math_f16(f, c);
    std::memcpy(d + 2 * i, &c, 2);
  }
}

const uint16_t* math_table16(MathFn f, DType dt) noexcept {
  assert(dt == DType::fp16 || dt == DType::bf16);
  return dt == DType::bf16 ? table_for<DType::bf16>(f) : table_for<DType::fp16>(f);
}

uint64_t math_exact_count(MathFn f) noexcept {
  return g_exact[int(f)].load(std::memory_order_relaxed);
}

uint64_t math_simd_redone_count(MathFn f) noexcept {
  return g_redone[int(f)].load(std::memory_order_relaxed);
}

void math_simd_approx_f64(MathFn f, const float* src, double* dst, size_t n) noexcept {
  math_simd::approx_f64(f, src, dst, n);
}

void math_simd::note_redone(MathFn f, uint64_t lanes) noexcept {
  g_redone[int(f)].fetch_add(lanes, std::memory_order_relaxed);
}

}  // namespace tilesim::ops
