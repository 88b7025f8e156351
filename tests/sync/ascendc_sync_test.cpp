// The pipeline-hazard checker on Ascend C kernels run with ICPU_RUN_KF (issue 22,
// docs/ascendc.md#sync-checker): the report of a missing flag, each ordering construct (SetFlag /
// WaitFlag, TQue, PipeBarrier, SyncAll, SetAtomicAdd), flag misuse, cross-block GM, the example
// kernels clean, and dropping each flag of a double-buffered kernel reports exactly what it prevented.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../../examples/ascendc/add_custom.hpp"
#include "../../examples/ascendc/add_sync.hpp"
#include "tikicpulib.h"
#include "tilesim/error.hpp"
#include "tilesim/sync.hpp"

namespace {

namespace ts = tilesim::sync;
using AscendC::HardEvent;

class AscendcSync : public ::testing::Test {
 protected:
  void SetUp() override {
    ts::enable(true);
    ts::clear_reports();
  }
  void TearDown() override {
    ts::enable(false);
    ts::clear_reports();
  }
};

// Reports without the column numbers (g++ and clang place a call's column differently).
// "x.cpp:12:34" -> "x.cpp:12" (by hand: g++ 12's <regex> trips -Wmaybe-uninitialized in the
// sanitizer build).
std::string without_columns(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const size_t cpp = s.find(".cpp:", i), hpp = s.find(".hpp:", i);
    const size_t at = std::min(cpp, hpp);
    if (at == std::string::npos) break;
    size_t j = at + 5;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    out.append(s, i, j - i);
    i = j;
    if (j > at + 5 && j < s.size() && s[j] == ':' && j + 1 < s.size() &&
        std::isdigit(static_cast<unsigned char>(s[j + 1]))) {
      i = j + 1;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    }
  }
  out.append(s, i, std::string::npos);
  return out;
}

// Runs `launch`; true when it threw tilesim::Error (the checker's verdict or a block's error).
template <class F>
bool fails(F&& launch) {
  try {
    launch();
  } catch (const tilesim::Error&) {
    return true;
  }
  return false;
}

constexpr int32_t kN = 64;  // floats per block: 256 bytes, one tile
int g_copy_line = 0, g_add_line = 0;

enum Mode : int32_t { kNoSync, kQueues, kFlags, kBarrier };

// GM -> UB, Add, UB -> GM in one block: the copy-in ordered before the add by nothing, a TQue, a
// flag pair or PipeBarrier<PIPE_ALL>; the add and the copy-out by a flag pair (or the queue).
extern "C" __global__ __aicore__ void copy_add(GM_ADDR x, GM_ADDR z, int32_t mode) {
  AscendC::TPipe pipe;
  AscendC::GlobalTensor<float> xGm, zGm;
  xGm.SetGlobalBuffer((__gm__ float*)x + kN * AscendC::GetBlockIdx(), kN);
  zGm.SetGlobalBuffer((__gm__ float*)z + kN * AscendC::GetBlockIdx(), kN);
  if (mode == kQueues) {
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQ;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, kN * sizeof(float));
    pipe.InitBuffer(outQ, 1, kN * sizeof(float));
    AscendC::LocalTensor<float> xl = inQ.AllocTensor<float>();
    AscendC::DataCopy(xl, xGm, kN);
    inQ.EnQue(xl);
    xl = inQ.DeQue<float>();
    AscendC::LocalTensor<float> zl = outQ.AllocTensor<float>();
    AscendC::Add(zl, xl, xl, kN);
    outQ.EnQue(zl);
    inQ.FreeTensor(xl);
    zl = outQ.DeQue<float>();
    AscendC::DataCopy(zGm, zl, kN);
    outQ.FreeTensor(zl);
    return;
  }
  AscendC::TBuf<> xb, zb;
  pipe.InitBuffer(xb, kN * sizeof(float));
  pipe.InitBuffer(zb, kN * sizeof(float));
  AscendC::LocalTensor<float> xl = xb.Get<float>(), zl = zb.Get<float>();
  g_copy_line = __LINE__ + 1;
  AscendC::DataCopy(xl, xGm, kN);
  if (mode == kFlags) {
    AscendC::SetFlag<HardEvent::MTE2_V>(0);
    AscendC::WaitFlag<HardEvent::MTE2_V>(0);
  }
  if (mode == kBarrier) AscendC::PipeBarrier<PIPE_ALL>();
  g_add_line = __LINE__ + 1;
  AscendC::Add(zl, xl, xl, kN);
  AscendC::SetFlag<HardEvent::V_MTE3>(0);
  AscendC::WaitFlag<HardEvent::V_MTE3>(0);
  AscendC::DataCopy(zGm, zl, kN);
}

struct Gm {
  explicit Gm(size_t floats) : p(static_cast<float*>(AscendC::GmAlloc(floats * sizeof(float)))) {}
  ~Gm() { AscendC::GmFree(p); }
  GM_ADDR addr() const { return reinterpret_cast<GM_ADDR>(p); }
  float* p;
};

void run_copy_add(int32_t mode, int32_t blocks = 1) {
  Gm x(size_t(kN) * blocks), z(size_t(kN) * blocks);
  for (int i = 0; i < kN * blocks; ++i) x.p[i] = float(i);
  ICPU_RUN_KF(copy_add, blocks, x.addr(), z.addr(), mode);
  for (int i = 0; i < kN * blocks; ++i) ASSERT_EQ(z.p[i], 2.0f * float(i)) << i;  // results unchanged
}

TEST_F(AscendcSync, MissingFlagIsReportedWithBothSitesAndTheFix) {
  EXPECT_TRUE(fails([] { run_copy_add(kNoSync); }));
  const std::string f = __FILE__;
  EXPECT_EQ(without_columns(ts::report_text()),
            "tilesim sync: RAW hazard (read after write)\n"
            "  first:  DataCopy on PIPE_MTE2 at " + f + ":" + std::to_string(g_copy_line) +
                " writes UB [0x0, 0x100)\n"
                "  second: Add on PIPE_V at " + f + ":" + std::to_string(g_add_line) +
                " reads UB [0x0, 0x100), not ordered after it\n"
                "  fix: SetFlag<HardEvent::MTE2_V>(EVENT_ID0) after the first, WaitFlag<HardEvent::MTE2_V>(EVENT_ID0) "
                "before the second [docs/sync.md#hazards]\n"
                "  in block 0\n"
                "tilesim sync: 1 distinct problem found [docs/sync.md]\n");
}

TEST_F(AscendcSync, LaunchErrorNamesTheKernelAndTheCount) {
  Gm x(kN), z(kN);
  try {
    ICPU_RUN_KF(copy_add, 1, x.addr(), z.addr(), int32_t(kNoSync));
    FAIL() << "no error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Constraint);
    EXPECT_NE(std::string(e.what()).find("ICPU_RUN_KF(copy_add): the sync checker found 1 pipeline hazard(s)"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(AscendcSync, QueuesFlagsAndBarrierOrderThePipes) {
  for (int32_t mode : {kQueues, kFlags, kBarrier}) {
    EXPECT_FALSE(fails([&] { run_copy_add(mode, 3); })) << mode;
    EXPECT_EQ(ts::report_text(), "") << mode;
  }
}

TEST_F(AscendcSync, OffMeansNoReportsAndTheSameResult) {
  ts::enable(false);
  EXPECT_FALSE(fails([] { run_copy_add(kNoSync); }));
  EXPECT_EQ(ts::hazard_count(), 0u);
}

// ---- the double-buffered kernels ----

TEST_F(AscendcSync, DoubleBufferedQueuesAreClean) {
  const size_t bytes = kTotal * sizeof(half);
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  auto* z = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
  EXPECT_FALSE(fails([&] { ICPU_RUN_KF(add_custom, kBlocks, x, y, z); }));
  EXPECT_EQ(ts::report_text(), "");
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(z);
}

// Each flag of add_sync.hpp dropped in turn: exactly the hazards it prevented (kind, first API,
// second API), results unchanged. A reported hazard is taken as fixed the way its report says
// (docs/sync.md#hazards): dropping V_MTE2 reports the copy of x, and the copy of y after it is then
// ordered; dropping MTE2_V reports both reads of the add, whose y copy came after x's.
struct DropCase {
  int32_t drop;
  const char* kind;
  const char* first;
  const char* second;
  size_t reports;
};
constexpr DropCase kDrops[] = {
    {add_sync_ex::kMte2V, "RAW", "DataCopy on PIPE_MTE2", "Add on PIPE_V", 2},   // x and y
    {add_sync_ex::kVMte3, "RAW", "Add on PIPE_V", "DataCopy on PIPE_MTE3", 1},   // z
    {add_sync_ex::kVMte2, "WAR", "Add on PIPE_V", "DataCopy on PIPE_MTE2", 1},   // x reused (y then ordered)
    {add_sync_ex::kMte3V, "WAR", "DataCopy on PIPE_MTE3", "Add on PIPE_V", 1},   // z reused
};

TEST_F(AscendcSync, DoubleBufferedFlagsAreCleanAndEachDroppedFlagIsFound) {
  EXPECT_TRUE(add_sync_ex::run(add_sync_ex::kNone));
  EXPECT_EQ(ts::report_text(), "");
  for (const DropCase& c : kDrops) {
    ts::clear_reports();
    EXPECT_FALSE(add_sync_ex::run(c.drop)) << c.drop;  // the launch fails
    ts::enable(false);
    EXPECT_TRUE(add_sync_ex::run(c.drop)) << c.drop;  // the result is right without the checker
    ts::enable(true);
    const std::string r = ts::report_text();
    EXPECT_EQ(ts::hazard_count(), c.reports) << r;
    const std::string head = std::string("tilesim sync: ") + c.kind + " hazard";
    size_t n = 0;
    for (size_t p = r.find(head); p != std::string::npos; p = r.find(head, p + 1)) ++n;
    EXPECT_EQ(n, c.reports) << r;
    EXPECT_NE(r.find(std::string("first:  ") + c.first), std::string::npos) << r;
    EXPECT_NE(r.find(std::string("second: ") + c.second), std::string::npos) << r;
    EXPECT_NE(r.find("add_sync.hpp:"), std::string::npos) << r;
  }
}

// ---- flag misuse ----

extern "C" __global__ __aicore__ void misuse(int32_t which) {
  if (which == 0) AscendC::WaitFlag<HardEvent::MTE2_V>(3);  // no SetFlag before it
  if (which == 1) AscendC::SetFlag<HardEvent::V_MTE3>(2);   // never waited
}

TEST_F(AscendcSync, WaitWithoutSetAndSetNeverWaited) {
  EXPECT_TRUE(fails([] { ICPU_RUN_KF(misuse, 1, int32_t(0)); }));
  std::string r = without_columns(ts::report_text());
  EXPECT_NE(r.find("tilesim sync: wait with no earlier set (a hang on hardware)\n"
                   "  WaitFlag(PIPE_MTE2, PIPE_V, 3) at " + std::string(__FILE__) + ":"),
            std::string::npos)
      << r;
  ts::clear_reports();
  EXPECT_TRUE(fails([] { ICPU_RUN_KF(misuse, 2, int32_t(1)); }));
  r = ts::report_text();
  EXPECT_NE(r.find("tilesim sync: flag set and never waited\n  SetFlag(PIPE_V, PIPE_MTE3, 2) at "), std::string::npos)
      << r;
  EXPECT_NE(r.find("seen 2 times (first in block 0)"), std::string::npos) << r;
}

// ---- across blocks ----

enum XMode : int32_t { kBoth, kSyncAllBetween, kAtomic };

// Every block copies the same 64 floats to the same GM bytes.
extern "C" __global__ __aicore__ void same_gm(GM_ADDR z, int32_t mode) {
  AscendC::TPipe pipe;
  AscendC::TBuf<> zb;
  pipe.InitBuffer(zb, kN * sizeof(float));
  AscendC::LocalTensor<float> zl = zb.Get<float>();
  AscendC::Duplicate(zl, 1.5f, kN);
  AscendC::SetFlag<HardEvent::V_MTE3>(0);
  AscendC::WaitFlag<HardEvent::V_MTE3>(0);
  AscendC::GlobalTensor<float> zGm;
  zGm.SetGlobalBuffer((__gm__ float*)z, kN);
  if (mode == kSyncAllBetween) {
    if (AscendC::GetBlockIdx() == 0) AscendC::DataCopy(zGm, zl, kN);
    AscendC::SyncAll();
    if (AscendC::GetBlockIdx() == 1) AscendC::DataCopy(zGm, zl, kN);
    return;
  }
  if (mode == kAtomic) AscendC::SetAtomicAdd<float>();
  AscendC::DataCopy(zGm, zl, kN);
  if (mode == kAtomic) AscendC::SetAtomicNone();
}

TEST_F(AscendcSync, CrossBlockGmWritesNeedSyncAllOrAtomics) {
  Gm z(kN);
  EXPECT_TRUE(fails([&] { ICPU_RUN_KF(same_gm, 2, z.addr(), int32_t(kBoth)); }));
  const std::string r = ts::report_text();
  EXPECT_NE(r.find("tilesim sync: cross-block GM hazard (two blocks write the same bytes)\n  block 0: DataCopy on "
                   "PIPE_MTE3 at "),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("fix: SyncAll() between them"), std::string::npos) << r;
  ts::clear_reports();
  EXPECT_FALSE(fails([&] { ICPU_RUN_KF(same_gm, 2, z.addr(), int32_t(kSyncAllBetween)); }));
  EXPECT_EQ(ts::report_text(), "");
  for (int i = 0; i < kN; ++i) z.p[i] = 1.0f;
  EXPECT_FALSE(fails([&] { ICPU_RUN_KF(same_gm, 4, z.addr(), int32_t(kAtomic)); }));
  EXPECT_EQ(ts::report_text(), "");
  for (int i = 0; i < kN; ++i) ASSERT_EQ(z.p[i], 7.0f) << i;  // 1 + 4 blocks * 1.5
}

// SetAtomicAdd in every type it takes: GM = GM + UB for DataCopy and DataCopyPad; SetAtomicNone
// stores again.
template <typename T>
void atomic_kernel(GM_ADDR z) {
  AscendC::TPipe pipe;
  AscendC::TBuf<> b;
  pipe.InitBuffer(b, 32);
  AscendC::LocalTensor<T> t = b.Get<T>();
  AscendC::Duplicate(t, T(3), int32_t(32 / sizeof(T)));
  AscendC::GlobalTensor<T> g;
  g.SetGlobalBuffer((__gm__ T*)z, 64 / sizeof(T));
  AscendC::SetAtomicAdd<T>();
  AscendC::DataCopy(g, t, 32 / sizeof(T));
  AscendC::DataCopyPad(g, t, AscendC::DataCopyExtParams(1, 32, 0, 0, 0));
  AscendC::SetAtomicNone();
  AscendC::DataCopy(g[32 / sizeof(T)], t, 32 / sizeof(T));
}
template <typename T>
void check_atomic() {
  auto* z = static_cast<T*>(AscendC::GmAlloc(64));
  for (size_t i = 0; i < 64 / sizeof(T); ++i) z[i] = T(1);
  ICPU_RUN_KF(atomic_kernel<T>, 1, reinterpret_cast<GM_ADDR>(z));
  for (size_t i = 0; i < 32 / sizeof(T); ++i) EXPECT_EQ(float(z[i]), 7.0f) << i;  // 1 + 3 + 3
  for (size_t i = 32 / sizeof(T); i < 64 / sizeof(T); ++i) EXPECT_EQ(float(z[i]), 3.0f) << i;
  AscendC::GmFree(z);
}

TEST_F(AscendcSync, SetAtomicAddAddsEveryType) {
  ts::enable(false);
  check_atomic<float>();
  check_atomic<half>();
  check_atomic<int32_t>();
  check_atomic<int16_t>();
  check_atomic<int8_t>();
  check_atomic<bfloat16_t>();
}

extern "C" __global__ __aicore__ void scalar_read(GM_ADDR) {
  AscendC::TPipe pipe;
  AscendC::TBuf<> b;
  pipe.InitBuffer(b, 32);
  AscendC::LocalTensor<float> t = b.Get<float>();
  AscendC::Duplicate(t, 2.0f, 8);
  (void)t.GetValue(0);
}

TEST_F(AscendcSync, ScalarReadsNeedTheirFlags) {
  // GetValue (PIPE_S) of a vector result needs V_S: the examples' ScalarOf helpers have it.
  Gm z(kN);
  EXPECT_TRUE(fails([&] { ICPU_RUN_KF(scalar_read, 1, z.addr()); }));
  EXPECT_NE(ts::report_text().find("second: GetValue on PIPE_S"), std::string::npos) << ts::report_text();
}

}  // namespace

// ---- every Ascend C example program is clean; the one with a flag missing is not ----

namespace example_runs {
int run(const std::string& exe, std::string* err) {
  const std::string log = ::testing::TempDir() + "ascendc_sync_example.err";
  const int rc = std::system(("TILESIM_CHECK=sync '" + exe + "' >/dev/null 2>'" + log + "'").c_str());
  std::ifstream f(log);
  err->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return rc;
}
}  // namespace example_runs

TEST(AscendcSyncExamples, EveryExampleIsCleanAndTheMissingFlagIsCaught) {
  const std::string dir = std::string(TILESIM_BINARY_DIR) + "/examples/";
  int seen = 0;
  for (const char* name : {"add_custom", "add_sync", "block_reduce_sum", "counter_mode", "debug_print",
                           "layernorm_custom", "softmax_custom"}) {
    std::string err;
    EXPECT_EQ(example_runs::run(dir + "example_ascendc_" + name, &err), 0) << name << "\n" << err;
    EXPECT_EQ(err.find("tilesim sync"), std::string::npos) << name << "\n" << err;
    ++seen;
  }
  std::string err;
  EXPECT_NE(example_runs::run(dir + "example_ascendc_add_sync_missing_flag", &err), 0);
  EXPECT_NE(err.find("tilesim sync: RAW hazard (read after write)\n  first:  Add on PIPE_V at "), std::string::npos)
      << err;
  EXPECT_NE(err.find("fix: SetFlag<HardEvent::V_MTE3>(EVENT_ID0)"), std::string::npos) << err;
  EXPECT_NE(err.find("1 distinct problem found"), std::string::npos) << err;
  EXPECT_EQ(seen, 7);
}
