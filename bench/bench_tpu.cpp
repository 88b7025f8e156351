// Benchmarks of the TPU compare-selects (spec 60 §6): each function with TENSOR/SCALAR/VECTOR
// operand mixes at [1, 64, 32, 64] and [1, 256, 64, 64], fp32, fp16 and int8 -> int32 (the
// extremum functions need equal widths: int8 values with int8 indices there). One thread, the
// destination in place over a source as kernels do (the large shape fills a bm1684x NPU).
// Names: BM_tpu_<function>/<dtypes>/<shape>/<mix>, mix = the kinds of src0..src3 (T, S, V).
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tilesim/parallel.hpp"
#include "tilesim/tpu.hpp"
#include "tilesim/tpu_kernel.h"

namespace {

using namespace tilesim::tpu;

struct DtCase {
  const char* label;
  data_type_t a, b;
};
const DtCase kSelectDt[] = {
    {"f32", DT_FP32, DT_FP32}, {"f16", DT_FP16, DT_FP16}, {"s8_s32", DT_INT8, DT_INT32}};
const DtCase kExtDt[] = {
    {"f32_s32", DT_FP32, DT_INT32}, {"f16_s16", DT_FP16, DT_INT16}, {"s8_s8", DT_INT8, DT_INT8}};
const dim4 kShapes[] = {{1, 64, 32, 64}, {1, 256, 64, 64}};
const char* const kMixes[] = {"TTTT", "TSTS", "TVTS"};
const SelectOp kOps[] = {SelectOp::Greater, SelectOp::Less, SelectOp::Equal,
                         SelectOp::MaximumGreater, SelectOp::MinimumLess};

int bytes(data_type_t d) {
  return d == DT_INT8 ? 1 : (d == DT_FP16 || d == DT_INT16) ? 2 : 4;
}

void run(benchmark::State& state, SelectOp op, DtCase dt, dim4 s, std::string mix) {
  tilesim::set_num_threads(1);
  Device dev("bm1684x");
  std::mt19937 rng(1);
  for (auto& b : dev.memory()) b = static_cast<uint8_t>(rng() & 0x3F);  // small codes: ties
  const bool ext = op == SelectOp::MaximumGreater || op == SelectOp::MinimumLess;
  dim4 st;
  const int ea = bytes(dt.a), eb = bytes(dt.b);
  dev.aligned_stride(&st, 0, &s, dt.a);
  const local_addr_t sa = static_cast<local_addr_t>(st.n * ea);
  dev.aligned_stride(&st, 0, &s, dt.b);
  const local_addr_t sb = static_cast<local_addr_t>(st.n * eb);
  // Tensors packed from offset 0: src0, src1 (a), src2, src3 (b); a VECTOR takes 64 bytes.
  local_addr_t at = 0;
  variable_t v[4];
  for (int i = 0; i < 4; ++i) {
    if (mix[i] == 'T') {
      v[i] = tensor(at);
      at += i < 2 ? sa : sb;
    } else if (mix[i] == 'V') {
      v[i] = vector(at);
      at += 64;
    } else {
      v[i] = scalar_bits(0x21);
    }
  }
  // In place: dst over src2 (select) / dst0 over src0 and dst1 over src2 (extremum).
  const local_addr_t d0 = ext ? v[0].context.addr : v[2].context.addr, d1 = v[2].context.addr;
  if (at > dev.local_mem_size()) {
    state.SkipWithError("does not fit in local memory");
    return;
  }
  for (auto _ : state) {
    dev.select(op, d0, d1, &v[0], &v[1], &v[2], &v[3], &s, dt.a, dt.b);
    benchmark::ClobberMemory();
  }
  const int64_t n = int64_t(s.n) * s.c * s.h * s.w;
  int64_t moved = n * (ext ? ea + eb : eb);  // written
  for (int i = 0; i < 4; ++i)
    if (mix[i] == 'T') moved += n * (i < 2 ? ea : eb);
  state.SetBytesProcessed(state.iterations() * moved);
  tilesim::set_num_threads(0);
}

const char* op_label(SelectOp op) {
  switch (op) {
    case SelectOp::Greater:
      return "greater_select";
    case SelectOp::Less:
      return "less_select";
    case SelectOp::Equal:
      return "equal_select";
    case SelectOp::MaximumGreater:
      return "maximum_greater_select";
    case SelectOp::MinimumLess:
      return "minimum_less_select";
  }
  return "";
}

const bool registered = [] {
  for (SelectOp op : kOps) {
    const bool ext = op == SelectOp::MaximumGreater || op == SelectOp::MinimumLess;
    for (const DtCase& dt :
         ext ? std::span<const DtCase>(kExtDt) : std::span<const DtCase>(kSelectDt))
      for (const dim4& s : kShapes)
        for (const char* mix : kMixes) {
          const std::string name = std::string("BM_tpu_") + op_label(op) + "/" + dt.label + "/" +
                                   std::to_string(s.n) + "x" + std::to_string(s.c) + "x" +
                                   std::to_string(s.h) + "x" + std::to_string(s.w) + "/" + mix;
          benchmark::RegisterBenchmark(name.c_str(), run, op, dt, s, std::string(mix))
              ->Unit(benchmark::kMicrosecond);
        }
  }
  return true;
}();


// ---- BDC arithmetic, GDMA and the hardtanh kernel at 64 K and 4 M elements (issue 19 "Speed") ----
// 64 K elements: one call on [1, 64, 32, 32]. 4 M: four calls on [1, 64, 128, 128] (1 M elements,
// 64 KiB of fp32 per NPU per operand), each on its own Device, so every operand is 4 M distinct
// elements as in the peers (bench/peers_tpu.py) and the working set is theirs. One thread.
// Operands sit in the four quarters of each NPU: dst, src0, src1 (arithmetic); src3, src0, src1,
// src2 with dst written in place over src2 (greater_select, as kernels do).
// Names: BM_tpu_bdc/<function>/<dtype>/<size>, BM_tpu_gdma/<S2L|L2S|L2L>/<dtype>/<size>,
// BM_tpu_hardtanh/<dtype>/<size>.
namespace tile {

struct Size {
  const char* label;
  int tiles;
  dim4 shape;
};
const Size kSizes[] = {{"64K", 1, {1, 64, 32, 32}}, {"4M", 4, {1, 64, 128, 128}}};

struct Dt {
  const char* label;
  data_type_t dt;
  int e;
};
const Dt kF32{"f32", DT_FP32, 4}, kF16{"f16", DT_FP16, 2}, kS32{"s32", DT_INT32, 4}, kBF16{"bf16", DT_BFP16, 2};

// Codes of ordinary values: floats of magnitude in [1/4, 4) with either sign, integers in
// [-1000, 1000] (no NaN, infinity or subnormal: the data a kernel usually sees).
uint32_t code(const Dt& d, std::mt19937& rng) {
  const uint32_t sign = rng() & 1u, r = rng();
  switch (d.dt) {
    case DT_FP32:
      return sign << 31 | (125u + r % 4u) << 23 | (r >> 9 & 0x7FFFFFu);
    case DT_FP16:
      return sign << 15 | (13u + r % 4u) << 10 | (r >> 9 & 0x3FFu);
    case DT_BFP16:
      return sign << 15 | (125u + r % 4u) << 7 | (r >> 9 & 0x7Fu);
    default:
      return static_cast<uint32_t>(static_cast<int32_t>(r % 2001u) - 1000);
  }
}
uint32_t one_and_half(const Dt& d) {
  return d.dt == DT_FP32 ? 0x3FC00000u : d.dt == DT_FP16 ? 0x3E00u : d.dt == DT_BFP16 ? 0x3FC0u : 3u;
}
uint32_t one(const Dt& d) {
  return d.dt == DT_FP32 ? 0x3F800000u : d.dt == DT_FP16 ? 0x3C00u : d.dt == DT_BFP16 ? 0x3F80u : 1u;
}

// Fills the first `bytes` of each NPU at in-NPU offset r with codes of d.
void fill(Device& dev, uint32_t r, size_t bytes, const Dt& d, std::mt19937& rng) {
  for (int k = 0; k < dev.npu_num(); ++k) {
    uint8_t* p = dev.npu_memory(k).data() + r;
    for (size_t i = 0; i + d.e <= bytes; i += size_t(d.e)) {
      const uint32_t c = code(d, rng);
      std::memcpy(p + i, &c, size_t(d.e));
    }
  }
}

int64_t elems(const Size& s) {
  return int64_t(s.tiles) * s.shape.n * s.shape.c * s.shape.h * s.shape.w;
}

struct Fn {
  const char* label;  // BM_tpu_bdc/<label>
  const char* fn;     // vendor name; nullptr: tpu_bdc_greater_select
  int srcs;           // tensor sources
  std::vector<Dt> dts;
  Dt cast_to = kF32;  // tpu_bdc_cast: destination dtype per source dtype (set below)
};

void run_bdc(benchmark::State& state, Fn f, Dt d, Size s) {
  tilesim::set_num_threads(1);
  std::mt19937 rng(3);
  std::vector<std::unique_ptr<Device>> devs;
  const bool cast = std::string(f.label) == "cast";
  const Dt dd = cast ? f.cast_to : d;
  for (int t = 0; t < s.tiles; ++t) {
    devs.push_back(std::make_unique<Device>("bm1684x"));
    Device& dev = *devs.back();
    const uint32_t q = dev.local_mem_size() / 4;
    for (int i = 0; i < 4; ++i) fill(dev, q * uint32_t(i), q, d, rng);
  }
  const uint32_t q = devs[0]->local_mem_size() / 4;
  BdcCall k;
  k.fn = f.fn;
  k.shape = &s.shape;
  k.dst = 0, k.src0 = q, k.src1 = 2 * q;
  k.dst_dtype = dd.dt, k.src0_dtype = d.dt, k.src1_dtype = d.dt;
  k.c_bits = one_and_half(d);
  k.true_bits = one(dd);
  const variable_t v0 = tensor(q), v1 = tensor(2 * q), v2 = tensor(3 * q), v3 = tensor(0);
  for (auto _ : state) {
    for (auto& dev : devs) {
      if (f.fn)
        dev->bdc(k);
      else  // dst in place over src2 (a kernel's usual form), src3 in the dst slot
        dev->greater_select(3 * q, &v0, &v1, &v2, &v3, &s.shape, d.dt, d.dt);
    }
    benchmark::ClobberMemory();
  }
  const int64_t n = elems(s);
  state.SetBytesProcessed(state.iterations() * n * (f.srcs * d.e + dd.e));
  tilesim::set_num_threads(0);
}

// GDMA: S2L from / L2S to one global allocation of all the elements (tile t at t * tile bytes);
// L2L from src0's slot to dst's inside each Device.
void run_gdma(benchmark::State& state, std::string dir, Dt d, Size s) {
  tilesim::set_num_threads(1);
  std::mt19937 rng(5);
  std::vector<std::unique_ptr<Device>> devs;
  const int64_t tile = int64_t(s.shape.n) * s.shape.c * s.shape.h * s.shape.w;
  const global_addr_t g = global_alloc(size_t(elems(s) * d.e));
  uint8_t* host = global_span(g, 0);
  for (int64_t i = 0; i < elems(s); ++i) {
    const uint32_t c = code(d, rng);
    std::memcpy(host + i * d.e, &c, size_t(d.e));
  }
  for (int t = 0; t < s.tiles; ++t) {
    devs.push_back(std::make_unique<Device>("bm1684x"));
    fill(*devs.back(), devs.back()->local_mem_size() / 4, devs.back()->local_mem_size() / 4, d, rng);
  }
  const local_addr_t src_l = devs[0]->local_mem_size() / 4;
  for (auto _ : state) {
    for (int t = 0; t < s.tiles; ++t) {
      Device& dev = *devs[size_t(t)];
      const global_addr_t gt = g + global_addr_t(t * tile * d.e);
      if (dir == "S2L")
        dev.gdma_S2L(0, gt, &s.shape, nullptr, nullptr, d.dt);
      else if (dir == "L2S")
        dev.gdma_L2S(gt, src_l, &s.shape, nullptr, nullptr, d.dt);
      else
        dev.gdma_L2L(0, src_l, &s.shape, nullptr, nullptr, d.dt);
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * elems(s) * d.e * 2);
  global_free(g);
  tilesim::set_num_threads(0);
}

}  // namespace tile

// The hardtanh example kernel itself (examples/tpu/hardtanh_kernel.h, the way torch-tpu's
// nodechip_hardtanh.c works): tiles of [1, NPU_NUM, 1, w] from global memory, greater_select then
// less_select with SCALAR bounds, back to global memory.
#include "../examples/tpu/hardtanh_kernel.h"

namespace tile {

// End to end, as a host runs the kernel: allocate the output, launch, free (the input is
// allocated and filled once, as torch's input tensor exists before the call).
void run_hardtanh(benchmark::State& state, Dt d, Size s) {
  tilesim::set_num_threads(1);
  std::mt19937 rng(9);
  const int64_t n = elems(s);
  const global_addr_t in = global_alloc(size_t(n * d.e));
  uint8_t* host = global_span(in, 0);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t c = code(d, rng);
    std::memcpy(host + i * d.e, &c, size_t(d.e));
  }
  hardtanh_args_t args{};
  args.in = in;
  args.length = static_cast<int>(n);
  args.dtype = d.dt;
  // [-1, 1] in the dtype
  const uint32_t hi = one(d), lo = hi | (d.e == 4 ? 0x80000000u : 0x8000u);
  std::memcpy(&args.hi, &hi, 4);
  std::memcpy(&args.lo, &lo, 4);
  auto once = [&] {
    args.out = global_alloc(size_t(n * d.e));
    const int rc = tilesim_tpu_launch("example_hardtanh", &args, sizeof args);
    global_free(args.out);
    return rc;
  };
  // Calls before timing, as the peers' timing warms up: the thread's devices are made once, the
  // host allocator settles (a fresh 16 MiB allocation costs page faults), and a slow first
  // iteration would make Google Benchmark settle on one iteration per run.
  for (int i = 0; i < 3; ++i)
    if (once() != 0) {
      state.SkipWithError(tilesim_tpu_last_error());
      return;
    }
  for (auto _ : state) once();
  state.SetBytesProcessed(state.iterations() * n * d.e * 2);
  global_free(in);
  tilesim::set_num_threads(0);
}

const bool registered_tiles = [] {
  std::vector<Fn> fns = {
      {"fp_add", "tpu_bdc_fp_add", 2, {kF32, kF16}},
      {"fp_mul_C", "tpu_bdc_fp_mul_C", 1, {kF32, kF16}},
      {"fp_div", "tpu_bdc_fp_div", 2, {kF32, kF16}},
      {"max", "tpu_bdc_max", 2, {kF32, kF16, kS32}},
      {"int_add", "tpu_bdc_int_add", 2, {kS32}},
      {"greater", "tpu_bdc_greater", 2, {kF32, kF16, kS32}},
      {"and", "tpu_bdc_and", 2, {kS32}},
      {"abs", "tpu_bdc_abs", 1, {kF32, kF16, kS32}},
      {"relu", "tpu_bdc_relu", 1, {kF32, kF16, kS32}},
      {"fp_exp", "tpu_bdc_fp_exp", 1, {kF32, kF16}},
      {"cpy", "tpu_bdc_cpy", 1, {kF32, kF16, kS32}},
      {"cast", "tpu_bdc_cast", 1, {kF32, kF16, kS32}},
      {"greater_select", nullptr, 4, {kF32, kF16, kS32}},
  };
  for (const Size& s : kSizes) {
    for (Fn f : fns)
      for (const Dt& d : f.dts) {
        // cast: f32 -> f16, f16 -> f32, s32 -> f32
        f.cast_to = d.dt == DT_FP32 ? kF16 : kF32;
        const std::string name = std::string("BM_tpu_bdc/") + f.label + "/" + d.label + "/" + s.label;
        benchmark::RegisterBenchmark(name.c_str(), run_bdc, f, d, s)->Unit(benchmark::kMicrosecond);
      }
    for (const char* dir : {"S2L", "L2S", "L2L"})
      for (const Dt& d : {kF32, kF16, kS32}) {
        const std::string name = std::string("BM_tpu_gdma/") + dir + "/" + d.label + "/" + s.label;
        benchmark::RegisterBenchmark(name.c_str(), run_gdma, std::string(dir), d, s)->Unit(benchmark::kMicrosecond);
      }
    for (const Dt& d : {kF32, kF16, kBF16}) {
      const std::string name = std::string("BM_tpu_hardtanh/") + d.label + "/" + s.label;
      benchmark::RegisterBenchmark(name.c_str(), run_hardtanh, d, s)->Unit(benchmark::kMicrosecond);
    }
  }
  return true;
}();

}  // namespace tile
}  // namespace
