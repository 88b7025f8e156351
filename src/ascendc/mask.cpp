// The mask register's state machine (spec 40 §1): SetVectorMask in its normal (bits / len) and
// counter forms, ResetMask, SetMaskCount / SetMaskNorm. Values are checked when set.
#include <cstddef>
#include <cstring>
#include <string>

#include "plan.hpp"
#include "tilesim/error.hpp"

namespace tilesim::ascendc {
namespace {

[[noreturn]] void bad(const std::string& detail) {
  raise(ErrorCode::Constraint, "SetVectorMask", detail, "docs/ascendc.md#the-mask-register");
}

// lo and hi in one 16-byte store. The APIs copy the register with a 16-byte load, which the CPU
// cannot forward from two 8-byte stores: it waited until they, behind the previous API's vector
// stores, reached L1 (a kernel sets the mask between every two APIs; docs/ascendc.md "Speed").
void store_words(MaskRegister& reg, uint64_t lo, uint64_t hi) noexcept {
  static_assert(offsetof(MaskRegister, lo) == 0 && offsetof(MaskRegister, hi) == 8);
  using Words = uint64_t __attribute__((vector_size(16)));
  const Words w = {lo, hi};
  std::memcpy(static_cast<void*>(&reg), &w, sizeof w);
}

}  // namespace

void set_vector_mask_bits(MaskRegister& reg, Elem t, uint64_t high, uint64_t low) {
  if (t == Elem::f16) {
    if (high == 0 && low == 0) bad("bit mode for half: maskHigh and maskLow must not both be 0");
  } else {
    // 32-bit types use one word (the vendor's rule: maskHigh 0, maskLow in (0, 2^64-1]).
    if (high != 0) bad("bit mode for float: maskHigh must be 0, got " + std::to_string(high));
    if (low == 0) bad("bit mode for float: maskLow must be in (0, 2^64-1], got 0");
  }
  store_words(reg, low, high);
}

void set_vector_mask_len(MaskRegister& reg, Elem t, int64_t len) {
  const int64_t max = repeat_elems(t);
  if (len < 1 || len > max)
    bad(std::string("continuous mode for ") + name(t) + ": len must be in [1, " +
        std::to_string(max) + "], got " + std::to_string(len));
  const detail::RepeatMask m = detail::first_n(static_cast<unsigned>(len));
  store_words(reg, m.lo, m.hi);
}

void set_vector_mask_count(MaskRegister& reg, uint64_t high, int64_t len) {
  if (high != 0) bad("counter mode: maskHigh must be 0, got " + std::to_string(high));
  // tilesim's bound: the int32_t len of the vendor prototype.
  if (len < 0 || len > INT32_MAX)
    bad("counter mode: element count must be in [0, 2^31-1], got " + std::to_string(len));
  store_words(reg, static_cast<uint64_t>(len), 0);
}

void reset_mask(MaskRegister& reg) noexcept {
  store_words(reg, ~uint64_t{0}, ~uint64_t{0});
}
void set_mask_count(MaskRegister& reg) noexcept {
  reg.counter = true;
}
void set_mask_norm(MaskRegister& reg) noexcept {
  reg.counter = false;
}

}  // namespace tilesim::ascendc
