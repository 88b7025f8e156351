// What an Ascend C API means to the pipeline-hazard checker (issue 22): the pipe of each row of the
// API tables, UB and GM operand ranges, and the calls into tilesim/sync.hpp with the kernel's site.
#include "tilesim/ascendc/sync.hpp"

#include "tilesim/ascendc/engine.hpp"

namespace tilesim::ascendc {

Pipe pipe_rule(OtherApi api) noexcept {
  static constexpr Pipe kRules[] = {
#define TILESIM_ASCENDC_OTHER_RULE(name, pipe) Pipe::pipe,
      TILESIM_ASCENDC_OTHER_APIS(TILESIM_ASCENDC_OTHER_RULE)
#undef TILESIM_ASCENDC_OTHER_RULE
  };
  return kRules[static_cast<size_t>(api)];
}

uint8_t pipe_of(Pipe rule, bool src_ub, bool dst_ub) noexcept {
  switch (rule) {
    case Pipe::S: return sync::kS;
    case Pipe::Copy:
      if (src_ub && dst_ub) return sync::kV;
      return dst_ub ? sync::kMte2 : sync::kMte3;
    default: return sync::kV;
  }
}

sync::Range ub_range(uint64_t addr, uint64_t bytes) {
  return {sync::Buf::UB, core().ub.data() + addr, addr, bytes, false};
}

sync::Range gm_range(const void* p, uint64_t bytes, bool atomic) {
  return {sync::Buf::GM, p, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)), bytes, atomic};
}

void record(const char* api, uint8_t pipe, const sync::Range* reads, int n_reads, const sync::Range* writes,
            int n_writes) {
  sync::access(api, pipe, t_site ? *t_site : sync::Site{}, reads, n_reads, writes, n_writes);
}

void record_flag(bool set, uint8_t src, uint8_t dst, int64_t id, const sync::Site& site) {
  if (set)
    sync::set_flag("SetFlag", src, dst, id, site);
  else
    sync::wait_flag("WaitFlag", src, dst, id, site);
}

void record_barrier(uint8_t pipe, const sync::Site& site) {
  sync::barrier("PipeBarrier", pipe, site);
}

}  // namespace tilesim::ascendc
