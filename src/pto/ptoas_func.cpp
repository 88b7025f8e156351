// PTO-AS, the func.func form (spec 21 §3; docs/pto.md#funcfunc-files): the
// `module { func.func @f(%arg0: !pto.ptr<f32>, %arg1: f32, ...) { ... } }` files PTOAS's samples
// are written in. A whole-file tokenizer (statements span lines), a recursive-descent parser that
// resolves every name, type and operand form before anything runs, and an interpreter over the
// parsed tree. Every instruction runs through the engine's execute() (spec 70 item 6); the only
// arithmetic here is the program's own integer/index arithmetic (arith.*), which is control flow,
// not instruction semantics. One table maps each op name to its parser and executor.
#include "pto/ptoas_func.hpp"

#if defined(__GNUC__) && !defined(__clang__)  // GCC bug 105329, as in ptoas.cpp
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/pto/frontend.hpp"
#include "tilesim/pto/print.hpp"

namespace tilesim::pto::as::detail {
namespace {

constexpr const char* kDoc = "docs/pto.md#funcfunc-files";

struct Pos {
  int line = 0, col = 0;
};

// ---- tokens ----

struct Tok {
  enum K { Percent, At, Ident, Number, Str, Bang, Hash, Angle, Punct, End } k;
  std::string s;  // Percent/At: the name without the sigil; Bang/Hash/Angle: the whole text
  Pos pos;
};

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : t_(text), file_(file) {}

  std::vector<Tok> run() {
    std::vector<Tok> out;
    while (true) {
      skip_space();
      if (p_ >= t_.size()) break;
      out.push_back(token());
    }
    out.push_back({Tok::End, "", {line_, col()}});
    return out;
  }

 private:
  [[noreturn]] void fail(Pos at, const std::string& what) {
    raise(ErrorCode::Parse, fmt::format("{}:{}:{}", file_, at.line, at.col), what, kDoc);
  }
  int col() const { return int(p_ - line_start_) + 1; }
  void advance() {
    if (t_[p_] == '\n') {
      ++line_;
      line_start_ = p_ + 1;
    }
    ++p_;
  }
  void skip_space() {
    while (p_ < t_.size()) {
      const char c = t_[p_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        advance();
      } else if (c == '/' && p_ + 1 < t_.size() && t_[p_ + 1] == '/') {
        while (p_ < t_.size() && t_[p_] != '\n') ++p_;
      } else {
        break;
      }
    }
  }
  static bool id_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
  }
  // A '<...>' group with nesting, spanning lines; whitespace runs become one space.
  std::string angle(Pos start) {
    std::string s;
    int depth = 0;
    while (p_ < t_.size()) {
      const char c = t_[p_];
      if (c == '<') ++depth;
      if (c == '>') --depth;
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        if (!s.empty() && s.back() != ' ') s.push_back(' ');
      } else {
        s.push_back(c);
      }
      advance();
      if (depth == 0) return s;
    }
    fail(start, "unterminated '<' (missing '>')");
  }
  Tok token() {
    const Pos at{line_, col()};
    const char c = t_[p_];
    if (c == '!' || c == '#') {
      std::string s(1, c);
      advance();
      while (p_ < t_.size() && id_char(t_[p_])) s.push_back(t_[p_]), advance();
      if (s.size() == 1) fail(at, fmt::format("expected a name after '{}'", c));
      if (p_ < t_.size() && t_[p_] == '<') s += angle(at);
      return {c == '!' ? Tok::Bang : Tok::Hash, s, at};
    }
    if (c == '<') return {Tok::Angle, angle(at), at};
    if (c == '^') {  // a block label (^bb0): an Ident spelled with its caret
      std::string s(1, c);
      advance();
      while (p_ < t_.size() && id_char(t_[p_])) s.push_back(t_[p_]), advance();
      if (s.size() == 1) fail(at, "expected a block label after '^'");
      return {Tok::Ident, s, at};
    }
    if (c == '%' || c == '@') {
      advance();
      std::string s;
      while (p_ < t_.size() && (id_char(t_[p_]) || t_[p_] == '#' || t_[p_] == '-')) {
        s.push_back(t_[p_]);
        advance();
      }
      if (s.empty()) fail(at, fmt::format("expected a name after '{}'", c));
      return {c == '%' ? Tok::Percent : Tok::At, s, at};
    }
    if (c == '"') {
      advance();
      std::string s;
      while (p_ < t_.size() && t_[p_] != '"' && t_[p_] != '\n') s.push_back(t_[p_]), advance();
      if (p_ >= t_.size() || t_[p_] != '"') fail(at, "unterminated string");
      advance();
      return {Tok::Str, s, at};
    }
    if (c == '-' && p_ + 1 < t_.size() && t_[p_ + 1] == '>') {
      advance(), advance();
      return {Tok::Punct, "->", at};
    }
    const auto digit = [&](size_t i) {
      return i < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i]));
    };
    if (digit(p_) || ((c == '-' || c == '+') && digit(p_ + 1))) {
      std::string s(1, c);
      advance();
      const bool hex = s == "0" && p_ < t_.size() && (t_[p_] == 'x' || t_[p_] == 'X');
      while (p_ < t_.size()) {
        const char d = t_[p_];
        const char prev = s.back();
        const bool exp_sign =
            (d == '-' || d == '+') &&
            (hex ? (prev == 'p' || prev == 'P') : (prev == 'e' || prev == 'E'));
        if (!std::isalnum(static_cast<unsigned char>(d)) && d != '.' && !exp_sign) break;
        s.push_back(d);
        advance();
      }
      return {Tok::Number, s, at};
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
        (c == '.' && p_ + 1 < t_.size() && std::isalpha(static_cast<unsigned char>(t_[p_ + 1])))) {
      std::string s;
      while (p_ < t_.size() && id_char(t_[p_])) s.push_back(t_[p_]), advance();
      return {Tok::Ident, s, at};
    }
    if (std::strchr("()[]{},:=?*", c)) {
      advance();
      return {Tok::Punct, std::string(1, c), at};
    }
    fail(at, fmt::format("unexpected character '{}'", c));
  }

  std::string_view t_;
  const std::string& file_;
  size_t p_ = 0, line_start_ = 0;
  int line_ = 1;
};

// ---- types ----

struct TileT {
  Elem dtype = Elem::f32;
  uint8_t loc = kLocVec;
  int rows = 0, cols = 0;
  int vr = 0, vc = 0;  // -1 = '?'
  bool row_major = true;
  uint8_t slayout = kSLayoutNoneBox;
  int fractal = 512;
  uint64_t pad = 0;
  bool operator==(const TileT&) const = default;
};

struct Ty {
  enum K : uint8_t { None, Int, Index, Float, Ptr, TView, PView, Tile } k = None;
  int bits = 0;       // Int: 1, 8, 16, 32, 64; Index: 64
  bool uns = false;   // Int spelled ui8 ... ui64
  Elem elem = Elem::f32;           // Float, Ptr, views
  std::vector<int64_t> dims;       // views; -1 = '?'
  TileT tile;
  std::string text;
  bool scalar() const { return k == Int || k == Index || k == Float; }
  bool same(const Ty& o) const {
    if (k != o.k) return false;
    switch (k) {
      case Int: return bits == o.bits && uns == o.uns;
      case Float:
      case Ptr: return elem == o.elem;
      case TView:
      case PView: return elem == o.elem && dims == o.dims;
      case Tile: return tile == o.tile;
      default: return true;
    }
  }
};

// ---- the parsed program ----

enum class OpK : uint8_t {
  Const, IntBin, Cmpi, Select, Cast, For, If, Yield, Return, MakeView, PartView, Alloc,
  SetValid, Print, While, Condition, Instr, Sync, Call
};

// An operand: an SSA value (slot) or, for scalar positions, a literal number.
struct Opnd {
  int slot = -1;
  std::string literal;
  std::string name;
  Pos pos;
  Ty type;  // the annotation where the op has one, else the value's type
};

struct Node {
  OpK k = OpK::Sync;
  Pos pos;
  std::string name;                 // op name as written
  std::vector<int> res;             // result slots
  std::vector<Opnd> in;             // operands (ins(...) for instructions)
  std::vector<Opnd> outs;           // instructions: outs(...)
  std::vector<int> args;            // scf.for: induction variable, then iter_args
  std::vector<Node> body, els;      // regions
  uint64_t bits = 0;                // Const
  int sub = 0;                      // IntBin / Cmpi / Cast: which
  Ty type;                          // Const / Alloc / SSA instruction result / MakeView
  int layout = -1;                  // MakeView / Load / Store: explicit GmLayout, -1 = inferred
  // instructions
  std::vector<uint8_t> sync_pipes;  // Sync: the pipes of <PIPE_X> / #pto.sync_op_type<T>, in order
  int64_t sync_id = 0;              // Sync: <EVENT_IDn> or a number
  const InstrInfo* info = nullptr;  // nullptr with is_rowexpand: the TROWEXPAND* family
  bool is_rowexpand = false;
  Op rop = Op::ADD;
  const char* pattern = "";
  bool ssa = false;
  uint8_t cmp = 0, round = 1, relu = 0, atomic = 0;
  int8_t sat = -1;
  bool is_binary = false;
  uint8_t mask_pattern = 0;  // TGATHER / TSCATTER {maskPattern = #pto.mask_pattern<P0101>}
  // alloc_tile: the valid_row / valid_col operand indices in `in` (-1 = none)
  int vrow = -1, vcol = -1;
  int addr = -1;  // Alloc: the operand index of addr = %a (a manual-mode tile), -1 = auto
  std::string rname;  // the (first) result's name, for messages
  // Call: the callee's name and, once the whole module is parsed, its index in the module
  std::string callee;
  int callee_idx = -1;
};

struct Param2 {
  std::string name;
  Pos pos, type_pos;
  Ty type;
  int slot = -1;
};

struct Func {
  std::string name;
  Pos pos;
  std::vector<Param2> params;
  std::vector<Ty> results;  // `-> T` / `-> (T, ...)`: only a function the entry calls has them
  Pos results_pos;
  bool entry_attr = false;  // attributes {pto.entry}
  std::vector<Node> body;
  int nslots = 0;
  std::vector<Ty> slot_types;
};

struct Program {
  std::string target;
  std::vector<Func> funcs;
  // A program with no sync op in any function is synchronised by the vendor's compiler: the hazard
  // checker does not report it (spec 21 §2 sync row, docs/sync.md#switches). One module is one
  // kernel, so one sync op anywhere (a callee included) makes the whole run checked as written.
  bool has_sync = false;
};

// Calls nest at most this deep: PTOAS rejects recursion outright (its C++ emission cannot express
// it); tilesim runs a recursion that ends and stops one that does not here, before the host stack.
constexpr int kMaxCallDepth = 64;
// Regions running inside each other along the whole call chain (a region nests at most 64 deep in
// one function, so calls alone could reach 64 x 64): a bound on the host stack a run can use.
constexpr int kMaxRunNesting = 256;

// ---- integer arithmetic of arith.* (the program's own index computations) ----

enum IntOp { kAdd, kSub, kMul, kDivS, kDivU, kRemS, kRemU, kCeilDivS, kCeilDivU, kFloorDivS,
             kMinS, kMaxS, kMinU, kMaxU, kAnd, kOr, kXor, kShl, kShrS, kShrU };
constexpr std::pair<const char*, IntOp> kIntOps[] = {
    {"arith.addi", kAdd},        {"arith.subi", kSub},          {"arith.muli", kMul},
    {"arith.divsi", kDivS},      {"arith.divui", kDivU},        {"arith.remsi", kRemS},
    {"arith.remui", kRemU},      {"arith.ceildivsi", kCeilDivS}, {"arith.ceildivui", kCeilDivU},
    {"arith.floordivsi", kFloorDivS}, {"arith.minsi", kMinS},   {"arith.maxsi", kMaxS},
    {"arith.minui", kMinU},      {"arith.maxui", kMaxU},        {"arith.andi", kAnd},
    {"arith.ori", kOr},          {"arith.xori", kXor},          {"arith.shli", kShl},
    {"arith.shrsi", kShrS},      {"arith.shrui", kShrU}};
constexpr const char* kCmpPreds[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
enum CastOp { kIndexCast, kIndexCastUI, kExtSI, kExtUI, kTruncI };
constexpr std::pair<const char*, CastOp> kCasts[] = {{"arith.index_cast", kIndexCast},
                                                     {"arith.index_castui", kIndexCastUI},
                                                     {"arith.extsi", kExtSI},
                                                     {"arith.extui", kExtUI},
                                                     {"arith.trunci", kTruncI}};
// Sync and scheduling ops: accepted, no effect on results (spec 21 §2 sync row).
constexpr const char* kSyncOps[] = {"pto.barrier",    "pto.set_flag",     "pto.wait_flag",
                                    "pto.record_event", "pto.wait_event", "pto.sync.set",
                                    "pto.sync.wait",  "pto.barrier_sync", "pto.pipe_barrier",
                                    "pto.get_buf",    "pto.rls_buf",      "pto.set_flag_dyn",
                                    "pto.wait_flag_dyn"};

// The pipes a sync op names (docs/sync.md#pipes): <PIPE_X>, and PTOAS's SyncOpType of
// #pto.sync_op_type<T> as the pipe that kind of operation issues on. -1: not a known name.
int pipe_named(std::string_view p) {
  static constexpr std::pair<const char*, uint8_t> kPipes[] = {
      {"S", sync::kS},       {"V", sync::kV},       {"M", sync::kM},     {"MTE1", sync::kMte1},
      {"MTE2", sync::kMte2}, {"MTE3", sync::kMte3}, {"ALL", sync::kAll}, {"MTE4", sync::kMte4},
      {"MTE5", sync::kMte5}, {"V2", sync::kV2},     {"FIX", sync::kFix}};
  for (const auto& [name, v] : kPipes)
    if (p == name) return v;
  return -1;
}
int pipe_of_op_type(std::string_view t) {
  static constexpr std::pair<const char*, uint8_t> kTypes[] = {
      {"TLOAD", sync::kMte2},    {"TSTORE_VEC", sync::kMte3}, {"TSTORE_ACC", sync::kFix},
      {"TMOV_M2L", sync::kMte1}, {"TMOV_M2S", sync::kMte1},   {"TMOV_M2B", sync::kMte1},
      {"TMOV_M2V", sync::kMte1}, {"TMOV_V2M", sync::kMte3},   {"TMATMUL", sync::kM},
      {"TVEC", sync::kV},        {"TVECWAIT_EVENT", sync::kV}};
  for (const auto& [name, v] : kTypes)
    if (t == name) return v;
  return -1;
}
// The sync ops that order pipes on one core: two pipes and an event (set/wait), or at most one
// pipe (barriers).
bool is_flag_op(std::string_view op) {
  return op == "pto.set_flag" || op == "pto.set_flag_dyn" || op == "pto.record_event" ||
         op == "pto.wait_flag" || op == "pto.wait_flag_dyn" || op == "pto.wait_event";
}
bool is_barrier_op(std::string_view op) {
  return op == "pto.barrier" || op == "pto.pipe_barrier" || op == "pto.barrier_sync";
}

int width_of(const Ty& t) { return t.k == Ty::Index ? 64 : t.bits; }
uint64_t mask_of(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }
int64_t as_signed(uint64_t v, int bits) {
  if (bits >= 64) return int64_t(v);
  const uint64_t m = uint64_t{1} << (bits - 1);
  v &= mask_of(bits);
  return int64_t((v ^ m) - m);
}

Elem int_elem(int bits, bool uns) {
  switch (bits) {
    case 8: return uns ? Elem::u8 : Elem::s8;
    case 16: return uns ? Elem::u16 : Elem::s16;
    case 32: return uns ? Elem::u32 : Elem::s32;
    default: return uns ? Elem::u64 : Elem::s64;
  }
}

formats::DType fmt_of(Elem e) {
  return e == Elem::f16 ? formats::DType::fp16 : e == Elem::bf16 ? formats::DType::bf16
                                                                : formats::DType::fp32;
}

// ---- the parser ----

class Parser {
 public:
  Parser(std::string_view text, std::string file) : file_(std::move(file)) {
    toks_ = Lexer(text, file_).run();
  }

  Program parse_module() {
    Program prog;
    std::string& target = prog.target;
    std::vector<Func>& funcs = prog.funcs;
    while (peek_ident(".target")) {  // tilesim's .target line, as in the .arg form
      next();
      const Tok& n = next();
      try {
        find_target(n.s);
      } catch (const Error& e) {
        fail(n, e.what());
      }
      if (!target.empty() && target != n.s) fail(n, "a second .target differs");
      target = n.s;
    }
    if (peek_ident("module")) {
      next();
      if (peek_ident("attributes")) {
        next();
        skip_dict(&target);
      }
      expect("{");
      while (!peek_punct("}")) funcs.push_back(func());
      expect("}");
    } else {
      while (peek().k != Tok::End) funcs.push_back(func());
    }
    if (peek().k != Tok::End) fail(peek(), "unexpected text after the module");
    if (funcs.empty()) fail(peek(), "a func.func file needs at least one func.func");
    resolve_calls(funcs);
    prog.has_sync = has_sync_;
    return prog;
  }

 private:
  [[noreturn]] void fail_at(Pos p, const std::string& tok, const std::string& what) {
    raise(ErrorCode::Parse, fmt::format("{}:{}:{}", file_, p.line, p.col),
          tok.empty() ? what : what + ", at '" + tok + "'", kDoc);
  }
  [[noreturn]] void fail(const Tok& t, const std::string& what) {
    fail_at(t.pos, t.k == Tok::End ? "end of file" : shown(t), what);
  }
  static std::string shown(const Tok& t) {
    switch (t.k) {
      case Tok::Percent: return "%" + t.s;
      case Tok::At: return "@" + t.s;
      default: return t.s;
    }
  }

  const Tok& peek(size_t ahead = 0) const { return toks_[std::min(i_ + ahead, toks_.size() - 1)]; }
  const Tok& next() { return toks_[i_ < toks_.size() - 1 ? i_++ : i_]; }
  bool peek_punct(const char* p, size_t ahead = 0) const {
    return peek(ahead).k == Tok::Punct && peek(ahead).s == p;
  }
  bool peek_ident(const char* s) const { return peek().k == Tok::Ident && peek().s == s; }
  bool accept(const char* p) {
    if (!peek_punct(p)) return false;
    next();
    return true;
  }
  void expect(const char* p) {
    if (!accept(p)) fail(peek(), fmt::format("expected '{}'", p));
  }
  void expect_ident(const char* s) {
    if (!peek_ident(s)) fail(peek(), fmt::format("expected '{}'", s));
    next();
  }

  // A balanced {...} attribute dictionary that has no meaning here (module / func attributes);
  // `target` receives a "pto.target_arch" / "pto.device-spec" string if one is there.
  void skip_dict(std::string* target, bool* entry = nullptr) {
    const Tok& open = peek();
    expect("{");
    int depth = 1;
    while (depth > 0) {
      const Tok& t = next();
      if (t.k == Tok::End) fail(open, "unterminated '{'");
      if (t.k == Tok::Punct && t.s == "{") ++depth;
      if (t.k == Tok::Punct && t.s == "}") --depth;
      if (entry && depth == 1 && t.k == Tok::Ident && t.s == "pto.entry") *entry = true;
      // module attributes {pto.target_arch = "a5"}: the file's target (as a .target line)
      if (target && t.k == Tok::Str && i_ >= 3 && toks_[i_ - 2].s == "=" &&
          toks_[i_ - 3].s == "pto.target_arch") {
        // PTOAS calls the a2/a3 profile "a3" (its default target): the same profile as a2a3.
        const std::string name = t.s == "a3" ? "a2a3" : t.s;
        try {
          find_target(name);
        } catch (const Error& e) {
          fail(t, e.what());
        }
        if (!target->empty() && *target != name)
          fail(t, fmt::format("pto.target_arch differs from .target {}", *target));
        *target = name;
      }
    }
  }

  // ---- SSA names ----
  struct Scope {
    std::vector<std::pair<std::string, int>> names;
  };
  int define(const Tok& t, const Ty& ty) {
    for (const Scope& s : scopes_)
      for (const auto& [n, slot] : s.names)
        if (n == t.s) fail(t, fmt::format("redefinition of '%{}'", t.s));
    const int slot = fn_->nslots++;
    fn_->slot_types.push_back(ty);
    scopes_.back().names.push_back({t.s, slot});
    return slot;
  }
  int lookup(const Tok& t) {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
      for (const auto& [n, slot] : s->names)
        if (n == t.s) return slot;
    fail(t, fmt::format("use of undefined value '%{}'", t.s));
  }
  const Ty& type_of(int slot) const { return fn_->slot_types[size_t(slot)]; }
  Opnd use(const Tok& t) {
    Opnd o;
    o.slot = lookup(t);
    o.name = t.s;
    o.pos = t.pos;
    o.type = type_of(o.slot);
    return o;
  }
  Opnd value() {
    const Tok& t = peek();
    if (t.k != Tok::Percent) fail(t, "expected an SSA value '%name'");
    next();
    return use(t);
  }
  // Checks an annotation against the value's own type (MLIR requires them to be the same).
  void agree(const Opnd& o, const Ty& annotated, Pos at) {
    if (o.slot < 0) return;
    if (!type_of(o.slot).same(annotated))
      fail_at(at, annotated.text,
              fmt::format("type of '%{}' is {}, its annotation here differs", o.name,
                          type_of(o.slot).text));
  }

  // ---- types ----
  int parse_int(const std::string& s, Pos at, const std::string& tok, const char* what,
                bool allow_dyn) {
    if (allow_dyn && s == "?") return -1;
    if (s.empty() || s.size() > 9) fail_at(at, tok, fmt::format("expected {}", what));
    int v = 0;
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        fail_at(at, tok, fmt::format("expected {}", what));
      v = v * 10 + (c - '0');
    }
    return v;
  }
  bool scalar_type_of(const std::string& s, Ty& t) {
    t = Ty{};
    t.text = s;
    if (s == "index") {
      t.k = Ty::Index;
      t.bits = 64;
      return true;
    }
    if (s == "f16" || s == "bf16" || s == "f32") {
      t.k = Ty::Float;
      t.elem = parse_elem(s, "PTO-AS");
      return true;
    }
    const bool uns = s.rfind("ui", 0) == 0;
    if (uns || s.rfind("i", 0) == 0) {
      const std::string n = s.substr(uns ? 2 : 1);
      if (n == "1" && !uns) {
        t.k = Ty::Int;
        t.bits = 1;
        return true;
      }
      if (n == "8" || n == "16" || n == "32" || n == "64") {
        t.k = Ty::Int;
        t.bits = std::stoi(n);
        t.uns = uns;
        return true;
      }
    }
    return false;
  }
  Elem elem_type(const std::string& s, Pos at, const std::string& tok) {
    Ty t;
    if (scalar_type_of(s, t)) {
      if (t.k == Ty::Float) return t.elem;
      if (t.k == Ty::Int && t.bits >= 8) return int_elem(t.bits, t.uns);
    }
    fail_at(at, tok,
            fmt::format("unknown element type '{}' (f16 bf16 f32 i8 i16 i32 i64 ui8 ui16 ui32 ui64)",
                        s));
  }
  // "?x?xf32" / "32x32xf32" / "2xf32"
  void view_dims(const std::string& body, Pos at, const std::string& tok, Ty& t) {
    std::vector<std::string> parts;
    size_t p = 0;
    while (true) {
      const size_t q = body.find('x', p);
      parts.push_back(body.substr(p, q == std::string::npos ? std::string::npos : q - p));
      if (q == std::string::npos) break;
      p = q + 1;
    }
    t.elem = elem_type(parts.back(), at, tok);
    parts.pop_back();
    if (parts.empty() || parts.size() > 5)
      fail_at(at, tok, "a view type has 1 to 5 dimensions and an element type (?x?xf32)");
    for (const auto& d : parts) t.dims.push_back(parse_int(d, at, tok, "a dimension or '?'", true));
  }
  void tile_body(const std::string& body, Pos at, const std::string& tok, TileT& t) {
    bool have[10] = {};
    static constexpr const char* kKeys[] = {"loc",     "dtype",   "rows",    "cols",    "v_row",
                                            "v_col",   "blayout", "slayout", "fractal", "pad"};
    size_t p = 0;
    while (p <= body.size()) {
      size_t q = body.find(',', p);
      if (q == std::string::npos) q = body.size();
      std::string item = body.substr(p, q - p);
      p = q + 1;
      item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
      const size_t eq = item.find('=');
      if (eq == std::string::npos)
        fail_at(at, tok, fmt::format("expected KEY=VALUE in !pto.tile_buf, got '{}'", item));
      const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
      int k = 0;
      while (k < 10 && key != kKeys[k]) ++k;
      if (k == 10) fail_at(at, tok, fmt::format("unknown !pto.tile_buf key '{}'", key));
      if (have[k]) fail_at(at, tok, fmt::format("!pto.tile_buf gives {} twice", key));
      have[k] = true;
      switch (k) {
        case 0: {
          static constexpr const char* kLocs[] = {"vec", "mat", "left", "right", "acc", "bias",
                                                  "scaling", "scale_left", "scale_right", "ctrl"};
          int l = 0;
          while (l < 10 && val != kLocs[l]) ++l;
          if (l == 10) fail_at(at, tok, fmt::format("unknown tile location '{}'", val));
          t.loc = uint8_t(l);
          break;
        }
        case 1: t.dtype = elem_type(val, at, tok); break;
        case 2: t.rows = parse_int(val, at, tok, "a row count", false); break;
        case 3: t.cols = parse_int(val, at, tok, "a column count", false); break;
        case 4: t.vr = parse_int(val, at, tok, "a valid row count or '?'", true); break;
        case 5: t.vc = parse_int(val, at, tok, "a valid column count or '?'", true); break;
        case 6:
          if (val != "row_major" && val != "col_major")
            fail_at(at, tok, "blayout must be row_major or col_major");
          t.row_major = val == "row_major";
          break;
        case 7:
          if (val == "none_box") t.slayout = kSLayoutNoneBox;
          else if (val == "row_major") t.slayout = kSLayoutRowMajor;
          else if (val == "col_major") t.slayout = kSLayoutColMajor;
          else fail_at(at, tok, "slayout must be none_box, row_major or col_major");
          break;
        case 8: t.fractal = parse_int(val, at, tok, "a fractal size", false); break;
        default: {
          static constexpr const char* kPads[] = {"null", "zero", "max", "min"};
          bool ok = false;
          for (int v = 0; v < 4; ++v)
            if (val == kPads[v] || val == std::to_string(v)) t.pad = uint64_t(v), ok = true;
          if (!ok) fail_at(at, tok, "pad must be 0..3 (null zero max min)");
        }
      }
    }
    for (int k = 0; k < 6; ++k)
      if (!have[k]) fail_at(at, tok, fmt::format("!pto.tile_buf needs {}=", kKeys[k]));
  }
  Ty type() {
    const Tok& t = next();
    Ty ty;
    ty.text = shown(t);
    if (t.k == Tok::Ident) {
      if (!scalar_type_of(t.s, ty))
        fail(t, "expected a type (index, i1, i32, f32, !pto.ptr<...>, !pto.tile_buf<...>, ...)");
      return ty;
    }
    std::string head, body;
    if (t.k == Tok::Angle) {  // PTOAS prints a tile_buf type without its prefix where implied
      head = "!pto.tile_buf";
      body = t.s.substr(1, t.s.size() - 2);
    } else if (t.k == Tok::Bang) {
      const size_t lt = t.s.find('<');
      if (lt == std::string::npos) fail(t, "expected a type with parameters <...>");
      head = t.s.substr(0, lt);
      body = t.s.substr(lt + 1, t.s.size() - lt - 2);
    } else {
      fail(t, "expected a type");
    }
    if (head == "!pto.ptr") {
      ty.k = Ty::Ptr;
      std::string b = body;
      if (const size_t c = b.find(','); c != std::string::npos) b = b.substr(0, c);  // <f32, gm>
      b.erase(std::remove(b.begin(), b.end(), ' '), b.end());
      ty.elem = elem_type(b, t.pos, t.s);
    } else if (head == "!pto.tensor_view" || head == "!pto.partition_tensor_view") {
      ty.k = head == "!pto.tensor_view" ? Ty::TView : Ty::PView;
      std::string b = body;
      b.erase(std::remove(b.begin(), b.end(), ' '), b.end());
      view_dims(b, t.pos, t.s, ty);
    } else if (head == "!pto.tile_buf") {
      ty.k = Ty::Tile;
      tile_body(body, t.pos, t.s, ty.tile);
    } else {
      fail(t, fmt::format("unsupported type '{}'", head));
    }
    return ty;
  }
  std::vector<Ty> type_list() {  // "T" or "(T, T)"
    std::vector<Ty> out;
    if (accept("(")) {
      if (!accept(")")) {
        do out.push_back(type());
        while (accept(","));
        expect(")");
      }
    } else {
      out.push_back(type());
    }
    return out;
  }

  // ---- functions and regions ----
  Func func() {
    Func f;
    fn_ = &f;
    const Tok& kw = peek();
    expect_ident("func.func");
    if (peek_ident("private") || peek_ident("public")) next();
    const Tok& name = peek();
    if (name.k != Tok::At) fail(name, "expected the function name @name");
    next();
    f.name = name.s;
    f.pos = kw.pos;
    scopes_.assign(1, Scope{});
    expect("(");
    if (!accept(")")) {
      do {
        const Tok& a = peek();
        if (a.k != Tok::Percent) fail(a, "expected an argument '%name: type'");
        next();
        expect(":");
        Param2 p;
        p.name = a.s;
        p.pos = a.pos;
        p.type_pos = peek().pos;
        p.type = type();  // any type: a called function takes tiles and views too (check_entry)
        if (peek_punct("{")) skip_dict(nullptr);
        p.slot = define(a, p.type);
        f.params.push_back(std::move(p));
      } while (accept(","));
      expect(")");
    }
    if (peek_punct("->")) {
      f.results_pos = next().pos;
      f.results = type_list();
    }
    if (peek_ident("attributes")) {
      next();
      skip_dict(nullptr, &f.entry_attr);
    }
    expect("{");
    f.body = block(/*terminator=*/"return");
    expect("}");
    const Node& r = f.body.back();
    if (r.in.size() != f.results.size())
      fail_at(r.pos, r.name,
              fmt::format("@{} returns {} value{}, this returns {}", f.name, f.results.size(),
                          f.results.size() == 1 ? "" : "s", r.in.size()));
    for (size_t k = 0; k < r.in.size(); ++k)
      if (!r.in[k].type.same(f.results[k]))
        fail_at(r.in[k].pos, "%" + r.in[k].name,
                fmt::format("@{}'s result {} is {}, this value is {}", f.name, k, f.results[k].text,
                            r.in[k].type.text));
    fn_ = nullptr;
    return f;
  }

  // func.call's callee, found once the whole module is read (a function may be called before it
  // is defined), and its signature checked against the call's: argument and result count and types.
  void resolve_calls(std::vector<Func>& funcs) {
    std::string names;
    for (size_t i = 0; i < funcs.size(); ++i) {
      for (size_t j = 0; j < i; ++j)
        if (funcs[j].name == funcs[i].name)
          fail_at(funcs[i].pos, "@" + funcs[i].name,
                  fmt::format("redefinition of function '@{}'", funcs[i].name));
      names += (names.empty() ? "@" : ", @") + funcs[i].name;
    }
    std::function<void(const Func&, std::vector<Node>&)> walk = [&](const Func& caller,
                                                                    std::vector<Node>& ops) {
      for (Node& n : ops) {
        walk(caller, n.body);
        walk(caller, n.els);
        if (n.k != OpK::Call) continue;
        const auto at = std::find_if(funcs.begin(), funcs.end(),
                                     [&](const Func& g) { return g.name == n.callee; });
        if (at == funcs.end())
          fail_at(n.pos, n.name,
                  fmt::format("unknown function '@{}' (the module has {})", n.callee, names));
        const Func& g = *at;
        n.callee_idx = int(at - funcs.begin());
        if (n.in.size() != g.params.size())
          fail_at(n.pos, n.name,
                  fmt::format("@{} takes {} argument{}, the call passes {}", g.name,
                              g.params.size(), g.params.size() == 1 ? "" : "s", n.in.size()));
        for (size_t k = 0; k < n.in.size(); ++k)
          if (!n.in[k].type.same(g.params[k].type))
            fail_at(
                n.in[k].pos, "%" + n.in[k].name,
                fmt::format("argument {} of the call to @{} is {}, its parameter '%{}' is {}", k,
                            g.name, n.in[k].type.text, g.params[k].name, g.params[k].type.text));
        if (n.res.size() != g.results.size())
          fail_at(n.pos, n.name,
                  fmt::format("@{} returns {} value{}, the call has {}", g.name, g.results.size(),
                              g.results.size() == 1 ? "" : "s", n.res.size()));
        for (size_t k = 0; k < n.res.size(); ++k) {
          const Ty& t = caller.slot_types[size_t(n.res[k])];
          if (!t.same(g.results[k]))
            fail_at(n.pos, n.name,
                    fmt::format("result {} of the call to @{} is {}, @{} returns {}", k, g.name,
                                t.text, g.name, g.results[k].text));
        }
      }
    };
    for (Func& f : funcs) walk(f, f.body);
  }

  // Ops up to the closing '}'; the last must be `terminator` when given ("scf.yield" may be left
  // out of a region without results, as MLIR prints it).
  std::vector<Node> block(const char* terminator) {
    if (scopes_.size() > 64) fail(peek(), "regions nested deeper than 64 levels");
    scopes_.push_back(Scope{});
    std::vector<Node> ops;
    while (!peek_punct("}")) {
      if (peek().k == Tok::End) fail(peek(), "expected '}'");
      ops.push_back(op());
      const OpK k = ops.back().k;
      if ((k == OpK::Return || k == OpK::Yield || k == OpK::Condition) && !peek_punct("}"))
        fail(peek(), fmt::format("'{}' must be the last op of its region", ops.back().name));
      if (k == OpK::Return && !terminator)  // MLIR: func.return's parent is the func.func
        fail_at(ops.back().pos, ops.back().name,
                "'return' ends a func.func body; an scf region ends with scf.yield");
    }
    if (terminator && std::strcmp(terminator, "return") == 0 &&
        (ops.empty() || ops.back().k != OpK::Return))
      fail(peek(), "a func.func body ends with 'return'");
    scopes_.pop_back();
    return ops;
  }

  Node op() {
    // results: %a, %b = ... | %r:2 = ...
    std::vector<Tok> results;
    int group = 0;
    if (peek().k == Tok::Percent) {
      do {
        const Tok& r = peek();
        if (r.k != Tok::Percent) fail(r, "expected a result '%name'");
        next();
        results.push_back(r);
        if (accept(":")) {
          const Tok& n = peek();
          if (n.k != Tok::Number) fail(n, "expected a result count");
          group = parse_int(n.s, n.pos, n.s, "a result count", false);
          next();
        }
      } while (accept(","));
      expect("=");
    }
    if (group) {
      if (results.size() != 1) fail(results[1], "a result group '%r:N' stands alone");
      const Tok base = results[0];
      results.clear();
      for (int k = 0; k < group; ++k) {
        Tok t = base;
        t.s = base.s + "#" + std::to_string(k);
        results.push_back(t);
      }
    }
    const Tok& m = peek();
    if (m.k != Tok::Ident) fail(m, "expected an operation");
    next();
    Node n;
    n.name = m.s;
    n.pos = m.pos;
    if (!results.empty()) n.rname = results[0].s;
    const auto no_results = [&] {
      if (!results.empty()) fail(results[0], fmt::format("'{}' has no results", m.s));
    };
    const auto one_result = [&] {
      if (results.size() != 1) fail(m, fmt::format("'{}' has one result", m.s));
    };
    if (m.s == "return" || m.s == "func.return") {
      // return [%v, ... : T, ...]: checked against the function's result types in func()
      no_results();
      n.k = OpK::Return;
      if (peek().k == Tok::Percent) {
        do n.in.push_back(value());
        while (accept(","));
        expect(":");
        for (size_t k = 0; k < n.in.size(); ++k) {
          if (k) expect(",");
          const Tok& tt = peek();
          agree(n.in[k], type(), tt.pos);
        }
      }
      return n;
    }
    if (m.s == "func.call" || m.s == "call") return call(n, results);
    if (m.s == "arith.constant") return constant(n, results);
    // The core queries (PTOAS PTOOps.td: no operands, an i64 result). A run is one block of one
    // core, as tilesim's PTO kernels are (docs/pto.md#funcfunc-files).
    static constexpr std::pair<const char*, uint64_t> kCoreQueries[] = {
        {"pto.get_block_idx", 0}, {"pto.get_block_num", 1}, {"pto.get_subblock_idx", 0},
        {"pto.get_subblock_num", 1}};
    for (const auto& [name, v] : kCoreQueries)
      if (m.s == name) {
        one_result();
        n.k = OpK::Const;
        n.bits = v;
        scalar_type_of("i64", n.type);
        if (accept(":")) {
          const Tok& tt = peek();
          const Ty ty = type();
          if (ty.k != Ty::Int || ty.bits != 64) fail(tt, fmt::format("{} returns i64", m.s));
        }
        n.res.push_back(define(results[0], n.type));
        return n;
      }
    if (m.s == "pto.tprint") {
      // pto.tprint ins(%tile : <its type>): TPRINT of the tile, to stdout (docs/pto.md#tprint).
      no_results();
      n.k = OpK::Print;
      expect_ident("ins");
      expect("(");
      n.in.push_back(value());
      expect(":");
      const Tok& tt = peek();
      const Ty ty = type();
      if (ty.k != Ty::Tile) fail(tt, "pto.tprint prints a tile: expected !pto.tile_buf<...>");
      agree(n.in[0], ty, tt.pos);
      expect(")");
      return n;
    }
    if (m.s == "pto.set_validshape") {
      // pto.set_validshape %tile, %valid_row, %valid_col : <the tile's type, v_row=? v_col=?>
      no_results();
      n.k = OpK::SetValid;
      n.in.push_back(value());
      expect(",");
      n.in.push_back(value());
      expect(",");
      n.in.push_back(value());
      expect(":");
      const Tok& tt = peek();
      const Ty ty = type();
      if (ty.k != Ty::Tile) fail(tt, "expected !pto.tile_buf<...>");
      agree(n.in[0], ty, tt.pos);
      if (ty.tile.vr >= 0 || ty.tile.vc >= 0)
        fail(tt, "pto.set_validshape changes a dynamic valid shape: the tile needs v_row=? and v_col=?");
      for (size_t i = 1; i < 3; ++i)
        if (n.in[i].slot >= 0 && type_of(n.in[i].slot).k != Ty::Index &&
            type_of(n.in[i].slot).k != Ty::Int)
          fail_at(n.in[i].pos, "%" + n.in[i].name, "a valid shape operand is an index value");
      return n;
    }
    for (const auto& [name, opc] : kIntOps)
      if (m.s == name) {
        one_result();
        n.k = OpK::IntBin;
        n.sub = opc;
        n.in.push_back(value());
        expect(",");
        n.in.push_back(value());
        if (peek_ident("overflow")) {  // overflow<nsw, nuw>: wrap-around either way
          next();
          if (peek().k == Tok::Angle) next();
        }
        expect(":");
        n.type = type();
        if (n.type.k != Ty::Int && n.type.k != Ty::Index)
          fail(m, "arith integer ops take an integer or index type");
        for (const Opnd& o : n.in) agree(o, n.type, m.pos);
        n.res.push_back(define(results[0], n.type));
        return n;
      }
    if (m.s == "arith.cmpi") {
      one_result();
      n.k = OpK::Cmpi;
      const Tok& p = next();
      int k = 0;
      while (k < 10 && p.s != kCmpPreds[k]) ++k;
      if (k == 10) fail(p, "expected a predicate (eq ne slt sle sgt sge ult ule ugt uge)");
      n.sub = k;
      expect(",");
      n.in.push_back(value());
      expect(",");
      n.in.push_back(value());
      expect(":");
      const Ty t = type();
      if (t.k != Ty::Int && t.k != Ty::Index) fail(m, "arith.cmpi compares integers or index");
      for (const Opnd& o : n.in) agree(o, t, m.pos);
      n.type = t;
      Ty i1;
      scalar_type_of("i1", i1);
      n.res.push_back(define(results[0], i1));
      return n;
    }
    if (m.s == "arith.select") {
      one_result();
      n.k = OpK::Select;
      for (int k = 0; k < 3; ++k) {
        if (k) expect(",");
        n.in.push_back(value());
      }
      expect(":");
      n.type = type();
      if (type_of(n.in[0].slot).k != Ty::Int || type_of(n.in[0].slot).bits != 1)
        fail_at(n.in[0].pos, "%" + n.in[0].name, "arith.select's condition must be i1");
      agree(n.in[1], n.type, m.pos);
      agree(n.in[2], n.type, m.pos);
      n.res.push_back(define(results[0], n.type));
      return n;
    }
    for (const auto& [name, opc] : kCasts)
      if (m.s == name) {
        one_result();
        n.k = OpK::Cast;
        n.sub = opc;
        n.in.push_back(value());
        expect(":");
        const Ty from = type();
        expect_ident("to");
        n.type = type();
        agree(n.in[0], from, m.pos);
        const bool int_like = (from.k == Ty::Int || from.k == Ty::Index) &&
                              (n.type.k == Ty::Int || n.type.k == Ty::Index);
        if (!int_like) fail(m, fmt::format("{} converts between integer and index types", m.s));
        n.res.push_back(define(results[0], n.type));
        return n;
      }
    if (m.s == "scf.for") return scf_for(n, results);
    if (m.s == "scf.if") return scf_if(n, results);
    if (m.s == "scf.while") return scf_while(n, results);
    if (m.s == "scf.condition") {
      // scf.condition(%c) %v, ... : T, ...: ends scf.while's first region
      no_results();
      n.k = OpK::Condition;
      expect("(");
      n.in.push_back(value());
      expect(")");
      if (!type_of(n.in[0].slot).same(bool_type()))
        fail_at(n.in[0].pos, "%" + n.in[0].name, "scf.condition takes an i1 value");
      typed_values(n, m, "scf.condition");
      return n;
    }
    if (m.s == "scf.yield") {
      no_results();
      n.k = OpK::Yield;
      typed_values(n, m, "scf.yield");
      return n;
    }
    for (const char* s : kSyncOps)
      if (m.s == s) {
        no_results();
        n.k = OpK::Sync;
        sync_operands(n);
        has_sync_ = true;
        return n;
      }
    if (m.s == "pto.make_tensor_view") return make_view(n, results);
    if (m.s == "pto.partition_view") return partition_view(n, results);
    if (m.s == "pto.alloc_tile") return alloc_tile(n, results);
    if (m.s.rfind("pto.", 0) == 0) return instruction(n, m, results);
    fail(m, fmt::format("unknown op '{}'", m.s));
  }

  // The operands of a sync op: [..], <PIPE_X>, #pto.sync_op_type<...>, numbers, commas, {attrs}.
  // Pipes and event ids are checked here, whether or not the hazard checker runs (nothing
  // silently ignored): set/wait need two known pipes, a barrier at most one.
  void sync_operands(Node& n) {
    const bool ordering = is_flag_op(n.name) || is_barrier_op(n.name);
    auto take = [&](const Tok& t) {
      if (!ordering || t.k == Tok::Punct) return;
      const std::string_view a = t.s;
      if (a.size() >= 7 && a.substr(0, 6) == "<PIPE_" && a.back() == '>') {
        const int p = pipe_named(a.substr(6, a.size() - 7));
        if (p < 0)
          fail(t, fmt::format("{}: unknown pipe (PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, "
                              "PIPE_MTE3, PIPE_FIX, PIPE_ALL) [docs/sync.md#pipes]", n.name));
        n.sync_pipes.push_back(uint8_t(p));
      } else if (a.size() >= 19 && a.substr(0, 18) == "#pto.sync_op_type<" && a.back() == '>') {
        const int p = pipe_of_op_type(a.substr(18, a.size() - 19));
        if (p < 0) fail(t, fmt::format("{}: unknown sync_op_type [docs/sync.md#pipes]", n.name));
        n.sync_pipes.push_back(uint8_t(p));
      } else if (a.size() >= 11 && a.substr(0, 9) == "<EVENT_ID" && a.back() == '>' &&
                 std::all_of(a.begin() + 9, a.end() - 1, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        n.sync_id = a.size() > 20 ? INT64_MAX : std::strtoll(std::string(a.substr(9)).c_str(), nullptr, 10);
      } else if (t.k == Tok::Number && !a.empty() && a.size() <= 18 &&
                 std::all_of(a.begin(), a.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        n.sync_id = std::strtoll(std::string(a).c_str(), nullptr, 10);
      } else {
        fail(t, fmt::format("{}: expected <PIPE_X>, #pto.sync_op_type<T>, <EVENT_IDn> or an event "
                            "number", n.name));
      }
    };
    while (true) {
      const Tok& t = peek();
      if (t.k == Tok::Angle || t.k == Tok::Hash || t.k == Tok::Number || peek_punct(",")) {
        take(t);
        next();
      } else if (peek_punct("[")) {
        next();
        while (!accept("]")) {
          if (peek().k == Tok::End || peek_punct("}")) fail(t, "unterminated '['");
          take(peek());
          next();
        }
      } else if (peek_punct("{")) {
        skip_dict(nullptr);
      } else {
        break;
      }
    }
    if (is_flag_op(n.name) && n.sync_pipes.size() != 2)
      fail_at(n.pos, n.name, "needs a source and a destination pipe [docs/sync.md#hazards]");
    if (is_barrier_op(n.name) && n.sync_pipes.size() > 1)
      fail_at(n.pos, n.name, "a barrier names at most one pipe [docs/sync.md#hazards]");
  }

  // [%r, ... =] func.call @f(%a, ...) : (T, ...) -> R | (R, ...) | (): the annotation types the
  // arguments (each must be its value's type) and the results; resolve_calls checks them against
  // @f's own signature once the module is read.
  Node call(Node& n, const std::vector<Tok>& results) {
    n.k = OpK::Call;
    const Tok& c = peek();
    if (c.k != Tok::At) fail(c, "expected the callee '@name'");
    next();
    n.callee = c.s;
    expect("(");
    if (!accept(")")) {
      do n.in.push_back(value());
      while (accept(","));
      expect(")");
    }
    expect(":");
    const Tok& tt = peek();
    expect("(");
    std::vector<Ty> args;
    if (!accept(")")) {
      do args.push_back(type());
      while (accept(","));
      expect(")");
    }
    if (args.size() != n.in.size())
      fail(tt,
           fmt::format("{}: {} argument types for {} arguments", n.name, args.size(), n.in.size()));
    for (size_t k = 0; k < args.size(); ++k) agree(n.in[k], args[k], tt.pos);
    expect("->");
    const std::vector<Ty> res = type_list();
    if (res.size() != results.size())
      fail_at(
          n.pos, n.name,
          fmt::format("{} result type{}, {} result{} named", res.size(), res.size() == 1 ? "" : "s",
                      results.size(), results.size() == 1 ? "" : "s"));
    for (size_t k = 0; k < res.size(); ++k) n.res.push_back(define(results[k], res[k]));
    return n;
  }

  Node constant(Node& n, const std::vector<Tok>& results) {
    if (results.size() != 1) fail_at(n.pos, n.name, "arith.constant has one result");
    n.k = OpK::Const;
    const Tok& v = next();
    std::string lit = v.s;
    if (v.k == Tok::Ident && (v.s == "true" || v.s == "false")) {
      scalar_type_of("i1", n.type);
      if (accept(":")) {
        const Tok& tt = peek();
        n.type = type();
        if (n.type.k != Ty::Int || n.type.bits != 1) fail(tt, "true/false are i1 constants");
      }
      n.bits = v.s == "true";
    } else {
      if (v.k != Tok::Number && !(v.k == Tok::Ident && (v.s == "inf" || v.s == "nan")))
        fail(v, "expected a number, true or false (dense<...> constants are not supported)");
      expect(":");
      const Tok& tt = peek();
      n.type = type();
      if (!n.type.scalar()) fail(tt, "arith.constant takes a scalar type");
      n.bits = literal_bits(lit, n.type, v.pos);
    }
    n.res.push_back(define(results[0], n.type));
    return n;
  }

  // A literal number as the bits of a scalar type (floats rounded once, RNE; integers in range).
  uint64_t literal_bits(const std::string& lit, const Ty& t, Pos at) {
    try {
      if (t.k == Ty::Float) return fe::scalar_code(lit, t.elem, "arith.constant");
      if (t.k == Ty::Int && t.bits == 1) {
        if (lit == "0" || lit == "1") return lit == "1";
        fail_at(at, lit, "an i1 constant is 0, 1, true or false");
      }
      // iN / index: a signed or unsigned integer of the width, kept as its two's complement bits
      const int w = width_of(t);
      const bool neg = !lit.empty() && lit[0] == '-';
      const uint64_t code = fe::scalar_code(neg ? lit : lit, neg || !t.uns ? int_elem(w, false)
                                                                          : int_elem(w, true),
                                            "arith.constant");
      return code & mask_of(w);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Parse) throw;
      fail_at(at, lit, e.what());
    }
  }

  Node scf_for(Node& n, const std::vector<Tok>& results) {
    n.k = OpK::For;
    const Tok& iv = peek();
    if (iv.k != Tok::Percent) fail(iv, "expected the induction variable '%i'");
    next();
    expect("=");
    n.in.push_back(value());
    expect_ident("to");
    n.in.push_back(value());
    expect_ident("step");
    n.in.push_back(value());
    std::vector<Tok> iter_names;
    std::vector<Ty> iter_types;
    if (peek_ident("iter_args")) {
      next();
      expect("(");
      iter_names = init_list(n);
      expect(")");
      expect("->");
      iter_types = type_list();
      if (iter_types.size() != iter_names.size())
        fail_at(n.pos, n.name, "scf.for: one result type per iter_args value");
    }
    Ty ivt = type_of(n.in[0].slot);
    if (accept(":")) ivt = type();
    for (int k = 0; k < 3; ++k) agree(n.in[size_t(k)], ivt, n.pos);
    if (ivt.k != Ty::Index && ivt.k != Ty::Int)
      fail_at(n.pos, n.name, "scf.for bounds are index or integer values");
    for (size_t k = 0; k < iter_types.size(); ++k) agree(n.in[3 + k], iter_types[k], n.pos);
    if (results.size() != iter_types.size())
      fail_at(n.pos, n.name,
              fmt::format("scf.for has {} results (its iter_args), {} named", iter_types.size(),
                          results.size()));
    n.type = ivt;
    expect("{");
    scopes_.push_back(Scope{});
    n.args.push_back(define(iv, ivt));
    for (size_t k = 0; k < iter_names.size(); ++k) n.args.push_back(define(iter_names[k], iter_types[k]));
    n.body = block(nullptr);
    scopes_.pop_back();
    expect("}");
    check_yield(n, n.body, iter_types, "scf.for");
    for (size_t k = 0; k < results.size(); ++k) n.res.push_back(define(results[k], iter_types[k]));
    return n;
  }

  // `%a = %init, ...` (scf.for's iter_args, scf.while's carried values): the names, in order;
  // each initial value appended to n.in.
  std::vector<Tok> init_list(Node& n) {
    std::vector<Tok> names;
    do {
      const Tok& a = peek();
      if (a.k != Tok::Percent) fail(a, "expected '%name = %init'");
      next();
      names.push_back(a);
      expect("=");
      n.in.push_back(value());
    } while (accept(","));
    return names;
  }

  // The values a region terminator passes on, `[%v, ... : T, ...]` (scf.yield, scf.condition after
  // its i1), appended to n.in, one type each.
  void typed_values(Node& n, const Tok& m, const char* what) {
    if (peek().k != Tok::Percent) return;
    const size_t first = n.in.size();
    do n.in.push_back(value());
    while (accept(","));
    expect(":");
    std::vector<Ty> ts;
    do ts.push_back(type());
    while (accept(","));
    if (ts.size() != n.in.size() - first) fail(m, fmt::format("{}: one type per value", what));
    for (size_t k = 0; k < ts.size(); ++k) agree(n.in[first + k], ts[k], m.pos);
  }

  Ty bool_type() {
    Ty t;
    scalar_type_of("i1", t);
    return t;
  }

  // %r:N = scf.while (%a = %init, ...) : (T, ...) -> (R, ...) { ... scf.condition(%c) %v, ... }
  //        do { ^bb0(%x: R, ...): ... scf.yield %w, ... : T, ... }
  // The first region runs with the loop-carried values; scf.condition's values are the results
  // when %c is false, else the second region's arguments, whose scf.yield carries the next values.
  Node scf_while(Node& n, const std::vector<Tok>& results) {
    n.k = OpK::While;
    std::vector<Tok> names;
    expect("(");
    if (!peek_punct(")")) names = init_list(n);
    expect(")");
    expect(":");
    const std::vector<Ty> carried = type_list();
    expect("->");
    const std::vector<Ty> out = type_list();
    if (carried.size() != names.size())
      fail_at(n.pos, n.name, "scf.while: one type per loop-carried value");
    for (size_t k = 0; k < names.size(); ++k) agree(n.in[k], carried[k], n.pos);
    if (results.size() != out.size())
      fail_at(n.pos, n.name, fmt::format("scf.while has {} results, {} named", out.size(), results.size()));
    expect("{");
    scopes_.push_back(Scope{});
    for (size_t k = 0; k < names.size(); ++k) n.args.push_back(define(names[k], carried[k]));
    n.sub = int(names.size());
    n.body = block(nullptr);
    scopes_.pop_back();
    expect("}");
    const Node* c = !n.body.empty() && n.body.back().k == OpK::Condition ? &n.body.back() : nullptr;
    if (c == nullptr) fail_at(n.pos, n.name, "scf.while's first region ends with scf.condition");
    if (c->in.size() - 1 != out.size())
      fail_at(c->pos, "scf.condition", fmt::format("scf.condition passes {} values, scf.while has {} results",
                                                   c->in.size() - 1, out.size()));
    for (size_t k = 0; k < out.size(); ++k)
      if (!c->in[k + 1].type.same(out[k]))
        fail_at(c->in[k + 1].pos, "%" + c->in[k + 1].name,
                fmt::format("scf.condition: type {} differs from the result type {}", c->in[k + 1].type.text,
                            out[k].text));
    expect_ident("do");
    expect("{");
    scopes_.push_back(Scope{});
    if (peek().k == Tok::Ident && !peek().s.empty() && peek().s[0] == '^') {
      next();
      expect("(");
      size_t k = 0;
      if (!peek_punct(")")) {
        do {
          const Tok& a = peek();
          if (a.k != Tok::Percent) fail(a, "expected a block argument '%name: type'");
          next();
          expect(":");
          const Tok& tt = peek();
          const Ty ty = type();
          if (k >= out.size() || !ty.same(out[k]))
            fail(tt, "the block's arguments are scf.while's result types, in order");
          n.args.push_back(define(a, ty));
          ++k;
        } while (accept(","));
      }
      expect(")");
      expect(":");
      if (k != out.size()) fail_at(n.pos, n.name, "the do region takes one argument per result");
    } else if (!out.empty()) {
      fail(peek(), "expected the do region's block label with its arguments: ^bb0(%x: T, ...):");
    }
    n.els = block(nullptr);
    scopes_.pop_back();
    expect("}");
    check_yield(n, n.els, carried, "scf.while");
    for (size_t k = 0; k < results.size(); ++k) n.res.push_back(define(results[k], out[k]));
    return n;
  }

  void check_yield(const Node& n, const std::vector<Node>& body, const std::vector<Ty>& types,
                   const char* what) {
    const Node* y = !body.empty() && body.back().k == OpK::Yield ? &body.back() : nullptr;
    const size_t got = y ? y->in.size() : 0;
    if (got != types.size())
      fail_at(y ? y->pos : n.pos, y ? "scf.yield" : n.name,
              fmt::format("{} yields {} values, its results need {}", what, got, types.size()));
    for (size_t k = 0; k < got; ++k)
      if (!y->in[k].type.same(types[k]))
        fail_at(y->in[k].pos, "%" + y->in[k].name,
                fmt::format("{}: yielded type {} differs from the result type {}", what,
                            y->in[k].type.text, types[k].text));
  }

  Node scf_if(Node& n, const std::vector<Tok>& results) {
    n.k = OpK::If;
    n.in.push_back(value());
    const Ty& ct = type_of(n.in[0].slot);
    if (ct.k != Ty::Int || ct.bits != 1)
      fail_at(n.in[0].pos, "%" + n.in[0].name, "scf.if's condition must be i1");
    std::vector<Ty> types;
    if (accept("->")) types = type_list();
    if (results.size() != types.size())
      fail_at(n.pos, n.name,
              fmt::format("scf.if has {} result types, {} results named", types.size(),
                          results.size()));
    expect("{");
    n.body = block(nullptr);
    expect("}");
    check_yield(n, n.body, types, "scf.if");
    if (peek_ident("else")) {
      next();
      expect("{");
      n.els = block(nullptr);
      expect("}");
      check_yield(n, n.els, types, "scf.if else");
    } else if (!types.empty()) {
      fail_at(n.pos, n.name, "scf.if with results needs an else region");
    }
    for (size_t k = 0; k < results.size(); ++k) n.res.push_back(define(results[k], types[k]));
    return n;
  }

  std::vector<Opnd> bracket_values(const char* key) {
    expect_ident(key);
    expect("=");
    expect("[");
    std::vector<Opnd> out;
    if (!accept("]")) {
      do {
        Opnd o = value();
        if (o.type.k != Ty::Index && o.type.k != Ty::Int)
          fail_at(o.pos, "%" + o.name, fmt::format("{} are index values", key));
        out.push_back(o);
      } while (accept(","));
      expect("]");
    }
    return out;
  }

  int layout_attr() {  // {layout = #pto.layout<nd>}
    int layout = -1;
    if (!peek_punct("{")) return layout;
    next();
    do {
      const Tok& k = next();
      if (k.k != Tok::Ident || k.s != "layout") fail(k, "expected 'layout' (the only attribute here)");
      expect("=");
      const Tok& v = next();
      static constexpr const char* kL[] = {"#pto.layout<nd>", "#pto.layout<dn>", "#pto.layout<nz>"};
      for (int l = 0; l < 3; ++l)
        if (v.s == kL[l]) layout = l;
      if (layout < 0) fail(v, "expected #pto.layout<nd>, <dn> or <nz>");
    } while (accept(","));
    expect("}");
    return layout;
  }

  Node make_view(Node& n, const std::vector<Tok>& results) {
    if (results.size() != 1) fail_at(n.pos, n.name, "pto.make_tensor_view has one result");
    n.k = OpK::MakeView;
    n.in.push_back(value());
    if (n.in[0].type.k != Ty::Ptr)
      fail_at(n.in[0].pos, "%" + n.in[0].name, "pto.make_tensor_view takes a !pto.ptr argument");
    expect(",");
    const auto shape = bracket_values("shape");
    expect(",");
    const auto strides = bracket_values("strides");
    if (shape.empty() || shape.size() > 5 || shape.size() != strides.size())
      fail_at(n.pos, n.name,
              fmt::format("shape and strides need the same rank, 1 to 5; got {} and {}",
                          shape.size(), strides.size()));
    n.in.insert(n.in.end(), shape.begin(), shape.end());
    n.in.insert(n.in.end(), strides.begin(), strides.end());
    n.layout = layout_attr();
    expect(":");
    const Tok& tt = peek();
    n.type = type();
    if (n.type.k != Ty::TView) fail(tt, "expected !pto.tensor_view<...>");
    if (n.type.elem != n.in[0].type.elem)
      fail(tt, fmt::format("element type differs from the pointer's ({})", n.in[0].type.text));
    n.res.push_back(define(results[0], n.type));
    return n;
  }

  Node partition_view(Node& n, const std::vector<Tok>& results) {
    if (results.size() != 1) fail_at(n.pos, n.name, "pto.partition_view has one result");
    n.k = OpK::PartView;
    n.in.push_back(value());
    if (n.in[0].type.k != Ty::TView && n.in[0].type.k != Ty::PView)
      fail_at(n.in[0].pos, "%" + n.in[0].name, "pto.partition_view takes a tensor view");
    expect(",");
    const auto offs = bracket_values("offsets");
    expect(",");
    const auto sizes = bracket_values("sizes");
    if (offs.size() != sizes.size() || offs.empty() || offs.size() > 5)
      fail_at(n.pos, n.name, "offsets and sizes need the same rank as the view");
    n.in.insert(n.in.end(), offs.begin(), offs.end());
    n.in.insert(n.in.end(), sizes.begin(), sizes.end());
    if (peek_punct("{")) skip_dict(nullptr);
    expect(":");
    const Ty src = type();
    agree(n.in[0], src, n.pos);
    expect("->");
    const Tok& tt = peek();
    n.type = type();
    if (n.type.k != Ty::PView) fail(tt, "expected !pto.partition_tensor_view<...>");
    if (n.type.elem != src.elem) fail(tt, "element type differs from the source view's");
    if (n.type.dims.size() != sizes.size())
      fail(tt, fmt::format("rank {} differs from the {} sizes", n.type.dims.size(), sizes.size()));
    n.res.push_back(define(results[0], n.type));
    return n;
  }

  Node alloc_tile(Node& n, const std::vector<Tok>& results) {
    if (results.size() != 1) fail_at(n.pos, n.name, "pto.alloc_tile has one result");
    n.k = OpK::Alloc;
    while (peek().k == Tok::Ident) {
      const Tok& k = next();
      if (k.s != "valid_row" && k.s != "valid_col" && k.s != "addr")
        fail(k, "expected addr = %a, valid_row = %v or valid_col = %v");
      int& at = k.s == "addr" ? n.addr : k.s == "valid_row" ? n.vrow : n.vcol;
      if (at >= 0) fail(k, fmt::format("'{}' given twice", k.s));
      expect("=");
      Opnd o = value();
      if (o.type.k != Ty::Index && o.type.k != Ty::Int)
        fail_at(o.pos, "%" + o.name,
                k.s == "addr" ? "a tile address is an integer value" : "a valid shape operand is an index value");
      at = int(n.in.size());
      n.in.push_back(o);
    }
    expect(":");
    const Tok& tt = peek();
    n.type = type();
    if (n.type.k != Ty::Tile) fail(tt, "expected !pto.tile_buf<...>");
    if ((n.type.tile.vr < 0) != (n.vrow >= 0) || (n.type.tile.vc < 0) != (n.vcol >= 0))
      fail(tt, "a '?' valid dimension needs its valid_row / valid_col operand, and only it");
    n.res.push_back(define(results[0], n.type));
    return n;
  }

  // ---- instructions ----

  // "pto.tadd" -> the TADD row, "pto.tmatmul.acc" -> TMATMUL_ACC; TROWEXPAND* -> the family.
  void resolve(Node& n, const Tok& m) {
    std::string name = m.s.substr(4);
    static constexpr std::pair<const char*, Op> kFam[] = {
        {"trowexpandadd", Op::ADD}, {"trowexpandsub", Op::SUB}, {"trowexpandmul", Op::MUL},
        {"trowexpanddiv", Op::DIV}, {"trowexpandmax", Op::MAX}, {"trowexpandmin", Op::MIN},
        {"trowexpandexpdif", Op::EXPDIF}};
    for (const auto& [f, op] : kFam)
      if (name == f) {
        n.is_rowexpand = true;
        n.rop = op;
        return;
      }
    for (char c : name)
      if (std::isupper(static_cast<unsigned char>(c))) fail(m, fmt::format("unknown op '{}'", m.s));
    std::replace(name.begin(), name.end(), '.', '_');
    n.info = find_instr(name);
    if (!n.info) fail(m, fmt::format("unknown op '{}'", m.s));
  }

  // Attribute names an instruction takes (PTOAS spellings).
  static std::vector<const char*> attribute_names(const Node& n) {
    if (!n.info) return {};
    switch (n.info->kind) {
      case Kind::Compare:
      case Kind::CompareScalar: return {"cmpMode"};
      case Kind::Convert: return {"rmode", "sat_mode"};
      case Kind::ColReduce:
        if (fe::has_tmp_form(*n.info)) return {"isBinary"};
        return {};
      case Kind::Store: return {"atomicType", "reluPreMode", "stPhase", "layout"};
      case Kind::Load:
      case Kind::Prefetch: return {"layout"};
      case Kind::Move: return {"reluPreMode", "accToVecMode"};
      case Kind::Gather:
      case Kind::Scatter: return {"maskPattern"};
      default: return {};
    }
  }

  // "#pto<cmp lt>" or "#pto.cmp<lt>": the value word after checking the attribute's kind.
  std::string attr_word(const Tok& v, const char* kind) {
    const std::string want = fmt::format("expected #pto<{} VALUE> or #pto.{}<VALUE>", kind, kind);
    if (v.k != Tok::Hash) fail(v, want);
    const std::string& s = v.s;
    std::string k, w;
    if (s.rfind("#pto<", 0) == 0) {
      const std::string inner = s.substr(5, s.size() - 6);
      const size_t sp = inner.find(' ');
      if (sp != std::string::npos) k = inner.substr(0, sp), w = inner.substr(sp + 1);
    } else if (s.rfind("#pto.", 0) == 0 && s.find('<') != std::string::npos) {
      const size_t lt = s.find('<');
      k = s.substr(5, lt - 5);
      w = s.substr(lt + 1, s.size() - lt - 2);
    }
    w.erase(std::remove(w.begin(), w.end(), ' '), w.end());
    if (k != kind || w.empty()) fail(v, want);
    return w;
  }

  static int word_of(const std::string& w, std::initializer_list<std::pair<const char*, int>> l) {
    for (const auto& [a, v] : l) {
      std::string x = a, y = w;
      std::transform(x.begin(), x.end(), x.begin(), ::tolower);
      std::transform(y.begin(), y.end(), y.begin(), ::tolower);
      if (x == y) return v;
    }
    return -1;
  }

  void attributes(Node& n) {
    if (!peek_punct("{")) return;
    next();
    const auto names = attribute_names(n);
    std::vector<std::string> given;
    do {
      const Tok& key = next();
      if (key.k != Tok::Ident) fail(key, "expected an attribute name");
      if (std::find_if(names.begin(), names.end(), [&](const char* x) { return key.s == x; }) ==
          names.end()) {
        std::string list;
        for (const char* x : names) list += (list.empty() ? "" : " ") + std::string(x);
        fail(key, fmt::format("unknown attribute '{}' for {} (it takes {})", key.s, n.name,
                              list.empty() ? "none" : list));
      }
      if (std::find(given.begin(), given.end(), key.s) != given.end())
        fail(key, fmt::format("attribute '{}' given twice", key.s));
      given.push_back(key.s);
      expect("=");
      const Tok& v = next();
      try {
        if (key.s == "cmpMode") {
          n.cmp = fe::parse_cmp(attr_word(v, "cmp"));
        } else if (key.s == "rmode") {
          n.round = fe::parse_round(attr_word(v, "round_mode"));
        } else if (key.s == "sat_mode") {
          n.sat = fe::parse_sat(attr_word(v, "saturation_mode"));
        } else if (key.s == "maskPattern") {
          n.mask_pattern = fe::parse_mask_pattern(attr_word(v, "mask_pattern"));
        } else if (key.s == "isBinary") {
          if (v.k != Tok::Ident || (v.s != "true" && v.s != "false")) fail(v, "expected true or false");
          n.is_binary = v.s == "true";
        } else if (key.s == "atomicType") {
          const int a = word_of(attr_word(v, "atomic_type"),
                                {{"atomic_none", 0}, {"atomic_add", 1}, {"AtomicNone", 0}, {"AtomicAdd", 1}});
          if (a < 0) fail(v, "atomic_type is atomic_none or atomic_add");
          n.atomic = uint8_t(a);
        } else if (key.s == "reluPreMode") {
          const int r = word_of(attr_word(v, "relu_pre_mode"),
                                {{"no_relu", 0}, {"normal_relu", 1}, {"NoRelu", 0}, {"NormalRelu", 1}});
          if (r < 0) fail(v, "relu_pre_mode is no_relu or normal_relu");
          n.relu = uint8_t(r);
        } else if (key.s == "stPhase") {  // a scheduling hint: no effect on results
          if (word_of(attr_word(v, "st_phase"), {{"unspecified", 0}, {"partial", 1}, {"final", 2}}) < 0)
            fail(v, "st_phase is unspecified, partial or final");
        } else if (key.s == "accToVecMode") {
          if (word_of(attr_word(v, "acc_to_vec_mode"), {{"single_mode_vec0", 0}}) < 0)
            fail(v, "only acc_to_vec_mode single_mode_vec0 is supported (one vector core)");
        } else {  // layout
          static constexpr const char* kL[] = {"#pto.layout<nd>", "#pto.layout<dn>", "#pto.layout<nz>"};
          n.layout = -1;
          for (int l = 0; l < 3; ++l)
            if (v.s == kL[l]) n.layout = l;
          if (n.layout < 0) fail(v, "expected #pto.layout<nd>, <dn> or <nz>");
        }
      } catch (const Error& e) {
        if (e.code() == ErrorCode::Parse) throw;
        fail(v, e.what());
      }
    } while (accept(","));
    expect("}");
  }

  Opnd operand_or_literal() {
    const Tok& t = peek();
    if (t.k == Tok::Percent) {
      next();
      return use(t);
    }
    if (t.k == Tok::Number || (t.k == Tok::Ident && (t.s == "inf" || t.s == "nan"))) {
      next();
      Opnd o;
      o.literal = t.s;
      o.pos = t.pos;
      o.name = t.s;
      return o;
    }
    fail(t, "expected an operand '%name' or a scalar literal");
  }

  // Reads the annotation list of `ops` and checks it against the values.
  void annotate(std::vector<Opnd>& ops, const Node& n) {
    const bool paren = accept("(");
    for (size_t k = 0; k < ops.size(); ++k) {
      if (k) expect(",");
      const Tok& tt = peek();
      Ty t = type();
      if (ops[k].slot >= 0)
        agree(ops[k], t, tt.pos);
      else if (!t.scalar())
        fail(tt, fmt::format("literal {} needs a scalar type", ops[k].literal));
      ops[k].type = t;
    }
    if (paren) expect(")");
    (void)n;
  }

  Node instruction(Node& n, const Tok& m, const std::vector<Tok>& results) {
    resolve(n, m);
    n.k = OpK::Instr;
    if (results.size() > 1) fail(results[1], fmt::format("{} has at most one result", m.s));
    if (peek_ident("ins")) {  // DPS: ins(...) outs(...)
      if (!results.empty()) fail(results[0], "the ins(...) outs(...) form has no result");
      next();
      expect("(");
      if (!peek_punct(")") && !peek_punct(":")) {
        do {
          if (peek_punct("{")) break;  // ins(%src, {maskPattern = ...} : T) (pto-isa TGATHER.md)
          n.in.push_back(operand_or_literal());
        } while (accept(","));
      }
      attributes(n);
      if (!n.in.empty()) {
        expect(":");
        annotate(n.in, n);
      }
      expect(")");
      expect_ident("outs");
      expect("(");
      do n.outs.push_back(value());
      while (accept(","));
      expect(":");
      annotate(n.outs, n);
      expect(")");
      attributes(n);
    } else {  // SSA: %r = pto.op %a, %b {attrs} : T, T -> T
      if (results.empty()) fail(m, "expected ins(...) outs(...) or a result '%r = ...'");
      n.ssa = true;
      do n.in.push_back(operand_or_literal());
      while (accept(","));
      attributes(n);
      expect(":");
      annotate(n.in, n);
      expect("->");
      const Tok& tt = peek();
      n.type = type();
      if (n.type.k != Ty::Tile) fail(tt, "an instruction's result is a !pto.tile_buf");
      n.res.push_back(define(results[0], n.type));
    }
    bind(n, m);
    return n;
  }

  static bool is_scalar_letter(char c) { return c == 's' || c == 'i' || c == 'j' || c == 'q'; }

  // Matches the ins operands to one of the kind's patterns by what each operand is (a tile, a
  // view or a scalar), and checks outs.
  void bind(Node& n, const Tok& m) {
    const auto pats = operand_patterns(n.is_rowexpand ? nullptr : n.info);
    const auto what = [&](const Opnd& o) {
      if (o.slot < 0 || o.type.scalar()) return 's';
      if (o.type.k == Ty::PView || o.type.k == Ty::TView) return 'g';
      if (o.type.k == Ty::Tile) return 'T';
      return '?';
    };
    std::string shape, got;
    for (const Opnd& o : n.in) {
      shape += what(o);
      got += (got.empty() ? "" : ", ") + (o.slot < 0 ? o.literal : "%" + o.name);
    }
    const char* match = nullptr;
    for (const char* p : pats) {
      std::string want(p);
      for (char& c : want) c = is_scalar_letter(c) ? 's' : c == 'g' ? 'g' : 'T';
      if (want == shape) match = p;
    }
    if (!match)
      fail(m, fmt::format("{} takes ins{}, got ({})", m.s, pattern_usage(pats), got));
    n.pattern = match;
    const Kind k = n.is_rowexpand ? Kind::Binary : n.info->kind;
    const bool two_outs = !n.is_rowexpand && (k == Kind::RowArg || k == Kind::ColArg);
    const size_t nouts = n.ssa ? 1 : n.outs.size();
    if (nouts != 1 && !(two_outs && nouts == 2))
      fail(m, fmt::format("{} takes {} destination{}, got {}", m.s, two_outs ? "1 or 2" : "1",
                          two_outs ? "s" : "", nouts));
    for (const Opnd& o : n.outs) {
      const bool view = o.type.k == Ty::PView || o.type.k == Ty::TView;
      if (view != (k == Kind::Store) || (!view && o.type.k != Ty::Tile))
        fail_at(o.pos, "%" + o.name,
                k == Kind::Store ? "TSTORE's destination is a partition view"
                                 : "the destination is a !pto.tile_buf tile");
    }
    if (n.ssa && k == Kind::Store) fail(m, "TSTORE writes a view: use ins(...) outs(%view : ...)");
    if (n.is_binary && std::strchr(match, 't') == nullptr)
      fail(m, "isBinary = true needs the tmp form ins(%src, %tmp {isBinary = true} : ...)");
    // scalars: integer positions (indices, quant) take integers; others any scalar
    for (size_t i = 0; match[i]; ++i) {
      const Opnd& o = n.in[i];
      if ((match[i] == 'i' || match[i] == 'j' || match[i] == 'q') && o.type.k == Ty::Float)
        fail_at(o.pos, o.slot < 0 ? o.literal : "%" + o.name,
                fmt::format("{} is an integer operand", match[i] == 'q' ? "the pre-quant scalar"
                                                                         : "a TEXTRACT index"));
    }
  }

  std::string file_;
  std::vector<Tok> toks_;
  size_t i_ = 0;
  Func* fn_ = nullptr;
  std::vector<Scope> scopes_;
  bool has_sync_ = false;  // any function of the module has a sync op (Program::has_sync)
};


// ---- the interpreter ----

struct GmView {
  int buf = 0;
  Elem elem = Elem::f32;
  int64_t off = 0;  // elements from the start of the bound array
  int rank = 0;
  int64_t shape[5] = {}, stride[5] = {};
  int layout = -1;  // explicit {layout = ...} of make_tensor_view; -1 = inferred
  int brank = 0;    // make_tensor_view's own shape and strides (what the layout is inferred from)
  int64_t bshape[5] = {}, bstride[5] = {};
};

struct Storage {
  std::vector<uint8_t> bytes;
  size_t* live = nullptr;
  ~Storage() { *live -= bytes.size(); }
};

struct TileObj {
  std::shared_ptr<Storage> store;
  TileDesc d;
};

struct Val {
  uint64_t bits = 0;  // scalars: the bits of their type; !pto.ptr: the index of the bound array
  std::shared_ptr<const GmView> view;
  std::shared_ptr<TileObj> tile;
};

// The right-aligned five dimensions of PTOAS's GlobalTensor ABI: leading dimensions 1, their
// strides shape[i+1] * stride[i+1] (PTOAS lib/PTO/Transforms/InferPTOLayout.cpp).
void right_align(int rank, const int64_t* shape, const int64_t* stride, int64_t* sh, int64_t* st) {
  const int shift = 5 - rank;
  for (int i = 0; i < 5; ++i) sh[i] = 1, st[i] = 1;
  for (int i = 0; i < rank; ++i) sh[shift + i] = shape[i], st[shift + i] = stride[i];
  for (int i = shift - 1; i >= 0; --i) st[i] = sh[i + 1] * st[i + 1];
}

// Each function activation has its own frame of slots (the entry's lives as long as the Machine);
// values pass into a call and back as MLIR's do: a tile, view or pointer is the same object in
// caller and callee, so a callee's writes to a tile argument are the caller's.
class Machine {
 public:
  Machine(const Program& p, const Func& entry, std::string file, const Target& t,
          const RunOptions& o, std::vector<npy::Array>& gm)
      : prog_(p), fn_(&entry), file_(std::move(file)), target_(t), opts_(o), gm_(gm),
        ub_bytes_(t.ub_bytes, 0), entry_slots_(size_t(entry.nslots)), frame_(&entry_slots_) {
    ub_ = Ub{ub_bytes_.data(), ub_bytes_.size()};
  }
  Val& slot(int s) { return (*frame_)[size_t(s)]; }
  void run() { exec_block(fn_->body); }

 private:
  [[noreturn]] void fail(ErrorCode code, const std::string& what) { raise(code, "", what, kDoc); }
  const Ty& type_of(int s) const { return fn_->slot_types[size_t(s)]; }

  int64_t sval(const Opnd& o) const {  // an integer / index value, signed
    const Ty& t = type_of(o.slot);
    const uint64_t b = (*frame_)[size_t(o.slot)].bits;
    if (t.k == Ty::Int && (t.uns || t.bits == 1)) return int64_t(b & mask_of(t.bits));
    return as_signed(b, width_of(t));
  }

  // Every executed op and every loop iteration counts against max_ops.
  void tick(const Node& n) {
    if (opts_.max_ops && ++ops_ > opts_.max_ops)
      raise(ErrorCode::Bounds, fmt::format("{}:{}:{}", file_, n.pos.line, n.pos.col),
            fmt::format("the program ran more than {} operations (max_ops), at '{}'", opts_.max_ops,
                        n.name),
            kDoc);
  }

  const Node* exec_block(const std::vector<Node>& ops) {
    struct Nest {
      int& n;
      ~Nest() { --n; }
    } nest{++nest_};
    if (nest_ > kMaxRunNesting)
      fail(ErrorCode::Bounds, fmt::format("regions and calls nested deeper than {} while running",
                                          kMaxRunNesting));
    for (const Node& n : ops) {
      if (n.k == OpK::Yield || n.k == OpK::Condition || n.k == OpK::Return) return &n;
      tick(n);
      try {
        exec(n);
      } catch (const Error& e) {
        if (std::string_view(e.what()).substr(0, file_.size()) == file_) throw;
        throw Error(e.code(), fmt::format("{}:{}:{}: {} (at '{}')", file_, n.pos.line, n.pos.col,
                                          e.what(), n.name));
      }
    }
    return nullptr;
  }

  void exec(const Node& n) {
    switch (n.k) {
      case OpK::Const: slot(n.res[0]).bits = n.bits; return;
      case OpK::IntBin: return int_bin(n);
      case OpK::Cmpi: return cmpi(n);
      case OpK::Select: slot(n.res[0]) = slot(n.in[0].slot).bits & 1 ? slot(n.in[1].slot) : slot(n.in[2].slot); return;
      case OpK::Cast: return cast(n);
      case OpK::For: return scf_for(n);
      case OpK::While: return scf_while(n);
      case OpK::If: return scf_if(n);
      case OpK::MakeView: return make_view(n);
      case OpK::PartView: return partition_view(n);
      case OpK::Alloc: return alloc(n);
      case OpK::SetValid: return set_valid(n);
      case OpK::Print: {
        const TileObj* t = slot(n.in[0].slot).tile.get();
        if (t == nullptr) fail(ErrorCode::Constraint, fmt::format("%{} is not a tile", n.in[0].name));
        const std::string text = tprint(t->d, nullptr, ::pto::PrintFormat::Width8_Precision4, target_);
        std::fwrite(text.data(), 1, text.size(), stdout);
        return;
      }
      case OpK::Instr: return instr(n);
      case OpK::Call: return call(n);
      default: return sync_op(n);  // no effect on results (spec 21 §2)
    }
  }

  // func.call: the callee's body in a new frame, its parameters bound to the arguments by
  // position, its return values into the call's results. Errors inside carry the callee's own
  // op and file:line:col (exec_block leaves a message that already names the file as it is).
  void call(const Node& n) {
    const Func& g = prog_.funcs[size_t(n.callee_idx)];
    if (depth_ >= kMaxCallDepth)
      fail(ErrorCode::Bounds,
           fmt::format("func.call @{}: calls nested deeper than {} (a recursion that does not "
                       "end?)",
                       g.name, kMaxCallDepth));
    std::vector<Val> frame(size_t(g.nslots));
    for (size_t k = 0; k < n.in.size(); ++k) frame[size_t(g.params[k].slot)] = slot(n.in[k].slot);
    std::vector<Val> out;
    {
      struct Activation {  // the caller's function and frame again on every way out
        Machine& m;
        const Func* fn;
        std::vector<Val>* frame;
        ~Activation() { m.fn_ = fn, m.frame_ = frame, --m.depth_; }
      } back{*this, fn_, frame_};
      fn_ = &g;
      frame_ = &frame;
      ++depth_;
      const Node* r = exec_block(g.body);
      for (const Opnd& v : r->in) out.push_back(slot(v.slot));
    }
    for (size_t k = 0; k < n.res.size(); ++k) slot(n.res[k]) = std::move(out[k]);
  }

  // A sync op as the hazard checker sees it (docs/sync.md#hazards): set_flag / wait_flag and
  // record_event / wait_event order two pipes, barrier <PIPE_ALL> all of them. The cross-core
  // pto.sync.set / pto.sync.wait and the a5 buffer ops get_buf / rls_buf order nothing on one core.
  void sync_op(const Node& n) {
    if (!sync::on()) return;
    const sync::Site site{file_.c_str(), uint32_t(n.pos.line), uint32_t(n.pos.col)};
    const std::string_view op = n.name;
    if (is_flag_op(op)) {
      const bool set = op == "pto.set_flag" || op == "pto.set_flag_dyn" || op == "pto.record_event";
      return set ? sync::set_flag(op.substr(4), n.sync_pipes[0], n.sync_pipes[1], n.sync_id, site)
                 : sync::wait_flag(op.substr(4), n.sync_pipes[0], n.sync_pipes[1], n.sync_id, site);
    }
    if (is_barrier_op(op))
      sync::barrier(op.substr(4), n.sync_pipes.empty() ? sync::kAll : n.sync_pipes[0], site);
  }

  void int_bin(const Node& n) {
    const int w = width_of(n.type);
    const uint64_t m = mask_of(w);
    const uint64_t a = slot(n.in[0].slot).bits & m, b = slot(n.in[1].slot).bits & m;
    const int64_t sa = as_signed(a, w), sb = as_signed(b, w);
    const int64_t smin = w >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (w - 1));
    const auto div_checks = [&](bool is_signed) {
      if (b == 0) fail(ErrorCode::Constraint, fmt::format("{}: division by zero", n.name));
      if (is_signed && sa == smin && sb == -1)
        fail(ErrorCode::Constraint, fmt::format("{}: {} / -1 overflows {}", n.name, sa, n.type.text));
    };
    uint64_t r = 0;
    switch (IntOp(n.sub)) {
      case kAdd: r = a + b; break;
      case kSub: r = a - b; break;
      case kMul: r = a * b; break;
      case kDivS: div_checks(true), r = uint64_t(sa / sb); break;
      case kDivU: div_checks(false), r = a / b; break;
      case kRemS: div_checks(false), r = sb == -1 ? 0 : uint64_t(sa % sb); break;
      case kRemU: div_checks(false), r = a % b; break;
      case kCeilDivS: {
        div_checks(true);
        int64_t q = sa / sb;
        if (sa % sb != 0 && ((sa < 0) == (sb < 0))) ++q;
        r = uint64_t(q);
        break;
      }
      case kCeilDivU: div_checks(false), r = a / b + (a % b != 0); break;
      case kFloorDivS: {
        div_checks(true);
        int64_t q = sa / sb;
        if (sa % sb != 0 && ((sa < 0) != (sb < 0))) --q;
        r = uint64_t(q);
        break;
      }
      case kMinS: r = uint64_t(std::min(sa, sb)); break;
      case kMaxS: r = uint64_t(std::max(sa, sb)); break;
      case kMinU: r = std::min(a, b); break;
      case kMaxU: r = std::max(a, b); break;
      case kAnd: r = a & b; break;
      case kOr: r = a | b; break;
      case kXor: r = a ^ b; break;
      case kShl:
      case kShrS:
      case kShrU:
        if (b >= uint64_t(w))
          fail(ErrorCode::Constraint,
               fmt::format("{}: shift amount {} is not below the width {}", n.name, b, w));
        r = n.sub == kShl ? a << b : n.sub == kShrU ? a >> b : uint64_t(sa >> b);
        break;
    }
    slot(n.res[0]).bits = r & m;
  }

  void cmpi(const Node& n) {
    const int w = width_of(n.type);
    const uint64_t m = mask_of(w);
    const uint64_t a = slot(n.in[0].slot).bits & m, b = slot(n.in[1].slot).bits & m;
    const int64_t sa = as_signed(a, w), sb = as_signed(b, w);
    bool r = false;
    switch (n.sub) {
      case 0: r = a == b; break;
      case 1: r = a != b; break;
      case 2: r = sa < sb; break;
      case 3: r = sa <= sb; break;
      case 4: r = sa > sb; break;
      case 5: r = sa >= sb; break;
      case 6: r = a < b; break;
      case 7: r = a <= b; break;
      case 8: r = a > b; break;
      default: r = a >= b; break;
    }
    slot(n.res[0]).bits = r;
  }

  void cast(const Node& n) {
    const Ty& from = type_of(n.in[0].slot);
    const int wf = width_of(from), wt = width_of(n.type);
    const uint64_t a = slot(n.in[0].slot).bits;
    const bool sext = n.sub == kIndexCast || n.sub == kExtSI;
    const uint64_t v = sext ? uint64_t(as_signed(a, wf)) : a & mask_of(wf);
    slot(n.res[0]).bits = v & mask_of(wt);
  }

  void scf_for(const Node& n) {
    const int64_t lb = sval(n.in[0]), ub = sval(n.in[1]), step = sval(n.in[2]);
    if (step <= 0)
      fail(ErrorCode::Constraint, fmt::format("scf.for: step must be positive, got {}", step));
    const size_t niter = n.args.size() - 1;
    for (size_t k = 0; k < niter; ++k) slot(n.args[1 + k]) = slot(n.in[3 + k].slot);
    std::vector<Val> next(niter);
    const int w = width_of(n.type);
    for (int64_t i = lb; i < ub;) {
      tick(n);
      slot(n.args[0]).bits = uint64_t(i) & mask_of(w);
      const Node* y = exec_block(n.body);
      if (y) {
        for (size_t k = 0; k < niter; ++k) next[k] = slot(y->in[k].slot);
        for (size_t k = 0; k < niter; ++k) slot(n.args[1 + k]) = next[k];
      }
      if (i > std::numeric_limits<int64_t>::max() - step) break;
      i += step;
    }
    for (size_t k = 0; k < n.res.size(); ++k) slot(n.res[k]) = slot(n.args[1 + k]);
  }

  void scf_while(const Node& n) {
    const size_t nc = size_t(n.sub), nr = n.res.size();
    std::vector<Val> vals(nc);
    for (size_t k = 0; k < nc; ++k) vals[k] = slot(n.in[k].slot);
    while (true) {
      tick(n);  // every iteration counts against max_ops: a loop that never ends stops there
      for (size_t k = 0; k < nc; ++k) slot(n.args[k]) = vals[k];
      const Node* c = exec_block(n.body);
      std::vector<Val> passed(nr);
      for (size_t k = 0; k < nr; ++k) passed[k] = slot(c->in[k + 1].slot);
      if (!(slot(c->in[0].slot).bits & 1)) {
        for (size_t k = 0; k < nr; ++k) slot(n.res[k]) = passed[k];
        return;
      }
      for (size_t k = 0; k < nr; ++k) slot(n.args[nc + k]) = passed[k];
      const Node* y = exec_block(n.els);
      for (size_t k = 0; k < nc; ++k) vals[k] = slot(y->in[k].slot);
    }
  }

  void scf_if(const Node& n) {
    const Node* y = exec_block(slot(n.in[0].slot).bits & 1 ? n.body : n.els);
    std::vector<Val> out;
    for (size_t k = 0; k < n.res.size(); ++k) out.push_back(slot(y->in[k].slot));
    for (size_t k = 0; k < n.res.size(); ++k) slot(n.res[k]) = out[k];
  }

  std::string dims_text(const int64_t* d, int rank) {
    std::string s = "[";
    for (int i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
  }

  void check_static_dims(const Ty& t, const int64_t* d, int rank, const char* what) {
    if (int(t.dims.size()) != rank) return;  // PTOAS's older "<2xf32>" spelling: rank only
    for (int i = 0; i < rank; ++i)
      if (t.dims[size_t(i)] >= 0 && t.dims[size_t(i)] != d[i])
        fail(ErrorCode::Constraint,
             fmt::format("{} {}: the type {} says {} in dimension {}", what, dims_text(d, rank),
                         t.text, t.dims[size_t(i)], i));
  }

  void make_view(const Node& n) {
    auto v = std::make_shared<GmView>();
    const Ty& pt = type_of(n.in[0].slot);
    v->buf = int(slot(n.in[0].slot).bits);
    v->elem = pt.elem;
    v->rank = int(n.in.size() - 1) / 2;
    v->layout = n.layout;
    int64_t reach = 0;  // the last element the view reaches (saturating)
    bool huge = false;
    bool empty = false;
    for (int i = 0; i < v->rank; ++i) {
      v->shape[i] = sval(n.in[size_t(1 + i)]);
      v->stride[i] = sval(n.in[size_t(1 + v->rank + i)]);
      if (v->shape[i] < 0 || v->stride[i] < 0 || v->shape[i] > (int64_t{1} << 40) ||
          v->stride[i] > (int64_t{1} << 40))
        fail(ErrorCode::Constraint,
             fmt::format("shape {} and strides {} must be in [0, 2^40]", dims_text(v->shape, v->rank),
                         dims_text(v->stride, v->rank)));
      if (v->shape[i] == 0) empty = true;
      int64_t term = 0;
      if (v->shape[i] > 0 && (__builtin_mul_overflow(v->shape[i] - 1, v->stride[i], &term) ||
                              __builtin_add_overflow(reach, term, &reach)))
        huge = true;
    }
    check_static_dims(n.type, v->shape, v->rank, "tensor view shape");
    const npy::Array& a = gm_[size_t(v->buf)];
    const size_t esz = elem_size(v->elem);
    const size_t have = a.data.size() / esz;
    if (!empty && (huge || uint64_t(reach) >= uint64_t(have)))
      fail(ErrorCode::Bounds,
           fmt::format("'%{}' is bound to an array of {} elements, too small for the view of shape {} "
                       "and strides {} (it reaches element {})",
                       n.in[0].name, have, dims_text(v->shape, v->rank), dims_text(v->stride, v->rank),
                       huge ? std::string("beyond 2^63") : std::to_string(reach)));
    v->brank = v->rank;
    std::copy(v->shape, v->shape + 5, v->bshape);
    std::copy(v->stride, v->stride + 5, v->bstride);
    slot(n.res[0]).view = std::move(v);
  }

  void partition_view(const Node& n) {
    const GmView& src = *slot(n.in[0].slot).view;
    const int rank = int(n.in.size() - 1) / 2;
    if (rank != src.rank)
      fail(ErrorCode::Constraint,
           fmt::format("{} offsets/sizes for a view of rank {}", rank, src.rank));
    auto v = std::make_shared<GmView>(src);
    for (int i = 0; i < rank; ++i) {
      const int64_t o = sval(n.in[size_t(1 + i)]), sz = sval(n.in[size_t(1 + rank + i)]);
      if (o < 0 || sz < 0 || o > src.shape[i] || sz > src.shape[i] - o)
        fail(ErrorCode::Bounds,
             fmt::format("dimension {}: offset {} and size {} leave the source view's extent {}", i, o,
                         sz, src.shape[i]));
      v->off += o * src.stride[i];
      v->shape[i] = sz;
    }
    check_static_dims(n.type, v->shape, v->rank, "partition sizes");
    slot(n.res[0]).view = std::move(v);
  }

  // A tile object of type t and valid shape vr x vc, its storage not yet set.
  std::shared_ptr<TileObj> tile_of(const TileT& t, int vr, int vc) {
    auto obj = std::make_shared<TileObj>();
    TileDesc& d = obj->d;
    d.dtype = t.dtype;
    d.loc = t.loc;
    d.row_major = t.row_major;
    d.slayout = t.slayout;
    d.fractal = t.fractal;
    d.pad = t.pad;
    d.rows = t.rows;
    d.cols = t.cols;
    d.valid_row = vr;
    d.valid_col = vc;
    if (t.rows <= 0 || t.cols <= 0 || t.rows > (1 << 16) || t.cols > (1 << 16))
      fail(ErrorCode::Bounds,
           fmt::format("tile shape must be 1..65536 in each dimension, got {}x{}", t.rows, t.cols));
    return obj;
  }

  std::shared_ptr<TileObj> new_tile(const TileT& t, int vr, int vc, const std::string& name,
                                    const char* who) {
    auto obj = tile_of(t, vr, vc);
    TileDesc& d = obj->d;
    if (d.bytes() > (size_t(1) << 28))
      fail(ErrorCode::Bounds,
           fmt::format("tile of {} bytes exceeds the 256 MiB limit of a program tile", d.bytes()));
    if (live_ + d.bytes() > opts_.max_mem)
      fail(ErrorCode::Bounds,
           fmt::format("allocating {} bytes for '%{}' exceeds max_mem = {} bytes ({} live)", d.bytes(),
                       name, opts_.max_mem, live_));
    obj->store = std::make_shared<Storage>();
    obj->store->bytes.assign(d.bytes(), 0);
    obj->store->live = &live_;
    live_ += d.bytes();
    d.data = obj->store->bytes.data();
    d.capacity = d.bytes();
    check_tile(d, who, "%" + name);
    return obj;
  }

  void alloc(const Node& n) {
    const TileT& t = n.type.tile;
    int vr = t.vr, vc = t.vc;
    const auto dyn = [&](int idx, int extent, const char* what) {
      const int64_t v = sval(n.in[size_t(idx)]);
      if (v < 0 || v > extent)
        fail(ErrorCode::Bounds, fmt::format("{} = {} is outside [0, {}]", what, v, extent));
      return int(v);
    };
    if (n.vrow >= 0) vr = dyn(n.vrow, t.rows, "valid_row");
    if (n.vcol >= 0) vc = dyn(n.vcol, t.cols, "valid_col");
    if (n.addr >= 0) {
      slot(n.res[0]).tile = placed_tile(t, vr, vc, sval(n.in[size_t(n.addr)]), n.rname);
      return;
    }
    slot(n.res[0]).tile = new_tile(t, vr, vc, n.rname, "pto.alloc_tile");
  }

  // alloc_tile addr = %a: a manual-mode tile, a view of its location's buffer at byte address a
  // (TASSIGN's rules: 32-byte aligned, inside the buffer). Tiles at overlapping addresses share
  // bytes, as on the chip; the buffers are zero-filled when the run starts, not per allocation.
  std::shared_ptr<TileObj> placed_tile(const TileT& t, int vr, int vc, int64_t addr,
                                       const std::string& name) {
    auto obj = tile_of(t, vr, vc);
    TileDesc& d = obj->d;
    const Ub buf = buffer_of(t.loc, name);
    d.data = ub_bind(buf, target_, addr, d.bytes(), "pto.alloc_tile %" + name, buffer_name(t.loc));
    d.capacity = d.bytes();
    d.ub_addr = addr;
    d.ub = buf.base;
    check_tile(d, "pto.alloc_tile", "%" + name);
    return obj;
  }

  // The run's buffer of a tile location: the UB, L1, L0A, L0B, L0C or the bias table, each of the
  // target's size, zero-filled at its first use.
  Ub buffer_of(uint8_t loc, const std::string& name) {
    if (loc == kLocVec) return ub_;
    size_t size = 0;
    switch (loc) {
      case kLocMat: size = target_.l1_bytes; break;
      case kLocLeft: size = target_.l0a_bytes; break;
      case kLocRight: size = target_.l0b_bytes; break;
      case kLocAcc: size = target_.l0c_bytes; break;
      case kLocBias: size = target_.bias_bytes; break;
      default:
        fail(ErrorCode::Unsupported,
             fmt::format("pto.alloc_tile %{}: addr = is not supported for this location (no "
                         "manual-mode buffer: Scaling, ScaleLeft, ScaleRight)",
                         name));
    }
    std::vector<uint8_t>& b = loc_bytes_[loc];
    if (b.empty()) b.assign(size, 0);
    return Ub{b.data(), b.size()};
  }

  // pto.set_validshape: the tile's valid shape from now on (its dynamic v_row/v_col).
  void set_valid(const Node& n) {
    TileObj* t = slot(n.in[0].slot).tile.get();
    if (t == nullptr) fail(ErrorCode::Constraint, fmt::format("%{} is not a tile", n.in[0].name));
    const int64_t vr = sval(n.in[1]), vc = sval(n.in[2]);
    if (vr < 0 || vr > t->d.rows || vc < 0 || vc > t->d.cols)
      fail(ErrorCode::Bounds, fmt::format("pto.set_validshape %{}: valid shape {}x{} is outside the "
                                          "tile's {}x{}",
                                          n.in[0].name, vr, vc, t->d.rows, t->d.cols));
    t->d.valid_row = int(vr);
    t->d.valid_col = int(vc);
  }

  // A scalar operand as a code of `owner` (the tile's dtype): a value of that type is taken as
  // is; another float is rounded once (RNE), an integer must fit (docs/pto.md#funcfunc-files).
  uint64_t code_of(const Opnd& o, Elem owner, const char* who) {
    if (o.slot < 0) return fe::scalar_code(o.literal, owner, who);
    const Ty& t = type_of(o.slot);
    const uint64_t b = slot(o.slot).bits;
    if (t.k == Ty::Float) {
      if (t.elem == owner) return b;
      if (!elem_is_float(owner))
        fail(ErrorCode::Constraint,
             fmt::format("{}: the {} scalar '%{}' cannot be read as {}", who, t.text, o.name,
                         elem_name(owner)));
      return fe::scalar_code(fmt::format("{:a}", formats::decode(b, fmt_of(t.elem))), owner, who);
    }
    return fe::scalar_code(std::to_string(sval(o)), owner, who);
  }

  int64_t int_of(const Opnd& o) {
    if (o.slot >= 0) return sval(o);
    return int64_t(fe::scalar_code(o.literal, Elem::s64, "index"));
  }

  GmLayout infer_layout(const GmView& v, const TileDesc& t) const {
    int64_t sh[5], st[5];
    right_align(v.brank, v.bshape, v.bstride, sh, st);
    if (sh[2] == 16 && sh[2] * sh[3] * int64_t(elem_size(v.elem)) == 512 && st[4] == 1 &&
        st[3] == sh[4])
      return GmLayout::NZ;
    const int64_t rows = sh[3], cols = sh[4], rs = st[3], cs = st[4];
    const bool nd = (cols == 1 || cs == 1) && (rows == 1 || (cols == 1 ? rs == 1 : rs == cols));
    const bool dn = (rows == 1 || rs == 1) && (cols == 1 || (rows == 1 ? cs == 1 : cs == rows));
    if (nd && dn) {  // one row or one column: the tile's layout decides (spec 21 §3)
      if (t.slayout == kSLayoutNoneBox) return t.row_major ? GmLayout::ND : GmLayout::DN;
      return cols == 1 && rows != 1 ? GmLayout::DN : GmLayout::ND;
    }
    return dn ? GmLayout::DN : GmLayout::ND;
  }

  GmDesc gm_of(const Node& n, const GmView& v, const TileDesc& t) {
    GmDesc g;
    g.dtype = v.elem;
    right_align(v.rank, v.shape, v.stride, g.shape, g.stride);
    const int layout = n.layout >= 0 ? n.layout : v.layout;
    g.layout = layout >= 0 ? GmLayout(layout) : infer_layout(v, t);
    npy::Array& a = gm_[size_t(v.buf)];
    const size_t off = size_t(v.off) * elem_size(v.elem);
    if (off >= a.data.size())
      fail(ErrorCode::Bounds, fmt::format("the view starts at element {}, past the end of its array "
                                          "({} bytes)", v.off, a.data.size()));
    g.data = a.data.data() + off;
    g.extent = a.data.size() - off;
    return g;
  }

  void instr(const Node& n) {
    const char* pat = n.pattern;
    const auto tile_at = [&](char letter) -> TileObj* {
      for (size_t i = 0; pat[i]; ++i)
        if (pat[i] == letter) return slot(n.in[i].slot).tile.get();
      return nullptr;
    };
    const auto opnd_at = [&](char letter) -> const Opnd* {
      for (size_t i = 0; pat[i]; ++i)
        if (pat[i] == letter) return &n.in[i];
      return nullptr;
    };
    const auto desc = [&](char letter) -> const TileDesc* {
      TileObj* t = tile_at(letter);
      return t ? &t->d : nullptr;
    };
    const Kind k = n.is_rowexpand ? Kind::Binary : n.info->kind;
    // the destination
    std::shared_ptr<TileObj> result;
    TileObj* dst = nullptr;
    if (n.ssa) {
      TileT ty = n.type.tile;
      const TileObj* s0 = tile_at('a');
      if (k == Kind::Reshape && s0) {  // a new view of src's bytes (the tiles share storage)
        result = std::make_shared<TileObj>(*s0);
        TileDesc& d = result->d;
        d.dtype = ty.dtype, d.loc = ty.loc, d.row_major = ty.row_major, d.slayout = ty.slayout;
        d.fractal = ty.fractal, d.pad = ty.pad, d.rows = ty.rows, d.cols = ty.cols;
        d.valid_row = ty.vr < 0 ? ty.rows : ty.vr;
        d.valid_col = ty.vc < 0 ? ty.cols : ty.vc;
        if (s0->store) d.capacity = std::min(d.capacity, s0->store->bytes.size());
        if (d.bytes() > d.capacity)
          fail(ErrorCode::Constraint,
               fmt::format("TRESHAPE: dst ({} bytes) and src ({} bytes) must have the same size",
                           d.bytes(), s0->d.bytes()));
      } else {
        int vr = ty.vr < 0 ? ty.rows : ty.vr, vc = ty.vc < 0 ? ty.cols : ty.vc;
        if ((ty.vr < 0 || ty.vc < 0) && s0 && !n.is_rowexpand) {
          const TileObj* s1 = tile_at('b');
          const int extent = k == Kind::RowExpand ? ty.cols : k == Kind::ColExpand ? ty.rows : -1;
          try {
            const fe::DstSpec d = fe::default_dst(*n.info, target_, s0->d, s1 ? &s1->d : nullptr,
                                                  extent, ty.dtype);
            if (ty.vr < 0 && d.valid_row <= ty.rows) vr = d.valid_row;
            if (ty.vc < 0 && d.valid_col <= ty.cols) vc = d.valid_col;
          } catch (const Error&) {  // kinds without a default: the static extent
          }
        }
        result = new_tile(ty, vr, vc, n.rname, n.name.c_str());
      }
      dst = result.get();
    } else if (k != Kind::Store) {
      dst = slot(n.outs[0].slot).tile.get();
    }
    if (n.is_rowexpand) {
      row_expand(n.rop, dst->d, *desc('a'), *desc('b'), desc('t'), target_, ub_, Path::Fast,
                 {file_.c_str(), uint32_t(n.pos.line), uint32_t(n.pos.col)}, !prog_.has_sync);
      if (result) slot(n.res[0]).tile = result;
      return;
    }
    Call c;
    c.instr = n.info->id;
    c.src0 = desc('a');
    c.src1 = desc('b');
    c.mask = desc('m');
    c.tmp = desc('t');
    c.bias = desc('x');
    c.cmp = n.cmp;
    c.round = n.round;
    c.sat = n.sat;
    c.is_binary = n.is_binary;
    c.pattern = n.mask_pattern;
    c.relu = n.relu;
    c.atomic = n.atomic;
    if (const TileDesc* ci = desc('c')) c.acc_in = ci;
    if (k == Kind::MatmulAcc && !c.acc_in) c.acc_in = &dst->d;  // (c, a, b): accumulate in place
    if ((k == Kind::RowArg || k == Kind::ColArg) && n.outs.size() == 2) {
      c.dst = &dst->d;
      c.dst_idx = &slot(n.outs[1].slot).tile->d;
    } else if (k == Kind::RowArg || k == Kind::ColArg) {
      c.dst_idx = &dst->d;
    } else if (dst) {
      c.dst = &dst->d;
    }
    if (const Opnd* s = opnd_at('s')) {
      const Elem owner = fe::scalar_is_dst_dtype(k) ? dst->d.dtype : c.src0->dtype;
      c.scalar = code_of(*s, owner, n.info->name);
      c.scalar_first = pat[0] == 's' && pat[1] == 'a';
    }
    const auto index16 = [&](const Opnd& o, const char* what) {
      const int64_t v = int_of(o);
      if (v < 0 || v > 65535)
        fail(ErrorCode::Constraint, fmt::format("TEXTRACT: {} = {} is outside [0, 65535]", what, v));
      return uint16_t(v);
    };
    if (const Opnd* i = opnd_at('i')) c.index_row = index16(*i, "indexRow");
    if (const Opnd* j = opnd_at('j')) c.index_col = index16(*j, "indexCol");
    if (const Opnd* q = opnd_at('q')) {
      c.has_quant = true;
      c.quant = uint64_t(int_of(*q));
    }
    GmDesc g;
    if (const Opnd* v = opnd_at('g')) {
      g = gm_of(n, *slot(v->slot).view, dst->d);
      c.gm = &g;
    } else if (k == Kind::Store) {
      g = gm_of(n, *slot(n.outs[0].slot).view, *c.src0);
      c.gm = &g;
    }
    // The reductions without a tmp operand get a scratch one (fe::needs_scratch_tmp).
    std::vector<uint8_t> scratch;
    TileDesc scratch_desc;
    if (!c.tmp && fe::needs_scratch_tmp(k) && c.src0) {
      const fe::DstSpec sp = fe::scratch_tmp(*c.src0);
      scratch_desc.dtype = sp.dtype;
      scratch_desc.rows = sp.rows;
      scratch_desc.cols = sp.cols;
      scratch_desc.valid_row = sp.valid_row;
      scratch_desc.valid_col = sp.valid_col;
      scratch.assign(scratch_desc.bytes(), 0);
      scratch_desc.data = scratch.data();
      scratch_desc.capacity = scratch.size();
      c.tmp = &scratch_desc;
    }
    c.site = {file_.c_str(), uint32_t(n.pos.line), uint32_t(n.pos.col)};
    c.auto_sync = !prog_.has_sync;
    execute(c, target_, ub_);
    if (result) slot(n.res[0]).tile = result;
  }

  const Program& prog_;
  const Func* fn_;  // the function running now, whose slot types frame_'s slots have
  std::string file_;
  const Target& target_;
  const RunOptions& opts_;
  std::vector<npy::Array>& gm_;
  std::vector<uint8_t> ub_bytes_;
  Ub ub_;
  std::array<std::vector<uint8_t>, 6> loc_bytes_;  // L1, L0A, L0B, L0C, bias (by location)
  size_t live_ = 0;  // declared before the frames: tiles release their bytes into it
  uint64_t ops_ = 0;
  int depth_ = 0;  // calls active now
  int nest_ = 0;   // regions running now, across calls
  std::vector<Val> entry_slots_;
  std::vector<Val>* frame_;
};

Program parse(std::string_view text, std::string_view file) {
  return Parser(text, std::string(file)).parse_module();
}

// The kernel is what the host launches: its arguments are bound from arrays and values, and its
// outputs are its !pto.ptr arguments, so it takes only those and returns nothing.
const Func& check_entry(const Func& f, std::string_view file) {
  const auto at = [&](Pos p) { return fmt::format("{}:{}:{}", file, p.line, p.col); };
  for (const Param2& q : f.params)
    if (!q.type.scalar() && q.type.k != Ty::Ptr)
      raise(ErrorCode::Parse, at(q.type_pos),
            fmt::format("the entry function @{}'s argument '%{}' is {}: a kernel argument is a "
                        "!pto.ptr<T> or a scalar (f16 bf16 f32 i1 i8 ... index)",
                        f.name, q.name, q.type.text),
            kDoc);
  if (!f.results.empty())
    raise(ErrorCode::Parse, at(f.results_pos),
          fmt::format("the entry function @{} returns nothing (its outputs are its !pto.ptr "
                      "arguments); only a function it calls returns values",
                      f.name),
          kDoc);
  return f;
}

// The named function; without a name the one marked {pto.entry}, else the module's first.
const Func& pick(const Program& p, std::string_view entry, std::string_view file) {
  std::string names;
  for (const Func& f : p.funcs) names += (names.empty() ? "@" : ", @") + f.name;
  if (entry.empty()) {
    const Func* marked = nullptr;
    for (const Func& f : p.funcs)
      if (f.entry_attr) {
        if (marked)
          raise(ErrorCode::Constraint, std::string(file),
                fmt::format("@{} and @{} are both marked pto.entry: name the entry", marked->name,
                            f.name),
                kDoc);
        marked = &f;
      }
    return check_entry(marked ? *marked : p.funcs.front(), file);
  }
  for (const Func& f : p.funcs)
    if (f.name == entry) return check_entry(f, file);
  raise(ErrorCode::Constraint, std::string(file),
        fmt::format("entry '{}' is not a func.func of the file (it has {})", entry, names), kDoc);
}

// A scalar argument from a bound array of one element (Python / --in) or text (--arg).
uint64_t bind_scalar(const Param2& p, const npy::Array* a, const std::string* text,
                     const std::string& who) {
  const Ty& t = p.type;
  const auto bad = [&](const std::string& why) -> uint64_t {
    raise(ErrorCode::Constraint, who, fmt::format("scalar argument '%{}' ({}): {}", p.name, t.text, why),
          kDoc);
  };
  const bool is_i1 = t.k == Ty::Int && t.bits == 1;
  const int w = width_of(t);
  std::string lit;
  if (text) {
    lit = *text;
    if (is_i1 && (lit == "true" || lit == "false")) return lit == "true";
  } else {
    if (a->size() != 1)
      return bad(fmt::format("expects one value, got an array of {} elements", a->size()));
    const std::string& d = a->descr;
    const uint8_t* b = a->data.data();
    const char kind = d.size() >= 2 ? d[1] : '?';
    const size_t sz = a->itemsize();
    if (kind == 'b') {
      if (!is_i1) return bad("a bool binds an i1 argument only");
      return b[0] != 0;
    }
    if (t.k == Ty::Float && kind == 'f' && std::string(carrier_of(t.elem)) == d) {
      uint64_t code = 0;
      std::memcpy(&code, b, sz);
      return code;  // a NumPy float of the argument's type: taken as is
    }
    if (t.k == Ty::Float && t.elem == Elem::bf16 && d == "<u2") {
      uint16_t code;
      std::memcpy(&code, b, 2);
      return code;  // an unsigned integer is the code of a bit-carried type
    }
    if (kind == 'f') {
      if (t.k != Ty::Float) return bad(fmt::format("expects an integer, got a {} float", d));
      double v = 0;
      if (sz == 8) std::memcpy(&v, b, 8);
      else if (sz == 4) { float f; std::memcpy(&f, b, 4); v = f; }
      else { uint16_t h; std::memcpy(&h, b, 2); v = formats::decode(h, formats::DType::fp16); }
      lit = fmt::format("{:a}", v);
    } else if (kind == 'i' || kind == 'u') {
      if (sz > 8 || sz == 0) return bad("unsupported integer array");
      uint64_t raw = 0;
      std::memcpy(&raw, b, sz);
      if (kind == 'i') {
        const int64_t sv = as_signed(raw, int(sz * 8));
        lit = std::to_string(sv);
      } else {
        lit = std::to_string(raw);
      }
    } else {
      return bad(fmt::format("cannot bind an array of dtype '{}'", d));
    }
  }
  try {
    if (t.k == Ty::Float) return fe::scalar_code(lit, t.elem, who);
    if (is_i1) {
      if (lit == "0" || lit == "1") return lit == "1";
      return bad(fmt::format("an i1 is true, false, 0 or 1, got '{}'", lit));
    }
    if (!lit.empty() && lit[0] == '-' && t.uns) return bad(fmt::format("{} is negative", lit));
    if (!lit.empty() && lit[0] != '-' && (t.uns || t.k == Ty::Index)) {
      // unsigned spelling, or index: the value must fit the width as an unsigned number too
      const uint64_t c = fe::scalar_code(lit, int_elem(w, true), who);
      if (t.k == Ty::Index && c > uint64_t(std::numeric_limits<int64_t>::max()))
        return bad(fmt::format("{} does not fit index (int64)", lit));
      return c;
    }
    return fe::scalar_code(lit, int_elem(w, false), who) & mask_of(w);
  } catch (const Error& e) {
    if (std::string_view(e.what()).find("scalar argument") != std::string_view::npos) throw;
    return bad(e.what());
  }
}

}  // namespace

std::vector<Output> run_func(std::string_view text, std::string_view file, const RunOptions& o) {
  const Program p = parse(text, file);
  const Func& f = pick(p, o.entry, file);
  const std::string who = fmt::format("{}: @{}", file, f.name);
  // An explicit caller target wins over the file's; without either, a2a3 (spec 21 §3).
  const Target& t = !o.target.empty() ? find_target(o.target)
                    : !p.target.empty() ? find_target(p.target)
                                        : default_target();
  if (!o.valid.empty())
    raise(ErrorCode::Constraint, who, "valid= applies to .arg programs; a func.func file sets "
          "valid shapes with pto.alloc_tile valid_row/valid_col", kDoc);
  const auto known = [&](const std::string& n) {
    for (const Param2& q : f.params)
      if (q.name == n) return true;
    return false;
  };
  for (const auto& [name, arr] : o.inputs)
    if (!known(name))
      raise(ErrorCode::Constraint, who, fmt::format("input '{}' is not an argument of @{}", name, f.name), kDoc);
  for (const auto& [name, txt] : o.scalar_text)
    if (!known(name))
      raise(ErrorCode::Constraint, who, fmt::format("argument '{}' given, @{} has none of that name", name, f.name), kDoc);
  // Bind every argument before anything runs.
  std::vector<npy::Array> gm;
  std::vector<std::pair<int, uint64_t>> scalars;
  std::vector<std::pair<int, int>> ptrs;  // slot, array index
  for (const Param2& q : f.params) {
    const auto in = o.inputs.find(q.name);
    const auto txt = o.scalar_text.find(q.name);
    if (in == o.inputs.end() && txt == o.scalar_text.end())
      raise(ErrorCode::Constraint, who,
            fmt::format("argument '%{}' ({}) is not bound; every argument needs a value", q.name,
                        q.type.text),
            kDoc);
    if (in != o.inputs.end() && txt != o.scalar_text.end())
      raise(ErrorCode::Constraint, who, fmt::format("argument '%{}' is bound twice", q.name), kDoc);
    if (q.type.k == Ty::Ptr) {
      if (in == o.inputs.end())
        raise(ErrorCode::Constraint, who,
              fmt::format("argument '%{}' ({}) is bound to an array, not a value", q.name, q.type.text),
              kDoc);
      const std::string want = carrier_of(q.type.elem);
      if (in->second.descr != want)
        raise(ErrorCode::Constraint, who,
              fmt::format("argument '%{}' ({}) needs an array of dtype '{}', got '{}' (the carriers of "
                          "docs/formats.md#dtype-names)",
                          q.name, q.type.text, want, in->second.descr),
              kDoc);
      ptrs.push_back({q.slot, int(gm.size())});
      gm.push_back(in->second);
    } else {
      scalars.push_back({q.slot, bind_scalar(q, in == o.inputs.end() ? nullptr : &in->second,
                                             txt == o.scalar_text.end() ? nullptr : &txt->second,
                                             who)});
    }
  }
  Machine m(p, f, std::string(file), t, o, gm);
  for (const auto& [s, a] : ptrs) m.slot(s).bits = uint64_t(a);
  for (const auto& [s, v] : scalars) m.slot(s).bits = v;
  // One run is one kernel for the hazard checker: its flags are checked at the end, its shadow
  // state forgotten (the next run's buffers may reuse these addresses).
  struct KernelScope {
    std::string file;
    KernelScope(std::string_view f) : file(f) {
      if (sync::on()) {
        sync::end_kernel();
        sync::set_model(sync::Model::PtoAs);
      }
    }
    ~KernelScope() {
      if (sync::on()) sync::end_kernel({file.c_str(), 0, 0});
    }
  } scope(file);
  m.run();
  std::vector<Output> out;
  size_t k = 0;
  for (const Param2& q : f.params)
    if (q.type.k == Ty::Ptr) {
      Output x;
      x.name = q.name;
      x.dtype = elem_name(q.type.elem);
      x.array = std::move(gm[k++]);
      out.push_back(std::move(x));
    }
  return out;
}

std::vector<Param> func_parameters(std::string_view text, std::string_view file,
                                   std::string_view entry) {
  const Program p = parse(text, file);
  const Func& f = pick(p, entry, file);
  std::vector<Param> out;
  for (const Param2& q : f.params) {
    Param x;
    x.name = q.name;
    x.type = q.type.text;
    x.is_ptr = q.type.k == Ty::Ptr;
    x.elem = x.is_ptr ? std::string(elem_name(q.type.elem)) : q.type.text;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace tilesim::pto::as::detail

namespace tilesim::pto::as {

bool is_func_file(std::string_view text) {
  size_t p = 0;
  while (p < text.size()) {
    const size_t e = std::min(text.find('\n', p), text.size());
    std::string_view l = text.substr(p, e - p);
    p = e + 1;
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t' || l.front() == '\r')) l.remove_prefix(1);
    if (l.empty() || l.substr(0, 2) == "//" || l.front() == '#' || l.substr(0, 7) == ".target")
      continue;
    return l.substr(0, 6) == "module" || l.substr(0, 9) == "func.func";
  }
  return false;
}

std::vector<Param> parameters(std::string_view text, std::string_view filename,
                              std::string_view entry) {
  return detail::func_parameters(text, filename, entry);
}

}  // namespace tilesim::pto::as
