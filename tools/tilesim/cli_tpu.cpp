// `tilesim run` default for the TPU-Kernel model (spec 60 §5): the bundled hardtanh and masked
// max kernels (examples/tpu) run through the engine on every chip, each result compared bit for
// bit with the scalar reference path, with a short report. No arithmetic here: the kernels are
// sequences of engine calls.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "cli.hpp"
#include "tilesim/tpu.hpp"

namespace {

using namespace tilesim::tpu;

// Deterministic input codes: fp32 values -3.00 .. 3.00 in steps of 0.01.
std::vector<float> inputs(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1103515245u + 12345u;
    x = static_cast<float>(static_cast<int>(seed >> 16) % 601 - 300) / 100.f;
  }
  return v;
}

// hardtanh: greater_select then less_select with SCALAR bounds, in place on the output.
void hardtanh(Device& d, local_addr_t out, local_addr_t in, const dim4& s) {
  const variable_t x = tensor(in), y = tensor(out), lo = scalar_f32(-1.f), hi = scalar_f32(1.f);
  d.greater_select(out, &x, &lo, &x, &lo, &s, DT_FP32, DT_FP32);
  d.less_select(out, &y, &hi, &y, &hi, &s, DT_FP32, DT_FP32);
}

// masked max over two candidates: values and int32 indices (maximum_greater_select).
void masked_max(Device& d, local_addr_t best, local_addr_t idx, local_addr_t a, local_addr_t b,
                const dim4& s) {
  const variable_t va = tensor(a), vb = tensor(b), i0 = scalar_bits(0), i1 = scalar_bits(1);
  d.maximum_greater_select(best, idx, &va, &vb, &i0, &i1, &s, DT_FP32, DT_INT32);
}

int run_tpu(const tilesim::cli::Options&) {
  int status = 0;
  for (const ChipProfile& chip : chips()) {
    const dim4 s{1, chip.npu_num, 32, 64};
    const size_t n = size_t(s.c) * s.h * s.w;
    const std::vector<float> a = inputs(n, 1), b = inputs(n, 2);
    Device fast(chip.name), ref(chip.name);
    ref.set_reference(true);
    dim4 st;
    fast.aligned_stride(&st, 0, &s, DT_FP32);
    const local_addr_t sz = static_cast<local_addr_t>(st.n) * 4;
    double ms[2] = {0, 0};
    for (Device* d : {&fast, &ref}) {
      d->gdma_cpy_S2L(0, a.data(), &s, nullptr, nullptr, DT_FP32);
      d->gdma_cpy_S2L(sz, b.data(), &s, nullptr, nullptr, DT_FP32);
      const auto t0 = std::chrono::steady_clock::now();
      hardtanh(*d, 2 * sz, 0, s);
      masked_max(*d, 3 * sz, 4 * sz, 0, sz, s);
      ms[d == &ref] =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    const bool same =
        std::memcmp(fast.memory().data(), ref.memory().data(), fast.memory().size()) == 0;
    std::vector<float> h(n), best(n);
    std::vector<int32_t> idx(n);
    fast.gdma_cpy_L2S(h.data(), 2 * sz, &s, nullptr, nullptr, DT_FP32);
    fast.gdma_cpy_L2S(best.data(), 3 * sz, &s, nullptr, nullptr, DT_FP32);
    fast.gdma_cpy_L2S(idx.data(), 4 * sz, &s, nullptr, nullptr, DT_INT32);
    size_t from_b = 0, clamped = 0;
    for (size_t i = 0; i < n; ++i) {
      from_b += idx[i] == 1;
      clamped += h[i] == 1.f || h[i] == -1.f;
    }
    std::printf(
        "%-8s NPU_NUM %2d, LOCAL_MEM_SIZE %3u KiB, ALIGN %2d: hardtanh + masked max on "
        "[1, %d, 32, 64] fp32: %s the scalar reference (fast %.2f ms, reference %.2f ms); "
        "%zu of %zu clamped, index 1 won %zu times\n",
        chip.name, chip.npu_num, chip.local_mem_size / 1024, chip.align_bytes, s.c,
        same ? "bit-identical to" : "DIFFERS FROM", ms[0], ms[1], clamped, n, from_b);
    if (!same) status = 2;
  }
  return status;
}

tilesim::cli::Hook hook([](tilesim::cli::Hooks& h) { h.run_default.push_back({"tpu", &run_tpu}); });

}  // namespace
