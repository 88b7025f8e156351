// PTO-AS (spec 20 §6): a line-oriented parser for the three spellings of the row-expand
// instructions, the !pto.tile / !pto.tile_buf types (compact and keyed), .arg, .target,
// pto.alloc_tile and pto.tassign, and an interpreter that runs the parsed program on the engine.
// No arithmetic here: every semantic rule is the engine's (spec 70 item 6).
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
#include "tilesim/profile.hpp"
#include "tilesim/pto/engine.hpp"

namespace tilesim::pto::as {
namespace {

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

enum class Kind { Arg, Alloc, Tassign, Instr };

struct Stmt {
  Kind kind;
  Pos pos;
  std::string mnemonic;
  Op op = Op::ADD;
  bool ssa = false;
  Operand result;             // Arg / Alloc / SSA result / tassign tile
  std::vector<Operand> srcs;  // src0, src1[, tmp]
  std::vector<TypeSpec> src_types;
  std::optional<TypeSpec> dst_type;  // Arg / Alloc type, SSA result type, DPS outs type
  Operand dst;                       // DPS outs operand
  int64_t addr = 0;
};

struct Token {
  enum T { Ident, Percent, At, Number, Type, Punct, End } t;
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
          "20 §6");
  }
  [[noreturn]] void error_at(int col, const std::string& tok, const std::string& what) {
    raise(ErrorCode::Parse, fmt::format("{}:{}:{}", file_, line_, col), what + ", at '" + tok + "'",
          "20 §6");
  }

  void tokenize(std::string_view l) {
    toks_.clear();
    size_t p = 0;
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
      if (c == '#' || (c == '/' && p + 1 < l.size() && l[p + 1] == '/')) break;  // comments
      if (c == '!') {  // a type: up to the matching '>'
        size_t q = p;
        while (q < l.size() && l[q] != '<') ++q;
        int depth = 0;
        size_t r = q;
        for (; r < l.size(); ++r) {
          if (l[r] == '<') ++depth;
          if (l[r] == '>' && --depth == 0) break;
        }
        if (q >= l.size() || r >= l.size())
          error_at(col, std::string(l.substr(p)), "unterminated type (missing '>')");
        toks_.push_back({Token::Type, std::string(l.substr(p, r + 1 - p)), col});
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
      if (std::isdigit(static_cast<unsigned char>(c))) {
        size_t q = p;
        while (q < l.size() && std::isalnum(static_cast<unsigned char>(l[q]))) ++q;
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
      if (std::strchr("(),:=;", c)) {
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
    static constexpr const char* kOk[] = {"f16", "f32",  "bf16", "i8", "i16", "i32",
                                          "ui8", "ui16", "ui32", "u8", "u16", "u32"};
    for (const char* k : kOk)
      if (s == k) return parse_elem(s, "PTO-AS");
    error_at(
        col, tok,
        "unknown element type '" + std::string(s) + "' (f16 f32 bf16 i8 i16 i32 ui8 ui16 ui32)");
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

  // srcs ':' types, with 2 or 3 sources.
  void sources(Stmt& st, bool in_parens) {
    st.srcs.push_back(operand());
    expect_punct(",");
    st.srcs.push_back(operand());
    if (accept(",")) st.srcs.push_back(operand());
    expect_punct(":");
    for (size_t k = 0; k < st.srcs.size(); ++k) {
      if (k) expect_punct(",");
      st.src_types.push_back(type_tok());
    }
    (void)in_parens;
  }

  Stmt statement() {
    Stmt st;
    const Token& first = peek();
    st.pos = {line_, first.col};
    if (first.t == Token::Ident && first.s == ".arg") {
      next();
      st.kind = Kind::Arg;
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
        st.kind = Kind::Alloc;
        expect_punct(":");
        st.dst_type = type_tok();
        end_of_line();
        return st;
      }
      const auto op = op_of(m.s);
      if (!op) error(m, "unknown instruction");
      st.kind = Kind::Instr;
      st.op = *op;
      st.ssa = true;
      sources(st, false);
      expect_punct("->");
      st.dst_type = type_tok();
      end_of_line();
      return st;
    }
    if (first.t != Token::Ident) error(first, "expected a statement");
    const Token& m = next();
    st.mnemonic = m.s;
    if (m.s == "pto.tassign") {
      st.kind = Kind::Tassign;
      st.result = operand();
      expect_punct(",");
      const Token& at = expect(Token::At, "@tile(ADDRESS)");
      if (at.s != "tile") error(at, "expected @tile(ADDRESS)");
      expect_punct("(");
      const Token& n = expect(Token::Number, "a UB byte address");
      errno = 0;
      char* endp = nullptr;
      const unsigned long long v = std::strtoull(n.s.c_str(), &endp, 0);
      if (*endp != '\0' || errno != 0 || v > (1ull << 40))
        error(n, "expected a UB byte address (decimal or 0x...)");
      st.addr = int64_t(v);
      expect_punct(")");
      end_of_line();
      return st;
    }
    const auto op = op_of(m.s);
    if (!op || m.s.substr(0, 4) != "pto.") error(m, "unknown instruction");
    st.kind = Kind::Instr;
    st.op = *op;
    const Token& ins = expect(Token::Ident, "'ins('");
    if (ins.s != "ins") error(ins, "expected 'ins('");
    expect_punct("(");
    sources(st, true);
    expect_punct(")");
    const Token& outs = expect(Token::Ident, "'outs('");
    if (outs.s != "outs") error(outs, "expected 'outs('");
    expect_punct("(");
    st.dst = operand();
    expect_punct(":");
    st.dst_type = type_tok();
    expect_punct(")");
    end_of_line();
    return st;
  }

  std::string_view text_;
  std::string file_;
  std::vector<Token> toks_;
  size_t i_ = 0;
  int line_ = 0;
};

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
        case Kind::Arg:
          define(st, true);
          break;
        case Kind::Alloc:
          define(st, false);
          break;
        case Kind::Tassign:
          tassign(st);
          break;
        case Kind::Instr:
          instr(st);
          break;
      }
    } catch (const Error& e) {
      if (std::string_view(e.what()).substr(0, file_.size()) == file_) throw;
      const std::string tok = st.kind == Kind::Arg ? ".arg" : st.mnemonic;
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
          "20 §6");
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
           fmt::format("input array has dtype '{}', the {} tile's carrier is '{}' (spec 60 §2)",
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

  void instr(const Stmt& st) {
    std::vector<VTile*> srcs;
    for (size_t k = 0; k < st.srcs.size(); ++k) {
      VTile* v = find(st.srcs[k]);
      agree(*v, st.src_types[k], st.srcs[k]);
      srcs.push_back(v);
    }
    VTile* dst;
    if (st.ssa) {
      TypeSpec ty = *st.dst_type;
      // An SSA result is a new auto-mode tile; '?' valid dimensions (and every dimension of a
      // !pto.tile type, which has no valid shape) follow the source whose static shape matches
      // (src0 first), else the static extent.
      const bool follow_r = !ty.is_buf || ty.vr == kDyn, follow_c = !ty.is_buf || ty.vc == kDyn;
      if (follow_r) ty.vr = kAbsent;
      if (follow_c) ty.vc = kAbsent;
      for (VTile* s : {srcs[0], srcs[1]})
        if (s->d.rows == ty.rows && s->d.cols == ty.cols) {
          if (follow_r) ty.vr = s->d.valid_row;
          if (follow_c) ty.vc = s->d.valid_col;
          break;
        }
      dst = &create(st.result, ty, false, st.mnemonic.c_str());
    } else {
      dst = find(st.dst);
      agree(*dst, *st.dst_type, st.dst);
    }
    row_expand(st.op, dst->d, srcs[0]->d, srcs[1]->d, srcs.size() > 2 ? &srcs[2]->d : nullptr,
               target_, ub_);
  }

  std::string file_;
  const Target& target_;
  const RunOptions& opts_;
  std::vector<uint8_t> ub_bytes_;
  Ub ub_;
  std::vector<std::unique_ptr<VTile>> tiles_;
};

}  // namespace

std::string carrier_descr(std::string_view dtype) {
  return carrier_of(parse_elem(dtype, "dtype"));
}

std::vector<Output> run(std::string_view text, std::string_view filename,
                        const RunOptions& options) {
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
      if (s.kind == Kind::Arg && s.result.name == name) return true;
    return false;
  };
  for (const auto& [name, arr] : options.inputs)
    if (!declared(name))
      raise(ErrorCode::Constraint, std::string(filename),
            "input '" + name + "' is not an .arg of the program", "20 §6");
  for (const auto& [name, shape] : options.valid)
    if (!declared(name))
      raise(ErrorCode::Constraint, std::string(filename),
            "valid shape given for '" + name + "', which is not an .arg of the program", "20 §6");
  Machine m(std::string(filename), t, options);
  for (const Stmt& s : prog) m.exec(s);
  return m.outputs();
}

}  // namespace tilesim::pto::as
