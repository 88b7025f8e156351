// The PTO C++ front end's source sites in hazard reports (issue 22 §4): every instruction form
// passes the kernel's call site (file:line:column) to the checker, including the forms with
// explicit template arguments, one or two trailing events, and TROWEXPAND*, which run outside
// the instruction table. Expected lines are the test's own (__LINE__ next to each call).
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

class PtoSite : public ::testing::Test {
 protected:
  void SetUp() override {
    ts::enable(true);
    ts::end_kernel();
    ts::clear_reports();
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
  // "<this file>:<line>:<col>" as the checker prints the site of a call starting in column 3
  // with `callee` (the name and template arguments): g++'s source_location gives the column of
  // the call's parenthesis, clang's __builtin_COLUMN the callee's first character.
  static std::string at(int line, std::string_view callee) {
#if defined(__clang__)
    const size_t col = 3;
#else
    const size_t col = 3 + callee.size();
#endif
    return std::string(__FILE__) + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
  static bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }
  std::vector<float> host = std::vector<float>(64, 2.0f);
  std::vector<float> out = std::vector<float>(64, 0.0f);
};

TEST_F(PtoSite, LoadThenAddWithoutFlagReportsBothLines) {
  V a, b, c;
  TASSIGN(a, 0x0);
  TASSIGN(b, 0x200);
  TASSIGN(c, 0x400);
  Gm g(host.data());
  const int load_line = __LINE__ + 1;
  TLOAD(a, g);
  const int add_line = __LINE__ + 1;
  TADD(c, a, a);
  EXPECT_EQ(finish(),
            "tilesim sync: RAW hazard (read after write)\n"
            "  first:  TLOAD on PIPE_MTE2 at " +
                at(load_line, "TLOAD") +
                " writes UB [0x0, 0x100)\n"
                "  second: TADD on PIPE_V at " +
                at(add_line, "TADD") +
                " reads UB [0x0, 0x100), not ordered after it\n"
                "  fix: set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) after the first, "
                "wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) before the second [docs/sync.md#hazards]\n"
                "tilesim sync: 1 distinct problem found [docs/sync.md]\n");
  EXPECT_EQ(ts::hazard_count(), 1u);
  EXPECT_EQ(c.at(0, 0), 4.0f);  // results unchanged
}

TEST_F(PtoSite, TheSameKernelWithItsFlagIsClean) {
  V a, b, c;
  TASSIGN(a, 0x0);
  TASSIGN(b, 0x200);
  TASSIGN(c, 0x400);
  Gm g(host.data());
  TLOAD(a, g);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADD(c, a, b);
  EXPECT_EQ(finish(), "");
  EXPECT_EQ(ts::hazard_count(), 0u);
}

// Every memory, movement and matrix instruction on its pipe, each at its own line: a chain
// GM -> Vec -> GM and GM -> Mat -> Left/Right -> Acc -> GM with no flag at all.
TEST_F(PtoSite, MemoryMovementAndMatrixSites) {
  std::vector<half> hh(16 * 16, half(1.0f));
  std::vector<float> hout(16 * 16, 0.0f);
  using GmH = GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
  using GmF = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
  GmH ga(hh.data());
  GmF gc(hout.data());
  Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor> ma;
  TileLeft<half, 16, 16> l;
  TileRight<half, 16, 16> r;
  TileAcc<float, 16, 16> acc;
  TASSIGN(ma, 0x0);
  TASSIGN(l, 0x0);
  TASSIGN(r, 0x0);
  TASSIGN(acc, 0x0);
  const int load = __LINE__ + 1;
  TLOAD(ma, ga);
  const int mov_l = __LINE__ + 1;
  TMOV(l, ma);
  const int ext_r = __LINE__ + 1;
  TEXTRACT(r, ma);  // the form with both indices defaulted
  const int mm = __LINE__ + 1;
  TMATMUL(acc, l, r);
  const int st = __LINE__ + 1;
  TSTORE<TileAcc<float, 16, 16>, GmF, AtomicType::AtomicAdd>(gc, acc);
  const std::string rep = finish();
  EXPECT_TRUE(has(rep, "TLOAD on PIPE_MTE2 at " + at(load, "TLOAD") + " writes L1")) << rep;
  EXPECT_TRUE(has(rep, "TMOV on PIPE_MTE1 at " + at(mov_l, "TMOV") + " reads L1")) << rep;
  EXPECT_TRUE(has(rep, "first:  TEXTRACT on PIPE_MTE1 at " + at(ext_r, "TEXTRACT") + " writes L0B"))
      << rep;
  EXPECT_TRUE(has(rep, "TMATMUL on PIPE_M at " + at(mm, "TMATMUL") + " reads L0A")) << rep;
  EXPECT_TRUE(has(rep, "TMATMUL on PIPE_M at " + at(mm, "TMATMUL") + " reads L0B")) << rep;
  EXPECT_TRUE(has(rep, "TSTORE on PIPE_FIX at " +
                           at(st, "TSTORE<TileAcc<float, 16, 16>, GmF, AtomicType::AtomicAdd>") +
                           " reads L0C"))
      << rep;
  // MTE2 -> MTE1 once (a reported hazard counts as fixed: TEXTRACT, later on MTE1, is then
  // ordered), MTE1 -> M twice, M -> FIX.
  EXPECT_EQ(ts::hazard_count(), 4u) << rep;
  EXPECT_EQ(hout[0], 16.0f);  // AtomicAdd onto 0: 16 products of 1 x 1
}

// Vector forms with explicit template arguments, TROWEXPAND* and TCVT; a WAR as well.
TEST_F(PtoSite, VectorFormsWithTemplateArgumentsAndRowExpand) {
  V a, b, c, d;
  Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor> s;  // one scalar per row
  Tile<TileType::Vec, int32_t, 8, 8> i;
  TASSIGN(a, 0x0);
  TASSIGN(b, 0x200);
  TASSIGN(c, 0x400);
  TASSIGN(s, 0x600);
  TASSIGN(i, 0x800);
  TASSIGN(d, 0xA00);
  for (int r = 0; r < 8; ++r) s.at(r, 0) = 1.0f;  // a host write: not an access of any pipe
  Gm g(host.data());
  Gm go(out.data());
  const int l0 = __LINE__ + 1;
  TLOAD(a, g);
  const int l1 = __LINE__ + 1;
  TEXP<ExpAlgorithm::HIGH_PRECISION>(b, a);  // RAW on a (MTE2 -> V)
  const int l2 = __LINE__ + 1;
  TLOAD(a, g);  // WAR on a (V read it, MTE2 overwrites it)
  const int l3 = __LINE__ + 1;
  TLOAD(d, g);
  const int l4 = __LINE__ + 1;
  TROWEXPANDADD(c, d, s);  // RAW on d (MTE2 -> V)
  const int l5 = __LINE__ + 1;
  TCVT<false>(i, c, RoundMode::CAST_RINT);  // V after V: program order
  const int l6 = __LINE__ + 1;
  TSTORE(go, c);  // RAW on c (V -> MTE3)
  const std::string rep = finish();
  EXPECT_TRUE(
      has(rep, "first:  TLOAD on PIPE_MTE2 at " + at(l0, "TLOAD") + " writes UB [0x0, 0x100)"))
      << rep;
  EXPECT_TRUE(has(rep, "second: TEXP on PIPE_V at " + at(l1, "TEXP<ExpAlgorithm::HIGH_PRECISION>") +
                           " reads UB [0x0, 0x100)"))
      << rep;
  EXPECT_TRUE(has(rep, "WAR hazard (write after read)\n  first:  TEXP on PIPE_V at " +
                           at(l1, "TEXP<ExpAlgorithm::HIGH_PRECISION>") +
                           " reads UB [0x0, 0x100)\n  second: TLOAD on PIPE_MTE2 at " +
                           at(l2, "TLOAD") + " writes UB [0x0, 0x100)"))
      << rep;
  EXPECT_TRUE(
      has(rep, "first:  TLOAD on PIPE_MTE2 at " + at(l3, "TLOAD") + " writes UB [0xa00, 0xb00)"))
      << rep;
  EXPECT_TRUE(has(rep, "second: TROWEXPANDADD on PIPE_V at " + at(l4, "TROWEXPANDADD") +
                           " reads UB [0xa00, 0xb00)"))
      << rep;
  EXPECT_TRUE(has(rep, "first:  TROWEXPANDADD on PIPE_V at " + at(l4, "TROWEXPANDADD") +
                           " writes UB [0x400, 0x500)\n  second: TSTORE on PIPE_MTE3 at " +
                           at(l6, "TSTORE") + " reads UB [0x400, 0x500)"))
      << rep;
  EXPECT_FALSE(has(rep, at(l5, "TCVT<false>"))) << rep;
  EXPECT_EQ(ts::hazard_count(), 4u) << rep;
  EXPECT_EQ(out[0], 3.0f);
  EXPECT_EQ(i.at(0, 0), 3);
}

// With one or two trailing events the site is still the kernel's line; with three it is not known.
TEST_F(PtoSite, EventFormsKeepTheSiteUpToTwoEvents) {
  V a, b, c;
  TASSIGN(a, 0x0);
  TASSIGN(b, 0x200);
  TASSIGN(c, 0x400);
  Gm g(host.data());
  RecordEvent none;  // token 0: orders nothing
  TLOAD(a, g);
  const int one = __LINE__ + 1;
  TADD(c, a, b, none);
  ts::end_kernel();
  EXPECT_TRUE(has(ts::report_text(), "second: TADD on PIPE_V at " + at(one, "TADD")))
      << ts::report_text();
  ts::clear_reports();
  TLOAD(a, g);
  const int two = __LINE__ + 1;
  TMUL(c, a, b, none, none);
  ts::end_kernel();
  EXPECT_TRUE(has(ts::report_text(), "second: TMUL on PIPE_V at " + at(two, "TMUL")))
      << ts::report_text();
  ts::clear_reports();
  TLOAD(a, g);
  TSUB(c, a, b, none, none, none);
  EXPECT_TRUE(has(finish(), "second: TSUB on PIPE_V at (source location not known)"))
      << ts::report_text();
}

// Checker off: nothing is recorded and the calls compute as before.
TEST(PtoSiteOff, OffRecordsNothing) {
  ts::enable(false);
  ts::clear_reports();
  V a, b, c;
  TASSIGN(a, 0x0);
  TASSIGN(b, 0x200);
  TASSIGN(c, 0x400);
  std::vector<float> host(64, 3.0f);
  Gm g(host.data());
  const RecordEvent e = TLOAD(a, g);
  EXPECT_EQ(e.token, 0u);
  EXPECT_EQ(e.site.file, nullptr);
  TADD(c, a, a);
  ts::end_kernel();
  EXPECT_EQ(ts::report_text(), "");
  EXPECT_EQ(c.at(7, 7), 6.0f);
}

}  // namespace
