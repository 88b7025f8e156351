// The thread pool (spec 00 "Threading"): parallel_for covers [0, n) exactly once for every
// thread count and grain, propagates exceptions, and nested calls run inline.
#include "tilesim/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilesim/error.hpp"

namespace {
struct ThreadsGuard {
  ~ThreadsGuard() { tilesim::set_num_threads(0); }
};
}  // namespace

TEST(Parallel, CoversRangeExactlyOnce) {
  ThreadsGuard g;
  for (size_t threads :
       {1u, 2u, 3u, 8u, 9u, 16u}) {  // up to 8 ranges on the stack, more on the heap
    tilesim::set_num_threads(threads);
    EXPECT_EQ(tilesim::num_threads(), threads);
    for (size_t n : {0u, 1u, 7u, 64u, 1000u, 100003u}) {
      for (size_t grain : {0u, 1u, 3u, 64u, 1u << 20}) {
        std::vector<std::atomic<int>> hits(n);
        std::atomic<size_t> calls{0};
        tilesim::parallel_for(n, grain, [&](size_t b, size_t e) {
          ASSERT_LE(b, e);
          ASSERT_LE(e, n);
          ++calls;
          for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
        });
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
        }
        if (n == 0) {
          EXPECT_EQ(calls.load(), 0u);
        }
      }
    }
  }
}

// Each thread first takes its own run of chunks, then the others' (parallel_for's affine chunks): a
// thread stuck in its first chunk does not hold up the rest of its run. Chunk 0 (the caller's run
// at 2 and 3 threads) waits until every other chunk is done, which only a thread taking the
// caller's chunks 1..k can make happen.
TEST(Parallel, ChunksOfAStuckThreadAreTakenByTheOthers) {
  ThreadsGuard g;
  for (size_t threads : {2u, 3u}) {
    tilesim::set_num_threads(threads);
    constexpr size_t kChunks = 12;
    std::atomic<size_t> done{0};
    std::atomic<bool> timed_out{false};
    tilesim::parallel_for(kChunks, 1, [&](size_t b, size_t e) {
      if (b == 0) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (done.load() < kChunks - 1)
          if (std::chrono::steady_clock::now() > until) {
            timed_out = true;
            break;
          }
      }
      done.fetch_add(e - b);
    });
    EXPECT_FALSE(timed_out.load())
        << threads << " threads: chunks 1.." << kChunks - 1 << " were not all taken";
    EXPECT_EQ(done.load(), kChunks);
  }
}

TEST(Parallel, ExceptionsPropagate) {
  ThreadsGuard g;
  for (size_t threads : {1u, 4u}) {
    tilesim::set_num_threads(threads);
    EXPECT_THROW(tilesim::parallel_for(1000, 10,
                                       [](size_t, size_t e) {
                                         if (e > 500) throw std::runtime_error("chunk failed");
                                       }),
                 std::runtime_error);
    // The pool is still usable afterwards.
    std::atomic<size_t> sum{0};
    tilesim::parallel_for(100, 7, [&](size_t b, size_t e) { sum += e - b; });
    EXPECT_EQ(sum.load(), 100u);
  }
}

TEST(Parallel, NestedCallsRunInline) {
  ThreadsGuard g;
  tilesim::set_num_threads(4);
  std::atomic<size_t> total{0};
  tilesim::parallel_for(8, 1, [&](size_t, size_t) {
    tilesim::parallel_for(10, 1, [&](size_t b, size_t e) { total += e - b; });
  });
  EXPECT_EQ(total.load(), 80u);
}

TEST(Parallel, SetNumThreadsZeroRestoresDefault) {
  ThreadsGuard g;
  tilesim::set_num_threads(3);
  tilesim::set_num_threads(0);
  EXPECT_GE(tilesim::num_threads(), 1u);
}

// TILESIM_THREADS (docs/cli.md#tilesim_threads): a positive decimal integer 1..1024, anything
// else an error naming the variable and the value, never silently the default.
TEST(Parallel, ThreadsFromEnv) {
  EXPECT_EQ(tilesim::threads_from_env("1"), 1u);
  EXPECT_EQ(tilesim::threads_from_env("16"), 16u);
  EXPECT_EQ(tilesim::threads_from_env("1024"), 1024u);
  for (const char* bad : {"0", "-3", "abc", "", "4x", " 2", "+2", "1025", "0x10", "99999999999"}) {
    try {
      tilesim::threads_from_env(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const tilesim::Error& e) {
      EXPECT_EQ(std::string(e.what()), std::string("TILESIM_THREADS: must be a positive decimal integer "
                                                   "1..1024, got '") + bad + "' [docs/cli.md#tilesim_threads]");
    }
  }
}

// A thread count above 1024 is a mistake, not something to clamp silently (docs/python.md#threads);
// 0 goes back to the default.
TEST(Parallel, SetNumThreadsRejectsCountsAbove1024) {
  tilesim::set_num_threads(3);
  try {
    tilesim::set_num_threads(1025);
    FAIL() << "expected an error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Constraint);
    EXPECT_STREQ(e.what(), "set_num_threads: n must be 0 (the default) or 1..1024, got 1025 [docs/python.md#threads]");
  }
  EXPECT_EQ(tilesim::num_threads(), 3u);
  tilesim::set_num_threads(1024);
  EXPECT_EQ(tilesim::num_threads(), 1024u);
  tilesim::set_num_threads(0);
}
