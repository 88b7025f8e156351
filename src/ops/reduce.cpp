// Reduction nodes (spec 15 §3): every node is one application of the op table's definition, so
// a sum node rounds to T exactly as an element-wise add does.
#include "ops/reduce.hpp"

#include <vector>

#include "ops/elementwise.hpp"

namespace tilesim::ops {

uint64_t tree_reduce(Op op, DType t, const void* x, size_t n) {
  std::vector<uint64_t> level(n);
  for (size_t i = 0; i < n; ++i) level[i] = load_code(t, x, i);
  while (level.size() > 1) {
    const size_t m = level.size();
    std::vector<uint64_t> next((m + 1) / 2);
    for (size_t k = 0; k < m / 2; ++k) next[k] = eval(op, t, level[2 * k], level[2 * k + 1]);
    if (m % 2) next.back() = level[m - 1];
    level.swap(next);
  }
  return level.empty() ? 0 : level[0];
}

uint64_t fold_reduce(Op op, DType t, const void* x, size_t n) {
  uint64_t r = load_code(t, x, 0);
  for (size_t i = 1; i < n; ++i) r = eval(op, t, r, load_code(t, x, i));
  return r;
}

size_t arg_reduce(Op op, DType t, const void* x, size_t n) {
  const Op better = op == Op::max ? Op::gt : Op::lt;
  size_t best = 0;
  uint64_t bv = load_code(t, x, 0);
  if (is_float_dtype(t) && eval(Op::ne, t, bv, bv)) return 0;  // NaN at index 0
  for (size_t i = 1; i < n; ++i) {
    const uint64_t v = load_code(t, x, i);
    if (is_float_dtype(t) && eval(Op::ne, t, v, v)) return i;  // first NaN wins
    if (eval(better, t, v, bv)) {
      best = i;
      bv = v;
    }
  }
  return best;
}

}  // namespace tilesim::ops
