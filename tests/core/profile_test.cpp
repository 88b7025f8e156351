// Profiles are data tables (spec 00 "Target profiles"): an unknown name is a clear error that
// lists every valid name.
#include "tilesim/profile.hpp"

#include <gtest/gtest.h>

#include <array>

namespace {
struct TestProfile {
  const char* name;
  int lanes;
};
constexpr std::array<TestProfile, 3> kRows = {{{"alpha", 8}, {"Beta_2", 16}, {"gamma", 32}}};
}  // namespace

TEST(Profile, FindsByNameCaseInsensitively) {
  EXPECT_EQ(tilesim::find_profile<TestProfile>(kRows, "test chip", "alpha").lanes, 8);
  EXPECT_EQ(tilesim::find_profile<TestProfile>(kRows, "test chip", "BETA_2").lanes, 16);
  EXPECT_EQ(tilesim::find_profile<TestProfile>(kRows, "test chip", "Gamma").lanes, 32);
}

TEST(Profile, UnknownNameListsValidNames) {
  try {
    tilesim::find_profile<TestProfile>(kRows, "test chip", "delta");
    FAIL() << "expected an error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Unsupported);
    EXPECT_STREQ(e.what(),
                 "profile: unknown test chip 'delta'; valid names: alpha, Beta_2, gamma "
                 "[docs/getting-started.md#target-profiles]");
  }
  EXPECT_THROW(tilesim::find_profile<TestProfile>(kRows, "test chip", ""), tilesim::Error);
  EXPECT_THROW(tilesim::find_profile<TestProfile>(kRows, "test chip", "alph"), tilesim::Error);
}
