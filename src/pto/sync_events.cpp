// PTO events as the pipeline-hazard checker sees them (issue 22 §2, docs/pto-kernels.md#sync):
// an instruction's RecordEvent carries a token under which the checker noted what the
// instruction's pipe had issued (sync::post); passing it as a trailing event orders the
// consumer's pipe after that (sync::take). The vendor's Event<SrcOp, DstOp> is set_flag/wait_flag
// on its ops' pipes and is modelled in tilesim/pto/kernel.hpp with these helpers.
#include <atomic>

#include "pto/instr.hpp"

namespace tilesim::pto {
namespace {

// Tokens are keys of sync::post, a map shared with the Ascend C queues (keyed by addresses): the
// top bits keep the two apart. Never reused in a process, so a RecordEvent kept across
// end_kernel() finds nothing (the core forgets its posts) instead of another instruction's.
constexpr uint64_t kTokenTag = uint64_t(0x50544F) << 40;  // "PTO"
std::atomic<uint64_t> g_next_token{0};

uint64_t post_new(uint8_t pipe) {
  const uint64_t token = kTokenTag | (g_next_token.fetch_add(1, std::memory_order_relaxed) + 1);
  sync::post(token, pipe);
  return token;
}

}  // namespace

uint8_t sync_pipe(const Call& c) { return instr::sync_pipe(instr_info(c.instr), c); }

uint64_t sync_post(const Call& c) {
  // A call that moved nothing (TPREFETCH) still returns an event: it orders what its pipe issued.
  return post_new(sync_pipe(c));
}

void sync_take(uint64_t token, const Call& consumer) {
  if (token != 0) sync::take(token, sync_pipe(consumer));
}

void sync_take_all(uint64_t token) {
  if (token == 0) return;
  for (uint8_t p = 0; p < sync::kNumPipes; ++p)
    if (p != sync::kAll) sync::take(token, p);
}

uint8_t sync_event_id(uint8_t src, uint8_t dst) {
  // The vendor's EventIdCounter: a counter per pipe pair, taken at Event construction.
  static std::atomic<uint8_t> next[sync::kNumPipes][sync::kNumPipes];
  if (src >= sync::kNumPipes || dst >= sync::kNumPipes) return 0;
  return uint8_t(next[src][dst].fetch_add(1, std::memory_order_relaxed) % 8);
}

}  // namespace tilesim::pto
