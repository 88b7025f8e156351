// ICPU_RUN_KF's engine (spec 41 §1): launch checks, one simulated AI core per block with at most
// num_threads() computing at once, SyncAll, the per-block error report.
//
// Blocks run on "runners": the launching thread and threads of a persistent pool (kept across
// launches, so a launch neither creates threads nor, through fresh threads, re-allocates their
// per-thread scratch and cores). A runner holds a "permit" while a block of its computes and takes
// the next block in index order when it finishes one, so a launch hands off no work between
// threads per block. Why not parallel_for: a block waiting in SyncAll must not hold a runner that
// another block needs to reach the barrier. Such a block gives its permit back while it waits, and
// when blocks are still to start and no runner is free, another pool thread joins the launch.
// Without SyncAll at most num_threads() runners serve a launch; with it every block becomes live,
// as the barrier requires, and none can deadlock. Results do not depend on which runner runs a
// block: each block has its own core, reset to the same state (zeroed UB) before it starts.
#include "tilesim/ascendc/launch.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/debug_print.hpp"
#include "tilesim/ascendc/engine.hpp"
#include "tilesim/ascendc/sync.hpp"
#include "tilesim/error.hpp"
#include "tilesim/parallel.hpp"

namespace tilesim::ascendc {

using std::to_string;

namespace {

// ---- GM registry ----
std::shared_mutex g_gm_mutex;
std::map<uintptr_t, uint64_t>& gm_blocks() {
  static std::map<uintptr_t, uint64_t> m;  // start -> bytes
  return m;
}

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

std::atomic<KernelMode> g_mode{KernelMode::AIV_MODE};
std::atomic<uint64_t> g_tiling_key{0};

// ---- one launch ----
struct Launch {
  std::string name;
  int64_t block_dim = 0;
  int64_t ratio = 1;  // vector cores per block (MIX modes)
  int64_t cores = 0;  // block_dim * ratio simulated cores
  const Product* product = nullptr;

  std::mutex m;
  std::condition_variable cv;
  size_t permits = 0;
  // Runners (under m): next = the next block to start; free_runners = runners serving the launch
  // that are not inside a block (or are about to join); runners = pool threads still serving it.
  int64_t next = 0;
  int64_t finished = 0;
  int64_t free_runners = 0;
  int64_t runners = 0;
  const std::function<void()>* body = nullptr;
  bool checked = false;  // the pipeline-hazard checker watches this launch (issue 22)
  // SyncAll barrier
  int64_t arrived = 0;
  uint64_t generation = 0;
  int64_t first_ended = -1;  // the first core that ended (its GetBlockIdx), -1 if none yet
  std::vector<std::optional<Error>> errors;
  std::weak_ptr<Launch> self;  // for sync_all's add_runner
  // Debug prints (docs/ascendc.md#debug-prints): each core's output, written to stdout (under m)
  // in core order as soon as every lower core has ended, so blocks never interleave.
  std::vector<std::string> out;
  std::vector<char> ended;
  int64_t flushed = 0;
};

struct BlockState {
  Launch* launch = nullptr;
  int64_t core = 0;  // GetBlockIdx()
  int64_t sub = 0;
  bool holds_permit = false;
};
thread_local BlockState* t_block = nullptr;

[[noreturn]] void launch_error(const std::string& name, const std::string& detail) {
  raise(ErrorCode::Constraint, "ICPU_RUN_KF(" + name + ")", detail, "docs/ascendc.md#launch");
}

std::string block_label(const Launch& L, int64_t core) {
  if (L.ratio == 1) return "block " + to_string(core) + " of " + to_string(L.block_dim);
  return "block " + to_string(core / L.ratio) + " (vector core " + to_string(core) + ") of " +
         to_string(L.block_dim);
}

void acquire_permit(Launch& L, std::unique_lock<std::mutex>& lk) {
  L.cv.wait(lk, [&] { return L.permits > 0; });
  --L.permits;
}

// Every SetFlag of the block has its WaitFlag (the vendor's CheckSyncState after each core).
void check_flags(const Core& c) {
  for (const auto& [key, n] : c.flags)
    if (n > 0)
      raise(ErrorCode::Constraint, "SetFlag",
            "HardEvent " + to_string(key >> 8) + " event id " + to_string(key & 0xFF) + ": " +
                to_string(n) + " SetFlag call(s) without a matching WaitFlag at the end of the block",
            "docs/ascendc.md#flags");
}

// Resets a runner's core to what a fresh Core of the product is (zeroed UB, nothing allocated,
// default registers), keeping the UB's storage.
void reset_core(Core& c, const Product* p) {
  UbBytes ub = std::move(c.ub);
  c = Core{};
  c.product = p;
  ub.assign(p->ub_bytes, 0);
  c.ub = std::move(ub);
}

// Runs block `core` on the calling thread (which holds a permit) and records its outcome.
void run_block(Launch& L, int64_t core) {
  BlockState st{&L, core, core % L.ratio, true};
  thread_local Core c;
  reset_core(c, L.product);
  Core* const outer = bound_core();  // the launching thread's own binding, restored after
  const int64_t outer_idx = ::block_idx, outer_num = ::block_num;
  t_block = &st;
  ::block_idx = core;
  ::block_num = L.block_dim;
  bind_core(&c);
  if (L.checked) {
    sync::begin_block(static_cast<int>(core));
    t_sync = true;
  }
  std::optional<Error> err;
  try {
    const debug::BlockScope prints(core, L.cores, &L.out[static_cast<size_t>(core)]);
    (*L.body)();
    check_flags(c);
  } catch (const Error& e) {
    err = e;
  } catch (const std::exception& e) {
    err = Error(ErrorCode::Fault, std::string("uncaught exception: ") + e.what());
  } catch (...) {
    err = Error(ErrorCode::Fault, "uncaught exception of unknown type");
  }
  if (L.checked) {
    t_sync = false;
    t_site = nullptr;
    sync::end_block();
  }
  bind_core(outer);
  ::block_idx = outer_idx;
  ::block_num = outer_num;
  t_block = nullptr;
  std::lock_guard<std::mutex> lk(L.m);
  L.errors[static_cast<size_t>(core)] = std::move(err);
  L.ended[static_cast<size_t>(core)] = 1;
  for (; L.flushed < L.cores && L.ended[static_cast<size_t>(L.flushed)]; ++L.flushed) {
    std::string& o = L.out[static_cast<size_t>(L.flushed)];
    debug::write_stdout(o);
    std::string().swap(o);
  }
  if (L.first_ended < 0) L.first_ended = core;
  if (st.holds_permit) ++L.permits;
  ++L.finished;
  ++L.free_runners;
  L.cv.notify_all();
}

// A runner's loop: with a permit, the next block, until every block has started.
void serve(Launch& L) {
  std::unique_lock<std::mutex> lk(L.m);
  for (;;) {
    L.cv.wait(lk, [&] { return L.next >= L.cores || L.permits > 0; });
    if (L.next >= L.cores) return;
    --L.permits;
    --L.free_runners;
    const int64_t c = L.next++;
    lk.unlock();
    run_block(L, c);
    lk.lock();
  }
}

// The persistent pool: idle threads wait for a launch to join. Never destroyed (a kernel may call
// exit(), and joining at static destruction could then wait on the exiting thread itself); idle
// threads only wait on its condition variable.
class Runners {
 public:
  static Runners& get() {
    static Runners* r = new Runners;
    return *r;
  }
  // One more pool thread serves L (the caller has counted it in L.runners and L.free_runners).
  void join(std::shared_ptr<Launch> L) {
    std::lock_guard<std::mutex> lk(m_);
    work_.push_back(std::move(L));
    // Each waiting thread takes one queued launch when it wakes: enough of them, or a new thread.
    if (waiting_ >= work_.size())
      cv_.notify_one();
    else
      std::thread([this] { loop(); }).detach();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lk(m_);
    for (;;) {
      ++waiting_;
      cv_.wait(lk, [&] { return !work_.empty(); });
      --waiting_;
      std::shared_ptr<Launch> L = std::move(work_.front());
      work_.pop_front();
      lk.unlock();
      serve(*L);
      {
        std::lock_guard<std::mutex> g(L->m);
        --L->runners;
        --L->free_runners;
        L->cv.notify_all();
      }
      L.reset();
      lk.lock();
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Launch>> work_;
  size_t waiting_ = 0;  // threads blocked in loop's wait
};

// Under L.m: one more runner for L (pool thread).
void add_runner(const std::shared_ptr<Launch>& L) {
  ++L->runners;
  ++L->free_runners;
  Runners::get().join(L);
}

}  // namespace

void* gm_alloc(size_t bytes) {
  const size_t n = std::max<size_t>(64, (bytes + 63) / 64 * 64);
  void* p = std::aligned_alloc(64, n);
  if (!p) raise(ErrorCode::Bounds, "GmAlloc", "out of host memory for " + to_string(bytes) + " bytes");
  std::memset(p, 0, n);
  std::unique_lock lk(g_gm_mutex);
  gm_blocks()[reinterpret_cast<uintptr_t>(p)] = bytes;
  return p;
}

void gm_free(void* p) {
  if (!p) return;
  {
    std::unique_lock lk(g_gm_mutex);
    auto it = gm_blocks().find(reinterpret_cast<uintptr_t>(p));
    if (it == gm_blocks().end())
      raise(ErrorCode::Constraint, "GmFree",
            "pointer " + hex(p) + " is not the start of a live GmAlloc block", "docs/ascendc.md#gm");
    gm_blocks().erase(it);
  }
  std::free(p);
}

const uint8_t* gm_block_end(const void* p) noexcept {
  const auto a = reinterpret_cast<uintptr_t>(p);
  std::shared_lock lk(g_gm_mutex);
  const auto& m = gm_blocks();
  auto it = m.upper_bound(a);
  if (it == m.begin()) return nullptr;
  --it;
  if (a >= it->first + it->second) return nullptr;
  return reinterpret_cast<const uint8_t*>(it->first + it->second);
}

int64_t sub_block_idx() noexcept {
  return t_block ? t_block->sub : 0;
}
int64_t task_ration() noexcept {
  return t_block ? t_block->launch->ratio : 1;
}
bool in_launch() noexcept {
  return t_block != nullptr;
}
void set_kernel_mode(KernelMode mode) {
  g_mode.store(mode);
}
KernelMode kernel_mode() noexcept {
  return g_mode.load();
}
void set_tiling_key(uint64_t key) noexcept {
  g_tiling_key.store(key);
}
uint64_t tiling_key() noexcept {
  return g_tiling_key.load();
}

void sync_all() {
  if (!t_block) return;  // one core outside ICPU_RUN_KF: nothing to wait for
  BlockState& st = *t_block;
  Launch& L = *st.launch;
  if (t_sync) sync::sync_all();  // a barrier of every pipe, and the next cross-block GM phase
  std::unique_lock<std::mutex> lk(L.m);
  auto ended_error = [&] {
    raise(ErrorCode::Constraint, "SyncAll",
          block_label(L, st.core) + " waits in SyncAll, but " + block_label(L, L.first_ended) +
              " ended without reaching it (on hardware: a hang)",
          "docs/ascendc.md#syncall");
  };
  if (L.first_ended >= 0) ended_error();
  // Give the permit back while waiting: the blocks still to arrive may need it, and a runner to
  // start them when every runner of the launch is inside a block.
  st.holds_permit = false;
  ++L.permits;
  if (L.next < L.cores && L.free_runners == 0) add_runner(L.self.lock());
  const uint64_t gen = L.generation;
  if (++L.arrived == L.cores) {
    L.arrived = 0;
    ++L.generation;
  }
  L.cv.notify_all();
  L.cv.wait(lk, [&] { return L.generation != gen || L.first_ended >= 0; });
  if (L.generation == gen) {  // released by a block that ended: this one fails
    --L.arrived;
    ended_error();
  }
  acquire_permit(L, lk);
  st.holds_permit = true;
}

void launch(const char* kernel, int64_t block_dim, std::initializer_list<LaunchArg> args,
            const std::function<void()>& body) {
  const std::string name = kernel;
  if (t_block) launch_error(name, "called from inside a kernel block");
  if (block_dim < 1 || block_dim > 65535)
    launch_error(name, "blockDim must be in [1, 65535], got " + to_string(block_dim));
  int pos = 0;
  for (const LaunchArg& a : args) {
    ++pos;
    if (a.pointer && a.p && !gm_block_end(a.p))
      launch_error(name, "argument " + to_string(pos) + " (pointer " + hex(a.p) +
                             ") is neither null nor inside a live GmAlloc block");
  }
  const KernelMode mode = kernel_mode();
  if (mode == KernelMode::AIC_MODE)
    raise(ErrorCode::Unsupported, "ICPU_RUN_KF(" + name + ")",
          "KernelMode::AIC_MODE: this twin has no cube unit (AIV_MODE, MIX_MODE, MIX_AIC_1_1 run)",
          "docs/ascendc.md#launch");

  auto Lp = std::make_shared<Launch>();
  Launch& L = *Lp;
  L.self = Lp;
  L.name = name;
  L.block_dim = block_dim;
  L.ratio = mode == KernelMode::MIX_MODE ? 2 : 1;
  L.cores = block_dim * L.ratio;
  L.product = core().product;
  L.permits = std::max<size_t>(1, num_threads());
  L.errors.resize(static_cast<size_t>(L.cores));
  L.out.resize(static_cast<size_t>(L.cores));
  L.ended.assign(static_cast<size_t>(L.cores), 0);
  L.body = &body;
  // The checker watches a launch that starts with it on: one checker core per simulated core.
  L.checked = sync::on();
  if (L.checked) sync::begin_launch(static_cast<int>(L.cores), sync::Model::AscendC);
  {
    // The launching thread is one runner; pool threads make up the rest of the permits.
    std::lock_guard<std::mutex> lk(L.m);
    L.free_runners = 1;
    const int64_t extra = std::min<int64_t>(static_cast<int64_t>(L.permits), L.cores) - 1;
    for (int64_t i = 0; i < extra; ++i) add_runner(Lp);
  }
  serve(L);
  {
    // Every block done and every pool runner gone (they hold Lp, but `body` is the caller's).
    std::unique_lock<std::mutex> lk(L.m);
    L.cv.wait(lk, [&] { return L.finished == L.cores && L.runners == 0; });
  }

  // Hazards (issue 22 §5): every report, then the launch fails as a failed block makes it fail.
  const size_t hazards = L.checked ? sync::end_launch() : 0;
  if (hazards > 0) {
    std::fputs(sync::report_text().c_str(), stderr);
    std::fprintf(stderr, "tilesim: error: ICPU_RUN_KF(%s): the sync checker found %zu pipeline hazard(s)\n",
                 name.c_str(), hazards);
    sync::mark_delivered();  // the launch fails with them: not printed again at exit
  }
  int64_t first = -1, failed = 0;
  for (int64_t c = 0; c < L.cores; ++c)
    if (L.errors[static_cast<size_t>(c)]) {
      ++failed;
      if (first < 0) first = c;
      std::fprintf(stderr, "tilesim: error: ICPU_RUN_KF(%s): %s: %s\n", name.c_str(),
                   block_label(L, c).c_str(), L.errors[static_cast<size_t>(c)]->what());
    }
  if (first >= 0) {
    const Error& e = *L.errors[static_cast<size_t>(first)];
    std::string msg = "ICPU_RUN_KF(" + name + "): " + block_label(L, first) + ": " + e.what();
    if (failed > 1) msg += " (and " + to_string(failed - 1) + " other block(s) failed)";
    throw Error(e.code(), msg);
  }
  if (hazards > 0)
    raise(ErrorCode::Constraint, "ICPU_RUN_KF(" + name + ")",
          "the sync checker found " + to_string(hazards) +
              " pipeline hazard(s) (reported above): on hardware the result would depend on timing",
          "docs/ascendc.md#sync-checker");
}

void tiling_copy(void* out, size_t bytes, const void* tiling, const char* macro) {
  const uint8_t* end = tiling ? gm_block_end(tiling) : nullptr;
  if (!end || static_cast<size_t>(end - static_cast<const uint8_t*>(tiling)) < bytes)
    raise(ErrorCode::Bounds, macro,
          "the " + to_string(bytes) + " bytes of the tiling struct at " + hex(tiling) +
              " do not lie in one live GmAlloc block",
          "docs/ascendc.md#tiling");
  std::memcpy(out, tiling, bytes);
}

}  // namespace tilesim::ascendc
