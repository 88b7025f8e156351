// The repeat reductions and broadcasts of spec 41 §3 (docs/ascendc.md#reductions):
// WholeReduceSum/Max/Min (= ReduceRepeat, RepeatReduceSum), PairReduceSum (= ReducePairElem), the
// high-level ReduceSum/ReduceMax/ReduceMin with their work buffer, and Brcb. Masks and source
// addressing come from the operand walker (walk.hpp); a sum is the adjacent-pairs tree of spec 15
// §3 whose every node is a T result (half: fp32 add rounded to half, then the CTRL saturation).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ops/reduce.hpp"
#include "plan.hpp"
#include "tilesim/ascendc/vector.hpp"
#include "tilesim/ascendc/sync.hpp"
#include "tilesim/error.hpp"
#include "walk.hpp"

namespace tilesim::ascendc {

using std::to_string;

namespace {

namespace fm = tilesim::formats;
constexpr const char* kDoc = "docs/ascendc.md#reductions";

// Lane values as float (half and float are exact in float) and the node rules of one call.
struct Num {
  DType t;
  bool sat;  // half saturation mode (sum nodes only)
  unsigned es() const { return t == DType::fp16 ? 2 : 4; }
  float load(const uint8_t* p) const {
    if (t == DType::fp16) {
      uint16_t c;
      std::memcpy(&c, p, 2);
      return fm::f16_to_f32(c);
    }
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  // One sum node: a T result.
  float add(float a, float b) const {
    float s = a + b;
    if (t == DType::fp32) return s;
    s = fm::f16_to_f32(fm::f32_to_f16(s));
    if (sat) {
      if (std::isnan(s)) return 0.0f;
      if (std::isinf(s)) return s > 0 ? 65504.0f : -65504.0f;
    }
    return s;
  }
  uint32_t code(float v) const {
    if (t == DType::fp16) return fm::f32_to_f16(v);
    return std::isnan(v) ? 0x7FC00000u : fm::f32_to_bits(v);
  }
  void store(uint8_t* p, float v) const {
    const uint32_t c = code(v);
    std::memcpy(p, &c, es());
  }
};

// Adjacent-pairs tree over n (a power of two) values, in place.
float tree(const Num& num, float* v, unsigned n) {
  for (unsigned w = n; w > 1; w /= 2)
    for (unsigned k = 0; k < w / 2; ++k) v[k] = num.add(v[2 * k], v[2 * k + 1]);
  return v[0];
}

// Max/min with spec 15 §1's NaN and ±0 rules; the index of the extreme, the smallest on ties, the
// first NaN when the result is NaN.
struct Extreme {
  bool max;
  bool any = false;
  float value = 0;
  uint64_t index = 0;
  void take(float v, uint64_t i) {
    if (!any) {
      any = true, value = v, index = i;
      return;
    }
    if (std::isnan(value)) return;
    if (std::isnan(v)) {
      value = v, index = i;
      return;
    }
    if (max ? v > value : v < value) {
      value = v, index = i;
    } else if (v == value && v == 0.0f) {  // ±0 tie: max(−0, +0) = +0, min = −0; the index stays
      value = max ? (std::signbit(value) ? v : value) : (std::signbit(value) ? value : v);
    }
  }
};

void dtype_ok(const char* api, DType t) {
  const Product& p = *core().product;
  if (t != DType::fp16 && t != DType::fp32)
    raise(ErrorCode::Unsupported, api, std::string("dtype ") + fm::info(t).name + " is not supported (takes: fp16 fp32)",
          kDoc);
  if ((t == DType::fp16 && !p.f16) || (t == DType::fp32 && !p.f32))
    raise(ErrorCode::Unsupported, api,
          std::string("dtype ") + fm::info(t).name + " is not supported on product " + p.name, kDoc);
}

void stride_ok(const char* api, const char* what, int64_t v) {
  if (v < 0 || v > 65535)
    raise(ErrorCode::Constraint, api, std::string(what) + " must be in [0, 65535], got " + to_string(v), kDoc);
}

// The source of a reduction as a walker operand (dst is not datablock-shaped: checked here).
detail::WalkOperand source(const UbRef& src, unsigned es, int64_t blk, int64_t rep) {
  detail::WalkOperand o;
  o.name = "src";
  o.ref = src;
  o.esize = es;
  o.blk = static_cast<uint64_t>(blk);
  o.rep = static_cast<uint64_t>(rep);
  return o;
}

// Every dst slot inside dst's extent and aligned; no repeat's slot on bytes a later repeat reads.
void check_slots(const char* api, const detail::Walk& w, const detail::WalkOperand& src, const UbRef& dst,
                 uint64_t slot_bytes, uint64_t step_bytes, uint64_t align, unsigned es) {
  if (dst.addr % align != 0)
    raise(ErrorCode::Constraint, api,
          "dst: UB address " + to_string(dst.addr) + " must be " + to_string(align) + "-byte aligned", kDoc);
  if (w.repeats == 0) return;
  const uint64_t end = (w.repeats - 1) * step_bytes + slot_bytes;
  if (end > dst.elems * es)
    raise(ErrorCode::Bounds, api,
          "dst: the results reach byte " + to_string(end) + " but the tensor holds " + to_string(dst.elems * es) +
              " bytes (repeats " + to_string(w.repeats) + ")",
          kDoc);
  ub_bytes(dst.addr, end, api, "dst");
  // The results' bytes beside every byte the walk can read: no repeat can write what a later one reads.
  const uint64_t read_end = src.ref.addr + ((w.repeats - 1) * src.rep + 7 * src.blk + 1) * 32;
  if (dst.addr + end <= src.ref.addr || dst.addr >= read_end) return;
  detail::WalkOperand ops[2] = {src, src};
  const detail::ReadStamps reads(w, ops, 2);
  for (uint64_t r = 0; r < w.repeats; ++r) {
    const uint64_t a = dst.addr + r * step_bytes;
    for (uint64_t b = a / 32; b <= (a + slot_bytes - 1) / 32; ++b)
      if (reads.last(b) > static_cast<int64_t>(r))
        raise(ErrorCode::Constraint, api,
              "repeat " + to_string(r) + " writes dst bytes [" + to_string(a) + ", " + to_string(a + slot_bytes) +
                  ") that repeat " + to_string(reads.last(b)) +
                  " reads later: no repeat may write bytes a later repeat reads",
              "docs/ascendc.md#overlap");
  }
}

// Lane values of repeat r (inactive lanes: `identity`), and whether any lane is active.
bool lanes_of(const Num& num, const detail::Walk& w, const detail::WalkOperand& s, uint64_t r, float identity,
              float* v, bool* on) {
  const uint8_t* ub = core().ub.data();
  const detail::RepeatMask& m = w.mask(r);
  const unsigned E = 32 / s.esize;
  bool any = false;
  for (unsigned i = 0; i < w.lanes; ++i) {
    on[i] = m.bit(i);
    if (!on[i]) {
      v[i] = identity;
      continue;
    }
    any = true;
    v[i] = num.load(ub + s.ref.addr + ((r * s.rep + (i / E) * s.blk) * E + i % E) * s.esize);
  }
  return any;
}

// part[r] = tree(P lanes of repeat r, inactive lanes +0) for every repeat of `w`, the same bits as
// lanes_of + tree (a NaN root may carry another payload: every NaN is made canonical on the way
// out). The P = 8 * E lane tree is the tree of each datablock's E lanes followed by the tree of the
// 8 datablock roots, so BlockReduceSum's fast path (block_reduce_simd.cpp, tested bit for bit
// against its reference) computes the first log2(E) levels for all repeats at once and the last
// three run here. A datablock with no active lane is a tree of +0 lanes: +0, which MaskedBlock::
// Identity writes for it without reading the source (as lanes_of reads nothing there).
void repeat_sums(const Num& num, const detail::Walk& w, const detail::WalkOperand& s, float* part) {
  if (w.repeats == 0) return;
  const unsigned es = num.es();
  detail::Plan p{};
  p.op = ReduceOp::Sum;
  p.elem = num.t == DType::fp16 ? Elem::f16 : Elem::f32;
  p.E = 32 / es;
  p.repeats = w.repeats;
  p.body = w.body;
  p.last = w.last;
  p.dst_rep = 1;
  p.src_blk = s.blk;
  p.src_rep = s.rep;
  p.saturate = num.sat;
  p.masked = MaskedBlock::Identity;
  thread_local std::vector<uint8_t> roots;
  roots.resize(w.repeats * 8 * es);
  p.dst = roots.data();
  p.src = core().ub.data() + s.ref.addr;
  detail::run_fast(p);
  float v[8];
  for (uint64_t r = 0; r < w.repeats; ++r) {
    for (unsigned b = 0; b < 8; ++b) v[b] = num.load(roots.data() + (r * 8 + b) * es);
    part[r] = tree(num, v, 8);
  }
}

// The walk reads `count` lanes from the operand's start, one after the other: every repeat full
// but the last, whose active lanes are a prefix, and the repeats 256 bytes apart.
bool flat_count(const detail::Walk& w, const detail::WalkOperand& s, uint64_t& count) {
  if (s.blk != 1 || s.rep * 32 != uint64_t(w.lanes) * s.esize) return false;
  const detail::RepeatMask full = detail::first_n(w.lanes);
  if (w.repeats > 1 && (w.body.lo != full.lo || w.body.hi != full.hi)) return false;
  // The last mask, cut to the lanes, is a prefix: lo = 2^a - 1 (a < 64 and hi = 0), or lo all
  // ones and hi = 2^b - 1.
  const detail::RepeatMask lim = detail::first_n(w.lanes);
  const uint64_t lo = w.last.lo & lim.lo, hi = w.last.hi & lim.hi;
  unsigned n;
  if (lo != ~uint64_t{0}) {
    if (hi != 0 || (lo & (lo + 1)) != 0) return false;
    n = static_cast<unsigned>(std::popcount(lo));
  } else {
    if ((hi & (hi + 1)) != 0) return false;
    n = 64 + static_cast<unsigned>(std::popcount(hi));
  }
  count = w.repeats == 0 ? 0 : (w.repeats - 1) * w.lanes + n;
  return true;
}

bool order_supported(const Product& p, ReduceOrderKind o) {
  const std::string_view n = p.name;
  if (n == "atlas_a2" || n == "atlas_a3" || n == "ascend950") return true;
  if (n == "atlas_200i_500_a2") return o == ReduceOrderKind::VALUE_INDEX || o == ReduceOrderKind::ONLY_VALUE;
  if (n == "atlas_training") return o == ReduceOrderKind::VALUE_INDEX;
  return o == ReduceOrderKind::VALUE_INDEX || o == ReduceOrderKind::INDEX_VALUE;
}

const char* name(ReduceOrderKind o) {
  static const char* const k[] = {"ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX"};
  return k[static_cast<unsigned>(o)];
}

void store_index(const Num& num, uint8_t* p, uint64_t index) {
  if (num.t == DType::fp16) {
    const uint16_t c = static_cast<uint16_t>(index);
    std::memcpy(p, &c, 2);
  } else {
    const uint32_t c = static_cast<uint32_t>(index);
    std::memcpy(p, &c, 4);
  }
}

}  // namespace

void whole_reduce(ReduceOp op, DType t, const UbRef& dst, const UbRef& src, const MaskArg& m, int64_t repeat,
                  int64_t dst_rep, int64_t src_blk, int64_t src_rep, ReduceOrderKind order, const char* api) {
  if (t_sync) [[unlikely]] {  // the operands' extents
    const uint64_t n = fm::info(t).storage_bits / 8;
    record(api, pipe_of(pipe_rule(OtherApi::WholeReduce)), {ub_range(src.addr, src.elems * n)}, {ub_range(dst.addr, dst.elems * n)});
  }
  dtype_ok(api, t);
  stride_ok(api, "dstRepStride", dst_rep);
  stride_ok(api, "srcBlkStride", src_blk);
  stride_ok(api, "srcRepStride", src_rep);
  const Core& c = core();
  if (op != ReduceOp::Sum && !order_supported(*c.product, order))
    raise(ErrorCode::Unsupported, api, std::string(name(order)) + " is not supported on product " + c.product->name,
          kDoc);
  const Num num{t, t == DType::fp16 && op == ReduceOp::Sum && c.half_saturation()};
  const unsigned es = num.es();
  MaskRegister after;
  const detail::Walk w = detail::repeat_walk(api, detail::elems_in(256, es), m, repeat, c.mask, after);
  const detail::WalkOperand s = source(src, es, src_blk, src_rep);
  detail::check_extent(api, w, s);
  // Slot unit (docs/ascendc.md#reductions): value-and-index orders 2 * sizeof(T), ONLY_INDEX 4 bytes.
  uint64_t unit = es;
  if (op != ReduceOp::Sum) {
    if (order == ReduceOrderKind::VALUE_INDEX || order == ReduceOrderKind::INDEX_VALUE) unit = 2 * es;
    if (order == ReduceOrderKind::ONLY_INDEX) unit = 4;
  }
  check_slots(api, w, s, dst, unit, static_cast<uint64_t>(dst_rep) * unit, unit, es);
  uint8_t* ub = core().ub.data();
  if (op == ReduceOp::Sum) {
    // All sums first, then the writes: the same as repeat by repeat, as no repeat's slot holds bytes
    // a later repeat reads (check_slots).
    uint64_t n = 0;
    if (flat_count(w, s, n)) {
      // Lanes 0..n-1: the element-op core's tree sums of P-lane groups (the last padded with +0
      // lanes; every node saturating with the CTRL mode) are the repeat sums, computed in SIMD.
      thread_local std::vector<uint8_t> roots;
      roots.resize(w.repeats * es);
      ops::tree_sums(t, ub + src.addr, 0, 1, n, w.lanes, roots.data(), ops::Path::Fast, num.sat);
      if (static_cast<uint64_t>(dst_rep) * unit == es)  // results side by side: one copy
        std::memcpy(ub + dst.addr, roots.data(), w.repeats * es);
      else
        for (uint64_t r = 0; r < w.repeats; ++r)
          std::memcpy(ub + dst.addr + r * static_cast<uint64_t>(dst_rep) * unit, roots.data() + r * es, es);
      core().mask = after;
      return;
    }
    std::vector<float> part(w.repeats);
    repeat_sums(num, w, s, part.data());
    for (uint64_t r = 0; r < w.repeats; ++r)
      if (w.mask(r).lo != 0 || w.mask(r).hi != 0)  // no active lane: nothing written
        num.store(ub + dst.addr + r * static_cast<uint64_t>(dst_rep) * unit, part[r]);
    core().mask = after;
    return;
  }
  float v[128];
  bool on[128];
  for (uint64_t r = 0; r < w.repeats; ++r) {
    const float identity = op == ReduceOp::Sum ? 0.0f : (op == ReduceOp::Max ? -INFINITY : INFINITY);
    if (!lanes_of(num, w, s, r, identity, v, on)) continue;  // no active lane: nothing written
    uint8_t* p = ub + dst.addr + r * static_cast<uint64_t>(dst_rep) * unit;
    if (op == ReduceOp::Sum) {
      num.store(p, tree(num, v, w.lanes));
      continue;
    }
    Extreme x{op == ReduceOp::Max};
    for (unsigned i = 0; i < w.lanes; ++i)
      if (on[i]) x.take(v[i], i);
    switch (order) {
      case ReduceOrderKind::VALUE_INDEX:
        num.store(p, x.value);
        store_index(num, p + es, x.index);
        break;
      case ReduceOrderKind::INDEX_VALUE:
        store_index(num, p, x.index);
        num.store(p + es, x.value);
        break;
      case ReduceOrderKind::ONLY_VALUE:
        num.store(p, x.value);
        break;
      case ReduceOrderKind::ONLY_INDEX: {
        const uint32_t idx = static_cast<uint32_t>(x.index);
        std::memcpy(p, &idx, 4);
        break;
      }
    }
  }
  core().mask = after;
}

void pair_reduce_sum(DType t, const UbRef& dst, const UbRef& src, const MaskArg& m, int64_t repeat, int64_t dst_rep,
                     int64_t src_blk, int64_t src_rep, const char* api) {
  if (t_sync) [[unlikely]] {  // the operands' extents
    const uint64_t n = fm::info(t).storage_bits / 8;
    record(api, pipe_of(pipe_rule(OtherApi::PairReduce)), {ub_range(src.addr, src.elems * n)}, {ub_range(dst.addr, dst.elems * n)});
  }
  dtype_ok(api, t);
  stride_ok(api, "dstRepStride", dst_rep);
  stride_ok(api, "srcBlkStride", src_blk);
  stride_ok(api, "srcRepStride", src_rep);
  const Core& c = core();
  const Num num{t, t == DType::fp16 && c.half_saturation()};
  const unsigned es = num.es();
  MaskRegister after;
  const detail::Walk w = detail::repeat_walk(api, detail::elems_in(256, es), m, repeat, c.mask, after);
  const detail::WalkOperand s = source(src, es, src_blk, src_rep);
  detail::check_extent(api, w, s);
  // One repeat writes lanes / 2 results; dstRepStride counts 128-byte units.
  check_slots(api, w, s, dst, 128, static_cast<uint64_t>(dst_rep) * 128, 32, es);
  uint8_t* ub = core().ub.data();
  float v[128];
  bool on[128];
  for (uint64_t r = 0; r < w.repeats; ++r) {
    lanes_of(num, w, s, r, 0.0f, v, on);
    uint8_t* p = ub + dst.addr + r * static_cast<uint64_t>(dst_rep) * 128;
    for (unsigned k = 0; k < w.lanes / 2; ++k) {
      if (!on[2 * k] && !on[2 * k + 1]) continue;  // both lanes masked: the result is not written
      num.store(p + k * es, num.add(v[2 * k], v[2 * k + 1]));
    }
  }
  core().mask = after;
}

namespace {

// Work-buffer elements the vendor's ReduceMax/ReduceMin need (docs/ascendc.md#reducesum-reducemax-reducemin).
uint64_t extreme_work(uint64_t R, unsigned E, unsigned P, bool index) {
  auto up = [](uint64_t a, uint64_t b) { return (a + b - 1) / b; };
  if (!index) return up(2 * R, E) * E;
  const uint64_t iter1 = 2 * R, start2 = up(iter1, E) * E, iter2 = up(iter1, P) * 2, end2 = up(iter2, E) * E;
  uint64_t need = start2 + end2;
  if (iter2 > 2) need += up(up(iter2, P) * 2, E) * E;
  return need;
}

// work_repeats: the repeat count of the vendor's work-buffer formula (count form: count / P, at
// least 1; the tail repeat is reduced separately there).
void high_level(ReduceOp op, DType t, const UbRef& dst, const UbRef& src, const UbRef& tmp, const detail::Walk& w,
                int64_t src_rep, bool cal_index, bool count_form, uint64_t work_repeats, const char* api) {
  const Core& c = core();
  const Num num{t, t == DType::fp16 && op == ReduceOp::Sum && c.half_saturation()};
  const unsigned es = num.es(), E = 32 / es, P = 256 / es;
  const detail::WalkOperand s = source(src, es, 1, src_rep);
  detail::check_extent(api, w, s);
  if (w.repeats == 0) return;
  const uint64_t R = w.repeats;
  // The work buffer (docs/ascendc.md#reducesum-reducemax-reducemin).
  uint64_t work = 0;
  if (op == ReduceOp::Sum)
    work = count_form ? 0 : (R + E - 1) / E * E;
  else
    work = extreme_work(work_repeats, E, P, cal_index);
  if (tmp.elems < work)
    raise(ErrorCode::Constraint, api,
          "sharedTmpBuffer holds " + to_string(tmp.elems) + " elements; this call needs " + to_string(work), kDoc);
  if (work > 0) ub_bytes(tmp.addr, work * es, api, "sharedTmpBuffer");
  if (tmp.addr % 32 != 0 && work > 0)
    raise(ErrorCode::Constraint, api, "sharedTmpBuffer: UB address " + to_string(tmp.addr) + " must be 32-byte aligned",
          kDoc);
  const uint64_t dst_slots = op != ReduceOp::Sum && cal_index ? 2 : 1;
  if (dst.addr % es != 0 || dst.elems < dst_slots)
    raise(ErrorCode::Bounds, api, "dst must hold " + to_string(dst_slots) + " element(s) at an aligned address", kDoc);
  ub_bytes(dst.addr, dst_slots * es, api, "dst");
  if (op != ReduceOp::Sum && cal_index && t == DType::fp16) {
    const uint64_t last = (R - 1) * static_cast<uint64_t>(src_rep) * E + P - 1;
    if (last > 65535)
      raise(ErrorCode::Constraint, api,
            "half indices are 16-bit: the source reaches element " + to_string(last) + " (> 65535)", kDoc);
  }
  float v[128];
  bool on[128];
  uint8_t* ub = core().ub.data();
  if (op == ReduceOp::Sum) {
    uint64_t n = 0;
    if (count_form && flat_count(w, s, n)) {
      // Lanes 0..n-1: the element-op core's chained tree sums (groups of P from +0, left to
      // right; every node saturating with the CTRL mode) are this call's definition, in SIMD.
      uint64_t code = 0;
      ops::chained_tree_sums(t, ub + src.addr, 0, 1, n, P, &code, ops::Path::Fast, num.sat);
      std::memcpy(ub + dst.addr, &code, es);
      return;
    }
    std::vector<float> part(R);
    repeat_sums(num, w, s, part.data());
    float total;
    if (count_form) {  // repeats accumulated in order into the ACC register (docs: "方式一")
      total = 0.0f;
      for (uint64_t r = 0; r < R; ++r) total = num.add(total, part[r]);
    } else if (R == 1) {
      total = part[0];
    } else {  // a tree per group of P repeat results, then one tree over the groups
      const uint64_t groups = (R + P - 1) / P;
      std::vector<float> g(groups);
      for (uint64_t j = 0; j < groups; ++j) {
        for (unsigned i = 0; i < P; ++i) v[i] = j * P + i < R ? part[j * P + i] : 0.0f;
        g[j] = tree(num, v, P);
      }
      if (groups == 1) {
        total = g[0];
      } else {
        for (unsigned i = 0; i < P; ++i) v[i] = i < groups ? g[i] : 0.0f;
        total = tree(num, v, P);
      }
      // The work buffer holds what the vendor's steps leave there: the group sums over the first
      // repeat sums.
      for (uint64_t r = 0; r < R; ++r) num.store(ub + tmp.addr + r * es, part[r]);
      for (uint64_t j = 0; j < groups; ++j) num.store(ub + tmp.addr + j * es, g[j]);
    }
    num.store(ub + dst.addr, total);
    return;
  }
  uint64_t n = 0;
  if (flat_count(w, s, n) && n > 0) {
    // Lanes 0..n-1 in order: the extreme is the element-op core's max/min fold (spec 15 §1's NaN
    // and ±0 rules, canonical NaN, as num.store gives) and its index arg_reduce's (the first NaN,
    // else the smallest index of the extreme, -0 and +0 tying), Extreme's rules over one sequence.
    const ops::Op o = op == ReduceOp::Max ? ops::Op::max : ops::Op::min;
    const uint8_t* x = ub + src.addr;
    uint64_t code = 0;
    ops::fold_rows(o, t, x, 0, 1, n, &code);
    std::memcpy(ub + dst.addr, &code, es);
    if (cal_index) store_index(num, ub + dst.addr + es, ops::arg_reduce(o, t, x, n));
    return;
  }
  Extreme x{op == ReduceOp::Max};
  for (uint64_t r = 0; r < R; ++r) {
    if (!lanes_of(num, w, s, r, 0.0f, v, on)) continue;
    for (unsigned i = 0; i < P; ++i)
      if (on[i]) x.take(v[i], r * static_cast<uint64_t>(src_rep) * E + i);
  }
  if (!x.any) return;
  num.store(ub + dst.addr, x.value);
  if (cal_index) store_index(num, ub + dst.addr + es, x.index);
}

}  // namespace

void reduce_count(ReduceOp op, DType t, const UbRef& dst, const UbRef& src, const UbRef& tmp, int64_t count,
                  bool cal_index, bool set_mask, const char* api) {
  if (t_sync) [[unlikely]] {  // the operands' extents; the work buffer is read and written
    const uint64_t n = fm::info(t).storage_bits / 8;
    record(api, pipe_of(pipe_rule(OtherApi::Reduce)), {ub_range(src.addr, src.elems * n), ub_range(tmp.addr, tmp.elems * n)},
           {ub_range(dst.addr, dst.elems * n), ub_range(tmp.addr, tmp.elems * n)});
  }
  dtype_ok(api, t);
  const unsigned P = t == DType::fp16 ? 128 : 64;
  if (count < 0 || static_cast<uint64_t>(count) > src.elems)
    raise(ErrorCode::Bounds, api,
          "count must be in [0, " + to_string(src.elems) + "] (src's elements), got " + to_string(count), kDoc);
  MaskRegister after = core().mask;
  // Built in place (no copy of a just-written Walk: its 16-byte loads would wait on the narrower
  // stores that wrote it).
  const detail::Walk w = [&]() -> detail::Walk {
    if (op == ReduceOp::Sum && !set_mask) {  // the caller's mode and register drive the one vcadd
      MaskArg m;
      m.set_mask = false;
      return detail::repeat_walk(api, P, m, 1, core().mask, after);
    }
    after = MaskRegister{};
    return detail::count_walk(P, static_cast<uint64_t>(count));
  }();
  high_level(op, t, dst, src, tmp, w, 8, cal_index, true, std::max<uint64_t>(static_cast<uint64_t>(count) / P, 1),
             api);
  core().mask = after;  // count forms leave normal mode, all ones (isSetMask = false: untouched)
}

void reduce_repeat(ReduceOp op, DType t, const UbRef& dst, const UbRef& src, const UbRef& tmp, const MaskArg& m,
                   int64_t repeat, int64_t src_rep, bool cal_index, const char* api) {
  if (t_sync) [[unlikely]] {  // the operands' extents; the work buffer is read and written
    const uint64_t n = fm::info(t).storage_bits / 8;
    record(api, pipe_of(pipe_rule(OtherApi::Reduce)), {ub_range(src.addr, src.elems * n), ub_range(tmp.addr, tmp.elems * n)},
           {ub_range(dst.addr, dst.elems * n), ub_range(tmp.addr, tmp.elems * n)});
  }
  dtype_ok(api, t);
  stride_ok(api, "srcRepStride", src_rep);
  const unsigned P = t == DType::fp16 ? 128 : 64;
  // repeatTime is an int32 here (chunks of 255 inside the library): any value >= 0.
  if (repeat < 0) raise(ErrorCode::Constraint, api, "repeatTime must be >= 0, got " + to_string(repeat), kDoc);
  if (!m.set_mask || core().mask.counter)
    raise(ErrorCode::Constraint, api, "the mask/repeat form sets its own mask in normal mode (SetMaskNorm() first)",
          kDoc);
  MaskRegister after;
  MaskArg one = m;
  detail::Walk w = detail::repeat_walk(api, P, one, repeat > 255 ? 1 : repeat, core().mask, after);
  w.repeats = static_cast<uint64_t>(repeat);
  high_level(op, t, dst, src, tmp, w, src_rep, cal_index, false, w.repeats, api);
  core().mask = after;
}

void brcb(DType t, const UbRef& dst, const UbRef& src, int64_t repeat, uint64_t dst_blk, uint64_t dst_rep) {
  if (t_sync) [[unlikely]] {
    const uint64_t n = fm::info(t).storage_bits / 8;
    record("Brcb", pipe_of(pipe_rule(OtherApi::Brcb)), {ub_range(src.addr, src.elems * n)}, {ub_range(dst.addr, dst.elems * n)});
  }
  const char* api = "Brcb";
  const unsigned bits = fm::info(t).storage_bits;
  if (bits != 16 && bits != 32)
    raise(ErrorCode::Unsupported, api, std::string("dtype ") + fm::info(t).name + " is not supported (16- and 32-bit types)",
          "docs/ascendc.md#brcb");
  if (repeat < 0 || repeat > 255)
    raise(ErrorCode::Constraint, api, "repeatTime must be in [0, 255], got " + to_string(repeat), "docs/ascendc.md#brcb");
  if (dst.addr % 32 || src.addr % 32)
    raise(ErrorCode::Constraint, api, "dst and src must be 32-byte aligned (UB addresses " + to_string(dst.addr) + ", " +
                                          to_string(src.addr) + ")",
          "docs/ascendc.md#brcb");
  const unsigned es = bits / 8, E = 32 / es;
  const uint64_t R = static_cast<uint64_t>(repeat);
  const uint64_t blk = dst_blk == 0 ? 1 : dst_blk;  // the vendor's pseudo-code reads 0 as 1
  if (R > 0) {
    if (8 * R > src.elems)
      raise(ErrorCode::Bounds, api, "src must hold 8 * repeatTime = " + to_string(8 * R) + " elements, has " +
                                        to_string(src.elems),
            "docs/ascendc.md#brcb");
    const uint64_t top = ((R - 1) * dst_rep + 7 * blk) * E + E;
    if (top > dst.elems)
      raise(ErrorCode::Bounds, api, "dst: the walk reaches element " + to_string(top) + " but the tensor holds " +
                                        to_string(dst.elems),
            "docs/ascendc.md#brcb");
    ub_bytes(dst.addr, dst.elems * es, api, "dst");
    ub_bytes(src.addr, 8 * R * es, api, "src");
    const uint64_t s0 = src.addr, s1 = src.addr + 8 * R * es, d0 = dst.addr, d1 = dst.addr + top * es;
    if (s0 < d1 && d0 < s1)
      raise(ErrorCode::Constraint, api, "dst and src overlap", "docs/ascendc.md#overlap");
    uint8_t* ub = core().ub.data();
    for (uint64_t i = 0; i < R; ++i)
      for (unsigned j = 0; j < 8; ++j) {
        uint8_t* p = ub + dst.addr + (i * dst_rep + j * blk) * 32;
        const uint8_t* v = ub + src.addr + (8 * i + j) * es;
        for (unsigned k = 0; k < E; ++k) std::memcpy(p + k * es, v, es);
      }
  }
  reset_mask(core().mask);  // Brcb resets the mask register first (docs/ascendc.md#brcb)
}

}  // namespace tilesim::ascendc
