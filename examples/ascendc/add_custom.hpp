// The add kernel of examples/ascendc/add_custom.cpp in the shape of the vendor's add_custom sample:
// 8 blocks, each adding its 2048 halves in 16 tiles through double-buffered TQues (CopyIn /
// Compute / CopyOut). Shared with tests/ascendc (bit-identical across thread counts).
#pragma once
#include "kernel_operator.h"

namespace add_custom_cfg {
constexpr int32_t kTotal = 8 * 2048;
constexpr int32_t kBlocks = 8;
constexpr int32_t kPerBlock = kTotal / kBlocks;
constexpr int32_t kTiles = 8;
constexpr int32_t kBuffers = 2;  // double buffering
constexpr int32_t kTile = kPerBlock / kTiles / kBuffers;
}  // namespace add_custom_cfg
using namespace add_custom_cfg;

class AddKernel {
 public:
  __aicore__ inline AddKernel() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    const int64_t first = kPerBlock * AscendC::GetBlockIdx();
    xGm.SetGlobalBuffer((__gm__ half*)x + first, kPerBlock);
    yGm.SetGlobalBuffer((__gm__ half*)y + first, kPerBlock);
    zGm.SetGlobalBuffer((__gm__ half*)z + first, kPerBlock);
    pipe.InitBuffer(qx, kBuffers, kTile * sizeof(half));
    pipe.InitBuffer(qy, kBuffers, kTile * sizeof(half));
    pipe.InitBuffer(qz, kBuffers, kTile * sizeof(half));
  }
  __aicore__ inline void Process() {
    for (int32_t i = 0; i < kTiles * kBuffers; ++i) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t i) {
    AscendC::LocalTensor<half> a = qx.AllocTensor<half>();
    AscendC::LocalTensor<half> b = qy.AllocTensor<half>();
    AscendC::DataCopy(a, xGm[i * kTile], kTile);
    AscendC::DataCopy(b, yGm[i * kTile], kTile);
    qx.EnQue(a);
    qy.EnQue(b);
  }
  __aicore__ inline void Compute() {
    AscendC::LocalTensor<half> a = qx.DeQue<half>();
    AscendC::LocalTensor<half> b = qy.DeQue<half>();
    AscendC::LocalTensor<half> c = qz.AllocTensor<half>();
    AscendC::Add(c, a, b, kTile);
    qz.EnQue<half>(c);
    qx.FreeTensor(a);
    qy.FreeTensor(b);
  }
  __aicore__ inline void CopyOut(int32_t i) {
    AscendC::LocalTensor<half> c = qz.DeQue<half>();
    AscendC::DataCopy(zGm[i * kTile], c, kTile);
    qz.FreeTensor(c);
  }

  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, kBuffers> qx, qy;
  AscendC::TQue<AscendC::QuePosition::VECOUT, kBuffers> qz;
  AscendC::GlobalTensor<half> xGm, yGm, zGm;
};

extern "C" inline __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
  AddKernel op;
  op.Init(x, y, z);
  op.Process();
}

