// Comparing a result with an expectation (docs/cli.md#expect): the one implementation behind
// `tilesim run --expect` and Python `tilesim.compare`. Arrays are .npy-shaped (spec 60 §2
// carriers): float16/32/64 compared as values (or bits), integers (and the uint codes of bf16, fp8,
// ...) as integers.
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include "tilesim/error.hpp"  // tilesim::Error, what tilesim calls throw (issue 21 §5)
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tilesim/npy.hpp"

namespace tilesim {

struct CompareOptions {
  double rtol = 0;    // |got - want| <= atol + rtol * |want| (floats and integers)
  double atol = 0;
  bool bits = false;  // equal bit patterns only (+0 != -0, NaN payloads differ)
  size_t keep = 8;    // mismatches kept in CompareReport::first
};

struct Mismatch {
  size_t flat = 0;                // C-order element index
  std::vector<size_t> index;      // its multi-index
  double got = 0, want = 0;       // the values (integers converted; exact up to 2^53)
  uint64_t got_bits = 0, want_bits = 0;
  bool has_ulp = false;           // false when a NaN is involved
  uint64_t ulp = 0;               // distance in units in the last place (integers: |got - want|)
};

struct CompareReport {
  std::string descr;              // the arrays' .npy descr
  std::vector<size_t> shape;
  size_t count = 0;               // elements compared
  size_t mismatches = 0;
  size_t nan_got = 0, nan_want = 0;
  uint64_t max_ulp = 0;           // over the mismatches with a ulp distance
  CompareOptions options;
  std::vector<Mismatch> first;    // the first options.keep mismatches
  bool ok() const { return mismatches == 0; }
  // "N of M elements differ (rtol R, atol A)" then one line per kept mismatch:
  // "  [i, j]  got V (0xBITS)  want V (0xBITS)  ulp D"; "all M elements match ..." when ok.
  std::string text(const std::string& name = "") const;
};

// Raises Error(Constraint) when the dtypes or shapes differ (naming both) or a tolerance is
// negative or NaN; Error(Unsupported) for a descr that is not a number.
CompareReport compare(const npy::Array& got, const npy::Array& want, const CompareOptions& options = {});

}  // namespace tilesim
