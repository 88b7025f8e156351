// BSTART.TEPL (spec 31 §2): a TEPL function is the PTO instruction of the same name. The block's
// tiles become PTO tile descriptors (row-major, §1's geometry) and the PTO instruction table runs
// them on target a5 (spec 31 §2's decision) — one definition of every op, reached from PTO C++,
// PTO-AS and LinxISA words. Functions without a PTO twin that tilesim runs fault "unsupported".
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

// The PTO operand kinds a TEPL function runs with here, and its number of tile sources.
int sources_of(pto::Kind k) {
  switch (k) {
    case pto::Kind::Binary: case pto::Kind::BinaryTmp: return 2;
    case pto::Kind::Unary: case pto::Kind::UnaryRsqrt: case pto::Kind::Scalar: case pto::Kind::ScalarDiv:
    case pto::Kind::ScalarTmp: return 1;
    default: return -1;  // not run through TEPL yet
  }
}

}  // namespace

const pto::InstrInfo* tepl_pto_instr(unsigned topc) {
  const pto::InstrInfo* info = pto::find_instr(enc::tepl_name(topc));
  return info && sources_of(info->kind) >= 0 ? info : nullptr;
}

Commit exec_tepl(const Machine::State& s, std::span<const enc::Word> b, long word_index) {
  const unsigned topc = b[0][F::topc];
  const Ctx c{enc::tepl_name(topc), word_index, b};
  const pto::InstrInfo* info = tepl_pto_instr(topc);
  if (!info)
    c.fail("unsupported", std::string("TEPL function ") + c.instr + " (TileOpcode " + num(topc) +
                              ") decodes but is not implemented by tilesim",
           "docs/linx.md#tepl");
  const Desc d = describe(s, c);
  const int nsrc = sources_of(info->kind);
  need_iot(c, d, static_cast<unsigned>(nsrc), true);
  unused_zero(c, d.attr, "pad");
  const unsigned dtc = b[0][F::dt];
  if (d.attr.datatype != 31 && d.attr.datatype != dtc)
    c.fail("malformed block", std::string("B.DATR DataType ") + type_code(d.attr.datatype).name +
                                  " differs from the BSTART type " + type_code(dtc).name,
           "docs/linx.md#block-words");
  const TypeCode& tc = type_code(dtc);
  pto::Elem e;
  if (!tc.known || dtc == 6 || dtc == 14 || !pto_elem(tc.dtype, e))
    c.fail("type legality", std::string("DataType ") + tc.name + " is not a type of the PTO instruction " + c.instr,
           "docs/linx.md#tepl");
  const size_t es = pto::elem_size(e);
  const enc::Word& io = *d.iots[0];
  const size_t size = enc::size_bytes(io[F::size]);
  const bool mode1 = topc >= 32;
  if (mode1 && !d.has_ior)  // RegSrc0 `zero` is the scalar 0
    c.fail("malformed block", c.instr + " (mode 1) needs its scalar in B.IOR RegSrc0", "docs/linx.md#tepl");
  // Sources (liveness first), then geometry of every tile.
  Source src[2]{};
  src[0] = fetch(s, c, io[F::s0], io[F::s0r], "src0");
  if (nsrc == 2) src[1] = fetch(s, c, io[F::s1], io[F::s1r], "src1");
  Commit out;
  release(out, {&src[0], nsrc == 2 ? &src[1] : nullptr});
  destination(s, c, out, io[F::dst], size);
  const Geom gd = geometry(c, d, size, es, "destination");
  Geom gs[2];
  for (int i = 0; i < nsrc; ++i) {
    gs[i] = geometry(c, d, src[i].slot->size, es, "src" + num(static_cast<uint64_t>(i)) + " " + enc::tile_text(src[i].code));
    if (gs[i].row != gd.row)
      c.fail("tile geometry", "src" + num(static_cast<uint64_t>(i)) + " has Row " + num(gs[i].row) +
                                  ", the destination Row " + num(gd.row) + "; element-wise functions need them equal",
             "docs/linx.md#tepl");
  }
  const uint64_t pad = pad_code(c, tc.dtype, d.attr.pad);
  auto bytes = std::make_shared<std::vector<uint8_t>>(size, 0);
  if (pad != 0)
    for (size_t k = 0; k + es <= size; k += es) std::memcpy(bytes->data() + k, &pad, es);
  const auto desc = [&](const uint8_t* data, size_t cap, const Geom& g) {
    pto::TileDesc t;
    t.dtype = e;
    t.rows = static_cast<int32_t>(g.row);
    t.cols = static_cast<int32_t>(g.col);
    t.valid_row = static_cast<int32_t>(g.vr);
    t.valid_col = static_cast<int32_t>(g.vc);
    t.data = const_cast<uint8_t*>(data);  // sources are only read
    t.capacity = cap;
    return t;
  };
  const pto::TileDesc dst = desc(bytes->data(), size, gd);
  pto::TileDesc s0 = desc(src[0].slot->bytes->data(), src[0].slot->size, gs[0]);
  pto::TileDesc s1;
  if (nsrc == 2) s1 = desc(src[1].slot->bytes->data(), src[1].slot->size, gs[1]);
  std::vector<uint8_t> scratch;
  pto::TileDesc tmp;
  pto::Call call{info->id};
  call.dst = &dst;
  call.src0 = &s0;
  if (nsrc == 2) call.src1 = &s1;
  if (info->kind == pto::Kind::BinaryTmp || info->kind == pto::Kind::ScalarTmp) {
    scratch.assign(size, 0);
    tmp = desc(scratch.data(), size, gd);
    call.tmp = &tmp;
  }
  if (mode1) {
    const unsigned bits = static_cast<unsigned>(es * 8);
    const uint64_t r = s.regs[d.reg_code(0)];
    call.scalar = bits >= 64 ? r : r & ((uint64_t{1} << bits) - 1);  // truncate_low_bits (engine_ops.json)
  }
  try {
    const pto::Target& t = pto::find_target("a5");
    pto::execute(call, t, pto::Ub{}, pto::Path::Fast);
  } catch (const Fault&) {
    throw;
  } catch (const Error& err) {
    c.fail(err.code() == ErrorCode::Unsupported ? "unsupported" : "illegal operand",
           std::string("the PTO instruction ") + c.instr + " (target a5) rejects the operands: " + err.what(), "docs/linx.md#tepl");
  }
  out.push.push_back({static_cast<int>(io[F::dst]), std::move(bytes)});
  return out;
}

}  // namespace tilesim::linx
