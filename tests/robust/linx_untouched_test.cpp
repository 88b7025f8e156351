// "Rejected means untouched" for TMATMUL, TMATMUL.BIAS and TMATMUL.ACC through Machine (spec 30
// §1): a machine with random queues (0..5 tiles of random sizes and bytes per queue, some
// released), random registers and a random earlier ACC runs one random block (types of the whole §2
// table, dims as literals or register+imm incl. 0 and 16-bit wrap, tile refs near and past the
// window, .reuse, ACC sizes), sometimes assembled and then bit-flipped. After each run either it
// raised tilesim::Error (Parse or Fault) and registers, ACC, every queue's window, liveness, tile
// bytes and live_bytes are exactly as before, or the only changes are a new ACC and the release of
// the sources named without .reuse (registers, tile bytes and sizes unchanged, nothing new live).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "robust_util.hpp"
#include "tilesim/error.hpp"
#include "tilesim/linx.hpp"

namespace lx = tilesim::linx;

// GCC 12 reports a false -Wrestrict inside std::string operator+ chains at -O3 (GCC PR 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

namespace {

struct Gen {
  std::mt19937_64 g;
  explicit Gen(uint64_t s) : g(s) {}
  uint64_t u(uint64_t n) { return n ? g() % n : 0; }
  bool p(unsigned pc) { return u(100) < pc; }
};

const char* const kTypes[] = {"FP64",   "FP32", "TF32", "HF32", "FP16",   "BF16",   "HiF8",
                              "E4M3",   "E5M2", "E3M2", "E2M3", "E2M1x2", "E1M2x2", "E8M0",
                              "HiF4x2", "S64",  "S32",  "S16",  "S8",     "S4x2",   "U64",
                              "U32",    "U16",  "U8",   "U4x2"};
const char* const kCommon[] = {"FP16", "BF16", "FP32", "S8", "U8", "E4M3", "E5M2", "TF32"};
const char* const kRegs[] = {"a0", "a1", "a2", "a3", "s1", "x0"};
const char kQueues[] = {'T', 'U', 'M', 'N'};

struct Snapshot {
  std::vector<uint64_t> regs;
  lx::AccView acc;
  std::vector<std::vector<lx::TileInfo>> tiles;
  std::vector<std::vector<std::vector<uint8_t>>>
      bytes;  // per queue, per window entry ({} if absent)
  size_t live = 0;
  explicit Snapshot(const lx::Machine& m) : acc(m.acc()), live(m.live_bytes()) {
    for (unsigned r = 0; r < 24; ++r) regs.push_back(m.reg(r));
    for (char q : kQueues) {
      tiles.push_back(m.tiles(q));
      std::vector<std::vector<uint8_t>> b;
      for (const auto& t : tiles.back()) {
        try {
          b.push_back(m.tile_bytes(q, t.index));
        } catch (const tilesim::Error&) {
          b.emplace_back();
        }
      }
      bytes.push_back(std::move(b));
    }
  }
};

bool same_acc(const lx::AccView& a, const lx::AccView& b) {
  return a.valid == b.valid && a.m == b.m && a.n == b.n && a.type == b.type && a.data == b.data;
}

std::string diff(const Snapshot& a, const Snapshot& b, bool allow_acc_and_release) {
  if (a.regs != b.regs) return "registers changed";
  if (!allow_acc_and_release && !same_acc(a.acc, b.acc)) return "ACC changed";
  for (size_t q = 0; q < 4; ++q) {
    if (a.tiles[q].size() != b.tiles[q].size())
      return std::string("queue ") + kQueues[q] + " window changed";
    for (size_t i = 0; i < a.tiles[q].size(); ++i) {
      const auto &x = a.tiles[q][i], &y = b.tiles[q][i];
      if (x.index != y.index || x.size != y.size)
        return std::string("queue ") + kQueues[q] + " entry changed";
      if (x.live != y.live && !(allow_acc_and_release && x.live && !y.live))
        return std::string("queue ") + kQueues[q] + " liveness changed";
      if (y.live && a.bytes[q][i] != b.bytes[q][i])
        return std::string("tile bytes of ") + kQueues[q] + " changed";
    }
  }
  if (!allow_acc_and_release && a.live != b.live) return "live_bytes changed";
  if (b.live > a.live) return "live_bytes grew";
  return "";
}

std::string dim(Gen& G, const char* name) {
  std::string s = std::string(name) + ":";
  switch (G.u(14)) {
    case 0:
      return s + kRegs[G.u(6)] + "+" + std::to_string(G.u(40));
    case 1:
      return s + std::to_string(G.p(50) ? 0 : 65536 + G.u(40));  // zero, 16-bit wrap
    case 2:
      return s + std::to_string(G.u(300));
    default:
      return s + std::to_string(1 + G.u(24));
  }
}

std::string operand(Gen& G, char q) {
  std::string s = std::string(1, q) + "#" + std::to_string(G.p(85) ? 1 + G.u(3) : G.u(19));
  if (G.p(40)) s += ".reuse";
  return s;
}

// "<M:.., N:.., K:.., TypeA[, TypeB]>"
std::string header(Gen& G) {
  const char* ta = G.p(70) ? kCommon[G.u(8)] : kTypes[G.u(25)];
  std::string s = "<" + dim(G, "M") + ", " + dim(G, "N") + ", " + dim(G, "K") + ", " + ta;
  if (G.p(40)) s += std::string(", ") + (G.p(70) ? ta : kTypes[G.u(25)]);
  return s + ">";
}

std::string block(Gen& G, int kind, const std::string& hdr) {
  static const char* const sizes[] = {"256B", "512B", "1KB", "2KB", "4KB", "16KB", "64KB", "256KB"};
  std::string s = kind == 0 ? "TMATMUL " : kind == 1 ? "TMATMUL.BIAS " : "TMATMUL.ACC ";
  s += hdr + ", " + operand(G, 'T') + ", " + operand(G, 'U');
  if (kind == 1) s += ", " + operand(G, 'N');
  if (kind == 2) s += ", ACC";
  s += std::string(", ->ACC<") + (G.p(50) ? "256KB" : sizes[G.u(8)]) + ">";
  return s;
}

void run(int kind, uint64_t seed, int n) {
  Gen G(seed);
  robust::Tally tally;
  for (int k = 0; k < n; ++k) {
    lx::Machine m;
    for (const char* r : kRegs) m.set_reg(r, G.p(80) ? G.u(64) : G.g());
    for (char q : kQueues) {
      const int count = int(G.p(80) ? 2 + G.u(4) : G.u(q == 'M' ? 2 : 7));
      for (int t = 0; t < count; ++t) {
        const size_t size = size_t{256} << G.u(G.p(90) ? 6 : 11);
        std::vector<uint8_t> raw(G.p(50) ? size : G.u(size + 1));
        for (auto& b : raw) b = uint8_t(G.g());
        try {
          m.push_raw(q, raw, size);
        } catch (const tilesim::Error&) {  // capacity: the push is refused
        }
      }
    }
    // an earlier ACC (and released tiles) from one block, often of the same header, so that a
    // following TMATMUL.ACC matches it
    const std::string hdr = header(G);
    if (G.p(kind == 2 ? 85 : 30)) {
      try {
        m.run("TMATMUL " + (G.p(80) ? hdr : header(G)) + ", T#1.reuse, U#1" +
              (G.p(70) ? ".reuse" : "") + ", ->ACC<256KB>");
      } catch (const tilesim::Error&) {
      }
    }
    const std::string text = block(G, kind, hdr);
    std::vector<uint32_t> words;
    bool use_words = false;
    if (G.p(25)) {
      try {
        words = lx::assemble(text);
        use_words = true;
        const int flips = int(G.u(3));
        for (int f = 0; f < flips && !words.empty(); ++f) words[G.u(words.size())] ^= 1u << G.u(32);
      } catch (const tilesim::Error&) {
      }
    }
    const Snapshot before(m);
    bool threw = false;
    std::string msg;
    try {
      if (use_words)
        m.run(words);
      else
        m.run(text);
    } catch (const tilesim::Error& e) {
      threw = true;
      msg = e.what();
    }
    const Snapshot after(m);
    if (threw) {
      ++tally.rejected;
      const std::string d = diff(before, after, false);
      ASSERT_EQ(d, "") << "case " << k << ": " << text << " rejected (" << msg << ") but " << d;
      ASSERT_NE(msg.find("[docs/linx.md#"), std::string::npos) << msg;
      if (getenv("ROBUST_VERBOSE")) fprintf(stderr, "%s\n", msg.c_str());
      continue;
    }
    ++tally.ok;
    const std::string d = diff(before, after, true);
    ASSERT_EQ(d, "") << "case " << k << ": " << text << " accepted but " << d;
    if (!use_words) {  // an executed TMATMUL block leaves a valid ACC
      ASSERT_TRUE(after.acc.valid) << text;
      ASSERT_EQ(after.acc.data.size(), after.acc.m * after.acc.n) << text;
    }
  }
  tally.check(n, 100, 50, "kind " + std::to_string(kind));
}

TEST(LinxUntouched, Tmatmul) {
  run(0, 21, robust::cases(4000));
}
TEST(LinxUntouched, TmatmulBias) {
  run(1, 22, robust::cases(4000));
}
TEST(LinxUntouched, TmatmulAcc) {
  run(2, 23, robust::cases(4000));
}

}  // namespace
