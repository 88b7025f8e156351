// The trace of a run (docs/cli.md#trace): one JSON object per line per executed instruction, the
// same for every engine that traces. This is the writer: engines say what ran, on which operands,
// and hand over the values each destination holds after it; the summary (first values, min, max,
// NaN count) and, with values=true, the full contents of small destinations are made here.
#pragma once
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace tilesim::trace {

// Where a trace goes and how much it says; an engine traces when `out` is set.
struct Sink {
  std::ostream* out = nullptr;
  bool values = false;            // full contents of destinations of at most kMaxValues elements
  static constexpr size_t kMaxValues = 4096;
  size_t step = 0;                // the next line's "step"
};

// A JSON number, or a string for what JSON has no number for ("nan", "inf", "-inf").
std::string number(double v);
// A JSON string literal (quotes, escapes).
std::string quote(std::string_view s);
// [a, b, c] of integers.
std::string ints(const std::vector<long long>& v);

// A JSON object built in insertion order: add("k", raw_json).
class Object {
 public:
  Object& raw(std::string_view key, std::string_view json);
  Object& str(std::string_view key, std::string_view s) { return raw(key, quote(s)); }
  Object& num(std::string_view key, double v) { return raw(key, number(v)); }
  Object& integer(std::string_view key, long long v) { return raw(key, std::to_string(v)); }
  std::string text() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

// Summary fields of `count` values read by value(i) (in row-major order of the region written):
// "count", "first" (up to 8), "min", "max" (NaN ignored; absent when all are NaN), "nan", and
// "values" (all of them) when sink.values and count <= kMaxValues.
void summarize(Object& o, const Sink& sink, size_t count, const std::function<double(size_t)>& value);

// Writes one line {"step": n, ...fields of o} and advances the step.
void emit(Sink& sink, const Object& o);

}  // namespace tilesim::trace
