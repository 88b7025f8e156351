// What the TMA, ACCCVT and TEPL blocks share (spec 31 §1): the block's descriptors read once
// (lane bounds, B.IOR registers, the one B.DATR or B.ARG, the B.IOT words), tile geometry, tile
// fetch, destination allocation with the capacity rule, and memory bounds. Each check faults with
// the block, word, field and values (spec 30 §1); nothing here changes the machine.
#pragma once
#include <array>
#include <span>
#include <string>
#include <vector>

#include "linx/machine_state.hpp"

namespace tilesim::linx::blk {

__extension__ typedef unsigned __int128 u128;  // address arithmetic without wrap-around

// The least bytes of tile a thread takes when TMA and ACCCVT split a large tile over the threads
// (parallel_for chunks; the bytes are the same for every thread count). A compromise between
// hosts, measured in the 512^3 words GEMM at 2 threads (its TLOADs are 256 KB): on Zen 5 (2 vCPUs
// that behave like one core's two threads; a pool dispatch 3-6 us) 128 KB chunks made it ~5%
// faster and a lone 256 x 256 fp32 TLOAD + TSTORE 1.6x slower than one chunk per tile; on Zen 4
// (2 cores, 2026-12-07) 128 KB made the words GEMM 1.80 -> 1.61 ms and the lone pair 10.9 -> 6.9
// us. 32 KB chunks were 3x slower on Zen 5.
inline constexpr size_t kThreadChunk = size_t{128} << 10;

struct Ctx {
  std::string instr;
  long word;
  std::span<const enc::Word> block;
  [[noreturn]] void fail(const std::string& kind, const std::string& detail, const std::string& spec) const;
};

// B.DATR fields, or what a literal B.ARG row names; defaults when the block has neither.
struct Attr {
  bool present = false;
  bool arg_unsupported = false;  // B.ARG N or NZ2DN.canon: decode, fault when executed
  unsigned layout = 0, datatype = 31, pad = 3 /* Null */, rmode = 0, cmode = 0, sat = 0;
};

struct Desc {
  std::array<uint32_t, 3> lb{1, 1, 1};
  std::array<bool, 3> lb_set{};
  Attr attr;
  bool has_ior = false;
  // The first B.IOR's RegSrc0..2 (codes; 0 = absent) and the first B.IOT with the count: no block
  // here reads more, and fixed fields keep a small block's description off the heap.
  std::array<unsigned, 3> regs{};
  const enc::Word* iot = nullptr;
  size_t iot_count = 0;
  unsigned reg_code(size_t i) const { return i < regs.size() ? regs[i] : 0; }
};

// Reads the block's words after the commit word: at most one B.DATR / B.ARG, B.IOR with RegDst
// `zero`, B.IOT `last` exactly on the final one; B.IOD has no place here (malformed block).
Desc describe(const Machine::State& s, const Ctx& c);

// The B.IOT shape a block needs: the number of sources and whether it has a destination.
void need_iot(const Ctx& c, const Desc& d, unsigned sources, bool destination);
// The fields of B.DATR this block does not use must be 0 (`used` names them: "layout pad ...").
void unused_zero(const Ctx& c, const Attr& a, const char* used);

// The tile a geometry check is about ("destination", "src0 T#1"): its text is built only when a
// check fails (every block checks its tiles; the strings cost more than a small TEPL's checks).
struct Role {
  const char* what;
  int code = -1;  // the tile's queue code (enc::tile_text), -1: none
  Role(const char* w, int c = -1) : what(w), code(c) {}  // NOLINT: implicit from a name
  std::string text() const;
};

// Tile geometry (spec 31 §1): LB0 = ValidCol, LB1 = ValidRow, LB2 = Col; Row = Size / (Col * bytes).
struct Geom {
  size_t vr, vc, row, col, esize;  // esize: element bytes, 0 for 4-bit types
  unsigned bits;                   // element bits (4 for S4x2 U4x2 E2M1x2 E1M2x2)
};
Geom geometry(const Ctx& c, const Desc& d, size_t size, size_t esize, const Role& role);
// The same for an element of `bits` bits; 4-bit tiles need Col and ValidCol even (whole bytes per
// row, docs/linx.md#tload-tstore-tmov).
Geom geometry_bits(const Ctx& c, const Desc& d, size_t size, unsigned bits, const Role& role);

// Element bytes of a TMA / TEPL DataType (whole-byte types only), else a fault.
size_t elem_bytes(const Ctx& c, unsigned dt, const char* role);
// Element bits of a TMA DataType: whole-byte types and the 4-bit S4x2 U4x2 E2M1x2 E1M2x2.
unsigned elem_bits(const Ctx& c, unsigned dt, const char* role);

struct Source {
  const TileSlot* slot;
  int queue;
  size_t pos;
  bool reuse;
  unsigned code;
};
Source fetch(const Machine::State& s, const Ctx& c, unsigned code, bool reuse, const char* role);

// A destination of `size` bytes on queue code `dst` (T U M N; ACC / S / none: fault), checked
// against the profile's tile sizes and, after the block's releases, the live capacity.
int destination(const Machine::State& s, const Ctx& c, const Commit& commit, unsigned dst, size_t size);

// The PadValue code of dtype t (spec 31 §1): Zero / Null 0, Max / Min the largest / most negative finite.
uint64_t pad_code(const Ctx& c, DType t, unsigned pad);

// [addr, addr + n) inside memory, else a fault naming the operand (what(): its text, built only then).
[[noreturn]] void mem_fault(const Machine::State& s, const Ctx& c, u128 addr, u128 n, const std::string& what);
template <class What>
void mem_ok(const Machine::State& s, const Ctx& c, u128 addr, u128 n, const What& what) {
  if (addr + n > s.mem.size()) mem_fault(s, c, addr, n, what());
}

// Releases the sources without .reuse at commit (spec 30 §1).
void release(Commit& out, std::initializer_list<const Source*> srcs);

std::string num(uint64_t v);

}  // namespace tilesim::linx::blk
