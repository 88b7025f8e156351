// The hazard checker on PTO-AS func.func programs (issue 22, docs/sync.md): a double-buffered
// kernel written with set_flag/wait_flag is clean; dropping any one flag pair reports exactly the
// hazard that pair prevented (randomized sizes and lengths); results never change; a program with
// no sync op is left to the vendor's compiler.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tilesim/error.hpp"
#include "tilesim/pto/ptoas.hpp"
#include "tilesim/sync.hpp"

namespace {

namespace as = tilesim::pto::as;
namespace ts = tilesim::sync;

struct FlagPair {
  int set_line, wait_line;
  // The hazard dropping it must give: kind, the first access's line and op, the second's.
  std::string kind, first_op;
  int first_line;
  std::string second_op;
  int second_line;
};

// A kernel that loads N row blocks of R x 16 f32 into two ping-pong tiles, exponentiates each into
// two ping-pong output tiles and stores them, ordered with flags as a pipelined kernel must be.
struct Kernel {
  std::vector<std::string> lines;
  std::vector<FlagPair> pairs;
  int n, rows;

  int add(std::string s) {
    lines.push_back(std::move(s));
    return int(lines.size());  // 1-based line number
  }
  Kernel(int n_, int rows_) : n(n_), rows(rows_) {
    const std::string tile = fmt::format(
        "!pto.tile_buf<loc=vec, dtype=f32, rows={0}, cols=16, v_row={0}, v_col=16, blayout=row_major, "
        "slayout=none_box, fractal=512, pad=0>",
        rows);
    const std::string pv = fmt::format("!pto.partition_tensor_view<{}x16xf32>", rows);
    add("module attributes {pto.target_arch = \"a2a3\"} {");
    add("  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>) {");
    add("    %c0 = arith.constant 0 : index");
    add("    %c1 = arith.constant 1 : index");
    add("    %c16 = arith.constant 16 : index");
    add(fmt::format("    %cn = arith.constant {} : index", n * rows));
    add(fmt::format("    %crows = arith.constant {} : index", rows));
    add("    %av = pto.make_tensor_view %a, shape = [%cn, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>");
    add("    %ov = pto.make_tensor_view %o, shape = [%cn, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>");
    for (int b = 0; b < 2; ++b) {
      add(fmt::format("    %in{} = pto.alloc_tile : {}", b, tile));
      add(fmt::format("    %out{} = pto.alloc_tile : {}", b, tile));
    }
    std::vector<int> load(n), exp(n), store(n), v2mte2_set(n), mte3v_set(n);
    for (int i = 0; i < n; ++i) {
      const int b = i % 2;
      add(fmt::format("    %r{} = arith.constant {} : index", i, i * rows));
      add(fmt::format("    %ap{0} = pto.partition_view %av, offsets = [%r{0}, %c0], sizes = [%crows, %c16] : "
                      "!pto.tensor_view<?x?xf32> -> {2}",
                      i, rows, pv));
      add(fmt::format("    %op{0} = pto.partition_view %ov, offsets = [%r{0}, %c0], sizes = [%crows, %c16] : "
                      "!pto.tensor_view<?x?xf32> -> {2}",
                      i, rows, pv));
      int w_v2mte2 = 0, w_mte3v = 0;
      if (i >= 2) w_v2mte2 = add(fmt::format("    pto.wait_flag[<PIPE_V>, <PIPE_MTE2>, <EVENT_ID{}>]", b));
      load[i] = add(fmt::format("    pto.tload ins(%ap{} : {}) outs(%in{} : {})", i, pv, b, tile));
      const int s1 = add(fmt::format("    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID{}>]", b));
      const int w1 = add(fmt::format("    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID{}>]", b));
      if (i >= 2) w_mte3v = add(fmt::format("    pto.wait_flag[<PIPE_MTE3>, <PIPE_V>, <EVENT_ID{}>]", b));
      exp[i] = add(fmt::format("    pto.texp ins(%in{0} : {1}) outs(%out{0} : {1})", b, tile));
      if (i + 2 < n) v2mte2_set[i] = add(fmt::format("    pto.set_flag[<PIPE_V>, <PIPE_MTE2>, <EVENT_ID{}>]", b));
      const int s2 = add(fmt::format("    pto.set_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID{}>]", b));
      const int w2 = add(fmt::format("    pto.wait_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID{}>]", b));
      store[i] = add(fmt::format("    pto.tstore ins(%out{} : {}) outs(%op{} : {})", b, tile, i, pv));
      if (i + 2 < n) mte3v_set[i] = add(fmt::format("    pto.set_flag[<PIPE_MTE3>, <PIPE_V>, <EVENT_ID{}>]", b));
      pairs.push_back({s1, w1, "RAW", "TLOAD", load[i], "TEXP", exp[i]});
      pairs.push_back({s2, w2, "RAW", "TEXP", exp[i], "TSTORE", store[i]});
      if (i >= 2) {
        pairs.push_back({v2mte2_set[i - 2], w_v2mte2, "WAR", "TEXP", exp[i - 2], "TLOAD", load[i]});
        pairs.push_back({mte3v_set[i - 2], w_mte3v, "WAR", "TSTORE", store[i - 2], "TEXP", exp[i]});
      }
    }
    add("    return");
    add("  }");
    add("}");
  }
  std::string text(const FlagPair* drop) const {
    std::string s;
    for (int l = 1; l <= int(lines.size()); ++l) {
      // A dropped line stays as a comment-free blank so every other line keeps its number.
      if (drop && (l == drop->set_line || l == drop->wait_line)) {
        s += "\n";
        continue;
      }
      s += lines[size_t(l - 1)] + "\n";
    }
    return s;
  }
};

tilesim::npy::Array f32(const std::vector<float>& v, size_t r) {
  tilesim::npy::Array a;
  a.descr = "<f4";
  a.shape = {r, 16};
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  a.data.assign(p, p + v.size() * 4);
  return a;
}

class PtoAsSync : public ::testing::Test {
 protected:
  void SetUp() override {
    ts::enable(true);
    ts::clear_reports();
  }
  void TearDown() override {
    ts::clear_reports();
    ts::enable(false);
  }
};

std::vector<uint8_t> run_kernel(const Kernel& k, const FlagPair* drop) {
  as::RunOptions o;
  std::vector<float> a(size_t(k.n * k.rows * 16));
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 97) / 32.0f - 1.5f;
  o.inputs["a"] = f32(a, size_t(k.n * k.rows));
  o.inputs["o"] = f32(std::vector<float>(a.size(), 0.0f), size_t(k.n * k.rows));
  const auto out = as::run(k.text(drop), "k.pto", o);
  for (const auto& x : out)
    if (x.name == "o") return x.array.data;
  return {};
}

TEST_F(PtoAsSync, DoubleBufferedKernelIsCleanAndEachDroppedFlagGivesExactlyItsHazard) {
  std::mt19937 rng(22);
  for (int trial = 0; trial < 4; ++trial) {
    const int n = 3 + int(rng() % 4), rows = 1 + int(rng() % 8);
    const Kernel k(n, rows);
    SCOPED_TRACE(fmt::format("n={} rows={}", n, rows));
    const std::vector<uint8_t> want = run_kernel(k, nullptr);
    EXPECT_EQ(ts::hazard_count(), 0u) << ts::report_text();
    ts::clear_reports();
    for (const FlagPair& p : k.pairs) {
      SCOPED_TRACE(fmt::format("dropped lines {} and {}", p.set_line, p.wait_line));
      EXPECT_EQ(run_kernel(k, &p), want);  // results never change
      const std::string r = ts::report_text();
      EXPECT_EQ(ts::hazard_count(), 1u) << r;
      const std::string head = fmt::format("tilesim sync: {} hazard", p.kind);
      EXPECT_EQ(r.rfind(head, 0), 0u) << r;
      EXPECT_NE(r.find(fmt::format("  first:  {} on PIPE_", p.first_op)), std::string::npos) << r;
      EXPECT_NE(r.find(fmt::format(" at k.pto:{}:5 ", p.first_line)), std::string::npos) << r;
      EXPECT_NE(r.find(fmt::format("  second: {} on PIPE_", p.second_op)), std::string::npos) << r;
      EXPECT_NE(r.find(fmt::format(" at k.pto:{}:5 ", p.second_line)), std::string::npos) << r;
      ts::clear_reports();
    }
  }
}

TEST_F(PtoAsSync, ProgramWithoutSyncOpsIsLeftToTheCompiler) {
  Kernel k(3, 2);
  std::string text;
  for (const std::string& l : k.lines)
    if (l.find("_flag[") == std::string::npos) text += l + "\n";
  as::RunOptions o;
  o.inputs["a"] = f32(std::vector<float>(96, 1.0f), 6);
  o.inputs["o"] = f32(std::vector<float>(96, 0.0f), 6);
  as::run(text, "k.pto", o);
  EXPECT_EQ(ts::hazard_count(), 0u) << ts::report_text();
}

TEST_F(PtoAsSync, FlagMisuseInProgramText) {
  Kernel k(3, 2);
  // A wait with no set before it, and a set never waited.
  std::string text = k.text(nullptr);
  const std::string extra = "    pto.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID5>]\n"
                            "    pto.set_flag[<PIPE_M>, <PIPE_FIX>, <EVENT_ID3>]\n";
  text.insert(text.find("    return"), extra);
  as::RunOptions o;
  o.inputs["a"] = f32(std::vector<float>(96, 1.0f), 6);
  o.inputs["o"] = f32(std::vector<float>(96, 0.0f), 6);
  as::run(text, "k.pto", o);
  const std::string r = ts::report_text();
  const int wl = int(k.lines.size()) - 2;  // the inserted lines come before "return"
  EXPECT_NE(r.find(fmt::format("wait with no earlier set (a hang on hardware)\n  wait_flag(PIPE_MTE3, "
                               "PIPE_MTE2, 5) at k.pto:{}:5",
                               wl)),
            std::string::npos)
      << r;
  EXPECT_NE(r.find(fmt::format("flag set and never waited\n  set_flag(PIPE_M, PIPE_FIX, 3) at k.pto:{}:5, "
                               "never waited before the end of k.pto",
                               wl + 1)),
            std::string::npos)
      << r;
  EXPECT_EQ(ts::hazard_count(), 2u) << r;
}

// Malformed sync ops are errors whether or not the checker runs (nothing silently ignored).
TEST(PtoAsSyncParse, MalformedSyncOpsAreParseErrors) {
  const Kernel k(3, 2);
  const std::string good = k.text(nullptr);
  const std::pair<const char*, const char*> cases[] = {
      {"    pto.set_flag[<PIPE_Q>, <PIPE_V>, <EVENT_ID0>]\n",
       "pto.set_flag: unknown pipe (PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, "
       "PIPE_ALL) [docs/sync.md#pipes], at '<PIPE_Q>'"},
      {"    pto.wait_flag[<PIPE_V>, <EVENT_ID0>]\n",
       "needs a source and a destination pipe [docs/sync.md#hazards], at 'pto.wait_flag'"},
      {"    pto.record_event[#pto.sync_op_type<TFOO>, #pto.sync_op_type<TVEC>, <EVENT_ID1>]\n",
       "pto.record_event: unknown sync_op_type [docs/sync.md#pipes], at '#pto.sync_op_type<TFOO>'"},
      {"    pto.barrier <PIPE_V>, <PIPE_M>\n", "a barrier names at most one pipe"},
      {"    pto.set_flag[<PIPE_V>, <PIPE_M>, <EVENT_IDx>]\n", "expected <PIPE_X>, #pto.sync_op_type<T>, <EVENT_IDn> or an event number"},
  };
  for (bool checked : {false, true}) {
    ts::enable(checked);
    for (const auto& [line, want] : cases) {
      std::string text = good;
      text.insert(text.find("    return"), line);
      as::RunOptions o;
      o.inputs["a"] = f32(std::vector<float>(96, 1.0f), 6);
      o.inputs["o"] = f32(std::vector<float>(96, 0.0f), 6);
      try {
        as::run(text, "k.pto", o);
        ADD_FAILURE() << line;
      } catch (const tilesim::Error& e) {
        EXPECT_EQ(e.code(), tilesim::ErrorCode::Parse);
        EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      }
    }
    ts::enable(false);
    ts::clear_reports();
  }
}

}  // namespace

// One module is one kernel: a sync op in any function (here only the entry's barrier) makes the
// whole program checked, and the hazards inside a called function carry the callee's own lines.
// Without any sync op the program is left to the compiler.
TEST_F(PtoAsSync, CalledFunctionsAreCheckedWithTheirOwnSites) {
  const std::string tile =
      "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, "
      "slayout=none_box, fractal=512, pad=0>";
  const std::string pv = "!pto.partition_tensor_view<1x16xf32>";
  const std::string text = fmt::format(R"(module {{
  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %av = pto.make_tensor_view %a, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %ov = pto.make_tensor_view %o, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> {1}
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> {1}
    %t = pto.alloc_tile : {0}
    %u = pto.alloc_tile : {0}
    func.call @work(%ap, %op, %t, %u) : ({1}, {1}, {0}, {0}) -> ()
    pto.barrier <PIPE_ALL>
    return
  }}
  func.func private @work(%p: {1}, %q: {1}, %t: {0}, %u: {0}) {{
    pto.tload ins(%p : {1}) outs(%t : {0})
    pto.texp ins(%t : {0}) outs(%u : {0})
    pto.tstore ins(%u : {0}) outs(%q : {1})
    return
  }}
}}
)",
                                       tile, pv);
  as::RunOptions o;
  o.inputs["a"] = f32(std::vector<float>(16, 1.0f), 1);
  o.inputs["o"] = f32(std::vector<float>(16, 0.0f), 1);
  as::run(text, "k.pto", o);
  const std::string r = ts::report_text();
  EXPECT_EQ(ts::hazard_count(), 2u) << r;  // TLOAD -> TEXP and TEXP -> TSTORE, both unordered
  EXPECT_NE(r.find("  first:  TLOAD on PIPE_MTE2"), std::string::npos) << r;
  EXPECT_NE(r.find(" at k.pto:17:5 "), std::string::npos) << r;
  EXPECT_NE(r.find(" at k.pto:18:5 "), std::string::npos) << r;
  EXPECT_NE(r.find(" at k.pto:19:5 "), std::string::npos) << r;
  ts::clear_reports();
  std::string unsynced = text;
  unsynced.erase(unsynced.find("    pto.barrier <PIPE_ALL>\n"), 27);
  as::run(unsynced, "k.pto", o);
  EXPECT_EQ(ts::hazard_count(), 0u) << ts::report_text();
}
