// libFuzzer target: the LinxISA assembler and disassembler (spec 30 §5–§6) on arbitrary text.
// Accepted text must disassemble, and the raw disassembly must assemble back to the same words
// (the encoding table round-trip, spec 70 item 1); rejected text must raise tilesim::Error.
// The body is shared by the libFuzzer binary fuzz_linx_asm.cpp and the replay of tests/regress/ in
// tests/robust/regress_test.cpp; TILESIM_FUZZ_FAIL reports a broken invariant (abort by default).
#pragma once
#include <cstdint>
#include <cstdlib>

#ifndef TILESIM_FUZZ_FAIL
#define TILESIM_FUZZ_FAIL(why) std::abort()
#endif
#include <string_view>

#include "tilesim/linx.hpp"

namespace tilesim_fuzz {
inline int linx_asm_one(const uint8_t* data, size_t size) {
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
    TILESIM_FUZZ_FAIL("the assembler produced a word the decoder rejects");
  }
  try {
    if (tilesim::linx::assemble(raw, "roundtrip.s") != words)
      TILESIM_FUZZ_FAIL("the raw disassembly assembles to other words");
  } catch (const tilesim::Error&) {
    TILESIM_FUZZ_FAIL("the disassembler printed text the assembler rejects");
  }
  return 0;
}
}  // namespace tilesim_fuzz
