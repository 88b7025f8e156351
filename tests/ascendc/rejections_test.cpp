// One test per rejection of spec 40 §1/§3: the error code, the message (instruction, rule,
// actual value, spec section) and that the UB and the mask register are unchanged.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "kernel_operator.h"
#include "tilesim/error.hpp"

using namespace AscendC;
namespace ts = tilesim::ascendc;
using tilesim::ErrorCode;

namespace {

void expect_reject(const std::function<void()>& fn, ErrorCode code, const std::string& message) {
  const auto ub = ts::core().ub;
  const ts::MaskRegister reg = ts::core().mask;
  try {
    fn();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
        << "got: " << e.what() << "\nwant: " << message;
  }
  EXPECT_TRUE(ts::core().ub == ub) << "UB changed by a rejected call";
  EXPECT_EQ(ts::core().mask.lo, reg.lo);
  EXPECT_EQ(ts::core().mask.hi, reg.hi);
  EXPECT_EQ(ts::core().mask.counter, reg.counter);
}

struct Rejections : ::testing::Test {
  TPipe* pipe = nullptr;
  TBuf<TPosition::VECCALC> buf;
  LocalTensor<half> h;   // 1024 halves, filled with a pattern
  LocalTensor<float> f;  // the same bytes as floats
  void SetUp() override {
    set_product("atlas_a2");
    pipe = new TPipe;
    pipe->InitBuffer(buf, 2048);
    h = buf.Get<half>();
    f = buf.Get<float>();
    for (int i = 0; i < 1024; ++i) h.SetValue(i, half(i % 7));
    SetVectorMask<half>(0x1234, 0x5678);  // a non-reset register, to see it unchanged
  }
  void TearDown() override { delete pipe; }
};

TEST_F(Rejections, VectorCoreUnsupported) {
  set_product("atlas_inference_vectorcore");
  TPipe p;
  TBuf<TPosition::VECCALC> b;
  p.InitBuffer(b, 512);
  auto t = b.Get<half>();
  expect_reject([&] { BlockReduceSum<half>(t[128], t, 1, 128, 1, 1, 8); }, ErrorCode::Unsupported,
                "BlockReduceSum: not supported on product atlas_inference_vectorcore (Atlas "
                "inference series, Vector Core) [docs/ascendc.md#products]");
}

TEST_F(Rejections, FloatOnTrainingUnsupported) {
  set_product("atlas_training");
  TPipe p;
  TBuf<TPosition::VECCALC> b;
  p.InitBuffer(b, 512);
  auto t = b.Get<float>();
  expect_reject([&] { BlockReduceMax<float>(t[64], t, 1, 64, 1, 1, 8); }, ErrorCode::Unsupported,
                "BlockReduceMax: T = float is not supported on product atlas_training");
}

TEST_F(Rejections, RepeatTimeRange) {
  expect_reject([&] { BlockReduceSum<half>(h[512], h, 256, 128, 1, 1, 8); }, ErrorCode::Constraint,
                "BlockReduceSum: repeatTime must be in [0, 255], got 256 [docs/ascendc.md#checks]");
  expect_reject([&] { BlockReduceSum<half>(h[512], h, -1, 128, 1, 1, 8); }, ErrorCode::Constraint,
                "repeatTime must be in [0, 255], got -1");
}

TEST_F(Rejections, StrideRanges) {
  expect_reject([&] { BlockReduceMin<half>(h[512], h, 1, 128, -1, 1, 8); }, ErrorCode::Constraint,
                "BlockReduceMin: dstRepStride must be in [0, 65535], got -1 [docs/ascendc.md#checks]");
  expect_reject([&] { BlockReduceMin<half>(h[512], h, 1, 128, 1, 65536, 8); },
                ErrorCode::Constraint, "srcBlkStride must be in [0, 65535], got 65536");
  expect_reject([&] { BlockReduceMin<half>(h[512], h, 1, 128, 1, 1, -8); }, ErrorCode::Constraint,
                "srcRepStride must be in [0, 65535], got -8");
}

TEST_F(Rejections, DstRepStrideZeroOnTraining) {
  set_product("atlas_training");
  TPipe p;
  TBuf<TPosition::VECCALC> b;
  p.InitBuffer(b, 512);
  auto t = b.Get<half>();
  expect_reject(
      [&] { BlockReduceSum<half>(t[128], t, 2, 128, 0, 1, 0); }, ErrorCode::Constraint,
      "BlockReduceSum: dstRepStride = 0 is not allowed on product atlas_training [docs/ascendc.md#checks]");
}

TEST_F(Rejections, SrcAlignment) {
  expect_reject(
      [&] { BlockReduceSum<half>(h[512], h[8], 1, 128, 1, 1, 8); }, ErrorCode::Constraint,
      "BlockReduceSum: src start address must be 32-byte aligned, got UB address 16 [docs/ascendc.md#checks]");
}

TEST_F(Rejections, DstAlignment) {
  expect_reject([&] { BlockReduceSum<half>(h[516], h, 1, 128, 1, 1, 8); }, ErrorCode::Constraint,
                "dst start address must be 16-byte aligned for half, got UB address 1032");
  expect_reject([&] { BlockReduceSum<float>(f[260], f, 1, 64, 1, 1, 8); }, ErrorCode::Constraint,
                "dst start address must be 32-byte aligned for float, got UB address 1040");
  // 16-byte aligned is enough for half.
  BlockReduceSum<half>(h[520], h, 1, 128, 1, 1, 8);
  EXPECT_EQ(float(h.GetValue(520)),
            float(half(0 + 1 + 2 + 3 + 4 + 5 + 6 + 0 + 1 + 2 + 3 + 4 + 5 + 6 + 0 + 1)));
}

TEST_F(Rejections, ContinuousMaskRange) {
  expect_reject([&] { BlockReduceSum<half>(h[512], h, 1, 0, 1, 1, 8); }, ErrorCode::Constraint,
                "BlockReduceSum: continuous mask must be in [1, 128] (lanes per repeat), got 0 [docs/ascendc.md#mask-and-repeat]");
  expect_reject([&] { BlockReduceSum<half>(h[512], h, 1, 129, 1, 1, 8); }, ErrorCode::Constraint,
                "continuous mask must be in [1, 128] (lanes per repeat), got 129");
  expect_reject([&] { BlockReduceSum<float>(f[256], f, 1, 65, 1, 1, 8); }, ErrorCode::Constraint,
                "continuous mask must be in [1, 64] (lanes per repeat), got 65");
}

TEST_F(Rejections, BitMaskHalfBothZero) {
  uint64_t m[2] = {0, 0};
  expect_reject(
      [&] { BlockReduceMax<half>(h[512], h, 1, m, 1, 1, 8); }, ErrorCode::Constraint,
      "BlockReduceMax: bit mask: mask[0] and mask[1] must not both be 0 [docs/ascendc.md#mask-and-repeat]");
}

TEST_F(Rejections, BitMaskFloatZero) {
  uint64_t m[1] = {0};
  expect_reject([&] { BlockReduceMax<float>(f[256], f, 1, m, 1, 1, 8); }, ErrorCode::Constraint,
                "bit mask: mask[0] must not be 0");
}

// The engine sees the word count when the front end knows it (Python, spec 60 §4).
TEST_F(Rejections, BitMaskFloatSecondWordAndHalfOneWord) {
  ts::Core& c = ts::core();
  ts::Operand d{c.ub.data() + 1024, 1024, 64}, s{c.ub.data(), 0, 256};
  ts::ReduceCall call;
  call.elem = ts::Elem::f32;
  call.mask.kind = ts::MaskArg::Kind::Bits;
  call.mask.words = 2;
  call.mask.bits[0] = 1;
  call.mask.bits[1] = 5;
  expect_reject(
      [&] { ts::block_reduce(*c.product, true, c.mask, d, s, call); }, ErrorCode::Constraint,
      "reads mask[0] only; mask[1] must be 0, got 5 [docs/ascendc.md#mask-and-repeat]");
  call.elem = ts::Elem::f16;
  call.mask.words = 1;
  expect_reject([&] { ts::block_reduce(*c.product, true, c.mask, d, s, call); },
                ErrorCode::Constraint, "bit mode for half needs two words");
}

TEST_F(Rejections, SetMaskInCounterMode) {
  SetMaskCount();
  SetVectorMask<half, MaskMode::COUNTER>(100);
  expect_reject([&] { BlockReduceSum<half>(h[512], h, 1, 128, 1, 1, 8); }, ErrorCode::Constraint,
                "BlockReduceSum: isSetMask = true is not allowed in counter mode (the mask argument would become "
                "the count; call SetMaskNorm() first or pass isSetMask = false) [docs/ascendc.md#mask-and-repeat]");
  SetMaskNorm();
}

// A LocalTensor outside the UB (its constructor is public): the message says which operand.
TEST_F(Rejections, OperandOutsideTheUbIsNamed) {
  const LocalTensor<half> far(ts::core().ub.size() - 64, 256, TPosition::VECCALC);
  expect_reject([&] { BlockReduceSum<half>(far, h, 1, 128, 1, 1, 8); }, ErrorCode::Bounds,
                "BlockReduceSum: dst: UB bytes [");
  expect_reject([&] { BlockReduceSum<half>(h, far, 1, 128, 1, 1, 8); }, ErrorCode::Bounds,
                "BlockReduceSum: src: UB bytes [");
}

TEST_F(Rejections, CounterRegisterInvalid) {
  SetMaskCount();
  ResetMask();  // all ones: not a count
  expect_reject([&] { BlockReduceSum<half, false>(h[512], h, 1, MASK_PLACEHOLDER, 1, 1, 8); },
                ErrorCode::Constraint,
                "counter mode: the mask register holds no valid element count");
  SetMaskNorm();
}

TEST_F(Rejections, SrcOutOfBounds) {
  expect_reject([&] { BlockReduceSum<half>(h[512], h[0], 2, 128, 1, 1, 60); }, ErrorCode::Bounds,
                "src: repeat 1 datablock 7 reads elements [1072, 1088) beyond src's 1024 elements");
  LocalTensor<half> small = h[0];
  small.SetSize(100);
  expect_reject([&] { BlockReduceSum<half>(h[512], small, 1, 128, 1, 1, 8); }, ErrorCode::Bounds,
                "BlockReduceSum: src: repeat 0 datablock 7 reads elements [112, 128) beyond src's "
                "100 elements [docs/ascendc.md#checks]");
  // A datablock with no active element reads nothing: mask 96 leaves block 6..7 inactive.
  BlockReduceSum<half>(h[512], small, 1, 96, 1, 1, 8);
}

TEST_F(Rejections, DstOutOfBounds) {
  LocalTensor<half> d = h[512];
  d.SetSize(15);
  expect_reject([&] { BlockReduceSum<half>(d, h, 2, 128, 1, 1, 8); }, ErrorCode::Bounds,
                "BlockReduceSum: dst: repeat 1 datablock 7 writes element 15 beyond dst's 15 "
                "elements [docs/ascendc.md#checks]");
  // Not written on atlas_a2 when fully masked: legal; written on ascend950: rejected.
  d.SetSize(14);
  BlockReduceSum<half>(d, h, 2, 96, 1, 1, 8);
  set_product("ascend950");
  TPipe p;
  TBuf<TPosition::VECCALC> b;
  p.InitBuffer(b, 2048);
  auto t = b.Get<half>();
  auto d2 = t[512];
  d2.SetSize(14);
  expect_reject([&] { BlockReduceSum<half>(d2, t, 2, 96, 1, 1, 8); }, ErrorCode::Bounds,
                "dst: repeat 1 datablock 7 writes element 15 beyond dst's 14 elements");
}

TEST_F(Rejections, OverlapWritesSourceNotYetRead) {
  expect_reject([&] { BlockReduceSum<half>(h[16], h, 2, 128, 1, 1, 1); }, ErrorCode::Constraint,
                "BlockReduceSum: overlap: repeat 0 datablock 0 writes dst element 0, inside src "
                "datablock 1 that repeat 1 "
                "reads later");
  // The in-place pattern of spec 40 §3 is legal.
  BlockReduceSum<half>(h, h, 4, 128, 1, 1, 8);
}

TEST_F(Rejections, SetVectorMaskRanges) {
  expect_reject(
      [] { SetVectorMask<half>(0, 0); }, ErrorCode::Constraint,
      "SetVectorMask: bit mode for half: maskHigh and maskLow must not both be 0 [docs/ascendc.md#the-mask-register]");
  expect_reject([] { SetVectorMask<float>(1, 1); }, ErrorCode::Constraint,
                "bit mode for float: maskHigh must be 0, got 1");
  expect_reject([] { SetVectorMask<float>(0, 0); }, ErrorCode::Constraint,
                "maskLow must be in (0, 2^64-1], got 0");
  expect_reject([] { SetVectorMask<half>(0); }, ErrorCode::Constraint,
                "continuous mode for half: len must be in [1, 128], got 0");
  expect_reject([] { SetVectorMask<float>(65); }, ErrorCode::Constraint,
                "continuous mode for float: len must be in [1, 64], got 65");
  expect_reject([] { SetVectorMask<half, MaskMode::COUNTER>(3, 5); }, ErrorCode::Constraint,
                "counter mode: maskHigh must be 0, got 3");
  expect_reject([] { SetVectorMask<half, MaskMode::COUNTER>(-1); }, ErrorCode::Constraint,
                "counter mode: element count must be in [0, 2^31-1], got -1");
}

TEST_F(Rejections, ScaffoldingErrors) {
  alignas(32) half gm[64] = {};
  GlobalTensor<half> g;
  g.SetGlobalBuffer(gm, 64);
  expect_reject(
      [&] { DataCopy(h, g, 8); }, ErrorCode::Constraint,
      "DataCopy: count * sizeof(T) must be a multiple of 32 bytes, got 8 * 2 [docs/ascendc.md#datacopy]");
  expect_reject([&] { DataCopy(h, g, 80); }, ErrorCode::Bounds,
                "DataCopy: src: bytes [0, 160) of the tensor are past its 128 bytes");
  expect_reject([&] { h.GetValue(1024); }, ErrorCode::Bounds,
                "LocalTensor::GetValue: index 1024 out of range for 1024 elements");
  expect_reject([&] { h.SetValue(4096, half(1)); }, ErrorCode::Bounds, "index 4096 out of range");
  expect_reject([&] { Duplicate(h, half(1), 1025); }, ErrorCode::Bounds,
                "Duplicate: count must be in [0, 1024] (dst's elements), got 1025 [docs/ascendc.md#vector-apis]");
  expect_reject([&] { Duplicate(h, half(1), -5); }, ErrorCode::Bounds,
                "Duplicate: count must be in [0, 1024] (dst's elements), got -5 [docs/ascendc.md#vector-apis]");
  TBuf<TPosition::VECCALC> big;
  expect_reject([&] { pipe->InitBuffer(big, 192 * 1024); }, ErrorCode::Bounds,
                "TPipe::InitBuffer: allocation of 196608 bytes at UB offset 2048 exceeds the "
                "196608-byte UB of atlas_a2 "
                "[docs/ascendc.md#ub]");
  TQue<TPosition::VECIN, 1> q;
  pipe->InitBuffer(q, 1, 64);
  expect_reject([&] { q.DeQue<half>(); }, ErrorCode::Constraint, "TQue::DeQue: the queue is empty");
  auto t = q.AllocTensor<half>();
  expect_reject([&] { q.AllocTensor<half>(); }, ErrorCode::Constraint,
                "TQue::AllocTensor: no free buffer");
  q.FreeTensor(t);
  expect_reject([] { set_product("atlas_a9"); }, ErrorCode::Unsupported,
                "unknown Ascend C product 'atlas_a9'");
}

}  // namespace
