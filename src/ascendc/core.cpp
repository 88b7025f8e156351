// The simulated core (spec 40 §1): one Unified Buffer of the product's size, the bump allocator
// behind TPipe::InitBuffer, the mask register and the saturation override.
#include <algorithm>
#include <iterator>
#include <string>

#include "tilesim/ascendc/engine.hpp"
#include "tilesim/error.hpp"

namespace tilesim::ascendc {

namespace {
thread_local Core* t_bound = nullptr;
}

void bind_core(Core* c) noexcept {
  t_bound = c;
}

Core* bound_core() noexcept {
  return t_bound;
}

namespace {
[[gnu::noinline]] Core& process_core() {
  static Core c = [] {
    Core k;
    k.product = &default_product();
    k.ub.assign(k.product->ub_bytes, 0);
    return k;
  }();
  return c;
}
}  // namespace

// Every API asks for its core several times: the bound core is a leaf without a frame (the
// process core's guarded initialisation out of line), ~3% of the softmax example's samples before.
Core& core() {
  Core* c = t_bound;
  return c != nullptr ? *c : process_core();
}

void set_product(std::string_view name) {
  const Product& p = find_product(name);
  Core& c = core();
  c.product = &p;
  c.ub.assign(p.ub_bytes, 0);
  c.ub_top = 0;
  c.mask = MaskRegister{};
  c.saturation.reset();
  c.flags.clear();
  c.cmpmask[0] = c.cmpmask[1] = 0;
  std::fill(std::begin(c.events), std::end(c.events), uint8_t{0});
}

uint64_t ub_alloc(uint64_t bytes, std::string_view what) {
  Core& c = core();
  const uint64_t start = (c.ub_top + 31) / 32 * 32;  // buffers start 32-byte aligned
  if (bytes > c.ub.size() || start > c.ub.size() - bytes)
    raise(ErrorCode::Bounds, what,
          "allocation of " + std::to_string(bytes) + " bytes at UB offset " +
              std::to_string(start) + " exceeds the " + std::to_string(c.ub.size()) +
              "-byte UB of " + c.product->name,
          "docs/ascendc.md#ub");
  c.ub_top = start + bytes;
  return start;
}

}  // namespace tilesim::ascendc
