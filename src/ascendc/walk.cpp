// The Ascend C operand walker (walk.hpp): mask resolution, the operand rules of spec 41 §3, and
// the execution order every vector API shares.
#include "walk.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "tilesim/ascendc/sync.hpp"
#include "tilesim/error.hpp"

namespace tilesim::ascendc::detail {

using std::to_string;

namespace {

constexpr const char* kDocMask = "docs/ascendc.md#mask-and-repeat";
constexpr const char* kDocOverlap = "docs/ascendc.md#overlap";

// Bits [first, first + count) of a 128-bit repeat mask, count <= 64.
uint64_t bits_at(const RepeatMask& m, unsigned first, unsigned count) {
  const uint64_t all = count >= 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
  uint64_t v;
  if (first >= 64) {
    v = first >= 128 ? 0 : m.hi >> (first - 64);
  } else {
    v = m.lo >> first;
    if (first > 0 && first + count > 64) v |= m.hi << (64 - first);
  }
  return v & all;
}

// Shifts, not divisions (an integer divide per call was ~45% of check_extent's samples in the
// softmax example).
unsigned block_elems_of(const WalkOperand& o) {
  return elems_in(32, o.esize);
}
unsigned blocks_of(const Walk& w, const WalkOperand& o) {
  return (w.lanes * o.esize + 31) / 32;
}

bool block_active(const Walk& w, const RepeatMask& m, const WalkOperand& o, unsigned b) {
  const unsigned E = block_elems_of(o);
  const unsigned first = b * E;
  if (first >= w.lanes) return false;
  return bits_at(m, first, std::min(E, w.lanes - first)) != 0;
}

// Lanes active in repeat mask m: a prefix of length *len? (Bit arithmetic: this runs twice per
// call of every vector API.)
bool is_prefix(const RepeatMask& m, unsigned lanes, unsigned& len) {
  const uint64_t lo = lanes >= 64 ? m.lo : m.lo & ((uint64_t{1} << lanes) - 1);
  const uint64_t hi = lanes > 64 ? (lanes >= 128 ? m.hi : m.hi & ((uint64_t{1} << (lanes - 64)) - 1)) : 0;
  const unsigned n_lo = static_cast<unsigned>(std::countr_one(lo));
  if (n_lo < 64) {
    if ((lo >> n_lo) != 0 || hi != 0) return false;  // (n_lo < 64: the shift is defined)
    len = n_lo;
    return true;
  }
  const unsigned n_hi = static_cast<unsigned>(std::countr_one(hi));
  if (n_hi < 64 && (hi >> n_hi) != 0) return false;
  len = 64 + n_hi;
  return true;
}

// The highest active lane of m below `lanes`, or -1.
int top_lane(const RepeatMask& m, unsigned lanes) {
  const uint64_t lo = lanes >= 64 ? m.lo : m.lo & ((uint64_t{1} << lanes) - 1);
  const uint64_t hi = lanes > 64 ? (lanes >= 128 ? m.hi : m.hi & ((uint64_t{1} << (lanes - 64)) - 1)) : 0;
  if (hi) return 127 - std::countl_zero(hi);
  return lo ? 63 - std::countl_zero(lo) : -1;
}

bool contiguous(const Walk& w, const WalkOperand& o) {
  return o.blk == 1 && o.rep == blocks_of(w, o) && (w.lanes * o.esize) % 32 == 0;
}

// The flat form: every operand contiguous, every repeat but the last full, the last a prefix.
bool flat_lanes(const Walk& w, const WalkOperand* ops, size_t n, uint64_t& total) {
  for (size_t k = 0; k < n; ++k)
    if (!contiguous(w, ops[k])) return false;
  unsigned body = 0, last = 0;
  if (w.repeats > 1 && (!is_prefix(w.body, w.lanes, body) || body != w.lanes)) return false;
  if (!is_prefix(w.last, w.lanes, last)) return false;
  total = (w.repeats - 1) * w.lanes + last;
  return true;
}

[[noreturn]] void fail(ErrorCode code, const char* api, const std::string& detail, const char* doc) {
  raise(code, api, detail, doc);
}

}  // namespace

Walk count_walk(unsigned lanes, uint64_t count) {
  Walk w;
  w.lanes = lanes;
  const unsigned sh = static_cast<unsigned>(std::countr_zero(lanes));  // lanes: a power of two
  w.repeats = (count >> sh) + ((count & (lanes - 1)) != 0);               // ceil(count / lanes)
  w.body = first_n(lanes);
  w.last = first_n(static_cast<unsigned>(count - (w.repeats ? (w.repeats - 1) * lanes : 0)));
  return w;
}

Walk repeat_walk(const char* api, unsigned lanes, const MaskArg& m, int64_t repeat,
                 const MaskRegister& reg, MaskRegister& after) {
  after = reg;
  if (reg.counter) {
    // Counter mode (spec 40 §1): repeatTime is ignored, the register's maskLow is the count.
    if (m.set_mask)
      fail(ErrorCode::Constraint, api,
           "isSetMask = true is not allowed in counter mode (the mask argument would become the count; "
           "call SetMaskNorm() first or pass isSetMask = false)",
           kDocMask);
    // SetVectorMask<T, MaskMode::COUNTER>(len) leaves maskHigh 0 and an int32 count in maskLow;
    // any other register is no count at all.
    if (reg.hi != 0 || reg.lo > INT32_MAX)
      fail(ErrorCode::Constraint, api,
           "counter mode: the mask register holds no valid element count (high " + to_string(reg.hi) + ", low " +
               to_string(reg.lo) + "); set it with SetVectorMask<T, MaskMode::COUNTER>(len)",
           kDocMask);
    return count_walk(lanes, reg.lo);
  }
  if (repeat < 0 || repeat > 255)
    fail(ErrorCode::Constraint, api, "repeatTime must be in [0, 255], got " + to_string(repeat), kDocMask);
  Walk w;
  w.lanes = lanes;
  w.repeats = static_cast<uint64_t>(repeat);
  RepeatMask rm;
  if (m.set_mask) {
    if (m.kind == MaskArg::Kind::Continuous) {
      if (m.len < 1 || m.len > lanes)
        fail(ErrorCode::Constraint, api,
             "continuous mask must be in [1, " + to_string(lanes) + "] (lanes per repeat), got " +
                 to_string(m.len),
             kDocMask);
      rm = first_n(static_cast<unsigned>(m.len));
    } else if (lanes > 64) {
      if (m.bits[0] == 0 && m.bits[1] == 0)
        fail(ErrorCode::Constraint, api, "bit mask: mask[0] and mask[1] must not both be 0", kDocMask);
      rm.lo = m.bits[0];
      rm.hi = m.bits[1];
    } else {
      if (m.words == 2 && m.bits[1] != 0)
        fail(ErrorCode::Constraint, api,
             "bit mask with " + to_string(lanes) + " lanes per repeat reads mask[0] only; mask[1] must be 0, got " +
                 to_string(m.bits[1]),
             kDocMask);
      if (m.bits[0] == 0) fail(ErrorCode::Constraint, api, "bit mask: mask[0] must not be 0", kDocMask);
      rm.lo = m.bits[0];
    }
    after.lo = rm.lo;
    after.hi = rm.hi;
  } else {
    rm.lo = reg.lo;
    rm.hi = lanes > 64 ? reg.hi : 0;
  }
  if (lanes < 64) rm.lo &= (uint64_t{1} << lanes) - 1;
  w.body = w.last = rm;
  return w;
}

void record_walk(const char* api, uint8_t pipe, const Walk& w, const WalkOperand* ops, size_t n) {
  if (w.repeats == 0) return;
  sync::Range reads[4], writes[1];
  int nr = 0, nw = 0;
  for (size_t k = 0; k < n && k < 4; ++k) {
    const WalkOperand& o = ops[k];
    // The first active datablock is in repeat 0 (offsets grow with r and b); the last in the last
    // repeat or, when its mask is narrower, the one before it.
    uint64_t lo = UINT64_MAX, hi = 0;
    const unsigned nb = blocks_of(w, o);
    for (uint64_t r : {uint64_t{0}, w.repeats >= 2 ? w.repeats - 2 : 0, w.repeats - 1})
      for (unsigned b = 0; b < nb; ++b)
        if (block_active(w, w.mask(r), o, b)) {
          const uint64_t off = (r * o.rep + b * o.blk) * 32;
          lo = std::min(lo, off);
          hi = std::max(hi, off + 32);
        }
    if (hi == 0) continue;
    const sync::Range range = ub_range(o.ref.addr + lo, hi - lo);
    if (o.read) reads[nr++] = range;
    if (o.write) writes[nw++] = range;
  }
  record(api, pipe, reads, nr, writes, nw);
}

void check_extent(const char* api, const Walk& w, const WalkOperand& o) {
  if (o.ref.addr % 32 != 0)
    fail(ErrorCode::Constraint, api,
         std::string(o.name) + ": UB address " + to_string(o.ref.addr) + " must be 32-byte aligned",
         "docs/ascendc.md#vector-apis");
  if (w.repeats == 0) return;
  ub_bytes(o.ref.addr, o.ref.elems * o.esize, api, o.name);
  const unsigned E = block_elems_of(o), nb = blocks_of(w, o);
  // Offsets grow with r and b: the largest element touched is in the last repeat or, when the
  // last repeat's mask is narrower, in the one before it.
  uint64_t need = 0;
  for (uint64_t r = w.repeats >= 2 ? w.repeats - 2 : 0; r < w.repeats; ++r) {
    const RepeatMask& m = w.mask(r);
    if (o.blk > 0) {
      // Offsets grow with b too: the block of the highest active lane reaches furthest.
      const int top = top_lane(m, w.lanes);
      if (top < 0) continue;
      const unsigned b = static_cast<unsigned>(top) >> std::countr_zero(E);  // top / E
      uint64_t end = (r * o.rep + b * o.blk) * E;
      end += o.write && !o.read ? static_cast<unsigned>(top) - b * E + 1 : E;
      need = std::max(need, end);
      continue;
    }
    for (unsigned b = 0; b < nb; ++b) {
      if (!block_active(w, m, o, b)) continue;
      uint64_t end = (r * o.rep + b * o.blk) * E;
      if (o.write && !o.read) {  // a pure destination: up to its last active lane
        unsigned top = 0;
        for (unsigned i = 0; i < E && b * E + i < w.lanes; ++i)
          if (m.bit(b * E + i)) top = i + 1;
        end += top;
      } else {
        end += E;
      }
      need = std::max(need, end);
    }
  }
  if (need > o.ref.elems)
    fail(ErrorCode::Bounds, api,
         std::string(o.name) + ": the walk reaches element " + to_string(need) + " but the tensor holds " +
             to_string(o.ref.elems) + " (repeats " + to_string(w.repeats) + ", block stride " + to_string(o.blk) +
             ", repeat stride " + to_string(o.rep) + ")",
         "docs/ascendc.md#vector-apis");
}

namespace {
thread_local std::vector<int64_t> t_last_read;  // per UB datablock: last repeat reading it, or -1
thread_local std::vector<uint8_t> t_reader;
}  // namespace

ReadStamps::ReadStamps(const Walk& w, const WalkOperand* ops, size_t n) {
  const size_t nblocks = core().ub.size() / 32;
  if (t_last_read.size() < nblocks) {
    t_last_read.assign(nblocks, -1);
    t_reader.assign(nblocks, 0);
  }
  for (size_t k = 1; k < n; ++k) {
    const WalkOperand& s = ops[k];
    if (s.accumulate) continue;
    for (uint64_t r = 0; r < w.repeats; ++r)
      for (unsigned b = 0; b < blocks_of(w, s); ++b) {
        if (!block_active(w, w.mask(r), s, b)) continue;
        const uint64_t kb = s.ref.addr / 32 + r * s.rep + b * s.blk;
        if (kb >= t_last_read.size()) continue;  // outside the UB: check_extent rejects it
        if (t_last_read[kb] < 0) touched_.push_back(static_cast<uint32_t>(kb));
        if (static_cast<int64_t>(r) > t_last_read[kb]) {
          t_last_read[kb] = static_cast<int64_t>(r);
          t_reader[kb] = static_cast<uint8_t>(k);
        }
      }
  }
}
ReadStamps::~ReadStamps() {
  for (uint32_t k : touched_) t_last_read[k] = -1;
}
int64_t ReadStamps::last(uint64_t ub_block) const {
  return ub_block < t_last_read.size() ? t_last_read[ub_block] : -1;
}
size_t ReadStamps::reader(uint64_t ub_block) const {
  return t_reader[ub_block];
}

void check_operands(const char* api, const Walk& w, WalkOperand* ops, size_t n) {
  for (size_t k = 0; k < n; ++k) check_extent(api, w, ops[k]);
  if (w.repeats == 0) return;

  // Overlap (spec 41 §3). Contiguous flat calls: identical, disjoint, or dst below a source by
  // whole repeats (each repeat reads before the one that overwrites it runs).
  const WalkOperand& d = ops[0];
  uint64_t total = 0;
  if (flat_lanes(w, ops, n, total)) {
    const uint64_t dend = d.ref.addr + total * d.esize;
    for (size_t k = 1; k < n; ++k) {
      const WalkOperand& s = ops[k];
      const uint64_t send = s.ref.addr + total * s.esize;
      if (s.ref.addr == d.ref.addr && s.esize == d.esize) continue;
      if (dend <= s.ref.addr || send <= d.ref.addr) continue;
      if (s.esize == d.esize && d.ref.addr < s.ref.addr && (s.ref.addr - d.ref.addr) % 256 == 0) continue;
      fail(ErrorCode::Constraint, api,
           std::string("dst (UB bytes [") + to_string(d.ref.addr) + ", " + to_string(dend) + ")) and " + s.name +
               " ([" + to_string(s.ref.addr) + ", " + to_string(send) +
               ")) overlap partially: within a repeat they must be identical or disjoint, and no repeat may "
               "write bytes a later repeat reads",
           kDocOverlap);
    }
    return;
  }
  // General walks: datablocks are 32-byte units of the UB (every start is 32-byte aligned).
  const ReadStamps reads(w, ops, n);
  auto block_of = [](const WalkOperand& o, uint64_t r, unsigned b) {
    return (o.ref.addr / 32) + r * o.rep + b * o.blk;
  };
  const unsigned ndb = blocks_of(w, d);
  for (uint64_t r = 0; r < w.repeats; ++r) {
    const RepeatMask& m = w.mask(r);
    for (unsigned b = 0; b < ndb; ++b) {
      if (!block_active(w, m, d, b)) continue;
      const uint64_t kd = block_of(d, r, b);
      if (reads.last(kd) > static_cast<int64_t>(r))
        fail(ErrorCode::Constraint, api,
             "repeat " + to_string(r) + " writes dst datablock " + to_string(b) + " (UB byte " + to_string(kd * 32) +
                 ") that repeat " + to_string(reads.last(kd)) + " reads later as " + ops[reads.reader(kd)].name +
                 ": no repeat may write bytes a later repeat reads",
             kDocOverlap);
      // Within the repeat: a source block at the same bytes must be the same lanes.
      for (size_t k = 1; k < n; ++k) {
        const WalkOperand& s = ops[k];
        for (unsigned bs = 0; bs < blocks_of(w, s); ++bs) {
          if (!block_active(w, m, s, bs) || block_of(s, r, bs) != kd) continue;
          if (bs != b || s.esize != d.esize)
            fail(ErrorCode::Constraint, api,
                 "repeat " + to_string(r) + ": dst datablock " + to_string(b) + " and " + s.name + " datablock " +
                     to_string(bs) + " are the same UB bytes (" + to_string(kd * 32) +
                     "): within a repeat a source and the destination must be identical or disjoint",
                 kDocOverlap);
        }
      }
    }
  }
}

void execute(const Walk& w, const WalkOperand* ops, size_t n, Compute c) {
  if (w.repeats == 0) return;
  const WalkOperand& d = ops[0];
  uint8_t* ub = core().ub.data();
  const uint8_t* srcs[5];
  size_t ns = 0;
  uint64_t total = 0;
  if (flat_lanes(w, ops, n, total)) {
    if (total == 0) return;
    // A legal partial overlap (dst below a source by whole repeats) reads every source repeat
    // before it is overwritten: staging the source gives that order. (No reserve: the common call
    // stages nothing and allocates nothing; a staged buffer's data stays put when `staged` grows.)
    std::vector<std::vector<uint8_t>> staged;
    const uint64_t dlo = d.ref.addr, dhi = d.ref.addr + total * d.esize;
    auto add = [&](const WalkOperand& s) {
      const uint8_t* p = ub + s.ref.addr;
      const uint64_t hi = s.ref.addr + total * s.esize;
      const bool same = s.ref.addr == dlo && s.esize == d.esize;
      if (!same && s.ref.addr < dhi && dlo < hi) {
        staged.emplace_back(p, p + total * s.esize);
        p = staged.back().data();
      }
      srcs[ns++] = p;
    };
    for (size_t k = 1; k < n; ++k) add(ops[k]);
    if (d.read) srcs[ns++] = ub + d.ref.addr;
    c.fn(c.ctx, srcs, ub + d.ref.addr, total, 0);
    return;
  }
  alignas(64) uint8_t stage[5][512];
  alignas(64) uint8_t out[512];
  for (uint64_t r = 0; r < w.repeats; ++r) {
    const RepeatMask& m = w.mask(r);
    ns = 0;
    auto gather = [&](const WalkOperand& s) {
      uint8_t* buf = stage[ns];
      const unsigned nb = blocks_of(w, s);
      for (unsigned b = 0; b < nb; ++b) {
        if (block_active(w, m, s, b))
          std::memcpy(buf + b * 32, ub + s.ref.addr + (r * s.rep + b * s.blk) * 32, 32);
        else
          std::memset(buf + b * 32, 0, 32);
      }
      srcs[ns++] = buf;
    };
    for (size_t k = 1; k < n; ++k) gather(ops[k]);
    if (d.read) gather(d);
    c.fn(c.ctx, srcs, out, w.lanes, r * w.lanes);
    const unsigned E = block_elems_of(d), nb = blocks_of(w, d);
    for (unsigned b = 0; b < nb; ++b) {  // in block order: with block stride 0 the last one wins
      uint8_t* p = ub + d.ref.addr + (r * d.rep + b * d.blk) * 32;
      const unsigned cnt = std::min(E, w.lanes - b * E);
      const uint64_t bits = bits_at(m, b * E, cnt);
      if (bits == 0) continue;
      if (cnt == E && bits == (E >= 64 ? ~uint64_t{0} : (uint64_t{1} << E) - 1)) {
        std::memcpy(p, out + b * 32, 32);
        continue;
      }
      for (unsigned i = 0; i < cnt; ++i)
        if ((bits >> i) & 1) std::memcpy(p + i * d.esize, out + b * 32 + i * d.esize, d.esize);
    }
  }
}

}  // namespace tilesim::ascendc::detail
