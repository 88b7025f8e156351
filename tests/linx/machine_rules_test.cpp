// Machine rules of spec 30 that are easy to break silently: padding never read (§4), lane bounds
// reset per block (§1), BSTOP ends the program (§1), e3m2/e2m3 bits 7..6 ignored (spec 10 §1),
// the "unsupported" fault for every other block class and CUBE function (§1), thread-count
// independence (spec 00), and the profile values the machine reads (§1 "Profile", §3).
#include <gtest/gtest.h>

#include <functional>
#include <tuple>

#include "linx/machine_state.hpp"
#include "support.hpp"
#include "tilesim/parallel.hpp"

using namespace tilesim::linx;
using namespace linx_test;

namespace {
#define EXPECT_HAS(hay, needle) EXPECT_NE(std::string(hay).find(needle), std::string::npos) << (hay)

// `raw` packed with zero padding; `marker` the same shape packed from an all-nonzero matrix, so a
// zero element of `marker` is padding. Every padding element of the result holds `fill`.
std::vector<uint8_t> fill_padding(std::vector<uint8_t> raw, const std::vector<uint8_t>& marker, size_t elem_bytes,
                                  uint64_t fill) {
  for (size_t e = 0; e < raw.size() / elem_bytes; ++e) {
    bool pad = true;
    for (size_t b = 0; b < elem_bytes; ++b) pad = pad && marker[e * elem_bytes + b] == 0;
    if (pad) std::memcpy(raw.data() + e * elem_bytes, &fill, elem_bytes);
  }
  return raw;
}
std::vector<uint8_t> packed_marker(size_t rows, size_t cols, DType t, Layout l) {
  std::vector<uint8_t> ones(rows * cols * carrier_bytes(t), 0);
  const uint64_t one = fm::is_float(t) ? fm::encode(1.0, t) : 1;  // a non-zero code
  for (size_t i = 0; i < rows * cols; ++i) std::memcpy(ones.data() + i * carrier_bytes(t), &one, carrier_bytes(t));
  return pack(ones.data(), rows, cols, t, l);
}
uint32_t fbits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }
}  // namespace

// Spec 30 §4 "Padding contents are never read into the result": the same operands with NaN in
// every padding element (and after the Bias) give the bits of the zero-padded run.
TEST(LinxRules, PaddingIsNeverRead) {
  struct Row {
    DType ta, tb;
    uint64_t nan_a, nan_b;  // a NaN code of each format (s8: any garbage value)
    const char* types;
  };
  const Row rows[] = {
      {DType::fp16, DType::fp16, 0x7E00, 0x7E00, "FP16"},
      {DType::fp16, DType::e4m3, 0x7E00, 0x7F, "FP16, E4M3"},  // K0 16 for A, 32 for B
      {DType::fp32, DType::fp32, 0x7FC00000, 0xFFC00001, "FP32"},
      {DType::s8, DType::s8, 0x7F, 0x80, "S8"},
  };
  const size_t M = 9, N = 9, K = 9;  // every dimension padded (Mp = Np = 16, Kp = K0)
  for (const Row& r : rows) {
    std::mt19937 rng(5);
    const auto A = random_codes(r.ta, M * K, rng), B = random_codes(r.tb, K * N, rng);
    const auto pa = pack(A.data(), M, K, r.ta, Layout::nz), pb = pack(B.data(), K, N, r.tb, Layout::zn);
    const auto na = fill_padding(pa, packed_marker(M, K, r.ta, Layout::nz), fm::info(r.ta).storage_bits / 8, r.nan_a);
    const auto nb = fill_padding(pb, packed_marker(K, N, r.tb, Layout::zn), fm::info(r.tb).storage_bits / 8, r.nan_b);
    ASSERT_NE(pa, na) << r.types;  // the fill reached some padding
    ASSERT_NE(pb, nb) << r.types;
    const bool flt = fm::is_float(r.ta);
    std::vector<uint32_t> bias(N), bias_nan(64, flt ? 0x7FC00000u : 0x7FFFFFFFu);  // a 256 B Bias tile
    for (size_t j = 0; j < N; ++j) bias[j] = bias_nan[j] = flt ? fbits(0.5f * static_cast<float>(j)) : static_cast<uint32_t>(j);
    const std::string text = std::string("TMATMUL.BIAS <M:9, N:9, K:9, ") + r.types + ">, T#1, U#1, N#1, ->ACC<512B>";
    const auto run = [&](const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, const std::vector<uint32_t>& bs) {
      Machine m;
      m.push_raw('T', a);
      m.push_raw('U', b);
      m.push_raw('N', std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bs.data()), bs.size() * 4));
      m.run(text);
      return m.acc().data;
    };
    const auto zero = run(pa, pb, bias);
    EXPECT_EQ(zero, expected(A, r.ta, B, r.tb, M, N, K, bias.data(), nullptr)) << r.types;
    EXPECT_EQ(run(na, nb, bias_nan), zero) << r.types << ": padding was read";
  }
}

// Spec 30 §1: LB0..LB2 reset to 1 at each block start, so a block without B.DIM is 1 x 1 x 1.
TEST(LinxRules, LaneBoundsResetAtEachBlock) {
  std::vector<float> a(9 * 9), b(9 * 9);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i % 7) + 1.0f;
    b[i] = static_cast<float>(i % 5) + 2.0f;
  }
  Machine m;
  m.push_tile('T', a.data(), 9, 9, DType::fp32, Layout::nz);
  m.push_tile('U', b.data(), 9, 9, DType::fp32, Layout::zn);
  m.run("TMATMUL <M:9, N:9, K:9, FP32>, T#1.reuse, U#1.reuse, ->ACC<512B>\n"
        "BSTART.TMATMUL FP32\n"
        "B.IOT T#1.reuse, U#1.reuse, last, ->ACC<32B>");
  ASSERT_TRUE(m.acc().valid);
  EXPECT_EQ(m.acc().m, 1u);
  EXPECT_EQ(m.acc().n, 1u);
  EXPECT_EQ(m.acc().data, std::vector<uint32_t>{fbits(a[0] * b[0])});  // K = 1: a single product
  // Only LB2 set: M and N are back to 1, K is the new value.
  m.run("TMATMUL <M:9, N:9, K:9, FP32>, T#1.reuse, U#1.reuse, ->ACC<512B>\n"
        "BSTART.TMATMUL FP32\nB.DIM zero, 2, ->LB2\nB.IOT T#1.reuse, U#1.reuse, last, ->ACC<32B>");
  EXPECT_EQ(m.acc().m, 1u);
  EXPECT_EQ(m.acc().n, 1u);
  EXPECT_EQ(m.acc().data, std::vector<uint32_t>{fbits(std::fma(a[1], b[9], a[0] * b[0]))});
}

// Spec 30 §1: BSTOP ends the program; nothing after it decodes into work (VPAR would fault,
// the TMATMUL would write ACC and release its sources).
TEST(LinxRules, BstopEndsTheProgram) {
  std::mt19937 rng(8);
  const auto A = random_codes(DType::fp16, 256, rng), B = random_codes(DType::fp16, 256, rng);
  for (const bool as_words : {false, true}) {
    Machine m;
    m.push_tile('T', A.data(), 16, 16, DType::fp16, Layout::nz);
    m.push_tile('U', B.data(), 16, 16, DType::fp16, Layout::zn);
    const std::string text = "BSTOP\nBSTART.VPAR 3\nTMATMUL <M:16, N:16, K:16, FP16>, T#1, U#1, ->ACC<1KB>";
    if (as_words)
      m.run(assemble(text));
    else
      m.run(text);
    EXPECT_FALSE(m.acc().valid);
    EXPECT_TRUE(m.tiles('T')[0].live);
    EXPECT_TRUE(m.tiles('U')[0].live);
    EXPECT_EQ(m.live_bytes(), 1024u);
    // A block before BSTOP runs; the one after does not.
    m.run("TMATMUL <M:16, N:16, K:16, FP16>, T#1.reuse, U#1.reuse, ->ACC<1KB>\nBSTOP\n"
          "TMATMUL <M:8, N:16, K:16, FP16>, T#1, U#1, ->ACC<1KB>");
    EXPECT_EQ(m.acc().m, 16u);
    EXPECT_TRUE(m.tiles('T')[0].live);
  }
}

// Spec 30 §1 "unsupported": every block class other than CUBE, and every CUBE function other
// than 0, 1, 2, decodes but faults when executed, leaving the machine unchanged.
TEST(LinxRules, UnsupportedForEveryOtherClassAndFunction) {
  for (const char* cls : {"MPAR", "MSEQ", "VPAR", "VSEQ", "FIXP"}) {
    Machine m;
    try {
      m.run(std::string("BSTART.") + cls + " 7\nBSTOP");
      ADD_FAILURE() << cls << ": no fault";
    } catch (const Fault& f) {
      EXPECT_EQ(f.kind(), "unsupported") << cls;
      EXPECT_EQ(f.word_index(), 0);
      EXPECT_HAS(f.what(), std::string("BSTART.") + cls + ": fault (unsupported) at word 0: block class is not executed");
      EXPECT_EQ(f.block_text(), std::string("BSTART.") + cls + " 7");
    }
    EXPECT_FALSE(m.acc().valid);
  }
  for (const char* fn : {"TMATMULMX", "TMATMULMX.BIAS", "TMATMULMX.ACC", "TGEMV", "TGEMV.BIAS",
                         "TGEMV.ACC", "TGEMVMX", "TGEMVMX.BIAS", "TGEMVMX.ACC"}) {
    Machine m;
    try {
      m.run(std::string("BSTOP\nBSTART.CUBE ") + fn + ", FP16\nB.IOT T#1, U#1, last, ->ACC<1KB>");
      m.run(std::string("BSTART.CUBE ") + fn + ", FP16\nB.IOT T#1, U#1, last, ->ACC<1KB>");
      ADD_FAILURE() << fn << ": no fault";
    } catch (const Fault& f) {
      EXPECT_EQ(f.kind(), "unsupported") << fn;
      EXPECT_EQ(f.word_index(), 0);
      EXPECT_HAS(f.what(), std::string(fn) + ": fault (unsupported) at word 0: CUBE function " + fn);
    }
    EXPECT_FALSE(m.acc().valid);
  }
}

// Spec 10 §1: e3m2 / e2m3 codes are the low 6 bits; bits 7..6 of a tile byte are ignored. Both
// decode paths: the per-element table (small tiles) and the bulk decoder (>= 4096 elements).
TEST(LinxRules, Fp6HighBitsIgnoredOnRead) {
  struct Shape {
    size_t m, n, k;
  };
  for (const Shape s : {Shape{16, 16, 32}, Shape{64, 64, 64}})
    for (const auto& [ta, tb, types] : {std::tuple{DType::e3m2, DType::e3m2, "E3M2"},
                                        std::tuple{DType::e2m3, DType::e2m3, "E2M3"},
                                        std::tuple{DType::e3m2, DType::e2m3, "E3M2, E2M3"}}) {
      std::mt19937 rng(11);
      const auto A = random_codes(ta, s.m * s.k, rng), B = random_codes(tb, s.k * s.n, rng);
      auto pa = pack(A.data(), s.m, s.k, ta, Layout::nz), pb = pack(B.data(), s.k, s.n, tb, Layout::zn);
      if (s.m == 64) {
        ASSERT_GE(pa.size(), 4096u);  // the bulk path's threshold
      }
      const std::string text = "TMATMUL <M:" + std::to_string(s.m) + ", N:" + std::to_string(s.n) +
                               ", K:" + std::to_string(s.k) + ", " + types + ">, T#1, U#1, ->ACC<16KB>";
      const auto run = [&](const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
        Machine m;
        m.push_raw('T', a);
        m.push_raw('U', b);
        m.run(text);
        return m.acc().data;
      };
      const auto clean = run(pa, pb);
      EXPECT_EQ(clean, expected(A, ta, B, tb, s.m, s.n, s.k, nullptr, nullptr)) << types;
      for (auto& x : pa) x |= 0xC0;
      for (auto& x : pb) x |= 0xC0;
      EXPECT_EQ(run(pa, pb), clean) << types << " " << s.m << "x" << s.n << "x" << s.k;
    }
}

// Spec 00 "Threading": identical bits for every thread count, through the machine.
TEST(LinxRules, SameBitsForOneTwoThreeThreads) {
  std::mt19937 rng(13);
  const size_t M = 96, N = 80, K = 200;
  struct Case {
    DType t;
    const char* name;
  };
  for (const Case c : {Case{DType::fp16, "FP16"}, Case{DType::s8, "S8"}}) {
    const auto A = random_codes(c.t, M * K, rng, /*special=*/c.t == DType::fp16);
    const auto B = random_codes(c.t, K * N, rng, c.t == DType::fp16);
    const auto want = expected(A, c.t, B, c.t, M, N, K, nullptr, nullptr);
    for (const size_t threads : {1u, 2u, 3u}) {
      tilesim::set_num_threads(threads);
      Machine m;
      m.push_tile('T', A.data(), M, K, c.t, Layout::nz);
      m.push_tile('U', B.data(), K, N, c.t, Layout::zn);
      m.run(std::string("TMATMUL <M:96, N:80, K:200, ") + c.name + ">, T#1, U#1, ->ACC<32KB>");
      EXPECT_EQ(m.acc().data, want) << c.name << " with " << threads << " threads";
    }
  }
  tilesim::set_num_threads(0);
}

// Spec 30 §1 "Profile", §3: the machine reads the profile's accumulation rules. The only rules
// the core implements are linx_v056's; another value is an "unsupported" fault, raised only by
// blocks of the class the rule governs (float order: floating blocks; overflow: integer blocks).
TEST(LinxRules, ProfileAccumulationRulesAreRead) {
  LinxProfile p = linx_profile("linx_v056");
  Machine::State s;
  s.profile = &p;
  const auto put = [&](int q, std::vector<uint8_t> bytes) {
    const size_t size = bytes.size();
    s.queues[static_cast<size_t>(q)].push_front(
        TileSlot{std::make_shared<const TileBytes>(bytes.begin(), bytes.end()), size, true});
  };
  put(0, std::vector<uint8_t>(512, 0x3C));  // 16 x 16 fp16 (1.0078125) / s8 (60)
  put(1, std::vector<uint8_t>(512, 0x3C));
  const auto block = [](const std::string& text) {
    const auto w = assemble(text);
    std::vector<enc::Word> ws;
    for (size_t i = 0; i < w.size(); ++i) ws.push_back(enc::decode_at(w[i], i));
    return ws;
  };
  const auto fp = block("TMATMUL <M:16, N:16, K:16, FP16>, T#1.reuse, U#1.reuse, ->ACC<1KB>");
  const auto in = block("TMATMUL <M:16, N:16, K:8, S8>, T#1.reuse, U#1.reuse, ->ACC<1KB>");
  EXPECT_NO_THROW(exec_cube(s, fp, 0));
  EXPECT_NO_THROW(exec_cube(s, in, 0));
  const auto expect_unsupported = [&](const std::vector<enc::Word>& b, const std::string& what) {
    try {
      exec_cube(s, b, 0);
      ADD_FAILURE() << "profile value not read: " << what;
    } catch (const Fault& f) {
      EXPECT_EQ(f.kind(), "unsupported");
      EXPECT_HAS(f.what(), what);
      EXPECT_HAS(f.what(), "profile linx_v056");
    }
  };
  p.float_order = static_cast<decltype(p.float_order)>(7);
  expect_unsupported(fp, "floating accumulation order 7");
  EXPECT_NO_THROW(exec_cube(s, in, 0));
  p = linx_profile("linx_v056");
  p.int_overflow = static_cast<decltype(p.int_overflow)>(5);
  expect_unsupported(in, "integer overflow rule 5");
  EXPECT_NO_THROW(exec_cube(s, fp, 0));
}

// Spec 30 §1: the push limits come from the profile, in its messages too.
TEST(LinxRules, PushLimitsComeFromTheProfile) {
  LinxProfile p = linx_profile("linx_v056");
  p.min_tile = 512;
  p.max_tile = 64 * 1024;
  p.live_capacity = 96 * 1024;
  Machine::State s;
  s.profile = &p;
  const std::vector<uint8_t> big(64 * 1024 + 1, 0);
  const auto error = [&](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const tilesim::Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_HAS(error([&] { push_raw(s, 'T', big, 0); }),
             "tile data of 65537 bytes exceeds the largest tile (64 KB) of profile linx_v056");
  EXPECT_HAS(error([&] { push_raw(s, 'T', std::span<const uint8_t>(big.data(), 10), 256); }),
             "tile size 256 is not 512 B x 2^k in 512 B..64 KB");
  push_raw(s, 'T', std::span<const uint8_t>(big.data(), 10), 0);
  EXPECT_EQ(s.queues[0].front().size, 512u);  // the smallest legal size is the profile's
  push_raw(s, 'T', std::span<const uint8_t>(big.data(), 10), 64 * 1024);
  EXPECT_HAS(error([&] { push_raw(s, 'U', std::span<const uint8_t>(big.data(), 10), 32 * 1024); }),
             "more than the 98304-byte capacity");
  // The default profile's values in the public API's messages.
  Machine m;
  const std::vector<uint8_t> too_big(256 * 1024 + 1, 0);
  EXPECT_HAS(error([&] { m.push_raw('T', too_big); }), "exceeds the largest tile (256 KB) of profile linx_v056");
  EXPECT_HAS(error([&] { m.push_raw('T', std::span<const uint8_t>(too_big.data(), 1), 768); }),
             "tile size 768 is not 256 B x 2^k in 256 B..256 KB");
}
