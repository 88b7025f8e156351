// The encoding table (spec 30 §6, from lx_32.opc) and the generic encoder / decoder over it.
// This file is the only place that knows a bit position.
#include "linx/encoding_table.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "tilesim/error.hpp"
#include "tilesim/linx.hpp"

namespace tilesim::linx::enc {
namespace {

constexpr uint32_t bits_mask(unsigned hi, unsigned lo) {
  const unsigned w = hi - lo + 1;
  return (w >= 32 ? 0xFFFFFFFFu : ((1u << w) - 1u)) << lo;
}

// Fills mask/match from the fixed bits, at compile time.
constexpr Row finish(Row r) {
  r.mask = r.match = 0;
  for (unsigned i = 0; i < r.nfixed; ++i) {
    r.mask |= bits_mask(r.fixed[i].hi, r.fixed[i].lo);
    r.match |= r.fixed[i].value << r.fixed[i].lo;
  }
  return r;
}

constexpr FieldDef fd(F id, Kind k, uint8_t hi, uint8_t lo) { return {id, k, 1, {{hi, lo, 0}, {0, 0, 0}}}; }
constexpr FieldDef fd2(F id, Kind k, Slice a, Slice b) { return {id, k, 2, {a, b}}; }

// Selector header of a SIMT / FIXP block class (bits 19..15 = class, 26..25 = 00): spec 30 §6.
// Bits 31..27 and 24..20 are shown as one number (bits 31..20 with 26..25 zero).
constexpr Row selector(Op op, const char* mn, uint32_t cls) {
  return {op, mn, 1, {fd2(F::imm, Kind::simt_imm, {31, 27, 7}, {24, 20, 0})}, 5,
          {{26, 25, 0}, {19, 15, cls}, {14, 12, 1}, {11, 7, 3}, {6, 0, 1}}, 0, 0};
}

constexpr uint32_t low7_datr = 0b0100011, low7_dim = 0b1000011, low7_io = 0b0010011;

constexpr Row dim_row(uint32_t lb) {
  return {Op::b_dim, "B.DIM", 2,
          {fd2(F::uimm, Kind::number, {31, 20, 0}, {11, 7, 12}), fd(F::reg, Kind::greg, 19, 15)},
          2, {{14, 12, lb}, {6, 0, low7_dim}}, 0, 0, 1, {{F::lb, lb}}};
}
// The literal B.ARG rows of lx_32.opc (spec 31 §1): bits 31..20, 19..15 and 11..7 fixed; what the
// spelling names (layout, DataType, pad; no pad named = Null = 3) as literal field values.
constexpr Row arg_lit(uint32_t hi, uint32_t mid, uint32_t low, uint32_t layout, uint32_t dt, uint32_t canon,
                      const char* spelling) {
  return {Op::b_arg_lit, "B.ARG", 0, {}, 5,
          {{31, 20, hi}, {19, 15, mid}, {14, 12, 2}, {11, 7, low}, {6, 0, low7_datr}}, 0, 0, 4,
          {{F::layout, layout}, {F::datatype, dt}, {F::pad, 3}, {F::canon, canon}}, spelling};
}

constexpr Row kRaw[kNumRows] = {
    {Op::bstart_cube, "BSTART.CUBE", 2,
     {fd(F::dt, Kind::dtype, 31, 27), fd(F::fn, Kind::cube_fn, 24, 20)}, 5,
     {{26, 25, 0}, {19, 15, 6}, {14, 12, 1}, {11, 7, 3}, {6, 0, 1}}, 0, 0},
    selector(Op::bstart_mpar, "BSTART.MPAR", 0),
    selector(Op::bstart_mseq, "BSTART.MSEQ", 1),
    {Op::bstart_tma, "BSTART.TMA", 2,
     {fd(F::dt, Kind::dtype, 31, 27), fd(F::fn, Kind::tma_fn, 24, 20)}, 5,
     {{26, 25, 0}, {19, 15, 2}, {14, 12, 1}, {11, 7, 3}, {6, 0, 1}}, 0, 0},
    selector(Op::bstart_vpar, "BSTART.VPAR", 4),
    selector(Op::bstart_vseq, "BSTART.VSEQ", 5),
    selector(Op::bstart_fixp, "BSTART.FIXP", 7),
    // Bits 26..25 = 01 decide TEPL first, whatever 19..15 hold (spec 30 §6 "Selector headers").
    {Op::bstart_tepl, "BSTART.TEPL", 2,
     {fd(F::dt, Kind::dtype, 31, 27), fd(F::topc, Kind::tepl_op, 24, 15)}, 4,
     {{26, 25, 1}, {14, 12, 1}, {11, 7, 3}, {6, 0, 1}}, 0, 0},
    {Op::b_datr, "B.DATR", 6,
     {fd(F::sat, Kind::number, 31, 31), fd(F::rmode, Kind::number, 30, 28),
      fd(F::cmode, Kind::number, 27, 25), fd(F::datatype, Kind::dtype_any, 24, 20),
      fd(F::pad, Kind::number, 19, 15), fd(F::layout, Kind::number, 11, 7)},
     2, {{14, 12, 1}, {6, 0, low7_datr}}, 0, 0},
    dim_row(0), dim_row(1), dim_row(2),
    {Op::b_iot2, "B.IOT", 7,
     {fd(F::s1r, Kind::flag, 31, 31), fd(F::s0r, Kind::flag, 30, 30), fd(F::last, Kind::flag, 29, 29),
      fd(F::size, Kind::size4, 28, 25), fd(F::dst, Kind::dst, 24, 22), fd(F::s1, Kind::tile, 21, 16),
      fd2(F::s0, Kind::tile, {15, 15, 5}, {11, 7, 0})},
     2, {{14, 12, 0b100}, {6, 0, low7_io}}, 0, 0},
    {Op::b_iot1, "B.IOT", 5,
     {fd(F::s0r, Kind::flag, 30, 30), fd(F::last, Kind::flag, 29, 29), fd(F::size, Kind::size4, 28, 25),
      fd(F::dst, Kind::dst, 24, 22), fd2(F::s0, Kind::tile, {15, 15, 5}, {11, 7, 0})},
     4, {{31, 31, 0}, {21, 16, 0}, {14, 12, 0b101}, {6, 0, low7_io}}, 0, 0},
    {Op::b_iot0, "B.IOT", 3,
     {fd(F::last, Kind::flag, 29, 29), fd(F::size, Kind::size4, 28, 25), fd(F::dst, Kind::dst, 24, 22)},
     5, {{31, 30, 0}, {21, 15, 0}, {14, 12, 0b110}, {11, 7, 0}, {6, 0, low7_io}}, 0, 0},
    {Op::b_iod, "B.IOD", 4,
     {fd(F::d2, Kind::number, 31, 27), fd(F::d1, Kind::number, 24, 20), fd(F::d0, Kind::number, 19, 15),
      fd(F::dd, Kind::number, 11, 7)},
     3, {{26, 25, 0}, {14, 12, 1}, {6, 0, low7_io}}, 0, 0},
    // B.IOR: the i-th register written is RegSrc(i-1) (spec 31 §1, lx_32.opc field names).
    {Op::b_ior, "B.IOR", 4,
     {fd(F::rs2, Kind::greg, 31, 27), fd(F::rs1, Kind::greg, 24, 20), fd(F::rs0, Kind::greg, 19, 15),
      fd(F::rd, Kind::greg, 11, 7)},
     3, {{26, 25, 0}, {14, 12, 0}, {6, 0, low7_io}}, 0, 0},
    {Op::b_arg, "B.ARG", 1, {fd(F::format, Kind::number, 11, 7)}, 3,
     {{31, 15, 0}, {14, 12, 3}, {6, 0, low7_dim}}, 0, 0},
    arg_lit(0x180, 4, 3, 3, 4, 0, "ND2ZN.normal, FP16, Null"),
    arg_lit(0x180, 1, 9, 9, 1, 0, "DN2NZ.normal, FP32, Null"),
    arg_lit(0x180, 4, 8, 8, 4, 0, "DN2ZN.normal, FP16, Null"),
    arg_lit(0x020, 31, 28, 28, 31, 1, "NZ2DN.canon"),
    arg_lit(0x000, 31, 0, 0, 31, 0, "NORM.normal"),
    {Op::bstop, "BSTOP", 0, {}, 1, {{31, 0, 1}}, 0, 0},
};

constexpr std::array<Row, kNumRows> build() {
  std::array<Row, kNumRows> a{};
  for (int i = 0; i < kNumRows; ++i) a[static_cast<size_t>(i)] = finish(kRaw[i]);
  return a;
}
constexpr std::array<Row, kNumRows> kRowsInit = build();

constexpr std::array<uint8_t, kNumOps> first_rows() {
  std::array<uint8_t, kNumOps> a{};
  for (int i = kNumRows - 1; i >= 0; --i) a[static_cast<size_t>(kRowsInit[static_cast<size_t>(i)].op)] = static_cast<uint8_t>(i);
  return a;
}
constexpr std::array<uint8_t, kNumOps> kFirstRow = first_rows();

const char* const kFieldNames[kNumFields] = {
    "DT", "Fn", "imm", "Sat", "RMode", "CMode", "DataType", "PadValue", "DataLayout",
    "uimm", "reg", "LB", "S1R", "S0R", "L", "imm4", "Dst", "s1", "s0", "d0", "d1", "d2", "dd",
    "TileOpcode", "RegSrc0", "RegSrc1", "RegSrc2", "RegDst", "format", "canon"};

const char* const kTmaFn[3] = {"TLOAD", "TSTORE", "TMOV"};

// engine_ops.json `tepl` (spec 31 §2): TileOpcode = (mode << 5) | function.
const char* const kTepl[kNumTepl] = {
    "TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TAND", "TOR", "TXOR", "TSHL", "TSHR", "TRELU",
    "TPRELU", "TCVT", "TEXP", "TLOG", "TSQRT", "TRSQRT", "TROWMAX", "TROWMIN", "TROWSUM", "TCOLMAX",
    "TCOLMIN", "TCOLSUM", "TRECIP", "TEXPANDS", "TGATHER", "TSCATTER", "TRESHAPE", "TTRANSPOSE",
    "TCOLEXPAND", "TROWEXPAND",
    "TADDS", "TSUBS", "TMULS", "TDIVS", "TMAXS", "TMINS", "TANDS", "TORS", "TXORS", "TSHLS", "TSHRS"};

// B.DATR DataLayout codes (spec 31 §1, the manual's B.DATR page); 16 reserved.
const char* const kLayouts[32] = {
    "NORM",  "ND2DN", "ND2ZZ", "ND2ZN", "ND2NZ", "ND2NN", "DN2ND", "DN2ZZ", "DN2ZN", "DN2NZ", "DN2NN",
    "ZZ2ND", "ZZ2DN", "ZZ2ZN", "ZZ2NZ", "ZZ2NN", nullptr, "ZN2ND", "ZN2DN", "ZN2ZZ", "ZN2NZ", "ZN2NN",
    "NN2ND", "NN2DN", "NN2ZZ", "NN2ZN", "NN2NZ", "NZ2ND", "NZ2DN", "NZ2ZZ", "NZ2ZN", "NZ2NN"};
const char* const kPads[4] = {"Zero", "Max", "Min", "Null"};

const char* const kCubeFn[32] = {
    "TMATMUL", "TMATMUL.BIAS", "TMATMUL.ACC", nullptr, "TMATMULMX", "TMATMULMX.BIAS", "TMATMULMX.ACC",
    nullptr, "ACCCVT", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
    "TGEMV", "TGEMV.BIAS", "TGEMV.ACC", nullptr, "TGEMVMX", "TGEMVMX.BIAS", "TGEMVMX.ACC",
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

// Dst codes; 4 = ACC is a tilesim assignment (spec 30 §6), 6 reserved.
const char* const kDst[8] = {"T", "U", "M", "N", "ACC", "S", nullptr, "NONE"};

const char* const kRegs[24] = {"zero", "sp", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra", "fp",
                               "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "x0", "x1", "x2", "x3"};

std::string hex(uint32_t w) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08X", w);
  return b;
}

}  // namespace

std::span<const Row> rows() { return kRowsInit; }
const Row& row(Op op) { return kRowsInit[kFirstRow[static_cast<size_t>(op)]]; }
const char* field_name(F f) { return kFieldNames[static_cast<size_t>(f)]; }

static const FieldDef* find_field(const Row& r, F f) {
  for (unsigned i = 0; i < r.nfields; ++i)
    if (r.fields[i].id == f) return &r.fields[i];
  return nullptr;
}
bool has_field(const Row& r, F f) { return find_field(r, f) != nullptr; }
// Width of the field's value: its highest value bit + 1 (a split field may skip value bits).
unsigned field_width(const Row& r, F f) {
  const FieldDef* d = find_field(r, f);
  if (!d) return 0;
  unsigned w = 0;
  for (unsigned i = 0; i < d->nslices; ++i)
    w = std::max(w, d->slices[i].vlo + d->slices[i].hi - d->slices[i].lo + 1u);
  return w;
}

const char* reserved_reason(Kind kind, uint32_t v) {
  switch (kind) {
    case Kind::dtype: return type_code(v).known ? nullptr : "reserved data-type code";
    case Kind::cube_fn: return cube_fn_name(v) ? nullptr : "reserved CUBE function code";
    case Kind::tma_fn: return tma_fn_name(v) ? nullptr : "reserved TMA function (3..31)";
    case Kind::tepl_op:
      return tepl_name(v) ? nullptr : "reserved TEPL TileOpcode (bits 9..6 set, or mode 1 function 11..31)";
    case Kind::simt_imm:
      return (v & 0x60u) ? "bits 26..25 (Mode, e.g. VS16) must be 0: with 01 the word is the BSTART.TEPL "
                           "selector, 10/11 are reserved"
                         : nullptr;
    case Kind::greg: return v < 24 ? nullptr : "reserved register code (24..31)";
    case Kind::lb: return v < 3 ? nullptr : "reserved lane-bound index (LB0..LB2 only)";
    case Kind::dst: return dst_name(v) ? nullptr : "reserved destination code";
    default: return nullptr;
  }
}

// Cross-field rule: no destination means no size (spec 30 §6 "7 none (imm4 must be 0)"). A
// destination with imm4 = 0 (0 B) encodes (the v0.56 LLVM tests round-trip `->u<0>`, spec 30 §5)
// and faults when a block allocates it.
static const char* cross_rule(const Row& r, const Word& w) {
  if (has_field(r, F::dst) && w[F::dst] == kDstNone && w[F::size] != 0)
    return "Dst none (7) with imm4 != 0";
  return nullptr;
}

// The row of w.op whose literal field values w holds.
static const Row* row_for(const Word& w) {
  for (const Row& r : kRowsInit) {
    if (r.op != w.op) continue;
    bool ok = true;
    for (unsigned i = 0; i < r.nlits; ++i) ok = ok && w[r.lits[i].id] == r.lits[i].value;
    if (ok) return &r;
  }
  return nullptr;
}

uint32_t encode(const Word& w, const std::string& what) {
  const Row* rp = row_for(w);
  if (!rp) {
    std::string vals;
    for (unsigned i = 0; i < row(w.op).nlits; ++i)
      vals += std::string(vals.empty() ? "" : ", ") + field_name(row(w.op).lits[i].id) + " = " +
              std::to_string(w[row(w.op).lits[i].id]);
    raise(ErrorCode::Parse, what.empty() ? row(w.op).mnemonic : what, "no encoding for " + vals, "docs/linx.md#encodings");
  }
  const Row& r = *rp;
  uint32_t out = r.match;
  for (unsigned i = 0; i < r.nfields; ++i) {
    const FieldDef& d = r.fields[i];
    const uint32_t v = w.v[static_cast<size_t>(d.id)];
    const unsigned width = field_width(r, d.id);
    if (width < 32 && (v >> width) != 0)
      raise(ErrorCode::Parse, what.empty() ? r.mnemonic : what,
            std::string(field_name(d.id)) + " = " + std::to_string(v) + " does not fit " +
                std::to_string(width) + " bits",
            "docs/linx.md#encodings");
    if (const char* why = reserved_reason(d.kind, v))
      raise(ErrorCode::Parse, what.empty() ? r.mnemonic : what,
            std::string(field_name(d.id)) + " = " + std::to_string(v) + ": " + why, "docs/linx.md#encodings");
    for (unsigned s = 0; s < d.nslices; ++s) {
      const Slice& sl = d.slices[s];
      const unsigned sw = sl.hi - sl.lo + 1u;
      out |= ((v >> sl.vlo) & ((1u << sw) - 1u)) << sl.lo;
    }
  }
  if (const char* why = cross_rule(r, w))
    raise(ErrorCode::Parse, what.empty() ? r.mnemonic : what, why, "docs/linx.md#encodings");
  return out;
}

std::optional<Word> decode(uint32_t word, std::string* why) {
  const Row* hit = nullptr;
  for (const Row& r : kRowsInit)
    if ((word & r.mask) == r.match) { hit = &r; break; }  // rows never overlap (tested)
  if (!hit) {
    if (why) *why = "matches no encoding";
    return std::nullopt;
  }
  Word w;
  w.op = hit->op;
  for (unsigned i = 0; i < hit->nlits; ++i) w[hit->lits[i].id] = hit->lits[i].value;
  for (unsigned i = 0; i < hit->nfields; ++i) {
    const FieldDef& d = hit->fields[i];
    uint32_t v = 0;
    for (unsigned s = 0; s < d.nslices; ++s) {
      const Slice& sl = d.slices[s];
      v |= ((word & bits_mask(sl.hi, sl.lo)) >> sl.lo) << sl.vlo;
    }
    w.v[static_cast<size_t>(d.id)] = v;
    if (const char* r = reserved_reason(d.kind, v)) {
      if (why) *why = std::string(hit->mnemonic) + " " + field_name(d.id) + " = " + std::to_string(v) + ": " + r;
      return std::nullopt;
    }
  }
  if (const char* r = cross_rule(*hit, w)) {
    if (why) *why = std::string(hit->mnemonic) + ": " + r;
    return std::nullopt;
  }
  return w;
}

Word decode_at(uint32_t word, size_t index) {
  std::string why;
  auto w = decode(word, &why);
  if (!w)
    raise(ErrorCode::Parse, "linx decode", "word " + hex(word) + " at index " + std::to_string(index) + ": " + why,
          "docs/linx.md#encodings");
  return *w;
}

const char* cube_fn_name(unsigned fn) { return fn < 32 ? kCubeFn[fn] : nullptr; }
bool parse_cube_fn(const std::string& upper, unsigned& fn) {
  for (unsigned i = 0; i < 32; ++i)
    if (kCubeFn[i] && upper == kCubeFn[i]) { fn = i; return true; }
  return false;
}
const char* tma_fn_name(unsigned fn) { return fn < 3 ? kTmaFn[fn] : nullptr; }
bool parse_tma_fn(const std::string& upper, unsigned& fn) {
  for (unsigned i = 0; i < 3; ++i)
    if (upper == kTmaFn[i]) { fn = i; return true; }
  return false;
}
const char* tepl_name(unsigned topc) { return topc < kNumTepl ? kTepl[topc] : nullptr; }
bool parse_tepl(const std::string& upper, unsigned& topc) {
  for (unsigned i = 0; i < kNumTepl; ++i)
    if (upper == kTepl[i]) { topc = i; return true; }
  return false;
}
const char* layout_name(unsigned code) { return code < 32 ? kLayouts[code] : nullptr; }
bool parse_layout_code(const std::string& upper, unsigned& code) {
  for (unsigned i = 0; i < 32; ++i)
    if (kLayouts[i] && upper == kLayouts[i]) { code = i; return true; }
  return false;
}
const char* pad_name(unsigned code) { return code < 4 ? kPads[code] : nullptr; }
bool parse_pad(const std::string& upper, unsigned& code) {
  for (unsigned i = 0; i < 4; ++i) {
    std::string u = kPads[i];
    for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper == u) { code = i; return true; }
  }
  return false;
}
const char* dst_name(unsigned d) { return d < 8 ? kDst[d] : nullptr; }
bool parse_dst(const std::string& upper, unsigned& d) {
  for (unsigned i = 0; i < 7; ++i)
    if (kDst[i] && upper == kDst[i]) { d = i; return true; }
  return false;
}
unsigned size_bytes(unsigned imm4) { return imm4 == 0 ? 0u : 16u << imm4; }
std::string size_text(unsigned imm4) {
  const unsigned b = size_bytes(imm4);
  if (b >= 1024) return std::to_string(b / 1024) + "KB";
  return std::to_string(b) + "B";
}
bool parse_size(const std::string& u, unsigned& imm4) {
  for (unsigned i = 0; i < 16; ++i)
    if (u == size_text(i)) { imm4 = i; return true; }
  return false;
}
const char* reg_name(unsigned r) { return r < 24 ? kRegs[r] : nullptr; }
bool parse_reg(const std::string& s, unsigned& r) {
  for (unsigned i = 0; i < 24; ++i)
    if (s == kRegs[i]) { r = i; return true; }
  if (s == "s0") { r = 11; return true; }
  if (s.size() >= 2 && s.size() <= 3 && s[0] == 'r' && std::isdigit(static_cast<unsigned char>(s[1])) &&
      (s.size() == 2 || std::isdigit(static_cast<unsigned char>(s[2])))) {
    r = static_cast<unsigned>(std::stoul(s.substr(1)));
    return true;  // 24..31 parse (so the caller can say "reserved"); callers check r < 24
  }
  return false;
}
std::string tile_text(unsigned code) {
  static const char q[4] = {'T', 'U', 'M', 'N'};
  return std::string(1, q[(code >> 4) & 3]) + "#" + std::to_string((code & 15) + 1);
}
bool parse_tile(const std::string& u, unsigned& code, bool& oor) {
  oor = false;
  if (u.size() < 3 || u[1] != '#') return false;
  const char* qs = "TUMN";
  const char* p = std::strchr(qs, u[0]);
  if (!p || u[0] == 0) return false;
  for (size_t i = 2; i < u.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(u[i]))) return false;
  if (u.size() > 5) { oor = true; return true; }
  const unsigned n = static_cast<unsigned>(std::stoul(u.substr(2)));
  if (n < 1 || n > 16) { oor = true; return true; }
  code = static_cast<unsigned>(p - qs) * 16 + (n - 1);
  return true;
}

}  // namespace tilesim::linx::enc
