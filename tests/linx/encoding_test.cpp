// Encoding table: rows never overlap, cover all 32 bits, every row round-trips; the known-answer
// words of spec 30 §6; decode errors for unmatched words and reserved values.
#include <gtest/gtest.h>

#include <random>

#include "linx/encoding_table.hpp"
#include "linx/text.hpp"
#include "tilesim/linx.hpp"

using namespace tilesim::linx;
using enc::F;
using enc::Op;

TEST(LinxEncoding, RowsDoNotOverlap) {
  const auto rows = enc::rows();
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = i + 1; j < rows.size(); ++j) {
      const uint32_t common = rows[i].mask & rows[j].mask;
      EXPECT_NE(rows[i].match & common, rows[j].match & common)
          << rows[i].mnemonic << " overlaps " << rows[j].mnemonic << " (" << i << ", " << j << ")";
    }
}

TEST(LinxEncoding, FieldsAndFixedBitsCoverEveryBitOnce) {
  for (const auto& r : enc::rows()) {
    uint32_t seen = r.mask;
    for (unsigned f = 0; f < r.nfields; ++f)
      for (unsigned s = 0; s < r.fields[f].nslices; ++s) {
        const auto& sl = r.fields[f].slices[s];
        for (unsigned b = sl.lo; b <= sl.hi; ++b) {
          EXPECT_FALSE(seen & (1u << b)) << r.mnemonic << " bit " << b << " used twice";
          seen |= 1u << b;
        }
      }
    EXPECT_EQ(seen, 0xFFFFFFFFu) << r.mnemonic;
  }
}

// Every row: random legal field values encode, decode back to the same row and values, and
// the raw text assembles back to the same word.
TEST(LinxEncoding, EveryRowRoundTrips) {
  std::mt19937 rng(7);
  for (const auto& r : enc::rows()) {
    int ok = 0;
    for (int trial = 0; trial < 400 && ok < 60; ++trial) {
      enc::Word w;
      w.op = r.op;
      for (unsigned f = 0; f < r.nfields; ++f) {
        const unsigned width = enc::field_width(r, r.fields[f].id);
        w[r.fields[f].id] = static_cast<uint32_t>(rng()) & (width >= 32 ? ~0u : ((1u << width) - 1));
      }
      for (unsigned l = 0; l < r.nlits; ++l) w[r.lits[l].id] = r.lits[l].value;
      uint32_t word;
      try {
        word = enc::encode(w);
      } catch (const tilesim::Error&) {
        continue;  // a reserved value; decode must reject the same pattern (tested below)
      }
      ++ok;
      auto d = enc::decode(word);
      ASSERT_TRUE(d) << r.mnemonic << " " << std::hex << word;
      EXPECT_EQ(d->op, r.op);
      EXPECT_EQ(d->v, w.v) << r.mnemonic;
      const std::string line = text::raw_line(*d);
      const auto again = assemble(line);
      ASSERT_EQ(again.size(), 1u) << line;
      EXPECT_EQ(again[0], word) << line;
    }
    EXPECT_GE(ok, 10) << r.mnemonic;
  }
}

// Known answers: spec 30 §6 (the seed's example and B.DATR E5M2).
struct Known {
  uint32_t word;
  const char* text;
};
static const Known kKnown[] = {
    {0x08131181, "BSTART.CUBE TMATMUL.BIAS, FP32"},  // seed 002 example
    {0x06400043, "B.DIM zero, 100, ->LB0"},
    {0x00011043, "B.DIM a0, 0, ->LB1"},
    {0x00A1A043, "B.DIM a1, 10, ->LB2"},
    {0x01D04013, "B.IOT T#1, U#1"},
    {0x3900D813, "B.IOT N#1, last, ->ACC<64KB>"},
    {0x00801023, "B.DATR E5M2"},                        // spec 30 §6
    {0x00000001, "BSTOP"},
};

TEST(LinxEncoding, KnownAnswers) {
  for (const auto& k : kKnown) {
    const auto w = assemble(k.text);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0], k.word) << k.text;
    EXPECT_EQ(disassemble(w), std::string(k.text) + "\n");
  }
}

TEST(LinxEncoding, SeedTemplateExpandsToKnownWords) {
  const auto w = assemble("TMATMUL.BIAS <LB0:100, LB1:a0, LB2:a1+10, FP32>, T#1, U#1, N#1, ->ACC<64KB>");
  const std::vector<uint32_t> want = {0x08131181, 0x06400043, 0x00011043, 0x00A1A043, 0x01D04013, 0x3900D813};
  EXPECT_EQ(w, want);
  EXPECT_EQ(disassemble(w, true), "TMATMUL.BIAS <LB0:100, LB1:a0, LB2:a1+10, FP32>, T#1, U#1, N#1, ->ACC<64KB>\n");
}

TEST(LinxEncoding, EveryCubeFunctionDecodesToItsName) {
  const char* names[] = {"TMATMUL", "TMATMUL.BIAS", "TMATMUL.ACC", "TMATMULMX", "TMATMULMX.BIAS", "TMATMULMX.ACC",
                         "ACCCVT", "TGEMV", "TGEMV.BIAS", "TGEMV.ACC", "TGEMVMX", "TGEMVMX.BIAS", "TGEMVMX.ACC"};
  const unsigned codes[] = {0, 1, 2, 4, 5, 6, 8, 16, 17, 18, 20, 21, 22};
  for (size_t i = 0; i < 13; ++i) {
    enc::Word w;
    w.op = Op::bstart_cube;
    w[F::fn] = codes[i];
    w[F::dt] = 4;
    const auto d = enc::decode(enc::encode(w));
    ASSERT_TRUE(d);
    EXPECT_STREQ(enc::cube_fn_name((*d)[F::fn]), names[i]);
  }
  EXPECT_EQ(disassemble(assemble("BSTART.TMATMUL FP16")), "BSTART.TMATMUL FP16\n");
  EXPECT_EQ(disassemble(assemble("BSTART.CUBE TMATMUL, FP16")), "BSTART.TMATMUL FP16\n");
  EXPECT_EQ(disassemble(assemble("BSTART.CUBE ACCCVT, S8")), "BSTART.ACCCVT S8\n");
  EXPECT_EQ(disassemble(assemble("bstart.cube tgemvmx.acc, e4m3")), "BSTART.CUBE TGEMVMX.ACC, E4M3\n");
  EXPECT_EQ(disassemble(assemble("BSTART.VPAR 5")), "BSTART.VPAR 5\n");
}

static std::string decode_error(uint32_t w, size_t index = 0) {
  std::vector<uint32_t> ws(index + 1, 0x00000001u);
  ws[index] = w;
  try {
    disassemble(ws);
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Parse);
    return e.what();
  }
  return "no error";
}

TEST(LinxEncoding, DecodeErrorsNameWordAndIndex) {
  const uint32_t cube = 0x08131181;  // BSTART.CUBE TMATMUL.BIAS, FP32
  // No row matches.
  EXPECT_NE(decode_error(0x00000000, 0).find("word 0x00000000 at index 0: matches no encoding"), std::string::npos);
  EXPECT_NE(decode_error(0xFFFFFFFF, 3).find("word 0xFFFFFFFF at index 3"), std::string::npos);
  // Reserved CUBE function 3, reserved data type 15, bits 26..25 non-zero.
  EXPECT_NE(decode_error((cube & ~(31u << 20)) | (3u << 20), 1).find("reserved CUBE function"), std::string::npos);
  EXPECT_NE(decode_error((cube & ~(31u << 27)) | (15u << 27)).find("reserved data-type"), std::string::npos);
  // bits 26..25 = 01 is BSTART.TEPL (spec 30 §6); 10 and 11 are decode errors
  EXPECT_NE(decode_error(cube | (1u << 26)).find("matches no encoding"), std::string::npos);
  EXPECT_NE(decode_error(cube | (3u << 25)).find("matches no encoding"), std::string::npos);
  // Reserved block class 3 in a selector header.
  EXPECT_NE(decode_error((cube & ~(31u << 15)) | (3u << 15)).find("matches no encoding"), std::string::npos);
  // B.DIM with register code 24, LB index 3.
  EXPECT_NE(decode_error(0x06400043 | (24u << 15)).find("reserved register"), std::string::npos);
  // 14..12 = 011 with B.DIM's opcode is B.ARG's space; other bits set there: no row
  EXPECT_NE(decode_error(0x06400043 | (3u << 12)).find("matches no encoding"), std::string::npos);
  EXPECT_NE(decode_error(0x06400043 | (7u << 12)).find("matches no encoding"), std::string::npos);
  // B.IOT: Dst 6 reserved; Dst none with imm4 != 0; func 111 reserved.
  EXPECT_NE(decode_error((0x3900D813 & ~(7u << 22)) | (6u << 22)).find("reserved destination"), std::string::npos);
  EXPECT_NE(decode_error(0x01D04013 | (1u << 25)).find("imm4 != 0"), std::string::npos);
  EXPECT_NE(decode_error((0x01D04013 & ~(7u << 12)) | (7u << 12)).find("matches no encoding"), std::string::npos);
  // B.DATR: every field decodes whatever its value (spec 31 §1)
  EXPECT_EQ(decode_error((0x00801023 & ~(31u << 20)) | (21u << 20), 2), "no error");
  // TMA function 3..31 and TEPL TileOpcodes with bits 9..6 set or mode-1 functions 11..31 are reserved
  EXPECT_NE(decode_error(0x20311181).find("reserved TMA function"), std::string::npos);
  EXPECT_NE(decode_error(0x22121181 | (1u << 21)).find("reserved TEPL TileOpcode"), std::string::npos);
  EXPECT_NE(decode_error((0x22121181 & ~(0x3FFu << 15)) | (43u << 15)).find("reserved TEPL TileOpcode"),
            std::string::npos);
}

TEST(LinxEncoding, ExhaustiveLowBitsNeverCrash) {
  // Every value of the 15 low bits (the opcode/func region), with random high bits: decode
  // either succeeds and re-encodes to the same word, or reports an error.
  std::mt19937 rng(11);
  for (uint32_t low = 0; low < (1u << 15); ++low) {
    const uint32_t w = (static_cast<uint32_t>(rng()) << 15) | low;
    std::string why;
    auto d = enc::decode(w, &why);
    if (d)
      EXPECT_EQ(enc::encode(*d), w);
    else
      EXPECT_FALSE(why.empty());
  }
}
