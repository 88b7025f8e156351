// A layernorm (examples/ascendc/layernorm_custom.hpp) over 512 x 1024 floats on 8 blocks, with its
// CPU-debug main: GmAlloc for x, gamma, beta, y and the tiling struct, ICPU_RUN_KF, then a check
// against an fp64 layernorm of the same inputs (absolute error <= 1e-5). Prints PASS or FAIL; exits
// non-zero on FAIL.
#include <cstdio>
#include <cstring>

#include "layernorm_custom.hpp"
#include "tikicpulib.h"

int main() {
  using namespace layernorm_ex;
  const size_t n = size_t(kRows) * kCols;
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(n * sizeof(float)));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(n * sizeof(float)));
  auto* gamma = static_cast<uint8_t*>(AscendC::GmAlloc(kCols * sizeof(float)));
  auto* beta = static_cast<uint8_t*>(AscendC::GmAlloc(kCols * sizeof(float)));
  auto* tiling = static_cast<uint8_t*>(AscendC::GmAlloc(sizeof(LayerNormTiling)));
  const LayerNormTiling t{kRows, kCols, kRows / kBlocks, kRowsPerTile, kEps};
  std::memcpy(tiling, &t, sizeof t);
  auto* fx = reinterpret_cast<float*>(x);
  auto* fg = reinterpret_cast<float*>(gamma);
  auto* fb = reinterpret_cast<float*>(beta);
  fill_inputs(fx, fg, fb, kRows, kCols);

  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(layernorm_custom, kBlocks, x, gamma, beta, y, tiling);

  const double err = max_abs_error(fx, fg, fb, reinterpret_cast<const float*>(y), kRows, kCols, kEps);
  const bool ok = err <= kAbsTol;
  std::printf("layernorm_custom: %u x %u floats on %u blocks, max absolute error vs fp64 %.3g (tolerance %.0e): %s\n",
              kRows, kCols, kBlocks, err, kAbsTol, ok ? "PASS" : "FAIL");
  for (uint8_t* p : {x, y, gamma, beta, tiling}) AscendC::GmFree(p);
  return ok ? 0 : 1;
}
