// Assembler: template forms (CUBE: spec 30 §5; TMA, ACCCVT, TEPL: spec 31 §3) and the raw header form -> words
// Checks syntax and encodability only; semantic legality is the machine's (spec 30 §5).
#include <cctype>
#include <functional>
#include <string>
#include <vector>

#include "linx/encoding_table.hpp"
#include "tilesim/error.hpp"
#include "tilesim/linx.hpp"

namespace tilesim::linx {
namespace {
using enc::F;
using enc::Op;

struct Tok {
  std::string text;  // as written
  std::string up;    // upper case
  size_t col;        // 1-based
};

struct Line {
  std::string file;
  size_t line;
  std::vector<Tok> toks;
  size_t end_col;
  [[noreturn]] void fail(size_t col, const std::string& mn, const std::string& msg) const {
    throw Error(ErrorCode::Parse, file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " +
                                      (mn.empty() ? "" : mn + ": ") + msg + " [docs/linx.md#assembly]");
  }
};

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '#';
}

// Strips comments (`;`, `//` anywhere; `#` at line start or after whitespace) and lexes.
std::vector<Tok> lex(const std::string& s, size_t& end_col, const std::function<void(size_t, std::string)>& bad) {
  std::vector<Tok> out;
  size_t i = 0;
  const size_t n = s.size();
  end_col = n + 1;
  while (i < n) {
    const char c = s[i];
    if (c == ';' || (c == '/' && i + 1 < n && s[i + 1] == '/') ||
        (c == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(s[i - 1]))))) {
      end_col = i + 1;
      break;
    }
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (c == '-' && i + 1 < n && s[i + 1] == '>') {
      out.push_back({"->", "->", i + 1});
      i += 2;
      continue;
    }
    if (word_char(c)) {
      size_t j = i;
      while (j < n && word_char(s[j])) ++j;
      std::string t = s.substr(i, j - i), u = t;
      for (auto& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      out.push_back({t, u, i + 1});
      i = j;
      continue;
    }
    if (std::string_view(",<>:+=[]").find(c) != std::string_view::npos) {
      out.push_back({std::string(1, c), std::string(1, c), i + 1});
      ++i;
      continue;
    }
    bad(i + 1, std::string("unexpected character '") + c + "'");
  }
  return out;
}

using Group = std::vector<Tok>;

struct Parser {
  const Line& L;
  std::string mn;
  size_t pos = 1;
  Parser(const Line& l) : L(l), mn(l.toks[0].up) {}

  [[noreturn]] void fail(size_t col, const std::string& m) const { L.fail(col, mn, m); }
  size_t col_here() const { return pos < L.toks.size() ? L.toks[pos].col : L.end_col; }

  // Comma-separated operand groups from pos to the end (commas inside <...> do not split).
  std::vector<Group> groups() {
    std::vector<Group> gs;
    if (pos >= L.toks.size()) return gs;
    Group g;
    int depth = 0;
    for (; pos < L.toks.size(); ++pos) {
      const Tok& t = L.toks[pos];
      if (t.up == "<" || t.up == "[") ++depth;
      if (t.up == ">" || t.up == "]") --depth;
      if (t.up == "," && depth == 0) {
        if (g.empty()) fail(t.col, "empty operand");
        gs.push_back(std::move(g));
        g.clear();
        continue;
      }
      g.push_back(t);
    }
    if (g.empty()) fail(L.end_col, "missing operand after ','");
    gs.push_back(std::move(g));
    return gs;
  }

  uint32_t number(const Tok& t, uint64_t max, const char* what) const {
    const std::string& u = t.up;
    uint64_t v = 0;
    size_t i = 0;
    int base = 10;
    if (u.size() > 2 && u[0] == '0' && u[1] == 'X') { base = 16; i = 2; }
    if (i >= u.size()) fail(t.col, std::string("bad ") + what + " '" + t.text + "'");
    for (; i < u.size(); ++i) {
      const char c = u[i];
      int d;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else fail(t.col, std::string("bad ") + what + " '" + t.text + "'");
      v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
      if (v > max) break;
    }
    if (v > max)
      fail(t.col, std::string(what) + " " + t.text + " out of range 0.." + std::to_string(max));
    return static_cast<uint32_t>(v);
  }

  // A token after a complete operand is named at its own column ("->ACC<1KB> extra" is not a
  // bad destination but an extra operand).
  void no_trailing(const Group& g, size_t n) const {
    if (g.size() > n) fail(g[n].col, "unexpected operand '" + g[n].text + "'");
  }

  static bool is_number(const Tok& t) { return std::isdigit(static_cast<unsigned char>(t.up[0])) != 0; }

  unsigned reg(const Tok& t) const {
    std::string lower = t.text;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    unsigned r;
    if (!enc::parse_reg(lower, r)) fail(t.col, "unknown register '" + t.text + "'");
    if (r >= 24) fail(t.col, "reserved register '" + t.text + "' (R24..R31 are reserved; R0..R23 exist)");
    return r;
  }

  // The LLVM integer spellings (INT8 = S8 ...; spec 31 §3); FP8, FPL8, FP4, FPL4 are rejected
  // (their LLVM codes name other v0.56 types).
  static bool llvm_type(const std::string& up, unsigned& c) {
    static const std::pair<const char*, unsigned> names[] = {
        {"INT64", 16}, {"INT32", 17}, {"INT16", 18}, {"INT8", 19}, {"INT4", 20},
        {"UINT64", 24}, {"UINT32", 25}, {"UINT16", 26}, {"UINT8", 27}, {"UINT4", 28}};
    for (const auto& [n, v] : names)
      if (up == n) { c = v; return true; }
    return false;
  }
  unsigned type(const Tok& t) const {
    unsigned c;
    if (llvm_type(t.up, c)) return c;
    if (t.up == "FP8" || t.up == "FPL8" || t.up == "FP4" || t.up == "FPL4")
      fail(t.col, "type '" + t.text + "' is an LLVM spelling whose code names another v0.56 type; write E4M3, E5M2, "
                  "E2M1x2 ...");
    if (!parse_type_name(t.text, c))
      fail(t.col, "bad type '" + t.text + "' (valid: FP64 FP32 TF32 HF32 FP16 BF16 HiF8 E4M3 E5M2 E3M2 E2M3 "
                  "E2M1x2 E1M2x2 E8M0 HiF4x2 S64 S32 S16 S8 S4x2 U64 U32 U16 U8 U4x2)");
    return c;
  }

  // reg | imm | reg+imm  ->  (reg, imm) of B.DIM (spec 30 §5).
  // A template dimension sets a 16-bit lane bound (docs/linx.md#template-form): its imm is at
  // most 65535, never wrapped; the raw B.DIM form takes the field's 17 bits.
  std::pair<unsigned, uint32_t> dim(const Group& g, size_t from, uint64_t max = (1u << 16) - 1) const {
    const size_t n = g.size() - from;
    if (n == 1) {
      if (is_number(g[from])) return {0, number(g[from], max, "dimension (a 16-bit lane bound)")};
      return {reg(g[from]), 0};
    }
    if (n == 3 && g[from + 1].up == "+" && !is_number(g[from])) return {reg(g[from]), number(g[from + 2], max, "dimension (a 16-bit lane bound)")};
    fail(g[from].col, "bad dimension: expected imm, reg or reg+imm");
  }

  // T#n[.reuse] -> (code, reuse)
  std::pair<unsigned, unsigned> tile(const Group& g) const {
    std::string u = g[0].up;
    unsigned reuse = 0;
    if (u.size() > 6 && u.substr(u.size() - 6) == ".REUSE") {
      reuse = 1;
      u.resize(u.size() - 6);
    }
    unsigned code;
    bool oor;
    if (!enc::parse_tile(u, code, oor)) fail(g[0].col, "bad tile operand '" + g[0].text + "' (expected T#n, U#n, M#n or N#n)");
    if (oor) fail(g[0].col, "tile index in '" + g[0].text + "' out of range 1..16");
    no_trailing(g, 1);
    return {code, reuse};
  }

  // ->DST<Size>
  std::pair<unsigned, unsigned> dest(const Group& g, bool acc_only) const {
    if (g.size() < 5 || g[0].up != "->" || g[2].up != "<" || g[4].up != ">")
      fail(g[0].col, acc_only ? "bad destination: expected ->ACC<Size>" : "bad destination: expected ->DST<Size>");
    unsigned d;
    if (!enc::parse_dst(g[1].up, d) || (acc_only && d != enc::kDstAcc))
      fail(g[1].col, acc_only ? "destination must be ACC (results go only to ACC)"
                              : "bad destination '" + g[1].text + "' (T U M N S ACC)");
    unsigned imm4;
    // A bare number is the raw imm4 code (`->u<1>` = 32 B); a register size is not a v0.56 form
    // (spec 31 §3).
    if (enc::parse_size(g[3].up, imm4)) {
    } else if (g[3].up.find_first_not_of("0123456789") == std::string::npos) {
      imm4 = number(g[3], 15, "imm4");
    } else {
      std::string lower = g[3].text;
      for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      unsigned r;
      if (enc::parse_reg(lower, r))
        fail(g[3].col, "Size '" + g[3].text + "' is a register: v0.56 tile sizes are immediates");
      fail(g[3].col, "Size '" + g[3].text + "' is not a legal value (0B 32B 64B ... 512KB, powers of two, or imm4 0..15)");
    }
    no_trailing(g, 5);
    return {d, imm4};
  }

  void no_more(const std::vector<Group>& gs, size_t n) const {
    if (gs.size() != n)
      fail(gs.size() > n ? gs[n][0].col : L.end_col,
           "wrong operand count: expected " + std::to_string(n) + ", got " + std::to_string(gs.size()));
  }
};

uint32_t emit(const enc::Word& w, const Line& L, size_t col, const std::string& mn) {
  try {
    return enc::encode(w);
  } catch (const Error& e) {
    L.fail(col, mn, e.what());
  }
}

// The items of a template's <...>, split on commas up to '>' (p.pos on the '<'; left past '>').
std::vector<Group> angle_items(Parser& p) {
  const Line& L = p.L;
  ++p.pos;
  std::vector<Group> items;
  Group g;
  for (;; ++p.pos) {
    if (p.pos >= L.toks.size()) p.fail(L.end_col, "missing '>'");
    const Tok& t = L.toks[p.pos];
    if (t.up == "," || t.up == ">") {
      if (g.empty()) p.fail(t.col, "empty item in <...>");
      items.push_back(std::move(g));
      g.clear();
      if (t.up == ">") { ++p.pos; break; }
      continue;
    }
    g.push_back(t);
  }
  return items;
}

void tmpl(Parser& p, std::vector<uint32_t>& out) {
  const Line& L = p.L;
  unsigned fn;
  enc::parse_cube_fn(p.mn, fn);
  if (p.pos >= L.toks.size() || L.toks[p.pos].up != "<") p.fail(p.col_here(), "expected '<LB0:M, LB1:N, LB2:K, TypeA[, TypeB]>'");
  const std::vector<Group> items = angle_items(p);
  std::pair<unsigned, uint32_t> dims[3];
  bool seen[3] = {false, false, false};
  std::vector<unsigned> types;
  for (const Group& it : items) {
    if (it.size() >= 2 && it[1].up == ":") {
      static const char* const names[3][2] = {{"LB0", "M"}, {"LB1", "N"}, {"LB2", "K"}};
      int x = -1;
      for (int k = 0; k < 3; ++k)
        if (it[0].up == names[k][0] || it[0].up == names[k][1]) x = k;
      if (x < 0) p.fail(it[0].col, "unknown dimension label '" + it[0].text + "' (LB0/M, LB1/N, LB2/K)");
      if (seen[x]) p.fail(it[0].col, "dimension " + it[0].text + " given twice");
      if (!types.empty()) p.fail(it[0].col, "dimensions come before the types");
      if (it.size() < 3) p.fail(it[1].col, "missing dimension value");
      dims[x] = p.dim(it, 2);
      seen[x] = true;
    } else {
      if (it.size() != 1) p.fail(it[0].col, "bad item in <...>: expected LBx:dim or a type");
      types.push_back(p.type(it[0]));
    }
  }
  for (int x = 0; x < 3; ++x)
    if (!seen[x]) p.fail(L.toks[1].col, std::string("missing dimension LB") + std::to_string(x));
  if (types.empty() || types.size() > 2)
    p.fail(L.toks[1].col, "expected TypeA[, TypeB] in <...>, got " + std::to_string(types.size()) + " types");
  if (p.pos < L.toks.size() && L.toks[p.pos].up == ",") ++p.pos;  // optional comma after '>'
  std::vector<Group> gs = p.groups();
  const size_t nsrc = 3 - (fn == 0 ? 1 : 0);
  if (gs.empty() || gs.back()[0].up != "->") p.fail(L.end_col, "missing ->ACC<Size>");
  if (gs.size() != nsrc + 1)
    p.fail(gs[0][0].col, "wrong operand count: " + p.mn + " takes " + std::to_string(nsrc) +
                             (fn == 0 ? " sources (A, B)" : fn == 1 ? " sources (A, B, Bias)" : " sources (A, B, ACC)") +
                             " and ->ACC<Size>, got " + std::to_string(gs.size() - 1));
  const auto [d, imm4] = p.dest(gs.back(), true);
  const auto a = p.tile(gs[0]);
  const auto b = p.tile(gs[1]);
  std::pair<unsigned, unsigned> bias{0, 0};
  if (fn == 1) bias = p.tile(gs[2]);
  if (fn == 2) {
    if (gs[2][0].up != "ACC") p.fail(gs[2][0].col, "third operand of TMATMUL.ACC must be ACC");
    p.no_trailing(gs[2], 1);
  }
  const size_t col = L.toks[0].col;
  // Expansion order of spec 30 §5.
  enc::Word w;
  w.op = Op::bstart_cube;
  w[F::fn] = fn;
  w[F::dt] = types[0];
  out.push_back(emit(w, L, col, p.mn));
  if (types.size() == 2 && types[1] != types[0]) {
    enc::Word t;
    t.op = Op::b_datr;
    t[F::datatype] = types[1];
    out.push_back(emit(t, L, col, p.mn));
  }
  for (unsigned x = 0; x < 3; ++x) {
    enc::Word t;
    t.op = Op::b_dim;
    t[F::reg] = dims[x].first;
    t[F::uimm] = dims[x].second;
    t[F::lb] = x;
    out.push_back(emit(t, L, col, p.mn));
  }
  enc::Word io;
  io.op = Op::b_iot2;
  io[F::s0] = a.first;
  io[F::s0r] = a.second;
  io[F::s1] = b.first;
  io[F::s1r] = b.second;
  if (fn == 1) {
    io[F::dst] = enc::kDstNone;
    out.push_back(emit(io, L, col, p.mn));
    enc::Word t;
    t.op = Op::b_iot1;
    t[F::s0] = bias.first;
    t[F::s0r] = bias.second;
    t[F::last] = 1;
    t[F::dst] = d;
    t[F::size] = imm4;
    out.push_back(emit(t, L, col, p.mn));
  } else {
    io[F::last] = 1;
    io[F::dst] = d;
    io[F::size] = imm4;
    out.push_back(emit(io, L, col, p.mn));
  }
}

// Template form of a TMA, ACCCVT or TEPL block (docs/linx.md#template-form):
//   TLOAD[.LAYOUT]  <LB0:c[, LB1:r][, LB2:C], DT[, opts]>[,] [[base[, stride...]],] ->Q<Size>
//   TSTORE[.LAYOUT] <..., DT[, opts]>[,] SRC[.reuse][, [base[, stride]]]
//   TMOV[.LAYOUT]   <..., DT[, opts]>[,] SRC[.reuse], ->Q<Size>
//   ACCCVT[.LAYOUT] <LB0:M, LB1:N, SrcType[, DstType][, opts]>[,] [scale,] ->Q<Size>
//   <TEPL op>       <..., DT[, opts]>[,] [SRC0[, SRC1],] [reg,] ->Q<Size>   (TCVT: <..., DT[, DstType][, opts]>)
// opts: a pad name (Zero Max Min Null), sat, rmodeN, cmodeN, or sat=N rmode=N cmode=N pad=N.
// Expansion: BSTART, B.DATR (only when a field is non-zero or DstType is given), B.DIM per given
// LB in order, B.IOR (only when registers are given; a second one for registers 4..6), one B.IOT
// with `last`.
enum class TK { tload, tstore, tmov, acccvt, tepl };

void block_tmpl(Parser& p, std::vector<uint32_t>& out, TK k, unsigned code, unsigned layout) {
  const Line& L = p.L;
  if (p.pos >= L.toks.size() || L.toks[p.pos].up != "<")
    p.fail(p.col_here(), k == TK::acccvt ? "expected '<LB0:M, LB1:N, SrcType[, DstType][, options]>'"
                                         : "expected '<LB0:ValidCol[, LB1:ValidRow][, LB2:Col], DT[, options]>'");
  const std::vector<Group> items = angle_items(p);
  std::pair<unsigned, uint32_t> dims[3];
  bool seen[3] = {false, false, false};
  std::vector<unsigned> types;
  uint32_t opt[4] = {0, 0, 0, 0};  // sat rmode cmode pad
  unsigned opt_seen = 0;
  bool any_opt = false;
  static const char* const opt_names[4] = {"SAT", "RMODE", "CMODE", "PAD"};
  static const uint32_t opt_max[4] = {1, 7, 7, 31};
  const auto set_opt = [&](unsigned n, uint32_t v, const Tok& t) {
    if (opt_seen & (1u << n)) p.fail(t.col, "option '" + t.text + "' given twice");
    opt_seen |= 1u << n;
    opt[n] = v;
    any_opt = true;
  };
  // ACCCVT and TEPL TCVT name a destination type (B.DATR DataType) after the source type.
  const bool tcvt = k == TK::tepl && enc::tepl_name(code) && std::string_view(enc::tepl_name(code)) == "TCVT";
  const size_t max_types = k == TK::acccvt || tcvt ? 2 : 1;
  for (const Group& it : items) {
    if (it.size() >= 2 && it[1].up == ":") {
      int x = -1;
      for (int j = 0; j < 3; ++j)
        if (it[0].up == std::string("LB") + char('0' + j)) x = j;
      if (x < 0 || (k == TK::acccvt && x == 2))
        p.fail(it[0].col, "unknown dimension label '" + it[0].text + (k == TK::acccvt ? "' (LB0, LB1)" : "' (LB0, LB1, LB2)"));
      if (seen[x]) p.fail(it[0].col, "dimension " + it[0].text + " given twice");
      if (!types.empty()) p.fail(it[0].col, "dimensions come before the types");
      if (it.size() < 3) p.fail(it[1].col, "missing dimension value");
      dims[x] = p.dim(it, 2);
      seen[x] = true;
      continue;
    }
    const Tok& t = it[0];
    if (it.size() == 3 && it[1].up == "=") {
      int n = -1;
      for (int j = 0; j < 4; ++j)
        if (t.up == opt_names[j]) n = j;
      if (n < 0) p.fail(t.col, "unknown option '" + t.text + "' (sat=N, rmode=N, cmode=N, pad=N)");
      set_opt(static_cast<unsigned>(n), p.number(it[2], opt_max[n], opt_names[n]), t);
      continue;
    }
    if (it.size() != 1) p.fail(t.col, "bad item in <...>: expected LBx:dim, a type or an option");
    unsigned v;
    if (t.up == "SAT") { set_opt(0, 1, t); continue; }
    if ((t.up.rfind("RMODE", 0) == 0 || t.up.rfind("CMODE", 0) == 0) && t.up.size() > 5 &&
        std::isdigit(static_cast<unsigned char>(t.up[5]))) {
      const unsigned n = t.up[0] == 'R' ? 1 : 2;
      set_opt(n, p.number(Tok{t.text.substr(5), t.up.substr(5), t.col + 5}, 7, opt_names[n]), t);
      continue;
    }
    if (enc::parse_pad(t.up, v)) { set_opt(3, v, t); continue; }
    if (any_opt) p.fail(t.col, "types come before the options");
    if (types.size() == max_types)
      p.fail(t.col, max_types == 2 ? p.mn + " takes SrcType[, DstType] in <...>, got a third type '" + t.text + "'"
                                   : p.mn + " takes one type in <...>, got a second '" + t.text + "'");
    types.push_back(p.type(t));
  }
  if (!seen[0]) p.fail(L.toks[1].col, "missing dimension LB0");
  if (k == TK::acccvt && !seen[1]) p.fail(L.toks[1].col, "missing dimension LB1");
  if (types.empty()) p.fail(L.toks[1].col, "missing the type in <...>");
  if (p.pos < L.toks.size() && L.toks[p.pos].up == ",") ++p.pos;  // optional comma after '>'
  const std::vector<Group> gs = p.groups();
  // Operands in order: tile sources, registers ([...] for TLOAD/TSTORE, bare for ACCCVT/TEPL), ->Q<Size>.
  std::vector<std::pair<unsigned, unsigned>> srcs;
  std::vector<unsigned> regs;
  bool bracket = false, have_dst = false;
  std::pair<unsigned, unsigned> dst{enc::kDstNone, 0};
  const bool mem = k == TK::tload || k == TK::tstore;
  const char* shape = k == TK::tload    ? "[base[, stride]], ->Q<Size>"
                      : k == TK::tstore ? "SRC, [base[, stride]]"
                      : k == TK::tmov   ? "SRC, ->Q<Size>"
                      : k == TK::acccvt ? "[scale,] ->Q<Size>"
                                        : "[SRC0[, SRC1],] [scalar,] ->Q<Size>";
  const auto bad = [&](const Tok& t, const std::string& why) {
    p.fail(t.col, why + " (" + p.mn + " operands: " + shape + ")");
  };
  for (const Group& o : gs) {
    const Tok& t = o[0];
    if (have_dst) bad(t, "unexpected operand after the destination");
    if (t.up == "->") {
      if (k == TK::tstore) bad(t, "TSTORE has no destination");
      dst = p.dest(o, false);
      have_dst = true;
      continue;
    }
    if (t.up == "[") {
      if (!mem) bad(t, "'[...]' (a memory address) only in TLOAD and TSTORE");
      if (bracket || !regs.empty()) bad(t, "one address '[...]' only");
      if (o.back().up != "]") p.fail(o.back().col, "missing ']'");
      if (o.size() < 3) bad(t, "empty address '[]'");
      for (size_t j = 1; j + 1 < o.size(); ++j) {
        if (j % 2 == 0) {
          if (o[j].up != ",") p.fail(o[j].col, "expected ',' between registers");
          continue;
        }
        if (regs.size() == 6) p.fail(o[j].col, "at most 6 registers (two B.IOR)");
        regs.push_back(p.reg(o[j]));
      }
      if (o.size() % 2 == 0) p.fail(o.back().col, "expected a register before ']'");
      bracket = true;
      continue;
    }
    std::string u = t.up;
    if (u.size() > 6 && u.substr(u.size() - 6) == ".REUSE") u.resize(u.size() - 6);
    unsigned tc;
    bool oor;
    if (enc::parse_tile(u, tc, oor)) {
      if (bracket || !regs.empty()) bad(t, "tile sources come before the registers");
      const size_t max_src = k == TK::tepl ? 2 : (k == TK::tstore || k == TK::tmov) ? 1 : 0;
      if (srcs.size() == max_src)
        bad(t, max_src == 0 ? p.mn + " has no tile source" : "too many tile sources (at most " + std::to_string(max_src) + ")");
      srcs.push_back(p.tile(o));
      continue;
    }
    if (mem) bad(t, "expected a tile, '[base[, stride]]' or ->Q<Size>, got '" + t.text + "'");
    if (k == TK::tmov) bad(t, "unexpected operand '" + t.text + "'");
    if (regs.size() == 6) bad(t, "at most 6 registers (two B.IOR)");
    if (o.size() != 1) p.fail(o[1].col, "unexpected '" + o[1].text + "' after a register");
    regs.push_back(p.reg(t));
  }
  if (k != TK::tstore && !have_dst) p.fail(L.end_col, "missing ->Q<Size> (" + p.mn + " operands: " + shape + ")");
  if ((k == TK::tstore || k == TK::tmov) && srcs.empty()) p.fail(L.end_col, "missing the source tile (" + p.mn + " operands: " + shape + ")");
  const size_t col = L.toks[0].col;
  enc::Word w;
  if (k == TK::acccvt) {
    w.op = Op::bstart_cube;
    w[F::fn] = 8;
  } else if (k == TK::tepl) {
    w.op = Op::bstart_tepl;
    w[F::topc] = code;
  } else {
    w.op = Op::bstart_tma;
    w[F::fn] = code;
  }
  w[F::dt] = types[0];
  out.push_back(emit(w, L, col, p.mn));
  if (layout || any_opt || types.size() == 2) {
    enc::Word d;
    d.op = Op::b_datr;
    d[F::datatype] = types.size() == 2 ? types[1] : 31;
    d[F::layout] = layout;
    d[F::sat] = opt[0];
    d[F::rmode] = opt[1];
    d[F::cmode] = opt[2];
    d[F::pad] = opt[3];
    // Every field zero (e.g. only `Zero`, pad code 0): the block is the same without the word.
    if (layout || opt[0] || opt[1] || opt[2] || opt[3] || types.size() == 2) out.push_back(emit(d, L, col, p.mn));
  }
  for (unsigned x = 0; x < 3; ++x) {
    if (!seen[x]) continue;
    enc::Word t;
    t.op = Op::b_dim;
    t[F::reg] = dims[x].first;
    t[F::uimm] = dims[x].second;
    t[F::lb] = x;
    out.push_back(emit(t, L, col, p.mn));
  }
  // B.IOR: three registers a word; a second B.IOR continues the list (RegSrc3.., spec 31 §1).
  for (size_t from = 0; from < regs.size(); from += 3) {
    enc::Word r;
    r.op = Op::b_ior;
    const F rf[3] = {F::rs0, F::rs1, F::rs2};
    for (size_t j = from; j < regs.size() && j < from + 3; ++j) r[rf[j - from]] = regs[j];
    out.push_back(emit(r, L, col, p.mn));
  }
  enc::Word io;
  io.op = srcs.size() == 2 ? Op::b_iot2 : srcs.size() == 1 ? Op::b_iot1 : Op::b_iot0;
  if (!srcs.empty()) { io[F::s0] = srcs[0].first; io[F::s0r] = srcs[0].second; }
  if (srcs.size() == 2) { io[F::s1] = srcs[1].first; io[F::s1r] = srcs[1].second; }
  io[F::last] = 1;
  io[F::dst] = dst.first;
  io[F::size] = dst.second;
  out.push_back(emit(io, L, col, p.mn));
}

// The block template a mnemonic names, if any: TLOAD/TSTORE/TMOV/ACCCVT with an optional
// `.LAYOUT` suffix, or a TEPL function name.
bool block_kind(const Parser& p, TK& k, unsigned& code, unsigned& layout) {
  std::string base = p.mn, suffix;
  const size_t dot = base.find('.');
  if (dot != std::string::npos) { suffix = base.substr(dot + 1); base.resize(dot); }
  layout = 0;
  if (enc::parse_tma_fn(base, code)) k = code == 0 ? TK::tload : code == 1 ? TK::tstore : TK::tmov;
  else if (base == "ACCCVT") k = TK::acccvt;
  else if (suffix.empty() && enc::parse_tepl(base, code)) { k = TK::tepl; return true; }
  else return false;
  if (!suffix.empty() && !enc::parse_layout_code(suffix, layout))
    p.fail(p.L.toks[0].col, "unknown layout '." + p.L.toks[0].text.substr(dot + 1) +
                                "' (NORM, ND2NZ, DN2NZ, ND2ZN, DN2ZN, NZ2ND, ZN2ND, NZ2DN, ... as in B.DATR)");
  return true;
}

void raw(Parser& p, std::vector<uint32_t>& out) {
  const Line& L = p.L;
  const std::string& mn = p.mn;
  const size_t col = L.toks[0].col;
  std::vector<Group> gs = p.groups();
  enc::Word w;
  const auto single = [&](const Group& g, const char* what) -> const Tok& {
    if (g.size() != 1) p.fail(g[0].col, std::string("bad ") + what);
    return g[0];
  };
  if (mn == "BSTART.CUBE" || mn == "BSTART.TMATMUL" || mn == "BSTART.TMATMUL.ACC" || mn == "BSTART.ACCCVT") {
    w.op = Op::bstart_cube;
    if (mn == "BSTART.CUBE") {
      p.no_more(gs, 2);
      unsigned fn;
      const Tok& f = single(gs[0], "CUBE function");
      if (!enc::parse_cube_fn(f.up, fn)) p.fail(f.col, "unknown CUBE function '" + f.text + "'");
      w[F::fn] = fn;
      w[F::dt] = p.type(single(gs[1], "type"));
    } else {
      p.no_more(gs, 1);
      w[F::fn] = mn == "BSTART.TMATMUL" ? 0 : mn == "BSTART.TMATMUL.ACC" ? 2 : 8;
      w[F::dt] = p.type(single(gs[0], "type"));
    }
  } else if (mn == "BSTART.TMA" || mn == "BSTART.TLOAD" || mn == "BSTART.TSTORE" || mn == "BSTART.TMOV") {
    w.op = Op::bstart_tma;
    unsigned fn = 0;
    if (mn == "BSTART.TMA") {
      p.no_more(gs, 2);
      const Tok& f = single(gs[0], "TMA function");
      if (Parser::is_number(f)) {
        fn = p.number(f, 31, "TMA function");
        if (fn > 2) p.fail(f.col, "TMA function " + f.text + " is reserved in v0.56 (0 TLOAD, 1 TSTORE, 2 TMOV)");
      } else if (!enc::parse_tma_fn(f.up, fn)) {
        p.fail(f.col, "unknown TMA function '" + f.text + "' (TLOAD, TSTORE, TMOV)");
      }
      w[F::dt] = p.type(single(gs[1], "type"));
    } else {
      p.no_more(gs, 1);
      enc::parse_tma_fn(mn.substr(7), fn);
      w[F::dt] = p.type(single(gs[0], "type"));
    }
    w[F::fn] = fn;
  } else if (mn == "BSTART.PAR") {
    p.fail(col, "BSTART.PAR is the legacy TEPL spelling; write BSTART.TEPL OP, DT");
  } else if (unsigned topc; mn == "BSTART.TEPL" || (mn.rfind("BSTART.", 0) == 0 && enc::parse_tepl(mn.substr(7), topc))) {
    w.op = Op::bstart_tepl;
    if (mn == "BSTART.TEPL") {
      p.no_more(gs, 2);
      const Tok& f = single(gs[0], "TEPL function");
      if (Parser::is_number(f)) {
        topc = p.number(f, 1023, "TileOpcode");
        if (!enc::tepl_name(topc))
          p.fail(f.col, "TileOpcode " + f.text + " is reserved (0..31 mode 0, 32..42 mode 1)");
      } else if (!enc::parse_tepl(f.up, topc)) {
        p.fail(f.col, "unknown TEPL function '" + f.text + "' (TADD ... TROWEXPAND, TADDS ... TSHRS)");
      }
      w[F::dt] = p.type(single(gs[1], "type"));
    } else {
      p.no_more(gs, 1);
      w[F::dt] = p.type(single(gs[0], "type"));
    }
    w[F::topc] = topc;
  } else if (mn.rfind("BSTART.", 0) == 0) {
    static const std::pair<const char*, Op> classes[] = {
        {"BSTART.MPAR", Op::bstart_mpar}, {"BSTART.MSEQ", Op::bstart_mseq}, {"BSTART.VPAR", Op::bstart_vpar},
        {"BSTART.VSEQ", Op::bstart_vseq}, {"BSTART.FIXP", Op::bstart_fixp}};
    bool found = false;
    for (const auto& [n, op] : classes)
      if (mn == n) { w.op = op; found = true; }
    if (!found) p.fail(col, "unknown mnemonic '" + L.toks[0].text + "'");
    p.no_more(gs, 1);
    w[F::imm] = p.number(single(gs[0], "number"), 4095, "imm");
  } else if (mn == "B.DATR") {
    // Operands recognised by spelling, any order, each once (spec 31 §3).
    w.op = Op::b_datr;
    w[F::datatype] = 31;  // none unless given
    static const std::pair<const char*, std::pair<F, uint32_t>> keys[] = {
        {"SAT", {F::sat, 1}}, {"RMODE", {F::rmode, 7}}, {"CMODE", {F::cmode, 7}}, {"PAD", {F::pad, 31}},
        {"LAYOUT", {F::layout, 31}}, {"DT", {F::datatype, 31}}};
    unsigned seen = 0;  // a field given twice is a typo, not "the last one wins"
    const auto once = [&](unsigned n, const Tok& t) {
      if (seen & (1u << n)) p.fail(t.col, "B.DATR field '" + t.text + "' given twice");
      seen |= 1u << n;
    };
    for (const Group& g : gs) {
      const Tok& t = g[0];
      if (g.size() == 3 && g[1].up == "=") {
        bool ok = false;
        for (unsigned n = 0; n < std::size(keys); ++n)
          if (t.up == keys[n].first) {
            once(n, t);
            w[keys[n].second.first] = p.number(g[2], keys[n].second.second, keys[n].first);
            ok = true;
          }
        if (!ok) p.fail(t.col, "unknown B.DATR field '" + t.text + "'");
        continue;
      }
      if (g.size() != 1) p.fail(t.col, "bad B.DATR operand (a layout, a type, a pad, cmodeN, rmodeN, sat or key=N)");
      std::string u = t.up;
      unsigned v;
      const auto suffix = [&](const char* sfx) {
        const size_t n = std::char_traits<char>::length(sfx);
        if (u.size() > n && u.compare(u.size() - n, n, sfx) == 0) { u.resize(u.size() - n); return true; }
        return false;
      };
      if (suffix(".CANON")) p.fail(t.col, "'.canon' is not a B.DATR layout form (only the literal B.ARG NZ2DN.canon)");
      const bool normal = suffix(".NORMAL");
      if (u == "NORMAL" && !normal) u = "NORM";
      if (u == "SAT") { once(0, t); w[F::sat] = 1; continue; }
      if ((u.rfind("CMODE", 0) == 0 || u.rfind("RMODE", 0) == 0) && u.size() > 5 && Parser::is_number(Tok{u.substr(5), u.substr(5), t.col})) {
        const bool cm = u[0] == 'C';
        once(cm ? 2 : 1, t);
        w[cm ? F::cmode : F::rmode] = p.number(Tok{t.text.substr(5), u.substr(5), t.col + 5}, 7, cm ? "cmode" : "rmode");
        continue;
      }
      if (enc::parse_layout_code(u, v)) { once(4, t); w[F::layout] = v; continue; }
      if (normal) p.fail(t.col, "unknown layout '" + t.text + "'");
      if (enc::parse_pad(u, v)) { once(3, t); w[F::pad] = v; continue; }
      once(5, t);
      w[F::datatype] = Parser::is_number(t) ? p.number(t, 31, "DataType") : p.type(t);
    }
  } else if (mn == "B.IOR") {
    // B.IOR r0[, r1[, r2]][, ->rd] (spec 31 §3); the i-th register is RegSrc(i-1).
    w.op = Op::b_ior;
    const F srcs[3] = {F::rs0, F::rs1, F::rs2};
    size_t n = 0;
    for (const Group& g : gs) {
      if (g[0].up == "->") {
        if (g.size() < 2) p.fail(g[0].col, "expected ->REG");
        w[F::rd] = p.reg(g[1]);
        p.no_trailing(g, 2);
        if (&g != &gs.back()) p.fail(gs.back()[0].col, "->rd must be the last operand");
        continue;
      }
      if (n == 3) p.fail(g[0].col, "wrong operand count: B.IOR takes at most 3 source registers");
      w[srcs[n++]] = p.reg(single(g, "register"));
    }
  } else if (mn == "B.ARG") {
    if (gs.size() == 1 && gs[0].size() == 1 && Parser::is_number(gs[0][0])) {
      w.op = Op::b_arg;
      w[F::format] = p.number(gs[0][0], 31, "format");
    } else {
      // One of the opcode table's literal rows, spelled as it spells them (any case).
      std::string spelled;
      for (const Group& g : gs) {
        std::string part;
        for (const Tok& t : g) part += t.up;
        spelled += (spelled.empty() ? "" : ",") + part;
      }
      bool found = false;
      for (const enc::Row& r : enc::rows()) {
        if (r.op != Op::b_arg_lit) continue;
        std::string want;
        for (const char* c = r.spelling; *c; ++c)
          if (*c != ' ') want += static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
        if (want == spelled) {
          w.op = Op::b_arg_lit;
          for (unsigned i = 0; i < r.nlits; ++i) w[r.lits[i].id] = r.lits[i].value;
          found = true;
        }
      }
      if (!found)
        p.fail(gs.empty() ? L.end_col : gs[0][0].col,
               "B.ARG takes a format number 0..31 or one of the opcode table's literal forms (ND2ZN.normal, FP16, "
               "Null | DN2NZ.normal, FP32, Null | DN2ZN.normal, FP16, Null | NZ2DN.canon | NORM.normal)");
    }
  } else if (mn == "B.DIM") {
    w.op = Op::b_dim;
    p.no_more(gs, 3);
    w[F::reg] = p.reg(single(gs[0], "register"));
    w[F::uimm] = p.number(single(gs[1], "imm"), (1u << 17) - 1, "imm");
    const Group& g = gs[2];
    if (g.size() < 2 || g[0].up != "->" || g[1].up.size() != 3 || g[1].up.substr(0, 2) != "LB" || g[1].up[2] < '0' ||
        g[1].up[2] > '2')
      p.fail(g[0].col, "expected ->LB0, ->LB1 or ->LB2");
    p.no_trailing(g, 2);
    w[F::lb] = static_cast<uint32_t>(g[1].up[2] - '0');
  } else if (mn == "B.IOT") {
    std::vector<std::pair<unsigned, unsigned>> srcs;
    size_t i = 0;
    for (; i < gs.size() && gs[i][0].up != "LAST" && gs[i][0].up != "->"; ++i) srcs.push_back(p.tile(gs[i]));
    if (srcs.size() > 2) p.fail(gs[2][0].col, "wrong operand count: B.IOT takes at most 2 sources");
    if (i < gs.size() && gs[i][0].up == "LAST") {
      if (gs[i].size() != 1) p.fail(gs[i][0].col, "bad 'last'");
      w[F::last] = 1;
      ++i;
    }
    w[F::dst] = enc::kDstNone;
    if (i < gs.size() && gs[i][0].up == "->") {
      const auto [d, imm4] = p.dest(gs[i], false);
      w[F::dst] = d;
      w[F::size] = imm4;
      ++i;
    }
    if (i != gs.size()) p.fail(gs[i][0].col, "unexpected operand (order: sources, last, ->DST<Size>)");
    w.op = srcs.size() == 2 ? Op::b_iot2 : srcs.size() == 1 ? Op::b_iot1 : Op::b_iot0;
    if (srcs.size() >= 1) { w[F::s0] = srcs[0].first; w[F::s0r] = srcs[0].second; }
    if (srcs.size() == 2) { w[F::s1] = srcs[1].first; w[F::s1r] = srcs[1].second; }
  } else if (mn == "B.IOD") {
    w.op = Op::b_iod;
    p.no_more(gs, 4);
    w[F::d0] = p.number(single(gs[0], "number"), 31, "d0");
    w[F::d1] = p.number(single(gs[1], "number"), 31, "d1");
    w[F::d2] = p.number(single(gs[2], "number"), 31, "d2");
    const Group& g = gs[3];
    if (g.size() < 2 || g[0].up != "->") p.fail(g[0].col, "expected ->dd");
    w[F::dd] = p.number(g[1], 31, "dd");
    p.no_trailing(g, 2);
  } else if (mn == "BSTOP") {
    w.op = Op::bstop;
    p.no_more(gs, 0);
  } else {
    p.fail(col, "unknown mnemonic '" + L.toks[0].text + "'");
  }
  out.push_back(emit(w, L, col, mn));
}

}  // namespace

std::vector<uint32_t> assemble(std::string_view text, std::string_view filename) {
  std::vector<uint32_t> out;
  size_t line_no = 0, start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string s(text.substr(start, end - start));
    if (!s.empty() && s.back() == '\r') s.pop_back();
    ++line_no;
    Line L{std::string(filename), line_no, {}, 0};
    L.toks = lex(s, L.end_col, [&](size_t col, std::string m) { L.fail(col, "", m); });
    if (!L.toks.empty()) {
      if (!std::isalpha(static_cast<unsigned char>(L.toks[0].text[0])))
        L.fail(L.toks[0].col, "", "expected a mnemonic, got '" + L.toks[0].text + "'");
      Parser p(L);
      unsigned fn, code, layout;
      TK k;
      if (enc::parse_cube_fn(p.mn, fn) && fn <= 2)
        tmpl(p, out);
      else if (block_kind(p, k, code, layout))
        block_tmpl(p, out, k, code, layout);
      else
        raw(p, out);
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  return out;
}

}  // namespace tilesim::linx
