#include "tilesim/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tilesim {
namespace {

size_t default_threads() {
  if (const char* env = std::getenv("TILESIM_THREADS")) {
    char* end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (end != env && v > 0 && v <= 1024) return static_cast<size_t>(v);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

std::atomic<size_t> g_threads{0};

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
    {
      std::lock_guard<std::mutex> lk(m_);
      job_ = &job;
      active_ = workers;
      pending_ = workers;
      ++generation_;
    }
    cv_.notify_all();
    job();
    std::unique_lock<std::mutex> lk(m_);
    done_cv_.wait(lk, [&] { return pending_ == 0; });
    job_ = nullptr;
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
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
      const std::function<void()>* job;
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stop_ || (generation_ != seen && idx < active_); });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      (*job)();
      std::lock_guard<std::mutex> lk(m_);
      if (--pending_ == 0) done_cv_.notify_all();
    }
  }
  std::mutex run_mutex_, m_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> threads_;
  const std::function<void()>* job_ = nullptr;
  size_t active_ = 0, pending_ = 0, generation_ = 0;
  bool stop_ = false;
};

thread_local bool t_in_parallel = false;

}  // namespace

size_t num_threads() noexcept {
  size_t n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = default_threads();
    g_threads.store(n, std::memory_order_relaxed);
  }
  return n;
}

void set_num_threads(size_t n) { g_threads.store(n == 0 ? default_threads() : std::min<size_t>(n, 1024)); }

void parallel_for(size_t n, size_t grain, const std::function<void(size_t, size_t)>& body) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  size_t chunks = (n + grain - 1) / grain;
  size_t threads = std::min(num_threads(), chunks);
  if (threads <= 1 || t_in_parallel) {
    body(0, n);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  std::function<void()> job = [&] {
    bool was = t_in_parallel;
    t_in_parallel = true;
    for (;;) {
      size_t c = next.fetch_add(1);
      if (c >= chunks) break;
      size_t b = c * grain, e = std::min(n, b + grain);
      try {
        body(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lk(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
    t_in_parallel = was;
  };
  Pool::get().run(threads - 1, job);
  if (error) std::rethrow_exception(error);
}

}  // namespace tilesim
