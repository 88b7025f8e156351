// libFuzzer target: the word decoder and the machine (spec 30 §1, §3, §6). The input's first bytes
// pick registers and tile contents, the rest are 32-bit words. A run either succeeds or raises
// tilesim::Error (Parse for undecodable words, Fault for machine faults) — never crashes — and a
// Fault leaves the machine state (ACC, queues) as the block found it.
// The body is shared by the libFuzzer binary fuzz_linx_machine.cpp and the replay of tests/regress/
// in tests/robust/regress_test.cpp; TILESIM_FUZZ_FAIL reports a broken invariant (abort by
// default).
#pragma once
#include <cstdint>
#include <cstdlib>

#ifndef TILESIM_FUZZ_FAIL
#define TILESIM_FUZZ_FAIL(why) std::abort()
#endif
#include <cstring>
#include <vector>

#include "tilesim/linx.hpp"

namespace lx = tilesim::linx;

namespace tilesim_fuzz {
inline int linx_machine_one(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  // 64 KiB of memory, not the 64 MiB default: zeroing that per input cut the fuzzer to ~8 runs/s,
  // and a small memory makes TLOAD/TSTORE reach its bounds faults more often.
  lx::Machine m("linx_v056", size_t{1} << 16);
  const uint8_t* p = data;
  // 4 register values (a0..a3), small so dims are plausible
  const char* regs[] = {"a0", "a1", "a2", "a3"};
  for (int i = 0; i < 4; ++i) m.set_reg(regs[i], p[i] % 130);
  const uint8_t fill = p[4], sizes = p[5];
  p += 8;
  size -= 8;
  // one tile on each queue, of a legal size chosen by the input, filled with a byte pattern
  const char queues[] = {'T', 'U', 'M', 'N'};
  for (int q = 0; q < 4; ++q) {
    size_t bytes = size_t{256} << ((sizes >> (2 * q)) & 3);
    std::vector<uint8_t> raw(bytes);
    for (size_t i = 0; i < bytes; ++i) raw[i] = static_cast<uint8_t>(fill * (i + 1) + q);
    try {
      m.push_raw(queues[q], raw, bytes);
    } catch (const tilesim::Error&) {
    }
  }
  std::vector<uint32_t> words(size / 4);
  if (!words.empty()) std::memcpy(words.data(), p, words.size() * 4);
  try {
    m.run(words);
  } catch (const tilesim::Error&) {
  }
  return 0;
}
}  // namespace tilesim_fuzz
