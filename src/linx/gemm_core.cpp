// GEMM core: decode to the compute domain, scalar reference chain, epilogue (spec 30 §3).
#include "linx/gemm_core.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "tilesim/error.hpp"

namespace tilesim::linx::core {
namespace fm = formats;

Domain domain_of(DType t) noexcept { return fm::is_float(t) ? Domain::f32 : Domain::i32; }

namespace {

// double -> fp32, RNE, defined for every input: a double beyond fp32's range is UB for
// static_cast in C++ (spec 00: every conversion is defined). Above FLT_MAX the RNE result is
// FLT_MAX below the midpoint FLT_MAX + 2^103 and Inf from it on (the tie goes to Inf: FLT_MAX's
// significand is odd); everything else is the hardware conversion, which is RNE.
inline float f64_to_f32_rne(double d) {
  constexpr double kMax = 3.4028234663852886e38;           // FLT_MAX
  constexpr double kMid = 3.4028235677973366e38;           // FLT_MAX + 2^103
  if (d > kMax || d < -kMax) {
    const float big = std::fabs(d) >= kMid ? std::numeric_limits<float>::infinity() : 3.4028234663852886e38f;
    return d < 0 ? -big : big;
  }
  return static_cast<float>(d);
}
// Lookup tables built once: every fp16 code, and every code of each <= 8-bit float format.
const float* f16_table() {
  static const std::vector<float> t = [] {
    std::vector<float> v(65536);
    for (uint32_t c = 0; c < 65536; ++c) v[c] = fm::f16_to_f32(static_cast<uint16_t>(c));
    return v;
  }();
  return t.data();
}
const float* small_table(DType t) {
  static std::array<std::array<float, 256>, fm::kNumDTypes> tables;
  static std::array<std::once_flag, fm::kNumDTypes> once;
  const size_t i = static_cast<size_t>(t);
  std::call_once(once[i], [&] {
    for (unsigned c = 0; c < 256; ++c) tables[i][c] = fm::decode_f32(c, t);
  });
  return tables[i].data();
}
template <class T>
T load(const uint8_t* p, size_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}
}  // namespace

void decode(const uint8_t* p, DType t, size_t first, size_t n, void* out_v) {
  if (domain_of(t) == Domain::f32) {
    float* out = static_cast<float*>(out_v);
    // Long runs of fp16 / bf16 / 8-bit codes: the formats module's SIMD bulk decoder (bit-identical
    // for every non-NaN code; any NaN operand makes its results the default NaN anyway).
    const bool bulk = n >= 4096 && (t == DType::fp16 || t == DType::bf16 || fm::info(t).storage_bits == 8);
    if (bulk) {
      fm::decode_array(p + first * (fm::info(t).storage_bits / 8), t, out, n);
      return;
    }
    switch (t) {
      case DType::fp64:  // rounded to fp32, RNE (spec 30 §3; a tilesim decision)
        for (size_t i = 0; i < n; ++i) out[i] = f64_to_f32_rne(load<double>(p, first + i));
        return;
      case DType::fp32: std::memcpy(out, p + first * 4, n * 4); return;
      case DType::tf32:
      case DType::hf32: {  // low fraction bits masked (spec 10 §3)
        const uint32_t keep = t == DType::tf32 ? 0xFFFFE000u : 0xFFFFF000u;
        for (size_t i = 0; i < n; ++i) out[i] = fm::bits_to_f32(load<uint32_t>(p, first + i) & keep);
        return;
      }
      case DType::fp16: {
        const float* lut = f16_table();
        for (size_t i = 0; i < n; ++i) out[i] = lut[load<uint16_t>(p, first + i)];
        return;
      }
      case DType::bf16:
        for (size_t i = 0; i < n; ++i) out[i] = fm::bf16_to_f32(load<uint16_t>(p, first + i));
        return;
      default: {
        const float* lut = small_table(t);
        if (fm::is_packed4(t))
          for (size_t i = 0; i < n; ++i) out[i] = lut[fm::get_nibble(p, first + i)];
        else
          for (size_t i = 0; i < n; ++i) out[i] = lut[p[first + i]];
        return;
      }
    }
  }
  int32_t* out = static_cast<int32_t*>(out_v);
  const auto u2i = [](uint32_t u) { return static_cast<int32_t>(u); };
  switch (t) {
    case DType::s8: for (size_t i = 0; i < n; ++i) out[i] = static_cast<int8_t>(p[first + i]); return;
    case DType::u8: for (size_t i = 0; i < n; ++i) out[i] = p[first + i]; return;
    case DType::s16: for (size_t i = 0; i < n; ++i) out[i] = load<int16_t>(p, first + i); return;
    case DType::u16: for (size_t i = 0; i < n; ++i) out[i] = load<uint16_t>(p, first + i); return;
    case DType::s32:
    case DType::u32: std::memcpy(out, p + first * 4, n * 4); return;
    case DType::s64:
    case DType::u64:  // low 32 bits (spec 30 §3; a tilesim decision)
      for (size_t i = 0; i < n; ++i) out[i] = u2i(static_cast<uint32_t>(load<uint64_t>(p, first + i)));
      return;
    case DType::s4:
      for (size_t i = 0; i < n; ++i) {
        const int v = fm::get_nibble(p, first + i);
        out[i] = v >= 8 ? v - 16 : v;
      }
      return;
    default:  // u4
      for (size_t i = 0; i < n; ++i) out[i] = fm::get_nibble(p, first + i);
      return;
  }
}

void chain_f32_reference(const float* A, const float* B, BStride bs, float* C, size_t M, size_t N, size_t K) {
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      float acc = C[i * N + j];
      for (size_t k = 0; k < K; ++k) acc = std::fma(A[i * K + k], B[k * bs.sk + j * bs.sj], acc);
      C[i * N + j] = acc;
    }
}

void chain_i32_reference(const int32_t* A, const int32_t* B, BStride bs, int32_t* C, size_t M, size_t N, size_t K) {
  // Unsigned arithmetic: 32-bit two's-complement wrap without UB (spec 30 §3).
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      uint32_t acc = static_cast<uint32_t>(C[i * N + j]);
      for (size_t k = 0; k < K; ++k)
        acc += static_cast<uint32_t>(A[i * K + k]) * static_cast<uint32_t>(B[k * bs.sk + j * bs.sj]);
      C[i * N + j] = static_cast<int32_t>(acc);
    }
}

std::string unsupported(const Rules& r, Domain d) {
  // No default in the switches: a new rule value must be given its chain here (-Wswitch).
  if (d == Domain::f32) {
    switch (r.float_order) {
      case FloatOrder::sequential_fma: return {};
    }
    return "floating accumulation order " + std::to_string(static_cast<unsigned>(r.float_order)) +
           " is not implemented (the GEMM core has 0 = sequential fma)";
  }
  switch (r.int_overflow) {
    case IntOverflow::wrap32: return {};
  }
  return "integer overflow rule " + std::to_string(static_cast<unsigned>(r.int_overflow)) +
         " is not implemented (the GEMM core has 0 = 32-bit wrap)";
}

void run(Domain d, const void* A, const void* B, const void* bias, const void* start, void* out, size_t M,
         size_t N, size_t K, Engine e, bool b_col_major, const Rules& rules) {
  if (const std::string why = unsupported(rules, d); !why.empty())
    raise(ErrorCode::Unsupported, "linx GEMM core", why, "docs/linx.md#semantics");
  const size_t mn = M * N;
  const BStride bs = b_col_major ? BStride{1, K} : BStride{N, 1};
  // The fast engine starts the chain from +0 itself (no separate zeroing pass).
  const bool zero_start = !start;
  if (start) {
    if (start != out) std::memcpy(out, start, mn * 4);
  } else if (e == Engine::reference) {
    std::memset(out, 0, mn * 4);  // +0.0f / 0
  }
  if (d == Domain::f32) {
    float* C = static_cast<float*>(out);
    const auto* a = static_cast<const float*>(A);
    const auto* b = static_cast<const float*>(B);
    switch (rules.float_order) {  // the chains the profile's order names (checked above)
      case FloatOrder::sequential_fma:
        if (e == Engine::reference)
          chain_f32_reference(a, b, bs, C, M, N, K);
        else
          chain_f32_fast(a, b, bs, C, M, N, K, zero_start, true, static_cast<const float*>(bias));
        break;
    }
    if (e == Engine::fast) return;  // the fast chain applied the epilogue
    const auto* bs = static_cast<const float*>(bias);
    for (size_t i = 0; i < M; ++i)
      for (size_t j = 0; j < N; ++j) {
        float v = C[i * N + j];
        if (bs) v = v + bs[j];  // one fp32 add after the chain (spec 30 §3)
        if (std::isnan(v)) v = fm::bits_to_f32(0x7FC00000u);  // default NaN
        C[i * N + j] = v;
      }
    return;
  }
  int32_t* C = static_cast<int32_t*>(out);
  const auto* a = static_cast<const int32_t*>(A);
  const auto* b = static_cast<const int32_t*>(B);
  switch (rules.int_overflow) {
    case IntOverflow::wrap32:
      if (e == Engine::reference)
        chain_i32_reference(a, b, bs, C, M, N, K);
      else
        chain_i32_fast(a, b, bs, C, M, N, K, zero_start);
      break;
  }
  if (const auto* bs = static_cast<const uint32_t*>(bias))
    for (size_t i = 0; i < M; ++i)
      for (size_t j = 0; j < N; ++j)
        C[i * N + j] = static_cast<int32_t>(static_cast<uint32_t>(C[i * N + j]) + bs[j]);
}

void run_views(Domain d, PanelView A, PanelView B, const void* bias, const void* start, void* out, size_t M,
               size_t N, size_t K, const Rules& rules) {
  if (const std::string why = unsupported(rules, d); !why.empty())
    raise(ErrorCode::Unsupported, "linx GEMM core", why, "docs/linx.md#semantics");
  if (start && start != out) std::memcpy(out, start, M * N * 4);
  if (d == Domain::f32) {
    switch (rules.float_order) {  // checked above
      case FloatOrder::sequential_fma:
        chain_f32_views(A, B, nullptr, static_cast<float*>(out), M, N, K, !start, true, static_cast<const float*>(bias));
        break;
    }
    return;
  }
  switch (rules.int_overflow) {
    case IntOverflow::wrap32:
      chain_i32_views(A, B, nullptr, static_cast<int32_t*>(out), M, N, K, !start);
      break;
  }
  auto* C = static_cast<uint32_t*>(out);
  if (const auto* bs = static_cast<const uint32_t*>(bias))
    for (size_t i = 0; i < M; ++i)
      for (size_t j = 0; j < N; ++j) C[i * N + j] += bs[j];
}

void run_views_into(Domain d, PanelView A, PanelView B, const void* B_row, const void* bias,
                    bool accumulate, CView C, size_t M, size_t N, size_t K, const Rules& rules,
                    bool b_row_f16) {
  if (const std::string why = unsupported(rules, d); !why.empty())
    raise(ErrorCode::Unsupported, "linx GEMM core", why, "docs/linx.md#semantics");
  if (d == Domain::f32) {
    switch (rules.float_order) {  // checked above
      case FloatOrder::sequential_fma:
        chain_f32_views_c(A, B, b_row_f16 ? nullptr : static_cast<const float*>(B_row), C, M, N, K,
                          !accumulate, true, static_cast<const float*>(bias),
                          b_row_f16 ? static_cast<const uint16_t*>(B_row) : nullptr);
        break;
    }
    return;
  }
  switch (rules.int_overflow) {
    case IntOverflow::wrap32: chain_i32_views_c(A, B, C, M, N, K, !accumulate); break;
  }
  if (const auto* bs = static_cast<const uint32_t*>(bias))
    for (size_t i = 0; i < M; ++i)
      for (size_t j = 0; j < N; ++j)
        static_cast<uint32_t*>(C.p)[C.bw ? (j / C.bw) * C.bs + i * C.ldc + j % C.bw : i * C.ldc + j] += bs[j];
}

}  // namespace tilesim::linx::core
