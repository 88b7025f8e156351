// Randomized differential tests (spec 70 item 5): the fast path (Highway SIMD, threads) against
// the scalar reference, bit for bit, for every op x dtype x mode x target x swapped/unswapped,
// valid sub-regions, odd shapes, edge values and several thread counts. dst bytes outside the
// valid region must stay unchanged in both.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>

#include "pto/ops.hpp"
#include "pto_test_util.hpp"
#include "tilesim/error.hpp"
#include "tilesim/parallel.hpp"

using namespace pto_test;

namespace {

struct Case {
  const Target* t;
  Op op;
  Elem e;
  int mode;
  bool swap;
  int R, C;
  bool with_tmp;
};

void run_case(std::mt19937& g, const Case& c, size_t& checked) {
  const size_t sz = elem_size(c.e);
  const int E = int(32 / sz);
  // Both sources match dst's shape: src0 is the full operand (spec 20 §3 rule 2), no swapped case.
  if (c.swap && c.C == (c.mode == 1 ? 1 : E)) return;
  const int cols = ((c.C + E - 1) / E) * E + (g() % 2) * E;
  const int rows = c.R + int(g() % 3);
  HostTile full(c.e, rows, std::max(cols, E), true, c.R, c.C);
  HostTile dst(c.e, rows + int(g() % 2), std::max(cols, E), true, c.R, c.C);
  HostTile x = c.mode == 1 ? HostTile(c.e, ((c.R + E - 1) / E) * E + E, 1, false, c.R, 1)
                           : HostTile(c.e, c.R + 1, E, true, c.R, E);
  fill_random(g, c.e, full.bytes.data(), full.bytes.size() / sz);
  fill_random(g, c.e, dst.bytes.data(), dst.bytes.size() / sz);
  fill_random(g, c.e, x.bytes.data(), x.bytes.size() / sz);
  if (c.op == Op::DIV && !elem_is_float(c.e)) {  // divisor zeros are a rejection, tested elsewhere
    HostTile& div = c.swap ? full : x;
    for (size_t i = 0; i + sz <= div.bytes.size(); i += sz) {
      bool zero = true;
      for (size_t k = 0; k < sz; ++k) zero &= div.bytes[i + k] == 0;
      if (zero) div.bytes[i] = 1;
    }
  }
  HostTile tmp(Elem::f32, 256, 8, true);  // 8 KB
  HostTile dst_ref = dst;
  const TileDesc& s0 = c.swap ? x.d : full.d;
  const TileDesc& s1 = c.swap ? full.d : x.d;
  const Ub ub{};  // auto mode
  row_expand(c.op, dst_ref.d, s0, s1, c.with_tmp ? &tmp.d : nullptr, *c.t, ub, Path::Reference);
  HostTile tmp_ref = tmp;
  tmp.bytes.assign(tmp.bytes.size(), 0);
  row_expand(c.op, dst.d, s0, s1, c.with_tmp ? &tmp.d : nullptr, *c.t, ub, Path::Fast);
  ASSERT_EQ(dst.bytes, dst_ref.bytes)
      << op_name(c.op) << " " << elem_name(c.e) << " mode " << c.mode << " swap " << c.swap << " R "
      << c.R << " C " << c.C << " target " << c.t->name;
  if (c.with_tmp) {
    ASSERT_EQ(tmp.bytes, tmp_ref.bytes);
  }
  ++checked;
}

// A view of h's storage (allocated with spare rows) holding `rows` rows from `off` bytes past a
// 64-byte boundary.
TileDesc view_at(HostTile& h, int off, int rows) {
  TileDesc d = h.d;
  const auto a = reinterpret_cast<uintptr_t>(h.bytes.data());
  d.data = h.bytes.data() + ((64 - a % 64) % 64 + size_t(off)) % 64;
  d.rows = rows;
  d.valid_row = std::min(d.valid_row, rows);
  d.capacity = d.bytes();
  return d;
}

// The fast path writes the same bytes as the reference into a view of dst at `doff`, and nothing
// else of dst's storage (the view's padding, the spare row, the bytes around it) changes: the
// whole storage is compared.
bool fast_matches_reference(Op op, const HostTile& dst, int doff, int rows, const TileDesc& s0,
                            const TileDesc& s1, const Target& t) {
  HostTile fast = dst, ref = dst;
  const TileDesc fd = view_at(fast, doff, rows);
  TileDesc rd = fd;  // the same place in ref's storage (the reference does not care for alignment)
  rd.data = ref.bytes.data() + (fd.data - fast.bytes.data());
  row_expand(op, rd, s0, s1, nullptr, t, Ub{}, Path::Reference);
  row_expand(op, fd, s0, s1, nullptr, t, Ub{}, Path::Fast);
  return fast.bytes == ref.bytes;
}

}  // namespace

TEST(PtoDifferential, EveryOpDtypeModeTarget) {
  std::mt19937 g(12345);
  size_t checked = 0;
  const int shapes[][2] = {{1, 1},    {1, 7},    {3, 16},  {5, 33}, {8, 64},
                           {13, 100}, {16, 128}, {2, 257}, {31, 40}};
  for (const char* tn : {"a2a3", "a5"}) {
    const Target& t = find_target(tn);
    for (int o = 0; o < kNumOps; ++o)
      for (int e = 0; e < kNumElems; ++e) {
        const Op op = Op(o);
        const uint16_t mask = op == Op::DIV      ? t.div_mask
                              : op == Op::EXPDIF ? t.expdif_mask
                                                 : t.basic_mask;
        if (!(mask & (1u << e))) continue;
        for (int mode = 1; mode <= 2; ++mode)
          for (int sw = 0; sw < 2; ++sw)
            for (const auto& sh : shapes)
              run_case(g, {&t, op, Elem(e), mode, sw == 1, sh[0], sh[1], mode == 1 && (g() % 2)},
                       checked);
      }
  }
  EXPECT_GT(checked, 1500u);
}

// Tiles large enough for the threaded path (>= 2^18 elements, trowexpand.cpp), at several thread
// counts: results never depend on it.
TEST(PtoDifferential, ThreadCounts) {
  std::mt19937 g(777);
  size_t checked = 0;
  const Target& t = find_target("a5");
  for (size_t threads : {1u, 2u, 3u, 8u}) {
    tilesim::set_num_threads(threads);
    for (Op op : {Op::ADD, Op::SUB, Op::MAX, Op::DIV, Op::EXPDIF})
      for (Elem e : {Elem::f32, Elem::f16})
        for (int mode = 1; mode <= 2; ++mode)
          run_case(g, {&t, op, e, mode, g() % 2 == 1, 520, 509, false}, checked);
    run_case(g, {&t, Op::MIN, Elem::bf16, 2, false, 515, 520, false}, checked);
    run_case(g, {&t, Op::MUL, Elem::s16, 1, true, 513, 512, false}, checked);
  }
  tilesim::set_num_threads(0);
  EXPECT_EQ(checked, 4u * 22u);
}

// R >= 256 on a2a3: the tmp buffer is reused in chunks of 240 rows (spec 20 §5), the reference and
// the fast path leave the same contents.
TEST(PtoDifferential, LargeRChunks) {
  std::mt19937 g(99);
  size_t checked = 0;
  const Target& t = find_target("a2a3");
  for (int R : {255, 256, 481, 500})
    run_case(g, {&t, Op::ADD, Elem::f32, 1, false, R, 24, true}, checked);
  EXPECT_EQ(checked, 4u);
}

// Every SIMD target compiled in and supported by this CPU (AVX3, AVX2 with F16C, SSE4 and the
// emulated fp16/bf16 rounding code, EMU128...) gives the reference's bits (spec 00: every SIMD
// width).
TEST(PtoDifferential, EverySimdTarget) {
  size_t checked = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    std::mt19937 g{uint32_t(target)};
    const Target& t = find_target("a5");
    for (int o = 0; o < kNumOps; ++o)
      for (int e = 0; e < kNumElems; ++e) {
        const uint16_t mask = Op(o) == Op::DIV      ? t.div_mask
                              : Op(o) == Op::EXPDIF ? t.expdif_mask
                                                    : t.basic_mask;
        if (!(mask & (1u << e))) continue;
        for (int mode = 1; mode <= 2; ++mode)
          run_case(g, {&t, Op(o), Elem(e), mode, g() % 2 == 1, 9, 200 + int(g() % 70), false},
                   checked);
      }
  }
  hwy::SetSupportedTargetsForTest(0);
  std::string names;
  for (int64_t target : hwy::SupportedAndGeneratedTargets())
    names += std::string(hwy::TargetName(target)) + " ";
  std::printf("SIMD targets checked: %s(%zu cases)\n", names.c_str(), checked);
  EXPECT_GT(checked, 100u);
}

// EXPDIF fp32: the SIMD double exp with its midpoint fallback gives std::exp's bits on a dense
// sweep of d (every 97th fp32 code in [-104, 89], plus random codes) on every SIMD target.
TEST(PtoDifferential, ExpdifF32Sweep) {
  std::vector<uint32_t> codes;
  for (uint64_t c = 0; c < 0x100000000ull; c += 97 * 16 + 1) {
    float f;
    const uint32_t b = uint32_t(c);
    std::memcpy(&f, &b, 4);
    if (!(f > -104.0f && f < 89.0f)) continue;
    codes.push_back(b);
  }
  std::mt19937 g(4);
  for (int k = 0; k < 4096; ++k) codes.push_back(uint32_t(g()));
  const int C = 256;
  const int R = int((codes.size() + C - 1) / C);
  HostTile full(Elem::f32, R, C, true), s(Elem::f32, ((R + 7) / 8) * 8, 1, false, R, 1);
  std::memcpy(full.bytes.data(), codes.data(), codes.size() * 4);
  const Target& t = find_target("a2a3");
  HostTile ref(Elem::f32, R, C, true);
  row_expand(Op::EXPDIF, ref.d, full.d, s.d, nullptr, t, Ub{}, Path::Reference);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    HostTile out(Elem::f32, R, C, true);
    row_expand(Op::EXPDIF, out.d, full.d, s.d, nullptr, t, Ub{}, Path::Fast);
    size_t bad = 0;
    for (size_t k = 0; k < codes.size(); ++k) {
      uint32_t a, b;
      std::memcpy(&a, out.bytes.data() + 4 * k, 4);
      std::memcpy(&b, ref.bytes.data() + 4 * k, 4);
      if (a != b && bad++ < 3)
        ADD_FAILURE() << hwy::TargetName(target) << " d=0x" << std::hex << codes[k] << " fast 0x"
                      << a << " ref 0x" << b;
    }
    EXPECT_EQ(bad, 0u) << hwy::TargetName(target);
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GT(codes.size(), 100000u);
}

// EXPDIF fp32 edges on every SIMD target: NaN, ±Inf, ±0, subnormal d, the limits of the vector
// path (-104, -87.3, 88.7, 89 and their neighbours: results 0, subnormal, FLT_MAX, Inf), mixed
// within one vector with ordinary values so the +0 / +Inf shortcut and the per-vector fallback
// both meet ordinary lanes. Expected bits from the definition (ops::exp_f32 via the reference).
TEST(PtoDifferential, ExpdifF32Edges) {
  std::vector<float> base = {
      0.0f,    -0.0f,    1.0f,   -1.0f,   0.5f,       HUGE_VALF,   -HUGE_VALF, NAN,    -NAN,
      1e-45f,  -1e-45f,  1e-38f, -104.0f, -103.97f,   -103.9f,     -100.0f,    -90.0f, -87.34f,
      -87.3f,  -87.2f,   88.0f,  88.7f,   88.72f,     88.7228f,    88.73f,     89.0f,  89.5f,
      1000.0f, -1000.0f, 3e38f,  -3e38f,  0.6931472f, -0.6931472f, 2.0f,       10.0f,  -10.0f};
  std::vector<uint32_t> codes;
  for (float f : base) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    for (int dlt = -3; dlt <= 3; ++dlt) codes.push_back(b + uint32_t(dlt));
  }
  std::mt19937 g(11);
  std::vector<uint32_t> all;  // every edge code next to ordinary values, at every lane position
  for (uint32_t c : codes)
    for (int pos = 0; pos < 16; ++pos)
      for (int k = 0; k < 16; ++k) {
        float v = std::uniform_real_distribution<float>(-4.0f, 4.0f)(g);
        uint32_t b;
        std::memcpy(&b, &v, 4);
        all.push_back(k == pos ? c : b);
      }
  const int C = 256;
  const int R = int((all.size() + C - 1) / C);
  HostTile full(Elem::f32, R, C, true), s(Elem::f32, ((R + 7) / 8) * 8, 1, false, R, 1);
  std::memcpy(full.bytes.data(), all.data(), all.size() * 4);
  const Target& t = find_target("a2a3");
  HostTile ref(Elem::f32, R, C, true);
  row_expand(Op::EXPDIF, ref.d, full.d, s.d, nullptr, t, Ub{}, Path::Reference);
  // Spot values of the definition itself (hand-derived): e^0 = 1, e^-Inf = +0, e^+Inf = +Inf,
  // e^-104 < 2^-150 rounds to +0, e^89 > FLT_MAX rounds to +Inf, NaN gives the canonical NaN.
  auto ref_of = [&](float d) {
    for (size_t k = 0; k < all.size(); ++k) {
      uint32_t b;
      std::memcpy(&b, &d, 4);
      if (all[k] == b) {
        uint32_t r;
        std::memcpy(&r, ref.bytes.data() + 4 * k, 4);
        return r;
      }
    }
    return 0xDEADBEEFu;
  };
  EXPECT_EQ(ref_of(0.0f), 0x3F800000u);
  EXPECT_EQ(ref_of(-HUGE_VALF), 0u);
  EXPECT_EQ(ref_of(HUGE_VALF), 0x7F800000u);
  EXPECT_EQ(ref_of(-104.0f), 0u);
  EXPECT_EQ(ref_of(89.0f), 0x7F800000u);
  EXPECT_EQ(ref_of(NAN), 0x7FC00000u);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    HostTile out(Elem::f32, R, C, true);
    row_expand(Op::EXPDIF, out.d, full.d, s.d, nullptr, t, Ub{}, Path::Fast);
    size_t bad = 0;
    for (size_t k = 0; k < all.size(); ++k) {
      uint32_t a, b;
      std::memcpy(&a, out.bytes.data() + 4 * k, 4);
      std::memcpy(&b, ref.bytes.data() + 4 * k, 4);
      if (a != b && bad++ < 3)
        ADD_FAILURE() << hwy::TargetName(target) << " d=0x" << std::hex << all[k] << " fast 0x" << a
                      << " ref 0x" << b;
    }
    EXPECT_EQ(bad, 0u) << hwy::TargetName(target);
  }
  hwy::SetSupportedTargetsForTest(0);
}

// Exhaustive check (about 30 s; CMake runs it as PtoExhaustive.ExpdifF32AllCodes in release
// builds only, hence DISABLED_ here so sanitizer and debug builds skip it): the fast
// EXPDIF fp32 kernel of the best SIMD target against the definition for all 2^32 codes of d
// (d = full - 0 is exact, so full carries every code; -0 - 0 = -0 and NaN become canonical in
// both paths).
TEST(PtoDifferential, DISABLED_ExpdifF32Exhaustive) {
  const int R = 64, C = 1024;
  HostTile full(Elem::f32, R, C, true), s(Elem::f32, R, 1, false, R, 1), out(Elem::f32, R, C, true);
  const Target& t = find_target("a2a3");
  uint64_t bad = 0;
  for (uint64_t base = 0; base < 0x100000000ull; base += uint64_t(R) * C) {
    auto* f = reinterpret_cast<uint32_t*>(full.bytes.data());
    for (int k = 0; k < R * C; ++k) f[k] = uint32_t(base + uint64_t(k));
    row_expand(Op::EXPDIF, out.d, full.d, s.d, nullptr, t, Ub{}, Path::Fast);
    const auto* o = reinterpret_cast<const uint32_t*>(out.bytes.data());
    for (int k = 0; k < R * C; ++k) {
      float d;
      std::memcpy(&d, &f[k], 4);
      const float e = tilesim::pto::ops::exp_f32(tilesim::pto::ops::canon(d - 0.0f));
      uint32_t eb;
      std::memcpy(&eb, &e, 4);
      if (o[k] != eb && bad++ < 5)
        ADD_FAILURE() << "d=0x" << std::hex << f[k] << " fast 0x" << o[k] << " ref 0x" << eb;
    }
  }
  EXPECT_EQ(bad, 0u);
}

// fp16 / bf16 MAX and MIN run on the 16-bit codes (no widening); DIV checked the same way (its
// widening path, division exact in fp32 then one rounding): every code of the full operand
// against 32 expanded values (the edge codes of fill_random: ±0, ±Inf, NaNs, subnormals,
// extremes; 3, 1/3, 2^-13 and random codes), both operand orders, both modes, every SIMD target.
TEST(PtoDifferential, MaxMinDiv16AllCodes) {
  const int R = 32, C = 65536;
  const Target& t = find_target("a5");
  for (Elem e : {Elem::f16, Elem::bf16})
    for (int mode = 1; mode <= 2; ++mode) {
      HostTile full(e, R, C, true);
      HostTile s = mode == 1 ? HostTile(e, R, 1, false, R, 1) : HostTile(e, R, 16, true, R, 16);
      auto* f = reinterpret_cast<uint16_t*>(full.bytes.data());
      for (int i = 0; i < R; ++i)
        for (int c = 0; c < C; ++c) f[size_t(i) * C + c] = uint16_t(c + 977 * i);  // rotations
      std::mt19937 g(uint32_t(e) * 7 + uint32_t(mode));
      const size_t nx = s.bytes.size() / 2;
      fill_random(g, e, s.bytes.data(), nx);
      auto* x = reinterpret_cast<uint16_t*>(s.bytes.data());
      const uint16_t extra[] = {0x4200, 0x3555, 0x0800, 0x3C00};  // fp16 3, ~1/3, 2^-13, 1
      for (size_t k = 0; k < 4 && e == Elem::f16; ++k)
        for (size_t l = 0; l < (mode == 1 ? 1u : 16u); ++l)
          x[(5 + 3 * k) * (mode == 1 ? 1 : 16) + l] = extra[k];
      for (Op op : {Op::MAX, Op::MIN, Op::DIV})
        for (bool swap : {false, true}) {
          const TileDesc& s0 = swap ? s.d : full.d;
          const TileDesc& s1 = swap ? full.d : s.d;
          HostTile ref(e, R, C, true);
          row_expand(op, ref.d, s0, s1, nullptr, t, Ub{}, Path::Reference);
          for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
            hwy::SetSupportedTargetsForTest(target);
            HostTile out(e, R, C, true);
            row_expand(op, out.d, s0, s1, nullptr, t, Ub{}, Path::Fast);
            EXPECT_TRUE(out.bytes == ref.bytes)
                << hwy::TargetName(target) << " " << op_name(op) << " " << elem_name(e) << " mode "
                << mode << " swap " << swap;
          }
          hwy::SetSupportedTargetsForTest(0);
        }
    }
}

// fp32 MAX/MIN pick a per-row formula from the expanded operand (trowexpand_simd.cpp): a NaN
// scalar fills the row, a lone +0 (MAX) / -0 (MIN) wins ties, no zero and no NaN needs no tie
// rule, anything else the general one. Every special as the mode-1 scalar and inside mode-2
// blocks (alone and mixed with ordinary values), against full rows holding every special (ties
// included) at odd columns and alternating row alignment, both orders, every SIMD target.
TEST(PtoDifferential, MaxMinF32SpecialExpanded) {
  const uint32_t specials[] = {0x00000000, 0x80000000, 0x7FC00000, 0x7F800001, 0xFFC12345,
                               0x7F800000, 0xFF800000, 0x3F800000, 0xBF800000, 0x00000001,
                               0x80000001, 0x7F7FFFFF, 0xFF7FFFFF, 0x40600000};
  const int S = int(std::size(specials));
  const Target& t = find_target("a5");
  std::mt19937 g(4242);
  size_t checked = 0;
  // Padded rows (the per-row kernel) and unpadded ones (the flat loop, rows crossing vectors).
  for (const auto& [C, cols] : {std::pair{300, 312}, std::pair{304, 304}})
  for (int mode = 1; mode <= 2; ++mode) {
    const int R = mode == 1 ? S : 2 * S;
    HostTile full(Elem::f32, R, cols, true, R, C);
    fill_random(g, Elem::f32, full.bytes.data(), full.bytes.size() / 4);
    for (int i = 0; i < R; ++i)
      for (int k = 0; k < S; ++k) {
        std::memcpy(full.at(i, 7 * k + i % 5), &specials[k], 4);
        std::memcpy(full.at(i, C - 1 - k), &specials[(k + i) % S], 4);
      }
    HostTile x = mode == 1 ? HostTile(Elem::f32, ((R + 7) / 8) * 8, 1, false, R, 1)
                           : HostTile(Elem::f32, R, 8, true, R, 8);
    fill_random(g, Elem::f32, x.bytes.data(), x.bytes.size() / 4);
    for (int i = 0; i < R; ++i) {
      if (mode == 1) {
        std::memcpy(x.at(i, 0), &specials[i], 4);
        continue;
      }
      for (int l = 0; l < 8; ++l) {  // rows < S: the block is one special; then mixed blocks
        const float ordinary = 1.5f + float(l);
        if (i < S)
          std::memcpy(x.at(i, l), &specials[i], 4);
        else
          std::memcpy(x.at(i, l), &ordinary, 4);
      }
      if (i >= S) std::memcpy(x.at(i, (i * 3) % 8), &specials[i - S], 4);
    }
    for (Op op : {Op::MAX, Op::MIN})
      for (bool swap : {false, true}) {
        const TileDesc& s0 = swap ? x.d : full.d;
        const TileDesc& s1 = swap ? full.d : x.d;
        HostTile ref(Elem::f32, R, cols, true, R, C);
        row_expand(op, ref.d, s0, s1, nullptr, t, Ub{}, Path::Reference);
        for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
          hwy::SetSupportedTargetsForTest(target);
          HostTile out(Elem::f32, R, cols, true, R, C);
          row_expand(op, out.d, s0, s1, nullptr, t, Ub{}, Path::Fast);
          EXPECT_TRUE(out.bytes == ref.bytes) << hwy::TargetName(target) << " " << op_name(op)
                                              << " mode " << mode << " swap " << swap;
          ++checked;
        }
        hwy::SetSupportedTargetsForTest(0);
      }
  }
  EXPECT_GE(checked, 16u);
}

// fp32 rows, and fp16/bf16 MAX/MIN rows, start their vectors at the full operand's 64-byte
// boundary (an aligned peel, its pattern rotated by the peeled columns in mode 2): every
// element-size offset of full and a random one of dst, long rows (fp32 8 vectors, 16-bit codes
// 4 vectors: exactly, and with a tail), both modes, a random order, every op of fp32, fp16 and
// bf16, every SIMD target.
TEST(PtoDifferential, RowsAtEveryAlignment) {
  const Target& t = find_target("a5");
  std::mt19937 g(2024);
  size_t checked = 0;
  const int R = 3;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (Elem e : {Elem::f32, Elem::f16, Elem::bf16})
    for (const auto& [C, cols] : {std::pair{128, 144}, std::pair{301, 304}})
    for (int o = 0; o < kNumOps; ++o) {
      const Op op = Op(o);
      if (e == Elem::bf16 && op == Op::EXPDIF) continue;  // not a bf16 op (spec 20 §2)
      const int sz = int(elem_size(e)), E = 32 / sz;
      for (int off = 0; off < 64; off += sz)
        for (int mode = 1; mode <= 2; ++mode) {
          const bool swap = g() % 2;
          // Storage with room to shift the data pointer by `off` (full) and `doff` (dst) bytes.
          HostTile full(e, R + 1, cols, true, R, C), dst(e, R + 1, cols, true, R, C);
          fill_random(g, e, full.bytes.data(), full.bytes.size() / size_t(sz));
          fill_random(g, e, dst.bytes.data(), dst.bytes.size() / size_t(sz));
          const int doff = int(g() % uint32_t(64 / sz)) * sz;
          const TileDesc fd = view_at(full, off, R);
          HostTile x = mode == 1 ? HostTile(e, E, 1, false, R, 1) : HostTile(e, R, E, true, R, E);
          fill_random(g, e, x.bytes.data(), x.bytes.size() / size_t(sz));
          const TileDesc& s0 = swap ? x.d : fd;
          const TileDesc& s1 = swap ? fd : x.d;
          ASSERT_TRUE(fast_matches_reference(op, dst, doff, R, s0, s1, t))
              << hwy::TargetName(target) << " " << op_name(op) << " " << elem_name(e) << " mode "
              << mode << " swap " << swap << " full offset " << off << " dst offset " << doff;
          ++checked;
        }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(checked, 2u * 2u * (7 * 16 + 7 * 32 + 6 * 32));
}

// fp32 over unpadded tiles runs as one flat loop over the rows (FlatF32): vectors that cross a
// row boundary take each row's scalar (mode 1) or block (mode 2, rotated by the aligned peel) in
// their own lanes. Every op, both modes and orders, row lengths from one vector up (multiples of
// 8 columns, so the tiles are unpadded), 1 to 17 rows, several 4-byte offsets of the data, every
// SIMD target, and threaded shares of rows.
TEST(PtoDifferential, F32FlatUnpaddedRows) {
  const Target& t = find_target("a5");
  std::mt19937 g(77);
  size_t checked = 0;
  auto one = [&](Op op, int mode, bool swap, int R, int C, int off) {
    HostTile full(Elem::f32, R + 1, C, true), dst(Elem::f32, R + 1, C, true);
    fill_random(g, Elem::f32, full.bytes.data(), full.bytes.size() / 4);
    fill_random(g, Elem::f32, dst.bytes.data(), dst.bytes.size() / 4);
    HostTile x = mode == 1 ? HostTile(Elem::f32, ((R + 7) / 8) * 8, 1, false, R, 1)
                           : HostTile(Elem::f32, R, 8, true, R, 8);
    fill_random(g, Elem::f32, x.bytes.data(), x.bytes.size() / 4);
    const TileDesc fd = view_at(full, off, R);
    const TileDesc& s0 = swap ? x.d : fd;
    const TileDesc& s1 = swap ? fd : x.d;
    const int doff = g() % 2 ? off : int(g() % 16) * 4;  // dst aligned as full, or not
    const bool same = fast_matches_reference(op, dst, doff, R, s0, s1, t);
    ++checked;
    return same;
  };
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (int o = 0; o < kNumOps; ++o)
      for (int mode = 1; mode <= 2; ++mode)
        for (int C : {16, 24, 40, 136, 264})
          for (int R : {1, 2, 3, 17})
            for (int off : {0, 4, 28, 48}) {
              const bool swap = g() % 2;
              ASSERT_TRUE(one(Op(o), mode, swap, R, C, off))
                  << hwy::TargetName(target) << " " << op_name(Op(o)) << " mode " << mode
                  << " swap " << swap << " R " << R << " C " << C << " offset " << off;
            }
  }
  hwy::SetSupportedTargetsForTest(0);
  for (size_t threads : {2u, 3u}) {  // shares of rows start mid-tile
    tilesim::set_num_threads(threads);
    for (Op op : {Op::SUB, Op::MAX, Op::MIN, Op::EXPDIF})
      for (int mode = 1; mode <= 2; ++mode)
        ASSERT_TRUE(one(op, mode, false, 1030, 256, 4))
            << op_name(op) << " mode " << mode << " threads " << threads;
  }
  tilesim::set_num_threads(0);
  EXPECT_GE(checked, 1000u);
}
