// The one encoding table of LinxISA block-header words (spec 30 §6, spec 70 item 1). Every bit
// position lives in encoding_table.cpp; encoder, decoder, assembler and disassembler work on
// rows and named field values only.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace tilesim::linx::enc {

// Row identities (one per encoding form).
// Several rows may share one Op (B.DIM ->LB0/1/2, the literal B.ARG rows): such rows differ in
// fixed bits and carry the field values those bits stand for as literals (Row::lits).
enum class Op : uint8_t {
  bstart_cube, bstart_mpar, bstart_mseq, bstart_tma, bstart_vpar, bstart_vseq, bstart_fixp,
  bstart_tepl, b_datr, b_dim, b_iot2, b_iot1, b_iot0, b_iod, b_ior, b_arg, b_arg_lit, bstop,
};
inline constexpr int kNumOps = 18;
inline constexpr int kNumRows = 24;

// Named fields (value slots of a decoded word).
enum class F : uint8_t {
  dt, fn, imm,                                    // BSTART (imm: a non-CUBE selector's bits)
  sat, rmode, cmode, datatype, pad, layout,       // B.DATR
  uimm, reg, lb,                                  // B.DIM
  s1r, s0r, last, size, dst, s1, s0,              // B.IOT
  d0, d1, d2, dd,                                 // B.IOD
  topc,                                           // BSTART.TEPL TileOpcode
  rs0, rs1, rs2, rd,                              // B.IOR
  format,                                         // B.ARG N
  canon,                                          // literal B.ARG rows: the `.canon` spelling
};
inline constexpr int kNumFields = 31;

// What a field's values mean (drives validity and printing).
// dtype: a BSTART type (reserved codes are decode errors); dtype_any: B.DATR's DataType, any code
// decodes (spec 31 §1); simt_imm: bits 31..20 of a SIMT/FIXP selector whose bits 26..25 must be 0.
enum class Kind : uint8_t { number, dtype, dtype_any, cube_fn, tma_fn, tepl_op, simt_imm, greg, lb, flag, size4, dst, tile };

// One contiguous piece of a field: word bits hi..lo hold value bits [vlo + hi - lo : vlo].
struct Slice {
  uint8_t hi, lo, vlo;
};
struct FieldDef {
  F id;
  Kind kind;
  uint8_t nslices;
  Slice slices[2];
};
struct Fixed {
  uint8_t hi, lo;
  uint32_t value;
};
struct Lit {
  F id;
  uint32_t value;
};
struct Row {
  Op op;
  const char* mnemonic;   // raw-form spelling
  uint8_t nfields;
  FieldDef fields[7];
  uint8_t nfixed;
  Fixed fixed[6];
  uint32_t mask, match;   // computed from `fixed`
  uint8_t nlits = 0;      // field values implied by the fixed bits (rows sharing an Op)
  Lit lits[4] = {};
  const char* spelling = nullptr;  // literal rows: the operand text ("ND2ZN.normal, FP16, Null")
};

std::span<const Row> rows();
const Row& row(Op op);  // the first row of op (its mnemonic); encode picks the row by lits
const char* field_name(F f);

// A decoded word: its row and the value of every field of that row (others 0).
struct Word {
  Op op{};
  std::array<uint32_t, kNumFields> v{};
  uint32_t& operator[](F f) { return v[static_cast<size_t>(f)]; }
  uint32_t operator[](F f) const { return v[static_cast<size_t>(f)]; }
};

// Width of a field in bits (sum of its slices).
unsigned field_width(const Row& r, F f);
bool has_field(const Row& r, F f);

// Encodes; raises Error(Parse) if a value does not fit its field or is reserved (`what`
// names the caller's context for the message).
uint32_t encode(const Word& w, const std::string& what = {});
// Decodes; std::nullopt plus a reason when no row matches or a field holds a reserved value.
std::optional<Word> decode(uint32_t word, std::string* why = nullptr);
// Decodes or raises Error(Parse) "word 0x... at index i: reason [spec 30 §6]".
Word decode_at(uint32_t word, size_t index);

// Field-value vocabularies (spec 30 §2, §6; spec 31 §1, §2).
const char* tma_fn_name(unsigned fn);       // TLOAD TSTORE TMOV; nullptr when reserved
bool parse_tma_fn(const std::string& upper, unsigned& fn);
// TEPL TileOpcode = (mode << 5) | function (engine_ops.json); nullptr when reserved.
const char* tepl_name(unsigned topc);
bool parse_tepl(const std::string& upper, unsigned& topc);
inline constexpr unsigned kNumTepl = 43;    // opcodes 0..42 are assigned
const char* layout_name(unsigned code);     // B.DATR DataLayout: NORM ND2DN ... ; nullptr: reserved
bool parse_layout_code(const std::string& upper, unsigned& code);
const char* pad_name(unsigned code);        // Zero Max Min Null; nullptr: reserved
bool parse_pad(const std::string& upper, unsigned& code);
const char* cube_fn_name(unsigned fn);      // nullptr when reserved
bool parse_cube_fn(const std::string& upper, unsigned& fn);
const char* dst_name(unsigned dst);         // nullptr when reserved
bool parse_dst(const std::string& upper, unsigned& dst);
inline constexpr unsigned kDstAcc = 4, kDstNone = 7;
unsigned size_bytes(unsigned imm4);          // 16 B * 2^imm4 (0 for imm4 0)
bool parse_size(const std::string& upper, unsigned& imm4);
std::string size_text(unsigned imm4);
const char* reg_name(unsigned r);            // ABI name, nullptr when reserved (24..31)
bool parse_reg(const std::string& lower, unsigned& r);
std::string tile_text(unsigned code);        // "T#1" ...
bool parse_tile(const std::string& upper, unsigned& code, bool& index_out_of_range);
// Reason a value of `kind` is reserved, or nullptr when it is legal.
const char* reserved_reason(Kind kind, uint32_t value);

}  // namespace tilesim::linx::enc
