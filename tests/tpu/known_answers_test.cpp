// Known answers computed by hand from the formulas of seed 001 / spec 50 §3 (each row says why).
#include <cmath>

#include "tpu_test_util.hpp"

using namespace tpu_test;
using tilesim::tpu::scalar_bits;
using tilesim::tpu::scalar_f32;
using tilesim::tpu::tensor;
using tilesim::tpu::vector;

namespace {

constexpr float kNaN = NAN;
// Four TENSOR operands of 1x1x1x6 fp32 at NPU 0, offsets 0, 1K, 2K, 3K; dst at 4K (and 5K).
constexpr local_addr_t A0 = 0, A1 = 1024, A2 = 2048, A3 = 3072, D0 = 4096, D1 = 5120;

struct Fp32Case {
  tilesim::tpu::SelectOp op;
  std::vector<float> s0, s1;
  std::vector<uint32_t> dst0;  // expected bits (select: dst; extremum: dst0)
  std::vector<uint32_t> dst1;  // extremum only
  const char* why;
};

}  // namespace

TEST(TpuKnownAnswers, Fp32AllTensor) {
  using Op = tilesim::tpu::SelectOp;
  const std::vector<float> s2 = {10, 11, 12, 13, 14, 15}, s3 = {20, 21, 22, 23, 24, 25};
  const uint32_t P0 = 0x00000000, N0 = 0x80000000;
  auto b = [](float f) { return f32_bits(f); };
  const Fp32Case cases[] = {
      {Op::Greater,
       {1, 2, kNaN, -0.f, 3, INFINITY},
       {0, 2, 1, 0.f, 5, 1e38f},
       {b(10), b(21), b(22), b(23), b(24), b(15)},
       {},
       "1>0, 2>2 no, NaN>1 no, -0>+0 no, 3>5 no, inf>1e38"},
      {Op::Less,
       {1, 2, kNaN, -0.f, 3, -INFINITY},
       {0, 2, 1, 0.f, 5, -1e38f},
       {b(20), b(21), b(22), b(23), b(14), b(15)},
       {},
       "NaN<1 no, -0<+0 no, 3<5, -inf<-1e38"},
      {Op::Equal,
       {1, 2, kNaN, -0.f, 3, kNaN},
       {0, 2, kNaN, 0.f, 5, 1},
       {b(20), b(11), b(22), b(13), b(24), b(25)},
       {},
       "2==2, NaN==NaN no, -0==+0 yes"},
      {Op::MaximumGreater,
       {3, 5, 5, -0.f, kNaN, 1},
       {4, 5, 2, 0.f, 1, kNaN},
       {b(4), b(5), b(5), P0, b(1), 0x7FC00000},
       {b(20), b(21), b(12), b(23), b(24), b(25)},
       "ties and NaN go to src1/src3: max(-0,+0) = +0 bits of src1"},
      {Op::MinimumLess,
       {3, 5, 5, 0.f, kNaN, 1},
       {4, 5, 2, -0.f, 1, kNaN},
       {b(3), b(5), b(2), N0, b(1), 0x7FC00000},
       {b(10), b(21), b(22), b(23), b(24), b(25)},
       "min(+0,-0) = -0 bits of src1 (tie), NaN compare false"},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(k.why);
    Device d("bm1684x");
    const dim4 s = shape4(1, 1, 1, 6);
    put(d, A0, s, k.s0, DT_FP32);
    put(d, A1, s, k.s1, DT_FP32);
    put(d, A2, s, s2, DT_FP32);
    put(d, A3, s, s3, DT_FP32);
    const variable_t v0 = tensor(A0), v1 = tensor(A1), v2 = tensor(A2), v3 = tensor(A3);
    d.select(k.op, D0, D1, &v0, &v1, &v2, &v3, &s, DT_FP32, DT_FP32);
    EXPECT_EQ(get<uint32_t>(d, D0, s, DT_FP32), k.dst0);
    if (!k.dst1.empty()) {
      EXPECT_EQ(get<uint32_t>(d, D1, s, DT_FP32), k.dst1);
    }
  }
}

// SCALAR operands: the low bits of the union read as the operand's dtype (spec 50 §2).
TEST(TpuKnownAnswers, ScalarLowBits) {
  Device d;
  const dim4 s = shape4(1, 2, 1, 3);
  put(d, A0, s, std::vector<int8_t>{4, 5, 6, -7, 0, 127}, DT_INT8);
  // src1 = 0xABCD0005 read as int8 is 5; src2/src3 int16 take the low 16 bits.
  const variable_t v0 = tensor(A0), v1 = scalar_bits(0xABCD0005u), v2 = scalar_bits(0x12340111u),
                   v3 = scalar_bits(0xFFFF8000u);
  d.greater_select(D0, &v0, &v1, &v2, &v3, &s, DT_INT8, DT_INT16);
  EXPECT_EQ(get<int16_t>(d, D0, s, DT_INT16),
            (std::vector<int16_t>{-32768, -32768, 0x0111, -32768, -32768, 0x0111}));
}

// Signed vs unsigned: the same bits compare differently (spec 50 §3).
TEST(TpuKnownAnswers, SignedVersusUnsigned) {
  struct Row {
    data_type_t dt;
    uint32_t a, b;
    bool greater;
    const char* why;
  };
  const Row rows[] = {
      {DT_INT8, 0x80, 0x01, false, "int8 -128 > 1 no"},
      {DT_UINT8, 0x80, 0x01, true, "uint8 128 > 1"},
      {DT_INT16, 0x8000, 0x7FFF, false, "int16 min > max no"},
      {DT_UINT16, 0x8000, 0x7FFF, true, "uint16 32768 > 32767"},
      {DT_INT32, 0x80000000, 0x7FFFFFFF, false, "int32 min > max no"},
      {DT_UINT32, 0xFFFFFFFF, 0x7FFFFFFF, true, "uint32 max > 2^31-1"},
      {DT_INT32, 0xFFFFFFFF, 0x00000000, false, "int32 -1 > 0 no"},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.why);
    Device d;
    const dim4 s = shape4(1, 1, 1, 1);
    const variable_t v0 = scalar_bits(r.a), v1 = scalar_bits(r.b), v2 = scalar_bits(1),
                     v3 = scalar_bits(2);
    d.greater_select(D0, &v0, &v1, &v2, &v3, &s, r.dt, DT_INT32);
    EXPECT_EQ(get<int32_t>(d, D0, s, DT_INT32)[0], r.greater ? 1 : 2);
  }
}

// fp8 codes on bm1690 (spec 10 §1 known values: e4m3 0x7E = 448, 0x7F NaN; e5m2 0x7C = +Inf).
TEST(TpuKnownAnswers, Fp8Codes) {
  struct Row {
    tilesim::tpu::SelectOp op;
    data_type_t dt;
    uint8_t a, b;
    bool taken;
    const char* why;
  };
  using Op = tilesim::tpu::SelectOp;
  const Row rows[] = {
      {Op::Greater, DT_FP8E4M3, 0x7E, 0x7D, true, "e4m3 448 > 416"},
      {Op::Greater, DT_FP8E4M3, 0x7F, 0x00, false, "e4m3 NaN > 0 no"},
      {Op::Less, DT_FP8E4M3, 0xFE, 0x7E, true, "e4m3 -448 < 448"},
      {Op::Equal, DT_FP8E4M3, 0x80, 0x00, true, "e4m3 -0 == +0"},
      {Op::Equal, DT_FP8E4M3, 0xFF, 0xFF, false, "e4m3 NaN == NaN no"},
      {Op::Greater, DT_FP8E5M2, 0x7C, 0x7B, true, "e5m2 +Inf > 57344"},
      {Op::Greater, DT_FP8E5M2, 0x7D, 0x00, false, "e5m2 0x7D NaN > 0 no"},
      {Op::Less, DT_FP8E5M2, 0xFC, 0xFB, true, "e5m2 -Inf < -57344"},
      {Op::Less, DT_FP8E5M2, 0x01, 0x80, false, "e5m2 2^-16 < -0 no"},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.why);
    Device d("bm1690");
    const dim4 s = shape4(1, 1, 1, 1);
    const variable_t v0 = scalar_bits(r.a), v1 = scalar_bits(r.b), v2 = scalar_bits(0xAA),
                     v3 = scalar_bits(0x55);
    d.select(r.op, D0, 0, &v0, &v1, &v2, &v3, &s, r.dt, DT_UINT8);
    EXPECT_EQ(get<uint8_t>(d, D0, s, DT_UINT8)[0], r.taken ? 0xAA : 0x55);
  }
}

// fp16 / bf16 NaN, ±0 and subnormals (codes by hand: fp16 0x7C01 NaN, 0x0001 = 2^-24).
TEST(TpuKnownAnswers, HalfFormats) {
  Device d;
  const dim4 s = shape4(1, 1, 1, 5);
  put(d, A0, s, std::vector<uint16_t>{0x7C01, 0x8000, 0x0001, 0xFC00, 0x3C00}, DT_FP16);
  put(d, A1, s, std::vector<uint16_t>{0x0000, 0x0000, 0x0000, 0xFBFF, 0x3C00}, DT_FP16);
  const variable_t v0 = tensor(A0), v1 = tensor(A1), v2 = scalar_bits(1), v3 = scalar_bits(0);
  d.greater_select(D0, &v0, &v1, &v2, &v3, &s, DT_FP16, DT_UINT16);
  EXPECT_EQ(get<uint16_t>(d, D0, s, DT_UINT16), (std::vector<uint16_t>{0, 0, 1, 0, 0}));
  d.equal_select(D0, &v0, &v1, &v2, &v3, &s, DT_FP16, DT_UINT16);
  EXPECT_EQ(get<uint16_t>(d, D0, s, DT_UINT16), (std::vector<uint16_t>{0, 1, 0, 0, 1}));
  // bf16: 0x7F81 NaN, 0xFF80 -Inf, 0x0001 smallest subnormal.
  put(d, A0, s, std::vector<uint16_t>{0x7F81, 0x8000, 0x0001, 0xFF80, 0x3F80}, DT_BFP16);
  put(d, A1, s, std::vector<uint16_t>{0x0000, 0x0000, 0x8001, 0xFF7F, 0x3F80}, DT_BFP16);
  d.less_select(D0, &v0, &v1, &v2, &v3, &s, DT_BFP16, DT_INT16);
  EXPECT_EQ(get<uint16_t>(d, D0, s, DT_INT16), (std::vector<uint16_t>{0, 0, 0, 1, 0}));
}

// VECTOR: element at offset r of NPU (q + c) % NPU_NUM, i.e. src(0, c mod NPU_NUM, 0, 0) of a
// [1, C, 1, 1] tensor (seed 001). bm1688 has 32 NPUs: channels 0 and 32 read the same element.
TEST(TpuKnownAnswers, VectorByNpu) {
  Device d("bm1688");
  const int C = 34;
  const dim4 s = shape4(1, C, 1, 2);
  std::vector<int32_t> x(count(s));
  for (int c = 0; c < C; ++c) x[2 * c] = c, x[2 * c + 1] = 100;
  put(d, A0, s, x, DT_INT32);
  // Vector: channel k holds 10 + k for k < 32 (written as a [1, 32, 1, 1] tensor).
  std::vector<int32_t> vec(32);
  for (int k = 0; k < 32; ++k) vec[k] = 10 + k;
  const dim4 vs = shape4(1, 32, 1, 1);
  put(d, A1, vs, vec, DT_INT32);
  const variable_t v0 = tensor(A0), v1 = vector(A1), v2 = vector(A1),
                   v3 = scalar_bits(uint32_t(-1));
  // dst = src0 < vec ? vec : -1
  d.less_select(D0, &v0, &v1, &v2, &v3, &s, DT_INT32, DT_INT32);
  const auto out = get<int32_t>(d, D0, s, DT_INT32);
  for (int c = 0; c < C; ++c) {
    const int vc = 10 + c % 32;
    EXPECT_EQ(out[2 * c], c < vc ? vc : -1) << "c=" << c;
    EXPECT_EQ(out[2 * c + 1], 100 < vc ? vc : -1) << "c=" << c;
  }
  EXPECT_EQ(out[0], 10);       // channel 0: 0 < 10, takes the vector value 10
  EXPECT_EQ(out[2 * 32], -1);  // channel 32 reads NPU 0's element again: 32 < 10 is false
}

// Hand example in the style of a kernel: int8 compare, int32 select (width rule 8 <= 32).
TEST(TpuKnownAnswers, Int8ToInt32) {
  Device d;
  const dim4 s = shape4(1, 1, 2, 2);
  put(d, A0, s, std::vector<int8_t>{-1, 0, 1, -128}, DT_INT8);
  const variable_t v0 = tensor(A0), v1 = scalar_bits(0), v2 = scalar_bits(0x01020304u),
                   v3 = scalar_bits(0xF0F0F0F0u);
  d.less_select(D0, &v0, &v1, &v2, &v3, &s, DT_INT8, DT_UINT32);
  EXPECT_EQ(get<uint32_t>(d, D0, s, DT_UINT32),
            (std::vector<uint32_t>{0x01020304u, 0xF0F0F0F0u, 0xF0F0F0F0u, 0x01020304u}));
}

// Reads before writes: dst == src0 in place, and dst overlapping a narrower source.
TEST(TpuKnownAnswers, InPlaceAndOverlap) {
  Device d;
  const dim4 s = shape4(1, 1, 1, 4);
  put(d, A0, s, std::vector<float>{1, -2, 3, -4}, DT_FP32);
  const variable_t v0 = tensor(A0), zero = scalar_f32(0.f);
  // relu in place: dst = src0 > 0 ? src0 : 0
  d.greater_select(A0, &v0, &zero, &v0, &zero, &s, DT_FP32, DT_FP32);
  EXPECT_EQ(get<uint32_t>(d, A0, s, DT_FP32), f32_codes({1, 0, 3, 0}));  // +0 from the SCALAR
  // int8 source at A2, int32 dst at the same address: every source byte is read first.
  const dim4 s2 = shape4(1, 1, 1, 8);
  put(d, A2, s2, std::vector<int8_t>{1, 2, 3, 4, 5, 6, 7, 8}, DT_INT8);
  const variable_t w0 = tensor(A2), four = scalar_bits(4), yes = scalar_bits(1),
                   no = scalar_bits(0);
  for (bool ref : {false, true}) {
    put(d, A2, s2, std::vector<int8_t>{1, 2, 3, 4, 5, 6, 7, 8}, DT_INT8);
    d.set_reference(ref);
    d.greater_select(A2, &w0, &four, &yes, &no, &s2, DT_INT8, DT_INT32);
    EXPECT_EQ(get<int32_t>(d, A2, s2, DT_INT32), (std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  }
}

// Masked max written as a kernel would: values and the index of the winner.
TEST(TpuKnownAnswers, MaskedMaxIndices) {
  Device d;
  const dim4 s = shape4(1, 3, 1, 4);
  put(d, A0, s, std::vector<float>{1, 9, 3, 3, 0, 0, 0, 0, -1, 5, 7, -9}, DT_FP32);
  put(d, A1, s, std::vector<float>{2, 8, 3, 4, 0, -0.f, 1, -1, -2, 6, 6, -8}, DT_FP32);
  const variable_t v0 = tensor(A0), v1 = tensor(A1), i0 = scalar_bits(0), i1 = scalar_bits(1);
  d.maximum_greater_select(D0, D1, &v0, &v1, &i0, &i1, &s, DT_FP32, DT_INT32);
  // Bits, not floats: the 0 vs -0 tie (element 5) goes to src1's -0 (spec 50 §3), which a float
  // comparison could not tell from +0.
  EXPECT_EQ(get<uint32_t>(d, D0, s, DT_FP32),
            f32_codes({2, 9, 3, 4, 0, -0.f, 1, 0, -1, 6, 7, -8}));
  EXPECT_EQ(get<int32_t>(d, D1, s, DT_INT32),
            (std::vector<int32_t>{1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1}));
}
