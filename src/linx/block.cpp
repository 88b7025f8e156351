// Shared descriptor reading and checks of the TMA, ACCCVT and TEPL blocks (spec 31 §1, §2).
#include "linx/block.hpp"

#include <cmath>
#include <string_view>

#include "linx/text.hpp"

namespace tilesim::linx::blk {
using enc::F;
using enc::Op;

std::string num(uint64_t v) { return std::to_string(v); }

void Ctx::fail(const std::string& kind, const std::string& detail, const std::string& spec) const {
  fault(instr, kind, word, text::block_text(block), detail, spec);
}

Desc describe(const Machine::State& s, const Ctx& c) {
  Desc d;
  const enc::Word* prev_iot = nullptr;
  bool last_before_final = false;
  const auto b = c.block;
  for (size_t i = 1; i < b.size(); ++i) {
    const enc::Word& w = b[i];
    switch (w.op) {
      case Op::b_datr: case Op::b_arg: case Op::b_arg_lit:
        if (d.attr.present)
          c.fail("malformed block", "a second B.DATR / B.ARG at word " + num(c.word + static_cast<long>(i)) +
                                        " (at most one a block)", "docs/linx.md#block-words");
        d.attr.present = true;
        if (w.op == Op::b_arg || w[F::canon]) {
          d.attr.arg_unsupported = true;
        } else {
          d.attr.layout = w[F::layout];
          d.attr.datatype = w[F::datatype];
          d.attr.pad = w[F::pad];
          d.attr.rmode = w[F::rmode];
          d.attr.cmode = w[F::cmode];
          d.attr.sat = w[F::sat];
        }
        break;
      case Op::b_dim:
        d.lb[w[F::lb]] = static_cast<uint32_t>((s.regs[w[F::reg]] + w[F::uimm]) & 0xFFFFu);  // [15:0]
        d.lb_set[w[F::lb]] = true;
        break;
      case Op::b_ior:
        if (w[F::rd] != 0)
          c.fail("malformed block", "B.IOR at word " + num(c.word + static_cast<long>(i)) + " has RegDst " +
                                        enc::reg_name(w[F::rd]) + "; it must be zero in this block",
                 "docs/linx.md#block-words");
        if (!d.has_ior) d.regs = {w[F::rs0], w[F::rs1], w[F::rs2]};
        d.has_ior = true;
        break;
      case Op::b_iot2: case Op::b_iot1: case Op::b_iot0:
        if (prev_iot && (*prev_iot)[F::last]) last_before_final = true;
        if (!d.iot) d.iot = &w;
        prev_iot = &w;
        ++d.iot_count;
        break;
      default:
        c.fail("malformed block", text::raw_line(w) + " has no place in a " + c.instr + " block", "docs/linx.md#block-words");
    }
  }
  if (d.attr.arg_unsupported) {
    for (size_t i = 1; i < b.size(); ++i)
      if (b[i].op == Op::b_arg || b[i].op == Op::b_arg_lit)
        c.fail("unsupported", text::raw_line(b[i]) + " decodes but has no v0.56 semantics tilesim implements",
               "docs/linx.md#block-words");
  }
  // (An earlier B.IOT with 'last' is the first fault in word order, before a final one without.)
  if (last_before_final) c.fail("malformed block", "'last' on a B.IOT before the final one", "docs/linx.md#block-words");
  if (prev_iot && !(*prev_iot)[F::last]) c.fail("malformed block", "the final B.IOT lacks 'last'", "docs/linx.md#block-words");
  return d;
}

void need_iot(const Ctx& c, const Desc& d, unsigned sources, bool destination) {
  const char* forms[3] = {"B.IOT last, ->DST<Size>", "B.IOT SRC, last[, ->DST<Size>]", "B.IOT SRC0, SRC1, last, ->DST<Size>"};
  if (!d.iot_count) c.fail("malformed block", c.instr + " needs " + forms[sources] + "; the block has no B.IOT", "docs/linx.md#block-words");
  if (d.iot_count > 1)
    c.fail("unsupported", c.instr + " with " + num(d.iot_count) +
                              " B.IOT words (a second destination or more sources) is not supported",
           "docs/linx.md#block-words");
  const enc::Word& w = *d.iot;
  const unsigned have = w.op == Op::b_iot2 ? 2 : w.op == Op::b_iot1 ? 1 : 0;
  if (have != sources)
    c.fail("malformed block", c.instr + " needs " + forms[sources] + "; its B.IOT has " + num(have) + " source(s)", "docs/linx.md#block-words");
  const bool has_dst = w[F::dst] != enc::kDstNone;
  if (has_dst != destination)
    c.fail("malformed block", c.instr + (destination ? " needs a destination (->DST<Size>)" : " takes no destination") +
                                  ", its B.IOT has Dst " + (has_dst ? enc::dst_name(w[F::dst]) : "none"),
           "docs/linx.md#block-words");
}

void unused_zero(const Ctx& c, const Attr& a, const char* used) {
  // `used`: the field names the block reads, separated by spaces (looked up only for a non-zero
  // field: this runs for every block).
  const auto is_used = [&](std::string_view n) {
    const std::string_view u(used);
    for (size_t p = u.find(n); p != std::string_view::npos; p = u.find(n, p + 1))
      if ((p == 0 || u[p - 1] == ' ') && (p + n.size() == u.size() || u[p + n.size()] == ' ')) return true;
    return false;
  };
  const std::pair<const char*, unsigned> f[] = {{"layout", a.layout}, {"pad", a.pad == 3 && !a.present ? 0 : a.pad},
                                                {"rmode", a.rmode}, {"cmode", a.cmode}, {"sat", a.sat}};
  for (const auto& [n, v] : f)
    if (v != 0 && !is_used(n))
      c.fail("malformed block", std::string("B.DATR ") + n + " = " + num(v) + " is not used by " + c.instr +
                                    " and must be 0",
             "docs/linx.md#block-words");
}

unsigned elem_bits(const Ctx& c, unsigned dt, const char* role) {
  const TypeCode& t = type_code(dt);
  if (!t.known || dt == 6 || dt == 14)
    c.fail("unsupported", std::string(role) + " DataType " + t.name + " is not supported by " + c.instr, "docs/linx.md#block-words");
  return formats::info(t.dtype).storage_bits;
}

size_t elem_bytes(const Ctx& c, unsigned dt, const char* role) {
  const TypeCode& t = type_code(dt);
  if (!t.known || dt == 6 || dt == 14)
    c.fail("unsupported", std::string(role) + " DataType " + t.name + " is not supported by " + c.instr, "docs/linx.md#block-words");
  const unsigned bits = formats::info(t.dtype).storage_bits;
  if (bits < 8)
    c.fail("unsupported", std::string(role) + " DataType " + t.name + " (4-bit) is not supported by " + c.instr +
                              " in tilesim yet",
           "docs/linx.md#block-words");
  return bits / 8;
}

std::string Role::text() const { return code < 0 ? what : std::string(what) + " " + enc::tile_text(static_cast<unsigned>(code)); }

Geom geometry(const Ctx& c, const Desc& d, size_t size, size_t esize, const Role& role) {
  return geometry_bits(c, d, size, static_cast<unsigned>(esize * 8), role);
}

Geom geometry_bits(const Ctx& c, const Desc& d, size_t size, unsigned bits, const Role& role) {
  Geom g{};
  g.vc = d.lb[0];
  g.vr = d.lb[1];
  g.col = d.lb_set[2] ? d.lb[2] : g.vc;
  g.esize = bits / 8;
  g.bits = bits;
  if (!g.vc || !g.vr || !g.col)
    c.fail("dimension zero", "ValidCol=LB0=" + num(g.vc) + ", ValidRow=LB1=" + num(g.vr) + ", Col=LB2=" + num(g.col) +
                                 "; a dimension of 0 faults",
           "docs/linx.md#block-words");
  if (bits < 8 && (g.col % 2 || g.vc % 2))
    c.fail("tile geometry", role.text() + ": a 4-bit tile needs Col and ValidCol even (whole bytes), got Col " + num(g.col) +
                                ", ValidCol " + num(g.vc),
           "docs/linx.md#tload-tstore-tmov");
  g.row = size * 8 / (g.col * bits);
  if (g.vc > g.col)
    c.fail("tile geometry", role.text() + ": ValidCol " + num(g.vc) + " > Col " + num(g.col), "docs/linx.md#block-words");
  if (g.vr > g.row)
    c.fail("tile geometry", role.text() + ": ValidRow " + num(g.vr) + " > Row " + num(g.row) + " (Size " + num(size) +
                                " / (Col " + num(g.col) + (bits < 8 ? " * 4 bits / 8" : " * " + num(g.esize) + " bytes") + "))",
           "docs/linx.md#block-words");
  return g;
}

Source fetch(const Machine::State& s, const Ctx& c, unsigned code, bool reuse, const char* role) {
  const int q = static_cast<int>(code >> 4);
  const size_t pos = code & 15;
  const auto& queue = s.queues[static_cast<size_t>(q)];
  if (pos >= queue.size())
    c.fail("tile never written", std::string(role) + " " + enc::tile_text(code) + ": queue " + queue_name(q) + " holds only " +
                                     num(queue.size()) + " tile(s)",
           "docs/linx.md#machine");
  const TileSlot& t = queue[pos];
  if (!t.live)
    c.fail("tile released", std::string(role) + " " + enc::tile_text(code) + " was released and cannot be read",
           "docs/linx.md#machine");
  return {&t, q, pos, reuse, code};
}

int destination(const Machine::State& s, const Ctx& c, const Commit& commit, unsigned dst, size_t size) {
  const LinxProfile& p = *s.profile;
  if (dst > 3)
    c.fail("unsupported", std::string("destination ") + enc::dst_name(dst) + " is not supported by " + c.instr +
                              " (T, U, M, N)",
           "docs/linx.md#block-words");
  if (size < p.min_tile || size > p.max_tile)
    c.fail("tile size", "destination size " + num(size) + " B is outside " + num(p.min_tile) + " B .. " +
                            num(p.max_tile) + " B (profile " + p.name + ")",
           "docs/linx.md#machine");
  // Live bytes after this block's releases and pushes (the 17th-oldest of a full queue leaves).
  // (From the machine's running count: walking every queue was ~4 % of a small TEPL block.)
  const auto released_before = [&](const std::pair<int, size_t>* end, int q, size_t i) {
    for (const auto* r = commit.release.begin(); r != end; ++r)
      if (r->first == q && r->second == i) return true;
    return false;
  };
  size_t live = s.live_bytes;
  for (const auto* r = commit.release.begin(); r != commit.release.end(); ++r) {
    const TileSlot& t = s.queues[static_cast<size_t>(r->first)][r->second];
    if (t.live && !released_before(r, r->first, r->second)) live -= t.size;  // a tile named twice counts once
  }
  const auto& dq = s.queues[dst];
  if (dq.size() == p.queue_depth && dq.back().live &&
      !released_before(commit.release.end(), static_cast<int>(dst), dq.size() - 1))
    live -= dq.back().size;
  for (const auto& pu : commit.push) live += pu.bytes->size();
  if (live + size > p.live_capacity)
    c.fail("capacity", "live tiles would hold " + num(live + size) + " bytes, more than the " + num(p.live_capacity) +
                           "-byte capacity",
           "docs/linx.md#machine");
  return static_cast<int>(dst);
}

uint64_t pad_code(const Ctx& c, DType t, unsigned pad) {
  const auto& in = formats::info(t);
  switch (pad) {
    case 0: case 3: return 0;  // Zero = +0; Null = zero bytes (tilesim's choice, spec 31 §1)
    case 1: case 2: {
      const bool max = pad == 1;
      const unsigned bits = in.storage_bits;
      const uint64_t all = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      if (in.kind == formats::Kind::Float) return formats::encode(max ? in.max_finite : -in.max_finite, t);
      if (in.kind == formats::Kind::Unsigned) return max ? all : 0;
      return max ? (all >> 1) : (uint64_t{1} << (bits - 1));
    }
    default:
      c.fail("unsupported", "PadValue " + num(pad) + " is reserved (0 Zero, 1 Max, 2 Min, 3 Null)", "docs/linx.md#block-words");
  }
}

void mem_fault(const Machine::State& s, const Ctx& c, u128 addr, u128 n, const std::string& what) {
  c.fail("memory bounds", what + ": bytes [" + num(static_cast<uint64_t>(addr)) + ", +" + num(static_cast<uint64_t>(n)) +
                                ") lie outside the " + num(s.mem.size()) + "-byte memory",
           "docs/linx.md#block-words");
}

void release(Commit& out, std::initializer_list<const Source*> srcs) {
  for (const Source* src : srcs)
    if (src && !src->reuse) out.release.emplace_back(src->queue, src->pos);
}

}  // namespace tilesim::linx::blk
