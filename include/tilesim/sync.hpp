// <tilesim/sync.hpp> — the pipeline-hazard checker (issue 22, docs/sync.md).
//
// On the accelerator each pipe (MTE2, V, M, MTE3, FIX, S, ...) runs its own instruction queue at
// once; a program orders a consumer after a producer on another pipe with set_flag/wait_flag, a
// queue or a barrier. tilesim executes in program order, so a missing flag gives the right answer
// here and garbage on the chip. With the checker on (TILESIM_CHECK=sync, `tilesim run --check
// sync`, Python check='sync') every front end reports each access, flag and barrier here; the
// checker keeps one vector clock per pipe and shadow state per 32-byte block of every memory
// touched, and reports every access not ordered after a conflicting access of another pipe.
// Results are unchanged either way; with the checker off each hook is one load and branch.
#pragma once
#include "tilesim/error.hpp"  // parse_check and write_timeline raise tilesim::Error
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#if !defined(__clang__)
#include <source_location>
#endif

namespace tilesim::sync {

// A C++ API call's source location, captured with default arguments at the kernel's call site:
// std::source_location with g++; clang 14's libstdc++ has no usable one, but clang has had
// __builtin_FILE/LINE/COLUMN for long.
struct Site {
  const char* file = nullptr;  // null: not known (e.g. a PTO call with trailing events)
  uint32_t line = 0, col = 0;
#if defined(__clang__)
  static constexpr Site here(const char* f = __builtin_FILE(), uint32_t l = __builtin_LINE(),
                             uint32_t c = __builtin_COLUMN()) noexcept {
    return {f, l, c};
  }
#else
  static constexpr Site here(std::source_location s = std::source_location::current()) noexcept {
    return {s.file_name(), s.line(), s.column()};
  }
#endif
};

// Pipes, numbered as the device compiler's pipe_t (PIPE_S = 0 ... PIPE_FIX = 10; 6 is PIPE_ALL).
inline constexpr uint8_t kS = 0, kV = 1, kM = 2, kMte1 = 3, kMte2 = 4, kMte3 = 5, kAll = 6,
                         kMte4 = 7, kMte5 = 8, kV2 = 9, kFix = 10;
inline constexpr int kNumPipes = 11;
const char* pipe_name(uint8_t pipe) noexcept;  // "MTE2", ...; "?" outside the table

// The memories an access names in a report (the shadow is keyed by host address).
enum class Buf : uint8_t { GM, UB, L1, L0A, L0B, L0C, BT, FB };
const char* buf_name(Buf b) noexcept;

// One operand's bytes: `host` is where they live in this process; `addr` is the address a user
// reads in the report (the buffer offset of a TASSIGN'd tile, the GM address, ...).
struct Range {
  Buf buf = Buf::UB;
  const void* host = nullptr;
  uint64_t addr = 0;
  uint64_t bytes = 0;
  bool atomic = false;  // an atomic-add store: blocks may add to the same GM bytes
};

// The spelling of the suggested fix in reports.
enum class Model : uint8_t { Pto, PtoAs, AscendC };

// ---- the switch ----
namespace detail {
extern bool g_on;  // set from TILESIM_CHECK at load, or by enable()
}
inline bool on() noexcept { return detail::g_on; }
// Turns the checker on or off for what runs next (the CLI's --check sync, Python's check='sync').
void enable(bool on);
// TILESIM_CHECK's value: "" or unset (off), "sync" (on), "off"; anything else raises
// Error(Unsupported) naming the accepted values (nothing silently ignored).
bool parse_check(std::string_view value, std::string_view who = "TILESIM_CHECK");

// ---- the calls front ends make while the checker is on (each checks on() first) ----
// The calling thread's simulated core: a process-wide core for PTO and PTO-AS, one per block in an
// Ascend C launch (begin_block). Every call below acts on it.
void access(std::string_view api, uint8_t pipe, const Site& site, const Range* reads, int n_reads,
            const Range* writes, int n_writes);
void set_flag(std::string_view api, uint8_t src, uint8_t dst, int64_t id, const Site& site);
void wait_flag(std::string_view api, uint8_t src, uint8_t dst, int64_t id, const Site& site);
// pipe_barrier(pipe): PIPE_ALL orders every pipe after every earlier access; one pipe's barrier
// orders nothing a pipe's program order does not already order.
void barrier(std::string_view api, uint8_t pipe, const Site& site);
// A queue hand-over (Ascend C TQue EnQue -> DeQue, FreeTensor -> AllocTensor): `post` records
// what pipe `src` has issued under `key`, `take` orders pipe `dst` after it. No misuse reports:
// the queues check their own rules.
void post(uint64_t key, uint8_t src);
void take(uint64_t key, uint8_t dst);
// The spelling the current core's reports use.
void set_model(Model m);

// ---- kernel boundaries ----
// The process-wide core's kernel ends (PTO C++ at exit, PTO-AS and Python at the end of a run):
// flags set and never waited are reported, the core's state is reset.
void end_kernel(const Site& site = {});
// Ascend C: a launch of `blocks` blocks starts; begin_block binds the calling thread to block b's
// core; sync_all is SyncAll in block b (a barrier of every pipe; cross-block GM conflicts are
// checked per SyncAll phase at end_launch); end_launch checks every block and returns the number of
// hazards the launch found.
void begin_launch(int blocks, Model m);
void begin_block(int b);
void end_block();
void sync_all();
size_t end_launch();

// ---- reports ----
// Every distinct hazard found so far (sorted by core, then first occurrence), printed as docs/sync.md
// shows; `clear` forgets them.
size_t hazard_count();
std::string report_text();
void clear_reports();
// The reports so far have been shown (a failed launch printed them before raising): the exit
// handler does not print them again, nor fail the process for them.
void mark_delivered();
// Writes every run so far as a Chrome/Perfetto trace (one track per pipe, logical time, flags as
// flow arrows, hazards marked); Error(Io) if the file cannot be written.
void write_timeline(const std::string& path);
// Where the timeline goes at exit ("" = nowhere): TILESIM_SYNC_TIMELINE, or the CLI's option.
void set_timeline_path(const std::string& path);

}  // namespace tilesim::sync
