// The printf engine of the debug prints and their output (docs/ascendc.md#debug-prints).
//
// A format is walked once: each conversion is parsed, checked against its argument's type and
// then formatted by itself with snprintf, from a conversion spec rebuilt here and an argument of
// exactly the type that spec names. So no format string, however malformed, reaches the C library
// with arguments that do not match it: what C leaves undefined (a conversion without an argument,
// a mismatched type, '#' on %d, a precision on %c or %p, %n) is an error instead.
//
// Integers print C's way: an argument narrower than int is promoted to int, `hh` and `h` narrow
// the value as C does, and the other length modifiers (l ll j z t) are accepted and change nothing:
// the argument's own width decides, so a 64-bit value prints in full under %d as on the device
// (the vendor's NPU prints 64 bits, its CPU twin's C printf would print 32,
// docs/ascendc.md#debug-prints).
#include "core/debug_print.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#include "tilesim/error.hpp"

namespace tilesim::debug {

namespace {

constexpr int kMaxWidth =
    4096;  // width and precision: larger ones are an error, not 1 GB of spaces

// The format as the message shows it: escapes for control characters, cut after 120 characters.
std::string shown(const char* fmt) {
  std::string s;
  size_t n = 0;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(fmt); *p; ++p, ++n) {
    if (n == 120) {
      s += "...";
      break;
    }
    if (*p == '\n')
      s += "\\n";
    else if (*p == '\t')
      s += "\\t";
    else if (*p == '"')
      s += "\\\"";
    else if (*p == '\\')
      s += "\\\\";
    else if (*p < 0x20 || *p == 0x7F) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02X", *p);
      s += b;
    } else {
      s += static_cast<char>(*p);
    }
  }
  return s;
}

enum class Len : uint8_t { none, hh, h, l, ll, j, z, t, L };
const char* len_text(Len l) {
  static const char* const k[] = {"", "hh", "h", "l", "ll", "j", "z", "t", "L"};
  return k[static_cast<int>(l)];
}

struct Conv {
  int number = 0;    // 1-based, in the format
  std::string text;  // as written, "%-08.3lx"
  std::string flags;
  int width = -1;      // -1: none
  int precision = -1;  // -1: none
  Len len = Len::none;
  char c = 0;
};

class Formatter {
 public:
  Formatter(std::string_view api, const char* fmt, std::span<const Arg> args, std::string_view docs)
      : api_(api), fmt_(fmt), args_(args), docs_(docs) {}

  std::string run() {
    std::string out;
    const char* p = fmt_;
    int number = 0;
    while (*p) {
      const char* pct = std::strchr(p, '%');
      if (!pct) {
        out.append(p);
        break;
      }
      out.append(p, static_cast<size_t>(pct - p));
      if (pct[1] == '%') {
        out += '%';
        p = pct + 2;
        continue;
      }
      Conv cv;
      cv.number = ++number;
      p = parse(pct, cv);
      emit(cv, out);
    }
    if (next_ != args_.size())
      fail("it has " + std::to_string(number) + " conversion(s) taking " + std::to_string(next_) +
           " argument(s), but " + std::to_string(args_.size()) + " argument(s) were given");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& detail) const {
    raise(ErrorCode::Constraint, api_, "format \"" + shown(fmt_) + "\": " + detail, docs_);
  }
  [[noreturn]] void fail(const Conv& cv, const std::string& detail) const {
    fail("conversion " + std::to_string(cv.number) + " `" + cv.text + "` " + detail);
  }

  const Arg& take(const Conv& cv, const char* role) {
    if (next_ >= args_.size())
      fail(cv, std::string("needs ") + role + " argument " + std::to_string(next_ + 1) +
                   ", but only " + std::to_string(args_.size()) + " argument(s) were given");
    return args_[next_++];
  }

  // The value of an int argument of '*' (width or precision), as C's int.
  int star(Conv& cv, const char* role) {
    const Arg& a = take(cv, role);
    if (a.kind != Arg::Kind::Int)
      fail(cv, std::string("takes its ") + role + " from an int argument, but argument " +
                   std::to_string(next_) + " is " + a.type);
    const int64_t v = a.is_signed ? static_cast<int64_t>(a.bits)
                                  : static_cast<int64_t>(a.bits & 0x7FFFFFFFFFFFFFFF);
    if (v > kMaxWidth || v < -kMaxWidth)
      fail(cv, std::string("has ") + role + " " + std::to_string(v) + " (argument " +
                   std::to_string(next_) + "), beyond the largest tilesim prints, " +
                   std::to_string(kMaxWidth));
    return static_cast<int>(v);
  }

  int digits(const char*& p, Conv& cv, const char* role) {
    int64_t v = 0;
    while (*p >= '0' && *p <= '9') {
      v = v * 10 + (*p++ - '0');
      if (v > kMaxWidth) {
        fail("conversion " + std::to_string(cv.number) + " has a " + role +
             " larger than the largest tilesim prints, " + std::to_string(kMaxWidth));
      }
    }
    return static_cast<int>(v);
  }

  // Parses the conversion at `pct` into cv; returns the position after it. Star arguments are
  // taken here, in C's order (width, precision, then the value).
  const char* parse(const char* pct, Conv& cv) {
    const char* p = pct + 1;
    while (*p && std::strchr("-+ #0", *p)) {
      if (cv.flags.find(*p) == std::string::npos) cv.flags += *p;
      ++p;
    }
    bool star_w = false, star_p = false;
    if (*p == '*') {
      star_w = true;
      ++p;
    } else {
      cv.width = *p >= '0' && *p <= '9' ? digits(p, cv, "width") : -1;
    }
    if (*p == '.') {
      ++p;
      if (*p == '*') {
        star_p = true;
        ++p;
      } else {
        cv.precision = digits(p, cv, "precision");
      }
    }
    if (p[0] == 'h' && p[1] == 'h')
      cv.len = Len::hh, p += 2;
    else if (p[0] == 'l' && p[1] == 'l')
      cv.len = Len::ll, p += 2;
    else if (*p == 'h')
      cv.len = Len::h, ++p;
    else if (*p == 'l')
      cv.len = Len::l, ++p;
    else if (*p == 'j')
      cv.len = Len::j, ++p;
    else if (*p == 'z')
      cv.len = Len::z, ++p;
    else if (*p == 't')
      cv.len = Len::t, ++p;
    else if (*p == 'L')
      cv.len = Len::L, ++p;
    cv.c = *p;
    cv.text.assign(pct, static_cast<size_t>(p - pct) + (*p ? 1 : 0));
    if (!*p) fail("ends inside conversion " + std::to_string(cv.number) + " `" + cv.text + "`");
    ++p;
    if (star_w) {
      const int w = star(cv, "width");
      if (w < 0 && cv.flags.find('-') == std::string::npos) cv.flags += '-';
      cv.width = w < 0 ? -w : w;
    }
    if (star_p) {
      const int pr = star(cv, "precision");
      cv.precision = pr < 0 ? -1 : pr;
    }
    return p;
  }

  // The spec snprintf gets: flags, width, precision as parsed, then `len` and the conversion.
  static std::string spec(const Conv& cv, const char* len, char c) {
    std::string s(1, '%');
    s.append(cv.flags);
    if (cv.width >= 0) s.append(std::to_string(cv.width));
    if (cv.precision >= 0) s.append(1, '.').append(std::to_string(cv.precision));
    s.append(len);
    s.push_back(c);
    return s;
  }

  template <class V>
  void print(std::string& out, const std::string& sp, V v) {
    const int n = std::snprintf(nullptr, 0, sp.c_str(), v);
    if (n < 0) fail("snprintf failed on `" + sp + "`");
    const size_t at = out.size();
    out.resize(at + static_cast<size_t>(n) + 1);
    std::snprintf(out.data() + at, static_cast<size_t>(n) + 1, sp.c_str(), v);
    out.resize(at + static_cast<size_t>(n));
  }

  void no_flag(const Conv& cv, char f, const char* why) const {
    if (cv.flags.find(f) != std::string::npos)
      fail(cv, std::string("has the '") + f + "' flag, " + why);
  }

  void emit(Conv& cv, std::string& out) {
    const char c = cv.c;
    const bool integer = std::strchr("diouxX", c) != nullptr;
    const bool floating = std::strchr("fFeEgGaA", c) != nullptr;
    if (c == 'n') fail(cv, "writes through a pointer; tilesim does not support %n");
    if (!integer && !floating && c != 'c' && c != 's' && c != 'p') {
      const unsigned char u = static_cast<unsigned char>(c);
      char b[8];
      if (u < 0x20 || u >= 0x7F)
        std::snprintf(b, sizeof b, "\\x%02X", u);
      else
        b[0] = c, b[1] = 0;
      fail(cv, std::string("has the unknown conversion character '") + b +
                   "' (tilesim prints d i u o x X c s p f F e E g G a A and %%)");
    }
    if (cv.flags.find('#') != std::string::npos && !floating && !std::strchr("oxX", c))
      fail(cv, "has the '#' flag, which only o x X and the floating-point conversions take");
    if (c == 'c' || c == 's' || c == 'p') no_flag(cv, '0', "which c s p do not take");
    if ((c == 'c' || c == 'p') && cv.precision >= 0)
      fail(cv, "has a precision, which c and p do not take");
    if ((c == 'c' || c == 's' || c == 'p') && cv.len != Len::none)
      fail(cv, std::string("has the length modifier '") + len_text(cv.len) +
                   "' (wide characters and strings are not supported)");
    if (integer && cv.len == Len::L)
      fail(cv, "has the length modifier 'L', which is for floating-point conversions");
    if (floating && cv.len != Len::none && cv.len != Len::l && cv.len != Len::L)
      fail(cv, std::string("has the length modifier '") + len_text(cv.len) +
                   "', which is for integer conversions");

    const Arg& a = take(cv, "a value");
    const std::string argn = "argument " + std::to_string(next_);
    if (integer || c == 'c') {
      if (a.kind != Arg::Kind::Int)
        fail(cv, std::string("takes an integer (or bool), but ") + argn + " is " + a.type);
      unsigned w = a.bytes < 4 ? 32u : a.bytes * 8u;  // C's promotion to int
      if (cv.len == Len::hh) w = 8;
      if (cv.len == Len::h) w = 16;
      if (c == 'c') w = 8;
      uint64_t v = w == 64 ? a.bits : a.bits & ((uint64_t{1} << w) - 1);
      if (c == 'c') return print(out, spec(cv, "", 'c'), static_cast<int>(v));
      if (c == 'd' || c == 'i') {
        if (w < 64 && (v >> (w - 1)) & 1) v |= ~uint64_t{0} << w;  // sign-extend from w bits
        return print(out, spec(cv, "ll", c), static_cast<long long>(v));
      }
      return print(out, spec(cv, "ll", c), static_cast<unsigned long long>(v));
    }
    if (floating) {
      if (a.kind != Arg::Kind::Float)
        fail(cv,
             std::string("takes a floating-point value (float, double, half, bfloat16_t), but ") +
                 argn + " is " + a.type);
      return print(out, spec(cv, "", c), a.value);
    }
    if (c == 's') {
      if (a.kind != Arg::Kind::String)
        fail(cv, std::string("takes a C string (char*), but ") + argn + " is " + a.type);
      // A null string prints "(null)", as the vendor's CPU twin (glibc printf) does.
      return print(out, spec(cv, "", 's'), a.ptr ? static_cast<const char*>(a.ptr) : "(null)");
    }
    if (a.kind != Arg::Kind::Pointer && a.kind != Arg::Kind::String)
      fail(cv, std::string("takes a pointer, but ") + argn + " is " + a.type);
    print(out, spec(cv, "", 'p'), a.ptr);
  }

  std::string_view api_;
  const char* fmt_;
  std::span<const Arg> args_;
  std::string_view docs_;
  size_t next_ = 0;
};

thread_local const Block* t_block = nullptr;

}  // namespace

std::string format(std::string_view api, const char* fmt, std::span<const Arg> args,
                   std::string_view docs) {
  if (!fmt) raise(ErrorCode::Constraint, api, "the format string is a null pointer", docs);
  return Formatter(api, fmt, args, docs).run();
}

const Block* current_block() noexcept {
  return t_block;
}

BlockScope::BlockScope(int64_t index, int64_t count, std::string* out) noexcept
    : block_{index, count, out}, saved_(t_block) {
  t_block = &block_;
}
BlockScope::~BlockScope() {
  t_block = saved_;
}

void write_stdout(std::string_view text) {
  if (text.empty()) return;
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void write(std::string_view text) {
  if (t_block && t_block->out)
    t_block->out->append(text);
  else
    write_stdout(text);
}

std::string prefix_lines(std::string_view text, std::string_view prefix) {
  std::string out;
  out.reserve(text.size() + prefix.size() * 4);
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    const size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    out.append(prefix).append(text.substr(at, end - at));
    at = end;
  }
  return out;
}

}  // namespace tilesim::debug
