// TGATHER / TSCATTER (docs/pto-instructions.md#gather-and-scatter): hand-computed answers for the
// index and mask-pattern forms (every answer below is worked out from the definition on the page,
// not by the engine), every rule's error with dst untouched, out-of-range indices, the C++ vendor
// API, and PTO-AS func.func programs giving the same bits as the engine.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <pto/pto-inst.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "tilesim/error.hpp"
#include "tilesim/pto/engine.hpp"
#include "tilesim/pto/ptoas.hpp"

namespace {
namespace tp = tilesim::pto;

template <class T>
struct Buf {
  std::vector<T> v;
  tp::TileDesc d;
  Buf(tp::Elem e, int rows, int cols, int vr = -1, int vc = -1) : v(size_t(rows) * size_t(cols)) {
    d.dtype = e;
    d.rows = rows;
    d.cols = cols;
    d.valid_row = vr < 0 ? rows : vr;
    d.valid_col = vc < 0 ? cols : vc;
    d.data = reinterpret_cast<uint8_t*>(v.data());
    d.capacity = v.size() * sizeof(T);
  }
};

void run(const char* instr, const char* target, const tp::TileDesc& dst, const tp::TileDesc& src,
         const tp::TileDesc* idx = nullptr, const tp::TileDesc* tmp = nullptr, uint8_t pattern = 0,
         uint8_t axis = 0) {
  tp::Call c{tp::find_instr(instr)->id};
  c.dst = &dst;
  c.src0 = &src;
  c.src1 = idx;
  c.tmp = tmp;
  c.pattern = pattern;
  c.axis = axis;
  tp::execute(c, tp::find_target(target), tp::Ub{});
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tilesim::Error& e) {
    return e.what();
  }
  return "(no error)";
}
#define EXPECT_HAS(s, sub) EXPECT_NE(std::string(s).find(sub), std::string::npos) << (s)

// ---- TGATHER index form ----

TEST(PtoGather, IndexFormF32) {
  // src0 2x8 holds 10*r + c; dst(i, j) = src0 flat[indices(i, j)] = 10*(k/8) + k%8.
  Buf<float> src(tp::Elem::f32, 2, 8), dst(tp::Elem::f32, 2, 8);
  Buf<int32_t> idx(tp::Elem::s32, 2, 8), tmp(tp::Elem::s32, 2, 8);
  for (int k = 0; k < 16; ++k) src.v[size_t(k)] = float(10 * (k / 8) + k % 8);
  const int32_t ks[16] = {15, 0, 7, 8, 3, 3, 9, 14, 1, 2, 4, 6, 10, 11, 12, 13};
  std::memcpy(idx.v.data(), ks, sizeof ks);
  for (const char* t : {"a2a3", "a5", "cpu"}) {
    std::fill(dst.v.begin(), dst.v.end(), -1.0f);
    run("TGATHER", t, dst.d, src.d, &idx.d, &tmp.d);
    const float want[16] = {17, 0, 7, 10, 3, 3, 11, 16, 1, 2, 4, 6, 12, 13, 14, 15};
    for (int k = 0; k < 16; ++k) EXPECT_EQ(dst.v[size_t(k)], want[k]) << t << " " << k;
  }
}

TEST(PtoGather, IndexFormF16WithU16IndicesOnA5AndS8) {
  // b16 data with b16 indices (a5, cpu); b8 data with b16 indices; dst 1x16 of 2x16 sources.
  Buf<uint16_t> src(tp::Elem::f16, 2, 16), dst(tp::Elem::f16, 1, 16);
  Buf<uint16_t> idx(tp::Elem::u16, 1, 16);
  for (int k = 0; k < 32; ++k) src.v[size_t(k)] = uint16_t(0x3C00 + k);  // fp16 codes, moved as bits
  for (int k = 0; k < 16; ++k) idx.v[size_t(k)] = uint16_t(31 - 2 * k);
  run("TGATHER", "a5", dst.d, src.d, &idx.d);
  for (int k = 0; k < 16; ++k) EXPECT_EQ(dst.v[size_t(k)], 0x3C00 + 31 - 2 * k) << k;
  // a2a3 takes 4-byte indices only
  EXPECT_HAS(error_of([&] { run("TGATHER", "a2a3", dst.d, src.d, &idx.d, &idx.d); }),
             "indices dtype must be one of s32 u32 on target a2a3, got u16");

  Buf<int8_t> s8(tp::Elem::s8, 1, 32), d8(tp::Elem::s8, 1, 32);
  Buf<int16_t> i16(tp::Elem::s16, 1, 32);
  for (int k = 0; k < 32; ++k) s8.v[size_t(k)] = int8_t(k - 16), i16.v[size_t(k)] = int16_t((k * 5) % 32);
  run("TGATHER", "cpu", d8.d, s8.d, &i16.d);
  for (int k = 0; k < 32; ++k) EXPECT_EQ(d8.v[size_t(k)], int8_t((k * 5) % 32 - 16)) << k;
  EXPECT_HAS(error_of([&] { run("TGATHER", "a2a3", d8.d, s8.d, &i16.d, &i16.d); }),
             "dst dtype s8 is not supported on target a2a3");
}

TEST(PtoGather, IndexOutOfRangeIsAnErrorAndWritesNothing) {
  Buf<float> src(tp::Elem::f32, 2, 8), dst(tp::Elem::f32, 1, 8);
  Buf<int32_t> idx(tp::Elem::s32, 1, 8);
  for (int k = 0; k < 8; ++k) idx.v[size_t(k)] = k;
  idx.v[5] = 16;  // src0 has 2 x 8 = 16 elements: 0 .. 15
  std::fill(dst.v.begin(), dst.v.end(), 7.0f);
  EXPECT_HAS(error_of([&] { run("TGATHER", "a5", dst.d, src.d, &idx.d); }),
             "TGATHER: indices element (0, 5) is 16, outside src0's 2x8 elements (0 .. 15)");
  idx.v[5] = -1;
  EXPECT_HAS(error_of([&] { run("TGATHER", "cpu", dst.d, src.d, &idx.d); }),
             "indices element (0, 5) is -1, outside");
  EXPECT_HAS(error_of([&] { run("TGATHER", "cpu", dst.d, src.d, &idx.d); }),
             "[docs/pto-instructions.md#gather-and-scatter]");
  for (float v : dst.v) EXPECT_EQ(v, 7.0f);
}

TEST(PtoGather, IndexFormRules) {
  Buf<float> src(tp::Elem::f32, 2, 8), dst(tp::Elem::f32, 2, 8), narrow(tp::Elem::f32, 2, 8, 2, 4);
  Buf<int32_t> idx(tp::Elem::s32, 2, 8), small(tp::Elem::s32, 1, 8), tmp(tp::Elem::s32, 2, 8),
      badtmp(tp::Elem::s32, 1, 8), sdst(tp::Elem::s32, 2, 8);
  Buf<uint16_t> i16(tp::Elem::u16, 2, 16);
  Buf<uint32_t> utmp(tp::Elem::u32, 2, 8);
  std::fill(dst.v.begin(), dst.v.end(), 3.0f);
  struct Case {
    const char* target;
    const tp::TileDesc *dst, *idx, *tmp;
    const char* want;
  } cases[] = {
      {"a5", &sdst.d, &idx.d, nullptr, "dst and src0 must have the same dtype, got s32 and fp32"},
      {"a5", &narrow.d, &idx.d, nullptr, "dst must be continuous: its validCol must equal its Cols, got 4 and 8"},
      {"a5", &dst.d, &small.d, nullptr, "indices valid shape must cover dst's, got 1x8 for 2x8"},
      {"a5", &dst.d, &i16.d, nullptr, "indices dtype u16 (2 bytes) does not pair with fp32 data (4 bytes)"},
      {"a2a3", &dst.d, &idx.d, nullptr, "a2a3 needs the tmp tile"},
      {"a2a3", &dst.d, &idx.d, &utmp.d, "tmp dtype must be indices' (s32), got u32"},
      {"a2a3", &dst.d, &idx.d, &badtmp.d, "tmp Rows x Cols must equal indices' valid shape, got 1x8 and 2x8"},
  };
  for (const Case& k : cases) {
    const std::string e = error_of([&] { run("TGATHER", k.target, *k.dst, src.d, k.idx, k.tmp); });
    EXPECT_HAS(e, k.want);
    EXPECT_HAS(e, "[docs/pto-instructions.md#gather-and-scatter]");
  }
  for (float v : dst.v) EXPECT_EQ(v, 3.0f);
  // a5 also wants continuous indices
  Buf<int32_t> wide(tp::Elem::s32, 2, 16, 2, 8);
  EXPECT_HAS(error_of([&] { run("TGATHER", "a5", dst.d, src.d, &wide.d); }),
             "on a5 indices must be continuous: validCol must equal Cols, got 8 and 16");
  run("TGATHER", "cpu", dst.d, src.d, &wide.d);  // cpu: the union
}

TEST(PtoGather, EmptyValidRegionWritesNothing) {
  Buf<float> src(tp::Elem::f32, 2, 8), dst(tp::Elem::f32, 2, 8, 0, 8), col(tp::Elem::f32, 2, 8, 0, 8);
  Buf<int32_t> idx(tp::Elem::s32, 2, 8, 0, 8), none(tp::Elem::s32, 2, 8, 0, 0);
  std::fill(dst.v.begin(), dst.v.end(), 2.0f);
  run("TGATHER", "a5", dst.d, src.d, &idx.d);
  Buf<float> empty_src(tp::Elem::f32, 2, 8, 0, 8);
  run("TGATHER", "a5", dst.d, empty_src.d, nullptr, nullptr, 1);     // row: nothing selected
  run("TGATHER", "a5", col.d, empty_src.d, nullptr, nullptr, 1, 1);  // col: 0 = 0 x 2 rows
  for (float v : dst.v) EXPECT_EQ(v, 2.0f);
  run("TSCATTER", "a5", dst.d, src.d, &none.d);  // no index: dst zeroed only
  for (float v : dst.v) EXPECT_EQ(v, 0.0f);
}

// ---- TGATHER mask form ----

TEST(PtoGather, MaskRowPacksSelectedColumns) {
  // src 2x8 = 10*r + c; P0101 takes columns 0 2 4 6, P1000 column 3 and 7: packed row after row.
  Buf<int32_t> src(tp::Elem::s32, 2, 8), dst(tp::Elem::s32, 1, 8);
  for (int k = 0; k < 16; ++k) src.v[size_t(k)] = 10 * (k / 8) + k % 8;
  const struct {
    uint8_t pattern;
    std::vector<int32_t> want;
  } rows[] = {{1, {0, 2, 4, 6, 10, 12, 14, 16}},
              {2, {1, 3, 5, 7, 11, 13, 15, 17}},
              {3, {0, 4, 10, 14, -1, -1, -1, -1}},
              {4, {1, 5, 11, 15, -1, -1, -1, -1}},
              {5, {2, 6, 12, 16, -1, -1, -1, -1}},
              {6, {3, 7, 13, 17, -1, -1, -1, -1}}};
  for (const auto& r : rows)
    for (const char* t : {"a2a3", "a5", "cpu"}) {
      std::fill(dst.v.begin(), dst.v.end(), -1);  // only the packed elements are written
      run("TGATHER", t, dst.d, src.d, nullptr, nullptr, r.pattern);
      EXPECT_EQ(dst.v, r.want) << t << " P" << int(r.pattern);
    }
  // P1111 takes all 16: dst's 8 cannot hold them
  EXPECT_HAS(error_of([&] { run("TGATHER", "a5", dst.d, src.d, nullptr, nullptr, 7); }),
             "GATHER_ROW P1111 selects 16 elements (2 rows x 8), dst's valid region holds 8");
  // a different dtype of the same size moves bits
  Buf<float> fdst(tp::Elem::f32, 1, 8);
  run("TGATHER", "a5", fdst.d, src.d, nullptr, nullptr, 1);
  int32_t bits[8];
  std::memcpy(bits, fdst.v.data(), sizeof bits);
  EXPECT_EQ(bits[7], 16);
}

TEST(PtoGather, MaskColKeepsSelectedRows) {
  Buf<uint16_t> src(tp::Elem::bf16, 8, 16), dst(tp::Elem::bf16, 2, 16);
  for (int k = 0; k < 128; ++k) src.v[size_t(k)] = uint16_t(k);
  run("TGATHER", "a2a3", dst.d, src.d, nullptr, nullptr, 5, 1);  // P0100: rows 2 and 6
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(dst.v[size_t(j)], 2 * 16 + j);
    EXPECT_EQ(dst.v[size_t(16 + j)], 6 * 16 + j);
  }
  Buf<uint16_t> d3(tp::Elem::bf16, 3, 16);
  EXPECT_HAS(error_of([&] { run("TGATHER", "a5", d3.d, src.d, nullptr, nullptr, 5, 1); }),
             "GATHER_COL P0100 needs src validRow = dst validRow x 4 and equal validCol, got src 8x16, dst 3x16");
  Buf<int64_t> s64(tp::Elem::s64, 4, 4), d64(tp::Elem::s64, 2, 4);
  EXPECT_HAS(error_of([&] { run("TGATHER", "a5", d64.d, s64.d, nullptr, nullptr, 1, 1); }),
             "GATHER_COL has no 8-byte form on target a5");
  Buf<int16_t> s16(tp::Elem::s16, 8, 16);
  EXPECT_HAS(error_of([&] { run("TGATHER", "a5", dst.d, s16.d, nullptr, nullptr, 9); }),
             "maskPattern must be P0101 (1) ... P1111 (7), got 9");
  Buf<int32_t> s32(tp::Elem::s32, 8, 8);
  EXPECT_HAS(error_of([&] { run("TGATHER", "a5", dst.d, s32.d, nullptr, nullptr, 1, 1); }),
             "dst and src must have the same element size, got bf16 (2) and s32 (4)");
  for (size_t k = 0; k < 16; ++k) EXPECT_EQ(dst.v[k], 2 * 16 + k);  // untouched by the rejections
}

// ---- TSCATTER ----

TEST(PtoScatter, IndexFormZeroesDstAndLastWriterWins) {
  // src 2x8 = 1 + k; indexes are element offsets in dst's 4x8: row 0 -> dst row 1, row 1 -> dst
  // row 3 with two elements sent to offset 31 (k = 14 then k = 15: 16 wins).
  Buf<float> src(tp::Elem::f32, 2, 8), dst(tp::Elem::f32, 4, 8);
  Buf<uint32_t> idx(tp::Elem::u32, 2, 8);
  for (int k = 0; k < 16; ++k) {
    src.v[size_t(k)] = float(1 + k);
    idx.v[size_t(k)] = uint32_t(k < 8 ? 8 + k : 24 + (k - 8));
  }
  idx.v[14] = 31;
  for (const char* t : {"a2a3", "a5", "cpu"}) {
    std::fill(dst.v.begin(), dst.v.end(), 9.0f);
    run("TSCATTER", t, dst.d, src.d, &idx.d);
    std::vector<float> want(32, 0.0f);
    for (int k = 0; k < 8; ++k) want[size_t(8 + k)] = float(1 + k);
    for (int k = 8; k < 14; ++k) want[size_t(24 + k - 8)] = float(1 + k);
    want[31] = 16.0f;
    EXPECT_EQ(dst.v, want) << t;
  }
}

TEST(PtoScatter, IndexFormRules) {
  Buf<int8_t> src(tp::Elem::s8, 1, 32), dst(tp::Elem::s8, 2, 32);
  Buf<int16_t> idx(tp::Elem::s16, 1, 32);
  Buf<int32_t> i32(tp::Elem::s32, 1, 32);
  for (int k = 0; k < 32; ++k) src.v[size_t(k)] = int8_t(k + 1), idx.v[size_t(k)] = int16_t(63 - k);
  run("TSCATTER", "a2a3", dst.d, src.d, &idx.d);
  for (int k = 0; k < 32; ++k) EXPECT_EQ(dst.v[size_t(63 - k)], k + 1);
  for (int k = 0; k < 32; ++k) EXPECT_EQ(dst.v[size_t(k)], 0);
  idx.v[3] = 64;
  EXPECT_HAS(error_of([&] { run("TSCATTER", "a5", dst.d, src.d, &idx.d); }),
             "TSCATTER: indexes element (0, 3) is 64, outside dst's 2x32 elements (0 .. 63)");
  idx.v[3] = -2;
  EXPECT_HAS(error_of([&] { run("TSCATTER", "a5", dst.d, src.d, &idx.d); }), "is -2, outside");
  EXPECT_HAS(error_of([&] { run("TSCATTER", "a5", dst.d, src.d, &i32.d); }),
             "indexes dtype s32 (4 bytes) does not pair with s8 data (1 bytes)");
  Buf<uint8_t> u8(tp::Elem::u8, 2, 32);
  EXPECT_HAS(error_of([&] { run("TSCATTER", "a5", u8.d, src.d, &idx.d); }),
             "dst and src must have the same dtype, got u8 and s8");
  Buf<int16_t> big(tp::Elem::s16, 2, 32);
  EXPECT_HAS(error_of([&] { run("TSCATTER", "a5", dst.d, src.d, &big.d); }),
             "src valid shape must cover indexes', got 1x32 for 2x32");
  for (int k = 0; k < 32; ++k) EXPECT_EQ(dst.v[size_t(63 - k)], k + 1);  // untouched
}

TEST(PtoScatter, MaskRowAndColInterleaveZeros) {
  Buf<int32_t> src(tp::Elem::s32, 2, 8), row(tp::Elem::s32, 2, 16), col(tp::Elem::s32, 8, 8);
  for (int k = 0; k < 16; ++k) src.v[size_t(k)] = k + 1;
  std::fill(row.v.begin(), row.v.end(), -1);
  run("TSCATTER", "a5", row.d, src.d, nullptr, nullptr, 2);  // P1010: dst(i, 2j + 1) = src(i, j)
  for (int i = 0; i < 2; ++i)
    for (int c = 0; c < 16; ++c) EXPECT_EQ(row.v[size_t(i * 16 + c)], c % 2 ? 8 * i + c / 2 + 1 : 0);
  std::fill(col.v.begin(), col.v.end(), -1);
  run("TSCATTER", "a2a3", col.d, src.d, nullptr, nullptr, 4, 1);  // P0010 COL: dst(4i + 1, j)
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) EXPECT_EQ(col.v[size_t(r * 8 + c)], r % 4 == 1 ? 8 * (r / 4) + c + 1 : 0);
  // P1111 is TMOV: the valid region only
  Buf<int32_t> mov(tp::Elem::s32, 4, 8, 2, 8);
  std::fill(mov.v.begin(), mov.v.end(), -1);
  run("TSCATTER", "cpu", mov.d, src.d, nullptr, nullptr, 7);
  for (int k = 0; k < 32; ++k) EXPECT_EQ(mov.v[size_t(k)], k < 16 ? k + 1 : -1);
  // the whole dst tile is zeroed, not only its valid region
  Buf<int32_t> wide(tp::Elem::s32, 4, 16, 2, 16);
  std::fill(wide.v.begin(), wide.v.end(), -1);
  run("TSCATTER", "a5", wide.d, src.d, nullptr, nullptr, 1);
  for (int k = 32; k < 64; ++k) EXPECT_EQ(wide.v[size_t(k)], 0);
  std::fill(row.v.begin(), row.v.end(), 5);
  EXPECT_HAS(error_of([&] { run("TSCATTER", "a5", row.d, src.d, nullptr, nullptr, 3); }),
             "SCATTER_ROW P0001 needs dst valid shape 2x32 (src's 2x8 expanded 4x along columns), got 2x16");
  EXPECT_HAS(error_of([&] { run("TSCATTER", "a5", row.d, src.d, nullptr, nullptr, 1, 1); }),
             "SCATTER_COL P0101 needs dst valid shape 4x8");
  EXPECT_HAS(error_of([&] { run("TSCATTER", "a5", row.d, src.d, &src.d, nullptr, 1); }),
             "takes an index tile or a maskPattern, not both");
  for (int v : row.v) EXPECT_EQ(v, 5);
}

// ---- the C++ vendor API ----

struct TargetGuard {
  explicit TargetGuard(const char* t) { pto::set_target(t); }
  ~TargetGuard() { pto::set_target("a2a3"); }
};

TEST(PtoGatherCxx, VendorForms) {
  using namespace pto;
  TargetGuard g("a2a3");
  Tile<TileType::Vec, float, 2, 8> src, dst;
  Tile<TileType::Vec, int32_t, 2, 8> idx, tmp;
  for (int k = 0; k < 16; ++k) src.SetValue(uint32_t(k), float(k) * 0.5f), idx.SetValue(uint32_t(k), 15 - k);
  RecordEvent e = TGATHER(dst, src, idx, tmp);
  for (int k = 0; k < 16; ++k) EXPECT_EQ(dst.GetValue(uint32_t(k)), float(15 - k) * 0.5f);
  Tile<TileType::Vec, float, 1, 8> half_dst;
  TGATHER<decltype(half_dst), decltype(src), MaskPattern::P1010>(half_dst, src);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(half_dst.GetValue(uint32_t(k)), float(2 * k + 1) * 0.5f);
  Tile<TileType::Vec, float, 1, 8> row_dst;
  TGATHER<decltype(row_dst), decltype(src), MaskPattern::P0101, GatherAxis::GATHER_COL>(row_dst, src);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(row_dst.GetValue(uint32_t(k)), float(k) * 0.5f);
  Tile<TileType::Vec, float, 2, 8> back;
  TSCATTER(back, dst, idx, e);
  for (int k = 0; k < 16; ++k) EXPECT_EQ(back.GetValue(uint32_t(k)), float(k) * 0.5f);
  Tile<TileType::Vec, float, 2, 16> spread;
  TSCATTER<MaskPattern::P0101>(spread, src);
  for (int k = 0; k < 32; ++k) EXPECT_EQ(spread.GetValue(uint32_t(k)), k % 2 ? 0.0f : float(k / 2) * 0.5f);
  Tile<TileType::Vec, float, 4, 8> tall;
  TSCATTER<MaskPattern::P1010, ScatterAxis::SCATTER_COL>(tall, src);
  for (int k = 0; k < 32; ++k) EXPECT_EQ(tall.GetValue(uint32_t(k)), (k / 8) % 2 ? float((k / 16) * 8 + k % 8) * 0.5f : 0.0f);
  // a2a3 rejects the form without tmp
  EXPECT_THROW(TGATHER(dst, src, idx), tilesim::Error);
  TargetGuard g5("a5");
  TGATHER(dst, src, idx);
}

// ---- PTO-AS: the same bits as the engine ----

std::string tb(int rows, int cols, const char* dtype) {
  return fmt::format("!pto.tile_buf<loc=vec, dtype={}, rows={}, cols={}, v_row={}, v_col={}, blayout=row_major, "
                     "slayout=none_box, fractal=512, pad=0>",
                     dtype, rows, cols, rows, cols);
}

tilesim::npy::Array arr_of(const void* p, size_t bytes, const char* descr, size_t r, size_t c) {
  tilesim::npy::Array a;
  a.descr = descr;
  a.shape = {r, c};
  a.data.assign(static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + bytes);
  return a;
}

TEST(PtoGatherAs, FuncFormsMatchEngine) {
  const std::string F = tb(2, 8, "f32"), I = tb(2, 8, "i32"), H = tb(1, 8, "f32"), W = tb(2, 16, "f32");
  const std::string prog = fmt::format(R"(module {{
  func.func @k(%x: !pto.ptr<f32>, %i: !pto.ptr<i32>, %g: !pto.ptr<f32>, %m: !pto.ptr<f32>, %s: !pto.ptr<f32>, %w: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %xv = pto.make_tensor_view %x, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %iv = pto.make_tensor_view %i, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xi32>
    %gv = pto.make_tensor_view %g, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %mv = pto.make_tensor_view %m, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %sv = pto.make_tensor_view %s, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %wv = pto.make_tensor_view %w, shape = [%c2, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x8xf32>
    %ip = pto.partition_view %iv, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<?x?xi32> -> !pto.partition_tensor_view<2x8xi32>
    %gp = pto.partition_view %gv, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x8xf32>
    %mp = pto.partition_view %mv, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    %sp = pto.partition_view %sv, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x8xf32>
    %wp = pto.partition_view %wv, offsets = [%c0, %c0], sizes = [%c2, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x16xf32>
    %a = pto.alloc_tile : {F}
    %ix = pto.alloc_tile : {I}
    %tmp = pto.alloc_tile : {I}
    %gd = pto.alloc_tile : {F}
    %md = pto.alloc_tile : {H}
    %sd = pto.alloc_tile : {F}
    %wd = pto.alloc_tile : {W}
    pto.tload ins(%xp : !pto.partition_tensor_view<2x8xf32>) outs(%a : {F})
    pto.tload ins(%ip : !pto.partition_tensor_view<2x8xi32>) outs(%ix : {I})
    pto.tgather ins(%a, %ix, %tmp : {F}, {I}, {I}) outs(%gd : {F})
    pto.tgather ins(%a, {{maskPattern = #pto.mask_pattern<P1010>}} : {F}) outs(%md : {H})
    %sr = pto.tscatter %gd, %ix : ({F}, {I}) -> {F}
    pto.tscatter ins(%a {{maskPattern = #pto.mask_pattern<P0101>}} : {F}) outs(%wd : {W})
    pto.tstore ins(%gd : {F}) outs(%gp : !pto.partition_tensor_view<2x8xf32>)
    pto.tstore ins(%md : {H}) outs(%mp : !pto.partition_tensor_view<1x8xf32>)
    pto.tstore ins(%sr : {F}) outs(%sp : !pto.partition_tensor_view<2x8xf32>)
    pto.tstore ins(%wd : {W}) outs(%wp : !pto.partition_tensor_view<2x16xf32>)
    return
  }}
}}
)",
                                       fmt::arg("F", F), fmt::arg("I", I), fmt::arg("H", H), fmt::arg("W", W));
  std::vector<float> x(16);
  std::vector<int32_t> ix(16);
  for (int k = 0; k < 16; ++k) x[size_t(k)] = 1.25f * float(k) - 3.0f, ix[size_t(k)] = (k * 7) % 16;
  tilesim::pto::as::RunOptions o;
  o.inputs["x"] = arr_of(x.data(), 64, "<f4", 2, 8);
  o.inputs["i"] = arr_of(ix.data(), 64, "<i4", 2, 8);
  for (const char* n : {"g", "s"}) o.inputs[n] = arr_of(std::vector<float>(16, -1.0f).data(), 64, "<f4", 2, 8);
  o.inputs["m"] = arr_of(std::vector<float>(8, -1.0f).data(), 32, "<f4", 1, 8);
  o.inputs["w"] = arr_of(std::vector<float>(32, -1.0f).data(), 128, "<f4", 2, 16);
  const auto out = tilesim::pto::as::run(prog, "g.pto", o);
  // the engine on the same inputs (target a2a3, the PTO-AS default)
  Buf<float> a(tp::Elem::f32, 2, 8), gd(tp::Elem::f32, 2, 8), md(tp::Elem::f32, 1, 8), sd(tp::Elem::f32, 2, 8),
      wd(tp::Elem::f32, 2, 16);
  Buf<int32_t> idx(tp::Elem::s32, 2, 8), tmp(tp::Elem::s32, 2, 8);
  a.v = x, idx.v = ix;
  run("TGATHER", "a2a3", gd.d, a.d, &idx.d, &tmp.d);
  run("TGATHER", "a2a3", md.d, a.d, nullptr, nullptr, 2);
  run("TSCATTER", "a2a3", sd.d, gd.d, &idx.d);
  run("TSCATTER", "a2a3", wd.d, a.d, nullptr, nullptr, 1);
  const auto bytes = [&](const char* name) {
    for (const auto& r : out)
      if (r.name == name) return r.array.data;
    return std::vector<uint8_t>{};
  };
  const auto raw = [](const std::vector<float>& v) {
    return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(v.data()),
                                reinterpret_cast<const uint8_t*>(v.data()) + v.size() * 4);
  };
  EXPECT_EQ(bytes("g"), raw(gd.v));
  EXPECT_EQ(bytes("m"), raw(md.v));
  EXPECT_EQ(bytes("s"), raw(sd.v));
  EXPECT_EQ(bytes("w"), raw(wd.v));
  EXPECT_EQ(sd.v, x);  // (k * 7) % 16 is a permutation: scattering the gather back restores x
}

TEST(PtoGatherAs, BadMaskPatternIsAParseError) {
  const std::string F = tb(1, 8, "f32");
  const std::string prog = fmt::format(R"(module {{
  func.func @k() {{
    %a = pto.alloc_tile : {F}
    %d = pto.alloc_tile : {F}
    pto.tgather ins(%a, {{maskPattern = #pto.mask_pattern<P0110>}} : {F}) outs(%d : {F})
    return
  }}
}}
)",
                                       fmt::arg("F", F));
  EXPECT_HAS(error_of([&] { tilesim::pto::as::run(prog, "g.pto", {}); }),
             "unknown mask pattern 'P0110' (P0101 P1010 P0001 P0010 P0100 P1000 P1111");
}

TEST(PtoGatherAs, ArgFormMatchesEngine) {
  const std::string F = tb(2, 8, "f32"), I = tb(2, 8, "i32"), H = tb(1, 8, "f32");
  const std::string prog = fmt::format(R"(.target a5
.arg %x : {F}
.arg %i : {I}
.arg %g : {F}
.arg %m : {H}
pto.tgather ins(%x, %i : {F}, {I}) outs(%g : {F})
pto.tgather ins(%x, {{maskPattern = #pto.mask_pattern<P0101>}} : {F}) outs(%m : {H})
%s = pto.tscatter %g, %i : ({F}, {I}) -> {F}
)",
                                       fmt::arg("F", F), fmt::arg("I", I), fmt::arg("H", H));
  std::vector<float> x(16);
  std::vector<int32_t> ix(16);
  for (int k = 0; k < 16; ++k) x[size_t(k)] = float(k) - 4.5f, ix[size_t(k)] = (k * 3 + 1) % 16;
  tilesim::pto::as::RunOptions o;
  o.inputs["x"] = arr_of(x.data(), 64, "<f4", 2, 8);
  o.inputs["i"] = arr_of(ix.data(), 64, "<i4", 2, 8);
  o.inputs["g"] = arr_of(std::vector<float>(16, 0.0f).data(), 64, "<f4", 2, 8);
  o.inputs["m"] = arr_of(std::vector<float>(8, 0.0f).data(), 32, "<f4", 1, 8);
  const auto out = tilesim::pto::as::run(prog, "g.pto", o);
  Buf<float> a(tp::Elem::f32, 2, 8), gd(tp::Elem::f32, 2, 8), md(tp::Elem::f32, 1, 8), sd(tp::Elem::f32, 2, 8);
  Buf<int32_t> idx(tp::Elem::s32, 2, 8);
  a.v = x, idx.v = ix;
  run("TGATHER", "a5", gd.d, a.d, &idx.d);
  run("TGATHER", "a5", md.d, a.d, nullptr, nullptr, 1);
  run("TSCATTER", "a5", sd.d, gd.d, &idx.d);
  const auto got = [&](const char* name) {
    for (const auto& r : out)
      if (r.name == name) {
        std::vector<float> v(r.array.data.size() / 4);
        std::memcpy(v.data(), r.array.data.data(), r.array.data.size());
        return v;
      }
    return std::vector<float>{};
  };
  EXPECT_EQ(got("g"), gd.v);
  EXPECT_EQ(got("m"), md.v);
  EXPECT_EQ(got("s"), sd.v);
  EXPECT_EQ(sd.v, x);  // (3k + 1) % 16 is a permutation
}

}  // namespace
