// Counter mode on a length that is not a multiple of a repeat (1003 floats = 15 repeats of 64
// plus 43): SetMaskCount + SetVectorMask<float, MaskMode::COUNTER>(0, len) + isSetMask = false;
// repeatTime is ignored. The last datablock has 3 active elements; the rest of the last repeat
// is fully masked and, on atlas_a2, not written.
#include <cstdio>
#include <vector>

#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t LEN = 1003;
constexpr int32_t PADDED = 1024;     // DataCopy moves whole 32-byte blocks
constexpr int32_t OUT = PADDED / 8;  // one result per datablock

extern "C" __global__ __aicore__ void block_reduce_counter(GM_ADDR src, GM_ADDR dst) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 1> inQueue;
  TQue<QuePosition::VECOUT, 1> outQueue;
  GlobalTensor<float> srcGm, dstGm;
  srcGm.SetGlobalBuffer((__gm__ float*)src, PADDED);
  dstGm.SetGlobalBuffer((__gm__ float*)dst, OUT);
  pipe.InitBuffer(inQueue, 1, PADDED * sizeof(float));
  pipe.InitBuffer(outQueue, 1, OUT * sizeof(float));

  LocalTensor<float> x = inQueue.AllocTensor<float>();
  DataCopy(x, srcGm, PADDED);
  inQueue.EnQue(x);
  x = inQueue.DeQue<float>();
  LocalTensor<float> y = outQueue.AllocTensor<float>();
  Duplicate(y, -1.0f, OUT);  // marks what the instruction leaves unwritten

  SetMaskCount();
  SetVectorMask<float, MaskMode::COUNTER>(0, LEN);
  BlockReduceSum<float, false>(y, x, 1, MASK_PLACEHOLDER, 1, 1, 8);
  SetMaskNorm();
  ResetMask();

  outQueue.EnQue(y);
  inQueue.FreeTensor(x);
  y = outQueue.DeQue<float>();
  DataCopy(dstGm, y, OUT);
  outQueue.FreeTensor(y);
}

int main() {
  std::vector<float> src(PADDED), dst(OUT);
  for (int i = 0; i < PADDED; ++i) src[i] = float(i % 8 + 1);  // each full block sums to 36
  block_reduce_counter(reinterpret_cast<GM_ADDR>(src.data()),
                       reinterpret_cast<GM_ADDR>(dst.data()));
  int bad = 0;
  for (int k = 0; k < OUT; ++k) {
    const float want = k < LEN / 8 ? 36.0f : k == LEN / 8 ? 1.0f + 2.0f + 3.0f : -1.0f;
    bad += dst[k] != want;
  }
  std::printf(
      "BlockReduceSum<float> counter mode, %d elements: %d blocks of 36, block %d = %g (3 active), "
      "blocks %d..%d untouched = %g\n",
      LEN, LEN / 8, LEN / 8, double(dst[LEN / 8]), LEN / 8 + 1, 127, double(dst[127]));
  std::printf("%s\n", bad ? "MISMATCH" : "OK");
  return bad ? 1 : 0;
}
