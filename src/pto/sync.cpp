// What a PTO instruction means to the pipeline-hazard checker (issue 22, docs/sync.md#pipes): its
// pipe (the PIPE column of tilesim/pto/instructions.hpp, resolved by operand locations for TSTORE,
// TMOV and TEXTRACT), the bytes it reads and writes, and the source site the front end captured.
#include <vector>

#include "pto/instr.hpp"

namespace tilesim::pto::instr {
namespace {

using sync::Buf;

Buf buf_of(uint8_t loc) {
  switch (loc) {
    case kLocMat: return Buf::L1;
    case kLocLeft: return Buf::L0A;
    case kLocRight: return Buf::L0B;
    case kLocAcc: return Buf::L0C;
    case kLocBias: return Buf::BT;
    case kLocScaling:
    case kLocScaleLeft:
    case kLocScaleRight: return Buf::FB;
    default: return Buf::UB;
  }
}

// A tile's whole storage (the 32-byte shadow blocks make a valid-region bound no finer in practice).
// The address a report shows: the buffer offset of a TASSIGN'd tile or of a tile inside the call's
// UB (PTO-AS), else the host address of an auto-mode tile.
sync::Range tile_range(const TileDesc& t, const Ub& ub) {
  uint64_t addr = reinterpret_cast<uintptr_t>(t.data);
  if (t.ub_addr >= 0)
    addr = uint64_t(t.ub_addr);
  else if (t.loc == kLocVec && ub.base != nullptr && t.data >= ub.base && t.data < ub.base + ub.size)
    addr = uint64_t(t.data - ub.base);
  return {buf_of(t.loc), t.data, addr, t.bytes()};
}

// A GlobalTensor's elements as contiguous runs (one per line along the stride-1 dimension), so that
// two views interleaving in memory do not look like one; a view of more than 2^16 runs is taken as
// its hull.
void gm_ranges(const GmDesc& g, bool atomic, std::vector<sync::Range>& out) {
  const size_t es = elem_size(g.dtype);
  int run_dim = -1;
  for (int d = 4; d >= 0; --d)
    if (g.stride[d] == 1 && g.shape[d] > 1 && (run_dim < 0 || g.shape[d] > g.shape[run_dim])) run_dim = d;
  int64_t runs = 1, hull = 0;
  for (int d = 0; d < 5; ++d) {
    if (g.shape[d] <= 0) return;
    hull += (g.shape[d] - 1) * g.stride[d];
    if (d != run_dim) runs *= g.shape[d];
  }
  const uint64_t base = reinterpret_cast<uintptr_t>(g.data);
  auto add = [&](int64_t off, int64_t n) {
    out.push_back({Buf::GM, g.data + off * int64_t(es), base + uint64_t(off) * es, uint64_t(n) * es, atomic});
  };
  if (runs > (1 << 16)) return add(0, hull + 1);
  const int64_t len = run_dim >= 0 ? g.shape[run_dim] : 1;
  int64_t idx[5] = {0, 0, 0, 0, 0};
  for (int64_t r = 0; r < runs; ++r) {
    int64_t off = 0;
    for (int d = 0; d < 5; ++d) off += idx[d] * g.stride[d];
    add(off, len);
    for (int d = 4; d >= 0; --d) {
      if (d == run_dim) continue;
      if (++idx[d] < g.shape[d]) break;
      idx[d] = 0;
    }
  }
}

uint8_t pipe_of(const InstrInfo& info, const Call& call) {
  switch (info.pipe) {
    case PipeRule::V: return sync::kV;
    case PipeRule::M: return sync::kM;
    case PipeRule::MTE2: return sync::kMte2;
    case PipeRule::BySrc: return call.src0 && call.src0->loc == kLocAcc ? sync::kFix : sync::kMte3;
    case PipeRule::ByLocs: break;
  }
  const uint8_t from = call.src0 ? call.src0->loc : kLocVec, to = call.dst ? call.dst->loc : kLocVec;
  if (from == kLocAcc) return sync::kFix;
  if (from == kLocMat) return sync::kMte1;
  if (from == kLocVec && to == kLocMat) return sync::kMte3;
  return sync::kV;
}

}  // namespace

void sync_record(const InstrInfo& info, const Call& call, const Ub& ub) {
  if (info.kind == Kind::Prefetch) return;  // moves nothing
  thread_local std::vector<sync::Range> reads, writes;  // reused: no allocation per call
  reads.clear();
  writes.clear();
  auto rd = [&](const TileDesc* t) {
    if (t != nullptr) reads.push_back(tile_range(*t, ub));
  };
  auto wr = [&](const TileDesc* t) {
    if (t != nullptr) writes.push_back(tile_range(*t, ub));
  };
  rd(call.src0);
  rd(call.src1);
  rd(call.mask);
  rd(call.acc_in);
  rd(call.bias);
  if (info.kind == Kind::Axpy || (info.kind == Kind::MatmulAcc && call.acc_in == nullptr))
    rd(call.dst);  // accumulates into dst
  if (info.kind == Kind::Load && call.gm != nullptr) gm_ranges(*call.gm, false, reads);
  wr(call.dst);
  wr(call.dst_idx);
  wr(call.tmp);  // scratch: the instruction writes it
  if (info.kind == Kind::Store && call.gm != nullptr) gm_ranges(*call.gm, call.atomic != 0, writes);
  sync::access(info.name, pipe_of(info, call), call.site, reads.data(), int(reads.size()),
               writes.data(), int(writes.size()));
}

void sync_record_row_expand(const char* name, const TileDesc& dst, const TileDesc& src0,
                            const TileDesc& src1, const TileDesc* tmp, const Ub& ub,
                            const sync::Site& site) {
  const sync::Range reads[2] = {tile_range(src0, ub), tile_range(src1, ub)};
  sync::Range writes[2] = {tile_range(dst, ub), {}};
  if (tmp != nullptr) writes[1] = tile_range(*tmp, ub);
  sync::access(name, sync::kV, site, reads, 2, writes, tmp != nullptr ? 2 : 1);
}

}  // namespace tilesim::pto::instr
