// Reduction nodes (spec 15 §3): every node is one application of the op table's definition, so
// a sum node rounds to T exactly as an element-wise add does.
#include "ops/reduce.hpp"

#include <algorithm>
#include <cstring>
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
  if (n == 1 && is_float_dtype(t)) return eval(op, t, r, r);  // a lone NaN: canonical (spec 00)
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

namespace {
const uint8_t* row_at(const void* x, size_t stride, size_t r) {
  return static_cast<const uint8_t*>(x) + r * stride;
}

// One sum node: the add of the op table, saturated when asked.
uint64_t sum_node(DType t, uint64_t a, uint64_t b, bool sat) {
  const uint64_t c = eval(Op::add, t, a, b);
  return sat ? saturate_code(t, c) : c;
}

// The adjacent-pairs tree of w (a power of two) codes with saturating nodes.
uint64_t saturating_tree(DType t, const uint8_t* x, size_t w) {
  std::vector<uint64_t> level(w);
  for (size_t i = 0; i < w; ++i) level[i] = load_code(t, x, i);
  for (size_t m = w; m > 1; m /= 2)
    for (size_t k = 0; k < m / 2; ++k) level[k] = sum_node(t, level[2 * k], level[2 * k + 1], true);
  return level[0];
}

// The definition of tree_sums / chained_tree_sums: each group copied with its +0 padding, then
// tree_reduce (saturating: every node through saturate_code).
void tree_sums_reference(DType t, const void* x, size_t stride, size_t rows, size_t n, size_t w,
                         bool chain, bool sat, void* out) {
  sat = sat && (t == DType::fp16 || t == DType::bf16);
  const size_t ng = (n + w - 1) / w, esz = formats::info(t).storage_bits / 8;
  std::vector<uint8_t> group(w * esz);
  for (size_t r = 0; r < rows; ++r) {
    uint64_t acc = 0;  // +0 in every float format
    for (size_t j = 0; j < ng; ++j) {
      const size_t k = std::min(w, n - j * w);
      std::fill(group.begin(), group.end(), uint8_t{0});
      std::memcpy(group.data(), row_at(x, stride, r) + j * w * esz, k * esz);
      const uint64_t root =
          sat ? saturating_tree(t, group.data(), w) : tree_reduce(Op::add, t, group.data(), w);
      if (chain)
        acc = sum_node(t, acc, root, sat);
      else
        store_code(t, out, r * ng + j, root);
    }
    if (chain) store_code(t, out, r, acc);
  }
}
}  // namespace

void tree_sums(DType t, const void* x, size_t stride, size_t rows, size_t n, size_t w, void* out,
               Path path, bool saturate) {
  if (path == Path::Fast && reduce_simd::tree_sums(t, x, stride, rows, n, w, false, saturate, out))
    return;
  tree_sums_reference(t, x, stride, rows, n, w, false, saturate, out);
}

void chained_tree_sums(DType t, const void* x, size_t stride, size_t rows, size_t n, size_t w,
                       void* out, Path path, bool saturate) {
  if (path == Path::Fast && reduce_simd::tree_sums(t, x, stride, rows, n, w, true, saturate, out))
    return;
  tree_sums_reference(t, x, stride, rows, n, w, true, saturate, out);
}

void fold_rows(Op op, DType t, const void* x, size_t stride, size_t rows, size_t n, void* out,
               Path path) {
  if (path == Path::Fast && reduce_simd::fold_rows(op, t, x, stride, rows, n, out)) return;
  for (size_t r = 0; r < rows; ++r)
    store_code(t, out, r, fold_reduce(op, t, row_at(x, stride, r), n));
}

void column_reduce(Op op, DType t, const void* x, size_t stride, size_t rows, size_t n,
                   ColumnOrder order, void* out, Path path) {
  const bool pairs = order == ColumnOrder::FirstThenPairs;
  if (rows == 1)  // x_0 itself: a copy moves bits (spec 00)
    return void(std::memcpy(out, x, n * (formats::info(t).storage_bits / 8)));
  if (path == Path::Fast && op == Op::add &&
      reduce_simd::column_sums(t, x, stride, rows, n, pairs, out))
    return;
  if (path == Path::Reference) {
    for (size_t j = 0; j < n; ++j) {
      auto at = [&](size_t i) { return load_code(t, row_at(x, stride, i), j); };
      uint64_t d = at(0);
      size_t i = 1;
      for (; pairs && i + 2 <= rows; i += 2) d = eval(op, t, d, eval(op, t, at(i), at(i + 1)));
      for (; i < rows; ++i) d = eval(op, t, d, at(i));
      store_code(t, out, j, d);
    }
    return;
  }
  // Lane-wise core ops row by row (max/min, integers, targets without a kernel).
  const size_t esz = formats::info(t).storage_bits / 8;
  std::vector<uint8_t> pair(n * esz);
  std::memcpy(out, row_at(x, stride, 0), n * esz);
  size_t i = 1;
  for (; pairs && i + 2 <= rows; i += 2) {
    binary(op, t, row_at(x, stride, i), row_at(x, stride, i + 1), pair.data(), n);
    binary(op, t, out, pair.data(), out, n);
  }
  for (; i < rows; ++i) binary(op, t, out, row_at(x, stride, i), out, n);
}

}  // namespace tilesim::ops
