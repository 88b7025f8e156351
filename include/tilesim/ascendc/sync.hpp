// The Ascend C model's side of the pipeline-hazard checker (issue 22, <tilesim/sync.hpp>): which
// pipe runs each API, the source site of the kernel's call, and the byte ranges each call touches.
// ICPU_RUN_KF watches a launch when TILESIM_CHECK=sync (or sync::enable(true)) is on as it starts;
// inside its blocks every API reports here. Outside a watched block each hook is one thread-local
// load and branch.
#pragma once
#include <cstdint>
#include <initializer_list>

#include "tilesim/sync.hpp"

namespace tilesim::ascendc {

// A pipe rule of the API tables (the PIPE column): V and S name the pipe; Copy is resolved by the
// direction, as the vendor's DataCopy pages file them: GM -> UB on MTE2, UB -> GM on MTE3,
// UB -> UB on V (the UB -> UB copy is the vector unit's vcopy, PIPE_V on its intrinsic page).
enum class Pipe : uint8_t { V, S, Copy };

// The APIs outside the vector table (TILESIM_ASCENDC_VECTOR_APIS): X(family, pipe). Every compute
// API runs on the vector unit; LocalTensor / GlobalTensor GetValue and SetValue are scalar loads and
// stores (PIPE_S).
#define TILESIM_ASCENDC_OTHER_APIS(X) \
  X(DataCopy, Copy)                   \
  X(DataCopyPad, Copy)                \
  X(Duplicate, V)                     \
  X(Brcb, V)                          \
  X(Cast, V)                          \
  X(Compare, V)                       \
  X(Select, V)                        \
  X(CmpMask, V)                       \
  X(WholeReduce, V)                   \
  X(PairReduce, V)                    \
  X(Reduce, V)                        \
  X(BlockReduce, V)                   \
  X(GetValue, S)                      \
  X(SetValue, S)

enum class OtherApi : uint8_t {
#define TILESIM_ASCENDC_OTHER_ENUM(name, pipe) name,
  TILESIM_ASCENDC_OTHER_APIS(TILESIM_ASCENDC_OTHER_ENUM)
#undef TILESIM_ASCENDC_OTHER_ENUM
};
Pipe pipe_rule(OtherApi api) noexcept;
// The pipe of a rule; Copy: from where to where.
uint8_t pipe_of(Pipe rule, bool src_ub = true, bool dst_ub = true) noexcept;

// The calling thread runs a block of a watched launch (set and cleared by ICPU_RUN_KF).
inline thread_local bool t_sync = false;
// The kernel's call site of the API being executed (null: not known, e.g. a Python call).
inline thread_local const sync::Site* t_site = nullptr;

// Marks the kernel source's call for the engine's reports. The outermost API wins, so an API built
// from another (ReduceDataBlock over BlockReduceSum) reports the kernel's line, not the header's.
class ApiSite {
 public:
  explicit ApiSite(const sync::Site& s) noexcept {
    if (t_sync && t_site == nullptr) [[unlikely]] {
      t_site = &s;
      own_ = true;
    }
  }
  ~ApiSite() {
    if (own_) t_site = nullptr;
  }
  ApiSite(const ApiSite&) = delete;
  ApiSite& operator=(const ApiSite&) = delete;

 private:
  bool own_ = false;
};

// Operand ranges: UB bytes of the calling core (the report shows the UB offset), GM bytes (the
// report shows the host address; `atomic`: an atomic-add store).
sync::Range ub_range(uint64_t addr, uint64_t bytes);
sync::Range gm_range(const void* p, uint64_t bytes, bool atomic = false);
// One API call's accesses on `pipe`, at the current t_site. Call only when t_sync.
void record(const char* api, uint8_t pipe, const sync::Range* reads, int n_reads, const sync::Range* writes,
            int n_writes);
inline void record(const char* api, uint8_t pipe, std::initializer_list<sync::Range> reads,
                   std::initializer_list<sync::Range> writes) {
  record(api, pipe, reads.begin(), int(reads.size()), writes.begin(), int(writes.size()));
}

// SetFlag / WaitFlag / PipeBarrier of the kernel (HardEvent's pipes resolved by the caller).
void record_flag(bool set, uint8_t src, uint8_t dst, int64_t id, const sync::Site& site);
void record_barrier(uint8_t pipe, const sync::Site& site);

}  // namespace tilesim::ascendc
