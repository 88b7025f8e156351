// DataCopy (count form, DataCopyParams form) and DataCopyPad (spec 41 §2): GM <-> UB and UB <-> UB.
// Every check comes before any byte moves: UB operands against the core's UB and the tensor's own
// extent, GM operands against the tensor's extent and their GmAlloc block. Overlapping copies read
// everything first.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "ops/elementwise.hpp"
#include "tilesim/ascendc/engine.hpp"
#include "tilesim/ascendc/vector.hpp"
#include "tilesim/ascendc/sync.hpp"
#include "tilesim/error.hpp"

namespace tilesim::ascendc {

using std::to_string;

namespace {

constexpr const char* kDocCopy = "docs/ascendc.md#datacopy";
constexpr const char* kDocPad = "docs/ascendc.md#datacopypad";

// Host bytes of [off, off + bytes) of an operand, checked (Bounds) against its extent.
uint8_t* bytes_at(const MemRef& r, uint64_t off, uint64_t bytes, unsigned es, const char* api,
                  const char* operand) {
  const uint64_t cap = r.elems > UINT64_MAX / es ? UINT64_MAX : r.elems * es;
  if (off > cap || bytes > cap - off)
    raise(ErrorCode::Bounds, api,
          std::string(operand) + ": bytes [" + to_string(off) + ", " + to_string(off + bytes) +
              ") of the tensor are past its " + to_string(cap) + " bytes",
          kDocCopy);
  if (r.ub) return bytes ? ub_bytes(r.addr + off, bytes, api, operand) : nullptr;
  if (r.gm_end && (r.gm + off > r.gm_end || bytes > static_cast<uint64_t>(r.gm_end - (r.gm + off))))
    raise(ErrorCode::Bounds, api,
          std::string(operand) + ": GM bytes [" + to_string(off) + ", " + to_string(off + bytes) +
              ") from the tensor's start run past the end of its GmAlloc block (" +
              to_string(r.gm_end - r.gm) + " bytes left)",
          "docs/ascendc.md#gm");
  return r.gm + off;
}

void ub_aligned(const MemRef& r, const char* api, const char* operand, const char* doc) {
  if (r.ub && r.addr % 32 != 0)
    raise(ErrorCode::Constraint, api,
          std::string(operand) + ": UB address " + to_string(r.addr) + " must be 32-byte aligned", doc);
}

bool overlaps(const uint8_t* a, uint64_t an, const uint8_t* b, uint64_t bn) {
  const auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return an && bn && x < y + bn && y < x + an;
}

// A store of n bytes into GM: a copy, or under SetAtomicAdd<T> GM = GM + value in T (spec 15 add).
// Blocks run on threads at once, so the read-add-write of an atomic store holds a lock: without
// it two blocks' adds to the same bytes could lose one (seen under ASan: 4 blocks adding 1.5 to
// 1.0 gave 5.5, not 7). The blocks' order stays unspecified, as on the hardware.
std::mutex g_atomic_gm;
void store_gm(uint8_t* d, const uint8_t* s, uint64_t n) {
  const int t = core().atomic_add;
  if (t < 0) return (void)std::memcpy(d, s, n);
  const DType dt = static_cast<DType>(t);
  const std::lock_guard<std::mutex> lock(g_atomic_gm);
  ops::binary(ops::Op::add, dt, d, s, d, n / (formats::info(dt).storage_bits / 8));
}

// Runs (dst offset, src offset, bytes) copies after staging the source when it overlaps dst.
struct Span {
  uint64_t d, s, n;
};
void move_spans(uint8_t* d, const uint8_t* s, uint64_t s_extent, uint64_t d_extent, const std::vector<Span>& spans,
                bool to_gm) {
  std::vector<uint8_t> staged;
  if (overlaps(d, d_extent, s, s_extent)) {
    staged.assign(s, s + s_extent);
    s = staged.data();
  }
  for (const Span& sp : spans) {
    if (to_gm)
      store_gm(d + sp.d, s + sp.s, sp.n);
    else
      std::memcpy(d + sp.d, s + sp.s, sp.n);
  }
}

// ---- the pipeline-hazard checker's view (issue 22): one range per contiguous burst ----

sync::Range mem_range(const MemRef& r, uint64_t off, uint64_t n) {
  return r.ub ? ub_range(r.addr + off, n) : gm_range(r.gm + off, n, core().atomic_add >= 0);
}

// A copy of bursts (dst offset, src offset, bytes): each burst is one range of each side; a copy of
// more than kMaxBursts bursts is recorded as the hulls.
constexpr size_t kMaxBursts = 64;
void record_copy(const char* api, OtherApi family, const MemRef& dst, const MemRef& src, const std::vector<Span>& spans,
                 uint64_t d_ext, uint64_t s_ext) {
  const uint8_t pipe = pipe_of(pipe_rule(family), src.ub, dst.ub);
  std::vector<sync::Range> r, w;
  if (spans.size() > kMaxBursts) {
    r.push_back(mem_range(src, 0, s_ext));
    w.push_back(mem_range(dst, 0, d_ext));
  } else {
    for (const Span& sp : spans) {
      r.push_back(mem_range(src, sp.s, sp.n));
      w.push_back(mem_range(dst, sp.d, sp.n));
    }
  }
  record(api, pipe, r.data(), int(r.size()), w.data(), int(w.size()));
}

}  // namespace

void data_copy(const MemRef& dst, const MemRef& src, uint64_t count, unsigned es) {
  const char* api = "DataCopy";
  if ((count * es) % 32 != 0)
    raise(ErrorCode::Constraint, api,
          "count * sizeof(T) must be a multiple of 32 bytes, got " + to_string(count) + " * " + to_string(es),
          kDocCopy);
  ub_aligned(dst, api, "dst", kDocCopy);
  ub_aligned(src, api, "src", kDocCopy);
  const uint64_t n = count * es;
  uint8_t* d = bytes_at(dst, 0, n, es, api, "dst");
  const uint8_t* s = bytes_at(src, 0, n, es, api, "src");
  if (t_sync) [[unlikely]]
    record_copy(api, OtherApi::DataCopy, dst, src, {{0, 0, n}}, n, n);
  if (n && !dst.ub && src.ub)
    store_gm(d, s, n);
  else if (n)
    std::memmove(d, s, n);
}

void data_copy_blocks(const MemRef& dst, const MemRef& src, const CopyBlocks& p, unsigned es) {
  const char* api = "DataCopy";
  if (p.block_count < 1 || p.block_count > 4095)
    raise(ErrorCode::Constraint, api, "blockCount must be in [1, 4095], got " + to_string(p.block_count), kDocCopy);
  if (p.block_len < 1)
    raise(ErrorCode::Constraint, api, "blockLen (32-byte datablocks per block) must be at least 1, got 0", kDocCopy);
  ub_aligned(dst, api, "dst", kDocCopy);
  ub_aligned(src, api, "src", kDocCopy);
  const uint64_t block = uint64_t(p.block_len) * 32;
  const uint64_t s_ext = (uint64_t(p.block_count - 1) * (p.block_len + p.src_stride)) * 32 + block;
  const uint64_t d_ext = (uint64_t(p.block_count - 1) * (p.block_len + p.dst_stride)) * 32 + block;
  uint8_t* d = bytes_at(dst, 0, d_ext, es, api, "dst");
  const uint8_t* s = bytes_at(src, 0, s_ext, es, api, "src");
  std::vector<Span> spans;
  for (uint64_t i = 0; i < p.block_count; ++i)
    spans.push_back({i * (block + p.dst_stride * 32), i * (block + p.src_stride * 32), block});
  if (t_sync) [[unlikely]]
    record_copy(api, OtherApi::DataCopy, dst, src, spans, d_ext, s_ext);
  move_spans(d, s, s_ext, d_ext, spans, !dst.ub && src.ub);
}

// GM -> UB: block i's blockLen bytes come from GM at i * (blockLen + srcStride bytes); in UB it
// takes leftPadding elements, the data, rightPadding elements, rounded up to 32 bytes, and blocks
// are dstStride datablocks apart. UB -> GM: the reverse, UB blocks at the rounded size plus
// srcStride datablocks, GM blocks blockLen + dstStride bytes apart; nothing but data is written.
void data_copy_pad(const MemRef& dst, const MemRef& src, const CopyBlocks& p, const PadSpec& pad, unsigned es,
                   const char* api) {
  if (p.block_count < 1 || p.block_count > 4095)
    raise(ErrorCode::Constraint, api, "blockCount must be in [1, 4095], got " + to_string(p.block_count), kDocPad);
  if (p.block_len < 1 || p.block_len > (1u << 21) - 1)
    raise(ErrorCode::Constraint, api, "blockLen (bytes) must be in [1, 2^21 - 1], got " + to_string(p.block_len),
          kDocPad);
  if (p.block_len % es != 0)
    raise(ErrorCode::Constraint, api,
          "blockLen " + to_string(p.block_len) + " bytes is not a whole number of " + to_string(es) + "-byte elements",
          kDocPad);
  if (dst.ub == src.ub)
    raise(ErrorCode::Unsupported, api, "only GM -> UB and UB -> GM are supported", kDocPad);
  const uint32_t max_pad = 32 / es;
  if (pad.left > max_pad || pad.right > max_pad)
    raise(ErrorCode::Constraint, api,
          "leftPadding and rightPadding must be in [0, " + to_string(max_pad) + "] elements (32 bytes), got " +
              to_string(pad.left) + " and " + to_string(pad.right),
          kDocPad);
  const bool to_ub = dst.ub;
  const MemRef& ubr = to_ub ? dst : src;
  ub_aligned(ubr, api, to_ub ? "dst" : "src", kDocPad);
  const uint64_t left = to_ub ? uint64_t(pad.left) * es : 0, right = to_ub ? uint64_t(pad.right) * es : 0;
  const uint64_t ub_block = (left + p.block_len + right + 31) / 32 * 32;
  const uint64_t ub_step = ub_block + (to_ub ? p.dst_stride : p.src_stride) * 32;
  const uint64_t gm_step = uint64_t(p.block_len) + (to_ub ? p.src_stride : p.dst_stride);
  const uint64_t ub_ext = (p.block_count - 1) * ub_step + ub_block;
  const uint64_t gm_ext = (p.block_count - 1) * gm_step + p.block_len;
  uint8_t* d = bytes_at(dst, 0, to_ub ? ub_ext : gm_ext, es, api, "dst");
  const uint8_t* s = bytes_at(src, 0, to_ub ? gm_ext : ub_ext, es, api, "src");
  if (!to_ub) {
    std::vector<Span> spans;
    for (uint64_t i = 0; i < p.block_count; ++i) spans.push_back({i * gm_step, i * ub_step, p.block_len});
    if (t_sync) [[unlikely]]
      record_copy(api, OtherApi::DataCopyPad, dst, src, spans, gm_ext, ub_ext);
    move_spans(d, s, ub_ext, gm_ext, spans, true);
    return;
  }
  if (t_sync) [[unlikely]] {  // GM blocks of blockLen bytes into whole padded UB blocks
    std::vector<Span> spans;
    for (uint64_t i = 0; i < p.block_count; ++i) spans.push_back({i * ub_step, i * gm_step, ub_block});
    std::vector<sync::Range> r, w;
    const bool hull = spans.size() > kMaxBursts;
    for (const Span& sp : spans) {
      if (hull) break;
      r.push_back(mem_range(src, sp.s, p.block_len));
      w.push_back(mem_range(dst, sp.d, sp.n));
    }
    if (hull) {
      r.push_back(mem_range(src, 0, gm_ext));
      w.push_back(mem_range(dst, 0, ub_ext));
    }
    record(api, pipe_of(pipe_rule(OtherApi::DataCopyPad), false, true), r.data(), int(r.size()), w.data(),
           int(w.size()));
  }
  // GM and UB never overlap: write each block with its fill directly.
  for (uint64_t i = 0; i < p.block_count; ++i) {
    uint8_t* b = d + i * ub_step;
    const uint8_t* g = s + i * gm_step;
    std::memset(b, 0, ub_block);  // fill the vendor page calls undefined: zero bytes
    if (pad.is_pad) {
      for (uint64_t k = 0; k < left; k += es) std::memcpy(b + k, &pad.value, es);
      for (uint64_t k = 0; k < right; k += es) std::memcpy(b + left + p.block_len + k, &pad.value, es);
    } else if (pad.left == 0 && pad.right == 0) {
      // isPad false, no padding: the alignment fill repeats the block's first element (vendor page).
      for (uint64_t k = p.block_len; k + es <= ub_block; k += es) std::memcpy(b + k, g, es);
    }
    std::memcpy(b + left, g, p.block_len);
  }
}

void set_atomic_add(bool on, DType t) {
  if (!on) {
    core().atomic_add = -1;
    return;
  }
  if (t != DType::fp32 && t != DType::fp16 && t != DType::bf16 && t != DType::s32 && t != DType::s16 && t != DType::s8)
    raise(ErrorCode::Unsupported, "SetAtomicAdd",
          std::string("dtype ") + formats::info(t).name + " is not supported (takes: fp32 fp16 bf16 s32 s16 s8)",
          "docs/ascendc.md#atomic-add");
  core().atomic_add = static_cast<int>(t);
}

}  // namespace tilesim::ascendc
