// BDC arithmetic (spec 51 §3) and the five compare-selects (spec 50 §3): the table of every
// function, its checks, and the NPU-distributed NCHW operand walker (spec 50 §1) that hands each
// (n, c) plane's h x w rows to the element-op core (src/ops, spec 15) or, for the selects, to the
// SIMD select kernel (select_simd.cpp). No function has its own loop: a row names the form
// (operand kinds) and the op; run_plane / select_plane_rows dispatch on the form only.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "tilesim/parallel.hpp"
#include "tilesim/tpu.hpp"
#include "tpu/dtype.hpp"
#include "tpu/int_shift.hpp"
#include "tpu/int_simd.hpp"
#include "tpu/layout.hpp"
#include "tpu/select.hpp"

namespace tilesim::tpu {
namespace {

using formats::DType;
using ops::Op;

constexpr const char* kDoc = "docs/tpu.md#bdc-arithmetic";
constexpr const char* kSelectDoc = "docs/tpu.md#checks";

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
  Select,      // dst = src0 OP src1 ? src2 : src3        (TENSOR / SCALAR / VECTOR sources)
  Extremum,    // g = src0 OP src1; dst0 = g ? src0 : src1, dst1 = g ? src2 : src3
};
constexpr uint8_t kF = 1;     // fp32 fp16 bf16
constexpr uint8_t kI = 2;     // int8/16/32, signed and unsigned
constexpr uint8_t kBits = 4;  // any whole-byte dtype (moves bits)
constexpr uint8_t kSel = 8;   // the chip's select dtypes (ChipProfile::select_dtypes, spec 50 §2)

bool is_select(Form f) { return f == Form::Select || f == Form::Extremum; }

struct Row {
  const char* name;
  Form form;
  Op op;
  uint8_t classes;
};

// spec 51 §3, in its order, then spec 50's five selects. Ops are spec 15's. The selects' entries
// are the Device select methods (variable_t operands, not addresses): BdcCall, the function
// names and the signatures (Python methods) leave them out.
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
    {"tpu_bdc_greater_select", Form::Select, Op::gt, kSel},
    {"tpu_bdc_less_select", Form::Select, Op::lt, kSel},
    {"tpu_bdc_equal_select", Form::Select, Op::eq, kSel},
    {"tpu_bdc_maximum_greater_select", Form::Extremum, Op::gt, kSel},
    {"tpu_bdc_minimum_less_select", Form::Extremum, Op::lt, kSel},
};

const Row* find_row(std::string_view name) {
  for (const Row& r : kTable)
    if (name == r.name) return &r;
  return nullptr;
}

// The vendor prototype of each form (torch-tpu's tpu_kernel.h), parameter names in order; the
// Python methods are generated from these (one binding loop, python/tilesim/tpu.py). `c_dtype`
// names the parameter whose dtype the scalar C is read in.
struct FormSig {
  std::vector<const char*> params;
  const char* c_dtype;
};
FormSig signature(Form f) {
  switch (f) {
    case Form::Binary:
      return {{"dst_addr", "src0_addr", "src1_addr", "shape", "dst_stride", "src0_stride", "src1_stride", "dtype"},
              nullptr};
    case Form::BinaryC:
    case Form::CBinary:
      return {{"dst_addr", "src_addr", "C", "shape", "dst_stride", "src_stride", "dtype"}, "dtype"};
    case Form::Unary:
    case Form::Copy:
      return {{"dst_addr", "src_addr", "shape", "dst_stride", "src_stride", "dtype"}, nullptr};
    case Form::IntBinary:
      return {{"dst_addr", "src0_addr", "src1_addr", "shape", "dst_stride", "src0_stride", "src1_stride", "dst_dtype",
               "src0_dtype", "src1_dtype", "shift", "rounding_mode", "saturation"},
              nullptr};
    case Form::IntBinaryC:
    case Form::IntCBinary:
      return {{"dst_addr", "src_addr", "C", "shape", "dst_stride", "src_stride", "dst_dtype", "src_dtype", "C_dtype",
               "shift", "rounding_mode", "saturation"},
              "C_dtype"};
    case Form::Compare:
      return {{"dst_addr", "src0_addr", "src1_addr", "true_val", "shape", "dst_stride", "src0_stride", "src1_stride",
               "dst_dtype", "src_dtype"},
              nullptr};
    case Form::CompareC:
      return {{"dst_addr", "src_addr", "C", "true_val", "shape", "dst_stride", "src_stride", "dst_dtype", "src_dtype"},
              "src_dtype"};
    case Form::SetC:
      return {{"dst_addr", "C", "shape", "dst_stride", "dtype"}, "dtype"};
    case Form::Bcast:
      return {{"dst_addr", "src_addr", "shape", "dtype"}, nullptr};
    case Form::Cast:
      return {{"dst_addr", "src_addr", "shape", "dst_stride", "src_stride", "dst_dtype", "src_dtype", "mode"}, nullptr};
    case Form::Exp:
      return {{"dst_addr", "src_addr", "work0_addr", "work1_addr", "coeff_addr", "shape", "dtype"}, nullptr};
    case Form::Select:
    case Form::Extremum:
      break;  // the Device select methods, not BdcCall
  }
  return {{}, nullptr};
}

bool has_src0(Form f) { return f != Form::SetC; }
bool has_src1(Form f) { return f == Form::Binary || f == Form::IntBinary || f == Form::Compare; }
bool has_scalar(Form f) {
  return f == Form::BinaryC || f == Form::CBinary || f == Form::IntBinaryC || f == Form::IntCBinary ||
         f == Form::CompareC || f == Form::SetC;
}
bool is_int_form(Form f) { return f == Form::IntBinary || f == Form::IntBinaryC || f == Form::IntCBinary; }
bool is_compare(Form f) { return f == Form::Compare || f == Form::CompareC; }
// Forms whose prototype has stride arguments (a NULL one means the aligned layout).
bool has_strides(Form f) { return f != Form::Bcast && f != Form::Exp && !is_select(f); }

struct Opnd {
  bool tensor = false;   // in local memory (a TENSOR, a VECTOR, a strided operand)
  bool scalar = false;   // a constant (a select's SCALAR): `code`
  bool vector = false;   // a select's VECTOR: strides 0, one element per NPU (spec 50 §3)
  bool aligned = false;  // NULL stride: the 64-byte aligned layout (its planes never share a byte)
  uint32_t r = 0;   // in-NPU byte offset
  int64_t q = 0;    // start NPU
  Strides s{};      // element strides
  int e = 0;        // element bytes
  DType fmt = DType::u8;
  bool bcast = false;  // npu_bcast source: every channel reads channel 0
  uint64_t code = 0;   // scalar: the value, masked to the operand's width
};

struct Plan {
  const Row* row;
  int64_t N, C, H, W;
  Opnd dst, a, b;
  Opnd src2, src3, dst1;    // selects: the two values; the extremum functions' second destination
  const DTypeInfo* cmp = nullptr;  // selects: src0/src1 dtype (dst0 for the extremum functions)
  const DTypeInfo* val = nullptr;  // selects: src2/src3/dst (dst1) dtype
  uint64_t c_code = 0;      // the scalar C as a code of its dtype
  DType c_fmt = DType::u8;  // the scalar's dtype (integer forms: C_dtype)
  uint64_t true_code = 0;   // compares
  int shift = 0, rounding = 0;
  bool saturation = true;
  bool stage = false;       // a destination overlaps a source other than element for element
  ops::Path path = ops::Path::Fast;
};

// Where an operand lives and so which rules it follows (spec 50 §1, §4; spec 51 §3).
enum class Place : uint8_t {
  Aligned,  // NULL stride / a select TENSOR: 64-byte aligned layout, offset a multiple of ALIGN_BYTES
  Free,     // explicit strides: element-aligned, strides >= 0
  Vector,   // a select VECTOR: strides 0 (one element per NPU), element-aligned
};

struct Checker {
  const Device& dev;
  const Row& row;
  const char* doc;  // the docs anchor every message of this function cites
  [[noreturn]] void fail(ErrorCode c, const std::string& d) const { raise(c, row.name, d, doc); }
  const DTypeInfo& dtype(int dt, const char* what, uint8_t classes) const {
    const DTypeInfo* d = dtype_info(dt);
    if (!d) fail(ErrorCode::Unsupported, fmt::format("{} {} is not a data_type_t value", what, dt));
    if (classes == kSel) {
      const uint64_t ok_set = dev.profile().select_dtypes;
      if (dt < 0 || dt >= 64 || !(ok_set >> dt & 1u)) {
        std::string ok;
        for (unsigned v = 0; v < 64; ++v)
          if (ok_set >> v & 1u) {
            if (!ok.empty()) ok += ", ";
            ok += dtype_info(static_cast<int>(v))->vendor;
          }
        fail(ErrorCode::Unsupported, fmt::format("{} {} is not supported by the select instructions on {} "
                                                 "(accepted: {})",
                                                 what, dtype_label(dt), dev.profile().name, ok));
      }
      return *d;
    }
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
  // shape non-NULL, each entry in [1, 65535]; fills p.N .. p.W.
  void shape(const dim4* sh, Plan& p) const {
    if (!sh) fail(ErrorCode::Constraint, "shape is NULL");
    const int dims[4] = {sh->n, sh->c, sh->h, sh->w};
    for (int i = 0; i < 4; ++i)
      if (dims[i] < 1 || dims[i] > 65535)
        fail(ErrorCode::Constraint, fmt::format("shape->{} must be in [1, 65535], got {}", "nchw"[i], dims[i]));
    p.N = sh->n, p.C = sh->c, p.H = sh->h, p.W = sh->w;
  }
  // An operand in local memory: the address inside local memory, the same start NPU as `ref`
  // (when given), the placement's alignment and stride rules, every touched byte inside its NPU.
  Opnd operand(const std::string& what, local_addr_t addr, Place place, const dim4* stride, const DTypeInfo& d,
               const Plan& p, int64_t C, const Opnd* ref = nullptr, const char* ref_name = nullptr) const {
    Opnd o;
    o.tensor = true;
    o.e = dtype_bytes(d);
    o.fmt = d.fmt;
    const uint64_t total = uint64_t{dev.local_mem_size()} * static_cast<uint64_t>(dev.npu_num());
    if (addr >= total)
      fail(ErrorCode::Bounds,
           fmt::format("{} address 0x{:x} is outside local memory (NPU_NUM {} x LOCAL_MEM_SIZE {} = {} bytes)", what,
                       addr, dev.npu_num(), dev.local_mem_size(), total));
    o.q = addr / dev.local_mem_size();
    o.r = addr % dev.local_mem_size();
    if (ref && o.q != ref->q)
      fail(ErrorCode::Constraint, fmt::format("{} starts on NPU {} but {} on NPU {} (dst and every local-memory "
                                              "source must start on the same NPU)",
                                              what, o.q, ref_name, ref->q));
    switch (place) {
      case Place::Free:
        if (stride->n < 0 || stride->c < 0 || stride->h < 0 || stride->w < 0)
          fail(ErrorCode::Constraint, fmt::format("{}_stride must be non-negative, got [{}, {}, {}, {}]", what,
                                                  stride->n, stride->c, stride->h, stride->w));
        o.s = {stride->n, stride->c, stride->h, stride->w};
        break;
      case Place::Vector:
        o.vector = true;  // strides 0: channel c reads offset r of NPU (q + c) % NPU_NUM
        break;
      case Place::Aligned:
        o.aligned = true;
        o.s = aligned_strides(o.q, C, p.H, p.W, o.e, dev.align_bytes(), dev.npu_num());
        if (o.r % static_cast<uint32_t>(dev.align_bytes()))
          fail(ErrorCode::Constraint,
               fmt::format("{} in-NPU offset 0x{:x} must be a multiple of ALIGN_BYTES {} ({}, 64-byte aligned "
                           "layout{})",
                           what, o.r, dev.align_bytes(), dev.profile().name,
                           has_strides(row.form) ? ", NULL stride" : ""));
        break;
    }
    if (o.r % static_cast<uint32_t>(o.e))  // free layouts and VECTORs: element-aligned
      fail(ErrorCode::Constraint, fmt::format("{} in-NPU offset 0x{:x} must be a multiple of the element size {} ({})",
                                              what, o.r, o.e, o.vector ? "a VECTOR operand" : "free layout"));
    const int64_t hi = o.r + tensor_extent_bytes(o.s, o.q, p.N, C, p.H, p.W, o.e, dev.npu_num());
    if (hi > static_cast<int64_t>(dev.local_mem_size()))
      fail(ErrorCode::Bounds,
           fmt::format("{} touches in-NPU bytes [0x{:x}, 0x{:x}) for shape [{}, {}, {}, {}] starting on NPU {}, beyond "
                       "LOCAL_MEM_SIZE 0x{:x} ({})",
                       what, o.r, hi, p.N, C, p.H, p.W, o.q, dev.local_mem_size(), dev.profile().name));
    return o;
  }
  Opnd tensor(const char* what, local_addr_t addr, const dim4* stride, const DTypeInfo& d, const Plan& p, int64_t C,
              const Opnd* ref = nullptr) const {
    return operand(what, addr, stride ? Place::Free : Place::Aligned, stride, d, p, C, ref, "dst");
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

// Reads before writes: a destination overlapping a source in any other way than element for
// element (same offset, strides and width) is computed into a staging buffer first.
bool needs_stage(const Plan& p, int npu_num) {
  for (const Opnd* d : {&p.dst, &p.dst1}) {
    if (!d->tensor) continue;
    const auto [dlo, dhi] = range(*d, p, npu_num);
    for (const Opnd* s : {&p.a, &p.b, &p.src2, &p.src3}) {
      if (!s->tensor) continue;
      const auto [lo, hi] = range(*s, p, npu_num);
      if (lo < dhi && dlo < hi && !same_layout(*s, *d)) return true;
    }
  }
  return false;
}

Plan plan(const Device& dev, const BdcCall& k) {
  if (!k.fn) raise(ErrorCode::Constraint, "tpu_bdc", "function name is NULL", kDoc);
  const Row* row = find_row(k.fn);
  if (!row || is_select(row->form))
    raise(ErrorCode::Unsupported, k.fn, "not a BDC arithmetic function (see tilesim::tpu::bdc_function_names)",
          kDoc);
  const Checker ck{dev, *row, kDoc};
  const Form f = row->form;
  Plan p{};
  p.row = row;
  ck.shape(k.shape, p);
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
  if (f == Form::Compare || f == Form::CompareC) {
    bd = &ad;
    p.cmp = &ad, p.val = &dd;  // for the select kernel (run_plane)
  }

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
    p.a = ck.tensor(has_src1(f) ? "src0" : "src", k.src0, k.src0_stride, ad, p, f == Form::Bcast ? 1 : p.C,
                    f == Form::Bcast ? nullptr : &p.dst);
    p.a.bcast = f == Form::Bcast;
  }
  if (has_src1(f)) p.b = ck.tensor("src1", k.src1, k.src1_stride, *bd, p, p.C, &p.dst);
  if (has_scalar(f)) {
    const DTypeInfo& cd = is_int_form(f) ? *bd : (f == Form::SetC ? dd : ad);
    p.c_fmt = cd.fmt;
    p.c_code = mask_code(k.c_bits, dtype_bytes(cd));
  }
  if (is_compare(f)) p.true_code = mask_code(k.true_bits, dtype_bytes(dd));
  if (f == Form::Cast && ad.bits == 0) ck.fail(ErrorCode::Unsupported, "src dtype");

  p.stage = needs_stage(p, dev.npu_num());
  return p;
}

// ---- the selects' checks (spec 50 §4) ----

const char* const kSrcName[4] = {"src0", "src1", "src2", "src3"};

const char* kind_name(var_type_t t) {
  switch (t) {
    case TENSOR:
      return "TENSOR";
    case SCALAR:
      return "SCALAR";
    case VECTOR:
      return "VECTOR";
  }
  return "?";
}

// Byte interval [lo, hi) inside one NPU.
struct Hull {
  int64_t lo, hi;
};
// An aligned-layout tensor of the call's shape at in-NPU offset r (spec 50 §1).
struct Placed {
  uint32_t r;
  int e;
  const Strides* s;
};
// Two elements' rows, one of each tensor, that share a byte: the NPU, each row's (n, c) and its
// in-NPU bytes.
struct Clash {
  int64_t npu, n[2], c[2];
  Hull bytes[2];
};

// The first byte two tensors of the same shape and start NPU q both touch, found exactly: hulls
// are not enough, because with q > 0 and C wrapping past NPU_NUM one tensor's rows can sit in the
// gaps of the other's (spec 50 §3 forbids shared bytes, not interleaving). Each NPU holds
// contiguous runs of H*W elements, one per (n, slot), and NPU k holds slots [lo, hi] where
// c = slot * NPU_NUM + k - q is in [0, C). In (n, slot) order the runs are at increasing
// addresses (stride_n >= slots * stride_c, stride_c >= H*W), so the two lists are merged.
// NPUs holding the same slots have the same byte pattern: each is walked once. Bounds are
// already checked, so each list has at most LOCAL_MEM_SIZE / ALIGN_BYTES runs.
bool first_shared_byte(const Placed (&t)[2], int64_t q, int64_t N, int64_t C, int64_t HW, int npu_num,
                       Clash& out) {
  int64_t done_lo = -1, done_hi = -1;
  for (int64_t k = 0; k < npu_num; ++k) {
    const int64_t lo = k < q ? 1 : 0;
    if (C - 1 + q - k < 0) continue;  // no channel on this NPU
    const int64_t hi = (C - 1 + q - k) / npu_num;
    if (lo > hi || (lo == done_lo && hi == done_hi)) continue;
    done_lo = lo;
    done_hi = hi;
    const int64_t runs = N * (hi - lo + 1);
    auto run = [&](int which, int64_t i) {
      const Placed& p = t[which];
      const int64_t n = i / (hi - lo + 1), slot = lo + i % (hi - lo + 1);
      const int64_t b = p.r + (n * p.s->n + slot * p.s->c) * p.e;
      return Hull{b, b + HW * p.e};
    };
    for (int64_t i = 0, j = 0; i < runs && j < runs;) {
      const Hull a = run(0, i), b = run(1, j);
      if (a.hi <= b.lo) {
        ++i;
      } else if (b.hi <= a.lo) {
        ++j;
      } else {
        const int64_t slots = hi - lo + 1;
        out = {k,
               {i / slots, j / slots},
               {(lo + i % slots) * npu_num + k - q, (lo + j % slots) * npu_num + k - q},
               {a, b}};
        return true;
      }
    }
  }
  return false;
}

// Every rule of spec 50 §4, on the walker's operand checks: TENSOR sources and the destinations
// are aligned-layout operands, a VECTOR an operand with strides 0, a SCALAR a constant.
Plan plan_select(const Device& dev, SelectOp op, local_addr_t dst0, local_addr_t dst1,
                 const variable_t* const src[4], const dim4* shape, int dt_a, int dt_b) {
  const Row& row = *find_row(instruction_name(op));
  const Checker ck{dev, row, kSelectDoc};
  const bool ext = row.form == Form::Extremum;
  const char* name_a = ext ? "dst0_dtype" : "src0_src1_dtype";
  const char* name_b = ext ? "dst1_dtype" : "dst_dtype";
  const char* dst_name = ext ? "dst0" : "dst";

  // NULL pointers and var_type_t values.
  for (int i = 0; i < 4; ++i)
    if (!src[i]) ck.fail(ErrorCode::Constraint, fmt::format("{} is NULL", kSrcName[i]));
  if (!shape) ck.fail(ErrorCode::Constraint, "shape is NULL");
  for (int i = 0; i < 4; ++i) {
    const int t = raw_enum(src[i]->type);
    if (t != TENSOR && t != SCALAR && t != VECTOR)
      ck.fail(ErrorCode::Constraint,
              fmt::format("{}->type must be TENSOR (0), SCALAR (1) or VECTOR (2), got {}", kSrcName[i], t));
  }

  Plan p{};
  p.row = &row;
  p.path = dev.reference() ? ops::Path::Reference : ops::Path::Fast;
  // Data types supported on this chip (spec 50 §2).
  p.cmp = &ck.dtype(dt_a, name_a, kSel);
  p.val = &ck.dtype(dt_b, name_b, kSel);
  // The compare rule the profile names; the kernels implement IEEE (spec 50 §3). No default:
  // a new FloatCompare value does not compile here until it is implemented or rejected.
  if (p.cmp->kind == CmpKind::Float) switch (dev.profile().float_compare) {
      case FloatCompare::ieee:
        break;
    }
  ck.shape(shape, p);

  // The two width rules.
  if (!ext && p.cmp->bits > p.val->bits)
    ck.fail(ErrorCode::Constraint,
            fmt::format("bit width of src0_src1_dtype ({}, {}) must be <= bit width of dst_dtype ({}, {})", p.cmp->bits,
                        dtype_label(dt_a), p.val->bits, dtype_label(dt_b)));
  if (ext && p.cmp->bits != p.val->bits)
    ck.fail(ErrorCode::Constraint,
            fmt::format("bit width of dst0_dtype ({}, {}) must equal bit width of dst1_dtype ({}, {})", p.cmp->bits,
                        dtype_label(dt_a), p.val->bits, dtype_label(dt_b)));

  // Operands: destinations, then sources; each in local memory, on dst's start NPU, aligned
  // (ALIGN_BYTES; a VECTOR its element size), every touched byte inside its NPU.
  p.dst = ck.operand(dst_name, dst0, Place::Aligned, nullptr, ext ? *p.cmp : *p.val, p, p.C);
  if (ext) p.dst1 = ck.operand("dst1", dst1, Place::Aligned, nullptr, *p.val, p, p.C, &p.dst, dst_name);
  Opnd* const srcs[4] = {&p.a, &p.b, &p.src2, &p.src3};
  for (int i = 0; i < 4; ++i) {
    const DTypeInfo& d = i < 2 ? *p.cmp : *p.val;
    const var_type_t kind = src[i]->type;
    if (kind == SCALAR) {
      // The low bits of the union, read as the operand's dtype (spec 50 §2).
      srcs[i]->scalar = true;
      srcs[i]->e = dtype_bytes(d);
      srcs[i]->fmt = d.fmt;
      srcs[i]->code = mask_code(src[i]->context.scalar.u32, dtype_bytes(d));
      continue;
    }
    *srcs[i] = ck.operand(fmt::format("{} ({})", kSrcName[i], kind_name(kind)), src[i]->context.addr,
                          kind == TENSOR ? Place::Aligned : Place::Vector, nullptr, d, p, p.C, &p.dst, dst_name);
  }

  // dst0 and dst1 must not overlap (spec 50 §3): no byte of one may be a byte of the other.
  // Disjoint hulls settle it; otherwise the rows are compared exactly.
  Clash clash{};
  if (ext) {
    const auto [lo0, hi0] = range(p.dst, p, dev.npu_num());
    const auto [lo1, hi1] = range(p.dst1, p, dev.npu_num());
    if (lo0 < hi1 && lo1 < hi0 &&
        first_shared_byte({{p.dst.r, p.dst.e, &p.dst.s}, {p.dst1.r, p.dst1.e, &p.dst1.s}}, p.dst.q, p.N, p.C,
                          p.H * p.W, dev.npu_num(), clash))
      ck.fail(ErrorCode::Constraint,
              fmt::format("dst0 and dst1 must not overlap: on NPU {}, dst0 (n {}, c {}) in-NPU bytes [0x{:x}, "
                          "0x{:x}) and dst1 (n {}, c {}) bytes [0x{:x}, 0x{:x}) share bytes (shape [{}, {}, {}, "
                          "{}] starting on NPU {})",
                          clash.npu, clash.n[0], clash.c[0], clash.bytes[0].lo, clash.bytes[0].hi, clash.n[1],
                          clash.c[1], clash.bytes[1].lo, clash.bytes[1].hi, p.N, p.C, p.H, p.W, p.dst.q));
  }
  p.stage = needs_stage(p, dev.npu_num());
  return p;
}

// The checked call as the reference reads it (its own layout arithmetic, straight from spec 50).
SelectPlan reference_plan(const Device& dev, SelectOp op, const Plan& p, const variable_t* const src[4]) {
  SelectPlan r{};
  r.op = op;
  r.N = p.N, r.C = p.C, r.H = p.H, r.W = p.W;
  r.q = p.dst.q;
  r.npu_num = dev.npu_num();
  r.npu_stride = dev.npu_stride();
  r.cmp = p.cmp;
  r.val = p.val;
  r.extremum = p.row->form == Form::Extremum;
  r.dst_r[0] = p.dst.r;
  r.dst_r[1] = p.dst1.r;
  const Opnd* const srcs[4] = {&p.a, &p.b, &p.src2, &p.src3};
  for (int i = 0; i < 4; ++i) r.src[i] = {src[i]->type, srcs[i]->r, static_cast<uint32_t>(srcs[i]->code)};
  r.cmp_s = aligned_strides(r.q, p.C, p.H, p.W, dtype_bytes(*p.cmp), dev.align_bytes(), dev.npu_num());
  r.val_s = aligned_strides(r.q, p.C, p.H, p.W, dtype_bytes(*p.val), dev.align_bytes(), dev.npu_num());
  return r;
}

// ---- the walker ----

// Pointer to the first element of plane (n, c) of an operand; `stride` is Device::npu_stride(),
// NPU k's local memory starting k * stride bytes into `mem` (docs/tpu.md#host-layout).
// Where channel c of an operand lives (an npu_bcast source: channel 0's place for every c).
inline ChannelPos operand_channel(const Opnd& o, int64_t c, int npu_num) {
  return o.bcast ? ChannelPos{o.q, 0} : channel_pos(o.q, c, npu_num);
}
inline uint8_t* plane_at(uint8_t* mem, size_t stride, const Opnd& o, int64_t n, ChannelPos pos) {
  return mem + size_t(pos.npu) * stride + o.r + (n * o.s.n + pos.slot * o.s.c) * o.e;
}
inline uint8_t* plane(uint8_t* mem, size_t stride, int npu_num, const Opnd& o, int64_t n, int64_t c) {
  return plane_at(mem, stride, o, n, operand_channel(o, c, npu_num));
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

// The forms whose core kernel takes rows as they are (element-wise arithmetic): g's rows through it.
bool rows_form(Form f) {
  return f == Form::Binary || f == Form::BinaryC || f == Form::CBinary || f == Form::Unary || f == Form::Exp;
}
// The forms run_plane takes as any H rows of W elements with row strides (each row element-wise
// on its own), so a run of dense planes can be its rows: integer arithmetic, compares, copy, cast.
bool plane_rows_form(Form f) {
  return f == Form::IntBinary || f == Form::IntBinaryC || f == Form::IntCBinary || f == Form::Compare ||
         f == Form::CompareC || f == Form::Copy || f == Form::Cast;
}
void run_rows(const Plan& p, const ops::Rows2& g) {
  const Form f = p.row->form;
  if (f == Form::Binary)
    ops::binary_rows(p.row->op, p.dst.fmt, g, p.path);
  else if (f == Form::BinaryC || f == Form::CBinary)
    ops::binary_scalar_rows(p.row->op, p.dst.fmt, g, p.c_code, f == Form::CBinary, p.path);
  else
    ops::unary_rows(p.row->op, p.dst.fmt, g, p.path);
}

// One plane: H rows of W elements (the plan's H and W, or a run of dense planes as H rows of
// H*W: execute's rows_body), through the element-op core. When every row follows the previous
// one in each operand (the aligned layout, dense outputs) the plane is one row of H*W: one call
// of each core kernel per plane instead of one per row.
void run_plane(const Plan& p, size_t H, size_t W, RowsView a, RowsView b, uint8_t* d, size_t ds, Scratch& s) {
  const Form f = p.row->form;
  const Op op = p.row->op;
  const bool flat = H > 1 && ds == W * static_cast<size_t>(p.dst.e) &&
                    (!a.p || a.stride == W * static_cast<size_t>(p.a.e)) &&
                    (!b.p || b.stride == W * static_cast<size_t>(p.b.e));
  if (flat) W *= H, H = 1;
  ops::Rows2 g;
  g.a = a.p, g.as = a.stride, g.b = b.p, g.bs = b.stride, g.d = d, g.ds = ds, g.rows = H, g.n = W;
  switch (f) {
    case Form::Binary:
    case Form::BinaryC:
    case Form::CBinary:
    case Form::Unary:
    case Form::Exp:
      run_rows(p, g);
      return;
    case Form::Select:
    case Form::Extremum:
      return;  // select_plane_rows
    case Form::Compare:
    case Form::CompareC: {
      // >, <, ==, != into a destination at least as wide as the sources: the select kernel,
      // dst = (a OP b) ? true_val : 0 (!= is == with the values swapped: NaN gives true_val).
      if (p.path == ops::Path::Fast && (op == Op::gt || op == Op::lt || op == Op::eq || op == Op::ne) &&
          p.a.e <= p.dst.e) {
        simd::PlaneArgs sa{};
        sa.ext_swapped = op == Op::lt;
        sa.eq = op == Op::eq || op == Op::ne;
        sa.kind = static_cast<uint8_t>(p.cmp->kind);
        const NanRule nr = nan_rule(*p.cmp);
        sa.mag = nr.mag_mask, sa.nan_above = nr.nan_above;
        const simd::Stream yes{nullptr, static_cast<uint32_t>(p.true_code)}, no{nullptr, 0};
        sa.t = op == Op::ne ? no : yes;
        sa.f = op == Op::ne ? yes : no;
        sa.n = W;
        for (size_t h = 0; h < H; ++h) {
          const simd::Stream x{a.p + h * a.stride, 0};
          const simd::Stream y = f == Form::CompareC ? simd::Stream{nullptr, static_cast<uint32_t>(p.c_code)}
                                                     : simd::Stream{b.p + h * b.stride, 0};
          sa.x = sa.ext_swapped ? y : x;
          sa.y = sa.ext_swapped ? x : y;
          sa.d_val = d + h * ds;
          select_plane(sa, p.a.e, p.dst.e);
        }
        return;
      }
      const size_t bstride = (W + 7) / 8;
      s.bits.resize(bstride * H);
      ops::Rows2 c = g;
      c.d = s.bits.data(), c.ds = bstride;
      ops::compare_bits_rows(op, p.a.fmt, c, f == Form::CompareC, p.c_code, p.path);
      if (s.truth.size() < W * p.dst.e) {  // a row of true_val, once per scratch
        s.truth.resize(W * p.dst.e);
        for (size_t i = 0; i < W; ++i) std::memcpy(&s.truth[i * p.dst.e], &p.true_code, p.dst.e);  // LE code
      }
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
      const bool same = p.a.fmt == p.dst.fmt && (f == Form::IntBinary ? p.b.fmt : p.c_fmt) == p.dst.fmt;
      if (p.path == ops::Path::Fast && same && p.shift == 0 && (op == Op::add || op == Op::sub)) {
        // One dtype, no shift: the lanes' own saturating / wrapping add and sub (int_simd.cpp).
        const bool sgn = formats::info(p.dst.fmt).kind == formats::Kind::Signed;
        int_addsub_same_dtype(op == Op::sub, p.dst.e, sgn, a.p, a.stride, f == Form::IntBinary ? b.p : nullptr,
                              b.stride, static_cast<uint32_t>(p.c_code), f == Form::IntCBinary, d, ds, H, W,
                              p.saturation);
        return;
      }
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

// The select kernel's arguments that do not change from plane to plane.
simd::PlaneArgs select_args(const Plan& p) {
  simd::PlaneArgs a{};
  const Op op = p.row->op;
  a.ext_swapped = op == Op::lt;  // Less / MinimumLess compare src1 > src0
  a.eq = op == Op::eq;
  a.kind = static_cast<uint8_t>(p.cmp->kind);
  const NanRule nr = nan_rule(*p.cmp);
  a.mag = nr.mag_mask;
  a.nan_above = nr.nan_above;
  return a;
}

// One select plane: each source a pointer or a constant (a SCALAR, or a VECTOR's element for the
// plane's channel), the SIMD kernel over each run of contiguous elements (the whole plane when
// the rows follow each other, as they do in the aligned layout).
void select_plane_rows(const Plan& p, simd::PlaneArgs a, uint8_t* mem, size_t stride, int npu, int64_t n, int64_t c,
                       uint8_t* const out[2], const size_t os[2]) {
  const int64_t H = p.H, W = p.W;
  const Opnd* const src[4] = {&p.a, &p.b, &p.src2, &p.src3};
  simd::Stream s[4];
  size_t step[4] = {};  // bytes from one row of a source to the next
  bool flat = true;
  for (int i = 0; i < 4; ++i) {
    const Opnd& o = *src[i];
    if (o.scalar) {
      s[i] = {nullptr, static_cast<uint32_t>(o.code)};
      continue;
    }
    const uint8_t* at = plane(mem, stride, npu, o, n, c);
    if (o.vector) {
      uint32_t v = 0;
      std::memcpy(&v, at, static_cast<size_t>(o.e));
      s[i] = {nullptr, v};
      continue;
    }
    s[i] = {at, 0};
    step[i] = static_cast<size_t>(o.s.h * o.e);
    flat = flat && (H == 1 || o.s.h == W);  // select tensors have w stride 1 (aligned layout)
  }
  const bool ext = p.row->form == Form::Extremum;
  const int ec = dtype_bytes(*p.cmp), ev = dtype_bytes(*p.val);
  const int out_e[2] = {ext ? ec : ev, ev};
  for (int d = 0; d < (ext ? 2 : 1); ++d) flat = flat && (H == 1 || os[d] == static_cast<size_t>(W * out_e[d]));
  const int64_t rows = flat ? 1 : H;
  a.n = static_cast<size_t>(flat ? H * W : W);
  for (int64_t h = 0; h < rows; ++h) {
    auto row = [&](int i) { return simd::Stream{s[i].p ? s[i].p + h * step[i] : nullptr, s[i].bits}; };
    const simd::Stream r0 = row(0), r1 = row(1);
    a.x = a.ext_swapped ? r1 : r0;
    a.y = a.ext_swapped ? r0 : r1;
    a.t = row(2);
    a.f = row(3);
    if (ext) {
      a.d_ext = out[0] + h * os[0];
      a.d_val = out[1] + h * os[1];
    } else {
      a.d_val = out[0] + h * os[0];
    }
    select_plane(a, ec, ev);
  }
}

// Every (n, c) plane of the call: its destination rows (in place when dense, else a staging
// plane), its sources' rows, the form's plane function. Planes are independent when no
// destination plane shares a byte with another (aligned layouts): then they run on threads.
// The local memory, after every check: the sources' bytes noted as read (first: a destination
// over a source must not skip the zeros the source reads, Device::data_written), then the
// destinations' as written.
uint8_t* written_memory(Device& dev, const Plan& p) {
  for (const Opnd* s : {&p.a, &p.b, &p.src2, &p.src3})
    if (s->tensor) {
      const auto [lo, hi] = range(*s, p, dev.npu_num());
      dev.data_read(static_cast<uint32_t>(lo), static_cast<uint32_t>(hi));
    }
  for (const Opnd* d : {&p.dst1, &p.dst})
    if (d->tensor) {
      const auto [lo, hi] = range(*d, p, dev.npu_num());
      dev.data_written(static_cast<uint32_t>(lo), static_cast<uint32_t>(hi),
                       writes_every_byte(d->s, d->q, p.N, p.C, p.H, p.W, dev.npu_num()));
    }
  return dev.data_written(0, 0);
}

void execute(Device& dev, const Plan& p) {
  uint8_t* mem = written_memory(dev, p);
  const size_t stride = dev.npu_stride();
  const int npu = dev.npu_num();
  const bool sel = is_select(p.row->form);
  const Opnd* const dsts[2] = {&p.dst, &p.dst1};
  const int ndst = p.dst1.tensor ? 2 : 1;
  const int64_t planes = p.N * p.C;
  const int64_t HW = p.H * p.W;
  size_t plane_bytes[2] = {};
  bool dense = !p.stage, disjoint = true;
  for (int d = 0; d < ndst; ++d) {
    plane_bytes[d] = static_cast<size_t>(HW * dsts[d]->e);
    dense = dense && (dsts[d]->s.w == 1 || p.W == 1);
    disjoint = disjoint && dsts[d]->aligned;
  }
  std::vector<uint8_t> staged[2];
  if (p.stage)
    for (int d = 0; d < ndst; ++d) staged[d].resize(plane_bytes[d] * static_cast<size_t>(planes));
  const simd::PlaneArgs sel_args = sel ? select_args(p) : simd::PlaneArgs{};
  // Element-wise arithmetic on dense planes (each plane's H x W elements back to back in every
  // operand) takes runs of planes as rows of one core call: planes k, k + 1, ... whose destination
  // and sources each step by one fixed positive distance (consecutive channels on consecutive
  // NPUs). The same elements in the same order as plane by plane, one call instead of one per
  // plane (~15 ns each; a 64 K-element operand is 64 planes of 1 K). The plane_rows_form forms
  // (integer arithmetic, compares, copy, cast) take such a run as run_plane's rows: per plane they
  // cost ~24 ns in the loop below (its plane() divisions), 1.5 us of a 64 K-element int_add.
  const auto dense_plane = [&](const Opnd& o) { return !o.tensor || o.s.w == 1 || p.W == 1; };
  const bool by_rows = !sel && dense && !p.stage && (rows_form(p.row->form) || plane_rows_form(p.row->form)) &&
                       ndst == 1 && dense_plane(p.a) &&
                       dense_plane(p.b) && (p.H == 1 || (p.dst.s.h == p.W && (!p.a.tensor || p.a.s.h == p.W) &&
                                                         (!p.b.tensor || p.b.s.h == p.W)));
  const auto rows_body = [&](size_t begin, size_t end) {
    // Plane k's (n, c) and each operand's (npu, slot) stepped along with k (no divisions per
    // plane: plane() divides twice per operand, ~7 ns a plane of 64 measured).
    struct Pos {
      const Opnd* o;
      ChannelPos at{};
    };
    Pos pos[3] = {{&p.dst}, {&p.a}, {&p.b}};
    int64_t n = static_cast<int64_t>(begin) / p.C, c = static_cast<int64_t>(begin) % p.C;
    for (Pos& q : pos) q.at = operand_channel(*q.o, c, npu);
    const auto addr = [&](const Pos& q) -> uint8_t* {
      return q.o->tensor ? plane_at(mem, stride, *q.o, n, q.at) : nullptr;
    };
    Scratch scratch;  // plane_rows_form's buffers
    const auto step = [&] {  // channel_pos(q, c + 1) from channel_pos(q, c)
      if (++c == p.C) {
        c = 0, ++n;
        for (Pos& q : pos) q.at = operand_channel(*q.o, 0, npu);
        return;
      }
      for (Pos& q : pos)
        if (!q.o->bcast && ++q.at.npu == npu) q.at.npu = 0, ++q.at.slot;
    };
    for (size_t k = begin; k < end;) {
      uint8_t* const d0 = addr(pos[0]);
      const uint8_t* const a0 = addr(pos[1]);
      const uint8_t* const b0 = addr(pos[2]);
      ptrdiff_t dd = 0, da = 0, db = 0;
      size_t m = 1;
      step();
      for (; k + m < end; ++m, step()) {
        const ptrdiff_t nd = addr(pos[0]) - (d0 + dd * ptrdiff_t(m - 1)),
                        na = a0 ? addr(pos[1]) - (a0 + da * ptrdiff_t(m - 1)) : 0,
                        nb = b0 ? addr(pos[2]) - (b0 + db * ptrdiff_t(m - 1)) : 0;
        if (m == 1) {
          if (nd <= 0 || na < 0 || nb < 0) break;  // (a source may repeat: npu_bcast)
          dd = nd, da = na, db = nb;
        } else if (nd != dd || na != da || nb != db) {
          break;
        }
      }
      if (plane_rows_form(p.row->form)) {
        run_plane(p, m, static_cast<size_t>(HW), RowsView{a0, size_t(da)}, RowsView{b0, size_t(db)}, d0, size_t(dd),
                  scratch);
      } else {
        ops::Rows2 g;
        g.a = a0, g.as = size_t(da), g.b = b0, g.bs = size_t(db), g.d = d0, g.ds = size_t(dd);
        g.rows = m, g.n = static_cast<size_t>(HW);
        run_rows(p, g);
      }
      k += m;
    }
  };
  auto body = [&](size_t begin, size_t end) {
    if (by_rows) return rows_body(begin, end);
    Scratch s;
    std::vector<uint8_t> tmp[2];  // a non-dense destination's plane, scattered after
    for (size_t k = begin; k < end; ++k) {
      const int64_t n = static_cast<int64_t>(k) / p.C, c = static_cast<int64_t>(k) % p.C;
      uint8_t* out[2] = {};
      size_t os[2] = {};
      for (int d = 0; d < ndst; ++d) {
        if (dense) {
          out[d] = plane(mem, stride, npu, *dsts[d], n, c);
          os[d] = static_cast<size_t>(dsts[d]->s.h * dsts[d]->e);
          continue;
        }
        if (p.stage) {
          out[d] = staged[d].data() + k * plane_bytes[d];
        } else {
          tmp[d].resize(plane_bytes[d]);
          out[d] = tmp[d].data();
        }
        os[d] = static_cast<size_t>(p.W * dsts[d]->e);
      }
      if (sel) {
        select_plane_rows(p, sel_args, mem, stride, npu, n, c, out, os);
      } else {
        const RowsView a = p.a.tensor ? view(plane(mem, stride, npu, p.a, n, c), p.a, p, s.ga) : RowsView{nullptr, 0};
        const RowsView b = p.b.tensor ? view(plane(mem, stride, npu, p.b, n, c), p.b, p, s.gb) : RowsView{nullptr, 0};
        run_plane(p, static_cast<size_t>(p.H), static_cast<size_t>(p.W), a, b, out[0], os[0], s);
      }
      if (!dense && !p.stage)
        for (int d = 0; d < ndst; ++d) scatter(plane(mem, stride, npu, *dsts[d], n, c), *dsts[d], p, out[d]);
    }
  };
  // Threads only on the fast path (the reference path stays one plain loop).
  const bool threads = disjoint && p.path == ops::Path::Fast;
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, 32768 / HW));
  if (threads)
    parallel_for(static_cast<size_t>(planes), grain, body);
  else
    body(0, static_cast<size_t>(planes));
  if (!p.stage) return;
  // All reads done: copy the staged planes in.
  auto copy_in = [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) {
      const int64_t n = static_cast<int64_t>(k) / p.C, c = static_cast<int64_t>(k) % p.C;
      for (int d = 0; d < ndst; ++d)
        scatter(plane(mem, stride, npu, *dsts[d], n, c), *dsts[d], p, staged[d].data() + k * plane_bytes[d]);
    }
  };
  if (threads)
    parallel_for(static_cast<size_t>(planes), grain, copy_in);
  else
    copy_in(0, static_cast<size_t>(planes));
}

}  // namespace

void run_select(Device& dev, SelectOp op, local_addr_t dst0, local_addr_t dst1, const variable_t* const src[4],
                const dim4* shape, int dtype_a, int dtype_b) {
  const Plan p = plan_select(dev, op, dst0, dst1, src, shape, dtype_a, dtype_b);
  if (dev.reference())
    select_reference(written_memory(dev, p), reference_plan(dev, op, p, src));  // the definition
  else
    execute(dev, p);
}

std::vector<std::string> bdc_function_names() {
  std::vector<std::string> out;
  for (const Row& r : kTable)
    if (!is_select(r.form)) out.emplace_back(r.name);
  return out;
}

std::vector<BdcSignature> bdc_signatures() {
  std::vector<BdcSignature> out;
  for (const Row& r : kTable) {
    if (is_select(r.form)) continue;
    const FormSig sig = signature(r.form);
    BdcSignature b;
    b.name = r.name;
    for (const char* p : sig.params) b.params.emplace_back(p);
    if (sig.c_dtype) b.c_dtype = sig.c_dtype;
    out.push_back(std::move(b));
  }
  return out;
}

void Device::bdc(const BdcCall& call) {
  const Plan p = plan(*this, call);
  // Integer division never happens here (the closure has no integer div), so no divisor check.
  execute(*this, p);
}

}  // namespace tilesim::tpu
