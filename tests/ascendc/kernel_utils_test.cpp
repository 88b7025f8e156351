// The kernel-side names op kernels use besides the vector APIs (docs/ascendc.md#kernel-utilities):
// buffer lengths rounded to datablocks, GetTPipePtr, DivCeil and friends, SetVectorMask's counter
// form for any T, ASSERT, and the "kernel_tiling/kernel_tiling.h" / "acl/acl.h" include paths.
// The kernel below is written for these tests (a two-stage counter-mode sum of a length that is
// not a multiple of a datablock).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "cpu_debug_launch.h"
#include "kernel_tiling/kernel_tiling.h"

namespace {

using tilesim::ErrorCode;

struct SumTiling {
  uint32_t n;
};

// Sums n floats in counter mode: WholeReduceSum per 64-lane repeat into a buffer of
// DivCeil(n, 64) floats (not a whole datablock for n <= 448), then once more over those.
class KernelTwoStageSum {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, uint32_t n) {
    n_ = n;
    xGm.SetGlobalBuffer((__gm__ float*)x, n);
    zGm.SetGlobalBuffer((__gm__ float*)z, 8);
    pipe.InitBuffer(inQue, 1, n * sizeof(float));
    pipe.InitBuffer(outQue, 1, 8 * sizeof(float));
    pipe.InitBuffer(tmpBuf, AscendC::DivCeil(n, 64) * sizeof(float));
  }
  __aicore__ inline void Process() {
    AscendC::LocalTensor<float> x = inQue.AllocTensor<float>();
    AscendC::DataCopy(x, xGm, AscendC::AlignUp(n_, 8));
    inQue.EnQue(x);
    x = inQue.DeQue<float>();
    AscendC::LocalTensor<float> z = outQue.AllocTensor<float>();
    AscendC::LocalTensor<float> tmp = tmpBuf.Get<float>();
    ASSERT(GetTPipePtr() == &pipe);
    AscendC::SetMaskCount();
    AscendC::SetVectorMask<uint8_t, AscendC::MaskMode::COUNTER>(0, n_);
    AscendC::WholeReduceSum<float, false>(tmp, x, AscendC::MASK_PLACEHOLDER, 1, 1, 1, 8);
    AscendC::SetVectorMask<uint8_t, AscendC::MaskMode::COUNTER>(0, AscendC::DivCeil(n_, 64));
    AscendC::WholeReduceSum<float, false>(z, tmp, AscendC::MASK_PLACEHOLDER, 1, 1, 1, 8);
    AscendC::SetMaskNorm();
    AscendC::ResetMask();
    outQue.EnQue(z);
    z = outQue.DeQue<float>();
    AscendC::DataCopy(zGm, z, 8);
    outQue.FreeTensor(z);
    inQue.FreeTensor(x);
  }

 private:
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> inQue;
  AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQue;
  AscendC::TBuf<AscendC::TPosition::VECCALC> tmpBuf;
  AscendC::GlobalTensor<float> xGm, zGm;
  uint32_t n_ = 0;
};

extern "C" __global__ __aicore__ void two_stage_sum(GM_ADDR x, GM_ADDR z, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(SumTiling, t, tiling);
  KernelTwoStageSum op;
  op.Init(x, z, t.n);
  op.Process();
}

TEST(AscendcKernelUtils, TwoStageSumOverAPartialDatablockBuffer) {
  // n = 200: 4 repeats (64, 64, 64, 8 lanes); the second stage reads 4 floats of a 16-byte
  // buffer, which the vendor's InitBuffer rounds up to one 32-byte datablock.
  const uint32_t n = 200;
  auto* x = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
  auto* z = static_cast<float*>(AscendC::GmAlloc(8 * sizeof(float)));
  auto* t = static_cast<SumTiling*>(AscendC::GmAlloc(sizeof(SumTiling)));
  for (uint32_t i = 0; i < n; ++i) x[i] = float(i % 7);  // small integers: every sum exact
  t->n = n;
  ICPU_RUN_KF(two_stage_sum, 1, (GM_ADDR)x, (GM_ADDR)z, (GM_ADDR)t);
  double want = 0;
  for (uint32_t i = 0; i < n; ++i) want += i % 7;
  EXPECT_EQ(z[0], float(want));
  EXPECT_EQ(z[0], 594.0f);  // 28 runs of 0..6 (588) and 0+1+2+3
  AscendC::GmFree(x);
  AscendC::GmFree(z);
  AscendC::GmFree(t);
}

TEST(AscendcKernelUtils, InitBufferRoundsLengthsToDatablocks) {
  AscendC::set_product("atlas_a2");
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> que;
  pipe.InitBuffer(buf, 36);     // 36 bytes -> 64
  pipe.InitBuffer(que, 2, 33);  // 33 bytes -> 64 each
  AscendC::TBuf<AscendC::TPosition::VECCALC> after;
  pipe.InitBuffer(after, 32);
  EXPECT_EQ(buf.Get<float>().GetSize(), 16u);
  EXPECT_EQ(buf.Get<half>().GetSize(), 32u);
  AscendC::LocalTensor<float> a = que.AllocTensor<float>();
  AscendC::LocalTensor<float> b = que.AllocTensor<float>();
  EXPECT_EQ(a.GetSize(), 16u);
  // GetPhyAddr is an element pointer: distances in floats (64-byte buffers = 16 floats).
  EXPECT_EQ(b.GetPhyAddr() - a.GetPhyAddr(), 16);
  EXPECT_EQ(after.Get<float>().GetPhyAddr() - buf.Get<float>().GetPhyAddr(), (64 + 128) / 4);
  que.FreeTensor(a);
  que.FreeTensor(b);
}

TEST(AscendcKernelUtils, GetTPipePtrIsTheNewestLivePipe) {
  AscendC::set_product("atlas_a2");
  try {
    (void)GetTPipePtr();
    FAIL() << "no TPipe alive: expected an error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Constraint);
    EXPECT_NE(std::string(e.what()).find("GetTPipePtr: no TPipe is alive"), std::string::npos) << e.what();
  }
  AscendC::TPipe outer;
  EXPECT_EQ(GetTPipePtr(), &outer);
  {
    AscendC::TPipe inner;
    EXPECT_EQ(GetTPipePtr(), &inner);
    // The vendor's use: an event id for a V->S fence through the current pipe.
    const int32_t id = GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_S);
    AscendC::SetFlag<AscendC::HardEvent::V_S>(id);
    AscendC::WaitFlag<AscendC::HardEvent::V_S>(id);
  }
  EXPECT_EQ(GetTPipePtr(), &outer);
}

TEST(AscendcKernelUtils, DivCeilAlignUpKnownAnswers) {
  static_assert(AscendC::DivCeil(0, 8) == 0 && AscendC::DivCeil(1, 8) == 1 && AscendC::DivCeil(8, 8) == 1);
  static_assert(AscendC::DivCeil(9, 8) == 2 && AscendC::AlignUp(9, 8) == 16 && AscendC::AlignUp(16, 8) == 16);
  static_assert(AscendC::ConstCeil(200, 64) == 4);
  EXPECT_EQ(AscendC::DivCeil(0xFFFFFFFFu, 2u), 0x80000000u);  // no wrap in the sum
  EXPECT_EQ(AscendC::Ceil(65, 64), 2u);
  for (const char* api : {"DivCeil", "AlignUp", "ConstCeil", "Ceil"}) {
    try {
      const std::string a = api;
      uint32_t zero = 0;
      if (a == "DivCeil") (void)AscendC::DivCeil(5, zero);
      if (a == "AlignUp") (void)AscendC::AlignUp(5, zero);
      if (a == "ConstCeil") (void)AscendC::ConstCeil(5, zero);
      if (a == "Ceil") (void)AscendC::Ceil(5, zero);
      FAIL() << api << " by 0: expected an error";
    } catch (const tilesim::Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::Constraint);
      EXPECT_NE(std::string(e.what()).find("the divisor must not be 0 (dividend 5)"), std::string::npos)
          << e.what();
    }
  }
}

TEST(AscendcKernelUtils, CounterModeSetVectorMaskTakesAnyType) {
  AscendC::set_product("atlas_a2");
  AscendC::SetMaskCount();
  AscendC::SetVectorMask<uint8_t, AscendC::MaskMode::COUNTER>(0, 1003);
  EXPECT_EQ(tilesim::ascendc::core().mask.lo, 1003u);
  AscendC::SetVectorMask<int8_t, AscendC::MaskMode::COUNTER>(77);
  EXPECT_EQ(tilesim::ascendc::core().mask.lo, 77u);
  AscendC::SetMaskNorm();
  AscendC::ResetMask();
}

TEST(AscendcKernelUtils, AclFloat16Conversions) {
  // fp16 codes: 0x3C00 = 1, 0xC000 = -2, 0x7BFF = 65504, 0x0001 = 2^-24.
  EXPECT_EQ(aclFloat16ToFloat(0x3C00), 1.0f);
  EXPECT_EQ(aclFloat16ToFloat(0xC000), -2.0f);
  EXPECT_EQ(aclFloat16ToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(aclFloat16ToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(aclFloatToFloat16(1.0f + 0x1p-11f), 0x3C00);  // a tie rounds to even
  EXPECT_EQ(aclFloatToFloat16(1.0f + 0x1p-10f), 0x3C01);
  const aclError ok = ACL_SUCCESS;
  EXPECT_EQ(ok, ACL_ERROR_NONE);
}

}  // namespace
