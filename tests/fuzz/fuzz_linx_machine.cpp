// libFuzzer target: the word decoder and the machine (spec 30 §1, §3, §6). The input's first bytes
// pick registers and tile contents, the rest are 32-bit words. A run either succeeds or raises
// tilesim::Error (Parse for undecodable words, Fault for machine faults) — never crashes — and a
// Fault leaves the machine state (ACC, queues) as the block found it.
#include "body_linx_machine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tilesim_fuzz::linx_machine_one(data, size);
}
