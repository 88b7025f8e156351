// A double-buffered add kernel synchronised by hand (docs/ascendc.md#sync-checker): two sets of UB
// buffers, tile i in set i % 2, and SetFlag/WaitFlag between the pipes instead of TQues, as the
// vendor's guide writes kernels without TPipe queues. Each tile: MTE2 copies x and y in, V adds,
// MTE3 copies z out. Four flags order them:
//   MTE2_V  the add reads x, y only after they are in;
//   V_MTE3  the copy-out reads z only after the add wrote it;
//   V_MTE2  tile i + 2 copies into set i % 2 only after tile i's add has read it;
//   MTE3_V  tile i + 2 adds into z of set i % 2 only after tile i's copy-out has read it.
// `drop` removes one of them (add_sync_missing_flag.cpp and the checker's tests); the CPU result is the same
// either way, on the chip it would not be. Shared with tests/sync.
#pragma once
#include "tikicpulib.h"

namespace add_sync_ex {
constexpr int32_t kBlocks = 2;
constexpr int32_t kTiles = 6;
constexpr int32_t kTile = 256;  // floats: 1 KiB per buffer
constexpr int32_t kPerBlock = kTiles * kTile;
enum Drop : int32_t { kNone, kMte2V, kVMte3, kVMte2, kMte3V };
}  // namespace add_sync_ex

namespace add_sync_ex {
__aicore__ inline void Process(GM_ADDR x, GM_ADDR y, GM_ADDR z, int32_t drop) {
  using AscendC::HardEvent;
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> xb[2], yb[2], zb[2];
  for (int b = 0; b < 2; ++b) {
    pipe.InitBuffer(xb[b], kTile * sizeof(float));
    pipe.InitBuffer(yb[b], kTile * sizeof(float));
    pipe.InitBuffer(zb[b], kTile * sizeof(float));
  }
  AscendC::GlobalTensor<float> xGm, yGm, zGm;
  const int64_t first = kPerBlock * AscendC::GetBlockIdx();
  xGm.SetGlobalBuffer((__gm__ float*)x + first, kPerBlock);
  yGm.SetGlobalBuffer((__gm__ float*)y + first, kPerBlock);
  zGm.SetGlobalBuffer((__gm__ float*)z + first, kPerBlock);
  for (int32_t i = 0; i < kTiles; ++i) {
    const int32_t b = i % 2;  // the buffer set, also the event id of its flags
    AscendC::LocalTensor<float> xl = xb[b].Get<float>(), yl = yb[b].Get<float>(), zl = zb[b].Get<float>();
    const bool again = i >= 2, later = i + 2 < kTiles;  // set b was used before / is used again
    if (again && drop != kVMte2) AscendC::WaitFlag<HardEvent::V_MTE2>(b);
    AscendC::DataCopy(xl, xGm[i * kTile], kTile);
    AscendC::DataCopy(yl, yGm[i * kTile], kTile);
    if (drop != kMte2V) {
      AscendC::SetFlag<HardEvent::MTE2_V>(b);
      AscendC::WaitFlag<HardEvent::MTE2_V>(b);
    }
    if (again && drop != kMte3V) AscendC::WaitFlag<HardEvent::MTE3_V>(b);
    AscendC::Add(zl, xl, yl, kTile);
    if (later && drop != kVMte2) AscendC::SetFlag<HardEvent::V_MTE2>(b);
    if (drop != kVMte3) {
      AscendC::SetFlag<HardEvent::V_MTE3>(b);
      AscendC::WaitFlag<HardEvent::V_MTE3>(b);
    }
    AscendC::DataCopy(zGm[i * kTile], zl, kTile);
    if (later && drop != kMte3V) AscendC::SetFlag<HardEvent::MTE3_V>(b);
  }
}
}  // namespace add_sync_ex

extern "C" inline __global__ __aicore__ void add_sync(GM_ADDR x, GM_ADDR y, GM_ADDR z, int32_t drop) {
  add_sync_ex::Process(x, y, z, drop);
}

namespace add_sync_ex {
// Runs the kernel on fresh inputs; true when z = x + y everywhere (exact: small integers).
inline bool run(int32_t drop) {
  const size_t bytes = size_t(kBlocks) * kPerBlock * sizeof(float);
  auto* x = static_cast<float*>(AscendC::GmAlloc(bytes));
  auto* y = static_cast<float*>(AscendC::GmAlloc(bytes));
  auto* z = static_cast<float*>(AscendC::GmAlloc(bytes));
  for (int32_t i = 0; i < kBlocks * kPerBlock; ++i) {
    x[i] = float(i % 1000);
    y[i] = float(3 * (i % 7));
  }
  bool ok = true;
  try {
    ICPU_RUN_KF(add_sync, kBlocks, reinterpret_cast<GM_ADDR>(x), reinterpret_cast<GM_ADDR>(y),
                reinterpret_cast<GM_ADDR>(z), drop);
  } catch (...) {
    ok = false;  // the launch failed (with the checker on: the hazards it printed)
  }
  for (int32_t i = 0; ok && i < kBlocks * kPerBlock; ++i) ok = z[i] == x[i] + y[i];
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(z);
  return ok;
}
}  // namespace add_sync_ex
