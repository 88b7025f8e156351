// Debug prints from a kernel (docs/ascendc.md#debug-prints): each of 4 blocks scales its 8 halves
// of x by 2, prints a line with printf and dumps its result with DumpTensor; an assert checks the
// tiling. The launch writes each block's output in block order, each print prefixed
// "[AIV Block i/4] ".
#include <cstdio>

#include "tikicpulib.h"

constexpr int32_t kBlocks = 4, kPerBlock = 16;

extern "C" __global__ __aicore__ void scale_and_print(GM_ADDR x, GM_ADDR y, uint32_t perBlock) {
  assert(perBlock % 16 == 0, "perBlock %u is not a whole datablock of halves\n", perBlock);
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  AscendC::GlobalTensor<half> xGm, yGm;
  xGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x) + perBlock * AscendC::GetBlockIdx(),
                      perBlock);
  yGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y) + perBlock * AscendC::GetBlockIdx(),
                      perBlock);
  pipe.InitBuffer(buf, perBlock * sizeof(half));
  AscendC::LocalTensor<half> t = buf.Get<half>();
  AscendC::DataCopy(t, xGm, perBlock);
  // Each pipe waits for the one that wrote what it reads (docs/ascendc.md#sync-checker).
  AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
  AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
  AscendC::Muls(t, t, half(2.0f), perBlock);
  AscendC::SetFlag<AscendC::HardEvent::V_S>(0);
  AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);
  AscendC::printf("block %ld of %ld: x[0] = %f, y[0] = %f\n", AscendC::GetBlockIdx(),
                  AscendC::GetBlockNum(), xGm.GetValue(0), t.GetValue(0));
  AscendC::DumpTensor(t, 5, 4);  // desc: a number of the caller's choice
  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
  AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
  AscendC::DataCopy(yGm, t, perBlock);
}

int main() {
  const size_t bytes = kBlocks * kPerBlock * sizeof(half);
  auto* x = static_cast<half*>(AscendC::GmAlloc(bytes));
  auto* y = static_cast<half*>(AscendC::GmAlloc(bytes));
  for (int i = 0; i < kBlocks * kPerBlock; ++i) x[i] = half(0.25f * float(i));
  ICPU_RUN_KF(scale_and_print, kBlocks, reinterpret_cast<GM_ADDR>(x), reinterpret_cast<GM_ADDR>(y),
              uint32_t(kPerBlock));
  bool ok = true;
  for (int i = 0; i < kBlocks * kPerBlock; ++i) ok = ok && float(y[i]) == 0.5f * float(i);
  std::printf("debug_print: y = 2x in every block (y[63] = %g): %s\n", double(float(y[63])),
              ok ? "PASS" : "FAIL");
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  return ok ? 0 : 1;
}
