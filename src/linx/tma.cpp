// BSTART.TMA TLOAD / TSTORE / TMOV (spec 31 §2): memory <-> tiles with the B.DATR layout and pad,
// strides from B.IOR. Every byte is bounds-checked before anything moves; the Commit carries the
// new tile or the stored bytes.
#include <algorithm>
#include <cstring>

#include "linx/block.hpp"
#include "linx/layout.hpp"

namespace tilesim::linx {
namespace {
using namespace blk;
using enc::F;

// How a tile's (i, j) maps to its bytes: row-major, or the CUBE's A (NZ) / B (ZN) order with the
// tile's Row x Col as the padded matrix (spec 31 §2).
struct TileOrder {
  Layout l;
  size_t row, col, k0;
  size_t offset(size_t i, size_t j) const {
    switch (l) {
      case Layout::nz: return ((j / k0) * (row / 16) + i / 16) * 16 * k0 + (i % 16) * k0 + j % k0;
      case Layout::zn: return ((i / k0) * (col / 16) + j / 16) * k0 * 16 + (j % 16) * k0 + i % k0;
      default: return i * col + j;
    }
  }
};

TileOrder order(const Ctx& c, Layout l, const Geom& g, const char* code_name) {
  const size_t k0 = 256 / g.bits;  // 32 bytes of elements (4-bit: 64)
  if (l == Layout::nz && (g.row % 16 || g.col % k0))
    c.fail("tile geometry", std::string(code_name) + " needs Row a multiple of 16 and Col of K0 = " + num(k0) +
                                ", got Row " + num(g.row) + ", Col " + num(g.col),
           "docs/linx.md#tload-tstore-tmov");
  if (l == Layout::zn && (g.row % k0 || g.col % 16))
    c.fail("tile geometry", std::string(code_name) + " needs Row a multiple of K0 = " + num(k0) +
                                " and Col of 16, got Row " + num(g.row) + ", Col " + num(g.col),
           "docs/linx.md#tload-tstore-tmov");
  return {l, g.row, g.col, k0};
}

// 4-bit elements: element e in the low (even e) or high (odd e) nibble of byte e / 2 (spec 10 §2).
unsigned nib(const uint8_t* p, size_t e) { return (p[e >> 1] >> ((e & 1) * 4)) & 0xFu; }
void set_nib(uint8_t* p, size_t e, unsigned v) {
  const unsigned sh = (e & 1) * 4;
  p[e >> 1] = static_cast<uint8_t>((p[e >> 1] & ~(0xFu << sh)) | ((v & 0xFu) << sh));
}

struct Mem {
  uint64_t base, stride;
  bool dn;  // element (i, j) at base + j*stride + i*size
};

// Base and stride from B.IOR (RegSrc0, RegSrc1); the block's whole footprint checked.
Mem memory(const Machine::State& s, const Ctx& c, const Desc& d, const Geom& g, bool dn) {
  // The base is required: without B.IOR the block is malformed; RegSrc0 `zero` reads R0 = 0
  // (README decision: "absent" applies to the optional stride and scale).
  if (!d.has_ior) c.fail("malformed block", c.instr + " needs B.IOR with the base address in RegSrc0", "docs/linx.md#block-words");
  if (g.bits < 8 && dn && g.vr % 2)
    c.fail("tile geometry", c.instr + " of a 4-bit DN source needs ValidRow even (whole bytes per line), got " + num(g.vr),
           "docs/linx.md#tload-tstore-tmov");
  Mem m{s.regs[d.reg_code(0)], 0, dn};
  // Absent stride: one packed line (ValidCol elements; a DN source's line holds ValidRow).
  m.stride = d.reg_code(1) ? s.regs[d.reg_code(1)] : (dn ? g.vr : g.vc) * g.bits / 8;
  const u128 outer = dn ? g.vc : g.vr, inner = dn ? g.vr : g.vc;
  const u128 end = u128(m.base) + (outer - 1) * m.stride + inner * g.bits / 8;
  mem_ok(s, c, m.base, end - m.base,
         c.instr + " of " + num(g.vr) + "x" + num(g.vc) + " elements at base " + num(m.base) + " (" +
             enc::reg_name(d.reg_code(0)) + "), stride " + num(m.stride));
  return m;
}

Commit tload(const Machine::State& s, const Ctx& c, const Desc& d) {
  need_iot(c, d, 0, true);
  unused_zero(c, d.attr, "layout pad");
  const enc::Word& io = *d.iots[0];
  const unsigned dtc = c.block[0][F::dt];
  if (d.attr.datatype != 31 && d.attr.datatype != dtc)
    c.fail("malformed block", std::string("B.DATR DataType ") + type_code(d.attr.datatype).name +
                                  " differs from the BSTART type " + type_code(dtc).name,
           "docs/linx.md#block-words");
  const unsigned bits = elem_bits(c, dtc, "TLOAD");
  const size_t es = bits / 8;
  const DType t = type_code(dtc).dtype;
  const size_t size = enc::size_bytes(io[F::size]);
  const unsigned lay = d.attr.layout;
  Layout l;
  bool dn;
  switch (lay) {
    case 0: l = Layout::nd; dn = false; break;   // NORM
    case 4: l = Layout::nz; dn = false; break;   // ND2NZ
    case 9: l = Layout::nz; dn = true; break;    // DN2NZ
    case 3: l = Layout::zn; dn = false; break;   // ND2ZN
    case 8: l = Layout::zn; dn = true; break;    // DN2ZN
    default: {
      const char* n = enc::layout_name(lay);
      c.fail("unsupported", std::string("TLOAD layout ") + (n ? n : "reserved") + " (" + num(lay) +
                                ") is not supported (NORM, ND2NZ, DN2NZ, ND2ZN, DN2ZN)",
             "docs/linx.md#tload-tstore-tmov");
    }
  }
  Commit out;
  destination(s, c, out, io[F::dst], size);
  const Geom g = geometry_bits(c, d, size, bits, "destination");
  const TileOrder ord = order(c, l, g, enc::layout_name(lay));
  const uint64_t pad = pad_code(c, t, d.attr.pad);
  const Mem m = memory(s, c, d, g, dn);
  auto bytes = std::make_shared<std::vector<uint8_t>>(size, 0);
  uint8_t* dst = bytes->data();
  const uint8_t* src = s.mem.data();
  if (bits < 8) {  // nibbles: element (i, j) of an ND line at nibble j of byte base + i*stride
    for (size_t i = 0; i < g.row; ++i)
      for (size_t j = 0; j < g.col; ++j)
        if (i >= g.vr || j >= g.vc) set_nib(dst, ord.offset(i, j), static_cast<unsigned>(pad));
        else if (dn) set_nib(dst, ord.offset(i, j), nib(src + m.base + j * m.stride, i));
        else set_nib(dst, ord.offset(i, j), nib(src + m.base + i * m.stride, j));
    out.push.push_back({static_cast<int>(io[F::dst]), std::move(bytes)});
    return out;
  }
  // Pad first (elements outside the valid region), then the valid region.
  if (pad != 0)
    for (size_t i = 0; i < g.row; ++i)
      for (size_t j = 0; j < g.col; ++j)
        if (i >= g.vr || j >= g.vc) std::memcpy(dst + ord.offset(i, j) * es, &pad, es);
  if (l == Layout::nd && !dn) {
    for (size_t i = 0; i < g.vr; ++i) std::memcpy(dst + i * g.col * es, src + m.base + i * m.stride, g.vc * es);
  } else if (!dn && l == Layout::nz) {  // NZ: a fractal line of K0 elements along j is contiguous
    for (size_t i = 0; i < g.vr; ++i)
      for (size_t j = 0; j < g.vc; j += ord.k0)
        std::memcpy(dst + ord.offset(i, j) * es, src + m.base + i * m.stride + j * es, std::min(ord.k0, g.vc - j) * es);
  } else if (dn && l == Layout::zn) {  // ZN from DN: K0 elements along i are contiguous on both sides
    for (size_t j = 0; j < g.vc; ++j)
      for (size_t i = 0; i < g.vr; i += ord.k0)
        std::memcpy(dst + ord.offset(i, j) * es, src + m.base + j * m.stride + i * es, std::min(ord.k0, g.vr - i) * es);
  } else if (!dn) {
    for (size_t i = 0; i < g.vr; ++i)
      for (size_t j = 0; j < g.vc; ++j) std::memcpy(dst + ord.offset(i, j) * es, src + m.base + i * m.stride + j * es, es);
  } else {
    for (size_t j = 0; j < g.vc; ++j)
      for (size_t i = 0; i < g.vr; ++i) std::memcpy(dst + ord.offset(i, j) * es, src + m.base + j * m.stride + i * es, es);
  }
  out.push.push_back({static_cast<int>(io[F::dst]), std::move(bytes)});
  return out;
}

Commit tstore(const Machine::State& s, const Ctx& c, const Desc& d) {
  need_iot(c, d, 1, false);
  unused_zero(c, d.attr, "layout");
  const enc::Word& io = *d.iots[0];
  const unsigned dtc = c.block[0][F::dt];
  if (d.attr.datatype != 31 && d.attr.datatype != dtc)
    c.fail("malformed block", std::string("B.DATR DataType ") + type_code(d.attr.datatype).name +
                                  " differs from the BSTART type " + type_code(dtc).name,
           "docs/linx.md#block-words");
  const unsigned bits = elem_bits(c, dtc, "TSTORE");
  const size_t es = bits / 8;
  const unsigned lay = d.attr.layout;
  Layout l;
  switch (lay) {
    case 0: l = Layout::nd; break;    // NORM
    case 27: l = Layout::nz; break;   // NZ2ND
    case 17: l = Layout::zn; break;   // ZN2ND
    default: {
      const char* n = enc::layout_name(lay);
      c.fail("unsupported", std::string("TSTORE layout ") + (n ? n : "reserved") + " (" + num(lay) +
                                ") is not supported (NORM, NZ2ND, ZN2ND)",
             "docs/linx.md#tload-tstore-tmov");
    }
  }
  const Source src = fetch(s, c, io[F::s0], io[F::s0r], "source");
  const Geom g = geometry_bits(c, d, src.slot->size, bits, "source " + enc::tile_text(src.code));
  const TileOrder ord = order(c, l, g, enc::layout_name(lay));
  const Mem m = memory(s, c, d, g, false);
  Commit out;
  const uint8_t* t = src.slot->bytes->data();
  if (bits < 8) {  // whole bytes per row: ValidCol is even
    const size_t rb = g.vc / 2;
    out.store_data.assign(g.vr * rb, 0);
    for (size_t i = 0; i < g.vr; ++i) {
      uint8_t* row = out.store_data.data() + i * rb;
      for (size_t j = 0; j < g.vc; ++j) set_nib(row, j, nib(t, ord.offset(i, j)));
      out.store.push_back({m.base + i * m.stride, i * rb, rb});
    }
    release(out, {&src});
    return out;
  }
  out.store_data.resize(g.vr * g.vc * es);
  for (size_t i = 0; i < g.vr; ++i) {
    uint8_t* row = out.store_data.data() + i * g.vc * es;
    if (l == Layout::nd)
      std::memcpy(row, t + i * g.col * es, g.vc * es);
    else
      for (size_t j = 0; j < g.vc; ++j) std::memcpy(row + j * es, t + ord.offset(i, j) * es, es);
    out.store.push_back({m.base + i * m.stride, i * g.vc * es, g.vc * es});
  }
  release(out, {&src});
  return out;
}

Commit tmov(const Machine::State& s, const Ctx& c, const Desc& d) {
  need_iot(c, d, 1, true);
  unused_zero(c, d.attr, "");
  const enc::Word& io = *d.iots[0];
  const Source src = fetch(s, c, io[F::s0], io[F::s0r], "source");
  const size_t size = enc::size_bytes(io[F::size]);
  if (size != src.slot->size)
    c.fail("tile size", "TMOV destination size " + num(size) + " B differs from source " + enc::tile_text(src.code) +
                            "'s " + num(src.slot->size) + " B",
           "docs/linx.md#tload-tstore-tmov");
  Commit out;
  release(out, {&src});
  destination(s, c, out, io[F::dst], size);
  out.push.push_back({static_cast<int>(io[F::dst]), src.slot->bytes});  // bytes are immutable: shared
  return out;
}

}  // namespace

Commit exec_tma(const Machine::State& s, std::span<const enc::Word> b, long word_index) {
  const unsigned fn = b[0][F::fn];
  const Ctx c{enc::tma_fn_name(fn), word_index, b};
  const Desc d = describe(s, c);
  switch (fn) {
    case 0: return tload(s, c, d);
    case 1: return tstore(s, c, d);
    default: return tmov(s, c, d);
  }
}

}  // namespace tilesim::linx
