// BSTART.TMA TLOAD / TSTORE / TMOV (spec 31 §2): memory <-> tiles with the B.DATR layout and pad,
// strides from B.IOR. Every byte is bounds-checked before anything moves; the Commit carries the
// new tile or the stored bytes.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "linx/block.hpp"
#include "linx/gemm_core.hpp"
#include "linx/layout.hpp"
#include "tilesim/parallel.hpp"

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

// An NZ or ZN tile of whole-byte elements is a sequence of 32-byte fractal lines of K0 elements
// (spec 30 §4): line (P, q) starts at element (P * L + q) * K0, P the block along the line's axis, q
// the line in it (NZ: element (i, j) in line (j / K0, i), L = Row; ZN: in line (i / K0, j), L = Col).
// A line runs along memory's rows (one 32-byte copy) for NZ with ND memory and ZN with DN memory;
// otherwise its K0 elements come from K0 memory rows (a transpose, one element per row).
struct Lines {
  size_t L, lines, span;  // lines per block, valid lines, valid elements along the line axis
  size_t k0;
  bool along_rows;
};

Lines fractal_lines(const TileOrder& o, const Geom& g, bool dn) {
  const bool nz = o.l == Layout::nz;
  return {nz ? o.row : o.col, nz ? g.vr : g.vc, nz ? g.vc : g.vr, o.k0, nz != dn};
}

// Moves the valid elements between a fractal tile and memory (memory element (a, b) of the line
// geometry at mem + a*stride + b*ES, a the line index q when along_rows, else the element index).
// kLoad: memory -> tile, else tile -> memory (the source side is the const one). A transpose visits
// the tile lines in order, reading K0 memory rows at once.
template <bool kLoad>
using TilePtr = std::conditional_t<kLoad, uint8_t*, const uint8_t*>;
template <bool kLoad>
using MemPtr = std::conditional_t<kLoad, const uint8_t*, uint8_t*>;

template <size_t ES, bool kLoad>
void move_lines_es(TilePtr<kLoad> tile, MemPtr<kLoad> mem, size_t stride, const Lines& ln, size_t P0, size_t P1) {
  const auto mv = [](TilePtr<kLoad> t, MemPtr<kLoad> m, size_t n) {
    if constexpr (kLoad) std::memcpy(t, m, n);
    else std::memcpy(m, t, n);
  };
  if (ln.along_rows) {
    // Eight blocks at a time, line by line: each memory row's 256 bytes are read once (four cache
    // lines when aligned) and the eight blocks' tile lines are written in order. (16 rows at a
    // time, block by block, wrote 512 tile bytes per block 32 * L apart: for L = 256 every block's
    // writes fell into the same 8 L1 sets, 2.4x the time of the transposing path on a 256 x 256 fp32
    // tile. On the Intel host, 256 x 256 fp32 ND2NZ + NZ2ND: two blocks at a time 33-47 us, four 30,
    // eight 24, sixteen 60.)
    // A store whose memory rows overlap keeps the documented order, block by block (docs/linx.md,
    // TSTORE: the last write wins), so one block at a time there.
    const size_t group = !kLoad && stride < ln.span * ES ? 1 : 8;
    const size_t full = std::min(P1, ln.span / ln.k0);
    size_t P = P0;
    for (; P < full;) {
      const size_t g = std::min(group, full - P);
      for (size_t q = 0; q < ln.lines; ++q)
        for (size_t k = 0; k < g; ++k)
          mv(tile + ((P + k) * ln.L + q) * 32, mem + q * stride + (P + k) * 32, 32);
      P += g;
    }
    if (full < P1)  // the last, partial block
      for (size_t q = 0; q < ln.lines; ++q) mv(tile + (full * ln.L + q) * 32, mem + q * stride + full * 32, (ln.span - full * ln.k0) * ES);
    return;
  }
  for (size_t P = P0; P < P1; ++P) {
    const size_t n = std::min(ln.k0, ln.span - P * ln.k0);
    const TilePtr<kLoad> t = tile + P * ln.L * 32;
    const MemPtr<kLoad> rows = mem + P * ln.k0 * stride;
    if (ES == 4) {  // 8 x 8 register transposes (the GEMM core's)
      if constexpr (kLoad) core::transpose32(rows, stride, t, 32, n, ln.lines);
      else core::transpose32(t, 32, rows, stride, ln.lines, n);
    } else if (ES == 2) {  // the same for 16-bit elements (fp16 / bf16 B tiles: 2-byte copies were 12 % of a GEMM)
      if constexpr (kLoad) core::transpose16(rows, stride, t, 32, n, ln.lines);
      else core::transpose16(t, 32, rows, stride, ln.lines, n);
    } else if (ES == 1) {  // and 8-bit ones (s8 / fp8)
      if constexpr (kLoad) core::transpose8(rows, stride, t, 32, n, ln.lines);
      else core::transpose8(t, 32, rows, stride, ln.lines, n);
    } else {
      if (n == ln.k0)  // whole lines: K0 memory rows read side by side, the tile written in order
        for (size_t q = 0; q < ln.lines; ++q)
          for (size_t e = 0; e < 32 / ES; ++e) mv(t + q * 32 + e * ES, rows + e * stride + q * ES, ES);
      else
        for (size_t q = 0; q < ln.lines; ++q)
          for (size_t e = 0; e < n; ++e) mv(t + q * 32 + e * ES, rows + e * stride + q * ES, ES);
    }
  }
}

// Blocks of lines are independent: large tiles split them over the threads (each chunk at least
// kThreadChunk bytes of tile, block.hpp).
// A store whose memory rows overlap (a row stride below the row's bytes, 0 included: legal, the
// bounds are all TSTORE checks) writes some bytes more than once, the last write winning; such a
// store stays one chunk on one thread, so the same write wins at every thread count.
template <bool kLoad>
size_t chunk_grain(size_t items, size_t item_bytes, size_t stride, size_t mem_row_bytes) {
  if (!kLoad && stride < mem_row_bytes) return std::max<size_t>(1, items);
  return std::max<size_t>(1, kThreadChunk / std::max<size_t>(1, item_bytes));
}

template <bool kLoad>
void move_lines(TilePtr<kLoad> tile, MemPtr<kLoad> m, size_t stride, const Lines& ln, size_t es) {
  const size_t blocks = (ln.span + ln.k0 - 1) / ln.k0;
  // Memory rows: the lines themselves (span elements each) or, transposed, the element rows
  // (lines elements each).
  const size_t row_bytes = (ln.along_rows ? ln.span : ln.lines) * es;
  parallel_for(blocks, chunk_grain<kLoad>(blocks, ln.L * 32, stride, row_bytes), [&](size_t P0, size_t P1) {
    switch (es) {
      case 1: return move_lines_es<1, kLoad>(tile, m, stride, ln, P0, P1);
      case 2: return move_lines_es<2, kLoad>(tile, m, stride, ln, P0, P1);
      case 4: return move_lines_es<4, kLoad>(tile, m, stride, ln, P0, P1);
      default: return move_lines_es<8, kLoad>(tile, m, stride, ln, P0, P1);
    }
  });
}

// Row-major rows, split over the threads the same way.
template <bool kLoad>
void move_rows(TilePtr<kLoad> tile, size_t tile_stride, MemPtr<kLoad> m, size_t stride, size_t rows, size_t bytes) {
  parallel_for(rows, chunk_grain<kLoad>(rows, bytes, stride, bytes), [&](size_t r0, size_t r1) {
    for (size_t i = r0; i < r1; ++i)
      if constexpr (kLoad) std::memcpy(tile + i * tile_stride, m + i * stride, bytes);
      else std::memcpy(m + i * stride, tile + i * tile_stride, bytes);
  });
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
  mem_ok(s, c, m.base, end - m.base, [&] {
    return c.instr + " of " + num(g.vr) + "x" + num(g.vc) + " elements at base " + num(m.base) + " (" +
           enc::reg_name(d.reg_code(0)) + "), stride " + num(m.stride);
  });
  return m;
}

Commit tload(const Machine::State& s, const Ctx& c, const Desc& d) {
  need_iot(c, d, 0, true);
  unused_zero(c, d.attr, "layout pad");
  const enc::Word& io = *d.iot;
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
  // A load that covers every byte of the tile skips the zero fill.
  const bool covers = bits >= 8 && g.vr == g.row && g.vc == g.col && size == g.row * g.col * es;
  auto bytes = covers ? std::make_shared<TileBytes>(size) : std::make_shared<TileBytes>(size, 0);
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
    move_rows<true>(dst, g.col * es, src + m.base, m.stride, g.vr, g.vc * es);
  } else {
    move_lines<true>(dst, src + m.base, m.stride, fractal_lines(ord, g, dn), es);
  }
  out.push.push_back({static_cast<int>(io[F::dst]), std::move(bytes)});
  return out;
}

Commit tstore(const Machine::State& s, const Ctx& c, const Desc& d) {
  need_iot(c, d, 1, false);
  unused_zero(c, d.attr, "layout");
  const enc::Word& io = *d.iot;
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
  const Geom g = geometry_bits(c, d, src.slot->size, bits, Role("source", static_cast<int>(src.code)));
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
  // Whole-byte elements go straight from the tile into memory when the Commit is applied (every
  // check is done; the tile's bytes are immutable and kept alive by the capture).
  const auto bytes = src.slot->bytes;
  const Lines ln = l == Layout::nd ? Lines{} : fractal_lines(ord, g, false);
  out.write_end = m.base + (g.vr - 1) * m.stride + g.vc * es;
  out.write = [bytes, ln, l, g, m, es](uint8_t* mem) {
    const uint8_t* t = bytes->data();
    if (l == Layout::nd)
      move_rows<false>(t, g.col * es, mem + m.base, m.stride, g.vr, g.vc * es);
    else
      move_lines<false>(t, mem + m.base, m.stride, ln, es);
  };
  release(out, {&src});
  return out;
}

Commit tmov(const Machine::State& s, const Ctx& c, const Desc& d) {
  need_iot(c, d, 1, true);
  unused_zero(c, d.attr, "");
  const enc::Word& io = *d.iot;
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
