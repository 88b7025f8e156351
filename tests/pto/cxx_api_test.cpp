// The C++ front end (spec 20 §1, spec 60 §3): pto::Tile, TASSIGN, the seven instructions with
// both overloads, known answers from the seeds and hand computations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <pto/pto-inst.hpp>

using namespace pto;

namespace {
struct TargetGuard {
  explicit TargetGuard(const char* t) { set_target(t); }
  ~TargetGuard() { set_target("a2a3"); }
};
uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
uint16_t hbits(half h) {
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
}  // namespace

// Seed 000 mode 1: dst[i][j] = full[i][j] - s_i (src0 full, so operand order agrees).
TEST(PtoCxx, SeedSubMode1) {
  Tile<TileType::Vec, float, 16, 16> dst, src0;
  Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor> src1;
  for (int i = 0; i < 16; ++i) {
    src1.at(i, 0) = float(i);
    for (int j = 0; j < 16; ++j) src0.at(i, j) = float(100 * i + j);
  }
  TROWEXPANDSUB(dst, src0, src1);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) EXPECT_EQ(dst.at(i, j), float(99 * i + j)) << i << "," << j;
}

// Seed 000 mode 2: dst[i][j] = full[i][j] - b_i[j mod 8] for float.
TEST(PtoCxx, SeedSubMode2) {
  Tile<TileType::Vec, float, 4, 32> dst, src0;
  Tile<TileType::Vec, float, 4, 8> src1;
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 8; ++k) src1.at(i, k) = float(10 * i + k);
    for (int j = 0; j < 32; ++j) src0.at(i, j) = 1000.0f;
  }
  TROWEXPANDSUB(dst, src0, src1);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 32; ++j) EXPECT_EQ(dst.at(i, j), 1000.0f - float(10 * i + j % 8));
}

// Seed 004: TROWEXPANDMAX 16x128xf32 with a 16x1 per-row scalar (its assembly example's shapes).
TEST(PtoCxx, SeedMax16x128) {
  Tile<TileType::Vec, float, 16, 128> dst, src0;
  Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor> src1;
  for (int i = 0; i < 16; ++i) {
    src1.at(i, 0) = float(i) - 8.0f;
    for (int j = 0; j < 128; ++j) src0.at(i, j) = float(j % 16) - 8.0f;
  }
  TROWEXPANDMAX(dst, src0, src1);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 128; ++j)
      EXPECT_EQ(dst.at(i, j), std::max(float(j % 16) - 8.0f, float(i) - 8.0f));
}

// spec 20 §4 operand order: expanded src0 gives s_i - full (and s_i / full).
TEST(PtoCxx, SwappedOperandOrder) {
  Tile<TileType::Vec, float, 8, 8> dst, full;
  Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor> s;
  for (int i = 0; i < 8; ++i) {
    s.at(i, 0) = 10.0f;
    for (int j = 0; j < 8; ++j) full.at(i, j) = float(j + 1);
  }
  TROWEXPANDSUB(dst, s, full);
  for (int j = 0; j < 8; ++j) EXPECT_EQ(dst.at(0, j), 10.0f - float(j + 1));
  TROWEXPANDDIV(dst, s, full);
  EXPECT_EQ(dst.at(3, 3), 2.5f);  // 10 / 4
  TROWEXPANDDIV<DivAlgorithm::HIGH_PRECISION>(dst, full, s);
  EXPECT_EQ(dst.at(3, 4), 0.5f);  // 5 / 10
}

// Only dst's valid region is written; DYNAMIC valid shapes set at run time.
TEST(PtoCxx, DynamicValidRegionOnly) {
  using Full = Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  Full dst(3, 5), src0(3, 5);
  Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor, DYNAMIC, 1> s(3);
  for (int i = 0; i < 8; ++i) {
    s.at(i, 0) = 1.0f;
    for (int j = 0; j < 16; ++j) dst.at(i, j) = -7.0f, src0.at(i, j) = 2.0f;
  }
  TROWEXPANDADD(dst, src0, s);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j)
      EXPECT_EQ(dst.at(i, j), (i < 3 && j < 5) ? 3.0f : -7.0f) << i << "," << j;
  dst.SetValidRow(0);  // R = 0: nothing done, no error (spec 20 §3 rule 5)
  EXPECT_NO_THROW(TROWEXPANDADD(dst, src0, s));
  EXPECT_THROW(dst.SetValidCol(17), tilesim::Error);
}

// An auto-mode tile starts zero-filled even when its storage is a block an earlier tile of the
// same size gave back (the per-thread cache of src/pto/tile_storage.cpp); tiles alive together
// never share storage.
TEST(PtoCxx, TileStorageReusedZeroFilled) {
  using T = Tile<TileType::Vec, float, 8, 16>;
  const float* first = nullptr;
  {
    T a;
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 16; ++j) a.at(i, j) = -1.5f;
    first = &a.at(0, 0);
  }
  T b, c;
  EXPECT_EQ(&b.at(0, 0), first);  // the freed block, reused
  EXPECT_NE(&c.at(0, 0), &b.at(0, 0));
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j) {
      EXPECT_EQ(b.at(i, j), 0.0f) << i << "," << j;
      EXPECT_EQ(c.at(i, j), 0.0f) << i << "," << j;
    }
  EXPECT_EQ(reinterpret_cast<uintptr_t>(&b.at(0, 0)) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(&c.at(0, 0)) % 64, 0u);
}

// Half: computed in fp32, rounded once; 65504 + 8 rounds back to 65504; 65504 + 16 = 65520 is the
// midpoint to 2^16 and ties to even (0x7BFF is odd) -> overflow to +Inf (IEEE 754 §4.3.1).
TEST(PtoCxx, HalfRoundingAndOverflow) {
  Tile<TileType::Vec, half, 16, 16> dst, src0;
  Tile<TileType::Vec, half, 16, 1, BLayout::ColMajor> s;
  for (int i = 0; i < 16; ++i) {
    s.at(i, 0) = half(i == 0 ? 8.0f : 16.0f);
    for (int j = 0; j < 16; ++j) src0.at(i, j) = half(65504.0f);
  }
  TROWEXPANDADD(dst, src0, s);
  EXPECT_EQ(hbits(dst.at(0, 0)), 0x7BFF);
  EXPECT_EQ(hbits(dst.at(1, 0)), 0x7C00);
}

// Events: trailing WaitEvents are accepted and the call returns a RecordEvent.
TEST(PtoCxx, EventsAndTmpOverload) {
  Tile<TileType::Vec, float, 16, 8> dst, src0;
  Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor> s;
  Tile<TileType::Vec, float, 64, 8> tmp;  // 2048 bytes >= ceil(16/8)*256 = 512
  for (int i = 0; i < 16; ++i) s.at(i, 0) = float(i);
  RecordEvent e0;
  RecordEvent e1 = TROWEXPANDMUL(dst, src0, s, e0);
  (void)e1;
  for (int i = 0; i < 16; ++i) src0.at(i, 0) = 2.0f;
  TROWEXPANDMUL(dst, src0, s, tmp, e0, e1);
  EXPECT_EQ(dst.at(5, 0), 10.0f);
  // §5 contents: block k = row k's scalar repeated E = 8 times.
  for (int k = 0; k < 16; ++k)
    for (int e = 0; e < 8; ++e) EXPECT_EQ(tmp.data()[k * 8 + e], float(k));
  EXPECT_EQ(tmp.data()[16 * 8], 0.0f);  // never written
}

// Manual mode: TASSIGN binds into the simulated UB; aliasing tiles see each other's writes, and
// the 3-argument mode-1 form writes the internal buffer at 184 KB (spec 20 §5).
TEST(PtoCxx, ManualModeAliasAndInternalBuffer) {
  Tile<TileType::Vec, float, 8, 8> a, b;
  Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor> s;
  TASSIGN(a, 0x0);
  TASSIGN(b, 0x0);  // b aliases a
  TASSIGN(s, 0x1000);
  for (int i = 0; i < 8; ++i) {
    s.at(i, 0) = float(i + 1);
    for (int j = 0; j < 8; ++j) a.at(i, j) = 100.0f;
  }
  TROWEXPANDSUB(a, a, s);  // in place
  EXPECT_EQ(b.at(2, 3), 97.0f);
  Tile<TileType::Vec, float, 256, 8> internal;  // view the 8 KB area at 184 KB
  TASSIGN(internal, 184 * 1024);
  EXPECT_EQ(internal.at(0, 0), 1.0f);
  EXPECT_EQ(internal.at(7, 7), 8.0f);
  EXPECT_EQ(a.address(), 0);
}

TEST(PtoCxx, Bfloat16OnA5AndInt8Mode2) {
  TargetGuard g("a5");
  Tile<TileType::Vec, bfloat16_t, 2, 16> dst, src0;
  Tile<TileType::Vec, bfloat16_t, 16, 1, BLayout::ColMajor, 2, 1> s;
  src0.at(0, 0) = bfloat16_t(1.0f);
  s.at(0, 0) = bfloat16_t(0x1p-8f);  // 1 + 2^-8 is a tie between 1 and 1+2^-7: even -> 1.0
  TROWEXPANDADD(dst, src0, s);
  EXPECT_EQ(dst.at(0, 0).bits, 0x3F80);
  Tile<TileType::Vec, int8_t, 2, 64> d8, f8;
  Tile<TileType::Vec, int8_t, 2, 32> x8;  // mode 2: validCol 32 for 8-bit types
  for (int j = 0; j < 64; ++j) f8.at(1, j) = 127;
  for (int k = 0; k < 32; ++k) x8.at(1, k) = int8_t(k);
  TROWEXPANDADD(d8, f8, x8);
  EXPECT_EQ(d8.at(1, 0), 127);
  EXPECT_EQ(d8.at(1, 33), -128);  // 127 + 1 wraps (two's complement)
  EXPECT_EQ(d8.at(1, 63), int8_t(127 + 31 - 256));
  (void)bits;
}

// Static and DYNAMIC shapes through the template give the same bits as the engine reference.
TEST(PtoCxx, StaticTemplateMatchesReference) {
  Tile<TileType::Vec, half, 32, 48> dst, src0;
  Tile<TileType::Vec, half, 32, 16> blk;  // mode 2, E = 16
  uint32_t seed = 1;
  auto rnd = [&] {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 16;
  };
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 48; ++j) {
      const uint16_t c = uint16_t(rnd());
      std::memcpy(&src0.at(i, j), &c, 2);
    }
    for (int k = 0; k < 16; ++k) {
      const uint16_t c = uint16_t(rnd());
      std::memcpy(&blk.at(i, k), &c, 2);
    }
  }
  for (auto op : {tilesim::pto::Op::ADD, tilesim::pto::Op::DIV, tilesim::pto::Op::MIN}) {
    Tile<TileType::Vec, half, 32, 48> ref;
    const auto rd = ref.desc();
    tilesim::pto::row_expand(op, rd, src0.desc(), blk.desc(), nullptr,
                             tilesim::pto::default_target(), tilesim::pto::Ub{},
                             tilesim::pto::Path::Reference);
    if (op == tilesim::pto::Op::ADD) TROWEXPANDADD(dst, src0, blk);
    if (op == tilesim::pto::Op::DIV) TROWEXPANDDIV(dst, src0, blk);
    if (op == tilesim::pto::Op::MIN) TROWEXPANDMIN(dst, blk, src0);  // swapped roles
    if (op == tilesim::pto::Op::MIN)
      tilesim::pto::row_expand(op, rd, blk.desc(), src0.desc(), nullptr,
                               tilesim::pto::default_target(), tilesim::pto::Ub{},
                               tilesim::pto::Path::Reference);
    EXPECT_EQ(std::memcmp(dst.data(), ref.data(), 32 * 48 * 2), 0) << tilesim::pto::op_name(op);
  }
}
