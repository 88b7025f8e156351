// TCVT (spec 21 §2, spec 15 §2; docs/pto-instructions.md#tcvt): the pair table per target against
// the vendor page, known answers (each row citing its source), the four C++ overloads and
// NeedSetCtrl, every rule's rejection with dst untouched, and the fast path against the reference
// for every supported pair x RoundMode x SaturationMode x tmp x NeedSetCtrl x target.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <pto/pto-inst.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "ops/cast.hpp"
#include "ops/elementwise.hpp"
#include "pto/instr.hpp"
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
using tilesim::pto::instr::core_dtype;

constexpr uint8_t NONE = 0, RINT = 1, ROUND = 2, FLOOR = 3, CEIL = 4, TRUNC = 5, ODD = 6;
constexpr int8_t DEF = -1, ON = 0, OFF = 1;

struct TargetGuard {
  explicit TargetGuard(const char* t) { pto::set_target(t); }
  ~TargetGuard() { pto::set_target("a2a3"); }
};

uint64_t f32c(float f) {
  return std::bit_cast<uint32_t>(f);
}
uint64_t f16c(double v) {
  return tilesim::formats::encode(v, tilesim::formats::DType::fp16);
}
uint64_t bf16c(double v) {
  return tilesim::formats::encode(v, tilesim::formats::DType::bf16);
}

uint64_t load(const HostTile& t, int r, int c) {
  return tilesim::ops::load_code(core_dtype(t.d.dtype), const_cast<HostTile&>(t).at(r, c), 0);
}
void store(HostTile& t, int r, int c, uint64_t code) {
  tilesim::ops::store_code(core_dtype(t.d.dtype), t.at(r, c), 0, code);
}
uint64_t mask_of(Elem e) {
  const size_t w = elem_size(e) * 8;
  return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
}

// ---- the pair table: pto-isa docs/isa/TCVT.md "Supported Conversions" (3186c38), the tile dtypes
// of tilesim (fp8, hif8, fp4 and int4 are not tile dtypes: not modelled) ----

const char* kPageA2A3 =
    "fp32:fp16,fp32,bf16,s16,s32,s64 fp16:fp32,s32,s16,s8,u8 bf16:fp32,s32 s16:fp16,fp32 "
    "s32:fp32,s16,s64,fp16 s64:fp32,s32 u8:fp16 s8:fp16";
const char* kPageA5 =
    "fp32:fp32,fp16,bf16,s16,s32,s64 fp16:fp32,s32,s16,s8,u8 bf16:fp32,s32,fp16 "
    "s16:u8,fp16,fp32,u32,s32 s32:fp32,s16,u16,s64,u8 s64:fp32,s32 u8:fp16,u16 s8:fp16,s16,s32 "
    "u32:u8,u16,s16";

using PairSet = std::set<std::pair<Elem, Elem>>;
PairSet parse_pairs(const char* text) {
  PairSet out;
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    const size_t colon = item.find(':');
    const Elem src = tilesim::pto::parse_elem(item.substr(0, colon), "test");
    std::istringstream dsts(item.substr(colon + 1));
    std::string d;
    while (std::getline(dsts, d, ',')) out.insert({src, tilesim::pto::parse_elem(d, "test")});
  }
  return out;
}
PairSet pairs_of(const char* target) {
  const std::string t = target;
  if (t == "a2a3") return parse_pairs(kPageA2A3);
  if (t == "a5") return parse_pairs(kPageA5);
  PairSet u = parse_pairs(kPageA2A3), b = parse_pairs(kPageA5);  // cpu: the union (spec 21 §5)
  u.insert(b.begin(), b.end());
  return u;
}

TEST(PtoTcvtTable, PairsPerTargetAreThePagesAndOthersAreRejected) {
  for (const char* tn : {"a2a3", "a5", "cpu"}) {
    const auto& t = find_target(tn);
    const PairSet pairs = pairs_of(tn);
    uint16_t sources = 0;
    for (const auto& p : pairs) sources = uint16_t(sources | (1u << unsigned(p.first)));
    const auto& info = tilesim::pto::instr_info(Instr::TCVT);
    const uint16_t row = t.kind == tilesim::pto::TargetKind::a2a3 ? info.a2a3
                         : t.kind == tilesim::pto::TargetKind::a5 ? info.a5
                                                                  : uint16_t(info.a2a3 | info.a5);
    EXPECT_EQ(row, sources) << tn << ": the instruction table's source dtypes are the page's";
    for (int s = 0; s < tilesim::pto::kNumElems; ++s)
      for (int d = 0; d < tilesim::pto::kNumElems; ++d) {
        const Elem se = Elem(s), de = Elem(d);
        HostTile src(se, 2, 32, true), dst(de, 2, 32, true);
        const Call call{.instr = Instr::TCVT, .dst = &dst.d, .src0 = &src.d, .round = RINT};
        const bool want = pairs.count({se, de}) > 0;
        try {
          execute(call, t, Ub{});
          EXPECT_TRUE(want) << tn << " accepted " << elem_name(se) << " -> " << elem_name(de);
        } catch (const tilesim::Error& e) {
          EXPECT_FALSE(want) << tn << " rejected " << elem_name(se) << " -> " << elem_name(de)
                             << ": " << e.what();
          EXPECT_EQ(e.code(), tilesim::ErrorCode::Unsupported);
          const std::string m = e.what();
          EXPECT_NE(m.find("TCVT: "), std::string::npos) << m;
          EXPECT_NE(m.find(tn), std::string::npos) << m;
          EXPECT_NE(m.find("[docs/pto-instructions.md#tcvt]"), std::string::npos) << m;
          if (sources & (1u << s)) {
            EXPECT_NE(m.find(std::string("the conversion ") + elem_name(se) + " -> " +
                             elem_name(de) + " is not supported on target " + tn),
                      std::string::npos)
                << m;
            for (const auto& p : pairs) {  // every supported destination is listed
              if (p.first == se) {
                EXPECT_NE(m.find(elem_name(p.second)), std::string::npos) << m;
              }
            }
          }
        }
      }
  }
}

// ---- known answers through tilesim::pto::execute (1x32 tiles, every element the same input) ----

struct Kat {
  const char* target;
  Elem src, dst;
  uint64_t in;
  uint8_t round;
  int8_t sat;  // DEF: the overload without SaturationMode
  bool tmp;    // the tmp overload (a tmp of 256 bytes)
  bool ctrl;   // NeedSetCtrl
  uint64_t want;
  const char* source;
};

using E = Elem;
// clang-format off
const Kat kKats[] = {
    // fp32 -> fp16: every mode on a tie (1 + 2^-11 between 0x3C00 and 0x3C01) and ODD
    {"a2a3", E::f32, E::f16, f32c(1.0f + 0x1p-11f), RINT, DEF, false, true, 0x3C00, "spec 15 §2: rne, tie to even"},
    {"a2a3", E::f32, E::f16, f32c(1.0f + 0x1p-11f), ROUND, DEF, false, true, 0x3C01, "spec 15 §2: rna, tie away"},
    {"a2a3", E::f32, E::f16, f32c(-1.0f - 0x1p-11f), FLOOR, DEF, false, true, 0xBC01, "spec 15 §2: rdn"},
    {"a2a3", E::f32, E::f16, f32c(-1.0f - 0x1p-11f), CEIL, DEF, false, true, 0xBC00, "spec 15 §2: rup"},
    {"a2a3", E::f32, E::f16, f32c(1.0f + 0x1p-11f), TRUNC, DEF, false, true, 0x3C00, "spec 15 §2: rtz"},
    {"a2a3", E::f32, E::f16, f32c(1.0f + 0x1p-11f), NONE, DEF, false, true, 0x3C00, "a2a3 TCvt.hpp default: vconv_f322f16r"},
    {"a2a3", E::f32, E::f16, f32c(1.0f + 6 * 0x1p-12f), ODD, DEF, false, true, 0x3C01, "vconv_f322f16o: 1.5 ulp, truncate 0x3C00 then set the odd bit (rne gives 0x3C02)"},
    {"a5", E::f32, E::f16, f32c(1.0f + 6 * 0x1p-12f), ODD, DEF, false, true, 0x3C01, "a5 tcvtDispatchByRound: RoundOType for fp32 -> fp16"},
    {"a5", E::f32, E::f16, f32c(1.0f + 6 * 0x1p-12f), RINT, DEF, false, true, 0x3C02, "exact: 1.5 ulp rounds to 2 ulp"},
    {"a5", E::f32, E::f16, f32c(1e6f), RINT, DEF, false, true, 0x7C00, "spec 21 §2: float dst ignores saturation (README decision for a5), spec 10 §4 overflow -> Inf"},
    {"a5", E::f32, E::f16, f32c(1e6f), TRUNC, ON, false, true, 0x7BFF, "spec 10 §4: rtz overflow -> max"},
    {"a2a3", E::f32, E::f16, 0x7F800001, RINT, DEF, false, true, 0x7E00, "spec 00: canonical NaN"},
    // fp32 -> bf16: ODD is the pair's default (rne)
    {"a2a3", E::f32, E::bf16, f32c(1.0f + 0x1p-8f), ODD, DEF, false, true, 0x3F80, "a2a3 GenCastCallFp32ToBf16 default: vconv_f322bf16r (rto would give 0x3F81)"},
    {"cpu", E::f32, E::bf16, f32c(1.0f + 0x1p-8f), ODD, DEF, false, true, 0x3F80, "a5 tcvtDispatchByRound: ODD only for fp32 -> fp16, else RINT"},
    {"a5", E::f32, E::bf16, f32c(1.0f + 0x1p-8f), ROUND, DEF, false, true, 0x3F81, "spec 15 §2: rna"},
    // fp32 -> fp32: round to an integral value, stay fp32
    {"a2a3", E::f32, E::f32, f32c(2.5f), RINT, DEF, false, true, f32c(2.0f), "vconv_f322f32r; gen_data.py np.rint"},
    {"a2a3", E::f32, E::f32, f32c(2.5f), ROUND, DEF, false, true, f32c(3.0f), "vconv_f322f32a; np.round is half-even, exact: ties away"},
    {"a2a3", E::f32, E::f32, f32c(-0.5f), FLOOR, DEF, false, true, f32c(-1.0f), "vconv_f322f32f; np.floor"},
    {"a2a3", E::f32, E::f32, f32c(-0.5f), CEIL, DEF, false, true, 0x80000000, "vconv_f322f32c; np.ceil(-0.5) = -0.0"},
    {"a2a3", E::f32, E::f32, f32c(-0.7f), TRUNC, DEF, false, true, 0x80000000, "vconv_f322f32z; np.trunc(-0.7) = -0.0"},
    {"a2a3", E::f32, E::f32, f32c(3.5f), NONE, DEF, false, true, f32c(4.0f), "a2a3 default vconv_f322f32r"},
    {"a5", E::f32, E::f32, f32c(2.5f), ODD, DEF, false, true, f32c(2.0f), "a5: ODD elsewhere -> RINT (vtrc)"},
    {"a5", E::f32, E::f32, f32c(0x1p22f + 0.5f), ROUND, DEF, false, true, f32c(0x1p22f + 1.0f), "exact: 4194304.5 ties away"},
    {"a5", E::f32, E::f32, 0x00000001, CEIL, DEF, false, true, f32c(1.0f), "exact: ceil(2^-149) = 1"},
    {"a5", E::f32, E::f32, 0x80000001, RINT, DEF, false, true, 0x80000000, "IEEE roundToIntegral keeps the sign of zero"},
    {"a5", E::f32, E::f32, f32c(1e30f), FLOOR, DEF, false, true, f32c(1e30f), "exact: already integral"},
    {"a5", E::f32, E::f32, 0xFF800000, RINT, DEF, false, true, 0xFF800000, "-Inf stays"},
    {"a5", E::f32, E::f32, 0x7F800123, RINT, DEF, false, true, 0x7FC00000, "spec 00: canonical NaN"},
    // float -> int: modes; CAST_NONE and CAST_ODD truncate
    {"a2a3", E::f32, E::s32, f32c(2.7f), NONE, DEF, false, true, 2, "vconv_f322s32z (default); notes §6.2"},
    {"a5", E::f32, E::s32, f32c(-2.7f), NONE, DEF, false, true, uint32_t(-2), "a5 default RoundZType for float -> int"},
    {"cpu", E::f32, E::s32, f32c(2.7f), ODD, DEF, false, true, 2, "ODD on a pair without it: the default, truncation"},
    {"a2a3", E::f32, E::s32, f32c(2.5f), RINT, DEF, false, true, 2, "gen_data.py np.rint (ties to even)"},
    {"a2a3", E::f32, E::s32, f32c(2.5f), ROUND, DEF, false, true, 3, "spec 15 §2 rna"},
    {"a2a3", E::f32, E::s32, f32c(-2.5f), FLOOR, DEF, false, true, uint32_t(-3), "np.floor"},
    {"a2a3", E::f32, E::s32, f32c(-2.5f), CEIL, DEF, false, true, uint32_t(-2), "np.ceil"},
    {"a2a3", E::f32, E::s32, f32c(3e9f), RINT, DEF, false, true, 0x7FFFFFFF, "spec 15 §2 on: clamp (gen_data.py np.clip)"},
    {"a2a3", E::f32, E::s32, 0xFF800000, RINT, DEF, false, true, 0x80000000, "spec 15 §2 on: -Inf -> min"},
    {"a2a3", E::f32, E::s32, 0x7FC00000, RINT, DEF, false, true, 0, "spec 15 §2: NaN -> 0"},
    {"a2a3", E::f32, E::s64, f32c(-1e19f), RINT, DEF, false, true, uint64_t(INT64_MIN), "spec 15 §2 on: clamp"},
    {"a2a3", E::f16, E::s32, f16c(65504), RINT, DEF, false, true, 65504, "exact"},
    {"a2a3", E::bf16, E::s32, 0x7F7F, RINT, DEF, false, true, 0x7FFFFFFF, "spec 15 §2 on: clamp"},
    {"a2a3", E::bf16, E::s32, bf16c(-2.5), NONE, DEF, false, true, uint32_t(-2), "vconv_bf162s32z (default)"},
    // the narrowing pairs: default off (kIsNarrowingCvt), spec 15 §2 wrap
    {"a2a3", E::f16, E::s8, f16c(200), RINT, DEF, false, true, 0xC8, "gen_data.py case_ golden: int(np.int64(200)) & 0xFF = -56"},
    {"a2a3", E::f16, E::s8, f16c(-200), RINT, DEF, false, true, 56, "gen_data.py case_ golden: -200 & 0xFF = 56"},
    {"a2a3", E::f16, E::s8, f16c(INFINITY), RINT, DEF, false, true, 0, "spec 15 §2 off: ±Inf -> 0 (gen_data.py case_ golden)"},
    {"a2a3", E::f16, E::s8, 0x7E00, RINT, DEF, false, true, 0, "spec 15 §2: NaN -> 0"},
    {"a2a3", E::f16, E::s8, f16c(200), RINT, ON, false, true, 0x7F, "narrowing pair: explicit ON honoured (clamp)"},
    {"a2a3", E::f16, E::s8, f16c(-INFINITY), RINT, ON, false, true, 0x80, "spec 15 §2 on: -Inf -> min"},
    {"a5", E::f16, E::s8, f16c(200.75), TRUNC, DEF, false, true, 0xC8, "exact: trunc 200, low 8 bits"},
    {"a2a3", E::f16, E::u8, f16c(300), RINT, DEF, false, true, 44, "a2a3 TCvt.hpp CTRL[59] comment: 300 -> 300 & 0xFF = 44"},
    {"a2a3", E::f16, E::u8, f16c(-100), RINT, DEF, false, true, 156, "gen_data.py case_ golden: -100 & 0xFF"},
    {"a2a3", E::f16, E::u8, f16c(300), RINT, ON, false, true, 255, "spec 15 §2 on: clamp"},
    {"a2a3", E::f16, E::u8, f16c(-100), RINT, ON, false, true, 0, "spec 15 §2 on: clamp to 0"},
    {"a2a3", E::f16, E::u8, f16c(INFINITY), RINT, DEF, true, true, 0, "a2a3 tmp: no PyTorch path for u8, spec 15 wrap"},
    {"a2a3", E::f32, E::s16, f32c(3e9f), RINT, DEF, false, true, 0x5E00, "spec 15 §2 off: low 16 bits of 3000000000 = 0xB2D05E00"},
    {"a2a3", E::f32, E::s16, f32c(INFINITY), RINT, DEF, false, true, 0, "spec 15 §2 off: ±Inf -> 0"},
    {"a2a3", E::f32, E::s16, f32c(40000), RINT, DEF, false, true, 0x9C40, "gen_data.py: 40000 & 0xFFFF = -25536"},
    {"a5", E::f32, E::s16, f32c(3e9f), RINT, OFF, false, true, 0x5E00, "a5 off: spec 15 wrap (spec 21 §2)"},
    {"a2a3", E::s64, E::s32, 3000000000, RINT, DEF, false, true, 0xB2D05E00, "gen_data.py saturation_int64_int32: low 32 bits"},
    {"a2a3", E::s64, E::s32, uint64_t(-3000000000LL), RINT, DEF, false, true, 0x4D2FA200, "exact: -3e9 + 2^32"},
    {"a2a3", E::s64, E::s32, 3000000000, RINT, ON, false, true, 0x7FFFFFFF, "gen_data.py np.clip"},
    {"a2a3", E::s64, E::s32, uint64_t(-3000000000LL), RINT, ON, false, true, 0x80000000, "np.clip"},
    {"a2a3", E::s32, E::s16, 40000, RINT, DEF, false, true, 0x9C40, "gen_data.py saturation_int32_int16: low 16 bits"},
    {"a2a3", E::s32, E::s16, uint32_t(-40000), FLOOR, DEF, false, true, 25536, "exact: -40000 + 65536; integers ignore the mode"},
    {"a2a3", E::s32, E::s16, uint32_t(-40000), RINT, ON, false, true, 0x8000, "np.clip"},
    // a2a3 tmp overload, off: the PyTorch path (round and clamp to int32, then wrap)
    {"a2a3", E::f16, E::s8, f16c(INFINITY), RINT, DEF, true, true, 0xFF, "gen_data.py nonsattorch golden (PyTorch GPU: +inf -> -1); GenCastCallFp16ToInt8_NonSatTorch"},
    {"a2a3", E::f16, E::s8, f16c(-INFINITY), RINT, DEF, true, true, 0, "nonsattorch golden: -inf -> INT32_MIN -> low bits 0"},
    {"a2a3", E::f16, E::s8, 0x7E00, TRUNC, OFF, true, true, 0, "nonsattorch golden: NaN -> 0"},
    {"a2a3", E::f16, E::s8, f16c(200.75), TRUNC, OFF, true, true, 0xC8, "nonsattorch golden (TRUNC): 200 -> -56"},
    {"a2a3", E::f16, E::s8, f16c(-200.75), TRUNC, DEF, true, true, 56, "nonsattorch golden (TRUNC): -200 -> 56"},
    {"a2a3", E::f16, E::s16, f16c(INFINITY), TRUNC, OFF, true, true, 0xFFFF, "nonsattorch_fp16_int16 golden: +inf -> -1"},
    {"a2a3", E::f16, E::s16, f16c(40000), TRUNC, OFF, true, true, 0x9C40, "exact: 40000 - 65536"},
    {"a2a3", E::f32, E::s16, f32c(INFINITY), TRUNC, OFF, true, true, 0xFFFF, "nonsattorch_fp32_int16 golden: +inf -> -1"},
    {"a2a3", E::f32, E::s16, f32c(3e9f), RINT, DEF, true, true, 0xFFFF, "GenCastCallFp32ToInt16_NonSatTorch: clamp to 0x7FFFFFFF, low 16 bits"},
    {"a2a3", E::f32, E::s16, f32c(-3e9f), RINT, DEF, true, true, 0, "clamp to 0x80000000, low 16 bits"},
    {"a2a3", E::f32, E::s16, f32c(-2.5f), FLOOR, DEF, true, true, uint16_t(-3), "the mode applies in the int32 step"},
    {"a2a3", E::f16, E::s8, f16c(200), RINT, ON, true, true, 0x7F, "tmp overload, ON: the saturating path"},
    {"a5", E::f16, E::s8, f16c(INFINITY), RINT, DEF, true, true, 0, "a5: tmp unused, off is spec 15's wrap (spec 21 §2)"},
    {"cpu", E::f32, E::s16, f32c(3e9f), RINT, DEF, true, true, 0x5E00, "cpu as a5: spec 15 wrap"},
    // explicit SaturationMode on non-narrowing pairs
    {"a2a3", E::f32, E::s32, f32c(3e9f), RINT, OFF, false, true, 0x7FFFFFFF, "a2a3 no-tmp TCVT_IMPL forces ON for non-narrowing pairs"},
    {"a2a3", E::f32, E::s32, f32c(INFINITY), RINT, OFF, false, true, 0x7FFFFFFF, "a2a3 no-tmp: forced ON"},
    {"a2a3", E::f32, E::s32, f32c(3e9f), RINT, OFF, true, true, 0xB2D05E00, "a2a3 tmp TCVT_IMPL passes satMode for every pair (notes §6.3)"},
    {"a2a3", E::f32, E::s32, f32c(INFINITY), RINT, OFF, true, true, 0, "spec 15 §2 off: Inf -> 0"},
    {"a5", E::f32, E::s32, f32c(3e9f), RINT, OFF, false, true, 0xB2D05E00, "a5 honours satMode (SaturationCtrlTraits)"},
    {"cpu", E::f32, E::s32, f32c(-3e9f), RINT, OFF, false, true, 0x4D2FA200, "cpu as a5; exact: -3e9 + 2^32"},
    // NeedSetCtrl = false: tilesim's CTRL is in its reset state, saturation on
    {"a2a3", E::f16, E::s8, f16c(200), RINT, DEF, false, false, 0x7F, "decision: ambient CTRL[59] = 0 (ON, type.hpp 'default')"},
    {"a2a3", E::f16, E::s8, f16c(INFINITY), RINT, OFF, true, false, 0x7F, "decision: the tmp path reads CTRL, ambient ON"},
    {"a5", E::s32, E::s16, 40000, RINT, OFF, false, false, 0x7FFF, "decision: ambient ON"},
    // integer -> float: modes; int32 -> fp16 (a2a3 vconv_deq) ignores the mode
    {"a2a3", E::s32, E::f16, 2049, CEIL, DEF, false, true, 0x6800, "vconv_deq has no rounding variants: rne (decision), tie to even"},
    {"cpu", E::s32, E::f16, 2051, FLOOR, DEF, false, true, 0x6802, "vconv_deq: rne, tie to even (2052)"},
    {"a2a3", E::s32, E::f16, 70000, RINT, DEF, false, true, 0x7C00, "decision: overflow per spec 10 §4 (Inf)"},
    {"a2a3", E::s16, E::f16, 2049, CEIL, DEF, false, true, 0x6801, "vconv_s162f16c"},
    {"a2a3", E::s16, E::f16, 2049, NONE, DEF, false, true, 0x6800, "vconv_s162f16 (hardware default): rne (decision)"},
    {"a2a3", E::s16, E::f16, 2049, ROUND, DEF, false, true, 0x6801, "spec 15 §2 rna: tie away"},
    {"a5", E::s16, E::f16, uint16_t(-2049), FLOOR, DEF, false, true, 0xE801, "spec 15 §2 rdn"},
    {"a2a3", E::s32, E::f32, 16777217, FLOOR, DEF, false, true, 0x4B800000, "vconv_s322f32f"},
    {"a2a3", E::s32, E::f32, 16777217, CEIL, DEF, false, true, 0x4B800001, "vconv_s322f32c"},
    {"a2a3", E::s32, E::f32, 16777217, NONE, DEF, false, true, 0x4B800000, "rne: tie to even"},
    {"a5", E::s32, E::f32, 16777217, ROUND, DEF, false, true, 0x4B800001, "rna: tie away"},
    {"a2a3", E::s64, E::f32, (uint64_t{1} << 62) + (uint64_t{1} << 38) + 1, RINT, DEF, false, true, f32c(0x1p62f + 0x1p39f), "exact: above the midpoint"},
    {"a2a3", E::s64, E::f32, (uint64_t{1} << 62) + (uint64_t{1} << 38), NONE, DEF, false, true, f32c(0x1p62f), "vconv_s642f32r default: tie to even"},
    {"a5", E::s64, E::f32, (uint64_t{1} << 62) + (uint64_t{1} << 38), ROUND, DEF, false, true, f32c(0x1p62f + 0x1p39f), "rna"},
    {"a2a3", E::s16, E::f32, 0x8000, FLOOR, DEF, false, true, f32c(-32768.f), "exact (vconv_s162f32)"},
    {"a2a3", E::u8, E::f16, 255, TRUNC, DEF, false, true, 0x5BF8, "exact (vconv_u82f16)"},
    {"a2a3", E::s8, E::f16, 0x80, CEIL, DEF, false, true, 0xD800, "exact (vconv_s82f16)"},
    {"a2a3", E::f16, E::f32, 0x0001, RINT, DEF, false, true, 0x33800000, "exact: 2^-24"},
    {"a2a3", E::bf16, E::f32, 0x7FC1, RINT, DEF, false, true, 0x7FC00000, "spec 00: canonical NaN"},
    {"a2a3", E::s32, E::s64, uint32_t(-1), RINT, DEF, false, true, ~uint64_t{0}, "exact: sign-extended"},
    // a5-only pairs
    {"a5", E::s16, E::u32, uint16_t(-1), RINT, DEF, false, true, 0, "spec 15 §2 on: negative -> 0 (decision)"},
    {"a5", E::s16, E::u32, uint16_t(-1), RINT, OFF, false, true, 0xFFFFFFFF, "spec 15 §2 off: low 32 bits"},
    {"a5", E::u32, E::s16, 0xFFFFFFFF, RINT, DEF, false, true, 0x7FFF, "spec 15 §2 on: clamp"},
    {"a5", E::u32, E::s16, 0xFFFFFFFF, RINT, OFF, false, true, 0xFFFF, "spec 15 §2 off: low 16 bits"},
    {"a5", E::u32, E::u8, 300, RINT, DEF, false, true, 255, "clamp"},
    {"a5", E::u32, E::u8, 300, RINT, OFF, false, true, 44, "low 8 bits"},
    {"a5", E::u32, E::u16, 70000, RINT, DEF, false, true, 0xFFFF, "clamp"},
    {"a5", E::s32, E::u16, uint32_t(-1), RINT, DEF, false, true, 0, "clamp"},
    {"a5", E::s32, E::u16, 70000, RINT, OFF, false, true, 4464, "exact: 70000 - 65536"},
    {"a5", E::s32, E::u8, 256, RINT, DEF, false, true, 255, "clamp"},
    {"a5", E::s16, E::u8, uint16_t(-5), RINT, OFF, false, true, 251, "low 8 bits"},
    {"a5", E::s16, E::s32, 0x8000, RINT, DEF, false, true, 0xFFFF8000, "exact"},
    {"a5", E::s8, E::s32, 0x80, RINT, DEF, false, true, 0xFFFFFF80, "exact"},
    {"a5", E::s8, E::s16, 0x80, RINT, DEF, false, true, 0xFF80, "exact"},
    {"a5", E::u8, E::u16, 255, RINT, DEF, false, true, 255, "exact"},
    {"a5", E::bf16, E::f16, bf16c(1e5), RINT, DEF, false, true, 0x7C00, "spec 10 §4: overflow -> Inf, saturation ignored (decision)"},
    {"a5", E::bf16, E::f16, bf16c(1e5), TRUNC, DEF, false, true, 0x7BFF, "spec 10 §4: rtz overflow -> max"},
    {"a5", E::bf16, E::f16, 0x3080, RINT, DEF, false, true, 0x0000, "exact: 2^-30 is below half the least fp16 subnormal"},
    {"cpu", E::bf16, E::f16, 0x3080, CEIL, DEF, false, true, 0x0001, "rup: the least subnormal"},
    {"cpu", E::bf16, E::f16, bf16c(1.5), NONE, DEF, false, true, 0x3E00, "exact"},
};
// clang-format on

TEST(PtoTcvtKnownAnswers, EveryRowThroughExecute) {
  for (const Kat& k : kKats) {
    SCOPED_TRACE(std::string(k.target) + " " + elem_name(k.src) + " -> " + elem_name(k.dst) + " (" +
                 k.source + ")");
    const auto& t = find_target(k.target);
    HostTile src(k.src, 1, 32, true), dst(k.dst, 1, 32, true), tmp(Elem::s32, 1, 64, true);
    for (int c = 0; c < 32; ++c) store(src, 0, c, k.in);
    const Call call{.instr = Instr::TCVT,
                    .dst = &dst.d,
                    .src0 = &src.d,
                    .tmp = k.tmp ? &tmp.d : nullptr,
                    .round = k.round,
                    .sat = k.sat,
                    .need_set_ctrl = k.ctrl};
    for (Path p : {Path::Fast, Path::Reference}) {
      std::fill(dst.bytes.begin(), dst.bytes.end(), uint8_t(0xA5));
      execute(call, t, Ub{}, p);
      EXPECT_EQ(load(dst, 0, 0), k.want & mask_of(k.dst));
      EXPECT_EQ(load(dst, 0, 31), k.want & mask_of(k.dst));
    }
    EXPECT_EQ(tmp.bytes, std::vector<uint8_t>(256, 0)) << "tmp is left unchanged (decision)";
  }
}

// ---- the C++ API: the four overloads, NeedSetCtrl, pto::set_target ----

template <class T, int R, int C>
using VecTile =
    pto::Tile<pto::TileType::Vec, T, R, C, pto::BLayout::RowMajor, pto::DYNAMIC, pto::DYNAMIC>;

TEST(PtoTcvtApi, FourOverloadsNeedSetCtrlAndTargets) {
  TargetGuard g("a2a3");
  VecTile<pto::half, 2, 32> src(2, 20);
  VecTile<int8_t, 2, 32> dst(2, 20);
  VecTile<int32_t, 1, 64> tmp(1, 64);
  const float in[4] = {200.0f, INFINITY, -200.0f, 2.5f};
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 32; ++c) src.at(r, c) = pto::half(in[c % 4]);
  const auto check = [&](std::initializer_list<int> want, const char* what) {
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 32; ++c) {
        const int w = c < 20 ? *(want.begin() + c % 4) : 7;  // 7: outside the valid region
        EXPECT_EQ(dst.at(r, c), w) << what << " (" << r << ", " << c << ")";
      }
  };
  const auto reset = [&] {
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 32; ++c) dst.at(r, c) = 7;
  };
  using pto::RoundMode;
  using pto::SaturationMode;
  reset();
  pto::TCVT(dst, src, RoundMode::CAST_RINT);  // default off: spec 15 wrap
  check({-56, 0, 56, 2}, "TCVT(dst, src, mode)");
  pto::TCVT(dst, src, RoundMode::CAST_ROUND, SaturationMode::ON);
  check({127, 127, -128, 3}, "TCVT(dst, src, mode, ON)");
  pto::TCVT(dst, src, tmp, RoundMode::CAST_NONE);  // a2a3 tmp, default off: the PyTorch path
  check({-56, -1, 56, 2}, "TCVT(dst, src, tmp, mode)");
  pto::TCVT(dst, src, tmp, RoundMode::CAST_CEIL, SaturationMode::ON);
  check({127, 127, -128, 3}, "TCVT(dst, src, tmp, mode, ON)");
  pto::TCVT<false>(dst, src, RoundMode::CAST_TRUNC);  // ambient CTRL: saturation on
  check({127, 127, -128, 2}, "TCVT<false>(dst, src, mode)");
  pto::TCVT<false>(dst, src, tmp, RoundMode::CAST_TRUNC, SaturationMode::OFF);
  check({127, 127, -128, 2}, "TCVT<false>(dst, src, tmp, mode, OFF)");
  for (int c = 0; c < 64; ++c) EXPECT_EQ(tmp.at(0, c), 0) << "tmp unchanged";

  pto::set_target("a5");
  pto::TCVT(dst, src, tmp, RoundMode::CAST_RINT);  // a5: tmp unused, spec 15 wrap
  check({-56, 0, 56, 2}, "a5 TCVT(dst, src, tmp, mode)");
  VecTile<int32_t, 2, 32> i32(2, 20);
  VecTile<pto::half, 2, 32> h(2, 20);
  EXPECT_THROW(pto::TCVT(h, i32, RoundMode::CAST_RINT), tilesim::Error);  // a2a3 only (deq)
  pto::set_target("cpu");
  i32.at(0, 0) = 2049;
  pto::TCVT(h, i32, RoundMode::CAST_CEIL);  // the a2a3 pair on cpu: mode ignored (rne)
  EXPECT_EQ(h.at(0, 0).bits, 0x6800);
  // fp32 -> fp32 rounds to integers; fp32 -> fp16 with CAST_ODD
  VecTile<float, 1, 8> f(1, 8), f2(1, 8);
  VecTile<pto::half, 1, 16> fh(1, 8);
  f.at(0, 0) = 2.5f;
  f.at(0, 1) = -0.5f;
  f.at(0, 2) = 1.0f + 6 * 0x1p-12f;
  pto::TCVT(f2, f, RoundMode::CAST_CEIL);
  EXPECT_EQ(f2.at(0, 0), 3.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(f2.at(0, 1)), 0x80000000u);
  pto::TCVT(fh, f, RoundMode::CAST_ODD);
  EXPECT_EQ(fh.at(0, 2).bits, 0x3C01);
}

// In place (TASSIGN'd to one UB address) and overlapping: the result of a separate dst.
TEST(PtoTcvtApi, AliasedOperandsReadEverySourceFirst) {
  TargetGuard g("a5");
  using Src = pto::Tile<pto::TileType::Vec, float, 4, 64>;
  using DstI = pto::Tile<pto::TileType::Vec, int32_t, 4, 64>;
  using DstH = pto::Tile<pto::TileType::Vec, pto::half, 4, 64>;
  using DstL = pto::Tile<pto::TileType::Vec, int64_t, 4, 64>;
  Src a, ref_src;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 64; ++c) ref_src.at(r, c) = float(r * 64 + c) * 1.37f - 150.0f;
  DstI want_i;
  DstH want_h;
  DstL want_l;
  pto::TCVT(want_i, ref_src, pto::RoundMode::CAST_RINT);
  pto::TCVT(want_h, ref_src, pto::RoundMode::CAST_RINT);
  pto::TCVT(want_l, ref_src, pto::RoundMode::CAST_RINT);
  const auto load_src = [&] {
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 64; ++c) a.at(r, c) = ref_src.at(r, c);
  };
  DstI di;
  DstH dh;
  DstL dl;
  pto::TASSIGN(a, 0x1000);
  pto::TASSIGN(di, 0x1000);  // element for element
  load_src();
  pto::TCVT(di, a, pto::RoundMode::CAST_RINT);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 64; ++c) EXPECT_EQ(di.at(r, c), want_i.at(r, c));
  pto::TASSIGN(dh, 0x1000);  // narrower dst over the source
  load_src();
  pto::TCVT(dh, a, pto::RoundMode::CAST_RINT);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 64; ++c) EXPECT_EQ(dh.at(r, c).bits, want_h.at(r, c).bits);
  pto::TASSIGN(dl, 0x1000);  // wider dst over the source
  load_src();
  pto::TCVT(dl, a, pto::RoundMode::CAST_RINT);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 64; ++c) EXPECT_EQ(dl.at(r, c), want_l.at(r, c));
}

// ---- rejections: every rule, message naming instruction, operand, rule and values; dst untouched
// ----

void expect_rejected(const Call& call, const char* target, const HostTile& dst,
                     std::initializer_list<const char*> needles,
                     tilesim::ErrorCode code = tilesim::ErrorCode::Constraint) {
  const std::vector<uint8_t> before = dst.bytes;
  try {
    execute(call, find_target(target), Ub{});
    ADD_FAILURE() << "not rejected on " << target << ": " << *needles.begin();
  } catch (const tilesim::Error& err) {
    const std::string m = err.what();
    EXPECT_EQ(err.code(), code) << m;
    EXPECT_EQ(m.rfind("TCVT: ", 0), 0u) << m;
    for (const char* n : needles) EXPECT_NE(m.find(n), std::string::npos) << n << " in " << m;
    EXPECT_NE(m.find("[docs/pto-instructions.md#tcvt]"), std::string::npos) << m;
  }
  EXPECT_EQ(dst.bytes, before);
}

void expect_accepted(const Call& call, const char* target) {
  EXPECT_NO_THROW(execute(call, find_target(target), Ub{})) << target;
}

TEST(PtoTcvtRejects, EveryRule) {
  HostTile src(E::f16, 2, 32, true), dst(E::s8, 2, 32, true);
  std::fill(dst.bytes.begin(), dst.bytes.end(), uint8_t(0x5A));
  for (int c = 0; c < 32; ++c) store(src, 0, c, f16c(c)), store(src, 1, c, f16c(-c));
  const auto base = [&](const HostTile& d, const HostTile& s) {
    return Call{.instr = Instr::TCVT, .dst = &d.d, .src0 = &s.d, .round = RINT};
  };
  {  // Vec
    HostTile m = dst;
    m.d.loc = 1;
    expect_rejected(base(m, src), "a2a3", m, {"dst must be a TileType::Vec tile, got Mat"});
    HostTile s = src;
    s.d.loc = 4;
    expect_rejected(base(dst, s), "cpu", dst, {"src must be a TileType::Vec tile, got Acc"});
  }
  {  // RowMajor NoneBox
    HostTile cm(E::s8, 32, 2, false);
    std::fill(cm.bytes.begin(), cm.bytes.end(), uint8_t(0x5A));
    HostTile scm(E::f16, 32, 2, false);
    expect_rejected(base(cm, scm), "a5", cm,
                    {"dst must be RowMajor with SLayout::NoneBox (ND), got ColMajor"});
    HostTile boxed = src;
    boxed.d.slayout = 1;
    expect_rejected(base(dst, boxed), "a2a3", dst,
                    {"src must be RowMajor with SLayout::NoneBox (ND), got RowMajor with a boxed"});
  }
  {  // the pair table
    HostTile f(E::f32, 2, 32, true);
    expect_rejected(base(dst, f), "a2a3", dst,
                    {"dst dtype s8: the conversion fp32 -> s8 is not supported on target a2a3 "
                     "(fp32 converts to: fp16 bf16 fp32 s16 s32 s64)"},
                    tilesim::ErrorCode::Unsupported);
    HostTile u(E::u32, 2, 32, true), d16(E::s16, 2, 32, true);
    expect_rejected(base(d16, u), "a2a3", d16,
                    {"src dtype u32 is not supported on target a2a3 (supported: fp16 bf16 fp32 s8 "
                     "s16 s32 u8 s64)"},
                    tilesim::ErrorCode::Unsupported);
    expect_accepted(base(d16, u), "a5");
    HostTile i32(E::s32, 2, 32, true), h(E::f16, 2, 32, true);
    expect_rejected(base(h, i32), "a5", h,
                    {"the conversion s32 -> fp16 is not supported on target a5 (s32 converts to: "
                     "fp32 s16 u8 u16 s64)"},
                    tilesim::ErrorCode::Unsupported);
    expect_accepted(base(h, i32), "cpu");
    HostTile bf(E::bf16, 2, 32, true);
    expect_rejected(base(h, bf), "a2a3", h, {"the conversion bf16 -> fp16 is not supported"},
                    tilesim::ErrorCode::Unsupported);
  }
  {  // valid shapes
    HostTile s = src;
    s.d.valid_col = 30;
    expect_rejected(base(dst, s), "a2a3", dst,
                    {"src valid shape must equal dst's, got 2x30 and 2x32"});
    HostTile d = dst;
    d.d.valid_row = 1;
    expect_rejected(base(d, src), "a5", d, {"src valid shape must equal dst's, got 2x32 and 1x32"});
  }
  {  // RoundMode / SaturationMode values (the C++ enums cannot hold others; execute can)
    Call c = base(dst, src);
    c.round = 7;
    expect_rejected(c, "a2a3", dst,
                    {"mode must be a RoundMode (CAST_NONE .. CAST_ODD = 0 .. 6), got 7"});
    c.round = RINT;
    c.sat = 2;
    expect_rejected(c, "a5", dst, {"satMode must be a SaturationMode (ON = 0, OFF = 1), got 2"});
  }
  {  // a2a3 tmp: Vec, and on the PyTorch path its size and no shared byte
    HostTile small(E::u8, 1, 32, true);
    Call c = base(dst, src);
    c.tmp = &small.d;
    expect_rejected(c, "a2a3", dst,
                    {"tmp must hold at least 192 bytes for fp16 -> s8 with SaturationMode::OFF "
                     "(dst valid 2x32, src row stride 32), got 32 bytes (1x32 u8)"});
    c.sat = ON;
    expect_accepted(c, "a2a3");  // ON: no PyTorch path, no size rule
    c.sat = DEF;
    expect_accepted(c, "a5");  // a5 and cpu neither check nor use tmp (spec 21 §5)
    expect_accepted(c, "cpu");
    HostTile mat(E::s32, 1, 64, true);
    mat.d.loc = 1;
    c.tmp = &mat.d;
    expect_rejected(c, "a2a3", dst, {"tmp must be a TileType::Vec tile, got Mat"});
    HostTile sbig(E::f16, 8, 32, true, 2, 32);  // 512 bytes, valid 2x32
    TileDesc over_src = sbig.d;                 // a tmp over src's bytes, big enough
    over_src.dtype = E::u8;
    c.src0 = &sbig.d;
    c.tmp = &over_src;
    expect_rejected(c, "a2a3", dst, {"tmp and src must not share storage"});
    c.src0 = &src.d;
    HostTile dbig(E::s8, 8, 32, true, 2, 32);  // 256 bytes, valid 2x32
    std::fill(dbig.bytes.begin(), dbig.bytes.end(), uint8_t(0x5A));
    TileDesc over = dbig.d;  // a tmp over dst's own bytes, big enough
    over.dtype = E::u8;
    c.dst = &dbig.d;
    c.tmp = &over;
    expect_rejected(c, "a2a3", dbig, {"tmp and dst must not share storage"});
    c.round = TRUNC;
    HostTile d4(E::s8, 2, 32, true, 2, 4), s4(E::f16, 2, 32, true, 2, 4);  // max(32, 128 + 32)
    c.dst = &d4.d;
    c.src0 = &s4.d;
    HostTile t160(E::u8, 1, 160, true), t128(E::u8, 1, 128, true);
    c.tmp = &t160.d;
    expect_accepted(c, "a2a3");
    c.tmp = &t128.d;
    expect_rejected(c, "a2a3", d4, {"at least 160 bytes", "got 128 bytes"});
  }
}

// The a2a3 tmp sizes of TCVT.md (notes §6.4), each at its exact bound and one block below.
TEST(PtoTcvtRejects, TmpSizeFormulaOfThePage) {
  struct Case {
    Elem src, dst;
    int R, C, src_cols;
    size_t need;
    const char* why;
  };
  const Case cases[] = {
      {E::f32, E::s16, 4, 100, 128, 1696, "max(4*64*1, 32*((4-1)*128/8 + ceil(36/8)))"},
      {E::f32, E::s16, 2, 128, 128, 512, "head 4*64*2, no tail"},
      {E::f32, E::s16, 1, 32, 32, 128, "tail 32*(0 + 4)"},
      {E::f16, E::s16, 3, 100, 128, 256, "32*ceil(min(100, 64)/8)"},
      {E::f16, E::s16, 1, 20, 32, 96, "32*ceil(20/8)"},
      {E::f16, E::s8, 1, 20, 32, 192, "max(32*3, 128 + 32*2)"},
      {E::f16, E::s8, 2, 100, 128, 256, "max(32*8, 128 + 32*4)"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(elem_name(k.src)) + " -> " + elem_name(k.dst) + ": " + k.why);
    HostTile s(k.src, k.R, k.src_cols, true, k.R, k.C), d(k.dst, k.R, 128, true, k.R, k.C);
    HostTile ok(E::u8, 1, int(k.need), true), low(E::u8, 1, int(k.need) - 32, true);
    Call c{
        .instr = Instr::TCVT, .dst = &d.d, .src0 = &s.d, .tmp = &ok.d, .round = RINT, .sat = OFF};
    expect_accepted(c, "a2a3");
    c.tmp = &low.d;
    expect_rejected(
        c, "a2a3", d,
        {(std::string("tmp must hold at least ") + std::to_string(k.need) + " bytes").c_str()});
  }
}

// ---- the fast path against the reference: every pair x mode x saturation x tmp x NeedSetCtrl x
// target, on random and edge inputs plus exact ties of every mode, on a strided valid region ----

// Exact ties: x.5 for float -> int and fp32 -> fp32, midpoints of fp16/bf16 neighbours for
// fp32 -> fp16/bf16, odd integers just above 2^24 / 2^11 / 2^53 for integer -> float.
void fill_ties(std::mt19937& g, Elem e, uint8_t* p, size_t n) {
  using tilesim::formats::DType;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = uint32_t(g());
    uint64_t code = 0;
    const double k = double(int(r % 601) - 300) + 0.5;
    switch (e) {
      case Elem::f32: {
        if (r % 3 == 0) {
          code = f32c(float(k));
        } else {  // midpoint of two adjacent fp16 (or bf16) finite codes, exact in fp32
          const DType h = r % 3 == 1 ? DType::fp16 : DType::bf16;
          const uint64_t c0 = (g() % 0x7BFF) | ((r & 0x10000) ? 0x8000 : 0);
          const double a = tilesim::formats::decode(c0, h), b = tilesim::formats::decode(c0 + 1, h);
          code = f32c(float((a + b) / 2));
        }
        break;
      }
      case Elem::f16:
        code = f16c(k);
        break;
      case Elem::bf16:
        code = bf16c(double(int(r % 201) - 100) + 0.5);
        break;
      case Elem::s16:
        code = uint16_t(int16_t((2049 + 2 * (r % 500)) * ((r & 1) ? -1 : 1)));
        break;
      case Elem::s32:
        code = uint32_t(int32_t((16777217 + 2 * (r % 1000)) * ((r & 1) ? -1 : 1)));
        break;
      case Elem::s64:
        code = uint64_t((int64_t{1} << 62) + (int64_t{1} << 38) * (2 * (r % 16) + 1));
        break;
      default:
        code = r;
        break;
    }
    tilesim::ops::store_code(core_dtype(e), p, i, code);
  }
}

TEST(PtoTcvtDifferential, FastEqualsReferenceForEveryPairModeSaturationAndTarget) {
  std::mt19937 g(7);
  size_t runs = 0;
  for (const char* tn : {"a2a3", "a5", "cpu"}) {
    const auto& t = find_target(tn);
    for (const auto& [se, de] : pairs_of(tn)) {
      // a strided valid region (dst wider than its valid columns) and a flat one
      for (int flat = 0; flat < 2; ++flat) {
        const int R = 5, C = flat ? 64 : 45;
        HostTile src(se, R, 64, true, R, C), dst(de, R, flat ? 64 : 96, true, R, C);
        HostTile tmp(Elem::s32, 4, 128, true);
        const size_t half_n = size_t(R) * 64 / 2;
        fill_random(g, se, src.bytes.data(), half_n);
        fill_ties(g, se, src.bytes.data() + half_n * elem_size(se), size_t(R) * 64 - half_n);
        for (uint8_t mode = 0; mode <= 6; ++mode)
          for (int8_t sat = -1; sat <= 1; ++sat)
            for (int with_tmp = 0; with_tmp < 2; ++with_tmp)
              for (int ctrl = 0; ctrl < 2; ++ctrl) {
                const Call call{.instr = Instr::TCVT,
                                .dst = &dst.d,
                                .src0 = &src.d,
                                .tmp = with_tmp ? &tmp.d : nullptr,
                                .round = mode,
                                .sat = sat,
                                .need_set_ctrl = ctrl == 1};
                std::fill(dst.bytes.begin(), dst.bytes.end(), uint8_t(0xA5));
                execute(call, t, Ub{}, Path::Fast);
                const std::vector<uint8_t> fast = dst.bytes;
                std::fill(dst.bytes.begin(), dst.bytes.end(), uint8_t(0xA5));
                execute(call, t, Ub{}, Path::Reference);
                ASSERT_EQ(fast, dst.bytes)
                    << tn << " " << elem_name(se) << " -> " << elem_name(de) << " mode "
                    << int(mode) << " sat " << int(sat) << " tmp " << with_tmp << " ctrl " << ctrl;
                for (int r = 0; r < R; ++r)  // nothing outside the valid region
                  for (int c = C; c < dst.d.cols; ++c)
                    ASSERT_EQ(load(dst, r, c), 0xA5A5A5A5A5A5A5A5ull & mask_of(de));
                ++runs;
              }
        EXPECT_EQ(tmp.bytes, std::vector<uint8_t>(tmp.bytes.size(), 0));
      }
    }
  }
  EXPECT_GT(runs, 10000u);
}

// Per element, the tile result is the core's cast_one with the mode the rules resolve to (here:
// the defaults of each pair, checked on every element of a random tile) — the walker adds nothing.
TEST(PtoTcvtDifferential, DefaultsAreCastOneOfEachElement) {
  std::mt19937 g(11);
  for (const auto& [se, de] : pairs_of("cpu")) {
    HostTile src(se, 3, 64, true, 3, 50), dst(de, 3, 64, true, 3, 50);
    fill_random(g, se, src.bytes.data(), 3 * 64);
    execute({.instr = Instr::TCVT, .dst = &dst.d, .src0 = &src.d, .round = NONE},
            find_target("cpu"), Ub{});
    const bool narrow = (se == E::f16 && (de == E::u8 || de == E::s8 || de == E::s16)) ||
                        (se == E::f32 && de == E::s16) || (se == E::s64 && de == E::s32) ||
                        (se == E::s32 && de == E::s16);  // kIsNarrowingCvt
    const bool f2i = elem_is_float(se) && !elem_is_float(de);
    tilesim::ops::CastMode m{
        f2i ? tilesim::formats::Rounding::rtz : tilesim::formats::Rounding::rne, !narrow, false};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 50; ++c) {
        const uint64_t in = load(src, r, c);
        const uint64_t want = se == de
                                  ? tilesim::ops::to_integral_one(core_dtype(se), in, m.rounding)
                                  : tilesim::ops::cast_one(core_dtype(se), core_dtype(de), in, m);
        ASSERT_EQ(load(dst, r, c), want)
            << elem_name(se) << " -> " << elem_name(de) << " in " << std::hex << in;
      }
  }
}

// Large tiles run on several threads; the bits do not depend on the count (spec 00).
TEST(PtoTcvtDifferential, ThreadCountDoesNotChangeBits) {
  std::mt19937 g(5);
  HostTile src(E::f32, 512, 640, true, 512, 600), a(E::f16, 512, 640, true, 512, 600);
  HostTile b = a, t16(E::s16, 512, 640, true, 512, 600), u16 = t16;
  fill_random(g, E::f32, src.bytes.data(), 512 * 640);
  HostTile tmp(E::s32, 160, 1024, true);  // TCVT.md tail bytes: 32*(254*640/8 + 3) = 650336
  for (size_t n : {size_t(1), size_t(3)}) {
    tilesim::set_num_threads(n);
    HostTile& d = n == 1 ? a : b;
    execute({.instr = Instr::TCVT, .dst = &d.d, .src0 = &src.d, .round = ODD}, find_target("a5"),
            Ub{});
    HostTile& e = n == 1 ? t16 : u16;
    execute({.instr = Instr::TCVT, .dst = &e.d, .src0 = &src.d, .tmp = &tmp.d, .round = FLOOR},
            find_target("a2a3"), Ub{});
  }
  tilesim::set_num_threads(0);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(t16.bytes, u16.bytes);
}

}  // namespace
