// Internal to the TPU model: global memory as the GDMA walks it (global_mem.cpp). Allocations are
// zeroed lazily (see global_mem.cpp): a GDMA resolves its system sides without zeroing them
// (global_span_lazy, while it checks), then, once every check has passed and before it moves a
// byte, settles the ranges it reads and writes (global_touch).
#pragma once
#include <cstdint>

#include "tilesim/tpu.hpp"

namespace tilesim::tpu {

// global_span without zeroing the allocation's pending bytes.
uint8_t* global_span_lazy(global_addr_t addr, uint64_t bytes, const char* fn, const char* operand);
// [addr, addr + bytes) of a live allocation (checked before): zeroes its pending bytes, or, when
// the caller writes every byte of the range next (`writes_all`), drops them from pending.
void global_touch(global_addr_t addr, uint64_t bytes, bool writes_all);

}  // namespace tilesim::tpu
