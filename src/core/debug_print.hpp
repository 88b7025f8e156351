// Internal: the one printf-format engine of the vendors' debug prints (Ascend C printf / PRINTF /
// ascendc_assert messages) and where debug output goes. Output made inside a block of a
// multi-block launch is kept in that block's buffer and written to stdout by the launcher in block
// order (so blocks running on different threads never interleave); elsewhere it is written to
// stdout at once (docs/ascendc.md#debug-prints, docs/pto.md#tprint).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tilesim/debug_print.hpp"

namespace tilesim::debug {

// printf of `fmt` with `args` (C's syntax and output for d i u o x X c s p f F e E g G a A and %%,
// flags, width, precision, `*`, length modifiers; docs/ascendc.md#debug-prints for the rules).
// Every conversion is checked against its argument before anything is formatted; a mismatch, a
// missing or surplus argument or an unknown conversion raises Error(Constraint) naming `api`,
// citing `docs`.
std::string format(std::string_view api, const char* fmt, std::span<const Arg> args,
                   std::string_view docs);

// The block the calling thread runs: set by a launcher around each block it runs.
struct Block {
  int64_t index = 0;  // the vendor's block index (Ascend C: the vector core, block * ratio + sub)
  int64_t count = 1;
  std::string* out = nullptr;  // the block's buffered output
};
// nullptr outside a launch.
const Block* current_block() noexcept;

class BlockScope {
 public:
  BlockScope(int64_t index, int64_t count, std::string* out) noexcept;
  ~BlockScope();
  BlockScope(const BlockScope&) = delete;
  BlockScope& operator=(const BlockScope&) = delete;

 private:
  Block block_;
  const Block* saved_;
};

// Debug output: appended to the current block's buffer, or written to stdout now.
void write(std::string_view text);
// Writes `text` to stdout and flushes it (the launcher's in-order flush of a block's buffer).
void write_stdout(std::string_view text);

// `text` with `prefix` put before every line (a last line without '\n' included).
std::string prefix_lines(std::string_view text, std::string_view prefix);

}  // namespace tilesim::debug
