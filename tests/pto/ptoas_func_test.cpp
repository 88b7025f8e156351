// PTO-AS func.func files (spec 21 §3, docs/pto.md#funcfunc-files): one program per feature with
// answers computed here independently of the engine (plain C++ on the inputs), a row softmax over
// GM and a TMATMUL program, and the rejections (nothing runs, no input array changes).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tilesim/error.hpp"
#include "tilesim/pto/ptoas.hpp"

using namespace tilesim::pto;

namespace {

// The full !pto.tile_buf spelling PTOAS prints.
std::string tb(int rows, int cols, const char* dtype = "f32", const char* loc = "vec",
               const char* bl = "row_major", const char* sl = "none_box", int fractal = 512,
               std::string vr = "", std::string vc = "") {
  if (vr.empty()) vr = std::to_string(rows);
  if (vc.empty()) vc = std::to_string(cols);
  return fmt::format(
      "!pto.tile_buf<loc={}, dtype={}, rows={}, cols={}, v_row={}, v_col={}, blayout={}, "
      "slayout={}, fractal={}, pad=0>",
      loc, dtype, rows, cols, vr, vc, bl, sl, fractal);
}

template <class T>
tilesim::npy::Array arr(const std::vector<T>& v, const char* descr, std::vector<size_t> shape) {
  tilesim::npy::Array a;
  a.descr = descr;
  a.shape = std::move(shape);
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  a.data.assign(p, p + v.size() * sizeof(T));
  return a;
}
tilesim::npy::Array f32(const std::vector<float>& v, size_t r, size_t c) { return arr(v, "<f4", {r, c}); }
tilesim::npy::Array i32(const std::vector<int32_t>& v, size_t r, size_t c) { return arr(v, "<i4", {r, c}); }
tilesim::npy::Array scalar_f64(double v) { return arr(std::vector<double>{v}, "<f8", {}); }
tilesim::npy::Array scalar_i64(int64_t v) { return arr(std::vector<int64_t>{v}, "<i8", {}); }
tilesim::npy::Array scalar_bool(bool v) { return arr(std::vector<uint8_t>{v}, "|b1", {}); }

template <class T>
std::vector<T> values(const std::vector<as::Output>& o, const std::string& name) {
  for (const auto& x : o)
    if (x.name == name) {
      std::vector<T> v(x.array.data.size() / sizeof(T));
      std::memcpy(v.data(), x.array.data.data(), x.array.data.size());
      return v;
    }
  throw std::runtime_error("no output " + name);
}

std::string error_of(const std::string& text, const as::RunOptions& o) {
  try {
    as::run(text, "k.pto", o);
  } catch (const tilesim::Error& e) {
    return e.what();
  }
  return "(no error)";
}

// `text` with its first `from` replaced by `to` (substr: g++ 12's -Wrestrict misfires on replace).
std::string subst(const std::string& text, const std::string& from, const std::string& to) {
  const size_t i = text.find(from);
  if (i == std::string::npos) return text;
  return text.substr(0, i) + to + text.substr(i + from.size());
}

std::vector<float> iota_f(size_t n, float scale = 1.0f, float base = 0.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = base + scale * float(i);
  return v;
}

}  // namespace

// arith integer/index ops: each result is broadcast by TEXPANDS into row k of an 16x8 i32 GM
// matrix; the expected values are the same expressions evaluated in C++.
TEST(PtoAsFunc, ArithIntegerAndIndexOps) {
  const std::string T = tb(1, 8, "i32");
  const char* exprs[][2] = {
      {"%r0 = arith.addi %a, %b : i32", "r0"},       {"%r1 = arith.subi %a, %b : i32", "r1"},
      {"%r2 = arith.muli %a, %b : i32", "r2"},       {"%r3 = arith.divsi %n, %b : i32", "r3"},
      {"%r4 = arith.remsi %n, %b : i32", "r4"},      {"%r5 = arith.minsi %a, %n : i32", "r5"},
      {"%r6 = arith.maxsi %a, %n : i32", "r6"},      {"%r7 = arith.shli %a, %b : i32", "r7"},
      {"%r8 = arith.shrui %n, %b : i32", "r8"},      {"%r9 = arith.andi %a, %n : i32", "r9"},
      {"%r10 = arith.xori %a, %n : i32", "r10"},     {"%r11 = arith.floordivsi %n, %b : i32", "r11"},
      {"%r12 = arith.ceildivsi %n, %b : i32", "r12"}, {"%c = arith.cmpi slt, %n, %a : i32\n    %r13 = arith.select %c, %a, %b : i32", "r13"},
      {"%ix = arith.index_cast %a : i32 to index\n    %ix2 = arith.muli %ix, %c4 : index\n    %r14 = arith.index_cast %ix2 : index to i32", "r14"},
      {"%w = arith.trunci %n : i32 to i8\n    %r15 = arith.extsi %w : i8 to i32", "r15"}};
  const int32_t a = 7, b = 3, n = -20;
  const int32_t want[16] = {a + b, a - b, a * b, n / b, n % b, std::min(a, n), std::max(a, n),
                            a << b, int32_t(uint32_t(n) >> b), a & n, a ^ n,
                            -7 /* floor(-20/3) */, -6 /* ceil(-20/3) */, n < a ? a : b, a * 4,
                            int32_t(int8_t(n))};
  std::string body;
  for (int k = 0; k < 16; ++k)
    body += fmt::format(R"(    {0}
    %k{1} = arith.constant {1} : index
    %p{1} = pto.partition_view %v, offsets = [%k{1}, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xi32> -> !pto.partition_tensor_view<1x8xi32>
    pto.texpands ins(%{2} : i32) outs(%t : {3})
    pto.tstore ins(%t : {3}) outs(%p{1} : !pto.partition_tensor_view<1x8xi32>)
)",
                        exprs[k][0], k, exprs[k][1], T);
  const std::string prog = fmt::format(R"(module {{
  func.func @arith(%out: !pto.ptr<i32>, %a: i32) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %b = arith.constant 3 : i32
    %n = arith.constant -20 : i32
    %v = pto.make_tensor_view %out, shape = [%c16, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xi32>
    %t = pto.alloc_tile : {0}
{1}    return
  }}
}}
)",
                                       T, body);
  as::RunOptions o;
  o.inputs["out"] = i32(std::vector<int32_t>(128, 0), 16, 8);
  o.inputs["a"] = scalar_i64(a);
  const auto res = values<int32_t>(as::run(prog, "k.pto", o), "out");
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(res[size_t(k * 8 + j)], want[k]) << exprs[k][0];
}

// scf.for with iter_args: an index sum and a ping-pong of two tiles carried through the loop.
TEST(PtoAsFunc, ScfForWithIterArgs) {
  const std::string T = tb(8, 8);
  const std::string prog = R"(module {
  func.func @loop(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %s: !pto.ptr<i32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %c11 = arith.constant 11 : index
    %one = arith.constant 1.0 : f32
    %xv = pto.make_tensor_view %x, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %sv = pto.make_tensor_view %s, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xi32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x8xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x8xf32>
    %sp = pto.partition_view %sv, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xi32> -> !pto.partition_tensor_view<1x8xi32>
    %a = pto.alloc_tile : TT
    %b = pto.alloc_tile : TT
    pto.tload ins(%xp : !pto.partition_tensor_view<8x8xf32>) outs(%a : TT)
    %sum, %cur, %other = scf.for %i = %c0 to %c11 step %c3
        iter_args(%acc = %c0, %p = %a, %q = %b) -> (index, TT, TT) {
      %acc2 = arith.addi %acc, %i : index
      pto.tadds ins(%p, %one : TT, f32) outs(%q : TT)
      scf.yield %acc2, %q, %p : index, TT, TT
    }
    pto.tstore ins(%cur : TT) outs(%yp : !pto.partition_tensor_view<8x8xf32>)
    %sum32 = arith.index_cast %sum : index to i32
    %st = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.texpands ins(%sum32 : i32) outs(%st : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tstore ins(%st : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%sp : !pto.partition_tensor_view<1x8xi32>)
    return
  }
}
)";
  std::string p = prog;
  for (size_t at; (at = p.find("TT")) != std::string::npos;) p.replace(at, 2, T);
  // the loop runs i = 0, 3, 6, 9: four additions of 1, the tiles swap each time
  const auto x = iota_f(64, 0.5f);
  as::RunOptions o;
  o.inputs["x"] = f32(x, 8, 8);
  o.inputs["y"] = f32(std::vector<float>(64, -1.0f), 8, 8);
  o.inputs["s"] = i32(std::vector<int32_t>(8, 0), 1, 8);
  const auto out = as::run(p, "k.pto", o);
  const auto y = values<float>(out, "y");
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(y[i], x[i] + 4.0f) << i;
  for (int32_t v : values<int32_t>(out, "s")) EXPECT_EQ(v, 0 + 3 + 6 + 9);
}

// scf.if with results, nested, and an else region; the conditions come from scalar arguments.
TEST(PtoAsFunc, ScfIfWithResultsAndElse) {
  const std::string T = tb(1, 8, "i32");
  const std::string prog = fmt::format(R"(module {{
  func.func @branch(%out: !pto.ptr<i32>, %flag: i1, %mode: i32) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %ten = arith.constant 10 : i32
    %twenty = arith.constant 20 : i32
    %zero = arith.constant 0 : i32
    %v = pto.make_tensor_view %out, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xi32>
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xi32> -> !pto.partition_tensor_view<1x8xi32>
    %r = scf.if %flag -> (i32) {{
      %big = arith.cmpi sgt, %mode, %zero : i32
      %inner = scf.if %big -> (i32) {{
        %s = arith.addi %mode, %ten : i32
        scf.yield %s : i32
      }} else {{
        scf.yield %ten : i32
      }}
      scf.yield %inner : i32
    }} else {{
      scf.yield %twenty : i32
    }}
    %t = pto.alloc_tile : {0}
    pto.texpands ins(%r : i32) outs(%t : {0})
    pto.tstore ins(%t : {0}) outs(%p : !pto.partition_tensor_view<1x8xi32>)
    return
  }}
}}
)",
                                       T);
  const auto run = [&](bool flag, int64_t mode) {
    as::RunOptions o;
    o.inputs["out"] = i32(std::vector<int32_t>(8, 0), 1, 8);
    o.inputs["flag"] = scalar_bool(flag);
    o.inputs["mode"] = scalar_i64(mode);
    return values<int32_t>(as::run(prog, "k.pto", o), "out")[3];
  };
  EXPECT_EQ(run(true, 5), 15);
  EXPECT_EQ(run(true, -5), 10);
  EXPECT_EQ(run(false, 5), 20);
}

// Views with offsets: a 4x8 window at (2, 4) of an 8x16 row-major matrix, scaled by 2 and stored
// at (1, 8) of another; every other element keeps its value.
TEST(PtoAsFunc, PartitionViewsWithOffsets) {
  const std::string T = tb(4, 8);
  const std::string prog = fmt::format(R"(module {{
  func.func @window(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>, %r0: index, %c0a: index) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %two = arith.constant 2.0 : f32
    %sv = pto.make_tensor_view %src, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %dv = pto.make_tensor_view %dst, shape = [%c8, %c16], strides = [%c16, %c1] {{layout = #pto.layout<nd>}} : !pto.tensor_view<?x?xf32>
    %sp = pto.partition_view %sv, offsets = [%r0, %c0a], sizes = [%c4, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x8xf32>
    %dp = pto.partition_view %dv, offsets = [%c1, %c8], sizes = [%c4, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x8xf32>
    %t = pto.alloc_tile : {0}
    pto.tload ins(%sp : !pto.partition_tensor_view<4x8xf32>) outs(%t : {0})
    pto.tmuls ins(%t, %two : {0}, f32) outs(%t : {0})
    pto.tstore ins(%t : {0}) outs(%dp : !pto.partition_tensor_view<4x8xf32>)
    return
  }}
}}
)",
                                       T);
  const auto src = iota_f(128, 1.0f, 1.0f);
  as::RunOptions o;
  o.inputs["src"] = f32(src, 8, 16);
  o.inputs["dst"] = f32(std::vector<float>(128, -3.0f), 8, 16);
  o.scalar_text["r0"] = "2";
  o.scalar_text["c0a"] = "4";
  const auto d = values<float>(as::run(prog, "k.pto", o), "dst");
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) {
      const bool in = r >= 1 && r < 5 && c >= 8;
      const float want = in ? 2.0f * src[size_t((r - 1 + 2) * 16 + (c - 8 + 4))] : -3.0f;
      EXPECT_EQ(d[size_t(r * 16 + c)], want) << r << "," << c;
    }
}

// alloc_tile with the full spelling and '?' valid dimensions set by operands: only the valid
// region (3x5 of 8x8) reaches the GM.
TEST(PtoAsFunc, AllocTileDynamicValidShape) {
  const std::string T = tb(8, 8, "f32", "vec", "row_major", "none_box", 512, "?", "?");
  const std::string prog = fmt::format(R"(module {{
  func.func @valid(%out: !pto.ptr<f32>, %vr: i32, %vc: i32) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = arith.constant 2.5 : f32
    %r = arith.index_cast %vr : i32 to index
    %c = arith.index_cast %vc : i32 to index
    %v = pto.make_tensor_view %out, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %t = pto.alloc_tile valid_row = %r valid_col = %c : {0}
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%r, %c] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<?x?xf32>
    pto.texpands ins(%x : f32) outs(%t : {0})
    pto.tstore ins(%t : {0}) outs(%p : !pto.partition_tensor_view<?x?xf32>)
    return
  }}
}}
)",
                                       T);
  as::RunOptions o;
  o.inputs["out"] = f32(std::vector<float>(64, 0.0f), 8, 8);
  o.scalar_text["vr"] = "3";
  o.scalar_text["vc"] = "5";
  const auto d = values<float>(as::run(prog, "k.pto", o), "out");
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) EXPECT_EQ(d[size_t(r * 8 + c)], r < 3 && c < 5 ? 2.5f : 0.0f);
  o.scalar_text["vr"] = "9";
  EXPECT_NE(error_of(prog, o).find("valid_row = 9 is outside [0, 8]"), std::string::npos)
      << error_of(prog, o);
}

// The SSA and the DPS form of one instruction give the same bits; sync ops change nothing.
TEST(PtoAsFunc, SsaAndDpsFormsAndSyncOps) {
  const std::string T = tb(4, 16);
  const std::string prog = fmt::format(R"(module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @forms(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %o1: !pto.ptr<f32>, %o2: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %av = pto.make_tensor_view %a, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %bv = pto.make_tensor_view %b, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %v1 = pto.make_tensor_view %o1, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %v2 = pto.make_tensor_view %o2, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x16xf32>
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x16xf32>
    %p1 = pto.partition_view %v1, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x16xf32>
    %p2 = pto.partition_view %v2, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x16xf32>
    %ta = pto.alloc_tile : {0}
    %tb = pto.alloc_tile : {0}
    %td = pto.alloc_tile : {0}
    pto.tload ins(%ap : !pto.partition_tensor_view<4x16xf32>) outs(%ta : {0})
    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    pto.tload ins(%bp : !pto.partition_tensor_view<4x16xf32>) outs(%tb : {0})
    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    pto.barrier <PIPE_ALL>
    pto.record_event[#pto.sync_op_type<TLOAD>, #pto.sync_op_type<TVEC>, <EVENT_ID1>]
    pto.wait_event[#pto.sync_op_type<TLOAD>, #pto.sync_op_type<TVEC>, <EVENT_ID1>]
    pto.sync.set <PIPE_FIX>, 0
    %ts = pto.tdiv %ta, %tb : {0}, {0} -> {0}
    pto.tdiv ins(%ta, %tb : {0}, {0}) outs(%td : {0})
    pto.tstore ins(%ts : {0}) outs(%p1 : !pto.partition_tensor_view<4x16xf32>)
    pto.tstore ins(%td : {0}) outs(%p2 : !pto.partition_tensor_view<4x16xf32>)
    return
  }}
}}
)",
                                       T);
  const auto a = iota_f(64, 0.37f, 1.0f), b = iota_f(64, -0.11f, 9.0f);
  as::RunOptions o;
  o.inputs["a"] = f32(a, 4, 16);
  o.inputs["b"] = f32(b, 4, 16);
  o.inputs["o1"] = f32(std::vector<float>(64, 0), 4, 16);
  o.inputs["o2"] = f32(std::vector<float>(64, 0), 4, 16);
  const auto out = as::run(prog, "k.pto", o);
  const auto r1 = values<float>(out, "o1"), r2 = values<float>(out, "o2");
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(r1[i], a[i] / b[i]) << i;  // fp32 division is correctly rounded in C++ too
    EXPECT_EQ(std::memcmp(&r1[i], &r2[i], 4), 0) << i;
  }
}

// A row softmax over a 64x32 GM matrix in four 16-row blocks (scf.for, offsets from the loop
// variable), checked against a double-precision softmax.
TEST(PtoAsFunc, RowSoftmaxOverGm) {
  const std::string X = tb(16, 32), C = tb(16, 1, "f32", "vec", "col_major");
  const std::string prog = fmt::format(R"(module {{
  func.func @softmax(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %scale: f32) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %xv = pto.make_tensor_view %x, shape = [%c64, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c64, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %t = pto.alloc_tile : {0}
    %tmp = pto.alloc_tile : {0}
    %m = pto.alloc_tile : {1}
    %s = pto.alloc_tile : {1}
    scf.for %i = %c0 to %c64 step %c16 {{
      %xp = pto.partition_view %xv, offsets = [%i, %c0], sizes = [%c16, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x32xf32>
      %yp = pto.partition_view %yv, offsets = [%i, %c0], sizes = [%c16, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x32xf32>
      pto.tload ins(%xp : !pto.partition_tensor_view<16x32xf32>) outs(%t : {0})
      pto.tmuls ins(%t, %scale : {0}, f32) outs(%t : {0})
      pto.trowmax ins(%t, %tmp : {0}, {0}) outs(%m : {1})
      pto.trowexpandsub ins(%t, %m : {0}, {1}) outs(%t : {0})
      pto.texp ins(%t : {0}) outs(%t : {0})
      pto.trowsum ins(%t, %tmp : {0}, {0}) outs(%s : {1})
      pto.trowexpanddiv ins(%t, %s : {0}, {1}) outs(%t : {0})
      pto.tstore ins(%t : {0}) outs(%yp : !pto.partition_tensor_view<16x32xf32>)
    }}
    return
  }}
}}
)",
                                       X, C);
  std::mt19937 g(7);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  std::vector<float> x(64 * 32);
  for (float& v : x) v = nd(g);
  as::RunOptions o;
  o.inputs["x"] = f32(x, 64, 32);
  o.inputs["y"] = f32(std::vector<float>(64 * 32, 0), 64, 32);
  o.inputs["scale"] = scalar_f64(0.5);
  const auto y = values<float>(as::run(prog, "k.pto", o), "y");
  for (int r = 0; r < 64; ++r) {
    double mx = -1e300, sum = 0;
    for (int c = 0; c < 32; ++c) mx = std::max(mx, 0.5 * x[size_t(r * 32 + c)]);
    for (int c = 0; c < 32; ++c) sum += std::exp(0.5 * x[size_t(r * 32 + c)] - mx);
    for (int c = 0; c < 32; ++c) {
      const double want = std::exp(0.5 * x[size_t(r * 32 + c)] - mx) / sum;
      EXPECT_NEAR(y[size_t(r * 32 + c)], want, 4e-7 * std::max(want, 1e-3)) << r << "," << c;
    }
  }
}

// TMATMUL and TMATMUL_ACC as PTOAS's samples write them: Mat tiles loaded from ND views, TMOV to
// Left/Right, the Acc tile stored. K = 32 in two blocks of 16; the expected values are the fp32
// FMA chain in k order (spec 30 §3), computed here with std::fma.
TEST(PtoAsFunc, MatmulWithAccumulate) {
  const std::string MA = tb(16, 16, "f32", "mat", "col_major", "row_major"),
                    MB = tb(16, 16, "f32", "mat", "col_major", "row_major"),
                    L = tb(16, 16, "f32", "left", "col_major", "row_major"),
                    R = tb(16, 16, "f32", "right", "row_major", "col_major"),
                    A = tb(16, 16, "f32", "acc", "col_major", "row_major", 1024);
  const std::string prog = fmt::format(R"(module {{
  func.func @gemm(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %c: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %av = pto.make_tensor_view %a, shape = [%c16, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %bv = pto.make_tensor_view %b, shape = [%c32, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %cv = pto.make_tensor_view %c, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %ma = pto.alloc_tile : {0}
    %mb = pto.alloc_tile : {1}
    %l = pto.alloc_tile : {2}
    %r = pto.alloc_tile : {3}
    %acc = pto.alloc_tile : {4}
    scf.for %k = %c0 to %c2 step %c1 {{
      %off = arith.muli %k, %c16 : index
      %ap = pto.partition_view %av, offsets = [%c0, %off], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
      %bp = pto.partition_view %bv, offsets = [%off, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
      pto.tload ins(%ap : !pto.partition_tensor_view<16x16xf32>) outs(%ma : {0})
      pto.tload ins(%bp : !pto.partition_tensor_view<16x16xf32>) outs(%mb : {1})
      pto.tmov ins(%ma : {0}) outs(%l : {2})
      pto.tmov ins(%mb : {1}) outs(%r : {3})
      %first = arith.cmpi eq, %k, %c0 : index
      scf.if %first {{
        pto.tmatmul ins(%l, %r : {2}, {3}) outs(%acc : {4})
      }} else {{
        pto.tmatmul.acc ins(%acc, %l, %r : {4}, {2}, {3}) outs(%acc : {4})
      }}
    }}
    %cp = pto.partition_view %cv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
    pto.tstore ins(%acc : {4}) outs(%cp : !pto.partition_tensor_view<16x16xf32>)
    return
  }}
}}
)",
                                       MA, MB, L, R, A);
  std::mt19937 g(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(16 * 32), b(32 * 16);
  for (float& v : a) v = u(g);
  for (float& v : b) v = u(g);
  as::RunOptions o;
  o.inputs["a"] = f32(a, 16, 32);
  o.inputs["b"] = f32(b, 32, 16);
  o.inputs["c"] = f32(std::vector<float>(256, 0), 16, 16);
  const auto c = values<float>(as::run(prog, "k.pto", o), "c");
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < 32; ++k) acc = std::fma(a[size_t(i * 32 + k)], b[size_t(k * 16 + j)], acc);
      EXPECT_NEAR(c[size_t(i * 16 + j)], acc, 1e-5f) << i << "," << j;
    }
}

// entry= picks a function; a caller target overrides the file's; .target lines work too.
TEST(PtoAsFunc, EntryAndTargetPrecedence) {
  const std::string V = tb(1, 8), M = tb(1, 8, "f32", "mat");
  const std::string prog = fmt::format(R"(module attributes {{pto.target_arch = "a5"}} {{
  func.func @first(%o: !pto.ptr<f32>) {{
    return
  }}
  func.func @second(%o: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = arith.constant 1.5 : f32
    %v = pto.make_tensor_view %o, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    %t = pto.alloc_tile : {0}
    %m = pto.alloc_tile : {1}
    pto.texpands ins(%x : f32) outs(%t : {0})
    pto.tmov ins(%t : {0}) outs(%m : {1})
    pto.tstore ins(%t : {0}) outs(%p : !pto.partition_tensor_view<1x8xf32>)
    return
  }}
}}
)",
                                       V, M);  // (a5 stores no Mat tile: the Vec tile is stored)
  as::RunOptions o;
  o.inputs["o"] = f32(std::vector<float>(8, 0), 1, 8);
  EXPECT_EQ(values<float>(as::run(prog, "k.pto", o), "o")[0], 0.0f);  // @first: nothing
  o.entry = "second";
  EXPECT_EQ(values<float>(as::run(prog, "k.pto", o), "o")[7], 1.5f);  // a5: Vec -> Mat is legal
  o.target = "a2a3";                                                  // the caller's target wins
  const std::string e = error_of(prog, o);
  EXPECT_NE(e.find("k.pto:"), std::string::npos) << e;
  EXPECT_NE(e.find("pto.tmov"), std::string::npos) << e;
  o.entry = "third";
  EXPECT_NE(error_of(prog, o).find("entry 'third' is not a func.func of the file (it has @first, @second)"),
            std::string::npos);
}

// ---- rejections: nothing runs, and the caller's arrays are never written ----

namespace {
const char* kStoreThenOp = R"(module {
  func.func @k(%x: !pto.ptr<f32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %v = pto.make_tensor_view %x, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tstore ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%p : !pto.partition_tensor_view<1x8xf32>)
    %q = pto.partition_view %v, offsets = [%c0, %n], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    LINE
    return
  }
}
)";
std::string with_line(const std::string& line) {
  std::string p = kStoreThenOp;
  p.replace(p.find("LINE"), 4, line);
  return p;
}
as::RunOptions bound(float fill = 7.0f) {
  as::RunOptions o;
  o.inputs["x"] = f32(std::vector<float>(8, fill), 1, 8);
  o.scalar_text["n"] = "0";
  return o;
}
void expect_unchanged(const as::RunOptions& o) {
  std::vector<float> v(8);
  std::memcpy(v.data(), o.inputs.at("x").data.data(), 32);
  for (float f : v) EXPECT_EQ(f, 7.0f);
}
}  // namespace

TEST(PtoAsFuncErrors, UnknownOpNamesOpAndPosition) {
  const as::RunOptions o = bound();
  const std::string e = error_of(with_line("pto.tfoo ins(%q : !pto.partition_tensor_view<1x8xf32>)"), o);
  EXPECT_NE(e.find("k.pto:11:5"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown op 'pto.tfoo'"), std::string::npos) << e;
  EXPECT_NE(error_of(with_line("%z = arith.addf %c0, %c1 : index"), o).find("unknown op 'arith.addf'"),
            std::string::npos);
  expect_unchanged(o);
}

TEST(PtoAsFuncErrors, ParseErrorsBeforeAnythingRuns) {
  const as::RunOptions o = bound();
  const struct {
    const char* line;
    const char* want;
  } cases[] = {
      {"%z = arith.addi %c0, %nope : index", "k.pto:11:26: use of undefined value '%nope'"},
      {"%c0 = arith.constant 3 : index", "redefinition of '%c0'"},
      {"pto.tadd ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, "
       "blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%t : !pto.tile_buf<loc=vec, "
       "dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, "
       "fractal=512, pad=0>)",
       "pto.tadd takes ins(%src0, %src1), got (%t)"},
      {"pto.tcmps ins(%t, %c1 {cmpMode = #pto<cmp lt>, rmode = #pto<round_mode ROUND>} : "
       "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, "
       "slayout=none_box, fractal=512, pad=0>, index) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, "
       "rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)",
       "unknown attribute 'rmode' for pto.tcmps (it takes cmpMode)"},
      {"pto.tstore ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, "
       "blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%q : "
       "!pto.partition_tensor_view<1x8xf32>)",
       "type of '%t' is"},
      {"%z = arith.constant 1.5 : i32", "an s32 scalar must be an integer"},
  };
  for (const auto& c : cases) {
    const std::string e = error_of(with_line(c.line), o);
    EXPECT_NE(e.find(c.want), std::string::npos) << c.line << "\n -> " << e;
  }
  expect_unchanged(o);
}

TEST(PtoAsFuncErrors, ArgumentBinding) {
  const std::string p = with_line("");
  {  // an unbound argument: named, nothing runs
    as::RunOptions o = bound();
    o.scalar_text.clear();
    EXPECT_NE(error_of(p, o).find("argument '%n' (index) is not bound"), std::string::npos)
        << error_of(p, o);
    expect_unchanged(o);
  }
  {  // an input the function does not have (the argument count does not match)
    as::RunOptions o = bound();
    o.inputs["y"] = f32(std::vector<float>(8, 0), 1, 8);
    EXPECT_NE(error_of(p, o).find("input 'y' is not an argument of @k"), std::string::npos);
    expect_unchanged(o);
  }
  {  // a !pto.ptr<f32> bound to an int32 array
    as::RunOptions o = bound();
    o.inputs["x"] = i32(std::vector<int32_t>(8, 7), 1, 8);
    EXPECT_NE(error_of(p, o).find("argument '%x' (!pto.ptr<f32>) needs an array of dtype '<f4', got '<i4'"),
              std::string::npos)
        << error_of(p, o);
  }
  {  // too small for the view: 6 elements for a 1x8 view
    as::RunOptions o = bound();
    o.inputs["x"] = f32(std::vector<float>(6, 7.0f), 1, 6);
    const std::string e = error_of(p, o);
    EXPECT_NE(e.find("'%x' is bound to an array of 6 elements, too small for the view of shape [1, 8]"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("k.pto:6:10"), std::string::npos) << e;
  }
  {  // a scalar out of range, a float for an index
    as::RunOptions o = bound();
    o.scalar_text["n"] = "1.5";
    EXPECT_NE(error_of(p, o).find("scalar argument '%n' (index)"), std::string::npos) << error_of(p, o);
    o.scalar_text.clear();
    o.inputs["n"] = scalar_f64(2.0);
    EXPECT_NE(error_of(p, o).find("expects an integer"), std::string::npos) << error_of(p, o);
  }
}

// A run that fails after a TSTORE: the error names the op and position; the caller's array is
// unchanged (the GM is a copy, returned only after a complete run).
TEST(PtoAsFuncErrors, RuntimeFailureLeavesInputsUnchanged) {
  as::RunOptions o = bound();
  o.scalar_text["n"] = "4";  // the partition [4, 12) leaves the 8 columns
  const std::string e = error_of(with_line(""), o);
  EXPECT_NE(e.find("k.pto:10:10"), std::string::npos) << e;
  EXPECT_NE(e.find("dimension 1: offset 4 and size 8 leave the source view's extent 8"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("pto.partition_view"), std::string::npos) << e;
  expect_unchanged(o);
}

TEST(PtoAsFunc, ArgFormStillDispatched) {
  EXPECT_TRUE(as::is_func_file("// c\n.target a5\nmodule {\n}"));
  EXPECT_TRUE(as::is_func_file("\n  func.func @f() {\n return\n}"));
  EXPECT_FALSE(as::is_func_file(".arg %x : !pto.tile<16x16xf32>\n"));
  const auto ps = as::parameters(with_line(""), "k.pto");
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].name, "x");
  EXPECT_TRUE(ps[0].is_ptr);
  EXPECT_EQ(ps[0].elem, "fp32");
  EXPECT_EQ(ps[1].elem, "index");
}

// alloc_tile addr = %a (manual mode, PyPTO's output): tiles at one address share bytes, as on the
// chip; pto.get_block_idx / get_block_num are 0 / 1 (one block); pto.target_arch "a3" is a2a3;
// pto.set_validshape changes a dynamic tile's valid shape.
TEST(PtoAsFunc, ManualAddressesShareBytesAndCoreQueries) {
  const std::string row = tb(1, 8), col = tb(8, 1, "f32", "vec", "col_major");
  const std::string prog = fmt::format(R"(module attributes {{pto.target_arch = "a3"}} {{
  func.func @k(%x: !pto.ptr<f32>, %o: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %a64 = arith.constant 64 : i64
    %b = pto.get_block_idx
    %n = pto.get_block_num : i64
    %bi = arith.index_cast %b : i64 to index
    %xv = pto.make_tensor_view %x, shape = [%c8, %c1], strides = [%c1, %c1] : !pto.tensor_view<?x?xf32>
    %ov = pto.make_tensor_view %o, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%bi, %c0], sizes = [%c8, %c1] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x1xf32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    %tc = pto.alloc_tile addr = %a64 : {1}
    %tr = pto.alloc_tile addr = %a64 : {0}
    pto.tload ins(%xp : !pto.partition_tensor_view<8x1xf32>) outs(%tc : {1})
    pto.tmuls ins(%tr, %n : {0}, i64) outs(%tr : {0})
    pto.tstore ins(%tr : {0}) outs(%op : !pto.partition_tensor_view<1x8xf32>)
    return
  }}
}}
)",
                                       row, col);
  as::RunOptions o;
  const auto x = iota_f(8, 0.5f, -1.0f);
  o.inputs["x"] = f32(x, 8, 1);
  o.inputs["o"] = f32(std::vector<float>(8, 9.0f), 1, 8);
  const auto y = values<float>(as::run(prog, "k.pto", o), "o");
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(y[i], x[i]) << i;  // the column's bytes read as a row, times 1
  // Alignment and bounds of a manual address are TASSIGN's.
  std::string bad = subst(prog, "%a64 = arith.constant 64", "%a64 = arith.constant 48");
  EXPECT_NE(error_of(bad, o).find("32"), std::string::npos) << error_of(bad, o);
  bad = subst(prog, "%a64 = arith.constant 64", "%a64 = arith.constant 99999968");
  EXPECT_NE(error_of(bad, o).find("UB"), std::string::npos) << error_of(bad, o);
  bad = subst(prog, "pto.alloc_tile addr = %a64 : " + col, "pto.alloc_tile addr = %a64 addr = %a64 : " + col);
  EXPECT_NE(error_of(bad, o).find("'addr' given twice"), std::string::npos) << error_of(bad, o);
}

TEST(PtoAsFunc, SetValidShapeChangesTheValidRegion) {
  const std::string dyn = tb(4, 8, "f32", "vec", "row_major", "none_box", 512, "?", "?");
  const std::string prog = fmt::format(R"(module {{
  func.func @k(%o: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1.5 : f32
    %ov = pto.make_tensor_view %o, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x8xf32>
    %t = pto.alloc_tile valid_row = %c4 valid_col = %c8 : {0}
    pto.set_validshape %t, %c2, %c8 : {0}
    pto.texpands ins(%one : f32) outs(%t : {0})
    pto.tstore ins(%t : {0}) outs(%op : !pto.partition_tensor_view<2x8xf32>)
    return
  }}
}}
)",
                                       dyn);
  as::RunOptions o;
  o.inputs["o"] = f32(std::vector<float>(32, 0.0f), 4, 8);
  const auto y = values<float>(as::run(prog, "k.pto", o), "o");
  for (size_t i = 0; i < 32; ++i) EXPECT_EQ(y[i], i < 16 ? 1.5f : 0.0f) << i;
  std::string bad = subst(prog, "%t, %c2, %c8", "%t, %c8, %c8");
  EXPECT_NE(error_of(bad, o).find("valid shape 8x8 is outside the tile's 4x8"), std::string::npos)
      << error_of(bad, o);
  EXPECT_NE(error_of(fmt::format(R"(module {{
  func.func @k() {{
    %c2 = arith.constant 2 : index
    %t = pto.alloc_tile : {0}
    pto.set_validshape %t, %c2, %c2 : {0}
    return
  }}
}}
)",
                                 tb(4, 8)),
                     o)
                .find("needs v_row=? and v_col=?"),
            std::string::npos);
}

// pto.tprint ins(%t : T) prints the tile as TPRINT does (docs/pto.md#tprint).
TEST(PtoAsFunc, TprintPrintsTheTile) {
  const std::string T = tb(1, 8);
  const std::string prog = fmt::format(R"(module {{
  func.func @k() {{
    %v = arith.constant 2.5 : f32
    %t = pto.alloc_tile : {0}
    pto.texpands ins(%v : f32) outs(%t : {0})
    pto.tprint ins(%t : {0})
    return
  }}
}}
)",
                                       T);
  ::testing::internal::CaptureStdout();
  as::run(prog, "k.pto", {});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("=== [TPRINT Tile] Data Type: float32, Layout: ND, TileType: Vec ==="), std::string::npos) << out;
  EXPECT_NE(out.find("  2.5000   2.5000"), std::string::npos) << out;
  const std::string bad = subst(prog, "pto.tprint ins(%t : " + T + ")", "pto.tprint ins(%v : f32)");
  EXPECT_NE(error_of(bad, {}).find("pto.tprint prints a tile"), std::string::npos) << error_of(bad, {});
}

// scf.while with scf.condition and a ^bb0 block label: a loop that adds 1 then 10 per iteration and
// leaves early at i == 2 through its loop-carried i1 (1 + 10, 1 + 10, 1, then 100 after it stops).
TEST(PtoAsFunc, ScfWhileRunsUntilItsConditionFails) {
  const std::string T = tb(1, 8);
  const std::string prog = fmt::format(R"(module {{
  func.func @k(%o: !pto.ptr<f32>, %n: index) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %true = arith.constant true
    %false = arith.constant false
    %one = arith.constant 1.0 : f32
    %ten = arith.constant 10.0 : f32
    %hundred = arith.constant 100.0 : f32
    %ov = pto.make_tensor_view %o, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    %t = pto.alloc_tile : {0}
    %final:2 = scf.while (%i = %c0, %alive = %true) : (index, i1) -> (index, i1) {{
      %lt = arith.cmpi slt, %i, %n : index
      %go = arith.andi %lt, %alive : i1
      scf.condition(%go) %i, %alive : index, i1
    }} do {{
    ^bb0(%i2: index, %alive2: i1):
      pto.tadds ins(%t, %one : {0}, f32) outs(%t : {0})
      %stop = arith.cmpi eq, %i2, %c2 : index
      %next = arith.addi %i2, %c1 : index
      %y:2 = scf.if %stop -> (index, i1) {{
        scf.yield %next, %false : index, i1
      }} else {{
        pto.tadds ins(%t, %ten : {0}, f32) outs(%t : {0})
        scf.yield %next, %true : index, i1
      }}
      scf.yield %y#0, %y#1 : index, i1
    }}
    %stopped = arith.xori %final#1, %true : i1
    scf.if %stopped {{
      pto.tadds ins(%t, %hundred : {0}, f32) outs(%t : {0})
    }}
    pto.tstore ins(%t : {0}) outs(%op : !pto.partition_tensor_view<1x8xf32>)
    return
  }}
}}
)",
                                       T);
  as::RunOptions o;
  o.inputs["o"] = f32(std::vector<float>(8, 0.0f), 1, 8);
  o.scalar_text["n"] = "5";
  EXPECT_EQ(values<float>(as::run(prog, "k.pto", o), "o")[3], 11.0f + 11.0f + 1.0f + 100.0f);
  o.scalar_text["n"] = "1";  // the condition fails first: no early stop, no 100
  EXPECT_EQ(values<float>(as::run(prog, "k.pto", o), "o")[3], 11.0f);
  o.scalar_text["n"] = "0";
  EXPECT_EQ(values<float>(as::run(prog, "k.pto", o), "o")[3], 0.0f);
  // Malformed: no scf.condition, a missing block label, a wrong condition type.
  std::string bad = subst(prog, "scf.condition(%go) %i, %alive : index, i1", "scf.yield %i, %alive : index, i1");
  EXPECT_NE(error_of(bad, o).find("scf.while's first region ends with scf.condition"), std::string::npos)
      << error_of(bad, o);
  bad = subst(prog, "^bb0(%i2: index, %alive2: i1):", "");
  EXPECT_NE(error_of(bad, o).find("expected the do region's block label"), std::string::npos) << error_of(bad, o);
  bad = subst(prog, "scf.condition(%go)", "scf.condition(%i)");
  EXPECT_NE(error_of(bad, o).find("scf.condition takes an i1 value"), std::string::npos) << error_of(bad, o);
  // An endless loop stops at max_ops.
  bad = subst(prog, "%go = arith.andi %lt, %alive : i1", "%go = arith.ori %true, %alive : i1");
  o.max_ops = 1000;
  EXPECT_NE(error_of(bad, o).find("more than 1000 operations"), std::string::npos) << error_of(bad, o);
}

// ---- func.call and functions that return values (issue 17 §6) ----

// A helper returning an index (defined after its caller) picks the row an i32 argument names; a
// second returns two values (`%r:2`, `func.return`). Expected: row (x + 1) mod 4 holds 2.5.
TEST(PtoAsFuncCall, ReturnedValuesFeedIndexArithmetic) {
  const std::string T = tb(1, 8);
  const std::string prog = fmt::format(R"(module {{
  func.func @k(%o: !pto.ptr<f32>, %x: i32) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %v = pto.make_tensor_view %o, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %row = func.call @row_of(%x) : (i32) -> index
    %rc:2 = func.call @wrap(%row) : (index) -> (index, f32)
    %p = pto.partition_view %v, offsets = [%rc#0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    %t = pto.alloc_tile : {0}
    pto.texpands ins(%rc#1 : f32) outs(%t : {0})
    pto.tstore ins(%t : {0}) outs(%p : !pto.partition_tensor_view<1x8xf32>)
    return
  }}
  func.func private @row_of(%a: i32) -> index {{
    %c1 = arith.constant 1 : i32
    %s = arith.addi %a, %c1 : i32
    %i = arith.index_cast %s : i32 to index
    return %i : index
  }}
  func.func private @wrap(%i: index) -> (index, f32) {{
    %c4 = arith.constant 4 : index
    %r = arith.remsi %i, %c4 : index
    %f = arith.constant 2.5 : f32
    func.return %r, %f : index, f32
  }}
}}
)",
                                       T);
  for (int x : {0, 2, 6}) {
    as::RunOptions o;
    o.inputs["o"] = f32(std::vector<float>(32, 0.0f), 4, 8);
    o.scalar_text["x"] = std::to_string(x);
    const auto res = values<float>(as::run(prog, "k.pto", o), "o");
    for (int r = 0; r < 4; ++r)
      EXPECT_EQ(res[size_t(r * 8 + 5)], r == (x + 1) % 4 ? 2.5f : 0.0f)
          << "x=" << x << " row " << r;
  }
}

// Tiles and views pass by reference: @load fills the caller's tile, @bump's TADDS on its argument
// changes the caller's tile, and @twice returns a tile it allocated. out = (a + 1.5 + 1.5) * 2.
TEST(PtoAsFuncCall, TileArgumentsAreTheCallersTiles) {
  const std::string T = tb(1, 8), PV = "!pto.partition_tensor_view<1x8xf32>";
  const std::string prog = fmt::format(R"(module {{
  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %av = pto.make_tensor_view %a, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %ov = pto.make_tensor_view %o, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %pa = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> {1}
    %po = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> {1}
    %t = pto.alloc_tile : {0}
    func.call @load(%pa, %t) : ({1}, {0}) -> ()
    %s = arith.constant 1.5 : f32
    func.call @bump(%t, %s) : ({0}, f32) -> ()
    func.call @bump(%t, %s) : ({0}, f32) -> ()
    %u = func.call @twice(%t) : ({0}) -> {0}
    pto.tstore ins(%u : {0}) outs(%po : {1})
    return
  }}
  func.func private @load(%p: {1}, %t: {0}) {{
    pto.tload ins(%p : {1}) outs(%t : {0})
    return
  }}
  func.func private @bump(%t: {0}, %s: f32) {{
    pto.tadds ins(%t, %s : {0}, f32) outs(%t : {0})
    return
  }}
  func.func private @twice(%t: {0}) -> {0} {{
    %d = pto.alloc_tile : {0}
    pto.tadd ins(%t, %t : {0}, {0}) outs(%d : {0})
    return %d : {0}
  }}
}}
)",
                                       T, PV);
  as::RunOptions o;
  o.inputs["a"] = f32(iota_f(8, 0.25f), 1, 8);
  o.inputs["o"] = f32(std::vector<float>(8, 0.0f), 1, 8);
  const auto res = values<float>(as::run(prog, "k.pto", o), "o");
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(res[i], (0.25f * float(i) + 3.0f) * 2.0f) << i;
}

// Without an entry name the function marked {pto.entry} runs, else the module's first; a named
// entry wins. An entry takes only !pto.ptr and scalar arguments.
TEST(PtoAsFuncCall, PtoEntrySelectsTheKernel) {
  const std::string T = tb(1, 8);
  const std::string kern = R"(
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %v = pto.make_tensor_view %o, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    %t = pto.alloc_tile : {0}
    %x = arith.constant {1} : f32
    func.call @fill(%t, %x) : ({0}, f32) -> ()
    pto.tstore ins(%t : {0}) outs(%p : !pto.partition_tensor_view<1x8xf32>)
    return
)";
  const std::string prog = fmt::format(R"(module {{
  func.func private @fill(%t: {0}, %v: f32) {{
    pto.texpands ins(%v : f32) outs(%t : {0})
    return
  }}
  func.func @k(%o: !pto.ptr<f32>) attributes {{pto.entry}} {{{1}  }}
  func.func @other(%o: !pto.ptr<f32>) {{{2}  }}
}}
)",
                                       T, fmt::format(fmt::runtime(kern), T, "4.0"),
                                       fmt::format(fmt::runtime(kern), T, "9.0"));
  as::RunOptions o;
  o.inputs["o"] = f32(std::vector<float>(8, 0.0f), 1, 8);
  EXPECT_EQ(values<float>(as::run(prog, "k.pto", o), "o")[7], 4.0f);
  const auto params = as::parameters(prog, "k.pto");
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].name, "o");
  o.entry = "other";
  EXPECT_EQ(values<float>(as::run(prog, "k.pto", o), "o")[7], 9.0f);
  o.entry.clear();
  // No pto.entry: the first function, @fill, which takes a tile, cannot be the kernel.
  std::string e = error_of(subst(prog, " attributes {pto.entry}", ""), o);
  EXPECT_NE(e.find("k.pto:2:31: the entry function @fill's argument '%t' is !pto.tile_buf<"),
            std::string::npos)
      << e;
  e = error_of(
      subst(prog, "@other(%o: !pto.ptr<f32>)", "@other(%o: !pto.ptr<f32>) attributes {pto.entry}"),
      o);
  EXPECT_NE(e.find("@k and @other are both marked pto.entry: name the entry"), std::string::npos)
      << e;
}

// The helper of the errors below: @h(i32) -> i32.
namespace {
const char* kCalls = R"(module {
  func.func @k(%o: !pto.ptr<f32>, %x: i32) {
    %i = arith.constant 0 : index
    %r = func.call @h(%x) : (i32) -> i32
    return
  }
  func.func private @h(%a: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %s = arith.addi %a, %c1 : i32
    return %s : i32
  }
}
)";
}  // namespace

TEST(PtoAsFuncErrors, CallsAreCheckedAgainstTheSignature) {
  as::RunOptions o;
  o.inputs["o"] = f32(std::vector<float>(8, 0.0f), 1, 8);
  o.scalar_text["x"] = "1";
  EXPECT_EQ(error_of(kCalls, o), "(no error)");
  const struct {
    const char* from;
    const char* to;
    const char* want;
  } cases[] = {
      {"func.call @h(%x) : (i32)", "func.call @h(%x, %x) : (i32, i32)",
       "k.pto:4:10: @h takes 1 argument, the call passes 2, at 'func.call'"},
      {"func.call @h(%x) : (i32)", "func.call @h(%i) : (index)",
       "k.pto:4:23: argument 0 of the call to @h is index, its parameter '%a' is i32"},
      {"func.call @h(%x) : (i32)", "func.call @h(%x) : (index)",
       "type of '%x' is i32, its annotation here differs"},
      {"func.call @h(", "func.call @nope(",
       "k.pto:4:10: unknown function '@nope' (the module has @k, @h)"},
      {"(i32) -> i32\n", "(i32) -> index\n", "result 0 of the call to @h is index, @h returns i32"},
      {"%r = func.call", "func.call", "k.pto:4:5: 1 result type, 0 results named, at 'func.call'"},
      {"%r = func.call @h(%x) : (i32) -> i32", "%r = func.call @h(%x) : (i32) -> (i32, i32)",
       "2 result types, 1 result named"},
      {"return %s : i32", "return %a : index", "type of '%a' is i32, its annotation here differs"},
      {"-> i32 {", "-> index {", "k.pto:10:12: @h's result 0 is index, this value is i32"},
      {"return %s : i32", "return", "k.pto:10:5: @h returns 1 value, this returns 0"},
      {"func.func @k(%o: !pto.ptr<f32>, %x: i32) {\n    %i = arith.constant 0 : index\n    %r = "
       "func.call @h(%x) : (i32) -> i32\n    return\n",
       "func.func @k(%o: !pto.ptr<f32>, %x: i32) -> i32 {\n    %i = arith.constant 0 : index\n    "
       "%r = func.call @h(%x) : (i32) -> i32\n    return %r : i32\n",
       "k.pto:2:44: the entry function @k returns nothing (its outputs are its !pto.ptr "
       "arguments)"},
      {"    %s = arith.addi %a, %c1 : i32\n",
       "    %s = arith.addi %a, %c1 : i32\n    %t = arith.constant true\n    scf.if %t {\n      "
       "return\n    }\n",
       "'return' ends a func.func body; an scf region ends with scf.yield"},
      {"func.func private @h(", "func.func private @k(",
       "k.pto:7:3: redefinition of function '@k'"},
  };
  for (const auto& c : cases) {
    const std::string bad = subst(kCalls, c.from, c.to);
    ASSERT_NE(bad, kCalls) << c.from;
    const std::string e = error_of(bad, o);
    EXPECT_NE(e.find(c.want), std::string::npos) << c.to << "\n -> " << e;
  }
}

// A recursion that ends runs (64 calls deep at most); one that does not stops at the cap; every
// call counts against max_ops.
TEST(PtoAsFuncErrors, RecursionDepthAndMaxOps) {
  const std::string T = tb(1, 8, "i32");
  const std::string prog = fmt::format(R"(module {{
  func.func @k(%o: !pto.ptr<i32>, %n: index) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %v = pto.make_tensor_view %o, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xi32>
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xi32> -> !pto.partition_tensor_view<1x8xi32>
    %r = func.call @depth(%n) : (index) -> index
    %ri = arith.index_cast %r : index to i32
    %t = pto.alloc_tile : {0}
    pto.texpands ins(%ri : i32) outs(%t : {0})
    pto.tstore ins(%t : {0}) outs(%p : !pto.partition_tensor_view<1x8xi32>)
    return
  }}
  func.func private @depth(%n: index) -> index {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.cmpi eq, %n, %c0 : index
    %r = scf.if %z -> (index) {{
      scf.yield %c0 : index
    }} else {{
      %m = arith.subi %n, %c1 : index
      %d = func.call @depth(%m) : (index) -> index
      %e = arith.addi %d, %c1 : index
      scf.yield %e : index
    }}
    return %r : index
  }}
}}
)",
                                       T);
  as::RunOptions o;
  o.inputs["o"] = i32(std::vector<int32_t>(8, 0), 1, 8);
  o.scalar_text["n"] = "10";
  EXPECT_EQ(values<int32_t>(as::run(prog, "k.pto", o), "o")[0], 10);
  o.scalar_text["n"] = "63";  // @k calls @depth(63) ... @depth(0): 64 calls deep
  EXPECT_EQ(values<int32_t>(as::run(prog, "k.pto", o), "o")[0], 63);
  o.scalar_text["n"] = "64";
  std::string e = error_of(prog, o);
  EXPECT_NE(e.find("k.pto:23:12: func.call @depth: calls nested deeper than 64"), std::string::npos)
      << e;
  // Three calls of an empty function are three operations.
  const std::string calls = R"(module {
  func.func @k() {
    func.call @nothing() : () -> ()
    func.call @nothing() : () -> ()
    func.call @nothing() : () -> ()
    return
  }
  func.func private @nothing() {
    return
  }
}
)";
  as::RunOptions m;
  m.max_ops = 3;
  EXPECT_EQ(error_of(calls, m), "(no error)");
  m.max_ops = 2;
  e = error_of(calls, m);
  EXPECT_NE(e.find("k.pto:5:5: the program ran more than 2 operations (max_ops), at 'func.call'"),
            std::string::npos)
      << e;
}

// Regions nested along the whole call chain are bounded (the host stack a run can use): a
// recursion with its call three regions deep stops at 256 running regions, within the call cap.
TEST(PtoAsFuncErrors, NestingAcrossCallsIsBounded) {
  const std::string prog = R"(module {
  func.func @k(%n: index) {
    %r = func.call @deep(%n) : (index) -> index
    return
  }
  func.func private @deep(%n: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %z = arith.cmpi eq, %n, %c0 : index
    %r = scf.if %z -> (index) {
      scf.yield %c0 : index
    } else {
      %a = scf.if %true -> (index) {
        %b = scf.if %true -> (index) {
          %c = scf.if %true -> (index) {
            %m = arith.subi %n, %c1 : index
            %d = func.call @deep(%m) : (index) -> index
            scf.yield %d : index
          } else {
            scf.yield %c0 : index
          }
          scf.yield %c : index
        } else {
          scf.yield %c0 : index
        }
        scf.yield %b : index
      } else {
        scf.yield %c0 : index
      }
      scf.yield %a : index
    }
    return %r : index
  }
}
)";
  as::RunOptions o;
  o.scalar_text["n"] = "40";  // 5 regions per level: 203 running at the bottom
  EXPECT_EQ(error_of(prog, o), "(no error)");
  o.scalar_text["n"] = "63";  // 318 > 256, with 64 calls (the call cap)
  EXPECT_NE(error_of(prog, o).find("regions and calls nested deeper than 256 while running"),
            std::string::npos)
      << error_of(prog, o);
}
