// The pipeline-hazard checker's cost (issue 22 "Speed", docs/sync.md): each example kernel timed
// unchecked (/off) and checked (/on: TILESIM_CHECK=sync's work, including the end-of-kernel flag
// check), so bench/compare.py reports the overhead ratio; and the hooks' cost with the checker
// off (BM_sync_hook_off: a set_flag/wait_flag pair, the only work a kernel does when off).
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "../examples/pto/flash_attention.hpp"
#include "../examples/pto/softmax_double_buffer.hpp"
#include "tilesim/sync.hpp"

namespace {
using namespace pto;
namespace ts = tilesim::sync;

// Runs `kernel` per iteration with the checker on or off; checked runs end each kernel (its flag
// check) and forget the reports, as a fresh process would.
template <class F>
void run(benchmark::State& st, bool checked, F&& kernel) {
  ts::enable(checked);
  for (auto _ : st) {
    kernel();
    if (checked) {
      ts::end_kernel();
      ts::clear_reports();
    }
  }
  ts::enable(false);
}

template <int S, int D>
void BM_attention(benchmark::State& st, bool checked) {
  set_target("a5");
  std::vector<half> q(static_cast<size_t>(S) * D), k(q.size()), v(q.size());
  for (size_t i = 0; i < q.size(); ++i) {
    q[i] = half(std::sin(0.37f * float(i)) * 0.5f);
    k[i] = half(std::sin(0.37f * float(i) + 1.0f) * 0.5f);
    v[i] = half(std::sin(0.37f * float(i) + 2.0f));
  }
  std::vector<float> o(q.size());
  run(st, checked, [&] {
    example::flash_attention<S, D>(q.data(), k.data(), v.data(), o.data());
    benchmark::DoNotOptimize(o.data());
  });
  set_target("a2a3");
}
void BM_attention_512_64(benchmark::State& st, bool checked) { BM_attention<512, 64>(st, checked); }
BENCHMARK_CAPTURE(BM_attention_512_64, off, false)->Name("BM_sync_attention/S512/D64/off")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_attention_512_64, on, true)->Name("BM_sync_attention/S512/D64/on")->Unit(benchmark::kMicrosecond);

void BM_softmax(benchmark::State& st, bool checked) {
  std::vector<float> x(example::kDbRows * example::kDbCols), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = float((i * 71) % 97) * 0.11f - 5.0f;
  run(st, checked, [&] {
    example::softmax_double_buffer(x.data(), y.data());
    benchmark::DoNotOptimize(y.data());
  });
}
BENCHMARK_CAPTURE(BM_softmax, off, false)->Name("BM_sync_softmax_db/256x128/off")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_softmax, on, true)->Name("BM_sync_softmax_db/256x128/on")->Unit(benchmark::kMicrosecond);

// With the checker off a flag pair is two inline loads and branches: the "zero overhead" claim.
void BM_hook_off(benchmark::State& st) {
  ts::enable(false);
  for (auto _ : st) {
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_hook_off)->Name("BM_sync_hook_off/flag_pair");

}  // namespace
