// TPRINT (docs/pto.md#tprint) through the vendor C++ API, exact text: the device format (pto-isa
// include/pto/npu/a2a3/TPrint.hpp: header, shape, every element, '|' and '-' at the valid region's
// edge, %8.4f / %8.2f / %10.6f and %8d / %8u / %10d) on a2a3 and a5, the CPU simulator's
// ("TPRINT RxC" and the valid region) on cpu; GlobalTensor ND and NZ; Acc through a GM tmp; the
// "[Block i/n] " prefix inside a multi-block run; rejections. Expected numbers were formatted
// independently (Python's printf-style %, same conversions).
#include <gtest/gtest.h>

#include <pto/pto-inst.hpp>
#include <string>

#include "core/debug_print.hpp"
#include "tilesim/ascendc/launch.hpp"
#include "tilesim/parallel.hpp"

namespace {

using namespace pto;

struct TargetGuard {
  explicit TargetGuard(const char* t) { set_target(t); }
  ~TargetGuard() { set_target("a2a3"); }
};

template <class F>
std::string out_of(F&& f) {
  testing::internal::CaptureStdout();
  try {
    f();
  } catch (...) {
    (void)testing::internal::GetCapturedStdout();
    throw;
  }
  return testing::internal::GetCapturedStdout();
}

template <class F>
void expect_error(F&& f, tilesim::ErrorCode code, const std::string& part) {
  try {
    (void)out_of(f);
    ADD_FAILURE() << "no error; expected: " << part;
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[docs/pto.md#tprint]"), std::string::npos) << e.what();
  }
}

// n cells joined by ' ', each `cell` (for long rows of one value).
std::string cells(int n, const std::string& cell) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " " : "") + cell;
  return s;
}

const char* const kRow0 =
    "  1.2346  -3.4568   0.0000 100.0000   0.5000  -0.2500 12345.6777   0.0000";
const char* const kRow1 = "  7.0000   0.0000   0.0000   0.0000   0.0000   0.0000   0.0000   0.0000";

template <class T>
void fill_float(T& t) {
  const float v[] = {1.234567f, -3.456789f, 0.0f, 100.0f, 0.5f, -0.25f, 12345.678f, 1e-5f};
  for (int c = 0; c < 8; ++c) t.SetElement(0, c, v[c]);
  t.SetElement(1, 0, 7.0f);
}

TEST(PtoTprint, FloatTileDeviceFormat) {
  Tile<TileType::Vec, float, 2, 8> t;
  fill_float(t);
  EXPECT_EQ(out_of([&] { TPRINT(t); }),
            std::string("=== [TPRINT Tile] Data Type: float32, Layout: ND, TileType: Vec ===\n"
                        "  Shape: [2, 8], Valid Shape: [2, 8]\n") +
                kRow0 + "\n" + kRow1 + "\n");
  TargetGuard a5("a5");  // a5 prints as a2a3 (pto-isa's a5 TPrint is the a2a3 one)
  EXPECT_EQ(out_of([&] { TPRINT<PrintFormat::Width8_Precision4>(t); }).substr(0, 70),
            "=== [TPRINT Tile] Data Type: float32, Layout: ND, TileType: Vec ===\n  ");
}

TEST(PtoTprint, ValidRegionIsMarked) {
  Tile<TileType::Vec, int32_t, 3, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC> t(2, 3);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 8; ++c) t.SetElement(r, c, r * 10 + c - 5);
  EXPECT_EQ(out_of([&] { TPRINT(t); }),
            "=== [TPRINT Tile] Data Type: int32, Layout: ND, TileType: Vec ===\n"
            "  Shape: [3, 8], Valid Shape: [2, 3]\n"
            "      -5       -4       -3|       -2       -1        0        1        2\n"
            "       5        6        7|        8        9       10       11       12\n"
            "-------- -------- --------| -------- -------- -------- -------- --------\n"
            "      15       16       17|       18       19       20       21       22\n");
}

TEST(PtoTprint, HalfIntegersAndFormats) {
  Tile<TileType::Vec, half, 1, 16> h;
  const float hv[] = {0.1f, -1.005f, 2.5f, 65504.0f, -0.0f};
  for (int c = 0; c < 5; ++c) h.SetElement(0, c, half(hv[c]));
  EXPECT_EQ(out_of([&] { TPRINT<PrintFormat::Width8_Precision2>(h); }),
            "=== [TPRINT Tile] Data Type: float16, Layout: ND, TileType: Vec ===\n"
            "  Shape: [1, 16], Valid Shape: [1, 16]\n"
            "    0.10    -1.00     2.50 65504.00    -0.00 " +
                cells(11, "    0.00") + "\n");

  Tile<TileType::Vec, int32_t, 1, 8> i;
  i.SetElement(0, 0, INT32_MIN);
  i.SetElement(0, 1, INT32_MAX);
  i.SetElement(0, 3, 42);
  EXPECT_EQ(
      out_of([&] { TPRINT<PrintFormat::Width10_Precision6>(i); }),
      "=== [TPRINT Tile] Data Type: int32, Layout: ND, TileType: Vec ===\n"
      "  Shape: [1, 8], Valid Shape: [1, 8]\n"
      "-2147483648 2147483647          0         42          0          0          0          0\n");

  Tile<TileType::Vec, uint8_t, 1, 32> u;
  Tile<TileType::Vec, int8_t, 1, 32> s;
  u.SetElement(0, 0, 255);
  u.SetElement(0, 2, 7);
  s.SetElement(0, 0, -128);
  s.SetElement(0, 1, 127);
  s.SetElement(0, 2, -1);
  EXPECT_EQ(out_of([&] {
              TPRINT(u);
              TPRINT(s);
            }),
            "=== [TPRINT Tile] Data Type: uint8, Layout: ND, TileType: Vec ===\n"
            "  Shape: [1, 32], Valid Shape: [1, 32]\n"
            "     255        0        7 " +
                cells(29, "       0") +
                "\n"
                "=== [TPRINT Tile] Data Type: int8, Layout: ND, TileType: Vec ===\n"
                "  Shape: [1, 32], Valid Shape: [1, 32]\n"
                "    -128      127       -1 " +
                cells(29, "       0") + "\n");

  Tile<TileType::Vec, uint16_t, 16, 1, BLayout::ColMajor, 2, 1> col;  // DN, logical rows
  col.SetElement(0, 0, 65535);
  col.SetElement(1, 0, 1);
  const std::string got = out_of([&] { TPRINT(col); });
  EXPECT_EQ(got.substr(0, got.find("      0\n")),
            "=== [TPRINT Tile] Data Type: uint16, Layout: DN, TileType: Vec ===\n"
            "  Shape: [16, 1], Valid Shape: [2, 1]\n"
            "   65535\n"
            "       1\n"
            "--------\n"
            " ");
}

TEST(PtoTprint, CpuTargetPrintsTheSimulatorsFormat) {
  TargetGuard cpu("cpu");
  Tile<TileType::Vec, float, 2, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC> t(2, 3);
  fill_float(t);
  EXPECT_EQ(out_of([&] { TPRINT(t); }),
            "TPRINT 2x3\n  1.2346  -3.4568   0.0000\n  7.0000   0.0000   0.0000\n");
  // Every dtype prints on cpu; bfloat16 through float.
  Tile<TileType::Vec, bfloat16_t, 1, 16, BLayout::RowMajor, 1, 2> b;
  b.SetElement(0, 0, bfloat16_t(1.5f));
  b.SetElement(0, 1, bfloat16_t(-2.0f));
  EXPECT_EQ(out_of([&] { TPRINT<PrintFormat::Width10_Precision6>(b); }),
            "TPRINT 1x2\n  1.500000  -2.000000\n");
  Tile<TileType::Vec, int64_t, 1, 4, BLayout::RowMajor, 1, 2> w;
  w.SetElement(0, 0, int64_t(1) << 40);
  w.SetElement(0, 1, -3);
  EXPECT_EQ(out_of([&] { TPRINT(w); }), "TPRINT 1x2\n1099511627776       -3\n");
}

TEST(PtoTprint, GlobalTensorNdAndNz) {
  float x[12];
  for (int i = 0; i < 12; ++i) x[i] = float(i);
  GlobalTensor<float, Shape<1, 1, 2, 2, 3>, Stride<12, 12, 6, 3, 1>> g(x);
  EXPECT_EQ(out_of([&] { TPRINT(g); }),
            "=== [TPRINT GlobalTensor] Data Type: float32, Layout: ND ===\n"
            "  Shape: [1, 1, 2, 2, 3]\n"
            "  Batch [0, 0, 0]:\n"
            "  0.0000   1.0000   2.0000\n"
            "  3.0000   4.0000   5.0000\n"
            "  Batch [0, 0, 1]:\n"
            "  6.0000   7.0000   8.0000\n"
            "  9.0000  10.0000  11.0000\n");
  // NZ: a 2 x 4 matrix of 2 x 2 fractals, fractal columns 4 elements apart.
  int32_t z[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  GlobalTensor<int32_t, Shape<1, 2, 1, 2, 2>, Stride<8, 4, 4, 2, 1>, Layout::NZ> n(z);
  EXPECT_EQ(out_of([&] { TPRINT(n); }),
            "=== [TPRINT GlobalTensor] Data Type: int32, Layout: NZ ===\n"
            "  Logical Shape: [2, 4]\n"
            "       0        1        4        5\n"
            "       2        3        6        7\n");
}

TEST(PtoTprint, AccThroughAGmTmp) {
  TileAcc<float, 16, 16> acc;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) acc.SetElement(r, c, float(r * 16 + c) * 0.5f);
  float tmp[256] = {};
  GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>> g(tmp);
  const std::string got = out_of([&] { TPRINT(acc, g); });
  const std::string head =
      "=== [TPRINT Tile] Data Type: float32, Layout: Nz, TileType: Acc ===\n"
      "  Shape: [16, 16], Valid Shape: [16, 16]\n"
      "  0.0000   0.5000   1.0000   1.5000   2.0000   2.5000   3.0000   3.5000"
      "   4.0000   4.5000   5.0000   5.5000   6.0000   6.5000   7.0000   7.5000\n";
  EXPECT_EQ(got.substr(0, head.size()), head);
  EXPECT_EQ(std::count(got.begin(), got.end(), '\n'), 2 + 16);
  EXPECT_NE(got.find("\n120.0000 120.5000"), std::string::npos);  // row 15
  EXPECT_EQ(got.substr(got.size() - 18), "127.0000 127.5000\n");
  for (int i = 0; i < 256; ++i) EXPECT_EQ(tmp[i], float(i) * 0.5f) << i;  // the device's ND copy
  // Without tmp, an Acc tile does not print on the device targets.
  expect_error([&] { TPRINT(acc); }, tilesim::ErrorCode::Constraint,
               "TPRINT: a Acc tile prints on target a2a3 only with a GM tmp");
  GlobalTensor<float, Shape<1, 1, 1, 16, 8>, Stride<128, 128, 128, 8, 1>> small(tmp);
  expect_error([&] { TPRINT(acc, small); }, tilesim::ErrorCode::Bounds,
               "the tmp GlobalTensor holds 512 bytes; a 16x16 fp32 tile needs 1024");
}

TEST(PtoTprint, DeviceRejections) {
  Tile<TileType::Vec, bfloat16_t, 1, 16> b;
  expect_error([&] { TPRINT(b); }, tilesim::ErrorCode::Unsupported,
               "a tile of dtype bf16 does not print on target a2a3");
  TileLeft<half, 16, 16> left;
  float tmp[256];
  GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>> g(
      reinterpret_cast<half*>(tmp));
  expect_error([&] { TPRINT(left, g); }, tilesim::ErrorCode::Constraint,
               "TPRINT(tile, tmp) takes a Vec, Acc or Mat tile, got Left");
  TargetGuard a5("a5");
  Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor> mat;
  expect_error([&] { TPRINT(mat, g); }, tilesim::ErrorCode::Unsupported,
               "a Mat tile does not print on target a5");
  GlobalTensor<float, Shape<1, 1, 1, 1, 1>, Stride<1, 1, 1, 1, 1>> none(nullptr);
  expect_error([&] { TPRINT(none); }, tilesim::ErrorCode::Constraint,
               "the GlobalTensor has no data pointer");
}

TEST(PtoTprint, BlockPrefixInAMultiBlockRun) {
  Tile<TileType::Vec, float, 2, 8, BLayout::RowMajor, 1, 2> t;
  t.SetElement(0, 0, 0.5f);
  std::string buf;
  {
    const tilesim::debug::BlockScope block(1, 3, &buf);
    EXPECT_EQ(out_of([&] { TPRINT(t); }), "");  // kept for the launcher's in-order flush
  }
  EXPECT_EQ(buf.substr(0, buf.find('\n') + 1),
            "[Block 1/3] === [TPRINT Tile] Data Type: float32, Layout: ND, TileType: Vec ===\n");
  size_t lines = 0;
  for (size_t at = 0; at < buf.size(); at = buf.find('\n', at) + 1, ++lines)
    EXPECT_EQ(buf.compare(at, 12, "[Block 1/3] "), 0) << buf;
  EXPECT_EQ(lines, 5u);  // header, shape, row 0, the separator, row 1
  buf.clear();
  {
    const tilesim::debug::BlockScope one(0, 1, &buf);  // a single block: no prefix
    TPRINT(t);
  }
  EXPECT_EQ(buf.rfind("=== [TPRINT Tile]", 0), 0u) << buf;
}

// A real multi-block run: PTO code in the blocks of the CPU-debug launcher (ICPU_RUN_KF's engine),
// 4 runners at once; each block's lines come out together, in block order, each prefixed.
TEST(PtoTprint, BlocksOfALaunchPrintInOrder) {
  tilesim::set_num_threads(4);
  const std::string got = out_of([] {
    tilesim::ascendc::launch("tprint_blocks", 3, {}, [] {
      Tile<TileType::Vec, int32_t, 1, 8, BLayout::RowMajor, 1, 2> t;
      t.SetElement(0, 0, int32_t(block_idx));
      t.SetElement(0, 1, int32_t(block_num));
      TPRINT(t);
    });
  });
  tilesim::set_num_threads(0);
  std::string want;
  for (int b = 0; b < 3; ++b) {
    const std::string p = "[Block " + std::to_string(b) + "/3] ";
    want += p + "=== [TPRINT Tile] Data Type: int32, Layout: ND, TileType: Vec ===\n" + p +
            "  Shape: [1, 8], Valid Shape: [1, 2]\n" + p + "       " + std::to_string(b) +
            "        3| " + cells(6, "       0") + "\n";
  }
  EXPECT_EQ(got, want);
}

}  // namespace
