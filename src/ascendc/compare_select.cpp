// Compare / Compares into a bit mask, Compare into the CMPMASK register, Get/SetCmpMask and
// Select in its three modes (spec 41 §3, docs/ascendc.md#compare-and-select). Sources are walked
// by the operand walker; the predicates and the bit-driven select are the element-op core's
// (spec 15 compare and select).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ops/elementwise.hpp"
#include "tilesim/ascendc/vector.hpp"
#include "tilesim/ascendc/sync.hpp"
#include "tilesim/error.hpp"
#include "walk.hpp"

namespace tilesim::ascendc {

using std::to_string;

namespace {

namespace fm = tilesim::formats;
constexpr const char* kDoc = "docs/ascendc.md#compare-and-select";

ops::Op pred(CmpMode m) {
  static constexpr ops::Op k[] = {ops::Op::lt, ops::Op::gt, ops::Op::eq, ops::Op::le, ops::Op::ge, ops::Op::ne};
  return k[static_cast<unsigned>(m)];
}

const char* name(CmpMode m) {
  static const char* const k[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
  return k[static_cast<unsigned>(m)];
}

void compare_dtype(const char* api, DType t, CmpMode mode) {
  if (t == DType::fp16 || t == DType::fp32) return;
  if (t == DType::s32) {
    // The vendor's int32 path issues the EQ instruction whatever the mode: any other mode would
    // silently compute EQ, so it is rejected.
    if (mode == CmpMode::EQ) return;
    raise(ErrorCode::Unsupported, api,
          std::string("int32 compares support CMPMODE::EQ only, got CMPMODE::") + name(mode), kDoc);
  }
  raise(ErrorCode::Unsupported, api,
        std::string("dtype ") + fm::info(t).name + " is not supported (takes: fp16 fp32, s32 with EQ)", kDoc);
}

void aligned(const char* api, const char* operand, uint64_t addr, unsigned a) {
  if (addr % a != 0)
    raise(ErrorCode::Constraint, api,
          std::string(operand) + ": UB address " + to_string(addr) + " must be " + to_string(a) + "-byte aligned",
          kDoc);
}

bool overlaps(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) {
  return a0 < b1 && b0 < a1;
}

// Bytes of UB an operand's walk reads: [lowest, highest) over its active datablocks.
void read_span(const detail::Walk& w, const detail::WalkOperand& o, uint64_t& lo, uint64_t& hi) {
  lo = o.ref.addr;
  const unsigned nb = (w.lanes * o.esize + 31) / 32;
  hi = lo;
  if (w.repeats == 0) return;
  const uint64_t last = ((w.repeats - 1) * o.rep + (nb - 1) * o.blk) * 32 + 32;
  hi = lo + std::max<uint64_t>(last, 32);
}

// Source lanes of repeat r, contiguous, into buf (all lanes: the compare ignores the mask on A2).
const uint8_t* lanes_of(const detail::WalkOperand& o, unsigned lanes, uint64_t r, uint8_t* buf) {
  const uint8_t* ub = core().ub.data();
  const unsigned nb = lanes * o.esize / 32;
  if (o.blk == 1) return ub + o.ref.addr + r * o.rep * 32;
  for (unsigned b = 0; b < nb; ++b) std::memcpy(buf + b * 32, ub + o.ref.addr + (r * o.rep + b * o.blk) * 32, 32);
  return buf;
}

}  // namespace

void compare_bits(CmpMode mode, DType t, const UbRef& dst, const UbRef& a, const UbRef* b, uint64_t scalar,
                  int64_t repeat, const RepeatStrides& st, const char* api) {
  if (t_sync) [[unlikely]] {  // the operands' extents (docs/ascendc.md#compare-and-select)
    const uint64_t n = fm::info(t).storage_bits / 8;
    const sync::Range r[2] = {ub_range(a.addr, a.elems * n), b ? ub_range(b->addr, b->elems * n) : sync::Range{}};
    const sync::Range w = ub_range(dst.addr, dst.elems);
    record(api, pipe_of(pipe_rule(OtherApi::Compare)), r, b ? 2 : 1, &w, 1);
  }
  compare_dtype(api, t, mode);
  if (repeat < 0 || repeat > 255)
    raise(ErrorCode::Constraint, api, "repeatTime must be in [0, 255], got " + to_string(repeat), kDoc);
  const unsigned es = fm::info(t).storage_bits / 8, lanes = detail::elems_in(256, es);
  detail::Walk w = detail::count_walk(lanes, static_cast<uint64_t>(repeat) * lanes);  // every lane (mask ignored)
  detail::WalkOperand s0, s1;
  s0.name = b ? "src0" : "src";
  s0.ref = a;
  s0.esize = es;
  s0.blk = st.src0_blk;
  s0.rep = st.src0_rep;
  detail::check_extent(api, w, s0);
  if (b) {
    s1 = s0;
    s1.name = "src1";
    s1.ref = *b;
    s1.blk = st.src1_blk;
    s1.rep = st.src1_rep;
    detail::check_extent(api, w, s1);
  }
  aligned(api, "dst", dst.addr, 32);
  // Output: lanes bits per repeat, packed repeat after repeat (the dst strides do not place it).
  const uint64_t out_bytes = w.repeats * lanes / 8;
  if (out_bytes > dst.elems)
    raise(ErrorCode::Bounds, api,
          "dst: " + to_string(w.repeats) + " repeats write " + to_string(out_bytes) + " bytes of bits, the tensor holds " +
              to_string(dst.elems),
          kDoc);
  if (w.repeats == 0) return;
  ub_bytes(dst.addr, out_bytes, api, "dst");
  uint64_t lo, hi;
  read_span(w, s0, lo, hi);
  if (overlaps(dst.addr, dst.addr + out_bytes, lo, hi))
    raise(ErrorCode::Constraint, api, std::string("dst and ") + s0.name + " overlap", "docs/ascendc.md#overlap");
  if (b) {
    read_span(w, s1, lo, hi);
    if (overlaps(dst.addr, dst.addr + out_bytes, lo, hi))
      raise(ErrorCode::Constraint, api, "dst and src1 overlap", "docs/ascendc.md#overlap");
  }
  uint8_t* d = core().ub.data() + dst.addr;
  alignas(64) uint8_t ba[256], bb[256];
  if (s0.blk == 1 && (!b || s1.blk == 1)) {  // one call: rows are repeats at the repeat strides
    ops::Rows2 g;
    g.a = core().ub.data() + a.addr;
    g.as = s0.rep * 32;
    if (b) {
      g.b = core().ub.data() + b->addr;
      g.bs = s1.rep * 32;
    }
    g.d = d;
    g.ds = lanes / 8;
    g.rows = w.repeats;
    g.n = lanes;
    ops::compare_bits_rows(pred(mode), t, g, b == nullptr, scalar);
    return;
  }
  for (uint64_t r = 0; r < w.repeats; ++r) {
    ops::Rows2 g;
    g.a = lanes_of(s0, lanes, r, ba);
    if (b) g.b = lanes_of(s1, lanes, r, bb);
    g.d = d + r * lanes / 8;
    g.n = lanes;
    ops::compare_bits_rows(pred(mode), t, g, b == nullptr, scalar);
  }
}

void compare_bits_count(CmpMode mode, DType t, const UbRef& dst, const UbRef& a, const UbRef* b, uint64_t scalar,
                        int64_t count, const char* api) {
  if (t_sync) [[unlikely]] {
    const uint64_t n = fm::info(t).storage_bits / 8, c = count > 0 ? uint64_t(count) : 0;
    const sync::Range r[2] = {ub_range(a.addr, c * n), b ? ub_range(b->addr, c * n) : sync::Range{}};
    const sync::Range w = ub_range(dst.addr, (c + 7) / 8);
    record(api, pipe_of(pipe_rule(OtherApi::Compare)), r, b ? 2 : 1, &w, 1);
  }
  compare_dtype(api, t, mode);
  const unsigned es = fm::info(t).storage_bits / 8;
  if (count < 0 || static_cast<uint64_t>(count) > a.elems || (b && static_cast<uint64_t>(count) > b->elems))
    raise(ErrorCode::Bounds, api, "count must be in [0, the sources' elements], got " + to_string(count), kDoc);
  if ((static_cast<uint64_t>(count) * es) % 256 != 0)
    raise(ErrorCode::Constraint, api,
          "count * sizeof(T) must be a multiple of 256 bytes (whole repeats), got " + to_string(count) + " * " +
              to_string(es),
          kDoc);
  // The library issues whole repeats with the default strides, 252 per instruction (the same bits
  // as one walk).
  RepeatStrides st;
  const uint64_t R = static_cast<uint64_t>(count) * es / 256;
  for (uint64_t r0 = 0; r0 < R; r0 += 252) {
    const uint64_t n = std::min<uint64_t>(252, R - r0);
    UbRef d2{dst.addr + r0 * (256 / es) / 8, dst.elems - std::min(dst.elems, r0 * (256 / es) / 8)};
    UbRef a2{a.addr + r0 * 256, a.elems - r0 * (256 / es)};
    UbRef b2;
    if (b) b2 = UbRef{b->addr + r0 * 256, b->elems - r0 * (256 / es)};
    compare_bits(mode, t, d2, a2, b ? &b2 : nullptr, scalar, static_cast<int64_t>(n), st, api);
  }
}

void compare_to_cmpmask(CmpMode mode, DType t, const UbRef& a, const UbRef& b, const MaskArg& m,
                        const RepeatStrides& st) {
  if (t_sync) [[unlikely]] {  // the sources' extents; the result is the CMPMASK register
    const uint64_t n = fm::info(t).storage_bits / 8;
    record("Compare", pipe_of(pipe_rule(OtherApi::Compare)), {ub_range(a.addr, a.elems * n), ub_range(b.addr, b.elems * n)},
           {});
  }
  const char* api = "Compare";
  if (t != DType::fp16 && t != DType::fp32)
    raise(ErrorCode::Unsupported, api,
          std::string("the CMPMASK form takes fp16 or fp32, got ") + fm::info(t).name, kDoc);
  const unsigned es = fm::info(t).storage_bits / 8, lanes = detail::elems_in(256, es);
  MaskRegister after;
  const detail::Walk w = detail::repeat_walk(api, lanes, m, 1, core().mask, after);
  detail::WalkOperand o[2];
  o[0].name = "src0", o[0].ref = a, o[0].esize = es, o[0].blk = st.src0_blk, o[0].rep = st.src0_rep;
  o[1] = o[0];
  o[1].name = "src1", o[1].ref = b, o[1].blk = st.src1_blk, o[1].rep = st.src1_rep;
  detail::check_extent(api, w, o[0]);
  detail::check_extent(api, w, o[1]);
  alignas(64) uint8_t ba[256], bb[256], bits[16] = {};
  ops::Rows2 g;
  g.a = lanes_of(o[0], lanes, 0, ba);
  g.b = lanes_of(o[1], lanes, 0, bb);
  g.d = bits;
  g.n = lanes;
  ops::compare_bits_rows(pred(mode), t, g, false, 0);
  // Inactive lanes read as 0 (docs/ascendc.md#compare-and-select).
  uint64_t lo, hi;
  std::memcpy(&lo, bits, 8);
  std::memcpy(&hi, bits + 8, 8);
  Core& c = core();
  c.cmpmask[0] = lo & w.body.lo;
  c.cmpmask[1] = lanes > 64 ? hi & w.body.hi : 0;
  c.mask = after;
}

void get_cmp_mask(const UbRef& dst_bytes) {
  if (t_sync) [[unlikely]]
    record("GetCmpMask", pipe_of(pipe_rule(OtherApi::CmpMask)), {}, {ub_range(dst_bytes.addr, 16)});
  aligned("GetCmpMask", "dst", dst_bytes.addr, 32);
  if (dst_bytes.elems < 16)
    raise(ErrorCode::Bounds, "GetCmpMask", "dst must hold 16 bytes, has " + to_string(dst_bytes.elems), kDoc);
  uint8_t* p = ub_bytes(dst_bytes.addr, 16, "GetCmpMask", "dst");
  std::memcpy(p, core().cmpmask, 16);
}

void set_cmp_mask(const UbRef& src_bytes) {
  if (t_sync) [[unlikely]]
    record("SetCmpMask", pipe_of(pipe_rule(OtherApi::CmpMask)), {ub_range(src_bytes.addr, 16)}, {});
  aligned("SetCmpMask", "src", src_bytes.addr, 32);
  if (src_bytes.elems < 16)
    raise(ErrorCode::Bounds, "SetCmpMask", "src must hold 16 bytes, has " + to_string(src_bytes.elems), kDoc);
  const uint8_t* p = ub_bytes(src_bytes.addr, 16, "SetCmpMask", "src");
  std::memcpy(core().cmpmask, p, 16);
}

namespace {

struct SelCtx {
  DType t;
  SelMode mode;
  unsigned lanes;
  const uint8_t* bits;  // mode 0: the 16 CMPMASK bytes; modes 1/2: selMask's first byte
  uint64_t scalar;
};

void compute_sel(const void* p, const uint8_t* const* s, uint8_t* d, size_t n, uint64_t first) {
  const SelCtx& c = *static_cast<const SelCtx*>(p);
  const unsigned es = fm::info(c.t).storage_bits / 8;
  const bool scalar = c.mode == SelMode::VSEL_TENSOR_SCALAR_MODE;
  ops::Rows2 g;
  g.a = s[0];
  g.b = scalar ? nullptr : s[1];
  g.d = d;
  if (c.mode != SelMode::VSEL_CMPMASK_SPR) {  // modes 1/2: one bit per lane, lanes first.. on
    g.n = n;
    ops::select_bits_rows(c.t, c.bits + first / 8, 0, g, scalar, c.scalar);
    return;
  }
  // Mode 0: every repeat reads the same CMPMASK bits: the whole repeats as rows of one call
  // (bits stride 0), then a partial last repeat.
  const size_t rows = n / c.lanes, row_bytes = size_t(c.lanes) * es;
  g.as = g.bs = g.ds = row_bytes;
  g.rows = rows;
  g.n = c.lanes;
  if (rows > 0) ops::select_bits_rows(c.t, c.bits, 0, g, scalar, c.scalar);
  if (n % c.lanes == 0) return;
  g.a = s[0] + rows * row_bytes;
  if (!scalar) g.b = s[1] + rows * row_bytes;
  g.d = d + rows * row_bytes;
  g.rows = 1;
  g.n = n % c.lanes;
  ops::select_bits_rows(c.t, c.bits, 0, g, scalar, c.scalar);
}

}  // namespace

void select(SelMode mode, DType t, const UbRef& dst, const UbRef* sel, const UbRef& a, const UbRef* b,
            uint64_t scalar, const MaskArg* mask, int64_t repeat, const RepeatStrides& st, bool count_form,
            int64_t count) {
  const char* api = "Select";
  if (t != DType::fp16 && t != DType::fp32)
    raise(ErrorCode::Unsupported, api, std::string("dtype ") + fm::info(t).name + " is not supported (takes: fp16 fp32)",
          kDoc);
  const bool scalar_mode = mode == SelMode::VSEL_TENSOR_SCALAR_MODE;
  if (scalar_mode == (b != nullptr))
    raise(ErrorCode::Constraint, api,
          scalar_mode ? "VSEL_TENSOR_SCALAR_MODE takes a scalar src1 (the tensor overload does nothing on Atlas A2)"
                      : "a scalar src1 needs SELMODE::VSEL_TENSOR_SCALAR_MODE",
          kDoc);
  const unsigned es = fm::info(t).storage_bits / 8, lanes = detail::elems_in(256, es);
  Core& c = core();
  MaskRegister after = c.mask;
  const detail::Walk w = [&]() -> detail::Walk {  // built in place (reduce_repeat.cpp reduce_count)
    if (count_form) {
      if (count < 0 || static_cast<uint64_t>(count) > dst.elems)
        raise(ErrorCode::Bounds, api, "count must be in [0, dst's elements], got " + to_string(count), kDoc);
      after = MaskRegister{};
      return detail::count_walk(lanes, static_cast<uint64_t>(count));
    }
    MaskArg m;
    if (mask) {
      m = *mask;
      m.set_mask = true;  // isSetMask is a reserved parameter: the library always sets the mask
    } else {  // the no-mask forms: the caller's register and mode
      m.set_mask = false;
    }
    return detail::repeat_walk(api, lanes, m, repeat, c.mask, after);
  }();
  detail::WalkOperand o[3];
  o[0].name = "dst", o[0].ref = dst, o[0].esize = es, o[0].blk = st.dst_blk, o[0].rep = st.dst_rep;
  o[0].read = false, o[0].write = true;
  o[1].name = "src0", o[1].ref = a, o[1].esize = es, o[1].blk = st.src0_blk, o[1].rep = st.src0_rep;
  size_t n = 2;
  if (b) {
    o[2].name = "src1", o[2].ref = *b, o[2].esize = es, o[2].blk = st.src1_blk, o[2].rep = st.src1_rep;
    n = 3;
  }
  detail::check_operands(api, w, o, n);
  // The bits.
  uint8_t cmp[16];
  const uint8_t* bits = nullptr;
  uint64_t new_cmp[2] = {c.cmpmask[0], c.cmpmask[1]};
  if (mode == SelMode::VSEL_CMPMASK_SPR) {
    if (sel) {  // loaded from selMask into CMPMASK
      aligned(api, "selMask", sel->addr, 32);
      if (sel->elems < 16)
        raise(ErrorCode::Bounds, api, "selMask must hold 16 bytes for VSEL_CMPMASK_SPR, has " + to_string(sel->elems),
              kDoc);
      std::memcpy(new_cmp, ub_bytes(sel->addr, 16, api, "selMask"), 16);
    }
    std::memcpy(cmp, new_cmp, 16);
    bits = cmp;
  } else {
    if (!sel)
      raise(ErrorCode::Unsupported, api,
            "the no-mask VSEL_TENSOR_TENSOR_MODE form (selMask address in CMPMASK) is not supported; pass selMask",
            kDoc);
    aligned(api, "selMask", sel->addr, 32);
    const uint64_t need = (w.repeats * lanes + 7) / 8;
    if (w.repeats > 0) {
      if (need > sel->elems)
        raise(ErrorCode::Bounds, api,
              "selMask: the walk consumes " + to_string(need) + " bytes of bits, the tensor holds " +
                  to_string(sel->elems),
              kDoc);
      ub_bytes(sel->addr, need, api, "selMask");
      // dst must not overwrite bits a later lane reads (a dst whose whole reach misses them
      // cannot).
      const uint64_t reach = dst.addr + ((w.repeats - 1) * st.dst_rep + 7 * st.dst_blk + 1) * 32;
      if (overlaps(dst.addr, reach, sel->addr, sel->addr + need)) {
        for (uint64_t r = 0; r < w.repeats; ++r)
          for (unsigned blk = 0; blk < 8; ++blk) {
            const uint64_t p = dst.addr + (r * st.dst_rep + blk * st.dst_blk) * 32;
            if (overlaps(p, p + 32, sel->addr, sel->addr + need))
              raise(ErrorCode::Constraint, api, "dst and selMask overlap", "docs/ascendc.md#overlap");
          }
      }
    }
    bits = core().ub.data() + sel->addr;
    if (scalar_mode) {  // the scalar goes through CMPMASK
      for (unsigned k = 0; k < 16 / es; ++k) std::memcpy(reinterpret_cast<uint8_t*>(new_cmp) + k * es, &scalar, es);
    } else {
      new_cmp[0] = sel->addr;
      new_cmp[1] = 0;
    }
  }
  if (t_sync) [[unlikely]] {
    const uint8_t pipe = pipe_of(pipe_rule(OtherApi::Select));
    detail::record_walk(api, pipe, w, o, n);
    if (sel) record(api, pipe, {ub_range(sel->addr, sel->elems)}, {});
  }
  SelCtx ctx{t, mode, lanes, bits, scalar};
  detail::execute(w, o, n, {&ctx, compute_sel});
  c.cmpmask[0] = new_cmp[0];
  c.cmpmask[1] = new_cmp[1];
  c.mask = after;
}

}  // namespace tilesim::ascendc
