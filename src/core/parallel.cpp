#include "tilesim/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tilesim/error.hpp"

namespace tilesim {

constexpr size_t kMaxThreads = 1024;

// A positive decimal integer, 1..1024, and nothing else (docs/cli.md#tilesim_threads): "0", "-3",
// "abc", "4x" or "" is an error naming the variable and the value, not silently the default.
size_t threads_from_env(const char* value) {
  const std::string v(value);
  size_t n = 0;
  bool ok = !v.empty() && v.size() <= 4;
  for (char c : v) {
    if (c < '0' || c > '9') ok = false;
    else n = n * 10 + static_cast<size_t>(c - '0');
  }
  if (!ok || n == 0 || n > kMaxThreads)
    raise(ErrorCode::Constraint, "TILESIM_THREADS",
          "must be a positive decimal integer 1.." + std::to_string(kMaxThreads) + ", got '" + v + "'",
          "docs/cli.md#tilesim_threads");
  return n;
}

namespace {

size_t default_threads() {
  if (const char* env = std::getenv("TILESIM_THREADS")) return threads_from_env(env);
  return std::max(1u, std::thread::hardware_concurrency());
}

std::atomic<size_t> g_threads{0};

// Spins for up to kSpin before blocking: waking a thread parked on a condition variable takes
// 10-25 us on a small VM (measured here: a 256x256 fp32 TROWEXPANDSUB took 24 us on 2 threads,
// 3 us on one), more than many operations take. Workers keep watching for the next job that long
// after each job, and the caller watches for their completion, so back-to-back calls hand off
// through memory; an idle pool still sleeps.
constexpr auto kSpin = std::chrono::microseconds(200);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Calls done() until it is true or kSpin has passed; returns its last value. With more threads
// than cores a spinning thread would hold a core another one needs: then it does not spin, and
// it yields every 64 checks otherwise (another process may want the core).
template <class F>
bool spin_until(F&& done, bool oversubscribed) {
  if (oversubscribed) return done();
  const auto start = std::chrono::steady_clock::now();
  for (unsigned i = 1;; ++i) {
    if (done()) return true;
    cpu_relax();
    if (i % 64 == 0) {
      if (std::chrono::steady_clock::now() - start > kSpin) return done();
      std::this_thread::yield();
    }
  }
}

// The caller's (0) or pool worker k's (k + 1) place in the current job (parallel_for's affine
// chunks).
thread_local size_t t_part = 0;

// A small persistent pool: one job at a time (parallel_for calls from inside a job run inline).
class Pool {
 public:
  static Pool& get() {
    static Pool pool;
    return pool;
  }
  void run(size_t workers, const std::function<void()>& job) {
    std::unique_lock<std::mutex> outer(run_mutex_);
    ensure(workers);
    oversubscribed_.store(workers + 1 > cores_);
    {
      std::lock_guard<std::mutex> lk(m_);
      job_ = &job;
      active_ = workers;
      pending_.store(workers);
      generation_.fetch_add(1);  // under m_: a worker checks it under m_ before sleeping
    }
    cv_.notify_all();
    t_part = 0;
    job();
    if (!spin_until([&] { return pending_.load() == 0; }, oversubscribed_.load())) {
      std::unique_lock<std::mutex> lk(m_);
      done_cv_.wait(lk, [&] { return pending_.load() == 0; });
    }
    std::lock_guard<std::mutex> lk(m_);
    job_ = nullptr;
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_.store(true);  // under m_, like a new generation
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void ensure(size_t n) {
    while (threads_.size() < n) {
      size_t idx = threads_.size();
      threads_.emplace_back([this, idx] { loop(idx); });
    }
  }
  void loop(size_t idx) {
    size_t seen = 0;
    for (;;) {
      // A new generation is published under m_, so reading job_/active_ under m_ after seeing
      // it (spinning or woken) is race-free.
      spin_until([&] { return generation_.load() != seen || stop_.load(); },
                 oversubscribed_.load());
      const std::function<void()>* job;
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stop_.load() || (generation_.load() != seen && idx < active_); });
        if (stop_.load()) return;
        seen = generation_.load();
        job = job_;
      }
      t_part = idx + 1;
      (*job)();
      if (pending_.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lk(m_);  // the caller may be between its check and its wait
        done_cv_.notify_all();
      }
    }
  }
  std::mutex run_mutex_, m_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> threads_;
  const std::function<void()>* job_ = nullptr;
  size_t active_ = 0;
  std::atomic<size_t> pending_{0}, generation_{0};
  std::atomic<bool> stop_{false};  // read by spinning workers without m_, written under it
  std::atomic<bool> oversubscribed_{false};  // this job has more threads (+ caller) than cores
  const size_t cores_ = std::max(1u, std::thread::hardware_concurrency());
};

thread_local bool t_in_parallel = false;

}  // namespace

size_t num_threads() {
  size_t n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = default_threads();
    g_threads.store(n, std::memory_order_relaxed);
  }
  return n;
}

void set_num_threads(size_t n) {
  if (n > kMaxThreads)  // a count the host cannot mean; clamping it would hide the mistake
    raise(ErrorCode::Constraint, "set_num_threads",
          "n must be 0 (the default) or 1.." + std::to_string(kMaxThreads) + ", got " + std::to_string(n),
          "docs/python.md#threads");
  g_threads.store(n == 0 ? default_threads() : n);
}

void parallel_for(size_t n, size_t grain, const std::function<void(size_t, size_t)>& body) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  size_t chunks = (n + grain - 1) / grain;
  size_t threads = std::min(num_threads(), chunks);
  if (threads <= 1 || t_in_parallel) {
    body(0, n);
    return;
  }
  // Affine chunks: participant p (the caller 0, pool worker k as k + 1) owns chunks
  // [p * chunks / threads, (p + 1) * chunks / threads) and takes them first, in order; one that
  // runs out takes the next chunks of the others, so a slow or late thread's share is still done.
  // Why not one shared counter: a thread then gets the same items in consecutive calls of one
  // shape, so data stays in the cache of the core that last touched it (the GEMM core packs the A
  // panels of the rows it then computes; a PTO row loop meets the rows it wrote). The 2-thread
  // LinxISA gemm fp32 256^3 / 512^3 / 1024^3 went from 0.16 / 1.0 / 7.45 ms to 0.14 / 0.86 / 6.6
  // (interleaved runs, 2026-12-07, docs/linx.md). Which thread runs a chunk never changes a result.
  struct alignas(64) Range {
    std::atomic<size_t> next;
    size_t end;
  };
  constexpr size_t kLocal = 8;
  Range local[kLocal];
  std::unique_ptr<Range[]> heap;
  Range* ranges = local;
  if (threads > kLocal) {
    heap.reset(new Range[threads]);
    ranges = heap.get();
  }
  for (size_t p = 0; p < threads; ++p) {
    ranges[p].next.store(p * chunks / threads, std::memory_order_relaxed);
    ranges[p].end = (p + 1) * chunks / threads;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  std::function<void()> job = [&] {
    bool was = t_in_parallel;
    t_in_parallel = true;
    const size_t me = t_part;
    for (size_t k = 0; k < threads; ++k) {
      Range& r = ranges[(me + k) % threads];
      for (;;) {
        const size_t c = r.next.fetch_add(1);
        if (c >= r.end) break;
        const size_t b = c * grain, e = std::min(n, b + grain);
        try {
          body(b, e);
        } catch (...) {
          std::lock_guard<std::mutex> lk(error_mutex);
          if (!error) error = std::current_exception();
        }
      }
    }
    t_in_parallel = was;
  };
  Pool::get().run(threads - 1, job);
  if (error) std::rethrow_exception(error);
}

}  // namespace tilesim
