// tilesim::linx — LinxISA tile blocks (spec 30): the TMATMUL family of CUBE template blocks,
// their 32-bit header words, assembly text, a machine with tile queues and ACC, and the shared
// GEMM core (also usable directly on logical matrices of any size).
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"

namespace tilesim::linx {

using formats::DType;

// ---- faults (spec 30 §1) ----
// A machine fault: atomic (the machine is unchanged), naming its kind, the index of the faulting
// block's commit word (-1 for a host-side tile push) and the block as text.
class Fault : public Error {
 public:
  Fault(std::string kind, long word_index, std::string block_text, const std::string& message)
      : Error(ErrorCode::Fault, message), kind_(std::move(kind)), word_index_(word_index),
        block_text_(std::move(block_text)) {}
  const std::string& kind() const noexcept { return kind_; }
  long word_index() const noexcept { return word_index_; }
  const std::string& block_text() const noexcept { return block_text_; }

 private:
  std::string kind_;
  long word_index_;
  std::string block_text_;
};

// ---- text <-> words (spec 30 §5, §6) ----
// Template and raw header forms; errors are Error(Parse) "NAME:line:col: ..." naming the line.
std::vector<uint32_t> assemble(std::string_view text, std::string_view filename = "<input>");
// Raw form, one line per word; fold=true prints each foldable CUBE block in template form.
// A word matching no encoding (or using a reserved value) raises Error(Parse) naming word and index.
std::string disassemble(std::span<const uint32_t> words, bool fold = false);
// The same, going on past bad words (the CLI, docs/linx.md#disassembler): a word matching no
// encoding prints as ".word 0xXXXXXXXX  # invalid: <reason>" and ends the block it was in;
// `invalid` counts them.
struct Disassembly {
  std::string text;
  size_t invalid = 0;
};
Disassembly disassemble_all(std::span<const uint32_t> words, bool fold = false);

// ---- tile layouts (spec 30 §4) ----
enum class Layout : uint8_t { nz, zn, nd };
Layout parse_layout(std::string_view name);
std::string_view name(Layout l) noexcept;
// Bytes a rows x cols matrix of t occupies in layout l (padded to whole fractals for nz / zn).
size_t packed_bytes(size_t rows, size_t cols, DType t, Layout l);
// Element width of the carrier arrays pack() takes and unpack() returns: storage_bits/8 bytes,
// one byte per element for the packed 4-bit types (codes, unpacked; spec 60 §2).
size_t carrier_bytes(DType t) noexcept;
// elems: rows x cols row-major carrier elements (codes). Padding bytes are written 0.
std::vector<uint8_t> pack(const void* elems, size_t rows, size_t cols, DType t, Layout l);
// Inverse of pack; raw must hold at least packed_bytes(rows, cols, t, l) bytes.
std::vector<uint8_t> unpack(std::span<const uint8_t> raw, size_t rows, size_t cols, DType t, Layout l);

// ---- the TMATMUL family's types (spec 30 §2, §3) ----
// The 5-bit data-type code of BSTART.CUBE / B.DATR; `known` false for reserved codes.
struct TypeCode {
  uint8_t code;
  const char* name;   // LinxISA spelling ("FP32", "E2M1x2", ...)
  bool known;         // a listed code
  bool matmul;        // a legal TMATMUL A/B type (the seed's table)
  DType dtype;        // tilesim format (meaningful when matmul)
};
const TypeCode& type_code(unsigned code);            // code 0..31
bool parse_type_name(std::string_view s, unsigned& code) noexcept;
// ACC element type of a legal A type: fp32, s32 or u32 (spec 30 §3 classes).
DType acc_type(DType operand) noexcept;
// Legal TMATMUL operand (the seed's table) as a tilesim format.
bool matmul_operand(DType t) noexcept;

// ---- the GEMM core (spec 30 §3, §4) ----
enum class Engine : uint8_t { fast, reference };
// A logical matrix: rows x cols row-major carrier elements (see carrier_bytes).
struct Matrix {
  const void* data;
  size_t rows, cols;
};
struct GemmTypes {
  DType a, b;
  bool accumulate = false;        // TMATMUL.ACC: `acc` holds the chain's start values
  Engine engine = Engine::fast;   // both engines give identical bits (the reference defines them)
};
// acc: M x N 32-bit elements of acc_type(a) (written; read first when accumulate). bias: N such
// elements or null (TMATMUL.BIAS). Checks types (legal, same class) and shapes.
void gemm(const Matrix& a, const Matrix& b, const void* bias, void* acc, const GemmTypes& types);

// ---- the machine (spec 30 §1) ----
struct TileInfo {
  int index;      // relative index n of Q#n (1 = newest)
  size_t size;    // bytes
  bool live;
};
struct AccView {
  bool valid = false;
  long released_at = -1;  // commit-word index of the ACCCVT that released ACC (spec 31 §2), else -1
  size_t m = 0, n = 0;
  DType type = DType::fp32;
  std::vector<uint32_t> data;  // m x n row-major
};

inline constexpr size_t kDefaultMemBytes = size_t{64} << 20;  // spec 31 §1

class Machine {
 public:
  explicit Machine(std::string_view profile = "linx_v056", size_t mem_bytes = kDefaultMemBytes);
  ~Machine();
  Machine(const Machine&);
  Machine& operator=(const Machine&);

  // reg: "R0".."R23" or an ABI name; writing R0 / zero or a reserved register is an Error.
  void set_reg(std::string_view reg, uint64_t value);
  uint64_t reg(unsigned index) const;
  static unsigned parse_reg(std::string_view name);  // Error(Constraint) when unknown/reserved

  // Pushes raw tile bytes onto queue 'T' 'U' 'M' or 'N'. size: 256 B x 2^k up to 256 KB and at
  // least raw.size(); 0 = the smallest legal size holding raw. Faults on the live-capacity rule.
  void push_raw(char queue, std::span<const uint8_t> raw, size_t size = 0);
  // Packs then pushes (a Bias is a 1 x N matrix in layout nd).
  void push_tile(char queue, const void* elems, size_t rows, size_t cols, DType t, Layout l,
                 size_t size = 0);

  void run(std::span<const uint32_t> words);
  void run(std::string_view assembly_text);
  // Trace (docs/cli.md#trace): one JSON line per executed block to *out (nullptr: off): the block's
  // op, its text, and a summary of ACC after it; values adds the full ACC when small.
  void set_trace(std::ostream* out, bool values = false);

  // ---- memory (spec 31 §1): flat, little-endian, bounds-checked; Error(Bounds) outside it ----
  size_t mem_bytes() const;
  void write_mem(uint64_t addr, std::span<const uint8_t> data);
  std::vector<uint8_t> read_mem(uint64_t addr, size_t nbytes) const;
  // rows x cols carrier elements (as unpack) read from packed bytes at addr in layout l.
  std::vector<uint8_t> read_array(uint64_t addr, size_t rows, size_t cols, DType t, Layout l = Layout::nd) const;

  const AccView& acc() const;
  // Per queue ('T','U','M','N'), newest first, the 16-entry window.
  std::vector<TileInfo> tiles(char queue) const;
  // Bytes of tile Q#n (n relative; Error if absent, or if released: its bytes are freed then,
  // docs/linx.md decision 15).
  std::vector<uint8_t> tile_bytes(char queue, int n) const;
  size_t live_bytes() const;

  struct State;

 private:
  std::unique_ptr<State> s_;
  std::ostream* trace_ = nullptr;
  bool trace_values_ = false;
  size_t trace_step_ = 0;
};

}  // namespace tilesim::linx
