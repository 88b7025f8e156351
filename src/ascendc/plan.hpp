// A validated BlockReduce call (spec 40 §2): what the reference and the fast path execute.
// Built only by check_block_reduce (block_reduce_check.cpp), so executing it cannot fail.
#pragma once
#include <cstdint>

#include "tilesim/ascendc/engine.hpp"

namespace tilesim::ascendc::detail {

// Active elements of one repeat: bit i of the 128-bit (lo, hi) pair is element i.
struct RepeatMask {
  uint64_t lo = 0, hi = 0;
  bool bit(unsigned i) const { return i < 64 ? (lo >> i) & 1 : (hi >> (i - 64)) & 1; }
};

// First n elements active.
inline RepeatMask first_n(unsigned n) {
  RepeatMask m;
  m.lo = n >= 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1);
  m.hi = n >= 128 ? ~uint64_t{0} : n > 64 ? ((uint64_t{1} << (n - 64)) - 1) : 0;
  return m;
}

// Datablock b's E mask bits (E is 8 or 16 and divides 64: a block never straddles the words).
inline uint64_t block_bits(const RepeatMask& m, unsigned E, unsigned b) {
  const unsigned first = b * E;
  const uint64_t word = first < 64 ? m.lo : m.hi;
  return (word >> (first & 63)) & (E == 16 ? 0xFFFF : 0xFF);
}

// Bit b set iff datablock b has at least one active element.
inline uint8_t block_activity(const RepeatMask& m, unsigned E) {
  uint8_t a = 0;
  for (unsigned b = 0; b < 8; ++b)
    if (block_bits(m, E, b) != 0) a |= static_cast<uint8_t>(1u << b);
  return a;
}

// Bit b set iff every element of datablock b is active.
inline uint8_t block_fullness(const RepeatMask& m, unsigned E) {
  const uint64_t all = E == 16 ? 0xFFFF : 0xFF;
  uint8_t f = 0;
  for (unsigned b = 0; b < 8; ++b)
    if (block_bits(m, E, b) == all) f |= static_cast<uint8_t>(1u << b);
  return f;
}

struct Plan {
  ReduceOp op;
  Elem elem;
  unsigned E;        // elements per datablock
  uint64_t repeats;  // after counter-mode resolution
  RepeatMask body;   // mask of every repeat but the last
  RepeatMask last;   // mask of the last repeat (counter mode: the remainder)
  uint64_t dst_rep, src_blk, src_rep;
  bool saturate;       // half SUM saturation in effect
  MaskedBlock masked;  // product rule for blocks with no active element
  uint8_t* dst;
  const uint8_t* src;

  const RepeatMask& mask(uint64_t r) const { return r + 1 == repeats ? last : body; }
  // Element offsets (spec 40 §2 addressing).
  uint64_t src_block(uint64_t r, unsigned b) const { return (r * src_rep + b * src_blk) * E; }
  uint64_t dst_index(uint64_t r, unsigned b) const { return r * dst_rep * 8 + b; }
};

// Value a fully masked block gets, as bits of T; false when the product writes nothing.
bool masked_block_value(const Plan& p, uint32_t& bits);

// Validates (spec 40 §3) and resolves the mask; raises tilesim::Error. Does not touch `reg`.
// `new_reg` receives the register value after the call.
Plan check_block_reduce(const Product& product, bool saturation, const MaskRegister& reg,
                        const Operand& dst, const Operand& src, const ReduceCall& call,
                        MaskRegister& new_reg);

void run_reference(const Plan& p);
void run_fast(const Plan& p);

}  // namespace tilesim::ascendc::detail
