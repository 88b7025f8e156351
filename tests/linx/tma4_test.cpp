// TLOAD / TSTORE / TMOV of the 4-bit types S4x2, U4x2, E2M1x2, E1M2x2 (spec 31 §2, spec 30 §4, spec
// 10 §2 nibble order; docs/linx.md#tload-tstore-tmov): hand-computed known answers, round trips
// through memory in every supported layout, and the 4-bit faults with memory and tiles untouched.
#include <gtest/gtest.h>

#include <random>

#include "tilesim/linx.hpp"

using namespace tilesim::linx;

namespace {
#define EXPECT_HAS(hay, needle) EXPECT_NE(std::string(hay).find(needle), std::string::npos) << (hay)

unsigned nib(const std::vector<uint8_t>& v, size_t e) { return (v[e / 2] >> (e % 2 * 4)) & 0xF; }

TEST(LinxTma4, LoadNormKnownAnswerWithPad) {
  Machine m;
  m.write_mem(0x100, std::vector<uint8_t>{0x21, 0x43});  // row 0: elements 1 2 3 4
  m.write_mem(0x110, std::vector<uint8_t>{0xA9, 0xCB});  // row 1: elements 9 A B C
  m.set_reg("a0", 0x100);
  m.set_reg("a1", 16);
  // ValidCol 4, ValidRow 2, Col 8 (4 bytes a row): 256 B hold Row 64; pad Max (S4: +7).
  m.run("BSTART.TLOAD S4x2\nB.DATR Max\nB.DIM zero, 4, ->LB0\nB.DIM zero, 2, ->LB1\nB.DIM zero, 8, ->LB2\n"
        "B.IOR a0, a1\nB.IOT last, ->T<256B>");
  std::vector<uint8_t> want(256, 0x77);
  want[0] = 0x21, want[1] = 0x43, want[4] = 0xA9, want[5] = 0xCB;
  EXPECT_EQ(m.tile_bytes('T', 1), want);
}

TEST(LinxTma4, PadValuesPerType) {
  struct Case {
    const char* type;
    const char* pad;
    uint8_t byte;
  };
  // S4 Min -8 = 0x8; U4 Max 15 = 0xF; E2M1 Min -6 = 0xF (sign 1, exponent 11, mantissa 1);
  // E1M2 Max 1.75 = 0x7; Zero = +0.
  for (const Case& k : {Case{"S4x2", "Min", 0x88}, Case{"U4x2", "Max", 0xFF}, Case{"E2M1x2", "Min", 0xFF},
                        Case{"E1M2x2", "Max", 0x77}, Case{"E2M1x2", "Zero", 0x00}}) {
    Machine m;
    m.run(std::string("BSTART.TLOAD ") + k.type + "\nB.DATR " + k.pad +
          "\nB.DIM zero, 2, ->LB0\nB.DIM zero, 4, ->LB2\nB.IOR zero\nB.IOT last, ->T<256B>");
    const auto t = m.tile_bytes('T', 1);
    EXPECT_EQ(t[1], k.byte) << k.type << " " << k.pad;  // elements 2, 3 of row 0
    EXPECT_EQ(t[2], k.byte) << k.type << " " << k.pad;  // row 1
    EXPECT_EQ(t[255], k.byte) << k.type << " " << k.pad;
  }
}

TEST(LinxTma4, NzKnownAnswerAndRoundTrip) {
  // U4x2, ND2NZ: K0 = 64; Col 128, 1 KB -> Row 16. Element (i, j) of memory row i at nibble j.
  Machine m;
  std::mt19937 rng(4);
  std::vector<uint8_t> src(16 * 64);
  for (auto& b : src) b = static_cast<uint8_t>(rng());
  m.write_mem(0x1000, src);
  m.set_reg("a0", 0x1000);
  m.set_reg("a1", 64);
  m.set_reg("a2", 0x3000);
  m.run("BSTART.TLOAD U4x2\nB.DATR ND2NZ\nB.DIM zero, 128, ->LB0\nB.DIM zero, 16, ->LB1\nB.DIM zero, 128, ->LB2\n"
        "B.IOR a0, a1\nB.IOT last, ->T<1KB>");
  const auto t = m.tile_bytes('T', 1);
  // (1, 70): fractal column 1 -> ((1)*(16/16) + 0)*16*64 + 1*64 + 6 = 1094 (low nibble of byte 547);
  // memory: row 1, nibble 70 = low nibble of byte 64 + 35.
  EXPECT_EQ(t[547] & 0xF, src[64 + 35] & 0xF);
  // (15, 3): ((0) + 0)*1024 + 15*64 + 3 = 963 (high nibble of byte 481); memory byte 15*64 + 1, high.
  EXPECT_EQ(t[481] >> 4, src[15 * 64 + 1] >> 4);
  for (size_t i = 0; i < 16; ++i)
    for (size_t j = 0; j < 128; ++j)
      ASSERT_EQ(nib(t, ((j / 64) + i / 16) * 1024 + (i % 16) * 64 + j % 64), nib(src, i * 128 + j)) << i << "," << j;
  m.run("BSTART.TSTORE U4x2\nB.DATR NZ2ND\nB.DIM zero, 128, ->LB0\nB.DIM zero, 16, ->LB1\nB.DIM zero, 128, ->LB2\n"
        "B.IOR a2, a1\nB.IOT T#1, last");
  EXPECT_EQ(m.read_mem(0x3000, src.size()), src);
}

TEST(LinxTma4, NormAndDnRoundTrips) {
  std::mt19937 rng(5);
  for (const char* type : {"S4x2", "U4x2", "E2M1x2", "E1M2x2"}) {
    Machine m;
    std::vector<uint8_t> src(4096);
    for (auto& b : src) b = static_cast<uint8_t>(rng());
    m.write_mem(0x1000, src);
    m.set_reg("a0", 0x1000);
    m.set_reg("a1", 40);  // a stride wider than the 10-byte valid line
    m.set_reg("a2", 0x4000);
    m.set_reg("a3", 12);
    const std::string t = type;
    // NORM: 20 x 6 valid of a Col-32 tile; stored with another stride.
    m.run("BSTART.TLOAD " + t + "\nB.DIM zero, 20, ->LB0\nB.DIM zero, 6, ->LB1\nB.DIM zero, 32, ->LB2\n"
          "B.IOR a0, a1\nB.IOT last, ->T<256B>");
    m.run("BSTART.TSTORE " + t + "\nB.DIM zero, 20, ->LB0\nB.DIM zero, 6, ->LB1\nB.DIM zero, 32, ->LB2\n"
          "B.IOR a2, a3\nB.IOT T#1, last");
    const auto out = m.read_mem(0x4000, 6 * 12);
    for (size_t i = 0; i < 6; ++i)
      for (size_t j = 0; j < 12; ++j)
        EXPECT_EQ(out[i * 12 + j], j < 10 ? src[i * 40 + j] : 0) << t << " " << i << "," << j;  // nothing past the row
    // DN2ZN: K0 = 64 along Row; Col 16, 512 B -> Row 64. Memory column j at a0 + j*40, nibble i.
    m.run("BSTART.TLOAD " + t + "\nB.DATR DN2ZN\nB.DIM zero, 6, ->LB0\nB.DIM zero, 64, ->LB1\nB.DIM zero, 16, ->LB2\n"
          "B.IOR a0, a1\nB.IOT last, ->T<512B>");
    m.set_reg("a2", 0x8000);
    m.run("BSTART.TSTORE " + t + "\nB.DATR ZN2ND\nB.DIM zero, 6, ->LB0\nB.DIM zero, 64, ->LB1\nB.DIM zero, 16, ->LB2\n"
          "B.IOR a2\nB.IOT T#1, last");
    const auto nd = m.read_mem(0x8000, 64 * 3);  // default stride: 6 nibbles = 3 bytes
    for (size_t i = 0; i < 64; ++i)
      for (size_t j = 0; j < 6; ++j)
        ASSERT_EQ(nib(nd, i * 6 + j), nib(src, j * 80 + i)) << t << " " << i << "," << j;
  }
}

TEST(LinxTma4, TmovCopiesBytes) {
  Machine m;
  std::vector<uint8_t> t(256);
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<uint8_t>(i * 7);
  m.push_raw('T', t);
  m.run("BSTART.TMOV E2M1x2\nB.IOT T#1, last, ->U<256B>");
  EXPECT_EQ(m.tile_bytes('U', 1), t);
}

TEST(LinxTma4, FaultsLeaveMemoryAndTilesUntouched) {
  struct Case {
    const char* prog;
    const char* kind;
    const char* needle;
  };
  const Case cases[] = {
      {"BSTART.TLOAD S4x2\nB.DIM zero, 3, ->LB0\nB.DIM zero, 8, ->LB2\nB.IOR a0\nB.IOT last, ->U<256B>", "tile geometry",
       "a 4-bit tile needs Col and ValidCol even (whole bytes), got Col 8, ValidCol 3"},
      {"BSTART.TLOAD U4x2\nB.DIM zero, 5, ->LB0\nB.IOR a0\nB.IOT last, ->U<256B>", "tile geometry",
       "got Col 5, ValidCol 5"},
      {"BSTART.TSTORE E1M2x2\nB.DIM zero, 2, ->LB0\nB.DIM zero, 7, ->LB2\nB.IOR a0\nB.IOT T#1, last", "tile geometry",
       "got Col 7, ValidCol 2"},
      {"BSTART.TLOAD S4x2\nB.DATR DN2ZN\nB.DIM zero, 2, ->LB0\nB.DIM zero, 3, ->LB1\nB.DIM zero, 16, ->LB2\n"
       "B.IOR a0\nB.IOT last, ->U<512B>",
       "tile geometry", "4-bit DN source needs ValidRow even (whole bytes per line), got 3"},
      {"BSTART.TLOAD E2M1x2\nB.DIM zero, 64, ->LB0\nB.DIM zero, 2, ->LB1\nB.IOR a4\nB.IOT last, ->U<256B>",
       "memory bounds", "[67108856, +64)"},
      {"BSTART.TSTORE U4x2\nB.DIM zero, 64, ->LB0\nB.DIM zero, 2, ->LB1\nB.IOR a4\nB.IOT T#1, last", "memory bounds",
       "[67108856, +64)"},
      {"BSTART.TLOAD S4x2\nB.DIM zero, 4, ->LB0\nB.DIM zero, 9, ->LB1\nB.DIM zero, 64, ->LB2\nB.IOR a0\nB.IOT last, ->U<256B>",
       "tile geometry", "ValidRow 9 > Row 8 (Size 256 / (Col 64 * 4 bits / 8))"},
  };
  for (const Case& k : cases) {
    Machine m;
    m.set_reg("a0", 0x100);
    m.set_reg("a4", (uint64_t{64} << 20) - 8);
    const std::vector<uint8_t> t(256, 7);
    m.push_raw('T', t);
    m.write_mem(0x100, t);
    const auto before = m.read_mem(0, 0x1000);
    try {
      m.run(k.prog);
      ADD_FAILURE() << k.prog << ": no fault";
    } catch (const Fault& f) {
      EXPECT_EQ(f.kind(), k.kind) << f.what();
      EXPECT_HAS(f.what(), k.needle);
      EXPECT_HAS(f.what(), "[docs/linx.md#");
    }
    EXPECT_EQ(m.read_mem(0, 0x1000), before);
    EXPECT_EQ(m.read_mem((uint64_t{64} << 20) - 8, 8), std::vector<uint8_t>(8, 0));
    ASSERT_EQ(m.tiles('T').size(), 1u);
    EXPECT_TRUE(m.tiles('T')[0].live);
    EXPECT_TRUE(m.tiles('U').empty());
  }
}

}  // namespace
