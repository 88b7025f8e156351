// Every legal TMATMUL type (and mixes of different widths) through the machine: tiles packed in
// NZ / ZN with each K0 (4, 8, 16, 32, 64), shapes not multiple of 16 / K0, K spanning several of
// the fast engine's K blocks; results against the independent computation.
#include <gtest/gtest.h>

#include "support.hpp"

using namespace tilesim::linx;
using namespace linx_test;

namespace {
struct Case {
  const char* ta;  // LinxISA spellings
  const char* tb;
  DType a, b;
};
const Case kCases[] = {
    {"FP64", "FP64", DType::fp64, DType::fp64},   {"FP32", "FP32", DType::fp32, DType::fp32},
    {"TF32", "TF32", DType::tf32, DType::tf32},   {"HF32", "HF32", DType::hf32, DType::hf32},
    {"FP16", "FP16", DType::fp16, DType::fp16},   {"BF16", "BF16", DType::bf16, DType::bf16},
    {"E4M3", "E4M3", DType::e4m3, DType::e4m3},   {"E5M2", "E5M2", DType::e5m2, DType::e5m2},
    {"E2M3", "E2M3", DType::e2m3, DType::e2m3},   {"E3M2", "E3M2", DType::e3m2, DType::e3m2},
    {"E2M1x2", "E2M1x2", DType::e2m1, DType::e2m1}, {"E1M2x2", "E1M2x2", DType::e1m2, DType::e1m2},
    {"S64", "S64", DType::s64, DType::s64},       {"S32", "S32", DType::s32, DType::s32},
    {"S16", "S16", DType::s16, DType::s16},       {"S8", "S8", DType::s8, DType::s8},
    {"S4x2", "S4x2", DType::s4, DType::s4},       {"U64", "U64", DType::u64, DType::u64},
    {"U32", "U32", DType::u32, DType::u32},       {"U16", "U16", DType::u16, DType::u16},
    {"U8", "U8", DType::u8, DType::u8},           {"U4x2", "U4x2", DType::u4, DType::u4},
    {"FP64", "E2M1x2", DType::fp64, DType::e2m1}, {"E1M2x2", "BF16", DType::e1m2, DType::bf16},
    {"TF32", "E4M3", DType::tf32, DType::e4m3},   {"S4x2", "S64", DType::s4, DType::s64},
    {"U16", "U4x2", DType::u16, DType::u4},       {"FP16", "E3M2", DType::fp16, DType::e3m2},
};
}  // namespace

TEST(LinxMachineTypes, EveryTypeThroughTheMachine) {
  std::mt19937 rng(12);
  struct Shape { size_t m, n, k; };
  const Shape shapes[] = {{1, 1, 1}, {17, 21, 70}, {5, 33, 300}};
  for (const Case& c : kCases)
    for (const Shape& s : shapes) {
      Machine m;
      const auto A = random_codes(c.a, s.m * s.k, rng, true), B = random_codes(c.b, s.k * s.n, rng, true);
      m.push_tile('M', A.data(), s.m, s.k, c.a, Layout::nz);
      m.push_tile('N', B.data(), s.k, s.n, c.b, Layout::zn);
      std::vector<uint32_t> bias(s.n);
      for (auto& b : bias) b = fm::is_float(c.a) ? 0x3F000000u /* 0.5 */ : rng();
      m.push_raw('T', std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bias.data()), s.n * 4));
      const std::string dims = "<M:" + std::to_string(s.m) + ", N:" + std::to_string(s.n) + ", K:" + std::to_string(s.k) +
                               ", " + c.ta + ", " + c.tb + ">";
      m.run("TMATMUL.BIAS " + dims + ", M#1.reuse, N#1.reuse, T#1, ->ACC<8KB>");
      const auto first = expected(A, c.a, B, c.b, s.m, s.n, s.k, bias.data(), nullptr);
      ASSERT_EQ(m.acc().data, first) << c.ta << " x " << c.tb << " " << s.m << "x" << s.n << "x" << s.k;
      EXPECT_EQ(m.acc().type, acc_type(c.a));
      m.run("TMATMUL.ACC " + dims + ", M#1, N#1, ACC, ->ACC<8KB>");
      ASSERT_EQ(m.acc().data, expected(A, c.a, B, c.b, s.m, s.n, s.k, nullptr, first.data())) << c.ta << " .ACC";
      EXPECT_EQ(m.live_bytes(), 0u);
    }
}

// Random text and random words never crash: they assemble / decode / run or raise tilesim::Error.
TEST(LinxRobustness, RandomTextAndWords) {
  std::mt19937 rng(99);
  const std::string alphabet = "TMATMUL.BIASCC<>:,+# ;/-0123456789xXabsrRLBKNU#=\n\t";
  const std::string seeds[] = {"TMATMUL.BIAS <LB0:100, LB1:a0, LB2:a1+10, FP32>, T#1, U#1, N#1, ->ACC<64KB>",
                               "B.DATR E5M2, sat=1", "B.IOT T#1, U#1, last, ->ACC<1KB>", "B.DIM a0, 7, ->LB2"};
  for (int t = 0; t < 3000; ++t) {
    std::string s = seeds[rng() % 4];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = rng() % (s.size() + 1);
      switch (rng() % 3) {
        case 0: s.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        case 1: if (pos < s.size()) s.erase(pos, 1); break;
        default: if (pos < s.size()) s[pos] = static_cast<char>(rng() % 256); break;
      }
    }
    try {
      const auto w = assemble(s);
      EXPECT_EQ(assemble(disassemble(w)), w) << s;
    } catch (const tilesim::Error& e) {
      EXPECT_EQ(e.code(), tilesim::ErrorCode::Parse) << e.what();
    }
  }
  Machine m;
  std::vector<uint8_t> tile(4096, 0x3C);
  for (int q = 0; q < 4; ++q) m.push_raw("TUMN"[q], tile);
  const uint32_t templates[] = {0x08131181, 0x06400043, 0x00011043, 0x00A1A043, 0x01D04013, 0x3900D813, 0x00801023};
  for (int t = 0; t < 3000; ++t) {
    std::vector<uint32_t> w;
    const size_t n = 1 + rng() % 8;
    for (size_t i = 0; i < n; ++i) {
      uint32_t x = templates[rng() % 7];
      if (rng() % 2) x ^= 1u << (rng() % 32);
      if (rng() % 4 == 0) x = static_cast<uint32_t>(rng());
      w.push_back(x);
    }
    try {
      (void)disassemble(w, true);
      Machine copy = m;
      copy.run(w);
    } catch (const tilesim::Error&) {
    }
  }
}
