// libFuzzer target: the .npy reader (spec 60 §5) on arbitrary bytes. Every input must either parse
// into a consistent array or raise tilesim::Error; anything else (crash, sanitizer report) is a
// bug. The body is shared by the libFuzzer binary fuzz_npy.cpp and the replay of tests/regress/ in
// tests/robust/regress_test.cpp; TILESIM_FUZZ_FAIL reports a broken invariant (abort by default).
#pragma once
#include <cstdint>
#include <cstdlib>

#ifndef TILESIM_FUZZ_FAIL
#define TILESIM_FUZZ_FAIL(why) std::abort()
#endif

#include "tilesim/error.hpp"
#include "tilesim/npy.hpp"

namespace tilesim_fuzz {
inline int npy_one(const uint8_t* data, size_t size) {
  try {
    tilesim::npy::Array a = tilesim::npy::parse(data, size, "fuzz");
    if (a.data.size() != a.size() * a.itemsize()) TILESIM_FUZZ_FAIL("the reader's own invariant");
    auto bytes = tilesim::npy::serialize(a);  // and it writes what it read
    tilesim::npy::Array b = tilesim::npy::parse(bytes.data(), bytes.size(), "fuzz-roundtrip");
    if (b.shape != a.shape || b.data != a.data || b.descr != a.descr)
      TILESIM_FUZZ_FAIL("serialize/parse round trip changed the array");
  } catch (const tilesim::Error&) {
  }
  return 0;
}
}  // namespace tilesim_fuzz
