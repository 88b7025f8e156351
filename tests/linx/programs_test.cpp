// LinxISA programs from memory to memory (spec 31): memory host API, the new words' known answers
// (spec 31 §1–§3, each noting its source), TLOAD/TSTORE/TMOV, ACCCVT, TEPL, the relu(xW+b) program
// against an independent computation, TEPL vs PTO parity, and one test per fault with untouched
// memory, tiles and ACC.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "linx/encoding_table.hpp"
#include "support.hpp"
#include "tilesim/pto/engine.hpp"

using namespace tilesim::linx;
using namespace linx_test;

namespace {
#define EXPECT_HAS(hay, needle) EXPECT_NE(std::string(hay).find(needle), std::string::npos) << (hay)

template <class T>
std::span<const uint8_t> bytes_of(const std::vector<T>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)};
}
uint16_t f16(float x) { return static_cast<uint16_t>(fm::encode(x, DType::fp16)); }
float from16(uint16_t c) { return static_cast<float>(fm::decode(c, DType::fp16)); }

// ---- memory (spec 31 §1) ----
TEST(LinxMemory, WriteReadAndBounds) {
  Machine m("linx_v056", 4096);
  EXPECT_EQ(m.mem_bytes(), 4096u);
  const std::vector<uint8_t> data = {1, 2, 3, 4, 5};
  m.write_mem(4091, data);
  EXPECT_EQ(m.read_mem(4091, 5), data);
  EXPECT_EQ(m.read_mem(0, 4), (std::vector<uint8_t>{0, 0, 0, 0}));  // zero-filled
  try {
    m.write_mem(4092, data);
    ADD_FAILURE() << "no error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Bounds);
    EXPECT_HAS(e.what(), "bytes [4092, 4092 + 5) lie outside the 4096-byte memory");
  }
  EXPECT_EQ(m.read_mem(4091, 5), data);  // nothing written
  EXPECT_THROW(m.read_mem(~uint64_t{0}, 2), tilesim::Error);  // no wrap-around
  EXPECT_THROW(Machine("linx_v056", 0), tilesim::Error);
  EXPECT_EQ(Machine().mem_bytes(), size_t{64} << 20);  // default 64 MiB
  // read_array: little-endian elements, nz layout through unpack
  const std::vector<float> v = {1.5f, -2.0f, 3.25f, 0.0f};
  m.write_mem(8, bytes_of(v));
  const auto back = m.read_array(8, 2, 2, DType::fp32);
  EXPECT_EQ(std::memcmp(back.data(), v.data(), 16), 0);
}

// ---- known words (spec 31 §1–§3, each from the spec's text or lx_32.opc) ----
struct Known {
  uint32_t word;
  const char* text;    // what assembles to `word`
  const char* printed; // what the disassembler prints (nullptr: text)
};
const Known kKnown[] = {
    {0x00310013, "B.IOR a0, a1", nullptr},                                   // spec 31 §1
    {0x000031C3, "B.ARG 3", nullptr},                                        // spec 31 §1
    {0x180221A3, "B.ARG ND2ZN.normal, FP16, Null", nullptr},                 // lx_32.opc row 26
    {0x1800A4A3, "B.ARG DN2NZ.normal, FP32, Null", nullptr},                 // row 27
    {0x18022423, "B.ARG DN2ZN.normal, FP16, Null", nullptr},                 // row 28
    {0x020FAE23, "B.ARG NZ2DN.canon", nullptr},                              // row 29
    {0x000FA023, "B.ARG NORM.normal", nullptr},                              // row 30
    {0x30006013, "B.IOT last, ->T<4KB>", nullptr},                           // spec 31 §1
    {0x21C0D813, "B.IOT N#1, last", nullptr},                                // spec 31 §1
    {0x20011181, "BSTART.TLOAD FP16", nullptr},                              // spec 31 §2
    {0x20011181, "BSTART.TMA TLOAD, FP16", "BSTART.TLOAD FP16"},
    {0x20011181, "BSTART.TMA 0, FP16", "BSTART.TLOAD FP16"},
    {0x08111181, "BSTART.TSTORE FP32", nullptr},                             // spec 30 §2 (LLVM encoding line)
    {0x08831181, "BSTART.ACCCVT FP32", nullptr},                             // spec 31 §2
    {0x22121181, "BSTART.TEPL TMAXS, FP16", nullptr},                        // spec 31 §2
    {0x22121181, "BSTART.TMAXS FP16", "BSTART.TEPL TMAXS, FP16"},
    {0x22121181, "BSTART.TEPL 36, FP16", "BSTART.TEPL TMAXS, FP16"},
    {0x02021181, "BSTART.TEPL TMAX, FP64", nullptr},                         // spec 30 §6: = VPAR VS16
    {0xA7301023, "B.DATR normal, INT8, ZERO, cmode3, rmode2, sat",           // spec 31 §3 (MC line)
     "B.DATR S8, sat=1, rmode=2, cmode=3"},
    {0x00401DA3, "B.DATR NZ2ND, FP16", "B.DATR FP16, layout=27"},
    {0x01F19023, "B.DATR Null", "B.DATR pad=3"},
};

TEST(LinxPrograms, KnownWords) {
  for (const auto& k : kKnown) {
    const auto w = assemble(k.text);
    ASSERT_EQ(w.size(), 1u) << k.text;
    EXPECT_EQ(w[0], k.word) << k.text << std::hex << " got 0x" << w[0];
    const std::string printed = std::string(k.printed ? k.printed : k.text) + "\n";
    EXPECT_EQ(disassemble(w), printed);
    EXPECT_EQ(assemble(printed), w) << printed;
  }
}

TEST(LinxPrograms, RejectedSpellings) {
  for (const char* line : {"BSTART.PAR TADD, FP16",      // legacy TEPL spelling (spec 31 §3)
                           "BSTART.TMA 3, FP16",         // reserved TMA functions
                           "BSTART.TMA 31, FP16",
                           "BSTART.TEPL 43, FP16",       // mode 1 function 11
                           "BSTART.TEPL 64, FP16",       // bits 9..6 set
                           "BSTART.VPAR 32",             // VS16: bits 26..25 set = the TEPL selector
                           "B.DATR FP8",                 // LLVM FP8 names another v0.56 type
                           "B.DATR NZ2ND.canon",         // .canon only in the literal B.ARG row
                           "B.DATR FP16, FP32",          // a field given twice
                           "B.ARG 32",
                           "B.ARG ND2ZN.normal, FP32, Null",
                           "B.IOR a0, a1, a2, a3",
                           "B.IOT T#1, last, ->T<a0>"}) {
    EXPECT_THROW(assemble(line), tilesim::Error) << line;
  }
  try {
    assemble("BSTART.VPAR 32");
  } catch (const tilesim::Error& e) {
    EXPECT_HAS(e.what(), "BSTART.TEPL");
  }
}

TEST(LinxPrograms, DatrAnyWordRoundTrips) {
  std::mt19937 rng(5);
  for (int i = 0; i < 2000; ++i) {
    const uint32_t w = (static_cast<uint32_t>(rng()) & ~0x7Fu & ~(7u << 12)) | 0x1023u;
    const auto text = disassemble(std::vector<uint32_t>{w});
    EXPECT_EQ(assemble(text), std::vector<uint32_t>{w}) << text;
  }
}

// ---- programs ----
constexpr uint64_t kX = 0x1000, kW = 0x4000, kB = 0x8000, kOut = 0xC000;

// relu(x W + b): TLOAD x (ND2NZ), W (ND2ZN via the literal B.ARG), b (NORM); TMATMUL.BIAS; ACCCVT to
// FP16 row-major; TEPL TMAXS 0; TSTORE (spec 31 §4).
const char* kRelu = R"(
BSTART.TLOAD FP16
B.DATR ND2NZ
B.DIM zero, 32, ->LB0
B.DIM zero, 16, ->LB1
B.IOR a0
B.IOT last, ->T<1KB>
BSTART.TLOAD FP16
B.ARG ND2ZN.normal, FP16, Null
B.DIM zero, 16, ->LB0
B.DIM zero, 32, ->LB1
B.IOR a1
B.IOT last, ->U<1KB>
BSTART.TLOAD FP32
B.DIM zero, 16, ->LB0
B.IOR a2
B.IOT last, ->N<256B>
TMATMUL.BIAS <LB0:16, LB1:16, LB2:32, FP16>, T#1, U#1, N#1, ->ACC<1KB>
BSTART.ACCCVT FP32
B.DATR FP16, layout=27
B.DIM zero, 16, ->LB0
B.DIM zero, 16, ->LB1
B.IOT last, ->T<512B>
BSTART.TEPL TMAXS, FP16
B.DIM zero, 16, ->LB0
B.DIM zero, 16, ->LB1
B.IOR zero
B.IOT T#1, last, ->T<512B>
BSTART.TSTORE FP16
B.DIM zero, 16, ->LB0
B.DIM zero, 16, ->LB1
B.IOR a3
B.IOT T#1, last
)";

struct Relu {
  std::vector<uint16_t> x, w;
  std::vector<float> b;
  std::vector<uint16_t> want;
};
Relu relu_case(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2, 2);
  Relu r;
  for (int i = 0; i < 16 * 32; ++i) r.x.push_back(f16(u(rng)));
  for (int i = 0; i < 32 * 16; ++i) r.w.push_back(f16(u(rng)));
  for (int i = 0; i < 16; ++i) r.b.push_back(u(rng));
  // Independent: fp32 fma chain in k order, one fp32 bias add (spec 30 §3), RNE to fp16
  // (spec 15 §2), max with +0 (spec 15 §1).
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < 32; ++k) acc = std::fma(from16(r.x[i * 32 + k]), from16(r.w[k * 16 + j]), acc);
      acc = acc + r.b[j];
      const uint16_t h = f16(acc);
      r.want.push_back((h & 0x8000) ? 0 : h);
    }
  return r;
}

Machine relu_machine(const Relu& r) {
  Machine m;
  m.write_mem(kX, bytes_of(r.x));
  m.write_mem(kW, bytes_of(r.w));
  m.write_mem(kB, bytes_of(r.b));
  m.set_reg("a0", kX);
  m.set_reg("a1", kW);
  m.set_reg("a2", kB);
  m.set_reg("a3", kOut);
  return m;
}

TEST(LinxPrograms, ReluXWPlusBKnownAnswer) {
  for (unsigned seed : {1u, 2u, 3u}) {
    const Relu r = relu_case(seed);
    Machine m = relu_machine(r);
    m.run(kRelu);
    const auto out = m.read_mem(kOut, 16 * 16 * 2);
    std::vector<uint16_t> got(256);
    std::memcpy(got.data(), out.data(), 512);
    EXPECT_EQ(got, r.want) << "seed " << seed;
    // only the 512 result bytes were written
    EXPECT_EQ(m.read_mem(kOut + 512, 4), (std::vector<uint8_t>{0, 0, 0, 0}));
    // ACCCVT released ACC (spec 31 §2)
    EXPECT_FALSE(m.acc().valid);
    EXPECT_GE(m.acc().released_at, 0);
    // sources without .reuse were released; the stored tile too
    for (const auto& t : m.tiles('T')) EXPECT_FALSE(t.live);
  }
}

TEST(LinxPrograms, TemplateAndFoldOfTheReluProgram) {
  const auto w = assemble(kRelu);
  // raw disassembly reassembles to the same words
  EXPECT_EQ(assemble(disassemble(w)), w);
  EXPECT_EQ(assemble(disassemble(w, true)), w);
}

TEST(LinxPrograms, TloadPadStrideAndTstoreLayouts) {
  Machine m;
  // a 3 x 5 int16 matrix with a row stride of 32 bytes
  std::vector<int16_t> src(3 * 16);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) src[i * 16 + j] = static_cast<int16_t>(100 * i + j);
  m.write_mem(0x100, bytes_of(src));
  m.set_reg("a0", 0x100);
  m.set_reg("a1", 32);
  m.set_reg("a2", 0x2000);
  m.run(R"(
BSTART.TLOAD S16
B.DATR Max
B.DIM zero, 5, ->LB0
B.DIM zero, 3, ->LB1
B.DIM zero, 8, ->LB2
B.IOR a0, a1
B.IOT last, ->U<256B>
)");
  const auto t = m.tile_bytes('U', 1);
  ASSERT_EQ(t.size(), 256u);
  std::vector<int16_t> tile(128);
  std::memcpy(tile.data(), t.data(), 256);
  for (int i = 0; i < 16; ++i)  // Row = 256 / (8 * 2) = 16
    for (int j = 0; j < 8; ++j)
      EXPECT_EQ(tile[i * 8 + j], i < 3 && j < 5 ? 100 * i + j : 32767) << i << "," << j;
  // TSTORE the valid 3 x 5 back, row stride 10 bytes (packed rows of 5)
  m.set_reg("a1", 10);
  m.run(R"(
BSTART.TSTORE S16
B.DIM zero, 5, ->LB0
B.DIM zero, 3, ->LB1
B.DIM zero, 8, ->LB2
B.IOR a2, a1
B.IOT U#1.reuse, last
)");
  std::vector<int16_t> back(16);
  const auto bb = m.read_mem(0x2000, 32);
  std::memcpy(back.data(), bb.data(), 32);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(back[i * 5 + j], 100 * i + j);
  EXPECT_EQ(back[15], 0);
  // TMOV copies the bytes into another queue
  m.run("BSTART.TMOV S16\nB.IOT U#1, last, ->M<256B>");
  EXPECT_EQ(m.tile_bytes('M', 1), t);
  EXPECT_FALSE(m.tiles('U')[0].live);
}

TEST(LinxPrograms, TloadNzMatchesPack) {
  // ND2NZ of a 16 x 32 fp16 matrix gives pack(..., nz); ND2ZN of 32 x 16 gives pack(..., zn);
  // DN sources read the transpose.
  std::mt19937 rng(9);
  std::vector<uint16_t> a(16 * 32);
  for (auto& v : a) v = static_cast<uint16_t>(rng());
  Machine m;
  m.write_mem(0, bytes_of(a));
  m.run("BSTART.TLOAD FP16\nB.DATR ND2NZ\nB.DIM zero, 32, ->LB0\nB.DIM zero, 16, ->LB1\nB.IOR zero\nB.IOT last, ->T<1KB>");
  EXPECT_EQ(m.tile_bytes('T', 1), pack(a.data(), 16, 32, DType::fp16, Layout::nz));
  m.run("BSTART.TLOAD FP16\nB.DATR ND2ZN\nB.DIM zero, 16, ->LB0\nB.DIM zero, 32, ->LB1\nB.IOR zero\nB.IOT last, ->T<1KB>");
  EXPECT_EQ(m.tile_bytes('T', 1), pack(a.data(), 32, 16, DType::fp16, Layout::zn));
  // DN2NZ: memory holds the column-major 16 x 32 matrix = row-major 32 x 16 `a`
  std::vector<uint16_t> at(16 * 32);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 32; ++j) at[i * 32 + j] = a[j * 16 + i];
  m.run("BSTART.TLOAD FP16\nB.DATR DN2NZ\nB.DIM zero, 32, ->LB0\nB.DIM zero, 16, ->LB1\nB.IOR zero\nB.IOT last, ->T<1KB>");
  EXPECT_EQ(m.tile_bytes('T', 1), pack(at.data(), 16, 32, DType::fp16, Layout::nz));
  // DN2ZN: memory holds the column-major 32 x 16 matrix (element (i, j) = a[j*32 + i])
  std::vector<uint16_t> bt(32 * 16);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 16; ++j) bt[i * 16 + j] = a[j * 32 + i];
  m.run("BSTART.TLOAD FP16\nB.DATR DN2ZN\nB.DIM zero, 16, ->LB0\nB.DIM zero, 32, ->LB1\nB.IOR zero\nB.IOT last, ->T<1KB>");
  EXPECT_EQ(m.tile_bytes('T', 1), pack(bt.data(), 32, 16, DType::fp16, Layout::zn));
  // a partial valid region (13 x 20 of ND2NZ) pads the rest with Null = 0
  m.run("BSTART.TLOAD FP16\nB.DATR ND2NZ\nB.DIM zero, 20, ->LB0\nB.DIM zero, 13, ->LB1\nB.DIM zero, 32, ->LB2\nB.IOR zero\nB.IOT last, ->T<1KB>");
  std::vector<uint16_t> part(16 * 32, 0);
  for (int i = 0; i < 13; ++i)
    for (int j = 0; j < 20; ++j) part[i * 32 + j] = a[i * 20 + j];  // no stride: 20 elements
  EXPECT_EQ(m.tile_bytes('T', 1), pack(part.data(), 16, 32, DType::fp16, Layout::nz));
}

TEST(LinxPrograms, AcccvtLayoutsScaleAndSaturation) {
  // ACC 2 x 3 fp32 from a TMATMUL of identity-like tiles; then ACCCVT with scale, NORM (NZ) and NZ2DN
  Machine m;
  const std::vector<float> A = {1, 2, 3, 4, 5, 6};  // 2 x 3 (K = 3)
  const std::vector<float> I = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  m.push_tile('T', A.data(), 2, 3, DType::fp32, Layout::nz);
  m.push_tile('U', I.data(), 3, 3, DType::fp32, Layout::zn);
  m.run("TMATMUL <LB0:2, LB1:3, LB2:3, FP32>, T#1.reuse, U#1.reuse, ->ACC<1KB>");
  Machine m2 = m;
  float k = 70000.0f;
  uint32_t kb;
  std::memcpy(&kb, &k, 4);
  m.set_reg("a0", kb);
  m.run("BSTART.ACCCVT FP32\nB.DATR FP16, layout=28\nB.DIM zero, 2, ->LB0\nB.DIM zero, 3, ->LB1\nB.IOR a0\n"
        "B.IOT last, ->M<256B>");
  const auto t = m.tile_bytes('M', 1);
  std::vector<uint16_t> h(6);
  std::memcpy(h.data(), t.data(), 12);
  // column-major, x 70000 overflows fp16 without Sat: +Inf (spec 10 §4)
  EXPECT_EQ(h[0], 0x7C00);
  // with Sat: the largest finite
  m2.set_reg("a0", kb);
  Machine m3 = m2;
  m2.run("BSTART.ACCCVT FP32\nB.DATR FP16, layout=27, sat=1\nB.DIM zero, 2, ->LB0\nB.DIM zero, 3, ->LB1\nB.IOR a0\n"
         "B.IOT last, ->M<256B>");
  std::memcpy(h.data(), m2.tile_bytes('M', 1).data(), 12);
  EXPECT_EQ(h[0], 0x7BFF);
  // NORM: ACC's NZ order, 16 x 16 fractals (element (1, 2) at 1*16 + 2), no scale
  m3.run("BSTART.ACCCVT FP32\nB.DIM zero, 2, ->LB0\nB.DIM zero, 3, ->LB1\nB.IOT last, ->M<1KB>");
  std::vector<float> f(256);
  std::memcpy(f.data(), m3.tile_bytes('M', 1).data(), 1024);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1 * 16 + 2], 6.0f);
  EXPECT_EQ(f[2], 3.0f);
  EXPECT_EQ(f[16 * 16 - 1], 0.0f);
}

// ---- TEPL vs PTO (spec 31 §2): the same bits as the PTO C++ entry on the same inputs ----
TEST(LinxPrograms, TeplMatchesPtoForEveryImplementedFunction) {
  namespace pto = tilesim::pto;
  std::mt19937 rng(21);
  int ran = 0;
  for (unsigned topc = 0; topc < enc::kNumTepl; ++topc) {
    const pto::InstrInfo* info = pto::find_instr(enc::tepl_name(topc));
    // The other shapes (reductions, expands, TCVT, TTRANSPOSE, TRESHAPE): tepl_shapes_test.cpp.
    if (topc == 29 || (info && info->kind > pto::Kind::ScalarTmp)) continue;
    for (const auto& [code, dt, e] : {std::tuple{1u, DType::fp32, pto::Elem::f32}, std::tuple{4u, DType::fp16, pto::Elem::f16},
                                      std::tuple{17u, DType::s32, pto::Elem::s32}, std::tuple{18u, DType::s16, pto::Elem::s16}}) {
      const size_t es = fm::info(dt).storage_bits / 8;
      const size_t cols = 32 / es * 2, rows = 256 / (cols * es) * 4;  // 1 KB tiles
      std::vector<uint8_t> a(1024), b(1024);
      for (auto& v : a) v = static_cast<uint8_t>(rng());
      for (auto& v : b) v = static_cast<uint8_t>(rng());
      if (fm::is_float(dt)) {  // moderate values so exp/log/div are exercised, not only NaN
        for (size_t i = 0; i < 1024 / es; ++i) {
          std::uniform_real_distribution<double> u(0.1, 4);
          const uint64_t ca = fm::encode(u(rng) * (rng() % 2 ? 1 : -1), dt), cb = fm::encode(u(rng), dt);
          std::memcpy(a.data() + i * es, &ca, es);
          std::memcpy(b.data() + i * es, &cb, es);
        }
      } else {
        for (size_t i = 0; i < 1024 / es; ++i) b[i * es] |= 1;  // no zero divisors
      }
      Machine m;
      m.push_raw('T', a, 1024);
      m.push_raw('U', b, 1024);
      m.set_reg("a0", 3);
      const bool binary = info && (info->kind == pto::Kind::Binary || info->kind == pto::Kind::BinaryTmp);
      const std::string prog = std::string("BSTART.TEPL ") + enc::tepl_name(topc) + ", " + type_code(code).name +
                               "\nB.DIM zero, " + std::to_string(cols - 3) + ", ->LB0\nB.DIM zero, " +
                               std::to_string(rows - 1) + ", ->LB1\nB.DIM zero, " + std::to_string(cols) +
                               ", ->LB2\nB.IOR a0\nB.IOT T#1, " + (binary ? "U#1, " : "") + "last, ->N<1KB>";
      // PTO C++ entry on the same bytes
      std::vector<uint8_t> want(1024, 0), tmp(1024, 0);
      std::string pto_error;
      bool pto_ok = false;
      if (info) {
        auto desc = [&](std::vector<uint8_t>& d) {
          pto::TileDesc t;
          t.dtype = e;
          t.rows = static_cast<int>(rows);
          t.cols = static_cast<int>(cols);
          t.valid_row = static_cast<int>(rows - 1);
          t.valid_col = static_cast<int>(cols - 3);
          t.data = d.data();
          t.capacity = d.size();
          return t;
        };
        std::vector<uint8_t> ca = a, cb = b;
        const pto::TileDesc D = desc(want), S0 = desc(ca), S1 = desc(cb), Tm = desc(tmp);
        pto::Call call{info->id};
        call.dst = &D;
        call.src0 = &S0;
        call.src1 = binary ? &S1 : nullptr;
        if (info->kind == pto::Kind::BinaryTmp || info->kind == pto::Kind::ScalarTmp) call.tmp = &Tm;
        call.scalar = 3;
        try {
          pto::execute(call, pto::find_target("a5"), pto::Ub{});
          pto_ok = true;
        } catch (const tilesim::Error& err) {
          pto_error = err.what();
        }
      }
      try {
        m.run(prog);
        ASSERT_TRUE(pto_ok) << prog << "\nLinxISA ran, PTO: " << pto_error;
        EXPECT_EQ(m.tile_bytes('N', 1), want) << prog;
        ++ran;
      } catch (const Fault& f) {
        if (pto_ok && tilesim::linx::type_code(code).known) {
          // Only functions the TEPL table does not run yet may fault when PTO runs them.
          EXPECT_EQ(f.kind(), "unsupported") << prog << "\n" << f.what();
          EXPECT_HAS(f.what(), enc::tepl_name(topc));
        }
      }
    }
  }
  EXPECT_GE(ran, 40);
}

TEST(LinxPrograms, EveryUnimplementedTeplFunctionFaultsNamingIt) {
  for (unsigned topc = 0; topc < enc::kNumTepl; ++topc) {
    Machine m;
    const std::string name = enc::tepl_name(topc);
    const std::string prog = "BSTART.TEPL " + name + ", FP32\nB.IOT T#1, last, ->T<256B>";
    EXPECT_EQ(disassemble(assemble(prog)), prog + "\n");
    try {
      m.run(prog);
    } catch (const Fault& f) {
      if (f.kind() == "unsupported") {
        EXPECT_HAS(f.what(), "TEPL function " + name + " (TileOpcode " + std::to_string(topc));
      }
    }
  }
}

// ---- faults: each names block, word, field and values; memory, tiles and ACC unchanged ----
struct FaultCase {
  const char* name;
  const char* prog;
  const char* kind;
  const char* needle;
};
const FaultCase kFaults[] = {
    {"tload outside memory", "BSTART.TLOAD FP32\nB.DIM zero, 8, ->LB0\nB.IOR a4\nB.IOT last, ->T<256B>", "memory bounds",
     "lie outside the 67108864-byte memory"},
    {"tstore outside memory", "BSTART.TSTORE FP32\nB.DIM zero, 8, ->LB0\nB.IOR a4\nB.IOT T#1, last", "memory bounds",
     "lie outside"},
    {"stride wraps", "BSTART.TLOAD FP32\nB.DIM zero, 8, ->LB0\nB.DIM zero, 2, ->LB1\nB.IOR a0, a5\nB.IOT last, ->T<256B>",
     "memory bounds", "stride 18446744073709551615"},
    {"reserved layout", "BSTART.TLOAD FP32\nB.DATR layout=16\nB.DIM zero, 8, ->LB0\nB.IOR a0\nB.IOT last, ->T<256B>",
     "unsupported", "TLOAD layout reserved (16)"},
    {"reserved pad", "BSTART.TLOAD FP32\nB.DATR pad=9\nB.DIM zero, 8, ->LB0\nB.IOR a0\nB.IOT last, ->T<256B>",
     "unsupported", "PadValue 9 is reserved"},
    {"valid > tile", "BSTART.TLOAD FP32\nB.DIM zero, 8, ->LB0\nB.DIM zero, 9, ->LB1\nB.IOR a0\nB.IOT last, ->T<256B>",
     "tile geometry", "ValidRow 9 > Row 8"},
    {"missing B.IOR", "BSTART.TLOAD FP32\nB.DIM zero, 8, ->LB0\nB.IOT last, ->T<256B>", "malformed block",
     "needs B.IOR"},
    {"two B.DATR", "BSTART.TLOAD FP32\nB.DATR NORM\nB.ARG NORM.normal\nB.IOR a0\nB.IOT last, ->T<256B>",
     "malformed block", "a second B.DATR / B.ARG"},
    {"missing B.IOT", "BSTART.TLOAD FP32\nB.IOR a0", "malformed block", "has no B.IOT"},
    {"RegDst set", "BSTART.TLOAD FP32\nB.IOR a0, ->a1\nB.IOT last, ->T<256B>", "malformed block", "RegDst a1"},
    {"B.ARG N", "BSTART.TLOAD FP32\nB.ARG 3\nB.IOR a0\nB.IOT last, ->T<256B>", "unsupported", "B.ARG 3"},
    {"canon", "BSTART.TLOAD FP32\nB.ARG NZ2DN.canon\nB.IOR a0\nB.IOT last, ->T<256B>", "unsupported",
     "B.ARG NZ2DN.canon"},
    {"0B destination", "BSTART.TLOAD FP32\nB.IOR a0\nB.IOT last, ->T<0B>", "tile size", "destination size 0 B"},
    {"ACC destination", "BSTART.TLOAD FP32\nB.IOR a0\nB.IOT last, ->ACC<256B>", "unsupported", "destination ACC"},
    {"acccvt empty", "BSTART.ACCCVT FP32\nB.DIM zero, 2, ->LB0\nB.IOT last, ->T<256B>", "ACC mismatch",
     "ACC holds no result"},
    {"tepl reserved rmode", "BSTART.TEPL TADD, FP32\nB.DATR rmode=3\nB.IOT T#1, U#1, last, ->T<256B>",
     "malformed block", "rmode = 3 is not used by TADD"},
    {"tepl missing scalar", "BSTART.TEPL TADDS, FP32\nB.IOT T#1, last, ->T<256B>", "malformed block",
     "needs its scalar in B.IOR"},
    {"tepl wrong type", "BSTART.TEPL TAND, FP32\nB.DIM zero, 8, ->LB0\nB.IOT T#1, U#1, last, ->T<256B>",
     "unsupported", "TAND"},
    {"tcvt rmode RHB", "BSTART.TEPL TCVT, FP32\nB.DATR FP16, rmode=7\nB.IOT T#1, last, ->U<256B>", "unsupported",
     "RMode 7 (RHB)"},
    {"tcvt destination type", "BSTART.TEPL TCVT, FP32\nB.DATR FP64\nB.IOT T#1, last, ->U<256B>", "type legality",
     "TCVT destination) DataType FP64"},
    {"ttranspose 8-byte", "BSTART.TEPL TTRANSPOSE, S64\nB.DIM zero, 4, ->LB0\nB.IOT T#1, last, ->U<256B>",
     "illegal operand", "the PTO instruction TTRANS (target a5) rejects"},
    {"treshape size", "BSTART.TEPL TRESHAPE, FP32\nB.DIM zero, 8, ->LB0\nB.IOT T#1, last, ->U<512B>",
     "illegal operand", "must have the same size"},
    {"texpands missing scalar", "BSTART.TEPL TEXPANDS, FP32\nB.IOT last, ->U<256B>", "malformed block",
     "TEXPANDS needs its scalar in B.IOR"},
    {"tmov size", "BSTART.TMOV FP32\nB.IOT T#1, last, ->U<512B>", "tile size", "differs from source T#1's 256 B"},
};

TEST(LinxPrograms, FaultsLeaveMemoryTilesAndAccUntouched) {
  for (const auto& fc : kFaults) {
    Machine m;
    m.set_reg("a0", 0x100);
    m.set_reg("a4", (uint64_t{64} << 20) - 16);
    m.set_reg("a5", ~uint64_t{0});
    const std::vector<uint8_t> t(256, 7);
    m.push_raw('T', t);
    m.push_raw('U', t);
    m.write_mem(0x100, t);
    const auto before_mem = m.read_mem(0, 0x1000);
    const auto before_tiles = m.tiles('T');
    try {
      m.run(fc.prog);
      ADD_FAILURE() << fc.name << ": no fault";
    } catch (const Fault& f) {
      EXPECT_EQ(f.kind(), fc.kind) << fc.name << ": " << f.what();
      EXPECT_HAS(f.what(), fc.needle);
      EXPECT_EQ(f.word_index(), 0) << fc.name;
      EXPECT_FALSE(f.block_text().empty());
    }
    EXPECT_EQ(m.read_mem(0, 0x1000), before_mem) << fc.name;
    ASSERT_EQ(m.tiles('T').size(), before_tiles.size()) << fc.name;
    EXPECT_TRUE(m.tiles('T')[0].live) << fc.name;
    EXPECT_EQ(m.tiles('U').size(), 1u) << fc.name;
  }
}

TEST(LinxPrograms, AccReleasedByAcccvt) {
  Machine m;
  const std::vector<float> A = {1, 2}, B = {3, 4};
  m.push_tile('T', A.data(), 1, 2, DType::fp32, Layout::nz);
  m.push_tile('U', B.data(), 2, 1, DType::fp32, Layout::zn);
  m.run("TMATMUL <LB0:1, LB1:1, LB2:2, FP32>, T#1.reuse, U#1.reuse, ->ACC<256B>");
  EXPECT_TRUE(m.acc().valid);
  m.run("BSTART.ACCCVT FP32\nB.DATR layout=27\nB.DIM zero, 1, ->LB0\nB.DIM zero, 1, ->LB1\nB.IOT last, ->T<256B>");
  EXPECT_FALSE(m.acc().valid);
  float r;
  std::memcpy(&r, m.tile_bytes('T', 1).data(), 4);
  EXPECT_EQ(r, 11.0f);
  for (const char* again : {"BSTART.ACCCVT FP32\nB.DIM zero, 1, ->LB0\nB.DIM zero, 1, ->LB1\nB.IOT last, ->T<256B>",
                            "TMATMUL.ACC <LB0:1, LB1:1, LB2:2, FP32>, T#2.reuse, U#1.reuse, ACC, ->ACC<256B>"}) {
    try {
      m.run(again);
      ADD_FAILURE() << again;
    } catch (const Fault& f) {
      EXPECT_EQ(f.kind(), "ACC released");
      EXPECT_HAS(f.what(), "ACC released by ACCCVT at block 0");
    }
  }
  // a later TMATMUL writes ACC afresh
  m.run("TMATMUL <LB0:1, LB1:1, LB2:2, FP32>, T#2.reuse, U#1.reuse, ->ACC<256B>");
  EXPECT_TRUE(m.acc().valid);
}

}  // namespace
