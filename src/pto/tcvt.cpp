// TCVT<NeedSetCtrl>(dst, src[, tmp], RoundMode[, SaturationMode]) (spec 21 §2, spec 15 §2;
// docs/pto-instructions.md#tcvt): dst = cast(src) over dst's valid region. This file holds what is
// TCVT's own — the (src, dst) pair table per target, the RoundMode of each pair, the saturation
// mode each overload and target resolves to — and hands every element to the one conversion routine
// (ops::cast, src/ops/cast.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "ops/cast.hpp"
#include "pto/instr.hpp"

namespace tilesim::pto::instr {
namespace {

using formats::Rounding;

// ---- the pair table (pto-isa docs/isa/TCVT.md "Supported Conversions" = the a2a3 TCvt.hpp header
// comment and the a5 castData overloads; cpu takes the union, spec 21 §5) ----

enum : uint8_t { A2A3 = 1, A5 = 2, BOTH = A2A3 | A5 };
enum : uint8_t {
  kNarrow = 1,       // kIsNarrowingCvt (npu/a2a3/TCvt.hpp, the same list in npu/a5): default off
  kTorch = 2,        // a2a3 tmp overload, off: the PyTorch-compatible path through int32
  kModeIgnored = 4,  // a2a3 vconv_deq (int32 → half): one instruction, no rounding variants
};
struct Pair {
  Elem src, dst;
  uint8_t targets, flags;
};
using E = Elem;
constexpr Pair kPairs[] = {
    {E::f32, E::f16, BOTH, 0},
    {E::f32, E::f32, BOTH, 0},  // round to an integral fp32 (vconv_f322f32*, vtrc)
    {E::f32, E::bf16, BOTH, 0},
    {E::f32, E::s16, BOTH, kNarrow | kTorch},
    {E::f32, E::s32, BOTH, 0},
    {E::f32, E::s64, BOTH, 0},
    {E::f16, E::f32, BOTH, 0},
    {E::f16, E::s32, BOTH, 0},
    {E::f16, E::s16, BOTH, kNarrow | kTorch},
    {E::f16, E::s8, BOTH, kNarrow | kTorch},
    {E::f16, E::u8, BOTH, kNarrow},
    {E::bf16, E::f32, BOTH, 0},
    {E::bf16, E::s32, BOTH, 0},
    {E::bf16, E::f16, A5, 0},
    {E::s16, E::f16, BOTH, 0},
    {E::s16, E::f32, BOTH, 0},
    {E::s16, E::u8, A5, 0},
    {E::s16, E::u32, A5, 0},
    {E::s16, E::s32, A5, 0},
    {E::s32, E::f32, BOTH, 0},
    {E::s32, E::s16, BOTH, kNarrow},
    {E::s32, E::s64, BOTH, 0},
    {E::s32, E::f16, A2A3, kModeIgnored},
    {E::s32, E::u16, A5, 0},
    {E::s32, E::u8, A5, 0},
    {E::s64, E::f32, BOTH, 0},
    {E::s64, E::s32, BOTH, kNarrow},
    {E::u8, E::f16, BOTH, 0},
    {E::u8, E::u16, A5, 0},
    {E::s8, E::f16, BOTH, 0},
    {E::s8, E::s16, A5, 0},
    {E::s8, E::s32, A5, 0},
    {E::u32, E::u8, A5, 0},
    {E::u32, E::u16, A5, 0},
    {E::u32, E::s16, A5, 0},
};

uint8_t target_bit(const Target& t) {
  switch (t.kind) {
    case TargetKind::a2a3:
      return A2A3;
    case TargetKind::a5:
      return A5;
    case TargetKind::cpu:
      return BOTH;
  }
  return 0;
}

const Pair* find_pair(Elem src, Elem dst, uint8_t tbit) {
  for (const Pair& p : kPairs)
    if (p.src == src && p.dst == dst && (p.targets & tbit)) return &p;
  return nullptr;
}

uint16_t destinations(Elem src, uint8_t tbit) {
  uint16_t m = 0;
  for (const Pair& p : kPairs)
    if (p.src == src && (p.targets & tbit)) m = uint16_t(m | (1u << unsigned(p.dst)));
  return m;
}

// ---- RoundMode (spec 15 §2 table; the backends' switch defaults) ----

Rounding rounding_of(const Pair& p, uint8_t mode) {
  if (p.flags & kModeIgnored) return Rounding::rne;
  switch (mode) {
    case 1:
      return Rounding::rne;
    case 2:
      return Rounding::rna;
    case 3:
      return Rounding::rdn;
    case 4:
      return Rounding::rup;
    case 5:
      return Rounding::rtz;
    case 6:  // a2a3 has vconv_f322f16o only; a5 honours RoundOType only for fp32 -> fp16
      if (p.src == Elem::f32 && p.dst == Elem::f16) return Rounding::rto;
      break;
    default:
      break;
  }
  // CAST_NONE (and CAST_ODD elsewhere): the pair's default — truncation for float -> integer
  // (both backends), round to nearest even otherwise.
  return elem_is_float(p.src) && !elem_is_float(p.dst) ? Rounding::rtz : Rounding::rne;
}

// ---- saturation (spec 21 §2 table, corrected by the backends: docs/pto-instructions.md#tcvt) ----

struct Saturation {
  bool on;     // integer destinations: clamp (on) or wrap (off)
  bool torch;  // a2a3 tmp path: round and clamp to int32, then wrap
};

Saturation saturation_of(const Ctx& c, const Call& call, const Pair& p) {
  const bool narrow = p.flags & kNarrow;
  const bool a2a3 = c.target.kind == TargetKind::a2a3;
  bool on;
  if (!call.need_set_ctrl)
    on = true;  // CTRL is left as it is: tilesim's CTRL is in its reset state, saturation on
  else if (call.sat < 0)
    on = !narrow;  // kIsNarrowingCvt: off for the six pairs, on for every other one
  else if (a2a3 && !call.tmp && !narrow)
    on = true;  // a2a3 no-tmp TCVT_IMPL passes SaturationMode::ON for non-narrowing pairs
  else
    on = call.sat == 0;  // ON = 0, OFF = 1
  return {on, a2a3 && call.tmp && !on && (p.flags & kTorch)};
}

// The a2a3 PyTorch path's tmp bytes (TCVT.md "Temporary tile"): R, C of dst's valid region, SS the
// source row stride in elements. Zero when nothing is converted.
size_t torch_tmp_bytes(const Pair& p, int R, int C, int SS) {
  if (R == 0 || C == 0) return 0;
  const auto cdiv = [](size_t a, size_t b) { return (a + b - 1) / b; };
  if (p.src == Elem::f32) {  // fp32 -> int16
    const size_t head = 4 * 64 * std::min<size_t>(size_t(C) / 64, 255);
    const size_t rem = size_t(C) % 64;
    const size_t tail =
        rem ? 32 * ((std::min<size_t>(size_t(R), 255) - 1) * size_t(SS) / 8 + cdiv(rem, 8)) : 0;
    return std::max(head, tail);
  }
  const size_t H = std::min<size_t>(size_t(C), 64);
  if (p.dst == Elem::s16) return 32 * cdiv(H, 8);            // fp16 -> int16
  return std::max(32 * cdiv(H, 8), 128 + 32 * cdiv(H, 16));  // fp16 -> int8
}

void check_call(const Ctx& c, const Call& call) {
  if (call.round > 6)
    c.fail(ErrorCode::Constraint,
           fmt::format("mode must be a RoundMode (CAST_NONE .. CAST_ODD = 0 .. 6), got {}",
                       int(call.round)));
  if (call.sat < -1 || call.sat > 1)
    c.fail(
        ErrorCode::Constraint,
        fmt::format("satMode must be a SaturationMode (ON = 0, OFF = 1), got {}", int(call.sat)));
}

const Pair& check_pair(const Ctx& c, const TileDesc& dst, const TileDesc& src) {
  const uint8_t tbit = target_bit(c.target);
  if (const Pair* p = find_pair(src.dtype, dst.dtype, tbit)) return *p;
  // src's dtype passed dtype_allowed: the row's source sets are this table's (a test checks it).
  const uint16_t to = destinations(src.dtype, tbit);
  c.fail(ErrorCode::Unsupported,
         fmt::format("dst dtype {}: the conversion {} -> {} is not supported on target {} ({} "
                     "converts to: {})",
                     elem_name(dst.dtype), elem_name(src.dtype), elem_name(dst.dtype),
                     c.target.name, elem_name(src.dtype), dtype_list(to)));
}

// a2a3 tmp: a Vec tile of the UB; on the PyTorch path it must hold the page's byte count and, being
// that path's scratch, share no byte with src or dst. a5 and cpu neither check nor use it (21 §5).
void check_tmp(const Ctx& c, const Call& call, const Pair& p, const Saturation& s) {
  if (!call.tmp || c.target.kind != TargetKind::a2a3) return;
  const TileDesc &tmp = *call.tmp, &dst = *call.dst, &src = *call.src0;
  tile_ok(c, tmp, "tmp");
  vec(c, tmp, "tmp");
  if (!s.torch) return;
  const size_t need = torch_tmp_bytes(p, dst.valid_row, dst.valid_col, src.cols);
  if (tmp.bytes() < need)
    c.fail(
        ErrorCode::Constraint,
        fmt::format("tmp must hold at least {} bytes for {} -> {} with SaturationMode::OFF "
                    "(dst valid {}x{}, src row stride {}), got {} bytes ({}x{} {})",
                    need, elem_name(src.dtype), elem_name(dst.dtype), dst.valid_row, dst.valid_col,
                    src.cols, tmp.bytes(), tmp.rows, tmp.cols, elem_name(tmp.dtype)));
  no_overlap(c, tmp, "tmp", src, "src");
  no_overlap(c, tmp, "tmp", dst, "dst");
}

// n contiguous elements. The PyTorch path is two conversions of the core: to int32 rounded and
// clamped, then to dst wrapping (tmp is not written: a tilesim decision, the hardware's int32
// intermediates land there).
void convert_run(const Pair& p, const ops::CastMode& m, const Saturation& s, const uint8_t* src,
                 uint8_t* dst, size_t n, ops::Path path) {
  const formats::DType from = core_dtype(p.src), to = core_dtype(p.dst);
  if (p.src == Elem::f32 && p.dst == Elem::f32)
    return ops::to_integral(from, src, dst, n, m.rounding);
  if (!s.torch) return ops::cast(from, to, src, dst, n, m, path);
  constexpr size_t kChunk = 1024;
  int32_t mid[kChunk];
  const ops::CastMode clamp{m.rounding, true, false}, wrap{m.rounding, false, false};
  const size_t ws = elem_size(p.src), wd = elem_size(p.dst);
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t k = std::min(kChunk, n - i);
    ops::cast(from, formats::DType::s32, src + i * ws, mid, k, clamp, path);
    ops::cast(formats::DType::s32, to, mid, dst + i * wd, k, wrap, path);
  }
}

}  // namespace

void convert(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &src = *call.src0;
  check_call(c, call);
  tile_ok(c, dst, "dst");
  tile_ok(c, src, "src");
  vec(c, dst, "dst");
  vec(c, src, "src");
  row_major(c, dst, "dst");
  row_major(c, src, "src");
  dtype_allowed(c, src, "src");
  const Pair& p = check_pair(c, dst, src);
  same_valid(c, src, "src", dst, "dst");
  const Saturation s = saturation_of(c, call, p);
  check_tmp(c, call, p, s);

  const int R = dst.valid_row, C = dst.valid_col;
  if (R == 0 || C == 0) return;
  // Float destinations ignore the saturation mode (spec 21 §2): overflow per spec 10 §4.
  const ops::CastMode m{rounding_of(p, call.round), s.on, false};
  const Source a(src, dst, R, C);
  const size_t wd = esize(dst);
  const bool flat = dst.cols == C && a.stride() == size_t(C) * esize(src);
  for_rows(R, C, 18, [&](size_t r0, size_t r1) {
    if (flat)
      return convert_run(p, m, s, a.row(int(r0)), dst.data + r0 * size_t(C) * wd,
                         (r1 - r0) * size_t(C), core_path(path));
    for (size_t r = r0; r < r1; ++r)
      convert_run(p, m, s, a.row(int(r)), at(dst, int(r), 0), size_t(C), core_path(path));
  });
}

}  // namespace tilesim::pto::instr
