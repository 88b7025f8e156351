// Every rule of spec 50 §4 for the five compare-select functions, checked before anything is
// written. Each rule is a small predicate whose message names the instruction, the operand, the
// rule, the actual values and the spec section.
#include <fmt/format.h>

#include <algorithm>

#include "tpu/select.hpp"

namespace tilesim::tpu {
namespace {

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

struct Checker {
  const ChipProfile& chip;
  const char* instr;

  [[noreturn]] void fail(ErrorCode code, const std::string& detail, const char* spec) const {
    raise(code, instr, detail, spec);
  }

  // A select dtype: a vendor value, accepted by the select instructions on this chip (spec 50 §2).
  const DTypeInfo* dtype(int dt, const char* what) const {
    const DTypeInfo* d = dtype_info(dt);
    if (!d)
      fail(ErrorCode::Unsupported, fmt::format("{} {} is not a data_type_t value", what, dt),
           "docs/tpu.md#checks");
    if (dt < 0 || dt >= 64 || !(chip.select_dtypes >> dt & 1u)) {
      std::string ok;
      for (unsigned v = 0; v < 64; ++v)
        if (chip.select_dtypes >> v & 1u) {
          if (!ok.empty()) ok += ", ";
          ok += dtype_info(static_cast<int>(v))->vendor;
        }
      fail(ErrorCode::Unsupported,
           fmt::format("{} {} is not supported by the select instructions on {} (accepted: {})",
                       what, dtype_label(dt), chip.name, ok),
           "docs/tpu.md#checks");
    }
    return d;
  }

  void dim(const char* field, int v) const {
    if (v < 1 || v > 65535)
      fail(ErrorCode::Constraint, fmt::format("shape->{} must be in [1, 65535], got {}", field, v),
           "docs/tpu.md#checks");
  }

  // The address lies in local memory; returns its start NPU.
  int64_t npu_of(local_addr_t a, const std::string& what) const {
    const uint64_t total = uint64_t{chip.local_mem_size} * static_cast<uint64_t>(chip.npu_num);
    if (a >= total)
      fail(ErrorCode::Bounds,
           fmt::format("{} address 0x{:x} is outside local memory (NPU_NUM {} x LOCAL_MEM_SIZE {} "
                       "= {} bytes)",
                       what, a, chip.npu_num, chip.local_mem_size, total),
           "docs/tpu.md#checks");
    return a / chip.local_mem_size;
  }
};

// Byte interval [lo, hi) an operand touches inside each NPU it uses (a hull, relative to the NPU).
struct Hull {
  int64_t lo, hi;
};
bool overlaps(const Hull& a, const Hull& b) {
  return a.lo < b.hi && b.lo < a.hi;
}

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
bool first_shared_byte(const Placed (&t)[2], int64_t q, int64_t N, int64_t C, int64_t HW,
                       int npu_num, Clash& out) {
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

}  // namespace

SelectPlan plan_select(const ChipProfile& chip, SelectOp op, local_addr_t dst0, local_addr_t dst1,
                       const variable_t* const src[4], const dim4* shape, int dtype_a,
                       int dtype_b) {
  const Checker ck{chip, instruction_name(op)};
  SelectPlan p{};
  p.op = op;
  p.extremum = op == SelectOp::MaximumGreater || op == SelectOp::MinimumLess;
  p.npu_num = chip.npu_num;
  p.lms = chip.local_mem_size;
  const char* name_a = p.extremum ? "dst0_dtype" : "src0_src1_dtype";
  const char* name_b = p.extremum ? "dst1_dtype" : "dst_dtype";
  const char* dst_name[2] = {p.extremum ? "dst0" : "dst", "dst1"};

  // NULL pointers and var_type_t values (spec 50 §4).
  for (int i = 0; i < 4; ++i)
    if (!src[i]) ck.fail(ErrorCode::Constraint, fmt::format("{} is NULL", kSrcName[i]), "docs/tpu.md#checks");
  if (!shape) ck.fail(ErrorCode::Constraint, "shape is NULL", "docs/tpu.md#checks");
  for (int i = 0; i < 4; ++i) {
    const int t = raw_enum(src[i]->type);
    if (t != TENSOR && t != SCALAR && t != VECTOR)
      ck.fail(ErrorCode::Constraint,
              fmt::format("{}->type must be TENSOR (0), SCALAR (1) or VECTOR (2), got {}",
                          kSrcName[i], t),
              "docs/tpu.md#checks");
  }

  // Data types supported on this chip (spec 50 §2).
  const int dt_a = dtype_a, dt_b = dtype_b;
  p.cmp = ck.dtype(dt_a, name_a);
  p.val = ck.dtype(dt_b, name_b);
  p.cmp_nan = nan_rule(*p.cmp);
  // The compare rule the profile names; the kernels implement IEEE (spec 50 §3). No default:
  // a new FloatCompare value does not compile here until it is implemented or rejected.
  if (p.cmp->kind == CmpKind::Float) switch (chip.float_compare) {
      case FloatCompare::ieee:
        break;
    }

  // Shape ranges.
  ck.dim("n", shape->n);
  ck.dim("c", shape->c);
  ck.dim("h", shape->h);
  ck.dim("w", shape->w);
  p.N = shape->n;
  p.C = shape->c;
  p.H = shape->h;
  p.W = shape->w;

  // The two width rules.
  if (!p.extremum && p.cmp->bits > p.val->bits)
    ck.fail(ErrorCode::Constraint,
            fmt::format("bit width of src0_src1_dtype ({}, {}) must be <= bit width of dst_dtype "
                        "({}, {})",
                        p.cmp->bits, dtype_label(dt_a), p.val->bits, dtype_label(dt_b)),
            "docs/tpu.md#checks");
  if (p.extremum && p.cmp->bits != p.val->bits)
    ck.fail(ErrorCode::Constraint,
            fmt::format("bit width of dst0_dtype ({}, {}) must equal bit width of dst1_dtype "
                        "({}, {})",
                        p.cmp->bits, dtype_label(dt_a), p.val->bits, dtype_label(dt_b)),
            "docs/tpu.md#checks");

  const int ecmp = dtype_bytes(*p.cmp), eval = dtype_bytes(*p.val);
  const int ndst = p.extremum ? 2 : 1;
  const local_addr_t dst_addr[2] = {dst0, dst1};
  // Destination element widths: dst (val) for a select; dst0 (cmp), dst1 (val) for an extremum.
  const int dst_e[2] = {p.extremum ? ecmp : eval, eval};
  auto src_e = [&](int i) { return i < 2 ? ecmp : eval; };

  // Every address inside local memory; same start NPU.
  const int64_t q = ck.npu_of(dst0, dst_name[0]);
  if (p.extremum) {
    const int64_t q1 = ck.npu_of(dst1, "dst1");
    if (q1 != q)
      ck.fail(ErrorCode::Constraint,
              fmt::format("dst1 starts on NPU {}, dst0 on NPU {}; dst and every TENSOR/VECTOR "
                          "source must start on the same NPU",
                          q1, q),
              "docs/tpu.md#checks");
  }
  for (int i = 0; i < 4; ++i) {
    if (src[i]->type == SCALAR) continue;
    const int64_t qi = ck.npu_of(src[i]->context.addr,
                                 fmt::format("{} ({})", kSrcName[i], kind_name(src[i]->type)));
    if (qi != q)
      ck.fail(ErrorCode::Constraint,
              fmt::format("{} ({}) starts on NPU {}, {} on NPU {}; dst and every TENSOR/VECTOR "
                          "source must start on the same NPU",
                          kSrcName[i], kind_name(src[i]->type), qi, dst_name[0], q),
              "docs/tpu.md#checks");
  }
  p.q = q;

  // Alignment: dst and TENSOR sources on ALIGN_BYTES, VECTOR sources on their element size.
  const uint32_t A = static_cast<uint32_t>(chip.align_bytes);
  for (int d = 0; d < ndst; ++d) {
    const uint32_t r = dst_addr[d] % p.lms;
    if (r % A)
      ck.fail(ErrorCode::Constraint,
              fmt::format("{} in-NPU offset 0x{:x} must be a multiple of ALIGN_BYTES {} ({})",
                          dst_name[d], r, A, chip.name),
              "docs/tpu.md#checks");
    p.dst_r[d] = r;
  }
  for (int i = 0; i < 4; ++i) {
    PlanSource& s = p.src[i];
    s.kind = src[i]->type;
    if (s.kind == SCALAR) {
      // The low bits of the union, read as the operand's dtype (spec 50 §2).
      const uint32_t u = src[i]->context.scalar.u32;
      const int bits = i < 2 ? p.cmp->bits : p.val->bits;
      s.bits = bits == 32 ? u : (u & ((1u << bits) - 1u));
      continue;
    }
    s.r = src[i]->context.addr % p.lms;
    const uint32_t need = s.kind == TENSOR ? A : static_cast<uint32_t>(src_e(i));
    if (s.r % need)
      ck.fail(ErrorCode::Constraint,
              fmt::format("{} ({}) in-NPU offset 0x{:x} must be a multiple of {} {}", kSrcName[i],
                          kind_name(s.kind), s.r,
                          s.kind == TENSOR ? "ALIGN_BYTES" : "the element size", need),
              "docs/tpu.md#checks");
  }

  // Bounds: every touched byte inside its NPU's LOCAL_MEM_SIZE (spec 50 §1).
  p.cmp_s = aligned_strides(q, p.C, p.H, p.W, ecmp, chip.align_bytes, chip.npu_num);
  p.val_s = aligned_strides(q, p.C, p.H, p.W, eval, chip.align_bytes, chip.npu_num);
  auto tensor_hull = [&](uint32_t r, int e) {
    const Strides& s = e == ecmp ? p.cmp_s : p.val_s;
    return Hull{r, r + tensor_extent_bytes(s, q, p.N, p.C, p.H, p.W, e, chip.npu_num)};
  };
  auto check_bounds = [&](const Hull& h, const std::string& what) {
    if (h.hi > static_cast<int64_t>(p.lms))
      ck.fail(ErrorCode::Bounds,
              fmt::format("{} touches in-NPU bytes [0x{:x}, 0x{:x}) for shape [{}, {}, {}, {}] "
                          "starting on NPU {}, beyond LOCAL_MEM_SIZE 0x{:x} ({})",
                          what, h.lo, h.hi, p.N, p.C, p.H, p.W, q, p.lms, chip.name),
              "docs/tpu.md#checks");
  };
  Hull dst_hull[2];
  for (int d = 0; d < ndst; ++d) {
    dst_hull[d] = tensor_hull(p.dst_r[d], dst_e[d]);
    check_bounds(dst_hull[d], dst_name[d]);
  }
  Hull src_hull[4] = {};
  for (int i = 0; i < 4; ++i) {
    const PlanSource& s = p.src[i];
    if (s.kind == SCALAR) continue;
    src_hull[i] = s.kind == TENSOR ? tensor_hull(s.r, src_e(i)) : Hull{s.r, s.r + src_e(i)};
    check_bounds(src_hull[i], fmt::format("{} ({})", kSrcName[i], kind_name(s.kind)));
  }

  // dst0 and dst1 must not overlap (spec 50 §3): no byte of one may be a byte of the other.
  // Disjoint hulls settle it; otherwise the rows are compared exactly.
  Clash clash{};
  if (p.extremum && overlaps(dst_hull[0], dst_hull[1]) &&
      first_shared_byte({{p.dst_r[0], dst_e[0], &p.cmp_s}, {p.dst_r[1], dst_e[1], &p.val_s}}, q,
                        p.N, p.C, p.H * p.W, chip.npu_num, clash))
    ck.fail(ErrorCode::Constraint,
            fmt::format("dst0 and dst1 must not overlap: on NPU {}, dst0 (n {}, c {}) in-NPU bytes "
                        "[0x{:x}, 0x{:x}) and dst1 (n {}, c {}) bytes [0x{:x}, 0x{:x}) share "
                        "bytes (shape [{}, {}, {}, {}] starting on NPU {})",
                        clash.npu, clash.n[0], clash.c[0], clash.bytes[0].lo, clash.bytes[0].hi,
                        clash.n[1], clash.c[1], clash.bytes[1].lo, clash.bytes[1].hi, p.N, p.C, p.H,
                        p.W, q),
            "docs/tpu.md#checks");

  // Reads before writes (spec 50 §3): writing in place is only streamed when a destination
  // coincides element for element with a TENSOR source; any other overlap is staged.
  for (int d = 0; d < ndst; ++d)
    for (int i = 0; i < 4; ++i) {
      const PlanSource& s = p.src[i];
      if (s.kind == SCALAR || !overlaps(dst_hull[d], src_hull[i])) continue;
      if (s.kind == TENSOR && s.r == p.dst_r[d] && src_e(i) == dst_e[d]) continue;
      p.stage = true;
    }
  return p;
}

}  // namespace tilesim::tpu
