// Known answers of spec 10 §1 (source: the spec's table of known values).
#include <gtest/gtest.h>

#include <cmath>

#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"

namespace f = tilesim::formats;
using f::DType;

struct KnownAnswer {
  DType t;
  uint64_t code;
  double value;  // NaN = the code is NaN
};

// clang-format off
// Every row: spec 10 §1 "Known-answer values".
const KnownAnswer kKnown[] = {
    {DType::e4m3, 0x7E, 448.0},        {DType::e4m3, 0x7F, NAN},
    {DType::e4m3, 0x08, 0x1p-6},       {DType::e4m3, 0x01, 0x1p-9},
    {DType::e5m2, 0x7B, 57344.0},      {DType::e5m2, 0x7C, INFINITY},
    {DType::e3m2, 0x1F, 28.0},         {DType::e2m3, 0x1F, 7.5},
    {DType::e2m1, 0x7, 6.0},           {DType::e2m1, 0x1, 0.5},
    {DType::e1m2, 0x7, 1.75},          {DType::e1m2, 0x4, 1.0},
    {DType::e1m2, 0x1, 0.25},          {DType::e8m0, 0x7F, 1.0},
    {DType::e8m0, 0x00, 0x1p-127},     {DType::fp16, 0x7BFF, 65504.0},
    {DType::bf16, 0x3F80, 1.0},        {DType::fp32, 0x3F800000, 1.0},
};
// clang-format on

TEST(FormatsKnownAnswers, DecodeAndEncode) {
  for (const auto& k : kKnown) {
    SCOPED_TRACE(std::string(f::name(k.t)) + " code " + std::to_string(k.code));
    double v = f::decode(k.code, k.t);
    if (std::isnan(k.value)) {
      EXPECT_TRUE(std::isnan(v));
      EXPECT_TRUE(f::is_nan_code(k.code, k.t));
    } else {
      EXPECT_EQ(v, k.value);
      EXPECT_EQ(f::encode(k.value, k.t), k.code);
    }
  }
}

TEST(FormatsNames, AliasesResolveAndUnknownListsValid) {
  EXPECT_EQ(f::parse_dtype("HALF"), DType::fp16);
  EXPECT_EQ(f::parse_dtype("bfloat16"), DType::bf16);
  EXPECT_EQ(f::parse_dtype("float8_e4m3"), DType::e4m3);
  EXPECT_EQ(f::parse_dtype("ui32"), DType::u32);
  try {
    f::parse_dtype("fp7");
    FAIL() << "expected an error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("unknown dtype 'fp7'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("e2m1"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("[docs/formats.md#dtype-names]"), std::string::npos);
  }
}
