// Randomized differential tests (spec 70 item 5): the fast path against the scalar reference,
// bit for bit, over dtype x op x product x mask kind (bits, continuous, register, counter) x
// strides (srcBlkStride 0, srcRepStride < 8 overlaps of reads, dstRepStride 0) x thread counts.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tilesim/ascendc/engine.hpp"
#include "tilesim/error.hpp"
#include "tilesim/parallel.hpp"

namespace ts = tilesim::ascendc;

namespace {

// Interesting element codes: specials, saturation-prone magnitudes, subnormals, random.
uint32_t random_code(std::mt19937_64& g, ts::Elem t) {
  const unsigned pick = g() % 16;
  if (t == ts::Elem::f16) {
    static const uint16_t special[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7D01, 0x0001,
                                       0x83FF, 0x7BFF, 0xFBFF, 0x7A00, 0xF800, 0x3C00, 0x0400};
    if (pick < 3) return special[g() % 14];
    if (pick < 7) return (0x7000 + g() % 0xB00) | (g() & 1 ? 0x8000 : 0);  // large: saturation
    if (pick < 9) return g() % 0x400 | (g() & 1 ? 0x8000 : 0);             // subnormal
    return g() & 0xFFFF;
  }
  static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,
                                     0x7FC00000u, 0x7F800001u, 0x00000001u, 0x807FFFFFu,
                                     0x7F7FFFFFu, 0xFF7FFFFFu};
  if (pick < 3) return special[g() % 10];
  if (pick < 6) return (0x7E000000u + uint32_t(g() % 0x1800000u)) | (g() & 1 ? 0x80000000u : 0);
  if (pick < 8) return uint32_t(g() % 0x800000u) | (g() & 1 ? 0x80000000u : 0);
  if (pick < 12)
    return (0x3F800000u + uint32_t(g() % 0x800000u)) |
           (g() & 1 ? 0x80000000u : 0);  // [1,2): rounding
  return uint32_t(g());
}

struct Case {
  const ts::Product* product;
  bool sat;
  ts::MaskRegister reg;
  ts::ReduceCall call;
  std::vector<uint8_t> src, dst;
  bool in_place = false;
  std::string describe() const {
    return std::string(product->name) + " " + ts::name(call.op) + "<" + ts::name(call.elem) +
           "> rep " + std::to_string(call.repeat) + " strides (" +
           std::to_string(call.dst_rep_stride) + "," + std::to_string(call.src_blk_stride) + "," +
           std::to_string(call.src_rep_stride) + ") mask kind " +
           std::to_string(int(call.mask.kind)) + " set " + std::to_string(call.mask.set_mask) +
           " counter " + std::to_string(reg.counter) + " count " + std::to_string(reg.lo) +
           (in_place ? " in-place" : "");
  }
};

Case random_case(std::mt19937_64& g, bool big, bool full = false) {
  Case c;
  const auto prods = ts::products();
  do c.product = &prods[g() % prods.size()];
  while (!c.product->block_reduce);
  c.call.elem = (!c.product->f32 || g() % 2) ? ts::Elem::f16 : ts::Elem::f32;
  c.call.op = ts::ReduceOp(g() % 3);
  c.sat = g() % 4 != 0;
  const ts::Elem t = c.call.elem;
  const unsigned E = ts::block_elems(t), per = ts::repeat_elems(t), sz = ts::elem_bytes(t);
  // Strides: include 0, small overlapping read strides, and gaps.
  static const int64_t blk[] = {0, 1, 1, 1, 2, 3};
  static const int64_t rep[] = {0, 1, 2, 7, 8, 8, 8, 9, 16};
  c.call.src_blk_stride = blk[g() % 6];
  c.call.src_rep_stride = rep[g() % 9];
  c.call.dst_rep_stride = c.product->dst_rep_stride0 ? int64_t(g() % 3) : int64_t(1 + g() % 2);
  const unsigned kind = big ? 4 : unsigned(g() % 5);  // big: counter mode, many repeats
  c.call.repeat = g() % 6 == 0 ? 255 : int64_t(g() % 40);
  if (full) {  // every element active: the fast path's direct-load modes
    c.call.mask.kind = ts::MaskArg::Kind::Continuous;
    c.call.mask.len = per;
    c.call.mask.set_mask = true;
  } else if (kind == 0) {  // continuous
    c.call.mask.kind = ts::MaskArg::Kind::Continuous;
    c.call.mask.len = 1 + int64_t(g() % per);
    if (g() % 4 == 0) c.call.mask.len = per;
  } else if (kind == 1 || kind == 2) {  // bits: dense, sparse, or block-structured
    c.call.mask.kind = ts::MaskArg::Kind::Bits;
    uint64_t w[2];
    for (auto& x : w) {
      const unsigned style = g() % 4;
      x = style == 0   ? g()
          : style == 1 ? (g() & g() & g())
          : style == 2 ? ~uint64_t{0}
                       : (g() & 0xFFFF00FF00FF0000ull);
    }
    if (t == ts::Elem::f32) w[1] = 0;
    if (w[0] == 0 && w[1] == 0) w[0] = 1;
    c.call.mask.bits[0] = w[0];
    c.call.mask.bits[1] = w[1];
  } else if (kind == 3) {  // isSetMask = false, normal register
    c.call.mask.set_mask = false;
    c.reg.lo = g() % 3 ? g() : ~uint64_t{0};
    c.reg.hi = t == ts::Elem::f32 ? g() : (g() % 3 ? g() : 0);  // float ignores hi
  } else {                                                      // counter mode
    c.call.mask.set_mask = false;
    c.reg.counter = true;
    c.reg.hi = 0;
    c.reg.lo = big ? 100000 + g() % 200000 : g() % (per * 40 + 1);
  }
  // Size src and dst to cover every access (plus slack), with random contents.
  const uint64_t R = c.reg.counter ? (c.reg.lo + per - 1) / per : uint64_t(c.call.repeat);
  const uint64_t src_elems =
      (R * c.call.src_rep_stride + 7 * c.call.src_blk_stride + 1) * E + E * (g() % 3);
  const uint64_t dst_elems = R * c.call.dst_rep_stride * 8 + 8 + g() % 5;
  c.src.resize(src_elems * sz);
  c.dst.resize(dst_elems * sz);
  for (uint64_t i = 0; i < src_elems; ++i) {
    const uint32_t v = random_code(g, t);
    std::memcpy(c.src.data() + i * sz, &v, sz);
  }
  for (uint64_t i = 0; i < dst_elems; ++i) {
    const uint32_t v = random_code(g, t);
    std::memcpy(c.dst.data() + i * sz, &v, sz);
  }
  return c;
}

// Runs one path on fresh copies; returns dst bytes (or the error text).
std::string run(const Case& c, ts::Path path, std::vector<uint8_t>& out, ts::MaskRegister& reg) {
  std::vector<uint8_t> src = c.src;
  out = c.dst;
  reg = c.reg;
  const unsigned sz = ts::elem_bytes(c.call.elem);
  try {
    if (c.in_place) {
      ts::Operand t{src.data(), 0, src.size() / sz};
      ts::block_reduce(*c.product, c.sat, reg, t, t, c.call, path);
      out = src;
    } else {
      ts::Operand d{out.data(), 0, out.size() / sz}, s{src.data(), 0, src.size() / sz};
      ts::block_reduce(*c.product, c.sat, reg, d, s, c.call, path);
    }
  } catch (const tilesim::Error& e) {
    return e.what();
  }
  return {};
}

void check_cases(uint64_t seed, int n, bool big, bool full = false) {
  std::mt19937_64 g(seed);
  int executed = 0;
  for (int i = 0; i < n; ++i) {
    Case c = random_case(g, big, full);
    if (!big && g() % 8 == 0) {  // the legal in-place pattern, on the src buffer
      c.in_place = true;
      c.call.dst_rep_stride = 1;
      c.call.src_blk_stride = 1;
      c.call.src_rep_stride = 8;
    }
    std::vector<uint8_t> ref, fast;
    ts::MaskRegister rr, rf;
    const std::string er = run(c, ts::Path::Reference, ref, rr);
    const std::string ef = run(c, ts::Path::Fast, fast, rf);
    ASSERT_EQ(er, ef) << c.describe();
    if (ref != fast) {
      const unsigned sz = ts::elem_bytes(c.call.elem);
      size_t k = 0;
      while (std::memcmp(&ref[k * sz], &fast[k * sz], sz) == 0) ++k;
      uint32_t a = 0, b = 0;
      std::memcpy(&a, &ref[k * sz], sz);
      std::memcpy(&b, &fast[k * sz], sz);
      FAIL() << "case " << i << ": " << c.describe() << "\n first difference at dst element " << k
             << ": reference 0x" << std::hex << a << ", fast 0x" << b;
    }
    ASSERT_EQ(rr.lo, rf.lo);
    ASSERT_EQ(rr.hi, rf.hi);
    if (er.empty()) ++executed;
  }
  EXPECT_GT(executed, n / 2);  // most random cases are legal and really executed
}

TEST(Differential, FastEqualsReferenceOneThread) {
  tilesim::set_num_threads(1);
  check_cases(1, 1500, false);
  tilesim::set_num_threads(0);
}

// Full masks with every stride pattern (contiguous stream, block-by-block loads, staging tails).
TEST(Differential, FullMasksAllStrides) {
  check_cases(11, 600, false, true);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    check_cases(12, 150, false, true);
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(Differential, FastEqualsReferenceManyThreads) {
  for (size_t threads : {2, 3, 4}) {
    tilesim::set_num_threads(threads);
    check_cases(100 + threads, 300, false);
    check_cases(200 + threads, 6, true);  // counter mode, 100k..300k elements: the threaded path
  }
  tilesim::set_num_threads(0);
}

// Every SIMD target compiled into the library (AVX3_DL ... SSE4, EMU128/SCALAR: the portable
// integer fp16 rounding is used where F16C is not) agrees with the reference.
TEST(Differential, EveryCompiledTarget) {
  tilesim::set_num_threads(1);
  int n = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    check_cases(300 + uint64_t(n), 250, false);
    ++n;
  }
  hwy::SetSupportedTargetsForTest(0);
  tilesim::set_num_threads(0);
  EXPECT_GE(n, 2);
}

// The reference and fast path agree for every thread count on one large call, and the
// result does not depend on the count.
TEST(Differential, ThreadCountInvariance) {
  std::mt19937_64 g(7);
  Case c = random_case(g, true);  // counter mode, >= 100k elements: several super-chunks, threaded
  ASSERT_TRUE(c.reg.counter);
  ASSERT_GE(c.reg.lo, 100000u);
  std::vector<uint8_t> first;
  for (size_t threads : {1, 2, 4, 8}) {
    tilesim::set_num_threads(threads);
    std::vector<uint8_t> out;
    ts::MaskRegister r;
    ASSERT_EQ(run(c, ts::Path::Fast, out, r), "") << c.describe();
    if (first.empty()) first = out;
    EXPECT_TRUE(out == first) << threads;
  }
  tilesim::set_num_threads(0);
}

}  // namespace
