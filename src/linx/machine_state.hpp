// Architectural state of the LinxISA machine (spec 30 §1): a plain structure with one access
// layer (tile queues, ACC, registers). Semantics (tmatmul.cpp) read it and return a commit.
#pragma once
#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
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

// Tile storage, large blocks reused after a release (tile_pool.cpp says why).
void* tile_alloc(size_t bytes);
void tile_free(void* p, size_t bytes) noexcept;

// A tile's bytes. Resizing leaves them uninitialised (default-init), for blocks that write every
// byte themselves (a whole-tile TLOAD, ACCCVT's rows); the others construct them zero-filled.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    if (n > size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(tile_alloc(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { tile_free(p, n * sizeof(T)); }
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};
using TileBytes = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

struct TileSlot {
  std::shared_ptr<const TileBytes> bytes;  // `size` bytes while live; none once released
  size_t size = 0;
  bool live = false;
};

// The flat byte-addressed memory (spec 31 §1): zero-filled, allocated lazily by the OS (calloc),
// copied with the machine.
class Memory {
 public:
  explicit Memory(size_t bytes);
  Memory(const Memory& o);
  Memory& operator=(const Memory& o);
  Memory(Memory&& o) noexcept : size_(o.size_), used_(o.used_), p_(o.p_) { o.size_ = o.used_ = 0; o.p_ = nullptr; }
  Memory& operator=(Memory&& o) noexcept {
    std::swap(size_, o.size_);
    std::swap(used_, o.used_);
    std::swap(p_, o.p_);
    return *this;
  }
  ~Memory();
  size_t size() const noexcept { return size_; }
  // Writers say how far they wrote: a copy copies only the bytes below the high-water mark (the
  // rest is still zero), so copying a 64 MiB machine costs what was used.
  uint8_t* data(uint64_t end_written) noexcept {
    if (end_written > used_) used_ = end_written;
    return p_;
  }
  const uint8_t* data() const noexcept { return p_; }
  // [addr, addr + n) lies inside the memory (no wrap-around).
  bool holds(uint64_t addr, uint64_t n) const noexcept { return addr <= size_ && n <= size_ - addr; }

 private:
  size_t size_ = 0, used_ = 0;
  uint8_t* p_ = nullptr;
};

struct Machine::State {
  const LinxProfile* profile = nullptr;
  std::array<uint64_t, 24> regs{};
  std::array<std::deque<TileSlot>, 4> queues;  // front = newest (Q#1)
  size_t live_bytes = 0;  // the live tiles' sizes, kept by push_raw and apply (every block's capacity check reads it)
  AccView acc;
  // The buffer of the ACC an ACCCVT released: the next TMATMUL / .BIAS writes its result there
  // instead of allocating and zero-filling a fresh one (its chain writes every element).
  std::vector<uint32_t> acc_spare;
  Memory mem{0};
  // The words of the last program run and their decoded form: running the same program again (a
  // host loop, a benchmark) skips the decode, ~10 % of a small TEPL block's time.
  std::vector<uint32_t> run_words;
  std::vector<enc::Word> run_decoded;
};

int queue_index(char q);  // 'T' 'U' 'M' 'N' -> 0..3, else -1
const char* queue_name(int q);

// Raises tilesim::linx::Fault "<INSTR>: fault (<kind>) at word <i>: <detail> in block `<text>` [DOC]",
// DOC a citation of a rule heading of docs/linx.md.
[[noreturn]] void fault(const std::string& instr, const std::string& kind, long word, const std::string& block,
                        const std::string& detail, const std::string& spec);

// At most N elements in place (a block releases at most 3 tiles and pushes at most 1): a Commit
// makes no heap allocation for them, ~10 % of a small TEPL block's fixed cost when it did.
template <class T, size_t N>
class FixedList {
 public:
  template <class... A>
  void emplace_back(A&&... a) {
    if (n_ == N) throw std::length_error("linx Commit: more than " + std::to_string(N) + " entries");
    v_[n_++] = T{std::forward<A>(a)...};
  }
  void push_back(T x) { emplace_back(std::move(x)); }
  T* begin() noexcept { return v_.data(); }
  T* end() noexcept { return v_.data() + n_; }
  const T* begin() const noexcept { return v_.data(); }
  const T* end() const noexcept { return v_.data() + n_; }
  size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }

 private:
  std::array<T, N> v_{};
  size_t n_ = 0;
};

// What a committed block changes: ACC, the tiles it releases, the tiles it pushes, the memory
// bytes it stores. Everything is validated before a Commit exists, so applying one cannot fail.
struct Commit {
  bool acc_set = false;
  AccView acc;
  FixedList<std::pair<int, size_t>, 4> release;  // (queue, window position)
  struct Push {
    int queue;
    std::shared_ptr<const TileBytes> bytes;  // `size` bytes
  };
  FixedList<Push, 2> push;
  struct Run {
    uint64_t addr;
    size_t offset, len;  // into store_data
  };
  std::vector<uint8_t> store_data;
  std::vector<Run> store;
  // A store done at apply time straight into memory (TSTORE: tile -> memory without a copy in
  // between); it writes below write_end only and cannot fail.
  std::function<void(uint8_t* mem)> write;
  uint64_t write_end = 0;
};
// Validates and computes one block (commit word first) without touching the state. (exec_cube
// moves ACC's buffer into its Commit once validation has passed: the Commit is then applied.)
Commit exec_cube(Machine::State& s, std::span<const enc::Word> block, long word_index);
Commit exec_acccvt(const Machine::State& s, std::span<const enc::Word> block, long word_index);  // acccvt.cpp
Commit exec_tma(const Machine::State& s, std::span<const enc::Word> block, long word_index);     // tma.cpp
Commit exec_tepl(const Machine::State& s, std::span<const enc::Word> block, long word_index);    // tepl.cpp
// Applies a Commit (releases, then pushes with queue eviction, stores, ACC).
void apply(Machine::State& s, Commit&& c);

// Machine::push_raw on the state, with its profile's sizes and capacity (spec 30 §1).
void push_raw(Machine::State& s, char queue, std::span<const uint8_t> raw, size_t size);

}  // namespace tilesim::linx
