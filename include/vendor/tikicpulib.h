// The vendor include path "tikicpulib.h" (spec 41 §1, spec 60 §3): the CPU-debug launch of the
// CANN toolkit's twin: AscendC::GmAlloc / GmFree / SetKernelMode, ICPU_RUN_KF, ICPU_SET_TILING_KEY.
#pragma once
#include <cstddef>

#include "kernel_operator.h"
#include "tilesim/ascendc/launch.hpp"

namespace AscendC {
// Zero-filled, 64-byte aligned GM; every access through a GlobalTensor is checked against it.
inline void* GmAlloc(size_t size) {
  return tilesim::ascendc::gm_alloc(size);
}
inline void GmFree(void* ptr) {
  tilesim::ascendc::gm_free(ptr);
}
// Process-wide; default AIV_MODE.
inline void SetKernelMode(KernelMode mode) {
  tilesim::ascendc::set_kernel_mode(mode);
}
}  // namespace AscendC

// Runs `func(args...)` once per block, blockIdx 0 .. blockDim-1, each on its own simulated AI core;
// throws tilesim::Error after every block has run when one failed (docs/ascendc.md#launch).
#define ICPU_RUN_KF(func, blockDim, ...)                                                        \
  do {                                                                                          \
    ::tilesim::ascendc::icpu_run_kf(#func, static_cast<int64_t>(blockDim),                      \
                                    func __VA_OPT__(, ) __VA_ARGS__);                            \
  } while (0)

#define ICPU_SET_TILING_KEY(key) ::tilesim::ascendc::set_tiling_key(static_cast<uint64_t>(key))
