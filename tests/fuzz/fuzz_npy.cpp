// libFuzzer target: the .npy reader (spec 60 §5) on arbitrary bytes. Every input must either parse
// into a consistent array or raise tilesim::Error; anything else (crash, sanitizer report) is a
// bug.
#include "body_npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tilesim_fuzz::npy_one(data, size);
}
