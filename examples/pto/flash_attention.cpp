// Single-head flash attention with online softmax as a PTO kernel (spec 21 §2; docs/pto-kernels.md),
// on the a5 target (its Acc -> Vec and Vec -> Mat moves): fp16 Q, K, V (S x D) in GM, fp32 softmax.
// For each block of 64 query rows, over blocks of 64 keys:
//   S = Q K^T (TMATMUL, K loaded through a DN view as K^T), S *= 1/sqrt(D),
//   m' = max(m, rowmax S), P = exp(S - m'), a = exp(m - m'), l = a l + rowsum P,
//   O = a O + fp16(P) V (TMATMUL), m = m';  finally O /= l.
// Checks against a float64 softmax(Q K^T / sqrt(D)) V and prints a report.
#include <cmath>
#include <cstdio>
#include <vector>
#include <pto/pto-inst.hpp>

#include "flash_attention.hpp"

using namespace pto;

constexpr int S = 512, D = 64;

int main() {
  set_target("a5");
  std::vector<half> q(S * D), k(S * D), v(S * D);
  for (int i = 0; i < S * D; ++i) {
    q[i] = half(std::sin(0.37f * float(i)) * 0.5f);
    k[i] = half(std::cos(0.11f * float(i) + 1.0f) * 0.5f);
    v[i] = half(std::sin(0.05f * float(i) + 2.0f));
  }
  std::vector<float> o(S * D);
  example::flash_attention<S, D>(q.data(), k.data(), v.data(), o.data());
  double worst = 0;
  std::vector<double> sc(S);
  for (int i = 0; i < S; ++i) {
    double mx = -1e300, sum = 0;
    for (int j = 0; j < S; ++j) {
      double dot = 0;
      for (int d = 0; d < D; ++d) dot += double(float(q[i * D + d])) * double(float(k[j * D + d]));
      sc[j] = dot / std::sqrt(double(D));
      mx = std::fmax(mx, sc[j]);
    }
    for (int j = 0; j < S; ++j) sum += sc[j] = std::exp(sc[j] - mx);
    for (int d = 0; d < D; ++d) {
      double want = 0;
      for (int j = 0; j < S; ++j) want += sc[j] / sum * double(float(v[j * D + d]));
      worst = std::fmax(worst, std::fabs(double(o[i * D + d]) - want));
    }
  }
  const bool ok = worst < 2e-3;  // P is rounded to fp16 before P V, as on the hardware
  std::printf("pto flash attention (a5, S=%d D=%d fp16 in, fp32 softmax, %dx%d blocks): o[0][0..1] "
              "= %.6g %.6g; largest |error| vs float64 %.2e: %s\n",
              S, D, 64, 64, double(o[0]), double(o[1]), worst, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
