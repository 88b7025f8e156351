// One test per rejection of spec 50 §4 / §5: the error code, the message (instruction, operand,
// rule, values, spec section) and unchanged local memory.
#include <algorithm>

#include "tpu_test_util.hpp"

using namespace tpu_test;
using tilesim::ErrorCode;
using tilesim::tpu::scalar_bits;
using tilesim::tpu::tensor;
using tilesim::tpu::vector;

namespace {

struct Fixture : ::testing::Test {
  Device d{"bm1684x"};
  dim4 s = shape4(1, 4, 2, 8);
  variable_t t0 = tensor(0), t1 = tensor(4096), t2 = tensor(8192), t3 = tensor(12288);
  void SetUp() override {
    // Non-zero memory, so "unchanged" is meaningful.
    for (size_t i = 0; i < d.memory().size(); i += 97) d.memory()[i] = uint8_t(i * 31 + 7);
  }
  void gs(local_addr_t dst, const variable_t* a, const variable_t* b, const variable_t* c,
          const variable_t* e, const dim4* sh, data_type_t x = DT_FP32, data_type_t y = DT_FP32) {
    d.greater_select(dst, a, b, c, e, sh, x, y);
  }
};

}  // namespace

TEST_F(Fixture, ShapeRange) {
  for (const dim4 bad :
       {shape4(0, 1, 1, 1), shape4(1, -3, 1, 1), shape4(1, 1, 65536, 1), shape4(1, 1, 1, 0)})
    expect_rejected(d, ErrorCode::Constraint,
                    {"tpu_bdc_greater_select: shape->", "must be in [1, 65535]", "[docs/tpu.md#checks]"},
                    [&] { gs(16384, &t0, &t1, &t2, &t3, &bad); });
  const dim4 bad = shape4(1, 1, 65536, 1);
  expect_rejected(d, ErrorCode::Constraint, {"shape->h must be in [1, 65535], got 65536"},
                  [&] { gs(16384, &t0, &t1, &t2, &t3, &bad); });
}

TEST_F(Fixture, SelectWidthRule) {
  expect_rejected(d, ErrorCode::Constraint,
                  {"tpu_bdc_less_select",
                   "bit width of src0_src1_dtype (32, DT_FP32 (fp32)) must be <= bit width of "
                   "dst_dtype (16, DT_FP16 (fp16))",
                   "[docs/tpu.md#checks]"},
                  [&] { d.less_select(16384, &t0, &t1, &t2, &t3, &s, DT_FP32, DT_FP16); });
}

TEST_F(Fixture, ExtremumWidthRule) {
  expect_rejected(
      d, ErrorCode::Constraint,
      {"tpu_bdc_maximum_greater_select",
       "bit width of dst0_dtype (16, DT_INT16 (s16)) must equal bit width of dst1_dtype (32, "
       "DT_INT32 (s32))"},
      [&] { d.maximum_greater_select(16384, 20480, &t0, &t1, &t2, &t3, &s, DT_INT16, DT_INT32); });
}

TEST_F(Fixture, SameStartNpu) {
  const variable_t other = tensor(3 * d.local_mem_size() + 4096);
  expect_rejected(
      d, ErrorCode::Constraint,
      {"src1 (TENSOR) starts on NPU 3 but dst on NPU 0", "must start on the same NPU", "[docs/tpu.md#checks]"},
      [&] { gs(16384, &t0, &other, &t2, &t3, &s); });
  const variable_t vec = vector(5 * d.local_mem_size());
  expect_rejected(d, ErrorCode::Constraint, {"src2 (VECTOR) starts on NPU 5"},
                  [&] { gs(16384, &t0, &t1, &vec, &t3, &s); });
  expect_rejected(d, ErrorCode::Constraint,
                  {"tpu_bdc_minimum_less_select: dst1 starts on NPU 1 but dst0 on NPU 0"}, [&] {
                    d.minimum_less_select(16384, d.local_mem_size() + 20480, &t0, &t1, &t2, &t3, &s,
                                          DT_FP32, DT_FP32);
                  });
}

TEST_F(Fixture, DstAlignment) {
  expect_rejected(
      d, ErrorCode::Constraint,
      {"dst in-NPU offset 0x4020 must be a multiple of ALIGN_BYTES 64 (bm1684x, 64-byte aligned layout)", "[docs/tpu.md#checks]"},
      [&] { gs(16384 + 32, &t0, &t1, &t2, &t3, &s); });
  expect_rejected(
      d, ErrorCode::Constraint, {"dst1 in-NPU offset 0x5004 must be a multiple of ALIGN_BYTES 64"},
      [&] { d.maximum_greater_select(16384, 20484, &t0, &t1, &t2, &t3, &s, DT_FP32, DT_FP32); });
  // bm1688 aligns to 16 bytes: 16 is fine there.
  Device e("bm1688");
  const variable_t a = tensor(0), b = scalar_bits(0);
  EXPECT_NO_THROW(e.greater_select(16, &a, &b, &b, &b, &s, DT_FP32, DT_FP32));
}

TEST_F(Fixture, TensorAlignment) {
  const variable_t bad = tensor(4096 + 8);
  expect_rejected(d, ErrorCode::Constraint,
                  {"src3 (TENSOR) in-NPU offset 0x1008 must be a multiple of ALIGN_BYTES 64"},
                  [&] { gs(16384, &t0, &t1, &t2, &bad, &s); });
}

TEST_F(Fixture, VectorAlignment) {
  const variable_t ok = vector(4096 + 2), bad = vector(4096 + 3);
  expect_rejected(d, ErrorCode::Constraint,
                  {"src0 (VECTOR) in-NPU offset 0x1003 must be a multiple of the element size 2"},
                  [&] { gs(16384, &bad, &t1, &t2, &t3, &s, DT_FP16, DT_FP16); });
  EXPECT_NO_THROW(gs(16384, &ok, &t1, &t2, &t3, &s, DT_FP16, DT_FP16));
}

TEST_F(Fixture, BoundsTensor) {
  // 1 x 64 x 256 x 256 fp32: one channel per NPU, 256 KiB each: starts at 0 fits exactly ...
  const dim4 big = shape4(1, 64, 256, 256);
  const variable_t z = tensor(0), sc = scalar_bits(0);
  EXPECT_NO_THROW(gs(0, &z, &sc, &sc, &sc, &big));
  // ... but not at 64.
  const variable_t z64 = tensor(64);
  expect_rejected(d, ErrorCode::Bounds,
                  {"src0 (TENSOR) touches in-NPU bytes [0x40, 0x40040)",
                   "beyond LOCAL_MEM_SIZE 0x40000", "[docs/tpu.md#checks]"},
                  [&] { gs(0, &z64, &sc, &sc, &sc, &big); });
  expect_rejected(d, ErrorCode::Bounds, {"dst touches in-NPU bytes [0x40, 0x40040)"},
                  [&] { gs(64, &z, &sc, &sc, &sc, &big); });
  // Start NPU 1 pushes channel 63 to slot 1 of NPU 0: 2 x 256 KiB needed.
  const variable_t q1 = tensor(d.local_mem_size());
  expect_rejected(d, ErrorCode::Bounds,
                  {"touches in-NPU bytes [0x0, 0x80000)", "starting on NPU 1"},
                  [&] { gs(d.local_mem_size(), &q1, &sc, &sc, &sc, &big); });
}

TEST_F(Fixture, BoundsAddress) {
  const local_addr_t end = 64u * d.local_mem_size();
  const variable_t far = tensor(end);
  expect_rejected(d, ErrorCode::Bounds,
                  {"dst address 0x1000000 is outside local memory (NPU_NUM 64 x LOCAL_MEM_SIZE "
                   "262144 = 16777216 bytes)"},
                  [&] { gs(end, &t0, &t1, &t2, &t3, &s); });
  expect_rejected(d, ErrorCode::Bounds, {"src2 (TENSOR) address 0x1000000 is outside local memory"},
                  [&] { gs(0, &t0, &t1, &far, &t3, &s); });
}

TEST_F(Fixture, VectorAtLastElement) {
  // An element-aligned VECTOR always fits (LOCAL_MEM_SIZE is a multiple of every element size):
  // the last fp32 of each NPU is legal and read by channel c from NPU c.
  const variable_t v = vector(d.local_mem_size() - 4), sc = scalar_bits(0);
  for (int c = 0; c < 4; ++c) {
    const float x = float(c + 1);
    std::memcpy(d.npu_memory(c).data() + d.local_mem_size() - 4, &x, 4);
  }
  d.greater_select(16384, &v, &sc, &v, &sc, &s, DT_FP32, DT_FP32);
  const auto out = get<float>(d, 16384, s, DT_FP32);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(out[size_t(c) * 16], float(c + 1));
}

TEST_F(Fixture, BadVarType) {
  variable_t bad = t1;
  const int three = 3;
  std::memcpy(&bad.type, &three, sizeof three);  // a value C code could store
  expect_rejected(
      d, ErrorCode::Constraint,
      {"src1->type must be TENSOR (0), SCALAR (1) or VECTOR (2), got 3", "[docs/tpu.md#checks]"},
      [&] { gs(16384, &t0, &bad, &t2, &t3, &s); });
}

TEST_F(Fixture, NullPointers) {
  expect_rejected(d, ErrorCode::Constraint, {"tpu_bdc_equal_select: src2 is NULL [docs/tpu.md#checks]"},
                  [&] { d.equal_select(16384, &t0, &t1, nullptr, &t3, &s, DT_FP32, DT_FP32); });
  expect_rejected(d, ErrorCode::Constraint, {"shape is NULL"},
                  [&] { gs(16384, &t0, &t1, &t2, &t3, nullptr); });
}

TEST_F(Fixture, UnsupportedDtypes) {
  for (data_type_t dt : {DT_INT4, DT_UINT4, DT_FP20, DT_TF32, DT_FP8E4M3, DT_FP8E5M2})
    expect_rejected(d, ErrorCode::Unsupported,
                    {"is not supported by the select instructions on bm1684x", "[docs/tpu.md#checks]"},
                    [&] { gs(16384, &t0, &t1, &t2, &t3, &s, dt, DT_INT32); });
  expect_rejected(
      d, ErrorCode::Unsupported,
      {"dst_dtype DT_FP8E4M3 (e4m3) is not supported by the select instructions on bm1684x"},
      [&] { gs(16384, &t0, &t1, &t2, &t3, &s, DT_INT8, DT_FP8E4M3); });
  Device m("bm1688");
  expect_rejected(m, ErrorCode::Unsupported,
                  {"src0_src1_dtype DT_FP8E5M2 (e5m2) is not supported", "on bm1688"},
                  [&] { m.greater_select(1024, &t0, &t1, &t0, &t0, &s, DT_FP8E5M2, DT_FP8E5M2); });
  Device b("bm1690");
  EXPECT_NO_THROW(b.greater_select(16384, &t0, &t1, &t2, &t3, &s, DT_FP8E5M2, DT_FP8E4M3));
  expect_rejected(b, ErrorCode::Unsupported, {"DT_INT4 (s4) is not supported", "on bm1690"},
                  [&] { b.greater_select(16384, &t0, &t1, &t2, &t3, &s, DT_INT4, DT_INT8); });
}

TEST_F(Fixture, Dst0Dst1Overlap) {
  expect_rejected(
      d, ErrorCode::Constraint,
      {"tpu_bdc_maximum_greater_select: dst0 and dst1 must not overlap: on NPU 0, dst0 "
       "(n 0, c 0) in-NPU bytes [0x4000, 0x4040) and dst1 (n 0, c 0) bytes [0x4000, "
       "0x4040) share bytes",
       "[docs/tpu.md#checks]"},
      [&] { d.maximum_greater_select(16384, 16384, &t0, &t1, &t2, &t3, &s, DT_FP32, DT_FP32); });
  // Partial overlap: dst1 starts half-way into dst0's only row.
  const dim4 row = shape4(1, 1, 1, 32);
  expect_rejected(d, ErrorCode::Constraint,
                  {"dst0 (n 0, c 0) in-NPU bytes [0x4000, 0x4080) and dst1 (n 0, c 0) bytes "
                   "[0x4040, 0x40c0) share bytes"},
                  [&] {
                    d.minimum_less_select(16384, 16384 + 64, &t0, &t1, &t2, &t3, &row, DT_FP32,
                                          DT_INT32);
                  });
}

// Start NPU 1 with C = 64 wraps channel 63 to slot 1 of NPU 0, so each NPU's byte hull of a
// [2, 64, 1, 1] fp32 tensor is [r, r + 196) with rows only at r + {0, 128} (NPUs 1..63) or
// r + {64, 192} (NPU 0). dst1 = dst0 + 64 puts every row of dst1 in a gap of dst0: no shared
// byte, so legal (spec 50 §3 forbids overlap, not interleaving) and computed correctly;
// dst1 = dst0 + 128 shares dst0's n = 1 rows and is rejected (NPU 0 is reported first).
TEST_F(Fixture, Dst0Dst1InterleavedWithoutOverlap) {
  const local_addr_t L = d.local_mem_size();  // NPU 1, offset 0
  const dim4 sh = shape4(2, 64, 1, 1);
  std::vector<float> a(128), b(128);
  for (int i = 0; i < 128; ++i) {
    a[size_t(i)] = float(i % 7) - 3;
    b[size_t(i)] = float(i % 5) - 2;
  }
  a[3] = 0.f;
  b[3] = -0.f;  // tie: dst0 takes src1's -0
  const variable_t x = tensor(L + 4096), y = tensor(L + 8192), i0 = scalar_bits(0),
                   i1 = scalar_bits(1);
  for (bool ref : {false, true}) {
    d.set_reference(ref);
    put(d, L + 4096, sh, a, DT_FP32);
    put(d, L + 8192, sh, b, DT_FP32);
    d.maximum_greater_select(L, L + 64, &x, &y, &i0, &i1, &sh, DT_FP32, DT_INT32);
    const auto v = get<uint32_t>(d, L, sh, DT_FP32);
    const auto idx = get<int32_t>(d, L + 64, sh, DT_INT32);
    for (size_t i = 0; i < 128; ++i) {
      const bool g = a[i] > b[i];
      EXPECT_EQ(v[i], f32_bits(g ? a[i] : b[i])) << "element " << i << " ref " << ref;
      EXPECT_EQ(idx[i], g ? 0 : 1) << "element " << i << " ref " << ref;
    }
  }
  expect_rejected(
      d, ErrorCode::Constraint,
      {"on NPU 0, dst0 (n 1, c 63) in-NPU bytes [0xc0, 0xc4) and dst1 (n 0, c 63) "
       "bytes [0xc0, 0xc4) share bytes",
       "shape [2, 64, 1, 1] starting on NPU 1", "[docs/tpu.md#checks]"},
      [&] { d.maximum_greater_select(L, L + 128, &x, &y, &i0, &i1, &sh, DT_FP32, DT_INT32); });
}

// The overlap rule against brute force: every byte of both destinations marked from the layout
// formula of spec 50 §1, over random shapes, start NPUs, widths and offsets on bm1688.
TEST(TpuChecks, Dst0Dst1OverlapMatchesByteMarking) {
  Device m("bm1688");
  const int npu = m.npu_num();
  const int64_t span = 16384;  // every placement below stays under this in-NPU offset
  std::vector<uint8_t> mark(size_t(npu) * span);
  uint64_t seed = 12345;
  auto rnd = [&](int64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return int64_t((seed >> 33) % uint64_t(n));
  };
  const data_type_t dts[3][2] = {{DT_INT8, DT_UINT8}, {DT_FP16, DT_INT16}, {DT_FP32, DT_INT32}};
  int accepted = 0, rejected = 0, interleaved = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    const int64_t q = rnd(npu), N = 1 + rnd(3), C = 1 + rnd(80), H = 1 + rnd(3), W = 1 + rnd(9);
    const int wi = int(rnd(3)), e = 1 << wi;
    const int64_t eu = m.align_bytes() / e, cs = (H * W + eu - 1) / eu * eu;
    const int64_t ns = (q + C + npu - 1) / npu * cs;
    // Half the placements put dst1 just after dst0, where interleaving happens.
    const int64_t r0 = rnd(256) * 16;
    const int64_t r[2] = {r0, iter % 2 ? r0 + rnd(24) * 16 : rnd(256) * 16};
    const int64_t extent = (N - 1) * ns * e + (q + C - 1) / npu * cs * e + H * W * e;
    if (extent + std::max(r[0], r[1]) > span) continue;
    std::fill(mark.begin(), mark.end(), 0);
    bool shared = false;
    for (int t = 0; t < 2; ++t)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t b = 0; b < H * W * e; ++b) {
            const int64_t k = (q + c) % npu, slot = (q + c) / npu;
            uint8_t& cell = mark[size_t(k * span + r[t] + (n * ns + slot * cs) * e + b)];
            if (t == 1 && cell) shared = true;
            cell = 1;
          }
    const variable_t sc = scalar_bits(0);
    const dim4 sh = shape4(int(N), int(C), int(H), int(W));
    const local_addr_t base = local_addr_t(q) * m.local_mem_size();
    try {
      m.maximum_greater_select(base + local_addr_t(r[0]), base + local_addr_t(r[1]), &sc, &sc, &sc,
                               &sc, &sh, dts[wi][0], dts[wi][1]);
      EXPECT_FALSE(shared) << "accepted overlapping dst0/dst1: q " << q << " shape " << N << "x"
                           << C << "x" << H << "x" << W << " e " << e << " r " << r[0] << ", "
                           << r[1];
      ++accepted;
      if (std::abs(r[0] - r[1]) < extent) ++interleaved;  // hulls overlap, bytes do not
    } catch (const tilesim::Error& err) {
      EXPECT_TRUE(shared) << err.what();
      EXPECT_NE(std::string(err.what()).find("must not overlap"), std::string::npos) << err.what();
      ++rejected;
    }
  }
  // Both outcomes were exercised, interleaved placements included.
  EXPECT_GT(accepted, 100);
  EXPECT_GT(rejected, 100);
  EXPECT_GT(interleaved, 20);
}

TEST_F(Fixture, UnknownChip) {
  try {
    Device bad("bm1686");
    FAIL();
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("bm1684x, bm1688, bm1690"), std::string::npos) << e.what();
  }
}

// ---- GDMA (spec 50 §5) ----
TEST_F(Fixture, GdmaRejections) {
  std::vector<float> host(64);
  const dim4 sh = shape4(1, 2, 4, 8);
  expect_rejected(d, ErrorCode::Constraint, {"tpu_gdma_cpy_S2L: src (system address) is NULL"},
                  [&] { d.gdma_cpy_S2L(0, nullptr, &sh, nullptr, nullptr, DT_FP32); });
  expect_rejected(d, ErrorCode::Bounds,
                  {"tpu_gdma_cpy_S2L: dst touches in-NPU bytes", "beyond LOCAL_MEM_SIZE"}, [&] {
                    d.gdma_cpy_S2L(d.local_mem_size() - 64, host.data(), &sh, nullptr, nullptr,
                                   DT_FP32);
                  });
  const dim4 neg{-1, 32, 8, 1};
  expect_rejected(d, ErrorCode::Constraint, {"dst_stride must be non-negative"},
                  [&] { d.gdma_cpy_S2L(0, host.data(), &sh, &neg, nullptr, DT_FP32); });
  expect_rejected(
      d, ErrorCode::Constraint,
      {"tpu_gdma_cpy_L2S: src in-NPU offset 0x2 must be a multiple of the element size 4"},
      [&] { d.gdma_cpy_L2S(host.data(), 2, &sh, nullptr, nullptr, DT_FP32); });
  expect_rejected(d, ErrorCode::Unsupported,
                  {"dtype DT_INT4 (s4) is not an 8-, 16- or 32-bit type"},
                  [&] { d.gdma_cpy_S2L(0, host.data(), &sh, nullptr, nullptr, DT_INT4); });
  const dim4 zero = shape4(1, 0, 1, 1);
  expect_rejected(d, ErrorCode::Constraint, {"shape->c must be in [1, 65535], got 0"},
                  [&] { d.gdma_cpy_S2L(0, host.data(), &zero, nullptr, nullptr, DT_FP32); });
}
