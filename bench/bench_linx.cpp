// LinxISA benchmarks (spec 60 §6): one TMATMUL.BIAS block through the machine (tiles packed
// beforehand, sources .reuse so they stay live), a plain scalar triple loop of the same
// semantics for the speed-up ratio, and the direct GEMM entry at large sizes per type.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cctype>
#include <thread>
#include <tuple>
#include <random>
#include <string>
#include <vector>

#include "tilesim/linx.hpp"
#include "tilesim/parallel.hpp"

namespace {
namespace lx = tilesim::linx;
using tilesim::formats::DType;

std::vector<uint8_t> codes(DType t, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const size_t cb = lx::carrier_bytes(t);
  std::vector<uint8_t> out(n * cb);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t c = tilesim::formats::is_float(t) ? tilesim::formats::encode(u(rng), t) : rng() % 15;
    std::memcpy(out.data() + i * cb, &c, cb);
  }
  return out;
}

void block(benchmark::State& st, size_t n, size_t threads) {
  tilesim::set_num_threads(threads);
  lx::Machine m;
  const auto a = codes(DType::fp32, n * n, 1), b = codes(DType::fp32, n * n, 2), bias = codes(DType::fp32, n, 3);
  m.push_tile('T', a.data(), n, n, DType::fp32, lx::Layout::nz);
  m.push_tile('U', b.data(), n, n, DType::fp32, lx::Layout::zn);
  m.push_tile('N', bias.data(), 1, n, DType::fp32, lx::Layout::nd);
  const std::string d = std::to_string(n);
  const auto words = lx::assemble("TMATMUL.BIAS <M:" + d + ", N:" + d + ", K:" + d + ", FP32>, T#1.reuse, U#1.reuse, N#1.reuse, ->ACC<" +
                                  std::to_string(n * n * 4 / 1024) + "KB>");
  for (auto _ : st) {
    m.run(words);
    benchmark::DoNotOptimize(m.acc().data.data());
  }
  st.counters["GFLOPS"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  tilesim::set_num_threads(0);
}

// The baseline of the 40x target: the spec 30 §3 loop written plainly (fp32, fma chain, bias).
void scalar_loop(benchmark::State& st, size_t n) {
  std::vector<float> A(n * n), B(n * n), bias(n), C(n * n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& x : A) x = u(rng);
  for (auto& x : B) x = u(rng);
  for (auto& x : bias) x = u(rng);
  for (auto _ : st) {
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (size_t k = 0; k < n; ++k) acc = std::fma(A[i * n + k], B[k * n + j], acc);
        acc = acc + bias[j];
        C[i * n + j] = std::isnan(acc) ? NAN : acc;
      }
    benchmark::DoNotOptimize(C.data());
  }
}

void gemm(benchmark::State& st, DType t, size_t n, size_t threads) {
  tilesim::set_num_threads(threads);
  const auto a = codes(t, n * n, 1), b = codes(t, n * n, 2);
  std::vector<uint32_t> bias(n, 0), acc(n * n);
  for (auto _ : st) {
    lx::gemm({a.data(), n, n}, {b.data(), n, n}, bias.data(), acc.data(), {t, t});
    benchmark::DoNotOptimize(acc.data());
  }
  st.counters["GFLOPS"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  tilesim::set_num_threads(0);
}


// ---- programs of v0.56 words from memory to memory (spec 31; issue 20 "Speed") ----

// C (n x n fp32, row-major at kC) = A (n x n, type t, at kA) x B (n x n, at kB), as a LinxISA
// program: per 256 x 256 output block, a K loop of TLOAD A (ND2NZ) -> TLOAD B (ND2ZN) ->
// TMATMUL / TMATMUL.ACC over K blocks of 256 (fp32: two 256 KB tiles, the 512 KB live capacity),
// then ACCCVT (NZ2ND) -> TSTORE. Registers: the A blocks' addresses, then B's, then C's, then the
// A/B row stride and C's.
constexpr uint64_t kA = 0x100000, kB = 0x900000, kC = 0x1100000;
constexpr size_t kMB = 256, kKB = 256;

std::string rn(size_t r) {  // register name
  std::string s("r");
  s += std::to_string(r);
  return s;
}

std::string gemm_program(DType t, size_t n, lx::Machine& m) {
  const size_t es = tilesim::formats::info(t).storage_bits / 8;
  const std::string ty = t == DType::fp16 ? "FP16" : "FP32";
  const size_t blocks = n / kMB, ksteps = n / kKB;
  const std::string tile = std::to_string(kMB * kKB * es / 1024) + "KB";
  std::string p;
  unsigned r = 1;
  std::vector<unsigned> ra, rb, rc;
  for (size_t i = 0; i < blocks; ++i)
    for (size_t k = 0; k < ksteps; ++k, ++r) {
      m.set_reg(rn(r), kA + (i * kMB * n + k * kKB) * es);
      ra.push_back(r);
    }
  for (size_t k = 0; k < ksteps; ++k)
    for (size_t j = 0; j < blocks; ++j, ++r) {
      m.set_reg(rn(r), kB + (k * kKB * n + j * kMB) * es);
      rb.push_back(r);
    }
  for (size_t i = 0; i < blocks; ++i)
    for (size_t j = 0; j < blocks; ++j, ++r) {
      m.set_reg(rn(r), kC + (i * kMB * n + j * kMB) * 4);
      rc.push_back(r);
    }
  const std::string sab = rn(r), sc = rn(r + 1);
  m.set_reg(sab, n * es);
  m.set_reg(sc, n * 4);
  const std::string mb = std::to_string(kMB), kb = std::to_string(kKB);
  for (size_t i = 0; i < blocks; ++i)
    for (size_t j = 0; j < blocks; ++j) {
      for (size_t k = 0; k < ksteps; ++k) {
        p += "BSTART.TLOAD " + ty + "\nB.DATR ND2NZ\nB.DIM zero, " + kb + ", ->LB0\nB.DIM zero, " + mb +
             ", ->LB1\nB.IOR r" + std::to_string(ra[i * ksteps + k]) + ", " + sab + "\nB.IOT last, ->T<" + tile + ">\n";
        p += "BSTART.TLOAD " + ty + "\nB.DATR ND2ZN\nB.DIM zero, " + mb + ", ->LB0\nB.DIM zero, " + kb +
             ", ->LB1\nB.IOR r" + std::to_string(rb[k * blocks + j]) + ", " + sab + "\nB.IOT last, ->U<" + tile + ">\n";
        p += std::string(k ? "TMATMUL.ACC" : "TMATMUL") + " <LB0:" + mb + ", LB1:" + mb + ", LB2:" + kb + ", " + ty +
             ">, T#1, U#1, " + (k ? "ACC, " : "") + "->ACC<256KB>\n";
      }
      p += "BSTART.ACCCVT FP32\nB.DATR FP32, layout=27\nB.DIM zero, " + mb + ", ->LB0\nB.DIM zero, " + mb +
           ", ->LB1\nB.IOT last, ->T<256KB>\n";
      p += "BSTART.TSTORE FP32\nB.DIM zero, " + mb + ", ->LB0\nB.DIM zero, " + mb + ", ->LB1\nB.IOR r" +
           std::to_string(rc[i * blocks + j]) + ", " + sc + "\nB.IOT T#1, last\n";
    }
  return p;
}

void words_gemm(benchmark::State& st, DType t, size_t n, size_t threads) {
  tilesim::set_num_threads(threads);
  lx::Machine m;
  const auto a = codes(t, n * n, 1), b = codes(t, n * n, 2);
  m.write_mem(kA, a);
  m.write_mem(kB, b);
  const auto words = lx::assemble(gemm_program(t, n, m));
  for (auto _ : st) m.run(words);
  st.counters["GFLOPS"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  tilesim::set_num_threads(0);
}

// TLOAD then TSTORE of one tile (rows x cols fp32; the bytes move twice: memory -> tile -> memory),
// NORM (row-major both ways) or ND2NZ in and NZ2ND out.
void tma_move(benchmark::State& st, size_t rows, size_t cols, const std::string& in_layout, const std::string& out_layout) {
  lx::Machine m;
  const size_t bytes = rows * cols * 4;
  m.write_mem(kA, codes(DType::fp32, rows * cols, 1));
  m.set_reg("a0", kA);
  m.set_reg("a1", kB);
  const std::string dims = "B.DIM zero, " + std::to_string(cols) + ", ->LB0\nB.DIM zero, " + std::to_string(rows) + ", ->LB1\n";
  const std::string size = std::to_string(bytes / 1024) + "KB";
  const auto words = lx::assemble("BSTART.TLOAD FP32\nB.DATR " + in_layout + "\n" + dims + "B.IOR a0\nB.IOT last, ->T<" +
                                  size + ">\nBSTART.TSTORE FP32\nB.DATR " + out_layout + "\n" + dims +
                                  "B.IOR a1\nB.IOT T#1, last\n");
  for (auto _ : st) m.run(words);
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * 2 * bytes));
}

// One TEPL op on a rows x cols tile from U#1 (and M#1), .reuse, into T (the window's eviction
// releases the old results, so the live capacity stays bounded).
void tepl(benchmark::State& st, const std::string& op, DType t, size_t rows, size_t cols) {
  lx::Machine m;
  const size_t es = tilesim::formats::info(t).storage_bits / 8, bytes = rows * cols * es;
  const auto a = codes(t, rows * cols, 1), b = codes(t, rows * cols, 2);
  m.push_raw('U', a, bytes);
  m.push_raw('M', b, bytes);
  m.set_reg("a0", tilesim::formats::encode(0.25, t));
  const bool binary = op == "TADD", scalar = op == "TMAXS";
  const std::string ty = t == DType::fp16 ? "FP16" : "FP32";
  const auto words = lx::assemble("BSTART.TEPL " + op + ", " + ty + "\nB.DIM zero, " + std::to_string(cols) +
                                  ", ->LB0\nB.DIM zero, " + std::to_string(rows) + ", ->LB1\n" +
                                  (scalar ? "B.IOR a0\n" : "") + "B.IOT U#1.reuse, " + (binary ? "M#1.reuse, " : "") +
                                  "last, ->T<" + std::to_string(bytes / 1024) + "KB>");
  for (auto _ : st) m.run(words);
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * (binary ? 3 : 2) * bytes));
}

int reg = [] {
  const size_t all = std::max<size_t>(1, std::thread::hardware_concurrency());
  for (size_t n : {64, 128})
    for (size_t th : {size_t{1}, all})
      benchmark::RegisterBenchmark(("BM_linx_tmatmul_bias/fp32/" + std::to_string(n) + "x" + std::to_string(n) + "x" +
                                    std::to_string(n) + "/threads:" + std::to_string(th)).c_str(),
                                   [n, th](benchmark::State& s) { block(s, n, th); })
          ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_linx_scalar_loop/fp32/64x64x64", [](benchmark::State& s) { scalar_loop(s, 64); })
      ->Unit(benchmark::kMicrosecond);
  const std::pair<DType, const char*> types[] = {
      {DType::fp32, "fp32"}, {DType::fp16, "fp16"}, {DType::bf16, "bf16"}, {DType::e4m3, "e4m3"}, {DType::s8, "s8"}};
  for (const auto& [t, name] : types)
    for (size_t n : {256, 512, 1024})
      for (size_t th : {size_t{1}, all}) {
        const std::string nm = "BM_linx_gemm/" + std::string(name) + "/" + std::to_string(n) + "x" + std::to_string(n) + "x" +
                               std::to_string(n) + "/threads:" + std::to_string(th);
        const DType tt = t;
        benchmark::RegisterBenchmark(nm.c_str(), [tt, n, th](benchmark::State& s) { gemm(s, tt, n, th); })
            ->Unit(benchmark::kMillisecond);
      }
  for (DType t : {DType::fp32, DType::fp16})
    for (size_t th : {size_t{1}, size_t{2}}) {
      const std::string nm = std::string("BM_linx_words_gemm/") + (t == DType::fp16 ? "fp16" : "fp32") +
                             "/512x512x512/threads:" + std::to_string(th);
      benchmark::RegisterBenchmark(nm.c_str(), [t, th](benchmark::State& s) { words_gemm(s, t, 512, th); })
          ->Unit(benchmark::kMillisecond);
    }
  // NORM both ways, the A operand's layout (ND2NZ: 32-byte lines) and the B operand's (ND2ZN: a
  // transpose per line).
  for (const auto& [in, out, label] : {std::tuple<const char*, const char*, const char*>{"NORM", "NORM", "norm"},
                                       {"ND2NZ", "NZ2ND", "nd2nz_nz2nd"},
                                       {"ND2ZN", "ZN2ND", "nd2zn_zn2nd"}})
    for (const auto& [r, c] : {std::pair<size_t, size_t>{128, 128}, {256, 256}}) {
      const std::string nm = std::string("BM_linx_tma_move/") + label + "/fp32/" + std::to_string(r) + "x" + std::to_string(c);
      const std::string i = in, o = out;
      benchmark::RegisterBenchmark(nm.c_str(), [r, c, i, o](benchmark::State& s) { tma_move(s, r, c, i, o); })
          ->Unit(benchmark::kMicrosecond);
    }
  for (const char* op : {"TADD", "TEXP", "TMAXS"})
    for (const auto& [t, r, c] : {std::tuple<DType, size_t, size_t>{DType::fp32, 64, 64}, {DType::fp16, 16, 256}}) {
      const std::string o = op;
      std::string lower = o;
      for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      const std::string nm = "BM_linx_tepl/" + lower + "/" + (t == DType::fp16 ? "fp16" : "fp32") + "/" +
                             std::to_string(r) + "x" + std::to_string(c);
      benchmark::RegisterBenchmark(nm.c_str(), [o, t, r, c](benchmark::State& s) { tepl(s, o, t, r, c); })
          ->Unit(benchmark::kMicrosecond);
    }
  return 0;
}();
}  // namespace
