// Test support: random operand codes per type and an independent expected-result computation
// (values from the generic formats core, fp32 fma chain / modular integer sums).
#pragma once
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tilesim/formats.hpp"
#include "tilesim/linx.hpp"

namespace linx_test {
using tilesim::formats::DType;
namespace fm = tilesim::formats;

// Carrier bytes (one element per carrier unit) of random codes; `special` mixes in NaN, Inf,
// +-0, subnormals and extremes for float formats.
inline std::vector<uint8_t> random_codes(DType t, size_t n, std::mt19937& rng, bool special = false) {
  const size_t cb = tilesim::linx::carrier_bytes(t);
  const unsigned bits = fm::info(t).code_bits;
  std::vector<uint8_t> out(n * cb);
  for (size_t i = 0; i < n; ++i) {
    uint64_t c = (static_cast<uint64_t>(rng()) << 32) | rng();
    if (bits < 64) c &= (uint64_t{1} << bits) - 1;
    if (fm::is_float(t) && !special) {
      // Keep magnitudes moderate so sums are not all Inf/NaN: a value in [-4, 4].
      std::uniform_real_distribution<double> u(-4, 4);
      c = fm::encode(u(rng), t);
    }
    if (special && fm::is_float(t) && rng() % 4 == 0) {
      const double picks[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-40, -1e-42, 3e38, 1.0, 65504.0, 1e-7};
      c = fm::encode(picks[rng() % 11], t);
    }
    std::memcpy(out.data() + i * cb, &c, cb);
  }
  return out;
}

inline uint64_t carrier_code(const std::vector<uint8_t>& v, DType t, size_t i) {
  const size_t cb = tilesim::linx::carrier_bytes(t);
  uint64_t c = 0;
  std::memcpy(&c, v.data() + i * cb, cb);
  return c;
}

// Expected ACC words of A (M x K) * B (K x N) (+ bias / start), computed independently.
inline std::vector<uint32_t> expected(const std::vector<uint8_t>& A, DType ta, const std::vector<uint8_t>& B, DType tb,
                                      size_t M, size_t N, size_t K, const uint32_t* bias, const uint32_t* start) {
  std::vector<uint32_t> out(M * N);
  if (fm::is_float(ta)) {
    auto val = [](uint64_t c, DType t) { return static_cast<float>(fm::decode(c, t)); };
    for (size_t i = 0; i < M; ++i)
      for (size_t j = 0; j < N; ++j) {
        float acc = 0.0f;
        if (start) std::memcpy(&acc, &start[i * N + j], 4);
        for (size_t k = 0; k < K; ++k)
          acc = std::fma(val(carrier_code(A, ta, i * K + k), ta), val(carrier_code(B, tb, k * N + j), tb), acc);
        if (bias) {
          float b;
          std::memcpy(&b, &bias[j], 4);
          acc = acc + b;
        }
        uint32_t w;
        std::memcpy(&w, &acc, 4);
        if (std::isnan(acc)) w = 0x7FC00000u;
        out[i * N + j] = w;
      }
    return out;
  }
  auto val = [](uint64_t c, DType t) -> uint64_t {  // value mod 2^64 (sign-extended by code bits)
    const unsigned b = fm::info(t).code_bits;
    if (fm::info(t).kind == fm::Kind::Signed && b < 64 && (c >> (b - 1)) & 1) c |= ~uint64_t{0} << b;
    return c;
  };
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      uint64_t acc = start ? start[i * N + j] : 0;
      for (size_t k = 0; k < K; ++k) acc += val(carrier_code(A, ta, i * K + k), ta) * val(carrier_code(B, tb, k * N + j), tb);
      if (bias) acc += bias[j];
      out[i * N + j] = static_cast<uint32_t>(acc);
    }
  return out;
}

}  // namespace linx_test
