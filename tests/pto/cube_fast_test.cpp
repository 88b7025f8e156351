// The cube path's fast movers and matrix engine against their definitions.
//
// TMATMUL / TMATMUL_ACC / TMATMUL_BIAS accumulating in the Acc tile's own layout
// (src/pto/matmul.cpp acc_view, the GEMM core's CView; docs/pto-kernels.md#speed): the fast path
// must give the reference's bits in every element of the Acc tile, the valid region's and the
// untouched rest's, for tiles of several micro-panels (12-, 8- and 4-row panels, 32-column panels
// and their edges), every dtype pair, NZ Acc tiles of 16 x 16 boxes (in place) and of other boxes
// (staged), NoneBox row-major Acc tiles (a2a3), sparse NaN / Inf / +-0 / subnormal operands and
// start values, 1 and 2 threads, every compiled SIMD target (the targets without a fused SIMD fma
// run the reference chain on a row-major copy of the view).
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>
#include <random>

#include "pto/instr.hpp"
#include "pto/transfer.hpp"
#include "pto_test_util.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/parallel.hpp"

namespace {

using namespace pto_test;
using tilesim::pto::Call;
using tilesim::pto::execute;
using tilesim::pto::find_target;
using tilesim::pto::Instr;
using tilesim::pto::Path;
using tilesim::pto::Target;

// Mostly moderate finite values (so a chain of up to 160 steps is not all NaN), one in ~100 a
// special: NaN, +-Inf, +-0, the smallest and largest subnormal, the largest finite.
void fill_sparse(std::mt19937& g, Elem e, uint8_t* p, size_t n) {
  const size_t sz = elem_size(e);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = uint32_t(g());
    uint32_t v = 0;
    const bool special = g() % 100 == 0;
    if (e == Elem::f32) {
      static const uint32_t sp[] = {0x7FC00000, 0xFF800000, 0x7F800000, 0x00000000,
                                    0x80000000, 0x00000001, 0x807FFFFF, 0x7F7FFFFF};
      v = special ? sp[r % 8] : (r & 0x80000000u) | (0x3E000000u + (r % 0x01800000u));
    } else if (e == Elem::f16) {
      static const uint16_t sp[] = {0x7E00, 0xFC00, 0x7C00, 0x0000, 0x8000, 0x0001, 0x83FF, 0x7BFF};
      v = special ? sp[r % 8] : (r & 0x8000u) | (0x3000u + (r % 0x1400u));
    } else if (e == Elem::bf16) {
      static const uint16_t sp[] = {0x7FC0, 0xFF80, 0x7F80, 0x0000, 0x8000, 0x0001, 0x807F, 0x7F7F};
      v = special ? sp[r % 8] : (r & 0x8000u) | (0x3E00u + (r % 0x0180u));
    } else {
      v = r;  // integers: every bit pattern (the chain wraps)
    }
    std::memcpy(p + i * sz, &v, sz);
  }
}

struct AccShape {
  bool row_major;  // NoneBox row-major (a2a3 only) or NZ
  int fractal;  // NZ box bytes: 1024 = 16 x 16 (TileAcc, in place), 512 = 16 x 8 for fp32 (staged)
};

// TMATMUL_ACC from a cIn tile that overlaps cOut without being it (two Acc tiles placed 4 rows
// apart in one buffer, as TASSIGN can): every cIn value is read before C is written, on the fast
// path as on the reference path (review finding: the in-place chain copied cIn over C row by row).
TEST(PtoMatmulInPlace, AccFromAnOverlappingTileReadsItFirst) {
  std::mt19937 g(5);
  const Target& t = find_target("a2a3");
  HostTile a(Elem::f16, 16, 16, false), b(Elem::f16, 16, 16, true);  // NZ Left, ZN Right
  a.d.loc = tilesim::pto::kLocLeft;
  a.d.slayout = tilesim::pto::kSLayoutRowMajor;
  b.d.loc = tilesim::pto::kLocRight;
  b.d.slayout = tilesim::pto::kSLayoutColMajor;
  fill_sparse(g, a.d.dtype, a.bytes.data(), a.bytes.size() / a.sz());
  fill_sparse(g, b.d.dtype, b.bytes.data(), b.bytes.size() / b.sz());
  for (int shift : {40, 4, -4}) {
    HostTile buf(Elem::f32, 80, 16, true);
    fill_sparse(g, buf.d.dtype, buf.bytes.data(), buf.bytes.size() / buf.sz());
    HostTile out[2] = {buf, buf};
    for (int k = 0; k < 2; ++k) {
      TileDesc cin = out[k].d, cout = out[k].d;
      cin.rows = cout.rows = 32;
      cin.valid_row = cout.valid_row = 16;
      cin.loc = cout.loc = tilesim::pto::kLocAcc;
      const int sh = shift > 0 ? shift : -shift;
      cin.data = out[k].d.data + (shift > 0 ? 0 : sh * 16 * 4);
      cout.data = out[k].d.data + (shift > 0 ? sh * 16 * 4 : 0);
      cin.capacity = cout.capacity = 32 * 16 * 4;
      Call call{.instr = Instr::TMATMUL_ACC, .dst = &cout, .src0 = &a.d, .src1 = &b.d};
      call.acc_in = &cin;
      execute(call, t, Ub{}, k == 0 ? Path::Fast : Path::Reference);
    }
    for (int i = 0; i < 80 * 16; ++i)
      ASSERT_EQ(out[0].get<uint32_t>(i / 16, i % 16), out[1].get<uint32_t>(i / 16, i % 16))
          << "cOut " << shift << " rows from cIn, buffer element (" << i / 16 << ", " << i % 16
          << ")";
  }
}

TEST(PtoMatmulInPlace, FastEqualsReferenceInEveryAccElement) {
  std::mt19937 g(77);
  struct Pair {
    Elem in, acc;
  };
  const AccShape shapes[] = {{false, 1024}, {true, 0}, {false, 512}};
  size_t runs = 0, in_place = 0, targets = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    ++targets;
    for (const Pair p : {Pair{Elem::f16, Elem::f32}, Pair{Elem::bf16, Elem::f32},
                         Pair{Elem::f32, Elem::f32}, Pair{Elem::s8, Elem::s32}})
      for (const AccShape& as : shapes)
        for (int rep = 0; rep < 4; ++rep)
          for (size_t threads : {size_t{1}, size_t{2}}) {
            tilesim::set_num_threads(threads);
            const Target& t = find_target(as.row_major ? "a2a3" : "a5");
            const int es = int(elem_size(p.in)), k0 = 32 / es;
            // Up to 8 x 16 rows (several 12-row panels and a 4- or 8-row last one), 5 x 32 columns
            // (an edge panel when N is not a multiple of 32), K across several K0 lines.
            const int R = 16 * (1 + int(g() % 8)), KC = k0 * (1 + int(g() % 5)),
                      NC = 16 * (1 + int(g() % 10));
            const bool full = rep == 0;  // valid region = the whole tile once per shape
            const int M = full ? R : 1 + int(g() % R), K = full ? KC : 1 + int(g() % KC),
                      N = full ? NC : 1 + int(g() % NC);
            HostTile a(p.in, R, KC, false, M, K), b(p.in, KC, NC, true, K, N);  // NZ Left, ZN Right
            a.d.loc = tilesim::pto::kLocLeft;
            a.d.slayout = tilesim::pto::kSLayoutRowMajor;
            b.d.loc = tilesim::pto::kLocRight;
            b.d.slayout = tilesim::pto::kSLayoutColMajor;
            HostTile c(p.acc, R, NC, as.row_major, M, N), cin(p.acc, R, NC, as.row_major, M, N),
                bias(p.acc, 1, NC, true, 1, N);
            for (HostTile* x : {&c, &cin}) {
              x->d.loc = tilesim::pto::kLocAcc;
              if (!as.row_major) {
                x->d.slayout = tilesim::pto::kSLayoutRowMajor;
                x->d.fractal = as.fractal;
              }
            }
            bias.d.loc = tilesim::pto::kLocBias;
            for (HostTile* x : {&a, &b, &cin, &bias})
              fill_sparse(g, x->d.dtype, x->bytes.data(), x->bytes.size() / x->sz());
            fill_sparse(g, c.d.dtype, c.bytes.data(),
                        c.bytes.size() / c.sz());   // also outside the valid region
            for (int form = 0; form < 4; ++form) {  // plain, _ACC from cin, _ACC in place, _BIAS
              HostTile d1 = c, d2 = c;
              Call call{.instr = form == 3 ? Instr::TMATMUL_BIAS
                                 : form    ? Instr::TMATMUL_ACC
                                           : Instr::TMATMUL,
                        .src0 = &a.d,
                        .src1 = &b.d};
              call.dst = &d1.d;
              call.acc_in = form == 1 ? &cin.d : form == 2 ? &d1.d : nullptr;
              call.bias = form == 3 ? &bias.d : nullptr;
              execute(call, t, Ub{}, Path::Fast);
              call.dst = &d2.d;
              if (form == 2) call.acc_in = &d2.d;
              execute(call, t, Ub{}, Path::Reference);
              ASSERT_EQ(d1.bytes, d2.bytes)
                  << hwy::TargetName(target) << " in " << int(p.in) << " acc "
                  << (as.row_major ? "rows" : "NZ") << "/" << as.fractal << " " << M << "x" << K
                  << "x" << N << " of " << R << "x" << KC << "x" << NC << " form " << form
                  << " threads " << threads;
              ++runs;
            }
            in_place += !as.row_major && as.fractal == 1024;
          }
  }
  hwy::SetSupportedTargetsForTest(0);
  tilesim::set_num_threads(0);
  EXPECT_EQ(runs, targets * 4 * 3 * 4 * 2 * 4);
  EXPECT_EQ(in_place, targets * 4 * 4 * 2);
}

// fp16 TMATMUL / TMATMUL_ACC with B handed to the GEMM core as fp16 rows (src/pto/matmul.cpp
// right_rows: N a multiple of 32 and at most 64 KiB of codes; the core reads them in place and
// decodes them in its kernel, K past one K block too) or as fp32 rows (over 64 KiB, N not a
// multiple of 32); fast equals reference in every Acc element on every target, specials included.
TEST(PtoMatmulInPlace, Fp16RightRowsFastEqualsReference) {
  std::mt19937 g(91);
  size_t runs = 0;
  const Target& t = find_target("a2a3");
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    // (M, K, N): the tiled GEMM example's step, 64 KiB of B exactly, K over two K blocks, more
    // than 64 KiB, N not a multiple of 32
    struct Shape {
      int M, K, N;
    };
    for (const Shape sh :
         {Shape{128, 64, 256}, Shape{32, 128, 256}, Shape{32, 512, 64}, Shape{48, 128, 320}, Shape{16, 96, 208}}) {
      HostTile a(Elem::f16, sh.M, sh.K, false),
          b(Elem::f16, sh.K, sh.N, true);  // NZ Left, ZN Right
      a.d.loc = tilesim::pto::kLocLeft;
      a.d.slayout = tilesim::pto::kSLayoutRowMajor;
      b.d.loc = tilesim::pto::kLocRight;
      b.d.slayout = tilesim::pto::kSLayoutColMajor;
      HostTile c(Elem::f32, sh.M, sh.N, false);
      c.d.loc = tilesim::pto::kLocAcc;
      c.d.slayout = tilesim::pto::kSLayoutRowMajor;
      c.d.fractal = 1024;
      for (HostTile* x : {&a, &b, &c})
        fill_sparse(g, x->d.dtype, x->bytes.data(), x->bytes.size() / x->sz());
      for (int form = 0; form < 2; ++form) {  // TMATMUL, TMATMUL_ACC in place
        HostTile d1 = c, d2 = c;
        Call call{.instr = form ? Instr::TMATMUL_ACC : Instr::TMATMUL, .src0 = &a.d, .src1 = &b.d};
        call.dst = call.acc_in = &d1.d;
        if (!form) call.acc_in = nullptr;
        execute(call, t, Ub{}, Path::Fast);
        call.dst = &d2.d;
        if (form) call.acc_in = &d2.d;
        execute(call, t, Ub{}, Path::Reference);
        ASSERT_EQ(d1.bytes, d2.bytes) << hwy::TargetName(target) << " " << sh.M << "x" << sh.K
                                      << "x" << sh.N << " form " << form;
        ++runs;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(runs, 10u);
}

// The 16 x 16 16-bit box transpose of TMOV Mat NZ -> Right ZN (src/pto/box_simd.cpp) on every
// compiled SIMD target: element (i, j) to (j, i), every one of the 256 distinct codes in place.
TEST(PtoCubeMovers, Box16TransposeOnEveryTarget) {
  size_t targets = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    ++targets;
    uint16_t src[256], dst[256];
    for (int i = 0; i < 256; ++i) src[i] = uint16_t(0x9000 + i * 7);
    std::memset(dst, 0, sizeof dst);
    tilesim::pto::instr::transpose_box16x16_u16(reinterpret_cast<uint8_t*>(dst), reinterpret_cast<const uint8_t*>(src));
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) ASSERT_EQ(dst[j * 16 + i], src[i * 16 + j]) << hwy::TargetName(target) << " " << i << "," << j;
    // The same into lines 20 codes apart (TMATMUL's fp16 Right rows), the gaps untouched.
    uint16_t rows[16 * 20];
    std::fill(std::begin(rows), std::end(rows), uint16_t(0xABCD));
    tilesim::pto::instr::box16x16_transposed(reinterpret_cast<const uint8_t*>(src), rows, 20);
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 20; ++i)
        ASSERT_EQ(rows[j * 20 + i], i < 16 ? src[i * 16 + j] : 0xABCD)
            << hwy::TargetName(target) << " " << i << "," << j;
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(targets, 1u);
}

// The transposing decode of TMATMUL's fp16 / bf16 Right boxes (box16x16_to_f32_transposed) on every
// compiled SIMD target: code (i, c) to out[c][i], the fp32 value exactly (NaN codes: a NaN), over
// every 16-bit code (256 boxes) and a row stride wider than the box.
TEST(PtoCubeMovers, Box16DecodeTransposedOnEveryTarget) {
  size_t targets = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    ++targets;
    for (bool bf16 : {false, true})
      for (uint32_t base = 0; base < 65536; base += 256) {
        uint16_t box[256];
        for (int i = 0; i < 256; ++i) box[i] = uint16_t(base + uint32_t((i * 97) % 256));
        float out[16 * 20];
        std::fill(std::begin(out), std::end(out), 12345.0f);
        tilesim::pto::instr::box16x16_to_f32_transposed(reinterpret_cast<const uint8_t*>(box), bf16, out, 20);
        for (int i = 0; i < 16; ++i)
          for (int c = 0; c < 16; ++c) {
            const uint16_t code = box[i * 16 + c];
            const float want = bf16 ? tilesim::formats::bf16_to_f32(code) : tilesim::formats::f16_to_f32(code);
            const float got = out[c * 20 + i];
            if (want != want)
              ASSERT_TRUE(got != got) << hwy::TargetName(target) << " code " << code;
            else
              ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want))
                  << hwy::TargetName(target) << (bf16 ? " bf16" : " fp16") << " code " << code;
          }
        for (int c = 0; c < 16; ++c)  // the stride's gap untouched
          for (int i = 16; i < 20; ++i) ASSERT_EQ(out[c * 20 + i], 12345.0f);
      }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(targets, 1u);
}

// rows_box_rows' run mover (box_runs: one vector move per 32- or 64-byte box row) on every compiled
// SIMD target, both directions, NZ and ZZ, fp16 and fp32 (and s8's 32-byte runs), a partial last
// run: every element where layout::index puts it.
TEST(PtoCubeMovers, BoxRowRunsOnEveryTarget) {
  namespace L = tilesim::pto::layout;
  std::mt19937 g(8);
  size_t checked = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (Elem e : {Elem::s8, Elem::f16, Elem::f32})
      for (bool nz : {true, false})
        for (bool to_boxed : {true, false}) {
          HostTile rows(e, 32, 96, true), boxed(e, 32, 96, !nz);
          boxed.d.slayout = tilesim::pto::kSLayoutRowMajor;
          if (!nz) boxed.d.fractal = 1024;
          HostTile& src = to_boxed ? rows : boxed;
          HostTile& dst = to_boxed ? boxed : rows;
          fill_random(g, e, src.bytes.data(), src.bytes.size() / src.sz());
          const int C = 96 - int(g() % 2) * 5;  // a partial last run every other time
          tilesim::pto::instr::move_region(dst.d, src.d, 0, 0, 32, C, {e, e});
          for (int r = 0; r < 32; ++r)
            for (int c = 0; c < C; ++c)
              ASSERT_EQ(0, std::memcmp(L::at(dst.d, r, c), L::at(src.d, r, c), src.sz()))
                  << hwy::TargetName(target) << " " << int(e) << (nz ? " NZ" : " ZZ") << " " << r << "," << c;
          ++checked;
        }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(checked, 12u);
}

// TLOAD of a DN view into a ZN Mat tile moves 32-byte box columns (the transposed NZ case of the
// box-row mover, src/pto/memory.cpp): every element of the valid region where layout::index puts
// it and the pad everywhere else, fp16 / fp32 / s8, valid regions smaller than the tile, a column
// stride wider than the rows, 1 and 2 threads.
TEST(PtoCubeMovers, TloadDnIntoZnPlacesEveryElement) {
  namespace L = tilesim::pto::layout;
  std::mt19937 g(9);
  size_t checked = 0;
  const Target& t = find_target("a2a3");
  for (Elem e : {Elem::f16, Elem::f32, Elem::s8})
    for (int rep = 0; rep < 6; ++rep) {
      const int es = int(elem_size(e));
      const int IR = 32 / es;  // ZN box: 32 bytes down a column, 16 columns
      const int R = IR * (1 + int(g() % 3)), C = 16 * (1 + int(g() % 4));
      const int VR = rep < 2 ? R : 1 + int(g() % R), VC = rep < 2 ? C : 1 + int(g() % C);
      const int ld = VR + int(g() % 3) * 8;  // GM column stride (elements)
      HostTile tile(e, R, C, true);
      tile.d.loc = tilesim::pto::kLocMat;
      tile.d.slayout = tilesim::pto::kSLayoutColMajor;
      tile.d.valid_row = VR;
      tile.d.valid_col = VC;
      std::vector<uint8_t> gm(size_t(ld) * VC * es);
      fill_random(g, e, gm.data(), gm.size() / es);
      tilesim::pto::GmDesc gd;
      gd.dtype = e;
      gd.layout = tilesim::pto::GmLayout::DN;
      gd.shape[3] = VR;
      gd.shape[4] = VC;
      gd.stride[3] = 1;
      gd.stride[4] = ld;
      gd.data = gm.data();
      gd.extent = gm.size();
      Call call{.instr = Instr::TLOAD};
      call.dst = &tile.d;
      call.gm = &gd;
      for (size_t threads : {size_t{1}, size_t{2}}) {
        tilesim::set_num_threads(threads);
        std::fill(tile.bytes.begin(), tile.bytes.end(), uint8_t(0xA5));
        execute(call, t, Ub{}, Path::Fast);
        for (int r = 0; r < R; ++r)
          for (int c = 0; c < C; ++c) {
            const uint8_t* got = L::at(tile.d, r, c);
            if (r < VR && c < VC)
              ASSERT_EQ(0, std::memcmp(got, gm.data() + (size_t(c) * ld + r) * es, es)) << int(e) << " " << r << "," << c;
            else
              for (int b = 0; b < es; ++b) ASSERT_EQ(got[b], 0) << "pad " << int(e) << " " << r << "," << c;
          }
        ++checked;
      }
    }
  tilesim::set_num_threads(0);
  EXPECT_EQ(checked, 3u * 6 * 2);
}

}  // namespace
