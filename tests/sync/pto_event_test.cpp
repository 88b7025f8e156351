// PTO events as ordering for the hazard checker (issue 22 §2), as pto-isa's device build defines
// them (docs/pto-kernels.md#sync): Event<SrcOp, DstOp> = set_flag/wait_flag on its ops' pipes, an
// instruction's trailing events waited before it issues, TSYNC; and tilesim's RecordEvent token,
// which orders a consumer after exactly the instruction that returned it.
#include <gtest/gtest.h>

#include <pto/pto-inst.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tilesim/sync.hpp"

namespace {

using namespace pto;
namespace ts = tilesim::sync;

using V = Tile<TileType::Vec, float, 8, 8>;  // 256 bytes
using Gm = GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<1, 1, 1, 8, 1>>;

// A load-add-store kernel's tiles, TASSIGN'd apart.
class PtoEvent : public ::testing::Test {
 protected:
  void SetUp() override {
    ts::enable(true);
    ts::end_kernel();
    ts::clear_reports();
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x200);
    TASSIGN(c, 0x400);
    for (int r = 0; r < 8; ++r)
      for (int k = 0; k < 8; ++k)
        b.at(r, k) = 0.0f;  // the UB outlives tests; host writes are not accesses
  }
  void TearDown() override {
    ts::end_kernel();
    ts::clear_reports();
    ts::enable(false);
  }
  static std::string finish() {
    ts::end_kernel();
    return ts::report_text();
  }
  // As pto_site_test.cpp: the site of a call `callee` after `before` on a line indented by 2
  // (g++: the column of the call's parenthesis; clang: of the callee's first character).
  static std::string at(int line, std::string_view callee, std::string_view before = "") {
#if defined(__clang__)
    const size_t col = 3 + before.size();
#else
    const size_t col = 3 + before.size() + callee.size();
#endif
    return std::string(__FILE__) + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
  static bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }
  V a, b, c;
  std::vector<float> in = std::vector<float>(64, 2.0f), out = std::vector<float>(64, 0.0f);
  Gm g{in.data()}, go{out.data()};
};

// ---- clean kernels: each ordering construct ----

TEST_F(PtoEvent, RecordEventPassedToTheConsumerOrdersIt) {
  RecordEvent e = TLOAD(a, g);
  RecordEvent f = TADD(c, a, b, e);
  TSTORE(go, c, f);
  EXPECT_EQ(finish(), "");
  EXPECT_EQ(out[0], 2.0f);
}

TEST_F(PtoEvent, VendorEventAssignedFromTheInstruction) {
  // The vendor's documented pattern (pto-isa docs/coding/Event.md).
  Event<Op::TLOAD, Op::TADD> e0;
  Event<Op::TADD, Op::TSTORE_VEC> e1;
  e0 = TLOAD(a, g);
  e1 = TADD(c, a, b, e0);
  TSTORE(go, c, e1);
  EXPECT_EQ(finish(), "");
  EXPECT_EQ(out[0], 2.0f);
}

TEST_F(PtoEvent, VendorEventConstructedThenWaitedExplicitly) {
  Event<Op::TLOAD, Op::TADD> e = TLOAD(a, g);
  e.Wait();
  TADD(c, a, b);
  Event<Op::TADD, Op::TSTORE_VEC> f;
  TMUL(c, c, c);
  f.Record();  // orders both vector instructions before the store
  TSYNC(f);
  TSTORE(go, c);
  EXPECT_EQ(finish(), "");
  EXPECT_EQ(out[0], 4.0f);
}

TEST_F(PtoEvent, TsyncOfARecordEventOrdersEveryPipe) {
  RecordEvent e = TLOAD(a, g);
  TSYNC(e);
  TADD(c, a, b);
  EXPECT_EQ(finish(), "");
}

TEST_F(PtoEvent, SamePipeEventIsABarrierAndLeavesNoFlag) {
  Event<Op::TADD, Op::TMUL> e = TADD(c, a, b);  // V -> V: nothing to set
  TMUL(b, c, c, e);                             // a pipe_barrier(PIPE_V)
  EXPECT_EQ(finish(), "");
}

TEST_F(PtoEvent, LocationSpellingsFollowThePipeColumn) {
  // GM -> Mat -> Left / Right -> Acc -> GM, ordered only by events named with the vendor's
  // location-specific ops.
  std::vector<half> hh(16 * 16, half(1.0f));
  std::vector<float> hout(16 * 16, 0.0f);
  GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>> ga(hh.data());
  GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>> gc(hout.data());
  Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor> ma;
  TileLeft<half, 16, 16> l;
  TileRight<half, 16, 16> r;
  TileAcc<float, 16, 16> acc;
  TASSIGN(ma, 0x0);
  TASSIGN(l, 0x0);
  TASSIGN(r, 0x0);
  TASSIGN(acc, 0x0);
  Event<Op::TLOAD, Op::TMOV_M2L> e_ld = TLOAD(ma, ga);
  Event<Op::TMOV_M2L, Op::TMATMUL> e_l = TMOV(l, ma, e_ld);
  Event<Op::TEXTRACT_M2LR, Op::TMATMUL> e_r = TEXTRACT(r, ma, 0, 0);
  Event<Op::TMATMUL, Op::TSTORE_ACC> e_mm = TMATMUL(acc, l, r, e_l, e_r);
  TSTORE(gc, acc, e_mm);
  EXPECT_EQ(finish(), "");
  EXPECT_EQ(hout[0], 16.0f);
}

// ---- what events do not order ----

TEST_F(PtoEvent, RecordEventOrdersOnlyUpToItsInstruction) {
  // e is taken after the first load: the second load, on the same pipe, is not covered.
  TASSIGN(b, 0x600);
  RecordEvent e = TLOAD(a, g);
  const int second = __LINE__ + 1;
  TLOAD(b, g);
  const int add = __LINE__ + 1;
  TADD(c, a, b, e);
  const std::string rep = finish();
  EXPECT_EQ(ts::hazard_count(), 1u) << rep;
  EXPECT_TRUE(has(rep, "RAW hazard (read after write)\n  first:  TLOAD on PIPE_MTE2 at " +
                           at(second, "TLOAD") +
                           " writes UB [0x600, 0x700)\n  second: TADD on "
                           "PIPE_V at " +
                           at(add, "TADD") + " reads UB [0x600, 0x700)"))
      << rep;
}

TEST_F(PtoEvent, EventNamingAnotherPipeOrdersNothingForTheInstruction) {
  // The flag is set on the Event's SrcOp pipe (MTE3), as on chip, not on TLOAD's MTE2.
  const int load = __LINE__ + 1;
  Event<Op::TSTORE_VEC, Op::TADD> e = TLOAD(a, g);
  const int add = __LINE__ + 1;
  TADD(c, a, b, e);
  const std::string rep = finish();
  EXPECT_EQ(ts::hazard_count(), 1u) << rep;
  EXPECT_TRUE(has(
      rep, "first:  TLOAD on PIPE_MTE2 at " + std::string(__FILE__) + ":" + std::to_string(load)))
      << rep;
  EXPECT_TRUE(has(rep, "second: TADD on PIPE_V at " + at(add, "TADD") + " reads UB [0x0, 0x100)"))
      << rep;
}

TEST_F(PtoEvent, TsyncOfOneOpIsABarrierOfThatPipeOnly) {
  TLOAD(a, g);
  TSYNC<Op::TLOAD>();  // pipe_barrier(PIPE_MTE2): V is still not ordered after the load
  TADD(c, a, b);
  EXPECT_TRUE(has(finish(), "RAW hazard")) << ts::report_text();
  EXPECT_EQ(ts::hazard_count(), 1u);
}

// ---- event misuse, reported at the Event's lines ----

TEST_F(PtoEvent, RecordedAndNeverWaited) {
  const int load = __LINE__ + 1;
  Event<Op::TLOAD, Op::TADD, false, EVENT_ID3> e = TLOAD(a, g);
  (void)e;
  const std::string rep = finish();
  EXPECT_TRUE(has(rep, "flag set and never waited\n  set_flag(PIPE_MTE2, PIPE_V, 3) at " +
                           at(load, "TLOAD", "Event<Op::TLOAD, Op::TADD, false, EVENT_ID3> e = ")))
      << rep;
}

TEST_F(PtoEvent, WaitedAndNeverRecorded) {
  Event<Op::TLOAD, Op::TADD, false, EVENT_ID5> e;
  const int wait = __LINE__ + 1;
  e.Wait();
  const std::string rep = finish();
  EXPECT_TRUE(has(rep,
                  "wait with no earlier set (a hang on hardware)\n  wait_flag(PIPE_MTE2, "
                  "PIPE_V, 5) at " +
                      at(wait, "Wait", "e.")))
      << rep;
}

TEST_F(PtoEvent, NineLiveEventsOfOnePipePairReuseAnId) {
  // The vendor's automatic ids run round-robin over EVENT_ID0..7 per pipe pair; the ninth live
  // event sets a flag still pending (pto-isa's CPU build asserts "Event ID still occupied").
  std::vector<Event<Op::TLOAD, Op::TADD>> events(9);
  for (auto& e : events) e = TLOAD(a, g);
  for (auto& e : events) e.Wait();
  const std::string rep = finish();
  EXPECT_TRUE(has(rep, "flag set twice before its wait")) << rep;
}

// The checker off: events order nothing, cost nothing, and change no result.
TEST(PtoEventOff, EventsAreInertWhenTheCheckerIsOff) {
  ts::enable(false);
  ts::clear_reports();
  V a, c;
  TASSIGN(a, 0x0);
  TASSIGN(c, 0x400);
  std::vector<float> in(64, 5.0f);
  Gm g(in.data());
  Event<Op::TLOAD, Op::TADD> e = TLOAD(a, g);
  TADD(c, a, a, e);
  e.Wait();  // a second wait: nothing recorded while off
  TSYNC(e);
  ts::end_kernel();
  EXPECT_EQ(ts::report_text(), "");
  EXPECT_EQ(c.at(3, 3), 10.0f);
}

}  // namespace
