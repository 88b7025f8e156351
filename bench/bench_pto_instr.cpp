// Benchmarks of the PTO instruction table beyond TROWEXPAND* (spec 60 §6, issue 16 "Speed"): a
// representative set per family at fp32 64x64, 256x256, 1024x1024 and fp16 16x256, 256x256,
//   element-wise  TADD TSUB TMUL TDIV TMAX, TEXP TLOG TSQRT TRSQRT TRECIP TABS
//   tile-scalar   TADDS TMULS TDIVS
//   expand        TCOLEXPANDSUB TCOLEXPANDEXPDIF TROWEXPAND
//   compare       TCMP (LT), TSEL
//   reductions    TROWSUM TROWMAX TCOLSUM (skipped with the engine's message while it raises)
//   TCVT          fp32 -> fp16 (BM_pto_tcvt/f32/...), fp16 -> fp32 (BM_pto_tcvt/f16/...), RINT
// Names: BM_pto_<instr>/<f32|f16>/<R>x<C> (TCVT: the source dtype); bench/peers_pto_instr.py has
// the NumPy / PyTorch / memcpy peers. Every call goes through tilesim::pto::execute (what the C++
// vendor API's pto::TADD etc. call) on target a5 (no tmp tiles: the arithmetic is what is timed),
// with all of its checks, on page-aligned tiles (see bench_pto.cpp: pto::Tile's own storage is
// 64-byte aligned, and the peers' arrays are page-aligned too).
//
// BM_pto_roofline_<instr>/f32/64x64 (issue 16 §5) is the plainest loop doing the same arithmetic
// (dst[i] = a[i] + b[i], std::exp, ...), compiled for this CPU (target_clones), on the same tiles,
// with no checks and no NaN rule: the fixed cost a 64x64 call should stay within 1.2x of.
// BM_pto_fixed_<instr>/f32/1x16 times the element-wise, tile-scalar and TCMP cases on one 16-element
// row: what a call costs besides its arithmetic (checks, overlap tests, dispatch); no peers.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/pto/engine.hpp"

namespace {
using namespace tilesim::pto;

struct PageAligned {
  void operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t{4096}); }
};

// A tile over its own page-aligned storage. Float tiles hold values uniform in [lo, hi) (the peers
// draw from the same ranges), integer tiles pseudo-random bits; a fixed sequence per seed.
struct Buf {
  std::unique_ptr<uint8_t[], PageAligned> storage;
  TileDesc d;
  uint8_t* data() { return storage.get(); }
  Buf(Elem e, int rows, int cols, bool row_major, uint32_t seed, float lo = -1.0f,
      float hi = 3.0f) {
    d.dtype = e;
    d.rows = rows;
    d.cols = cols;
    d.row_major = row_major;
    d.valid_row = rows;
    d.valid_col = cols;
    d.capacity = d.bytes();
    storage.reset(static_cast<uint8_t*>(::operator new[](d.capacity, std::align_val_t{4096})));
    const size_t sz = elem_size(e), n = d.capacity / sz;
    uint8_t* bytes = storage.get();
    uint32_t st = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; ++i) {
      st = st * 1664525u + 1013904223u;
      const float v = lo + (hi - lo) * float(st >> 8) * 0x1p-24f;
      if (e == Elem::f32) {
        std::memcpy(bytes + 4 * i, &v, 4);
      } else if (e == Elem::f16) {
        const uint16_t h = tilesim::formats::f32_to_f16(v);
        std::memcpy(bytes + 2 * i, &h, 2);
      } else {
        for (size_t k = 0; k < sz; ++k) bytes[sz * i + k] = uint8_t(st >> (8 + 3 * k));
      }
    }
    d.data = bytes;
  }
};

// Operand shapes of the benchmarked instructions.
enum class Form { Binary, Unary, Scalar, ColExpandOp, RowExpand, Cmp, Sel, RowReduce, ColReduce, Cvt };

struct Case {
  Instr instr;
  const char* name;  // lower case, the benchmark name's
  Form form;
  float lo = -1.0f, hi = 3.0f;  // input range (bench/peers_pto_instr.py: RANGES)
};

// Inputs of log/sqrt/rsqrt and divisors positive (no NaN or overflow paths timed).
const Case kCases[] = {
    {Instr::TADD, "tadd", Form::Binary},
    {Instr::TSUB, "tsub", Form::Binary},
    {Instr::TMUL, "tmul", Form::Binary},
    {Instr::TDIV, "tdiv", Form::Binary, 0.25f, 4.0f},
    {Instr::TMAX, "tmax", Form::Binary},
    {Instr::TEXP, "texp", Form::Unary},
    {Instr::TLOG, "tlog", Form::Unary, 0.25f, 4.0f},
    {Instr::TSQRT, "tsqrt", Form::Unary, 0.25f, 4.0f},
    {Instr::TRSQRT, "trsqrt", Form::Unary, 0.25f, 4.0f},
    {Instr::TRECIP, "trecip", Form::Unary, 0.25f, 4.0f},
    {Instr::TABS, "tabs", Form::Unary},
    {Instr::TADDS, "tadds", Form::Scalar},
    {Instr::TMULS, "tmuls", Form::Scalar},
    {Instr::TDIVS, "tdivs", Form::Scalar},
    {Instr::TCOLEXPANDSUB, "tcolexpandsub", Form::ColExpandOp},
    {Instr::TCOLEXPANDEXPDIF, "tcolexpandexpdif", Form::ColExpandOp},
    {Instr::TROWEXPAND, "trowexpand", Form::RowExpand},
    {Instr::TCMP, "tcmp", Form::Cmp},
    {Instr::TSEL, "tsel", Form::Sel},
    {Instr::TROWSUM, "trowsum", Form::RowReduce},
    {Instr::TROWMAX, "trowmax", Form::RowReduce},
    {Instr::TCOLSUM, "tcolsum", Form::ColReduce},
    {Instr::TCVT, "tcvt", Form::Cvt},
};

// The scalar operand of TADDS/TMULS/TDIVS: 1.5 as a code of the tile's dtype.
uint64_t scalar_1_5(Elem e) { return e == Elem::f32 ? 0x3FC00000u : 0x3E00u; }

// The tiles of one case and the call over them (the mask words of TCMP/TSEL are u32, a5's type).
struct Setup {
  std::vector<std::unique_ptr<Buf>> bufs;
  Call call{};
  size_t bytes = 0;  // read + written per call

  Buf& add(Elem e, int rows, int cols, bool row_major, float lo, float hi) {
    bufs.push_back(std::make_unique<Buf>(e, rows, cols, row_major, uint32_t(bufs.size() + 1), lo, hi));
    return *bufs.back();
  }

  Setup(const Case& k, Elem e, int R, int C) {
    const size_t sz = elem_size(e), N = size_t(R) * size_t(C);
    call.instr = k.instr;
    const int words = (C + 31) / 32, wcols = std::max(words, 8);  // NoneBox: 32-byte rows
    switch (k.form) {
      case Form::Binary: {
        Buf &d = add(e, R, C, true, 0, 0), &a = add(e, R, C, true, k.lo, k.hi),
            &b = add(e, R, C, true, k.lo, k.hi);
        call.dst = &d.d, call.src0 = &a.d, call.src1 = &b.d;
        bytes = 3 * N * sz;
        break;
      }
      case Form::Unary: {
        Buf &d = add(e, R, C, true, 0, 0), &a = add(e, R, C, true, k.lo, k.hi);
        call.dst = &d.d, call.src0 = &a.d;
        bytes = 2 * N * sz;
        break;
      }
      case Form::Scalar: {
        Buf &d = add(e, R, C, true, 0, 0), &a = add(e, R, C, true, k.lo, k.hi);
        call.dst = &d.d, call.src0 = &a.d, call.scalar = scalar_1_5(e);
        bytes = 2 * N * sz;
        break;
      }
      case Form::ColExpandOp: {  // src0 full, src1 the expanded row (1 x C)
        Buf &d = add(e, R, C, true, 0, 0), &a = add(e, R, C, true, k.lo, k.hi),
            &s = add(e, 1, C, true, k.lo, k.hi);
        call.dst = &d.d, call.src0 = &a.d, call.src1 = &s.d;
        bytes = 2 * N * sz + size_t(C) * sz;
        break;
      }
      case Form::RowExpand: {  // src an R x 1 DN column
        Buf &d = add(e, R, C, true, 0, 0), &s = add(e, R, 1, false, k.lo, k.hi);
        call.dst = &d.d, call.src0 = &s.d;
        bytes = N * sz + size_t(R) * sz;
        break;
      }
      case Form::Cmp: {  // packed predicate words: R x ceil(C/32) u32
        Buf& m = add(Elem::u32, R, wcols, true, 0, 0);
        m.d.valid_col = words;
        Buf &a = add(e, R, C, true, k.lo, k.hi), &b = add(e, R, C, true, k.lo, k.hi);
        call.dst = &m.d, call.src0 = &a.d, call.src1 = &b.d, call.cmp = 2;  // LT
        bytes = 2 * N * sz + size_t(R) * size_t(words) * 4;
        break;
      }
      case Form::Sel: {
        Buf& m = add(Elem::u32, R, wcols, true, 0, 0);  // random bits
        m.d.valid_col = words;
        Buf &d = add(e, R, C, true, 0, 0), &a = add(e, R, C, true, k.lo, k.hi),
            &b = add(e, R, C, true, k.lo, k.hi);
        call.dst = &d.d, call.mask = &m.d, call.src0 = &a.d, call.src1 = &b.d;
        bytes = 3 * N * sz + size_t(R) * size_t(words) * 4;
        break;
      }
      case Form::RowReduce: {  // dst an R x 1 DN column
        Buf &d = add(e, R, 1, false, 0, 0), &a = add(e, R, C, true, k.lo, k.hi);
        call.dst = &d.d, call.src0 = &a.d;
        bytes = N * sz + size_t(R) * sz;
        break;
      }
      case Form::ColReduce: {  // dst 1 x C
        Buf &d = add(e, 1, C, true, 0, 0), &a = add(e, R, C, true, k.lo, k.hi);
        call.dst = &d.d, call.src0 = &a.d;
        bytes = N * sz + size_t(C) * sz;
        break;
      }
      case Form::Cvt: {  // f32 -> f16 or f16 -> f32, RoundMode::CAST_RINT
        const Elem to = e == Elem::f32 ? Elem::f16 : Elem::f32;
        Buf &d = add(to, R, C, true, 0, 0), &a = add(e, R, C, true, k.lo, k.hi);
        call.dst = &d.d, call.src0 = &a.d, call.round = 1;
        bytes = N * (sz + elem_size(to));
        break;
      }
    }
  }
};

void run(benchmark::State& st, const Case& k, Elem e, int R, int C) {
  Setup s(k, e, R, C);
  const Target& t = find_target("a5");
  try {
    execute(s.call, t, Ub{});  // an instruction that still raises (Unsupported) is skipped
  } catch (const tilesim::Error& err) {
    st.SkipWithError(err.what());
    return;
  }
  uint8_t* out = s.call.dst->data;
  for (auto _ : st) {
    execute(s.call, t, Ub{});
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(s.bytes));
}

// ---- the roofline loops (fp32 64x64), each the plainest spelling of its instruction ----

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TILESIM_ROOFLINE __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), noinline))
#else
#define TILESIM_ROOFLINE __attribute__((noinline))
#endif

struct Arrays {  // a, b: R x C inputs; s: a per-column (C) or per-row (R) operand; m: mask words
  const float *a, *b, *s;
  const uint32_t* m;
  float* d;
  uint32_t* dm;
  int R, C, words, wcols;  // wcols: the mask tiles' row stride in words
};

#define TILESIM_ROOFLINE_EW(NAME, EXPR)                                               \
  TILESIM_ROOFLINE void roof_##NAME(const Arrays& x) {                              \
    const float *__restrict a = x.a, *__restrict b = x.b;                           \
    float* __restrict d = x.d;                                                      \
    const size_t n = size_t(x.R) * size_t(x.C);                                     \
    (void)b;                                                                        \
    for (size_t i = 0; i < n; ++i) d[i] = (EXPR);                                   \
  }
TILESIM_ROOFLINE_EW(tadd, a[i] + b[i])
TILESIM_ROOFLINE_EW(tsub, a[i] - b[i])
TILESIM_ROOFLINE_EW(tmul, a[i] * b[i])
TILESIM_ROOFLINE_EW(tdiv, a[i] / b[i])
TILESIM_ROOFLINE_EW(tmax, a[i] > b[i] ? a[i] : b[i])
TILESIM_ROOFLINE_EW(texp, std::exp(a[i]))
TILESIM_ROOFLINE_EW(tlog, std::log(a[i]))
TILESIM_ROOFLINE_EW(tsqrt, std::sqrt(a[i]))
TILESIM_ROOFLINE_EW(trsqrt, 1.0f / std::sqrt(a[i]))
TILESIM_ROOFLINE_EW(trecip, 1.0f / a[i])
TILESIM_ROOFLINE_EW(tabs, std::fabs(a[i]))
TILESIM_ROOFLINE_EW(tadds, a[i] + 1.5f)
TILESIM_ROOFLINE_EW(tmuls, a[i] * 1.5f)
TILESIM_ROOFLINE_EW(tdivs, a[i] / 1.5f)
#undef TILESIM_ROOFLINE_EW

TILESIM_ROOFLINE void roof_tcolexpandsub(const Arrays& x) {
  for (int r = 0; r < x.R; ++r) {
    const float* __restrict a = x.a + size_t(r) * size_t(x.C);
    float* __restrict d = x.d + size_t(r) * size_t(x.C);
    for (int j = 0; j < x.C; ++j) d[j] = a[j] - x.s[j];
  }
}
TILESIM_ROOFLINE void roof_tcolexpandexpdif(const Arrays& x) {
  for (int r = 0; r < x.R; ++r) {
    const float* __restrict a = x.a + size_t(r) * size_t(x.C);
    float* __restrict d = x.d + size_t(r) * size_t(x.C);
    for (int j = 0; j < x.C; ++j) d[j] = std::exp(a[j] - x.s[j]);
  }
}
TILESIM_ROOFLINE void roof_trowexpand(const Arrays& x) {
  for (int r = 0; r < x.R; ++r) {
    const float v = x.s[r];
    float* __restrict d = x.d + size_t(r) * size_t(x.C);
    for (int j = 0; j < x.C; ++j) d[j] = v;
  }
}
TILESIM_ROOFLINE void roof_tcmp(const Arrays& x) {  // LT, bit j of a row in word j / 32
  for (int r = 0; r < x.R; ++r) {
    const float *__restrict a = x.a + size_t(r) * size_t(x.C), *__restrict b = x.b + size_t(r) * size_t(x.C);
    uint32_t* __restrict d = x.dm + size_t(r) * size_t(x.wcols);
    for (int w = 0; w < x.words; ++w) {
      uint32_t bits = 0;
      for (int k = 0; k < 32; ++k) bits |= uint32_t(a[32 * w + k] < b[32 * w + k]) << k;
      d[w] = bits;
    }
  }
}
TILESIM_ROOFLINE void roof_tsel(const Arrays& x) {
  for (int r = 0; r < x.R; ++r) {
    const size_t o = size_t(r) * size_t(x.C);
    const uint32_t* m = x.m + size_t(r) * size_t(x.wcols);
    for (int j = 0; j < x.C; ++j) x.d[o + j] = ((m[j / 32] >> (j % 32)) & 1u) ? x.a[o + j] : x.b[o + j];
  }
}
TILESIM_ROOFLINE void roof_trowsum(const Arrays& x) {
  for (int r = 0; r < x.R; ++r) {
    const float* a = x.a + size_t(r) * size_t(x.C);
    float acc = 0.0f;
    for (int j = 0; j < x.C; ++j) acc += a[j];
    x.d[r] = acc;
  }
}
TILESIM_ROOFLINE void roof_trowmax(const Arrays& x) {
  for (int r = 0; r < x.R; ++r) {
    const float* a = x.a + size_t(r) * size_t(x.C);
    float acc = a[0];
    for (int j = 1; j < x.C; ++j) acc = a[j] > acc ? a[j] : acc;
    x.d[r] = acc;
  }
}
TILESIM_ROOFLINE void roof_tcolsum(const Arrays& x) {
  float* __restrict d = x.d;
  for (int j = 0; j < x.C; ++j) d[j] = x.a[j];
  for (int r = 1; r < x.R; ++r) {
    const float* __restrict a = x.a + size_t(r) * size_t(x.C);
    for (int j = 0; j < x.C; ++j) d[j] += a[j];
  }
}
TILESIM_ROOFLINE void roof_tcvt(const Arrays& x) {  // fp32 -> fp16, round to nearest even
  _Float16* __restrict d = reinterpret_cast<_Float16*>(x.d);
  const float* __restrict a = x.a;
  const size_t n = size_t(x.R) * size_t(x.C);
  for (size_t i = 0; i < n; ++i) d[i] = _Float16(a[i]);
}

struct Roofline {
  const char* name;
  void (*fn)(const Arrays&);
};
const Roofline kRooflines[] = {
    {"tadd", roof_tadd},       {"tsub", roof_tsub},
    {"tmul", roof_tmul},       {"tdiv", roof_tdiv},
    {"tmax", roof_tmax},       {"texp", roof_texp},
    {"tlog", roof_tlog},       {"tsqrt", roof_tsqrt},
    {"trsqrt", roof_trsqrt},   {"trecip", roof_trecip},
    {"tabs", roof_tabs},       {"tadds", roof_tadds},
    {"tmuls", roof_tmuls},     {"tdivs", roof_tdivs},
    {"tcolexpandsub", roof_tcolexpandsub}, {"tcolexpandexpdif", roof_tcolexpandexpdif},
    {"trowexpand", roof_trowexpand},       {"tcmp", roof_tcmp},
    {"tsel", roof_tsel},       {"trowsum", roof_trowsum},
    {"trowmax", roof_trowmax}, {"tcolsum", roof_tcolsum},
    {"tcvt", roof_tcvt},
};

// The roofline on the tiles its instruction's case uses (same ranges, same page alignment).
void roofline(benchmark::State& st, const Case& k, void (*fn)(const Arrays&), int R, int C) {
  Setup s(k, Elem::f32, R, C);
  Arrays x{};
  x.R = R, x.C = C, x.words = (C + 31) / 32, x.wcols = std::max(x.words, 8);
  auto f32 = [](const TileDesc* t) { return t ? reinterpret_cast<float*>(t->data) : nullptr; };
  x.a = f32(s.call.src0);
  x.b = f32(s.call.src1);
  x.d = f32(s.call.dst);
  x.dm = reinterpret_cast<uint32_t*>(s.call.dst->data);
  if (k.form == Form::ColExpandOp) x.s = f32(s.call.src1);
  if (k.form == Form::RowExpand) x.s = f32(s.call.src0), x.a = nullptr;
  if (k.form == Form::Sel) x.m = reinterpret_cast<const uint32_t*>(s.call.mask->data);
  for (auto _ : st) {
    fn(x);
    benchmark::DoNotOptimize(x.d);
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(s.bytes));
}

const int kReg = [] {
  struct Shape {
    Elem e;
    const char* tag;
    int R, C;
  };
  const Shape shapes[] = {{Elem::f32, "f32", 64, 64},
                          {Elem::f32, "f32", 256, 256},
                          {Elem::f32, "f32", 1024, 1024},
                          {Elem::f16, "f16", 16, 256},
                          {Elem::f16, "f16", 256, 256}};
  for (const Case& k : kCases)
    for (const Shape& s : shapes) {
      const std::string name = std::string("BM_pto_") + k.name + "/" + s.tag + "/" +
                               std::to_string(s.R) + "x" + std::to_string(s.C);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [&k, s](benchmark::State& st) { run(st, k, s.e, s.R, s.C); });
    }
  for (const Case& k : kCases)
    if (k.form == Form::Binary || k.form == Form::Unary || k.form == Form::Scalar ||
        k.form == Form::Cmp) {
      const std::string name = std::string("BM_pto_fixed_") + k.name + "/f32/1x16";
      benchmark::RegisterBenchmark(name.c_str(),
                                   [&k](benchmark::State& st) { run(st, k, Elem::f32, 1, 16); });
    }
  for (const Roofline& r : kRooflines)
    for (const Case& k : kCases)
      if (std::string(k.name) == r.name) {
        const std::string name = std::string("BM_pto_roofline_") + r.name + "/f32/64x64";
        benchmark::RegisterBenchmark(name.c_str(), [&k, fn = r.fn](benchmark::State& st) {
          roofline(st, k, fn, 64, 64);
        });
      }
  return 0;
}();
}  // namespace
