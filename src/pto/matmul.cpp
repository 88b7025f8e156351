// PTO matrix instructions (spec 21 §2 matrix row; docs/pto-kernels.md#matrix): TMATMUL,
// TMATMUL_ACC, TMATMUL_BIAS, `Left (M x K) x Right (K x N) -> Acc (M x N)`, computed by the one
// GEMM core LinxISA's TMATMUL family uses (src/linx/gemm_core.hpp, spec 30 §3): operands decoded
// exactly to fp32 / int32, an fp32 FMA chain in k order (integers wrap), _ACC seeding the chain
// with C, _BIAS adding once at the end, NaN results written as the default NaN.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "linx/gemm_core.hpp"
#include "linx/machine_state.hpp"
#include "pto/transfer.hpp"

namespace tilesim::pto::instr {
namespace {

namespace core = linx::core;

// The dtype pairs of the matrix pages (Left = Right dtype -> Acc dtype).
struct Pair {
  Elem in, acc;
};
constexpr Pair kPairs[] = {
    {Elem::f16, Elem::f32}, {Elem::bf16, Elem::f32}, {Elem::f32, Elem::f32}, {Elem::s8, Elem::s32}};

const Pair* find_pair(Elem in) {
  for (const Pair& p : kPairs)
    if (p.in == in) return &p;
  return nullptr;
}

// The valid region of t as a row-major R x C array of the core's domain (fp32 or int32 codes), or
// column-major (C x R row-major) with `transposed`: a Right tile's boxes are column-major, so its
// columns gather in block copies and the core reads B column by column (b_col_major).
std::vector<uint32_t> gather(const TileDesc& t, bool transposed = false) {
  const int R = t.valid_row, C = t.valid_col;
  const size_t es = esize(t);
  const layout::Parts tp(t, 0, R, 0, C);
  const layout::Parts rm = transposed ? layout::Parts::col_major(R, C) : layout::Parts::row_major(R, C);
  std::vector<uint32_t> out(size_t(R) * size_t(C));
  if (t.dtype == Elem::f32 || t.dtype == Elem::s32) {  // already the core's domain
    layout::copy_region(reinterpret_cast<uint8_t*>(out.data()), rm, t.data, tp, R, C, 4);
    return out;
  }
  std::vector<uint8_t> codes(size_t(R) * size_t(C) * es);
  layout::copy_region(codes.data(), rm, t.data, tp, R, C, es);
  core::decode(codes.data(), core_dtype(t.dtype), 0, out.size(), out.data());
  return out;
}

// The fast engine reads Left / Right tiles in place when they are the GEMM core's fractal views
// (docs/pto-kernels.md#tile-layouts): Left NZ (ColMajor blocks of RowMajor boxes: element (r, k) at
// (k / IC) * Rows * IC + r * IC + k % IC) and Right ZN (RowMajor blocks of ColMajor boxes: element
// (k, c) at (k / IR) * Cols * IR + c * IR + k % IR) -- a PanelView each, no gather. 32-bit codes
// are read as stored; narrower ones are decoded once, in storage order, into a per-thread buffer.
std::optional<core::PanelView> fractal_view(const TileDesc& t, bool left, int slot) {
  const bool nz = !t.row_major && t.slayout == kSLayoutRowMajor, zn = t.row_major && t.slayout == kSLayoutColMajor;
  if (left ? !nz : !zn) return std::nullopt;
  const size_t k0 = size_t(left ? layout::inner_cols(t) : layout::inner_rows(t));
  const size_t x = size_t(left ? t.rows : t.cols);
  const void* p = t.data;
  if (elem_size(t.dtype) != 4) {
    thread_local std::vector<uint32_t> bufs[2];
    std::vector<uint32_t>& flat = bufs[slot];
    const size_t n = size_t(t.rows) * size_t(t.cols);
    if (flat.size() < n) flat.resize(n);
    core::decode(t.data, core_dtype(t.dtype), 0, n, flat.data());
    p = flat.data();
  }
  return core::PanelView{p, k0, x * k0};
}

// A Right ZN tile of fp16 / bf16 (16 x 16 boxes, column-major inside) as its valid K x N region,
// row-major, in a per-thread buffer: each box transposed (and decoded to fp32) in registers
// (box_simd.cpp), which the core then reads in place (no decode pass in storage order and no
// transpose into panels). fp16 rows the core reads in place (N a multiple of 32, at most 64 KiB of
// codes: chain_f32_views_c's b_row_f16) stay fp16 codes (`f16`): the core's kernel decodes them as
// it loads them, which costs it ~1 % and saves writing and reading an fp32 copy of B. Null for
// other tiles.
struct RightRows {
  const void* p = nullptr;
  bool f16 = false;
};
RightRows right_rows(const TileDesc& t, int K, int N) {
  const bool zn = t.row_major && t.slayout == kSLayoutColMajor;
  if ((t.dtype != Elem::f16 && t.dtype != Elem::bf16) || !zn || layout::inner_rows(t) != 16 ||
      layout::inner_cols(t) != 16 || t.rows % 16 != 0 || t.cols % 16 != 0)  // whole boxes only
    return {};
  const bool bf16 = t.dtype == Elem::bf16;
  const bool f16 = !bf16 && N % 32 == 0 && size_t(K) * size_t(N) * 2 <= (size_t{64} << 10);
  // Box (k0, c0) by stepping: box rows layout::index(t, 16, 0) apart, boxes index(t, 0, 16).
  const size_t es = 2, box_row = layout::index(t, 16, 0) * es, box_col = layout::index(t, 0, 16) * es;
  // Every box through `box_to(box, out, ldo)` into the K x N rows `out` (fp16 codes or fp32); a
  // box across the valid region's edge goes through a 16 x 16 staging box.
  const auto fill = [&](auto* out, const auto& box_to) {
    using E = std::remove_pointer_t<decltype(out)>;
    alignas(64) E edge[256];
    for (int k0 = 0; k0 < K; k0 += 16)
      for (int c0 = 0; c0 < N; c0 += 16) {
        const uint8_t* box = t.data + size_t(k0 / 16) * box_row + size_t(c0 / 16) * box_col;
        E* const at = out + size_t(k0) * size_t(N) + size_t(c0);
        if (k0 + 16 <= K && c0 + 16 <= N) {
          box_to(box, at, size_t(N));
          continue;
        }
        box_to(box, edge, 16);
        for (int k = 0; k < std::min(16, K - k0); ++k)
          std::memcpy(at + size_t(k) * size_t(N), edge + k * 16, size_t(std::min(16, N - c0)) * sizeof(E));
      }
    return static_cast<const void*>(out);
  };
  if (f16) {
    thread_local std::vector<uint16_t> hrows;
    hrows.resize(size_t(K) * size_t(N));
    return {fill(hrows.data(), [](const uint8_t* b, uint16_t* o, size_t ld) { box16x16_transposed(b, o, ld); }),
            true};
  }
  thread_local std::vector<float> rows;
  rows.resize(size_t(K) * size_t(N));
  return {fill(rows.data(),
               [&](const uint8_t* b, float* o, size_t ld) { box16x16_to_f32_transposed(b, bf16, o, ld); }),
          false};
}

// The Acc tile as the core's C view when the chain can accumulate in it directly: NZ with 16-wide
// boxes (TileAcc: 16 x 16 fp32 / s32 boxes, element (r, c) at (c / 16) * Rows * 16 + r * 16 + c % 16,
// docs/pto-kernels.md#tile-layouts), or NoneBox row-major (a2a3 checks no Acc layout).
std::optional<core::CView> acc_view(const TileDesc& t) {
  if (layout::rows_contiguous(t)) return core::CView{t.data, size_t(t.cols), 0, 0};
  const bool nz = !t.row_major && t.slayout == kSLayoutRowMajor;
  if (!nz || layout::inner_rows(t) != 16 || layout::inner_cols(t) != 16 || t.rows % 16 != 0 || t.cols % 16 != 0)
    return std::nullopt;  // (a tile of partial boxes takes the staged path)
  return core::CView{t.data, 16, 16, size_t(t.rows) * 16};
}

// Writes a row-major M x N result of 4-byte codes into t's valid region.
void scatter(const TileDesc& t, const uint32_t* v) {
  const int R = t.valid_row, C = t.valid_col;
  layout::copy_region(t.data, layout::Parts(t, 0, R, 0, C), reinterpret_cast<const uint8_t*>(v),
                      layout::Parts::row_major(R, C), R, C, 4);
}

}  // namespace

void matmul(const Ctx& c, const Call& call, Path path) {
  no_mx_locations(c, call);
  const TileDesc& C = *call.dst;
  const TileDesc& A = *call.src0;
  const TileDesc& B = *call.src1;
  tile_ok(c, C, "cMatrix");
  tile_ok(c, A, "aMatrix");
  tile_ok(c, B, "bMatrix");
  loc_is(c, A, kLocLeft, "aMatrix");
  loc_is(c, B, kLocRight, "bMatrix");
  loc_is(c, C, kLocAcc, "cMatrix");
  dtype_allowed(c, A, "aMatrix");
  same_dtype(c, A, "aMatrix", B, "bMatrix");
  const Pair* pair = find_pair(A.dtype);
  if (C.dtype != pair->acc)
    c.fail(ErrorCode::Constraint,
           fmt::format("cMatrix dtype must be {} for {} operands, got {}", elem_name(pair->acc),
                       elem_name(A.dtype), elem_name(C.dtype)));
  const int M = A.valid_row, K = A.valid_col, N = B.valid_col;
  if (B.valid_row != K)
    c.fail(ErrorCode::Constraint,
           fmt::format("aMatrix validCol (K = {}) must equal bMatrix validRow, got {}", K, B.valid_row));
  if (C.valid_row != M || C.valid_col != N)
    c.fail(ErrorCode::Constraint,
           fmt::format("cMatrix valid shape must be {}x{} (aMatrix rows x bMatrix cols), got {}x{}", M,
                       N, C.valid_row, C.valid_col));
  if (M < 1 || N < 1 || K < 1 || (c.target.kind != TargetKind::cpu && (M > 4095 || N > 4095 || K > 4095)))
    c.fail(ErrorCode::Constraint,
           fmt::format("M, N and K must be in 1..{}, got {}, {}, {}",
                       c.target.kind == TargetKind::cpu ? "2^24" : "4095", M, N, K));
  // Fractal layouts: a5 and cpu check Left NZ (cpu: RowMajor boxes in either block order), Right
  // ZN, Acc NZ; a2a3's backend checks none (pto-isa npu/a5, cpu TMatmul.hpp).
  if (c.target.kind != TargetKind::a2a3) {
    const bool left_ok = A.slayout == kSLayoutRowMajor && (!A.row_major || c.target.kind == TargetKind::cpu);
    const bool right_ok = B.row_major && B.slayout == kSLayoutColMajor;
    const bool acc_ok = !C.row_major && C.slayout == kSLayoutRowMajor;
    if (!left_ok || !right_ok || !acc_ok)
      c.fail(ErrorCode::Constraint,
             fmt::format("on target {} aMatrix must be NZ (ColMajor blocks of RowMajor boxes), "
                         "bMatrix ZN (RowMajor blocks of ColMajor boxes) and cMatrix NZ; got {}",
                         c.target.name, !left_ok ? "another aMatrix layout"
                                        : !right_ok ? "another bMatrix layout"
                                                    : "another cMatrix layout"));
  }
  const TileDesc* in = call.acc_in;
  if (in) {
    if (in != &C) {
      tile_ok(c, *in, "cInMatrix");
      loc_is(c, *in, kLocAcc, "cInMatrix");
      same_dtype(c, *in, "cInMatrix", C, "cOutMatrix");
      same_valid(c, *in, "cInMatrix", C, "cOutMatrix");
    }
  }
  const TileDesc* bias = call.bias;
  if (bias) {
    tile_ok(c, *bias, "biasData");
    loc_is(c, *bias, kLocBias, "biasData");
    same_dtype(c, *bias, "biasData", C, "cMatrix");
    if (bias->valid_row != 1 || bias->valid_col != N)
      c.fail(ErrorCode::Constraint,
             fmt::format("biasData valid shape must be 1x{} (N), got {}x{}", N, bias->valid_row,
                         bias->valid_col));
  }

  const core::Domain d = pair->acc == Elem::f32 ? core::Domain::f32 : core::Domain::i32;
  const linx::LinxProfile& p = linx::default_linx_profile();
  const core::Rules rules{p.float_order, p.int_overflow};
  if (path == Path::Fast) {
    const auto cv = acc_view(C);
    const RightRows br = cv ? right_rows(B, K, N) : RightRows{};
    const void* const brow = br.p;
    const auto av = fractal_view(A, true, 0);
    // (With brow the core reads B from it; the view is then not used.)
    const auto bvw = brow ? std::optional(core::PanelView{brow, 1, 0}) : fractal_view(B, false, 1);
    // cIn is read in place only when it is C itself or apart from it: a different tile that
    // overlaps C (TASSIGN can place one so) takes the staged path below, which reads cIn first.
    const bool in_apart = !in || in == &C || !overlaps(*in, C);
    if (av && bvw && cv && in_apart) {  // every operand in place: the chain accumulates in the Acc tile itself
      // _ACC from another tile: its values first (A and B live in L0A / L0B, never in C's buffer).
      if (in && in != &C) move_region(C, *in, 0, 0, M, N, {in->dtype, in->dtype});
      std::vector<uint32_t> bv;
      if (bias) bv = gather(*bias);
      core::run_views_into(d, *av, *bvw, brow, bias ? bv.data() : nullptr, in != nullptr, *cv,
                           size_t(M), size_t(N), size_t(K), rules, br.f16);
      return;
    }
    // The staged chain reads B through its fractal view (brow is the in-place chain's form of B).
    const auto bst = brow ? fractal_view(B, false, 1) : bvw;
    if (av && bst) {  // the operands in place; C row-major in a per-thread buffer
      thread_local std::vector<uint32_t> cbuf;
      cbuf.resize(size_t(M) * size_t(N));
      TileDesc rows;  // cbuf as a dense row-major tile: the movers' box-row copies stage C
      rows.dtype = C.dtype;
      rows.rows = rows.valid_row = M;
      rows.cols = rows.valid_col = N;
      rows.data = reinterpret_cast<uint8_t*>(cbuf.data());
      rows.capacity = cbuf.size() * 4;
      if (in) move_region(rows, *in, 0, 0, M, N, {in->dtype, in->dtype});
      std::vector<uint32_t> bv;
      if (bias) bv = gather(*bias);
      core::run_views(d, *av, *bst, bias ? bv.data() : nullptr, in ? cbuf.data() : nullptr, cbuf.data(), size_t(M),
                      size_t(N), size_t(K), rules);
      move_region(C, rows, 0, 0, M, N, {C.dtype, C.dtype});
      return;
    }
  }
  // Every operand is read before C is written (C may alias cIn: the in-place accumulate form).
  const bool b_col_major = B.slayout == kSLayoutColMajor || (B.slayout == kSLayoutNoneBox && !B.row_major);
  const std::vector<uint32_t> a = gather(A), b = gather(B, b_col_major);
  std::vector<uint32_t> start, bv;
  if (in) start = gather(*in);
  if (bias) bv = gather(*bias);
  std::vector<uint32_t> out(size_t(M) * size_t(N));
  core::run(d, a.data(), b.data(), bias ? bv.data() : nullptr, in ? start.data() : nullptr,
            out.data(), size_t(M), size_t(N), size_t(K),
            path == Path::Fast ? linx::Engine::fast : linx::Engine::reference, b_col_major, rules);
  scatter(C, out.data());
}

}  // namespace tilesim::pto::instr
