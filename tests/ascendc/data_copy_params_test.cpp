// DataCopy with DataCopyParams and TQueBind (the vendor's strided copy and pass-through queue;
// README "Semantics decisions"): which bytes move where, every rejection with nothing written.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "kernel_operator.h"
#include "tilesim/error.hpp"

using namespace AscendC;

namespace {

class DataCopyParamsTest : public ::testing::Test {
 protected:
  void SetUp() override { set_product("atlas_a2"); }
};

// Expected bytes of a strided copy, written from the definition: block i of blockLen*32 bytes from
// src byte i*(blockLen+srcStride)*32 to dst byte i*(blockLen+dstStride)*32.
std::vector<uint8_t> expect(std::vector<uint8_t> dst, const std::vector<uint8_t>& src, unsigned count, unsigned len,
                            unsigned ss, unsigned ds) {
  for (unsigned i = 0; i < count; ++i)
    for (unsigned k = 0; k < len * 32; ++k) dst[i * (len + ds) * 32 + k] = src[i * (len + ss) * 32 + k];
  return dst;
}

TEST_F(DataCopyParamsTest, GmToUbAndBackWithStrides) {
  std::vector<float> gm(512), back(512, -1.0f);
  std::iota(gm.begin(), gm.end(), 0.0f);
  GlobalTensor<float> g, o;
  g.SetGlobalBuffer(gm.data(), gm.size());
  o.SetGlobalBuffer(back.data(), back.size());
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 512 * sizeof(float));
  LocalTensor<float> t = buf.Get<float>();
  Duplicate(t, 7.0f, 512);
  // 3 blocks of 2 datablocks (16 floats), reading every other pair of datablocks (srcStride 2),
  // written with one datablock of gap (dstStride 1)
  DataCopy(t, g, DataCopyParams(3, 2, 2, 1));
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 16; ++k) {
      EXPECT_EQ(t.GetValue(i * 24 + k), float(i * 32 + k)) << i << " " << k;  // (2+2)*8 src, (2+1)*8 dst
      if (k < 8 && i < 2) {
        EXPECT_EQ(t.GetValue(i * 24 + 16 + k), 7.0f);  // the gap keeps its value
      }
    }
  EXPECT_EQ(t.GetValue(3 * 24 - 8), 7.0f);  // nothing past the last block
  // back to GM contiguously (dstStride 0) from the strided UB layout (srcStride 1)
  DataCopy(o, t, DataCopyParams(3, 2, 1, 0));
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 16; ++k) EXPECT_EQ(back[i * 16 + k], float(i * 32 + k));
  EXPECT_EQ(back[48], -1.0f);
}

TEST_F(DataCopyParamsTest, UbToUbOverlapReadsSourceFirst) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  LocalTensor<uint8_t> all = buf.Get<uint8_t>();
  std::vector<uint8_t> before(1024);
  for (int i = 0; i < 1024; ++i) before[i] = uint8_t(i * 7 + 1), all.SetValue(i, before[i]);
  // dst starts one datablock after src, blocks of 2 datablocks with 1 of gap on the src side:
  // dst overlaps what src still has to read
  LocalTensor<uint8_t> src = all[0], dst = all[32];
  DataCopy(dst, src, DataCopyParams(4, 2, 1, 0));
  std::vector<uint8_t> src_bytes(before.begin(), before.end());
  std::vector<uint8_t> dst_before(before.begin() + 32, before.end());
  const std::vector<uint8_t> want = expect(dst_before, src_bytes, 4, 2, 1, 0);
  for (int i = 0; i < 992; ++i) ASSERT_EQ(all.GetValue(32 + i), want[i]) << i;
  for (int i = 0; i < 32; ++i) EXPECT_EQ(all.GetValue(i), before[i]);
}

TEST_F(DataCopyParamsTest, RejectionsWriteNothing) {
  std::vector<half> gm(256, half(1.0f));
  GlobalTensor<half> g;
  g.SetGlobalBuffer(gm.data(), gm.size());
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 256 * sizeof(half));
  LocalTensor<half> t = buf.Get<half>();
  Duplicate(t, half(5.0f), 256);
  struct Row {
    DataCopyParams p;
    const char* msg;
  };
  const Row rows[] = {
      {DataCopyParams(0, 1, 0, 0), "DataCopy: blockCount must be in [1, 4095], got 0 [docs/ascendc.md#datacopy]"},
      {DataCopyParams(4096, 1, 0, 0), "blockCount must be in [1, 4095], got 4096"},
      {DataCopyParams(1, 0, 0, 0), "blockLen (32-byte datablocks per block) must be at least 1, got 0"},
      // 256 halves = 16 datablocks; 2 blocks of 8 with a gap of 1 need 17 on the src side
      {DataCopyParams(2, 8, 1, 0), "src: bytes [0, 544) of the tensor are past its 512 bytes"},
      {DataCopyParams(2, 8, 0, 1), "dst: bytes [0, 544) of the tensor are past its 512 bytes"},
      {DataCopyParams(1, 17, 0, 0), "bytes [0, 544) of the tensor are past its 512 bytes"},
  };
  for (const Row& r : rows) {
    try {
      DataCopy(t, g, r.p);
      ADD_FAILURE() << "accepted: " << r.msg;
    } catch (const tilesim::Error& e) {
      EXPECT_NE(std::string(e.what()).find(r.msg), std::string::npos) << e.what();
    }
    for (int i = 0; i < 256; ++i) ASSERT_EQ(float(t.GetValue(i)), 5.0f) << r.msg;
  }
  DataCopy(t, g, DataCopyParams(2, 8, 0, 0));  // exactly the whole tensor is fine
  EXPECT_EQ(float(t.GetValue(255)), 1.0f);
}

TEST_F(DataCopyParamsTest, TQueBindPassesATileThrough) {
  std::vector<float> in(64), out(64, 0.0f);
  std::iota(in.begin(), in.end(), 1.0f);
  GlobalTensor<float> gi, go;
  gi.SetGlobalBuffer(in.data(), 64);
  go.SetGlobalBuffer(out.data(), 64);
  TPipe pipe;
  TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, 64 * sizeof(float));
  LocalTensor<float> a = q.AllocTensor<float>();
  EXPECT_EQ(a.GetPosition(), TPosition::VECIN);
  DataCopy(a, gi, 64);
  q.EnQue(a);
  LocalTensor<float> b = q.DeQue<float>();
  EXPECT_EQ(b.GetPosition(), TPosition::VECOUT);
  EXPECT_EQ(b.address(), a.address());
  DataCopy(go, b, 64);
  q.FreeTensor(b);
  EXPECT_EQ(out, in);
}

}  // namespace
