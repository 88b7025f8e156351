// The one operand walker of the Ascend C vector APIs (spec 40 §1-§3, spec 41 §3): mask resolution
// (mask argument or register, normal or counter mode), every operand's datablock addressing
// (block and repeat strides in 32-byte datablocks), the bounds, alignment and overlap rules, and
// the execution order (repeats in order; within a repeat all reads before the writes; only active
// lanes written). The APIs (vector.cpp) only say what a repeat computes on its staged lanes.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "plan.hpp"
#include "tilesim/ascendc/vector.hpp"

namespace tilesim::ascendc::detail {

// v read with a load of its own into a general register. GCC copies adjacent 8-byte fields with
// one 16-byte load, which the CPU cannot forward from the two 8-byte stores that wrote them: read
// right after a caller built the struct, it waits until those stores — queued behind the previous
// API's vector stores — reach L1.
inline uint64_t gpr(const uint64_t& v) {
  uint64_t x = v;
#if defined(__GNUC__)
  asm("" : "+r"(x));
#endif
  return x;
}

// Elements of es bytes (1, 2, 4 or 8) in `bytes`: a shift, not an integer divide (one cost
// ~5% of a softmax block's API calls; docs/ascendc.md "Speed").
inline unsigned elems_in(unsigned bytes, unsigned es) {
  return bytes >> std::countr_zero(es);
}

// One operand of a call. Lane i of a repeat lies in datablock i / E at lane i % E, E = 32 / esize;
// datablock b of repeat r starts at UB byte addr + (r * rep + b * blk) * 32.
struct WalkOperand {
  const char* name = "dst";
  UbRef ref;
  unsigned esize = 4;
  uint64_t blk = 1, rep = 8;
  bool read = true;    // a source (dst too when the API reads it: MulAddDst)
  bool write = false;  // the destination (operand 0)
  bool accumulate = false;  // exempt from the cross-repeat rule (the accumulate pattern, spec 41 §3)
};

// The repeats of one call after its mask is resolved.
struct Walk {
  unsigned lanes = 64;  // lanes per repeat: 256 bytes of the call's wider type
  uint64_t repeats = 0;
  RepeatMask body, last;
  const RepeatMask& mask(uint64_t r) const { return r + 1 == repeats ? last : body; }
};

// Count form (spec 41 §3): counter mode over `count` elements, contiguous; the register is untouched.
Walk count_walk(unsigned lanes, uint64_t count);

// Mask/repeat form (spec 40 §1): validates repeatTime and the mask argument (isSetMask = true) or
// reads the core's register (isSetMask = false; counter mode: the count in maskLow). `after` is the
// register after the call; the caller stores it once every check has passed.
Walk repeat_walk(const char* api, unsigned lanes, const MaskArg& m, int64_t repeat,
                 const MaskRegister& reg, MaskRegister& after);

// Checks every rule of spec 41 §3 on the operands of `w` (operand 0 is the destination): 32-byte
// aligned starts, every datablock holding an active lane inside its operand's extent and the UB,
// and the overlap rule; raises tilesim::Error before anything is written.
void check_operands(const char* api, const Walk& w, WalkOperand* ops, size_t n);

// The pipeline-hazard checker's view of a checked call (issue 22; only when t_sync): each operand's
// bytes from its first to its last active datablock, read (sources, a read dst) and written (dst),
// on `pipe`.
void record_walk(const char* api, uint8_t pipe, const Walk& w, const WalkOperand* ops, size_t n);

// One operand's alignment (32 bytes) and extent: every datablock holding an active lane (a pure
// destination: up to its last active lane) inside the tensor and the UB.
void check_extent(const char* api, const Walk& w, const WalkOperand& o);

// Per UB datablock, the last repeat in which a source (operands 1..n-1 of `ops`, except accumulate
// ones) reads it: the cross-repeat overlap rule's table. One live instance per thread.
class ReadStamps {
 public:
  ReadStamps(const Walk& w, const WalkOperand* ops, size_t n);
  ~ReadStamps();
  ReadStamps(const ReadStamps&) = delete;
  ReadStamps& operator=(const ReadStamps&) = delete;
  int64_t last(uint64_t ub_block) const;  // -1: not read
  size_t reader(uint64_t ub_block) const;  // which operand
 private:
  std::vector<uint32_t> touched_;
};

// What one call computes on n lanes: src[k] holds the lanes of operand k + 1, then those of
// operand 0 when it is read; dst receives operand 0's lanes. `first` is the walk-wide index of the
// first lane (r * lanes for repeat r; 0 for the flat form), for APIs that consume per-lane state
// such as Select's bit mask.
struct Compute {
  const void* ctx;
  void (*fn)(const void* ctx, const uint8_t* const* src, uint8_t* dst, size_t n, uint64_t first);
};

// Runs the call: contiguous operands with full repeats in one flat call over every lane, other
// walks repeat by repeat through 256-byte staging buffers. src[k] of the compute is the operand
// k + 1 of `ops`, then operand 0 if it is read. Call check_operands first.
void execute(const Walk& w, const WalkOperand* ops, size_t n, Compute c);

}  // namespace tilesim::ascendc::detail
