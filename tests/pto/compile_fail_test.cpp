// Negative compilation tests (spec 00 "Errors": static_assert where the vendor checks at compile
// time): each snippet must fail to compile with the spec-style message; a control snippet compiles.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {
struct Result {
  int status;
  std::string output;
};

Result compile(const std::string& body, const std::string& tag) {
  const std::string dir = std::string(TILESIM_BINARY_DIR) + "/pto_compile_fail";
  std::system(("mkdir -p '" + dir + "'").c_str());
  const std::string src = dir + "/" + tag + ".cpp", log = dir + "/" + tag + ".log";
  std::ofstream(src) << "#include <pto/pto-inst.hpp>\nusing namespace pto;\nvoid f() {\n"
                     << body << "\n}\n";
  const std::string cmd = "g++ -std=c++20 -fsyntax-only -I'" TILESIM_SOURCE_DIR
                          "/include' -I'" TILESIM_SOURCE_DIR "/include/vendor' '" +
                          src + "' > '" + log + "' 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream in(log);
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return {status, out};
}

bool have_gxx() {
  return std::system("g++ --version > /dev/null 2>&1") == 0;
}
}  // namespace

TEST(PtoCompileFail, StaticChecks) {
  if (!have_gxx()) GTEST_SKIP() << "g++ not on PATH";
  struct Row {
    const char* tag;
    const char* body;
    const char* message;  // nullptr: must compile
  };
  const Row rows[] = {
      {"ok",
       "Tile<TileType::Vec, float, 16, 8> d, a; Tile<TileType::Vec, float, 16, 1, "
       "BLayout::ColMajor> s;\n"
       "TROWEXPANDSUB(d, a, s);",
       nullptr},
      {"align_row", "Tile<TileType::Vec, float, 16, 12> t;",
       "Tile: RowMajor NoneBox needs Cols*sizeof(T) % 32 == 0 [docs/pto.md#tile-constraints]"},
      {"align_col", "Tile<TileType::Vec, half, 8, 1, BLayout::ColMajor> t;",
       "Tile: ColMajor NoneBox needs Rows*sizeof(T) % 32 == 0 [docs/pto.md#tile-constraints]"},
      {"valid_gt_static", "Tile<TileType::Vec, float, 16, 8, BLayout::RowMajor, 17, 8> t;",
       "RowValid must be DYNAMIC or 0 <= RowValid <= Rows [docs/pto.md#tile-constraints]"},
      {"dst_colmajor",
       "Tile<TileType::Vec, float, 8, 8, BLayout::ColMajor> d; Tile<TileType::Vec, float, 8, 8> "
       "a;\n"
       "Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor> s; TROWEXPANDADD(d, a, s);",
       "TROWEXPANDADD: dst must be RowMajor [docs/pto.md#trowexpand-constraints]"},
      {"dtype_mismatch",
       "Tile<TileType::Vec, float, 16, 16> d, a; Tile<TileType::Vec, half, 16, 1, "
       "BLayout::ColMajor> s;\n"
       "TROWEXPANDMAX(d, a, s);",
       "TROWEXPANDMAX: dst, src0 and src1 must have the same DType [docs/pto.md#trowexpand-constraints]"},
      {"dtype_union",
       "Tile<TileType::Vec, double, 8, 8> d, a; Tile<TileType::Vec, double, 8, 1, "
       "BLayout::ColMajor> s;\n"
       "TROWEXPANDMIN(d, a, s);",
       "TROWEXPANDMIN: DType must be one of half float int16 int32"},
      {"tgather_cmp",
       "Tile<TileType::Vec, int32_t, 1, 8> d, c; Tile<TileType::Vec, float, 1, 8> s; "
       "Tile<TileType::Vec, int32_t, 1, 8> k; Tile<TileType::Vec, uint8_t, 1, 32> t;\n"
       "TGATHER<decltype(d), decltype(s), decltype(k), decltype(c), decltype(t), CmpMode::GT>(d, s, k, c, t, 0);",
       "TGATHER: the comparison form (CmpMode, k_value, cdst, offset) is not supported by tilesim"},
      {"tscatter_index_dtype",
       "Tile<TileType::Vec, float, 2, 8> d, s; Tile<TileType::Vec, float, 2, 8> i;\n"
       "TSCATTER(d, s, i);",
       "TSCATTER: indexes must be int16, uint16, int32 or uint32"},
      {"tgather_ok",
       "Tile<TileType::Vec, float, 2, 8> d, s; Tile<TileType::Vec, int32_t, 2, 8> i;\n"
       "TGATHER(d, s, i, i); TGATHER<decltype(d), decltype(s), MaskPattern::P0101>(d, s);\n"
       "TSCATTER(d, s, i); TSCATTER<MaskPattern::P1010, ScatterAxis::SCATTER_COL>(d, s);",
       nullptr},
  };
  for (const Row& r : rows) {
    const Result res = compile(r.body, r.tag);
    if (!r.message) {
      EXPECT_EQ(res.status, 0) << r.tag << ":\n" << res.output;
    } else {
      EXPECT_NE(res.status, 0) << r.tag;
      EXPECT_NE(res.output.find(r.message), std::string::npos) << r.tag << ":\n" << res.output;
    }
  }
}
