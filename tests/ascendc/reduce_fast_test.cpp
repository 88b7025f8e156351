// The SIMD paths of the repeat sums and the high-level extremes (src/ascendc/reduce_repeat.cpp:
// repeat_sums over BlockReduceSum's fast path, the flat ReduceMax/ReduceMin over the element-op
// core's fold) against a scalar model written here from docs/ascendc.md#reductions, node by node:
// random codes mixed with NaN, ±0, ±Inf, subnormals and values whose sums overflow half, in both
// saturation modes, over continuous, bit and counter-mode masks, block and repeat strides, and
// counts beyond one 255-repeat instruction.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tilesim/ascendc/engine.hpp"
#include "tilesim/ascendc/vector.hpp"
#include "tilesim/formats.hpp"

namespace ts = tilesim::ascendc;
namespace fm = tilesim::formats;
using tilesim::formats::DType;

namespace {

constexpr uint64_t kSrc = 0, kDst = 96 * 1024, kTmp = 128 * 1024;  // UB byte addresses (192 KB UB)
constexpr uint64_t kSrcBytes = kDst - kSrc;

// ---- the model ----
struct Model {
  bool half;
  bool sat;
  unsigned es() const { return half ? 2 : 4; }
  float load(const uint8_t* p) const {
    if (half) {
      uint16_t c;
      std::memcpy(&c, p, 2);
      return fm::f16_to_f32(c);
    }
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  float add(float a, float b) const {  // one sum node: a T result (then the CTRL saturation)
    float s = a + b;
    if (!half) return s;
    s = fm::f16_to_f32(fm::f32_to_f16(s));
    if (sat && std::isnan(s)) return 0.0f;
    if (sat && std::isinf(s)) return s > 0 ? 65504.0f : -65504.0f;
    return s;
  }
  uint64_t code(float v) const {
    if (half) return fm::f32_to_f16(v);
    return std::isnan(v) ? 0x7FC00000u : fm::f32_to_bits(v);
  }
  float tree(std::vector<float> v) const {  // adjacent pairs, v.size() a power of two
    for (size_t w = v.size(); w > 1; w /= 2)
      for (size_t k = 0; k < w / 2; ++k) v[k] = add(v[2 * k], v[2 * k + 1]);
    return v[0];
  }
};

bool bit(const uint64_t m[2], unsigned i) {
  return (m[i / 64] >> (i % 64)) & 1;
}

// Random codes: a quarter special (NaN, ±Inf, ±0, subnormals, the largest finite values, whose sums
// overflow half), the rest random finite values of random sign and magnitude.
void fill(uint8_t* p, bool half, size_t n, std::mt19937_64& rng, bool big) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    if (half) {
      static const uint16_t sp[] = {0x7E00, 0x7C01, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001, 0x83FF,
                                    0x7BFF, 0xFBFF, 0x7800, 0x3C00};
      uint16_t c = r % 4 == 0 ? sp[(r >> 8) % 12]
                              : static_cast<uint16_t>((r >> 16) % (big ? 0x7C00 : 0x5800) | ((r >> 40) & 1) << 15);
      if (r % 4 != 0 && r % 97 == 1) c = sp[(r >> 8) % 12];
      std::memcpy(p + 2 * i, &c, 2);
    } else {
      static const uint32_t sp[] = {0x7FC00000u, 0x7F800001u, 0x7F800000u, 0xFF800000u, 0, 0x80000000u,
                                    1,           0x807FFFFFu, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x3F800000u};
      uint32_t c = r % 4 == 0 ? sp[(r >> 8) % 11]
                              : static_cast<uint32_t>((r >> 16) % (big ? 0x7F800000u : 0x4A000000u) |
                                                      ((r >> 50) & 1) << 31);
      std::memcpy(p + 4 * i, &c, 4);
    }
  }
}

// Mostly-finite codes (specials rare): sums stay finite often enough that a wrong node shows.
void fill_mild(uint8_t* p, bool half, size_t n, std::mt19937_64& rng) {
  fill(p, half, n, rng, false);
  for (size_t i = 0; i < n; ++i)
    if (rng() % 8 != 0) {  // replace most specials by ordinary values
      const uint64_t r = rng();
      if (half) {
        const uint16_t c = static_cast<uint16_t>((r >> 16) % 0x5800 | ((r >> 40) & 1) << 15);
        uint16_t old;
        std::memcpy(&old, p + 2 * i, 2);
        if ((old & 0x7C00) == 0x7C00 || old == 0x7BFF || old == 0xFBFF) std::memcpy(p + 2 * i, &c, 2);
      } else {
        const uint32_t c = static_cast<uint32_t>((r >> 16) % 0x4A000000u | ((r >> 50) & 1) << 31);
        uint32_t old;
        std::memcpy(&old, p + 4 * i, 4);
        if ((old & 0x7F800000u) == 0x7F800000u) std::memcpy(p + 4 * i, &c, 4);
      }
    }
}

struct ReduceFast : ::testing::Test {
  void SetUp() override { ts::set_product("atlas_a2"); }
  void TearDown() override { ts::set_product("atlas_a2"); }
  uint8_t* ub() { return ts::core().ub.data(); }
  uint64_t code_at(uint64_t addr, unsigned es) {
    uint64_t c = 0;
    std::memcpy(&c, ub() + addr, es);
    return c;
  }
};

// WholeReduceSum: every repeat's tree over its masked lanes (inactive lanes +0), written to
// dst + r * dstRepStride elements; repeats with no active lane write nothing.
TEST_F(ReduceFast, WholeReduceSumEqualsModel) {
  std::mt19937_64 rng(18);
  for (int iter = 0; iter < 400; ++iter) {
    const bool half = iter % 2 == 0;
    const Model m{half, (iter / 2) % 2 == 0};
    ts::core().saturation = m.sat;
    const DType t = half ? DType::fp16 : DType::fp32;
    const unsigned es = m.es(), P = 256 / es, E = 32 / es;
    const unsigned kind = rng() % 3;  // 0 continuous, 1 bits, 2 counter mode
    const uint64_t blk = kind == 2 ? 1 : 1 + rng() % 3, rep = kind == 2 ? 8 : rng() % 13;
    const uint64_t dst_rep = 1 + rng() % 2;
    uint64_t repeats = 1 + rng() % 255;
    const uint64_t reach = ((repeats - 1) * rep + 7 * blk + 1) * 32;
    if (reach > kSrcBytes) repeats = 1;
    fill(ub() + kSrc, half, kSrcBytes / es, rng, iter % 3 == 0);
    if (iter % 5 == 0) fill_mild(ub() + kSrc, half, kSrcBytes / es, rng);
    std::memset(ub() + kDst, 0xA5, 16384);
    ts::MaskArg arg;
    uint64_t mk[2] = {0, 0};
    uint64_t count = 0;
    if (kind == 0) {
      arg.kind = ts::MaskArg::Kind::Continuous;
      arg.len = 1 + int64_t(rng() % P);
      mk[0] = arg.len >= 64 ? ~uint64_t{0} : (uint64_t{1} << arg.len) - 1;
      mk[1] = arg.len > 64 ? (arg.len >= 128 ? ~uint64_t{0} : (uint64_t{1} << (arg.len - 64)) - 1) : 0;
    } else if (kind == 1) {
      arg.kind = ts::MaskArg::Kind::Bits;
      mk[0] = rng() & rng();
      if (rng() % 4 == 0) mk[0] = ~uint64_t{0};
      mk[1] = half ? rng() | rng() : 0;
      if (mk[0] == 0 && mk[1] == 0) mk[0] = 1;
      arg.bits[0] = mk[0];
      arg.bits[1] = mk[1];
      arg.words = half ? 2 : 1;
    } else {
      count = rng() % (std::min<uint64_t>(kSrcBytes / es, 255 * P) + 1);
      repeats = (count + P - 1) / P;
      arg.set_mask = false;
      ts::set_mask_count(ts::core().mask);
      ts::set_vector_mask_count(ts::core().mask, 0, int64_t(count));
    }
    const uint64_t dst_elems = 16384 / es;
    ts::whole_reduce(ts::ReduceOp::Sum, t, ts::UbRef{kDst, dst_elems}, ts::UbRef{kSrc, kSrcBytes / es}, arg,
                     int64_t(repeats), int64_t(dst_rep), int64_t(blk), int64_t(rep), ts::ReduceOrderKind::ONLY_VALUE,
                     "WholeReduceSum");
    if (kind == 2) ts::set_mask_norm(ts::core().mask);
    for (uint64_t r = 0; r < repeats; ++r) {
      std::vector<float> v(P, 0.0f);
      bool any = false;
      for (unsigned i = 0; i < P; ++i) {
        const bool on = kind == 2 ? r * P + i < count : bit(mk, i);
        if (!on) continue;
        any = true;
        v[i] = m.load(ub() + kSrc + ((r * rep + (i / E) * blk) * E + i % E) * es);
      }
      const uint64_t want = any ? m.code(m.tree(v)) : (half ? 0xA5A5u : 0xA5A5A5A5u);
      ASSERT_EQ(code_at(kDst + r * dst_rep * es, es), want)
          << "iter " << iter << " repeat " << r << " of " << repeats << " kind " << kind << " half " << half
          << " sat " << m.sat << " blk " << blk << " rep " << rep;
    }
  }
}

// ReduceSum: the count form accumulates the repeat sums in order from +0; the mask/repeat form
// sums them with trees of P (docs/ascendc.md#reducesum-reducemax-reducemin).
TEST_F(ReduceFast, ReduceSumEqualsModel) {
  std::mt19937_64 rng(1818);
  for (int iter = 0; iter < 300; ++iter) {
    const bool half = iter % 2 == 0;
    const Model m{half, (iter / 2) % 2 == 0};
    ts::core().saturation = m.sat;
    const DType t = half ? DType::fp16 : DType::fp32;
    const unsigned es = m.es(), P = 256 / es, E = 32 / es;
    const uint64_t max_elems = 32768 / es;  // the tmp area holds one sum per repeat
    fill(ub() + kSrc, half, kSrcBytes / es, rng, iter % 3 == 0);
    if (iter % 4 == 1) fill_mild(ub() + kSrc, half, kSrcBytes / es, rng);
    const bool count_form = iter % 3 != 2;
    std::vector<float> part;
    float want;
    if (count_form) {
      const uint64_t count = iter < 8 ? (iter < 4 ? 0 : P * (iter - 3)) : rng() % (kSrcBytes / es + 1);
      ts::reduce_count(ts::ReduceOp::Sum, t, ts::UbRef{kDst, 16}, ts::UbRef{kSrc, kSrcBytes / es},
                       ts::UbRef{kTmp, max_elems}, int64_t(count), false, true, "ReduceSum");
      if (count == 0) continue;
      want = 0.0f;
      for (uint64_t r = 0; r * P < count; ++r) {
        std::vector<float> v(P, 0.0f);
        for (unsigned i = 0; i < P && r * P + i < count; ++i) v[i] = m.load(ub() + kSrc + (r * P + i) * es);
        want = m.add(want, m.tree(v));
      }
    } else {
      const unsigned len = 1 + unsigned(rng() % P);
      const uint64_t rep = 1 + rng() % 12;
      const uint64_t repeats = 1 + rng() % std::min<uint64_t>(600, (kSrcBytes / 32 - 8) / rep);
      ts::MaskArg arg;
      arg.kind = ts::MaskArg::Kind::Continuous;
      arg.len = len;
      ts::reduce_repeat(ts::ReduceOp::Sum, t, ts::UbRef{kDst, 16}, ts::UbRef{kSrc, kSrcBytes / es},
                        ts::UbRef{kTmp, max_elems}, arg, int64_t(repeats), int64_t(rep), false, "ReduceSum");
      for (uint64_t r = 0; r < repeats; ++r) {
        std::vector<float> v(P, 0.0f);
        for (unsigned i = 0; i < len; ++i) v[i] = m.load(ub() + kSrc + (r * rep * E + i) * es);
        part.push_back(m.tree(v));
      }
      if (repeats == 1) {
        want = part[0];
      } else {
        std::vector<float> g;
        for (uint64_t j = 0; j * P < repeats; ++j) {
          std::vector<float> v(P, 0.0f);
          for (unsigned i = 0; i < P && j * P + i < repeats; ++i) v[i] = part[j * P + i];
          g.push_back(m.tree(v));
        }
        std::vector<float> v(P, 0.0f);
        for (size_t i = 0; i < g.size(); ++i) v[i] = g[i];
        want = g.size() == 1 ? g[0] : m.tree(v);
        // The work buffer: the group sums over the first repeat sums.
        for (uint64_t r = 0; r < repeats; ++r) {
          const float x = r < g.size() ? g[r] : part[r];
          ASSERT_EQ(code_at(kTmp + r * es, es), m.code(x)) << "iter " << iter << " work " << r;
        }
      }
    }
    ASSERT_EQ(code_at(kDst, es), m.code(want)) << "iter " << iter << " half " << half << " sat " << m.sat;
  }
}

// ReduceMax / ReduceMin, count form: the first NaN wins (canonical NaN), max(-0, +0) = +0 and
// min = -0, the smallest index of the extreme, -0 and +0 tying.
TEST_F(ReduceFast, ReduceMaxMinEqualsModel) {
  std::mt19937_64 rng(181818);
  for (int iter = 0; iter < 300; ++iter) {
    const bool half = iter % 2 == 0;
    const Model m{half, false};
    const DType t = half ? DType::fp16 : DType::fp32;
    const unsigned es = m.es();
    const bool max = (iter / 2) % 2 == 0;
    const uint64_t limit = half ? 65536 : kSrcBytes / es;  // half indices are 16-bit
    fill(ub() + kSrc, half, kSrcBytes / es, rng, true);
    if (iter % 3 != 0) fill_mild(ub() + kSrc, half, kSrcBytes / es, rng);
    if (iter % 7 == 0)  // only zeros of both signs, or one NaN late
      for (uint64_t i = 0; i < kSrcBytes / es; ++i) {
        const uint32_t z = (rng() % 2) ? (half ? 0x8000u : 0x80000000u) : 0u;
        std::memcpy(ub() + kSrc + i * es, &z, es);
      }
    const uint64_t count = 1 + rng() % std::min<uint64_t>(limit - 256, kSrcBytes / es);
    if (iter % 11 == 0) {
      const uint64_t c = half ? 0x7E00u : 0x7FC00000u;
      std::memcpy(ub() + kSrc + (count - 1) * es, &c, es);
    }
    ts::reduce_count(max ? ts::ReduceOp::Max : ts::ReduceOp::Min, t, ts::UbRef{kDst, 16},
                     ts::UbRef{kSrc, kSrcBytes / es}, ts::UbRef{kTmp, 32768 / es}, int64_t(count), true, true,
                     max ? "ReduceMax" : "ReduceMin");
    float best = m.load(ub() + kSrc);
    uint64_t idx = 0;
    for (uint64_t i = 1; i < count && !std::isnan(best); ++i) {
      const float v = m.load(ub() + kSrc + i * es);
      if (std::isnan(v) || (max ? v > best : v < best)) {
        best = v;
        idx = i;
      } else if (v == best && v == 0.0f && std::signbit(v) != std::signbit(best)) {
        best = max ? 0.0f : -0.0f;
      }
    }
    ASSERT_EQ(code_at(kDst, es), m.code(best)) << "iter " << iter << " count " << count;
    ASSERT_EQ(code_at(kDst + es, es), idx) << "iter " << iter << " count " << count;
  }
}

}  // namespace
