// GDMA (spec 51 §2) and global memory (spec 51 §1) through the C++ API: known answers for every
// copy with NULL and explicit strides, and one test per rejection with local and global memory
// untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <utility>
#include <numeric>
#include <vector>

#include "tpu_test_util.hpp"

namespace {

using tilesim::ErrorCode;
using tilesim::tpu::Device;
using namespace tpu_test;

struct Global {
  global_addr_t a;
  size_t bytes;
  explicit Global(size_t n) : a(tilesim::tpu::global_alloc(n)), bytes(n) {}
  ~Global() { tilesim::tpu::global_free(a); }
  template <class T>
  T* p() {
    return reinterpret_cast<T*>(tilesim::tpu::global_span(a, bytes));
  }
};

TEST(TpuGlobal, AllocTagsAlignsZeroesAndNeverReuses) {
  const size_t live = tilesim::tpu::global_live_bytes();
  global_addr_t a = tilesim::tpu::global_alloc(100), b = tilesim::tpu::global_alloc(1);
  EXPECT_TRUE(tilesim::tpu::is_global(a));
  EXPECT_EQ(a % 64, 0u);
  EXPECT_GE(b, a + 128);  // 100 bytes rounded to 64-byte units
  const uint8_t* p = tilesim::tpu::global_span(a, 100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(p[i], 0);
  EXPECT_EQ(tilesim::tpu::global_live_bytes(), live + 101);
  tilesim::tpu::global_free(a);
  global_addr_t c = tilesim::tpu::global_alloc(100);
  EXPECT_GT(c, b);  // a's range is never handed out again
  EXPECT_THROW(tilesim::tpu::global_span(a, 4), tilesim::Error);
  tilesim::tpu::global_free(b);
  tilesim::tpu::global_free(c);
  EXPECT_EQ(tilesim::tpu::global_live_bytes(), live);
}

// Freed host blocks are reused (global_mem.cpp keeps them): a reused block is zeroed again and
// sits behind a new global address; the stale address stays an error.
TEST(TpuGlobal, ReusedHostBlocksAreZeroed) {
  const size_t n = (size_t(3) << 20) + 4096;  // a size no other test frees: this block is the one reused
  global_addr_t a = tilesim::tpu::global_alloc(n);
  uint8_t* pa = tilesim::tpu::global_span(a, n);
  std::memset(pa, 0xAB, n);
  tilesim::tpu::global_free(a);
  global_addr_t b = tilesim::tpu::global_alloc(n - 100);
  const uint8_t* pb = tilesim::tpu::global_span(b, n - 100);
  EXPECT_EQ(pb, pa);  // the same host block, behind a new address
  EXPECT_GT(b, a);
  size_t nonzero = 0;
  for (size_t i = 0; i < n - 100; ++i) nonzero += pb[i] != 0;
  EXPECT_EQ(nonzero, 0u);
  EXPECT_THROW(tilesim::tpu::global_span(a, 4), tilesim::Error);
  tilesim::tpu::global_free(b);
}

// Allocations are zeroed lazily (docs/tpu.md#fast-path): a reused host block full of 0xAB must
// read as zeros through every GDMA path, whether a write covers its range whole (contiguous L2S,
// system_cpy: not zeroed first) or not (strided L2S, set_C_system), and after a rejected call.
TEST(TpuGlobal, LazyZeroingReadsZeroThroughEveryPath) {
  const size_t n = (size_t(3) << 20) + 8192;  // a size no other test frees: this block is the one reused
  global_addr_t old = tilesim::tpu::global_alloc(n);
  std::memset(tilesim::tpu::global_span(old, n), 0xAB, n);
  tilesim::tpu::global_free(old);
  global_addr_t g = tilesim::tpu::global_alloc(n);  // the 0xAB block behind it, not zeroed yet
  Device d;
  const size_t lms = d.local_mem_size();
  for (int k = 0; k < d.npu_num(); ++k) std::memset(d.npu_memory(k).data(), 0x55, 256);
  // S2L from the pending start: zeros arrive in local memory
  const dim4 s = shape4(1, d.npu_num(), 1, 16);
  d.gdma_S2L(0, g, &s, nullptr, nullptr, DT_INT32);
  for (int k = 0; k < d.npu_num(); ++k)
    for (int i = 0; i < 64; ++i) ASSERT_EQ(d.npu_memory(k)[i], 0) << k << " " << i;
  for (int k = 0; k < d.npu_num(); ++k) std::memset(d.npu_memory(k).data(), 0x11, 64);
  // a rejected L2S (local source outside local memory) drops nothing
  const global_addr_t at1 = g + 4096;
  EXPECT_THROW(d.gdma_L2S(at1, uint32_t(d.npu_num()) * lms, &s, nullptr, nullptr, DT_INT32), tilesim::Error);
  // contiguous L2S over [4096, 4096 + 64 * 64): written whole, never zeroed first
  d.gdma_L2S(at1, 0, &s, nullptr, nullptr, DT_INT32);
  // strided L2S (every other int32) over [65536, 65536 + 8 * 4): the gaps read as zeros
  const dim4 s2 = shape4(1, 1, 1, 4), st2{0, 0, 0, 2};
  d.gdma_L2S(g + 65536, 0, &s2, &st2, nullptr, DT_INT32);
  // set_C_system strided over [131072, ...): gaps zero too
  d.gdma_set_C_system(g + 131072, 0x7u, &s2, &st2, DT_INT32);
  // system_cpy of 16 pending bytes into a fresh allocation's written range
  Global other(256);
  d.gdma_system_cpy(other.a, g + 200000, 4, DT_INT32);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(other.p<int32_t>()[i], 0);
  // the host view: data where written, zeros everywhere else
  const uint8_t* p = tilesim::tpu::global_span(g, n);
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    uint8_t want = 0;
    if (i >= 4096 && i < 4096 + 64 * 64) want = 0x11;
    if (i >= 65536 && i < 65536 + 32 && (i - 65536) % 8 < 4) want = 0x11;
    if (i >= 131072 && i < 131072 + 32 && (i - 131072) % 8 == 0) want = 0x7;
    wrong += p[i] != want;
  }
  EXPECT_EQ(wrong, 0u);
  tilesim::tpu::global_free(g);
}

// A launch's local memory is zeroed lazily (Device::zero_memory, docs/tpu.md#fast-path): after
// zero_memory every byte must read as zero through GDMA and BDC, whether the write before the read
// covers whole granules on every NPU (not zeroed first) or only part of one, in place too; a host
// view taken before zero_memory sees the zeros at once.
TEST(TpuLocal, LazyZeroingReadsZeroThroughEveryPath) {
  Device d;  // bm1684x: 64 NPUs, 256 KiB each, granules of 1 KiB (detail::Granules)
  const int npu = d.npu_num();
  const uint32_t lms = d.local_mem_size(), g = lms / tilesim::tpu::detail::Granules::kCount;
  std::vector<int32_t> junk(size_t(npu) * lms / 4), back(size_t(npu) * lms / 4);
  std::iota(junk.begin(), junk.end(), 7);
  const dim4 all = shape4(1, npu, 1, int(lms / 8));  // half of every NPU, twice
  d.gdma_cpy_S2L(0, junk.data(), &all, nullptr, nullptr, DT_INT32);
  d.gdma_cpy_S2L(lms / 2, junk.data(), &all, nullptr, nullptr, DT_INT32);
  d.zero_memory();
  // 1. a read of pending granules (L2S of granule 1 of every NPU): zeros
  const dim4 one = shape4(1, npu, 1, int(g / 4));
  d.gdma_cpy_L2S(back.data(), g, &one, nullptr, nullptr, DT_INT32);
  for (size_t i = 0; i < size_t(npu) * g / 4; ++i) ASSERT_EQ(back[i], 0) << i;
  // 2. a whole write of granules 2-3 (not zeroed first), read back: the data
  const dim4 two = shape4(1, npu, 1, int(g / 2));
  d.gdma_cpy_S2L(2 * g, junk.data(), &two, nullptr, nullptr, DT_INT32);
  d.gdma_cpy_L2S(back.data(), 2 * g, &two, nullptr, nullptr, DT_INT32);
  for (size_t i = 0; i < size_t(npu) * g / 2; ++i) ASSERT_EQ(back[i], junk[i]) << i;
  // 3. partial writes: granule 4 whole on NPUs 0..31 only, granule 9 in part on every NPU (16
  // int32): the rest of each reads zero
  const dim4 half = shape4(1, 32, 1, int(g / 4)), part = shape4(1, npu, 1, 16);
  d.gdma_cpy_S2L(4 * g, junk.data(), &half, nullptr, nullptr, DT_INT32);
  d.gdma_cpy_L2S(back.data(), 4 * g, &one, nullptr, nullptr, DT_INT32);
  for (int k = 0; k < npu; ++k)
    for (uint32_t i = 0; i < g / 4; ++i)
      ASSERT_EQ(back[size_t(k) * g / 4 + i], k < 32 ? junk[size_t(k) * g / 4 + i] : 0) << k << " " << i;
  d.gdma_cpy_S2L(9 * g, junk.data(), &part, nullptr, nullptr, DT_INT32);
  d.gdma_cpy_L2S(back.data(), 9 * g, &one, nullptr, nullptr, DT_INT32);
  for (int k = 0; k < npu; ++k)
    for (uint32_t i = 0; i < g / 4; ++i)
      ASSERT_EQ(back[size_t(k) * g / 4 + i], i < 16 ? junk[size_t(k) * 16 + i] : 0) << k << " " << i;
  // 4. BDC in place over pending granules 5-6 (dst == src, whole): computed from zeros
  tilesim::tpu::BdcCall c;
  c.fn = "tpu_bdc_int_add_C";
  c.dst = c.src0 = 5 * g;
  c.shape = &two;
  c.dst_dtype = c.src0_dtype = c.src1_dtype = DT_INT32;
  c.c_bits = 3;
  d.bdc(c);
  d.gdma_cpy_L2S(back.data(), 5 * g, &two, nullptr, nullptr, DT_INT32);
  for (size_t i = 0; i < size_t(npu) * g / 2; ++i) ASSERT_EQ(back[i], 3) << i;
  // 5. a BDC copy from pending granule 8 into granule 7: zeros
  c.fn = "tpu_bdc_cpy";
  c.dst = 7 * g, c.src0 = 8 * g;
  c.shape = &one;
  d.bdc(c);
  d.gdma_cpy_L2S(back.data(), 7 * g, &one, nullptr, nullptr, DT_INT32);
  for (size_t i = 0; i < size_t(npu) * g / 4; ++i) ASSERT_EQ(back[i], 0) << i;
  // 6. the host view: every byte not written above is zero
  size_t nonzero = 0;
  for (int k = 0; k < npu; ++k) {
    const std::span<const uint8_t> m = std::as_const(d).npu_memory(k);
    for (uint32_t i = 10 * g; i < lms; ++i) nonzero += m[i] != 0;
  }
  EXPECT_EQ(nonzero, 0u);
  // 7. after a view, zero_memory zeroes at once (the view is read directly): every NPU's bytes
  // (the host layout's padding between NPUs is no local memory, docs/tpu.md#host-layout)
  std::span<uint8_t> w = d.memory();
  std::memset(w.data(), 0x5A, w.size());
  d.zero_memory();
  for (int k = 0; k < npu; ++k) {
    const std::span<const uint8_t> m = w.subspan(size_t(k) * d.npu_stride(), lms);
    EXPECT_EQ(size_t(std::count(m.begin(), m.end(), uint8_t(0))), size_t(lms)) << k;
  }
}

// A kernel's fp16 tile of 2 KiB per NPU covers two whole granules (docs/tpu.md#fast-path): its S2L
// skips their zeros, while the rest of what used to be one 4 KiB granule stays pending and reads
// as zero, on every chip.
TEST(TpuLocal, LazyZeroingAtTheGranuleOfATile) {
  for (const char* chip : {"bm1684x", "bm1688"}) {
    Device d(chip);
    const int npu = d.npu_num();
    const uint32_t lms = d.local_mem_size(), g = lms / tilesim::tpu::detail::Granules::kCount;
    std::vector<uint16_t> junk(size_t(npu) * lms / 2, 0xBEEF), tile(size_t(npu) * g), back(size_t(npu) * 2 * g);
    const dim4 all = shape4(1, npu, int(lms / 2 / 64), 64);
    d.gdma_cpy_S2L(0, junk.data(), &all, nullptr, nullptr, DT_FP16);
    d.zero_memory();
    std::iota(tile.begin(), tile.end(), uint16_t(1));
    const dim4 two = shape4(1, npu, 1, int(g));  // 2 * g bytes of fp16 per NPU: two whole granules
    d.gdma_cpy_S2L(0, tile.data(), &two, nullptr, nullptr, DT_FP16);
    const dim4 four = shape4(1, npu, 1, int(2 * g));  // and the next two, still pending
    d.gdma_cpy_L2S(back.data(), 0, &four, nullptr, nullptr, DT_FP16);
    size_t wrong = 0;
    for (int k = 0; k < npu; ++k)
      for (uint32_t i = 0; i < 2 * g; ++i)
        wrong += back[size_t(k) * 2 * g + i] != (i < g ? tile[size_t(k) * g + i] : 0);
    EXPECT_EQ(wrong, 0u) << chip;
  }
}

TEST(TpuGlobal, SpanRejections) {
  Global g(64);
  try {
    tilesim::tpu::global_span(g.a + 60, 8, "tpu_gdma_cpy_L2S", "dst");
    FAIL();
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Bounds);
    EXPECT_NE(std::string(e.what()).find("tpu_gdma_cpy_L2S: dst ["), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(8 bytes) is outside the live global allocation"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("docs/tpu.md#global-memory"), std::string::npos);
  }
  EXPECT_THROW(tilesim::tpu::global_span(0x1000, 4), tilesim::Error);  // a host address
  EXPECT_THROW(tilesim::tpu::global_alloc(0), tilesim::Error);
  EXPECT_THROW(tilesim::tpu::global_free(g.a + 64), tilesim::Error);
}

// S2L with explicit global strides (a transposing read), L2S back with NULL strides: the local
// layout is the aligned one of spec 50 §1, starting on NPU 3.
TEST(TpuGdma, GlobalRoundTripWithStrides) {
  Device d("bm1684x");
  const dim4 s = shape4(2, 3, 2, 4);  // 48 elements
  Global in(48 * 4), out(48 * 4);
  std::iota(in.p<float>(), in.p<float>() + 48, 0.f);
  // read the input as [n][c][h][w] = in[((n * 4 + w) * 3 + c) * 2 + h]: strides n 24, c 2, h 1, w 6
  const dim4 src_st{24, 2, 1, 6};
  const local_addr_t dst = 3 * d.local_mem_size();
  d.gdma_S2L(dst, in.a, &s, nullptr, &src_st, DT_FP32);
  // element (n=1, c=2, h=1, w=3) sits on NPU 5, slot 0, at n stride ceil((3+3)/64)*16 = 16
  float f;
  std::memcpy(&f, d.npu_memory(5).data() + (16 + 1 * 4 + 3) * 4, 4);
  EXPECT_EQ(f, float(((1 * 4 + 3) * 3 + 2) * 2 + 1));
  d.gdma_L2S(out.a, dst, &s, nullptr, nullptr, DT_FP32);
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 4; ++w)
          EXPECT_EQ(out.p<float>()[((n * 3 + c) * 2 + h) * 4 + w], float(((n * 4 + w) * 3 + c) * 2 + h));
}

// L2L between two start NPUs, aligned layouts on both sides (whole h*w planes per channel), and
// between in-NPU ranges that meet on other NPUs (staged): the elements of spec 50 §1 either way.
TEST(TpuGdma, L2LAcrossStartNpus) {
  Device d("bm1684x");
  const dim4 s = shape4(2, 70, 3, 5);  // channels wrap past NPU 63 from start NPU 3
  std::vector<int16_t> v(count(s));
  std::iota(v.begin(), v.end(), int16_t(-1000));
  const local_addr_t L = d.local_mem_size();
  put(d, 3 * L + 4096, s, v, DT_INT16);
  d.gdma_L2L(0, 3 * L + 4096, &s, nullptr, nullptr, DT_INT16);  // to start NPU 0, offset 0: apart
  EXPECT_EQ(get<int16_t>(d, 0, s, DT_INT16), v);
  d.gdma_L2L(64, 0, &s, nullptr, nullptr, DT_INT16);  // 64 bytes on: the in-NPU ranges meet (staged)
  EXPECT_EQ(get<int16_t>(d, 64, s, DT_INT16), v);
}

TEST(TpuGdma, L2LOverlappingReadsBeforeWrites) {
  Device d("bm1688");
  std::vector<int16_t> v(8);
  std::iota(v.begin(), v.end(), 1);
  const dim4 s = shape4(1, 1, 1, 8);
  put(d, 0, s, v, DT_INT16);
  // dst two elements after src (free layout on both sides): a memmove, not a smear
  const dim4 st{8, 8, 8, 1};
  d.gdma_L2L(4, 0, &s, &st, &st, DT_INT16);
  std::vector<int16_t> got(10);
  std::memcpy(got.data(), d.memory().data(), 20);
  EXPECT_EQ(got, (std::vector<int16_t>{1, 2, 1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(TpuGdma, S2SSetCAndSystemCpy) {
  Device d("bm1690");
  Global a(64 * 4), b(64 * 4);
  std::iota(a.p<int32_t>(), a.p<int32_t>() + 64, 0);
  // S2S: gather every other element of a 1x1x4x8 view into a dense 1x1x4x4
  const dim4 s = shape4(1, 1, 4, 4), src_st{32, 32, 8, 2};
  d.gdma_S2S(b.a, a.a, &s, nullptr, &src_st, DT_INT32);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(b.p<int32_t>()[i], (i / 4) * 8 + (i % 4) * 2);
  // set_C_system over a strided view, set_C_local on NPU 2, then system_cpy
  const dim4 s2 = shape4(1, 1, 2, 2), st2{0, 0, 8, 1};
  d.gdma_set_C_system(a.a, 0xFFFFFFFFu, &s2, &st2, DT_INT32);
  EXPECT_EQ(a.p<int32_t>()[0], -1);
  EXPECT_EQ(a.p<int32_t>()[1], -1);
  EXPECT_EQ(a.p<int32_t>()[2], 2);
  EXPECT_EQ(a.p<int32_t>()[8], -1);
  EXPECT_EQ(a.p<int32_t>()[9], -1);
  d.gdma_set_C_local(2 * d.local_mem_size(), 0x12345678u, &s2, nullptr, DT_UINT16);
  uint16_t h[4];
  std::memcpy(h, d.npu_memory(2).data(), 8);
  EXPECT_EQ(h[0], 0x5678);
  EXPECT_EQ(h[3], 0x5678);
  d.gdma_system_cpy(b.a, a.a + 8 * 4, 5, DT_INT32);
  EXPECT_EQ(b.p<int32_t>()[0], -1);
  EXPECT_EQ(b.p<int32_t>()[2], 10);
  EXPECT_EQ(b.p<int32_t>()[4], 12);
  EXPECT_EQ(b.p<int32_t>()[5], 10);  // untouched from the S2S: (5 / 4) * 8 + (5 % 4) * 2
  // host pointers still work on the system side (spec 50 §5)
  std::vector<int32_t> host(16);
  d.gdma_S2S(static_cast<system_addr_t>(reinterpret_cast<uintptr_t>(host.data())), b.a, &s, nullptr, nullptr,
             DT_INT32);
  EXPECT_EQ(host[2], 10);
}

// Each rejection: an error naming the function, operand, rule and values; nothing written in
// local or global memory.
TEST(TpuGdma, Rejections) {
  Device d("bm1684x");
  Global g(256);
  std::memset(g.p<uint8_t>(), 0x5A, 256);
  std::vector<uint8_t> gbefore(g.p<uint8_t>(), g.p<uint8_t>() + 256);
  const dim4 s = shape4(1, 2, 1, 16);
  auto global_same = [&] { EXPECT_EQ(0, std::memcmp(gbefore.data(), g.p<uint8_t>(), 256)); };
  // outside the allocation (system side): 2 x 16 fp32 = 128 bytes from byte 192
  expect_rejected(d, ErrorCode::Bounds, {"tpu_gdma_cpy_S2L: src [", "(128 bytes) is outside the live global allocation"},
                  [&] { d.gdma_S2L(0, g.a + 192, &s, nullptr, nullptr, DT_FP32); });
  expect_rejected(d, ErrorCode::Bounds, {"tpu_gdma_cpy_L2S: dst ["},
                  [&] { d.gdma_L2S(g.a + 192, 0, &s, nullptr, nullptr, DT_FP32); });
  global_same();
  // outside local memory
  expect_rejected(d, ErrorCode::Bounds, {"tpu_gdma_cpy_S2L: dst touches in-NPU bytes", "beyond LOCAL_MEM_SIZE"},
                  [&] { d.gdma_S2L(d.local_mem_size() - 32, g.a, &s, nullptr, nullptr, DT_FP32); });
  expect_rejected(d, ErrorCode::Bounds, {"tpu_gdma_cpy_L2L: src address 0x1000000 is outside local memory"},
                  [&] { d.gdma_L2L(0, 64 * 256 * 1024, &s, nullptr, nullptr, DT_FP32); });
  // misaligned local address
  expect_rejected(d, ErrorCode::Constraint, {"tpu_gdma_cpy_L2S: src in-NPU offset 0x2 must be a multiple of the element size 4"},
                  [&] { d.gdma_L2S(g.a, 2, &s, nullptr, nullptr, DT_FP32); });
  // the documented w-stride rule: at most 128 / element size
  const dim4 wide{64, 64, 64, 33};
  expect_rejected(d, ErrorCode::Constraint, {"tpu_gdma_cpy_S2L: src_stride->w must be <= 128 / element size = 32, got 33"},
                  [&] { d.gdma_S2L(0, g.a, &s, nullptr, &wide, DT_FP32); });
  const dim4 neg{-1, 0, 0, 1};
  expect_rejected(d, ErrorCode::Constraint, {"tpu_gdma_set_C_local: dst_stride must be non-negative"},
                  [&] { d.gdma_set_C_local(0, 0, &s, &neg, DT_FP32); });
  // a stale (freed) global address
  global_addr_t stale = tilesim::tpu::global_alloc(128);
  tilesim::tpu::global_free(stale);
  expect_rejected(d, ErrorCode::Bounds, {"tpu_gdma_cpy_S2L: src 0x", "lies in no live global allocation (stale, freed or never allocated)"},
                  [&] { d.gdma_S2L(0, stale, &s, nullptr, nullptr, DT_FP32); });
  expect_rejected(d, ErrorCode::Bounds, {"tpu_gdma_system_cpy: dst"},
                  [&] { d.gdma_system_cpy(stale, g.a, 4, DT_INT8); });
  // dtypes without whole bytes, shapes out of range
  expect_rejected(d, ErrorCode::Unsupported, {"tpu_gdma_cpy_S2S: dtype DT_INT4 (s4) is not an 8-, 16- or 32-bit type"},
                  [&] { d.gdma_S2S(g.a, g.a, &s, nullptr, nullptr, DT_INT4); });
  const dim4 zero = shape4(1, 0, 1, 1);
  expect_rejected(d, ErrorCode::Constraint, {"tpu_gdma_set_C_system: shape->c must be in [1, 65535], got 0"},
                  [&] { d.gdma_set_C_system(g.a, 0, &zero, nullptr, DT_FP32); });
  global_same();
}

}  // namespace
