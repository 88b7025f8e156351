// Spec 10 §4 rules as one-line rows: overflow per mode, Inf input, NaN input, saturation,
// integer targets (round then saturate, NaN -> 0, 64-bit boundaries), e8m0, and pack_x2 (§2);
// the rhu/rhd/rto rows (spec 15 §2's modes) follow the same groups.
// Every expected code is hand-computed from the spec text cited in the row's comment.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "reference.hpp"
#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"

namespace f = tilesim::formats;
using f::DType;
using f::Rounding;
constexpr Rounding rne = Rounding::rne, rna = Rounding::rna, rtz = Rounding::rtz,
                   rdn = Rounding::rdn, rup = Rounding::rup, rhu = Rounding::rhu,
                   rhd = Rounding::rhd, rto = Rounding::rto;
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double qnan = std::numeric_limits<double>::quiet_NaN();

struct Row {
  DType t;
  double x;
  Rounding m;
  bool sat;
  uint64_t want;
  const char* why;
};

// clang-format off
const Row kRows[] = {
  // Overflow, spec 10 §4 "IEEE 754 §7.4 per mode"; values just above max finite's rounding range.
  {DType::fp16, 65520.0, rne, false, 0x7C00, "tie 65504|65536 -> even = 2^16 -> Inf"},
  {DType::fp16, 65519.0, rne, false, 0x7BFF, "below the tie -> max"},
  {DType::fp16, 1e6, rna, false, 0x7C00, "rna overflow -> Inf"},
  {DType::fp16, 1e6, rtz, false, 0x7BFF, "rtz -> +max"},
  {DType::fp16, -1e6, rtz, false, 0xFBFF, "rtz -> -max"},
  {DType::fp16, 1e6, rdn, false, 0x7BFF, "rdn positive -> +max"},
  {DType::fp16, -1e6, rdn, false, 0xFC00, "rdn negative -> -Inf"},
  {DType::fp16, 1e6, rup, false, 0x7C00, "rup positive -> +Inf"},
  {DType::fp16, -1e6, rup, false, 0xFBFF, "rup negative -> -max"},
  {DType::fp16, 65504.5, rup, false, 0x7C00, "rup: anything above max overflows"},
  {DType::fp16, -1e6, rne, true, 0xFBFF, "saturate -> -max"},
  {DType::fp16, 1e6, rup, true, 0x7BFF, "saturate -> +max"},
  {DType::bf16, 0x1.ffp127, rne, false, 0x7F80, "tie above bf16 max, odd -> Inf"},
  {DType::bf16, 0x1.ffp127, rtz, false, 0x7F7F, "rtz -> max"},
  {DType::bf16, 0x1.ffp127, rne, true, 0x7F7F, "saturate -> max"},
  {DType::e4m3, 464.0, rne, false, 0x7E, "tie 448|480 -> even mantissa 110 = 448"},
  {DType::e4m3, 464.5, rne, false, 0x7F, "above the tie -> 480 > max -> NaN code 0x7F"},
  {DType::e4m3, -500.0, rne, false, 0xFF, "negative overflow -> NaN with sign 0xFF"},
  {DType::e4m3, 500.0, rtz, false, 0x7E, "rtz -> 448"},
  {DType::e4m3, 449.0, rup, false, 0x7F, "rup positive overflow -> 'Inf' = 0x7F"},
  {DType::e4m3, -449.0, rup, false, 0xFE, "rup negative -> -max"},
  {DType::e4m3, -449.0, rdn, false, 0xFF, "rdn negative -> 'Inf' = 0xFF"},
  {DType::e4m3, 1e9, rna, true, 0x7E, "saturate -> 448"},
  {DType::e5m2, 61440.0, rne, false, 0x7C, "61440 = tie 57344|65536, max odd -> Inf"},
  {DType::e5m2, 59392.0, rne, false, 0x7B, "below the tie -> max"},
  {DType::e5m2, 61439.0, rup, false, 0x7C, "rup above max -> Inf"},
  {DType::e5m2, -1e9, rtz, false, 0xFB, "rtz -> -max"},
  {DType::e3m2, 1e9, rne, false, 0x1F, "fp6 has no Inf/NaN -> +max 28"},
  {DType::e3m2, -1e9, rdn, false, 0x3F, "-> -max"},
  {DType::e2m3, 7.75, rne, false, 0x1F, "7.75 = tie 7.5|8; 8 overflows -> max 7.5"},
  {DType::e2m1, 7.0, rne, false, 0x7, "tie 6|8 -> even (8) -> overflow -> max 6"},
  {DType::e2m1, -100.0, rup, false, 0xF, "-> -max"},
  {DType::e1m2, 1.875, rne, false, 0x7, "tie 1.75|2 -> 2 overflows -> max 1.75"},
  // Inf input, spec 10 §4: the format's "Inf" in every mode, ±max with saturate.
  {DType::fp16, inf, rtz, false, 0x7C00, "Inf input ignores the mode"},
  {DType::fp16, -inf, rup, false, 0xFC00, "-Inf input -> -Inf"},
  {DType::fp16, inf, rne, true, 0x7BFF, "saturate -> max"},
  {DType::e4m3, inf, rtz, false, 0x7F, "e4m3 'Inf' = NaN code"},
  {DType::e4m3, -inf, rne, false, 0xFF, "signed NaN code"},
  {DType::e4m3, -inf, rne, true, 0xFE, "saturate -> -448"},
  {DType::e5m2, -inf, rdn, false, 0xFC, "e5m2 -Inf"},
  {DType::e2m3, inf, rtz, false, 0x1F, "no Inf -> max"},
  {DType::e2m1, -inf, rne, false, 0xF, "no Inf -> -max"},
  {DType::fp32, inf, rtz, false, 0x7F800000, "fp32 Inf"},
  {DType::fp32, -inf, rne, true, 0xFF7FFFFF, "saturate -> -FLT_MAX"},
  {DType::tf32, inf, rne, true, 0x7F7FE000, "tf32 max: bits 12..0 zero"},
  {DType::hf32, -inf, rup, true, 0xFF7FF000, "hf32 -max: bits 11..0 zero"},
  // NaN input, spec 10 §4: canonical quiet NaN, +0 without NaN; saturate does not apply.
  {DType::fp16, qnan, rne, false, 0x7E00, "canonical fp16 NaN"},
  {DType::fp16, -qnan, rtz, true, 0x7E00, "sign of NaN dropped"},
  {DType::bf16, qnan, rup, false, 0x7FC0, "canonical bf16 NaN"},
  {DType::fp32, qnan, rne, false, 0x7FC00000, "canonical fp32 NaN"},
  {DType::tf32, qnan, rne, false, 0x7FC00000, "tf32 canonical"},
  {DType::hf32, qnan, rne, false, 0x7FC00000, "hf32 canonical"},
  {DType::fp64, -qnan, rne, false, 0x7FF8000000000000ull, "fp64 canonical"},
  {DType::e4m3, qnan, rne, true, 0x7F, "e4m3 0x7F"},
  {DType::e5m2, qnan, rne, false, 0x7E, "e5m2 0x7E"},
  {DType::e8m0, qnan, rne, false, 0xFF, "e8m0 0xFF"},
  {DType::e3m2, qnan, rne, false, 0x00, "no NaN -> +0"},
  {DType::e2m3, -qnan, rne, true, 0x00, "no NaN -> +0"},
  {DType::e2m1, qnan, rup, false, 0x0, "no NaN -> +0"},
  {DType::e1m2, qnan, rdn, false, 0x0, "no NaN -> +0"},
  // Subnormals produced, never flushed (spec 10 §4); signed zero kept.
  {DType::fp16, 0x1p-24, rne, false, 0x0001, "min subnormal"},
  {DType::fp16, 0x1p-25, rne, false, 0x0000, "tie 0|2^-24 -> even 0"},
  {DType::fp16, 0x1.8p-25, rne, false, 0x0001, "above tie"},
  {DType::fp16, 0x1p-25, rna, false, 0x0001, "tie away"},
  {DType::fp16, -0x1p-30, rdn, false, 0x8001, "rdn tiny negative -> -min subnormal"},
  {DType::fp16, -0x1p-30, rtz, false, 0x8000, "-> -0"},
  {DType::fp16, 0x1p-30, rup, false, 0x0001, "rup tiny -> min subnormal"},
  {DType::e4m3, 0x1p-10, rne, false, 0x00, "tie 0|2^-9 -> 0"},
  {DType::e4m3, 0x1.8p-9, rne, false, 0x02, "tie 2^-9|2^-8 -> even 2"},
  {DType::e4m3, -0.0, rne, false, 0x80, "-0"},
  {DType::e1m2, 0.125, rne, false, 0x0, "tie 0|0.25 -> 0"},
  {DType::e1m2, 0.375, rne, false, 0x2, "tie .25|.5 -> .5 (even)"},
  {DType::e1m2, 1.125, rne, false, 0x4, "tie 1|1.25 -> 1 (even)"},
  {DType::e2m1, 2.5, rne, false, 0x4, "tie 2|3 -> 2 (even)"},
  {DType::e2m1, 5.0, rne, false, 0x6, "tie 4|6 -> 4 (even)"},
  {DType::e2m1, 5.0, rna, false, 0x7, "tie away -> 6"},
  {DType::e2m1, -0.25, rna, false, 0x9, "tie away -> -0.5"},
  // Integer targets, spec 10 §4: round per mode, then saturate; NaN -> 0.
  {DType::s8, 2.5, rne, false, 2, "tie to even"},
  {DType::s8, 3.5, rne, false, 4, "tie to even"},
  {DType::s8, 2.5, rna, false, 3, "tie away"},
  {DType::s8, -2.5, rna, false, 0xFD, "-3"},
  {DType::s8, -2.5, rne, false, 0xFE, "-2"},
  {DType::s8, -2.1, rtz, false, 0xFE, "-2"},
  {DType::s8, -2.1, rdn, false, 0xFD, "-3"},
  {DType::s8, -2.9, rup, false, 0xFE, "-2"},
  {DType::s8, 2.1, rup, false, 3, "3"},
  {DType::s8, 127.5, rne, false, 127, "128 saturates to 127"},
  {DType::s8, 127.4, rup, false, 127, "128 saturates"},
  {DType::s8, -128.5, rne, false, 0x80, "-128 (even)"},
  {DType::s8, -128.5, rna, false, 0x80, "-129 saturates to -128"},
  {DType::s8, 1e300, rtz, false, 127, "saturate"},
  {DType::s8, -inf, rne, false, 0x80, "-Inf -> min"},
  {DType::s8, qnan, rne, false, 0, "NaN -> 0"},
  {DType::u8, -0.4, rne, false, 0, "rounds to -0 -> 0"},
  {DType::u8, -0.6, rne, false, 0, "-1 saturates to 0"},
  {DType::u8, -0.6, rtz, false, 0, "0"},
  {DType::u8, 255.5, rne, false, 255, "256 saturates"},
  {DType::u8, 255.5, rdn, false, 255, "255"},
  {DType::u8, inf, rne, false, 255, "Inf -> max"},
  {DType::u8, qnan, rup, false, 0, "NaN -> 0"},
  {DType::s4, 7.5, rne, false, 7, "8 saturates to 7"},
  {DType::s4, -8.5, rna, false, 0x8, "-9 saturates to -8 (code 0x8)"},
  {DType::s4, -3.0, rne, false, 0xD, "-3 = 0xD"},
  {DType::u4, 15.5, rne, false, 15, "16 saturates"},
  {DType::u4, -1.0, rne, false, 0, "saturate to 0"},
  {DType::s16, -32768.5, rne, false, 0x8000, "even -> -32768"},
  {DType::s16, 32767.5, rne, false, 0x7FFF, "32768 saturates"},
  {DType::u16, 65535.49, rne, false, 0xFFFF, "65535"},
  {DType::s32, 2147483647.5, rne, false, 0x7FFFFFFF, "2^31 saturates"},
  {DType::s32, -2147483648.5, rna, false, 0x80000000, "-2^31-1 saturates"},
  {DType::s32, -2147483648.4, rne, false, 0x80000000, "-2^31"},
  {DType::u32, 4294967295.5, rne, false, 0xFFFFFFFF, "2^32 saturates"},
  {DType::u32, 4294967294.5, rne, false, 0xFFFFFFFE, "tie to even"},
  // 64-bit boundaries: doubles near ±2^63 and 2^64.
  {DType::s64, 0x1p63, rne, false, 0x7FFFFFFFFFFFFFFFull, "2^63 saturates to max"},
  {DType::s64, 0x1.fffffffffffffp62, rne, false, 0x7FFFFFFFFFFFFC00ull, "largest double below 2^63, exact"},
  {DType::s64, -0x1p63, rne, false, 0x8000000000000000ull, "-2^63 exact = min"},
  {DType::s64, -0x1.0000000000001p63, rne, false, 0x8000000000000000ull, "below min saturates"},
  {DType::s64, 1e30, rdn, false, 0x7FFFFFFFFFFFFFFFull, "saturate"},
  {DType::s64, -inf, rup, false, 0x8000000000000000ull, "-Inf -> min"},
  {DType::s64, qnan, rne, false, 0, "NaN -> 0"},
  {DType::s64, -1.5, rne, false, 0xFFFFFFFFFFFFFFFEull, "-2"},
  {DType::u64, 0x1p64, rne, false, 0xFFFFFFFFFFFFFFFFull, "2^64 saturates"},
  {DType::u64, 0x1.fffffffffffffp63, rne, false, 0xFFFFFFFFFFFFF800ull, "largest double below 2^64, exact"},
  {DType::u64, -1.0, rne, false, 0, "negative -> 0"},
  {DType::u64, inf, rtz, false, 0xFFFFFFFFFFFFFFFFull, "Inf -> max"},
  {DType::u64, 0x1p51 + 0.5, rne, false, 0x8000000000000ull, "tie at 2^51 (ulp 0.5) to even"},
  {DType::u64, 0x1p51 + 1.5, rne, false, 0x8000000000002ull, "tie to even (up)"},
  {DType::u64, 0x1p51 + 0.5, rup, false, 0x8000000000001ull, "rup"},
  // rhu / rhd / rto overflow, spec 10 §4: rhu and rhd as rne (±"Inf"), rto -> ±max (decision:
  // e4m3's max 0x7E with its odd bit set would be the NaN code 0x7F).
  {DType::fp16, 65520.0, rhu, false, 0x7C00, "tie 65504|65536 toward +Inf -> 2^16 -> Inf"},
  {DType::fp16, 65520.0, rhd, false, 0x7BFF, "tie toward -Inf -> max"},
  {DType::fp16, -65520.0, rhu, false, 0xFBFF, "negative tie toward +Inf -> -max"},
  {DType::fp16, -65520.0, rhd, false, 0xFC00, "negative tie toward -Inf -> -Inf"},
  {DType::fp16, 1e6, rhd, false, 0x7C00, "rhd overflows as rne: +Inf"},
  {DType::fp16, -1e6, rhu, false, 0xFC00, "rhu overflows as rne: -Inf"},
  {DType::fp16, 1e6, rhu, true, 0x7BFF, "saturate -> max"},
  {DType::fp16, 1e6, rto, false, 0x7BFF, "rto -> +max"},
  {DType::fp16, -1e6, rto, false, 0xFBFF, "rto -> -max"},
  {DType::fp16, 65519.0, rto, false, 0x7BFF, "max 0x7BFF is odd: truncation keeps it"},
  {DType::bf16, 0x1.ffp127, rhu, false, 0x7F80, "tie above bf16 max toward +Inf -> Inf"},
  {DType::bf16, 0x1.ffp127, rhd, false, 0x7F7F, "tie toward -Inf -> max"},
  {DType::bf16, -0x1.ffp127, rhd, false, 0xFF80, "-> -Inf"},
  {DType::bf16, 1e300, rto, false, 0x7F7F, "rto -> max"},
  {DType::e4m3, 464.0, rhu, false, 0x7F, "tie 448|480 toward +Inf -> 480 > max -> NaN code"},
  {DType::e4m3, 464.0, rhd, false, 0x7E, "tie toward -Inf -> 448"},
  {DType::e4m3, -464.0, rhu, false, 0xFE, "-> -448"},
  {DType::e4m3, -464.0, rhd, false, 0xFF, "-> -'Inf' 0xFF"},
  {DType::e4m3, 449.0, rto, false, 0x7E, "448 (mantissa 110) | odd bit = 0x7F NaN code -> max"},
  {DType::e4m3, -1e9, rto, false, 0xFE, "rto -> -max"},
  {DType::e4m3, 430.0, rto, false, 0x7D, "416 (0x7D, odd) | 448 -> 416"},
  {DType::e4m3, 448.0, rto, false, 0x7E, "exact: nothing discarded, stays even"},
  {DType::e5m2, 61440.0, rhu, false, 0x7C, "tie 57344|65536 toward +Inf -> Inf"},
  {DType::e5m2, 61440.0, rhd, false, 0x7B, "tie toward -Inf -> max"},
  {DType::e5m2, -1e9, rhd, false, 0xFC, "-> -Inf"},
  {DType::e5m2, 1e9, rto, false, 0x7B, "rto -> max"},
  {DType::e3m2, 1e9, rhu, false, 0x1F, "no Inf/NaN -> max 28"},
  {DType::e3m2, -1e9, rto, false, 0x3F, "-> -max"},
  {DType::e2m3, 7.75, rhu, false, 0x1F, "tie 7.5|8 -> 8 overflows -> max 7.5"},
  {DType::e2m3, 7.6, rto, false, 0x1F, "7.5 (odd) | 8 -> 7.5"},
  {DType::e2m1, 100.0, rto, false, 0x7, "-> max 6"},
  {DType::e1m2, 1.875, rhu, false, 0x7, "tie 1.75|2 -> 2 overflows -> max 1.75"},
  {DType::fp32, 0x1.ffffffp127, rhu, false, 0x7F800000, "tie FLT_MAX|2^128 toward +Inf -> Inf"},
  {DType::fp32, 0x1.ffffffp127, rhd, false, 0x7F7FFFFF, "toward -Inf -> FLT_MAX"},
  {DType::fp32, -1e300, rhd, false, 0xFF800000, "-> -Inf"},
  {DType::fp32, 1e300, rto, false, 0x7F7FFFFF, "rto -> FLT_MAX"},
  {DType::tf32, -1e300, rto, false, 0xFF7FE000, "rto -> tf32 -max"},
  // Inf and NaN input in the new modes, spec 10 §4: "Inf" in every mode, ±max with saturate.
  {DType::fp16, -inf, rto, false, 0xFC00, "Inf input -> Inf, rto too"},
  {DType::fp16, inf, rto, true, 0x7BFF, "saturate -> max"},
  {DType::e4m3, inf, rto, false, 0x7F, "Inf input -> e4m3 'Inf' (NaN code), rto too"},
  {DType::e4m3, -inf, rhd, true, 0xFE, "saturate -> -448"},
  {DType::e2m1, inf, rhu, false, 0x7, "no Inf -> max"},
  {DType::fp16, qnan, rto, false, 0x7E00, "canonical fp16 NaN"},
  {DType::e4m3, -qnan, rhu, true, 0x7F, "canonical, sign dropped"},
  {DType::e3m2, qnan, rto, false, 0x00, "no NaN -> +0"},
  {DType::e8m0, qnan, rhd, false, 0xFF, "e8m0 0xFF"},
  // Ties and odd rounding of finite values (spec 15 §2 definitions), subnormals and zero sign.
  {DType::fp16, 1.0 + 0x1p-11, rhu, false, 0x3C01, "tie 1|1+2^-10 toward +Inf"},
  {DType::fp16, 1.0 + 0x1p-11, rhd, false, 0x3C00, "toward -Inf"},
  {DType::fp16, -1.0 - 0x1p-11, rhu, false, 0xBC00, "negative tie toward +Inf: -1"},
  {DType::fp16, -1.0 - 0x1p-11, rhd, false, 0xBC01, "toward -Inf"},
  {DType::fp16, 1.0 + 0x1p-11, rto, false, 0x3C01, "1 (even) -> lsb set"},
  {DType::fp16, 1.0 + 0x1p-30, rto, false, 0x3C01, "any discarded bit sets the lsb"},
  {DType::fp16, 2.0 - 0x1p-12, rto, false, 0x3FFF, "truncation 0x3FFF is odd: never carries to 2"},
  {DType::fp16, 0x1p-25, rhu, false, 0x0001, "tie 0|2^-24 toward +Inf"},
  {DType::fp16, 0x1p-25, rhd, false, 0x0000, "toward -Inf -> +0"},
  {DType::fp16, -0x1p-25, rhu, false, 0x8000, "toward +Inf -> -0"},
  {DType::fp16, -0x1p-25, rhd, false, 0x8001, "-> -min subnormal"},
  {DType::fp16, 0x1p-40, rto, false, 0x0001, "truncate to 0, lsb set: min subnormal"},
  {DType::fp16, -0x1p-40, rto, false, 0x8001, "-min subnormal"},
  {DType::fp16, 0x1.8p-24, rto, false, 0x0001, "1.5 ulp: 1 is odd"},
  {DType::fp16, 0x1.4p-23, rto, false, 0x0003, "2.5 ulp: 2 -> 3"},
  {DType::fp16, -0.0, rto, false, 0x8000, "-0 exact"},
  {DType::e2m1, 5.0, rhu, false, 0x7, "tie 4|6 toward +Inf -> 6"},
  {DType::e2m1, 5.0, rhd, false, 0x6, "-> 4"},
  {DType::e2m1, -5.0, rhu, false, 0xE, "-> -4"},
  {DType::e2m1, -5.0, rhd, false, 0xF, "-> -6"},
  {DType::e2m1, 2.5, rto, false, 0x5, "2 (0x4) | 3 (0x5) -> 3"},
  {DType::e2m1, 3.5, rto, false, 0x5, "3 (0x5) | 4 (0x6) -> 3"},
  {DType::e2m1, 0.1, rto, false, 0x1, "0 | 0.5 -> 0.5"},
  {DType::e2m1, -0.1, rto, false, 0x9, "-> -0.5"},
  {DType::e1m2, 0.125, rhu, false, 0x1, "tie 0|.25 toward +Inf -> .25"},
  {DType::e1m2, -0.125, rhu, false, 0x8, "-> -0"},
  {DType::e1m2, -0.125, rhd, false, 0x9, "-> -.25"},
  {DType::fp32, 1.0 + 0x1p-24, rhu, false, 0x3F800001, "tie toward +Inf"},
  {DType::fp32, 1.0 + 0x1p-24, rhd, false, 0x3F800000, "toward -Inf"},
  {DType::fp32, -1.0 - 0x1p-24, rhu, false, 0xBF800000, "negative toward +Inf: -1"},
  {DType::fp32, 1.0 + 0x1p-24, rto, false, 0x3F800001, "lsb set"},
  {DType::fp32, 0x1p-160, rto, false, 0x00000001, "below min subnormal -> min subnormal"},
  {DType::tf32, 1.0 + 0x1p-11, rhu, false, 0x3F802000, "tie, tf32 ulp is bit 13"},
  {DType::tf32, 1.0 + 0x1p-11, rhd, false, 0x3F800000, "toward -Inf"},
  {DType::tf32, 1.0 + 0x1p-30, rto, false, 0x3F802000, "lsb (bit 13) set"},
  {DType::hf32, 1.0 + 0x1p-12, rhu, false, 0x3F801000, "tie, hf32 ulp is bit 12"},
  {DType::hf32, -1.0 - 0x1p-12, rhd, false, 0xBF801000, "negative toward -Inf"},
  {DType::hf32, 1.0 + 0x1p-40, rto, false, 0x3F801000, "lsb (bit 12) set"},
  // Integer targets in the new modes: round per mode, then saturate; NaN -> 0.
  {DType::s8, 2.5, rhu, false, 3, "tie toward +Inf"},
  {DType::s8, -2.5, rhu, false, 0xFE, "-2"},
  {DType::s8, 2.5, rhd, false, 2, "tie toward -Inf"},
  {DType::s8, -2.5, rhd, false, 0xFD, "-3"},
  {DType::s8, 2.6, rhd, false, 3, "not a tie: nearest"},
  {DType::s8, -2.4, rhu, false, 0xFE, "-2"},
  {DType::s8, 2.5, rto, false, 3, "2 -> 3"},
  {DType::s8, 3.5, rto, false, 3, "3 is odd"},
  {DType::s8, 4.0, rto, false, 4, "exact stays even"},
  {DType::s8, 4.1, rto, false, 5, "4 -> 5"},
  {DType::s8, -4.1, rto, false, 0xFB, "-5"},
  {DType::s8, 0.3, rto, false, 1, "0 -> 1"},
  {DType::s8, -0.3, rto, false, 0xFF, "-1"},
  {DType::s8, 126.5, rto, false, 127, "126 -> 127"},
  {DType::s8, 128.5, rto, false, 127, "129 saturates to 127"},
  {DType::s8, -127.5, rto, false, 0x81, "-127"},
  {DType::s8, -128.5, rto, false, 0x80, "-129 saturates to -128"},
  {DType::s8, 127.5, rhu, false, 127, "128 saturates"},
  {DType::s8, qnan, rto, false, 0, "NaN -> 0"},
  {DType::s8, -inf, rhd, false, 0x80, "-Inf -> min"},
  {DType::u8, -0.3, rto, false, 0, "-1 saturates to 0"},
  {DType::u8, 254.5, rto, false, 255, "254 -> 255"},
  {DType::u8, 255.5, rhu, false, 255, "256 saturates"},
  {DType::u8, -0.5, rhd, false, 0, "-1 saturates to 0"},
  {DType::u8, -0.5, rhu, false, 0, "-0 -> 0"},
  {DType::u8, inf, rto, false, 255, "Inf -> max"},
  {DType::s4, 7.5, rhu, false, 7, "8 saturates to 7"},
  {DType::s4, -8.5, rhd, false, 0x8, "-9 saturates to -8"},
  {DType::s4, 6.5, rto, false, 7, "6 -> 7"},
  {DType::u4, 14.2, rto, false, 15, "14 -> 15"},
  {DType::s16, -32768.5, rhu, false, 0x8000, "-32768"},
  {DType::s32, 2147483646.5, rto, false, 0x7FFFFFFF, "2^31-2 -> 2^31-1"},
  {DType::u32, 4294967294.5, rhd, false, 0xFFFFFFFE, "tie toward -Inf"},
  {DType::s64, 0x1p63, rto, false, 0x7FFFFFFFFFFFFFFFull, "2^63 saturates"},
  {DType::s64, -0x1p51 - 0.5, rhu, false, 0xFFF8000000000000ull, "-2^51"},
  {DType::s64, -0x1p51 - 0.5, rhd, false, 0xFFF7FFFFFFFFFFFFull, "-2^51-1"},
  {DType::s64, qnan, rhu, false, 0, "NaN -> 0"},
  {DType::u64, 0x1p51 + 0.5, rhu, false, 0x8000000000001ull, "tie toward +Inf"},
  {DType::u64, 0x1p51 + 0.5, rhd, false, 0x8000000000000ull, "tie toward -Inf"},
  {DType::u64, 0x1p51 + 0.5, rto, false, 0x8000000000001ull, "2^51 -> 2^51+1"},
  {DType::u64, 0x1p51 + 1.5, rto, false, 0x8000000000001ull, "2^51+1 is odd"},
  // e8m0 (spec 10 §4): rhu ties to the larger power, rhd to the smaller; rto is Unsupported.
  {DType::e8m0, 1.5, rhu, false, 0x80, "tie 1|2 -> 2"},
  {DType::e8m0, 1.5, rhd, false, 0x7F, "tie 1|2 -> 1"},
  {DType::e8m0, 1.6, rhd, false, 0x80, "not a tie: nearest 2"},
  {DType::e8m0, 1.4, rhu, false, 0x7F, "nearest 1"},
  {DType::e8m0, 0x1.8p127, rhu, false, 0xFF, "tie up to 2^128 -> NaN"},
  {DType::e8m0, 0x1.8p127, rhu, true, 0xFE, "saturate -> 2^127"},
  {DType::e8m0, 0x1.8p127, rhd, false, 0xFE, "tie down -> 2^127"},
  {DType::e8m0, -1.0, rhu, false, 0xFF, "negative -> 0xFF"},
  {DType::e8m0, 0x1p-200, rhd, false, 0x00, "below 2^-127 -> 0x00"},
};
// clang-format on

TEST(FormatsRules, OneLineRows) {
  for (const Row& r : kRows) {
    EXPECT_EQ(f::encode(r.x, r.t, r.m, r.sat), r.want)
        << f::name(r.t) << " x=" << r.x << " " << f::name(r.m) << (r.sat ? " sat" : "") << ": "
        << r.why;
  }
}

TEST(FormatsRules, IntegerDecodeOf64BitCodes) {
  EXPECT_EQ(f::decode(0x8000000000000000ull, DType::s64), -0x1p63);
  EXPECT_EQ(f::decode(0xFFFFFFFFFFFFFFFFull, DType::s64), -1.0);
  EXPECT_EQ(f::decode(0xFFFFFFFFFFFFFFFFull, DType::u64), 0x1p64);              // nearest double
  EXPECT_EQ(f::decode_f32(0x7FFFFFBFFFFFFFFFull, DType::s64), 0x1.fffffep62f);  // one rounding
  EXPECT_EQ(f::decode_f32(0xFFFFFF7FFFFFFFFFull, DType::u64), 0x1.fffffep63f);
}

TEST(FormatsRules, Fp64IsIdentityExceptNan) {
  for (double x : {0.0, -0.0, 1.0, -3.5, 5e-324, 1.7976931348623157e308, inf, -inf}) {
    uint64_t b;
    std::memcpy(&b, &x, 8);
    for (Rounding m : ref::kModes) EXPECT_EQ(f::encode(x, DType::fp64, m), b) << x;
    EXPECT_EQ(f::decode(b, DType::fp64), x);
  }
  EXPECT_TRUE(std::isnan(f::decode(0xFFF0000000000001ull, DType::fp64)));
}

TEST(FormatsRules, RoundingNames) {
  EXPECT_EQ(f::parse_rounding("RNE"), rne);
  EXPECT_EQ(f::parse_rounding("rup"), rup);
  EXPECT_EQ(f::parse_rounding("RHU"), rhu);
  EXPECT_EQ(f::parse_rounding("rhd"), rhd);
  EXPECT_EQ(f::parse_rounding("Rto"), rto);
  EXPECT_EQ(f::name(rtz), "rtz");
  // Every mode's name parses back to it; the enum values of the first five are unchanged.
  for (Rounding m : ref::kModes) EXPECT_EQ(f::parse_rounding(f::name(m)), m);
  EXPECT_EQ(static_cast<int>(rup), 4);
  EXPECT_EQ(static_cast<int>(rto), 7);
  try {
    f::parse_rounding("nearest");
    FAIL();
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find(
                  "unknown rounding mode 'nearest'; valid: rne, rna, rtz, rdn, rup, rhu, rhd, rto"),
              std::string::npos)
        << e.what();
  }
}

// spec 10 §4: rto into e8m0 is Unsupported; the bulk encoders check before writing anything.
TEST(FormatsRules, E8m0RoundToOddRejectedBeforeAnyWrite) {
  const float v32[3] = {1.0f, 2.0f, 4.0f};
  const double v64[3] = {1.0, 2.0, 4.0};
  uint8_t out[3] = {0xAA, 0xAA, 0xAA};
  for (bool sat : {false, true}) {
    try {
      f::encode_array(v32, DType::e8m0, out, 3, rto, sat);
      ADD_FAILURE();
    } catch (const tilesim::Error& e) {
      EXPECT_EQ(e.code(), tilesim::ErrorCode::Unsupported);
      EXPECT_NE(std::string(e.what()).find("formats.encode_array: e8m0 takes every rounding mode "
                                           "but rto"),
                std::string::npos)
          << e.what();
    }
    EXPECT_THROW(f::encode_array_f64(v64, DType::e8m0, out, 3, rto, sat), tilesim::Error);
    EXPECT_THROW(f::encode_array_f64(v64, DType::e8m0, out, 0, rto, sat), tilesim::Error);
    EXPECT_THROW(f::require_rounding(DType::e8m0, rto, "TCVT"), tilesim::Error);
  }
  EXPECT_EQ(out[0], 0xAA);
  EXPECT_EQ(out[2], 0xAA);
  f::encode_array(v32, DType::e8m0, out, 3, rhd);  // every other mode works
  EXPECT_EQ(out[2], 0x81);
  EXPECT_NO_THROW(f::require_rounding(DType::e4m3, rto));
}

// spec 10 §2: element 2i in the low nibble; 2-D rows start on a byte boundary, padding 0.
TEST(FormatsPacking, RowsPadToWholeBytes) {
  const std::vector<uint8_t> codes = {1, 2, 3, 4, 5, 6, 7, 8, 9};  // 3 x 3
  const auto p = f::pack_x2(codes, 3, 3);
  EXPECT_EQ(p, (std::vector<uint8_t>{0x21, 0x03, 0x54, 0x06, 0x87, 0x09}));
  EXPECT_EQ(f::unpack_x2(p, 3, 3), codes);
  // 1-D odd length: the last high nibble is padding written 0 and ignored on read.
  EXPECT_EQ(f::pack_x2(std::vector<uint8_t>{0xA, 0xB, 0xC}, 1, 3),
            (std::vector<uint8_t>{0xBA, 0x0C}));
  EXPECT_EQ(f::unpack_x2(std::vector<uint8_t>{0xBA, 0xFC}, 1, 3),
            (std::vector<uint8_t>{0xA, 0xB, 0xC}));
  // Only the low nibble of each code is stored.
  EXPECT_EQ(f::pack_x2(std::vector<uint8_t>{0xF1, 0x32}, 1, 2), (std::vector<uint8_t>{0x21}));
  EXPECT_TRUE(f::pack_x2({}, 0, 5).empty());
  EXPECT_EQ(f::storage_bytes(DType::e2m1, 3), 2u);
  EXPECT_EQ(f::storage_bytes(DType::fp16, 3), 6u);
  EXPECT_TRUE(f::is_packed4(DType::s4));
  EXPECT_FALSE(f::is_packed4(DType::e3m2));
}

TEST(FormatsPacking, SizeMismatchIsAnError) {
  try {
    f::pack_x2(std::vector<uint8_t>{1, 2, 3}, 2, 2);
    FAIL();
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Constraint);
    EXPECT_NE(std::string(e.what()).find("codes: got 3 for 2 rows x 2 elements"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(f::unpack_x2(std::vector<uint8_t>{1, 2}, 3, 3), tilesim::Error);
  EXPECT_THROW(f::pack_x2(std::vector<uint8_t>{1}, size_t{1} << 62, 8),
               tilesim::Error);  // no overflow
}

TEST(FormatsPacking, EncodeArrayPacksAndPadsWithZero) {
  const float v[3] = {1.0f, -6.0f, 0.5f};
  uint8_t out[2] = {0xFF, 0xFF};
  f::encode_array(v, DType::e2m1, out, 3);
  EXPECT_EQ(out[0], 0xF2);  // 1.0 = 0x2, -6 = 0xF
  EXPECT_EQ(out[1], 0x01);  // 0.5 = 0x1, padding 0
  float back[3];
  f::decode_array(out, DType::e2m1, back, 3);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], -6.0f);
  EXPECT_EQ(back[2], 0.5f);
}
