// "Rejected means untouched" for the seven TROWEXPAND* ops (spec 20 §3–§5), both overloads, both
// targets, manual-mode tiles in a private simulated UB at random addresses (overlapping, inside the
// §5 internal buffer, unaligned, past the end), random shapes, dtypes, layouts, valid shapes and
// descriptor fields. After each call either it raised tilesim::Error and not one UB byte changed,
// or only dst's valid region and the §5 broadcast buffer (tmp's range or the internal 8 KB area,
// a2a3 mode 1 only) changed, and the fast path wrote exactly what the scalar reference writes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>

#include "pto/pto_test_util.hpp"
#include "robust_util.hpp"

namespace {
using namespace tilesim::pto;
using robust::Allowed;

struct Gen {
  std::mt19937_64 g;
  explicit Gen(uint64_t seed) : g(seed) {}
  uint64_t u(uint64_t n) { return n ? g() % n : 0; }
  bool p(unsigned percent) { return u(100) < percent; }
};

const Elem kElems[] = {Elem::f16, Elem::bf16, Elem::f32, Elem::s8, Elem::s16,
                       Elem::s32, Elem::u8,   Elem::u16, Elem::u32};

struct Case {
  TileDesc dst, src0, src1, tmp;
  bool has_tmp = false;
  bool bind_failed = false;
};

// A tile descriptor bound (TASSIGN) into `ub` the way the front end does it; an illegal address is
// rejected by ub_bind itself (that rejection writes nothing either: checked by the caller).
TileDesc make_tile(Gen& G, const Target& t, const Ub& ub, Elem e, int rows, int cols, bool rm,
                   int vr, int vc, int64_t addr, bool& failed) {
  TileDesc d;
  d.dtype = e;
  d.rows = rows;
  d.cols = cols;
  d.row_major = rm;
  d.valid_row = vr;
  d.valid_col = vc;
  if (G.p(3)) d.loc = uint8_t(1 + G.u(3));
  if (G.p(3)) d.slayout = uint8_t(1 + G.u(2));
  if (G.p(2)) d.pad = 1 + G.u(3);
  if (G.p(2)) d.compact = uint8_t(1 + G.u(2));
  try {
    d.data = ub_bind(ub, t, addr, d.bytes(), "tile");
    d.capacity = d.bytes();
    d.ub_addr = addr;
    d.ub = ub.base;
  } catch (const tilesim::Error&) {
    failed = true;
  }
  return d;
}

int64_t pick_addr(Gen& G, const Target& t, size_t bytes, const std::vector<int64_t>& used) {
  const int64_t ub = int64_t(t.ub_bytes);
  const int64_t top = ub > int64_t(bytes) ? ub - int64_t(bytes) : 0;
  const uint64_t r = G.u(40);
  if (r < 5 && !used.empty()) return used[G.u(used.size())];  // full alias
  if (r < 11 && !used.empty())                                // partial overlap
    return std::max<int64_t>(0, used[G.u(used.size())] + 32 * (int64_t(G.u(9)) - 4));
  if (r < 15) return int64_t(184 * 1024) + 32 * (int64_t(G.u(300)) - 150);  // a2a3 internal buffer
  if (r == 15) return top + 32 * int64_t(G.u(3));                           // at or past the end
  if (r == 16) return int64_t(G.u(uint64_t(top) + 1));                      // unaligned
  return 32 * int64_t(G.u(uint64_t(top) / 32 + 1));
}

int pick_dim(Gen& G) {
  switch (G.u(8)) {
    case 0:
      return 1;
    case 1:
      return int(G.u(300)) + 1;  // beyond 256 rows: the 240-row chunks
    default:
      return int(G.u(40)) + 1;
  }
}

void run_op(Op op, const Target& t, bool with_tmp, uint64_t seed, int n) {
  Gen G(seed);
  std::vector<uint8_t> mem(t.ub_bytes), ref(t.ub_bytes), before;
  const Ub ub{mem.data(), mem.size()};
  const Ub ubr{ref.data(), ref.size()};
  robust::Tally tally;
  for (int k = 0; k < n; ++k) {
    // UB contents: random bytes (every code of every type, NaNs included)
    for (size_t i = 0; i < mem.size(); i += 8) {
      const uint64_t v = G.g();
      std::memcpy(mem.data() + i, &v, 8);
    }
    const Elem e = G.p(50) ? kElems[G.u(9)] : kElems[G.u(3)];
    const int E = int(32 / elem_size(e));
    // dst: rows x cols, cols usually a whole number of 32-byte blocks (spec 20 §1 alignment)
    // rows a multiple of E usually, so a ColMajor R x 1 operand is aligned (spec 20 §1)
    const int rows = G.p(70) ? E * int(G.u(G.p(10) ? 20 : 6) + 1) : pick_dim(G);
    int cols = G.p(85) ? E * int(G.u(6) + 1) : pick_dim(G);
    int vr = G.p(80) ? rows : int(G.u(uint64_t(rows) + 2));
    int vc = G.p(80) ? cols : int(G.u(uint64_t(cols) + 2));
    std::vector<int64_t> used;
    bool failed = false;
    Case c;
    const int64_t a0 = pick_addr(G, t, size_t(rows) * cols * elem_size(e), used);
    used.push_back(a0);
    c.dst =
        make_tile(G, t, ub, G.p(97) ? e : kElems[G.u(9)], rows, cols, G.p(95), vr, vc, a0, failed);
    // full operand: dst's shape and valid shape (usually)
    const int64_t a1 = pick_addr(G, t, size_t(rows) * cols * elem_size(e), used);
    used.push_back(a1);
    TileDesc full = make_tile(G, t, ub, G.p(97) ? e : kElems[G.u(9)], rows, cols, G.p(95),
                              G.p(95) ? vr : int(G.u(uint64_t(rows) + 1)),
                              G.p(95) ? vc : int(G.u(uint64_t(cols) + 1)), a1, failed);
    // expanded operand: mode 1 (ColMajor R x 1) or mode 2 (RowMajor R x E), sometimes wrong
    const bool mode1 = G.p(60);
    int srows = G.p(90) ? rows : pick_dim(G);
    int scols = mode1 ? (G.p(90) ? 1 : int(G.u(4)) + 1) : (G.p(90) ? E : int(G.u(40)) + 1);
    if (mode1 && G.p(10)) srows = 8 * int(G.u(40) + 1);  // col-major alignment: Rows*sizeof % 32
    const int svr = G.p(90) ? std::min(vr, srows) : int(G.u(uint64_t(srows) + 1));
    const int svc = G.p(90) ? scols : int(G.u(uint64_t(scols) + 1));
    const int64_t a2 = pick_addr(G, t, size_t(srows) * scols * elem_size(e), used);
    used.push_back(a2);
    TileDesc s = make_tile(G, t, ub, G.p(97) ? e : kElems[G.u(9)], srows, scols,
                           mode1 ? !G.p(95) : G.p(95), svr, svc, a2, failed);
    if (G.p(50)) {
      c.src0 = full;
      c.src1 = s;
    } else {
      c.src0 = s;
      c.src1 = full;
    }
    if (with_tmp) {
      // the vendor's shape ([R, 1] ColMajor, Rows a multiple of 32 bytes) or a 1 x E row, or random
      const int trows = G.p(70) ? 32 * int(G.u(8) + 1) : pick_dim(G);
      const bool tcol = G.p(70);
      const int64_t a3 = G.p(20) ? a2 : pick_addr(G, t, size_t(trows) * 32, used);
      c.tmp =
          make_tile(G, t, ub, G.p(50) ? e : kElems[G.u(9)], tcol ? trows : 1,
                    tcol ? 1 : (G.p(80) ? E : pick_dim(G)), !tcol, tcol ? trows : 1, 1, a3, failed);
      c.tmp.valid_col = c.tmp.cols;
    }
    if (getenv("ROBUST_VERBOSE") && failed) fprintf(stderr, "bind failed\n");
    if (failed) {  // ub_bind rejected an address: it wrote nothing (mem unchanged since fill)
      ++tally.rejected;
      continue;
    }
    before = mem;
    ref = mem;
    const TileDesc* tmp = with_tmp ? &c.tmp : nullptr;
    bool threw = false;
    std::string msg;
    try {
      row_expand(op, c.dst, c.src0, c.src1, tmp, t, ub, Path::Fast);
    } catch (const tilesim::Error& err) {
      threw = true;
      msg = err.what();
    }
    // The reference path on a copy: same verdict, same bytes.
    auto rebase = [&](TileDesc d) {
      d.data = ref.data() + d.ub_addr;
      d.ub = ref.data();
      return d;
    };
    const TileDesc rd = rebase(c.dst), r0 = rebase(c.src0), r1 = rebase(c.src1), rt = rebase(c.tmp);
    bool rthrew = false;
    try {
      row_expand(op, rd, r0, r1, with_tmp ? &rt : nullptr, t, ubr, Path::Reference);
    } catch (const tilesim::Error&) {
      rthrew = true;
    }
    ASSERT_EQ(threw, rthrew) << op_name(op) << " " << t.name << " case " << k << ": " << msg;
    if (threw) {
      ++tally.rejected;
      const long at = robust::first_change(before, mem.data());
      ASSERT_EQ(at, -1) << op_name(op) << " " << t.name << " case " << k
                        << ": rejected call changed UB byte " << at << ": " << msg;
      ASSERT_NE(msg.find("[docs/"), std::string::npos) << msg;
      if (getenv("ROBUST_VERBOSE")) fprintf(stderr, "%s\n", msg.c_str());
      continue;
    }
    ++tally.ok;
    ASSERT_EQ(robust::first_change(ref, mem.data()), -1)
        << op_name(op) << " " << t.name << " case " << k << ": fast path differs from reference";
    // What may change: dst's valid region, and on a2a3 in mode 1 the broadcast buffer.
    Allowed allowed(mem.size());
    const int R = c.dst.valid_row, C = c.dst.valid_col;
    const size_t sz = elem_size(c.dst.dtype);
    for (int i = 0; i < R; ++i)
      allowed.allow(uint64_t(c.dst.ub_addr) + (uint64_t(i) * c.dst.cols) * sz, uint64_t(C) * sz);
    const bool full_is_src0 = c.src0.valid_row == R && c.src0.valid_col == C;  // spec 20 §3 rule 2
    const TileDesc& expd = full_is_src0 ? c.src1 : c.src0;
    if (t.broadcast_buffer && !expd.row_major && R > 0 && C > 0) {
      const uint64_t blocks = uint64_t(std::min(R, 240));
      allowed.allow(with_tmp ? uint64_t(c.tmp.ub_addr) : t.tmp_ub_offset, blocks * 32);
    }
    const long at = robust::first_forbidden_change(before, mem.data(), allowed);
    ASSERT_EQ(at, -1) << op_name(op) << " " << t.name << " case " << k
                      << ": accepted call changed UB byte " << at
                      << " outside dst's valid region and the spec 20 §5 buffer";
  }
  tally.check(n, 100, 50, std::string(op_name(op)) + " " + t.name);
}

class PtoUntouched : public ::testing::TestWithParam<std::tuple<int, int, bool>> {};

TEST_P(PtoUntouched, RejectedMeansUntouched) {
  const auto [op, tg, tmp] = GetParam();
  const Target& t = find_target(tg == 0 ? "a2a3" : "a5");
  run_op(Op(op), t, tmp, 1000003ull * uint64_t(op) + 7919ull * uint64_t(tg) + (tmp ? 17 : 0),
         robust::cases(3000));
}

INSTANTIATE_TEST_SUITE_P(AllOps, PtoUntouched,
                         ::testing::Combine(::testing::Range(0, kNumOps), ::testing::Values(0, 1),
                                            ::testing::Bool()));

}  // namespace
