// TLOAD / TSTORE through every fractal layout against an element-by-element reference of spec 30
// §4's offsets (the TMA moves copy whole 32-byte lines and transpose 8 x 8 blocks of 32-bit
// elements in registers; docs/linx.md#tload-tstore-tmov): random tile shapes, valid regions that
// are not multiples of 8, odd strides and bases, 1-, 2-, 4- and 8-byte elements, pad values.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tilesim/linx.hpp"

namespace {
using namespace tilesim::linx;

struct Case {
  const char* type;
  size_t es;
};

std::string size_text(size_t bytes) { return bytes < 1024 ? std::to_string(bytes) + "B" : std::to_string(bytes / 1024) + "KB"; }

// Element offset of (i, j) in a Row x Col tile (spec 30 §4, K0 = 32 bytes of elements).
size_t offset(const std::string& layout, size_t i, size_t j, size_t row, size_t col, size_t k0) {
  if (layout == "NZ") return ((j / k0) * (row / 16) + i / 16) * 16 * k0 + (i % 16) * k0 + j % k0;
  if (layout == "ZN") return ((i / k0) * (col / 16) + j / 16) * k0 * 16 + (j % 16) * k0 + i % k0;
  return i * col + j;
}

TEST(LinxTmaLayouts, LoadsAndStoresMatchTheElementReference) {
  std::mt19937 rng(2026);
  const Case types[] = {{"S8", 1}, {"FP16", 2}, {"FP32", 4}, {"FP64", 8}};
  // (TLOAD layout, tile layout, memory is DN, TSTORE layout or "" when the tile cannot be stored)
  struct L {
    const char *load, *tile;
    bool dn;
    const char* store;
  };
  const L layouts[] = {{"ND2NZ", "NZ", false, "NZ2ND"}, {"DN2NZ", "NZ", true, "NZ2ND"}, {"ND2ZN", "ZN", false, "ZN2ND"},
                       {"DN2ZN", "ZN", true, "ZN2ND"},  {"NORM", "ND", false, "NORM"}};
  int checked = 0;
  for (const Case& t : types)
    for (const L& l : layouts)
      for (int rep = 0; rep < 12; ++rep) {
        const size_t k0 = 32 / t.es;
        const std::string tl = l.tile;
        size_t row, col;
        if (tl == "NZ") {
          row = 16u << (rng() % 4);
          col = k0 << (rng() % 4);
        } else if (tl == "ZN") {
          row = k0 << (rng() % 4);
          col = 16u << (rng() % 4);
        } else {
          col = 8u << (rng() % 4);
          row = 512 / (col * t.es) << (rng() % 3);
        }
        const size_t size = row * col * t.es;
        const size_t vr = 1 + rng() % row, vc = 1 + rng() % col;
        const size_t inner = (l.dn ? vr : vc) * t.es, outer = l.dn ? vc : vr;
        const size_t stride = inner + rng() % 13, base = 100 + rng() % 9;
        const bool pad = rep % 3 == 2;
        Machine m;
        std::vector<uint8_t> mem(base + outer * stride + 64);
        for (auto& b : mem) b = static_cast<uint8_t>(rng());
        m.write_mem(0, mem);
        m.set_reg("a0", base);
        m.set_reg("a1", stride);
        const std::string dims = "<LB0:" + std::to_string(vc) + ", LB1:" + std::to_string(vr) + ", LB2:" + std::to_string(col) +
                                 ", " + t.type + (pad ? ", Max" : "") + ">";
        const std::string what = std::string(t.type) + " " + l.load + " " + std::to_string(row) + "x" + std::to_string(col) +
                                 " valid " + std::to_string(vr) + "x" + std::to_string(vc) + " stride " + std::to_string(stride);
        m.run(std::string("TLOAD.") + l.load + " " + dims + ", [a0, a1], ->T<" + size_text(size) + ">");
        const std::vector<uint8_t> tile = m.tile_bytes('T', 1);
        ASSERT_EQ(tile.size(), size) << what;
        // Valid elements from memory; every other element one pad code (zero without a pad).
        std::vector<bool> valid(row * col, false);
        for (size_t i = 0; i < vr; ++i)
          for (size_t j = 0; j < vc; ++j) {
            const size_t o = offset(tl, i, j, row, col, k0);
            valid[o] = true;
            const size_t at = base + (l.dn ? j * stride + i * t.es : i * stride + j * t.es);
            ASSERT_EQ(0, std::memcmp(tile.data() + o * t.es, mem.data() + at, t.es)) << what << " element " << i << "," << j;
          }
        std::vector<uint8_t> pad_code(t.es, 0);
        bool first = true;
        for (size_t o = 0; o < row * col; ++o) {
          if (valid[o]) continue;
          if (pad && first) std::memcpy(pad_code.data(), tile.data() + o * t.es, t.es);
          first = false;
          ASSERT_EQ(0, std::memcmp(tile.data() + o * t.es, pad_code.data(), t.es)) << what << " pad at " << o;
        }
        if (pad && !first) {
          EXPECT_NE(pad_code, std::vector<uint8_t>(t.es, 0)) << what << ": Max pads with a non-zero code";
        }
        // TSTORE of the same region to ND memory elsewhere: the valid elements land, nothing else moves.
        const size_t sstride = vc * t.es + rng() % 11, sbase = 7 + rng() % 5;
        std::vector<uint8_t> out(sbase + vr * sstride + 64);
        for (auto& b : out) b = static_cast<uint8_t>(rng());
        const uint64_t obase = 1 << 20;
        m.write_mem(obase, out);
        m.set_reg("a2", obase + sbase);
        m.set_reg("a3", sstride);
        m.run(std::string("TSTORE.") + l.store + " <LB0:" + std::to_string(vc) + ", LB1:" + std::to_string(vr) + ", LB2:" +
              std::to_string(col) + ", " + t.type + ">, T#1, [a2, a3]");
        std::vector<uint8_t> want = out;
        for (size_t i = 0; i < vr; ++i)
          for (size_t j = 0; j < vc; ++j)
            std::memcpy(want.data() + sbase + i * sstride + j * t.es, tile.data() + offset(tl, i, j, row, col, k0) * t.es, t.es);
        ASSERT_EQ(m.read_mem(obase, out.size()), want) << what << " (TSTORE " << l.store << ")";
        ++checked;
      }
  EXPECT_EQ(checked, 4 * 5 * 12);
}

}  // namespace
