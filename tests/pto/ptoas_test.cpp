// PTO-AS (spec 20 §6): the three spellings, both type forms, .arg/.target/alloc_tile/tassign,
// type agreement, and errors with file:line:column and the offending token.
#include "tilesim/pto/ptoas.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cctype>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "tilesim/error.hpp"
#include "tilesim/npy.hpp"
#include "tilesim/pto/engine.hpp"
#include "tilesim/pto/frontend.hpp"

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
// These tests run programs whose .args they do not all bind: unbound ones start zero-filled (the
// CLI and Python reject them, docs/pto.md#running-a-program; PtoAs.EveryArgNeedsAnInput).
as::RunOptions lenient() {
  as::RunOptions o;
  o.zero_fill_unbound = true;
  return o;
}
std::string error_of(const std::string& text, const as::RunOptions& o = lenient()) {
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
  as::RunOptions o = lenient();
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
  as::RunOptions o = lenient();
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
  as::RunOptions o = lenient();
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
  as::RunOptions o = lenient();
  o.valid["zz"] = {1, 1};
  EXPECT_NE(error_of(prog, o).find("valid shape given for 'zz', which is not an .arg of the "
                                   "program [docs/pto.md#pto-as]"),
            std::string::npos)
      << error_of(prog, o);
  as::RunOptions p = lenient();
  p.valid["x"] = {1, 1};
  EXPECT_NE(error_of(prog, p).find("caller valid shape 1x1 contradicts the declared static valid "
                                   "shape 16x8 (only '?' dimensions take the caller's)"),
            std::string::npos)
      << error_of(prog, p);
  p.valid["x"] = {16, 8};  // agreeing with the static shape: accepted
  EXPECT_EQ(error_of(prog, p), "(no error)");
  as::RunOptions q = lenient();
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
  as::RunOptions o = lenient();
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
    EXPECT_NE(e.find("[docs/pto.md#"), std::string::npos) << e;
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
  as::RunOptions o = lenient();
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
  EXPECT_NO_THROW(as::run(base, "t.pto", lenient()));
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
      as::run(s, "t.pto", lenient());
    } catch (const tilesim::Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 1000);
}

// ---- every row of the instruction table (spec 21 §2) through PTO-AS ----

namespace {

using tilesim::pto::InstrInfo;
using tilesim::pto::Kind;

// The PTO-AS name of a dtype ("f32", "i16", "ui8", ...).
std::string as_type(Elem e) {
  switch (e) {
    case Elem::f16: return "f16";
    case Elem::bf16: return "bf16";
    case Elem::f32: return "f32";
    case Elem::s8: return "i8";
    case Elem::s16: return "i16";
    case Elem::s32: return "i32";
    case Elem::s64: return "i64";
    case Elem::u8: return "ui8";
    case Elem::u16: return "ui16";
    case Elem::u32: return "ui32";
    case Elem::u64: return "ui64";
  }
  return "?";
}

// A dtype the instruction takes on cpu (the union): fp32 when it can, else s32, s16, the first.
Elem pick_dtype(const InstrInfo& info) {
  const uint16_t m = uint16_t(info.a2a3 | info.a5);
  for (Elem e : {Elem::f32, Elem::s32, Elem::s16})
    if (m & (1u << unsigned(e))) return e;
  for (int e = 0; e < tilesim::pto::kNumElems; ++e)
    if (m & (1u << e)) return Elem(e);
  return Elem::f32;
}

// Deterministic input arrays: no zeros (divisors, integer TRECIP), small magnitudes.
tilesim::npy::Array input(Elem e, size_t r, size_t c, int salt) {
  tilesim::npy::Array a;
  a.descr = as::carrier_descr(tilesim::pto::elem_name(e));
  a.shape = {r, c};
  const size_t sz = tilesim::pto::elem_size(e);
  a.data.assign(r * c * sz, 0);
  for (size_t i = 0; i < r * c; ++i) {
    int v = int((i * 7 + size_t(salt) * 3) % 13) - 6;
    if (v == 0) v = 7;
    if (salt == 2) v = 1 + int(i * 7 % 5);  // second operands (divisors, shift counts): 1..5
    if (e == Elem::u8 || e == Elem::u16 || e == Elem::u32 || e == Elem::u64) v = v < 0 ? -v : v;
    uint64_t code;
    if (e == Elem::f32) {
      const float f = float(v) + 0.25f;
      code = std::bit_cast<uint32_t>(f);
    } else if (e == Elem::f16 || e == Elem::bf16) {
      code = e == Elem::f16 ? 0x3C00 : 0x3F80;  // 1.0
    } else {
      code = uint64_t(int64_t(v));
    }
    std::memcpy(a.data.data() + i * sz, &code, sz);
  }
  return a;
}

struct Spelled {
  std::string args;                 // .arg lines
  std::string ins, types;           // operands / their types
  std::string attrs;                // "" or " {...}"
  std::string dst_type;             // the result's !pto.tile type
  std::string dst_buf;              // the DPS outs tile_buf type
  std::map<std::string, tilesim::npy::Array> inputs;
};

// The operands of one instruction of each kind (16x32 tiles; scalars as literals).
Spelled spell(const InstrInfo& info) {
  const Elem e = pick_dtype(info);
  const std::string t = as_type(e);
  const std::string full = "!pto.tile<16x32x" + t + ">";
  const std::string full_buf = "!pto.tile_buf<vec, 16x32x" + t + ">";
  Spelled s;
  const auto arg = [&](const std::string& n, const std::string& ty, Elem de, size_t r, size_t c,
                       int salt) {
    s.args += ".arg %" + n + " : " + ty + "\n";
    s.inputs[n] = input(de, r, c, salt);
  };
  const auto two_src = [&] {
    arg("a", full, e, 16, 32, 1);
    arg("b", full, e, 16, 32, 2);
    s.ins = "%a, %b";
    s.types = full + ", " + full;
  };
  s.dst_type = full;
  s.dst_buf = full_buf;
  switch (info.kind) {
    default:  // memory, movement and matrix kinds: not in the .arg form
      break;
    case Kind::Binary:
      two_src();
      break;
    case Kind::BinaryTmp:
      two_src();
      arg("t", "!pto.tile_buf<vec, 16x64x" + t + ">", e, 16, 64, 3);
      s.ins += ", %t";
      s.types += ", !pto.tile<16x64x" + t + ">";
      break;
    case Kind::Unary:
    case Kind::UnaryRsqrt:
      arg("a", full, e, 16, 32, 1);
      s.ins = "%a";
      s.types = full;
      break;
    case Kind::Scalar:
    case Kind::LeakyRelu:
    case Kind::Axpy:
    case Kind::ScalarDiv:
      arg("a", full, e, 16, 32, 1);
      s.ins = "%a, 3";
      s.types = full + ", " + t;
      break;
    case Kind::ScalarTmp:
      arg("a", full, e, 16, 32, 1);
      arg("t", full, e, 16, 32, 3);
      s.ins = "%a, 3, %t";
      s.types = full + ", " + t + ", " + full;
      break;
    case Kind::ExpandScalar:
      s.ins = "-2";
      s.types = t;
      break;
    case Kind::Compare:
    case Kind::CompareScalar:
      if (info.kind == Kind::Compare) {
        two_src();
      } else {
        arg("a", full, e, 16, 32, 1);
        s.ins = "%a, 2";
        s.types = full + ", " + t;
      }
      s.attrs = " {cmpMode = #pto<cmp lt>}";
      s.dst_type = "!pto.tile<16x32xui8>";
      s.dst_buf = "!pto.tile_buf<vec, 16x32xui8>";
      break;
    case Kind::Select:
    case Kind::SelectScalar:
      arg("m", "!pto.tile<16x32xui8>", Elem::u8, 16, 32, 4);
      arg("a", full, e, 16, 32, 1);
      if (info.kind == Kind::Select) {
        arg("b", full, e, 16, 32, 2);
        s.ins = "%m, %a, %b";
        s.types = "!pto.tile<16x32xui8>, " + full + ", " + full;
      } else {
        s.ins = "%m, %a, 5";
        s.types = "!pto.tile<16x32xui8>, " + full + ", " + t;
      }
      break;
    case Kind::RowReduce:
    case Kind::RowArg:
      arg("a", full, e, 16, 32, 1);
      s.ins = "%a";
      s.types = full;
      s.dst_type = info.kind == Kind::RowArg ? "!pto.tile<16x1xi32>" : "!pto.tile<16x1x" + t + ">";
      s.dst_buf = info.kind == Kind::RowArg
                      ? "!pto.tile_buf<vec, 16x1xi32, blayout=col_major>"
                      : "!pto.tile_buf<vec, 16x1x" + t + ", blayout=col_major>";
      break;
    case Kind::ColReduce:
    case Kind::ColArg:
      arg("a", full, e, 16, 32, 1);
      s.ins = "%a";
      s.types = full;
      s.dst_type = info.kind == Kind::ColArg ? "!pto.tile<1x32xi32>" : "!pto.tile<1x32x" + t + ">";
      s.dst_buf = info.kind == Kind::ColArg ? "!pto.tile_buf<vec, 1x32xi32>"
                                            : "!pto.tile_buf<vec, 1x32x" + t + ">";
      break;
    case Kind::RowExpand:
      arg("a", "!pto.tile<16x1x" + t + ">", e, 16, 1, 1);
      s.ins = "%a";
      s.types = "!pto.tile<16x1x" + t + ">";
      break;
    case Kind::ColExpand:
      arg("a", "!pto.tile<1x32x" + t + ">", e, 1, 32, 1);
      s.ins = "%a";
      s.types = "!pto.tile<1x32x" + t + ">";
      break;
    case Kind::ColExpandOp:
      arg("a", full, e, 16, 32, 1);
      arg("b", "!pto.tile<1x32x" + t + ">", e, 1, 32, 2);
      s.ins = "%a, %b";
      s.types = full + ", !pto.tile<1x32x" + t + ">";
      break;
    case Kind::Convert:
      arg("a", full, e, 16, 32, 1);
      s.ins = "%a";
      s.types = full;
      s.attrs = " {rmode = #pto<round_mode FLOOR>}";
      s.dst_type = "!pto.tile<16x32xf16>";
      s.dst_buf = "!pto.tile_buf<vec, 16x32xf16>";
      break;
  }
  return s;
}

// The three spellings of one instruction: SSA with and without "pto.", and DPS into an alloc_tile.
std::string three_spellings(const InstrInfo& info, const Spelled& s) {
  std::string n = info.name;
  for (char& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
  std::string p = ".target cpu\n" + s.args;
  p += "%r1 = pto." + n + " " + s.ins + s.attrs + " : " + s.types + " -> " + s.dst_type + "\n";
  p += "%r2 = " + n + " " + s.ins + s.attrs + " : (" + s.types + ") -> " + s.dst_type + "\n";
  p += "%r3 = pto.alloc_tile : " + s.dst_buf + "\n";
  p += "pto." + n + " ins(" + s.ins + s.attrs + " : " + s.types + ") outs(%r3 : " + s.dst_buf +
       ")\n";
  return p;
}

}  // namespace

// Every row of the table parses and runs in the three spellings, which give the same bits.
TEST(PtoAs, EveryInstructionInAllThreeSpellings) {
  int ran = 0;
  for (int i = 0; i < tilesim::pto::num_instrs(); ++i) {
    const InstrInfo& info = tilesim::pto::instr_info(tilesim::pto::Instr(i));
    if (!tilesim::pto::is_vector_kind(info.kind)) continue;
    const Spelled s = spell(info);
    const std::string prog = three_spellings(info, s);
    as::RunOptions o = lenient();
    o.inputs = s.inputs;
    std::vector<as::Output> r;
    try {
      r = as::run(prog, "t.pto", o);
    } catch (const tilesim::Error& e) {
      ADD_FAILURE() << info.name << ": " << e.what() << "\n" << prog;
      continue;
    }
    ++ran;
    const auto& r1 = out(r, "r1").array;
    const auto& r2 = out(r, "r2").array;
    const auto& r3 = out(r, "r3").array;
    EXPECT_EQ(r1.data, r2.data) << info.name;
    // The DPS destination is the whole tile (valid = its shape); the SSA result's valid region is
    // the one Python's dst=None would have: compare what both wrote, the SSA region.
    ASSERT_EQ(r1.shape, r3.shape) << info.name;
    EXPECT_EQ(r1.data, r3.data) << info.name << "\n" << prog;
  }
  int vector_rows = 0;
  for (int i = 0; i < tilesim::pto::num_instrs(); ++i)
    vector_rows += tilesim::pto::is_vector_kind(tilesim::pto::instr_info(tilesim::pto::Instr(i)).kind);
  EXPECT_EQ(ran, vector_rows);
}

namespace {
template <class T>
T elem_at(const tilesim::npy::Array& a, size_t i, size_t j) {
  T v;
  std::memcpy(&v, a.data.data() + (i * a.shape[1] + j) * sizeof(T), sizeof(T));
  return v;
}
}  // namespace

// Scalars are literals read as their tile's dtype; attributes in PTOAS's spellings; the value +
// index form of the arg reductions has two outs; TDIVS takes the scalar first too.
TEST(PtoAs, ScalarsAttributesAndForms) {
  const std::string prog = R"(
.target a5
.arg %x : !pto.tile<8x8xf32>
.arg %h : !pto.tile_buf<vec, 8x16xbf16>
.arg %i : !pto.tile<8x8xi32>
%a = pto.tadds %x, -1.5 : !pto.tile<8x8xf32>, f32 -> !pto.tile<8x8xf32>
%d = pto.tdivs 1, %x : f32, !pto.tile<8x8xf32> -> !pto.tile<8x8xf32>      // scalar / tile
%e = pto.texpands 0x3F80 : bf16 -> !pto.tile<8x16xbf16>                   # a code: bf16 1.0
%f = pto.texpands 0x1.8p1 : f32 -> !pto.tile<8x8xf32>                     # hex float 3.0
%g = pto.tadds %i, 0xFFFFFFFF : !pto.tile<8x8xi32>, i32 -> !pto.tile<8x8xi32>  # bit pattern: -1
%m = pto.tcmps %x, 2.0 {cmpMode = #pto.cmp<GE>} : (!pto.tile<8x8xf32>, f32) -> !pto.tile<8x8xui32>
%c = pto.tcvt %x {rmode = #pto<round_mode CAST_FLOOR>, sat_mode = #pto<saturation_mode ON>} : !pto.tile<8x8xf32> -> !pto.tile<8x8xi32>
%v = pto.alloc_tile : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>
%k = pto.alloc_tile : !pto.tile_buf<vec, 8x1xi32, blayout=col_major>
pto.trowargmax ins(%x : !pto.tile<8x8xf32>) outs(%v, %k : !pto.tile<8x1xf32>, !pto.tile<8x1xi32>)
%l = pto.tlrelu %x, 0.5 : !pto.tile<8x8xf32>, f32 -> !pto.tile<8x8xf32>
)";
  as::RunOptions o = lenient();
  o.inputs["x"] = f32(8, 8, [](size_t i, size_t j) { return float(j) - float(i) + 0.5f; });
  const auto r = as::run(prog, "t.pto", o);
  EXPECT_EQ(at(out(r, "a").array, 0, 3), 2.0f);         // 3.5 - 1.5
  EXPECT_EQ(at(out(r, "d").array, 0, 1), 1.0f / 1.5f);  // 1 / 1.5, correctly rounded
  EXPECT_EQ(elem_at<uint16_t>(out(r, "e").array, 7, 15), 0x3F80);
  EXPECT_EQ(at(out(r, "f").array, 2, 2), 3.0f);
  EXPECT_EQ(elem_at<int32_t>(out(r, "g").array, 0, 0), -1);  // 0 + (-1)
  // Row 0 is 0.5 1.5 2.5 ... 7.5: GE 2 from column 2 on, packed into bit j of a u32 (a5).
  EXPECT_EQ(elem_at<uint32_t>(out(r, "m").array, 0, 0), 0xFCu);
  EXPECT_EQ(out(r, "m").array.shape, (std::vector<size_t>{8, 8}));
  EXPECT_EQ(elem_at<int32_t>(out(r, "c").array, 1, 0), -1);  // floor(-0.5)
  EXPECT_EQ(elem_at<int32_t>(out(r, "k").array, 3, 0), 7);   // the last column is each row's max
  EXPECT_EQ(at(out(r, "v").array, 3, 0), 4.5f);
  EXPECT_EQ(at(out(r, "l").array, 1, 0), -0.25f);  // -0.5 * 0.5
}

// TCOLSUM's tmp form with isBinary (PTOAS: the dictionary inside ins), the reductions without a
// tmp operand (a scratch one is passed), TRSQRT with and without tmp, TXOR without tmp.
TEST(PtoAs, TmpForms) {
  const std::string prog = R"(
.arg %x : !pto.tile<16x8xf32>
.arg %t : !pto.tile<16x8xf32>
.arg %i : !pto.tile<16x8xi32>
%s1 = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
pto.tcolsum ins(%x, %t {isBinary = true} : !pto.tile<16x8xf32>, !pto.tile<16x8xf32>) outs(%s1 : !pto.tile<1x8xf32>)
%s2 = pto.tcolsum %x : !pto.tile<16x8xf32> -> !pto.tile<1x8xf32>
%r1 = pto.trowsum %x : !pto.tile<16x8xf32> -> !pto.tile<16x1xf32>
%r2 = pto.trowsum %x, %t : !pto.tile<16x8xf32>, !pto.tile<16x8xf32> -> !pto.tile<16x1xf32>
%q = pto.trsqrt %x : !pto.tile<16x8xf32> -> !pto.tile<16x8xf32>
%o = pto.txor %i, %i : !pto.tile<16x8xi32>, !pto.tile<16x8xi32> -> !pto.tile<16x8xi32>
)";
  as::RunOptions o = lenient();
  o.inputs["x"] = f32(16, 8, [](size_t i, size_t j) { return float(i + j + 1); });
  const auto r = as::run(prog, "t.pto", o);
  EXPECT_EQ(at(out(r, "s1").array, 0, 2), 16.0f * 3 + 120.0f);  // sum over i of (i + 3)
  EXPECT_EQ(out(r, "s1").array.data, out(r, "s2").array.data);
  EXPECT_EQ(at(out(r, "r1").array, 2, 0), 3.0f * 8 + 28.0f);
  EXPECT_EQ(out(r, "r1").array.data, out(r, "r2").array.data);
  EXPECT_EQ(at(out(r, "q").array, 3, 0), 0.5f);  // 1/sqrt(4)
}

TEST(PtoAs, InstructionParseErrors) {
  struct Row {
    const char* text;
    const char* expect;
  };
  const std::string pre =
      ".arg %x : !pto.tile<16x8xf32>\n.arg %y : !pto.tile<16x8xf32>\n.arg %i : "
      "!pto.tile<16x16xi16>\n";
  const Row rows[] = {
      {"%a = pto.tfoo %x : !pto.tile<16x8xf32> -> !pto.tile<16x8xf32>",
       "t.pto:4:6: unknown instruction, at 'pto.tfoo'"},
      {"%a = pto.TADD %x, %y : !pto.tile<16x8xf32>, !pto.tile<16x8xf32> -> !pto.tile<16x8xf32>",
       "t.pto:4:6: unknown instruction, at 'pto.TADD'"},  // op names are lower case
      {"tadd ins(%x, %y : !pto.tile<16x8xf32>, !pto.tile<16x8xf32>) outs(%x : !pto.tile<16x8xf32>)",
       "t.pto:4:1: unknown instruction, at 'tadd'"},  // the DPS spelling needs "pto."
      {"%a = pto.tadd %x : !pto.tile<16x8xf32> -> !pto.tile<16x8xf32>",
       "t.pto:4:6: pto.tadd takes (%src0, %src1), got (%x), at 'pto.tadd'"},
      {"%a = pto.tadds %x, %y : !pto.tile<16x8xf32>, !pto.tile<16x8xf32> -> !pto.tile<16x8xf32>",
       "pto.tadds takes (%src, SCALAR), got (%x, %y)"},
      {"%a = pto.tdivs 2, 3 : f32, f32 -> !pto.tile<16x8xf32>",
       "pto.tdivs takes (%src, SCALAR) or (SCALAR, %src), got (2, 3)"},
      {"%a = pto.tsels %x, %y : !pto.tile<16x8xf32>, !pto.tile<16x8xf32> -> !pto.tile<16x8xf32>",
       "takes (%mask, %src, SCALAR) or (%mask, %src, %tmp, SCALAR)"},
      {"%a = pto.tadds %i, 70000 : !pto.tile<16x16xi16>, i16 -> !pto.tile<16x16xi16>",
       "t.pto:4:20: TADDS: scalar 70000 is out of range for s16 (-32768..32767)"},
      {"%a = pto.tadds %i, 2.5 : !pto.tile<16x16xi16>, i16 -> !pto.tile<16x16xi16>",
       "an s16 scalar must be an integer, got '2.5'"},
      {"%a = pto.tadds %i, 0x1FFFF : !pto.tile<16x16xi16>, i16 -> !pto.tile<16x16xi16>",
       "hex scalar '0x1FFFF' does not fit the 16 bits of s16"},
      {"%a = pto.tadds %x, 1.5x : !pto.tile<16x8xf32>, f32 -> !pto.tile<16x8xf32>",
       "expected a number for a fp32 scalar, got '1.5x'"},
      {"%a = pto.tadds %x, 1.5 : !pto.tile<16x8xf32>, f16 -> !pto.tile<16x8xf32>",
       "t.pto:4:47: the scalar is read as fp32, the dtype of its tile; its type fp16 differs, at "
       "'f16'"},
      {"%a = pto.tadds %x, 1.5 : !pto.tile<16x8xf32>, !pto.tile<16x8xf32> -> !pto.tile<16x8xf32>",
       "expected the scalar's element type (f32, i16, ...)"},
      {"%a = pto.tadd %x, %y {cmpMode = #pto<cmp lt>} : !pto.tile<16x8xf32>, !pto.tile<16x8xf32> "
       "-> !pto.tile<16x8xf32>",
       "t.pto:4:23: unknown attribute 'cmpMode' for pto.tadd (it takes none)"},
      {"%a = pto.tcmp %x, %y {cmpMode = #pto<cmp xx>} : !pto.tile<16x8xf32>, !pto.tile<16x8xf32> "
       "-> !pto.tile<16x8xui8>",
       "unknown compare mode 'xx' (EQ NE LT LE GT GE"},
      {"%a = pto.tcmp %x, %y {cmpMode = #pto<round_mode lt>} : !pto.tile<16x8xf32>, "
       "!pto.tile<16x8xf32> -> !pto.tile<16x8xui8>",
       "expected #pto<cmp VALUE> or #pto.cmp<VALUE>"},
      {"%a = pto.tcmp %x, %y {cmpMode = #pto<cmp lt>, cmpMode = #pto<cmp gt>} : "
       "!pto.tile<16x8xf32>, !pto.tile<16x8xf32> -> !pto.tile<16x8xui8>",
       "attribute 'cmpMode' given twice"},
      {"%a = pto.tcvt %x {rmode = #pto<round_mode SIDEWAYS>} : !pto.tile<16x8xf32> -> "
       "!pto.tile<16x8xi32>",
       "unknown rounding mode 'SIDEWAYS'"},
      {"%a = pto.tcvt %x {sat_mode = #pto<saturation_mode MAYBE>} : !pto.tile<16x8xf32> -> "
       "!pto.tile<16x8xi32>",
       "unknown saturation mode 'MAYBE'"},
      {"%a = pto.tcmp %x, %y {cmpMode = #pto<cmp lt> : !pto.tile<16x8xf32>, !pto.tile<16x8xf32> "
       "-> !pto.tile<16x8xui8>",
       "expected '}'"},
      {"%a = pto.tcmp %x, %y {cmpMode = #pto<cmp lt : !pto.tile<16x8xf32>",
       "unterminated attribute value (missing '>')"},
      {"pto.tcolsum ins(%x {isBinary = true} : !pto.tile<16x8xf32>) outs(%y : !pto.tile<1x8xf32>)",
       "isBinary = true needs the tmp form"},
      {"pto.tcolmax ins(%x, %y : !pto.tile<16x8xf32>, !pto.tile<16x8xf32>) outs(%y : "
       "!pto.tile<1x8xf32>)",
       "pto.tcolmax takes (%src), got (%x, %y)"},  // only TCOLSUM has a tmp form
      {"pto.tadd ins(%x, %y : !pto.tile<16x8xf32>, !pto.tile<16x8xf32>) outs(%x, %y : "
       "!pto.tile<16x8xf32>, !pto.tile<16x8xf32>)",
       "t.pto:4:74: one destination expected, at '%y'"},
      {"pto.tcmp ins(%x, %y {cmpMode = #pto<cmp lt>} : !pto.tile<16x8xf32>, !pto.tile<16x8xf32>) "
       "outs(%x : !pto.tile<16x8xui8>) {cmpMode = #pto<cmp gt>}",
       "a second attribute dictionary, at '{'"},
      {"%a = pto.tadd %x, $ : !pto.tile<16x8xf32>", "t.pto:4:19: unexpected character, at '$'"},
      {"%a = pto.tadd %x, : !pto.tile<16x8xf32>",
       "expected a tile operand '%name' or a scalar literal, at ':'"},
      {"7.5e+3", "t.pto:4:1: expected a statement, at '7.5e+3'"},
      {"-inf", "t.pto:4:1: expected a statement, at '-inf'"},
  };
  for (const Row& r : rows) {
    const std::string e = error_of(pre + r.text);
    EXPECT_NE(e.find(r.expect), std::string::npos) << r.text << "\n -> " << e;
    EXPECT_NE(e.find("[docs/pto.md#"), std::string::npos) << e;
  }
}

// Nothing runs when any line is invalid: the engine rejection of line 3 would come first if the
// program ran line by line; the parse error of line 4 is what is reported.
TEST(PtoAs, NothingRunsWhenAnyLineIsInvalid) {
  const std::string prog =
      ".arg %x : !pto.tile<16x8xf32>\n.arg %y : !pto.tile<16x16xf32>\n"
      "%a = pto.tadd %x, %y : !pto.tile<16x8xf32>, !pto.tile<16x16xf32> -> !pto.tile<16x8xf32>\n"
      "%b = pto.tadds %x, nope : !pto.tile<16x8xf32>, f32 -> !pto.tile<16x8xf32>\n";
  const std::string e = error_of(prog);
  EXPECT_NE(e.find("t.pto:4:20: expected a tile operand '%name' or a scalar literal, at 'nope'"),
            std::string::npos)
      << e;
  // Engine rules keep the statement's position and name the instruction.
  const std::string e2 = error_of(prog.substr(0, prog.rfind("%b")));
  EXPECT_NE(e2.find("t.pto:3:6: TADD: "), std::string::npos) << e2;
  EXPECT_NE(e2.find("(at 'pto.tadd')"), std::string::npos) << e2;
}

// The attribute spellings accepted (docs/pto.md#pto-as): PTOAS's #pto<cmp lt> (its enum prints
// lower case), the pto-isa pages' #pto.cmp<LT>, the PTO IR manual's less_than, the dictionary
// inside ins(...) or after outs(...); absent, cmpMode is EQ and rmode CAST_RINT (PTOAS defaults).
TEST(PtoAs, AttributeSpellings) {
  const std::string ty = "!pto.tile<8x8xf32>, !pto.tile<8x8xf32>";
  std::string prog = ".arg %x : !pto.tile<8x8xf32>\n.arg %y : !pto.tile<8x8xf32>\n";
  const char* spellings[] = {"#pto<cmp lt>", "#pto<cmp LT>", "#pto.cmp<lt>", "#pto.cmp<LT>",
                             "#pto<cmp less_than>", "#pto<cmp CmpMode::LT>"};
  int k = 0;
  for (const char* sp : spellings)
    prog += fmt::format("%m{} = pto.tcmp %x, %y {{cmpMode = {}}} : {} -> !pto.tile<8x32xui8>\n",
                        k++, sp, ty);
  prog += "%d = pto.alloc_tile : !pto.tile_buf<vec, 8x32xui8, valid=8x1>\n";
  prog += "pto.tcmp ins(%x, %y : " + ty +
          ") outs(%d : !pto.tile_buf<vec, 8x32xui8, valid=8x1>) {cmpMode = #pto<cmp lt>}  # ok\n";
  prog += "%eq = pto.tcmp %x, %y : " + ty + " -> !pto.tile<8x32xui8>\n";
  prog += "%c1 = pto.tcvt %x {rmode = #pto<round_mode CAST_RINT>} : !pto.tile<8x8xf32> -> "
          "!pto.tile<8x8xi32>\n";
  prog += "%c2 = pto.tcvt %x : !pto.tile<8x8xf32> -> !pto.tile<8x8xi32>\n";
  prog += "%c3 = pto.tcvt %x {rmode = #pto.round_mode<rint>} : !pto.tile<8x8xf32> -> "
          "!pto.tile<8x8xi32>\n";
  as::RunOptions o = lenient();
  o.inputs["x"] = f32(8, 8, [](size_t i, size_t j) { return float(j) + 0.5f * float(i); });
  o.inputs["y"] = f32(8, 8, [](size_t, size_t) { return 3.0f; });
  const auto r = as::run(prog, "t.pto", o);
  const auto& m0 = out(r, "m0").array;
  EXPECT_EQ(elem_at<uint8_t>(m0, 0, 0), 0x07);  // row 0: 0 1 2 < 3
  EXPECT_EQ(elem_at<uint8_t>(m0, 2, 0), 0x03);  // row 2: 1 2 < 3, 3 is not
  for (int i = 1; i < k; ++i) {
    std::string name = "m";  // not "m" + to_string(i): GCC 12's -Wrestrict false positive (PR105329)
    name += std::to_string(i);
    EXPECT_EQ(out(r, name).array.data, m0.data) << i;
  }
  EXPECT_EQ(out(r, "d").array.data, m0.data);
  EXPECT_EQ(elem_at<uint8_t>(out(r, "eq").array, 2, 0), 0x04);  // EQ: row 2 is 1 2 3 ...
  EXPECT_EQ(out(r, "c1").array.data, out(r, "c2").array.data);
  EXPECT_EQ(out(r, "c1").array.data, out(r, "c3").array.data);
  EXPECT_EQ(elem_at<int32_t>(out(r, "c1").array, 1, 0), 0);  // rint(0.5) = 0, ties to even
  EXPECT_EQ(elem_at<int32_t>(out(r, "c1").array, 3, 0), 2);  // rint(1.5) = 2
}

// The new grammar (scalars, attributes, two outs, parenthesised types) under random mutation:
// a result or a tilesim::Error, nothing else (spec 00).
TEST(PtoAs, MutatedInstructionProgramsOnlyRaiseErrors) {
  const std::string base =
      ".target cpu\n.arg %x : !pto.tile<8x32xf32>\n.arg %m : !pto.tile<8x32xui8>\n"
      "%a = pto.tadds %x, -0x1.8p1 : (!pto.tile<8x32xf32>, f32) -> !pto.tile<8x32xf32>\n"
      "%c = pto.tcmps %a, 2.5e0 {cmpMode = #pto<cmp ge>} : !pto.tile<8x32xf32>, f32 -> "
      "!pto.tile<8x32xui8>\n"
      "%s = tsels %c, %x, inf : !pto.tile<8x32xui8>, !pto.tile<8x32xf32>, f32 -> "
      "!pto.tile<8x32xf32>\n"
      "%v = pto.alloc_tile : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>\n"
      "%k = pto.alloc_tile : !pto.tile_buf<vec, 8x1xi32, blayout=col_major>\n"
      "pto.trowargmax ins(%s : !pto.tile<8x32xf32>) outs(%v, %k : !pto.tile<8x1xf32>, "
      "!pto.tile<8x1xi32>)\n"
      "%t = pto.tcvt %s {rmode = #pto<round_mode FLOOR>, sat_mode = #pto<saturation_mode ON>} : "
      "!pto.tile<8x32xf32> -> !pto.tile<8x32xi16>\n"
      "%e = pto.texpands 0x7FC0 : bf16 -> !pto.tile<8x16xbf16>\n"
      "%d = pto.tdivs 3, %x : f32, !pto.tile<8x32xf32> -> !pto.tile<8x32xf32>\n";
  EXPECT_NO_THROW(as::run(base, "t.pto", lenient()));
  std::mt19937 g(57);
  const char alphabet[] = "%@!<>=,:()?x0123456789abcdefvxipto._ \n#/;-+{}pe";
  int errors = 0, ran = 0;
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
      as::run(s, "t.pto", lenient());
      ++ran;
    } catch (const tilesim::Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 1000);
  EXPECT_GT(ran, 10);  // some mutations keep the program valid (comments, numbers)
}

// The scalar reader shared by PTO-AS and Python (tilesim::pto::fe::scalar_code): one RNE rounding
// of the literal's exact value (decimal digits past double precision decide a tie), codes, ranges.
TEST(PtoFrontend, ScalarCodes) {
  namespace fe = tilesim::pto::fe;
  struct Row {
    const char* lit;
    Elem e;
    uint64_t code;  // expected code (independent: the IEEE encodings, two's complement)
  };
  const Row rows[] = {
      {"1.00048828125", Elem::f16, 0x3C00},  // exactly 1 + 2^-11, the midpoint: ties to even
      {"1.00048828125000000000000000001", Elem::f16, 0x3C01},  // just above: up
      {"1.00048828124999999999999999999", Elem::f16, 0x3C00},  // just below: down
      {"1.00146484375", Elem::f16, 0x3C02},  // 1 + 3*2^-11, midpoint of 0x3C01/0x3C02: even
      {"16777217", Elem::f32, 0x4B800000},   // 2^24 + 1: tie to even 2^24
      {"16777217.0000000000000000001", Elem::f32, 0x4B800001},
      {"1152921573326323713", Elem::f32, 0x5D800001},  // 2^60 + 2^36 + 1: above the midpoint
      {"65520", Elem::f16, 0x7C00},                    // the overflow threshold rounds to Inf
      {"65519.9999999999999999999", Elem::f16, 0x7BFF},
      {"-0", Elem::f32, 0x80000000},
      {"-1e-50", Elem::f32, 0x80000000},
      {"0x1.8p1", Elem::f32, 0x40400000},
      {"-inf", Elem::bf16, 0xFF80},
      {"nan", Elem::f16, 0x7E00},  // the canonical NaN
      {"0x7FC1", Elem::bf16, 0x7FC1},  // a hex integer is the code
      {"3", Elem::bf16, 0x4040},
      {"1.00390625", Elem::bf16, 0x3F80},  // 1 + 2^-8, the bf16 midpoint: even
      {"-128", Elem::s8, 0x80},
      {"0xFF", Elem::s8, 0xFF},
      {"-0", Elem::u8, 0},
      {"-9223372036854775808", Elem::s64, 0x8000000000000000ull},
      {"18446744073709551615", Elem::u64, ~0ull},
      {"-0x10", Elem::s16, 0xFFF0},
  };
  for (const Row& r : rows)
    EXPECT_EQ(fe::scalar_code(r.lit, r.e, "T"), r.code) << r.lit << " as " << tilesim::pto::elem_name(r.e);
  const std::pair<const char*, Elem> bad[] = {
      {"128", Elem::s8},       {"-1", Elem::u8},  {"0x100", Elem::u8},
      {"9223372036854775808", Elem::s64}, {"18446744073709551616", Elem::u64},
      {"1.5", Elem::s32},      {"1e3", Elem::s32}, {"0x10000", Elem::f16},
      {"", Elem::f32},         {" 1", Elem::f32},  {"1.5.2", Elem::f32}, {"0x", Elem::f32}};
  for (const auto& [lit, e] : bad)
    EXPECT_THROW(fe::scalar_code(lit, e, "T"), tilesim::Error) << lit;
  EXPECT_EQ(fe::parse_cmp("less_than"), 2);
  EXPECT_EQ(fe::parse_cmp("CmpMode::GE"), 5);
  EXPECT_EQ(fe::parse_round("CAST_ODD"), 6);
  EXPECT_EQ(fe::parse_round("RoundMode::CAST_NONE"), 0);
  EXPECT_EQ(fe::parse_sat("SaturationMode::OFF"), 1);
  EXPECT_THROW(fe::parse_sat("maybe"), tilesim::Error);
}

// The default: every .arg bound, else an error listing the unbound ones (nothing runs).
TEST(PtoAs, EveryArgNeedsAnInput) {
  const std::string prog =
      ".arg %x : !pto.tile<16x8xf32>\n.arg %y : !pto.tile<16x8xf32>\n.arg %z : !pto.tile<16x8xf32>\n"
      "%w = pto.tadd %x, %y : !pto.tile<16x8xf32>, !pto.tile<16x8xf32> -> !pto.tile<16x8xf32>\n";
  as::RunOptions o;
  o.inputs["y"] = tilesim::npy::Array{"<f4", {16, 8}, std::vector<uint8_t>(16 * 8 * 4, 0)};
  EXPECT_EQ(error_of(prog, o),
            "t.pto: no input for %x, %z (every .arg needs one: --in NAME=FILE.npy, Python inputs=) "
            "[docs/pto.md#running-a-program]");
  o.inputs["x"] = o.inputs["z"] = o.inputs["y"];
  EXPECT_EQ(error_of(prog, o), "(no error)");
}
