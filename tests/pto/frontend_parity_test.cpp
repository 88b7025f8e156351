// One engine behind every front end (spec 70 items 6, 12): for a representative instruction of each
// operand shape (Kind) of the table, the vendor C++ API (pto::Tile + pto::TADD ...), PTO-AS text
// (tilesim::pto::as::run) and the engine entry point (tilesim::pto::execute) give the same bits on
// the same random inputs (NaN, Inf, subnormals and integer extremes included), on a2a3 with the
// tmp operands its pages ask for.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <pto/pto-inst.hpp>

#include <bit>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "pto_test_util.hpp"
#include "tilesim/pto/frontend.hpp"
#include "tilesim/pto/ptoas.hpp"

namespace {

using namespace pto_test;
using tilesim::pto::Call;
using tilesim::pto::execute;
using tilesim::pto::find_target;
using tilesim::pto::Instr;
using tilesim::pto::Ub;

template <class T, int R, int C, pto::BLayout L = pto::BLayout::RowMajor>
using VT = pto::Tile<pto::TileType::Vec, T, R, C, L>;
template <class T, int R>
using Col = VT<T, R, 1, pto::BLayout::ColMajor>;

const tilesim::pto::Target& A2 = find_target("a2a3");

HostTile rnd(std::mt19937& g, Elem e, int r, int c, bool row_major = true) {
  HostTile t(e, r, c, row_major);
  fill_random(g, e, t.bytes.data(), size_t(r) * size_t(c));
  return t;
}

template <class Tile>
void load(Tile& t, const HostTile& h) {
  ASSERT_EQ(sizeof(*t.data()) * size_t(Tile::Rows) * size_t(Tile::Cols), h.bytes.size());
  std::memcpy(t.data(), h.bytes.data(), h.bytes.size());
}
template <class Tile>
std::vector<uint8_t> bytes_of(const Tile& t) {
  const auto* p = reinterpret_cast<const uint8_t*>(t.data());
  return {p, p + sizeof(*t.data()) * size_t(Tile::Rows) * size_t(Tile::Cols)};
}

std::string as_elem(Elem e) {
  static const char* kNames[] = {"f16", "bf16", "f32", "i8", "i16", "i32",
                                 "ui8", "ui16", "ui32", "i64", "ui64"};
  return kNames[unsigned(e)];
}
std::string type_of(const HostTile& h) {
  return fmt::format("!pto.tile_buf<vec, {}x{}x{}{}>", h.d.rows, h.d.cols, as_elem(h.d.dtype),
                     h.d.row_major ? "" : ", blayout=col_major");
}

// Runs `body` (one DPS statement; "{x}" stands for the type of .arg %x) on a2a3 with the given
// tiles as .args, and returns the storage bytes of `out` after the run.
std::vector<uint8_t> run_as(std::string body, const std::map<std::string, const HostTile*>& args,
                            const std::string& out) {
  std::string prog = ".target a2a3\n";
  tilesim::pto::as::RunOptions o;
  for (const auto& [name, h] : args) {
    prog += ".arg %" + name + " : " + type_of(*h) + "\n";
    for (size_t p; (p = body.find("{" + name + "}")) != std::string::npos;)
      body.replace(p, name.size() + 2, type_of(*h));
    EXPECT_TRUE(h->d.row_major || h->d.cols == 1) << "logical order = storage order";
    tilesim::npy::Array a;
    a.descr = tilesim::pto::as::carrier_descr(tilesim::pto::elem_name(h->d.dtype));
    a.shape = {size_t(h->d.rows), size_t(h->d.cols)};
    a.data = h->bytes;
    o.inputs[name] = a;
  }
  prog += body + "\n";
  for (const auto& r : tilesim::pto::as::run(prog, "parity.pto", o))
    if (r.name == out) return r.array.data;
  ADD_FAILURE() << "no output " << out;
  return {};
}

void same3(const char* what, const std::vector<uint8_t>& cxx, const std::vector<uint8_t>& engine,
           const std::vector<uint8_t>& text) {
  EXPECT_EQ(cxx, engine) << what << ": C++ API vs engine";
  EXPECT_EQ(text, engine) << what << ": PTO-AS vs engine";
}

struct A2a3 {
  A2a3() { pto::set_target("a2a3"); }
};

class PtoParity : public ::testing::Test {
 protected:
  A2a3 target_;
  std::mt19937 g{2024};
};

TEST_F(PtoParity, Binary_TADD) {
  const HostTile a = rnd(g, Elem::f32, 16, 32), b = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::f32, 16, 32, true);
  const HostTile d0 = d;
  VT<float, 16, 32> ca, cb, cd;
  load(ca, a);
  load(cb, b);
  pto::TADD(cd, ca, cb);
  const auto text = run_as("pto.tadd ins(%a, %b : {a}, {b}) outs(%d : {d})",
                           {{"a", &a}, {"b", &b}, {"d", &d0}}, "d");
  execute({.instr = Instr::TADD, .dst = &d.d, .src0 = &a.d, .src1 = &b.d}, A2, Ub{});
  same3("TADD", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, BinaryTmp_TREM) {
  const HostTile a = rnd(g, Elem::f32, 16, 32), b = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::f32, 16, 32, true), t(Elem::f32, 1, 40, true);  // TREM.md: >= 32 + 2 columns
  const HostTile d0 = d;
  VT<float, 16, 32> ca, cb, cd;
  VT<float, 1, 40> ct;
  load(ca, a);
  load(cb, b);
  pto::TREM(cd, ca, cb, ct);
  const auto text = run_as("pto.trem ins(%a, %b, %t : {a}, {b}, {t}) outs(%d : {d})",
                           {{"a", &a}, {"b", &b}, {"t", &t}, {"d", &d0}}, "d");
  execute({.instr = Instr::TREM, .dst = &d.d, .src0 = &a.d, .src1 = &b.d, .tmp = &t.d}, A2, Ub{});
  same3("TREM", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, Unary_TEXP) {
  const HostTile a = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::f32, 16, 32, true);
  const HostTile d0 = d;
  VT<float, 16, 32> ca, cd;
  load(ca, a);
  pto::TEXP(cd, ca);
  const auto text = run_as("%r = pto.texp %a : {a} -> !pto.tile<16x32xf32>", {{"a", &a}}, "r");
  execute({.instr = Instr::TEXP, .dst = &d.d, .src0 = &a.d}, A2, Ub{});
  same3("TEXP", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, UnaryRsqrt_TRSQRT_TmpForm) {  // a2a3's tmp form: sqrt, then 1/x
  const HostTile a = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::f32, 16, 32, true), t(Elem::f32, 1, 8, true);
  const HostTile d0 = d, t0 = t;
  VT<float, 16, 32> ca, cd;
  VT<float, 1, 8> ct;
  load(ca, a);
  pto::TRSQRT(cd, ca, ct);
  const auto text = run_as("pto.trsqrt ins(%a, %t : {a}, {t}) outs(%d : {d})",
                           {{"a", &a}, {"t", &t0}, {"d", &d0}}, "d");
  execute({.instr = Instr::TRSQRT, .dst = &d.d, .src0 = &a.d, .tmp = &t.d}, A2, Ub{});
  same3("TRSQRT", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, Scalar_TMULS) {
  const HostTile a = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::f32, 16, 32, true);
  const HostTile d0 = d;
  VT<float, 16, 32> ca, cd;
  load(ca, a);
  pto::TMULS(cd, ca, 1.5f);
  const auto text = run_as("pto.tmuls ins(%a, 1.5 : {a}, f32) outs(%d : {d})",
                           {{"a", &a}, {"d", &d0}}, "d");
  execute({.instr = Instr::TMULS, .dst = &d.d, .src0 = &a.d,
           .scalar = std::bit_cast<uint32_t>(1.5f)},
          A2, Ub{});
  same3("TMULS", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, ScalarDiv_TDIVS_ScalarFirst) {
  const HostTile a = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::f32, 16, 32, true);
  const HostTile d0 = d;
  VT<float, 16, 32> ca, cd;
  load(ca, a);
  pto::TDIVS(cd, 3.0f, ca);
  const auto text = run_as("pto.tdivs ins(3.0, %a : f32, {a}) outs(%d : {d})",
                           {{"a", &a}, {"d", &d0}}, "d");
  execute({.instr = Instr::TDIVS, .dst = &d.d, .src0 = &a.d,
           .scalar = std::bit_cast<uint32_t>(3.0f), .scalar_first = true},
          A2, Ub{});
  same3("TDIVS", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, ScalarTmp_TXORS) {
  const HostTile a = rnd(g, Elem::s32, 16, 32);
  HostTile d(Elem::s32, 16, 32, true), t(Elem::s32, 16, 32, true);  // TXORS.md: shaped like dst
  const HostTile d0 = d, t0 = t;
  VT<int32_t, 16, 32> ca, cd, ct;
  load(ca, a);
  pto::TXORS(cd, ca, int32_t(-23131), ct);
  const auto text = run_as("pto.txors ins(%a, -23131, %t : {a}, i32, {t}) outs(%d : {d})",
                           {{"a", &a}, {"t", &t0}, {"d", &d0}}, "d");
  execute({.instr = Instr::TXORS, .dst = &d.d, .src0 = &a.d, .tmp = &t.d,
           .scalar = uint32_t(-23131)},
          A2, Ub{});
  same3("TXORS", bytes_of(cd), d.bytes, text);
  EXPECT_EQ(bytes_of(ct), t.bytes) << "a2a3 TXORS leaves src | scalar in tmp";
}

TEST_F(PtoParity, LeakyRelu_TLRELU) {
  const HostTile a = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::f32, 16, 32, true);
  const HostTile d0 = d;
  VT<float, 16, 32> ca, cd;
  load(ca, a);
  pto::TLRELU(cd, ca, 0.125f);
  const auto text = run_as("pto.tlrelu ins(%a, 0.125 : {a}, f32) outs(%d : {d})",
                           {{"a", &a}, {"d", &d0}}, "d");
  execute({.instr = Instr::TLRELU, .dst = &d.d, .src0 = &a.d,
           .scalar = std::bit_cast<uint32_t>(0.125f)},
          A2, Ub{});
  same3("TLRELU", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, Axpy_TAXPY) {  // dst is read: the same random initial dst everywhere
  const HostTile a = rnd(g, Elem::f32, 16, 32), d0 = rnd(g, Elem::f32, 16, 32);
  HostTile d = d0;
  VT<float, 16, 32> ca, cd;
  load(ca, a);
  load(cd, d0);
  pto::TAXPY(cd, ca, 2.5f);
  const auto text = run_as("pto.taxpy ins(%a, 2.5 : {a}, f32) outs(%d : {d})",
                           {{"a", &a}, {"d", &d0}}, "d");
  execute({.instr = Instr::TAXPY, .dst = &d.d, .src0 = &a.d,
           .scalar = std::bit_cast<uint32_t>(2.5f)},
          A2, Ub{});
  same3("TAXPY", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, ExpandScalar_TEXPANDS) {
  HostTile d(Elem::f32, 16, 32, true);
  const HostTile d0 = d;
  VT<float, 16, 32> cd;
  pto::TEXPANDS(cd, -7.25f);
  const auto text = run_as("pto.texpands ins(-7.25 : f32) outs(%d : {d})", {{"d", &d0}}, "d");
  execute({.instr = Instr::TEXPANDS, .dst = &d.d, .scalar = std::bit_cast<uint32_t>(-7.25f)}, A2,
          Ub{});
  same3("TEXPANDS", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, Compare_TCMP) {
  const HostTile a = rnd(g, Elem::f32, 16, 32), b = rnd(g, Elem::f32, 16, 32);
  HostTile m(Elem::u8, 16, 32, true);
  const HostTile m0 = m;
  VT<float, 16, 32> ca, cb;
  VT<uint8_t, 16, 32> cm;
  load(ca, a);
  load(cb, b);
  pto::TCMP(cm, ca, cb, pto::CmpMode::LT);
  const auto text = run_as("pto.tcmp ins(%a, %b {cmpMode = #pto<cmp lt>} : {a}, {b}) outs(%m : {m})",
                           {{"a", &a}, {"b", &b}, {"m", &m0}}, "m");
  execute({.instr = Instr::TCMP, .dst = &m.d, .src0 = &a.d, .src1 = &b.d, .cmp = 2}, A2, Ub{});
  same3("TCMP", bytes_of(cm), m.bytes, text);
}

TEST_F(PtoParity, CompareScalar_TCMPS) {
  const HostTile a = rnd(g, Elem::f32, 16, 32);
  HostTile m(Elem::u8, 16, 32, true);
  const HostTile m0 = m;
  VT<float, 16, 32> ca;
  VT<uint8_t, 16, 32> cm;
  load(ca, a);
  pto::TCMPS(cm, ca, 0.0f, pto::CmpMode::GE);
  const auto text = run_as("pto.tcmps ins(%a, 0.0 {cmpMode = #pto<cmp ge>} : {a}, f32) outs(%m : {m})",
                           {{"a", &a}, {"m", &m0}}, "m");
  execute({.instr = Instr::TCMPS, .dst = &m.d, .src0 = &a.d, .scalar = 0, .cmp = 5}, A2, Ub{});
  same3("TCMPS", bytes_of(cm), m.bytes, text);
}

TEST_F(PtoParity, Select_TSEL) {
  const HostTile a = rnd(g, Elem::f32, 16, 32), b = rnd(g, Elem::f32, 16, 32),
                 m = rnd(g, Elem::u8, 16, 32);
  HostTile d(Elem::f32, 16, 32, true), t(Elem::u32, 1, 8, true);  // TSEL.md: u32, >= 2 words
  const HostTile d0 = d, t0 = t;
  VT<float, 16, 32> ca, cb, cd;
  VT<uint8_t, 16, 32> cm;
  VT<uint32_t, 1, 8> ct;
  load(ca, a);
  load(cb, b);
  load(cm, m);
  pto::TSEL(cd, cm, ca, cb, ct);
  const auto text = run_as("pto.tsel ins(%m, %a, %b, %t : {m}, {a}, {b}, {t}) outs(%d : {d})",
                           {{"a", &a}, {"b", &b}, {"m", &m}, {"t", &t0}, {"d", &d0}}, "d");
  execute({.instr = Instr::TSEL, .dst = &d.d, .src0 = &a.d, .src1 = &b.d, .mask = &m.d,
           .tmp = &t.d},
          A2, Ub{});
  same3("TSEL", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, SelectScalar_TSELS) {
  const HostTile a = rnd(g, Elem::f32, 16, 32), m = rnd(g, Elem::u8, 16, 32);
  HostTile d(Elem::f32, 16, 32, true), t(Elem::f32, 1, 8, true);
  const HostTile d0 = d, t0 = t;
  VT<float, 16, 32> ca, cd;
  VT<uint8_t, 16, 32> cm;
  VT<float, 1, 8> ct;
  load(ca, a);
  load(cm, m);
  pto::TSELS(cd, cm, ca, ct, 9.0f);
  const auto text = run_as("pto.tsels ins(%m, %a, %t, 9 : {m}, {a}, {t}, f32) outs(%d : {d})",
                           {{"a", &a}, {"m", &m}, {"t", &t0}, {"d", &d0}}, "d");
  execute({.instr = Instr::TSELS, .dst = &d.d, .src0 = &a.d, .mask = &m.d, .tmp = &t.d,
           .scalar = std::bit_cast<uint32_t>(9.0f)},
          A2, Ub{});
  same3("TSELS", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, RowReduce_TROWSUM) {
  const HostTile a = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::f32, 16, 1, false), t(Elem::f32, 16, 32, true);
  const HostTile d0 = d, t0 = t;
  VT<float, 16, 32> ca, ct;
  Col<float, 16> cd;
  load(ca, a);
  pto::TROWSUM(cd, ca, ct);
  const auto text = run_as("pto.trowsum ins(%a, %t : {a}, {t}) outs(%d : {d})",
                           {{"a", &a}, {"t", &t0}, {"d", &d0}}, "d");
  // Without a tmp operand PTO-AS passes a scratch one: the same bits.
  const auto text2 = run_as("pto.trowsum ins(%a : {a}) outs(%d : {d})", {{"a", &a}, {"d", &d0}}, "d");
  execute({.instr = Instr::TROWSUM, .dst = &d.d, .src0 = &a.d, .tmp = &t.d}, A2, Ub{});
  same3("TROWSUM", bytes_of(cd), d.bytes, text);
  EXPECT_EQ(text2, d.bytes);
}

TEST_F(PtoParity, ColReduce_TCOLMAX) {
  const HostTile a = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::f32, 1, 32, true);
  const HostTile d0 = d;
  VT<float, 16, 32> ca;
  VT<float, 1, 32> cd;
  load(ca, a);
  pto::TCOLMAX(cd, ca);
  const auto text = run_as("pto.tcolmax ins(%a : {a}) outs(%d : {d})", {{"a", &a}, {"d", &d0}}, "d");
  execute({.instr = Instr::TCOLMAX, .dst = &d.d, .src0 = &a.d}, A2, Ub{});
  same3("TCOLMAX", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, RowArg_TROWARGMAX) {
  const HostTile a = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::s32, 16, 1, false), t(Elem::f32, 16, 32, true);
  const HostTile d0 = d, t0 = t;
  VT<float, 16, 32> ca, ct;
  Col<int32_t, 16> cd;
  load(ca, a);
  pto::TROWARGMAX(cd, ca, ct);
  const auto text = run_as("pto.trowargmax ins(%a, %t : {a}, {t}) outs(%d : {d})",
                           {{"a", &a}, {"t", &t0}, {"d", &d0}}, "d");
  execute({.instr = Instr::TROWARGMAX, .src0 = &a.d, .tmp = &t.d, .dst_idx = &d.d}, A2, Ub{});
  same3("TROWARGMAX", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, ColArg_TCOLARGMIN) {
  const HostTile a = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::s32, 1, 32, true), t(Elem::f32, 16, 32, true);
  const HostTile d0 = d, t0 = t;
  VT<float, 16, 32> ca, ct;
  VT<int32_t, 1, 32> cd;
  load(ca, a);
  pto::TCOLARGMIN(cd, ca, ct);
  const auto text = run_as("pto.tcolargmin ins(%a, %t : {a}, {t}) outs(%d : {d})",
                           {{"a", &a}, {"t", &t0}, {"d", &d0}}, "d");
  execute({.instr = Instr::TCOLARGMIN, .src0 = &a.d, .tmp = &t.d, .dst_idx = &d.d}, A2, Ub{});
  same3("TCOLARGMIN", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, RowExpand_TROWEXPAND) {
  const HostTile a = rnd(g, Elem::f32, 16, 1, false);
  HostTile d(Elem::f32, 16, 32, true);
  const HostTile d0 = d;
  Col<float, 16> ca;
  VT<float, 16, 32> cd;
  load(ca, a);
  pto::TROWEXPAND(cd, ca);
  const auto text = run_as("pto.trowexpand ins(%a : {a}) outs(%d : {d})", {{"a", &a}, {"d", &d0}}, "d");
  execute({.instr = Instr::TROWEXPAND, .dst = &d.d, .src0 = &a.d}, A2, Ub{});
  same3("TROWEXPAND", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, ColExpand_TCOLEXPAND) {
  const HostTile a = rnd(g, Elem::f32, 1, 32);
  HostTile d(Elem::f32, 16, 32, true);
  const HostTile d0 = d;
  VT<float, 1, 32> ca;
  VT<float, 16, 32> cd;
  load(ca, a);
  pto::TCOLEXPAND(cd, ca);
  const auto text = run_as("pto.tcolexpand ins(%a : {a}) outs(%d : {d})", {{"a", &a}, {"d", &d0}}, "d");
  execute({.instr = Instr::TCOLEXPAND, .dst = &d.d, .src0 = &a.d}, A2, Ub{});
  same3("TCOLEXPAND", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, ColExpandOp_TCOLEXPANDSUB_ExpandedFirst) {
  const HostTile a = rnd(g, Elem::f32, 1, 32), b = rnd(g, Elem::f32, 16, 32);
  HostTile d(Elem::f32, 16, 32, true);
  const HostTile d0 = d;
  VT<float, 1, 32> ca;
  VT<float, 16, 32> cb, cd;
  load(ca, a);
  load(cb, b);
  pto::TCOLEXPANDSUB(cd, ca, cb);
  const auto text = run_as("pto.tcolexpandsub ins(%a, %b : {a}, {b}) outs(%d : {d})",
                           {{"a", &a}, {"b", &b}, {"d", &d0}}, "d");
  execute({.instr = Instr::TCOLEXPANDSUB, .dst = &d.d, .src0 = &a.d, .src1 = &b.d}, A2, Ub{});
  same3("TCOLEXPANDSUB", bytes_of(cd), d.bytes, text);
}

TEST_F(PtoParity, Convert_TCVT) {
  const HostTile a = rnd(g, Elem::f32, 16, 32);
  {  // fp32 -> s16, truncation, saturation off (a pair whose explicit mode a2a3 honours)
    HostTile d(Elem::s16, 16, 32, true);
    const HostTile d0 = d;
    VT<float, 16, 32> ca;
    VT<int16_t, 16, 32> cd;
    load(ca, a);
    pto::TCVT(cd, ca, pto::RoundMode::CAST_TRUNC, pto::SaturationMode::OFF);
    const auto text = run_as(
        "pto.tcvt ins(%a {rmode = #pto<round_mode TRUNC>, sat_mode = #pto<saturation_mode OFF>} "
        ": {a}) outs(%d : {d})",
        {{"a", &a}, {"d", &d0}}, "d");
    execute({.instr = Instr::TCVT, .dst = &d.d, .src0 = &a.d, .round = 5, .sat = 1}, A2, Ub{});
    same3("TCVT f32->s16", bytes_of(cd), d.bytes, text);
  }
  {  // fp32 -> fp16, round to nearest even (PTOAS's default rmode)
    HostTile d(Elem::f16, 16, 32, true);
    const HostTile d0 = d;
    VT<float, 16, 32> ca;
    VT<pto::half, 16, 32> cd;
    load(ca, a);
    pto::TCVT(cd, ca, pto::RoundMode::CAST_RINT);
    const auto text = run_as("pto.tcvt ins(%a : {a}) outs(%d : {d})", {{"a", &a}, {"d", &d0}}, "d");
    execute({.instr = Instr::TCVT, .dst = &d.d, .src0 = &a.d, .round = 1}, A2, Ub{});
    same3("TCVT f32->f16", bytes_of(cd), d.bytes, text);
  }
}

// The parity cases above name one instruction of every operand shape of the table.
TEST(PtoParityCoverage, EveryKindHasACase) {
  const std::vector<std::string> names = {
      "Binary_TADD", "BinaryTmp_TREM", "Unary_TEXP", "UnaryRsqrt_TRSQRT_TmpForm", "Scalar_TMULS",
      "ScalarDiv_TDIVS_ScalarFirst", "ScalarTmp_TXORS", "LeakyRelu_TLRELU", "Axpy_TAXPY",
      "ExpandScalar_TEXPANDS", "Compare_TCMP", "CompareScalar_TCMPS", "Select_TSEL",
      "SelectScalar_TSELS", "RowReduce_TROWSUM", "ColReduce_TCOLMAX", "RowArg_TROWARGMAX",
      "ColArg_TCOLARGMIN", "RowExpand_TROWEXPAND", "ColExpand_TCOLEXPAND",
      "ColExpandOp_TCOLEXPANDSUB_ExpandedFirst", "Convert_TCVT"};
  for (int i = 0; i < tilesim::pto::num_instrs(); ++i) {
    const auto& info = tilesim::pto::instr_info(Instr(i));
    if (!tilesim::pto::is_vector_kind(info.kind)) continue;  // GM operands: kernel_test.cpp
    const std::string kind = tilesim::pto::fe::kind_name(info.kind);
    bool found = false;
    for (const auto& n : names) found = found || n.rfind(kind + "_", 0) == 0;
    EXPECT_TRUE(found) << kind;
  }
}

}  // namespace
