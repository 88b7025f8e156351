// ICPU_RUN_KF (spec 41 §1): launch checks before any block runs, one core per block, block identity,
// results independent of the thread count, SyncAll without deadlock, the per-block error report,
// SetFlag/WaitFlag pairing, the tiling macros.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../../examples/ascendc/add_custom.hpp"  // the example's kernel: add_custom, 8 blocks
#include "kernel_operator.h"
#include "tikicpulib.h"
#include "tilesim/parallel.hpp"

namespace ts = tilesim::ascendc;
using tilesim::ErrorCode;

namespace {

struct Gm {
  size_t bytes;
  uint8_t* p;
  explicit Gm(size_t n) : bytes(n), p(static_cast<uint8_t*>(AscendC::GmAlloc(n))) {}
  ~Gm() { AscendC::GmFree(p); }
  half* h() const { return reinterpret_cast<half*>(p); }
  float* f() const { return reinterpret_cast<float*>(p); }
};

struct Launch : ::testing::Test {
  void SetUp() override {
    AscendC::set_product("atlas_a2");
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_SET_TILING_KEY(0);
  }
  void TearDown() override { tilesim::set_num_threads(0); }
};

std::vector<uint8_t> run_add(unsigned threads) {
  tilesim::set_num_threads(threads);
  Gm x(kTotal * 2), y(kTotal * 2), z(kTotal * 2);
  for (int i = 0; i < kTotal; ++i) {
    x.h()[i] = half(float(i % 977) * 0.37f - 150.0f);
    y.h()[i] = half(float(i % 313) * -1.13f + 60000.0f * (i % 101 == 0));
  }
  ICPU_RUN_KF(add_custom, kBlocks, x.p, y.p, z.p);
  for (int i = 0; i < kTotal; ++i) {
    half want = half(float(x.h()[i]) + float(y.h()[i]));
    if ((want.bits & 0x7FFF) == 0x7C00) want.bits = (want.bits & 0x8000) | 0x7BFF;  // CTRL saturation
    EXPECT_EQ(z.h()[i].bits, want.bits) << i;
  }
  return std::vector<uint8_t>(z.p, z.p + z.bytes);
}

TEST_F(Launch, AddKernelBitIdenticalAcrossThreadCounts) {
  const auto one = run_add(1), two = run_add(2), four = run_add(4);
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, four);
}

extern "C" __global__ __aicore__ void identity(GM_ADDR out) {
  auto* p = reinterpret_cast<int64_t*>(out) + 4 * AscendC::GetBlockIdx();
  p[0] = AscendC::GetBlockIdx();
  p[1] = AscendC::GetBlockNum();
  p[2] = AscendC::GetSubBlockIdx();
  p[3] = AscendC::GetTaskRation() * 100 + block_idx * 10 + (block_num == AscendC::GetBlockNum());
}

TEST_F(Launch, BlockIdentityAivAndMix) {
  Gm g(4 * 8 * 8);
  ICPU_RUN_KF(identity, 3, g.p);
  const auto* p = reinterpret_cast<const int64_t*>(g.p);
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(p[4 * b], b);
    EXPECT_EQ(p[4 * b + 1], 3);
    EXPECT_EQ(p[4 * b + 2], 0);
    EXPECT_EQ(p[4 * b + 3], 100 + b * 10 + 1);
  }
  // MIX_MODE: two vector cores per block, GetBlockIdx = block * 2 + sub.
  AscendC::SetKernelMode(KernelMode::MIX_MODE);
  ICPU_RUN_KF(identity, 3, g.p);
  for (int c = 0; c < 6; ++c) {
    EXPECT_EQ(p[4 * c], c);
    EXPECT_EQ(p[4 * c + 1], 3);
    EXPECT_EQ(p[4 * c + 2], c % 2);
    EXPECT_EQ(p[4 * c + 3], 200 + c * 10 + 1);
  }
  AscendC::SetKernelMode(KernelMode::AIC_MODE);
  try {
    ICPU_RUN_KF(identity, 3, g.p);
    ADD_FAILURE() << "AIC_MODE ran";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  }
  // Outside a launch: block 0 of 1.
  EXPECT_EQ(AscendC::GetBlockIdx(), 0);
  EXPECT_EQ(AscendC::GetBlockNum(), 1);
}

// Every block writes its value, SyncAll, then every block reads all of them: with one thread the
// blocks must still all reach the barrier.
extern "C" __global__ __aicore__ void sync_sum(GM_ADDR buf) {
  auto* p = reinterpret_cast<float*>(buf);
  const int64_t b = AscendC::GetBlockIdx(), n = AscendC::GetBlockNum();
  p[b] = float(b + 1);
  AscendC::SyncAll();
  float s = 0;
  for (int64_t i = 0; i < n; ++i) s += p[i];
  AscendC::SyncAll<true>();
  p[n + b] = s;
}

TEST_F(Launch, SyncAllNeverDeadlocksAndPublishesGm) {
  for (unsigned threads : {1u, 2u, 3u}) {
    tilesim::set_num_threads(threads);
    Gm g(64 * 4);
    ICPU_RUN_KF(sync_sum, 16, g.p);
    for (int b = 0; b < 16; ++b) EXPECT_EQ(g.f()[16 + b], 136.0f) << threads;
  }
}

extern "C" __global__ __aicore__ void sync_missing(GM_ADDR) {
  if (AscendC::GetBlockIdx() == 2) return;  // never reaches the barrier
  AscendC::SyncAll();
}

TEST_F(Launch, BlockEndingWhileOthersWaitIsAnError) {
  tilesim::set_num_threads(1);
  Gm g(64);
  try {
    ICPU_RUN_KF(sync_missing, 4, g.p);
    ADD_FAILURE() << "no error";
  } catch (const tilesim::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("ICPU_RUN_KF(sync_missing): block 0 of 4: SyncAll: block 0 of 4 waits in SyncAll, but "
                     "block 2 of 4 ended without reaching it"),
              std::string::npos)
        << w;
    EXPECT_NE(w.find("(and 2 other block(s) failed)"), std::string::npos) << w;
  }
}

extern "C" __global__ __aicore__ void write_then_fail(GM_ADDR out) {
  auto* p = reinterpret_cast<float*>(out);
  p[AscendC::GetBlockIdx()] = 1.0f;
  if (AscendC::GetBlockIdx() == 3) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> big;
    pipe.InitBuffer(big, 200 * 1024);  // past the 192 KB UB
  }
  p[8 + AscendC::GetBlockIdx()] = 2.0f;
}

TEST_F(Launch, FailedBlockReportedAfterEveryBlockRan) {
  Gm g(16 * 4);
  try {
    ICPU_RUN_KF(write_then_fail, 8, g.p);
    ADD_FAILURE() << "no error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Bounds);
    EXPECT_EQ(std::string(e.what()),
              "ICPU_RUN_KF(write_then_fail): block 3 of 8: TPipe::InitBuffer: allocation of 204800 bytes at UB "
              "offset 0 exceeds the 196608-byte UB of atlas_a2 [docs/ascendc.md#ub]");
  }
  for (int b = 0; b < 8; ++b) {
    EXPECT_EQ(g.f()[b], 1.0f);
    EXPECT_EQ(g.f()[8 + b], b == 3 ? 0.0f : 2.0f) << b;  // block 3 stopped at the failing call
  }
}

int g_runs = 0;
extern "C" __global__ __aicore__ void count_runs(GM_ADDR, GM_ADDR) {
  ++g_runs;
}

TEST_F(Launch, ChecksBeforeAnyBlockRuns) {
  tilesim::set_num_threads(1);
  Gm g(64);
  std::vector<uint8_t> host(64);
  g_runs = 0;
  auto expect = [&](auto&& fn, const std::string& msg) {
    try {
      fn();
      ADD_FAILURE() << "no error: " << msg;
    } catch (const tilesim::Error& e) {
      EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << e.what();
    }
  };
  expect([&] { ICPU_RUN_KF(count_runs, 0, g.p, g.p); }, "ICPU_RUN_KF(count_runs): blockDim must be in [1, 65535], got 0");
  expect([&] { ICPU_RUN_KF(count_runs, 65536, g.p, g.p); }, "got 65536");
  expect([&] { ICPU_RUN_KF(count_runs, 2, g.p, host.data()); },
         "argument 2 (pointer");
  expect([&] { ICPU_RUN_KF(count_runs, 2, g.p, host.data()); }, "is neither null nor inside a live GmAlloc block");
  EXPECT_EQ(g_runs, 0);
  ICPU_RUN_KF(count_runs, 2, g.p, nullptr);  // null is allowed
  ICPU_RUN_KF(count_runs, 1, g.p + 63, g.p);  // any address inside the block
  EXPECT_EQ(g_runs, 3);
  // A lambda is a kernel too (the ops-nn unit tests pass one).
  auto k = [](GM_ADDR p) { reinterpret_cast<int32_t*>(p)[AscendC::GetBlockIdx()] = 7; };
  ICPU_RUN_KF(k, 4, g.p);
  EXPECT_EQ(reinterpret_cast<int32_t*>(g.p)[3], 7);
  expect([&] { AscendC::GmFree(host.data()); }, "GmFree: pointer");
}

extern "C" __global__ __aicore__ void gm_outside(GM_ADDR in, GM_ADDR out) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 256);
  AscendC::LocalTensor<float> t = buf.Get<float>();
  AscendC::GlobalTensor<float> src, dst;
  src.SetGlobalBuffer((__gm__ float*)in + 48, 64);  // the tensor claims 64, the block has 16 left
  dst.SetGlobalBuffer((__gm__ float*)out, 64);
  AscendC::DataCopy(t, src, 64);
  AscendC::DataCopy(dst, t, 64);
}

TEST_F(Launch, GmAccessPastItsGmAllocBlock) {
  Gm in(64 * 4), out(64 * 4);
  try {
    ICPU_RUN_KF(gm_outside, 1, in.p, out.p);
    ADD_FAILURE() << "no error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Bounds);
    EXPECT_NE(std::string(e.what()).find("DataCopy: src: GM bytes [0, 256) from the tensor's start run past the end "
                                         "of its GmAlloc block (64 bytes left) [docs/ascendc.md#gm]"),
              std::string::npos)
        << e.what();
  }
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out.f()[i], 0.0f);
}

extern "C" __global__ __aicore__ void gm_not_alloc(GM_ADDR) {
  static float host[64];
  AscendC::GlobalTensor<float> g;
  g.SetGlobalBuffer(host, 64);
}

TEST_F(Launch, GlobalTensorOutsideGmAllocRejectedInsideLaunch) {
  Gm g(64);
  try {
    ICPU_RUN_KF(gm_not_alloc, 1, g.p);
    ADD_FAILURE() << "no error";
  } catch (const tilesim::Error& e) {
    EXPECT_NE(std::string(e.what()).find("GlobalTensor::SetGlobalBuffer: pointer"), std::string::npos) << e.what();
  }
}

extern "C" __global__ __aicore__ void flags(GM_ADDR, int64_t mode) {
  const int32_t id = 1;
  AscendC::SetFlag<HardEvent::MTE2_V>(id);
  if (mode == 0) AscendC::WaitFlag<HardEvent::MTE2_V>(id);
  if (mode == 2) AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(id);
}

TEST_F(Launch, SetFlagWaitFlagPairing) {
  Gm g(64);
  ICPU_RUN_KF(flags, 2, g.p, int64_t{0});
  for (int64_t mode : {1, 2}) {
    try {
      ICPU_RUN_KF(flags, 2, g.p, mode);
      ADD_FAILURE() << "no error " << mode;
    } catch (const tilesim::Error& e) {
      EXPECT_NE(std::string(e.what()).find(mode == 1 ? "SetFlag call(s) without a matching WaitFlag"
                                                     : "WaitFlag: HardEvent"),
                std::string::npos)
          << e.what();
    }
  }
}

struct TilingData {
  uint32_t totalLength;
  uint32_t tileNum;
  float scale;
};

extern "C" __global__ __aicore__ void tiled(GM_ADDR out, GM_ADDR tiling) {
  REGISTER_TILING_DEFAULT(TilingData);
  GET_TILING_DATA(t, tiling);
  GET_TILING_DATA_WITH_STRUCT(TilingData, t2, tiling);
  GET_TILING_DATA_MEMBER(TilingData, tileNum, tn, tiling);
  GET_TILING_DATA_PTR_WITH_STRUCT(TilingData, tp, tiling);
  t.totalLength += 1;  // a block-local copy, not const
  auto* p = reinterpret_cast<float*>(out) + 4 * AscendC::GetBlockIdx();
  p[0] = float(t.totalLength);
  p[1] = float(tn) * t2.scale;
  p[2] = tp->scale;
  p[3] = TILING_KEY_IS(2) ? 1.0f : TILING_KEY_IS(1) ? 0.5f : 0.0f;
}

TEST_F(Launch, TilingMacrosAndKey) {
  Gm out(2 * 16), tiling(sizeof(TilingData));
  *reinterpret_cast<TilingData*>(tiling.p) = {100, 8, 0.25f};
  ICPU_SET_TILING_KEY(2);
  ICPU_RUN_KF(tiled, 2, out.p, tiling.p);
  for (int b = 0; b < 2; ++b) {
    EXPECT_EQ(out.f()[4 * b], 101.0f);
    EXPECT_EQ(out.f()[4 * b + 1], 2.0f);
    EXPECT_EQ(out.f()[4 * b + 2], 0.25f);
    EXPECT_EQ(out.f()[4 * b + 3], 1.0f);
  }
  EXPECT_EQ(reinterpret_cast<TilingData*>(tiling.p)->totalLength, 100u);  // GM unchanged
  try {
    ICPU_RUN_KF(tiled, 1, out.p, tiling.p + 8);  // the struct runs past its block
    ADD_FAILURE() << "no error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Bounds);
    EXPECT_NE(std::string(e.what()).find("[docs/ascendc.md#tiling]"), std::string::npos) << e.what();
  }
}

// The older tik2 spellings and ParamOffset of the 2023 samples.
extern "C" __global__ __aicore__ void tik2_offsets(GM_ADDR x) {
  using namespace tik2;
  GM_ADDR mine = ParamOffset<float>(x, 4);
  GlobalTensor<float> g;
  g.SetGlobalBuffer((__gm__ float*)mine, 4);
  g.SetValue(0, float(GetBlockIdx()));
}

TEST_F(Launch, Tik2Spellings) {
  auto* x = static_cast<uint8_t*>(tik2::GmAlloc(4 * 4 * 4));
  ICPU_RUN_KF(tik2_offsets, 4, x);
  for (int b = 0; b < 4; ++b) EXPECT_EQ(reinterpret_cast<float*>(x)[4 * b], float(b));
  tik2::GmFree(x);
}

}  // namespace
