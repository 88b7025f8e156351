// An add kernel in the shape of the vendor's add_custom sample, with its CPU-debug main: 8 blocks,
// each adding its 2048 halves in 16 tiles through double-buffered TQues (CopyIn / Compute /
// CopyOut), launched with GmAlloc + ICPU_RUN_KF. The result is checked bit for bit (tolerance 0)
// against an fp64 golden rounded once to fp16 (the sum of two halves is exact in fp64, so that is
// the correctly rounded sum). Prints PASS or FAIL; exits non-zero on FAIL.
#include <cstdio>
#include <cstring>

#include "add_custom.hpp"
#include "tikicpulib.h"

int main() {
  const size_t bytes = kTotal * sizeof(half);
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* z = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  half* hx = reinterpret_cast<half*>(x);
  half* hy = reinterpret_cast<half*>(y);
  uint32_t s = 12345;  // a small LCG: values in [-100, 100), fine fractions, some cancellations
  for (int32_t i = 0; i < kTotal; ++i) {
    s = s * 1664525u + 1013904223u;
    hx[i] = half(float(int32_t(s >> 8) % 20000) / 100.0f);
    s = s * 1664525u + 1013904223u;
    hy[i] = half(float(int32_t(s >> 8) % 20000) / 100.0f - 100.0f);
  }

  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(add_custom, kBlocks, x, y, z);

  int bad = 0;
  const half* hz = reinterpret_cast<const half*>(z);
  for (int32_t i = 0; i < kTotal; ++i) {
    const half want = half(float(double(float(hx[i])) + double(float(hy[i]))));  // exact in fp32 too
    if (std::memcmp(&want, &hz[i], sizeof(half)) != 0 && bad++ < 5)
      std::printf("mismatch at %d: %g + %g = %g, want %g\n", i, double(float(hx[i])), double(float(hy[i])),
                  double(float(hz[i])), double(float(want)));
  }
  std::printf("add_custom: %d blocks x %d halves, %s (z[0] = %g + %g = %g): %s\n", kBlocks, kPerBlock,
              bad ? "MISMATCH" : "bit-identical to the fp64 golden rounded to fp16", double(float(hx[0])), double(float(hy[0])),
              double(float(hz[0])), bad ? "FAIL" : "PASS");
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(z);
  return bad ? 1 : 0;
}
