// tilesim::compare (docs/cli.md#expect), the one comparison behind --expect and tilesim.compare:
// known answers on NaN, +-0, subnormals, integers, and the report text.
#include "tilesim/compare.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tilesim/error.hpp"

namespace {

template <class T>
tilesim::npy::Array arr(const char* descr, std::vector<size_t> shape, const std::vector<T>& v) {
  tilesim::npy::Array a{descr, std::move(shape), std::vector<uint8_t>(v.size() * sizeof(T))};
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

uint32_t u(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(Compare, FloatsNanZeroSubnormal) {
  const std::vector<uint32_t> got{0x7FC00000, 0x00000000, 0x80000000, 0x00000001, u(1.0f), u(2.0f)};
  const std::vector<uint32_t> want{0x7FC00001, 0x80000000, 0x00000000, 0x00000000, 0x7FC00000, u(2.0f)};
  auto r = tilesim::compare(arr("<f4", {2, 3}, got), arr("<f4", {2, 3}, want));
  ASSERT_EQ(r.mismatches, 2u);  // the subnormal (1 ulp from 0) and 1 vs NaN
  EXPECT_EQ(r.first[0].index, (std::vector<size_t>{1, 0}));
  EXPECT_TRUE(r.first[0].has_ulp);
  EXPECT_EQ(r.first[0].ulp, 1u);
  EXPECT_FALSE(r.first[1].has_ulp);
  EXPECT_EQ(r.nan_got, 1u);
  EXPECT_EQ(r.nan_want, 2u);
  EXPECT_EQ(r.text("y"),
            "y: 2 of 6 elements differ (rtol 0, atol 0), max ulp 1\n"
            "  [1, 0]  got 1.40129846e-45 (0x00000001)  want 0 (0x00000000)  ulp 1\n"
            "  [1, 1]  got 1 (0x3F800000)  want nan (0x7FC00000)  ulp -\n");
  tilesim::CompareOptions bits;
  bits.bits = true;
  EXPECT_EQ(tilesim::compare(arr("<f4", {6}, got), arr("<f4", {6}, want), bits).mismatches, 5u);
}

TEST(Compare, TolerancesAndIntegers) {
  tilesim::CompareOptions o;
  o.atol = 0.5;
  EXPECT_TRUE(tilesim::compare(arr("<f4", {2}, std::vector<float>{1, 2.5f}), arr("<f4", {2}, std::vector<float>{1, 2}), o).ok());
  const auto r = tilesim::compare(arr("<i4", {3}, std::vector<int32_t>{5, -3, 2147483647}),
                                  arr("<i4", {3}, std::vector<int32_t>{5, 3, -2147483647 - 1}));
  ASSERT_EQ(r.mismatches, 2u);
  EXPECT_EQ(r.first[0].ulp, 6u);
  EXPECT_EQ(r.first[1].ulp, 4294967295u);
  EXPECT_EQ(r.first[0].got_bits, 0xFFFFFFFDu);
  const auto h = tilesim::compare(arr("<f2", {2}, std::vector<uint16_t>{0x0001, 0x3C00}),
                                  arr("<f2", {2}, std::vector<uint16_t>{0x8000, 0x3C00}));
  ASSERT_EQ(h.mismatches, 1u);
  EXPECT_EQ(h.first[0].ulp, 1u);  // the smallest fp16 subnormal is 1 ulp from -0
}

TEST(Compare, Rejections) {
  const auto f = arr("<f4", {2}, std::vector<float>{1, 2});
  EXPECT_THROW(tilesim::compare(f, arr("<f8", {2}, std::vector<double>{1, 2})), tilesim::Error);
  EXPECT_THROW(tilesim::compare(f, arr("<f4", {1, 2}, std::vector<float>{1, 2})), tilesim::Error);
  tilesim::CompareOptions o;
  o.rtol = -1;
  EXPECT_THROW(tilesim::compare(f, f, o), tilesim::Error);
}

}  // namespace
