// ACCCVT (CUBE Fn 8, spec 31 §2): ACC -> one tile of the B.DATR type, through an optional scale
// and the one conversion routine (spec 15 §2); ACCCVT releases ACC.
#include <algorithm>
#include <cstring>

#include "linx/block.hpp"
#include "ops/cast.hpp"
#include "tilesim/parallel.hpp"

namespace tilesim::linx {
using namespace blk;
using enc::F;

Commit exec_acccvt(const Machine::State& s, std::span<const enc::Word> b, long word_index) {
  const Ctx c{"ACCCVT", word_index, b};
  const Desc d = describe(s, c);
  need_iot(c, d, 0, true);
  unused_zero(c, d.attr, "layout rmode sat");
  const AccView& acc = s.acc;
  if (!acc.valid && acc.released_at >= 0)
    c.fail("ACC released", "ACC released by ACCCVT at block " + num(static_cast<uint64_t>(acc.released_at)), "docs/linx.md#acccvt");
  if (!acc.valid) c.fail("ACC mismatch", "ACC holds no result to convert", "docs/linx.md#acccvt");
  const TypeCode& src = type_code(b[0][F::dt]);
  if (!src.known || src.dtype != acc.type || (src.code != 1 && src.code != 17 && src.code != 25))
    c.fail("ACC mismatch", std::string("SrcType ") + src.name + " is not ACC's type " + std::string(formats::name(acc.type)),
           "docs/linx.md#acccvt");
  if (d.lb[0] != acc.m || d.lb[1] != acc.n)
    c.fail("ACC mismatch", "LB0 x LB1 = " + num(d.lb[0]) + "x" + num(d.lb[1]) + " differs from ACC's M x N = " +
                               num(acc.m) + "x" + num(acc.n),
           "docs/linx.md#acccvt");
  const unsigned dtc = d.attr.datatype == 31 ? src.code : d.attr.datatype;
  const TypeCode& dst = type_code(dtc);
  if (!dst.known || dtc == 6 || dtc == 14 || dtc == 20 || dtc == 28 || dtc == 11 || dtc == 12)
    c.fail("unsupported", std::string("ACCCVT to DstType ") + dst.name + " is not supported", "docs/linx.md#acccvt");
  if (d.attr.rmode == 7) c.fail("unsupported", "RMode 7 (RHB) is not supported", "docs/linx.md#block-words");
  static const formats::Rounding kRound[7] = {formats::Rounding::rne, formats::Rounding::rne, formats::Rounding::rtz,
                                              formats::Rounding::rdn, formats::Rounding::rup, formats::Rounding::rna,
                                              formats::Rounding::rto};
  const unsigned lay = d.attr.layout;
  if (lay != 0 && lay != 27 && lay != 28) {
    const char* n = enc::layout_name(lay);
    c.fail("unsupported", std::string("ACCCVT layout ") + (n ? n : "reserved") + " (" + num(lay) +
                              ") is not supported (NORM, NZ2ND, NZ2DN)",
           "docs/linx.md#acccvt");
  }
  const DType to = dst.dtype;
  const size_t es = formats::info(to).storage_bits / 8;
  const size_t M = acc.m, N = acc.n, Mp = (M + 15) / 16 * 16, Np = (N + 15) / 16 * 16;
  const size_t need = (lay == 0 ? Mp * Np : M * N) * es;
  const enc::Word& io = *d.iot;
  const size_t size = enc::size_bytes(io[F::size]);
  if (size < need)
    c.fail("tile too small", "destination ->" + std::string(enc::dst_name(io[F::dst])) + "<" + enc::size_text(io[F::size]) +
                                 "> holds " + num(size) + " bytes, " + num(M) + "x" + num(N) + " " +
                                 std::string(formats::name(to)) + (lay == 0 ? " in NZ (padded)" : "") + " needs " + num(need),
           "docs/linx.md#acccvt");
  Commit out;
  destination(s, c, out, io[F::dst], size);
  // Scale: RegSrc0's low 32 bits read as SrcType, one multiply in SrcType (fp32 RNE / 32-bit wrap).
  const uint32_t* in = acc.data.data();
  std::vector<uint32_t> scaled;
  if (d.reg_code(0)) {
    scaled = acc.data;
    const uint32_t k = static_cast<uint32_t>(s.regs[d.reg_code(0)]);
    if (acc.type == DType::fp32) {
      float kf;
      std::memcpy(&kf, &k, 4);
      for (auto& x : scaled) {
        float f;
        std::memcpy(&f, &x, 4);
        f = f * kf;
        std::memcpy(&x, &f, 4);
        if (f != f) x = 0x7FC00000u;  // the default NaN (spec 00)
      }
    } else {
      for (auto& x : scaled) x = x * k;
    }
    in = scaled.data();
  }
  ops::CastMode mode;
  mode.rounding = kRound[d.attr.rmode];
  mode.float_saturate = d.attr.sat != 0;
  // float -> integer always saturates; integer -> narrower integer iff Sat (spec 31 §2).
  mode.int_saturate = formats::is_float(acc.type) || d.attr.sat != 0;
  // Every byte ACCCVT does not write is zero; the rows it writes are not filled first.
  auto bytes = lay == 0 && (M != Mp || N != Np) ? std::make_shared<TileBytes>(size, 0) : std::make_shared<TileBytes>(size);
  uint8_t* t = bytes->data();
  std::memset(t + need, 0, size - need);
  if (lay == 27) {  // NZ2ND: row-major, ACC's (i, j) order: converted straight into the tile
    // In row chunks of >= kThreadChunk bytes of ACC over the threads (as TMA's): each element's
    // conversion is the same whichever thread runs it.
    const size_t rows_per = std::max<size_t>(1, kThreadChunk / std::max<size_t>(1, N * 4));
    parallel_for(M, rows_per, [&](size_t r0, size_t r1) {
      ops::cast(acc.type, to, in + r0 * N, t + r0 * N * es, (r1 - r0) * N, mode);
    });
  } else {
    std::vector<uint8_t> conv(M * N * es);
    ops::cast(acc.type, to, in, conv.data(), M * N, mode);
    if (lay == 0) {  // ACC's own NZ order: 16 x 16 fractals, column of fractals first; rows of 16 along j
      for (size_t i = 0; i < M; ++i)
        for (size_t j0 = 0; j0 < N; j0 += 16)
          std::memcpy(t + (((j0 / 16) * (Mp / 16) + i / 16) * 256 + (i % 16) * 16) * es, conv.data() + (i * N + j0) * es,
                      std::min<size_t>(16, N - j0) * es);
    } else {  // NZ2DN: column-major
      for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) std::memcpy(t + (j * M + i) * es, conv.data() + (i * N + j) * es, es);
    }
  }
  out.push.push_back({static_cast<int>(io[F::dst]), std::move(bytes)});
  out.acc_set = true;
  out.acc.released_at = word_index;  // ACCCVT releases ACC (the v0.56 ACCCVT page)
  return out;
}

}  // namespace tilesim::linx
