// Architectural state of the LinxISA machine (spec 30 §1): a plain structure with one access
// layer (tile queues, ACC, registers). Semantics (tmatmul.cpp) read it and return a commit.
#pragma once
#include <array>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "linx/encoding_table.hpp"
#include "linx/gemm_core.hpp"
#include "tilesim/linx.hpp"

namespace tilesim::linx {

// Target profile (spec 30 §1 "Profile"): choices another implementation could make differently.
// Every field is read: the rules by exec_cube (through the GEMM core), the sizes by push_raw.
struct LinxProfile {
  const char* name;
  core::FloatOrder float_order;   // spec 30 §3
  core::IntOverflow int_overflow;  // spec 30 §3
  size_t queue_depth;     // 16 entries per queue
  size_t min_tile, max_tile;
  size_t live_capacity;   // 512 KB
};
const LinxProfile& linx_profile(std::string_view name);
const LinxProfile& default_linx_profile();  // linx_v056, also the rules of the direct gemm()

struct TileSlot {
  std::shared_ptr<const std::vector<uint8_t>> bytes;  // `size` bytes
  size_t size = 0;
  bool live = false;
};

struct Machine::State {
  const LinxProfile* profile = nullptr;
  std::array<uint64_t, 24> regs{};
  std::array<std::deque<TileSlot>, 4> queues;  // front = newest (Q#1)
  AccView acc;
};

int queue_index(char q);  // 'T' 'U' 'M' 'N' -> 0..3, else -1
const char* queue_name(int q);

// Raises tilesim::linx::Fault "<INSTR>: fault (<kind>) at word <i>: <detail> in block `<text>` [spec S]".
[[noreturn]] void fault(const std::string& instr, const std::string& kind, long word, const std::string& block,
                        const std::string& detail, const std::string& spec);

// What a committed CUBE block changes: ACC and the tiles it releases.
struct Commit {
  AccView acc;
  std::vector<std::pair<int, size_t>> release;  // (queue, window position)
};
// Validates and computes one CUBE block (commit word first) without touching the state.
Commit exec_cube(const Machine::State& s, std::span<const enc::Word> block, long word_index);

// Machine::push_raw on the state, with its profile's sizes and capacity (spec 30 §1).
void push_raw(Machine::State& s, char queue, std::span<const uint8_t> raw, size_t size);

}  // namespace tilesim::linx
