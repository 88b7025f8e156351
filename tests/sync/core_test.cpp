// The pipeline-hazard checker's core (issue 22, docs/sync.md): hazards from raw access records,
// each ordering construct, flag misuse, cross-block GM phases, dedup counts and the timeline.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tilesim/error.hpp"
#include "tilesim/sync.hpp"

namespace {

namespace ts = tilesim::sync;
using ts::Buf;

class SyncCore : public ::testing::Test {
 protected:
  void SetUp() override {
    ts::enable(true);
    ts::end_kernel();
    ts::clear_reports();
    ts::set_model(ts::Model::Pto);
  }
  void TearDown() override {
    ts::end_kernel();
    ts::clear_reports();
    ts::enable(false);
  }
  std::string finish() {
    ts::end_kernel();
    return ts::report_text();
  }
  alignas(64) unsigned char ub[4096] = {};
  alignas(64) unsigned char gm[4096] = {};
  ts::Range u(uint64_t off, uint64_t n) { return {Buf::UB, ub + off, off, n}; }
  ts::Range g(uint64_t off, uint64_t n) { return {Buf::GM, gm + off, 0x1000 + off, n}; }
  void load(uint64_t uo, uint64_t go, uint64_t n, uint32_t line) {
    const ts::Range r = g(go, n), w = u(uo, n);
    ts::access("TLOAD", ts::kMte2, {"k.cpp", line, 3}, &r, 1, &w, 1);
  }
  void vadd(uint64_t dst, uint64_t a, uint64_t n, uint32_t line) {
    const ts::Range r = u(a, n), w = u(dst, n);
    ts::access("TADD", ts::kV, {"k.cpp", line, 3}, &r, 1, &w, 1);
  }
  void store(uint64_t go, uint64_t uo, uint64_t n, uint32_t line) {
    const ts::Range r = u(uo, n), w = g(go, n);
    ts::access("TSTORE", ts::kMte3, {"k.cpp", line, 3}, &r, 1, &w, 1);
  }
};

TEST_F(SyncCore, RawWithoutFlagIsReportedWithBothSitesAndTheFix) {
  load(0, 0, 256, 10);
  vadd(256, 0, 256, 11);
  EXPECT_EQ(finish(),
            "tilesim sync: RAW hazard (read after write)\n"
            "  first:  TLOAD on PIPE_MTE2 at k.cpp:10:3 writes UB [0x0, 0x100)\n"
            "  second: TADD on PIPE_V at k.cpp:11:3 reads UB [0x0, 0x100), not ordered after it\n"
            "  fix: set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) after the first, wait_flag(PIPE_MTE2, "
            "PIPE_V, EVENT_ID0) before the second [docs/sync.md#hazards]\n"
            "tilesim sync: 1 distinct problem found [docs/sync.md]\n");
  EXPECT_EQ(ts::hazard_count(), 1u);
}

TEST_F(SyncCore, FlagOrdersProducerBeforeConsumer) {
  load(0, 0, 256, 10);
  ts::set_flag("set_flag", ts::kMte2, ts::kV, 0, {"k.cpp", 11, 1});
  ts::wait_flag("wait_flag", ts::kMte2, ts::kV, 0, {"k.cpp", 12, 1});
  vadd(256, 0, 256, 13);
  EXPECT_EQ(finish(), "");
}

TEST_F(SyncCore, FlagSetBeforeTheProducerDoesNotOrderIt) {
  ts::set_flag("set_flag", ts::kMte2, ts::kV, 0, {"k.cpp", 9, 1});
  load(0, 0, 256, 10);
  ts::wait_flag("wait_flag", ts::kMte2, ts::kV, 0, {"k.cpp", 11, 1});
  vadd(256, 0, 256, 12);
  const std::string r = finish();
  EXPECT_NE(r.find("RAW hazard"), std::string::npos) << r;
}

TEST_F(SyncCore, WrongFlagDirectionDoesNotOrder) {
  load(0, 0, 256, 10);
  ts::set_flag("set_flag", ts::kMte3, ts::kV, 0, {"k.cpp", 11, 1});
  ts::wait_flag("wait_flag", ts::kMte3, ts::kV, 0, {"k.cpp", 12, 1});
  vadd(256, 0, 256, 13);
  EXPECT_NE(finish().find("RAW hazard"), std::string::npos);
}

TEST_F(SyncCore, OrderingIsTransitiveThroughAThirdPipe) {
  load(0, 0, 256, 10);
  ts::set_flag("set_flag", ts::kMte2, ts::kS, 0, {"k.cpp", 11, 1});
  ts::wait_flag("wait_flag", ts::kMte2, ts::kS, 0, {"k.cpp", 12, 1});
  ts::set_flag("set_flag", ts::kS, ts::kV, 1, {"k.cpp", 13, 1});
  ts::wait_flag("wait_flag", ts::kS, ts::kV, 1, {"k.cpp", 14, 1});
  vadd(256, 0, 256, 15);
  EXPECT_EQ(finish(), "");
}

TEST_F(SyncCore, BarrierAllOrdersEverythingAndOnePipesBarrierNothing) {
  load(0, 0, 256, 10);
  ts::barrier("pipe_barrier", ts::kV, {"k.cpp", 11, 1});
  vadd(256, 0, 256, 12);
  EXPECT_NE(finish().find("RAW hazard"), std::string::npos);
  ts::clear_reports();
  load(0, 0, 256, 20);
  ts::barrier("pipe_barrier", ts::kAll, {"k.cpp", 21, 1});
  vadd(256, 0, 256, 22);
  EXPECT_EQ(finish(), "");
}

TEST_F(SyncCore, WarAndWawAreReported) {
  // V reads UB 0..256 (after an ordered load), then MTE2 reloads it with no V -> MTE2 flag: WAR.
  load(0, 0, 256, 10);
  ts::barrier("pipe_barrier", ts::kAll, {"k.cpp", 11, 1});
  vadd(512, 0, 256, 12);
  load(0, 256, 256, 13);
  std::string r = finish();
  EXPECT_NE(r.find("WAR hazard (write after read)\n  first:  TADD on PIPE_V at k.cpp:12:3 reads UB "
                   "[0x0, 0x100)\n  second: TLOAD on PIPE_MTE2 at k.cpp:13:3 writes UB [0x0, 0x100)"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0)"), std::string::npos) << r;
  ts::clear_reports();
  load(0, 0, 256, 20);
  vadd(0, 1024, 256, 21);  // V writes what MTE2 wrote, unordered
  r = finish();
  EXPECT_NE(r.find("WAW hazard (write after write)"), std::string::npos) << r;
}

TEST_F(SyncCore, DisjointBytesAndSamePipeNeverConflict) {
  load(0, 0, 256, 10);
  vadd(512, 256, 256, 11);  // other bytes
  load(0, 512, 256, 12);    // same pipe rewrite: program order
  EXPECT_EQ(finish(), "");
}

TEST_F(SyncCore, OnlyCommonBytesConflictNotASharedBlock) {
  load(0, 0, 20, 10);   // bytes 0..19
  vadd(64, 24, 8, 11);  // bytes 24..31: the same 32-byte block, no common byte
  EXPECT_EQ(finish(), "");
  load(0, 0, 20, 20);
  vadd(64, 16, 8, 21);  // bytes 16..23: common bytes 16..19
  EXPECT_NE(finish().find("RAW hazard"), std::string::npos);
}

TEST_F(SyncCore, EachDistinctHazardOnceWithACount) {
  for (int i = 0; i < 3; ++i) {
    load(0, 0, 256, 10);
    vadd(256, 0, 256, 11);
    ts::barrier("pipe_barrier", ts::kAll, {"k.cpp", 12, 1});
  }
  const std::string r = finish();
  EXPECT_EQ(ts::hazard_count(), 1u);
  EXPECT_NE(r.find("seen 3 times"), std::string::npos) << r;
}

TEST_F(SyncCore, FlagMisuse) {
  ts::wait_flag("wait_flag", ts::kMte2, ts::kV, 2, {"k.cpp", 5, 1});
  ts::set_flag("set_flag", ts::kV, ts::kMte3, 9, {"k.cpp", 6, 1});
  ts::set_flag("set_flag", ts::kV, ts::kMte3, 1, {"k.cpp", 7, 1});
  ts::set_flag("set_flag", ts::kV, ts::kMte3, 1, {"k.cpp", 8, 1});
  ts::set_flag("set_flag", ts::kMte3, ts::kMte2, 0, {"k.cpp", 9, 1});
  ts::wait_flag("wait_flag", ts::kMte3, ts::kMte2, 0, {"k.cpp", 10, 1});
  const std::string r = finish();
  EXPECT_NE(r.find("wait with no earlier set (a hang on hardware)\n  wait_flag(PIPE_MTE2, PIPE_V, 2) at k.cpp:5:1"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("event id out of range\n  set_flag(PIPE_V, PIPE_MTE3, 9) at k.cpp:6:1: event ids are 0..7"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("flag set twice before its wait\n  set_flag(PIPE_V, PIPE_MTE3, 1) at k.cpp:8:1"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("flag set and never waited\n  set_flag(PIPE_V, PIPE_MTE3, 1) at k.cpp:8:1"),
            std::string::npos)
      << r;
  EXPECT_EQ(ts::hazard_count(), 4u) << r;
}

TEST_F(SyncCore, QueueHandOverOrders) {
  load(0, 0, 256, 10);
  ts::post(42, ts::kMte2);  // EnQue after the copy
  ts::take(42, ts::kV);     // DeQue before the compute
  vadd(256, 0, 256, 11);
  EXPECT_EQ(finish(), "");
}

TEST_F(SyncCore, AscendCSpellingOfTheFix) {
  ts::set_model(ts::Model::AscendC);
  load(0, 0, 256, 10);
  vadd(256, 0, 256, 11);
  const std::string r = finish();
  EXPECT_NE(r.find("fix: SetFlag<HardEvent::MTE2_V>(EVENT_ID0) after the first, "
                   "WaitFlag<HardEvent::MTE2_V>(EVENT_ID0) before the second"),
            std::string::npos)
      << r;
}

TEST_F(SyncCore, CrossBlockGmConflictsPerPhase) {
  ts::begin_launch(2, ts::Model::AscendC);
  for (int b = 0; b < 2; ++b) {
    ts::begin_block(b);
    store(0, 0, 64, 30);  // both blocks write GM [0, 64)
    ts::end_block();
  }
  EXPECT_EQ(ts::end_launch(), 1u);
  std::string r = ts::report_text();
  EXPECT_NE(r.find("cross-block GM hazard (two blocks write the same bytes)\n  block 0: TSTORE on "
                   "PIPE_MTE3 at k.cpp:30:3 writes GM [0x1000, 0x1040)\n  block 1:"),
            std::string::npos)
      << r;
  ts::clear_reports();
  // Block 0 writes, SyncAll, block 1 reads: clean. Disjoint writes: clean.
  ts::begin_launch(2, ts::Model::AscendC);
  ts::begin_block(0);
  store(0, 0, 64, 40);
  ts::sync_all();
  ts::end_block();
  ts::begin_block(1);
  store(128, 64, 64, 41);
  ts::sync_all();
  load(256, 0, 64, 42);
  ts::end_block();
  EXPECT_EQ(ts::end_launch(), 0u) << ts::report_text();
  // Without the SyncAll the read is a cross-block RAW.
  ts::begin_launch(2, ts::Model::AscendC);
  ts::begin_block(0);
  store(0, 0, 64, 50);
  ts::end_block();
  ts::begin_block(1);
  load(256, 0, 64, 51);
  ts::end_block();
  EXPECT_EQ(ts::end_launch(), 1u);
  r = ts::report_text();
  EXPECT_NE(r.find("one block reads what another writes"), std::string::npos) << r;
}

TEST_F(SyncCore, AtomicStoresFromTwoBlocksAreNotAConflict) {
  ts::begin_launch(2, ts::Model::AscendC);
  for (int b = 0; b < 2; ++b) {
    ts::begin_block(b);
    ts::Range r = u(0, 64), w = g(0, 64);
    w.atomic = true;
    ts::access("DataCopy", ts::kMte3, {"k.cpp", 60, 3}, &r, 1, &w, 1);
    ts::end_block();
  }
  EXPECT_EQ(ts::end_launch(), 0u) << ts::report_text();
}

TEST_F(SyncCore, TimelineIsAChromeTrace) {
  const std::string path = ::testing::TempDir() + "sync_timeline_test.json";
  ts::set_timeline_path(path);
  load(0, 0, 256, 10);
  ts::set_flag("set_flag", ts::kMte2, ts::kV, 0, {"k.cpp", 11, 1});
  ts::wait_flag("wait_flag", ts::kMte2, ts::kV, 0, {"k.cpp", 12, 1});
  vadd(256, 0, 256, 13);
  store(0, 256, 256, 14);  // unordered after the add: a hazard marker
  ts::end_kernel();
  ts::write_timeline(path);
  ts::set_timeline_path("");
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string j = ss.str();
  EXPECT_EQ(j.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0), 0u);
  EXPECT_NE(j.find("\"name\":\"PIPE_MTE2\""), std::string::npos);
  EXPECT_NE(j.find("{\"ph\":\"X\",\"name\":\"TLOAD\",\"cat\":\"access\""), std::string::npos) << j;
  // TLOAD at slot 0 (ts 10), set_flag on MTE2 at slot 1, wait_flag on V at slot 2, each a slice
  // with its flow event inside it.
  EXPECT_NE(j.find("{\"ph\":\"X\",\"name\":\"TLOAD\",\"cat\":\"access\",\"pid\":1,\"tid\":4,\"ts\":10,"), std::string::npos) << j;
  EXPECT_NE(j.find("{\"ph\":\"X\",\"name\":\"set_flag\",\"cat\":\"flag\",\"pid\":1,\"tid\":4,\"ts\":20,"), std::string::npos) << j;
  EXPECT_NE(j.find("\"ph\":\"s\",\"name\":\"flag MTE2->V #0\",\"cat\":\"flag\",\"id\":1000000001,\"pid\":1,\"tid\":4,\"ts\":24}"), std::string::npos) << j;
  EXPECT_NE(j.find("{\"ph\":\"X\",\"name\":\"wait_flag\",\"cat\":\"flag\",\"pid\":1,\"tid\":1,\"ts\":30,"), std::string::npos) << j;
  EXPECT_NE(j.find("\"ph\":\"f\",\"name\":\"flag MTE2->V #0\",\"cat\":\"flag\",\"id\":1000000001,\"pid\":1,\"tid\":1,\"ts\":30,\"bp\":\"e\"}"), std::string::npos) << j;
  EXPECT_NE(j.find("HAZARD: RAW hazard"), std::string::npos) << j;
  EXPECT_EQ(j.substr(j.size() - 3), "]}\n");
}

TEST(SyncSwitch, ParseCheck) {
  EXPECT_TRUE(ts::parse_check("sync"));
  EXPECT_FALSE(ts::parse_check("off"));
  EXPECT_FALSE(ts::parse_check(""));
  try {
    ts::parse_check("race");
    FAIL();
  } catch (const tilesim::Error& e) {
    EXPECT_STREQ(e.what(), "TILESIM_CHECK: unknown check 'race' (accepted: sync, off) [docs/sync.md#switches]");
  }
}

}  // namespace
