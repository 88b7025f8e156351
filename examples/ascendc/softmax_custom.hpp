// A row softmax kernel in the vendor sample style, shared by examples/ascendc/softmax_custom.cpp
// and tests/ascendc/examples_test.cpp: rows x cols float32, the rows split evenly over the blocks,
// each block streaming tiles of kRowsPerTile rows through double-buffered TQues. Per row:
//   ReduceMax (count form) -> Duplicate(max) -> Sub -> Exp   (counter mode, isSetMask = false)
//   ReduceSum (count form) -> Duplicate(sum) -> Div          (counter mode, isSetMask = false)
// The tiling struct travels in GM and is read with GET_TILING_DATA_WITH_STRUCT (docs/ascendc.md#tiling).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernel_operator.h"

namespace softmax_ex {
constexpr uint32_t kRows = 1024, kCols = 1024, kBlocks = 8;
constexpr uint32_t kRowsPerTile = 4;  // 16 KB per buffer: 2 x 2 queues x 16 KB + work buffers fit the UB
constexpr int32_t kBufferNum = 2;     // double buffering
}  // namespace softmax_ex

struct SoftmaxTiling {
  uint32_t rows;         // all rows
  uint32_t cols;         // elements per row (a multiple of 8: whole 32-byte datablocks)
  uint32_t blockRows;    // rows per block
  uint32_t rowsPerTile;  // rows per queue buffer
};

// A scalar read of a vector result (docs/ascendc.md#sync-checker): the scalar unit waits for the
// vector unit (V_S), and the vector unit does not overwrite the value before it is read (S_V).
namespace softmax_ex {
__aicore__ inline float ScalarOf(const AscendC::LocalTensor<float>& t) {
  AscendC::SetFlag<AscendC::HardEvent::V_S>(0);
  AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);
  const float v = t.GetValue(0);
  AscendC::SetFlag<AscendC::HardEvent::S_V>(0);
  AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);
  return v;
}
}  // namespace softmax_ex

class SoftmaxKernel {
 public:
  __aicore__ inline SoftmaxKernel() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxTiling& t) {
    cols = t.cols;
    tileRows = t.rowsPerTile;
    tiles = t.blockRows / t.rowsPerTile;
    const uint64_t first = uint64_t(t.blockRows) * cols * AscendC::GetBlockIdx();
    xGm.SetGlobalBuffer((__gm__ float*)x + first, uint64_t(t.blockRows) * cols);
    yGm.SetGlobalBuffer((__gm__ float*)y + first, uint64_t(t.blockRows) * cols);
    pipe.InitBuffer(inQ, softmax_ex::kBufferNum, tileRows * cols * sizeof(float));
    pipe.InitBuffer(outQ, softmax_ex::kBufferNum, tileRows * cols * sizeof(float));
    pipe.InitBuffer(bcastBuf, cols * sizeof(float));  // the row's max, then its sum, in every lane
    pipe.InitBuffer(workBuf, cols * sizeof(float));   // ReduceMax/ReduceSum work space
    pipe.InitBuffer(redBuf, 32);                      // the reduction's result (value, index)
  }
  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < tiles; ++i) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t i) {
    AscendC::LocalTensor<float> x = inQ.AllocTensor<float>();
    AscendC::DataCopy(x, xGm[uint64_t(i) * tileRows * cols], tileRows * cols);
    inQ.EnQue(x);
  }
  __aicore__ inline void Compute() {
    AscendC::LocalTensor<float> x = inQ.DeQue<float>();
    AscendC::LocalTensor<float> y = outQ.AllocTensor<float>();
    AscendC::LocalTensor<float> bc = bcastBuf.Get<float>();
    AscendC::LocalTensor<float> work = workBuf.Get<float>();
    AscendC::LocalTensor<float> red = redBuf.Get<float>();
    const AscendC::BinaryRepeatParams bin(1, 1, 1, 8, 8, 8);
    const AscendC::UnaryRepeatParams un(1, 1, 8, 8);
    for (uint32_t r = 0; r < tileRows; ++r) {
      AscendC::LocalTensor<float> xr = x[r * cols], yr = y[r * cols];
      AscendC::ReduceMax(red, xr, work, int32_t(cols));
      AscendC::Duplicate(bc, softmax_ex::ScalarOf(red), int32_t(cols));
      // Counter mode: the mask register holds the element count, repeatTime is ignored.
      AscendC::SetMaskCount();
      AscendC::SetVectorMask<float, AscendC::MaskMode::COUNTER>(0, cols);
      AscendC::Sub<float, false>(yr, xr, bc, AscendC::MASK_PLACEHOLDER, 1, bin);
      AscendC::Exp<float, false>(yr, yr, AscendC::MASK_PLACEHOLDER, 1, un);
      AscendC::SetMaskNorm();
      AscendC::ResetMask();
      AscendC::ReduceSum(red, yr, work, int32_t(cols));
      AscendC::Duplicate(bc, softmax_ex::ScalarOf(red), int32_t(cols));
      AscendC::SetMaskCount();
      AscendC::SetVectorMask<float, AscendC::MaskMode::COUNTER>(0, cols);
      AscendC::Div<float, false>(yr, yr, bc, AscendC::MASK_PLACEHOLDER, 1, bin);
      AscendC::SetMaskNorm();
      AscendC::ResetMask();
    }
    outQ.EnQue<float>(y);
    inQ.FreeTensor(x);
  }
  __aicore__ inline void CopyOut(uint32_t i) {
    AscendC::LocalTensor<float> y = outQ.DeQue<float>();
    AscendC::DataCopy(yGm[uint64_t(i) * tileRows * cols], y, tileRows * cols);
    outQ.FreeTensor(y);
  }

  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, softmax_ex::kBufferNum> inQ;
  AscendC::TQue<AscendC::QuePosition::VECOUT, softmax_ex::kBufferNum> outQ;
  AscendC::TBuf<AscendC::QuePosition::VECCALC> bcastBuf, workBuf, redBuf;
  AscendC::GlobalTensor<float> xGm, yGm;
  uint32_t cols = 0, tileRows = 0, tiles = 0;
};

extern "C" inline __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(SoftmaxTiling, t, tiling);
  SoftmaxKernel op;
  op.Init(x, y, t);
  op.Process();
}

namespace softmax_ex {
// Inputs in [-8, 8) from a small LCG (deterministic, no <random> distribution differences).
inline void fill_inputs(float* x, uint64_t n, uint32_t seed = 2024) {
  uint32_t s = seed;
  for (uint64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = float(int32_t(s >> 9) % 16384) / 1024.0f - 8.0f;
  }
}
// The largest relative error against an fp64 softmax of the same float inputs.
inline double max_rel_error(const float* x, const float* y, uint32_t rows, uint32_t cols) {
  double worst = 0;
  std::vector<double> e(cols);
  for (uint32_t r = 0; r < rows; ++r) {
    const float* xr = x + uint64_t(r) * cols;
    double m = xr[0], s = 0;
    for (uint32_t c = 0; c < cols; ++c) m = std::fmax(m, double(xr[c]));
    for (uint32_t c = 0; c < cols; ++c) s += e[c] = std::exp(double(xr[c]) - m);
    for (uint32_t c = 0; c < cols; ++c) {
      const double want = e[c] / s, got = y[uint64_t(r) * cols + c];
      const double rel = std::fabs(got - want) / want;
      if (!(rel <= worst)) worst = rel;  // NaN propagates as a failure
    }
  }
  return worst;
}
// The stated tolerance: fp32 exp (<= 1 ulp), a 1024-term fp32 tree sum and one division give a
// few 1e-7 of relative error; 1e-5 is the vendor fp32 tests' usual rtol.
constexpr double kRelTol = 1e-5;
}  // namespace softmax_ex
