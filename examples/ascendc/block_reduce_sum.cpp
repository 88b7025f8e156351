// A complete Ascend C kernel in the vendor's style, built against tilesim on the host:
// GM -> UB with DataCopy through a VECIN queue, BlockReduceSum, UB -> GM through a VECOUT queue.
// 4 repeats of 128 halves: every 16-element datablock is summed by the fixed pairwise tree.
#include <cstdio>
#include <vector>

#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t TOTAL_LENGTH = 4 * 128;          // 4 repeats of 256 bytes
constexpr int32_t OUT_LENGTH = TOTAL_LENGTH / 16;  // one result per datablock
constexpr int32_t BUFFER_NUM = 1;

class KernelBlockReduceSum {
 public:
  __aicore__ inline KernelBlockReduceSum() {}
  __aicore__ inline void Init(GM_ADDR src, GM_ADDR dst) {
    srcGm.SetGlobalBuffer((__gm__ half*)src, TOTAL_LENGTH);
    dstGm.SetGlobalBuffer((__gm__ half*)dst, OUT_LENGTH);
    pipe.InitBuffer(inQueue, BUFFER_NUM, TOTAL_LENGTH * sizeof(half));
    pipe.InitBuffer(outQueue, BUFFER_NUM, OUT_LENGTH * sizeof(half));
  }
  __aicore__ inline void Process() {
    CopyIn();
    Compute();
    CopyOut();
  }

 private:
  __aicore__ inline void CopyIn() {
    LocalTensor<half> srcLocal = inQueue.AllocTensor<half>();
    DataCopy(srcLocal, srcGm, TOTAL_LENGTH);
    inQueue.EnQue(srcLocal);
  }
  __aicore__ inline void Compute() {
    LocalTensor<half> srcLocal = inQueue.DeQue<half>();
    LocalTensor<half> dstLocal = outQueue.AllocTensor<half>();
    int32_t mask = 256 / sizeof(half);  // all 128 elements of a repeat
    int repeat = TOTAL_LENGTH / 128;
    // dstRepStride = 1, srcBlkStride = 1, srcRepStride = 8: no gaps.
    BlockReduceSum<half>(dstLocal, srcLocal, repeat, mask, 1, 1, 8);
    outQueue.EnQue<half>(dstLocal);
    inQueue.FreeTensor(srcLocal);
  }
  __aicore__ inline void CopyOut() {
    LocalTensor<half> dstLocal = outQueue.DeQue<half>();
    DataCopy(dstGm, dstLocal, OUT_LENGTH);
    outQueue.FreeTensor(dstLocal);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
  GlobalTensor<half> srcGm, dstGm;
};

extern "C" __global__ __aicore__ void block_reduce_sum_custom(GM_ADDR src, GM_ADDR dst) {
  KernelBlockReduceSum op;
  op.Init(src, dst);
  op.Process();
}

int main() {
  // The seed's input: datablock b holds 16 copies of b + 1 (outputs 16, 32, ...); the last
  // datablock holds the seed's overflow example [60000, 60000, -30000, 100, 0, ...].
  std::vector<half> src(TOTAL_LENGTH), dst(OUT_LENGTH);
  for (int i = 0; i < TOTAL_LENGTH; ++i) src[i] = half(float(i / 16 % 8 + 1));
  const float seed[16] = {60000, 60000, -30000, 100};
  for (int i = 0; i < 16; ++i) src[TOTAL_LENGTH - 16 + i] = half(seed[i]);
  block_reduce_sum_custom(reinterpret_cast<GM_ADDR>(src.data()),
                          reinterpret_cast<GM_ADDR>(dst.data()));

  int bad = 0;
  std::printf("BlockReduceSum<half>, %d repeats, mask 128, strides (1, 1, 8):\n",
              TOTAL_LENGTH / 128);
  for (int k = 0; k < OUT_LENGTH; ++k) {
    // 16 * v exactly; the last block: 65504 (saturated) + -29904 = 35600 -> 35584 in fp16.
    const float want = k == OUT_LENGTH - 1 ? 35584.0f : 16.0f * float(k % 8 + 1);
    std::printf("%s%g", k ? ", " : "  ", double(float(dst[k])));
    bad += float(dst[k]) != want;
  }
  std::printf("\n%s\n",
              bad ? "MISMATCH" : "OK: matches 16*v and the seed's saturated example (35584)");
  return bad ? 1 : 0;
}
