// Layout (spec 50 §1): a tensor written with S2L lands at the addresses the spec gives, and the
// vendor stride helpers return the spec's strides.
#include <numeric>
#include <utility>

#include "tpu_test_util.hpp"

using namespace tpu_test;

namespace {
// Byte of memory() holding element (n, c, h, w), by the spec 50 §1 formula, computed
// independently here; NPU k starts k * npu_stride() bytes in (docs/tpu.md#host-layout).
size_t spec_addr(const Device& d, local_addr_t addr, const dim4& s, const dim4& st, int e, int n,
                 int c, int h, int w) {
  const int q = int(addr / d.local_mem_size()), r = int(addr % d.local_mem_size());
  const int npu = (q + c) % d.npu_num(), slot = (q + c) / d.npu_num();
  (void)s;
  return size_t(npu) * d.npu_stride() + r +
         size_t(n * st.n + slot * st.c + h * st.h + w * st.w) * e;
}
}  // namespace

// Hand-computed: bm1684x, fp32 [2, 70, 3, 5] at NPU 3, offset 128. H*W = 15, EU_NUM(fp32) = 16,
// so c_stride = 16, n_stride = ceil((3 + 70) / 64) * 16 = 32.
TEST(TpuLayout, AlignedHandComputed) {
  Device d("bm1684x");
  const dim4 s = shape4(2, 70, 3, 5);
  dim4 st;
  d.aligned_stride(&st, 3, &s, DT_FP32);
  EXPECT_EQ(st.n, 32);
  EXPECT_EQ(st.c, 16);
  EXPECT_EQ(st.h, 5);
  EXPECT_EQ(st.w, 1);
  std::vector<float> x(count(s));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) + 0.5f;
  const local_addr_t addr = 3 * d.local_mem_size() + 128;
  put(d, addr, s, x, DT_FP32);
  auto at = [&](size_t a) {
    float f;
    std::memcpy(&f, d.memory().data() + a, 4);
    return f;
  };
  const size_t L = d.npu_stride();  // NPU k at k * L in memory()
  // (0,0,0,0): NPU 3, offset 128.
  EXPECT_EQ(at(3 * L + 128), x[0]);
  // (1, 62, 2, 4): q + c = 65 -> NPU 1, slot 1; offset 128 + (32 + 16 + 10 + 4) * 4 = 376.
  EXPECT_EQ(at(1 * L + 376), x[((1 * 70 + 62) * 3 + 2) * 5 + 4]);
  // (0, 60, 0, 1): q + c = 63 -> NPU 63, slot 0; offset 128 + 1 * 4.
  EXPECT_EQ(at(63 * L + 132), x[60 * 15 + 1]);
  // Every element by the formula; padding (c_stride 16 > 15) untouched.
  for (int n = 0; n < s.n; ++n)
    for (int c = 0; c < s.c; ++c)
      for (int h = 0; h < s.h; ++h)
        for (int w = 0; w < s.w; ++w)
          ASSERT_EQ(at(spec_addr(d, addr, s, st, 4, n, c, h, w)),
                    x[((size_t(n) * s.c + c) * s.h + h) * s.w + w]);
  EXPECT_EQ(at(3 * L + 128 + 15 * 4), 0.f);
}

// bm1688: 32 NPUs, ALIGN_BYTES 16 -> EU_NUM(fp16) = 8; [1, 40, 3, 3] fp16 at NPU 0.
TEST(TpuLayout, Bm1688Fp16AndCompact) {
  Device d("bm1688");
  const dim4 s = shape4(1, 40, 3, 3);
  dim4 st, ct;
  d.aligned_stride(&st, 0, &s, DT_FP16);
  EXPECT_EQ(st.c, 16);      // ALIGN(9, 8)
  EXPECT_EQ(st.n, 2 * 16);  // ceil(40 / 32) slots
  d.compact_stride(&ct, 0, &s);
  EXPECT_EQ(ct.c, 9);
  EXPECT_EQ(ct.n, 18);
  EXPECT_EQ(d.eu_num(DT_FP16), 8);
  EXPECT_EQ(d.eu_num(DT_INT8), 16);
  std::vector<uint16_t> x(count(s));
  for (size_t i = 0; i < x.size(); ++i) x[i] = uint16_t(0x3C00 + i);
  d.gdma_cpy_S2L(256, x.data(), &s, &ct, nullptr, DT_FP16);
  for (int c = 0; c < s.c; ++c)
    for (int hw = 0; hw < 9; ++hw) {
      uint16_t v;
      std::memcpy(&v, d.memory().data() + spec_addr(d, 256, s, ct, 2, 0, c, hw / 3, hw % 3), 2);
      ASSERT_EQ(v, x[size_t(c) * 9 + hw]);
    }
  // Channel 33 -> NPU 1, slot 1, compact offset 256 + (9 + 4) * 2 for (h, w) = (1, 1).
  uint16_t v;
  std::memcpy(&v, d.npu_memory(1).data() + 256 + 13 * 2, 2);
  EXPECT_EQ(v, x[33 * 9 + 4]);
  // L2S with the same free layout and a strided system side reads it back transposed in h/w.
  std::vector<uint16_t> back(count(s));
  const dim4 sys{360, 9, 1, 3};  // system (h, w) swapped
  d.gdma_cpy_L2S(back.data(), 256, &s, &sys, &ct, DT_FP16);
  for (int c = 0; c < s.c; ++c)
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 3; ++w) ASSERT_EQ(back[c * 9 + w * 3 + h], x[c * 9 + h * 3 + w]);
}

TEST(TpuLayout, ChipTable) {
  struct Row {
    const char* chip;
    int npu, align;
    uint32_t lms;
  };
  // spec 50 §1 profile table.
  for (const Row r : {Row{"bm1684x", 64, 64, 256 * 1024}, Row{"bm1688", 32, 16, 128 * 1024},
                      Row{"bm1690", 64, 64, 256 * 1024}}) {
    Device d(r.chip);
    EXPECT_EQ(d.npu_num(), r.npu);
    EXPECT_EQ(d.align_bytes(), r.align);
    EXPECT_EQ(d.local_mem_size(), r.lms);
    EXPECT_EQ(d.memory().size(), size_t(r.npu) * d.npu_stride());
    EXPECT_EQ(d.npu_index(3 * r.lms + 5), 3);
  }
  EXPECT_STREQ(Device().profile().name, "bm1684x");
}

// The layout helpers reject what has no layout (spec 50 §1), leaving *stride as it was.
TEST(TpuLayout, StrideHelpersRejectBadArguments) {
  Device d("bm1684x");  // 64 NPUs
  struct Row {
    int start;
    dim4 shape;
    const char* msg;
  };
  const Row rows[] = {
      {64, shape4(1, 1, 1, 1), "start_idx 64 is outside [0, NPU_NUM = 64) [docs/tpu.md#layout]"},
      {-1, shape4(1, 1, 1, 1), "start_idx -1 is outside [0, NPU_NUM = 64)"},
      {0, shape4(1, -2, 1, 1), "shape [1, -2, 1, 1] has a negative dimension"},
      // H*W = 65535 * 32769 = 2,147,516,415 > 2^31 - 1: the h stride fits, the c stride does not
      {0, shape4(1, 1, 65535, 32769), "do not fit dim4's int fields"},
  };
  for (const Row& r : rows)
    for (int helper = 0; helper < 2; ++helper) {
      dim4 st = shape4(7, 7, 7, 7);
      try {
        if (helper == 0) d.aligned_stride(&st, r.start, &r.shape, DT_FP32);
        else d.compact_stride(&st, r.start, &r.shape);
        ADD_FAILURE() << "accepted: " << r.msg;
      } catch (const tilesim::Error& e) {
        EXPECT_NE(std::string(e.what()).find(r.msg), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(helper == 0 ? "tpu_aligned_stride" : "tpu_compact_stride"), std::string::npos);
      }
      EXPECT_EQ(st.n, 7);
      EXPECT_EQ(st.w, 7);
    }
}

// Host layout (docs/tpu.md#host-layout): NPU k's local memory sits k * npu_stride() bytes into
// memory(), the stride padded beyond LOCAL_MEM_SIZE, and the padding is no local memory. On every
// chip, through the public views: what the host writes in npu_memory(k) is what GDMA reads at
// local address k * LOCAL_MEM_SIZE + r; what GDMA, the BDC walker and the select reference write
// lands at npu_memory(k)[r] == memory()[host_offset(k * LOCAL_MEM_SIZE + r)]; the padding keeps
// its bytes. A walker that stepped NPUs by LOCAL_MEM_SIZE would fail every NPU but 0.
TEST(TpuLayout, HostLayoutEveryNpuThroughThePublicViews) {
  for (const char* chip : {"bm1684x", "bm1688", "bm1690"}) {
    SCOPED_TRACE(chip);
    Device d(chip);
    const int npu = d.npu_num();
    const uint32_t lms = d.local_mem_size();
    const size_t stride = d.npu_stride();
    EXPECT_GT(stride, size_t(lms));
    EXPECT_EQ(stride % 64, 0u);  // every NPU's base stays as aligned as ALIGN_BYTES
    EXPECT_EQ(d.memory().size(), size_t(npu) * stride);
    auto mark_padding = [&] {
      std::span<uint8_t> m = d.memory();
      for (int k = 0; k < npu; ++k) std::memset(m.data() + size_t(k) * stride + lms, 0xEE, stride - lms);
    };
    auto padding_kept = [&] {
      std::span<const uint8_t> m = std::as_const(d).memory();
      size_t changed = 0;
      for (int k = 0; k < npu; ++k)
        for (size_t i = lms; i < stride; ++i) changed += m[size_t(k) * stride + i] != 0xEE;
      return changed == 0;
    };
    mark_padding();
    // 1. host writes through npu_memory(k), read by L2S (channel c on NPU c)
    for (int k = 0; k < npu; ++k) {
      std::span<uint8_t> v = d.npu_memory(k);
      ASSERT_EQ(v.size(), size_t(lms));
      EXPECT_EQ(v.data(), d.memory().data() + d.host_offset(local_addr_t(k) * lms));
      const int32_t first = 1000 + k, last = -1000 - k;
      std::memcpy(v.data(), &first, 4);
      std::memcpy(v.data() + lms - 4, &last, 4);
    }
    const dim4 per_npu = shape4(1, npu, 1, 1);
    std::vector<int32_t> got(static_cast<size_t>(npu));
    d.gdma_cpy_L2S(got.data(), 0, &per_npu, nullptr, nullptr, DT_INT32);
    for (int k = 0; k < npu; ++k) EXPECT_EQ(got[size_t(k)], 1000 + k) << k;
    d.gdma_cpy_L2S(got.data(), lms - 4, &per_npu, nullptr, nullptr, DT_INT32);
    for (int k = 0; k < npu; ++k) EXPECT_EQ(got[size_t(k)], -1000 - k) << k;
    // 2. S2L of every byte of every NPU (channel k = NPU k, LOCAL_MEM_SIZE / 4 int32), read back
    // through both views
    const size_t per = lms / 4;
    std::vector<int32_t> all(size_t(npu) * per);
    std::iota(all.begin(), all.end(), 1);
    const dim4 whole = shape4(1, npu, int(per / 64), 64);
    d.gdma_cpy_S2L(0, all.data(), &whole, nullptr, nullptr, DT_INT32);
    size_t wrong = 0;
    for (int k = 0; k < npu; ++k) {
      const std::span<const uint8_t> v = std::as_const(d).npu_memory(k);
      for (size_t i = 0; i < per; ++i) {
        int32_t a, b;
        std::memcpy(&a, v.data() + 4 * i, 4);
        std::memcpy(&b, std::as_const(d).memory().data() + d.host_offset(local_addr_t(k * lms + 4 * i)), 4);
        wrong += a != all[size_t(k) * per + i] || b != a;
      }
    }
    EXPECT_EQ(wrong, 0u);
    EXPECT_TRUE(padding_kept());
    // 3. the BDC walker (fast and reference path) and the select reference: the first half of
    // every NPU copied into its second half
    const dim4 half = shape4(1, npu, int(per / 2 / 64), 64);
    for (int way = 0; way < 4; ++way) {  // BDC fast, BDC reference, select fast, select reference
      d.set_reference(way % 2 == 1);
      std::span<uint8_t> m = d.memory();
      for (int k = 0; k < npu; ++k) std::memset(m.data() + size_t(k) * stride + lms / 2, 0, lms / 2);
      if (way < 2) {
        tilesim::tpu::BdcCall c;
        c.fn = "tpu_bdc_cpy";
        c.dst = lms / 2, c.src0 = 0;
        c.shape = &half;
        c.dst_dtype = c.src0_dtype = c.src1_dtype = DT_INT32;
        d.bdc(c);
      } else {  // src0 > -1 (every value is positive) ? src0 : 0
        const variable_t x = tilesim::tpu::tensor(0), lo = tilesim::tpu::scalar_bits(0xFFFFFFFFu),
                         z = tilesim::tpu::scalar_bits(0);
        d.greater_select(lms / 2, &x, &lo, &x, &z, &half, DT_INT32, DT_INT32);
      }
      wrong = 0;
      for (int k = 0; k < npu; ++k) {
        const std::span<const uint8_t> v = std::as_const(d).npu_memory(k);
        wrong += std::memcmp(v.data() + lms / 2, v.data(), lms / 2) != 0;
      }
      EXPECT_EQ(wrong, 0u) << "way " << way;
      EXPECT_TRUE(padding_kept()) << "way " << way;
    }
    // 4. no NPU outside [0, NPU_NUM)
    EXPECT_THROW(d.npu_memory(npu), tilesim::Error);
    EXPECT_THROW(d.npu_memory(-1), tilesim::Error);
  }
}
