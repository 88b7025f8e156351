#include "core/trace.hpp"

#include <cmath>
#include <cstdio>

namespace tilesim::trace {

std::string number(double v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  // 9 significant digits round-trip every fp32/fp16/bf16 value (the engines' floats); integers
  // beyond 9 digits keep all of theirs.
  char b[40];
  std::snprintf(b, sizeof b, std::fabs(v) >= 1e9 && v == std::floor(v) ? "%.17g" : "%.9g", v);
  return b;
}

std::string quote(std::string_view s) {
  std::string q = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': q += "\\\""; break;
      case '\\': q += "\\\\"; break;
      case '\n': q += "\\n"; break;
      case '\t': q += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          q += b;
        } else {
          q += c;
        }
    }
  }
  return q + "\"";
}

std::string ints(const std::vector<long long>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

Object& Object::raw(std::string_view key, std::string_view json) {
  if (!body_.empty()) body_ += ", ";
  body_ += quote(key);
  body_ += ": ";
  body_ += json;
  return *this;
}

void summarize(Object& o, const Sink& sink, size_t count, const std::function<double(size_t)>& value) {
  std::string first = "[";
  size_t nan = 0;
  bool any = false;
  double lo = 0, hi = 0;
  const bool all = sink.values && count <= Sink::kMaxValues;
  std::string values = "[";
  for (size_t i = 0; i < count; ++i) {
    const double v = value(i);
    if (i < 8) first += (i ? ", " : "") + number(v);
    if (all) values += (i ? ", " : "") + number(v);
    if (std::isnan(v)) {
      ++nan;
      continue;
    }
    if (!any || v < lo) lo = v;
    if (!any || v > hi) hi = v;
    any = true;
  }
  o.integer("count", static_cast<long long>(count)).raw("first", first + "]");
  if (any) o.num("min", lo).num("max", hi);
  o.integer("nan", static_cast<long long>(nan));
  if (all) o.raw("values", values + "]");
}

void emit(Sink& sink, const Object& o) {
  if (!sink.out) return;
  std::string line = "{\"step\": " + std::to_string(sink.step++);
  const std::string body = o.text();
  if (body.size() > 2) line += ", " + body.substr(1, body.size() - 2);
  *sink.out << line << "}\n";
}

}  // namespace tilesim::trace
