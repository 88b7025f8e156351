// The fast paths of the issue 20 speed work
// (docs/linx.md#issue-20-speed-programs-of-words-tma-moves-tepl), each against an independent
// computation or a fresh machine: a TMATMUL after an ACCCVT writes into the released ACC's buffer;
// repeated TEPL blocks reuse what they cached.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "linx/gemm_core.hpp"
#include "linx/machine_state.hpp"
#include "support.hpp"
#include "tilesim/parallel.hpp"

using namespace tilesim::linx;
using namespace linx_test;

namespace {
std::string num(size_t v) {
  return std::to_string(v);
}
}  // namespace

// After ACCCVT releases ACC, the next TMATMUL / .BIAS takes ACC's old buffer (stale values, maybe
// a different size): every element must still be the new chain's, for float and integer domains,
// a smaller, a larger and an equal M x N, and NaN / Inf left behind in the old buffer.
TEST(LinxSpeedPaths, TmatmulAfterAcccvtOverwritesTheReleasedBuffer) {
  struct Step {
    DType t;
    size_t M, N, K;
    bool bias;
  };
  const Step steps[] = {{DType::fp32, 40, 48, 24, false}, {DType::fp32, 16, 20, 8, true},
                        {DType::fp16, 64, 64, 32, false}, {DType::s8, 33, 17, 40, false},
                        {DType::fp32, 64, 64, 16, true},  {DType::bf16, 12, 70, 16, false}};
  Machine m;
  std::mt19937 rng(20);
  for (int round = 0; round < 2; ++round)
    for (const Step& s : steps) {
      const auto A = random_codes(s.t, s.M * s.K, rng, /*special=*/true),
                 B = random_codes(s.t, s.K * s.N, rng, true);
      m.push_tile('T', A.data(), s.M, s.K, s.t, Layout::nz);
      m.push_tile('U', B.data(), s.K, s.N, s.t, Layout::zn);
      const DType acc = fm::is_float(s.t) ? DType::fp32 : DType::s32;
      std::vector<uint32_t> bias(s.N);
      for (auto& b : bias)
        b = fm::is_float(s.t) ? static_cast<uint32_t>(fm::encode((rng() % 64) / 8.0 - 4, acc))
                              : rng();
      if (s.bias) m.push_tile('N', bias.data(), 1, s.N, acc, Layout::nd);
      const std::string ty = std::string(fm::name(s.t)) == "fp32"   ? "FP32"
                             : std::string(fm::name(s.t)) == "fp16" ? "FP16"
                             : std::string(fm::name(s.t)) == "bf16" ? "BF16"
                                                                    : "S8";
      m.run(std::string(s.bias ? "TMATMUL.BIAS" : "TMATMUL") + " <M:" + num(s.M) +
            ", N:" + num(s.N) + ", K:" + num(s.K) + ", " + ty + ">, T#1, U#1, " +
            (s.bias ? "N#1, " : "") + "->ACC<64KB>");
      const auto want =
          expected(A, s.t, B, s.t, s.M, s.N, s.K, s.bias ? bias.data() : nullptr, nullptr);
      ASSERT_TRUE(m.acc().valid);
      EXPECT_EQ(m.acc().data, want)
          << fm::name(s.t) << " " << s.M << "x" << s.N << "x" << s.K << " round " << round;
      // ACCCVT (NZ2ND, the ACC type) releases ACC: the next step's TMATMUL gets its buffer.
      m.run("BSTART.ACCCVT " + std::string(acc == DType::fp32 ? "FP32" : "S32") +
            "\nB.DATR layout=27\nB.DIM zero, " + num(s.M) + ", ->LB0\nB.DIM zero, " + num(s.N) +
            ", ->LB1\nB.IOT last, ->M<16KB>");
      EXPECT_FALSE(m.acc().valid);
      EXPECT_TRUE(m.acc().data.empty());
    }
}

// Machine::run keeps the last program's decoded words: a different program of the same length, a
// word changed in place, and a program that fails to decode must each run as on a fresh machine.
TEST(LinxSpeedPaths, RunAgainUsesTheDecodeOfTheSameWordsOnly) {
  std::mt19937 rng(21);
  const auto a = random_codes(DType::fp32, 16 * 16, rng),
             b = random_codes(DType::fp32, 16 * 16, rng);
  const auto prog = [](const char* op) {
    return assemble(std::string("BSTART.TEPL ") + op +
                    ", FP32\nB.DIM zero, 16, ->LB0\nB.DIM zero, 16, ->LB1\nB.IOT U#1.reuse, "
                    "M#1.reuse, last, ->T<1KB>");
  };
  const auto fresh = [&](const std::vector<uint32_t>& w) {
    Machine f;
    f.push_raw('U', a, 1024);
    f.push_raw('M', b, 1024);
    f.run(w);
    return f.tile_bytes('T', 1);
  };
  Machine m;
  m.push_raw('U', a, 1024);
  m.push_raw('M', b, 1024);
  std::vector<uint32_t> w = prog("TADD");
  const std::vector<uint32_t> sub = prog("TSUB"), mul = prog("TMUL");
  ASSERT_EQ(w.size(), sub.size());
  m.run(w);
  EXPECT_EQ(m.tile_bytes('T', 1), fresh(w));
  m.run(sub);  // same length, other words
  EXPECT_EQ(m.tile_bytes('T', 1), fresh(sub));
  w[0] = mul[0];  // the same vector, one word changed in place
  m.run(w);
  EXPECT_EQ(m.tile_bytes('T', 1), fresh(mul));
  std::vector<uint32_t> bad = sub;
  bad.back() = 0xFFFFFFFFu;  // no row decodes it
  EXPECT_THROW(m.run(bad), tilesim::Error);
  m.run(sub);
  EXPECT_EQ(m.tile_bytes('T', 1), fresh(sub));
}

// A released tile's bytes are dropped at release (docs/linx.md#machine): the host cannot read
// them, a TSTORE of a tile it releases still stores it, a TMOV'd copy keeps its bytes, and the
// next TLOAD (which may get the freed buffer) loads its own data.
TEST(LinxSpeedPaths, ReleasedTilesHoldNoBytesAndTheirBuffersAreReusedSafely) {
  Machine m;
  std::vector<uint8_t> a(1024), b(1024);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<uint8_t>(i * 7 + 1), b[i] = static_cast<uint8_t>(i * 13 + 5);
  m.write_mem(0x1000, a);
  m.write_mem(0x2000, b);
  m.set_reg("a0", 0x1000);
  m.set_reg("a1", 0x2000);
  m.set_reg("a2", 0x3000);
  m.set_reg("a3", 0x4000);
  const std::string dims = "B.DIM zero, 16, ->LB0\nB.DIM zero, 16, ->LB1\n";
  m.run("BSTART.TLOAD FP32\n" + dims +
        "B.IOR a0\nB.IOT last, ->T<1KB>\n"               // T#1 = a
        "BSTART.TMOV FP32\nB.IOT T#1, last, ->U<1KB>\n"  // U#1 = a, T#1 released
        "BSTART.TSTORE FP32\n" +
        dims +
        "B.IOR a2\nB.IOT U#1, last\n"  // stores a, releases U#1
        "BSTART.TLOAD FP32\n" +
        dims +
        "B.IOR a1\nB.IOT last, ->T<1KB>\n"  // T#1 = b (freed buffers)
        "BSTART.TSTORE FP32\n" +
        dims + "B.IOR a3\nB.IOT T#1.reuse, last\n");  // stores b, T#1 stays live
  EXPECT_EQ(m.read_mem(0x3000, 1024), a);
  EXPECT_EQ(m.read_mem(0x4000, 1024), b);
  EXPECT_EQ(m.tile_bytes('T', 1), b);
  for (const auto& [q, n] : {std::pair{'T', 2}, std::pair{'U', 1}}) {
    try {
      (void)m.tile_bytes(q, n);
      ADD_FAILURE() << q << "#" << n << " was released but still read";
    } catch (const tilesim::Error& e) {
      EXPECT_NE(std::string(e.what()).find("was released"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(m.live_bytes(), 1024u);
}

// Tile buffers of 64 KiB and more are kept when released and handed out again for the same size
// (tile_pool.cpp: a fresh 256 KiB block per push cost page faults); a reused block's old bytes
// never show: a TLOAD that covers only part of the tile still reads as zero beyond its rows.
TEST(LinxSpeedPaths, LargeTileBuffersAreReusedAndStartClean) {
  constexpr size_t kBig = size_t{256} << 10;
  void* p = tile_alloc(kBig);
  std::memset(p, 0xAB, kBig);
  tile_free(p, kBig);
  void* q = tile_alloc(kBig);
  EXPECT_EQ(q, p) << "a released 256 KiB block is the next 256 KiB block";
  tile_free(q, kBig);

  Machine m;
  std::vector<uint8_t> full(kBig), part(1024);
  for (size_t i = 0; i < full.size(); ++i) full[i] = static_cast<uint8_t>(i * 7 + 3);
  for (size_t i = 0; i < part.size(); ++i) part[i] = static_cast<uint8_t>(i * 5 + 1);
  m.write_mem(0x100000, full);
  m.write_mem(0x200000, part);
  m.set_reg("a0", 0x100000);
  m.set_reg("a1", 0x200000);
  m.set_reg("a2", 0x300000);
  m.run(
      "BSTART.TLOAD FP32\nB.DIM zero, 256, ->LB0\nB.DIM zero, 256, ->LB1\nB.IOR a0\nB.IOT last, "
      "->T<256KB>\n"
      "BSTART.TSTORE FP32\nB.DIM zero, 256, ->LB0\nB.DIM zero, 256, ->LB1\nB.IOR a2\nB.IOT T#1, "
      "last\n"
      "BSTART.TLOAD FP32\nB.DIM zero, 16, ->LB0\nB.DIM zero, 16, ->LB1\nB.IOR a1\nB.IOT last, "
      "->T<256KB>\n");
  EXPECT_EQ(m.read_mem(0x300000, kBig), full);
  std::vector<uint8_t> want(kBig, 0);
  std::memcpy(want.data(), part.data(), part.size());
  EXPECT_EQ(m.tile_bytes('T', 1), want);
}

// TSTORE may give memory rows that overlap (a row stride below a row's bytes, 0 included: only the
// bounds are checked), so some bytes are written more than once. TMA splits large tiles over the
// threads (tma.cpp, 128 KB chunks), but such a store stays on one thread, so the same write wins
// at every thread count; for NORM that is row-major order, the last row's bytes.
TEST(LinxSpeedPaths, OverlappingStoreRowsGiveTheSameBytesAtEveryThreadCount) {
  constexpr size_t kN = 256, kBig = kN * kN * 4;  // a 256 KB FP32 tile: two chunks or more
  std::vector<uint8_t> src(kBig);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 13 + i / 1024);
  const struct {
    const char *load, *store;
  } layouts[] = {{"NORM", "NORM"}, {"ND2NZ", "NZ2ND"}, {"ND2ZN", "ZN2ND"}};
  int checked = 0;
  for (const auto& l : layouts)
    for (const size_t stride : {size_t{0}, size_t{4}, size_t{512}, size_t{1020}}) {
      std::vector<uint8_t> first;
      for (const size_t threads : {1, 2, 3}) {
        tilesim::set_num_threads(threads);
        Machine m;
        m.write_mem(0x100000, src);
        m.write_mem(0x400000, std::vector<uint8_t>(kBig + 4096, 0xEE));
        m.set_reg("a0", 0x100000);
        m.set_reg("a1", kN * 4);
        m.set_reg("a2", 0x400000);
        m.set_reg("a3", stride);
        const std::string dims = "<LB0:256, LB1:256, LB2:256, FP32>";
        m.run(std::string("TLOAD.") + l.load + " " + dims + ", [a0, a1], ->T<256KB>\nTSTORE." + l.store + " " +
              dims + ", T#1, [a2, a3]");
        const std::vector<uint8_t> got = m.read_mem(0x400000, kBig + 4096);
        if (threads == 1) {
          first = got;
          if (std::string(l.store) == "NORM") {  // row-major order: each row over the ones before
            std::vector<uint8_t> want(kBig + 4096, 0xEE);
            for (size_t i = 0; i < kN; ++i) std::memcpy(want.data() + i * stride, src.data() + i * kN * 4, kN * 4);
            EXPECT_EQ(got, want) << "NORM stride " << stride;
          }
          if (std::string(l.store) == "NZ2ND") {
            // Block by block: block P (columns 8P..8P+7, loaded by ND2NZ from the same columns of
            // src) row by row, each 32-byte line over the ones before.
            std::vector<uint8_t> want(kBig + 4096, 0xEE);
            for (size_t P = 0; P < kN * 4 / 32; ++P)
              for (size_t q = 0; q < kN; ++q)
                std::memcpy(want.data() + q * stride + P * 32, src.data() + q * kN * 4 + P * 32, 32);
            EXPECT_EQ(got, want) << "NZ2ND stride " << stride;
          }
        } else {
          EXPECT_EQ(got, first) << l.store << " stride " << stride << " at " << threads << " threads";
        }
        ++checked;
      }
    }
  tilesim::set_num_threads(0);
  EXPECT_EQ(checked, 3 * 4 * 3);
}

// The register transposes TMA's transposing layouts use (8 x 8 or 16 x 16 blocks plus element-wise
// edges), against an element loop: every shape 1..40 x 1..40 (steps growing past 9) around the
// block size, odd byte strides (unaligned rows), 32-, 16- and 8-bit elements, every compiled SIMD
// target; bytes outside the destination's region untouched.
TEST(LinxSpeedPaths, RegisterTransposesMatchAnElementLoop) {
  std::mt19937 rng(22);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (const size_t es : {size_t{1}, size_t{2}, size_t{4}})
      for (size_t rows = 1; rows <= 40; rows += 1 + rows / 9)
        for (size_t cols = 1; cols <= 40; cols += 1 + cols / 9) {
          const size_t ss = rows % 3 == 0 ? cols * es : cols * es + 1 + rng() % 9;
          const size_t ds = cols % 3 == 0 ? rows * es : rows * es + 1 + rng() % 9;
          std::vector<uint8_t> src(rows * ss + 3), dst(cols * ds + 3);
          for (auto& b : src) b = static_cast<uint8_t>(rng());
          for (auto& b : dst) b = static_cast<uint8_t>(rng());
          std::vector<uint8_t> want = dst;
          for (size_t r = 0; r < rows; ++r)
            for (size_t c = 0; c < cols; ++c)
              std::memcpy(want.data() + 1 + c * ds + r * es, src.data() + 1 + r * ss + c * es, es);
          if (es == 4)
            tilesim::linx::core::transpose32(src.data() + 1, ss, dst.data() + 1, ds, rows, cols);
          else if (es == 2)
            tilesim::linx::core::transpose16(src.data() + 1, ss, dst.data() + 1, ds, rows, cols);
          else
            tilesim::linx::core::transpose8(src.data() + 1, ss, dst.data() + 1, ds, rows, cols);
          ASSERT_EQ(dst, want) << es << "-byte " << rows << "x" << cols << " strides " << ss << ", "
                               << ds << " target " << hwy::TargetName(target);
        }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// The machine keeps a running count of live tile bytes (every block's capacity check reads it):
// after any mix of host pushes, blocks that release, reuse, move, store and evict, and blocks
// that fault, it equals the sum over the windows the host sees.
TEST(LinxSpeedPaths, LiveByteCountFollowsEveryReleasePushAndEviction) {
  std::mt19937 rng(23);
  Machine m;
  m.set_reg("a0", 0x1000);
  const char queues[] = {'T', 'U', 'M', 'N'};
  const size_t sizes[] = {256, 1024, 1024, 4096, 65536};
  const auto tile = [&] {
    return std::string(1, queues[rng() % 4]) + "#" + std::to_string(1 + rng() % 3);
  };
  const auto reuse = [&] { return rng() % 2 ? ".reuse" : ""; };
  int faults = 0;
  for (int step = 0; step < 400; ++step) {
    const unsigned op = rng() % 4;
    const std::string dst = std::string(1, queues[rng() % 4]);
    try {
      if (op == 0) {
        m.push_raw(queues[rng() % 4], std::vector<uint8_t>(256, 1), sizes[rng() % 5]);
      } else if (op == 1) {
        m.run("BSTART.TEPL TADD, FP32\nB.DIM zero, 16, ->LB0\nB.DIM zero, 16, ->LB1\nB.IOT " +
              tile() + reuse() + ", " + tile() + reuse() + ", last, ->" + dst + "<1KB>");
      } else if (op == 2) {
        m.run("BSTART.TMOV FP32\nB.IOT " + tile() + reuse() + ", last, ->" + dst + "<1KB>");
      } else {
        m.run("BSTART.TSTORE FP32\nB.DIM zero, 16, ->LB0\nB.DIM zero, 4, ->LB1\nB.IOR a0\nB.IOT " +
              tile() + reuse() + ", last");
      }
    } catch (const tilesim::Error&) {
      ++faults;
    }
    size_t sum = 0;
    for (char q : queues)
      for (const TileInfo& t : m.tiles(q))
        if (t.live) sum += t.size;
    ASSERT_EQ(m.live_bytes(), sum) << "step " << step << " op " << op;
  }
  EXPECT_GT(faults, 20);  // capacity, released and never-written sources among them
  EXPECT_LT(faults, 380);
}

// The core's fp16 B rows (chain_f32_views_c's b_row_f16): read in place and decoded in the kernel
// (N a multiple of the micro-tile width, at most 64 KiB; K past one K block), or decoded into fp32
// rows first (a partial panel, over 64 KiB), give the bits of the same chain on B decoded to fp32
// rows, on every target, with every fp16 code of B (NaN results: the default NaN, `finish`).
TEST(LinxSpeedPaths, Fp16BRowsEqualDecodedRowsOnEveryTarget) {
  struct Shape {
    size_t M, K, N;
  };
  const Shape shapes[] = {{24, 512, 64}, {13, 16, 2048}, {16, 16, 2048}, {7, 300, 40}, {30, 96, 400}};
  std::mt19937 g(5);
  size_t runs = 0;
  uint32_t next_code = 0;  // B walks through every fp16 code, shape after shape, round after round
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (const Shape& s : shapes) {
      std::vector<float> A(s.M * s.K), C1(s.M * s.N), C2(s.M * s.N), Bf(s.K * s.N);
      std::vector<uint16_t> Bh(s.K * s.N);
      for (float& a : A) a = float(int(g() % 9) - 4) * 0.125f;  // small exact values, some zero
      for (uint16_t& b : Bh) b = uint16_t(next_code++);
      core::decode(reinterpret_cast<const uint8_t*>(Bh.data()), DType::fp16, 0, Bh.size(), Bf.data());
      for (size_t i = 0; i < C1.size(); ++i) C1[i] = C2[i] = float(int(g() % 5) - 2);
      const core::PanelView av{A.data(), s.K, 0};
      core::chain_f32_views_c(av, core::PanelView{}, Bf.data(), core::CView{C1.data(), s.N, 0, 0}, s.M, s.N, s.K,
                              false, true, nullptr);
      core::chain_f32_views_c(av, core::PanelView{}, nullptr, core::CView{C2.data(), s.N, 0, 0}, s.M, s.N, s.K,
                              false, true, nullptr, Bh.data());
      ASSERT_EQ(0, std::memcmp(C1.data(), C2.data(), C1.size() * 4))
          << hwy::TargetName(target) << " " << s.M << "x" << s.K << "x" << s.N;
      ++runs;
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(next_code, 65536u);  // every code at least once
  EXPECT_EQ(runs % 5, 0u);
}
