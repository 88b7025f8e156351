// PTO-AS (spec 20 §6): the three spellings, both type forms, .arg/.target/alloc_tile/tassign,
// type agreement, and errors with file:line:column and the offending token.
#include "tilesim/pto/ptoas.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "tilesim/error.hpp"

using namespace tilesim::pto;

namespace {
tilesim::npy::Array f32(size_t r, size_t c, float (*f)(size_t, size_t)) {
  tilesim::npy::Array a;
  a.descr = "<f4";
  a.shape = {r, c};
  a.data.resize(r * c * 4);
  for (size_t i = 0; i < r; ++i)
    for (size_t j = 0; j < c; ++j) {
      const float v = f(i, j);
      std::memcpy(a.data.data() + (i * c + j) * 4, &v, 4);
    }
  return a;
}
float at(const tilesim::npy::Array& a, size_t i, size_t j) {
  float v;
  std::memcpy(&v, a.data.data() + (i * a.shape[1] + j) * 4, 4);
  return v;
}
const as::Output& out(const std::vector<as::Output>& o, const std::string& n) {
  for (const auto& x : o)
    if (x.name == n) return x;
  throw std::runtime_error("no output " + n);
}
std::string error_of(const std::string& text, const as::RunOptions& o = {}) {
  try {
    as::run(text, "t.pto", o);
  } catch (const tilesim::Error& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(PtoAs, ThreeSpellingsAgree) {
  const std::string prog = R"(
.arg %x : !pto.tile_buf<vec, 16x128xf32>          # full operand
.arg %s : !pto.tile_buf<vec, 16x1xf32, valid=16x1, blayout=col_major>
%a = pto.trowexpandmax %x, %s : !pto.tile<16x128xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x128xf32>
%b = trowexpandmax %x, %s : !pto.tile<16x128xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x128xf32>;
%c = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=128, v_row=16, v_col=128, blayout=row_major, slayout=none_box, fractal=512, pad=0>
pto.trowexpandmax ins(%x, %s : !pto.tile_buf<vec, 16x128xf32>, !pto.tile_buf<vec, 16x1xf32, blayout=col_major>) outs(%c : !pto.tile_buf<vec, 16x128xf32>)  // DPS
)";
  as::RunOptions o;
  o.inputs["x"] = f32(16, 128, [](size_t i, size_t j) { return float(j) - float(i); });
  o.inputs["s"] = f32(16, 1, [](size_t i, size_t) { return float(i); });
  const auto r = as::run(prog, "t.pto", o);
  ASSERT_EQ(r.size(), 5u);
  for (const char* n : {"a", "b", "c"}) {
    const auto& a = out(r, n).array;
    EXPECT_EQ(a.shape, (std::vector<size_t>{16, 128}));
    EXPECT_EQ(at(a, 3, 0), 3.0f);     // max(0 - 3, 3)
    EXPECT_EQ(at(a, 3, 100), 97.0f);  // max(100 - 3, 3)
  }
  EXPECT_EQ(at(out(r, "s").array, 5, 0), 5.0f);  // .args are returned too
}

TEST(PtoAs, ManualModeTassignAliasAndTarget) {
  const std::string prog = R"(
.target a5
.arg %x : !pto.tile_buf<vec, 8x16xbf16>
.arg %s : !pto.tile<8x16xbf16>
%y = pto.alloc_tile : !pto.tile_buf<vec, 8x16xbf16>
pto.tassign %x, @tile(0x1000)
pto.tassign %y, @tile(0x1000)     # y aliases x: in-place result visible through both
pto.trowexpandsub ins(%x, %s : !pto.tile_buf<vec, 8x16xbf16>, !pto.tile_buf<vec, 8x16xbf16>) outs(%x : !pto.tile_buf<vec, 8x16xbf16>)
)";
  as::RunOptions o;
  tilesim::npy::Array x;
  x.descr = "<u2";
  x.shape = {8, 16};
  x.data.assign(8 * 16 * 2, 0);
  for (size_t k = 0; k < 8 * 16; ++k) x.data[2 * k + 1] = 0x40;  // bf16 0x4000 = 2.0
  o.inputs["x"] = x;
  const auto r = as::run(prog, "t.pto", o);  // s zero-filled: 2 - 0 = 2 (mode 2, bf16 on a5)
  const auto& y = out(r, "y").array;
  EXPECT_EQ(y.descr, "<u2");
  EXPECT_EQ(y.data[1], 0x40);
  EXPECT_EQ(out(r, "y").dtype, "bf16");
  // The caller's target wins over .target: bf16 is not an a2a3 dtype.
  o.target = "a2a3";
  const std::string e = error_of(prog, o);
  EXPECT_NE(e.find("t.pto:8:1: TROWEXPANDSUB: dtype bf16 is not supported on target a2a3"),
            std::string::npos)
      << e;
}

TEST(PtoAs, DynamicValidFromCaller) {
  const std::string prog = R"(
.arg %x : !pto.tile_buf<vec, 8x16xf32, valid=?x?>
.arg %s : !pto.tile_buf<vec, 8x1xf32, valid=?x1, blayout=col_major>
.arg %d : !pto.tile_buf<vec, 8x16xf32, valid=?x?>
pto.trowexpandadd ins(%x, %s : !pto.tile_buf<vec, 8x16xf32, valid=?x?>, !pto.tile_buf<vec, 8x1xf32, valid=?x1, blayout=col_major>) outs(%d : !pto.tile_buf<vec, 8x16xf32, valid=?x?>)
)";
  as::RunOptions o;
  o.inputs["s"] = f32(8, 1, [](size_t, size_t) { return 1.0f; });
  o.valid["x"] = {2, 3};
  o.valid["s"] = {2, 1};
  o.valid["d"] = {2, 3};
  const auto r = as::run(prog, "t.pto", o);
  const auto& d = out(r, "d").array;
  EXPECT_EQ(at(d, 1, 2), 1.0f);
  EXPECT_EQ(at(d, 1, 3), 0.0f);  // outside the valid region: untouched
  EXPECT_EQ(at(d, 2, 0), 0.0f);
}

// Only '?' dimensions take the caller's valid shape; a valid shape for a name that is no .arg is an
// error, as an input for one is (spec 20 §6).
TEST(PtoAs, CallerValidShapeOnlyForDynamicArgs) {
  const std::string prog = ".arg %x : !pto.tile<16x8xf32>\n";
  as::RunOptions o;
  o.valid["zz"] = {1, 1};
  EXPECT_NE(error_of(prog, o).find("valid shape given for 'zz', which is not an .arg of the "
                                   "program [spec 20 §6]"),
            std::string::npos)
      << error_of(prog, o);
  as::RunOptions p;
  p.valid["x"] = {1, 1};
  EXPECT_NE(error_of(prog, p).find("caller valid shape 1x1 contradicts the declared static valid "
                                   "shape 16x8 (only '?' dimensions take the caller's)"),
            std::string::npos)
      << error_of(prog, p);
  p.valid["x"] = {16, 8};  // agreeing with the static shape: accepted
  EXPECT_EQ(error_of(prog, p), "(no error)");
  as::RunOptions q;
  q.valid["x"] = {4, 8};  // ?x8: the row count comes from the caller
  EXPECT_EQ(error_of(".arg %x : !pto.tile_buf<vec, 16x8xf32, valid=?x8>\n", q), "(no error)");
  q.valid["x"] = {4, 7};
  EXPECT_NE(error_of(".arg %x : !pto.tile_buf<vec, 16x8xf32, valid=?x8>\n", q)
                .find("contradicts the declared static valid shape ?x8"),
            std::string::npos);
}

TEST(PtoAs, TmpInIns) {
  const std::string prog = R"(
.arg %x : !pto.tile<16x8xf32>
.arg %s : !pto.tile<16x1xf32>
%t = pto.alloc_tile : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>
pto.tassign %t, @tile(0x0)
pto.tassign %x, @tile(0x400)
pto.trowexpandmul ins(%x, %s, %t : !pto.tile<16x8xf32>, !pto.tile<16x1xf32>, !pto.tile<16x1xf32>) outs(%x : !pto.tile<16x8xf32>)
)";
  as::RunOptions o;
  o.inputs["x"] = f32(16, 8, [](size_t, size_t) { return 3.0f; });
  o.inputs["s"] = f32(16, 1, [](size_t i, size_t) { return float(i); });
  const auto r = as::run(prog, "t.pto", o);
  EXPECT_EQ(at(out(r, "x").array, 4, 7), 12.0f);
  // tmp's start address is the buffer: its first 16 floats are UB bytes 0..63 = block 0 (s_0 x 8)
  // and block 1 (s_1 x 8), viewed through the 16x1 ColMajor tile.
  EXPECT_EQ(at(out(r, "t").array, 9, 0), 1.0f);
}

TEST(PtoAs, ParseErrorsCarryFileLineColumnAndToken) {
  struct Row {
    const char* text;
    const char* expect;
  };
  const Row rows[] = {
      {"%a = pto.trowexpandfoo %x, %y : !pto.tile<16x8xf32>, !pto.tile<16x1xf32> -> "
       "!pto.tile<16x8xf32>",
       "t.pto:1:6: unknown instruction, at 'pto.trowexpandfoo'"},
      {".arg %x : !pto.tile<16x8xf33>", "t.pto:1:21: unknown element type 'f33'"},
      {".arg %x : !pto.tile<16x8xf32", "t.pto:1:11: unterminated type"},
      {"\n\n.arg %x !pto.tile<16x8xf32>", "t.pto:3:9: expected ':', at '!pto.tile<16x8xf32>'"},
      {".arg %x : !pto.tile_buf<vec, 16x8xf32, colour=red>",
       "t.pto:1:40: unknown !pto.tile_buf key 'colour'"},
      {".arg %x : !pto.tile_buf<vec, 16x8xf32, blayout=diagonal>",
       "blayout must be row_major or col_major"},
      {"pto.tassign %x, @tile(0x10zz)", "t.pto:1:23: expected a UB byte address"},
      {".target a9", "t.pto:1:9: "},
      {"pto.trowexpandadd ins(%x, %y : !pto.tile<16x8xf32>, !pto.tile<16x1xf32>) outs(%d)",
       "t.pto:1:81: expected ':', at ')'"},
      {".arg %x : !pto.tile<16x8xf32> extra", "t.pto:1:31: unexpected trailing text, at 'extra'"},
      // A property given twice (a repeated key, or a key restating the compact shape/location).
      {".arg %x : !pto.tile_buf<vec, 16x128xf32, rows=8>",
       "t.pto:1:42: !pto.tile_buf gives rows twice, at 'rows=8'"},
      {".arg %x : !pto.tile_buf<vec, 16x8xf32, v_row=4, v_row=2>", "gives v_row twice"},
      {".arg %x : !pto.tile_buf<vec, 16x8xf32, v_col=4, valid=2x4>", "gives v_col twice"},
      {".arg %x : !pto.tile_buf<vec, 16x8xf32, loc=vec>", "gives loc twice"},
      {"$", "t.pto:1:1: unexpected character, at '$'"},
  };
  for (const Row& r : rows) {
    const std::string e = error_of(r.text);
    EXPECT_NE(e.find(r.expect), std::string::npos) << r.text << "\n -> " << e;
    EXPECT_NE(e.find("[spec 20 §6]"), std::string::npos) << e;
  }
}

TEST(PtoAs, SemanticErrors) {
  // Undefined tile, annotation disagreement, alignment at creation, an engine rule with position.
  EXPECT_NE(error_of("%a = pto.trowexpandadd %x, %y : !pto.tile<16x8xf32>, !pto.tile<16x1xf32> -> "
                     "!pto.tile<16x8xf32>")
                .find("t.pto:1:24: undefined tile '%x'"),
            std::string::npos);
  const std::string pre = ".arg %x : !pto.tile<16x8xf32>\n.arg %s : !pto.tile<16x1xf32>\n";
  std::string e = error_of(pre +
                           "%a = pto.trowexpandadd %x, %s : !pto.tile<16x8xf16>, "
                           "!pto.tile<16x1xf32> -> !pto.tile<16x8xf32>");
  EXPECT_NE(e.find("t.pto:3:33: type annotation of '%x' disagrees with the bound tile: dtype fp16 "
                   "vs tile's fp32"),
            std::string::npos)
      << e;
  e = error_of(pre +
               "%a = pto.trowexpandadd %x, %s : !pto.tile<16x8xf32>, !pto.tile_buf<vec, 16x1xf32> "
               "-> !pto.tile<16x8xf32>");
  EXPECT_NE(e.find("layout row_major vs tile's col_major"), std::string::npos) << e;
  // The box layout, fractal and pad of a !pto.tile_buf annotation are compared too.
  e = error_of(".arg %x : !pto.tile_buf<vec, 16x8xf32>\n.arg %s : !pto.tile<16x1xf32>\n"
               "%a = pto.trowexpandadd %x, %s : !pto.tile_buf<vec, 16x8xf32, slayout=row_major>, "
               "!pto.tile<16x1xf32> -> !pto.tile<16x8xf32>");
  EXPECT_NE(e.find("slayout/fractal/pad row_major/512/0 vs tile's none_box/512/0"),
            std::string::npos)
      << e;
  e = error_of(".arg %x : !pto.tile<16x12xf32>");
  EXPECT_NE(e.find("t.pto:1:1: .arg: %x (RowMajor) needs Cols*sizeof(T) % 32 == 0"),
            std::string::npos)
      << e;
  e = error_of(pre +
               ".arg %z : !pto.tile<16x16xf32>\npto.trowexpandadd ins(%x, %s : "
               "!pto.tile<16x8xf32>, !pto.tile<16x1xf32>) outs(%z : !pto.tile<16x16xf32>)");
  EXPECT_NE(e.find("t.pto:4:1: TROWEXPANDADD: no source matches dst's valid shape 16x16"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("(at 'pto.trowexpandadd')"), std::string::npos) << e;
  e = error_of(".arg %big : !pto.tile<65536x65536xf32>");
  EXPECT_NE(e.find("exceeds the 256 MiB limit"), std::string::npos) << e;
  e = error_of(pre + "%x = pto.alloc_tile : !pto.tile<16x8xf32>");
  EXPECT_NE(e.find("t.pto:3:1: redefinition of '%x'"), std::string::npos) << e;
  e = error_of(pre + "pto.tassign %x, @tile(0x1001)");
  EXPECT_NE(e.find("32-byte aligned"), std::string::npos) << e;
  as::RunOptions o;
  o.inputs["nope"] = f32(1, 1, [](size_t, size_t) { return 0.0f; });
  EXPECT_NE(error_of(pre, o).find("input 'nope' is not an .arg"), std::string::npos);
  o.inputs.clear();
  o.inputs["x"] = f32(16, 4, [](size_t, size_t) { return 0.0f; });
  EXPECT_NE(error_of(pre, o).find("input array shape 16x4 differs from the declared 16x8"),
            std::string::npos);
}

// Malformed text never crashes: random mutations of a valid program give a result or a
// tilesim::Error, nothing else (spec 00: malformed text gives errors, never crashes).
TEST(PtoAs, MutatedProgramsOnlyRaiseErrors) {
  const std::string base =
      ".arg %x : !pto.tile_buf<vec, 16x64xf32, valid=?x?>\n"
      ".arg %m : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=1, v_row=16, v_col=1, "
      "blayout=col_major>\n"
      "%y = pto.trowexpandsub %x, %m : !pto.tile<16x64xf32>, !pto.tile<16x1xf32> -> "
      "!pto.tile<16x64xf32>\n"
      "%t = pto.alloc_tile : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>\n"
      "pto.tassign %t, @tile(0x100)\n"
      "pto.trowexpandmax ins(%y, %m, %t : !pto.tile<16x64xf32>, !pto.tile<16x1xf32>, "
      "!pto.tile<16x1xf32>) "
      "outs(%y : !pto.tile<16x64xf32>)\n";
  EXPECT_NO_THROW(as::run(base, "t.pto", {}));
  std::mt19937 g(31);
  const char alphabet[] = "%@!<>=,:()?x0123456789abcdefvxipto._ \n#/;-";
  int errors = 0;
  for (int k = 0; k < 3000; ++k) {
    std::string s = base;
    const int edits = 1 + int(g() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = g() % s.size();
      switch (g() % 3) {
        case 0:
          s[at] = alphabet[g() % (sizeof(alphabet) - 1)];
          break;
        case 1:
          s.erase(at, 1 + g() % 8);
          break;
        default:
          s.insert(at, 1, alphabet[g() % (sizeof(alphabet) - 1)]);
          break;
      }
    }
    try {
      as::run(s, "t.pto", {});
    } catch (const tilesim::Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 1000);
}
