// libFuzzer target: the LinxISA assembler and disassembler (spec 30 §5–§6) on arbitrary text.
// Accepted text must disassemble, and the raw disassembly must assemble back to the same words
// (the encoding table round-trip, spec 70 item 1); rejected text must raise tilesim::Error.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tilesim/linx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<uint32_t> words;
  try {
    words = tilesim::linx::assemble(text, "fuzz.s");
  } catch (const tilesim::Error&) {
    return 0;
  }
  std::string raw;
  try {
    raw = tilesim::linx::disassemble(words, false);
    (void)tilesim::linx::disassemble(words, true);
  } catch (const tilesim::Error&) {
    std::abort();  // the assembler produced a word the decoder rejects
  }
  try {
    if (tilesim::linx::assemble(raw, "roundtrip.s") != words) std::abort();
  } catch (const tilesim::Error&) {
    std::abort();  // the disassembler printed text the assembler rejects
  }
  return 0;
}
