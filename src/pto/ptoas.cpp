// PTO-AS (spec 20 §6, spec 21 §2): a line-oriented parser for the three spellings of every
// instruction of the table (include/tilesim/pto/instructions.hpp, ops "pto.<lower-case name>") and
// of the TROWEXPAND* family, the !pto.tile / !pto.tile_buf types (compact and keyed), scalar
// literals and PTOAS attributes ({cmpMode = #pto<cmp lt>}, ...), .arg, .target, pto.alloc_tile and
// pto.tassign, and an interpreter that runs the parsed program on the engine. Operands are bound
// per operand shape (Kind), never per instruction. No arithmetic here: every semantic rule is the
// engine's (spec 70 item 6).
#include "tilesim/pto/ptoas.hpp"

// GCC 12 -O3 reports a false -Wrestrict inside std::string operator+ (GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)  // clang has no -Wrestrict and warns about the pragma
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/profile.hpp"
#include "tilesim/pto/engine.hpp"
#include "tilesim/pto/frontend.hpp"
#include "core/trace.hpp"
#include "pto/ptoas_func.hpp"

namespace tilesim::pto::as {
namespace {
using detail::carrier_of;

constexpr int kDyn = -1;     // '?' valid dimension
constexpr int kAbsent = -2;  // no valid= given: the static extent

struct Pos {
  int line = 0, col = 0;
};

struct TypeSpec {
  bool is_buf = false;
  Elem dtype = Elem::f32;
  int rows = 0, cols = 0;
  int vr = kAbsent, vc = kAbsent;
  bool row_major = true;
  uint8_t loc = kLocVec;
  uint8_t slayout = 0;
  int fractal = 512;
  uint64_t pad = 0;
  Pos pos;
  std::string text;
};

struct Operand {
  std::string name;
  Pos pos;
};

enum class StmtKind { Arg, Alloc, Tassign, Instr };

// An ins(...) operand: a tile (%name and its type) or a scalar literal (and its element type).
struct Arg {
  bool is_scalar = false;
  Operand tile;
  std::string literal;
  Pos pos;
  TypeSpec type;             // a tile's annotation
  Elem scalar_type = Elem::f32;
  Pos type_pos;
  std::string type_text;
};

// Where each operand of an engine Call comes from: indices into Stmt::ins, -1 = absent.
struct Roles {
  int src0 = -1, src1 = -1, mask = -1, tmp = -1, scalar = -1;
  bool scalar_first = false;
};

struct Stmt {
  StmtKind kind;
  Pos pos;
  std::string mnemonic;
  const InstrInfo* info = nullptr;  // a row of the instruction table, or the TROWEXPAND* family
  Op op = Op::ADD;
  bool ssa = false;
  Operand result;        // Arg / Alloc / SSA result / tassign tile
  std::vector<Arg> ins;  // the sources in the C++ signature's order (after dst)
  Roles roles;
  std::optional<TypeSpec> dst_type;  // Arg / Alloc type, SSA result type, DPS outs type
  Operand dst;                       // DPS outs operand
  std::optional<Operand> dst2;       // TROWARG* / TCOLARG* (dstVal, dstIdx): the index tile
  std::optional<TypeSpec> dst2_type;
  // Attributes (PTOAS spellings) and the scalar's code, as the engine Call carries them.
  uint8_t cmp = 0;    // cmpMode, PTOAS default EQ
  uint8_t round = 1;  // rmode, PTOAS default CAST_RINT
  int8_t sat = -1;    // sat_mode; -1 = the form without it
  bool is_binary = false;
  uint8_t mask_pattern = 0;  // TGATHER / TSCATTER {maskPattern = #pto.mask_pattern<P0101>}
  uint64_t scalar_code = 0;
  int64_t addr = 0;
};

struct Token {
  enum T { Ident, Percent, At, Number, Type, Attr, Punct, End } t;
  std::string s;
  int col;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : text_(text), file_(file) {}

  std::vector<Stmt> parse(std::string& target, Pos& target_pos) {
    std::vector<Stmt> out;
    size_t start = 0;
    int line = 0;
    while (start <= text_.size()) {
      size_t end = text_.find('\n', start);
      if (end == std::string_view::npos) end = text_.size();
      ++line;
      std::string_view l = text_.substr(start, end - start);
      start = end + 1;
      line_ = line;
      tokenize(l);
      if (toks_.size() == 1) continue;  // blank or comment
      i_ = 0;
      const Token& first = peek();
      if (first.t == Token::Ident && first.s == ".target") {
        next();
        const Token& n = expect(Token::Ident, "a target name");
        if (!target.empty() && target != n.s)
          error(n, "a second .target differs from '" + target + "'");
        try {
          find_target(n.s);  // unknown names are errors here, with the list of valid ones
        } catch (const Error& e) {
          error(n, e.what());
        }
        target = n.s;
        target_pos = {line, n.col};
        end_of_line();
        continue;
      }
      out.push_back(statement());
    }
    return out;
  }

 private:
  [[noreturn]] void error(const Token& t, const std::string& what) {
    const std::string tok = t.t == Token::End ? "end of line" : "'" + t.s + "'";
    raise(ErrorCode::Parse, fmt::format("{}:{}:{}", file_, line_, t.col), what + ", at " + tok,
          "docs/pto.md#pto-as");
  }
  [[noreturn]] void error_at(int col, const std::string& tok, const std::string& what) {
    raise(ErrorCode::Parse, fmt::format("{}:{}:{}", file_, line_, col), what + ", at '" + tok + "'",
          "docs/pto.md#pto-as");
  }

  // A number starts with a digit, or a sign followed by a digit, '.', "inf" or "nan".
  static bool starts_number(std::string_view l, size_t p) {
    const auto digit = [&](size_t i) {
      return i < l.size() && std::isdigit(static_cast<unsigned char>(l[i]));
    };
    if (digit(p)) return true;
    if (l[p] != '-' && l[p] != '+') return false;
    if (digit(p + 1) || (p + 1 < l.size() && l[p + 1] == '.' && digit(p + 2))) return true;
    const std::string_view rest = l.substr(p + 1, 3);
    return rest == "inf" || rest == "nan";
  }

  void tokenize(std::string_view l) {
    toks_.clear();
    size_t p = 0;
    int braces = 0;
    auto is_id = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    };
    while (p < l.size()) {
      const char c = l[p];
      const int col = int(p) + 1;
      if (c == ' ' || c == '\t' || c == '\r') {
        ++p;
        continue;
      }
      // '#' inside an attribute dictionary starts an attribute value (#pto<cmp lt>); elsewhere
      // it starts a comment, as '//' does.
      const bool attr = c == '#' && braces > 0;
      if ((c == '#' && !attr) || (c == '/' && p + 1 < l.size() && l[p + 1] == '/')) break;
      if (c == '!' || attr) {  // a type or an attribute value: up to the matching '>'
        size_t q = p;
        while (q < l.size() && l[q] != '<') ++q;
        int depth = 0;
        size_t r = q;
        for (; r < l.size(); ++r) {
          if (l[r] == '<') ++depth;
          if (l[r] == '>' && --depth == 0) break;
        }
        if (q >= l.size() || r >= l.size())
          error_at(col, std::string(l.substr(p)),
                   attr ? "unterminated attribute value (missing '>')"
                        : "unterminated type (missing '>')");
        toks_.push_back({attr ? Token::Attr : Token::Type, std::string(l.substr(p, r + 1 - p)), col});
        p = r + 1;
        continue;
      }
      if (c == '%' || c == '@') {
        size_t q = p + 1;
        while (q < l.size() && is_id(l[q])) ++q;
        if (q == p + 1) error_at(col, std::string(1, c), "expected a name after it");
        toks_.push_back(
            {c == '%' ? Token::Percent : Token::At, std::string(l.substr(p + 1, q - p - 1)), col});
        p = q;
        continue;
      }
      if (c == '-' && p + 1 < l.size() && l[p + 1] == '>') {
        toks_.push_back({Token::Punct, "->", col});
        p += 2;
        continue;
      }
      if (starts_number(l, p)) {
        // A number: [+-] then digits, letters and '.', with a sign after an exponent letter
        // (1.5e-3, 0x1.8p-2); "-inf" and "+nan" too. scalar_code() judges the text.
        size_t q = p + ((c == '-' || c == '+') ? 1 : 0);
        const bool hex = q + 1 < l.size() && l[q] == '0' && (l[q + 1] == 'x' || l[q + 1] == 'X');
        while (q < l.size()) {
          const char d = l[q];
          const char prev = q > p ? l[q - 1] : '\0';
          const bool exp_sign = (d == '-' || d == '+') &&
                                (hex ? (prev == 'p' || prev == 'P') : (prev == 'e' || prev == 'E'));
          if (!std::isalnum(static_cast<unsigned char>(d)) && d != '.' && d != '_' && !exp_sign)
            break;
          ++q;
        }
        toks_.push_back({Token::Number, std::string(l.substr(p, q - p)), col});
        p = q;
        continue;
      }
      if (is_id(c)) {
        size_t q = p;
        while (q < l.size() && is_id(l[q])) ++q;
        toks_.push_back({Token::Ident, std::string(l.substr(p, q - p)), col});
        p = q;
        continue;
      }
      if (std::strchr("(),:=;{}", c)) {
        if (c == '{') ++braces;
        if (c == '}') --braces;
        toks_.push_back({Token::Punct, std::string(1, c), col});
        ++p;
        continue;
      }
      error_at(col, std::string(1, c), "unexpected character");
    }
    // A trailing ';' is allowed (spec 20 §6).
    if (!toks_.empty() && toks_.back().t == Token::Punct && toks_.back().s == ";") toks_.pop_back();
    toks_.push_back({Token::End, "", int(l.size()) + 1});
  }

  const Token& peek() const { return toks_[i_]; }
  const Token& next() { return toks_[i_ < toks_.size() - 1 ? i_++ : i_]; }
  bool accept(const char* punct) {
    if (peek().t == Token::Punct && peek().s == punct) {
      next();
      return true;
    }
    return false;
  }
  const Token& expect(Token::T t, const char* what) {
    if (peek().t != t) error(peek(), std::string("expected ") + what);
    return next();
  }
  void expect_punct(const char* p) {
    if (!accept(p)) error(peek(), std::string("expected '") + p + "'");
  }
  void end_of_line() {
    if (peek().t != Token::End) error(peek(), "unexpected trailing text");
  }
  Operand operand() {
    const Token& t = expect(Token::Percent, "a tile operand '%name'");
    return {t.s, {line_, t.col}};
  }

  static std::optional<Op> op_of(std::string_view m) {
    static constexpr std::pair<const char*, Op> kOps[] = {
        {"trowexpandadd", Op::ADD},      {"trowexpandsub", Op::SUB}, {"trowexpandmul", Op::MUL},
        {"trowexpanddiv", Op::DIV},      {"trowexpandmax", Op::MAX}, {"trowexpandmin", Op::MIN},
        {"trowexpandexpdif", Op::EXPDIF}};
    if (m.substr(0, 4) == "pto.") m.remove_prefix(4);
    for (const auto& [n, op] : kOps)
      if (m == n) return op;
    return std::nullopt;
  }

  int parse_int(std::string_view s, int col, const std::string& tok, const char* what,
                bool allow_dyn = false) {
    if (allow_dyn && s == "?") return kDyn;
    if (s.empty() || s.size() > 9) error_at(col, tok, std::string("expected ") + what);
    int v = 0;
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        error_at(col, tok, std::string("expected ") + what);
      v = v * 10 + (c - '0');
    }
    return v;
  }

  // "16x128xf32" (dims then dtype) or "16x1" (valid=, with '?').
  void parse_shape(std::string_view s, int col, const std::string& tok, TypeSpec& t,
                   bool with_dtype) {
    std::vector<std::string_view> parts;
    size_t p = 0;
    while (true) {
      const size_t q = s.find('x', p);
      parts.push_back(s.substr(p, q == std::string_view::npos ? std::string_view::npos : q - p));
      if (q == std::string_view::npos) break;
      p = q + 1;
    }
    if (parts.size() != (with_dtype ? 3u : 2u))
      error_at(
          col, tok,
          with_dtype ? "expected a shape RxCxT (e.g. 16x128xf32)" : "expected a valid shape RxC");
    if (with_dtype) {
      t.rows = parse_int(parts[0], col, tok, "a row count");
      t.cols = parse_int(parts[1], col, tok, "a column count");
      t.dtype = elem(parts[2], col, tok);
    } else {
      t.vr = parse_int(parts[0], col, tok, "a valid row count or '?'", true);
      t.vc = parse_int(parts[1], col, tok, "a valid column count or '?'", true);
    }
  }

  Elem elem(std::string_view s, int col, const std::string& tok) {
    Elem e;
    if (elem_of(s, e)) return e;
    error_at(col, tok,
             "unknown element type '" + std::string(s) +
                 "' (f16 f32 bf16 i8 i16 i32 i64 ui8 ui16 ui32 ui64)");
  }
  static bool elem_of(std::string_view s, Elem& out) {
    static constexpr const char* kOk[] = {"f16", "f32", "bf16", "i8",  "i16", "i32", "i64", "ui8",
                                          "ui16", "ui32", "ui64", "u8", "u16", "u32", "u64"};
    for (const char* k : kOk)
      if (s == k) {
        out = parse_elem(s, "PTO-AS");
        return true;
      }
    return false;
  }

  TypeSpec type(const Token& tk) {
    TypeSpec t;
    t.pos = {line_, tk.col};
    t.text = tk.s;
    const std::string& s = tk.s;
    const size_t lt = s.find('<');
    const std::string head = s.substr(0, lt);
    const std::string body = s.substr(lt + 1, s.size() - lt - 2);
    const int body_col = tk.col + int(lt) + 1;
    if (head == "!pto.tile") {
      std::string b;
      for (char c : body)
        if (c != ' ') b += c;
      parse_shape(b, body_col, s, t, true);
      t.row_major = t.cols != 1;  // spec 20 §6: a [R, 1] operand is ColMajor
      return t;
    }
    if (head != "!pto.tile_buf")
      error_at(tk.col, s, "expected !pto.tile<...> or !pto.tile_buf<...>");
    t.is_buf = true;
    // Comma-separated items; compact form starts with a location and RxCxT, keyed form has
    // key=value.
    std::vector<std::pair<std::string, int>> items;
    size_t p = 0;
    while (p <= body.size()) {
      size_t q = body.find(',', p);
      if (q == std::string::npos) q = body.size();
      size_t a = p, e = q;
      while (a < e && body[a] == ' ') ++a;
      while (e > a && body[e - 1] == ' ') --e;
      items.push_back({body.substr(a, e - a), body_col + int(a)});
      p = q + 1;
    }
    bool have_shape = false, have_rows = false, have_cols = false, have_dtype = false,
         have_loc = false;
    // Each property may be given once: a repeated key, or a key restating what the compact shape
    // or location already gave, is an error rather than a silent override.
    std::vector<std::string> given;
    const auto claim = [&](const std::string& what, int col, const std::string& item) {
      if (std::find(given.begin(), given.end(), what) != given.end())
        error_at(col, item, "!pto.tile_buf gives " + what + " twice");
      given.push_back(what);
    };
    for (const auto& [item, col] : items) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos) {
        if (item.empty()) error_at(col, s, "empty item in !pto.tile_buf");
        if (!have_loc && item.find('x') == std::string::npos) {
          claim("loc", col, item);
          t.loc = location(item, col, s);
          have_loc = true;
        } else {
          for (const char* w : {"rows", "cols", "dtype"}) claim(w, col, item);
          parse_shape(item, col, item, t, true);
          have_shape = true;
        }
        continue;
      }
      std::string key = item.substr(0, eq), val = item.substr(eq + 1);
      while (!key.empty() && key.back() == ' ') key.pop_back();
      while (!val.empty() && val.front() == ' ') val.erase(0, 1);
      const int vcol = col + int(eq) + 1;
      if (key == "valid") {
        claim("v_row", col, item);
        claim("v_col", col, item);
      } else {
        claim(key, col, item);
      }
      if (key == "loc")
        t.loc = location(val, vcol, item), have_loc = true;
      else if (key == "dtype")
        t.dtype = elem(val, vcol, item), have_dtype = true;
      else if (key == "rows")
        t.rows = parse_int(val, vcol, item, "a row count"), have_rows = true;
      else if (key == "cols")
        t.cols = parse_int(val, vcol, item, "a column count"), have_cols = true;
      else if (key == "v_row")
        t.vr = parse_int(val, vcol, item, "a valid row count or '?'", true);
      else if (key == "v_col")
        t.vc = parse_int(val, vcol, item, "a valid column count or '?'", true);
      else if (key == "valid")
        parse_shape(val, vcol, item, t, false);
      else if (key == "blayout") {
        if (val == "row_major")
          t.row_major = true;
        else if (val == "col_major")
          t.row_major = false;
        else
          error_at(vcol, item, "blayout must be row_major or col_major");
      } else if (key == "slayout") {
        if (val == "none_box")
          t.slayout = 0;
        else if (val == "row_major")
          t.slayout = 1;
        else if (val == "col_major")
          t.slayout = 2;
        else
          error_at(vcol, item, "slayout must be none_box, row_major or col_major");
      } else if (key == "fractal")
        t.fractal = parse_int(val, vcol, item, "a fractal size");
      else if (key == "pad") {
        static constexpr const char* kPads[] = {"null", "zero", "max", "min"};
        bool ok = false;
        for (int k = 0; k < 4; ++k)
          if (val == kPads[k] || val == std::to_string(k)) t.pad = uint64_t(k), ok = true;
        if (!ok) error_at(vcol, item, "pad must be null, zero, max, min or 0..3");
      } else {
        error_at(col, item, "unknown !pto.tile_buf key '" + key + "'");
      }
    }
    if (!have_shape && !(have_rows && have_cols && have_dtype))
      error_at(tk.col, s, "!pto.tile_buf needs RxCxT or rows=, cols= and dtype=");
    if (!have_loc) error_at(tk.col, s, "!pto.tile_buf needs a location (vec, ...)");
    return t;
  }

  uint8_t location(const std::string& v, int col, const std::string& tok) {
    static constexpr const char* kLocs[] = {"vec",  "mat",     "left",       "right",       "acc",
                                            "bias", "scaling", "scale_left", "scale_right", "ctrl"};
    for (int k = 0; k < 10; ++k)
      if (v == kLocs[k]) return uint8_t(k);
    error_at(col, tok, "unknown tile location '" + v + "' (vec mat left right acc bias ...)");
  }

  TypeSpec type_tok() {
    return type(expect(Token::Type, "a type !pto.tile<...> or !pto.tile_buf<...>"));
  }

  // ---- instructions: operands, attributes, binding to the roles of an engine Call ----

  // Resolves an op name: the TROWEXPAND* family, or a row of the instruction table spelled in
  // lower case ("pto.tadd"). The DPS spelling needs the "pto." prefix.
  void resolve_op(Stmt& st, const Token& m, bool need_prefix) {
    std::string_view name = m.s;
    const bool prefixed = name.substr(0, 4) == "pto.";
    if (prefixed) name.remove_prefix(4);
    if (need_prefix && !prefixed) error(m, "unknown instruction");
    if (const auto op = op_of(name)) {
      st.op = *op;
      return;
    }
    const InstrInfo* info = find_instr(name);
    // GM operands and the cube: the func.func form (docs/pto.md); gather/scatter take tiles only
    if (info && !is_vector_kind(info->kind) && info->kind != Kind::Gather && info->kind != Kind::Scatter)
      error(m, "is not available in the .arg form (it takes GlobalTensor operands)");
    bool lower = info != nullptr;
    for (char c : name) lower = lower && !std::isupper(static_cast<unsigned char>(c));
    if (!lower) error(m, "unknown instruction");
    st.info = info;
  }

  static bool is_special_float(std::string_view s) { return s == "inf" || s == "nan"; }

  // ins operands [attributes] ':' types, the types optionally in parentheses (PTOAS IR level 1).
  void ins_list(Stmt& st) {
    do {
      const Token& t = peek();
      if (t.t == Token::Punct && t.s == "{" && !st.ins.empty()) break;  // ins(%src, {maskPattern = ...} : T)
      Arg a;
      a.pos = {line_, t.col};
      if (t.t == Token::Percent) {
        a.tile = {t.s, a.pos};
      } else if (t.t == Token::Number || (t.t == Token::Ident && is_special_float(t.s))) {
        a.is_scalar = true;
        a.literal = t.s;
      } else {
        error(t, "expected a tile operand '%name' or a scalar literal");
      }
      next();
      st.ins.push_back(std::move(a));
    } while (accept(","));
    attributes(st);
    expect_punct(":");
    const bool paren = accept("(");
    for (size_t k = 0; k < st.ins.size(); ++k) {
      if (k) expect_punct(",");
      Arg& a = st.ins[k];
      const Token& t = peek();
      a.type_pos = {line_, t.col};
      a.type_text = t.s;
      if (!a.is_scalar) {
        a.type = type_tok();
        continue;
      }
      if (t.t != Token::Ident) error(t, "expected the scalar's element type (f32, i16, ...)");
      a.scalar_type = elem(t.s, t.col, t.s);
      next();
    }
    if (paren) expect_punct(")");
  }

  // The attribute names an instruction takes (PTOAS spellings).
  static std::vector<const char*> attribute_names(const Stmt& st) {
    if (!st.info) return {};
    switch (st.info->kind) {
      case Kind::Compare:
      case Kind::CompareScalar:
        return {"cmpMode"};
      case Kind::Convert:
        return {"rmode", "sat_mode"};
      case Kind::ColReduce:
        if (fe::has_tmp_form(*st.info)) return {"isBinary"};
        return {};
      case Kind::Gather:
      case Kind::Scatter:
        return {"maskPattern"};
      default:
        return {};
    }
  }

  // "#pto<cmp lt>" or "#pto.cmp<lt>": the value word, after checking the attribute's kind.
  std::string attr_word(const Token& v, const char* kind) {
    const std::string want = fmt::format("expected #pto<{} VALUE> or #pto.{}<VALUE>", kind, kind);
    if (v.t != Token::Attr) error(v, want);
    const std::string& s = v.s;
    std::string k, w;
    if (s.rfind("#pto<", 0) == 0) {
      const std::string inner = s.substr(5, s.size() - 6);
      const size_t sp = inner.find(' ');
      if (sp != std::string::npos) {
        k = inner.substr(0, sp);
        w = inner.substr(sp + 1);
      }
    } else if (s.rfind("#pto.", 0) == 0) {
      const size_t lt = s.find('<');
      k = s.substr(5, lt - 5);
      w = s.substr(lt + 1, s.size() - lt - 2);
    }
    while (!w.empty() && w.front() == ' ') w.erase(0, 1);
    while (!w.empty() && w.back() == ' ') w.pop_back();
    if (k != kind || w.empty()) error(v, want);
    return w;
  }

  // An optional attribute dictionary: {cmpMode = #pto<cmp lt>}, {rmode = #pto<round_mode ROUND>,
  // sat_mode = #pto<saturation_mode OFF>}, {isBinary = true}. One per statement.
  void attributes(Stmt& st) {
    if (peek().t != Token::Punct || peek().s != "{") return;
    const Token& open = next();
    if (attrs_seen_) error(open, "a second attribute dictionary");
    attrs_seen_ = true;
    const auto names = attribute_names(st);
    std::vector<std::string> given;
    do {
      const Token& key = expect(Token::Ident, "an attribute name");
      if (std::find(names.begin(), names.end(), std::string_view(key.s)) == names.end()) {
        std::string list;
        for (const char* n : names) list += (list.empty() ? "" : " ") + std::string(n);
        error(key, fmt::format("unknown attribute '{}' for {} (it takes {})", key.s, st.mnemonic,
                               list.empty() ? "none" : list));
      }
      if (std::find(given.begin(), given.end(), key.s) != given.end())
        error(key, "attribute '" + key.s + "' given twice");
      given.push_back(key.s);
      expect_punct("=");
      const Token& v = next();
      try {
        if (key.s == "cmpMode") {
          st.cmp = fe::parse_cmp(attr_word(v, "cmp"));
        } else if (key.s == "rmode") {
          st.round = fe::parse_round(attr_word(v, "round_mode"));
        } else if (key.s == "sat_mode") {
          st.sat = fe::parse_sat(attr_word(v, "saturation_mode"));
        } else if (key.s == "maskPattern") {
          st.mask_pattern = fe::parse_mask_pattern(attr_word(v, "mask_pattern"));
        } else {  // isBinary
          if (v.t != Token::Ident || (v.s != "true" && v.s != "false"))
            error(v, "expected true or false");
          st.is_binary = v.s == "true";
        }
      } catch (const Error& e) {
        if (e.code() == ErrorCode::Parse) throw;
        error(v, e.what());
      }
    } while (accept(","));
    expect_punct("}");
  }

  static std::vector<const char*> patterns(const Stmt& st) {
    return detail::operand_patterns(st.info);
  }

  // Binds the parsed operands to the roles of the engine Call by the kind's patterns, checks the
  // outs count and the attributes' context, and reads the scalar literal as its tile's dtype.
  void bind(Stmt& st, const Token& m) {
    const auto pats = patterns(st);
    std::string shape, got;
    for (const Arg& a : st.ins) {
      shape += a.is_scalar ? 's' : 'T';
      got += std::string(got.empty() ? "" : ", ") + (a.is_scalar ? a.literal : "%" + a.tile.name);
    }
    const char* match = nullptr;
    for (const char* p : pats) {
      std::string want(p);
      for (char& c : want)
        if (c != 's') c = 'T';
      if (want == shape) match = p;
    }
    if (!match) error(m, fmt::format("{} takes {}, got ({})", m.s, detail::pattern_usage(pats), got));
    for (size_t k = 0; match[k]; ++k) {
      const int i = int(k);
      switch (match[k]) {
        case 'a': st.roles.src0 = i; break;
        case 'b': st.roles.src1 = i; break;
        case 'm': st.roles.mask = i; break;
        case 't': st.roles.tmp = i; break;
        default: st.roles.scalar = i; break;
      }
    }
    st.roles.scalar_first = match[0] == 's' && match[1] == 'a';
    const bool two_outs = st.info && (st.info->kind == Kind::RowArg || st.info->kind == Kind::ColArg);
    if (st.dst2 && !two_outs) error_at(st.dst2->pos.col, "%" + st.dst2->name, "one destination expected");
    if (st.is_binary && st.roles.tmp < 0)
      error(m, "isBinary = true needs the tmp form ins(%src, %tmp {isBinary = true} : ...)");
    if (st.roles.scalar < 0) return;
    // A scalar is read as its tile's dtype (src0's; dst's for TEXPANDS); its annotation names
    // that dtype (TLRELU's slope may also be f32, PTOAS's type for it).
    Arg& a = st.ins[size_t(st.roles.scalar)];
    const Elem owner = fe::scalar_is_dst_dtype(st.info->kind)
                           ? st.dst_type->dtype
                           : st.ins[size_t(st.roles.src0)].type.dtype;
    if (a.scalar_type != owner && !(st.info->kind == Kind::LeakyRelu && a.scalar_type == Elem::f32))
      error_at(a.type_pos.col, a.type_text,
               fmt::format("the scalar is read as {}, the dtype of its tile; its type {} differs",
                           elem_name(owner), elem_name(a.scalar_type)));
    try {
      st.scalar_code = fe::scalar_code(a.literal, owner, st.info->name);
    } catch (const Error& e) {
      error_at(a.pos.col, a.literal, e.what());
    }
  }

  Stmt statement() {
    Stmt st;
    attrs_seen_ = false;
    const Token& first = peek();
    st.pos = {line_, first.col};
    if (first.t == Token::Ident && first.s == ".arg") {
      next();
      st.kind = StmtKind::Arg;
      st.result = operand();
      expect_punct(":");
      st.dst_type = type_tok();
      end_of_line();
      return st;
    }
    if (first.t == Token::Percent) {
      st.result = operand();
      expect_punct("=");
      const Token& m = expect(Token::Ident, "an instruction");
      st.mnemonic = m.s;
      st.pos = {line_, m.col};
      if (m.s == "pto.alloc_tile") {
        st.kind = StmtKind::Alloc;
        expect_punct(":");
        st.dst_type = type_tok();
        end_of_line();
        return st;
      }
      resolve_op(st, m, false);
      st.kind = StmtKind::Instr;
      st.ssa = true;
      ins_list(st);
      expect_punct("->");
      st.dst_type = type_tok();
      end_of_line();
      bind(st, m);
      return st;
    }
    if (first.t != Token::Ident) error(first, "expected a statement");
    const Token& m = next();
    st.mnemonic = m.s;
    if (m.s == "pto.tassign") {
      st.kind = StmtKind::Tassign;
      st.result = operand();
      expect_punct(",");
      const Token& at = expect(Token::At, "@tile(ADDRESS)");
      if (at.s != "tile") error(at, "expected @tile(ADDRESS)");
      expect_punct("(");
      const Token& n = expect(Token::Number, "a UB byte address");
      errno = 0;
      char* endp = nullptr;
      const unsigned long long v = std::strtoull(n.s.c_str(), &endp, 0);
      if (*endp != '\0' || errno != 0 || v > (1ull << 40) || n.s[0] == '-' || n.s[0] == '+')
        error(n, "expected a UB byte address (decimal or 0x...)");
      st.addr = int64_t(v);
      expect_punct(")");
      end_of_line();
      return st;
    }
    resolve_op(st, m, true);
    st.kind = StmtKind::Instr;
    const Token& ins = expect(Token::Ident, "'ins('");
    if (ins.s != "ins") error(ins, "expected 'ins('");
    expect_punct("(");
    ins_list(st);
    expect_punct(")");
    const Token& outs = expect(Token::Ident, "'outs('");
    if (outs.s != "outs") error(outs, "expected 'outs('");
    expect_punct("(");
    st.dst = operand();
    if (accept(",")) st.dst2 = operand();
    expect_punct(":");
    st.dst_type = type_tok();
    if (st.dst2) {
      expect_punct(",");
      st.dst2_type = type_tok();
    }
    expect_punct(")");
    attributes(st);  // PTOAS also prints the dictionary after outs(...)
    end_of_line();
    bind(st, m);
    return st;
  }

  std::string_view text_;
  bool attrs_seen_ = false;
  std::string file_;
  std::vector<Token> toks_;
  size_t i_ = 0;
  int line_ = 0;
};

struct VTile {
  std::string name;
  TypeSpec type;
  std::vector<uint8_t> own;
  TileDesc d;
  bool is_arg = false;
};

class Machine {
 public:
  Machine(std::string file, const Target& t, const RunOptions& o)
      : file_(std::move(file)), target_(t), opts_(o), ub_bytes_(t.ub_bytes, 0) {
    ub_ = Ub{ub_bytes_.data(), ub_bytes_.size()};
  }

  void exec(const Stmt& st) {
    try {
      switch (st.kind) {
        case StmtKind::Arg:
          define(st, true);
          break;
        case StmtKind::Alloc:
          define(st, false);
          break;
        case StmtKind::Tassign:
          tassign(st);
          break;
        case StmtKind::Instr:
          instr(st);
          if (sink_.out) trace_instr(st);
          break;
      }
    } catch (const Error& e) {
      if (std::string_view(e.what()).substr(0, file_.size()) == file_) throw;
      const std::string tok = st.kind == StmtKind::Arg ? ".arg" : st.mnemonic;
      throw Error(e.code(), fmt::format("{}:{}:{}: {} (at '{}')", file_, st.pos.line, st.pos.col,
                                        e.what(), tok));
    }
  }

  std::vector<Output> outputs() const {
    std::vector<Output> out;
    for (const auto& t : tiles_) {
      Output o;
      o.name = t->name;
      o.dtype = elem_name(t->d.dtype);
      o.array.descr = carrier_of(t->d.dtype);
      o.array.shape = {size_t(t->d.rows), size_t(t->d.cols)};
      const size_t sz = elem_size(t->d.dtype);
      o.array.data.resize(t->d.bytes());
      // RowMajor storage already is the (Rows, Cols) array: one copy. Element by element, a
      // 256 MiB program tile took seconds (a fuzzing timeout, tests/regress/fuzz_pto_as/).
      if (t->d.row_major) {
        std::memcpy(o.array.data.data(), t->d.data, t->d.bytes());
        out.push_back(std::move(o));
        continue;
      }
      for (int r = 0; r < t->d.rows; ++r)
        for (int c = 0; c < t->d.cols; ++c) {
          const size_t src = t->d.row_major ? size_t(r) * t->d.cols + c : size_t(c) * t->d.rows + r;
          std::memcpy(o.array.data.data() + (size_t(r) * t->d.cols + c) * sz, t->d.data + src * sz,
                      sz);
        }
      out.push_back(std::move(o));
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const Pos& p, const std::string& tok, const std::string& what,
                         ErrorCode code = ErrorCode::Parse) {
    raise(code, fmt::format("{}:{}:{}", file_, p.line, p.col), what + ", at '" + tok + "'",
          "docs/pto.md#pto-as");
  }

  VTile* find(const Operand& o) {
    for (auto& t : tiles_)
      if (t->name == o.name) return t.get();
    fail(o.pos, "%" + o.name, "undefined tile '%" + o.name + "'");
  }

  VTile& create(const Operand& name, const TypeSpec& ty, bool is_arg, const char* what) {
    for (auto& t : tiles_)
      if (t->name == name.name)
        fail(name.pos, "%" + name.name, "redefinition of '%" + name.name + "'");
    auto v = std::make_unique<VTile>();
    v->name = name.name;
    v->type = ty;
    v->is_arg = is_arg;
    TileDesc& d = v->d;
    d.dtype = ty.dtype;
    d.loc = ty.loc;
    d.row_major = ty.row_major;
    d.slayout = ty.slayout;
    d.pad = ty.pad;
    d.fractal = ty.fractal;
    d.rows = ty.rows;
    d.cols = ty.cols;
    d.valid_row = ty.vr < 0 ? ty.rows : ty.vr;
    d.valid_col = ty.vc < 0 ? ty.cols : ty.vc;
    if (ty.rows <= 0 || ty.cols <= 0 || ty.rows > (1 << 16) || ty.cols > (1 << 16))
      fail(
          ty.pos, ty.text,
          fmt::format("tile shape must be 1..65536 in each dimension, got {}x{}", ty.rows, ty.cols),
          ErrorCode::Bounds);
    if (d.bytes() > (size_t(1) << 28))
      fail(ty.pos, ty.text,
           fmt::format("tile of {} bytes exceeds the 256 MiB limit of a program tile", d.bytes()),
           ErrorCode::Bounds);
    // The run's total allocation cap (docs/pto.md#running-a-program): checked before allocating.
    if (d.bytes() > opts_.max_mem - std::min(opts_.max_mem, allocated_))
      fail(ty.pos, ty.text,
           fmt::format("allocating {} bytes for '%{}' exceeds max_mem = {} bytes ({} already "
                       "allocated; raise it with --max-mem / max_mem=)",
                       d.bytes(), name.name, opts_.max_mem, allocated_),
           ErrorCode::Bounds);
    allocated_ += d.bytes();
    v->own.assign(d.bytes(), 0);
    d.data = v->own.data();
    d.capacity = v->own.size();
    check_tile(d, what, "%" + name.name);
    tiles_.push_back(std::move(v));
    return *tiles_.back();
  }

  void define(const Stmt& st, bool is_arg) {
    VTile& v = create(st.result, *st.dst_type, is_arg, is_arg ? ".arg" : "pto.alloc_tile");
    if (!is_arg) return;
    const auto vit = opts_.valid.find(v.name);
    if (vit != opts_.valid.end()) {
      const auto [vr, vc] = vit->second;
      // Only '?' dimensions take the caller's valid shape (spec 20 §6); a static one (given, or
      // absent: the full extent) must agree with it.
      const int svr = v.type.vr == kAbsent ? v.d.rows : v.type.vr;
      const int svc = v.type.vc == kAbsent ? v.d.cols : v.type.vc;
      if ((v.type.vr != kDyn && svr != vr) || (v.type.vc != kDyn && svc != vc))
        fail(st.result.pos, "%" + v.name,
             fmt::format("caller valid shape {}x{} contradicts the declared static valid shape "
                         "{}x{} (only '?' dimensions take the caller's)",
                         vr, vc, v.type.vr == kDyn ? "?" : std::to_string(svr),
                         v.type.vc == kDyn ? "?" : std::to_string(svc)),
             ErrorCode::Constraint);
      if (vr < 0 || vr > v.d.rows || vc < 0 || vc > v.d.cols)
        fail(st.result.pos, "%" + v.name,
             fmt::format("valid shape {}x{} exceeds the {}x{} tile", vr, vc, v.d.rows, v.d.cols),
             ErrorCode::Bounds);
      v.d.valid_row = vr;
      v.d.valid_col = vc;
    }
    const auto it = opts_.inputs.find(v.name);
    if (it == opts_.inputs.end()) return;  // not supplied: zero-filled (spec 20 §6)
    const npy::Array& a = it->second;
    const char* want = carrier_of(v.d.dtype);
    if (a.descr != want)
      fail(st.result.pos, "%" + v.name,
           fmt::format("input array has dtype '{}', the {} tile's carrier is '{}' (docs/formats.md#dtype-names)",
                       a.descr, elem_name(v.d.dtype), want),
           ErrorCode::Constraint);
    if (a.shape.size() != 2 || a.shape[0] != size_t(v.d.rows) || a.shape[1] != size_t(v.d.cols)) {
      std::string shape;
      for (size_t k = 0; k < a.shape.size(); ++k)
        shape += (k ? "x" : "") + std::to_string(a.shape[k]);
      fail(st.result.pos, "%" + v.name,
           fmt::format("input array shape {} differs from the declared {}x{}",
                       shape.empty() ? "()" : shape, v.d.rows, v.d.cols),
           ErrorCode::Constraint);
    }
    const size_t sz = elem_size(v.d.dtype);
    if (a.data.size() != v.d.bytes())
      fail(st.result.pos, "%" + v.name, "input array data size does not match its shape",
           ErrorCode::Constraint);
    if (v.d.row_major) {  // the same layout as the array: one copy (see outputs())
      std::memcpy(v.d.data, a.data.data(), v.d.bytes());
      return;
    }
    for (int r = 0; r < v.d.rows; ++r)
      for (int c = 0; c < v.d.cols; ++c) {
        const size_t dsti = v.d.row_major ? size_t(r) * v.d.cols + c : size_t(c) * v.d.rows + r;
        std::memcpy(v.d.data + dsti * sz, a.data.data() + (size_t(r) * v.d.cols + c) * sz, sz);
      }
  }

  void tassign(const Stmt& st) {
    VTile* v = find(st.result);
    uint8_t* p = ub_bind(ub_, target_, st.addr, v->d.bytes(), "%" + v->name);
    // Decision: an .arg carries the caller's data into the UB when bound; an alloc_tile views the
    // UB bytes as they are (so two tiles bound to one address alias, spec 20 §1).
    if (v->is_arg && v->d.ub_addr < 0) std::memcpy(p, v->d.data, v->d.bytes());
    v->d.data = p;
    v->d.capacity = v->d.bytes();
    v->d.ub_addr = st.addr;
    v->d.ub = ub_.base;
  }

  void agree(const VTile& v, const TypeSpec& ty, const Operand& o) {
    std::string why;
    if (ty.dtype != v.d.dtype)
      why = fmt::format("dtype {} vs tile's {}", elem_name(ty.dtype), elem_name(v.d.dtype));
    else if (ty.rows != v.d.rows || ty.cols != v.d.cols)
      why = fmt::format("shape {}x{} vs tile's {}x{}", ty.rows, ty.cols, v.d.rows, v.d.cols);
    else if (ty.row_major != v.d.row_major)
      why = fmt::format("layout {} vs tile's {}", ty.row_major ? "row_major" : "col_major",
                        v.d.row_major ? "row_major" : "col_major");
    else if (ty.is_buf && ty.loc != v.d.loc)
      why = "tile location differs";
    else if (ty.is_buf && (ty.slayout != v.d.slayout || ty.fractal != v.d.fractal ||
                           ty.pad != v.d.pad)) {
      static constexpr const char* kSl[] = {"none_box", "row_major", "col_major"};
      why = fmt::format("slayout/fractal/pad {}/{}/{} vs tile's {}/{}/{}", kSl[ty.slayout % 3],
                        ty.fractal, ty.pad, kSl[v.d.slayout % 3], v.d.fractal, v.d.pad);
    }
    else if (ty.is_buf &&
             ((ty.vr >= 0 && ty.vr != v.d.valid_row) || (ty.vc >= 0 && ty.vc != v.d.valid_col)))
      why = fmt::format("valid shape {}x{} vs tile's {}x{}", ty.vr, ty.vc, v.d.valid_row,
                        v.d.valid_col);
    if (!why.empty())
      fail(ty.pos, ty.text,
           "type annotation of '%" + o.name + "' disagrees with the bound tile: " + why,
           ErrorCode::Constraint);
  }

  // The SSA result: a new auto-mode tile of the annotated type. Its '?' valid dimensions (and
  // every dimension of a !pto.tile type, which has no valid shape) follow the sources: for the
  // TROWEXPAND* family the source whose static shape matches (src0 first); for the table's
  // instructions the destination Python would create (spec 60 §4 dst=None) when it fits; else the
  // static extent.
  VTile* ssa_result(const Stmt& st, VTile* s0, VTile* s1) {
    TypeSpec ty = *st.dst_type;
    const bool follow_r = !ty.is_buf || ty.vr == kDyn, follow_c = !ty.is_buf || ty.vc == kDyn;
    if (follow_r) ty.vr = kAbsent;
    if (follow_c) ty.vc = kAbsent;
    if (!st.info) {
      for (VTile* s : {s0, s1})
        if (s->d.rows == ty.rows && s->d.cols == ty.cols) {
          if (follow_r) ty.vr = s->d.valid_row;
          if (follow_c) ty.vc = s->d.valid_col;
          break;
        }
    } else if (s0 && (follow_r || follow_c)) {
      const Kind k = st.info->kind;
      const int extent = k == Kind::RowExpand ? ty.cols : k == Kind::ColExpand ? ty.rows : -1;
      const fe::DstSpec d = fe::default_dst(*st.info, target_, s0->d, s1 ? &s1->d : nullptr,
                                            extent, ty.dtype);
      if (follow_r && d.valid_row <= ty.rows) ty.vr = d.valid_row;
      if (follow_c && d.valid_col <= ty.cols) ty.vc = d.valid_col;
    }
    return &create(st.result, ty, false, st.mnemonic.c_str());
  }

  VTile* bound(const Operand& o, const TypeSpec& ty) {
    VTile* v = find(o);
    agree(*v, ty, o);
    return v;
  }

  void instr(const Stmt& st) {
    std::vector<VTile*> in(st.ins.size(), nullptr);
    for (size_t k = 0; k < st.ins.size(); ++k)
      if (!st.ins[k].is_scalar) in[k] = bound(st.ins[k].tile, st.ins[k].type);
    const auto tile = [&](int k) { return k < 0 ? nullptr : in[size_t(k)]; };
    const auto desc = [&](int k) -> const TileDesc* {
      VTile* v = tile(k);
      return v ? &v->d : nullptr;
    };
    const Roles& r = st.roles;
    VTile* dst = st.ssa ? ssa_result(st, tile(r.src0), tile(r.src1)) : bound(st.dst, *st.dst_type);
    if (!st.info) {
      // A .arg program has no sync ops: compiler-synchronised, not checked (docs/sync.md#switches).
      row_expand(st.op, dst->d, *desc(r.src0), *desc(r.src1), desc(r.tmp), target_, ub_, Path::Fast,
                 {}, true);
      return;
    }
    Call c;
    c.instr = st.info->id;
    c.src0 = desc(r.src0);
    c.src1 = desc(r.src1);
    c.mask = desc(r.mask);
    c.tmp = desc(r.tmp);
    c.scalar = st.scalar_code;
    c.scalar_first = r.scalar_first;
    c.cmp = st.cmp;
    c.round = st.round;
    c.sat = st.sat;
    c.is_binary = st.is_binary;
    c.pattern = st.mask_pattern;
    const Kind k = st.info->kind;
    if (k == Kind::RowArg || k == Kind::ColArg) {  // (dstIdx) or (dstVal, dstIdx)
      if (st.dst2) {
        c.dst = &dst->d;
        c.dst_idx = &bound(*st.dst2, *st.dst2_type)->d;
      } else {
        c.dst_idx = &dst->d;
      }
    } else {
      c.dst = &dst->d;
    }
    // The reductions without a tmp operand get a scratch one (fe::needs_scratch_tmp).
    std::vector<uint8_t> scratch;
    TileDesc scratch_desc;
    if (!c.tmp && fe::needs_scratch_tmp(k) && c.src0) {
      const fe::DstSpec s = fe::scratch_tmp(*c.src0);
      scratch_desc.dtype = s.dtype;
      scratch_desc.rows = s.rows;
      scratch_desc.cols = s.cols;
      scratch_desc.valid_row = s.valid_row;
      scratch_desc.valid_col = s.valid_col;
      scratch.assign(scratch_desc.bytes(), 0);
      scratch_desc.data = scratch.data();
      scratch_desc.capacity = scratch.size();
      c.tmp = &scratch_desc;
    }
    c.auto_sync = true;  // a .arg program has no sync ops: compiler-synchronised (docs/sync.md#switches)
    execute(c, target_, ub_);
  }

  // One trace line (docs/cli.md#trace): the op, its operands (tiles: shape, valid region, dtype,
  // layout, UB address; scalars as written) and what each destination holds in its valid region.
  static double value_at(const TileDesc& d, int r, int c) {
    const size_t i = d.row_major ? size_t(r) * d.cols + c : size_t(c) * d.rows + r;
    const uint8_t* p = d.data + i * elem_size(d.dtype);
    auto get = [p](auto v) {
      std::memcpy(&v, p, sizeof v);
      return v;
    };
    switch (d.dtype) {
      case Elem::f16: return formats::f16_to_f32(get(uint16_t{}));
      case Elem::bf16: return formats::bf16_to_f32(get(uint16_t{}));
      case Elem::f32: return get(float{});
      case Elem::s8: return get(int8_t{});
      case Elem::s16: return get(int16_t{});
      case Elem::s32: return get(int32_t{});
      case Elem::u8: return get(uint8_t{});
      case Elem::u16: return get(uint16_t{});
      case Elem::u32: return get(uint32_t{});
      case Elem::s64: return double(get(int64_t{}));
      case Elem::u64: return double(get(uint64_t{}));
    }
    return 0;
  }

  static void tile_fields(trace::Object& o, const VTile& v) {
    o.str("name", "%" + v.name)
        .str("dtype", elem_name(v.d.dtype))
        .raw("shape", trace::ints({v.d.rows, v.d.cols}))
        .raw("valid", trace::ints({v.d.valid_row, v.d.valid_col}))
        .str("layout", v.d.row_major ? "row_major" : "col_major");
    if (v.d.ub_addr >= 0) o.integer("addr", v.d.ub_addr);
  }

  void trace_instr(const Stmt& st) {
    trace::Object line;
    line.str("file", file_).integer("line", st.pos.line).str("op", st.mnemonic);
    std::string ops = "[";
    for (size_t k = 0; k < st.ins.size(); ++k) {
      trace::Object o;
      if (st.ins[k].is_scalar)
        o.str("scalar", st.ins[k].literal);
      else
        tile_fields(o, *find(st.ins[k].tile));
      ops += (k ? ", " : "") + o.text();
    }
    line.raw("operands", ops + "]");
    std::vector<const VTile*> dsts{find(st.ssa ? st.result : st.dst)};
    if (st.dst2) dsts.push_back(find(*st.dst2));
    std::string wrote = "[";
    for (size_t k = 0; k < dsts.size(); ++k) {
      const TileDesc& d = dsts[k]->d;
      trace::Object o;
      tile_fields(o, *dsts[k]);
      const size_t vc = size_t(std::max(d.valid_col, 0));
      trace::summarize(o, sink_, size_t(std::max(d.valid_row, 0)) * vc, [&](size_t i) {
        return value_at(d, int(i / vc), int(i % vc));
      });
      wrote += (k ? ", " : "") + o.text();
    }
    line.raw("wrote", wrote + "]");
    trace::emit(sink_, line);
  }

  std::string file_;
  const Target& target_;
  const RunOptions& opts_;
  trace::Sink sink_{opts_.trace, opts_.trace_values};
  size_t allocated_ = 0;  // bytes of every tile created so far (max_mem)
  std::vector<uint8_t> ub_bytes_;
  Ub ub_;
  std::vector<std::unique_ptr<VTile>> tiles_;
};

}  // namespace

namespace detail {

const char* carrier_of(Elem e) {
  switch (e) {
    case Elem::f16:
      return "<f2";
    case Elem::bf16:
      return "<u2";
    case Elem::f32:
      return "<f4";
    case Elem::s8:
      return "|i1";
    case Elem::s16:
      return "<i2";
    case Elem::s32:
      return "<i4";
    case Elem::u8:
      return "|u1";
    case Elem::u16:
      return "<u2";
    case Elem::u32:
      return "<u4";
    case Elem::s64:
      return "<i8";
    case Elem::u64:
      return "<u8";
  }
  return "";
}

std::vector<const char*> operand_patterns(const InstrInfo* info) {
  if (!info) return {"ab", "abt"};  // TROWEXPAND*(src0, src1[, tmp])
  const bool tmp = fe::has_tmp_form(*info);
  switch (info->kind) {
    case Kind::Binary:
    case Kind::Compare:
    case Kind::ColExpandOp:
    case Kind::Matmul:
      return {"ab"};
    case Kind::BinaryTmp:
      return {"ab", "abt"};
    case Kind::Unary:
    case Kind::RowExpand:
    case Kind::ColExpand:
    case Kind::Reshape:
    case Kind::FillPad:
      return {"a"};
    case Kind::UnaryRsqrt:
    case Kind::RowReduce:
    case Kind::ColReduce:
    case Kind::RowArg:
    case Kind::ColArg:
    case Kind::Convert:
      if (tmp) return {"a", "at"};
      return {"a"};
    case Kind::Scalar:
    case Kind::LeakyRelu:
    case Kind::Axpy:
      return {"as"};
    case Kind::ScalarDiv:
      return {"as", "sa"};
    case Kind::ScalarTmp:
      return {"as", "ast"};
    case Kind::ExpandScalar:
      return {"s"};
    case Kind::CompareScalar:
      return {"as", "ab"};
    case Kind::Select:
      return {"mab", "mabt"};
    case Kind::SelectScalar:
      return {"mas", "mats"};
    // memory, movement and matrix: the func.func form only (PTOAS's operand order)
    case Kind::Load:
    case Kind::Prefetch:
      return {"g"};
    case Kind::Store:
    case Kind::Move:
      return {"a", "aq"};
    case Kind::Transpose:
      return {"at"};
    case Kind::Extract:
      return {"aij"};
    case Kind::MatmulAcc:
      return {"cab", "ab"};
    case Kind::MatmulBias:
      return {"abx"};
    // (src, indices[, tmp]) or (src {maskPattern = ...})
    case Kind::Gather:
      return {"ab", "abt", "a"};
    case Kind::Scatter:
      return {"ab", "a"};
  }
  return {};
}

std::string pattern_usage(const std::vector<const char*>& pats) {
  std::string out;
  for (const char* p : pats) {
    const bool two = std::strchr(p, 'b') != nullptr;
    std::string one;
    for (const char* c = p; *c; ++c) {
      if (!one.empty()) one += ", ";
      switch (*c) {
        case 'a': one += two ? "%src0" : "%src"; break;
        case 'b': one += "%src1"; break;
        case 'm': one += "%mask"; break;
        case 't': one += "%tmp"; break;
        case 'g': one += "%view"; break;
        case 'c': one += "%acc_in"; break;
        case 'x': one += "%bias"; break;
        case 'i': one += "INDEX_ROW"; break;
        case 'j': one += "INDEX_COL"; break;
        case 'q': one += "PRE_QUANT_SCALAR"; break;
        default: one += "SCALAR"; break;
      }
    }
    out += (out.empty() ? "(" : " or (") + one + ")";
  }
  return out;
}

}  // namespace detail

std::string carrier_descr(std::string_view dtype) {
  return carrier_of(parse_elem(dtype, "dtype"));
}

std::vector<Output> run(std::string_view text, std::string_view filename,
                        const RunOptions& options) {
  if (is_func_file(text)) {
    // No silent success: a trace that cannot be written is an error, not an empty file.
    if (options.trace)
      raise(ErrorCode::Unsupported, std::string(filename),
            "--trace / trace= does not trace PTOAS func.func files yet (only .arg programs)", "docs/cli.md#trace");
    return detail::run_func(text, filename, options);
  }
  std::string target;
  Pos target_pos;
  Parser parser(text, filename);
  const std::vector<Stmt> prog = parser.parse(target, target_pos);
  // An explicit caller target wins over .target; without either, a2a3 (spec 20 §6).
  const Target& t = !options.target.empty() ? find_target(options.target)
                    : !target.empty()       ? find_target(target)
                                            : default_target();
  const auto declared = [&](const std::string& name) {
    for (const Stmt& s : prog)
      if (s.kind == StmtKind::Arg && s.result.name == name) return true;
    return false;
  };
  for (const auto& [name, arr] : options.inputs)
    if (!declared(name))
      raise(ErrorCode::Constraint, std::string(filename),
            "input '" + name + "' is not an .arg of the program", "docs/pto.md#pto-as");
  for (const auto& [name, shape] : options.valid)
    if (!declared(name))
      raise(ErrorCode::Constraint, std::string(filename),
            "valid shape given for '" + name + "', which is not an .arg of the program", "docs/pto.md#pto-as");
  // Every .arg bound (docs/pto.md#running-a-program): a missing input is an error listing them all, not
  // a zero-filled tile.
  std::string unbound;
  for (const Stmt& s : prog)
    if (s.kind == StmtKind::Arg && !options.zero_fill_unbound && !options.inputs.count(s.result.name))
      unbound += (unbound.empty() ? "%" : ", %") + s.result.name;
  if (!unbound.empty())
    raise(ErrorCode::Constraint, std::string(filename),
          "no input for " + unbound + " (every .arg needs one: --in NAME=FILE.npy, Python inputs=)",
          "docs/pto.md#running-a-program");
  Machine m(std::string(filename), t, options);
  for (const Stmt& s : prog) m.exec(s);
  return m.outputs();
}

}  // namespace tilesim::pto::as
