// Assembler: template and raw forms, syntax variants, and one test per malformed-line kind
// (each asserting the line:column and the message).
#include <gtest/gtest.h>

#include <random>

#include "linx/encoding_table.hpp"
#include "tilesim/linx.hpp"

using namespace tilesim::linx;

static std::string asm_error(const std::string& text) {
  try {
    assemble(text, "f.s");
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Parse);
    return e.what();
  }
  return "no error";
}
#define EXPECT_HAS(hay, needle) EXPECT_NE(std::string(hay).find(needle), std::string::npos) << (hay)

TEST(LinxAsm, TemplateVariantsAgree) {
  const auto ref = assemble("TMATMUL.BIAS <LB0:100, LB1:a0, LB2:a1+10, FP32>, T#1, U#1, N#1, ->ACC<64KB>");
  // No comma after '>', M:/N:/K: labels, lower case, R-numbers, hex, comments of all three kinds.
  EXPECT_EQ(assemble("tmatmul.bias <m:0x64, n:R2, k:r3+0xA, fp32> t#1, u#1, n#1, ->acc<64kb> ; c"), ref);
  EXPECT_EQ(assemble("# header comment\n  TMATMUL.BIAS <LB0:100,LB1:a0,LB2:a1+10,FP32,FP32>,T#1,U#1,N#1,->ACC<64KB> // x\n"),
            ref);
  EXPECT_EQ(assemble("TMATMUL.BIAS <LB0:100, LB1:a0, LB2:a1+10, FP32>, T#1, U#1, N#1, ->ACC<64KB>   # trailing"), ref);
  // Raw header form of the same block.
  EXPECT_EQ(assemble("BSTART.CUBE TMATMUL.BIAS, FP32\nB.DIM zero, 100, ->LB0\nB.DIM a0, 0, ->LB1\n"
                     "B.DIM a1, 10, ->LB2\nB.IOT T#1, U#1\nB.IOT N#1, last, ->ACC<64KB>"),
            ref);
}

TEST(LinxAsm, TemplateExpansionOrderAndFields) {
  const auto w = assemble("TMATMUL.ACC <LB0:s1+3, LB1:16, LB2:x3, FP16, E4M3>, T#2.reuse, M#16.reuse, ACC, ->ACC<512KB>");
  EXPECT_EQ(disassemble(w),
            "BSTART.TMATMUL.ACC FP16\nB.DATR E4M3\nB.DIM s1, 3, ->LB0\nB.DIM zero, 16, ->LB1\nB.DIM x3, 0, ->LB2\n"
            "B.IOT T#2.reuse, M#16.reuse, last, ->ACC<512KB>\n");
  EXPECT_EQ(disassemble(w, true),
            "TMATMUL.ACC <LB0:s1+3, LB1:16, LB2:x3, FP16, E4M3>, T#2.reuse, M#16.reuse, ACC, ->ACC<512KB>\n");
  const auto p = assemble("TMATMUL <LB0:1, LB1:2, LB2:65535, S8>, N#16, U#3.reuse, ->ACC<32B>");
  EXPECT_EQ(disassemble(p, true), "TMATMUL <LB0:1, LB1:2, LB2:65535, S8>, N#16, U#3.reuse, ->ACC<32B>\n");
  // A raw B.DIM imm above the 16-bit lane bound does not fold (the template form could not
  // assemble it back, docs/linx.md#template-form).
  const auto wide = assemble("BSTART.TMATMUL S8\nB.DIM zero, 1, ->LB0\nB.DIM zero, 2, ->LB1\n"
                             "B.DIM zero, 131071, ->LB2\nB.IOT N#16, U#3.reuse, last, ->ACC<32B>");
  EXPECT_EQ(disassemble(wide, true).find("TMATMUL <"), std::string::npos) << disassemble(wide, true);
  EXPECT_EQ(p.size(), 5u);
}

TEST(LinxAsm, EverySizeSpelling) {
  const char* sizes[] = {"0B", "32B", "64B", "128B", "256B", "512B", "1KB", "2KB", "4KB", "8KB", "16KB", "32KB", "64KB",
                         "128KB", "256KB", "512KB"};
  for (unsigned i = 1; i < 16; ++i) {
    const auto w = assemble(std::string("B.IOT T#1, last, ->ACC<") + sizes[i] + ">");
    EXPECT_EQ((w[0] >> 25) & 15, i) << sizes[i];  // imm4 at 28..25 (spec 30 §6)
  }
  // spec 30 §5 / 31 §3: 0B (imm4 = 0) assembles with any destination (the v0.56 LLVM tests
  // round-trip ->u<0>); a bare number is the raw imm4 code.
  EXPECT_EQ(assemble("B.IOT T#1, last, ->U<0>"), assemble("B.IOT T#1, last, ->U<0B>"));
  EXPECT_EQ(assemble("B.IOT T#1, last, ->u<1>"), assemble("B.IOT T#1, last, ->U<32B>"));
  EXPECT_EQ(disassemble(assemble("B.IOT T#1, last, ->u<0>")), "B.IOT T#1, last, ->U<0B>\n");
  EXPECT_THROW(assemble("B.IOT T#1, last, ->t<a0>"), tilesim::Error);
  EXPECT_THROW(assemble("B.IOT T#1, last, ->t<16>"), tilesim::Error);
}

TEST(LinxAsm, BDatrFieldGivenTwice) {
  try {
    assemble("B.DATR FP32, sat=1, sat=0");
    ADD_FAILURE() << "accepted";
  } catch (const tilesim::Error& e) {
    EXPECT_NE(std::string(e.what()).find("<input>:1:21: B.DATR: B.DATR field 'sat' given twice"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(assemble("B.DATR FP32, sat=1, rmode=2").size(), 1u);
}

TEST(LinxAsm, RawFormsRoundTrip) {
  const char* lines[] = {"B.DATR E2M1x2, sat=1, rmode=5, cmode=7, pad=31, layout=17",
                         "B.IOD 1, 2, 31, ->7",
                         "B.IOT",
                         "B.IOT last, ->S<4KB>",
                         "B.IOT U#4.reuse, ->T<256B>",
                         "B.IOT M#2, N#9.reuse, ->N<1KB>",
                         "BSTART.FIXP 3999",
                         "BSTART.TLOAD FP16",
                         "BSTART.TSTORE FP32",
                         "BSTART.TMOV S8",
                         "BSTART.TEPL TMAXS, FP16",
                         "BSTART.TEPL TROWEXPAND, BF16",
                         "B.IOR a0, a1",
                         "B.IOR zero, zero, x3, ->a0",
                         "B.IOR",
                         "B.ARG 3",
                         "B.ARG ND2ZN.normal, FP16, Null",
                         "B.ARG NZ2DN.canon",
                         "B.ARG NORM.normal",
                         "B.DATR FP16, sat=1, pad=2, layout=27",
                         "B.DATR",
                         "BSTOP"};
  for (const char* l : lines) EXPECT_EQ(disassemble(assemble(l)), std::string(l) + "\n");
}

// asm -> words -> disasm (raw and folded) -> asm over generated programs.
TEST(LinxAsm, GeneratedProgramsRoundTrip) {
  std::mt19937 rng(3);
  const char* types[] = {"FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "HiF8", "E4M3", "E5M2", "E3M2", "E2M3",
                         "E2M1x2", "E1M2x2", "E8M0", "HiF4x2", "S64", "S32", "S16", "S8", "S4x2", "U64", "U32",
                         "U16", "U8", "U4x2"};
  const char* regs[] = {"zero", "sp", "a0", "a7", "ra", "fp", "s1", "s8", "x0", "x3"};
  const char* sizes[] = {"32B", "1KB", "64KB", "512KB"};
  const char* q = "TUMN";
  auto pick = [&](auto& arr) { return arr[rng() % (sizeof(arr) / sizeof(arr[0]))]; };
  auto dim = [&]() -> std::string {
    switch (rng() % 3) {
      case 0: return std::to_string(rng() % 65536);  // a 16-bit lane bound (docs/linx.md#template-form)
      case 1: return pick(regs);
      default: return std::string(pick(regs)) + "+" + std::to_string(rng() % 65536);
    }
  };
  auto tile = [&]() {
    return std::string(1, q[rng() % 4]) + "#" + std::to_string(1 + rng() % 16) + (rng() % 2 ? ".reuse" : "");
  };
  for (int t = 0; t < 300; ++t) {
    const int fn = static_cast<int>(rng() % 3);
    std::string s = fn == 0 ? "TMATMUL" : fn == 1 ? "TMATMUL.BIAS" : "TMATMUL.ACC";
    s += " <LB0:" + dim() + ", LB1:" + dim() + ", LB2:" + dim() + ", " + pick(types);
    if (rng() % 2) s += std::string(", ") + pick(types);
    s += ">, " + tile() + ", " + tile() + ", ";
    if (fn == 1) s += tile() + ", ";
    if (fn == 2) s += "ACC, ";
    s += std::string("->ACC<") + pick(sizes) + ">";
    const auto w = assemble(s);
    EXPECT_EQ(assemble(disassemble(w)), w) << s;
    EXPECT_EQ(assemble(disassemble(w, true)), w) << s;
  }
}

TEST(LinxAsm, ErrorUnknownMnemonic) {
  EXPECT_HAS(asm_error("BSTOP\n  TMATMUL.FOO <LB0:1>"), "f.s:2:3: TMATMUL.FOO: unknown mnemonic 'TMATMUL.FOO'");
  EXPECT_HAS(asm_error("BSTART.XYZ 1"), "f.s:1:1: BSTART.XYZ: unknown mnemonic");
}
TEST(LinxAsm, ErrorBadType) {
  EXPECT_HAS(asm_error("TMATMUL <LB0:1, LB1:1, LB2:1, FP9>, T#1, U#1, ->ACC<1KB>"), "f.s:1:31: TMATMUL: bad type 'FP9'");
  // LLVM's FP8 / FPL8 / FP4 / FPL4 name other v0.56 types (spec 31 §3)
  EXPECT_HAS(asm_error("TMATMUL <LB0:1, LB1:1, LB2:1, FP8>, T#1, U#1, ->ACC<1KB>"), "f.s:1:31: TMATMUL: type 'FP8' is an LLVM spelling");
  EXPECT_HAS(asm_error("B.DATR INT9"), "f.s:1:8: B.DATR: bad type 'INT9'");
}
TEST(LinxAsm, ErrorReservedRegister) {
  EXPECT_HAS(asm_error("TMATMUL <LB0:R24, LB1:1, LB2:1, FP32>, T#1, U#1, ->ACC<1KB>"),
             "f.s:1:14: TMATMUL: reserved register 'R24'");
  EXPECT_HAS(asm_error("B.DIM r31, 0, ->LB0"), "f.s:1:7: B.DIM: reserved register 'r31'");
  EXPECT_HAS(asm_error("B.DIM q7, 0, ->LB0"), "f.s:1:7: B.DIM: unknown register 'q7'");
}
TEST(LinxAsm, ErrorImmOutOfRange) {
  EXPECT_HAS(asm_error("TMATMUL <LB0:65536, LB1:1, LB2:1, FP32>, T#1, U#1, ->ACC<1KB>"),
             "f.s:1:14: TMATMUL: dimension (a 16-bit lane bound) 65536 out of range 0..65535");
  EXPECT_HAS(asm_error("B.DIM zero, 131072, ->LB0"), "imm 131072 out of range 0..131071");
  EXPECT_HAS(asm_error("B.DIM a0, 0x20000, ->LB1"), "f.s:1:11: B.DIM: imm 0x20000 out of range");
  EXPECT_HAS(asm_error("B.IOD 1, 2, 32, ->0"), "f.s:1:13: B.IOD: d2 32 out of range 0..31");
  EXPECT_HAS(asm_error("B.IOT T#17, U#1"), "f.s:1:7: B.IOT: tile index in 'T#17' out of range 1..16");
}
TEST(LinxAsm, ErrorIllegalSize) {
  EXPECT_HAS(asm_error("TMATMUL <LB0:1, LB1:1, LB2:1, FP32>, T#1, U#1, ->ACC<48KB>"),
             "f.s:1:54: TMATMUL: Size '48KB' is not a legal value");
  EXPECT_HAS(asm_error("B.IOT T#1, last, ->ACC<16B>"), "Size '16B' is not a legal value");
  EXPECT_HAS(asm_error("B.IOT T#1, last, ->ACC<1024KB>"), "Size '1024KB' is not a legal value");
}
TEST(LinxAsm, ErrorMissingAcc) {
  EXPECT_HAS(asm_error("TMATMUL <LB0:1, LB1:1, LB2:1, FP32>, T#1, U#1"), "f.s:1:46: TMATMUL: missing ->ACC<Size>");
  EXPECT_HAS(asm_error("TMATMUL <LB0:1, LB1:1, LB2:1, FP32>, T#1, U#1, ->T<1KB>"),
             "destination must be ACC (results go only to ACC)");
}
TEST(LinxAsm, ErrorWrongOperandCount) {
  EXPECT_HAS(asm_error("TMATMUL.BIAS <LB0:1, LB1:1, LB2:1, FP32>, T#1, U#1, ->ACC<1KB>"),
             "f.s:1:43: TMATMUL.BIAS: wrong operand count: TMATMUL.BIAS takes 3 sources (A, B, Bias) and ->ACC<Size>, got 2");
  EXPECT_HAS(asm_error("TMATMUL <LB0:1, LB1:1, LB2:1, FP32>, T#1, U#1, N#1, ->ACC<1KB>"), "wrong operand count");
  EXPECT_HAS(asm_error("B.DIM a0, 1"), "f.s:1:12: B.DIM: wrong operand count: expected 3, got 2");
  EXPECT_HAS(asm_error("BSTOP 1"), "f.s:1:7: BSTOP: wrong operand count: expected 0, got 1");
  EXPECT_HAS(asm_error("B.IOT T#1, T#2, T#3"), "f.s:1:17: B.IOT: wrong operand count: B.IOT takes at most 2 sources");
}
TEST(LinxAsm, ErrorOtherMalformedLines) {
  EXPECT_HAS(asm_error("TMATMUL <LB0:1, LB2:1, FP32>, T#1, U#1, ->ACC<1KB>"), "f.s:1:9: TMATMUL: missing dimension LB1");
  EXPECT_HAS(asm_error("TMATMUL <LB0:1, LB1:1, LB2:1, FP32, T#1, U#1, ->ACC<1KB>"), "bad type 'T#1'");
  EXPECT_HAS(asm_error("TMATMUL <LB0:1, LB1:1, LB2:1, FP32>, T#1, X#1, ->ACC<1KB>"), "f.s:1:43: TMATMUL: bad tile operand 'X#1'");
  EXPECT_HAS(asm_error("TMATMUL.ACC <LB0:1, LB1:1, LB2:1, FP32>, T#1, U#1, T#2, ->ACC<1KB>"),
             "third operand of TMATMUL.ACC must be ACC");
  EXPECT_HAS(asm_error("B.DIM a0, 1, ->LB3"), "f.s:1:14: B.DIM: expected ->LB0, ->LB1 or ->LB2");
  EXPECT_HAS(asm_error("B.DATR FP16, foo=1"), "unknown B.DATR field 'foo'");
  EXPECT_HAS(asm_error("BSTOP $"), "f.s:1:7: unexpected character '$'");
  EXPECT_HAS(asm_error("123"), "f.s:1:1: expected a mnemonic");
}
TEST(LinxAsm, ErrorTrailingOperand) {
  // A token after a complete operand is named as such, at its own column (not "bad destination").
  EXPECT_HAS(asm_error("TMATMUL <LB0:1, LB1:1, LB2:1, FP32>, T#1, U#1, ->ACC<1KB> extra"),
             "f.s:1:59: TMATMUL: unexpected operand 'extra'");
  EXPECT_HAS(asm_error("B.IOT T#1, last, ->ACC<1KB> junk"), "f.s:1:29: B.IOT: unexpected operand 'junk'");
  EXPECT_HAS(asm_error("TMATMUL <LB0:1, LB1:1, LB2:1, FP32>, T#1 x, U#1, ->ACC<1KB>"),
             "f.s:1:42: TMATMUL: unexpected operand 'x'");
  EXPECT_HAS(asm_error("B.DIM a0, 1, ->LB0 zz"), "f.s:1:20: B.DIM: unexpected operand 'zz'");
  EXPECT_HAS(asm_error("B.IOD 1, 2, 3, ->4 5"), "f.s:1:20: B.IOD: unexpected operand '5'");
  EXPECT_HAS(asm_error("TMATMUL.ACC <LB0:1, LB1:1, LB2:1, FP32>, T#1, U#1, ACC y, ->ACC<1KB>"),
             "f.s:1:56: TMATMUL.ACC: unexpected operand 'y'");
}

// Template form of TMA, ACCCVT and TEPL blocks (docs/linx.md#template-form): known expansions.
TEST(LinxAsmBlockTemplate, ExpandsToTheRawWords) {
  // The manual's example: NORM layout (no B.DATR), base and stride registers, Col = LB2.
  EXPECT_EQ(assemble("TLOAD.NORM <LB0:16, LB1:128, LB2:16, FP16>, [a0, a1], ->T<4KB>"),
            (std::vector<uint32_t>{0x20011181, 0x01000043, 0x08001043, 0x01002043, 0x00310013, 0x30006013}));
  EXPECT_EQ(assemble("TLOAD.NORM <LB0:16, LB1:128, LB2:16, FP16>, [a0, a1], ->T<4KB>"),
            assemble("BSTART.TLOAD FP16\nB.DIM zero, 16, ->LB0\nB.DIM zero, 128, ->LB1\nB.DIM zero, 16, ->LB2\n"
                     "B.IOR a0, a1\nB.IOT last, ->T<4KB>"));
  EXPECT_EQ(disassemble(assemble("TLOAD.ND2NZ <LB0:32, LB1:a4+1, FP16, Min, rmode2>, [a0], ->T<1KB>")),
            "BSTART.TLOAD FP16\nB.DATR rmode=2, pad=2, layout=4\nB.DIM zero, 32, ->LB0\nB.DIM a4, 1, ->LB1\n"
            "B.IOR a0\nB.IOT last, ->T<1KB>\n");
  // TSTORE: one source, no destination (`B.IOT N#1, last` = 0x21C0D813, spec 31 §1).
  EXPECT_EQ(assemble("TSTORE <LB0:16, FP32>, N#1, [a3]"),
            (std::vector<uint32_t>{0x08111181, 0x01000043, 0x00028013, 0x21C0D813}));
  EXPECT_EQ(disassemble(assemble("TSTORE.NZ2ND <LB0:16, LB1:16, FP16>, T#1.reuse, [a3, a5]")),
            "BSTART.TSTORE FP16\nB.DATR layout=27\nB.DIM zero, 16, ->LB0\nB.DIM zero, 16, ->LB1\nB.IOR a3, a5\n"
            "B.IOT T#1.reuse, last\n");
  EXPECT_EQ(disassemble(assemble("TMOV <LB0:8, S8>, U#2, ->M<256B>")),
            "BSTART.TMOV S8\nB.DIM zero, 8, ->LB0\nB.IOT U#2, last, ->M<256B>\n");
  // ACCCVT: DstType is the B.DATR DataType; the scale is a bare register.
  EXPECT_EQ(disassemble(assemble("ACCCVT.NZ2ND <LB0:16, LB1:16, FP32, FP16>, ->T<512B>")),
            "BSTART.ACCCVT FP32\nB.DATR FP16, layout=27\nB.DIM zero, 16, ->LB0\nB.DIM zero, 16, ->LB1\n"
            "B.IOT last, ->T<512B>\n");
  EXPECT_EQ(disassemble(assemble("ACCCVT <LB0:16, LB1:a0, S32, S8, sat, rmode1>, a2, ->U<256B>")),
            "BSTART.ACCCVT S32\nB.DATR S8, sat=1, rmode=1\nB.DIM zero, 16, ->LB0\nB.DIM a0, 0, ->LB1\n"
            "B.IOR a2\nB.IOT last, ->U<256B>\n");
  // TEPL: mode 1 takes its scalar as a register (`BSTART.TEPL TMAXS, FP16` = 0x22121181).
  const auto tmaxs = assemble("TMAXS <LB0:16, LB1:16, FP16>, T#1, zero, ->T<512B>");
  EXPECT_EQ(tmaxs[0], 0x22121181u);
  EXPECT_EQ(disassemble(tmaxs),
            "BSTART.TEPL TMAXS, FP16\nB.DIM zero, 16, ->LB0\nB.DIM zero, 16, ->LB1\nB.IOR\nB.IOT T#1, last, ->T<512B>\n");
  EXPECT_EQ(disassemble(assemble("TADD <LB0:16, BF16, cmode3>, T#2.reuse, U#1, ->N<1KB>")),
            "BSTART.TEPL TADD, BF16\nB.DATR cmode=3\nB.DIM zero, 16, ->LB0\nB.IOT T#2.reuse, U#1, last, ->N<1KB>\n");
  // Registers 4..6 go to a second B.IOR, which continues the list (spec 31 §1).
  EXPECT_EQ(disassemble(assemble("TLOAD.NORM <LB0:a2+12, LB1:13, LB2:sp, FP32, Max>, [a1, a2, a3, a7], ->T<64KB>")),
            "BSTART.TLOAD FP32\nB.DATR pad=1\nB.DIM a2, 12, ->LB0\nB.DIM zero, 13, ->LB1\nB.DIM sp, 0, ->LB2\n"
            "B.IOR a1, a2, a3\nB.IOR a7\nB.IOT last, ->T<64KB>\n");
  for (const char* s : {"TSTORE <LB0:16, FP16>, T#1, [a1, zero, zero, a7]", "TSTORE <LB0:16, FP16>, T#1, [a1, zero, zero, zero]",
                        "TADDS <LB0:16, FP16>, T#1, a0, a1, a2, a3, a4, a5, ->T<512B>"})
    EXPECT_EQ(disassemble(assemble(s), true), std::string(s) + "\n");
  // Pad Zero is code 0: the same block as no B.DATR (TLOAD pads with zero bytes either way).
  EXPECT_EQ(assemble("TLOAD <LB0:16, FP16, Zero>, [a0], ->T<512B>"), assemble("TLOAD <LB0:16, FP16>, [a0], ->T<512B>"));
  // Lower case, no comma after '>', key=N options.
  EXPECT_EQ(assemble("tload.dn2zn <lb0:16, lb1:32, fp16 , pad=1, sat=1> [a0,a1] ,->u<1kb>"),
            assemble("TLOAD.DN2ZN <LB0:16, LB1:32, FP16, Max, sat>, [a0, a1], ->U<1KB>"));
}

// Every block kind x layouts x options: asm -> disasm --fold -> asm gives the same words, and
// the folded text is the template line itself.
TEST(LinxAsmBlockTemplate, EveryKindFoldsBack) {
  std::vector<std::string> lines;
  const char* tma_layouts[] = {"", ".ND2NZ", ".DN2NZ", ".ND2ZN", ".DN2ZN", ".NZ2ND", ".ZN2ND", ".NZ2DN", ".NN2ZZ"};
  const char* opts[] = {"", ", Max", ", Null", ", pad=7", ", rmode5", ", cmode4, sat", ", Min, cmode1, rmode6, sat"};
  for (const char* l : tma_layouts)
    for (const char* o : opts) {
      lines.push_back(std::string("TLOAD") + l + " <LB0:16, LB1:a0+2, LB2:32, FP16" + o + ">, [a1, a2], ->T<2KB>");
      lines.push_back(std::string("TSTORE") + l + " <LB0:s1, E4M3" + o + ">, U#3.reuse, [x3]");
      lines.push_back(std::string("TMOV") + l + " <LB0:7, LB2:8, S32" + o + ">, M#16, ->N<256B>");
      lines.push_back(std::string("ACCCVT") + l + " <LB0:16, LB1:48, FP32, BF16" + o + ">, ->T<2KB>");
      lines.push_back(std::string("ACCCVT") + l + " <LB0:16, LB1:48, U32" + o + ">, a7, ->S<4KB>");
    }
  const char* tepl[] = {"TADD", "TSUB", "TMAX", "TRELU", "TEXP", "TROWSUM", "TCVT", "TROWEXPAND", "TADDS", "TMAXS", "TSHRS"};
  for (const char* op : tepl)
    for (const char* o : opts) {
      lines.push_back(std::string(op) + " <LB0:16, LB1:16, FP16" + o + ">, T#1, T#2.reuse, ->T<512B>");
      lines.push_back(std::string(op) + " <LB0:16, S16" + o + ">, U#4, a0, ->U<1KB>");
      lines.push_back(std::string(op) + " <LB0:a0, LB2:a1+4, FP32" + o + ">, zero, ->ACC<1KB>");
    }
  for (const char* o : opts)  // TCVT's destination type (B.DATR DataType) folds as a second type
    lines.push_back(std::string("TCVT <LB0:16, LB1:16, FP32, FP16") + o + ">, U#1, ->T<512B>");
  for (const std::string& s : lines) {
    const auto w = assemble(s);
    EXPECT_EQ(disassemble(w, true), s + "\n");
    EXPECT_EQ(assemble(disassemble(w, true)), w) << s;
    EXPECT_EQ(assemble(disassemble(w)), w) << s;
  }
}

// A block that is not exactly a template expansion prints raw (folding it would change words).
TEST(LinxAsmBlockTemplate, NonTemplateBlocksStayRaw) {
  const char* blocks[] = {
      "BSTART.TLOAD FP16\nB.DIM zero, 16, ->LB1\nB.DIM zero, 16, ->LB0\nB.IOR a0\nB.IOT last, ->T<512B>",  // LB order
      "BSTART.TLOAD FP16\nB.DATR\nB.DIM zero, 16, ->LB0\nB.IOR a0\nB.IOT last, ->T<512B>",  // all-zero B.DATR
      "BSTART.TLOAD FP16\nB.DATR FP16\nB.DIM zero, 16, ->LB0\nB.IOR a0\nB.IOT last, ->T<512B>",  // DataType in TMA
      "BSTART.TLOAD FP16\nB.ARG ND2ZN.normal, FP16, Null\nB.DIM zero, 16, ->LB0\nB.IOR a0\nB.IOT last, ->T<512B>",
      "BSTART.TLOAD FP16\nB.DIM zero, 16, ->LB0\nB.IOR a0, ->a1\nB.IOT last, ->T<512B>",  // RegDst
      "BSTART.TLOAD FP16\nB.DIM zero, 16, ->LB0\nB.IOR a0\nB.IOT last, ->T<512B>\nB.DIM zero, 1, ->LB1",
      "BSTART.TLOAD FP16\nB.DIM zero, 16, ->LB0\nB.IOR a0\nB.IOT T#1, last, ->T<512B>",  // a source
      "BSTART.TSTORE FP16\nB.DIM zero, 16, ->LB0\nB.IOR a0\nB.IOT T#1, last, ->T<512B>",  // a destination
      "BSTART.TMOV FP16\nB.DIM zero, 16, ->LB0\nB.IOR a0\nB.IOT T#1, last, ->T<512B>",  // registers
      "BSTART.TEPL TADD, FP16\nB.DATR layout=4\nB.DIM zero, 16, ->LB0\nB.IOT T#1, T#2, last, ->T<512B>",
      "BSTART.TEPL TADD, FP16\nB.DIM zero, 16, ->LB0\nB.IOT T#1, T#2, ->T<512B>",  // no `last`
      "BSTART.TEPL TADD, FP16\nB.IOT T#1, T#2, last, ->T<512B>",  // no B.DIM
      "BSTART.ACCCVT FP32\nB.DIM zero, 16, ->LB0\nB.IOT last, ->T<512B>",  // no LB1
      "BSTART.ACCCVT FP32\nB.DIM zero, 16, ->LB0\nB.DIM zero, 16, ->LB1\nB.DIM zero, 16, ->LB2\nB.IOT last, ->T<512B>",
      "BSTART.TEPL TADD, FP16\nB.DIM zero, 65536, ->LB0\nB.IOT T#1, T#2, last, ->T<512B>",  // above a lane bound
      "BSTART.TLOAD FP16\nB.DATR layout=16\nB.DIM zero, 16, ->LB0\nB.IOR a0\nB.IOT last, ->T<512B>",  // reserved layout
      "BSTART.TLOAD FP16\nB.DIM zero, 16, ->LB0\nB.IOR a0\nB.IOR a1\nB.IOR a2\nB.IOT last, ->T<512B>",  // 3 B.IOR
  };
  for (const char* b : blocks) {
    const auto w = assemble(b);
    EXPECT_EQ(disassemble(w, true), disassemble(w)) << b;
    EXPECT_EQ(disassemble(w, true), std::string(b) + "\n");
  }
}

// Generated TMA / ACCCVT / TEPL templates: asm -> disasm (raw and folded) -> asm.
TEST(LinxAsmBlockTemplate, GeneratedProgramsRoundTrip) {
  std::mt19937 rng(31);
  const char* types[] = {"FP64", "FP32", "FP16", "BF16", "HiF8", "E4M3", "E2M1x2", "S32", "S8", "S4x2", "U16", "U4x2"};
  const char* regs[] = {"zero", "sp", "a0", "a7", "ra", "fp", "s1", "s8", "x0", "x3"};
  const char* sizes[] = {"32B", "256B", "1KB", "64KB", "512KB"};
  const char* dsts = "TUMN";
  auto pick = [&](auto& arr) { return arr[rng() % (sizeof(arr) / sizeof(arr[0]))]; };
  auto dim = [&]() -> std::string {
    switch (rng() % 3) {
      case 0: return std::to_string(rng() % 65536);
      case 1: return pick(regs);
      default: return std::string(pick(regs)) + "+" + std::to_string(rng() % 65536);
    }
  };
  auto tile = [&]() {
    return std::string(1, dsts[rng() % 4]) + "#" + std::to_string(1 + rng() % 16) + (rng() % 2 ? ".reuse" : "");
  };
  auto dest = [&]() { return std::string("->") + dsts[rng() % 4] + "<" + pick(sizes) + ">"; };
  auto options = [&]() {
    std::string o;
    static const char* const pads[] = {"Zero", "Max", "Min", "Null"};
    if (rng() % 2) o += std::string(", ") + pads[rng() % 4];
    if (rng() % 3 == 0) o += ", cmode" + std::to_string(rng() % 8);
    if (rng() % 3 == 0) o += ", rmode" + std::to_string(rng() % 8);
    if (rng() % 3 == 0) o += ", sat";
    return o;
  };
  auto layout = [&]() -> std::string {
    if (rng() % 3 == 0) return "";
    const char* n = tilesim::linx::enc::layout_name(rng() % 32);
    return n ? std::string(".") + n : "";
  };
  auto addr = [&]() {
    std::string a = std::string("[") + pick(regs);
    for (unsigned n = rng() % 6; n > 0; --n) a += std::string(", ") + pick(regs);  // 4..6: a second B.IOR
    return a + "]";
  };
  for (int t = 0; t < 400; ++t) {
    std::string dims = "LB0:" + dim();
    if (rng() % 2) dims += ", LB1:" + dim();
    std::string s;
    switch (rng() % 5) {
      case 0: s = "TLOAD" + layout() + " <" + dims + ", " + pick(types) + options() + ">, " + (rng() % 2 ? addr() + ", " : "") + dest(); break;
      case 1: s = "TSTORE" + layout() + " <" + dims + ", " + pick(types) + options() + ">, " + tile() + (rng() % 2 ? ", " + addr() : ""); break;
      case 2: s = "TMOV" + layout() + " <" + dims + (rng() % 2 ? ", LB2:" + dim() : "") + ", " + pick(types) + options() + ">, " + tile() + ", " + dest(); break;
      case 3:
        s = "ACCCVT" + layout() + " <LB0:" + dim() + ", LB1:" + dim() + ", " + pick(types) + (rng() % 2 ? std::string(", ") + pick(types) : "") +
            options() + ">, " + (rng() % 2 ? std::string(pick(regs)) + ", " : "") + dest();
        break;
      default: {
        std::string srcs;
        for (unsigned n = rng() % 3; n > 0; --n) srcs += tile() + ", ";
        s = std::string(tilesim::linx::enc::tepl_name(rng() % tilesim::linx::enc::kNumTepl)) + " <" + dims + ", " + pick(types) +
            options() + ">, " + srcs + (rng() % 2 ? std::string(pick(regs)) + ", " : "") + dest();
      }
    }
    const auto w = assemble(s);
    EXPECT_EQ(assemble(disassemble(w)), w) << s;
    EXPECT_EQ(assemble(disassemble(w, true)), w) << s;
    EXPECT_EQ(disassemble(w, true).find("BSTART"), std::string::npos) << s << "\n" << disassemble(w, true);
  }
}

// Malformed templates: file:line:col and what is wrong (docs/linx.md#assembly).
TEST(LinxAsmBlockTemplate, Errors) {
  EXPECT_HAS(asm_error("TLOAD.XX2NZ <LB0:16, FP16>, [a0], ->T<512B>"), "f.s:1:1: TLOAD.XX2NZ: unknown layout '.XX2NZ'");
  EXPECT_HAS(asm_error("TLOAD [a0], ->T<512B>"), "f.s:1:7: TLOAD: expected '<LB0:ValidCol");
  EXPECT_HAS(asm_error("TLOAD <LB1:16, FP16>, [a0], ->T<512B>"), "f.s:1:7: TLOAD: missing dimension LB0");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, LB0:8, FP16>, [a0], ->T<512B>"), "f.s:1:16: TLOAD: dimension LB0 given twice");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, LB3:8, FP16>, [a0], ->T<512B>"), "f.s:1:16: TLOAD: unknown dimension label 'LB3'");
  EXPECT_HAS(asm_error("ACCCVT <LB0:16, LB1:16, LB2:4, FP32>, ->T<512B>"), "f.s:1:25: ACCCVT: unknown dimension label 'LB2' (LB0, LB1)");
  EXPECT_HAS(asm_error("ACCCVT <LB0:16, FP32>, ->T<512B>"), "f.s:1:8: ACCCVT: missing dimension LB1");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16, FP32>, [a0], ->T<512B>"), "f.s:1:22: TLOAD: TLOAD takes one type in <...>, got a second 'FP32'");
  EXPECT_HAS(asm_error("ACCCVT <LB0:1, LB1:1, FP32, FP16, S8>, ->T<512B>"), "f.s:1:35: ACCCVT: ACCCVT takes SrcType[, DstType]");
  EXPECT_HAS(asm_error("TCVT <LB0:1, FP32, FP16, S8>, U#1, ->T<512B>"), "f.s:1:26: TCVT: TCVT takes SrcType[, DstType]");
  EXPECT_HAS(asm_error("TADD <LB0:1, FP32, FP16>, U#1, M#1, ->T<512B>"), "f.s:1:20: TADD: TADD takes one type in <...>, got a second 'FP16'");
  EXPECT_HAS(asm_error("TLOAD <LB0:16>, [a0], ->T<512B>"), "f.s:1:7: TLOAD: missing the type in <...>");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16, Max, Min>, [a0], ->T<512B>"), "f.s:1:27: TLOAD: option 'Min' given twice");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16, rmode8>, [a0], ->T<512B>"), "f.s:1:27: TLOAD: RMODE 8 out of range 0..7");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16, sat=2>, [a0], ->T<512B>"), "f.s:1:26: TLOAD: SAT 2 out of range 0..1");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16, foo=2>, [a0], ->T<512B>"), "f.s:1:22: TLOAD: unknown option 'foo'");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, sat, FP16>, [a0], ->T<512B>"), "f.s:1:21: TLOAD: types come before the options");
  EXPECT_HAS(asm_error("TLOAD <LB0:65536, FP16>, [a0], ->T<512B>"), "f.s:1:12: TLOAD: dimension (a 16-bit lane bound) 65536");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16>, [a0]"), "f.s:1:27: TLOAD: missing ->Q<Size> (TLOAD operands: [base[, stride]], ->Q<Size>)");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16>, T#1, [a0], ->T<512B>"), "f.s:1:23: TLOAD: TLOAD has no tile source");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16>, a0, ->T<512B>"), "f.s:1:23: TLOAD: expected a tile, '[base[, stride]]' or ->Q<Size>, got 'a0'");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16>, [a0, a1, a2, a3, a4, a5, a6], ->T<512B>"), "f.s:1:48: TLOAD: at most 6 registers (two B.IOR)");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16>, [a0 a1], ->T<512B>"), "f.s:1:27: TLOAD: expected ',' between registers");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16>, [a0,], ->T<512B>"), "f.s:1:27: TLOAD: expected a register before ']'");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16>, [a0, ->T<512B>"), "missing ']'");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16>, [q9], ->T<512B>"), "f.s:1:24: TLOAD: unknown register 'q9'");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16>, [a0], ->T<a0>"), "f.s:1:33: TLOAD: Size 'a0' is a register");
  EXPECT_HAS(asm_error("TLOAD <LB0:16, FP16>, [a0], ->T<512B>, [a1]"), "f.s:1:40: TLOAD: unexpected operand after the destination");
  EXPECT_HAS(asm_error("TSTORE <LB0:16, FP16>, T#1, [a0], ->T<512B>"), "f.s:1:35: TSTORE: TSTORE has no destination");
  EXPECT_HAS(asm_error("TSTORE <LB0:16, FP16>, [a0]"), "f.s:1:28: TSTORE: missing the source tile");
  EXPECT_HAS(asm_error("TSTORE <LB0:16, FP16>, T#1, T#2, [a0]"), "f.s:1:29: TSTORE: too many tile sources (at most 1)");
  EXPECT_HAS(asm_error("TMOV <LB0:16, FP16>, T#1, a0, ->U<512B>"), "f.s:1:27: TMOV: unexpected operand 'a0'");
  EXPECT_HAS(asm_error("TMOV <LB0:16, FP16>, T#1, [a0], ->U<512B>"), "f.s:1:27: TMOV: '[...]' (a memory address) only in TLOAD and TSTORE");
  EXPECT_HAS(asm_error("TADD <LB0:16, FP16>, T#1, T#2, T#3, ->U<512B>"), "f.s:1:32: TADD: too many tile sources (at most 2)");
  EXPECT_HAS(asm_error("TADDS <LB0:16, FP16>, a0, T#1, ->U<512B>"), "f.s:1:27: TADDS: tile sources come before the registers");
  EXPECT_HAS(asm_error("TADDS <LB0:16, FP16>, T#1, a0+1, ->U<512B>"), "f.s:1:30: TADDS: unexpected '+' after a register");
  EXPECT_HAS(asm_error("TADD.NZ2ND <LB0:16, FP16>, T#1, T#2, ->U<512B>"), "f.s:1:1: TADD.NZ2ND: unknown mnemonic");
  EXPECT_HAS(asm_error("ACCCVT <LB0:1, LB1:1, FP32>, T#1, ->T<512B>"), "f.s:1:30: ACCCVT: ACCCVT has no tile source");
  EXPECT_HAS(asm_error("BSTOP\nTEXP <LB0:1, FP32>, T#17, ->T<512B>"), "f.s:2:21: TEXP: tile index in 'T#17' out of range 1..16");
}
