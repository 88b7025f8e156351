// libFuzzer target: the .npy reader (spec 60 §5) on arbitrary bytes. Every input must either parse
// into a consistent array or raise tilesim::Error; anything else (crash, sanitizer report) is a bug.
#include <cstdint>
#include <cstdlib>

#include "tilesim/error.hpp"
#include "tilesim/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tilesim::npy::Array a = tilesim::npy::parse(data, size, "fuzz");
    if (a.data.size() != a.size() * a.itemsize()) std::abort();  // the reader's own invariant
    auto bytes = tilesim::npy::serialize(a);                      // and it writes what it read
    tilesim::npy::Array b = tilesim::npy::parse(bytes.data(), bytes.size(), "fuzz-roundtrip");
    if (b.shape != a.shape || b.data != a.data || b.descr != a.descr) std::abort();
  } catch (const tilesim::Error&) {
  }
  return 0;
}
