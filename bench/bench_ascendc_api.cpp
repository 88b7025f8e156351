// Ascend C vector API benchmarks (spec 60 §6, issue 18 "Speed"): one benchmark per API family,
// dtype (f16, f32) and element count (2K, 64K, 1M), count forms through the engine entry points the
// vendor-shaped templates call (binary Add/Mul/Div/Max, scalar Adds/Muls, unary Exp/Ln/Sqrt/Relu,
// ReduceSum/ReduceMax/WholeReduceSum, Cast, Duplicate, Compare + Select, DataCopy GM->UB and
// UB->GM); the softmax example kernel (1K x 1K floats, 8 blocks) through
// ICPU_RUN_KF; and ICPU_RUN_KF's launch overhead with an empty kernel. Peers: bench/peers_ascendc_api.py.
// The 64K and 1M cases do not fit a 192 KB UB: they run on a core whose UB is sized to the operands
// (the engine's throughput per element; a real kernel tiles through the UB, as the softmax does).
// No UseRealTime: its "/real_time" name suffix would not match the exact names compare.py asks
// for; compare.py reads the wall time (real_time) of every benchmark anyway.
#include <benchmark/benchmark.h>

#include <sys/mman.h>

#include <cstring>
#include <string>
#include <vector>

#include "../examples/ascendc/softmax_custom.hpp"
#include "kernel_operator.h"
#include "tikicpulib.h"
#include "tilesim/ascendc/vector.hpp"

namespace ts = tilesim::ascendc;
using tilesim::formats::DType;

namespace {

enum class Fam {
  Add,
  Mul,
  Div,
  Max,
  Adds,
  Muls,
  Exp,
  Ln,
  Sqrt,
  Relu,
  ReduceSum,
  ReduceMax,
  WholeReduceSum,
  Cast,
  Duplicate,
  CompareSelect,
  DataCopyIn,
  DataCopyOut
};
struct FamInfo {
  Fam f;
  const char* name;
};
// Names as bench/peers_ascendc_api.py spells them (FAMILIES there).
constexpr FamInfo kFams[] = {{Fam::Add, "add"},
                             {Fam::Mul, "mul"},
                             {Fam::Div, "div"},
                             {Fam::Max, "max"},
                             {Fam::Adds, "adds"},
                             {Fam::Muls, "muls"},
                             {Fam::Exp, "exp"},
                             {Fam::Ln, "ln"},
                             {Fam::Sqrt, "sqrt"},
                             {Fam::Relu, "relu"},
                             {Fam::ReduceSum, "reducesum"},
                             {Fam::ReduceMax, "reducemax"},
                             {Fam::WholeReduceSum, "wholereducesum"},
                             {Fam::Cast, "cast"},
                             {Fam::Duplicate, "duplicate"},
                             {Fam::CompareSelect, "compareselect"},
                             {Fam::DataCopyIn, "datacopy_gm2ub"},
                             {Fam::DataCopyOut, "datacopy_ub2gm"}};

// A core bound to the benchmark's thread with a UB of `bytes` (at least the product's). A UB of
// 4 MB or more is advised onto transparent huge pages before it is first touched, as NumPy does
// for its arrays of 4 MB or more (the peers' 1M fp32 operands): the 1M cases then compare the
// kernels, not 4 KB-page TLB misses over a 20 MB UB that no real core has.
struct BigCore {
  ts::Core c;
  explicit BigCore(uint64_t bytes) {
    c.product = &ts::default_product();
    const uint64_t n = std::max<uint64_t>(bytes, c.product->ub_bytes);
    decltype(c.ub)().swap(c.ub);
    c.ub.reserve(n);
#ifdef MADV_HUGEPAGE
    if (n >= (uint64_t{1} << 22)) {
      constexpr uintptr_t kHuge = uintptr_t{1} << 21;
      const uintptr_t lo = (reinterpret_cast<uintptr_t>(c.ub.data()) + kHuge - 1) & ~(kHuge - 1);
      const uintptr_t hi = (reinterpret_cast<uintptr_t>(c.ub.data()) + n) & ~(kHuge - 1);
      if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);  // advice only
    }
#endif
    c.ub.resize(n, 0);
    ts::bind_core(&c);
  }
  ~BigCore() { ts::bind_core(nullptr); }
};

// [0.5, 1.5): no overflow in any family; `step` 1 for the first source, 7 for the second (so
// Compare sees both outcomes, as the peers' b = a[(7 * i) % 1000] does).
void fill(uint8_t* p, DType t, uint64_t n, uint64_t step = 1) {
  for (uint64_t i = 0; i < n; ++i) {
    const float v = 0.5f + float(i * step % 1000) / 1000.0f;
    if (t == DType::fp32) {
      std::memcpy(p + 4 * i, &v, 4);
    } else {
      const half h(v);
      std::memcpy(p + 2 * i, &h, 2);
    }
  }
}

void run_api(benchmark::State& st, Fam f, DType t, int64_t n) {
  const unsigned es = t == DType::fp16 ? 2 : 4;
  const uint64_t bytes = uint64_t(n) * es, stride = (bytes + 31) / 32 * 32;
  BigCore core(5 * stride + 4096);
  const ts::UbRef a{0, uint64_t(n)}, b{stride, uint64_t(n)}, d{2 * stride, uint64_t(n)}, tmp{3 * stride, uint64_t(n)};
  const ts::UbRef bits{4 * stride, uint64_t(n) / 8};  // Compare's bit mask (one bit per element)
  fill(core.c.ub.data(), t, uint64_t(n));
  fill(core.c.ub.data() + stride, t, uint64_t(n), 7);
  std::vector<uint8_t> gm(bytes);
  fill(gm.data(), t, uint64_t(n));
  const uint64_t one = t == DType::fp32 ? 0x3F800000u : 0x3C00u;
  const unsigned lanes = 256 / es;
  for (auto _ : st) {
    switch (f) {
      case Fam::Add: ts::vector_count(ts::VecApi::Add, t, d, a, &b, 0, n); break;
      case Fam::Mul: ts::vector_count(ts::VecApi::Mul, t, d, a, &b, 0, n); break;
      case Fam::Div: ts::vector_count(ts::VecApi::Div, t, d, a, &b, 0, n); break;
      case Fam::Max: ts::vector_count(ts::VecApi::Max, t, d, a, &b, 0, n); break;
      case Fam::Adds: ts::vector_count(ts::VecApi::Adds, t, d, a, nullptr, one, n); break;
      case Fam::Muls: ts::vector_count(ts::VecApi::Muls, t, d, a, nullptr, one, n); break;
      case Fam::Exp: ts::vector_count(ts::VecApi::Exp, t, d, a, nullptr, 0, n); break;
      case Fam::Ln: ts::vector_count(ts::VecApi::Ln, t, d, a, nullptr, 0, n); break;
      case Fam::Sqrt: ts::vector_count(ts::VecApi::Sqrt, t, d, a, nullptr, 0, n); break;
      case Fam::Relu: ts::vector_count(ts::VecApi::Relu, t, d, a, nullptr, 0, n); break;
      case Fam::ReduceSum:
        ts::reduce_count(ts::ReduceOp::Sum, t, d, a, tmp, n, false, true, "ReduceSum");
        break;
      case Fam::ReduceMax:
        ts::reduce_count(ts::ReduceOp::Max, t, d, a, tmp, n, false, true, "ReduceMax");
        break;
      case Fam::WholeReduceSum: {
        ts::MaskArg m;
        m.set_mask = false;  // counter mode over n elements: one sum per 256 bytes
        ts::set_mask_count(core.c.mask);
        ts::set_vector_mask_count(core.c.mask, 0, n);
        ts::whole_reduce(ts::ReduceOp::Sum, t, ts::UbRef{d.addr, uint64_t((n + lanes - 1) / lanes)}, a, m, 1, 1, 1, 8,
                         ts::ReduceOrderKind::ONLY_VALUE, "WholeReduceSum");
        ts::set_mask_norm(core.c.mask);
        break;
      }
      case Fam::Cast:  // fp16 -> fp32 (the f16 row) and fp32 -> fp16 with CAST_RINT (the f32 row)
        if (t == DType::fp16)
          ts::cast_count(DType::fp32, DType::fp16, ts::UbRef{tmp.addr - stride, uint64_t(n)}, a,
                         ts::CastRound::CAST_NONE, n);
        else
          ts::cast_count(DType::fp16, DType::fp32, d, a, ts::CastRound::CAST_RINT, n);
        break;
      case Fam::Duplicate: ts::duplicate_count(t, d, one, n); break;
      case Fam::CompareSelect: {  // Compare(LT) into a bit mask, then Select (tensor-tensor, count form)
        ts::compare_bits_count(ts::CmpMode::LT, t, bits, a, &b, 0, n, "Compare");
        ts::select(ts::SelMode::VSEL_TENSOR_TENSOR_MODE, t, d, &bits, a, &b, 0, nullptr, 0, ts::RepeatStrides{}, true,
                   n);
        break;
      }
      case Fam::DataCopyIn: {
        ts::MemRef dst{true, d.addr, nullptr, nullptr, uint64_t(n)};
        ts::MemRef src{false, 0, gm.data(), nullptr, uint64_t(n)};
        ts::data_copy(dst, src, uint64_t(n), es);
        break;
      }
      case Fam::DataCopyOut: {
        ts::MemRef dst{false, 0, gm.data(), nullptr, uint64_t(n)};
        ts::MemRef src{true, a.addr, nullptr, nullptr, uint64_t(n)};
        ts::data_copy(dst, src, uint64_t(n), es);
        break;
      }
    }
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * n);
}

// The softmax example kernel, 1024 x 1024 floats on 8 blocks (blocks on the thread pool:
// TILESIM_THREADS).
void run_softmax(benchmark::State& st) {
  using namespace softmax_ex;
  const size_t n = size_t(kRows) * kCols;
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(n * 4));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(n * 4));
  auto* tiling = static_cast<uint8_t*>(AscendC::GmAlloc(sizeof(SoftmaxTiling)));
  const SoftmaxTiling t{kRows, kCols, kRows / kBlocks, kRowsPerTile};
  std::memcpy(tiling, &t, sizeof t);
  fill_inputs(reinterpret_cast<float*>(x), n);
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  for (auto _ : st) {
    ICPU_RUN_KF(softmax_custom, kBlocks, x, y, tiling);
    benchmark::ClobberMemory();
  }
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(tiling);
}

extern "C" __global__ __aicore__ void bench_empty_kernel(GM_ADDR p) {
  (void)p;
}

// ICPU_RUN_KF of an empty kernel: the launch's fixed cost (checks, one core and its UB per block,
// the thread pool). Reported per block with the counter ns_per_block.
void run_launch(benchmark::State& st, int64_t blocks) {
  auto* g = static_cast<uint8_t*>(AscendC::GmAlloc(64));
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  for (auto _ : st) ICPU_RUN_KF(bench_empty_kernel, blocks, g);
  st.counters["ns_per_block"] =
      benchmark::Counter(double(blocks), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  AscendC::GmFree(g);
}

struct Register {
  Register() {
    for (const FamInfo& fi : kFams)
      for (auto [t, dn] : {std::pair{DType::fp16, "f16"}, std::pair{DType::fp32, "f32"}})
        for (int64_t n : {int64_t{2048}, int64_t{65536}, int64_t{1} << 20}) {
          const std::string name = std::string("BM_ascendc_api_") + fi.name + "/" + dn + "/" + std::to_string(n);
          const Fam f = fi.f;
          const DType tt = t;
          benchmark::RegisterBenchmark(name.c_str(), [f, tt, n](benchmark::State& st) { run_api(st, f, tt, n); })
              ->Unit(benchmark::kMicrosecond);
        }
    benchmark::RegisterBenchmark("BM_ascendc_kernel_softmax/f32/1024x1024/b8", run_softmax)
        ->Unit(benchmark::kMillisecond);
    for (int64_t b : {1, 8, 48})
      benchmark::RegisterBenchmark(("BM_ascendc_launch/empty/b" + std::to_string(b)).c_str(),
                                   [b](benchmark::State& st) { run_launch(st, b); })
          ->Unit(benchmark::kMicrosecond);
  }
} registered;

}  // namespace
