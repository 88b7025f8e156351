// BSTART.TEPL (spec 31 §2): a TEPL function is the PTO instruction of the same name (TTRANSPOSE:
// TTRANS). The block's tiles become PTO tile descriptors (§1's geometry, each tile's Row from its
// own Size and element type; docs/linx.md#tepl says which tile the LB values describe) and the PTO
// instruction table runs them on target a5 (spec 31 §2's decision) — one definition of every op,
// reached from PTO C++, PTO-AS and LinxISA words. Functions without a PTO twin fault "unsupported".
#include <array>
#include <cstring>

#include "linx/block.hpp"
#include "tilesim/pto/engine.hpp"

namespace tilesim::linx {
using namespace blk;
using enc::F;

namespace {

bool pto_elem(DType t, pto::Elem& e) {
  switch (t) {
    case DType::fp16: e = pto::Elem::f16; return true;
    case DType::bf16: e = pto::Elem::bf16; return true;
    case DType::fp32: e = pto::Elem::f32; return true;
    case DType::s8: e = pto::Elem::s8; return true;
    case DType::s16: e = pto::Elem::s16; return true;
    case DType::s32: e = pto::Elem::s32; return true;
    case DType::u8: e = pto::Elem::u8; return true;
    case DType::u16: e = pto::Elem::u16; return true;
    case DType::u32: e = pto::Elem::u32; return true;
    case DType::s64: e = pto::Elem::s64; return true;
    case DType::u64: e = pto::Elem::u64; return true;
    default: return false;
  }
}

// How a TEPL function maps onto its PTO instruction's operands (docs/linx.md#tepl).
enum class Shape {
  Elementwise,  // every tile the LB geometry; tile sources 1 or 2
  RowReduce,    // src0 = LB geometry; dst a column vector (ValidRow x 1)
  ColReduce,    // src0 = LB geometry; dst a row vector (1 x ValidCol)
  Convert,      // src0 = LB geometry in the BSTART type; dst the same shape in the B.DATR type
  Transpose,    // src0 = LB geometry; dst ValidCol x ValidRow
  Reshape,      // src0 = LB geometry; dst the same bytes (same Col, Row from its Size)
  RowExpand,    // dst = LB geometry; src0 a column vector (ValidRow x 1)
  ColExpand,    // dst = LB geometry; src0 a row vector (1 x ValidCol)
  ExpandScalar,  // dst = LB geometry; no tile source, the scalar from B.IOR RegSrc0
  Gather,        // dst and src1 (indices) = LB geometry; src0 the whole tile (Row from its Size)
  Scatter        // src0 and src1 (indexes) = LB geometry; dst the whole tile (Row from its Size)
};

bool shape_of(pto::Kind k, Shape& s, int& nsrc) {
  nsrc = 1;
  switch (k) {
    case pto::Kind::Binary: case pto::Kind::BinaryTmp: nsrc = 2; s = Shape::Elementwise; return true;
    case pto::Kind::Unary: case pto::Kind::UnaryRsqrt: case pto::Kind::Scalar: case pto::Kind::ScalarDiv:
    case pto::Kind::ScalarTmp: s = Shape::Elementwise; return true;
    case pto::Kind::RowReduce: s = Shape::RowReduce; return true;
    case pto::Kind::ColReduce: s = Shape::ColReduce; return true;
    case pto::Kind::Convert: s = Shape::Convert; return true;
    case pto::Kind::Transpose: s = Shape::Transpose; return true;
    case pto::Kind::Reshape: s = Shape::Reshape; return true;
    case pto::Kind::RowExpand: s = Shape::RowExpand; return true;
    case pto::Kind::ColExpand: s = Shape::ColExpand; return true;
    case pto::Kind::ExpandScalar: nsrc = 0; s = Shape::ExpandScalar; return true;
    case pto::Kind::Gather: nsrc = 2; s = Shape::Gather; return true;
    case pto::Kind::Scatter: nsrc = 2; s = Shape::Scatter; return true;
    default: return false;  // no TEPL mapping
  }
}

// B.DATR RMode (spec 31 §1) -> PTO RoundMode (NONE RINT ROUND FLOOR CEIL TRUNC ODD).
uint8_t round_mode(const Ctx& c, unsigned rmode) {
  static const uint8_t kMap[7] = {0 /*NONE*/, 1 /*RNE*/, 5 /*RTZ*/, 3 /*RDN*/, 4 /*RUP*/, 2 /*RNA*/, 6 /*RTO*/};
  if (rmode > 6)
    c.fail("unsupported", "B.DATR RMode " + num(rmode) + " (RHB) has no PTO TCVT RoundMode", "docs/linx.md#tepl");
  return kMap[rmode];
}

pto::TileDesc desc(pto::Elem e, size_t rows, size_t cols, size_t vr, size_t vc, const uint8_t* data, size_t cap,
                   bool row_major = true) {
  pto::TileDesc t;
  t.dtype = e;
  t.row_major = row_major;
  t.rows = static_cast<int32_t>(rows);
  t.cols = static_cast<int32_t>(cols);
  t.valid_row = static_cast<int32_t>(vr);
  t.valid_col = static_cast<int32_t>(vc);
  t.data = const_cast<uint8_t*>(data);  // sources are only read
  t.capacity = cap;
  return t;
}

// The tile the LB values do not describe, for the shapes that have one (docs/linx.md#tepl).
pto::TileDesc other_tile(Shape s, const Geom& g, pto::Elem e, const uint8_t* data, size_t size) {
  const size_t es = pto::elem_size(e);
  switch (s) {
    case Shape::RowReduce: case Shape::RowExpand:  // column vector: ValidRow contiguous elements (DN, Cols 1)
      return desc(e, size / es, 1, g.vr, 1, data, size, false);
    case Shape::ColReduce: case Shape::ColExpand:  // row vector with the block's Col
      return desc(e, size / (g.col * es), g.col, 1, g.vc, data, size);
    case Shape::Transpose: {  // Col = ValidRow rounded up to a 32-byte line
      const size_t per = 32 / es, col = (g.vr + per - 1) / per * per;
      return desc(e, size / (col * es), col, g.vc, g.vr, data, size);
    }
    case Shape::Reshape:
      return desc(e, size / (g.col * es), g.col, g.vr, g.vc, data, size);
    case Shape::Gather: case Shape::Scatter: {  // the whole tile: gather's source, scatter's destination
      const size_t rows = size / (g.col * es);
      return desc(e, rows, g.col, rows, g.col, data, size);
    }
    default:  // Elementwise, Convert: the LB geometry in this tile's own type and Size
      return desc(e, size / (g.col * es), g.col, g.vr, g.vc, data, size);
  }
}

}  // namespace

const pto::InstrInfo* tepl_pto_instr(unsigned topc) {
  // Looked up once per TileOpcode (10 bits): find_instr compares names case-insensitively.
  static const std::array<const pto::InstrInfo*, 1024> table = [] {
    std::array<const pto::InstrInfo*, 1024> t{};
    for (unsigned code = 0; code < t.size(); ++code) {
      const char* n = enc::tepl_name(code);
      if (!n) continue;
      const std::string name = n;
      const pto::InstrInfo* info = pto::find_instr(name == "TTRANSPOSE" ? "TTRANS" : name);
      Shape s;
      int k;
      t[code] = info && shape_of(info->kind, s, k) ? info : nullptr;
    }
    return t;
  }();
  return topc < table.size() ? table[topc] : nullptr;
}

Commit exec_tepl(const Machine::State& s, std::span<const enc::Word> b, long word_index) {
  const unsigned topc = b[0][F::topc];
  const Ctx c{enc::tepl_name(topc), word_index, b};
  const pto::InstrInfo* info = tepl_pto_instr(topc);
  if (!info)
    c.fail("unsupported", std::string("TEPL function ") + c.instr + " (TileOpcode " + num(topc) +
                              ") decodes but is not implemented by tilesim",
           "docs/linx.md#tepl");
  Shape shape = Shape::Elementwise;
  int nsrc = 1;
  shape_of(info->kind, shape, nsrc);
  const bool cvt = shape == Shape::Convert;
  const bool indexed = shape == Shape::Gather || shape == Shape::Scatter;  // B.DATR DataType: the index type
  const Desc d = describe(s, c);
  need_iot(c, d, static_cast<unsigned>(nsrc), true);
  unused_zero(c, d.attr, cvt ? "pad rmode sat" : "pad");
  const unsigned dtc = b[0][F::dt];
  if (!cvt && !indexed && d.attr.datatype != 31 && d.attr.datatype != dtc)
    c.fail("malformed block", std::string("B.DATR DataType ") + type_code(d.attr.datatype).name +
                                  " differs from the BSTART type " + type_code(dtc).name,
           "docs/linx.md#block-words");
  const auto elem_of = [&](unsigned code, const char* role) {
    const TypeCode& tc = type_code(code);
    pto::Elem e;
    if (!tc.known || code == 6 || code == 14 || !pto_elem(tc.dtype, e))
      c.fail("type legality", std::string(role) + " DataType " + tc.name + " is not a type of the PTO instruction " + c.instr,
             "docs/linx.md#tepl");
    return e;
  };
  const pto::Elem e = elem_of(dtc, "BSTART");
  const unsigned dst_code = cvt && d.attr.datatype != 31 ? d.attr.datatype : dtc;
  const pto::Elem de = cvt ? elem_of(dst_code, "B.DATR (TCVT destination)") : e;
  const size_t es = pto::elem_size(e), des = pto::elem_size(de);
  // The index tile's type: B.DATR DataType, else U32 for 4- and 8-byte data, U16 for the others.
  const pto::Elem ie = !indexed ? e
                       : d.attr.datatype != 31 ? elem_of(d.attr.datatype, "B.DATR (index tile)")
                       : es >= 4               ? pto::Elem::u32
                                               : pto::Elem::u16;
  const size_t ies = pto::elem_size(ie);
  const enc::Word& io = *d.iot;
  const size_t size = enc::size_bytes(io[F::size]);
  const bool mode1 = topc >= 32, scalar = mode1 || shape == Shape::ExpandScalar;
  if (scalar && !d.has_ior)  // RegSrc0 `zero` is the scalar 0
    c.fail("malformed block", c.instr + " needs its scalar in B.IOR RegSrc0", "docs/linx.md#tepl");
  const uint8_t round = cvt ? round_mode(c, d.attr.rmode) : 1;
  // Sources (liveness first), then geometry of every tile.
  Source src[2]{};
  if (nsrc >= 1) src[0] = fetch(s, c, io[F::s0], io[F::s0r], "src0");
  if (nsrc == 2) src[1] = fetch(s, c, io[F::s1], io[F::s1r], "src1");
  Commit out;
  release(out, {nsrc >= 1 ? &src[0] : nullptr, nsrc == 2 ? &src[1] : nullptr});
  destination(s, c, out, io[F::dst], size);
  // The LB values describe the destination (element-wise and expand shapes) or src0 (the rest).
  const bool lb_dst = shape == Shape::Elementwise || shape == Shape::RowExpand || shape == Shape::ColExpand ||
                      shape == Shape::ExpandScalar || shape == Shape::Gather;
  const Geom g = lb_dst ? geometry(c, d, size, des, "destination")
                        : geometry(c, d, src[0].slot->size, es, Role("src0", nsrc ? static_cast<int>(src[0].code) : -1));
  if (shape == Shape::Elementwise)
    for (int i = 0; i < nsrc; ++i) {
      const Geom gs = geometry(c, d, src[i].slot->size, es, Role(i ? "src1" : "src0", static_cast<int>(src[i].code)));
      if (gs.row != g.row)
        c.fail("tile geometry", "src" + num(static_cast<uint64_t>(i)) + " has Row " + num(gs.row) +
                                    ", the destination Row " + num(g.row) + "; element-wise functions need them equal",
               "docs/linx.md#tepl");
    }
  const uint64_t pad = pad_code(c, type_code(dst_code).dtype, d.attr.pad);
  // An element-wise result over the whole tile writes every byte: no fill first.
  const bool covers = shape == Shape::Elementwise && g.vr == g.row && g.vc == g.col && size == g.row * g.col * des;
  auto bytes = covers ? std::make_shared<TileBytes>(size) : std::make_shared<TileBytes>(size, 0);
  if (pad != 0 && !covers)
    for (size_t k = 0; k + des <= size; k += des) std::memcpy(bytes->data() + k, &pad, des);
  const pto::TileDesc dst = lb_dst ? desc(de, g.row, g.col, g.vr, g.vc, bytes->data(), size)
                                   : other_tile(shape, g, de, bytes->data(), size);
  pto::TileDesc s0, s1;
  if (nsrc >= 1)
    s0 = lb_dst && shape != Shape::Elementwise ? other_tile(shape, g, e, src[0].slot->bytes->data(), src[0].slot->size)
         : desc(e, src[0].slot->size / (g.col * es), g.col, g.vr, g.vc, src[0].slot->bytes->data(), src[0].slot->size);
  if (nsrc == 2)
    s1 = desc(ie, src[1].slot->size / (g.col * ies), g.col, g.vr, g.vc, src[1].slot->bytes->data(), src[1].slot->size);
  std::vector<uint8_t> scratch;
  pto::TileDesc tmp;
  pto::Call call{info->id};
  call.dst = &dst;
  if (nsrc >= 1) call.src0 = &s0;
  if (nsrc == 2) call.src1 = &s1;
  if (info->kind == pto::Kind::BinaryTmp || info->kind == pto::Kind::ScalarTmp) {
    scratch.assign(size, 0);
    tmp = desc(e, g.row, g.col, g.vr, g.vc, scratch.data(), size);
    call.tmp = &tmp;
  }
  if (cvt) {
    call.round = round;
    call.sat = d.attr.sat ? 0 : -1;  // Sat 1: SaturationMode ON; 0: the form without it (PTO's default)
  }
  if (scalar) {
    const unsigned bits = static_cast<unsigned>(es * 8);
    const uint64_t r = s.regs[d.reg_code(0)];
    call.scalar = bits >= 64 ? r : r & ((uint64_t{1} << bits) - 1);  // truncate_low_bits (engine_ops.json)
  }
  try {
    static const pto::Target& a5 = pto::find_target("a5");  // looked up by name once
    pto::execute(call, a5, pto::Ub{}, pto::Path::Fast);
  } catch (const Fault&) {
    throw;
  } catch (const Error& err) {
    c.fail(err.code() == ErrorCode::Unsupported ? "unsupported" : "illegal operand",
           std::string("the PTO instruction ") + info->name + " (target a5) rejects the operands: " + err.what(), "docs/linx.md#tepl");
  }
  out.push.push_back({static_cast<int>(io[F::dst]), std::move(bytes)});
  return out;
}

}  // namespace tilesim::linx
