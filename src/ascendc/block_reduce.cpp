// BlockReduceSum / BlockReduceMax / BlockReduceMin (spec 40 §2): the scalar reference, which is
// the definition the fast path (block_reduce_simd.cpp) is tested against bit for bit.
#include <cmath>
#include <cstring>

#include "plan.hpp"
#include "tilesim/formats.hpp"

namespace tilesim::ascendc {
namespace detail {
namespace {

namespace fm = tilesim::formats;

float load(const Plan& p, uint64_t i) {
  if (p.elem == Elem::f16) {
    uint16_t c;
    std::memcpy(&c, p.src + i * 2, 2);
    return fm::f16_to_f32(c);
  }
  float f;
  std::memcpy(&f, p.src + i * 4, 4);
  return f;
}

void store_bits(const Plan& p, uint64_t i, uint32_t bits) {
  if (p.elem == Elem::f16) {
    const uint16_t c = static_cast<uint16_t>(bits);
    std::memcpy(p.dst + i * 2, &c, 2);
  } else {
    std::memcpy(p.dst + i * 4, &bits, 4);
  }
}

// Canonical NaN on the way out (spec 40 §2 last rule); otherwise exact (values are already T's).
uint32_t encode(const Plan& p, float v) {
  if (p.elem == Elem::f16) return fm::f32_to_f16(v);
  return std::isnan(v) ? 0x7FC00000u : fm::f32_to_bits(v);
}

float identity(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return 0.0f;
    case ReduceOp::Max:
      return -INFINITY;
    case ReduceOp::Min:
      return INFINITY;
  }
  return 0.0f;
}

// One node of the tree.
float node(const Plan& p, float a, float b) {
  switch (p.op) {
    case ReduceOp::Sum: {
      float s =
          a + b;  // exact enough: fp32 then one rounding to half is correctly rounded (spec 00)
      if (p.elem == Elem::f32) return s;
      s = fm::f16_to_f32(fm::f32_to_f16(s));  // every node is an fp16 result
      if (p.saturate) {                       // saturation mode: Inf -> ±65504, NaN -> 0
        if (std::isnan(s)) return 0.0f;
        if (std::isinf(s)) return s > 0 ? 65504.0f : -65504.0f;
      }
      return s;
    }
    case ReduceOp::Max:
      if (std::isnan(a) || std::isnan(b)) return NAN;
      if (a == b)
        return std::signbit(a) && std::signbit(b) ? a : (std::signbit(a) ? b : a);  // max(-0,+0)=+0
      return a > b ? a : b;
    case ReduceOp::Min:
      if (std::isnan(a) || std::isnan(b)) return NAN;
      if (a == b) return std::signbit(a) ? a : b;  // min(-0,+0)=-0
      return a < b ? a : b;
  }
  return 0.0f;
}

}  // namespace

void run_reference(const Plan& p) {
  uint32_t fill = 0;
  const bool writes_masked = masked_block_value(p, fill);
  for (uint64_t r = 0; r < p.repeats; ++r) {
    const RepeatMask& m = p.mask(r);
    uint32_t out[8];
    bool written[8];
    for (unsigned b = 0; b < 8; ++b) {  // all reads of the repeat happen before its writes
      float v[16];
      bool any = false;
      for (unsigned i = 0; i < p.E; ++i) {
        const bool on = m.bit(b * p.E + i);
        any |= on;
        v[i] = on ? load(p, p.src_block(r, b) + i) : identity(p.op);  // inactive = identity
      }
      if (!any) {  // a datablock with no active element reads nothing (§2, §5)
        written[b] = writes_masked;
        out[b] = fill;
        continue;
      }
      // The fixed adjacent-pair tree: 16 -> 8 -> 4 -> 2 -> 1 (half), 8 -> 4 -> 2 -> 1 (float).
      for (unsigned n = p.E; n > 1; n /= 2)
        for (unsigned k = 0; k < n / 2; ++k) v[k] = node(p, v[2 * k], v[2 * k + 1]);
      written[b] = true;
      out[b] = encode(p, v[0]);
    }
    for (unsigned b = 0; b < 8; ++b)
      if (written[b]) store_bits(p, p.dst_index(r, b), out[b]);
  }
}

}  // namespace detail

void block_reduce(const Product& product, bool saturation, MaskRegister& reg, const Operand& dst,
                  const Operand& src, const ReduceCall& call, Path path) {
  MaskRegister after;
  const detail::Plan plan =
      detail::check_block_reduce(product, saturation, reg, dst, src, call, after);
  reg = after;  // isSetMask = true leaves its mask in the register (§1)
  if (path == Path::Reference)
    detail::run_reference(plan);
  else
    detail::run_fast(plan);
}

}  // namespace tilesim::ascendc
