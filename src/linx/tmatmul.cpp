// TMATMUL, TMATMUL.BIAS, TMATMUL.ACC (seed 002, spec 30 §1–§4): block legality, operand fetch
// from the tile queues, and the shared GEMM core. Every check runs before anything is computed;
// the caller applies the returned Commit, so a fault leaves the machine unchanged.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "linx/gemm_core.hpp"
#include "linx/layout.hpp"
#include "linx/machine_state.hpp"
#include "linx/text.hpp"

namespace tilesim::linx {
namespace {
using enc::F;
using enc::Op;

struct Ctx {
  std::string instr;
  long word;
  std::span<const enc::Word> block;  // rendered as text only when a fault is raised
  [[noreturn]] void fail(const std::string& kind, const std::string& detail, const std::string& spec) const {
    fault(instr, kind, word, text::block_text(block), detail, spec);
  }
};

std::string type_text(DType t) { return std::string(formats::name(t)); }

struct Source {
  const TileSlot* slot;
  int queue;
  size_t pos;
  bool reuse;
};

Source fetch(const Machine::State& s, const Ctx& c, unsigned code, bool reuse, const char* role) {
  const int q = static_cast<int>(code >> 4);
  const size_t pos = code & 15;
  const std::string name = enc::tile_text(code);
  const auto& queue = s.queues[static_cast<size_t>(q)];
  if (pos >= queue.size())
    c.fail("tile never written", std::string(role) + " " + name + ": queue " + queue_name(q) + " holds only " +
                                     std::to_string(queue.size()) + " tile(s)",
           "docs/linx.md#machine");
  const TileSlot& t = queue[pos];
  if (!t.live) c.fail("tile released", std::string(role) + " " + name + " was released and cannot be read", "docs/linx.md#machine");
  return {&t, q, pos, reuse};
}

void need_size(const Ctx& c, const Source& src, const char* role, unsigned code, size_t bytes, const std::string& what) {
  if (src.slot->size < bytes)
    c.fail("tile too small", std::string(role) + " " + enc::tile_text(code) + " holds " + std::to_string(src.slot->size) +
                                 " bytes, " + what + " needs " + std::to_string(bytes),
           "docs/linx.md#tile-layouts");
}

// A tile as the core reads it in place (spec 30 §4): A (NZ) and B (ZN) keep K0 elements along k
// contiguous per line, so element (x, k) is at (k / K0) * (padded x count * K0) + x * K0 + k % K0.
// 32-bit types are already the core's domain and are read straight from the tile; the others are
// decoded first, element for element in tile order, into a per-thread buffer (slot 0: A, 1: B).
core::PanelView fetch_view(const Source& src, size_t rows, size_t cols, DType t, Layout l, int slot) {
  const LayoutMap m(rows, cols, t, l);
  const void* base = src.slot->bytes->data();
  if (!(formats::info(t).storage_bits == 32 && t != DType::tf32 && t != DType::hf32)) {
    thread_local std::vector<uint32_t> bufs[2];
    std::vector<uint32_t>& flat = bufs[slot];
    if (flat.size() < m.elements) flat.resize(m.elements);
    core::decode(src.slot->bytes->data(), t, 0, m.elements, flat.data());
    base = flat.data();
  }
  const size_t xp = l == Layout::nz ? m.rows_p : m.cols_p;
  return core::PanelView{base, m.k0, xp * m.k0};
}

}  // namespace

Commit exec_cube(Machine::State& s, std::span<const enc::Word> b, long word_index) {
  const unsigned fn = b[0][F::fn];
  Ctx c{enc::cube_fn_name(fn), word_index, b};
  if (fn > 2)
    c.fail("unsupported", std::string("CUBE function ") + c.instr + " (Fn " + std::to_string(fn) +
                              ") is not implemented; only TMATMUL, TMATMUL.BIAS, TMATMUL.ACC (Fn 0, 1, 2) execute",
           "docs/linx.md#cube-blocks");
  // ---- block structure (spec 30 §1 "malformed block") ----
  const enc::Word* datr = nullptr;
  std::array<uint32_t, 3> lb = {1, 1, 1};  // reset to 1 at each block start
  std::vector<const enc::Word*> iots;
  for (size_t i = 1; i < b.size(); ++i) {
    const enc::Word& w = b[i];
    switch (w.op) {
      case Op::b_datr:
        if (datr) c.fail("malformed block", "two B.DATR words in one block", "docs/linx.md#cube-blocks");
        if (w[F::sat] || w[F::rmode] || w[F::cmode] || w[F::pad] || w[F::layout])
          c.fail("malformed block",
                 "B.DATR fields other than DataType must be 0 for " + c.instr + ", got sat=" + std::to_string(w[F::sat]) +
                     " rmode=" + std::to_string(w[F::rmode]) + " cmode=" + std::to_string(w[F::cmode]) +
                     " pad=" + std::to_string(w[F::pad]) + " layout=" + std::to_string(w[F::layout]),
                 "docs/linx.md#cube-blocks");
        datr = &w;
        break;
      case Op::b_dim:
        lb[w[F::lb]] = static_cast<uint32_t>((s.regs[w[F::reg]] + w[F::uimm]) & 0xFFFFu);  // [15:0]
        break;
      case Op::b_iot2: case Op::b_iot1: case Op::b_iot0:
        iots.push_back(&w);
        break;
      default:
        c.fail("malformed block", text::raw_line(w) + " has no place in a CUBE template block", "docs/linx.md#cube-blocks");
    }
  }
  const bool bias = fn == 1;
  const std::string need = bias ? "B.IOT A, B then B.IOT Bias, last, ->ACC<Size>" : "B.IOT A, B, last, ->ACC<Size>";
  const size_t want = bias ? 2 : 1;
  if (iots.size() != want)
    c.fail("malformed block", c.instr + " needs " + need + "; got " + std::to_string(iots.size()) + " B.IOT word(s)", "docs/linx.md#cube-blocks");
  if (iots[0]->op != Op::b_iot2 || (bias && iots[1]->op != Op::b_iot1))
    c.fail("malformed block", c.instr + " needs " + need + "; the B.IOT words have the wrong number of sources", "docs/linx.md#cube-blocks");
  for (size_t i = 0; i < iots.size(); ++i) {
    const bool final = i + 1 == iots.size();
    if ((*iots[i])[F::last] != (final ? 1u : 0u))
      c.fail("malformed block", final ? "the final B.IOT lacks 'last'" : "'last' on a B.IOT before the final one", "docs/linx.md#cube-blocks");
    const unsigned d = (*iots[i])[F::dst];
    if (final && d != enc::kDstAcc)
      c.fail("malformed block",
             std::string("destination must be ACC (results go only to ACC), got ") +
                 (d == enc::kDstNone ? "none" : enc::dst_name(d)),
             "docs/linx.md#cube-blocks");
    if (!final && d != enc::kDstNone)
      c.fail("malformed block", std::string("destination ") + enc::dst_name(d) + " on a B.IOT before the final one", "docs/linx.md#cube-blocks");
  }
  const enc::Word& io_ab = *iots[0];
  const enc::Word& io_last = *iots.back();
  // ---- types (spec 30 §2, §3) ----
  const TypeCode& ca = type_code(b[0][F::dt]);
  const TypeCode& cb = datr ? type_code((*datr)[F::datatype]) : ca;
  for (const TypeCode* t : std::initializer_list<const TypeCode*>{&ca, &cb})
    if (!t->matmul)
      c.fail("type legality",
             std::string(t == &ca ? "TypeA " : "TypeB ") + t->name +
                 " is not a TMATMUL operand type (legal: the seed's b64/b32/b16/b8/b4 table; HiF8, E8M0, HiF4x2 are not)",
             "docs/linx.md#data-types");
  const DType ta = ca.dtype, tb = cb.dtype;
  if (acc_type(ta) != acc_type(tb))
    c.fail("type legality",
           std::string("TypeA ") + ca.name + " and TypeB " + cb.name +
               " are in different classes (floating / signed / unsigned); a mix must stay within one class",
           "docs/linx.md#data-types");
  const DType tacc = acc_type(ta);
  // ---- the profile's accumulation rule for this class (spec 30 §1 "Profile", §3) ----
  const LinxProfile& prof = *s.profile;
  const core::Rules rules{prof.float_order, prof.int_overflow};
  if (const std::string why = core::unsupported(rules, core::domain_of(ta)); !why.empty())
    c.fail("unsupported", std::string("profile ") + prof.name + ": " + why, "docs/linx.md#semantics");
  // ---- dimensions and ACC capacity (spec 30 §1) ----
  const size_t M = lb[0], N = lb[1], K = lb[2];
  if (!M || !N || !K)
    c.fail("dimension zero", "M=LB0=" + std::to_string(M) + ", N=LB1=" + std::to_string(N) + ", K=LB2=" + std::to_string(K) +
                                 "; a dimension of 0 faults",
           "docs/linx.md#cube-blocks");
  const size_t cap = enc::size_bytes(io_last[F::size]);
  if (M * N * 4 > cap)
    c.fail("capacity", "result M*N*4 = " + std::to_string(M) + "*" + std::to_string(N) + "*4 = " + std::to_string(M * N * 4) +
                           " bytes exceeds ->ACC<" + enc::size_text(io_last[F::size]) + "> = " + std::to_string(cap) + " bytes",
           "docs/linx.md#cube-blocks");
  // ---- sources (spec 30 §1, §4) ----
  // every source's liveness before any size (the documented fault order: liveness -> sizes)
  const Source sa = fetch(s, c, io_ab[F::s0], io_ab[F::s0r], "A");
  const Source sb = fetch(s, c, io_ab[F::s1], io_ab[F::s1r], "B");
  std::optional<Source> sbias;
  if (bias) sbias = fetch(s, c, io_last[F::s0], io_last[F::s0r], "Bias");
  need_size(c, sa, "A", io_ab[F::s0], LayoutMap(M, K, ta, Layout::nz).bytes,
            std::to_string(M) + "x" + std::to_string(K) + " " + type_text(ta) + " in NZ (padded)");
  need_size(c, sb, "B", io_ab[F::s1], LayoutMap(K, N, tb, Layout::zn).bytes,
            std::to_string(K) + "x" + std::to_string(N) + " " + type_text(tb) + " in ZN (padded)");
  if (bias) need_size(c, *sbias, "Bias", io_last[F::s0], N * 4, "1x" + std::to_string(N) + " " + type_text(tacc));
  if (fn == 2) {  // TMATMUL.ACC (spec 30 §3)
    const AccView& a = s.acc;
    if (!a.valid && a.released_at >= 0)
      c.fail("ACC released", "ACC released by ACCCVT at block " + std::to_string(a.released_at), "docs/linx.md#acccvt");
    if (!a.valid) c.fail("ACC mismatch", "ACC holds no result to accumulate onto", "docs/linx.md#cube-blocks");
    if (a.m != M || a.n != N || a.type != tacc)
      c.fail("ACC mismatch",
             "ACC holds " + std::to_string(a.m) + "x" + std::to_string(a.n) + " " + type_text(a.type) + ", the block needs " +
                 std::to_string(M) + "x" + std::to_string(N) + " " + type_text(tacc),
             "docs/linx.md#cube-blocks");
  }
  // ---- compute (the one GEMM core) ----
  const core::PanelView A = fetch_view(sa, M, K, ta, Layout::nz, 0);
  const core::PanelView B = fetch_view(sb, K, N, tb, Layout::zn, 1);
  Commit out;
  out.acc_set = true;
  out.acc.valid = true;
  out.acc.m = M;
  out.acc.n = N;
  out.acc.type = tacc;
  // Every check has passed and nothing below can fail: the result takes over ACC's buffer (the
  // chains of .ACC start from its values, in place; the others overwrite every element), or the
  // buffer of a released ACC, instead of copying or zero-filling one.
  out.acc.data = std::move(s.acc.data.empty() ? s.acc_spare : s.acc.data);
  s.acc.data.clear();
  s.acc_spare.clear();
  s.acc.valid = false;
  out.acc.data.resize(M * N);
  core::run_views(core::domain_of(ta), A, B, bias ? sbias->slot->bytes->data() : nullptr,
                  fn == 2 ? out.acc.data.data() : nullptr, out.acc.data.data(), M, N, K, rules);
  // Sources without .reuse are released when the block commits (spec 30 §1 "Reuse").
  for (const Source* src : std::initializer_list<const Source*>{&sa, &sb, sbias ? &*sbias : nullptr})
    if (src && !src->reuse) out.release.emplace_back(src->queue, src->pos);
  return out;
}

}  // namespace tilesim::linx
