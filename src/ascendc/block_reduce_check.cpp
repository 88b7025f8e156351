// Every check of spec 40 §3 for BlockReduceSum/Max/Min, done before anything is written; the
// result is a Plan the reference and the fast path execute without further checks.
#include <algorithm>
#include <string>
#include <vector>

#include "plan.hpp"
#include "walk.hpp"
#include "tilesim/error.hpp"

namespace tilesim::ascendc::detail {
namespace {

using std::to_string;

struct Checker {
  const char* instr;
  [[noreturn]] void fail(ErrorCode code, const std::string& detail, const char* spec) const {
    raise(code, instr, detail, spec);
  }
  void range(const char* what, int64_t v, int64_t lo, int64_t hi, const char* spec) const {
    if (v < lo || v > hi)
      fail(ErrorCode::Constraint,
           std::string(what) + " must be in [" + to_string(lo) + ", " + to_string(hi) + "], got " +
               to_string(v),
           spec);
  }
};

}  // namespace

bool masked_block_value(const Plan& p, uint32_t& bits) {
  const bool h = p.elem == Elem::f16;
  switch (p.masked) {
    case MaskedBlock::NotWritten:
      return false;
    case MaskedBlock::Identity:
    case MaskedBlock::Identity200I:
      break;
  }
  const bool clamp = p.masked == MaskedBlock::Identity200I && h;  // ±65504 instead of ±Inf
  switch (p.op) {
    case ReduceOp::Sum:
      bits = 0;
      break;
    case ReduceOp::Max:
      bits = h ? (clamp ? 0xFBFFu : 0xFC00u) : 0xFF800000u;
      break;
    case ReduceOp::Min:
      bits = h ? (clamp ? 0x7BFFu : 0x7C00u) : 0x7F800000u;
      break;
  }
  return true;
}

Plan check_block_reduce(const Product& product, bool saturation, const MaskRegister& reg,
                        const Operand& dst, const Operand& src, const ReduceCall& call,
                        MaskRegister& new_reg) {
  const Checker c{name(call.op)};
  const Elem t = call.elem;
  const unsigned sz = elem_bytes(t), E = block_elems(t), per = repeat_elems(t);

  // dtype and product support (§3 rule 1, §5).
  if (!product.block_reduce)
    c.fail(ErrorCode::Unsupported,
           std::string("not supported on product ") + product.name + " (" + product.title + ")",
           "docs/ascendc.md#products");
  if ((t == Elem::f16 && !product.f16) || (t == Elem::f32 && !product.f32))
    c.fail(ErrorCode::Unsupported,
           std::string("T = ") + name(t) + " is not supported on product " + product.name + " (" +
               product.title + ")",
           "docs/ascendc.md#products");

  // repeatTime and strides (§3 rule 2). In counter mode (isSetMask = false) repeatTime is
  // ignored (§1: the count decides the repeats), so any value is accepted there.
  if (!(reg.counter && !call.mask.set_mask)) c.range("repeatTime", call.repeat, 0, 255, "docs/ascendc.md#checks");
  c.range("dstRepStride", call.dst_rep_stride, 0, 65535, "docs/ascendc.md#checks");
  c.range("srcBlkStride", call.src_blk_stride, 0, 65535, "docs/ascendc.md#checks");
  c.range("srcRepStride", call.src_rep_stride, 0, 65535, "docs/ascendc.md#checks");
  if (call.dst_rep_stride == 0 && !product.dst_rep_stride0)
    c.fail(ErrorCode::Constraint,
           std::string("dstRepStride = 0 is not allowed on product ") + product.name, "docs/ascendc.md#checks");

  // Alignment (§3 rule 3).
  if (src.addr % 32 != 0)
    c.fail(ErrorCode::Constraint,
           "src start address must be 32-byte aligned, got UB address " + to_string(src.addr),
           "docs/ascendc.md#checks");
  const unsigned dst_align = t == Elem::f16 ? 16 : 32;
  if (dst.addr % dst_align != 0)
    c.fail(ErrorCode::Constraint,
           "dst start address must be " + to_string(dst_align) + "-byte aligned for " + name(t) +
               ", got UB address " + to_string(dst.addr),
           "docs/ascendc.md#checks");

  // The mask (§1): validate the argument, or read the register.
  Plan p{};
  p.op = call.op;
  p.elem = t;
  p.E = E;
  p.dst_rep = static_cast<uint64_t>(call.dst_rep_stride);
  p.src_blk = static_cast<uint64_t>(call.src_blk_stride);
  p.src_rep = static_cast<uint64_t>(call.src_rep_stride);
  p.saturate = t == Elem::f16 && call.op == ReduceOp::Sum && saturation;
  p.masked = product.masked_block;
  p.dst = static_cast<uint8_t*>(dst.data);
  p.src = static_cast<const uint8_t*>(src.data);
  // The mask (§1) through the one operand walker's resolution (walk.cpp), after the rule it
  // does not share: half bit mode names both words (a kernel passes uint64_t mask[2]).
  const MaskArg& m = call.mask;
  if (m.set_mask && !reg.counter && m.kind == MaskArg::Kind::Bits && t == Elem::f16 && m.words == 1)
    c.fail(ErrorCode::Constraint, "bit mode for half needs two words mask[0], mask[1], got one",
           "docs/ascendc.md#the-mask-register");
  const Walk w = repeat_walk(c.instr, per, m, call.repeat, reg, new_reg);
  p.repeats = w.repeats;
  p.body = w.body;
  p.last = w.last;
  if (p.repeats == 0) return p;

  // Bounds (§3 rule 4): reads of blocks with an active element, writes of written blocks.
  uint32_t fill_bits;
  const bool writes_masked = masked_block_value(p, fill_bits);
  const uint8_t act_body = block_activity(p.body, E), act_last = block_activity(p.last, E);
  const uint64_t R = p.repeats;
  auto max_block = [](uint8_t a) {
    unsigned b = 7;
    while (b && !((a >> b) & 1)) --b;
    return b;
  };
  // Reads: the largest start is at the latest repeat / highest active block (strides >= 0).
  {
    uint64_t worst = 0, wr = 0;
    unsigned wb = 0;
    auto consider = [&](uint64_t r, uint8_t act) {
      if (!act) return;
      const unsigned b = max_block(act);
      const uint64_t s = p.src_block(r, b);
      if (s + E > worst) {
        worst = s + E;
        wr = r;
        wb = b;
      }
    };
    if (R >= 2) consider(R - 2, act_body);
    consider(R - 1, act_last);
    if (worst > src.size)
      c.fail(ErrorCode::Bounds,
             "src: repeat " + to_string(wr) + " datablock " + to_string(wb) + " reads elements [" +
                 to_string(worst - E) + ", " + to_string(worst) + ") beyond src's " +
                 to_string(src.size) + " elements",
             "docs/ascendc.md#checks");
  }
  {
    uint64_t worst = 0, wr = 0;
    unsigned wb = 0;
    bool any = false;
    auto consider = [&](uint64_t r, uint8_t act) {
      const uint8_t w = writes_masked ? 0xFF : act;
      if (!w) return;
      const unsigned b = max_block(w);
      const uint64_t i = p.dst_index(r, b);
      if (!any || i >= worst) {
        worst = i;
        wr = r;
        wb = b;
        any = true;
      }
    };
    if (R >= 2) consider(R - 2, act_body);
    consider(R - 1, act_last);
    if (any && worst >= dst.size)
      c.fail(ErrorCode::Bounds,
             "dst: repeat " + to_string(wr) + " datablock " + to_string(wb) + " writes element " +
                 to_string(worst) + " beyond dst's " + to_string(dst.size) + " elements",
             "docs/ascendc.md#checks");
  }

  // Overlap (§3 rule 5): no write of repeat r may land on a datablock a later repeat reads.
  const uintptr_t s0 = reinterpret_cast<uintptr_t>(src.data), s1 = s0 + src.size * sz;
  const uintptr_t d0 = reinterpret_cast<uintptr_t>(dst.data), d1 = d0 + dst.size * sz;
  if (s0 < d1 && d0 < s1) {
    const uint64_t nblocks = (src.size * sz + 31) / 32;
    std::vector<uint64_t> last_read(nblocks, 0);  // 1 + latest repeat reading the 32-byte block
    for (uint64_t r = 0; r < R; ++r) {
      const uint8_t act = r + 1 == R ? act_last : act_body;
      for (unsigned b = 0; b < 8; ++b)
        if ((act >> b) & 1) {
          const uint64_t q = p.src_block(r, b) / E;
          last_read[q] = std::max(last_read[q], r + 1);
        }
    }
    for (uint64_t r = 0; r < R; ++r) {
      const uint8_t act = r + 1 == R ? act_last : act_body;
      const uint8_t w = writes_masked ? 0xFF : act;
      for (unsigned b = 0; b < 8; ++b) {
        if (!((w >> b) & 1)) continue;
        const uintptr_t a = d0 + p.dst_index(r, b) * sz;
        if (a + sz <= s0 || a >= s1) continue;
        for (uintptr_t q = a < s0 ? 0 : (a - s0) / 32; q <= (a + sz - 1 - s0) / 32 && q < nblocks;
             ++q)
          if (last_read[q] > r + 1)
            c.fail(ErrorCode::Constraint,
                   "overlap: repeat " + to_string(r) + " datablock " + to_string(b) +
                       " writes dst element " + to_string(p.dst_index(r, b)) +
                       ", inside src datablock " + to_string(q) + " that repeat " +
                       to_string(last_read[q] - 1) +
                       " reads later (the destination must not overwrite source elements not yet "
                       "used)",
                   "docs/ascendc.md#checks");
      }
    }
  }
  return p;
}

}  // namespace tilesim::ascendc::detail
