// Benchmarks of the TPU compare-selects (spec 60 §6): each function with TENSOR/SCALAR/VECTOR
// operand mixes at [1, 64, 32, 64] and [1, 256, 64, 64], fp32, fp16 and int8 -> int32 (the
// extremum functions need equal widths: int8 values with int8 indices there). One thread, the
// destination in place over a source as kernels do (the large shape fills a bm1684x NPU).
// Names: BM_tpu_<function>/<dtypes>/<shape>/<mix>, mix = the kinds of src0..src3 (T, S, V).
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "tilesim/parallel.hpp"
#include "tilesim/tpu.hpp"

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

}  // namespace
