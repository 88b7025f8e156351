// The Ascend C vector APIs' count forms (spec 41 §3): the instruction table of
// tilesim/ascendc/vector.hpp, the shared legality predicates, and one element-op core call per
// API invocation over the whole count (spec 15, spec 70 items 11-13).
#include "tilesim/ascendc/vector.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "tilesim/ascendc/engine.hpp"
#include "tilesim/ascendc/sync.hpp"
#include "tilesim/error.hpp"
#include "walk.hpp"

namespace tilesim::ascendc {

using std::to_string;

namespace {

constexpr const char* kDocVec = "docs/ascendc.md#vector-apis";

// dtype sets of the table (bit i = DType i)
constexpr uint32_t bit(DType t) {
  return 1u << static_cast<unsigned>(t);
}
constexpr uint32_t kFloats = bit(DType::fp16) | bit(DType::fp32);
constexpr uint32_t kArith = kFloats | bit(DType::s16) | bit(DType::s32);
constexpr uint32_t kFloatsS32 = kFloats | bit(DType::s32);
constexpr uint32_t kFloatsS16 = kFloats | bit(DType::s16);
constexpr uint32_t kBits16 = bit(DType::s16) | bit(DType::u16);
constexpr uint32_t kInts = bit(DType::s16) | bit(DType::u16) | bit(DType::s32) | bit(DType::u32);

enum class Kind : uint8_t { Binary, BinaryRelu, MulAddDst, FusedMulAdd, Scalar, LeakyRelu, Unary };

struct Row {
  const char* name;
  Kind kind;
  ops::Op op;
  uint32_t dtypes;
  bool saturates;
  Pipe pipe;
  unsigned sources() const { return kind == Kind::Binary || kind == Kind::BinaryRelu || kind == Kind::MulAddDst ||
                                            kind == Kind::FusedMulAdd ? 2 : 1; }
  bool reads_dst() const { return kind == Kind::MulAddDst || kind == Kind::FusedMulAdd; }
};

constexpr Row kRows[] = {
#define TILESIM_ASCENDC_VEC_ROW(name, kind, op, dtypes, sat, pipe) {#name, Kind::kind, ops::Op::op, dtypes, sat, Pipe::pipe},
    TILESIM_ASCENDC_VECTOR_APIS(TILESIM_ASCENDC_VEC_ROW)
#undef TILESIM_ASCENDC_VEC_ROW
};

std::string dtype_list(uint32_t set) {
  std::string s;
  for (unsigned i = 0; i < formats::kNumDTypes; ++i)
    if (set & (1u << i)) s += std::string(s.empty() ? "" : " ") + formats::info(DType(i)).name;
  return s;
}

}  // namespace

std::string vector_api_dtypes(VecApi api) { return dtype_list(kRows[static_cast<size_t>(api)].dtypes); }

namespace {

// ---- legality predicates (spec 70 item 13) ----

void dtype_in(const char* api, DType t, uint32_t set) {
  if (!(set & bit(t)))
    raise(ErrorCode::Unsupported, api,
          std::string("dtype ") + formats::info(t).name + " is not supported (takes: " + dtype_list(set) + ")",
          kDocVec);
}

void count_within(const char* api, int64_t count, const char* operand, const UbRef& r) {
  if (count < 0 || static_cast<uint64_t>(count) > r.elems)
    raise(ErrorCode::Bounds, api,
          std::string("count must be in [0, ") + to_string(r.elems) + "] (" + operand + "'s elements), got " +
              to_string(count),
          kDocVec);
}

void aligned32(const char* api, const char* operand, const UbRef& r) {
  if (r.addr % 32 != 0)
    raise(ErrorCode::Constraint, api,
          std::string(operand) + ": UB address " + to_string(r.addr) + " must be 32-byte aligned", kDocVec);
}

void leave_normal_mode() {
  MaskRegister& m = core().mask;
  set_mask_norm(m);
  reset_mask(m);
}

// Scratch of the composite APIs (two ops per lane), per thread.
uint8_t* scratch(size_t bytes, unsigned which) {
  thread_local std::vector<uint8_t> buf[4];  // 0-1: composite steps; 2-3: widened sources
  if (buf[which].size() < bytes) buf[which].resize(bytes);
  return buf[which].data();
}

// What one API computes on n staged lanes (walk.hpp Compute): s[0] src0, s[1] src1, then dst
// where the API reads it.
struct VecCtx {
  const Row* row;
  DType t;
  uint64_t scalar;
  bool round_en;
  bool saturate;
  ops::Switches sw;
};

void compute_vec(const void* p, const uint8_t* const* s, uint8_t* d, size_t n, uint64_t) {
  const VecCtx& c = *static_cast<const VecCtx*>(p);
  const Row& row = *c.row;
  const size_t bytes = n * (formats::info(c.t).storage_bits / 8);
  // One element-op call: the saturation is its switch, applied in its rounding step.
  ops::Switches one = c.sw;
  one.saturate = c.saturate;
  switch (row.kind) {
    case Kind::Binary:
      ops::binary(row.op, c.t, s[0], s[1], d, n, ops::Path::Fast, one);
      return;
    case Kind::Unary:
      ops::unary(row.op, c.t, s[0], d, n, ops::Path::Fast, one);
      return;
    case Kind::Scalar:
      if (row.op == ops::Op::shr && c.round_en) {
        // Rounding right shift: (x + 2^(s-1)) >> s, computed without overflow as
        // (x >> s) + ((x >> (s - 1)) & 1) for s >= 1 (docs/ascendc.md#shiftleft-shiftright).
        uint8_t* m = scratch(bytes, 0);
        uint8_t* bit = scratch(bytes, 1);
        ops::binary_scalar(ops::Op::shr, c.t, s[0], c.scalar, false, d, n);
        if (c.scalar >= 1) {
          ops::binary_scalar(ops::Op::shr, c.t, s[0], c.scalar - 1, false, m, n);
          ops::binary_scalar(ops::Op::band, c.t, m, 1, false, bit, n);
          ops::binary(ops::Op::add, c.t, d, bit, d, n);
        }
        return;  // integers: nothing saturates
      }
      ops::binary_scalar(row.op, c.t, s[0], c.scalar, false, d, n, ops::Path::Fast, one);
      return;
    case Kind::BinaryRelu:  // the op's result (rounded to T), then relu (spec 41 §3)
      ops::binary(row.op, c.t, s[0], s[1], d, n, ops::Path::Fast, c.sw);
      ops::unary(ops::Op::relu, c.t, d, d, n);
      break;
    case Kind::MulAddDst: {  // dst = src0 * src1 + dst, two roundings (docs/ascendc.md#muladddst)
      uint8_t* m = scratch(bytes, 0);
      ops::binary(ops::Op::mul, c.t, s[0], s[1], m, n);
      ops::binary(ops::Op::add, c.t, m, s[2], d, n);
      break;
    }
    case Kind::FusedMulAdd: {  // dst = src0 * dst + src1, two roundings
      uint8_t* m = scratch(bytes, 0);
      ops::binary(ops::Op::mul, c.t, s[0], s[2], m, n);
      ops::binary(ops::Op::add, c.t, m, s[1], d, n);
      break;
    }
    case Kind::LeakyRelu: {  // src >= 0 ? src : src * alpha (NaN: NaN * alpha)
      uint8_t* m = scratch(bytes, 0);
      uint8_t* pick = scratch(n, 1);
      ops::binary_scalar(ops::Op::mul, c.t, s[0], c.scalar, false, m, n);
      ops::compare_scalar(ops::Op::ge, c.t, s[0], 0, pick, n);
      ops::select(c.t, pick, s[0], m, d, n);
      break;
    }
  }
  // Two-step APIs: the intermediate is not saturated, the result is.
  if (c.saturate) saturate_results(c.t, d, n);
}

// Runs one API over a resolved walk: operand rules, then the computation.
void run_vec(const Row& row, DType t, detail::Walk& w, const UbRef& dst, const UbRef& a, const UbRef* b,
             uint64_t scalar, bool round_en, const RepeatStrides& st) {
  const char* name = row.name;
  const unsigned es = formats::info(t).storage_bits / 8;
  const bool bin = row.sources() == 2;
  // Initialised in place, and every field of the caller's UbRefs and strides read with its own
  // 8-byte load (gpr): GCC otherwise copies pairs of fields with 16-byte loads, which the CPU
  // cannot forward from the 8-byte stores that built those structs just before the call, so they
  // waited for the previous API's vector stores to drain (half of run_vec's samples in the
  // softmax example, Intel host).
  using detail::gpr;
  const auto ref = [](const UbRef& r) { return UbRef{gpr(r.addr), gpr(r.elems)}; };
  detail::WalkOperand o[3] = {
      {"dst", ref(dst), es, gpr(st.dst_blk), gpr(st.dst_rep), row.reads_dst(), true, false},
      {bin ? "src0" : "src", ref(a), es, gpr(st.src0_blk), gpr(st.src0_rep), true, false, false},
      {"src1", bin ? ref(*b) : UbRef{}, es, gpr(st.src1_blk), gpr(st.src1_rep), true, false, false}};
  if (bin) {
    // The accumulate pattern (spec 41 §3): dst coincides with src1 only, a zero repeat stride.
    const bool acc_op = row.kind == Kind::BinaryRelu ||
                        (row.kind == Kind::Binary && (row.op == ops::Op::add || row.op == ops::Op::sub ||
                                                      row.op == ops::Op::mul || row.op == ops::Op::max ||
                                                      row.op == ops::Op::min));
    const bool acc_t = t == DType::fp16 || t == DType::fp32 || t == DType::s32;
    if (acc_op && acc_t && dst.addr == b->addr && a.addr != dst.addr && (st.dst_rep == 0 || st.src1_rep == 0))
      o[2].accumulate = true;
  }
  const size_t n = bin ? 3 : 2;
  detail::check_operands(name, w, o, n);
  if (t_sync) [[unlikely]]
    detail::record_walk(name, pipe_of(row.pipe), w, o, n);
  const Core& c = core();
  VecCtx ctx{&row, t, scalar, round_en, row.saturates && c.half_saturation(), {}};
  // Exp flushes subnormal results on ascend950 with the default ExpConfig (spec 41 §3).
  ctx.sw.ftz_out = row.op == ops::Op::exp && std::string_view(c.product->name) == "ascend950";
  detail::execute(w, o, n, {&ctx, compute_vec});
}

void check_scalar(const Row& row, DType t, uint64_t scalar) {
  if (row.kind == Kind::Scalar && (row.op == ops::Op::shl || row.op == ops::Op::shr)) {
    const unsigned bits = formats::info(t).storage_bits;
    const bool neg = formats::info(t).kind == formats::Kind::Signed && ((scalar >> (bits - 1)) & 1);
    if (neg || scalar > bits)
      raise(ErrorCode::Constraint, row.name,
            "shift count must be in [0, " + to_string(bits) + "] for " + formats::info(t).name + ", got " +
                std::to_string(neg ? -static_cast<int64_t>(((~scalar) & ((uint64_t{1} << bits) - 1)) + 1)
                                   : static_cast<int64_t>(scalar)),
            "docs/ascendc.md#shiftleft-shiftright");
  }
}

void check_round(const Row& row, DType t, bool round_en) {
  if (round_en && formats::info(t).kind != formats::Kind::Signed)
    raise(ErrorCode::Constraint, row.name,
          std::string("roundEn applies to int16_t and int32_t only, got ") + formats::info(t).name +
              " (the vendor ignores it with a warning)",
          "docs/ascendc.md#shiftleft-shiftright");
}

}  // namespace

uint8_t* ub_bytes(uint64_t addr, uint64_t bytes, const char* api, const char* operand) {
  auto& ub = core().ub;
  if (bytes > ub.size() || addr > ub.size() - bytes)
    raise(ErrorCode::Bounds, api,
          std::string(operand) + ": UB bytes [" + to_string(addr) + ", " + to_string(addr + bytes) +
              ") are outside the " + to_string(ub.size()) + "-byte UB of " + core().product->name,
          "docs/ascendc.md#ub");
  return ub.data() + addr;
}

void saturate_results(DType t, void* p, uint64_t n) noexcept {
  ops::saturate_codes(t, p, n);  // ±Inf -> ±max, NaN -> +0 (fp16/bf16; others untouched)
}

void vector_count(VecApi api, DType t, const UbRef& dst, const UbRef& a, const UbRef* b, uint64_t scalar,
                  int64_t count, bool round_en) {
  const Row& row = kRows[static_cast<size_t>(api)];
  const char* name = row.name;
  dtype_in(name, t, row.dtypes);
  check_scalar(row, t, scalar);
  const bool bin = row.sources() == 2;
  count_within(name, count, "dst", dst);
  count_within(name, count, bin ? "src0" : "src", a);
  if (bin) count_within(name, count, "src1", *b);
  const unsigned es = formats::info(t).storage_bits / 8;
  detail::Walk w = detail::count_walk(detail::elems_in(256, es), static_cast<uint64_t>(count));
  const uint64_t rep = 8;
  run_vec(row, t, w, dst, a, b, scalar, round_en, RepeatStrides{1, 1, 1, rep, rep, rep});
  leave_normal_mode();
}

void vector_repeat(VecApi api, DType t, const UbRef& dst, const UbRef& a, const UbRef* b, uint64_t scalar,
                   const MaskArg& mask, int64_t repeat, const RepeatStrides& strides, bool round_en) {
  const Row& row = kRows[static_cast<size_t>(api)];
  dtype_in(row.name, t, row.dtypes);
  check_scalar(row, t, scalar);
  check_round(row, t, round_en);
  const unsigned es = formats::info(t).storage_bits / 8;
  MaskRegister after;
  detail::Walk w = detail::repeat_walk(row.name, detail::elems_in(256, es), mask, repeat, core().mask, after);
  run_vec(row, t, w, dst, a, b, scalar, round_en, strides);
  core().mask = after;  // isSetMask = true leaves its mask in the register (spec 40 §1)
}

// ---- MulAddDst<float, half> (docs/ascendc.md#muladddst) ----

namespace {

// The half sources widened to float (exact), then MulAddDst's float computation: the product of
// two halves is exact in float, so the one rounding is the add's.
void compute_mad_mixed(const void* p, const uint8_t* const* s, uint8_t* d, size_t n, uint64_t first) {
  float* a = reinterpret_cast<float*>(scratch(n * 4, 2));
  float* b = reinterpret_cast<float*>(scratch(n * 4, 3));
  formats::decode_array(s[0], DType::fp16, a, n);
  formats::decode_array(s[1], DType::fp16, b, n);
  const uint8_t* w[3] = {reinterpret_cast<const uint8_t*>(a), reinterpret_cast<const uint8_t*>(b), s[2]};
  compute_vec(p, w, d, n, first);
}

void run_mad_mixed(detail::Walk& w, const UbRef& dst, const UbRef& a, const UbRef& b, const RepeatStrides& st) {
  const Row& row = kRows[static_cast<size_t>(VecApi::MulAddDst)];
  detail::WalkOperand o[3];
  o[0] = {"dst", dst, 4, st.dst_blk, st.dst_rep, true, true, false};
  o[1] = {"src0", a, 2, st.src0_blk, st.src0_rep, true, false, false};
  o[2] = {"src1", b, 2, st.src1_blk, st.src1_rep, true, false, false};
  detail::check_operands(row.name, w, o, 3);
  if (t_sync) [[unlikely]]
    detail::record_walk(row.name, pipe_of(row.pipe), w, o, 3);
  VecCtx ctx{&row, DType::fp32, 0, false, false, {}};
  detail::execute(w, o, 3, {&ctx, compute_mad_mixed});
}

}  // namespace

void mul_add_dst_mixed_count(const UbRef& dst, const UbRef& a, const UbRef& b, int64_t count) {
  const char* name = "MulAddDst";
  count_within(name, count, "dst", dst);
  count_within(name, count, "src0", a);
  count_within(name, count, "src1", b);
  detail::Walk w = detail::count_walk(64, static_cast<uint64_t>(count));
  // The library's count form: dst repeat stride 8, half sources 4 (HALF_DEFAULT_REPEAT_STRIDE).
  run_mad_mixed(w, dst, a, b, RepeatStrides{1, 1, 1, 8, 4, 4});
  leave_normal_mode();
}

void mul_add_dst_mixed_repeat(const UbRef& dst, const UbRef& a, const UbRef& b, const MaskArg& mask, int64_t repeat,
                              const RepeatStrides& strides) {
  MaskRegister after;
  detail::Walk w = detail::repeat_walk("MulAddDst", 64, mask, repeat, core().mask, after);  // lanes of float dst
  run_mad_mixed(w, dst, a, b, strides);
  core().mask = after;
}

// ---- Cast (spec 41 §3 convert row; spec 15 §2) ----

const char* name(CastRound r) noexcept {
  static const char* const k[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL",
                                  "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
  return k[static_cast<unsigned>(r)];
}

namespace {

constexpr uint8_t mode_bit(CastRound r) {
  return static_cast<uint8_t>(1u << static_cast<unsigned>(r));
}
constexpr uint8_t kDirected = mode_bit(CastRound::CAST_RINT) | mode_bit(CastRound::CAST_FLOOR) |
                              mode_bit(CastRound::CAST_CEIL) | mode_bit(CastRound::CAST_ROUND) |
                              mode_bit(CastRound::CAST_TRUNC);
constexpr uint8_t kNone = mode_bit(CastRound::CAST_NONE);
constexpr uint8_t kAll = kDirected | kNone | mode_bit(CastRound::CAST_ODD);

// Accepted (src, dst, RoundMode) triples: the Atlas A2 rows of the vendor's Cast page that tilesim
// has (docs/ascendc.md#cast); anything else is Unsupported.
struct CastRow {
  DType from, to;
  uint8_t modes;
};
constexpr CastRow kCasts[] = {
    {DType::fp32, DType::fp16, kAll},
    {DType::fp16, DType::fp32, kNone},
    {DType::bf16, DType::fp32, kNone},
    {DType::fp32, DType::s32, kDirected},
    {DType::fp32, DType::bf16, kDirected},
    {DType::fp16, DType::s32, kDirected},
    {DType::s32, DType::fp32, kDirected | kNone},
    {DType::fp16, DType::s8, kDirected | kNone},
    {DType::fp16, DType::u8, kDirected | kNone},
    {DType::fp32, DType::fp32, kDirected},
};

formats::Rounding rounding(CastRound r) {
  switch (r) {
    case CastRound::CAST_FLOOR:
      return formats::Rounding::rdn;
    case CastRound::CAST_CEIL:
      return formats::Rounding::rup;
    case CastRound::CAST_ROUND:
      return formats::Rounding::rna;
    case CastRound::CAST_TRUNC:
      return formats::Rounding::rtz;
    case CastRound::CAST_ODD:
      return formats::Rounding::rto;
    default:
      return formats::Rounding::rne;  // CAST_NONE (rne where lossy) and CAST_RINT
  }
}

}  // namespace

namespace {

const CastRow& cast_row(DType to, DType from, CastRound mode) {
  const CastRow* row = nullptr;
  for (const CastRow& r : kCasts)
    if (r.from == from && r.to == to) row = &r;
  if (!row || !(row->modes & mode_bit(mode)))
    raise(ErrorCode::Unsupported, "Cast",
          std::string(formats::info(from).name) + " -> " + formats::info(to).name + " with " + name(mode) +
              " is not in the product's Cast table",
          "docs/ascendc.md#cast");
  return *row;
}

struct CastCtx {
  DType from, to;
  formats::Rounding rounding;
  bool saturate;
};

void compute_cast(const void* p, const uint8_t* const* s, uint8_t* d, size_t n, uint64_t) {
  const CastCtx& c = *static_cast<const CastCtx*>(p);
  if (c.from == c.to) {
    ops::to_integral(c.from, s[0], d, n, c.rounding);
    return;
  }
  ops::CastMode m;
  m.rounding = c.rounding;
  m.int_saturate = true;  // float -> integer saturates (spec 15 §2)
  m.narrow_saturate = c.saturate;  // half/bf16 destinations: the CTRL rule, in the rounding pass
  ops::cast(c.from, c.to, s[0], d, n, m);
}

// Lane i of a Cast repeat lies in datablock i / E of each operand, E its own elements per block;
// lanes per repeat follow the wider type (spec 41 §3 "Cast walk").
void run_cast(DType to, DType from, detail::Walk& w, const UbRef& dst, const UbRef& src, CastRound mode,
              const RepeatStrides& st) {
  const unsigned de = formats::info(to).storage_bits / 8, se = formats::info(from).storage_bits / 8;
  detail::WalkOperand o[2];
  o[0] = {"dst", dst, de, st.dst_blk, st.dst_rep, false, true, false};
  o[1] = {"src", src, se, st.src0_blk, st.src0_rep, true, false, false};
  detail::check_operands("Cast", w, o, 2);
  if (t_sync) [[unlikely]]
    detail::record_walk("Cast", pipe_of(pipe_rule(OtherApi::Cast)), w, o, 2);
  CastCtx ctx{from, to, rounding(mode), core().half_saturation()};
  detail::execute(w, o, 2, {&ctx, compute_cast});
}

unsigned cast_lanes(DType to, DType from) {
  return 256 / std::max(formats::info(to).storage_bits / 8, formats::info(from).storage_bits / 8);
}

}  // namespace

void cast_count(DType to, DType from, const UbRef& dst, const UbRef& src, CastRound mode, int64_t count) {
  cast_row(to, from, mode);
  count_within("Cast", count, "dst", dst);
  count_within("Cast", count, "src", src);
  const unsigned lanes = cast_lanes(to, from);
  detail::Walk w = detail::count_walk(lanes, static_cast<uint64_t>(count));
  // Contiguous: each operand's repeat stride is the datablocks its lanes fill.
  const uint64_t drep = lanes * (formats::info(to).storage_bits / 8) / 32;
  const uint64_t srep = lanes * (formats::info(from).storage_bits / 8) / 32;
  run_cast(to, from, w, dst, src, mode, RepeatStrides{1, 1, 1, drep, srep, 8});
  leave_normal_mode();
}

void cast_repeat(DType to, DType from, const UbRef& dst, const UbRef& src, CastRound mode, const MaskArg& mask,
                 int64_t repeat, const RepeatStrides& strides) {
  cast_row(to, from, mode);
  MaskRegister after;
  detail::Walk w = detail::repeat_walk("Cast", cast_lanes(to, from), mask, repeat, core().mask, after);
  run_cast(to, from, w, dst, src, mode, strides);
  core().mask = after;
}

void duplicate_count(DType t, const UbRef& dst, uint64_t value, int64_t count) {
  const char* api = "Duplicate";
  count_within(api, count, "dst", dst);
  aligned32(api, "dst", dst);
  const unsigned es = formats::info(t).storage_bits / 8;
  uint8_t* d = ub_bytes(dst.addr, static_cast<uint64_t>(count) * es, api, "dst");
  if (t_sync) [[unlikely]]
    record(api, pipe_of(pipe_rule(OtherApi::Duplicate)), {}, {ub_range(dst.addr, static_cast<uint64_t>(count) * es)});
  ops::fill(t, d, value, static_cast<size_t>(count));  // store-only SIMD fill
  leave_normal_mode();
}

namespace {
struct DupCtx {
  uint64_t value;
  unsigned es;
};
void compute_dup(const void* p, const uint8_t* const*, uint8_t* d, size_t n, uint64_t) {
  const DupCtx& c = *static_cast<const DupCtx*>(p);
  for (size_t i = 0; i < n; ++i) std::memcpy(d + i * c.es, &c.value, c.es);
}
}  // namespace

void duplicate_repeat(DType t, const UbRef& dst, uint64_t value, const MaskArg& mask, int64_t repeat,
                      uint64_t dst_blk, uint64_t dst_rep) {
  const unsigned es = formats::info(t).storage_bits / 8;
  if (es != 2 && es != 4)
    raise(ErrorCode::Unsupported, "Duplicate",
          std::string("the mask/repeat form takes 16- and 32-bit types, got ") + formats::info(t).name, kDocVec);
  MaskRegister after;
  detail::Walk w = detail::repeat_walk("Duplicate", detail::elems_in(256, es), mask, repeat, core().mask, after);
  detail::WalkOperand o[1];
  o[0] = {"dst", dst, es, dst_blk, dst_rep, false, true, false};
  detail::check_operands("Duplicate", w, o, 1);
  if (t_sync) [[unlikely]]
    detail::record_walk("Duplicate", pipe_of(pipe_rule(OtherApi::Duplicate)), w, o, 1);
  DupCtx ctx{value, es};
  detail::execute(w, o, 1, {&ctx, compute_dup});
  core().mask = after;
}

// ---- control ----

namespace {
constexpr const char* kDocCtrl = "docs/ascendc.md#control";
bool a2_family(const Product& p) {
  const std::string_view n = p.name;
  return n == "atlas_a2" || n == "atlas_a3";
}
}  // namespace

void set_saturation_flag(unsigned mode, bool enable) {
  const Product& p = *core().product;
  static const char* const names[] = {"FLOAT", "FLOAT8", "INT", "CAST"};
  const std::string what = std::string("SaturationMode::") + (mode < 4 ? names[mode] : "?");
  if (!a2_family(p))
    raise(ErrorCode::Unsupported, "SetSaturationFlag", std::string("not supported on product ") + p.name, kDocCtrl);
  switch (mode) {
    case 0:  // FLOAT: CTRL[48]
      core().saturation = enable;
      return;
    case 2:  // INT: integer arithmetic wraps in tilesim (spec 15); saturating integers are not modelled
      if (!enable) return;
      raise(ErrorCode::Unsupported, "SetSaturationFlag", what + " = true (saturating integer arithmetic) is not supported",
            kDocCtrl);
    case 3:  // CAST: float -> integer casts saturate; truncating casts are not modelled
      if (enable) return;
      raise(ErrorCode::Unsupported, "SetSaturationFlag", what + " = false (truncating casts) is not supported", kDocCtrl);
    default:
      raise(ErrorCode::Unsupported, "SetSaturationFlag", what + " is not supported on " + p.name, kDocCtrl);
  }
}

bool get_saturation_flag(unsigned mode) {
  switch (mode) {
    case 0:
      return core().half_saturation();
    case 2:
      return false;
    case 3:
      return true;
    default:
      raise(ErrorCode::Unsupported, "GetSaturationFlag", "only FLOAT, INT and CAST are supported", kDocCtrl);
  }
}

void set_ctrl_bit48(int64_t value, const char* api) {
  const Product& p = *core().product;
  const std::string_view n = p.name;
  if (value < 0) {  // ResetCtrlSpr: Ascend 950 only
    if (n != "ascend950")
      raise(ErrorCode::Unsupported, api, std::string("not supported on product ") + p.name + " (Ascend 950 only)",
            kDocCtrl);
    core().saturation.reset();
    return;
  }
  if (!a2_family(p) && n != "ascend950")
    raise(ErrorCode::Unsupported, api, std::string("not supported on product ") + p.name, kDocCtrl);
  if (value > 1)
    raise(ErrorCode::Constraint, api, "CTRL[48] takes 0 (saturating) or 1 (not), got " + to_string(value), kDocCtrl);
  core().saturation = value == 0;
}

int64_t system_cycle() {
  thread_local int64_t cycles = 0;
  return ++cycles;
}

int8_t event_id(uint32_t event, EventOp op, int8_t id) {
  const char* api = op == EventOp::Alloc ? "AllocEventID" : op == EventOp::Release ? "ReleaseEventID" : "FetchEventID";
  if (event >= 64) raise(ErrorCode::Constraint, api, "unknown HardEvent " + to_string(event), "docs/ascendc.md#flags");
  uint8_t& used = core().events[event];
  if (op == EventOp::Release) {
    if (id < 0 || id > 7 || !((used >> id) & 1))
      raise(ErrorCode::Constraint, api, "event id " + to_string(id) + " is not allocated", "docs/ascendc.md#flags");
    used = static_cast<uint8_t>(used & ~(1u << id));
    return id;
  }
  for (int8_t k = 0; k < 8; ++k)
    if (!((used >> k) & 1)) {
      if (op == EventOp::Alloc) used = static_cast<uint8_t>(used | (1u << k));
      return k;
    }
  raise(ErrorCode::Constraint, api, "all 8 event ids of HardEvent " + to_string(event) + " are allocated",
        "docs/ascendc.md#flags");
}

// ---- SetFlag / WaitFlag ----

void set_flag(uint32_t event, int32_t id) {
  if (id < 0 || id > 255)
    raise(ErrorCode::Constraint, "SetFlag", "event id must be in [0, 255], got " + to_string(id),
          "docs/ascendc.md#flags");
  ++core().flags[(event << 8) | static_cast<uint32_t>(id)];
}

void wait_flag(uint32_t event, int32_t id) {
  if (id < 0 || id > 255)
    raise(ErrorCode::Constraint, "WaitFlag", "event id must be in [0, 255], got " + to_string(id),
          "docs/ascendc.md#flags");
  auto& n = core().flags[(event << 8) | static_cast<uint32_t>(id)];
  if (n <= 0)
    raise(ErrorCode::Constraint, "WaitFlag",
          "HardEvent " + to_string(event) + " event id " + to_string(id) +
              ": no SetFlag to wait for (on hardware: a hang)",
          "docs/ascendc.md#flags");
  --n;
}

}  // namespace tilesim::ascendc
