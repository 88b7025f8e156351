// The CPU-debug launch of Ascend C kernels (spec 41 §1): GM allocation, ICPU_RUN_KF's engine (one
// simulated AI core per block, blocks on threads, SyncAll), block identity and the tiling key.
// The vendor spellings (ICPU_RUN_KF, AscendC::GmAlloc, ...) are in "tikicpulib.h"; this header is
// their engine and is included by <tilesim/ascendc.hpp>.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <type_traits>

// The vendor's stub_def.h names, global as there: SetKernelMode(KernelMode::AIV_MODE).
enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE, MIX_AIC_1_1 };

// The block identity of the vendor's CPU twin (stub_def.h): per block, thread-local here because
// blocks run on threads. Outside ICPU_RUN_KF: block 0 of 1.
inline thread_local int64_t block_idx = 0;
inline thread_local int64_t block_num = 1;

namespace tilesim::ascendc {

// ---- GM: host memory from GmAlloc, registered so that every GM access can be checked ----
void* gm_alloc(size_t bytes);
void gm_free(void* p);
// The live GmAlloc block holding p: its end (one past its last byte), or nullptr.
const uint8_t* gm_block_end(const void* p) noexcept;

// ---- block identity of the calling thread ----
int64_t sub_block_idx() noexcept;  // GetSubBlockIdx()
int64_t task_ration() noexcept;    // GetTaskRation()
bool in_launch() noexcept;         // inside an ICPU_RUN_KF block

void set_kernel_mode(KernelMode mode);
KernelMode kernel_mode() noexcept;
void set_tiling_key(uint64_t key) noexcept;
uint64_t tiling_key() noexcept;

// SyncAll(): the barrier across every block of the launch (spec 41 §1).
void sync_all();

// ---- ICPU_RUN_KF ----
struct LaunchArg {
  bool pointer;
  const void* p;
};
template <class T>
LaunchArg launch_arg(const T& v) noexcept {
  if constexpr (std::is_pointer_v<T>)
    return {true, static_cast<const void*>(v)};
  else
    return {false, nullptr};
}
// Checks blockDim and the pointer arguments (before any block runs), then runs `body` once per
// simulated core; throws tilesim::Error after every block has run when one failed.
void launch(const char* kernel, int64_t block_dim, std::initializer_list<LaunchArg> args,
            const std::function<void()>& body);

template <class K, class... A>
void icpu_run_kf(const char* kernel, int64_t block_dim, K&& k, const A&... args) {
  launch(kernel, block_dim, {launch_arg(args)...}, [&] { k(args...); });
}

// GET_TILING_DATA*: copies `bytes` at the GM pointer `tiling` (one GmAlloc block) into `out`.
void tiling_copy(void* out, size_t bytes, const void* tiling, const char* macro);

}  // namespace tilesim::ascendc
