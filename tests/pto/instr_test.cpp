// PTO element-wise, tile-scalar, compare/select and expand instructions (spec 21 §2): known
// answers through the vendor C++ API, every row's fast path against the scalar definition on
// random and edge tiles (targets, valid regions, threads), and the rules' rejections with dst
// untouched.
#include <gtest/gtest.h>
#include <pto/pto-inst.hpp>

#include <cmath>
#include <random>
#include <string>

#include "ops/elementwise.hpp"
#include "pto/instr.hpp"
#include "pto/transfer.hpp"
#include "pto_test_util.hpp"
#include "tilesim/parallel.hpp"

namespace {

using namespace pto_test;
using tilesim::pto::Call;
using tilesim::pto::execute;
using tilesim::pto::find_target;
using tilesim::pto::Instr;
using tilesim::pto::Kind;
using tilesim::pto::Path;

struct TargetGuard {
  explicit TargetGuard(const char* t) { pto::set_target(t); }
  ~TargetGuard() { pto::set_target("a2a3"); }
};

template <class T, int R, int C>
using VecTile = pto::Tile<pto::TileType::Vec, T, R, C, pto::BLayout::RowMajor, pto::DYNAMIC,
                          pto::DYNAMIC>;

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

// ---- known answers through the C++ API ----

TEST(PtoInstr, BinaryKnownAnswersOnTheValidRegionOnly) {
  VecTile<float, 4, 16> a(3, 10), b(3, 10), d(3, 10);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 16; ++c) {
      a.at(r, c) = float(r * 16 + c);
      b.at(r, c) = 2.0f;
      d.at(r, c) = -7.0f;
    }
  pto::TADD(d, a, b);
  EXPECT_EQ(d.at(2, 9), 43.0f);   // 2*16+9 + 2
  EXPECT_EQ(d.at(2, 10), -7.0f);  // outside the valid columns: untouched
  EXPECT_EQ(d.at(3, 0), -7.0f);   // outside the valid rows
  pto::TDIV(d, a, b);
  EXPECT_EQ(d.at(1, 1), 8.5f);
  pto::TSUB(d, d, a);  // in place: dst aliases src0
  EXPECT_EQ(d.at(1, 1), 8.5f - 17.0f);
  pto::TMAX(d, a, b);
  EXPECT_EQ(d.at(0, 1), 2.0f);
  EXPECT_EQ(d.at(0, 5), 5.0f);
  pto::TEXP(d, b);
  EXPECT_EQ(bits(d.at(0, 0)), 0x40EC7326u);  // e^2 = 7.389056098..., RNE to fp32
  pto::TSQRT(d, b);
  EXPECT_EQ(bits(d.at(0, 0)), 0x3FB504F3u);  // sqrt(2) RNE
  pto::TRECIP(d, b);
  EXPECT_EQ(d.at(2, 2), 0.5f);
}

TEST(PtoInstr, IntegerOpsWrapAndFloorTheRemainder) {
  TargetGuard g("a5");
  VecTile<int32_t, 1, 8> a(1, 8), b(1, 8), d(1, 8), tmp(1, 8);
  const int32_t av[8] = {7, -7, 7, -7, INT32_MIN, 5, 1 << 30, -1};
  const int32_t bv[8] = {2, 2, -2, -2, -1, 5, 4, 31};
  for (int c = 0; c < 8; ++c) a.at(0, c) = av[c], b.at(0, c) = bv[c];
  pto::TREM(d, a, b, tmp);
  const int32_t rem[8] = {1, 1, -1, -1, 0, 0, 0, 30};  // spec 15: floored, sign of the divisor
  for (int c = 0; c < 8; ++c) EXPECT_EQ(d.at(0, c), rem[c]) << c;
  pto::TDIV(d, a, b);
  const int32_t quo[8] = {3, -3, -3, 3, INT32_MIN, 1, 1 << 28, 0};  // truncated; MIN/-1 wraps
  for (int c = 0; c < 8; ++c) EXPECT_EQ(d.at(0, c), quo[c]) << c;
  pto::TMUL(d, a, b);
  EXPECT_EQ(d.at(0, 6), 0);  // 2^32 wraps to 0
  pto::TSHR(d, a, b);
  EXPECT_EQ(d.at(0, 7), -1);  // -1 >> 31 (arithmetic)
  pto::TSHRS(d, a, int32_t(40));
  EXPECT_EQ(d.at(0, 1), -1) << "count >= width, signed: sign fill (spec 15)";
  EXPECT_EQ(d.at(0, 0), 0);
  pto::TABS(d, a);
  EXPECT_EQ(d.at(0, 4), INT32_MIN) << "abs(MIN) = MIN (spec 15)";
}

TEST(PtoInstr, TileScalarForms) {
  VecTile<float, 2, 8> a(2, 8), d(2, 8);
  for (int c = 0; c < 8; ++c) a.at(0, c) = float(c) - 3.0f, a.at(1, c) = 2.0f;
  pto::TADDS(d, a, 0.5f);
  EXPECT_EQ(d.at(0, 0), -2.5f);
  pto::TDIVS(d, a, 4.0f);
  EXPECT_EQ(d.at(0, 1), -0.5f);
  pto::TDIVS(d, 1.0f, a);  // scalar / tile
  EXPECT_EQ(d.at(1, 0), 0.5f);
  EXPECT_EQ(bits(d.at(0, 3)), 0x7F800000u) << "1 / +0 = +Inf";
  pto::TLRELU(d, a, 0.25f);
  EXPECT_EQ(d.at(0, 0), -0.75f);
  EXPECT_EQ(d.at(0, 5), 2.0f);
  EXPECT_EQ(bits(d.at(0, 3)), 0u) << "0 * slope = +0";
  pto::TEXPANDS(d, 1.5f);
  EXPECT_EQ(d.at(1, 7), 1.5f);
  pto::TMINS(d, a, -1.0f);
  EXPECT_EQ(d.at(0, 0), -3.0f);
  EXPECT_EQ(d.at(0, 6), -1.0f);
  // TAXPY: dst = s*src + dst, two roundings (docs/pto-instructions.md#tile-scalar).
  VecTile<float, 1, 8> acc(1, 8);
  VecTile<pto::half, 1, 16> h(1, 8);
  for (int c = 0; c < 8; ++c) acc.at(0, c) = 1.0f, h.at(0, c) = pto::half(float(c));
  pto::TAXPY(acc, h, pto::half(0.5f));
  EXPECT_EQ(acc.at(0, 6), 4.0f);  // 0.5*6 + 1
}

TEST(PtoInstr, CompareWritesThePackedMaskAndSelectReadsIt) {
  TargetGuard g("a2a3");
  VecTile<float, 2, 16> a(2, 12), b(2, 12), d(2, 12);
  VecTile<uint8_t, 2, 32> m(2, 2);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 16; ++c) a.at(r, c) = float(c), b.at(r, c) = 5.0f;
  for (int c = 0; c < 32; ++c) m.at(0, c) = m.at(1, c) = 0xEE;
  pto::TCMP(m, a, b, pto::CmpMode::LT);
  // columns 0..4 are < 5: bits 0..4 of byte 0; byte 1 holds columns 8..11 (none); bits past
  // column 11 are 0 (spec 21 §2), bytes past ceil(12/8) = 2 untouched.
  EXPECT_EQ(m.at(0, 0), 0x1F);
  EXPECT_EQ(m.at(1, 1), 0x00);
  EXPECT_EQ(m.at(0, 2), 0xEE);
  pto::TCMPS(m, a, 9.0f, pto::CmpMode::GE);
  EXPECT_EQ(m.at(0, 0), 0x00);
  EXPECT_EQ(m.at(0, 1), 0x0E);  // columns 9, 10, 11
  VecTile<uint32_t, 1, 16> tmp(1, 16);
  pto::TSEL(d, m, a, b, tmp);
  EXPECT_EQ(d.at(0, 9), 9.0f);
  EXPECT_EQ(d.at(0, 8), 5.0f);
  VecTile<float, 1, 8> stmp(1, 1);
  pto::TSELS(d, m, a, stmp, -1.0f);
  EXPECT_EQ(d.at(1, 10), 10.0f);
  EXPECT_EQ(d.at(1, 0), -1.0f);
  EXPECT_EQ(stmp.at(0, 0), -1.0f) << "a2a3 TSELS leaves the scalar in tmp[0]";
}

TEST(PtoInstr, A2a3Int16CompareScalarIsAnFp16CompareOfTheBits) {
  VecTile<int16_t, 1, 16> a(1, 4);
  VecTile<uint8_t, 1, 32> m(1, 1);
  a.at(0, 0) = -1;      // 0xFFFF: an fp16 NaN
  a.at(0, 1) = 0;       // +0
  a.at(0, 2) = -32768;  // 0x8000: -0 as fp16
  a.at(0, 3) = 3;
  {
    TargetGuard g("a2a3");
    pto::TCMPS(m, a, int16_t(0), pto::CmpMode::EQ);
    EXPECT_EQ(m.at(0, 0), 0x06) << "NaN != 0; +0 == 0; -0 == 0; 3 (subnormal) != 0";
    pto::TCMPS(m, a, int16_t(-1), pto::CmpMode::EQ);
    EXPECT_EQ(m.at(0, 0), 0x00) << "NaN == NaN is false";
  }
  {
    TargetGuard g("a5");
    VecTile<uint32_t, 1, 8> m32(1, 1);
    pto::TCMPS(m32, a, int16_t(-1), pto::CmpMode::EQ);
    EXPECT_EQ(m32.at(0, 0), 0x1u) << "a5 compares the integers";
  }
}

// TEXPANDS fills dst's valid region line by line (rows, or columns of a ColMajor a2a3 tile) and a
// Mat tile whole; nothing outside the valid region changes.
TEST(PtoInstr, ExpandScalarFillsTheValidRegionOnly) {
  {
    VecTile<float, 5, 24> d(3, 19);
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < 24; ++c) d.at(r, c) = -1.0f;
    pto::TEXPANDS(d, 2.5f);
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < 24; ++c)
        ASSERT_EQ(d.at(r, c), r < 3 && c < 19 ? 2.5f : -1.0f) << r << "," << c;
  }
  {
    VecTile<int8_t, 3, 64> d(2, 33);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 64; ++c) d.at(r, c) = 9;
    pto::TEXPANDS(d, int8_t(-3));
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 64; ++c) ASSERT_EQ(d.at(r, c), r < 2 && c < 33 ? -3 : 9) << r << "," << c;
  }
  {
    TargetGuard g("a2a3");  // a2a3 takes a ColMajor Vec dst
    pto::Tile<pto::TileType::Vec, half, 16, 8, pto::BLayout::ColMajor, pto::DYNAMIC, pto::DYNAMIC> d(
        11, 5);
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 8; ++c) d.at(r, c) = half(1.0f);
    pto::TEXPANDS(d, half(-0.5f));
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 8; ++c)
        ASSERT_EQ(float(d.at(r, c)), r < 11 && c < 5 ? -0.5f : 1.0f) << r << "," << c;
  }
  {
    pto::Tile<pto::TileType::Mat, float, 32, 16, pto::BLayout::ColMajor, 20, 9,
              pto::SLayout::RowMajor, 512>
        m;  // a Mat dst is filled whole, whatever its valid shape
    pto::TEXPANDS(m, 7.0f);
    for (int r = 0; r < 32; ++r)
      for (int c = 0; c < 16; ++c) ASSERT_EQ(m.at(r, c), 7.0f) << r << "," << c;
  }
}

// TROWEXPAND / TCOLEXPAND* read their sources before writing: dst as its own source (a2a3 lets
// TROWEXPAND's src have more than one valid column), each row's value kept.
TEST(PtoInstr, ExpandInPlace) {
  TargetGuard g("a2a3");
  VecTile<float, 4, 24> d(3, 20);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 20; ++c) d.at(r, c) = float(100 * r + c);
  pto::TROWEXPAND(d, d);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 20; ++c) ASSERT_EQ(d.at(r, c), float(100 * r)) << r << "," << c;
  // A ColMajor src of several columns: column 0 is its first R elements, not every Cols-th one.
  pto::Tile<pto::TileType::Vec, float, 16, 8, pto::BLayout::ColMajor, pto::DYNAMIC, pto::DYNAMIC>
      col(16, 1);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c) col.at(r, c) = float(10 * r + c);
  VecTile<float, 16, 16> wide(16, 16);
  pto::TROWEXPAND(wide, col);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) ASSERT_EQ(wide.at(r, c), float(10 * r)) << r << "," << c;
  VecTile<float, 4, 24> e(3, 20);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 20; ++c) e.at(r, c) = float(10 * r + c);
  pto::TCOLEXPANDSUB(e, e, e);  // the expanded operand is e's own row 0, read before row 0 changes
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 20; ++c) ASSERT_EQ(e.at(r, c), float(10 * r)) << r << "," << c;
}

TEST(PtoInstr, ExpandFamily) {
  VecTile<float, 4, 8> d(3, 8), full(3, 8), row(1, 8);
  pto::Tile<pto::TileType::Vec, float, 8, 1, pto::BLayout::ColMajor, pto::DYNAMIC, pto::DYNAMIC>
      col(3, 1);
  for (int r = 0; r < 3; ++r) col.at(r, 0) = float(r + 1);
  for (int c = 0; c < 8; ++c) row.at(0, c) = float(c);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 8; ++c) full.at(r, c) = 10.0f * r;
  pto::TROWEXPAND(d, col);
  EXPECT_EQ(d.at(2, 7), 3.0f);
  pto::TCOLEXPAND(d, row);
  EXPECT_EQ(d.at(2, 7), 7.0f);
  pto::TCOLEXPANDSUB(d, full, row);
  EXPECT_EQ(d.at(2, 3), 17.0f);
  pto::TCOLEXPANDSUB(d, row, full);  // expanded operand first: order kept
  EXPECT_EQ(d.at(2, 3), -17.0f);
  pto::TCOLEXPANDEXPDIF(d, full, full);  // row 0 of full is 0: e^(x - 0)
  EXPECT_EQ(d.at(0, 1), 1.0f);
  EXPECT_EQ(bits(d.at(1, 1)), 0x46AC14EEu);  // e^10 = 22026.4657..., RNE to fp32
}

// ---- every row against the scalar definition ----

// Dtypes of an instruction on a target (the table's sets).
std::vector<Elem> dtypes_of(const tilesim::pto::InstrInfo& info, const Target& t) {
  const uint16_t m = t.kind == tilesim::pto::TargetKind::a2a3 ? info.a2a3
                     : t.kind == tilesim::pto::TargetKind::a5 ? info.a5
                                                             : uint16_t(info.a2a3 | info.a5);
  std::vector<Elem> v;
  for (int e = 0; e < kNumElems; ++e)
    if (m & (1u << e)) v.push_back(Elem(e));
  return v;
}

bool has_zero(Elem e, const HostTile& t, int R, int C) {
  if (elem_is_float(e)) return false;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      uint64_t v = 0;
      std::memcpy(&v, const_cast<HostTile&>(t).at(r, c), elem_size(e));
      if (v == 0) return true;
    }
  return false;
}

void make_nonzero(Elem e, HostTile& t) {
  if (elem_is_float(e)) return;
  const size_t sz = elem_size(e);
  for (size_t i = 0; i < t.bytes.size(); i += sz) {
    uint64_t v = 0;
    std::memcpy(&v, &t.bytes[i], sz);
    if (v == 0) t.bytes[i] = 3;
  }
}

TEST(PtoInstr, EveryRowFastEqualsReference) {
  std::mt19937 g(21);
  size_t runs = 0;
  const int shapes[][4] = {{1, 1, 16, 64}, {3, 17, 4, 64}, {8, 64, 8, 64}, {5, 100, 8, 128}};
  for (const char* tn : {"a2a3", "a5", "cpu"}) {
    const Target& t = find_target(tn);
    for (int i = 0; i < tilesim::pto::num_instrs(); ++i) {
      const auto& info = tilesim::pto::instr_info(Instr(i));
      const Kind k = info.kind;
      if (k != Kind::Binary && k != Kind::BinaryTmp && k != Kind::Unary &&
          k != Kind::UnaryRsqrt && k != Kind::Scalar && k != Kind::ScalarDiv &&
          k != Kind::ScalarTmp && k != Kind::LeakyRelu && k != Kind::ColExpandOp &&
          k != Kind::Compare && k != Kind::CompareScalar)
        continue;
      for (Elem e : dtypes_of(info, t))
        for (const auto& sh : shapes) {
          const int R = sh[0], C = sh[1], rows = sh[2], cols = sh[3];
          SCOPED_TRACE(std::string(info.name) + " " + elem_name(e) + " " + tn + " " +
                       std::to_string(R) + "x" + std::to_string(C));
          HostTile a(e, rows, cols, true, R, C), b(e, rows, cols, true, R, C);
          fill_random(g, e, a.bytes.data(), a.bytes.size() / a.sz());
          fill_random(g, e, b.bytes.data(), b.bytes.size() / b.sz());
          const bool div = std::string(info.name).find("DIV") != std::string::npos ||
                           std::string(info.name).find("REM") != std::string::npos ||
                           k == Kind::UnaryRsqrt || std::string(info.name) == "TRECIP";
          if (div) {
            make_nonzero(e, a);
            make_nonzero(e, b);
          }
          if (k == Kind::ColExpandOp) b.d.valid_row = 1;
          Call call{.instr = Instr(i), .src0 = &a.d, .src1 = &b.d};
          std::vector<uint8_t> sbytes(8);
          fill_random(g, e, sbytes.data(), 1);
          std::memcpy(&call.scalar, sbytes.data(), elem_size(e));
          if (div && !elem_is_float(e) && call.scalar == 0) call.scalar = 1;
          if ((info.id == Instr::TSHLS || info.id == Instr::TSHRS)) call.scalar %= 40;
          if (k == Kind::ScalarDiv) call.scalar_first = g() % 2;
          Elem de = e;
          if (k == Kind::Compare || k == Kind::CompareScalar) {
            de = t.kind == tilesim::pto::TargetKind::a2a3 ? Elem::u8 : Elem::u32;
            call.cmp = uint8_t(g() % 6);
            if (t.kind == tilesim::pto::TargetKind::a2a3 && e == Elem::s32) call.cmp %= 2;
          }
          HostTile d1(de, rows, cols, true, R, k == Kind::Compare || k == Kind::CompareScalar ? (C + 7) / 8 : C);
          fill_random(g, de, d1.bytes.data(), d1.bytes.size() / d1.sz());
          HostTile d2 = d1;
          call.dst = &d1.d;
          (void)has_zero;
          execute(call, t, Ub{}, Path::Fast);
          call.dst = &d2.d;
          execute(call, t, Ub{}, Path::Reference);
          ASSERT_EQ(d1.bytes, d2.bytes);
          ++runs;
        }
    }
  }
  EXPECT_GT(runs, 500u);
}

// TCMP writes its bits straight into dst when dst shares no byte with a source, through a buffer
// when it does: a mask tile over src0's own bytes gets the bits of the sources as read, the same
// as a separate dst (fp32 and fp16, TCMP and TCMPS, a5 u32 words with a word past ceil(C/32)).
TEST(PtoInstr, CompareIntoItsOwnSourceReadsFirst) {
  std::mt19937 g(23);
  const Target& t = find_target("a5");
  for (Elem e : {Elem::f32, Elem::f16})
    for (Instr i : {Instr::TCMP, Instr::TCMPS}) {
      HostTile a(e, 4, 64, true, 4, 40), b(e, 4, 64, true, 4, 40);
      fill_random(g, e, a.bytes.data(), a.bytes.size() / a.sz());
      fill_random(g, e, b.bytes.data(), b.bytes.size() / b.sz());
      HostTile sep(Elem::u32, 4, 8, true, 4, 2);
      Call call{.instr = i, .dst = &sep.d, .src0 = &a.d, .src1 = i == Instr::TCMP ? &b.d : nullptr,
                .scalar = e == Elem::f32 ? 0x3F800000u : 0x3C00u, .cmp = 2};
      execute(call, t, Ub{});
      HostTile alias = a;
      TileDesc m = sep.d;  // u32 words over src0's first bytes
      m.data = alias.d.data;
      m.capacity = alias.bytes.size();
      call.src0 = &alias.d;
      call.dst = &m;
      execute(call, t, Ub{});
      for (int r = 0; r < 4; ++r)
        for (int w = 0; w < 2; ++w) {
          uint32_t got, want;
          std::memcpy(&got, m.data + (size_t(r) * 8 + w) * 4, 4);
          std::memcpy(&want, sep.d.data + (size_t(r) * 8 + w) * 4, 4);
          EXPECT_EQ(got, want) << elem_name(e) << " " << (i == Instr::TCMP ? "TCMP" : "TCMPS")
                               << " row " << r << " word " << w;
        }
    }
}

TEST(PtoInstr, ThreadsDoNotChangeBits) {
  std::mt19937 g(5);
  const Target& t = find_target("a5");
  for (Instr i : {Instr::TADD, Instr::TEXP, Instr::TDIVS, Instr::TCOLEXPANDMUL})
    for (Elem e : {Elem::f32, Elem::f16}) {
      HostTile a(e, 600, 512, true), b(e, 600, 512, true), d1(e, 600, 512, true);
      fill_random(g, e, a.bytes.data(), a.bytes.size() / a.sz());
      fill_random(g, e, b.bytes.data(), b.bytes.size() / b.sz());
      if (i == Instr::TCOLEXPANDMUL) b.d.valid_row = 1;
      HostTile d2 = d1;
      Call call{.instr = i, .dst = &d1.d, .src0 = &a.d, .src1 = &b.d, .scalar = 0x3F00};
      tilesim::set_num_threads(1);
      execute(call, t, Ub{}, Path::Fast);
      tilesim::set_num_threads(2);
      call.dst = &d2.d;
      execute(call, t, Ub{}, Path::Fast);
      tilesim::set_num_threads(0);
      EXPECT_EQ(d1.bytes, d2.bytes) << tilesim::pto::instr_info(i).name;
    }
}

// ---- rejections: message and untouched dst ----

void expect_rejected(const Call& call, const Target& t, const HostTile& dst, const char* needle) {
  const std::vector<uint8_t> before = dst.bytes;
  try {
    execute(call, t, Ub{});
    ADD_FAILURE() << "not rejected: " << needle;
  } catch (const tilesim::Error& err) {
    EXPECT_NE(std::string(err.what()).find(needle), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("[docs/pto-instructions.md#"), std::string::npos)
        << err.what();
  }
  EXPECT_EQ(dst.bytes, before);
}

TEST(PtoInstrRejects, EveryRule) {
  const Target &a2a3 = find_target("a2a3"), &a5 = find_target("a5");
  HostTile f(Elem::f32, 4, 8, true), f2(Elem::f32, 4, 8, true), d(Elem::f32, 4, 8, true);
  HostTile i32(Elem::s32, 4, 8, true), i32b(Elem::s32, 4, 8, true), di(Elem::s32, 4, 8, true);
  for (int c = 0; c < 8; ++c) i32b.set<int32_t>(1, c, 1), i32b.set<int32_t>(0, c, 1),
                              i32b.set<int32_t>(2, c, 1), i32b.set<int32_t>(3, c, 1);
  i32b.set<int32_t>(2, 5, 0);
  expect_rejected({.instr = Instr::TDIV, .dst = &di.d, .src0 = &i32.d, .src1 = &i32b.d}, a2a3, di,
                  "TDIV: dst dtype s32 is not supported on target a2a3");
  expect_rejected({.instr = Instr::TDIV, .dst = &di.d, .src0 = &i32.d, .src1 = &i32b.d}, a5, di,
                  "integer division by zero: src1 (divisor) element (2, 5) is 0");
  HostTile cm(Elem::f32, 8, 8, false);
  expect_rejected({.instr = Instr::TADD, .dst = &d.d, .src0 = &cm.d, .src1 = &f2.d}, a2a3, d,
                  "src0 must be RowMajor");
  HostTile small(Elem::f32, 4, 8, true, 2, 8);
  expect_rejected({.instr = Instr::TMUL, .dst = &d.d, .src0 = &f.d, .src1 = &small.d}, a2a3, d,
                  "src1 valid shape must equal dst's, got 2x8 and 4x8");
  HostTile h(Elem::f16, 4, 16, true, 4, 8);
  expect_rejected({.instr = Instr::TADD, .dst = &d.d, .src0 = &f.d, .src1 = &h.d}, a2a3, d,
                  "dst and src1 must have the same dtype");
  expect_rejected({.instr = Instr::TSHLS, .dst = &di.d, .src0 = &i32.d, .scalar = uint32_t(-2)},
                  a2a3, di, "shift count (scalar) must be >= 0, got -2");
  expect_rejected({.instr = Instr::TDIVS, .dst = &di.d, .src0 = &i32.d, .scalar = 0}, a2a3, di,
                  "the scalar divisor is 0");
  HostTile m8(Elem::u8, 4, 32, true, 4, 1);
  expect_rejected({.instr = Instr::TCMP, .dst = &m8.d, .src0 = &i32.d, .src1 = &i32b.d, .cmp = 2},
                  a2a3, m8, "CmpMode::LT on int32 is not available on a2a3");
  HostTile m32(Elem::u32, 4, 8, true, 4, 1);
  expect_rejected({.instr = Instr::TCMP, .dst = &m32.d, .src0 = &f.d, .src1 = &f2.d}, a2a3, m32,
                  "dst dtype must be u8 on target a2a3, got u32");
  HostTile m8small(Elem::u8, 4, 32, true, 3, 1);
  expect_rejected({.instr = Instr::TCMP, .dst = &m8small.d, .src0 = &f.d, .src1 = &f2.d}, a2a3,
                  m8small, "dst valid shape must be 4 rows");
  HostTile tmp(Elem::s32, 4, 8, true), ones(Elem::s32, 4, 8, true);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) ones.set<int32_t>(r, c, 1);
  expect_rejected({.instr = Instr::TREM, .dst = &di.d, .src0 = &i32.d, .src1 = &ones.d,
                   .tmp = &tmp.d},
                  a2a3, di, "tmp must have validRow >= 1 and validCol >= Cols + 2*ceil(Cols/64) = 10");
  HostTile x(Elem::s32, 4, 8, true);
  expect_rejected({.instr = Instr::TXOR, .dst = &di.d, .src0 = &i32.d, .src1 = &i32b.d,
                   .tmp = &di.d},
                  a2a3, di, "dst and tmp must not share storage");
  HostTile dd(Elem::f32, 4, 8, true, 0, 0);
  expect_rejected({.instr = Instr::TROWEXPAND, .dst = &dd.d, .src0 = &f.d}, a2a3, dd,
                  "dst valid shape must be at least 1x1");
  HostTile tr(Elem::f32, 4, 8, true);
  expect_rejected({.instr = Instr::TRECIP, .dst = &tr.d, .src0 = &tr.d}, a2a3, tr,
                  "src and dst must not share storage");
  HostTile mat(Elem::f32, 4, 8, true);
  mat.d.loc = 1;
  expect_rejected({.instr = Instr::TEXP, .dst = &mat.d, .src0 = &f.d}, a2a3, mat,
                  "dst must be a TileType::Vec tile, got Mat");
}

// spec 21 §5: on cpu a TROWEXPAND* tmp is neither checked nor written and may alias any operand
// (the vendor's flash-attention demo passes src as tmp); a2a3 rejects that alias.
TEST(PtoInstr, CpuTargetIgnoresRowExpandTmp) {
  VecTile<float, 4, 8> full(4, 8), d(4, 8);
  pto::Tile<pto::TileType::Vec, float, 8, 1, pto::BLayout::ColMajor, pto::DYNAMIC, pto::DYNAMIC>
      s(4, 1);
  for (int r = 0; r < 4; ++r) {
    s.at(r, 0) = float(r);
    for (int c = 0; c < 8; ++c) full.at(r, c) = 10.0f;
  }
  {
    TargetGuard g("cpu");
    pto::TROWEXPANDSUB(d, full, s, full);  // tmp = the full operand itself
    EXPECT_EQ(d.at(3, 2), 7.0f);
    EXPECT_EQ(full.at(3, 2), 10.0f) << "tmp not written";
  }
  TargetGuard g("a2a3");
  EXPECT_THROW(pto::TROWEXPANDSUB(d, full, s, full), tilesim::Error);
}

// The vendor's template spellings compile (explicit precision arguments, the tmp overloads).
TEST(PtoInstr, VendorSpellingsCompile) {
  TargetGuard g("cpu");
  VecTile<float, 2, 8> a(2, 8), b(2, 8), d(2, 8), t(2, 8);
  for (int c = 0; c < 8; ++c) a.at(0, c) = a.at(1, c) = 4.0f, b.at(0, c) = b.at(1, c) = 3.0f;
  pto::TDIV<pto::DivAlgorithm::HIGH_PRECISION>(d, a, b);
  EXPECT_EQ(bits(d.at(0, 0)), 0x3FAAAAABu);
  pto::TREM<pto::RemAlgorithm::DEFAULT>(d, a, b, t);
  EXPECT_EQ(d.at(1, 1), 1.0f);
  pto::TEXP<pto::ExpAlgorithm::HIGH_PRECISION>(d, a);
  pto::TRSQRT(d, a);
  EXPECT_EQ(d.at(0, 0), 0.5f);
  pto::TRSQRT(d, a, t);
  EXPECT_EQ(d.at(0, 0), 0.5f);
  pto::RecordEvent ev = pto::TADD(d, a, b);
  pto::TMUL(d, a, b, ev);  // trailing events are accepted
  EXPECT_EQ(d.at(0, 0), 12.0f);
}

}  // namespace

// TMATMUL's fast engine reads NZ Left / ZN Right tiles in place (src/pto/matmul.cpp); the reference
// gathers every operand. Same bits for every dtype pair, valid regions smaller than the tiles,
// _ACC from another tile and in place, _BIAS, NaN / Inf / subnormal operands, 1 and 2 threads.
TEST(PtoInstr, MatmulFastEqualsReferenceOnFractalTiles) {
  std::mt19937 g(41);
  const Target& t = find_target("a5");
  struct Pair {
    Elem in, acc;
  };
  size_t runs = 0;
  for (const Pair p : {Pair{Elem::f16, Elem::f32}, Pair{Elem::bf16, Elem::f32}, Pair{Elem::f32, Elem::f32},
                       Pair{Elem::s8, Elem::s32}})
    for (int rep = 0; rep < 6; ++rep)
      for (size_t threads : {size_t{1}, size_t{2}}) {
        tilesim::set_num_threads(threads);
        const int es = int(elem_size(p.in)), k0 = 32 / es;
        const int R = 16 * (1 + int(g() % 4)), KC = k0 * (1 + int(g() % 4)), NC = 16 * (1 + int(g() % 4));
        const int M = 1 + int(g() % R), K = 1 + int(g() % KC), N = 1 + int(g() % NC);
        HostTile a(p.in, R, KC, false, M, K), b(p.in, KC, NC, true, K, N);  // NZ Left, ZN Right
        a.d.loc = tilesim::pto::kLocLeft;
        a.d.slayout = tilesim::pto::kSLayoutRowMajor;
        b.d.loc = tilesim::pto::kLocRight;
        b.d.slayout = tilesim::pto::kSLayoutColMajor;
        HostTile c(p.acc, R, NC, false, M, N), cin(p.acc, R, NC, false, M, N), bias(p.acc, 1, NC, true, 1, N);
        for (HostTile* x : {&c, &cin}) {
          x->d.loc = tilesim::pto::kLocAcc;
          x->d.slayout = tilesim::pto::kSLayoutRowMajor;
          x->d.fractal = 1024;
        }
        bias.d.loc = tilesim::pto::kLocBias;
        for (HostTile* x : {&a, &b, &c, &cin, &bias}) fill_random(g, x->d.dtype, x->bytes.data(), x->bytes.size() / x->sz());
        for (int form = 0; form < 4; ++form) {  // plain, _ACC from cin, _ACC in place, _BIAS
          HostTile d1 = c, d2 = c;
          Call call{.instr = form == 3 ? Instr::TMATMUL_BIAS : form ? Instr::TMATMUL_ACC : Instr::TMATMUL,
                    .src0 = &a.d, .src1 = &b.d};
          call.dst = &d1.d;
          call.acc_in = form == 1 ? &cin.d : form == 2 ? &d1.d : nullptr;
          call.bias = form == 3 ? &bias.d : nullptr;
          execute(call, t, Ub{}, Path::Fast);
          call.dst = &d2.d;
          if (form == 2) call.acc_in = &d2.d;
          execute(call, t, Ub{}, Path::Reference);
          ASSERT_EQ(d1.bytes, d2.bytes) << "in " << int(p.in) << " " << M << "x" << K << "x" << N << " form " << form;
          ++runs;
        }
      }
  tilesim::set_num_threads(0);
  EXPECT_EQ(runs, 4u * 6 * 2 * 4);
}

// move_region between boxed tiles over whole boxes copies or transposes box by box
// (src/pto/movement.cpp); every element must land where layout::index puts it, for every pair of
// box layouts (NZ, ZN, ZZ), element size and box-aligned offset.
TEST(PtoInstr, BoxedMovesPlaceEveryElement) {
  namespace L = tilesim::pto::layout;
  std::mt19937 g(5);
  struct Lay {
    bool row_major;
    uint8_t slayout;
  };
  const Lay lays[] = {{false, tilesim::pto::kSLayoutRowMajor},  // NZ
                      {true, tilesim::pto::kSLayoutColMajor},   // ZN
                      {true, tilesim::pto::kSLayoutRowMajor}};  // ZZ
  size_t checked = 0;
  for (Elem e : {Elem::s8, Elem::f16, Elem::f32})
    for (const Lay& sl : lays)
      for (const Lay& dl : lays) {
        HostTile src(e, 64, 128, sl.row_major), dst(e, 64, 128, dl.row_major);
        src.d.slayout = sl.slayout;
        dst.d.slayout = dl.slayout;
        const int IR = L::inner_rows(src.d), IC = L::inner_cols(src.d);
        if (IR != L::inner_rows(dst.d) || IC != L::inner_cols(dst.d)) continue;  // different boxes: generic mover
        fill_random(g, e, src.bytes.data(), src.bytes.size() / src.sz());
        const int r0 = IR * int(g() % 2), c0 = IC * int(g() % 2);
        const int R = 64 - r0 - IR * int(g() % 2), C = 128 - c0 - IC * int(g() % 2);
        tilesim::pto::instr::move_region(dst.d, src.d, r0, c0, R, C, {e, e});
        for (int r = 0; r < R; ++r)
          for (int c = 0; c < C; ++c)
            ASSERT_EQ(0, std::memcmp(L::at(dst.d, r, c), L::at(src.d, r0 + r, c0 + c), src.sz()))
                << int(e) << " " << int(sl.slayout) << "->" << int(dl.slayout) << " at " << r << "," << c;
        ++checked;
      }
  EXPECT_GE(checked, 9u);
}

// move_region between a row-major tile and a tile of row-major boxes (NZ, ZZ) copies runs of a
// box row (src/pto/movement.cpp): every element where layout::index puts it, partial last runs,
// any row offset, box-aligned column offsets, both directions.
TEST(PtoInstr, RowsToBoxRowsPlaceEveryElement) {
  namespace L = tilesim::pto::layout;
  std::mt19937 g(6);
  size_t checked = 0;
  for (Elem e : {Elem::s8, Elem::f16, Elem::f32})
    for (bool nz : {true, false})
      for (bool to_boxed : {true, false})
        for (int rep = 0; rep < 3; ++rep) {
          HostTile rows(e, 64, 128, true), boxed(e, 64, 128, !nz);
          boxed.d.slayout = tilesim::pto::kSLayoutRowMajor;
          if (!nz) boxed.d.fractal = 1024;  // ZZ: 16 x 16 boxes
          const int IC = L::inner_cols(boxed.d);
          HostTile& src = to_boxed ? rows : boxed;
          HostTile& dst = to_boxed ? boxed : rows;
          fill_random(g, e, src.bytes.data(), src.bytes.size() / src.sz());
          const int r0 = int(g() % 9), c0 = IC * int(g() % 2);
          const int R = 1 + int(g() % (64 - r0)), C = 1 + int(g() % (128 - c0 - IC + 1));
          tilesim::pto::instr::move_region(dst.d, src.d, r0, c0, R, C, {e, e});
          for (int r = 0; r < R; ++r)
            for (int c = 0; c < C; ++c)
              ASSERT_EQ(0, std::memcmp(L::at(dst.d, r, c), L::at(src.d, r0 + r, c0 + c), src.sz()))
                  << int(e) << (nz ? " NZ" : " ZZ") << (to_boxed ? " rows->boxed" : " boxed->rows") << " at " << r << ","
                  << c;
          ++checked;
        }
  EXPECT_EQ(checked, 3u * 2 * 2 * 3);
}
