// The AVX-512 tree of block_reduce_simd.cpp pairs lanes with SHUFPS at levels 1-2 and with
// permute tables afterwards, and finishes each group of 16 datablocks one group late. These
// tests put hand-checked blocks (spec 40 §2: saturation, NaN -> 0, ±Inf, -0) at every lane
// position of a group and at the group/chunk tails, on the full-mask paths (contiguous stream,
// block-by-block loads, staged), and compare with the scalar reference and hand answers.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstring>
#include <random>
#include <vector>

#include "tilesim/ascendc/engine.hpp"
#include "tilesim/formats.hpp"

namespace ts = tilesim::ascendc;
namespace fm = tilesim::formats;

namespace {

// Block kinds with known half SUM results under saturation (hand computed, spec 40 §2).
struct Known {
  uint16_t in[16];
  uint16_t out;
};

std::vector<Known> known_blocks() {
  std::vector<Known> k;
  const auto h = [](float f) { return fm::f32_to_f16(f); };
  Known ones{};  // 16 x 1.0 -> 16
  for (auto& e : ones.in) e = h(1.0f);
  ones.out = h(16.0f);
  k.push_back(ones);
  Known seed{};  // the seed's [60000, 60000, -30000, 100] -> 35584 (level 1 saturates)
  seed.in[0] = h(60000.0f), seed.in[1] = h(60000.0f), seed.in[2] = h(-30000.0f),
  seed.in[3] = h(100.0f);
  seed.out = h(35584.0f);
  k.push_back(seed);
  Known nan1 = ones;  // NaN + 1 -> NaN -> 0 at level 1: 14
  nan1.in[5] = 0x7E00;
  nan1.out = h(14.0f);
  k.push_back(nan1);
  Known infs = ones;  // +Inf + -Inf = NaN -> 0; the 14 others give 14
  infs.in[14] = 0x7C00, infs.in[15] = 0xFC00;
  infs.out = h(14.0f);
  k.push_back(infs);
  Known inf1 = ones;  // +Inf + 1 -> 65504 at level 1; 65504 + 2 -> 65504 ... + 12 -> 65504
  inf1.in[0] = 0x7C00;
  inf1.out = h(65504.0f);
  k.push_back(inf1);
  Known nz{};  // 16 x -0 -> -0
  for (auto& e : nz.in) e = 0x8000;
  nz.out = 0x8000;
  k.push_back(nz);
  Known l3{};  // saturation at levels 2 and 3, then a finite last level
  for (int i = 0; i < 8; ++i) l3.in[i] = h(16384.0f);
  for (int i = 8; i < 16; ++i) l3.in[i] = h(-4096.0f);
  // level 1: 32768 x4, -8192 x4; level 2: 65536 -> Inf -> 65504 (x2), -16384 x2; level 3:
  // 131008 -> 65504, -32768; level 4: 65504 - 32768 = 32736 (a multiple of 16: exact).
  l3.out = h(32736.0f);
  k.push_back(l3);
  Known sub{};  // subnormals: 16 x 2^-24 -> 16 * 2^-24 = 2^-20 (exact)
  for (auto& e : sub.in) e = 0x0001;
  sub.out = 0x0010;
  k.push_back(sub);
  return k;
}

void run(ts::ReduceOp op, ts::Elem t, bool sat, int64_t repeats, int64_t blk, int64_t rep,
         const std::vector<uint8_t>& src, std::vector<uint8_t>& out, ts::Path path) {
  const unsigned sz = ts::elem_bytes(t);
  std::vector<uint8_t> s = src;
  out.assign(size_t(repeats) * 8 * sz, 0xA5);
  ts::ReduceCall call;
  call.op = op;
  call.elem = t;
  call.repeat = repeats;
  call.mask.kind = ts::MaskArg::Kind::Continuous;
  call.mask.len = ts::repeat_elems(t);
  call.dst_rep_stride = 1;
  call.src_blk_stride = blk;
  call.src_rep_stride = rep;
  ts::MaskRegister reg;
  ts::Operand d{out.data(), 0, out.size() / sz}, so{s.data(), 0, s.size() / sz};
  ts::block_reduce(ts::default_product(), sat, reg, d, so, call, path);
}

TEST(SimdTree, KnownBlocksAtEveryLaneAndTail) {
  const auto k = known_blocks();
  for (auto [blk, rep] : {std::pair<int64_t, int64_t>{1, 8}, {2, 16}, {1, 9}}) {
    for (int64_t repeats : {1, 2, 3, 31, 33, 255}) {  // 8 .. 2040 blocks: group and chunk tails
      const int64_t nsrc_blocks = (repeats - 1) * rep + 7 * blk + 1;
      std::vector<uint8_t> src(size_t(nsrc_blocks) * 32, 0);
      std::vector<size_t> kind(size_t(repeats) * 8);
      for (int64_t r = 0; r < repeats; ++r)
        for (int64_t b = 0; b < 8; ++b) {
          const size_t i = size_t(r * 8 + b);
          kind[i] = (i * 5 + size_t(repeats)) % k.size();  // every kind at every lane position
          std::memcpy(&src[size_t(r * rep + b * blk) * 32], k[kind[i]].in, 32);
        }
      std::vector<uint8_t> fast, ref;
      run(ts::ReduceOp::Sum, ts::Elem::f16, true, repeats, blk, rep, src, fast, ts::Path::Fast);
      run(ts::ReduceOp::Sum, ts::Elem::f16, true, repeats, blk, rep, src, ref, ts::Path::Reference);
      ASSERT_EQ(fast, ref) << repeats << " repeats, strides " << blk << "/" << rep;
      for (size_t i = 0; i < kind.size(); ++i) {
        uint16_t got;
        std::memcpy(&got, &fast[i * 2], 2);
        ASSERT_EQ(got, k[kind[i]].out) << "block " << i << " kind " << kind[i];
      }
    }
  }
}

// Random specials and saturation-prone magnitudes, every op, both types, saturation on/off,
// full masks with contiguous, block-by-block and staged (overlapping srcRepStride) addressing.
TEST(SimdTree, RandomFullMaskStreamsMatchReference) {
  std::mt19937_64 g(2026);
  const uint16_t spec16[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x0001,
                             0x83FF, 0x7BFF, 0xFBFF, 0x7800, 0xF800, 0x3C00};
  const uint32_t spec32[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                             0x00000001u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x3F800000u};
  for (int it = 0; it < 120; ++it) {
    const ts::Elem t = it % 2 ? ts::Elem::f32 : ts::Elem::f16;
    const auto op = ts::ReduceOp(g() % 3);
    const bool sat = g() % 4 != 0;
    const int64_t repeats = 1 + int64_t(g() % 80);
    const int64_t pats[][2] = {{1, 8}, {2, 16}, {1, 3}, {0, 1}, {3, 30}};
    const auto& pt = pats[g() % 5];
    const unsigned sz = ts::elem_bytes(t);
    const int64_t nsrc_blocks = (repeats - 1) * pt[1] + 7 * pt[0] + 1;
    std::vector<uint8_t> src(size_t(nsrc_blocks) * 32);
    for (size_t i = 0; i < src.size() / sz; ++i) {
      if (t == ts::Elem::f16) {
        const uint16_t c =
            g() % 6 == 0 ? spec16[g() % 12]
                         : uint16_t(0x7000 + g() % 0xC00) | uint16_t(g() % 3 == 0 ? 0x8000 : 0);
        std::memcpy(&src[i * 2], &c, 2);
      } else {
        const uint32_t c = g() % 6 == 0 ? spec32[g() % 9] : uint32_t(g());
        std::memcpy(&src[i * 4], &c, 4);
      }
    }
    std::vector<uint8_t> fast, ref;
    run(op, t, sat, repeats, pt[0], pt[1], src, fast, ts::Path::Fast);
    run(op, t, sat, repeats, pt[0], pt[1], src, ref, ts::Path::Reference);
    ASSERT_EQ(fast, ref) << "iteration " << it;
  }
}

// Every fp16 code a against 20 partners b (specials and random codes), summed at level 1
// ([a, b, 0, ...]) and at level 2 ([a, 0, b, 0, ...]), saturating and not, on every compiled
// SIMD target: the node rounding (Veltkamp's split when saturating, the fp16 round trip
// otherwise) equals the reference's RN16 on each sum, ties included.
TEST(SimdTree, EveryHalfCodeNodeRounding) {
  std::mt19937_64 g(41);
  std::vector<uint16_t> partners = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00,
                                    0xBC00, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x1400};
  while (partners.size() < 20) partners.push_back(uint16_t(g()));
  constexpr int64_t kRepeats = 255;
  constexpr size_t kBlocks = size_t(kRepeats) * 8;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (const bool sat : {true, false})
      for (const unsigned slot : {1u, 2u}) {
        std::vector<uint8_t> src(kBlocks * 32), fast, ref;
        size_t n = 0;  // blocks filled in this call
        const auto flush = [&] {
          run(ts::ReduceOp::Sum, ts::Elem::f16, sat, kRepeats, 1, 8, src, fast, ts::Path::Fast);
          run(ts::ReduceOp::Sum, ts::Elem::f16, sat, kRepeats, 1, 8, src, ref,
              ts::Path::Reference);
          for (size_t i = 0; i < kBlocks; ++i) {
            uint16_t f, r, in[16];
            std::memcpy(&f, &fast[i * 2], 2);
            std::memcpy(&r, &ref[i * 2], 2);
            std::memcpy(in, &src[i * 32], 32);
            ASSERT_EQ(f, r) << std::hex << "sat " << sat << ": a 0x" << in[0] << " + b 0x"
                            << in[slot] << " at slot " << std::dec << slot;
          }
          n = 0;
        };
        for (uint16_t b : partners)
          for (uint32_t a = 0; a < 0x10000; ++a) {
            uint16_t blk[16] = {};
            blk[0] = uint16_t(a);
            blk[slot] = b;
            std::memcpy(&src[n * 32], blk, 32);
            if (++n == kBlocks) flush();
          }
        if (n > 0) flush();
      }
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace

// Half SUM groups of small values take the bounded tree (no clamp: every level-1 sum within
// 65504 / 8 = 8188); a group with a NaN, ±Inf or a larger sum is recomputed with the general
// nodes. Small random data with one such value dropped into some groups, on the contiguous and
// the block-by-block paths, saturating and not; plus the two blocks at the bound.
TEST(SimdTree, BoundedHalfGroupsAndTheirFallbacks) {
  const auto h = [](float f) { return fm::f32_to_f16(f); };
  const uint16_t odd[] = {0x7E00, 0xFE00, 0x7C00, 0xFC00, 0x7BFF, 0xFBFF, h(-4094.0f), h(4096.0f),
                          h(-8192.0f)};
  std::mt19937_64 g(7);
  for (const bool sat : {true, false})
    for (auto [blk, rep] : {std::pair<int64_t, int64_t>{1, 8}, {2, 16}}) {
      constexpr int64_t kRepeats = 255;
      const int64_t nsrc_blocks = (kRepeats - 1) * rep + 7 * blk + 1;
      std::vector<uint8_t> src(size_t(nsrc_blocks) * 32);
      for (size_t i = 0; i < src.size() / 2; ++i) {
        const uint16_t c = uint16_t(g() % 0x7000) | uint16_t(g() % 2 ? 0x8000 : 0);  // |x| < 4096
        std::memcpy(&src[i * 2], &c, 2);
      }
      const auto put = [&](size_t blockno, unsigned e, uint16_t c) {
        const size_t r = blockno / 8, b = blockno % 8;
        std::memcpy(&src[size_t(int64_t(r) * rep + int64_t(b) * blk) * 32 + e * 2], &c, 2);
      };
      for (size_t grp = 0; grp < size_t(kRepeats) * 8 / 16; ++grp)
        if (g() % 3 == 0) put(grp * 16 + g() % 16, unsigned(g() % 16), odd[g() % 9]);
      // Block 40: 16 x 4094 (bounded: level-1 sums 8188, result exactly 65504); block 100 (in a
      // group of ones): 4094, 4096, ... (level-1 sums 8190, just over the bound, round to 8192;
      // the last level is 65536: Inf, or 65504 when saturating).
      for (unsigned e = 0; e < 16; ++e) put(40, e, h(4094.0f));
      for (size_t b = 96; b < 112; ++b)
        for (unsigned e = 0; e < 16; ++e) put(b, e, b != 100 ? h(1.0f) : h(e % 2 ? 4096.0f : 4094.0f));
      std::vector<uint8_t> fast, ref;
      run(ts::ReduceOp::Sum, ts::Elem::f16, sat, kRepeats, blk, rep, src, fast, ts::Path::Fast);
      run(ts::ReduceOp::Sum, ts::Elem::f16, sat, kRepeats, blk, rep, src, ref, ts::Path::Reference);
      ASSERT_EQ(fast, ref) << "sat " << sat << ", strides " << blk << "/" << rep;
      uint16_t b40, b100;
      std::memcpy(&b40, &fast[40 * 2], 2);
      std::memcpy(&b100, &fast[100 * 2], 2);
      EXPECT_EQ(b40, 0x7BFF);
      EXPECT_EQ(b100, sat ? 0x7BFF : 0x7C00);
    }
}
