// data_type_t rows (spec 50 §2): the fast path's NaN test on codes is derived from the formats
// table and agrees with tilesim::formats::is_nan_code (spec 10 §1) on every code.
#include "tpu/dtype.hpp"

#include "tilesim/formats.hpp"
#include "tpu_test_util.hpp"

namespace {

bool rule_says_nan(const tilesim::tpu::NanRule& r, uint32_t code) {
  return (code & r.mag_mask) > r.nan_above;
}

}  // namespace

TEST(TpuDType, NanRuleMatchesFormatsOnEveryCode) {
  using tilesim::tpu::dtype_info;
  for (data_type_t dt : {DT_FP16, DT_BFP16, DT_FP8E4M3, DT_FP8E5M2}) {
    const tilesim::tpu::DTypeInfo& d = *dtype_info(dt);
    const tilesim::tpu::NanRule r = tilesim::tpu::nan_rule(d);
    for (uint32_t c = 0; c < (1u << d.bits); ++c)
      ASSERT_EQ(rule_says_nan(r, c), tilesim::formats::is_nan_code(c, d.fmt))
          << d.vendor << " code 0x" << std::hex << c;
  }
  // fp32: every sign and exponent with the mantissa's edges (0, 1, quiet bit, all ones).
  const tilesim::tpu::DTypeInfo& f = *dtype_info(DT_FP32);
  const tilesim::tpu::NanRule r = tilesim::tpu::nan_rule(f);
  EXPECT_EQ(r.mag_mask, 0x7FFFFFFFu);
  EXPECT_EQ(r.nan_above, 0x7F800000u);  // +Inf: the largest non-NaN magnitude
  for (uint32_t se = 0; se < 512; ++se)
    for (uint32_t m : {0u, 1u, 0x400000u, 0x7FFFFFu, 0x12345u}) {
      const uint32_t c = se << 23 | m;
      ASSERT_EQ(rule_says_nan(r, c), tilesim::formats::is_nan_code(c, f.fmt))
          << "fp32 code 0x" << std::hex << c;
    }
  // Hand values of spec 10 §1: e4m3 has one NaN magnitude (S.1111.111), e5m2 IEEE ones.
  EXPECT_EQ(tilesim::tpu::nan_rule(*dtype_info(DT_FP8E4M3)).nan_above, 0x7Eu);
  EXPECT_EQ(tilesim::tpu::nan_rule(*dtype_info(DT_FP8E5M2)).nan_above, 0x7Cu);
  EXPECT_EQ(tilesim::tpu::nan_rule(*dtype_info(DT_INT32)).mag_mask, 0u);
}

// Spec 50 §3: the float compare rule (IEEE) is a chip-profile decision; every chip holds it.
TEST(TpuDType, EveryChipProfileNamesTheIeeeCompare) {
  for (const tilesim::tpu::ChipProfile& c : tilesim::tpu::chips())
    EXPECT_EQ(c.float_compare, tilesim::tpu::FloatCompare::ieee) << c.name;
  EXPECT_EQ(tilesim::tpu::chips().size(), 3u);
}
