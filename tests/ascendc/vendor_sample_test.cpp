// A kernel written the way the vendor's BlockReduce samples are (class with Init / CopyIn /
// Compute / CopyOut, AscendC:: qualified names, size-less SetGlobalBuffer, isSetMask = false
// with SetVectorMask): it must compile unchanged and give the hand-computed results.
#include <gtest/gtest.h>

#include "kernel_operator.h"

namespace {

class KernelReduce {
 public:
  __aicore__ inline KernelReduce() {}
  __aicore__ inline void Init(__gm__ uint8_t* src, __gm__ uint8_t* dstGm) {
    srcGlobal.SetGlobalBuffer((__gm__ half*)src);
    dstGlobal.SetGlobalBuffer((__gm__ half*)dstGm);
    repeat = srcDataSize / mask;
    pipe.InitBuffer(inQueueSrc, 1, srcDataSize * sizeof(half));
    pipe.InitBuffer(outQueueDst, 1, dstDataSize * sizeof(half));
  }
  __aicore__ inline void Process() {
    CopyIn();
    Compute();
    CopyOut();
  }

 private:
  __aicore__ inline void CopyIn() {
    AscendC::LocalTensor<half> srcLocal = inQueueSrc.AllocTensor<half>();
    AscendC::DataCopy(srcLocal, srcGlobal, srcDataSize);
    inQueueSrc.EnQue(srcLocal);
  }
  __aicore__ inline void Compute() {
    AscendC::LocalTensor<half> srcLocal = inQueueSrc.DeQue<half>();
    AscendC::LocalTensor<half> dstLocal = outQueueDst.AllocTensor<half>();
    AscendC::BlockReduceMax<half>(dstLocal, srcLocal, repeat, mask, 1, 1, 8);
    AscendC::SetVectorMask<half, AscendC::MaskMode::NORMAL>(0, 0xFFFF);  // block 0 only
    AscendC::BlockReduceSum<half, false>(dstLocal[8], srcLocal, 1, AscendC::MASK_PLACEHOLDER, 1, 1,
                                         8);
    AscendC::ResetMask();
    AscendC::PipeBarrier<PIPE_V>();
    outQueueDst.EnQue<half>(dstLocal);
    inQueueSrc.FreeTensor(srcLocal);
  }
  __aicore__ inline void CopyOut() {
    AscendC::LocalTensor<half> dstLocal = outQueueDst.DeQue<half>();
    AscendC::DataCopy(dstGlobal, dstLocal, dstDataSize);
    outQueueDst.FreeTensor(dstLocal);
  }

  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueueSrc;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueueDst;
  AscendC::GlobalTensor<half> srcGlobal, dstGlobal;
  int srcDataSize = 256;
  int dstDataSize = 16;
  int mask = 128;
  int repeat = 0;
};

extern "C" __global__ __aicore__ void reduce_kernel(__gm__ uint8_t* src, __gm__ uint8_t* dstGm) {
  KernelReduce op;
  op.Init(src, dstGm);
  op.Process();
}

TEST(VendorSample, CompilesAndComputes) {
  AscendC::set_product("atlas_a2");
  alignas(32) half src[256];
  alignas(32) half dst[16] = {};
  for (int i = 0; i < 256; ++i) src[i] = half(float((i * 7) % 23) - 11);  // values in [-11, 11]
  reduce_kernel(reinterpret_cast<GM_ADDR>(src), reinterpret_cast<GM_ADDR>(dst));
  // Repeat 1's outputs land at 8..15 first, then the masked SUM overwrites 8 (block 0 only)
  // and leaves 9..15 (fully masked on atlas_a2: not written).
  for (int b = 0; b < 16; ++b) {
    float mx = -1e9f, sum = 0;
    for (int i = 0; i < 16; ++i) {
      mx = std::max(mx, float(src[b * 16 + i]));
      sum += float(src[i]);  // block 0, exact in fp16 (small integers)
    }
    if (b == 8)
      EXPECT_EQ(float(dst[b]), sum);
    else
      EXPECT_EQ(float(dst[b]), mx) << b;
  }
}

}  // namespace
