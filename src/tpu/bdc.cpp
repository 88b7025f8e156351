// BDC arithmetic (spec 51 §3): the table of every function of the closure, its checks, and the
// NPU-distributed NCHW operand walker (spec 50 §1) that hands each (n, c) plane's h x w rows to the
// element-op core (src/ops, spec 15). No function has its own loop: a row of kTable names the
// form (operand kinds) and the op; run_plane dispatches on the form only.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "tilesim/tpu.hpp"
#include "tpu/dtype.hpp"
#include "tpu/int_shift.hpp"
#include "tpu/layout.hpp"

namespace tilesim::tpu {
namespace {

using formats::DType;
using ops::Op;

constexpr const char* kDoc = "docs/tpu.md#bdc-arithmetic";

// Operand kinds of a function (its vendor signature).
enum class Form : uint8_t {
  Binary,      // dst = src0 OP src1                      (tensors, one dtype)
  BinaryC,     // dst = src OP C
  CBinary,     // dst = C OP src                          (fp_C_sub, fp_C_div)
  Unary,       // dst = OP src
  IntBinary,   // dst = sat(round_shift(src0 OP src1))    (three dtypes)
  IntBinaryC,  // dst = sat(round_shift(src OP C))
  IntCBinary,  // dst = sat(round_shift(C OP src))        (int_C_sub)
  Compare,     // dst = src0 OP src1 ? true_val : 0
  CompareC,    // dst = src OP C ? true_val : 0
  SetC,        // dst = C
  Copy,        // dst = src (strided / broadcast strides)
  Bcast,       // dst(n, c, h, w) = src(n, 0, h, w) on src's NPU
  Cast,        // dst = cast(src) with a rounding mode
  Exp,         // dst = exp(src), aligned layouts only
};
constexpr uint8_t kF = 1;     // fp32 fp16 bf16
constexpr uint8_t kI = 2;     // int8/16/32, signed and unsigned
constexpr uint8_t kBits = 4;  // any whole-byte dtype (moves bits)

struct Row {
  const char* name;
  Form form;
  Op op;
  uint8_t classes;
};

// spec 51 §3, in its order. Ops are spec 15's.
constexpr Row kTable[] = {
    {"tpu_bdc_fp_add", Form::Binary, Op::add, kF},
    {"tpu_bdc_fp_sub", Form::Binary, Op::sub, kF},
    {"tpu_bdc_fp_mul", Form::Binary, Op::mul, kF},
    {"tpu_bdc_fp_div", Form::Binary, Op::div, kF},
    {"tpu_bdc_fp_add_C", Form::BinaryC, Op::add, kF},
    {"tpu_bdc_fp_sub_C", Form::BinaryC, Op::sub, kF},
    {"tpu_bdc_fp_mul_C", Form::BinaryC, Op::mul, kF},
    {"tpu_bdc_fp_div_C", Form::BinaryC, Op::div, kF},
    {"tpu_bdc_fp_C_sub", Form::CBinary, Op::sub, kF},
    {"tpu_bdc_fp_C_div", Form::CBinary, Op::div, kF},
    {"tpu_bdc_max", Form::Binary, Op::max, kF | kI},
    {"tpu_bdc_min", Form::Binary, Op::min, kF | kI},
    {"tpu_bdc_max_C", Form::BinaryC, Op::max, kF | kI},
    {"tpu_bdc_min_C", Form::BinaryC, Op::min, kF | kI},
    {"tpu_bdc_int_add", Form::IntBinary, Op::add, kI},
    {"tpu_bdc_int_sub", Form::IntBinary, Op::sub, kI},
    {"tpu_bdc_int_mul", Form::IntBinary, Op::mul, kI},
    {"tpu_bdc_int_add_C", Form::IntBinaryC, Op::add, kI},
    {"tpu_bdc_int_sub_C", Form::IntBinaryC, Op::sub, kI},
    {"tpu_bdc_int_mul_C", Form::IntBinaryC, Op::mul, kI},
    {"tpu_bdc_int_C_sub", Form::IntCBinary, Op::sub, kI},
    {"tpu_bdc_equal", Form::Compare, Op::eq, kF | kI},
    {"tpu_bdc_not_equal", Form::Compare, Op::ne, kF | kI},
    {"tpu_bdc_greater", Form::Compare, Op::gt, kF | kI},
    {"tpu_bdc_less", Form::Compare, Op::lt, kF | kI},
    {"tpu_bdc_greater_equal", Form::Compare, Op::ge, kF | kI},
    {"tpu_bdc_less_equal", Form::Compare, Op::le, kF | kI},
    {"tpu_bdc_equal_C", Form::CompareC, Op::eq, kF | kI},
    {"tpu_bdc_not_equal_C", Form::CompareC, Op::ne, kF | kI},
    {"tpu_bdc_greater_C", Form::CompareC, Op::gt, kF | kI},
    {"tpu_bdc_less_C", Form::CompareC, Op::lt, kF | kI},
    {"tpu_bdc_greater_equal_C", Form::CompareC, Op::ge, kF | kI},
    {"tpu_bdc_less_equal_C", Form::CompareC, Op::le, kF | kI},
    {"tpu_bdc_and", Form::Binary, Op::band, kI},
    {"tpu_bdc_or", Form::Binary, Op::bor, kI},
    {"tpu_bdc_xor", Form::Binary, Op::bxor, kI},
    {"tpu_bdc_not", Form::Unary, Op::bnot, kI},
    {"tpu_bdc_and_C", Form::BinaryC, Op::band, kI},
    {"tpu_bdc_or_C", Form::BinaryC, Op::bor, kI},
    {"tpu_bdc_xor_C", Form::BinaryC, Op::bxor, kI},
    {"tpu_bdc_abs", Form::Unary, Op::abs, kF | kI},
    {"tpu_bdc_neg", Form::Unary, Op::neg, kF | kI},
    {"tpu_bdc_fp_exp", Form::Exp, Op::exp, kF},
    {"tpu_bdc_relu", Form::Unary, Op::relu, kF | kI},
    {"tpu_bdc_set_C", Form::SetC, Op::copy, kBits},
    {"tpu_bdc_cpy", Form::Copy, Op::copy, kBits},
    {"tpu_bdc_npu_bcast", Form::Bcast, Op::copy, kBits},
    {"tpu_bdc_cast", Form::Cast, Op::copy, kF | kI},
};

const Row* find_row(std::string_view name) {
  for (const Row& r : kTable)
    if (name == r.name) return &r;
  return nullptr;
}

bool has_src0(Form f) { return f != Form::SetC; }
bool has_src1(Form f) { return f == Form::Binary || f == Form::IntBinary || f == Form::Compare; }
bool has_scalar(Form f) {
  return f == Form::BinaryC || f == Form::CBinary || f == Form::IntBinaryC || f == Form::IntCBinary ||
         f == Form::CompareC || f == Form::SetC;
}
bool is_int_form(Form f) { return f == Form::IntBinary || f == Form::IntBinaryC || f == Form::IntCBinary; }
bool is_compare(Form f) { return f == Form::Compare || f == Form::CompareC; }

struct Opnd {
  bool tensor = false;
  uint32_t r = 0;   // in-NPU byte offset
  int64_t q = 0;    // start NPU
  Strides s{};      // element strides
  int e = 0;        // element bytes
  DType fmt = DType::u8;
  bool bcast = false;  // npu_bcast source: every channel reads channel 0
};

struct Plan {
  const Row* row;
  int64_t N, C, H, W;
  Opnd dst, a, b;
  uint64_t c_code = 0;      // the scalar C as a code of its dtype
  DType c_fmt = DType::u8;  // the scalar's dtype (integer forms: C_dtype)
  uint64_t true_code = 0;   // compares
  int shift = 0, rounding = 0;
  bool saturation = true;
  bool stage = false;       // dst overlaps a source other than element for element
  ops::Path path = ops::Path::Fast;
};

struct Checker {
  const Device& dev;
  const Row& row;
  [[noreturn]] void fail(ErrorCode c, const std::string& d, const char* spec = kDoc) const {
    raise(c, row.name, d, spec);
  }
  const DTypeInfo& dtype(int dt, const char* what, uint8_t classes) const {
    const DTypeInfo* d = dtype_info(dt);
    if (!d) fail(ErrorCode::Unsupported, fmt::format("{} {} is not a data_type_t value", what, dt), "docs/tpu.md#bdc-arithmetic");
    const bool whole = dtype_bytes(*d) != 0 && d->bits != 20;
    const bool core = whole && ops::is_core_dtype(d->fmt);
    const bool f = core && d->kind == CmpKind::Float;
    const bool i = core && d->kind != CmpKind::Float;
    const bool ok = ((classes & kF) && f) || ((classes & kI) && i) || ((classes & kBits) && whole);
    if (!ok)
      fail(ErrorCode::Unsupported,
           fmt::format("{} {} is not accepted (this function takes {})", what, dtype_label(dt),
                       classes & kBits ? "any 8-, 16- or 32-bit dtype"
                       : classes == kF ? "DT_FP32, DT_FP16, DT_BFP16"
                       : classes == kI ? "DT_INT8/UINT8, DT_INT16/UINT16, DT_INT32/UINT32"
                                       : "DT_FP32, DT_FP16, DT_BFP16 or an 8-, 16-, 32-bit integer"));
    return *d;
  }
  Opnd tensor(const char* what, local_addr_t addr, const dim4* stride, const DTypeInfo& d, const Plan& p,
              int64_t C) const {
    Opnd o;
    o.tensor = true;
    o.e = dtype_bytes(d);
    o.fmt = d.fmt;
    const uint64_t total = uint64_t{dev.local_mem_size()} * static_cast<uint64_t>(dev.npu_num());
    if (addr >= total)
      fail(ErrorCode::Bounds,
           fmt::format("{} address 0x{:x} is outside local memory (NPU_NUM {} x LOCAL_MEM_SIZE {} = {} bytes)", what,
                       addr, dev.npu_num(), dev.local_mem_size(), total),
           "docs/tpu.md#bdc-arithmetic");
    o.q = addr / dev.local_mem_size();
    o.r = addr % dev.local_mem_size();
    if (stride) {
      if (stride->n < 0 || stride->c < 0 || stride->h < 0 || stride->w < 0)
        fail(ErrorCode::Constraint, fmt::format("{}_stride must be non-negative, got [{}, {}, {}, {}]", what,
                                                stride->n, stride->c, stride->h, stride->w));
      o.s = {stride->n, stride->c, stride->h, stride->w};
      if (o.r % static_cast<uint32_t>(o.e))
        fail(ErrorCode::Constraint, fmt::format("{} in-NPU offset 0x{:x} must be a multiple of the element size {} "
                                                "(free layout)",
                                                what, o.r, o.e));
    } else {
      o.s = aligned_strides(o.q, C, p.H, p.W, o.e, dev.align_bytes(), dev.npu_num());
      if (o.r % static_cast<uint32_t>(dev.align_bytes()))
        fail(ErrorCode::Constraint, fmt::format("{} in-NPU offset 0x{:x} must be a multiple of ALIGN_BYTES {} "
                                                "(64-byte aligned layout, NULL stride)",
                                                what, o.r, dev.align_bytes()));
    }
    const int64_t hi = o.r + tensor_extent_bytes(o.s, o.q, p.N, C, p.H, p.W, o.e, dev.npu_num());
    if (hi > static_cast<int64_t>(dev.local_mem_size()))
      fail(ErrorCode::Bounds,
           fmt::format("{} touches in-NPU bytes [0x{:x}, 0x{:x}) for shape [{}, {}, {}, {}] starting on NPU {}, beyond "
                       "LOCAL_MEM_SIZE 0x{:x} ({})",
                       what, o.r, hi, p.N, C, p.H, p.W, o.q, dev.local_mem_size(), dev.profile().name),
           "docs/tpu.md#bdc-arithmetic");
    return o;
  }
};

uint64_t mask_code(uint32_t bits, int e) {
  return e == 4 ? bits : (bits & ((uint32_t{1} << (8 * e)) - 1));
}

// In-NPU byte range [lo, hi) an operand touches (on every NPU it uses).
std::pair<int64_t, int64_t> range(const Opnd& o, const Plan& p, int npu_num) {
  const int64_t C = o.bcast ? 1 : p.C;
  return {o.r, o.r + tensor_extent_bytes(o.s, o.q, p.N, C, p.H, p.W, o.e, npu_num)};
}
bool same_layout(const Opnd& x, const Opnd& y) {
  return x.r == y.r && x.q == y.q && x.e == y.e && !x.bcast && !y.bcast && x.s.n == y.s.n && x.s.c == y.s.c &&
         x.s.h == y.s.h && x.s.w == y.s.w;
}

Plan plan(const Device& dev, const BdcCall& k) {
  if (!k.fn) raise(ErrorCode::Constraint, "tpu_bdc", "function name is NULL", kDoc);
  const Row* row = find_row(k.fn);
  if (!row)
    raise(ErrorCode::Unsupported, k.fn, "not a BDC arithmetic function (see tilesim::tpu::bdc_function_names)",
          kDoc);
  const Checker ck{dev, *row};
  const Form f = row->form;
  if (!k.shape) ck.fail(ErrorCode::Constraint, "shape is NULL");
  const int dims[4] = {k.shape->n, k.shape->c, k.shape->h, k.shape->w};
  for (int i = 0; i < 4; ++i)
    if (dims[i] < 1 || dims[i] > 65535)
      ck.fail(ErrorCode::Constraint, fmt::format("shape->{} must be in [1, 65535], got {}", "nchw"[i], dims[i]), "docs/tpu.md#bdc-arithmetic");
  Plan p{};
  p.row = row;
  p.N = k.shape->n, p.C = k.shape->c, p.H = k.shape->h, p.W = k.shape->w;
  p.path = dev.reference() ? ops::Path::Reference : ops::Path::Fast;
  p.saturation = k.saturation;

  // dtypes
  const uint8_t src_cls = row->classes;
  const uint8_t dst_cls = is_compare(f) ? (kF | kI) : f == Form::Cast ? (kF | kI) : row->classes;
  const int dst_dt = k.dst_dtype;
  const int a_dt = k.src0_dtype < 0 ? dst_dt : k.src0_dtype;
  const int b_dt = k.src1_dtype < 0 ? a_dt : k.src1_dtype;
  const DTypeInfo& dd = ck.dtype(dst_dt, is_compare(f) || is_int_form(f) || f == Form::Cast ? "dst_dtype" : "dtype", dst_cls);
  const DTypeInfo& ad = has_src0(f) ? ck.dtype(a_dt, is_int_form(f) || f == Form::Cast ? "src0_dtype" : "dtype", src_cls) : dd;
  const DTypeInfo* bd = nullptr;
  if (has_src1(f) || is_int_form(f)) bd = &ck.dtype(b_dt, has_src1(f) ? "src1_dtype" : "C_dtype", src_cls);
  if (f == Form::Compare || f == Form::CompareC) bd = &ad;

  if (is_int_form(f)) {
    if (k.shift < 0 || k.shift > 31)
      ck.fail(ErrorCode::Unsupported, fmt::format("shift must be in [0, 31] (a right shift), got {}", k.shift));
    rounding_of(k.rounding, row->name);
    p.shift = k.shift;
    p.rounding = k.rounding;
  }
  if (f == Form::Cast) p.rounding = static_cast<int>(rounding_of(k.rounding, row->name)), p.rounding = k.rounding;

  // operands
  if (f == Form::Bcast && p.C > dev.npu_num())
    ck.fail(ErrorCode::Constraint, fmt::format("shape->c must be in [1, NPU_NUM = {}], got {}", dev.npu_num(), p.C));
  if (f == Form::Exp && (k.dst_stride || k.src0_stride))
    ck.fail(ErrorCode::Constraint, "takes no strides (64-byte aligned layouts)");
  p.dst = ck.tensor("dst", k.dst, k.dst_stride, dd, p, p.C);
  if (has_src0(f)) {
    p.a = ck.tensor(has_src1(f) ? "src0" : "src", k.src0, k.src0_stride, ad, p, f == Form::Bcast ? 1 : p.C);
    p.a.bcast = f == Form::Bcast;
    if (f != Form::Bcast && p.a.q != p.dst.q)
      ck.fail(ErrorCode::Constraint,
              fmt::format("{} starts on NPU {} but dst on NPU {} (operands must start on the same NPU)",
                          has_src1(f) ? "src0" : "src", p.a.q, p.dst.q),
              "docs/tpu.md#bdc-arithmetic");
  }
  if (has_src1(f)) {
    p.b = ck.tensor("src1", k.src1, k.src1_stride, *bd, p, p.C);
    if (p.b.q != p.dst.q)
      ck.fail(ErrorCode::Constraint,
              fmt::format("src1 starts on NPU {} but dst on NPU {} (operands must start on the same NPU)", p.b.q,
                          p.dst.q),
              "docs/tpu.md#bdc-arithmetic");
  }
  if (has_scalar(f)) {
    const DTypeInfo& cd = is_int_form(f) ? *bd : (f == Form::SetC ? dd : ad);
    p.c_fmt = cd.fmt;
    p.c_code = mask_code(k.c_bits, dtype_bytes(cd));
  }
  if (is_compare(f)) p.true_code = mask_code(k.true_bits, dtype_bytes(dd));
  if (f == Form::Cast && ad.bits == 0) ck.fail(ErrorCode::Unsupported, "src dtype");

  // reads before writes: a destination overlapping a source in any other way than element for
  // element (same offset, strides and width) is computed into a staging buffer first.
  const auto [dlo, dhi] = range(p.dst, p, dev.npu_num());
  for (const Opnd* s : {&p.a, &p.b}) {
    if (!s->tensor) continue;
    const auto [lo, hi] = range(*s, p, dev.npu_num());
    if (lo < dhi && dlo < hi && !same_layout(*s, p.dst)) p.stage = true;
  }
  return p;
}

// ---- the walker ----

// Pointer to the first element of plane (n, c) of an operand.
inline uint8_t* plane(uint8_t* mem, uint32_t lms, int npu_num, const Opnd& o, int64_t n, int64_t c) {
  const ChannelPos pos = o.bcast ? ChannelPos{o.q, 0} : channel_pos(o.q, c, npu_num);
  return mem + pos.npu * lms + o.r + (n * o.s.n + pos.slot * o.s.c) * o.e;
}

// An operand's plane as rows the element-op core takes: dense in w (a view into local memory) or
// gathered into `buf` (a w stride other than 1).
struct RowsView {
  const uint8_t* p;
  size_t stride;  // bytes between rows
};
RowsView view(const uint8_t* base, const Opnd& o, const Plan& p, std::vector<uint8_t>& buf) {
  if (o.s.w == 1 || p.W == 1) return {base, static_cast<size_t>(o.s.h * o.e)};
  buf.resize(static_cast<size_t>(p.H * p.W * o.e));
  for (int64_t h = 0; h < p.H; ++h)
    for (int64_t w = 0; w < p.W; ++w)
      std::memcpy(&buf[(h * p.W + w) * o.e], base + (h * o.s.h + w * o.s.w) * o.e, o.e);
  return {buf.data(), static_cast<size_t>(p.W * o.e)};
}
void scatter(uint8_t* base, const Opnd& o, const Plan& p, const uint8_t* dense) {
  for (int64_t h = 0; h < p.H; ++h) {
    if (o.s.w == 1 || p.W == 1) {
      std::memmove(base + h * o.s.h * o.e, dense + h * p.W * o.e, static_cast<size_t>(p.W * o.e));
      continue;
    }
    for (int64_t w = 0; w < p.W; ++w)
      std::memcpy(base + (h * o.s.h + w * o.s.w) * o.e, dense + (h * p.W + w) * o.e, o.e);
  }
}

struct Scratch {
  std::vector<uint8_t> ga, gb, bits, truth;
  std::vector<int64_t> wa, wb, wd;
};

// One plane: H rows of W elements, through the element-op core.
void run_plane(const Plan& p, RowsView a, RowsView b, uint8_t* d, size_t ds, Scratch& s) {
  const Form f = p.row->form;
  const Op op = p.row->op;
  const size_t H = static_cast<size_t>(p.H), W = static_cast<size_t>(p.W);
  ops::Rows2 g;
  g.a = a.p, g.as = a.stride, g.b = b.p, g.bs = b.stride, g.d = d, g.ds = ds, g.rows = H, g.n = W;
  switch (f) {
    case Form::Binary:
      ops::binary_rows(op, p.dst.fmt, g, p.path);
      return;
    case Form::BinaryC:
    case Form::CBinary:
      ops::binary_scalar_rows(op, p.dst.fmt, g, p.c_code, f == Form::CBinary, p.path);
      return;
    case Form::Unary:
    case Form::Exp:
      ops::unary_rows(op, p.dst.fmt, g, p.path);
      return;
    case Form::Compare:
    case Form::CompareC: {
      const size_t bstride = (W + 7) / 8;
      s.bits.resize(bstride * H);
      ops::Rows2 c = g;
      c.d = s.bits.data(), c.ds = bstride;
      ops::compare_bits_rows(op, p.a.fmt, c, f == Form::CompareC, p.c_code, p.path);
      s.truth.resize(W * p.dst.e);
      for (size_t i = 0; i < W; ++i) ops::store_code(p.dst.fmt, s.truth.data(), i, p.true_code);
      ops::Rows2 sel;
      sel.a = s.truth.data(), sel.as = 0, sel.d = d, sel.ds = ds, sel.rows = H, sel.n = W;
      ops::select_bits_rows(p.dst.fmt, s.bits.data(), bstride, sel, true, 0);
      return;
    }
    case Form::SetC:
      for (size_t h = 0; h < H; ++h)
        for (size_t i = 0; i < W; ++i) std::memcpy(d + h * ds + i * p.dst.e, &p.c_code, p.dst.e);
      return;
    case Form::Copy:
    case Form::Bcast:
      for (size_t h = 0; h < H; ++h) std::memmove(d + h * ds, a.p + h * a.stride, W * p.dst.e);
      return;
    case Form::Cast: {
      ops::CastMode m;
      m.rounding = rounding_of(p.rounding, p.row->name);
      m.int_saturate = true;
      for (size_t h = 0; h < H; ++h) ops::cast(p.a.fmt, p.dst.fmt, a.p + h * a.stride, d + h * ds, W, m, p.path);
      return;
    }
    case Form::IntBinary:
    case Form::IntBinaryC:
    case Form::IntCBinary: {
      // Exact in int64 (the product of two 32-bit values fits), then the shift's rounding, then
      // one conversion to dst that saturates or wraps (spec 15 §2 saturation table).
      s.wa.resize(W), s.wb.resize(W), s.wd.resize(W);
      ops::CastMode widen;
      ops::CastMode narrow;
      narrow.int_saturate = p.saturation;
      const uint64_t c64 = f == Form::IntBinary ? 0 : ops::cast_one(p.c_fmt, DType::s64, p.c_code, widen);
      for (size_t h = 0; h < H; ++h) {
        ops::cast(p.a.fmt, DType::s64, a.p + h * a.stride, s.wa.data(), W, widen, p.path);
        if (f == Form::IntBinary) {
          ops::cast(p.b.fmt, DType::s64, b.p + h * b.stride, s.wb.data(), W, widen, p.path);
          ops::binary(op, DType::s64, s.wa.data(), s.wb.data(), s.wd.data(), W, p.path);
        } else {
          ops::binary_scalar(op, DType::s64, s.wa.data(), c64, f == Form::IntCBinary, s.wd.data(), W, p.path);
        }
        if (p.shift)
          for (size_t i = 0; i < W; ++i) s.wd[i] = round_shift(s.wd[i], p.shift, p.rounding);
        ops::cast(DType::s64, p.dst.fmt, s.wd.data(), d + h * ds, W, narrow, p.path);
      }
      return;
    }
  }
}

void execute(Device& dev, const Plan& p) {
  uint8_t* mem = dev.memory().data();
  const uint32_t lms = dev.local_mem_size();
  const int npu = dev.npu_num();
  const size_t plane_bytes = static_cast<size_t>(p.H * p.W * p.dst.e);
  const bool dense_dst = (p.dst.s.w == 1 || p.W == 1) && !p.stage;
  std::vector<uint8_t> staged(p.stage ? plane_bytes * static_cast<size_t>(p.N * p.C) : (dense_dst ? 0 : plane_bytes));
  Scratch s;
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t c = 0; c < p.C; ++c) {
      const RowsView a = p.a.tensor ? view(plane(mem, lms, npu, p.a, n, c), p.a, p, s.ga) : RowsView{nullptr, 0};
      const RowsView b = p.b.tensor ? view(plane(mem, lms, npu, p.b, n, c), p.b, p, s.gb) : RowsView{nullptr, 0};
      uint8_t* dplane = plane(mem, lms, npu, p.dst, n, c);
      if (dense_dst) {
        run_plane(p, a, b, dplane, static_cast<size_t>(p.dst.s.h * p.dst.e), s);
        continue;
      }
      uint8_t* out = p.stage ? staged.data() + (n * p.C + c) * plane_bytes : staged.data();
      run_plane(p, a, b, out, static_cast<size_t>(p.W * p.dst.e), s);
      if (!p.stage) scatter(dplane, p.dst, p, out);
    }
  if (p.stage)
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t c = 0; c < p.C; ++c)
        scatter(plane(mem, lms, npu, p.dst, n, c), p.dst, p, staged.data() + (n * p.C + c) * plane_bytes);
}

}  // namespace

std::vector<std::string> bdc_function_names() {
  std::vector<std::string> out;
  for (const Row& r : kTable) out.emplace_back(r.name);
  return out;
}

void Device::bdc(const BdcCall& call) {
  const Plan p = plan(*this, call);
  // Integer division never happens here (the closure has no integer div), so no divisor check.
  execute(*this, p);
}

}  // namespace tilesim::tpu
