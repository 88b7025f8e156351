// Shared helpers of the "rejected means untouched" property tests (issue 7): case counts scaled
// down under the sanitizers, and byte-range bookkeeping for "only these bytes may change".
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tilesim/error.hpp"

namespace robust {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// Cases per instruction: `release` normally, a tenth under ASan/UBSan.
inline int cases(int release) {
  return kSanitized ? (release / 10 > 50 ? release / 10 : 50) : release;
}

// A mask over a memory: bytes a successful call may change.
struct Allowed {
  std::vector<uint8_t> may;
  explicit Allowed(size_t n) : may(n, 0) {}
  void allow(uint64_t begin, uint64_t bytes) {
    for (uint64_t i = begin; i < begin + bytes && i < may.size(); ++i) may[i] = 1;
  }
};

// First byte index where `after` differs from `before` outside `allowed`; -1 if none. Equal 4 KB
// chunks are skipped with memcmp (the TPU local memory is 16 MB).
inline long first_forbidden_change(const std::vector<uint8_t>& before, const uint8_t* after,
                                   const Allowed& allowed) {
  constexpr size_t kChunk = 4096;
  for (size_t c = 0; c < before.size(); c += kChunk) {
    const size_t n = std::min(kChunk, before.size() - c);
    if (std::memcmp(before.data() + c, after + c, n) == 0) continue;
    for (size_t i = c; i < c + n; ++i)
      if (before[i] != after[i] && !allowed.may[i]) return long(i);
  }
  return -1;
}

inline long first_change(const std::vector<uint8_t>& before, const uint8_t* after) {
  if (std::memcmp(before.data(), after, before.size()) == 0) return -1;
  for (size_t i = 0; i < before.size(); ++i)
    if (before[i] != after[i]) return long(i);
  return -1;
}

// Tally of outcomes, so a test can assert it exercised both sides.
struct Tally {
  long ok = 0, rejected = 0;
  // Prints the tally and asserts both outcomes occurred in more than n/ok_div resp. n/rejected_div
  // cases, so a generator that only ever produces rejections (or only successes) cannot pass.
  void check(int n, int ok_div, int rejected_div, const std::string& what = "") const {
    std::printf("[  tally   ] %ld accepted, %ld rejected\n", ok, rejected);
    EXPECT_GT(ok, n / ok_div) << what;
    EXPECT_GT(rejected, n / rejected_div) << what;
  }
};

}  // namespace robust
