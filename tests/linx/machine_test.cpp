// The machine: the seed's example end to end, queue semantics (numbering, reuse, release, 17th
// push, capacity), ACC, and one test per fault kind asserting message and unchanged state.
#include <gtest/gtest.h>

#include "support.hpp"

using namespace tilesim::linx;
using namespace linx_test;

namespace {
#define EXPECT_HAS(hay, needle) EXPECT_NE(std::string(hay).find(needle), std::string::npos) << (hay)

struct Snapshot {
  AccView acc;
  std::vector<std::vector<TileInfo>> tiles;
  size_t live;
  explicit Snapshot(const Machine& m) : acc(m.acc()), live(m.live_bytes()) {
    for (char q : std::string("TUMN")) tiles.push_back(m.tiles(q));
  }
  bool operator==(const Snapshot& o) const {
    if (acc.valid != o.acc.valid || acc.m != o.acc.m || acc.n != o.acc.n || acc.type != o.acc.type ||
        acc.data != o.acc.data || live != o.live)
      return false;
    for (size_t q = 0; q < 4; ++q) {
      if (tiles[q].size() != o.tiles[q].size()) return false;
      for (size_t i = 0; i < tiles[q].size(); ++i)
        if (tiles[q][i].size != o.tiles[q][i].size || tiles[q][i].live != o.tiles[q][i].live) return false;
    }
    return true;
  }
};

// Runs text, expects a Fault; checks kind, word index, message parts and unchanged state.
std::string expect_fault(Machine& m, const std::string& text, const std::string& kind, long word) {
  const Snapshot before(m);
  try {
    m.run(text);
  } catch (const Fault& f) {
    EXPECT_EQ(f.code(), tilesim::ErrorCode::Fault);
    EXPECT_EQ(f.kind(), kind) << f.what();
    EXPECT_EQ(f.word_index(), word) << f.what();
    EXPECT_FALSE(f.block_text().empty());
    EXPECT_TRUE(Snapshot(m) == before) << "state changed by a faulting block";
    return f.what();
  }
  ADD_FAILURE() << "no fault for " << text;
  return {};
}

// Pushes a random M x K A (nz) to T, K x N B (zn) to U, returns the codes.
struct Operands {
  std::vector<uint8_t> A, B;
};
Operands push_ab(Machine& m, DType ta, DType tb, size_t M, size_t N, size_t K, std::mt19937& rng) {
  Operands o{random_codes(ta, M * K, rng), random_codes(tb, K * N, rng)};
  m.push_tile('T', o.A.data(), M, K, ta, Layout::nz);
  m.push_tile('U', o.B.data(), K, N, tb, Layout::zn);
  return o;
}
uint32_t fbits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }
}  // namespace

TEST(LinxMachine, SeedExampleEndToEnd) {
  // TMATMUL.BIAS <LB0:100, LB1:a0, LB2:a1+10, FP32>, T#1, U#1, N#1, ->ACC<64KB>, a0 = 40, a1 = 7.
  Machine m;
  m.set_reg("a0", 40);
  m.set_reg("a1", 7);
  std::mt19937 rng(2);
  const size_t M = 100, N = 40, K = 17;
  auto ops = push_ab(m, DType::fp32, DType::fp32, M, N, K, rng);
  std::vector<float> bias(N);
  for (size_t j = 0; j < N; ++j) bias[j] = static_cast<float>(j) - 20.5f;
  m.push_tile('N', bias.data(), 1, N, DType::fp32, Layout::nd);
  m.run("TMATMUL.BIAS <LB0:100, LB1:a0, LB2:a1+10, FP32>, T#1, U#1, N#1, ->ACC<64KB>");
  const AccView& a = m.acc();
  ASSERT_TRUE(a.valid);
  EXPECT_EQ(a.m, M);
  EXPECT_EQ(a.n, N);
  EXPECT_EQ(a.type, DType::fp32);
  std::vector<uint32_t> bw(N);
  std::memcpy(bw.data(), bias.data(), N * 4);
  EXPECT_EQ(a.data, expected(ops.A, DType::fp32, ops.B, DType::fp32, M, N, K, bw.data(), nullptr));
  // No .reuse: all three sources were released, the queues keep their numbering.
  EXPECT_FALSE(m.tiles('T')[0].live);
  EXPECT_FALSE(m.tiles('U')[0].live);
  EXPECT_FALSE(m.tiles('N')[0].live);
  EXPECT_EQ(m.live_bytes(), 0u);
}

TEST(LinxMachine, MixedTypesBiasAndAccumulate) {
  Machine m;
  std::mt19937 rng(4);
  const size_t M = 20, N = 18, K = 40;
  auto ops = push_ab(m, DType::fp16, DType::e5m2, M, N, K, rng);
  std::vector<float> bias(N, 0.25f);
  m.push_tile('N', bias.data(), 1, N, DType::fp32, Layout::nd);
  m.run("TMATMUL.BIAS <M:20, N:18, K:40, FP16, E5M2>, T#1.reuse, U#1.reuse, N#1, ->ACC<2KB>");
  std::vector<uint32_t> bw(N, fbits(0.25f));
  const auto first = expected(ops.A, DType::fp16, ops.B, DType::e5m2, M, N, K, bw.data(), nullptr);
  EXPECT_EQ(m.acc().data, first);
  m.run("TMATMUL.ACC <M:20, N:18, K:40, FP16, E5M2>, T#1, U#1, ACC, ->ACC<4KB>");
  EXPECT_EQ(m.acc().data, expected(ops.A, DType::fp16, ops.B, DType::e5m2, M, N, K, nullptr, first.data()));
  // Integer: S4x2 x S8 -> S32, U8 x U16 -> U32.
  auto iops = push_ab(m, DType::s4, DType::s8, 3, 70, 130, rng);
  m.run("TMATMUL <M:3, N:70, K:130, S4x2, S8>, T#1, U#1, ->ACC<1KB>");
  EXPECT_EQ(m.acc().type, DType::s32);
  EXPECT_EQ(m.acc().data, expected(iops.A, DType::s4, iops.B, DType::s8, 3, 70, 130, nullptr, nullptr));
  auto uops = push_ab(m, DType::u8, DType::u16, 17, 5, 33, rng);
  m.run("TMATMUL <M:17, N:5, K:33, U8, U16>, T#1, U#1, ->ACC<512B>");
  EXPECT_EQ(m.acc().type, DType::u32);
  EXPECT_EQ(m.acc().data, expected(uops.A, DType::u8, uops.B, DType::u16, 17, 5, 33, nullptr, nullptr));
}

TEST(LinxMachine, QueueNumberingReuseRelease17thPush) {
  Machine m;
  std::vector<uint8_t> raw(300, 1);
  for (int i = 0; i < 3; ++i) m.push_raw('M', std::span<const uint8_t>(raw.data(), 100 * (i + 1)));
  auto t = m.tiles('M');
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].index, 1);
  EXPECT_EQ(t[0].size, 512u);  // 300 bytes -> smallest legal size
  EXPECT_EQ(t[2].size, 256u);  // M#3 is the oldest
  for (int i = 0; i < 13; ++i) m.push_raw('M', std::span<const uint8_t>(raw.data(), 10));
  EXPECT_EQ(m.tiles('M').size(), 16u);
  EXPECT_EQ(m.tiles('M')[15].size, 256u);
  const size_t live = m.live_bytes();
  m.push_raw('M', std::span<const uint8_t>(raw.data(), 10), 1024);  // the 17th push
  t = m.tiles('M');
  ASSERT_EQ(t.size(), 16u);
  EXPECT_EQ(t[0].size, 1024u);
  EXPECT_EQ(t[14].size, 512u);  // the first 256 B tile left the window (released)
  EXPECT_EQ(m.live_bytes(), live - 256 + 1024);
  // Reuse keeps a source live; without it the source is released and reading it faults.
  std::mt19937 rng(9);
  push_ab(m, DType::bf16, DType::bf16, 16, 16, 16, rng);
  m.run("TMATMUL <M:16, N:16, K:16, BF16>, T#1.reuse, U#1, ->ACC<1KB>");
  EXPECT_TRUE(m.tiles('T')[0].live);
  EXPECT_FALSE(m.tiles('U')[0].live);
  const auto msg = expect_fault(m, "TMATMUL <M:16, N:16, K:16, BF16>, T#1, U#1, ->ACC<1KB>", "tile released", 0);
  EXPECT_HAS(msg, "TMATMUL: fault (tile released) at word 0: B U#1 was released and cannot be read in block "
                  "`TMATMUL <LB0:16, LB1:16, LB2:16, BF16>, T#1, U#1, ->ACC<1KB>` [docs/linx.md#machine]");
  // A new push renumbers: U#2 is the released one, U#1 the new one.
  std::vector<uint8_t> b2(1024, 0);
  m.push_raw('U', b2);
  EXPECT_TRUE(m.tiles('U')[0].live);
  EXPECT_FALSE(m.tiles('U')[1].live);
}

TEST(LinxMachine, FaultCapacityOnPush) {
  Machine m;
  std::vector<uint8_t> big(256 * 1024, 0);
  m.push_raw('T', big);
  m.push_raw('U', big);
  const Snapshot before(m);
  try {
    m.push_raw('N', std::span<const uint8_t>(big.data(), 10));
    ADD_FAILURE() << "no fault";
  } catch (const Fault& f) {
    EXPECT_EQ(f.kind(), "capacity");
    EXPECT_HAS(f.what(), "live tiles would hold 524544 bytes, more than the 524288-byte capacity");
  }
  EXPECT_TRUE(Snapshot(m) == before);
  EXPECT_THROW(m.push_raw('T', big, 512 * 1024), tilesim::Error);  // larger than 256 KB
  EXPECT_THROW(m.push_raw('T', std::span<const uint8_t>(big.data(), 10), 768), tilesim::Error);
  EXPECT_THROW(m.push_raw('X', std::span<const uint8_t>(big.data(), 10)), tilesim::Error);
}

TEST(LinxMachine, RegistersAndLaneBounds) {
  Machine m;
  EXPECT_THROW(m.set_reg("zero", 1), tilesim::Error);
  EXPECT_THROW(m.set_reg("R0", 1), tilesim::Error);
  EXPECT_THROW(m.set_reg("R24", 1), tilesim::Error);
  EXPECT_THROW(m.set_reg("foo", 1), tilesim::Error);
  m.set_reg("s0", 5);
  EXPECT_EQ(m.reg(11), 5u);
  m.set_reg("R23", 7);
  EXPECT_EQ(m.reg(23), 7u);
  // LBx = (R + uimm)[15:0]: 0xFFFF0 + 0x20 = 0x100010 -> 16.
  m.set_reg("a0", 0xFFFF0);
  std::mt19937 rng(1);
  auto ops = push_ab(m, DType::s8, DType::s8, 16, 16, 16, rng);
  m.run("TMATMUL <M:a0+0x20, N:16, K:16, S8>, T#1, U#1, ->ACC<1KB>");
  EXPECT_EQ(m.acc().m, 16u);
  EXPECT_EQ(m.acc().data, expected(ops.A, DType::s8, ops.B, DType::s8, 16, 16, 16, nullptr, nullptr));
}

TEST(LinxMachine, BstopEndsAndOtherClassesFault) {
  Machine m;
  std::mt19937 rng(6);
  push_ab(m, DType::fp16, DType::fp16, 16, 16, 16, rng);
  const Snapshot before(m);
  // BSTOP, then a VPAR block (would fault) and a TMATMUL (would write ACC, release T#1 and U#1).
  std::vector<uint32_t> w = assemble("BSTOP\nBSTART.VPAR 3\nTMATMUL <M:16, N:16, K:16, FP16>, T#1, U#1, ->ACC<1KB>");
  ASSERT_EQ(w.size(), 7u);
  m.run(w);
  EXPECT_FALSE(m.acc().valid);
  EXPECT_TRUE(Snapshot(m) == before) << "a word after BSTOP was executed";
  const auto msg = expect_fault(m, "BSTART.VPAR 3\nBSTOP", "unsupported", 0);
  EXPECT_HAS(msg, "BSTART.VPAR: fault (unsupported) at word 0: block class is not executed");
}

// ---- one test per fault kind ----
class LinxFault : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937 rng(3);
    push_ab(m, DType::fp16, DType::fp16, 16, 16, 16, rng);
    std::vector<float> bias(16, 1.0f);
    m.push_tile('N', bias.data(), 1, 16, DType::fp32, Layout::nd);
    // Leave a valid ACC so unchanged-state checks see real contents.
    m.run("TMATMUL <M:16, N:16, K:16, FP16>, T#1.reuse, U#1.reuse, ->ACC<1KB>");
  }
  Machine m;
};

TEST_F(LinxFault, MalformedHeaderBeforeBstart) {
  EXPECT_HAS(expect_fault(m, "B.DIM zero, 1, ->LB0\nBSTOP", "malformed block", 0), "header word before the first BSTART");
}
TEST_F(LinxFault, MalformedMissingIot) {
  EXPECT_HAS(expect_fault(m, "BSTART.TMATMUL FP16\nB.DIM zero, 16, ->LB0", "malformed block", 0),
             "TMATMUL needs B.IOT A, B, last, ->ACC<Size>; got 0 B.IOT word(s)");
}
TEST_F(LinxFault, MalformedWrongSourceCount) {
  EXPECT_HAS(expect_fault(m, "BSTART.CUBE TMATMUL.BIAS, FP16\nB.IOT T#1, U#1\nB.IOT N#1, U#2, last, ->ACC<1KB>",
                          "malformed block", 0),
             "the B.IOT words have the wrong number of sources");
}
TEST_F(LinxFault, MalformedLastMissingOrEarly) {
  EXPECT_HAS(expect_fault(m, "BSTART.TMATMUL FP16\nB.IOT T#1, U#1, ->ACC<1KB>", "malformed block", 0),
             "the final B.IOT lacks 'last'");
  EXPECT_HAS(expect_fault(m, "BSTART.CUBE TMATMUL.BIAS, FP16\nB.IOT T#1, U#1, last\nB.IOT N#1, last, ->ACC<1KB>",
                          "malformed block", 0),
             "'last' on a B.IOT before the final one");
}
TEST_F(LinxFault, MalformedTwoDatrAndDatrFields) {
  // The word index is the block's commit word.
  EXPECT_HAS(expect_fault(m, "TMATMUL <M:16, N:16, K:16, FP16>, T#1.reuse, U#1.reuse, ->ACC<1KB>\n"
                             "BSTART.TMATMUL FP16\nB.DATR FP16\nB.DATR BF16\nB.IOT T#1, U#1, last, ->ACC<1KB>",
                          "malformed block", 5),
             "at word 5: two B.DATR words");
  EXPECT_HAS(expect_fault(m, "BSTART.TMATMUL FP16\nB.DATR FP16\nB.DATR BF16\nB.IOT T#1, U#1, last, ->ACC<1KB>",
                          "malformed block", 0),
             "two B.DATR words");
  EXPECT_HAS(expect_fault(m, "BSTART.TMATMUL FP16\nB.DATR FP16, sat=1\nB.IOT T#1, U#1, last, ->ACC<1KB>",
                          "malformed block", 0),
             "B.DATR fields other than DataType must be 0");
}
TEST_F(LinxFault, MalformedDestinationNotAcc) {
  EXPECT_HAS(expect_fault(m, "BSTART.TMATMUL FP16\nB.IOT T#1, U#1, last, ->T<1KB>", "malformed block", 0),
             "destination must be ACC (results go only to ACC), got T");
  EXPECT_HAS(expect_fault(m, "BSTART.TMATMUL FP16\nB.IOD 1, 2, 3, ->4\nB.IOT T#1, U#1, last, ->ACC<1KB>",
                          "malformed block", 0),
             "B.IOD 1, 2, 3, ->4 has no place in a CUBE template block");
}
TEST_F(LinxFault, UnsupportedFunction) {
  EXPECT_HAS(expect_fault(m, "BSTART.CUBE TGEMV, FP16\nB.IOT T#1, U#1, last, ->ACC<1KB>", "unsupported", 0),
             "TGEMV: fault (unsupported) at word 0: CUBE function TGEMV (Fn 16) is not implemented");
}
TEST_F(LinxFault, TypeLegality) {
  EXPECT_HAS(expect_fault(m, "TMATMUL <M:16, N:16, K:16, HiF8>, T#1, U#1, ->ACC<1KB>", "type legality", 0),
             "TypeA HiF8 is not a TMATMUL operand type");
  EXPECT_HAS(expect_fault(m, "TMATMUL <M:16, N:16, K:16, FP16, E8M0>, T#1, U#1, ->ACC<1KB>", "type legality", 0),
             "TypeB E8M0 is not a TMATMUL operand type");
  EXPECT_HAS(expect_fault(m, "TMATMUL <M:16, N:16, K:16, HiF4x2>, T#1, U#1, ->ACC<1KB>", "type legality", 0),
             "HiF4x2 is not");
  EXPECT_HAS(expect_fault(m, "TMATMUL <M:16, N:16, K:16, S8, U8>, T#1, U#1, ->ACC<1KB>", "type legality", 0),
             "TypeA S8 and TypeB U8 are in different classes");
  EXPECT_HAS(expect_fault(m, "TMATMUL <M:16, N:16, K:16, FP16, S16>, T#1, U#1, ->ACC<1KB>", "type legality", 0),
             "different classes");
}
TEST_F(LinxFault, DimensionZero) {
  EXPECT_HAS(expect_fault(m, "TMATMUL <M:16, N:0, K:16, FP16>, T#1, U#1, ->ACC<1KB>", "dimension zero", 0),
             "M=LB0=16, N=LB1=0, K=LB2=16");
  m.set_reg("a0", 0x10000);  // (R + 0)[15:0] = 0
  expect_fault(m, "TMATMUL <M:a0, N:16, K:16, FP16>, T#1, U#1, ->ACC<1KB>", "dimension zero", 0);
}
TEST_F(LinxFault, AccCapacity) {
  EXPECT_HAS(expect_fault(m, "TMATMUL <M:16, N:16, K:16, FP16>, T#1, U#1, ->ACC<512B>", "capacity", 0),
             "result M*N*4 = 16*16*4 = 1024 bytes exceeds ->ACC<512B> = 512 bytes");
}
TEST_F(LinxFault, TileNeverWritten) {
  EXPECT_HAS(expect_fault(m, "TMATMUL <M:16, N:16, K:16, FP16>, M#1, U#1, ->ACC<1KB>", "tile never written", 0),
             "A M#1: queue M holds only 0 tile(s)");
  expect_fault(m, "TMATMUL <M:16, N:16, K:16, FP16>, T#2, U#1, ->ACC<1KB>", "tile never written", 0);
}
TEST_F(LinxFault, TileTooSmall) {
  // 16 x 32 fp16 A needs 16 * 32 * 2 = 1024 bytes; T#1 is 512 bytes.
  EXPECT_HAS(expect_fault(m, "TMATMUL <M:16, N:16, K:32, FP16>, T#1, U#1, ->ACC<1KB>", "tile too small", 0),
             "A T#1 holds 512 bytes, 16x32 fp16 in NZ (padded) needs 1024");
  EXPECT_HAS(expect_fault(m, "TMATMUL <M:16, N:17, K:16, FP16>, T#1, U#1, ->ACC<2KB>", "tile too small", 0),
             "B U#1 holds 512 bytes, 16x17 fp16 in ZN (padded) needs 1024");
  EXPECT_HAS(expect_fault(m, "TMATMUL.BIAS <M:1, N:80, K:16, FP16>, T#1, U#1, N#1, ->ACC<1KB>", "tile too small", 0),
             "holds 512 bytes");
  // Bias: 16 fp32 = 64 bytes fit in 256; a 1 x 70 bias needs 280 bytes.
  std::vector<uint8_t> b(256);
  m.push_raw('U', std::vector<uint8_t>(16 * 80 * 2 + 16 * 16 * 2, 0));
  EXPECT_HAS(expect_fault(m, "TMATMUL.BIAS <M:1, N:70, K:16, FP16>, T#1, U#1, N#1, ->ACC<1KB>", "tile too small", 0),
             "Bias N#1 holds 256 bytes, 1x70 fp32 needs 280");
}
TEST_F(LinxFault, AccMismatch) {
  EXPECT_HAS(expect_fault(m, "TMATMUL.ACC <M:16, N:8, K:16, FP16>, T#1, U#1, ACC, ->ACC<1KB>", "ACC mismatch", 0),
             "ACC holds 16x16 fp32, the block needs 16x8 fp32");
  EXPECT_HAS(expect_fault(m, "TMATMUL.ACC <M:16, N:16, K:16, S16>, T#1, U#1, ACC, ->ACC<1KB>", "ACC mismatch", 0),
             "the block needs 16x16 s32");
  Machine fresh;
  std::mt19937 rng(1);
  push_ab(fresh, DType::fp16, DType::fp16, 16, 16, 16, rng);
  EXPECT_HAS(expect_fault(fresh, "TMATMUL.ACC <M:16, N:16, K:16, FP16>, T#1, U#1, ACC, ->ACC<1KB>", "ACC mismatch", 0),
             "ACC holds no result");
}
TEST_F(LinxFault, LaterBlockFaultKeepsEarlierCommits) {
  // Block 0 commits (releases T#1), block 6 faults: the first block's effects stay, the second's do not.
  // The state after the fault is exactly the state after running the first block alone (on a copy).
  Machine first_only = m;
  first_only.run("TMATMUL <M:8, N:16, K:16, FP16>, T#1, U#1.reuse, ->ACC<1KB>");
  const Snapshot want(first_only);
  EXPECT_THROW(m.run("TMATMUL <M:8, N:16, K:16, FP16>, T#1, U#1.reuse, ->ACC<1KB>\n"
                     "TMATMUL <M:16, N:16, K:16, FP16>, T#1, U#1, ->ACC<1KB>"),
               Fault);
  EXPECT_FALSE(m.tiles('T')[0].live);
  EXPECT_TRUE(m.tiles('U')[0].live);  // the second block would have released it
  EXPECT_EQ(m.acc().m, 8u);           // the first block's 8x16 ACC, not the fixture's 16x16
  EXPECT_TRUE(Snapshot(m) == want);
}
TEST_F(LinxFault, LivenessOfEverySourceBeforeAnySize) {
  // Bias N#1 released and A too small: the documented order (README, docs/linx.md decision 3)
  // reports the released Bias, not A's size.
  m.run("TMATMUL.BIAS <M:16, N:16, K:16, FP16>, T#1.reuse, U#1.reuse, N#1, ->ACC<1KB>");  // releases N#1
  EXPECT_HAS(expect_fault(m, "TMATMUL.BIAS <M:64, N:16, K:16, FP16>, T#1, U#1, N#1, ->ACC<4KB>", "tile released", 0),
             "Bias N#1 was released");
}
TEST(LinxMachineDecode, DecodeErrorBeforeAnyBlockRuns) {
  Machine m;
  try {
    m.run(std::vector<uint32_t>{0x08131181, 0xFFFFFFFF});
    ADD_FAILURE();
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Parse);
    EXPECT_HAS(e.what(), "word 0xFFFFFFFF at index 1");
  }
  EXPECT_FALSE(m.acc().valid);
}

TEST(LinxLayout, PackUnpackOffsetsAndPadding) {
  // A 17 x 9 fp16 matrix in NZ: K0 = 16, Mp = 32, Kp = 16 -> 32*16 elements; element (i, k) at
  // ((k/16)*2 + i/16)*256 + (i%16)*16 + k%16 (spec 30 §4).
  std::vector<uint16_t> a(17 * 9);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint16_t>(i + 1);
  const auto raw = pack(a.data(), 17, 9, DType::fp16, Layout::nz);
  ASSERT_EQ(raw.size(), 32u * 16 * 2);
  auto at = [&](size_t off) { uint16_t v; std::memcpy(&v, raw.data() + off * 2, 2); return v; };
  EXPECT_EQ(at(0), 1);
  EXPECT_EQ(at(1 * 16 + 3), a[1 * 9 + 3]);
  EXPECT_EQ(at(256 + 0 * 16 + 8), a[16 * 9 + 8]);  // row 16 is in the second fractal
  EXPECT_EQ(at(9), 0);                             // padding written 0
  EXPECT_EQ(unpack(raw, 17, 9, DType::fp16, Layout::nz), std::vector<uint8_t>(
                reinterpret_cast<const uint8_t*>(a.data()), reinterpret_cast<const uint8_t*>(a.data() + a.size())));
  // B in ZN, 8-bit: K0 = 32; element (k, j) at ((k/32)*(Np/16) + j/16)*512 + (j%16)*32 + k%32.
  std::vector<uint8_t> b(40 * 20);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 7);
  const auto rb = pack(b.data(), 40, 20, DType::e4m3, Layout::zn);
  ASSERT_EQ(rb.size(), 64u * 32);
  EXPECT_EQ(rb[((33 / 32) * 2 + 17 / 16) * 512 + (17 % 16) * 32 + 33 % 32], b[33 * 20 + 17]);
  EXPECT_EQ(unpack(rb, 40, 20, DType::e4m3, Layout::zn), b);
  // 4-bit: two per byte, nibble order; s4 unpacks sign-extended into int8.
  const int8_t s4[] = {-8, 7, -1, 3};
  const auto r4 = pack(s4, 1, 4, DType::s4, Layout::nd);
  ASSERT_EQ(r4.size(), 2u);
  EXPECT_EQ(r4[0], 0x78);
  EXPECT_EQ(r4[1], 0x3F);
  const auto u4 = unpack(r4, 1, 4, DType::s4, Layout::nd);
  EXPECT_EQ(std::memcmp(u4.data(), s4, 4), 0);
  EXPECT_THROW(unpack(std::vector<uint8_t>(3), 17, 9, DType::fp16, Layout::nz), tilesim::Error);
  EXPECT_THROW(parse_layout("zz"), tilesim::Error);
}

TEST(LinxLayout, RejectsEmptyAndHugeShapes) {
  const uint8_t x[4] = {};
  EXPECT_THROW(pack(x, 0, 4, DType::u8, Layout::nd), tilesim::Error);
  try {
    pack(x, 1u << 20, 1u << 20, DType::u8, Layout::nd);
    ADD_FAILURE();
  } catch (const tilesim::Error& e) {
    EXPECT_HAS(e.what(), "at most 2^28 elements, got 1048576x1048576");
  }
}
