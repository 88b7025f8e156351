// BlockReduceSum benchmarks (spec 60 §6): half and float, full masks, contiguous strides at 1,
// 16 and 255 repeats, plus a strided case (srcBlkStride 2, srcRepStride 16). Data lives in a
// UB-sized buffer; every call runs the full validation as a user's call does.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "tilesim/ascendc/engine.hpp"

namespace ts = tilesim::ascendc;

namespace {

void run(benchmark::State& st, ts::Elem t, int64_t repeats, int64_t blk, int64_t rep) {
  const unsigned sz = ts::elem_bytes(t), E = ts::block_elems(t);
  const uint64_t src_elems = uint64_t((repeats - 1) * rep + 7 * blk + 1) * E;
  std::vector<uint8_t> src(src_elems * sz), dst(uint64_t(repeats) * 8 * sz);
  for (uint64_t i = 0; i < src_elems; ++i) {
    if (t == ts::Elem::f16) {
      const uint16_t c = uint16_t(0x3C00 + (i * 37 % 1024));  // [1, 2)
      std::memcpy(&src[i * 2], &c, 2);
    } else {
      const float f = 1.0f + float(i % 1000) / 1000.0f;
      std::memcpy(&src[i * 4], &f, 4);
    }
  }
  ts::ReduceCall call;
  call.op = ts::ReduceOp::Sum;
  call.elem = t;
  call.repeat = repeats;
  call.mask.kind = ts::MaskArg::Kind::Continuous;
  call.mask.len = ts::repeat_elems(t);
  call.dst_rep_stride = 1;
  call.src_blk_stride = blk;
  call.src_rep_stride = rep;
  const ts::Product& p = ts::default_product();
  ts::MaskRegister reg;
  ts::Operand d{dst.data(), 0, dst.size() / sz}, s{src.data(), 0, src_elems};
  for (auto _ : st) {
    ts::block_reduce(p, true, reg, d, s, call);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * repeats * 256);
}

struct Register {
  Register() {
    for (auto [t, dn] : {std::pair{ts::Elem::f16, "f16"}, std::pair{ts::Elem::f32, "f32"}}) {
      for (int64_t r : {1, 16, 255}) {
        const std::string name =
            std::string("BM_ascendc_blockreducesum/") + dn + "/r" + std::to_string(r) + "/contig";
        const ts::Elem tt = t;
        benchmark::RegisterBenchmark(name.c_str(),
                                     [tt, r](benchmark::State& st) { run(st, tt, r, 1, 8); });
      }
      const std::string name = std::string("BM_ascendc_blockreducesum/") + dn + "/r255/strided";
      const ts::Elem tt = t;
      benchmark::RegisterBenchmark(name.c_str(),
                                   [tt](benchmark::State& st) { run(st, tt, 255, 2, 16); });
    }
  }
} registered;

}  // namespace
