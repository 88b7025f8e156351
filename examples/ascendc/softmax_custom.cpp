// A row softmax (examples/ascendc/softmax_custom.hpp: ReduceMax -> Sub -> Exp -> ReduceSum -> Div,
// counter mode) over 1024 x 1024 floats on 8 blocks, with its CPU-debug main: GmAlloc for the
// tensors and the tiling struct, ICPU_RUN_KF, then a check against an fp64 softmax of the same
// inputs (relative error <= 1e-5 per element). Prints PASS or FAIL; exits non-zero on FAIL.
#include <cstdio>
#include <cstring>

#include "softmax_custom.hpp"
#include "tikicpulib.h"

int main() {
  using namespace softmax_ex;
  const size_t n = size_t(kRows) * kCols, bytes = n * sizeof(float);
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* tiling = static_cast<uint8_t*>(AscendC::GmAlloc(sizeof(SoftmaxTiling)));
  const SoftmaxTiling t{kRows, kCols, kRows / kBlocks, kRowsPerTile};
  std::memcpy(tiling, &t, sizeof t);
  fill_inputs(reinterpret_cast<float*>(x), n);

  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(softmax_custom, kBlocks, x, y, tiling);

  const double err = max_rel_error(reinterpret_cast<const float*>(x), reinterpret_cast<const float*>(y), kRows, kCols);
  const bool ok = err <= kRelTol;
  std::printf("softmax_custom: %u x %u floats on %u blocks, max relative error vs fp64 %.3g (tolerance %.0e): %s\n",
              kRows, kCols, kBlocks, err, kRelTol, ok ? "PASS" : "FAIL");
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(tiling);
  return ok ? 0 : 1;
}
