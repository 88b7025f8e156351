// The Ascend C vector APIs' count forms (spec 41 §3): the instruction table of
// tilesim/ascendc/vector.hpp, the shared legality predicates, and one element-op core call per
// API invocation over the whole count (spec 15, spec 70 items 11-13).
#include "tilesim/ascendc/vector.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "tilesim/ascendc/engine.hpp"
#include "tilesim/error.hpp"

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
constexpr uint32_t kBits16 = bit(DType::s16) | bit(DType::u16);

enum class Kind : uint8_t { Binary, Scalar, Unary };

struct Row {
  const char* name;
  Kind kind;
  ops::Op op;
  uint32_t dtypes;
  bool saturates;
};

constexpr Row kRows[] = {
#define TILESIM_ASCENDC_VEC_ROW(name, kind, op, dtypes, sat) {#name, Kind::kind, ops::Op::op, dtypes, sat},
    TILESIM_ASCENDC_VECTOR_APIS(TILESIM_ASCENDC_VEC_ROW)
#undef TILESIM_ASCENDC_VEC_ROW
};

std::string dtype_list(uint32_t set) {
  std::string s;
  for (unsigned i = 0; i < formats::kNumDTypes; ++i)
    if (set & (1u << i)) s += std::string(s.empty() ? "" : " ") + formats::info(DType(i)).name;
  return s;
}

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

// Contiguous count form: repeat r covers bytes [256 r, 256 (r+1)) of each operand. A source and the
// destination are identical or disjoint within a repeat, and no repeat writes bytes a later one
// reads (spec 41 §3 overlap rule): legal iff same start, disjoint, or dst below src by whole repeats.
// Returns true when the source must be staged (legal partial overlap).
bool overlap_ok(const char* api, const char* operand, uint64_t dst, uint64_t dst_bytes, uint64_t src,
                uint64_t src_bytes) {
  if (dst == src && dst_bytes == src_bytes) return false;
  if (dst + dst_bytes <= src || src + src_bytes <= dst) return false;
  if (dst < src && (src - dst) % 256 == 0 && dst_bytes == src_bytes) return true;
  raise(ErrorCode::Constraint, api,
        std::string("dst (UB bytes [") + to_string(dst) + ", " + to_string(dst + dst_bytes) + ")) and " +
            operand + " ([" + to_string(src) + ", " + to_string(src + src_bytes) +
            ")) overlap partially: within a repeat they must be identical or disjoint, and no repeat may write "
            "bytes a later repeat reads",
        "docs/ascendc.md#overlap");
}

void leave_normal_mode() {
  MaskRegister& m = core().mask;
  set_mask_norm(m);
  reset_mask(m);
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
  if (t != DType::fp16 && t != DType::bf16) return;
  const uint16_t inf = t == DType::fp16 ? 0x7C00 : 0x7F80;
  const uint16_t max = t == DType::fp16 ? 0x7BFF : 0x7F7F;
  auto* c = static_cast<uint16_t*>(p);
  for (uint64_t i = 0; i < n; ++i) {
    const uint16_t mag = c[i] & 0x7FFF;
    if (mag > inf)
      c[i] = 0;  // NaN -> +0
    else if (mag == inf)
      c[i] = static_cast<uint16_t>((c[i] & 0x8000) | max);
  }
}

void vector_count(VecApi api, DType t, const UbRef& dst, const UbRef& a, const UbRef* b, uint64_t scalar,
                  int64_t count) {
  const Row& row = kRows[static_cast<size_t>(api)];
  const char* name = row.name;
  dtype_in(name, t, row.dtypes);
  count_within(name, count, "dst", dst);
  count_within(name, count, row.kind == Kind::Binary ? "src0" : "src", a);
  if (row.kind == Kind::Binary) count_within(name, count, "src1", *b);
  aligned32(name, "dst", dst);
  aligned32(name, row.kind == Kind::Binary ? "src0" : "src", a);
  if (row.kind == Kind::Binary) aligned32(name, "src1", *b);
  const unsigned es = formats::info(t).storage_bits / 8;
  const uint64_t bytes = static_cast<uint64_t>(count) * es;
  uint8_t* d = ub_bytes(dst.addr, bytes, name, "dst");
  const uint8_t* pa = ub_bytes(a.addr, bytes, name, row.kind == Kind::Binary ? "src0" : "src");
  const uint8_t* pb = row.kind == Kind::Binary ? ub_bytes(b->addr, bytes, name, "src1") : nullptr;
  const bool stage_a = overlap_ok(name, row.kind == Kind::Binary ? "src0" : "src", dst.addr, bytes, a.addr, bytes);
  const bool stage_b = pb && overlap_ok(name, "src1", dst.addr, bytes, b->addr, bytes);
  if (count > 0) {
    // A legal partial overlap reads each repeat before it is overwritten: staging gives that order.
    std::vector<uint8_t> sa, sb;
    if (stage_a) pa = (sa.assign(pa, pa + bytes), sa.data());
    if (stage_b) pb = (sb.assign(pb, pb + bytes), sb.data());
    const Core& c = core();
    ops::Switches sw;
    // Exp flushes subnormal results on ascend950 with the default ExpConfig (spec 41 §3).
    sw.ftz_out = row.op == ops::Op::exp && std::string_view(c.product->name) == "ascend950";
    const size_t n = static_cast<size_t>(count);
    switch (row.kind) {
      case Kind::Binary:
        ops::binary(row.op, t, pa, pb, d, n, ops::Path::Fast, sw);
        break;
      case Kind::Scalar:
        ops::binary_scalar(row.op, t, pa, scalar, false, d, n, ops::Path::Fast, sw);
        break;
      case Kind::Unary:
        ops::unary(row.op, t, pa, d, n, ops::Path::Fast, sw);
        break;
    }
    if (row.saturates && c.half_saturation()) saturate_results(t, d, n);
  }
  leave_normal_mode();
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

void cast_count(DType to, DType from, const UbRef& dst, const UbRef& src, CastRound mode, int64_t count) {
  const char* api = "Cast";
  const CastRow* row = nullptr;
  for (const CastRow& r : kCasts)
    if (r.from == from && r.to == to) row = &r;
  if (!row || !(row->modes & mode_bit(mode)))
    raise(ErrorCode::Unsupported, api,
          std::string(formats::info(from).name) + " -> " + formats::info(to).name + " with " + name(mode) +
              " is not in the product's Cast table",
          "docs/ascendc.md#cast");
  count_within(api, count, "dst", dst);
  count_within(api, count, "src", src);
  aligned32(api, "dst", dst);
  aligned32(api, "src", src);
  const uint64_t n = static_cast<uint64_t>(count);
  const uint64_t db = n * (formats::info(to).storage_bits / 8), sb = n * (formats::info(from).storage_bits / 8);
  uint8_t* d = ub_bytes(dst.addr, db, api, "dst");
  const uint8_t* s = ub_bytes(src.addr, sb, api, "src");
  // Different element sizes walk the operands at different rates: only identical or disjoint bytes.
  if (!(dst.addr == src.addr && db == sb) && !(dst.addr + db <= src.addr || src.addr + sb <= dst.addr))
    raise(ErrorCode::Constraint, api,
          "dst (UB bytes [" + to_string(dst.addr) + ", " + to_string(dst.addr + db) + ")) and src ([" +
              to_string(src.addr) + ", " + to_string(src.addr + sb) + ")) overlap partially",
          "docs/ascendc.md#overlap");
  if (n > 0) {
    if (from == to) {
      ops::to_integral(from, s, d, n, rounding(mode));
    } else {
      ops::CastMode m;
      m.rounding = rounding(mode);
      m.int_saturate = true;  // float -> integer saturates (spec 15 §2)
      ops::cast(from, to, s, d, n, m);
      if (core().half_saturation()) saturate_results(to, d, n);
    }
  }
  leave_normal_mode();
}

void duplicate_count(DType t, const UbRef& dst, uint64_t value, int64_t count) {
  const char* api = "Duplicate";
  count_within(api, count, "dst", dst);
  aligned32(api, "dst", dst);
  const unsigned es = formats::info(t).storage_bits / 8;
  uint8_t* d = ub_bytes(dst.addr, static_cast<uint64_t>(count) * es, api, "dst");
  if (count > 0) {
    // One element written, then doubled: memcpy of the growing prefix (moves bits).
    std::memcpy(d, &value, es);
    uint64_t done = es;
    const uint64_t total = static_cast<uint64_t>(count) * es;
    while (done < total) {
      const uint64_t k = std::min(done, total - done);
      std::memcpy(d + done, d, k);
      done += k;
    }
  }
  leave_normal_mode();
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
