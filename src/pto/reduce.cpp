// Reductions (spec 21 §2, spec 15 §3; docs/pto-instructions.md#reductions):
//   TROWSUM TROWMAX TROWMIN(dst, src, tmp)                 dst[i][0] = OP_j src[i][j]
//   TCOLSUM(dst, src), TCOLSUM(dst, src, tmp, isBinary),
//   TCOLMAX TCOLMIN(dst, src)                              dst[0][j] = OP_i src[i][j]
//   TROWARGMAX/MIN, TCOLARGMAX/MIN(idx, src, tmp) and (val, idx, src, tmp)
// A sum's order is part of its definition (spec 15 §3): each target sums in its backend's
// instruction sequence (a2a3: npu/a2a3/TRowReduceOps.hpp, TColSum.hpp; a5: npu/a5/TRowReduce.hpp,
// TColSum.hpp, TColReduceOps.hpp; cpu as a5, spec 21 §5), every node one element-op core add
// rounded to T. Max/min are order-independent under spec 15's NaN/±0 rule, so any order is theirs.
// tmp is checked on a2a3 and never written (a tilesim decision, see the docs section).
#include "ops/reduce.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "pto/instr.hpp"

namespace tilesim::pto::instr {
namespace {

using formats::DType;
using Code = uint64_t;

ops::Op op_of(Instr i) {
  switch (i) {
    case Instr::TROWSUM:
    case Instr::TCOLSUM:
      return ops::Op::add;
    case Instr::TROWMAX:
    case Instr::TCOLMAX:
    case Instr::TROWARGMAX:
    case Instr::TCOLARGMAX:
      return ops::Op::max;
    default:
      return ops::Op::min;
  }
}

// The vector unit's geometry (spec 15 §3): one repeat is 256 bytes (E lanes), a block 32 bytes.
size_t lanes_of(size_t esz) {
  return 256 / esz;
}
size_t block_of(size_t esz) {
  return 32 / esz;
}
size_t ceil_div(size_t a, size_t b) {
  return (a + b - 1) / b;
}
size_t round_up(size_t a, size_t b) {
  return ceil_div(a, b) * b;
}

// ---- the node primitives: Path::Reference runs the core's scalar definitions, Path::Fast the
// same nodes as the core's SIMD kernels (bit-identical node by node) ----

// dst[k] = a[k] OP b[k], k < n (one vadd/vmax of the hardware over n lanes).
void lanes_op(ops::Op op, DType t, const uint8_t* a, const uint8_t* b, uint8_t* d, size_t n,
              Path p) {
  ops::binary(op, t, a, b, d, n, core_path(p));
}

// out[g][k] = in[g][k] + in[g][w/2 + k]: a vadd of a run's first half with its second half
// (the a2a3 special shapes' block-strided vadd).
void add_halves(DType t, size_t esz, const uint8_t* in, uint8_t* out, size_t groups, size_t w,
                Path p) {
  const size_t h = w / 2;
  std::vector<uint8_t> lo(groups * h * esz), hi(groups * h * esz);
  for (size_t g = 0; g < groups; ++g) {
    std::memcpy(lo.data() + g * h * esz, in + g * w * esz, h * esz);
    std::memcpy(hi.data() + g * h * esz, in + (g * w + h) * esz, h * esz);
  }
  lanes_op(ops::Op::add, t, lo.data(), hi.data(), out, groups * h, p);
}

// ---- row sums (TROWSUM, floats), docs "a2a3 order" / "a5 order" ----

// The a2a3 special shapes (TRowReduceOps.hpp TryOptimizeFP32Reduce): fp32, a DN [R, 1] dst with
// a static ValidCol of 1 and a src whose static shape and valid shape are exactly one of these.
enum class Special : uint8_t { None, S64x128, S32x256, S16x512, S8x1024 };

Special special_of(const Ctx& c, const TileDesc& dst, const TileDesc& src) {
  if (!is_a2a3(c) || src.dtype != Elem::f32 || dst.row_major || !dst.static_valid ||
      dst.valid_col != 1 || !src.static_valid || src.rows != src.valid_row ||
      src.cols != src.valid_col)
    return Special::None;
  switch (src.rows * 10000 + src.cols) {
    case 64 * 10000 + 128:
      return Special::S64x128;
    case 32 * 10000 + 256:
      return Special::S32x256;
    case 16 * 10000 + 512:
      return Special::S16x512;
    case 8 * 10000 + 1024:
      return Special::S8x1024;
    default:
      return Special::None;
  }
}

// The a2a3 row sums' tmp rows: a per-thread grow-only buffer, not zero-filled (every byte the
// steps read they wrote first). A vector per batch cost a fifth of an fp16 256 x 256 TROWSUM
// (allocated and zeroed 64 times).
uint8_t* row_sum_scratch(size_t bytes) {
  thread_local std::vector<uint8_t> buf;
  if (buf.size() < bytes) buf.resize(bytes);
  return buf.data();
}

// a2a3 generic path (TRowReduceInstr with TRowSumOp) for `rows` rows (row r at src + r*stride)
// of C elements: the E-lane vector t_0 the final vcadd reduces is built in tb (row r's chunks
// t_i at tb + r*ts + i*cb, ts = max(n/2, 1) chunks: tmp's row), each step one core call over all
// the rows.
void row_sums_a2a3(DType t, size_t esz, const uint8_t* src, size_t stride, size_t rows, size_t C,
                   uint8_t* res, Path p) {
  const size_t E = lanes_of(esz), cb = E * esz;
  const ops::Path cp = core_path(p);
  if (C <= E) return ops::tree_sums(t, src, stride, rows, C, E, res, cp);  // Step 1: +0 lanes
  const size_t n = C / E, rem = C % E, ts = std::max<size_t>(n / 2, 1) * cb;
  uint8_t* const tbuf = row_sum_scratch(rows * ts);
  auto add = [&](const uint8_t* a, size_t as, const uint8_t* b, size_t bs, uint8_t* d,
                 size_t lanes) {
    ops::Rows2 g;
    g.a = a, g.as = as, g.b = b, g.bs = bs, g.d = d, g.ds = ts, g.rows = rows, g.n = lanes;
    ops::binary_rows(ops::Op::add, t, g, cp);
  };
  auto s = [&](size_t q) { return src + q * cb; };
  auto tc = [&](size_t i) { return tbuf + i * cb; };
  if (C < 2 * E) {  // Step 2: t = s_0
    for (size_t r = 0; r < rows; ++r) std::memcpy(tbuf + r * ts, src + r * stride, cb);
  } else {  // Step 3, FillTmp: t_i = s_2i + s_2i+1; an odd last chunk into t_0
    for (size_t i = 0; i < n / 2; ++i) add(s(2 * i), stride, s(2 * i + 1), stride, tc(i), E);
    if (n % 2) add(tc(0), ts, s(n - 1), stride, tc(0), E);
  }
  if (rem) add(tc(0), ts, s(n), stride, tc(0), rem);  // the remainder into lanes [0, rem)
  for (size_t cur = n / 2; cur > 1;) {                 // TmpProc: pairs level by level
    for (size_t i = 0; i < cur / 2; ++i) add(tc(2 * i), ts, tc(2 * i + 1), ts, tc(i), E);
    const bool odd = cur % 2;
    cur /= 2;
    if (odd) add(tc(cur - 1), ts, tc(2 * cur), ts, tc(cur - 1), E);  // into the last
  }
  ops::tree_sums(t, tbuf, ts, rows, E, E, res, cp);  // the final vcadd per row
}

// a5 (TRowReduceProc with ROWSUM): acc = +0, then acc = acc + vcadd(chunk j) for each chunk of E
// lanes (the last one's inactive lanes +0).
void row_sums_a5(DType t, size_t esz, const uint8_t* src, size_t stride, size_t rows, size_t C,
                 uint8_t* res, Path p) {
  ops::chained_tree_sums(t, src, stride, rows, C, lanes_of(esz), res, core_path(p));
}

// a2a3 special shapes (ReduceOptFP32_*): vcgadd block sums B, then vadds of block-strided halves,
// then vcgadd again (docs "a2a3 order", Step 0). The src rows are contiguous (static = valid), so
// every tree runs over one long row of 8-element groups.
void row_sums_special(Special sp, DType t, size_t esz, const uint8_t* src, size_t rows, size_t C,
                      uint8_t* res, Path p) {
  const ops::Path cp = core_path(p);
  const size_t nb = C / 8;  // 8 fp32 per 32-byte block
  std::vector<uint8_t> b(rows * nb * esz), x(rows * 16 * esz);
  ops::tree_sums(t, src, 0, 1, rows * C, 8, b.data(), cp);  // B: rows x nb block sums
  switch (sp) {
    case Special::S64x128:  // X[k] = B[k] + B[8+k]
      add_halves(t, esz, b.data(), x.data(), rows, 16, p);
      break;
    case Special::S32x256:  // W[8h+k] = B[16h+k] + B[16h+8+k]; X[k] = W[k] + W[8+k]
      add_halves(t, esz, b.data(), x.data(), rows * 2, 16, p);
      add_halves(t, esz, x.data(), x.data(), rows, 16, p);
      break;
    case Special::S16x512:  // G[g] = blocksum(B[8g..8g+8)); the final vcgadd sums G
      ops::tree_sums(t, b.data(), 0, 1, rows * nb, 8, x.data(), cp);
      break;
    default: {  // 8x1024: G[g] = blocksum(B[8g..8g+8)), g < 16; X[k] = G[k] + G[8+k]
      std::vector<uint8_t> g(rows * 16 * esz);
      ops::tree_sums(t, b.data(), 0, 1, rows * nb, 8, g.data(), cp);
      add_halves(t, esz, g.data(), x.data(), rows, 16, p);
      break;
    }
  }
  ops::tree_sums(t, x.data(), 0, 1, rows * 8, 8, res, cp);
}

// Max, min, and integer sums (exact mod 2^w, so every order gives the same bits): the core's
// fold of each row.
void row_folds(ops::Op op, DType t, const uint8_t* src, size_t stride, size_t rows, size_t C,
               uint8_t* res, Path p) {
  ops::fold_rows(op, t, src, stride, rows, C, res, core_path(p));
}

// ---- column sums (TCOLSUM), docs "TCOLSUM order" ----

enum class ColOrder : uint8_t { Fold, A2A3Seq, A2A3Binary, A5Seq, A5Binary };

ColOrder col_order(const Ctx& c, ops::Op op, bool binary) {
  if (op != ops::Op::add) return ColOrder::Fold;
  if (is_a2a3(c)) return binary ? ColOrder::A2A3Binary : ColOrder::A2A3Seq;
  return binary ? ColOrder::A5Binary : ColOrder::A5Seq;  // cpu as a5 (spec 21 §5)
}

// The definition, one column at a time (s = the column's R codes).
Code col_reference(ops::Op op, DType t, ColOrder o, const std::vector<Code>& s) {
  auto f = [&](Code a, Code b) { return ops::eval(op, t, a, b); };
  const size_t R = s.size();
  switch (o) {
    case ColOrder::Fold:
    case ColOrder::A2A3Seq: {  // copy row 0, then dst = dst + s_i
      Code d = s[0];
      for (size_t i = 1; i < R; ++i) d = f(d, s[i]);
      return d;
    }
    case ColOrder::A5Seq: {  // s_0 + (s_1 + s_2) + (s_3 + s_4) + ... [+ s_R-1]
      Code d = s[0];
      for (size_t j = 0; j < (R - 1) / 2; ++j) d = f(d, f(s[2 * j + 1], s[2 * j + 2]));
      if ((R - 1) % 2) d = f(d, s[R - 1]);
      return d;
    }
    case ColOrder::A2A3Binary: {  // BinarySum levels, odd leftovers into row 0
      if (R == 1) return s[0];
      std::vector<Code> tv(R / 2);
      for (size_t i = 0; i < R / 2; ++i) tv[i] = f(s[2 * i], s[2 * i + 1]);
      if (R % 2) tv[0] = f(tv[0], s[R - 1]);
      for (size_t cnt = R / 2; cnt > 1; cnt /= 2) {
        for (size_t i = 0; i < cnt / 2; ++i) tv[i] = f(tv[2 * i], tv[2 * i + 1]);
        if (cnt % 2) tv[0] = f(tv[0], tv[cnt - 1]);
      }
      return tv[0];
    }
    case ColOrder::A5Binary: {  // TColSum_Binary: odd leftovers into the last pair
      size_t n = R / 2;
      std::vector<Code> tv(std::max<size_t>(n, 1));
      Code d = 0;
      for (size_t j = 0; j < n; ++j) tv[j] = d = f(s[2 * j], s[2 * j + 1]);
      if (R % 2) tv[n > 0 ? n - 1 : 0] = d = f(s[R - 1], d);
      for (size_t level = n > 0 ? std::bit_width(n) - 1 : 0; level > 0; --level) {
        const bool odd = n % 2;
        n /= 2;
        for (size_t j = 0; j < n; ++j) tv[j] = d = f(tv[2 * j], tv[2 * j + 1]);
        if (odd) tv[n - 1] = d = f(tv[2 * n], d);
      }
      return d;
    }
  }
  return 0;
}

// The same orders on whole rows of n columns (row i at base + i * stride), the result into out:
// the sequential orders are the core's column reductions, the binary trees lane-wise core ops.
void col_fast(ops::Op op, DType t, size_t esz, ColOrder o, size_t R, size_t n, const uint8_t* base,
              size_t stride, uint8_t* out, Path p) {
  const size_t nb = n * esz;
  auto row = [&](size_t i) { return base + i * stride; };
  auto bin = [&](const uint8_t* a, const uint8_t* b, uint8_t* d) {
    lanes_op(op, t, a, b, d, n, p);
  };
  switch (o) {
    case ColOrder::Fold:
    case ColOrder::A2A3Seq:
      return ops::column_reduce(op, t, base, stride, R, n, ops::ColumnOrder::Sequential, out,
                                core_path(p));
    case ColOrder::A5Seq:
      return ops::column_reduce(op, t, base, stride, R, n, ops::ColumnOrder::FirstThenPairs, out,
                                core_path(p));
    case ColOrder::A2A3Binary: {
      if (R == 1) return void(std::memcpy(out, row(0), nb));
      std::vector<uint8_t> tb(R / 2 * nb);
      auto tv = [&](size_t i) { return tb.data() + i * nb; };
      for (size_t i = 0; i < R / 2; ++i) bin(row(2 * i), row(2 * i + 1), tv(i));
      if (R % 2) bin(tv(0), row(R - 1), tv(0));
      for (size_t cnt = R / 2; cnt > 1; cnt /= 2) {
        for (size_t i = 0; i < cnt / 2; ++i) bin(tv(2 * i), tv(2 * i + 1), tv(i));
        if (cnt % 2) bin(tv(0), tv(cnt - 1), tv(0));
      }
      std::memcpy(out, tv(0), nb);
      return;
    }
    case ColOrder::A5Binary: {
      size_t n2 = R / 2;
      std::vector<uint8_t> tb(std::max<size_t>(n2, 1) * nb), d(nb, 0);
      auto tv = [&](size_t i) { return tb.data() + i * nb; };
      for (size_t j = 0; j < n2; ++j) {
        bin(row(2 * j), row(2 * j + 1), d.data());
        std::memcpy(tv(j), d.data(), nb);
      }
      if (R % 2) {
        bin(row(R - 1), d.data(), d.data());
        std::memcpy(tv(n2 > 0 ? n2 - 1 : 0), d.data(), nb);
      }
      for (size_t level = n2 > 0 ? std::bit_width(n2) - 1 : 0; level > 0; --level) {
        const bool odd = n2 % 2;
        n2 /= 2;
        for (size_t j = 0; j < n2; ++j) {
          bin(tv(2 * j), tv(2 * j + 1), d.data());
          std::memcpy(tv(j), d.data(), nb);
        }
        if (odd) {
          bin(tv(2 * n2), d.data(), d.data());
          std::memcpy(tv(n2 - 1), d.data(), nb);
        }
      }
      std::memcpy(out, d.data(), nb);
      return;
    }
  }
}

// ---- legality (docs/pto-instructions.md#reductions) ----

void basic(const Ctx& c, const TileDesc& t, const char* who) {
  tile_ok(c, t, who);
  vec(c, t, who);
}

const char* layout_of(const TileDesc& t) {
  if (t.slayout != kSLayoutNoneBox) return "a boxed layout";
  return t.row_major ? "ND (RowMajor)" : "DN (ColMajor)";
}

void nonempty_src(const Ctx& c, const TileDesc& src) {
  if (src.valid_row == 0 || src.valid_col == 0)
    c.fail(ErrorCode::Constraint, fmt::format("src valid shape must be non-zero, got {}x{}",
                                              src.valid_row, src.valid_col));
}

// dst of a row reduction: ND, or DN with Cols == 1 (TROWSUM.md); the arg forms' ND tiles have
// validCol 1 (TROWARGMAX.md).
void row_out(const Ctx& c, const TileDesc& d, const char* who, bool valid_col_one) {
  // cpu: the vendor CPU simulator writes dst(i, 0) of whatever layout the tile has (its TRowMax /
  // TRowArgMax check none); its flash-attention demo reduces into a 64 x 64 ColMajor tile.
  if (c.target.kind == TargetKind::cpu) return;
  const bool nd = d.slayout == kSLayoutNoneBox && d.row_major;
  const bool dn1 = d.slayout == kSLayoutNoneBox && !d.row_major && d.cols == 1;
  if (!nd && !dn1)
    c.fail(
        ErrorCode::Constraint,
        fmt::format("{} must be ND (RowMajor, NoneBox) or DN (ColMajor, NoneBox) with Cols == 1, "
                    "got {} with Cols == {}",
                    who, layout_of(d), d.cols));
  if (nd && valid_col_one && d.valid_col != 1)
    c.fail(ErrorCode::Constraint,
           fmt::format("{} (ND) must have validCol == 1, got {}", who, d.valid_col));
}

void same_rows(const Ctx& c, const TileDesc& src, const TileDesc& d, const char* who) {
  if (d.valid_row != src.valid_row)
    c.fail(ErrorCode::Constraint, fmt::format("{} validRow must equal src validRow {}, got {}", who,
                                              src.valid_row, d.valid_row));
}

// a2a3 tmp: present, a Vec tile of src's dtype (the backends index it in src elements).
const TileDesc& a2a3_tmp(const Ctx& c, const Call& call, const TileDesc& src) {
  if (!call.tmp)
    c.fail(ErrorCode::Constraint, "a tmp tile is required on a2a3 (its backend computes in it)");
  const TileDesc& tmp = *call.tmp;
  basic(c, tmp, "tmp");
  if (tmp.dtype != src.dtype)
    c.fail(ErrorCode::Constraint, fmt::format("tmp must have src's dtype {} on a2a3, got {}",
                                              elem_name(src.dtype), elem_name(tmp.dtype)));
  return tmp;
}

void tmp_rows_cols(const Ctx& c, const TileDesc& tmp, int rows, size_t cols, const char* why) {
  row_major(c, tmp, "tmp");
  if (tmp.rows < rows || size_t(tmp.cols) < cols)
    c.fail(ErrorCode::Constraint,
           fmt::format("tmp must have Rows >= {} and Cols >= {} on a2a3 ({}), got {}x{}", rows,
                       cols, why, tmp.rows, tmp.cols));
}

void tmp_elems(const Ctx& c, const TileDesc& tmp, size_t need, const char* why) {
  const size_t have = size_t(tmp.rows) * size_t(tmp.cols);
  if (have < need)
    c.fail(ErrorCode::Constraint,
           fmt::format("tmp must hold at least {} elements on a2a3 ({}), got {}x{} = {}", need, why,
                       tmp.rows, tmp.cols, have));
}

// The a2a3 tmp rules of TROWSUM/TROWMAX/TROWMIN (docs: derived from TRowReduceOps.hpp).
void row_reduce_tmp(const Ctx& c, const Call& call, const TileDesc& src, Special sp) {
  const TileDesc& tmp = a2a3_tmp(c, call, src);
  const size_t esz = esize(src), E = lanes_of(esz), C = size_t(src.valid_col);
  const int R = src.valid_row;
  if (!elem_is_float(src.dtype))
    return tmp_elems(c, tmp, block_of(esz), "the integer path accumulates in one 32-byte block");
  if (sp != Special::None)
    return tmp_elems(c, tmp, size_t(R) * C / 8,
                     "the special fp32 shape writes R*C/8 block sums from tmp's start");
  if (C <= E) return;  // one vcadd/vcmax straight into dst
  if (C < 2 * E) {
    if (size_t(tmp.cols) < E)
      c.fail(ErrorCode::Constraint,
             fmt::format("tmp must have Cols >= {} (one repeat of {}) when {} < validCol < {}, got "
                         "Cols == {} (the a2a3 backend would silently do nothing)",
                         E, elem_name(src.dtype), E, 2 * E, tmp.cols));
    return tmp_rows_cols(c, tmp, R, E, "one repeat per row");
  }
  const size_t need = op_of(c.info.id) == ops::Op::add ? (C / E / 2) * E : E;
  tmp_rows_cols(c, tmp, R, need,
                op_of(c.info.id) == ops::Op::add ? "floor(floor(C/E)/2) repeats per row"
                                                 : "one repeat per row");
}

// ---- the kinds ----

void store_rows(const TileDesc& d, const uint8_t* res, int R) {
  const size_t sz = esize(d);
  for (int r = 0; r < R; ++r) std::memcpy(at(d, r, 0), res + size_t(r) * sz, sz);
}

// Rows of the region handled per batch: about 16K elements, so the lane buffers stay in cache.
size_t batch_rows(size_t C) {
  return std::max<size_t>(1, 16384 / std::max<size_t>(C, 1));
}

void row_reduce(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  basic(c, dst, "dst");
  basic(c, src, "src");
  row_major(c, src, "src");
  row_out(c, dst, "dst", false);
  dtype_allowed(c, src, "src");
  same_dtype(c, dst, "dst", src, "src");
  nonempty_src(c, src);
  same_rows(c, src, dst, "dst");
  const ops::Op op = op_of(c.info.id);
  const Special sp = special_of(c, dst, src);
  if (is_a2a3(c)) row_reduce_tmp(c, call, src, sp);

  const DType t = core_dtype(src.dtype);
  const size_t esz = esize(src), R = size_t(src.valid_row), C = size_t(src.valid_col);
  const size_t stride = size_t(src.cols) * esz;
  std::vector<uint8_t> res(R * esz);  // every row read before dst is written (aliasing)
  const bool sum = op == ops::Op::add && elem_is_float(src.dtype);
  for_rows(int(R), int(C), 16, [&](size_t r0, size_t r1) {
    const bool special = sum && sp != Special::None;  // max/min: any order is theirs
    const size_t step = special ? r1 - r0 : batch_rows(C);
    for (size_t b = r0; b < r1; b += step) {
      const size_t n = std::min(step, r1 - b);
      const uint8_t* s = src.data + b * stride;
      uint8_t* out = res.data() + b * esz;
      if (special)
        row_sums_special(sp, t, esz, s, n, C, out, path);
      else if (!sum)
        row_folds(op, t, s, stride, n, C, out, path);
      else if (is_a2a3(c))
        row_sums_a2a3(t, esz, s, stride, n, C, out, path);
      else
        row_sums_a5(t, esz, s, stride, n, C, out, path);
    }
  });
  store_rows(dst, res.data(), int(R));
}

void col_reduce(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  basic(c, dst, "dst");
  basic(c, src, "src");
  row_major(c, src, "src");
  row_major(c, dst, "dst");
  dtype_allowed(c, src, "src");
  same_dtype(c, dst, "dst", src, "src");
  if (src.valid_col != dst.valid_col)
    c.fail(ErrorCode::Constraint, fmt::format("dst validCol must equal src validCol {}, got {}",
                                              src.valid_col, dst.valid_col));
  const bool binary = call.tmp && call.is_binary;
  const TileDesc* tmp = call.tmp && is_a2a3(c) ? &a2a3_tmp(c, call, src) : nullptr;
  if (tmp) row_major(c, *tmp, "tmp");  // TCOLSUM.md, A2A3: tmp Vec, ND, src's dtype
  const size_t R = size_t(src.valid_row), C = size_t(src.valid_col);
  if (R == 0 || C == 0) return;  // TCOLSUM.md: returns early, nothing written
  if (tmp && binary && (tmp->rows < int(R / 2) || size_t(tmp->cols) < C))
    c.fail(ErrorCode::Constraint,
           fmt::format("isBinary: tmp must have Rows >= floor(validRow/2) = {} and a row stride "
                       "(Cols) >= validCol = {} on a2a3, got {}x{}",
                       R / 2, C, tmp->rows, tmp->cols));

  const ops::Op op = op_of(c.info.id);
  const ColOrder o = col_order(c, op, binary);
  const DType t = core_dtype(src.dtype);
  const size_t esz = esize(src), stride = size_t(src.cols) * esz;
  std::vector<uint8_t> res(C * esz);
  // Columns per task: the sequential orders stream whole rows of up to 1024 columns through one
  // accumulator row; the binary trees take up to 256, fewer when their rows would outgrow 64 KB.
  const size_t chunk =
      binary ? std::clamp<size_t>(65536 / (std::max<size_t>(R / 2, 1) * esz) / 16 * 16, 16, 256)
             : 1024;
  for_rows(int(ceil_div(C, chunk)), int(R * std::min(C, chunk)), 16, [&](size_t k0, size_t k1) {
    for (size_t k = k0; k < k1; ++k) {
      const size_t c0 = k * chunk, n = std::min(chunk, C - c0);
      if (path == Path::Reference) {
        std::vector<Code> s(R);
        for (size_t j = c0; j < c0 + n; ++j) {
          for (size_t i = 0; i < R; ++i) s[i] = ops::load_code(t, src.data + i * stride, j);
          ops::store_code(t, res.data(), j, col_reference(op, t, o, s));
        }
      } else {
        col_fast(op, t, esz, o, R, n, src.data + c0 * esz, stride, res.data() + c0 * esz, path);
      }
    }
  });
  std::memcpy(at(dst, 0, 0), res.data(), C * esz);
}

// ---- arg reductions ----

bool idx_dtype_ok(Elem e, bool allow16) {
  return e == Elem::u32 || e == Elem::s32 || (allow16 && (e == Elem::u16 || e == Elem::s16));
}

void idx_dtype(const Ctx& c, const TileDesc& idx, bool allow16, bool only16, const char* when) {
  const bool ok = only16 ? (idx.dtype == Elem::u16 || idx.dtype == Elem::s16)
                         : idx_dtype_ok(idx.dtype, allow16);
  if (!ok)
    c.fail(ErrorCode::Constraint,
           fmt::format("dstIdx dtype must be {}{}, got {}",
                       only16 ? "u16 or s16" : (allow16 ? "u32, s32, u16 or s16" : "u32 or s32"),
                       when, elem_name(idx.dtype)));
}

// The arg result of n codes at x (stride elements apart): index, and the value there (a NaN
// written as the canonical NaN of T, spec 00).
struct ArgResult {
  size_t idx;
  Code val;
};
ArgResult arg_of(ops::Op op, DType t, const uint8_t* x, size_t n) {
  const size_t i = ops::arg_reduce(op, t, x, n);
  const Code v = ops::load_code(t, x, i);
  return {i, ops::eval(op, t, v, v)};  // max(v, v) = v; a NaN becomes canonical
}

// Fast args: the maxima (minima) of blocks of 16 elements by SIMD ops, arg_reduce over those to
// find the first block holding the line's result, then arg_reduce inside that block. The same
// index as arg_reduce over the whole line: every earlier block lies strictly below the result
// (or holds no NaN), and inside the block the first best element is the first one overall.
constexpr size_t kArgBlock = 16;

// Lines of n contiguous codes (line r at x + r * stride).
void lines_arg_fast(ops::Op op, DType t, size_t esz, const uint8_t* x, size_t stride, size_t lines,
                    size_t n, ArgResult* res) {
  const size_t nb = ceil_div(n, kArgBlock), bb = kArgBlock * esz;
  if (nb < 3) {
    for (size_t r = 0; r < lines; ++r) res[r] = arg_of(op, t, x + r * stride, n);
    return;
  }
  std::vector<uint8_t> m(lines * nb * bb), best(lines * nb * esz);
  for (size_t r = 0; r < lines; ++r) {
    const uint8_t* line = x + r * stride;
    uint8_t* mr = m.data() + r * nb * bb;
    std::memcpy(mr, line, n * esz);
    for (size_t k = n; k < nb * kArgBlock; ++k)  // pad with the last block's first element
      std::memcpy(mr + k * esz, line + (nb - 1) * bb, esz);
  }
  ops::fold_rows(op, t, m.data(), bb, lines * nb, kArgBlock, best.data());  // block r*nb+b
  for (size_t r = 0; r < lines; ++r) {
    const uint8_t* line = x + r * stride;
    const size_t b = ops::arg_reduce(op, t, best.data() + r * nb * esz, nb);
    const ArgResult in = arg_of(op, t, line + b * bb, std::min(kArgBlock, n - b * kArgBlock));
    res[r] = {b * kArgBlock + in.idx, in.val};
  }
}

// The n columns of an ND src (row i at src + i * stride): block maxima as row-vector ops.
void cols_arg_fast(ops::Op op, DType t, size_t esz, const uint8_t* src, size_t stride, size_t R,
                   size_t n, ArgResult* res) {
  const size_t nb = ceil_div(R, kArgBlock), nbytes = n * esz;
  std::vector<uint8_t> m(nb * nbytes), col(std::max(nb, kArgBlock) * esz);
  for (size_t b = 0; b < nb; ++b) {
    uint8_t* mb = m.data() + b * nbytes;
    std::memcpy(mb, src + b * kArgBlock * stride, nbytes);
    for (size_t i = b * kArgBlock + 1; i < std::min(R, (b + 1) * kArgBlock); ++i)
      lanes_op(op, t, mb, src + i * stride, mb, n, Path::Fast);
  }
  for (size_t j = 0; j < n; ++j) {
    for (size_t b = 0; b < nb; ++b)
      std::memcpy(col.data() + b * esz, m.data() + b * nbytes + j * esz, esz);
    const size_t b = ops::arg_reduce(op, t, col.data(), nb);
    const size_t i0 = b * kArgBlock, k = std::min(kArgBlock, R - i0);
    for (size_t i = 0; i < k; ++i)
      std::memcpy(col.data() + i * esz, src + (i0 + i) * stride + j * esz, esz);
    const ArgResult in = arg_of(op, t, col.data(), k);
    res[j] = {i0 + in.idx, in.val};
  }
}

void row_arg_tmp(const Ctx& c, const Call& call, const TileDesc& src, bool with_val) {
  const TileDesc& tmp = a2a3_tmp(c, call, src);
  const size_t esz = esize(src), E = lanes_of(esz), epb = block_of(esz);
  const size_t C = size_t(src.valid_col), R = size_t(src.valid_row);
  if (C <= E) {  // TROWARGMAX.md case 1: the value form keeps (value, index) pairs in tmp
    if (with_val) tmp_elems(c, tmp, 2 * R, "2 elements per src row when validCol <= E");
    return;
  }
  const size_t r1 = ceil_div(C, E);
  size_t need;
  if (C <= E * E) {  // case 2
    need = round_up(2 * r1, epb) + round_up(r1, epb);
  } else {  // case 3
    const size_t r2 = ceil_div(r1, E);
    need = std::max(round_up(2 * r1, epb), round_up(r1, epb) + round_up(2 * r2, epb)) + 2;
  }
  tmp_rows_cols(c, tmp, int(R), need,
                C <= E * E ? "TROWARGMAX.md stage 1 stride" : "TROWARGMAX.md stage 2 stride");
}

void row_arg(const Ctx& c, const Call& call, Path path) {
  const TileDesc &src = *call.src0, &idx = *call.dst_idx;
  const TileDesc* val = call.dst;
  basic(c, src, "src");
  basic(c, idx, "dstIdx");
  row_major(c, src, "src");
  dtype_allowed(c, src, "src");
  // Index dtype: u32/i32 (TROWARGMAX.md); the value form also u16/i16 for a 2-byte src (both
  // backends' static_assert, the vendor's own a2a3 tests use uint16_t).
  idx_dtype(c, idx, val && esize(src) == 2, false, val ? " (value form)" : "");
  row_out(c, idx, "dstIdx", true);
  if (val) {
    basic(c, *val, "dstVal");
    same_dtype(c, *val, "dstVal", src, "src");
    row_out(c, *val, "dstVal", true);
  }
  nonempty_src(c, src);
  same_rows(c, src, idx, "dstIdx");
  if (val) same_rows(c, src, *val, "dstVal");
  if (is_a2a3(c)) row_arg_tmp(c, call, src, val != nullptr);

  const ops::Op op = op_of(c.info.id);
  const DType t = core_dtype(src.dtype), ti = core_dtype(idx.dtype);
  const size_t R = size_t(src.valid_row), C = size_t(src.valid_col);
  const size_t stride = size_t(src.cols) * esize(src);
  std::vector<ArgResult> res(R);
  for_rows(int(R), int(C), 16, [&](size_t r0, size_t r1) {
    for (size_t b = r0; b < r1 && path == Path::Fast; b += batch_rows(C))
      lines_arg_fast(op, t, esize(src), src.data + b * stride, stride,
                     std::min(batch_rows(C), r1 - b), C, res.data() + b);
    for (size_t r = r0; r < r1 && path == Path::Reference; ++r)
      res[r] = arg_of(op, t, src.data + r * stride, C);
  });
  for (size_t r = 0; r < R; ++r) {
    ops::store_code(ti, at(idx, int(r), 0), 0, res[r].idx);  // low bits of the index dtype
    if (val) ops::store_code(t, at(*val, int(r), 0), 0, res[r].val);
  }
}

void col_arg_tmp(const Ctx& c, const Call& call, const TileDesc& src, bool with_val) {
  const TileDesc& tmp = a2a3_tmp(c, call, src);
  const size_t esz = esize(src), E = lanes_of(esz), epb = block_of(esz);
  const size_t C = size_t(src.valid_col);
  const size_t gap = C >= E ? E : round_up(C, epb);  // tmpGapEles
  size_t need = gap;
  if (esz == 2 && !with_val) {  // 2-byte index form: the index region lives in tmp too
    const size_t rep = ceil_div(C, E);
    need = std::max(need, round_up(2 * rep, epb) + round_up(rep, epb));
  }
  tmp_elems(
      c, tmp, need,
      esz == 2 && !with_val ? "TCOLARGMAX.md: 2-byte index form" : "TCOLARGMAX.md: tmpGapEles");
}

void col_arg(const Ctx& c, const Call& call, Path path) {
  const TileDesc &src = *call.src0, &idx = *call.dst_idx;
  const TileDesc* val = call.dst;
  basic(c, src, "src");
  basic(c, idx, "dstIdx");
  if (src.slayout != kSLayoutNoneBox)
    c.fail(ErrorCode::Constraint, "src must be ND or DN with SLayout::NoneBox, got a boxed layout");
  dtype_allowed(c, src, "src");
  row_major(c, idx, "dstIdx");
  // Index dtype (TCOLARGMAX.md): u32/i32; the value form u16/i16 for a 2-byte src, u32/i32 for a
  // 4-byte one; the value form takes no 8-bit src.
  if (val && esize(src) == 1)
    c.fail(ErrorCode::Unsupported,
           fmt::format("the value form takes no 8-bit src, got {}", elem_name(src.dtype)));
  idx_dtype(
      c, idx, false, val && esize(src) == 2,
      val ? (esize(src) == 2 ? " for a 2-byte src (value form)" : " for a 4-byte src (value form)")
          : "");
  if (val) {
    basic(c, *val, "dstVal");
    row_major(c, *val, "dstVal");
    same_dtype(c, *val, "dstVal", src, "src");
  }
  nonempty_src(c, src);
  for (auto [t, who] : {std::pair{&idx, "dstIdx"}, {val, "dstVal"}}) {
    if (!t) continue;
    if (t->valid_row != 1 || t->valid_col != src.valid_col)
      c.fail(ErrorCode::Constraint,
             fmt::format("{} valid shape must be 1 x src validCol = 1x{}, got {}x{}", who,
                         src.valid_col, t->valid_row, t->valid_col));
  }
  if (is_a2a3(c)) col_arg_tmp(c, call, src, val != nullptr);

  const ops::Op op = op_of(c.info.id);
  const DType t = core_dtype(src.dtype), ti = core_dtype(idx.dtype);
  const size_t R = size_t(src.valid_row), C = size_t(src.valid_col), esz = esize(src);
  std::vector<ArgResult> res(C);
  // A DN src holds each column contiguously (a line like a row's); an ND one is walked by rows.
  const size_t stride = size_t(src.row_major ? src.cols : src.rows) * esz;
  for_rows(int(C), int(R), 16, [&](size_t j0, size_t j1) {
    if (path == Path::Fast && src.row_major)
      return cols_arg_fast(op, t, esz, src.data + j0 * esz, stride, R, j1 - j0, res.data() + j0);
    if (path == Path::Fast) {
      for (size_t b = j0; b < j1; b += batch_rows(R))
        lines_arg_fast(op, t, esz, src.data + b * stride, stride, std::min(batch_rows(R), j1 - b),
                       R, res.data() + b);
      return;
    }
    std::vector<uint8_t> col(R * esz);
    for (size_t j = j0; j < j1; ++j) {
      for (size_t i = 0; i < R; ++i)
        std::memcpy(col.data() + i * esz, at(src, int(i), int(j)), esz);
      res[j] = arg_of(op, t, col.data(), R);
    }
  });
  for (size_t j = 0; j < C; ++j) {
    ops::store_code(ti, at(idx, 0, int(j)), 0, res[j].idx);
    if (val) ops::store_code(t, at(*val, 0, int(j)), 0, res[j].val);
  }
}

}  // namespace

void reduce(const Ctx& c, const Call& call, Path path) {
  switch (c.info.kind) {
    case Kind::RowReduce:
      return row_reduce(c, call, path);
    case Kind::ColReduce:
      return col_reduce(c, call, path);
    case Kind::RowArg:
      return row_arg(c, call, path);
    default:
      return col_arg(c, call, path);
  }
}

}  // namespace tilesim::pto::instr
