// The pipeline-hazard checker's cost on the Ascend C add example (issue 22 "Speed", docs/sync.md):
// examples/ascendc/add_custom.hpp (8 blocks, double-buffered TQues) launched with ICPU_RUN_KF,
// unchecked (/off) and checked (/on); bench/peers_sync.py reports the ratio.
#include <benchmark/benchmark.h>

#include "../examples/ascendc/add_custom.hpp"
#include "tikicpulib.h"
#include "tilesim/sync.hpp"

namespace {

void BM_add(benchmark::State& st, bool checked) {
  const size_t bytes = kTotal * sizeof(half);
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* z = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  for (int32_t i = 0; i < kTotal; ++i) {
    reinterpret_cast<half*>(x)[i] = half(float(i % 97) * 0.25f);
    reinterpret_cast<half*>(y)[i] = half(float(i % 89) * -0.5f);
  }
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  tilesim::sync::enable(checked);
  for (auto _ : st) {
    ICPU_RUN_KF(add_custom, kBlocks, x, y, z);
    benchmark::DoNotOptimize(z);
  }
  tilesim::sync::enable(false);
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(z);
}
BENCHMARK_CAPTURE(BM_add, off, false)->Name("BM_sync_ascendc_add/b8x2048/off")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_add, on, true)->Name("BM_sync_ascendc_add/b8x2048/on")->Unit(benchmark::kMicrosecond);

}  // namespace
