// Threads for large operations (spec 00 "Threading"): default the hardware concurrency,
// overridable by TILESIM_THREADS or set_num_threads. Results never depend on the count:
// callers split work into chunks whose results do not interact.
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include "tilesim/error.hpp"  // tilesim::Error, what tilesim calls throw (issue 21 §5)
#include <cstddef>
#include <functional>

namespace tilesim {

// Throws tilesim::Error when TILESIM_THREADS is set to anything but a positive decimal integer
// 1..1024 (docs/cli.md#tilesim_threads); it is read at first use and after set_num_threads(0).
size_t num_threads();
// TILESIM_THREADS's value as num_threads() reads it (the CLI checks it before any run).
size_t threads_from_env(const char* value);
void set_num_threads(size_t n);  // 0 = back to the default

// Runs body(begin, end) over [0, n) in chunks of at least `grain` items, on up to
// num_threads() threads (the calling thread included). Exceptions from a chunk are rethrown.
void parallel_for(size_t n, size_t grain, const std::function<void(size_t, size_t)>& body);

}  // namespace tilesim
