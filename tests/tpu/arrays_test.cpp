// Array-level compare-select (src/tpu/arrays.cpp, the engine side of spec 60 §4
// tilesim.tpu.greater_select): placement, shape arithmetic and scalar codes.
#include "tpu/arrays.hpp"

#include <cmath>
#include <limits>

#include "tpu_test_util.hpp"

using namespace tpu_test;
using tilesim::ErrorCode;
using tilesim::tpu::HostOperand;
using tilesim::tpu::SelectOp;

namespace {

struct Outs {
  std::vector<uint8_t> buf[2];
  size_t bytes;
};
void* alloc_out(void* ctx, int which) {
  auto* o = static_cast<Outs*>(ctx);
  o->buf[which].assign(o->bytes, 0);
  return o->buf[which].data();
}

// Runs select_arrays and returns the error it raises (or fails the test when there is none).
tilesim::Error select_error(const dim4& shape, const HostOperand src[4], data_type_t a,
                            data_type_t b) {
  Outs outs{{}, 16};
  try {
    tilesim::tpu::select_arrays("bm1684x", SelectOp::Greater, src, shape, a, b, alloc_out, &outs);
  } catch (const tilesim::Error& e) {
    EXPECT_TRUE(outs.buf[0].empty()) << "output requested before the checks passed";
    return e;
  }
  ADD_FAILURE() << "no error raised";
  return tilesim::Error(ErrorCode::Constraint, "none");
}

}  // namespace

// 65535^4 = 1.8e19 elements does not fit int64: a clear Bounds error, not signed overflow (UB,
// spec 00) in the element count.
TEST(TpuArrays, HugeShapeElementCountIsChecked) {
  const HostOperand sc{SCALAR, nullptr, 0, 0};
  const HostOperand src[4] = {sc, sc, sc, sc};
  const tilesim::Error e = select_error(dim4{65535, 65535, 65535, 65535}, src, DT_FP32, DT_FP32);
  EXPECT_EQ(e.code(), ErrorCode::Bounds);
  const std::string m = e.what();
  for (const char* needle :
       {"tilesim.tpu.greater_select", "shape [65535, 65535, 65535, 65535]",
        "N*C*H*W overflows int64", "LOCAL_MEM_SIZE 262144 (bm1684x)", "[docs/tpu.md#python]"})
    EXPECT_NE(m.find(needle), std::string::npos) << m;
}

// scalar_code: exact encodings; a NaN number becomes the canonical quiet NaN of the operand's
// format with its sign (its payload has no exact image in another format).
TEST(TpuArrays, ScalarCodes) {
  using tilesim::tpu::scalar_code;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(scalar_code(1.0, DT_BFP16, "t"), 0x3F80u);
  EXPECT_EQ(scalar_code(-0.0, DT_FP16, "t"), 0x8000u);
  EXPECT_EQ(scalar_code(-1.0, DT_INT8, "t"), 0xFFu);
  EXPECT_EQ(scalar_code(nan, DT_FP16, "t"), 0x7E00u);
  EXPECT_EQ(scalar_code(-nan, DT_FP16, "t"), 0xFE00u);
  EXPECT_EQ(scalar_code(-nan, DT_BFP16, "t"), 0xFFC0u);
  EXPECT_EQ(scalar_code(-nan, DT_FP32, "t"), 0xFFC00000u);
  EXPECT_EQ(scalar_code(nan, DT_FP8E4M3, "t"), 0x7Fu);
  EXPECT_EQ(scalar_code(-nan, DT_FP8E5M2, "t"), 0xFEu);
  try {
    scalar_code(0.1, DT_BFP16, "tilesim.tpu.less_select", "src1 vector value", 3);
    ADD_FAILURE() << "0.1 is not a bf16 value";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Constraint);
    EXPECT_STREQ(e.what(),
                 "tilesim.tpu.less_select: src1 vector value 0.1 (element 3) is not exactly "
                 "representable in DT_BFP16 (bf16) [docs/tpu.md#python]");
  }
}
