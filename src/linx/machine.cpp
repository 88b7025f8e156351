// The LinxISA machine (spec 30 §1): registers, tile queues with relative indexing, the live
// capacity rule, ACC, and block sequencing. Blocks are validated and computed against the
// current state and committed only when they succeed (faults are atomic).
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/trace.hpp"
#include "linx/machine_state.hpp"
#include "linx/text.hpp"
#include "tilesim/profile.hpp"

namespace tilesim::linx {
namespace {
constexpr LinxProfile kProfiles[] = {
    {"linx_v056", core::FloatOrder::sequential_fma, core::IntOverflow::wrap32, 16, 256, 256 * 1024, 512 * 1024},
};

// "256 B", "256 KB": the profile's sizes as the spec writes them.
std::string size_text(size_t b) {
  return b >= 1024 && b % 1024 == 0 ? std::to_string(b / 1024) + " KB" : std::to_string(b) + " B";
}
}  // namespace

const LinxProfile& linx_profile(std::string_view name) {
  return find_profile<LinxProfile>(kProfiles, "LinxISA profile", name);
}
const LinxProfile& default_linx_profile() { return kProfiles[0]; }

int queue_index(char q) {
  switch (q) {
    case 'T': case 't': return 0;
    case 'U': case 'u': return 1;
    case 'M': case 'm': return 2;
    case 'N': case 'n': return 3;
    default: return -1;
  }
}
const char* queue_name(int q) {
  static const char* const n[4] = {"T", "U", "M", "N"};
  return n[q & 3];
}

void fault(const std::string& instr, const std::string& kind, long word, const std::string& block,
           const std::string& detail, const std::string& spec) {
  std::string msg = instr + ": fault (" + kind + ")";
  if (word >= 0) msg += " at word " + std::to_string(word);
  msg += ": " + detail;
  if (!block.empty()) msg += " in block `" + block + "`";
  msg += " [" + spec + "]";
  throw Fault(kind, word, block, msg);
}

Memory::Memory(size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  p_ = static_cast<uint8_t*>(std::calloc(bytes, 1));
  if (!p_)
    raise(ErrorCode::Constraint, "linx Machine", "cannot allocate a memory of " + std::to_string(bytes) + " bytes",
          "docs/linx.md#memory");
}
Memory::Memory(const Memory& o) : Memory(o.size_) {
  used_ = o.used_;
  if (used_) std::memcpy(p_, o.p_, used_);
}
Memory& Memory::operator=(const Memory& o) {
  if (this != &o) {
    Memory t(o);
    std::swap(size_, t.size_);
    std::swap(used_, t.used_);
    std::swap(p_, t.p_);
  }
  return *this;
}
Memory::~Memory() { std::free(p_); }

Machine::Machine(std::string_view profile, size_t mem_bytes) : s_(std::make_unique<State>()) {
  s_->profile = &linx_profile(profile);
  if (mem_bytes == 0 || mem_bytes > (size_t{1} << 40))
    raise(ErrorCode::Constraint, "linx Machine",
          "mem_bytes = " + std::to_string(mem_bytes) + " is outside 1 .. 2^40", "docs/linx.md#memory");
  s_->mem = Memory(mem_bytes);
}

size_t Machine::mem_bytes() const { return s_->mem.size(); }

static void mem_range(const Memory& m, const char* what, uint64_t addr, uint64_t n) {
  if (!m.holds(addr, n))
    raise(ErrorCode::Bounds, what,
          "bytes [" + std::to_string(addr) + ", " + std::to_string(addr) + " + " + std::to_string(n) +
              ") lie outside the " + std::to_string(m.size()) + "-byte memory",
          "docs/linx.md#memory");
}

void Machine::write_mem(uint64_t addr, std::span<const uint8_t> data) {
  mem_range(s_->mem, "linx write_mem", addr, data.size());
  if (!data.empty()) std::memcpy(s_->mem.data(addr + data.size()) + addr, data.data(), data.size());
}

std::vector<uint8_t> Machine::read_mem(uint64_t addr, size_t nbytes) const {
  mem_range(s_->mem, "linx read_mem", addr, nbytes);
  return std::vector<uint8_t>(s_->mem.data() + addr, s_->mem.data() + addr + nbytes);
}

std::vector<uint8_t> Machine::read_array(uint64_t addr, size_t rows, size_t cols, DType t, Layout l) const {
  const size_t n = packed_bytes(rows, cols, t, l);
  mem_range(s_->mem, "linx read_array", addr, n);
  return unpack(std::span<const uint8_t>(s_->mem.data() + addr, n), rows, cols, t, l);
}
Machine::~Machine() = default;
Machine::Machine(const Machine& o) : s_(std::make_unique<State>(*o.s_)) {}
Machine& Machine::operator=(const Machine& o) {
  if (this != &o) *s_ = *o.s_;
  return *this;
}

unsigned Machine::parse_reg(std::string_view name) {
  std::string lower(name);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  unsigned r;
  if (!enc::parse_reg(lower, r))
    raise(ErrorCode::Constraint, "linx set_reg", "unknown register '" + std::string(name) + "' (R0..R23 or an ABI name)",
          "docs/linx.md#machine");
  if (r >= 24)
    raise(ErrorCode::Constraint, "linx set_reg", "register '" + std::string(name) + "' is reserved (codes 24..31)", "docs/linx.md#machine");
  return r;
}

void Machine::set_reg(std::string_view name, uint64_t value) {
  const unsigned r = parse_reg(name);
  if (r == 0) raise(ErrorCode::Constraint, "linx set_reg", "R0 (zero) reads 0 and cannot be set", "docs/linx.md#machine");
  s_->regs[r] = value;
}
uint64_t Machine::reg(unsigned i) const { return i < 24 ? s_->regs[i] : 0; }

size_t Machine::live_bytes() const { return s_->live_bytes; }

void push_raw(Machine::State& s, char queue, std::span<const uint8_t> raw, size_t size) {
  const int q = queue_index(queue);
  const LinxProfile& p = *s.profile;
  if (q < 0) raise(ErrorCode::Constraint, "linx push", std::string("unknown tile queue '") + queue + "' (T, U, M, N)", "docs/linx.md#machine");
  if (raw.size() > p.max_tile)
    raise(ErrorCode::Constraint, "linx push",
          "tile data of " + std::to_string(raw.size()) + " bytes exceeds the largest tile (" + size_text(p.max_tile) +
              ") of profile " + p.name,
          "docs/linx.md#machine");
  if (size == 0) {
    size = p.min_tile;
    while (size < raw.size()) size *= 2;
  }
  bool pow2 = size >= p.min_tile && size <= p.max_tile && (size & (size - 1)) == 0;
  if (!pow2)
    raise(ErrorCode::Constraint, "linx push",
          "tile size " + std::to_string(size) + " is not " + size_text(p.min_tile) + " x 2^k in " +
              size_text(p.min_tile) + ".." + size_text(p.max_tile) + " (profile " + p.name + ")",
          "docs/linx.md#machine");
  if (size < raw.size())
    raise(ErrorCode::Constraint, "linx push",
          "tile size " + std::to_string(size) + " is smaller than its " + std::to_string(raw.size()) + " bytes of data",
          "docs/linx.md#machine");
  auto& dq = s.queues[static_cast<size_t>(q)];
  // The 17th-oldest leaves the window (released) as this one enters (spec 30 §1).
  size_t live = s.live_bytes;
  if (dq.size() == p.queue_depth && dq.back().live) live -= dq.back().size;
  if (live + size > p.live_capacity)
    fault(std::string("push ") + queue_name(q), "capacity", -1, "",
          "live tiles would hold " + std::to_string(live + size) + " bytes, more than the " +
              std::to_string(p.live_capacity) + "-byte capacity",
          "docs/linx.md#machine");
  auto bytes = std::make_shared<TileBytes>(size, 0);
  std::copy(raw.begin(), raw.end(), bytes->begin());
  if (dq.size() == p.queue_depth) dq.pop_back();
  dq.push_front(TileSlot{std::move(bytes), size, true});
  s.live_bytes = live + size;
}

void Machine::push_raw(char queue, std::span<const uint8_t> raw, size_t size) { linx::push_raw(*s_, queue, raw, size); }

void Machine::push_tile(char queue, const void* elems, size_t rows, size_t cols, DType t, Layout l, size_t size) {
  const std::vector<uint8_t> raw = pack(elems, rows, cols, t, l);
  push_raw(queue, raw, size);
}

const AccView& Machine::acc() const { return s_->acc; }

std::vector<TileInfo> Machine::tiles(char queue) const {
  const int q = queue_index(queue);
  if (q < 0) raise(ErrorCode::Constraint, "linx tiles", std::string("unknown tile queue '") + queue + "'", "docs/linx.md#machine");
  std::vector<TileInfo> out;
  const auto& dq = s_->queues[static_cast<size_t>(q)];
  for (size_t i = 0; i < dq.size(); ++i) out.push_back({static_cast<int>(i + 1), dq[i].size, dq[i].live});
  return out;
}

std::vector<uint8_t> Machine::tile_bytes(char queue, int n) const {
  const int q = queue_index(queue);
  if (q < 0 || n < 1 || static_cast<size_t>(n) > s_->queues[static_cast<size_t>(q)].size())
    raise(ErrorCode::Bounds, "linx tile_bytes", std::string("no tile ") + queue + "#" + std::to_string(n), "docs/linx.md#machine");
  const TileSlot& t = s_->queues[static_cast<size_t>(q)][static_cast<size_t>(n - 1)];
  if (!t.live)  // its bytes were dropped at release (docs/linx.md#machine)
    raise(ErrorCode::Constraint, "linx tile_bytes",
          std::string("tile ") + queue + "#" + std::to_string(n) + " was released; a released tile holds no bytes",
          "docs/linx.md#machine");
  return {t.bytes->begin(), t.bytes->end()};
}

void apply(Machine::State& s, Commit&& c) {
  // A released tile's bytes are dropped at once (spec 30 §1: a released tile cannot be read): its
  // buffer is free for the next destination while still in cache, rather than held until 16 more
  // pushes evict it (4 MB of cold buffers per queue of 256 KB tiles). A TSTORE's write and a
  // TMOV's copy hold their own references.
  for (const auto& [q, pos] : c.release) {
    TileSlot& t = s.queues[static_cast<size_t>(q)][pos];
    if (t.live) s.live_bytes -= t.size;
    t.live = false;
    t.bytes.reset();
  }
  for (auto& p : c.push) {
    auto& dq = s.queues[static_cast<size_t>(p.queue)];
    const size_t size = p.bytes->size();
    if (dq.size() == s.profile->queue_depth) {  // the 17th-oldest leaves the window
      if (dq.back().live) s.live_bytes -= dq.back().size;
      dq.pop_back();
    }
    dq.push_front(TileSlot{std::move(p.bytes), size, true});
    s.live_bytes += size;
  }
  for (const auto& r : c.store) std::memcpy(s.mem.data(r.addr + r.len) + r.addr, c.store_data.data() + r.offset, r.len);
  if (c.write) c.write(s.mem.data(c.write_end));
  if (c.acc_set) {
    if (c.acc.data.empty() && !s.acc.data.empty()) s.acc_spare = std::move(s.acc.data);  // ACCCVT's release
    s.acc = std::move(c.acc);
  }
}

void Machine::run(std::string_view text) { run(assemble(text)); }

void Machine::set_trace(std::ostream* out, bool values) {
  trace_ = out;
  trace_values_ = values;
}

// One trace line per executed block (docs/cli.md#trace): its first word's index, the op, the block
// in template form where it folds, and ACC after it.
namespace {
void trace_block(trace::Sink& sink, const AccView& a, std::span<const enc::Word> block, size_t index) {
  trace::Object line;
  const std::string text = text::block_text(block);  // template form where the block folds
  line.integer("word", static_cast<long long>(index))
      .str("op", text.substr(0, text.find(' ')))
      .str("text", text);
  trace::Object acc;
  acc.str("name", "ACC").str("dtype", formats::name(a.type)).raw(
      "shape", trace::ints({static_cast<long long>(a.m), static_cast<long long>(a.n)}));
  trace::summarize(acc, sink, a.valid ? a.m * a.n : 0, [&](size_t k) -> double {
    const uint32_t w = a.data[k];
    if (a.type == DType::fp32) return formats::bits_to_f32(w);
    if (a.type == DType::s32) return static_cast<int32_t>(w);
    return w;
  });
  std::string wrote = acc.text();  // appended, not "[" + ...: GCC 12's -Wrestrict false positive
  wrote.insert(wrote.begin(), '[');
  wrote.push_back(']');
  line.raw("wrote", wrote);
  trace::emit(sink, line);
}
}  // namespace

void Machine::run(std::span<const uint32_t> words) {
  if (!std::equal(words.begin(), words.end(), s_->run_words.begin(), s_->run_words.end())) {
    std::vector<enc::Word> ws;
    ws.reserve(words.size());
    for (size_t i = 0; i < words.size(); ++i) ws.push_back(enc::decode_at(words[i], i));  // may raise: cache kept
    s_->run_decoded = std::move(ws);
    s_->run_words.assign(words.begin(), words.end());
  }
  const std::vector<enc::Word>& ws = s_->run_decoded;
  size_t i = 0;
  while (i < ws.size()) {
    if (!text::is_commit(ws[i].op))
      fault(enc::row(ws[i].op).mnemonic, "malformed block", static_cast<long>(i), text::raw_line(ws[i]),
            "header word before the first BSTART", "docs/linx.md#machine");
    size_t j = i + 1;
    while (j < ws.size() && !text::is_commit(ws[j].op)) ++j;
    const std::span<const enc::Word> block(ws.data() + i, j - i);
    if (ws[i].op == enc::Op::bstop) return;  // BSTOP ends the program (tilesim decision)
    const long at = static_cast<long>(i);
    switch (ws[i].op) {
      case enc::Op::bstart_cube:
        apply(*s_, ws[i][enc::F::fn] == 8 ? exec_acccvt(*s_, block, at) : exec_cube(*s_, block, at));
        break;
      case enc::Op::bstart_tma: apply(*s_, exec_tma(*s_, block, at)); break;
      case enc::Op::bstart_tepl: apply(*s_, exec_tepl(*s_, block, at)); break;
      default:
        fault(enc::row(ws[i].op).mnemonic, "unsupported", at, text::block_text(block),
              "block class is not executed by tilesim (only CUBE, TMA, TEPL blocks and BSTOP)", "docs/linx.md#machine");
    }
    if (trace_) {
      trace::Sink sink{trace_, trace_values_, trace_step_};
      trace_block(sink, s_->acc, block, i);
      trace_step_ = sink.step;
    }
    i = j;
  }
}

}  // namespace tilesim::linx
