// The pipeline-hazard checker (issue 22, docs/sync.md): vector clocks per pipe, shadow state per
// 32-byte block, flags, barriers and queue hand-overs, cross-block GM phases, the reports and the
// timeline. Model-independent: the PTO, PTO-AS and Ascend C front ends call the hooks of
// tilesim/sync.hpp with pipe numbers, byte ranges and source sites.
#include "tilesim/sync.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "tilesim/error.hpp"

namespace tilesim::sync {

namespace detail {
namespace {
bool from_env() {
  const char* v = std::getenv("TILESIM_CHECK");
  bool on = false;
  try {
    on = v != nullptr && parse_check(v);
  } catch (const Error& e) {
    // A typo in the environment must not pass unnoticed, and a static initializer cannot throw.
    std::fprintf(stderr, "%s\n", e.what());
    std::_Exit(2);
  }
  // A timeline asked for with the checker off would silently not be written.
  if (const char* t = std::getenv("TILESIM_SYNC_TIMELINE"); t != nullptr && *t != '\0' && !on) {
    std::fprintf(stderr, "TILESIM_SYNC_TIMELINE: applies only with TILESIM_CHECK=sync [docs/sync.md#timeline]\n");
    std::_Exit(2);
  }
  return on;
}
}  // namespace
bool g_on = from_env();
}  // namespace detail

namespace {

constexpr const char* kPipeNames[kNumPipes] = {"S",    "V",    "M",  "MTE1", "MTE2", "MTE3",
                                               "ALL",  "MTE4", "MTE5", "V2", "FIX"};
constexpr const char* kBufNames[] = {"GM", "UB", "L1", "L0A", "L0B", "L0C", "BT", "FB"};
// The event ids a flag may use (EVENT_ID0 .. EVENT_ID7 on every target of spec 21 and 41).
constexpr int64_t kNumEventIds = 8;
constexpr int kBlockShift = 5;  // 32-byte blocks: the UB's access granularity
constexpr int kPageShift = 12;  // shadow pages of 128 blocks
constexpr size_t kBlocksPerPage = size_t(1) << (kPageShift - kBlockShift);

using Clock = std::array<uint32_t, kNumPipes>;
void join(Clock& a, const Clock& b) {
  for (int i = 0; i < kNumPipes; ++i) a[i] = std::max(a[i], b[i]);
}

// The shadow of one 32-byte block: its last write and, per pipe, the last read since then
// (epochs of the accessing pipe's clock; 0 = none) and the accesses they were.
// `gen`: the kernel the state belongs to (a block of an earlier kernel reads as empty, so a
// kernel's end forgets the shadow without touching it); `r_mask`: the pipes with r_ep/r_acc set.
struct Blk {
  uint32_t gen = 0;
  uint32_t w_ep = 0, w_acc = 0;
  uint8_t w_pipe = 0;
  uint16_t r_mask = 0;
  std::array<uint32_t, kNumPipes> r_ep, r_acc;
};

struct SiteRec {
  std::string api;
  std::string file;  // a copy: PTO-AS file names do not outlive their run; "" = not known
  uint32_t line, col;
  uint8_t pipe;
};
struct AccRec {
  uint32_t site;
  uint8_t pipe;
  Buf buf;
  bool write;
  uint64_t addr, bytes;
  uintptr_t host_lo, host_hi;  // the bytes themselves: a shared 32-byte block is not a conflict
  uint64_t t;                  // logical issue time (timeline)
};

enum class Kind : uint8_t { RAW, WAR, WAW, WaitNoSet, NeverWaited, BadId, DoubleSet, XRAW, XWAW };
const char* kind_title(Kind k) {
  switch (k) {
    case Kind::RAW: return "RAW hazard (read after write)";
    case Kind::WAR: return "WAR hazard (write after read)";
    case Kind::WAW: return "WAW hazard (write after write)";
    case Kind::WaitNoSet: return "wait with no earlier set (a hang on hardware)";
    case Kind::NeverWaited: return "flag set and never waited";
    case Kind::BadId: return "event id out of range";
    case Kind::DoubleSet: return "flag set twice before its wait";
    case Kind::XRAW: return "cross-block GM hazard (one block reads what another writes)";
    default: return "cross-block GM hazard (two blocks write the same bytes)";
  }
}
const char* kind_anchor(Kind k) {
  switch (k) {
    case Kind::RAW:
    case Kind::WAR:
    case Kind::WAW: return "docs/sync.md#hazards";
    case Kind::XRAW:
    case Kind::XWAW: return "docs/sync.md#cross-block";
    default: return "docs/sync.md#flags";
  }
}

struct Report {
  Kind kind;
  int block;           // lowest block it was seen in (-1: no launch)
  uint64_t first_seq;  // order of first occurrence in that block
  size_t count;
  std::string text;
  uint64_t launch = 0;  // the last Ascend C launch that saw it (0: none)
  bool delivered = false;  // printed by a failed launch (mark_delivered): not printed again at exit
};

struct Sink {
  std::mutex mu;
  std::unordered_map<std::string, size_t> index;  // key -> reports[]
  std::vector<Report> reports;
  std::string timeline_path;
  std::string timeline_json_events;  // the events of finished cores, comma-separated
  int timeline_pid = 0;
  uint64_t launch = 0;  // the running Ascend C launch's number (0: none)
};
// A timeline is wanted (TILESIM_SYNC_TIMELINE or set_timeline_path): only then do the cores record
// its events, so a checked run without one formats and keeps nothing for it.
std::atomic<bool> g_timeline{false};
bool timeline_on() { return g_timeline.load(std::memory_order_relaxed); }

Sink& sink() {
  static Sink* s = new Sink;  // never destroyed: read by the exit handler
  return *s;
}

std::string site_text(const SiteRec& s) {
  if (s.file.empty()) return "(source location not known)";
  const std::string& f = s.file;
  if (s.col != 0) return fmt::format("{}:{}:{}", f, s.line, s.col);
  return fmt::format("{}:{}", f, s.line);
}

struct TlEvent {
  char ph;  // 'X' access, 's'/'f' flag flow, 'i' hazard
  uint8_t pipe;
  uint64_t t;
  uint32_t site;
  uint64_t flow;
  std::string label;
};

struct Core {
  int block = -1;
  Model model = Model::Pto;
  std::array<Clock, kNumPipes> clk{};
  struct Flag {
    bool pending = false;
    Clock snap{};
    uint32_t set_site = 0;
    uint64_t t = 0, flow = 0;
  };
  std::map<uint32_t, Flag> flags;  // (src << 16) | (dst << 8) | id: ordered, for deterministic end reports
  std::unordered_map<uint64_t, std::pair<Clock, uint64_t>> posts;
  std::unordered_map<uintptr_t, std::unique_ptr<Blk[]>> pages;
  uint32_t gen = 1;  // the current kernel (Blk::gen)
  uintptr_t last_page = ~uintptr_t(0);
  Blk* last_blocks = nullptr;
  std::vector<SiteRec> sites;
  std::unordered_map<std::string, uint32_t> site_index;
  std::vector<AccRec> accs;
  std::array<uint64_t, kNumPipes> free_t{};  // timeline: next free logical slot per pipe
  std::vector<TlEvent> tl;
  uint64_t next_flow = 1;
  uint64_t seq = 0;
  // Cross-block GM log (Ascend C launches): per SyncAll phase, the GM bytes each access touched.
  struct GmEntry {
    uint64_t lo, hi;
    bool write, atomic;
    uint32_t acc;
  };
  std::vector<std::vector<GmEntry>> gm_phases{1};

  // Per access call: the hazards already counted (one count per call and key).
  std::vector<std::pair<Kind, uint32_t>> call_hits;
  uint32_t cur_acc = 0;

  Blk* blocks_of(uintptr_t page) {
    if (page == last_page) return last_blocks;
    auto& p = pages[page];
    if (!p) p.reset(new Blk[kBlocksPerPage]);
    last_page = page;
    last_blocks = p.get();
    return last_blocks;
  }

  // The site id of (api, site, pipe): looked up by the pointers and numbers first (front ends pass
  // the same literals and file names call after call), by text only on a miss.
  struct SiteKey {
    const char* api;
    size_t api_len;
    const char* file;
    uint32_t line, col;
    uint8_t pipe;
    bool operator==(const SiteKey&) const = default;
  };
  struct SiteKeyHash {
    size_t operator()(const SiteKey& k) const noexcept {
      size_t h = std::hash<const void*>()(k.api) ^ (std::hash<const void*>()(k.file) * 31);
      return h ^ (size_t(k.line) * 1000003u) ^ (size_t(k.col) << 20) ^ (size_t(k.pipe) << 40) ^ k.api_len;
    }
  };
  std::unordered_map<SiteKey, uint32_t, SiteKeyHash> fast_sites;
  uint32_t intern(std::string_view api, const Site& s, uint8_t pipe) {
    const SiteKey fk{api.data(), api.size(), s.file, s.line, s.col, pipe};
    if (auto f = fast_sites.find(fk); f != fast_sites.end()) return f->second;
    const uint32_t id = intern_text(api, s, pipe);
    fast_sites.emplace(fk, id);
    return id;
  }
  uint32_t intern_text(std::string_view api, const Site& s, uint8_t pipe) {
    std::string key = fmt::format("{}|{}|{}|{}|{}", api, s.file ? s.file : "", s.line, s.col, pipe);
    auto it = site_index.find(key);
    if (it != site_index.end()) return it->second;
    const uint32_t id = uint32_t(sites.size());
    sites.push_back({std::string(api), s.file ? s.file : "", s.line, s.col, pipe});
    site_index.emplace(std::move(key), id);
    return id;
  }

  std::string who(const AccRec& a) const {
    const SiteRec& s = sites[a.site];
    return fmt::format("{} on PIPE_{} at {} {} {} [{:#x}, {:#x})", s.api, kPipeNames[a.pipe],
                       site_text(s), a.write ? "writes" : "reads", kBufNames[unsigned(a.buf)],
                       a.addr, a.addr + a.bytes);
  }
  std::string fix(uint8_t src, uint8_t dst) const {
    switch (model) {
      case Model::AscendC:
        return fmt::format("SetFlag<HardEvent::{}_{}>(EVENT_ID0) after the first, "
                           "WaitFlag<HardEvent::{}_{}>(EVENT_ID0) before the second",
                           kPipeNames[src], kPipeNames[dst], kPipeNames[src], kPipeNames[dst]);
      case Model::PtoAs:
        return fmt::format("pto.set_flag[<PIPE_{}>, <PIPE_{}>, <EVENT_ID0>] after the first, "
                           "pto.wait_flag[<PIPE_{}>, <PIPE_{}>, <EVENT_ID0>] before the second",
                           kPipeNames[src], kPipeNames[dst], kPipeNames[src], kPipeNames[dst]);
      default:
        return fmt::format("set_flag(PIPE_{}, PIPE_{}, EVENT_ID0) after the first, "
                           "wait_flag(PIPE_{}, PIPE_{}, EVENT_ID0) before the second",
                           kPipeNames[src], kPipeNames[dst], kPipeNames[src], kPipeNames[dst]);
    }
  }

  void add_report(Kind kind, std::string key, std::string text) {
    Sink& s = sink();
    std::lock_guard lock(s.mu);
    auto it = s.index.find(key);
    if (it == s.index.end()) {
      s.index.emplace(std::move(key), s.reports.size());
      s.reports.push_back({kind, block, seq, 1, std::move(text), block >= 0 ? s.launch : 0});
      return;
    }
    Report& r = s.reports[it->second];
    ++r.count;
    if (block >= 0) r.launch = s.launch;
    if (block >= 0 && (r.block < 0 || block < r.block)) {
      r.block = block;
      r.first_seq = seq;
      r.text = std::move(text);
    }
  }

  void hazard(Kind kind, uint32_t prev, uint32_t cur, uint8_t prev_pipe, uint32_t prev_ep) {
    // Two ranges that only share a block (unaligned host arrays: GM rows, auto tiles) do not
    // conflict: only common bytes do.
    if (accs[prev].host_hi <= accs[cur].host_lo || accs[cur].host_hi <= accs[prev].host_lo) return;
    // Reported once, then taken as fixed the way the report says (a flag after the first access,
    // its wait before this one): this pipe is ordered after it from now on, so one missing flag
    // is one report, not one per later access on the same pipe.
    uint32_t& known = clk[accs[cur].pipe][prev_pipe];
    known = std::max(known, prev_ep);
    for (const auto& h : call_hits)
      if (accs[h.second].site == accs[prev].site) return;  // one report per earlier access and call
    call_hits.emplace_back(kind, prev);
    const AccRec& a = accs[prev];
    const AccRec& b = accs[cur];
    std::string key = fmt::format("{}|{}|{}|{}", int(kind), sites[a.site].api + site_text(sites[a.site]),
                                  sites[b.site].api + site_text(sites[b.site]), int(b.buf));
    std::string text = fmt::format("{}\n  first:  {}\n  second: {}, not ordered after it\n  fix: {} [{}]",
                                   kind_title(kind), who(a), who(b), fix(a.pipe, b.pipe), kind_anchor(kind));
    add_report(kind, std::move(key), std::move(text));
    if (timeline_on()) tl.push_back({'i', b.pipe, b.t, b.site, 0, kind_title(kind)});
  }

  void flag_report(Kind kind, uint32_t site, uint8_t src, uint8_t dst, int64_t id, const char* extra) {
    const SiteRec& s = sites[site];
    std::string key = fmt::format("{}|{}|{}|{}|{}|{}", int(kind), s.api, site_text(s), src, dst, id);
    std::string text = fmt::format("{}\n  {}(PIPE_{}, PIPE_{}, {}) at {}{} [{}]", kind_title(kind), s.api,
                                   src < kNumPipes ? kPipeNames[src] : "?",
                                   dst < kNumPipes ? kPipeNames[dst] : "?", id, site_text(s), extra,
                                   kind_anchor(kind));
    add_report(kind, std::move(key), std::move(text));
  }

  void touch(const Range& r, bool write, uint8_t p, uint32_t ep, uint32_t acc) {
    if (r.bytes == 0) return;
    const uintptr_t lo = reinterpret_cast<uintptr_t>(r.host) >> kBlockShift;
    const uintptr_t hi = (reinterpret_cast<uintptr_t>(r.host) + r.bytes + 31) >> kBlockShift;
    const Clock& c = clk[p];
    for (uintptr_t b = lo; b < hi;) {
      Blk* page = blocks_of(b >> (kPageShift - kBlockShift));
      const uintptr_t end = std::min(hi, ((b >> (kPageShift - kBlockShift)) + 1) << (kPageShift - kBlockShift));
      for (; b < end; ++b) {
        Blk& k = page[b & (kBlocksPerPage - 1)];
        if (k.gen != gen) {
          k.gen = gen;
          k.w_ep = 0;
          k.r_mask = 0;
        }
        if (k.w_ep != 0 && k.w_pipe != p && c[k.w_pipe] < k.w_ep) [[unlikely]]
          hazard(write ? Kind::WAW : Kind::RAW, k.w_acc, acc, k.w_pipe, k.w_ep);
        if (!write) {
          k.r_ep[p] = ep;
          k.r_acc[p] = acc;
          k.r_mask = uint16_t(k.r_mask | (1u << p));
          continue;
        }
        for (unsigned m = k.r_mask & ~(1u << p); m != 0; m &= m - 1) {
          const int q = std::countr_zero(m);
          if (c[q] < k.r_ep[q]) [[unlikely]]
            hazard(Kind::WAR, k.r_acc[q], acc, uint8_t(q), k.r_ep[q]);
        }
        k.r_mask = 0;
        k.w_ep = ep;
        k.w_acc = acc;
        k.w_pipe = p;
      }
    }
    if (r.buf == Buf::GM && block >= 0) {
      const uint64_t a = reinterpret_cast<uintptr_t>(r.host);
      gm_phases.back().push_back({a, a + r.bytes, write, false, acc});
    }
  }

  // A new kernel on the same core: everything forgotten, the shadow pages kept (their blocks are
  // of an older generation now) and the site table kept (names only).
  void reset() {
    clk = {};
    flags.clear();
    posts.clear();
    accs.clear();
    free_t = {};
    tl.clear();
    next_flow = 1;
    seq = 0;
    gm_phases.assign(1, {});
    call_hits.clear();
    model = Model::Pto;
    ++gen;
  }

  uint64_t issue(uint8_t p) {
    const uint64_t t = free_t[p];
    free_t[p] = t + 1;
    return t;
  }
};

thread_local Core* t_core = nullptr;
Core& process_core() {
  static Core* c = new Core;  // PTO and PTO-AS: one core for the process
  return *c;
}
Core& core() { return t_core != nullptr ? *t_core : process_core(); }

// An Ascend C launch's cores.
struct Launch {
  std::vector<std::unique_ptr<Core>> cores;
  Model model = Model::AscendC;
};
Launch& launch() {
  static Launch* l = new Launch;
  return *l;
}

bool valid_pipe(uint8_t p) { return p < kNumPipes && p != kAll; }

// The trace events of a finished core, appended to the sink's JSON (Chrome trace format: one
// process per core, one thread per pipe; logical time in microseconds).
void flush_timeline(Core& c) {
  Sink& s = sink();
  std::lock_guard lock(s.mu);
  if (s.timeline_path.empty() || c.tl.empty()) return;
  const int pid = ++s.timeline_pid;
  std::string& out = s.timeline_json_events;
  auto sep = [&] {
    if (!out.empty()) out += ",\n";
  };
  sep();
  out += fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"{}"}}}})", pid,
                     c.block >= 0 ? fmt::format("block {}", c.block) : std::string("core"));
  for (int p = 0; p < kNumPipes; ++p) {
    if (p == kAll) continue;
    out += fmt::format(
        ",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"PIPE_{}\"}}}}",
        pid, p, kPipeNames[p]);
  }
  auto esc = [](std::string_view v) {
    std::string r;
    for (char ch : v) {
      if (ch == '"' || ch == '\\') r += '\\';
      if (static_cast<unsigned char>(ch) < 0x20) continue;
      r += ch;
    }
    return r;
  };
  // Logical slot t at 10 t + 10 microseconds: viewers drop events at time 0.
  auto ts = [](uint64_t t) { return t * 10 + 10; };
  for (const TlEvent& e : c.tl) {
    const SiteRec& si = c.sites[e.site];
    const std::string name = esc(e.label.empty() ? si.api : e.label);
    const std::string where = esc(site_text(si));
    sep();
    switch (e.ph) {
      case 'X':
        out += fmt::format(
            R"({{"ph":"X","name":"{}","cat":"access","pid":{},"tid":{},"ts":{},"dur":8,"args":{{"at":"{}"}}}})",
            name, pid, e.pipe, ts(e.t), where);
        break;
      case 's':
      case 'f':
        // The flag op's own slice on its pipe, and the flow arrow bound to it (viewers attach a
        // flow event to the slice of its thread at its time, same category).
        out += fmt::format(
            R"({{"ph":"X","name":"{}","cat":"flag","pid":{},"tid":{},"ts":{},"dur":8,"args":{{"at":"{}"}}}},)"
            "\n",
            e.ph == 's' ? "set_flag" : "wait_flag", pid, e.pipe, ts(e.t), where);
        out += fmt::format(
            R"({{"ph":"{}","name":"{}","cat":"flag","id":{},"pid":{},"tid":{},"ts":{}{}}})", e.ph, name,
            e.flow + uint64_t(pid) * 1000000000ull, pid, e.pipe, ts(e.t) + (e.ph == 's' ? 4 : 0),
            e.ph == 'f' ? R"(,"bp":"e")" : "");
        break;
      default:
        out += fmt::format(
            R"({{"ph":"I","s":"t","name":"HAZARD: {}","cat":"hazard","pid":{},"tid":{},"ts":{},"args":{{"at":"{}"}}}})",
            name, pid, e.pipe, ts(e.t) + 4, where);
    }
  }
  c.tl.clear();
}

void end_core(Core& c, const Site& site) {
  for (auto& [key, f] : c.flags)
    if (f.pending)
      c.flag_report(Kind::NeverWaited, f.set_site, uint8_t(key >> 16), uint8_t(key >> 8), key & 0xff,
                    site.file == nullptr ? ""
                    : site.line == 0     ? fmt::format(", never waited before the end of {}", site.file).c_str()
                                         : fmt::format(", kernel ends at {}:{}", site.file, site.line).c_str());
  flush_timeline(c);
}

std::string text_of(bool only_undelivered);  // below, with report_text

void exit_handler() {
  if (!on()) return;
  end_kernel();
  Sink& s = sink();
  if (!s.timeline_path.empty()) {
    try {
      write_timeline(s.timeline_path);
    } catch (const Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
    }
  }
  const std::string text = text_of(true);  // what no failed launch has printed yet
  if (text.empty()) return;
  std::fputs(text.c_str(), stderr);
  std::fflush(nullptr);
  std::_Exit(1);  // the checker's verdict (issue 22 §5): non-zero after printing every report
}

void ensure_exit_handler() {
  static const bool once = [] {
    std::atexit(exit_handler);
    if (const char* p = std::getenv("TILESIM_SYNC_TIMELINE"); p != nullptr && *p != '\0') {
      Sink& s = sink();
      std::lock_guard lock(s.mu);
      s.timeline_path = p;
      g_timeline = true;
    }
    return true;
  }();
  (void)once;
}

}  // namespace

const char* pipe_name(uint8_t pipe) noexcept { return pipe < kNumPipes ? kPipeNames[pipe] : "?"; }
const char* buf_name(Buf b) noexcept { return unsigned(b) < 8 ? kBufNames[unsigned(b)] : "?"; }

bool parse_check(std::string_view v, std::string_view who) {
  if (v.empty() || v == "off") return false;
  if (v == "sync") return true;
  raise(ErrorCode::Unsupported, who,
        fmt::format("unknown check '{}' (accepted: sync, off)", v), "docs/sync.md#switches");
}

void enable(bool on) {
  detail::g_on = on;
  if (on) ensure_exit_handler();
}

void set_model(Model m) { core().model = m; }

void access(std::string_view api, uint8_t pipe, const Site& site, const Range* reads, int n_reads,
            const Range* writes, int n_writes) {
  ensure_exit_handler();
  Core& c = core();
  if (!valid_pipe(pipe)) pipe = kS;
  const uint32_t ep = ++c.clk[pipe][pipe];
  const uint32_t site_id = c.intern(api, site, pipe);
  const uint64_t t = c.issue(pipe);
  ++c.seq;
  c.call_hits.clear();
  if (timeline_on()) c.tl.push_back({'X', pipe, t, site_id, 0, {}});
  for (int i = 0; i < n_reads; ++i) {
    const uint32_t acc = uint32_t(c.accs.size());
    const uintptr_t lo = reinterpret_cast<uintptr_t>(reads[i].host);
    c.accs.push_back({site_id, pipe, reads[i].buf, false, reads[i].addr, reads[i].bytes, lo, lo + reads[i].bytes, t});
    c.touch(reads[i], false, pipe, ep, acc);
  }
  for (int i = 0; i < n_writes; ++i) {
    const uint32_t acc = uint32_t(c.accs.size());
    const uintptr_t lo = reinterpret_cast<uintptr_t>(writes[i].host);
    c.accs.push_back({site_id, pipe, writes[i].buf, true, writes[i].addr, writes[i].bytes, lo, lo + writes[i].bytes, t});
    if (writes[i].atomic && c.block >= 0) {
      // Atomic stores accumulate: two blocks adding to the same GM bytes is the point of them.
      Range r = writes[i];
      r.buf = Buf::UB;  // shadow only; logged below as atomic
      c.touch(r, true, pipe, ep, acc);
      const uint64_t a = reinterpret_cast<uintptr_t>(writes[i].host);
      c.gm_phases.back().push_back({a, a + writes[i].bytes, true, true, acc});
      continue;
    }
    c.touch(writes[i], true, pipe, ep, acc);
  }
}

namespace {
// A flag's name in the timeline (both ends of its flow arrow).
std::string flag_label(uint8_t src, uint8_t dst, int64_t id) {
  return fmt::format("flag {}->{} #{}", kPipeNames[src], kPipeNames[dst], id);
}

// The flag (src, dst, id) of the calling thread's core, with the call's site id in `s`; nullptr
// (after an "event id out of range" report) when the pipes or the id are not a flag's.
Core::Flag* flag_of(std::string_view api, uint8_t src, uint8_t dst, int64_t id, const Site& site,
                    uint8_t pipe, uint32_t& s) {
  ensure_exit_handler();
  Core& c = core();
  s = c.intern(api, site, valid_pipe(pipe) ? pipe : kS);
  ++c.seq;
  if (!valid_pipe(src) || !valid_pipe(dst) || id < 0 || id >= kNumEventIds) {
    c.flag_report(Kind::BadId, s, src, dst, id,
                  fmt::format(": event ids are 0..{} and the pipes one of S V M MTE1 MTE2 MTE3 FIX",
                              kNumEventIds - 1)
                      .c_str());
    return nullptr;
  }
  return &c.flags[(uint32_t(src) << 16) | (uint32_t(dst) << 8) | uint32_t(id)];
}
}  // namespace

void set_flag(std::string_view api, uint8_t src, uint8_t dst, int64_t id, const Site& site) {
  uint32_t s = 0;
  Core::Flag* fp = flag_of(api, src, dst, id, site, src, s);
  if (fp == nullptr) return;
  Core& c = core();
  Core::Flag& f = *fp;
  if (f.pending) c.flag_report(Kind::DoubleSet, s, src, dst, id, "");
  f.pending = true;
  f.snap = c.clk[src];
  f.set_site = s;
  f.t = c.issue(src);
  f.flow = c.next_flow++;
  if (timeline_on()) c.tl.push_back({'s', src, f.t, s, f.flow, flag_label(src, dst, id)});
}

void wait_flag(std::string_view api, uint8_t src, uint8_t dst, int64_t id, const Site& site) {
  uint32_t s = 0;
  Core::Flag* fp = flag_of(api, src, dst, id, site, dst, s);
  if (fp == nullptr) return;
  Core& c = core();
  Core::Flag& f = *fp;
  if (!f.pending) {
    c.flag_report(Kind::WaitNoSet, s, src, dst, id, "");
    return;
  }
  f.pending = false;
  join(c.clk[dst], f.snap);
  // The wait takes the destination pipe's next slot after the set: its slice ends the flow arrow.
  const uint64_t t = std::max(c.free_t[dst], f.t + 1);
  c.free_t[dst] = t + 1;
  if (timeline_on()) c.tl.push_back({'f', dst, t, s, f.flow, flag_label(src, dst, id)});
}

void barrier(std::string_view, uint8_t pipe, const Site&) {
  ensure_exit_handler();
  Core& c = core();
  ++c.seq;
  if (pipe != kAll) return;  // one pipe's barrier: program order already orders it
  Clock all{};
  uint64_t t = 0;
  for (int p = 0; p < kNumPipes; ++p) {
    join(all, c.clk[p]);
    t = std::max(t, c.free_t[p]);
  }
  for (int p = 0; p < kNumPipes; ++p) {
    const uint32_t own = c.clk[p][p];
    c.clk[p] = all;
    c.clk[p][p] = own;
    c.free_t[p] = t;
  }
}

void post(uint64_t key, uint8_t src) {
  Core& c = core();
  if (!valid_pipe(src)) return;
  auto& e = c.posts[key];
  e.first = c.clk[src];
  e.second = c.free_t[src];
}

void take(uint64_t key, uint8_t dst) {
  Core& c = core();
  if (!valid_pipe(dst)) return;
  auto it = c.posts.find(key);
  if (it == c.posts.end()) return;
  join(c.clk[dst], it->second.first);
  c.free_t[dst] = std::max(c.free_t[dst], it->second.second);
}

void end_kernel(const Site& site) {
  Core& c = process_core();
  end_core(c, site);
  c.reset();
}

void begin_launch(int blocks, Model m) {
  {
    Sink& s = sink();
    std::lock_guard lock(s.mu);
    ++s.launch;
  }
  // The cores of the last launch are reused (reset: their shadow pages stay allocated, of an
  // older generation), so a launch does not pay for fresh memory.
  Launch& l = launch();
  l.model = m;
  if (l.cores.size() > size_t(blocks)) l.cores.resize(size_t(blocks));
  for (auto& c : l.cores) c->reset();
  while (l.cores.size() < size_t(blocks)) l.cores.push_back(std::make_unique<Core>());
  for (int b = 0; b < blocks; ++b) {
    l.cores[size_t(b)]->block = b;
    l.cores[size_t(b)]->model = m;
  }
}

void begin_block(int b) {
  Launch& l = launch();
  t_core = (b >= 0 && size_t(b) < l.cores.size()) ? l.cores[size_t(b)].get() : nullptr;
}

void end_block() { t_core = nullptr; }

void sync_all() {
  barrier("SyncAll", kAll, {});
  core().gm_phases.emplace_back();
}

size_t end_launch() {
  Launch& l = launch();
  size_t phases = 0;
  for (auto& c : l.cores) phases = std::max(phases, c->gm_phases.size());
  // Per phase, every pair of blocks: a write of one overlapping a read or write of the other
  // (atomic writes against each other excepted). One sweep over the phase's GM ranges sorted by
  // start (block and program order break ties, so the reports do not depend on the threads).
  struct Entry {
    uint64_t lo, hi;
    uint32_t acc;
    uint32_t core;
    bool write, atomic;
  };
  std::vector<Entry> all;
  std::vector<size_t> active;
  for (size_t ph = 0; ph < phases; ++ph) {
    all.clear();
    for (size_t i = 0; i < l.cores.size(); ++i)
      if (ph < l.cores[i]->gm_phases.size())
        for (const auto& e : l.cores[i]->gm_phases[ph])
          all.push_back({e.lo, e.hi, e.acc, uint32_t(i), e.write, e.atomic});
    std::stable_sort(all.begin(), all.end(), [](const Entry& x, const Entry& y) {
      return x.lo != y.lo ? x.lo < y.lo : x.core < y.core;
    });
    active.clear();
    for (size_t idx = 0; idx < all.size(); ++idx) {
      const Entry& e = all[idx];
      std::erase_if(active, [&](size_t a) { return all[a].hi <= e.lo; });
      for (size_t a : active) {
        const Entry& o = all[a];
        if (o.core == e.core || (!o.write && !e.write) || (o.write && e.write && o.atomic && e.atomic))
          continue;
        // The writer first (the lower block of two writers).
        const bool e_first = e.write && (!o.write || e.core < o.core);
        const Entry& w = e_first ? e : o;
        const Entry& r = e_first ? o : e;
        Core& a_core = *l.cores[w.core];
        Core& b_core = *l.cores[r.core];
        const AccRec& x = a_core.accs[w.acc];
        const AccRec& y = b_core.accs[r.acc];
        const Kind k = r.write ? Kind::XWAW : Kind::XRAW;
        std::string key = fmt::format("{}|{}{}|{}{}", int(k), a_core.sites[x.site].api,
                                      site_text(a_core.sites[x.site]), b_core.sites[y.site].api,
                                      site_text(b_core.sites[y.site]));
        std::string text = fmt::format(
            "{}\n  block {}: {}\n  block {}: {}\n  fix: SyncAll() between them, or give each block "
            "its own bytes [{}]",
            kind_title(k), a_core.block, a_core.who(x), b_core.block, b_core.who(y), kind_anchor(k));
        a_core.add_report(k, std::move(key), std::move(text));
      }
      active.push_back(idx);
    }
  }
  for (auto& c : l.cores) end_core(*c, {});
  // Every distinct hazard this launch saw, also those an earlier launch reported first.
  Sink& s = sink();
  std::lock_guard lock(s.mu);
  return size_t(
      std::count_if(s.reports.begin(), s.reports.end(), [&](const Report& r) { return r.launch == s.launch; }));
}

size_t hazard_count() {
  Sink& s = sink();
  std::lock_guard lock(s.mu);
  return s.reports.size();
}

namespace {
std::string text_of(bool only_undelivered) {
  Sink& s = sink();
  std::lock_guard lock(s.mu);
  std::vector<const Report*> rs;
  for (const Report& r : s.reports)
    if (!only_undelivered || !r.delivered) rs.push_back(&r);
  std::stable_sort(rs.begin(), rs.end(), [](const Report* a, const Report* b) {
    return a->block != b->block ? a->block < b->block : a->first_seq < b->first_seq;
  });
  std::string out;
  for (const Report* r : rs) {
    out += "tilesim sync: " + r->text;
    if (r->count > 1) out += fmt::format("\n  seen {} times", r->count);
    if (r->block >= 0) out += r->count > 1 ? fmt::format(" (first in block {})", r->block)
                                           : fmt::format("\n  in block {}", r->block);
    out += "\n";
  }
  if (!rs.empty())
    out += fmt::format("tilesim sync: {} distinct problem{} found [docs/sync.md]\n", rs.size(),
                       rs.size() == 1 ? "" : "s");
  return out;
}
}  // namespace

std::string report_text() { return text_of(false); }

void mark_delivered() {
  Sink& s = sink();
  std::lock_guard lock(s.mu);
  for (Report& r : s.reports) r.delivered = true;
}

void clear_reports() {
  Sink& s = sink();
  std::lock_guard lock(s.mu);
  s.reports.clear();
  s.index.clear();
}

void set_timeline_path(const std::string& path) {
  ensure_exit_handler();
  Sink& s = sink();
  std::lock_guard lock(s.mu);
  s.timeline_path = path;
  g_timeline = !path.empty();
}

void write_timeline(const std::string& path) {
  Sink& s = sink();
  std::string body;
  {
    std::lock_guard lock(s.mu);
    body = s.timeline_json_events;
  }
  std::ofstream f(path, std::ios::binary);
  if (!f) raise(ErrorCode::Io, "sync-timeline", fmt::format("cannot write '{}'", path), "docs/sync.md#timeline");
  f << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n" << body << "\n]}\n";
  if (!f) raise(ErrorCode::Io, "sync-timeline", fmt::format("cannot write '{}'", path), "docs/sync.md#timeline");
}

}  // namespace tilesim::sync
