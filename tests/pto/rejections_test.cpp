// One test per rejection of spec 20 §1–§5: the message names the rule (substring checked) and
// nothing is written (every tile's bytes and the whole simulated UB are compared before/after).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "pto_test_util.hpp"
#include "tilesim/error.hpp"

using namespace pto_test;

namespace {
const Target& A2 = find_target("a2a3");
const Target& A5 = find_target("a5");

void expect_reject(const std::function<void()>& call, const std::string& substr,
                   std::vector<std::vector<uint8_t>*> mems) {
  std::vector<std::vector<uint8_t>> before;
  for (auto* m : mems) before.push_back(*m);
  try {
    call();
    ADD_FAILURE() << "no error; expected: " << substr;
  } catch (const tilesim::Error& e) {
    EXPECT_NE(std::string(e.what()).find(substr), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[docs/pto.md#"), std::string::npos) << e.what();
  }
  for (size_t i = 0; i < mems.size(); ++i)
    EXPECT_TRUE(*mems[i] == before[i]) << "memory " << i << " changed";
}

// A legal mode-1 float set-up: dst/full 16x16, s 16x1 ColMajor, filled with 1s.
struct Legal {
  HostTile dst{Elem::f32, 16, 16, true}, full{Elem::f32, 16, 16, true}, s{Elem::f32, 16, 1, false};
  Legal() {
    for (auto* t : {&dst, &full, &s}) std::fill(t->bytes.begin(), t->bytes.end(), uint8_t(0x3F));
  }
  std::vector<std::vector<uint8_t>*> mems() { return {&dst.bytes, &full.bytes, &s.bytes}; }
  void run(Op op = Op::ADD, const Target& t = A2, const TileDesc* tmp = nullptr) {
    row_expand(op, dst.d, full.d, s.d, tmp, t, Ub{});
  }
};
}  // namespace

TEST(PtoReject, DtypeMismatch) {
  Legal k;
  HostTile s16(Elem::f16, 16, 1, false);
  expect_reject([&] { row_expand(Op::ADD, k.dst.d, k.full.d, s16.d, nullptr, A2, Ub{}); },
                "same dtype", k.mems());
}

TEST(PtoReject, DtypeNotOnTarget) {
  HostTile d(Elem::bf16, 16, 16, true), f(Elem::bf16, 16, 16, true), s(Elem::bf16, 16, 1, false);
  expect_reject([&] { row_expand(Op::ADD, d.d, f.d, s.d, nullptr, A2, Ub{}); },
                "dtype bf16 is not supported on target a2a3", {&d.bytes});
  HostTile d8(Elem::u8, 2, 32, true), f8(Elem::u8, 2, 32, true), s8(Elem::u8, 2, 32, true);
  expect_reject([&] { row_expand(Op::MAX, d8.d, f8.d, s8.d, nullptr, A2, Ub{}); },
                "dtype u8 is not supported", {&d8.bytes});
}

TEST(PtoReject, DivOnIntegersOnA2A3) {
  HostTile d(Elem::s32, 8, 8, true), f(Elem::s32, 8, 8, true), s(Elem::s32, 8, 1, false);
  expect_reject([&] { row_expand(Op::DIV, d.d, f.d, s.d, nullptr, A2, Ub{}); },
                "dtype s32 is not supported on target a2a3 (supported: fp16 fp32)", {&d.bytes});
}

TEST(PtoReject, ExpdifOnIntegerOrBf16) {
  HostTile d(Elem::s16, 16, 16, true), f(Elem::s16, 16, 16, true), s(Elem::s16, 16, 1, false);
  expect_reject([&] { row_expand(Op::EXPDIF, d.d, f.d, s.d, nullptr, A5, Ub{}); },
                "TROWEXPANDEXPDIF: dtype s16 is not supported on target a5", {&d.bytes});
  HostTile b(Elem::bf16, 16, 16, true), bf(Elem::bf16, 16, 16, true), bs(Elem::bf16, 16, 1, false);
  expect_reject([&] { row_expand(Op::EXPDIF, b.d, bf.d, bs.d, nullptr, A5, Ub{}); },
                "dtype bf16 is not supported", {&b.bytes});
}

TEST(PtoReject, DstNotRowMajor) {
  Legal k;
  HostTile dc(Elem::f32, 16, 16, false);
  expect_reject([&] { row_expand(Op::ADD, dc.d, k.full.d, k.s.d, nullptr, A2, Ub{}); },
                "dst must be RowMajor", {&dc.bytes});
}

TEST(PtoReject, FullOperandNotRowMajor) {
  Legal k;
  HostTile fc(Elem::f32, 16, 16, false);
  expect_reject([&] { row_expand(Op::ADD, k.dst.d, fc.d, k.s.d, nullptr, A2, Ub{}); },
                "src0 (full operand) must be RowMajor", k.mems());
}

TEST(PtoReject, NoOperandMatchesDst) {
  Legal k;
  k.full.d.valid_col = 8;
  expect_reject([&] { k.run(); }, "no source matches dst's valid shape 16x16", k.mems());
}

TEST(PtoReject, Mode1ValidColNotOne) {
  Legal k;
  HostTile s2(Elem::f32, 16, 4, false, 16, 4);
  expect_reject([&] { row_expand(Op::SUB, k.dst.d, k.full.d, s2.d, nullptr, A2, Ub{}); },
                "TROWEXPANDSUB: src1 (expanded operand, ColMajor) must have validCol == 1, got 4 "
                "[docs/pto.md#trowexpand-constraints]",
                k.mems());
}

// cpu: a ColMajor expanded operand of any width gives its column 0 (the vendor CPU simulator's
// read; pto-isa's flash-attention demo passes the 64 x 64 ColMajor tile TROWMAX wrote).
TEST(PtoReject, Mode1AnyWidthOnCpuReadsColumnZero) {
  Legal k;
  HostTile s2(Elem::f32, 16, 4, false, 16, 4);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 4; ++c) s2.set<float>(r, c, c == 0 ? float(r) : 1000.0f);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) k.full.set<float>(r, c, float(c));
  row_expand(Op::SUB, k.dst.d, k.full.d, s2.d, nullptr, tilesim::pto::find_target("cpu"), Ub{});
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c)
      ASSERT_EQ(k.dst.get<float>(r, c), float(c) - float(r)) << r << "," << c;
}

TEST(PtoReject, Mode2ValidColNotE) {
  Legal k;
  HostTile s2(Elem::f32, 16, 16, true, 16, 4);
  expect_reject([&] { row_expand(Op::SUB, k.dst.d, k.full.d, s2.d, nullptr, A2, Ub{}); },
                "src1 (expanded operand, RowMajor) must have validCol == 32/sizeof(T) = 8, got 4",
                k.mems());
  HostTile d8(Elem::s8, 2, 64, true), f8(Elem::s8, 2, 64, true), x8(Elem::s8, 2, 32, true, 2, 16);
  expect_reject([&] { row_expand(Op::ADD, d8.d, f8.d, x8.d, nullptr, A5, Ub{}); }, "= 32, got 16",
                {&d8.bytes});
}

TEST(PtoReject, ValidRowNotR) {
  Legal k;
  k.s.d.valid_row = 15;
  expect_reject([&] { k.run(); }, "must have validRow == dst validRow 16, got 15", k.mems());
}

TEST(PtoReject, BoxedLayoutPadCompact) {
  Legal k;
  k.full.d.slayout = 1;
  expect_reject([&] { k.run(); }, "src0 must have SLayout::NoneBox", k.mems());
  k.full.d.slayout = 0;
  k.s.d.pad = 1;
  expect_reject([&] { k.run(); }, "src1 must have PadValue::Null and CompactMode::Null", k.mems());
  k.s.d.pad = 0;
  k.dst.d.compact = 2;
  expect_reject([&] { k.run(); }, "dst must have PadValue::Null and CompactMode::Null", k.mems());
}

TEST(PtoReject, NonVecTile) {
  Legal k;
  k.s.d.loc = 1;  // Mat
  expect_reject([&] { k.run(); }, "src1 must be a TileType::Vec tile, got Mat", k.mems());
  k.s.d.loc = 0;
  HostTile tmp(Elem::f32, 256, 8, true);
  tmp.d.loc = 4;
  auto m = k.mems();
  m.push_back(&tmp.bytes);
  expect_reject([&] { k.run(Op::ADD, A2, &tmp.d); }, "tmp must be a TileType::Vec tile, got Acc",
                m);
}

TEST(PtoReject, TmpInMode2) {
  HostTile d(Elem::f32, 4, 16, true), f(Elem::f32, 4, 16, true), x(Elem::f32, 4, 8, true),
      tmp(Elem::f32, 256, 8, true);
  for (const Target* t : {&A2, &A5})
    expect_reject([&] { row_expand(Op::ADD, d.d, f.d, x.d, &tmp.d, *t, Ub{}); },
                  "the tmp overload supports mode 1 only", {&d.bytes, &tmp.bytes});
}

TEST(PtoReject, TmpTooSmallAutoMode) {
  Legal k;
  HostTile tmp(Elem::f32, 8, 8, true);  // 256 bytes < ceil(16/8)*256 = 512
  auto m = k.mems();
  m.push_back(&tmp.bytes);
  expect_reject([&] { k.run(Op::ADD, A2, &tmp.d); },
                "tmp holds 256 bytes (8x8 fp32), R = 16 needs 512", m);
  // a5 ignores tmp (spec 20 §5): the same call is legal there.
  EXPECT_NO_THROW(k.run(Op::ADD, A5, &tmp.d));
}

TEST(PtoReject, TmpOutsideUb) {
  UbArena a(A2);
  TileDesc dst = a.bind(Elem::f32, 16, 16, true, 0), full = a.bind(Elem::f32, 16, 16, true, 0x400),
           s = a.bind(Elem::f32, 16, 1, false, 0x800);
  TileDesc tmp =
      a.bind(Elem::f32, 16, 1, false, 192 * 1024 - 256);  // the tile fits, the 512-byte buffer not
  expect_reject([&] { row_expand(Op::ADD, dst, full, s, &tmp, A2, a.ub); },
                "lies outside the a2a3 UB", {&a.bytes});
}

TEST(PtoReject, TmpOverlapsDst) {
  UbArena a(A2);
  TileDesc dst = a.bind(Elem::f32, 16, 16, true, 0), full = a.bind(Elem::f32, 16, 16, true, 0x400),
           s = a.bind(Elem::f32, 16, 1, false, 0x800);
  TileDesc tmp =
      a.bind(Elem::f32, 16, 1, false, 0x300);  // buffer [0x300, 0x500) overlaps dst and src0
  expect_reject([&] { row_expand(Op::ADD, dst, full, s, &tmp, A2, a.ub); },
                "tmp buffer (512 bytes for R = 16) overlaps dst", {&a.bytes});
}

TEST(PtoReject, TmpOverlapsExpandedWhenRAtLeast256) {
  UbArena a(A2);
  TileDesc dst = a.bind(Elem::f32, 256, 8, true, 0), full = a.bind(Elem::f32, 256, 8, true, 0x2000),
           s = a.bind(Elem::f32, 256, 1, false, 0x4000);
  TileDesc tmp = a.bind(Elem::f32, 256, 1, false, 0x4000);
  expect_reject([&] { row_expand(Op::ADD, dst, full, s, &tmp, A2, a.ub); },
                "overlaps src1 (expanded operand; allowed only when R < 256)", {&a.bytes});
  // R < 256: sharing the expanded operand's space is allowed (spec 20 §5), scalars read first.
  TileDesc dst2 = a.bind(Elem::f32, 16, 8, true, 0), full2 = a.bind(Elem::f32, 16, 8, true, 0x2000),
           s2 = a.bind(Elem::f32, 16, 1, false, 0x4000),
           tmp2 = a.bind(Elem::f32, 16, 1, false, 0x4000);
  for (int i = 0; i < 16; ++i) {
    const float v = float(i);
    std::memcpy(a.bytes.data() + 0x4000 + 4 * i, &v, 4);
  }
  row_expand(Op::ADD, dst2, full2, s2, &tmp2, A2, a.ub);
  float got;
  std::memcpy(&got, a.bytes.data() + (5 * 8 + 3) * 4, 4);
  EXPECT_EQ(got, 5.0f);  // 0 + s_5, s read before the buffer overwrote it
  std::memcpy(&got, a.bytes.data() + 0x4000 + 32 * 5 + 4, 4);
  EXPECT_EQ(got, 5.0f);  // block 5 holds s_5 repeated
}

TEST(PtoReject, OperandOverlapsInternalBuffer) {
  UbArena a(A2);
  TileDesc dst = a.bind(Elem::f32, 16, 16, true, 184 * 1024 - 512),
           full = a.bind(Elem::f32, 16, 16, true, 0), s = a.bind(Elem::f32, 16, 1, false, 0x400);
  expect_reject([&] { row_expand(Op::MAX, dst, full, s, nullptr, A2, a.ub); },
                "dst [0x2de00, 0x2e200) overlaps the internal 8 KB buffer [0x2e000, 0x30000)",
                {&a.bytes});
  // The same placement with a mode-2 expanded operand needs no buffer: legal.
  TileDesc x = a.bind(Elem::f32, 16, 8, true, 0x800);
  EXPECT_NO_THROW(row_expand(Op::MAX, dst, full, x, nullptr, A2, a.ub));
}

TEST(PtoReject, TassignMisalignedOrOutOfUb) {
  UbArena a(A2);
  EXPECT_THROW(
      {
        try {
          ub_bind(a.ub, A2, 0x1010, 64, "src0");
        } catch (const tilesim::Error& e) {
          EXPECT_NE(std::string(e.what()).find("32-byte aligned"), std::string::npos);
          throw;
        }
      },
      tilesim::Error);
  EXPECT_THROW(
      {
        try {
          ub_bind(a.ub, A2, 192 * 1024 - 32, 64, "src0");
        } catch (const tilesim::Error& e) {
          EXPECT_NE(std::string(e.what()).find("exceeds the a2a3 UB of 196608 bytes"),
                    std::string::npos);
          throw;
        }
      },
      tilesim::Error);
  EXPECT_EQ(ub_bind(a.ub, A5, 0, 64, "x"), a.ub.base);
}

TEST(PtoReject, IntegerDivisionByZero) {
  HostTile d(Elem::s16, 4, 16, true), f(Elem::s16, 4, 16, true), s(Elem::s16, 16, 1, false, 4, 1);
  for (int i = 0; i < 4; ++i) s.set<int16_t>(i, 0, int16_t(i + 1));
  s.set<int16_t>(2, 0, 0);
  expect_reject([&] { row_expand(Op::DIV, d.d, f.d, s.d, nullptr, A5, Ub{}); },
                "integer division by zero: src1 (expanded operand) element (2, 0) is 0",
                {&d.bytes});
  // Divisor is the full operand when src1 is full (swapped): a zero there is found too.
  HostTile x(Elem::s16, 16, 1, false, 4, 1);
  for (int i = 0; i < 4; ++i) x.set<int16_t>(i, 0, 5);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 16; ++j) f.set<int16_t>(i, j, 1);
  f.set<int16_t>(3, 15, 0);
  expect_reject([&] { row_expand(Op::DIV, d.d, x.d, f.d, nullptr, A5, Ub{}); },
                "src1 (full operand) element (3, 15) is 0", {&d.bytes});
}

TEST(PtoReject, TileShapeAndAlignment) {
  HostTile t(Elem::f32, 16, 12, true);  // 48 bytes per row
  EXPECT_THROW(check_tile(t.d, "Tile", "x"), tilesim::Error);
  try {
    check_tile(t.d, "Tile", "x");
  } catch (const tilesim::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Cols*sizeof(T) % 32 == 0, got Cols=12"),
              std::string::npos);
  }
  HostTile c(Elem::f16, 8, 1, false);  // 16 bytes per column
  EXPECT_THROW(check_tile(c.d, "Tile", "x"), tilesim::Error);
  Legal k;
  k.dst.d.valid_col = 17;
  expect_reject([&] { k.run(); }, "valid shape must satisfy 0 <= valid <= static", k.mems());
}

TEST(PtoReject, OperandBoundToOtherTargetsUb) {
  UbArena a5(A5);
  Legal k;
  TileDesc s = a5.bind(Elem::f32, 16, 1, false, 0);
  expect_reject([&] { row_expand(Op::ADD, k.dst.d, k.full.d, s, nullptr, A2, Ub{}); },
                "bound (TASSIGN) to the UB of another target", k.mems());
}

TEST(PtoReject, EmptyValidShapeIsNotAnError) {
  Legal k;
  k.dst.d.valid_row = 0;  // rule 5: nothing done, even though no source matches 0x16
  const auto before = k.dst.bytes;
  EXPECT_NO_THROW(k.run());
  EXPECT_EQ(k.dst.bytes, before);
}
