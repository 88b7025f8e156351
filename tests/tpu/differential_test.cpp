// Randomized differential tests (spec 70 item 5): the fast path (Highway SIMD + threads) against
// the scalar reference, over function x dtype pair x operand kinds x shapes x start NPU x chip x
// thread count, on random and edge codes (NaN, ±0, ±Inf, extremes, ties, subnormals).
#include <algorithm>
#include <random>

#include "tilesim/parallel.hpp"
#include "tpu_test_util.hpp"

using namespace tpu_test;
using tilesim::tpu::SelectOp;

namespace {

struct Pair {
  data_type_t a, b;
};
// select: width(a) <= width(b); extremum: width(a) == width(b). fp8 only runs on bm1690.
const Pair kSelectPairs[] = {
    {DT_INT8, DT_INT8},     {DT_UINT8, DT_INT8},   {DT_INT8, DT_INT32},   {DT_UINT8, DT_UINT16},
    {DT_INT16, DT_INT16},   {DT_UINT16, DT_FP16},  {DT_FP16, DT_FP16},    {DT_BFP16, DT_INT32},
    {DT_FP16, DT_FP32},     {DT_FP32, DT_FP32},    {DT_INT32, DT_UINT32}, {DT_UINT32, DT_FP32},
    {DT_FP8E4M3, DT_UINT8}, {DT_FP8E5M2, DT_FP16}, {DT_FP8E4M3, DT_FP32}, {DT_UINT8, DT_FP32},
};
const Pair kExtPairs[] = {
    {DT_INT8, DT_UINT8},    {DT_UINT8, DT_INT8},    {DT_FP16, DT_INT16},   {DT_BFP16, DT_UINT16},
    {DT_INT16, DT_FP16},    {DT_UINT16, DT_UINT16}, {DT_FP32, DT_INT32},   {DT_INT32, DT_FP32},
    {DT_UINT32, DT_UINT32}, {DT_FP8E4M3, DT_UINT8}, {DT_FP8E5M2, DT_INT8},
};
const dim4 kShapes[] = {
    {1, 1, 1, 1},   {1, 3, 1, 7},    {2, 67, 3, 5},    {1, 5, 8, 16},
    {3, 33, 2, 13}, {1, 70, 1, 100}, {2, 130, 16, 16},  // several plane chunks: exercises the
                                                        // threads
};

bool is_fp8(data_type_t d) {
  return d == DT_FP8E4M3 || d == DT_FP8E5M2;
}
int bytes_of(data_type_t d) {
  switch (d) {
    case DT_INT8:
    case DT_UINT8:
    case DT_FP8E4M3:
    case DT_FP8E5M2:
      return 1;
    case DT_INT16:
    case DT_UINT16:
    case DT_FP16:
    case DT_BFP16:
      return 2;
    default:
      return 4;
  }
}

// Edge codes per dtype: zeros of both signs, infinities, NaNs (quiet and payload), ±1, ±max,
// smallest subnormals; integer extremes.
std::vector<uint32_t> pool(data_type_t d) {
  switch (d) {
    case DT_FP32:
      return {0,          0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFF800001,
              0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 1,          0x80000001};
    case DT_FP16:
      return {0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFC01, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF, 1, 0x8001};
    case DT_BFP16:
      return {0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFF81, 0x3F80, 0xBF80, 0x7F7F, 0xFF7F, 1, 0x8001};
    case DT_FP8E4M3:
      return {0, 0x80, 0x7F, 0xFF, 0x7E, 0xFE, 0x38, 0xB8, 0x01, 0x81, 0x08, 0x88};
    case DT_FP8E5M2:
      return {0, 0x80, 0x7C, 0xFC, 0x7E, 0xFD, 0x3C, 0xBC, 0x7B, 0xFB, 0x01, 0x81};
    default: {
      const int bits = bytes_of(d) * 8;
      const uint32_t sign = 1u << (bits - 1), all = bits == 32 ? ~0u : (1u << bits) - 1;
      return {0, 1, 2, all, all - 1, sign, sign - 1, sign + 1};
    }
  }
}

struct Gen {
  std::mt19937 rng{20261202};
  uint32_t code(data_type_t d) {
    const int bits = bytes_of(d) * 8;
    const uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1;
    const unsigned r = rng() % 10;
    if (r < 4) {
      const auto p = pool(d);
      return p[rng() % p.size()];
    }
    if (r < 6) return static_cast<uint32_t>(rng() % 4) | (rng() % 2 ? (1u << (bits - 1)) : 0);
    return static_cast<uint32_t>(rng()) & mask;
  }
  void fill(uint8_t* p, size_t bytes, data_type_t d) {
    const int e = bytes_of(d);
    for (size_t i = 0; i + e <= bytes; i += e) {
      const uint32_t c = code(d);
      std::memcpy(p + i, &c, e);
    }
  }
};

// Independent of src/tpu: the aligned-layout extent of spec 50 §1, per NPU.
int64_t extent(const dim4& s, int64_t q, int e, int align, int npu) {
  const int64_t hw = int64_t(s.h) * s.w, eu = align / e;
  const int64_t cs = (hw + eu - 1) / eu * eu, ns = (q + s.c + npu - 1) / npu * cs;
  return ((s.n - 1) * ns + (q + s.c - 1) / npu * cs + hw) * e;
}

void run_chip(const char* chip, int cases_per_op) {
  Device fast(chip), ref(chip);
  ref.set_reference(true);
  const int NPU = fast.npu_num(), A = fast.align_bytes();
  const uint32_t LMS = fast.local_mem_size();
  Gen g;
  const SelectOp ops[] = {SelectOp::Greater, SelectOp::Less, SelectOp::Equal,
                          SelectOp::MaximumGreater, SelectOp::MinimumLess};
  int ran = 0;
  for (SelectOp op : ops) {
    const bool ext = op == SelectOp::MaximumGreater || op == SelectOp::MinimumLess;
    const Pair* pairs = ext ? kExtPairs : kSelectPairs;
    const size_t npairs = ext ? std::size(kExtPairs) : std::size(kSelectPairs);
    for (int k = 0; k < cases_per_op; ++k) {
      const Pair pr = pairs[g.rng() % npairs];
      if (is_fp8(pr.a) && std::string(chip) != "bm1690") continue;
      const dim4 s = kShapes[g.rng() % std::size(kShapes)];
      const int64_t q = g.rng() % 2 ? 0 : 1 + g.rng() % (NPU - 1);
      const int ea = bytes_of(pr.a), eb = bytes_of(pr.b);
      tilesim::set_num_threads(1 + g.rng() % 4);
      // Place operands one after another inside each NPU, each start aligned.
      int64_t cursor = A * int64_t(g.rng() % 3);
      variable_t v[4];
      int64_t lo[6], hi[6];
      data_type_t dts[6];
      auto place = [&](int slot, int64_t bytes, data_type_t dt) {
        lo[slot] = cursor;
        hi[slot] = cursor + bytes;
        dts[slot] = dt;
        cursor = (hi[slot] + A - 1) / A * A;
        return static_cast<local_addr_t>(q * LMS + lo[slot]);
      };
      for (int i = 0; i < 4; ++i) {
        const data_type_t dt = i < 2 ? pr.a : pr.b;
        const int e = i < 2 ? ea : eb;
        const unsigned kind = g.rng() % 6;  // TENSOR half the time
        if (kind < 3) {
          v[i] = tilesim::tpu::tensor(place(i, extent(s, q, e, A, NPU), dt));
        } else if (kind < 5) {
          // Random high bits above the operand's width: only the low bits count (spec 50 §2).
          uint32_t bits = g.code(dt);
          if (e < 4) bits |= static_cast<uint32_t>(g.rng()) << (8 * e);
          v[i] = tilesim::tpu::scalar_bits(bits);
          lo[i] = hi[i] = 0;
        } else {
          // VECTOR: element-aligned, deliberately not ALIGN_BYTES-aligned.
          lo[i] = cursor + e;
          hi[i] = lo[i] + e;
          dts[i] = dt;
          cursor = (hi[i] + A - 1) / A * A;
          v[i] = tilesim::tpu::vector(static_cast<local_addr_t>(q * LMS + lo[i]));
        }
      }
      const int e0 = ext ? ea : eb;
      local_addr_t d0 = place(4, extent(s, q, e0, A, NPU), ext ? pr.a : pr.b);
      local_addr_t d1 = ext ? place(5, extent(s, q, eb, A, NPU), pr.b) : 0;
      // Sometimes in place (dst over a TENSOR source of the same width) or overlapping a
      // source of another width (staged).
      const unsigned alias = g.rng() % 4;
      if (alias == 0 && v[ext ? 0 : 2].type == TENSOR) d0 = v[ext ? 0 : 2].context.addr;
      if (alias == 1 && !ext && v[0].type == TENSOR) d0 = v[0].context.addr;
      if (alias == 2 && ext && v[3].type == TENSOR) d1 = v[3].context.addr;
      if (cursor > LMS) continue;
      // Same random bytes in both devices (every NPU, the whole used range).
      for (int n = 0; n < NPU; ++n) {
        uint8_t* base = fast.npu_memory(n).data();
        for (int i = 0; i < 6; ++i)
          if (hi[i] > lo[i] && (i < 4 ? v[i].type != SCALAR : (i == 4 || ext)))
            g.fill(base + lo[i], size_t(hi[i] - lo[i]), dts[i]);
        std::memcpy(ref.npu_memory(n).data(), base, size_t(cursor));
      }
      SCOPED_TRACE(::testing::Message()
                   << chip << " " << tilesim::tpu::instruction_name(op) << " dtypes " << pr.a << ","
                   << pr.b << " shape [" << s.n << "," << s.c << "," << s.h << "," << s.w
                   << "] q=" << q << " kinds " << v[0].type << v[1].type << v[2].type << v[3].type
                   << " alias " << alias);
      fast.select(op, d0, d1, &v[0], &v[1], &v[2], &v[3], &s, pr.a, pr.b);
      ref.select(op, d0, d1, &v[0], &v[1], &v[2], &v[3], &s, pr.a, pr.b);
      for (int n = 0; n < NPU; ++n) {
        const std::span<const uint8_t> fm = std::as_const(fast).npu_memory(n), rm = std::as_const(ref).npu_memory(n);
        if (std::memcmp(fm.data(), rm.data(), size_t(cursor))) {
          size_t b = 0;
          while (fm[b] == rm[b]) ++b;
          FAIL() << "NPU " << n << " byte 0x" << std::hex << b << ": fast 0x" << int(fm[b]) << " ref 0x"
                 << int(rm[b]);
        }
      }
      ++ran;
    }
  }
  tilesim::set_num_threads(0);
  // Nothing was written outside the compared ranges, on any NPU.
  EXPECT_TRUE(std::equal(fast.memory().begin(), fast.memory().end(), ref.memory().begin()));
  EXPECT_GT(ran, cases_per_op * 2);
}

}  // namespace

TEST(TpuDifferential, Bm1684x) {
  run_chip("bm1684x", 80);
}
TEST(TpuDifferential, Bm1688) {
  run_chip("bm1688", 80);
}
TEST(TpuDifferential, Bm1690) {
  run_chip("bm1690", 80);
}
