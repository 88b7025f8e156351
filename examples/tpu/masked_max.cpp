// Masked max with indices, the TPU-Kernel way: a running maximum over K candidate tensors with
// tpu_bdc_maximum_greater_select producing the values and (via SCALAR candidate numbers) the
// index of the winner; a mask selects -inf first with tpu_bdc_equal_select. C++ Device API.
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "tilesim/tpu.hpp"

using namespace tilesim::tpu;

int main() {
  constexpr int K = 4, Cc = 67, Hh = 2, Ww = 9;  // K candidates of [1, 67, 2, 9] fp32
  const dim4 shape{1, Cc, Hh, Ww};
  const size_t n = size_t(Cc) * Hh * Ww;
  Device dev("bm1688");  // 32 NPUs, 16-byte alignment
  dim4 st;
  dev.aligned_stride(&st, 0, &shape, DT_FP32);
  const local_addr_t bytes = local_addr_t(st.n) * 4;  // one tensor per NPU slice
  const local_addr_t cand = 0, mask = K * bytes, best = (K + 1) * bytes, idx = (K + 2) * bytes,
                     masked = (K + 3) * bytes;

  std::vector<std::vector<float>> x(K, std::vector<float>(n));
  std::vector<int32_t> m(n);
  uint32_t s = 7;
  auto rnd = [&] { return s = s * 1664525u + 1013904223u; };
  for (int k = 0; k < K; ++k)
    for (size_t i = 0; i < n; ++i) x[k][i] = float(int(rnd() >> 20) % 64) - 32.f;  // many ties
  for (size_t i = 0; i < n; ++i) m[i] = (rnd() >> 28) % 4 != 0;  // 1 = keep, 0 = masked out
  for (int k = 0; k < K; ++k)
    dev.gdma_cpy_S2L(cand + k * bytes, x[k].data(), &shape, nullptr, nullptr, DT_FP32);
  dev.gdma_cpy_S2L(mask, m.data(), &shape, nullptr, nullptr, DT_INT32);

  const variable_t vmask = tensor(mask), one = scalar_bits(1);
  const variable_t ninf = scalar_f32(-std::numeric_limits<float>::infinity());
  for (int k = 0; k < K; ++k) {
    // masked = mask == 1 ? x[k] : -inf   (int32 compare, fp32 values: widths 32 <= 32)
    const variable_t xk = tensor(cand + k * bytes);
    dev.equal_select(masked, &vmask, &one, &xk, &ninf, &shape, DT_INT32, DT_FP32);
    const variable_t vm = tensor(masked), kk = scalar_bits(uint32_t(k));
    if (k == 0) {
      // best = masked, idx = 0 (greater against +inf never holds: src1/src3 win)
      const variable_t z = tensor(masked);
      dev.minimum_less_select(best, idx, &z, &z, &kk, &kk, &shape, DT_FP32, DT_INT32);
      continue;
    }
    // (best, idx) = masked > best ? (masked, k) : (best, idx)  -- ties keep the earlier index
    const variable_t vb = tensor(best), vi = tensor(idx);
    dev.maximum_greater_select(best, idx, &vm, &vb, &kk, &vi, &shape, DT_FP32, DT_INT32);
  }
  std::vector<float> got(n);
  std::vector<int32_t> gi(n);
  dev.gdma_cpy_L2S(got.data(), best, &shape, nullptr, nullptr, DT_FP32);
  dev.gdma_cpy_L2S(gi.data(), idx, &shape, nullptr, nullptr, DT_INT32);
  int bad = 0;
  for (size_t i = 0; i < n; ++i) {
    float w = m[i] ? x[0][i] : -INFINITY;
    int wi = 0;
    for (int k = 1; k < K; ++k) {
      const float v = m[i] ? x[k][i] : -INFINITY;
      if (v > w) w = v, wi = k;
    }
    if (got[i] != w || gi[i] != wi)
      if (bad++ < 5)
        std::printf("mismatch at %zu: (%g, %d), want (%g, %d)\n", i, got[i], gi[i], w, wi);
  }
  std::printf(
      "masked max over %d candidates on %s: [1, %d, %d, %d] fp32 -> values + int32 indices: "
      "%s (element 0: %g at %d)\n",
      K, dev.profile().name, Cc, Hh, Ww, bad ? "FAILED" : "ok", got[0], gi[0]);
  return bad ? 1 : 0;
}
