// TEPL functions whose tiles differ in shape (spec 31 §2; docs/linx.md#tepl): the row / column
// reductions, TROWEXPAND / TCOLEXPAND, TEXPANDS, TCVT, TTRANSPOSE and TRESHAPE give the same bits
// from LinxISA words as the PTO C++ entry (target a5) on the same inputs, with each tile shaped as
// docs/linx.md#tepl documents; plus known answers that do not go through PTO.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "support.hpp"
#include "tilesim/pto/engine.hpp"

using namespace tilesim::linx;
using namespace linx_test;
namespace pto = tilesim::pto;

namespace {

struct Ty {
  unsigned code;  // spec 30 §2 DataType code
  const char* name;
  DType dt;
  pto::Elem e;
};
const Ty kTypes[] = {{1, "FP32", DType::fp32, pto::Elem::f32},
                     {4, "FP16", DType::fp16, pto::Elem::f16},
                     {17, "S32", DType::s32, pto::Elem::s32},
                     {18, "S16", DType::s16, pto::Elem::s16}};

pto::TileDesc tile(pto::Elem e, int rows, int cols, int vr, int vc, std::vector<uint8_t>& d, bool row_major = true) {
  pto::TileDesc t;
  t.dtype = e;
  t.row_major = row_major;
  t.rows = rows;
  t.cols = cols;
  t.valid_row = vr;
  t.valid_col = vc;
  t.data = d.data();
  t.capacity = d.size();
  return t;
}

std::vector<uint8_t> random_tile(const Ty& t, size_t bytes, std::mt19937& rng) {
  return random_codes(t.dt, bytes / (fm::info(t.dt).storage_bits / 8), rng);
}

// LinxISA run of one TEPL block on src (pushed to T) into a destination of dst_bytes on N.
std::vector<uint8_t> run_tepl(const std::string& op, const Ty& t, size_t vc, size_t vr, size_t col,
                              const std::vector<uint8_t>* src, size_t dst_bytes, const std::string& extra = "") {
  Machine m;
  if (src) m.push_raw('T', *src, src->size());
  m.set_reg("a0", 5);
  const std::string prog = "BSTART.TEPL " + op + ", " + t.name + "\n" + extra + "B.DIM zero, " + std::to_string(vc) +
                           ", ->LB0\nB.DIM zero, " + std::to_string(vr) + ", ->LB1\nB.DIM zero, " + std::to_string(col) +
                           ", ->LB2\nB.IOR a0\nB.IOT " + (src ? "T#1, " : "") + "last, ->N<" +
                           (dst_bytes >= 1024 ? std::to_string(dst_bytes / 1024) + "KB>" : std::to_string(dst_bytes) + "B>");
  m.run(prog);
  return m.tile_bytes('N', 1);
}

void run_pto(const char* name, pto::TileDesc dst, pto::TileDesc* src, uint8_t round = 1, uint64_t scalar = 0) {
  pto::Call call{pto::find_instr(name)->id};
  call.dst = &dst;
  call.src0 = src;
  call.round = round;
  call.scalar = scalar;
  pto::execute(call, pto::find_target("a5"), pto::Ub{});
}

// LB: ValidCol 13, ValidRow 15, Col = 64 bytes of elements; the LB tile is 1 KB (Row 16).
constexpr size_t kVc = 13, kVr = 15;

TEST(TeplShapes, ReductionsMatchPto) {
  std::mt19937 rng(7);
  int ran = 0;
  for (const Ty& t : kTypes) {
    const int es = static_cast<int>(fm::info(t.dt).storage_bits / 8), col = 64 / es, row = 1024 / 64;
    for (const char* op : {"TROWSUM", "TROWMAX", "TROWMIN", "TCOLSUM", "TCOLMAX", "TCOLMIN"}) {
      auto src = random_tile(t, 1024, rng);
      std::vector<uint8_t> want(256, 0);
      pto::TileDesc s = tile(t.e, row, col, kVr, kVc, src);
      const bool rowwise = op[1] == 'R';
      // row reductions: a column vector (DN, Cols 1); column reductions: a row vector with Col.
      const pto::TileDesc d = rowwise ? tile(t.e, 256 / es, 1, kVr, 1, want, false)
                                      : tile(t.e, 256 / (col * es), col, 1, kVc, want);
      try {
        run_pto(op, d, &s);
      } catch (const tilesim::Error&) {
        EXPECT_THROW(run_tepl(op, t, kVc, kVr, col, &src, 256), Fault) << op << " " << t.name;
        continue;
      }
      EXPECT_EQ(run_tepl(op, t, kVc, kVr, col, &src, 256), want) << op << " " << t.name;
      ++ran;
    }
  }
  EXPECT_GE(ran, 20);
}

TEST(TeplShapes, ExpandsMatchPto) {
  std::mt19937 rng(8);
  for (const Ty& t : kTypes) {
    const int es = static_cast<int>(fm::info(t.dt).storage_bits / 8), col = 64 / es, row = 1024 / 64;
    for (const char* op : {"TROWEXPAND", "TCOLEXPAND"}) {
      auto src = random_tile(t, 256, rng);
      std::vector<uint8_t> want(1024, 0);
      const pto::TileDesc d = tile(t.e, row, col, kVr, kVc, want);
      pto::TileDesc s = op[1] == 'R' ? tile(t.e, 256 / es, 1, kVr, 1, src, false)
                                     : tile(t.e, 256 / (col * es), col, 1, kVc, src);
      run_pto(op, d, &s);
      EXPECT_EQ(run_tepl(op, t, kVc, kVr, col, &src, 1024), want) << op << " " << t.name;
    }
    std::vector<uint8_t> want(1024, 0);
    run_pto("TEXPANDS", tile(t.e, row, col, kVr, kVc, want), nullptr, 1, 5);
    EXPECT_EQ(run_tepl("TEXPANDS", t, kVc, kVr, col, nullptr, 1024), want) << t.name;
  }
}

TEST(TeplShapes, TransposeAndReshapeMatchPto) {
  std::mt19937 rng(9);
  for (const Ty& t : kTypes) {
    const int es = static_cast<int>(fm::info(t.dt).storage_bits / 8), col = 64 / es, row = 1024 / 64;
    auto src = random_tile(t, 1024, rng);
    pto::TileDesc s = tile(t.e, row, col, kVr, kVc, src);
    // TTRANSPOSE: dst Col = ValidRow rounded up to a 32-byte line.
    const int per = 32 / es, dcol = (static_cast<int>(kVr) + per - 1) / per * per;
    std::vector<uint8_t> want(1024, 0);
    run_pto("TTRANS", tile(t.e, 1024 / (dcol * es), dcol, kVc, kVr, want), &s);
    const auto got = run_tepl("TTRANSPOSE", t, kVc, kVr, col, &src, 1024);
    EXPECT_EQ(got, want) << t.name;
    // element (i, j) of the source is element (j, i) of the result
    EXPECT_EQ(std::memcmp(got.data() + (3 * dcol + 7) * es, src.data() + (7 * col + 3) * es, es), 0);
    std::vector<uint8_t> want2(1024, 0);
    run_pto("TRESHAPE", tile(t.e, row, col, kVr, kVc, want2), &s);
    EXPECT_EQ(run_tepl("TRESHAPE", t, kVc, kVr, col, &src, 1024), want2) << t.name;
    EXPECT_EQ(want2, src);  // a byte copy
  }
}

TEST(TeplShapes, ConvertMatchesPtoWithRModeAndSat) {
  std::mt19937 rng(10);
  const Ty& f32 = kTypes[0];
  struct Case {
    const Ty* dst;
    unsigned rmode;
    uint8_t pto_round;
  };
  for (const Case& k : {Case{&kTypes[1], 1, 1}, Case{&kTypes[1], 2, 5}, Case{&kTypes[1], 5, 2}, Case{&kTypes[2], 3, 3},
                        Case{&kTypes[2], 4, 4}, Case{&kTypes[3], 2, 5}}) {
    auto src = random_codes(DType::fp32, 256, rng, true);
    for (size_t i = 0; i < 256; i += 3) {  // values that round differently per mode and saturate s16
      const float v = static_cast<float>(static_cast<int>(rng() % 200000) - 100000) / 7.0f;
      std::memcpy(src.data() + i * 4, &v, 4);
    }
    const int des = static_cast<int>(fm::info(k.dst->dt).storage_bits / 8);
    pto::TileDesc s = tile(f32.e, 16, 16, kVr, kVc, src);
    std::vector<uint8_t> want(16 * 16 * des, 0);
    run_pto("TCVT", tile(k.dst->e, 16, 16, kVr, kVc, want), &s, k.pto_round);
    const std::string datr = std::string("B.DATR ") + k.dst->name + ", rmode=" + std::to_string(k.rmode) + "\n";
    EXPECT_EQ(run_tepl("TCVT", f32, kVc, kVr, 16, &src, want.size(), datr), want) << k.dst->name << " " << k.rmode;
  }
  // Sat = 1: SaturationMode ON (f32 -> s16 clamps); Sat = 0: the form without a SaturationMode.
  std::vector<uint8_t> src(1024, 0);
  const float big = 1e6f;
  std::memcpy(src.data(), &big, 4);
  const auto sat = run_tepl("TCVT", f32, 1, 1, 16, &src, 512, "B.DATR S16, rmode=1, sat\n");
  EXPECT_EQ(sat[0] | (sat[1] << 8), 0x7FFF);
  for (int8_t mode : {int8_t{0}, int8_t{-1}}) {
    std::vector<uint8_t> want(512, 0);
    pto::TileDesc s = tile(f32.e, 16, 16, 1, 1, src);
    const pto::TileDesc d = tile(kTypes[3].e, 16, 16, 1, 1, want);
    pto::Call call{pto::find_instr("TCVT")->id};
    call.dst = &d;
    call.src0 = &s;
    call.sat = mode;
    pto::execute(call, pto::find_target("a5"), pto::Ub{});
    EXPECT_EQ(run_tepl("TCVT", f32, 1, 1, 16, &src, 512, mode == 0 ? "B.DATR S16, rmode=1, sat\n" : "B.DATR S16, rmode=1\n"),
              want);
  }
}

// Known answers that do not go through PTO's own code path.
TEST(TeplShapes, KnownAnswers) {
  const Ty& s32 = kTypes[2];
  std::vector<uint8_t> src(256, 0);  // 8 x 8 s32, element (i, j) = 10 i + j
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      const int32_t v = 10 * i + j;
      std::memcpy(src.data() + (i * 8 + j) * 4, &v, 4);
    }
  const auto rows = run_tepl("TROWSUM", s32, 3, 4, 8, &src, 256);  // rows 0..3, cols 0..2
  const auto cols = run_tepl("TCOLMAX", s32, 3, 4, 8, &src, 256);
  int32_t r[8], c[8];
  std::memcpy(r, rows.data(), 32);
  std::memcpy(c, cols.data(), 32);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r[i], 30 * i + 3);
  for (int j = 0; j < 3; ++j) EXPECT_EQ(c[j], 30 + j);
  EXPECT_EQ(r[4], 0);  // pad (Null = zero bytes)
  EXPECT_EQ(c[3], 0);
}

}  // namespace

// TGATHER (26) / TSCATTER (27): src0 the data, src1 the index tile (B.DATR DataType, default U32
// for 4-byte data, U16 for 2-byte data); the same bits as the PTO entry on target a5.
TEST(TeplShapes, GatherAndScatterMatchPto) {
  std::mt19937 rng(11);
  for (const Ty& t : kTypes) {
    const size_t es = fm::info(t.dt).storage_bits / 8, col = 64 / es, n = 1024 / es;
    const bool wide = es == 4;
    for (const char* datr : {"", "S32", "S16"}) {
      const bool four = *datr ? datr[1] == '3' : wide;
      if (four != wide && !(es == 2 && four)) continue;  // b16 data also takes 4-byte indices (a5)
      const pto::Elem ie = *datr ? (four ? pto::Elem::s32 : pto::Elem::s16) : (wide ? pto::Elem::u32 : pto::Elem::u16);
      const size_t is = four ? 4 : 2, icol = col;
      // data: 1 KB; indices: LB geometry (15 x Col, ValidRow 15, ValidCol = Col) in their own type
      auto data = random_tile(t, 1024, rng);
      std::vector<uint8_t> idx(1024 / es * is, 0);
      for (size_t k = 0; k < idx.size() / is; ++k) {
        const uint32_t v = static_cast<uint32_t>(rng() % n);
        std::memcpy(idx.data() + k * is, &v, is);
      }
      for (const char* op : {"TGATHER", "TSCATTER"}) {
        const bool gather = op[1] == 'G';
        if (!gather && es == 2 && four) continue;  // TSCATTER pairs b16 data with b16 indices only
        std::vector<uint8_t> want(1024, 0), cd = data, ci = idx;
        const size_t irow = idx.size() / (icol * is);
        pto::TileDesc I = tile(ie, static_cast<int>(irow), static_cast<int>(icol), kVr, static_cast<int>(col), ci);
        pto::TileDesc D = gather ? tile(t.e, static_cast<int>(n / col), static_cast<int>(col), kVr, static_cast<int>(col), want)
                                 : tile(t.e, static_cast<int>(n / col), static_cast<int>(col), static_cast<int>(n / col), static_cast<int>(col), want);
        pto::TileDesc S = gather ? tile(t.e, static_cast<int>(n / col), static_cast<int>(col), static_cast<int>(n / col), static_cast<int>(col), cd)
                                 : tile(t.e, static_cast<int>(n / col), static_cast<int>(col), kVr, static_cast<int>(col), cd);
        pto::Call call{pto::find_instr(op)->id};
        call.dst = &D;
        call.src0 = &S;
        call.src1 = &I;
        pto::execute(call, pto::find_target("a5"), pto::Ub{});
        Machine m;
        m.push_raw('T', data, data.size());
        m.push_raw('U', idx, idx.size());
        const std::string prog = std::string("BSTART.TEPL ") + op + ", " + t.name + "\n" +
                                 (*datr ? std::string("B.DATR ") + datr + "\n" : "") + "B.DIM zero, " +
                                 std::to_string(col) + ", ->LB0\nB.DIM zero, " + std::to_string(kVr) +
                                 ", ->LB1\nB.DIM zero, " + std::to_string(col) + ", ->LB2\nB.IOT T#1, U#1, last, ->N<1KB>";
        m.run(prog);
        EXPECT_EQ(m.tile_bytes('N', 1), want) << prog;
      }
    }
  }
}

// An index outside the source (TGATHER) or the destination (TSCATTER) faults naming the element;
// the mask-pattern forms have no TEPL encoding.
TEST(TeplShapes, GatherIndexOutOfRangeFaults) {
  std::vector<uint8_t> data(256, 1), idx(256, 0);
  const uint32_t bad = 64;  // a 256-byte FP32 tile has 64 elements
  std::memcpy(idx.data() + 4 * 9, &bad, 4);
  for (const char* op : {"TGATHER", "TSCATTER"}) {
    Machine m;
    m.push_raw('T', data, data.size());
    m.push_raw('U', idx, idx.size());
    try {
      m.run(std::string("BSTART.TEPL ") + op + ", FP32\nB.DIM zero, 8, ->LB0\nB.DIM zero, 2, ->LB1\n"
                                               "B.IOT T#1, U#1, last, ->N<256B>");
      ADD_FAILURE() << op << " ran";
    } catch (const Fault& f) {
      EXPECT_EQ(f.kind(), "illegal operand") << f.what();
      EXPECT_NE(std::string(f.what()).find("element (1, 1) is 64, outside"), std::string::npos) << f.what();
    }
  }
}
