// Compare and select (spec 21 §2; docs/pto-instructions.md#compare-and-select):
//   TCMP(dst, src0, src1, cmp)      predicate (i, j) = src0 PRED src1, packed into dst
//   TCMPS(dst, src, scalar|tile, cmp)  the same against a scalar (tile form: its element (0, 0))
//   TSEL(dst, mask, src0, src1, tmp)   dst = mask bit ? src0 : src1
//   TSELS(dst, mask, src, tmp, scalar) dst = mask bit ? src : scalar
// Mask format (spec 21 §2, the a2a3 vcmpv / a5 predicate-store packing): predicate (i, j) is bit
// j mod W (bit 0 least significant) of element (i, j div W) of a RowMajor tile of W-bit words.
#include <fmt/format.h>

#include <optional>
#include <vector>

#include "pto/instr.hpp"

namespace tilesim::pto::instr {
namespace {

constexpr ops::Op kPred[] = {ops::Op::eq, ops::Op::ne, ops::Op::lt,
                             ops::Op::le, ops::Op::gt, ops::Op::ge};
constexpr const char* kCmpNames[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

void check_mode(const Ctx& c, const TileDesc& src, uint8_t cmp) {
  if (cmp > 5)
    c.fail(ErrorCode::Constraint, fmt::format("CmpMode must be EQ NE LT LE GT GE (0..5), got {}", cmp));
  // TCMP.md / TCMPS.md: a2a3 int32 compares for equality whatever the mode; only EQ and NE are
  // what they say.
  if (is_a2a3(c) && src.dtype == Elem::s32 && cmp > 1)
    c.fail(ErrorCode::Unsupported,
           fmt::format("CmpMode::{} on int32 is not available on a2a3 (its backend tests equality "
                       "for every mode; EQ and NE only)",
                       kCmpNames[cmp]));
}

// dst of a compare: u8 (a2a3), u32 (a5), either (cpu); RowMajor Vec; validRow R, validCol >=
// ceil(C/W). Returns W.
int check_mask_dst(const Ctx& c, const TileDesc& dst, int R, int C) {
  tile_ok(c, dst, "dst");
  vec(c, dst, "dst");
  row_major(c, dst, "dst");
  const bool u8 = dst.dtype == Elem::u8, u32 = dst.dtype == Elem::u32;
  const bool ok = c.target.kind == TargetKind::a2a3 ? u8
                  : c.target.kind == TargetKind::a5 ? u32
                                                    : (u8 || u32);
  if (!ok)
    c.fail(ErrorCode::Unsupported,
           fmt::format("dst dtype must be {} on target {}, got {}",
                       c.target.kind == TargetKind::a2a3 ? "u8"
                       : c.target.kind == TargetKind::a5 ? "u32"
                                                          : "u8 or u32",
                       c.target.name, elem_name(dst.dtype)));
  const int W = u8 ? 8 : 32;
  const int words = (C + W - 1) / W;
  if (dst.valid_row != R || dst.valid_col < words)
    c.fail(ErrorCode::Constraint,
           fmt::format("dst valid shape must be {} rows and >= ceil({}/{}) = {} columns, got {}x{}",
                       R, C, W, words, dst.valid_row, dst.valid_col));
  return W;
}

void check_src(const Ctx& c, const TileDesc& t, const char* who) {
  tile_ok(c, t, who);
  vec(c, t, who);
  row_major(c, t, who);
  dtype_allowed(c, t, who);
}

// a2a3 TCMPS on 16-bit integers compares the bits as fp16 (its backend reinterprets src and the
// scalar as half): modelled, docs/pto-instructions.md#compare-and-select.
formats::DType compare_dtype(const Ctx& c, const TileDesc& src) {
  if (c.info.id == Instr::TCMPS && is_a2a3(c) &&
      (src.dtype == Elem::s16 || src.dtype == Elem::u16))
    return formats::DType::fp16;
  return core_dtype(src.dtype);
}

void cmp(const Ctx& c, const Call& call, Path path) {
  const TileDesc &dst = *call.dst, &s0 = *call.src0;
  check_src(c, s0, "src0");
  const bool tile_form = c.info.kind == Kind::Compare || call.src1 != nullptr;
  if (tile_form) {
    check_src(c, *call.src1, "src1");
    same_dtype(c, s0, "src0", *call.src1, "src1");
    if (c.info.kind == Kind::Compare) same_valid(c, *call.src1, "src1", s0, "src0");
  }
  check_mode(c, s0, call.cmp);
  const int R = s0.valid_row, C = s0.valid_col;
  const int W = check_mask_dst(c, dst, R, C);
  const formats::DType dt = compare_dtype(c, s0);
  const ops::Op pred = kPred[call.cmp];
  uint64_t s = 0;
  if (c.info.kind == Kind::CompareScalar)
    s = tile_form ? ops::load_code(core_dtype(s0.dtype), call.src1->data, 0)
                  : scalar_code(call, core_dtype(s0.dtype));
  // Every predicate is computed before dst is written: when dst shares bytes with a source, packed
  // bits per row go to a buffer first, then into dst's words; otherwise straight into dst's rows.
  // Zeros past column C either way.
  const size_t bits_row = (size_t(C) + 7) / 8, out_row = size_t((C + W - 1) / W) * (W / 8);
  const bool apart = !overlaps(dst, s0) && (c.info.kind != Kind::Compare || !overlaps(dst, *call.src1));
  std::vector<uint8_t> bits(apart ? 0 : size_t(R) * bits_row);
  ops::Rows2 g;
  g.a = at(s0, 0, 0);
  g.as = size_t(s0.cols) * esize(s0);
  if (c.info.kind == Kind::Compare) {
    g.b = at(*call.src1, 0, 0);
    g.bs = size_t(call.src1->cols) * esize(*call.src1);
  }
  g.d = apart ? dst.data : bits.data();
  g.ds = apart ? size_t(dst.cols) * esize(dst) : bits_row;
  g.rows = size_t(R);
  g.n = size_t(C);
  if (R == 0 || C == 0) return;
  ops::compare_bits_rows(pred, dt, g, c.info.kind == Kind::CompareScalar, s, core_path(path));
  for (int r = 0; r < R; ++r) {
    uint8_t* o = at(dst, r, 0);
    if (!apart) std::memcpy(o, bits.data() + size_t(r) * bits_row, bits_row);
    if (out_row > bits_row) std::memset(o + bits_row, 0, out_row - bits_row);
  }
}

// The mask tile: an integer RowMajor Vec tile of W-bit words, validRow >= R, validCol >= ceil(C/W).
int check_mask(const Ctx& c, const TileDesc& m, int R, int C) {
  tile_ok(c, m, "mask");
  vec(c, m, "mask");
  row_major(c, m, "mask");
  if (elem_is_float(m.dtype))
    c.fail(ErrorCode::Constraint,
           fmt::format("mask must be an integer tile (the packed predicates of TCMP), got {}",
                       elem_name(m.dtype)));
  const int W = int(esize(m)) * 8;
  const int words = (C + W - 1) / W;
  if (m.valid_row < R || m.valid_col < words)
    c.fail(ErrorCode::Constraint,
           fmt::format("mask valid shape must cover {} rows and ceil({}/{}) = {} words, got {}x{}",
                       R, C, W, words, m.valid_row, m.valid_col));
  return W;
}

void sel(const Ctx& c, const Call& call) {
  const TileDesc &dst = *call.dst, &s0 = *call.src0;
  check_src(c, dst, "dst");
  check_src(c, s0, call.src1 ? "src0" : "src");
  same_dtype(c, dst, "dst", s0, call.src1 ? "src0" : "src");
  same_valid(c, s0, call.src1 ? "src0" : "src", dst, "dst");
  const bool scalar_form = c.info.kind == Kind::SelectScalar;
  if (!scalar_form) {
    check_src(c, *call.src1, "src1");
    same_dtype(c, dst, "dst", *call.src1, "src1");
    same_valid(c, *call.src1, "src1", dst, "dst");
  }
  const int R = dst.valid_row, C = dst.valid_col;
  check_mask(c, *call.mask, R, C);
  const formats::DType dt = core_dtype(dst.dtype);
  const uint64_t s = scalar_form ? scalar_code(call, dt) : 0;
  if (is_a2a3(c) && call.tmp) {
    const TileDesc& tmp = *call.tmp;
    tile_ok(c, tmp, "tmp");
    vec(c, tmp, "tmp");
    if (!scalar_form) {  // TSEL.md: u32, cmpmaskLen words (4 for 16-bit T, 2 for 32-bit T)
      const int need = esize(dst) == 2 ? 4 : 2;
      if (tmp.dtype != Elem::u32 || tmp.valid_col < need)
        c.fail(ErrorCode::Constraint,
               fmt::format("tmp must be a u32 tile with validCol >= {} on a2a3, got {} validCol {}",
                           need, elem_name(tmp.dtype), tmp.valid_col));
    } else {  // TSELS.md: src's dtype, at least one element; it receives the scalar
      same_dtype(c, tmp, "tmp", s0, "src");
      if (tmp.valid_row < 1 || tmp.valid_col < 1)
        c.fail(ErrorCode::Constraint, "tmp must hold at least one element on a2a3");
      no_overlap(c, tmp, "tmp", dst, "dst");
    }
  }
  if (R == 0 || C == 0) return;
  // The mask rows' bits, read before dst is written (bit j of a row = bit j % W of word j / W,
  // the words little-endian: the same bit stream for every word width).
  const TileDesc& m = *call.mask;
  const size_t bits_row = (size_t(C) + 7) / 8, mstride = size_t(m.cols) * esize(m);
  std::vector<uint8_t> bits(size_t(R) * bits_row);
  for (int r = 0; r < R; ++r) std::memcpy(bits.data() + r * bits_row, m.data + r * mstride, bits_row);
  if (C % 8)  // bits past C are never read; clear them so the copy is deterministic
    for (int r = 0; r < R; ++r) bits[r * bits_row + bits_row - 1] &= uint8_t((1u << (C % 8)) - 1);
  const Source a(s0, dst, R, C);
  std::optional<Source> b;
  if (!scalar_form) b.emplace(*call.src1, dst, R, C);
  ops::Rows2 g;
  g.a = a.row(0);
  g.as = a.stride();
  if (b) {
    g.b = b->row(0);
    g.bs = b->stride();
  }
  g.d = dst.data;
  g.ds = size_t(dst.cols) * esize(dst);
  g.rows = size_t(R);
  g.n = size_t(C);
  ops::select_bits_rows(dt, bits.data(), bits_row, g, scalar_form, s);
  if (scalar_form && is_a2a3(c) && call.tmp) ops::store_code(dt, call.tmp->data, 0, s);
}

}  // namespace

void compare(const Ctx& c, const Call& call, Path path) {
  switch (c.info.kind) {
    case Kind::Compare:
    case Kind::CompareScalar:
      return cmp(c, call, path);
    default:
      return sel(c, call);
  }
}

}  // namespace tilesim::pto::instr
