// libFuzzer target: the LinxISA assembler and disassembler (spec 30 §5–§6) on arbitrary text.
// Accepted text must disassemble, and the raw disassembly must assemble back to the same words
// (the encoding table round-trip, spec 70 item 1); rejected text must raise tilesim::Error.
#include "body_linx_asm.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tilesim_fuzz::linx_asm_one(data, size);
}
