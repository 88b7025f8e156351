// libFuzzer target: the PTO-AS parser and interpreter (spec 20 §6) on arbitrary text, through the
// same entry point as tilesim.pto.run and `tilesim run FILE.pto` (tilesim::pto::as::run). Every
// input must either run or raise tilesim::Error; a crash, hang or sanitizer report is a bug.
// A program that runs is run a second time with every .arg supplied (the first run's outputs,
// refilled with a byte pattern taken from the text, so NaN/Inf/subnormal codes reach the engine),
// and the outputs must keep the shapes and carriers the first run reported.
#include "body_pto_as.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tilesim_fuzz::pto_as_one(data, size);
}
