// tilesim::tpu::Device: one chip's simulated local memory (spec 50 §1), its layout helpers, the
// GDMA copies of spec 50 §5, and the entry of the five compare-select functions.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "tilesim/tpu.hpp"
#include "tpu/dtype.hpp"
#include "tpu/layout.hpp"
#include "tpu/select.hpp"

namespace tilesim::tpu {

namespace {
// Host bytes between NPU k's and NPU k + 1's local memory (docs/tpu.md#host-layout): 4 KiB of
// padding after each NPU. At a stride of LOCAL_MEM_SIZE (a power of two) the same channel plane of
// all NPUs maps to the same L2 sets, so an operand's 64 planes compete for 8 ways; 4 KiB moves
// each NPU's plane to the next 4 KiB of the L2's 128 KiB set period. Measured (64 K-element
// fp_add/max/greater/hardtanh, one thread) against pads of 0, 64, 4160, 8192, 12288 and 16384
// bytes: 4096 was fastest, 10-15% faster than no pad at 64 K elements.
constexpr size_t kNpuHostPad = 4096;
size_t host_npu_stride(uint32_t lms) {
  return size_t{lms} + kNpuHostPad;
}
}  // namespace

Device::Device(std::string_view chip)
    : chip_(&find_chip(chip)),
      stride_(host_npu_stride(chip_->local_mem_size)),
      mem_(stride_ * static_cast<size_t>(chip_->npu_num), 0) {}

std::span<uint8_t> Device::npu_memory(int k) {
  if (k < 0 || k >= npu_num())
    raise(ErrorCode::Bounds, "tilesim::tpu::Device::npu_memory",
          fmt::format("NPU {} is outside [0, NPU_NUM = {})", k, npu_num()), "docs/tpu.md#host-layout");
  return memory().subspan(size_t(k) * stride_, local_mem_size());
}
std::span<const uint8_t> Device::npu_memory(int k) const {
  if (k < 0 || k >= npu_num())
    raise(ErrorCode::Bounds, "tilesim::tpu::Device::npu_memory",
          fmt::format("NPU {} is outside [0, NPU_NUM = {})", k, npu_num()), "docs/tpu.md#host-layout");
  return memory().subspan(size_t(k) * stride_, local_mem_size());
}

namespace {
using detail::Granules;
// Granules of in-NPU bytes [lo, hi): those it meets, or (`inside`) those it covers whole.
Granules granule_mask(uint32_t lms, uint32_t lo, uint32_t hi, bool inside) {
  constexpr uint32_t kN = Granules::kCount;
  const uint32_t g = lms / kN;  // every chip's LOCAL_MEM_SIZE is a multiple of 256
  Granules m;
  if (hi <= lo) return m;
  const uint32_t first = inside ? (lo + g - 1) / g : lo / g;
  const uint32_t end = std::min<uint32_t>(inside ? hi / g : (hi - 1) / g + 1, kN);  // one past the last
  for (uint32_t k = first; k < end;) {
    if (k % 64 == 0 && end - k >= 64) {  // a whole word
      m.w[k / 64] = ~uint64_t{0};
      k += 64;
      continue;
    }
    m.w[k / 64] |= uint64_t{1} << (k % 64);
    ++k;
  }
  return m;
}
}  // namespace

void Device::settle(const Granules& mask) const noexcept {
  const Granules z = pending_ & mask;
  if (!z.any()) return;
  constexpr int kN = Granules::kCount;
  const size_t g = local_mem_size() / kN;
  for (int b = 0; b < kN;) {
    if (!z.test(b)) {
      ++b;
      continue;
    }
    int e = b;  // a run of granules: one memset per NPU
    while (e < kN && z.test(e)) ++e;
    for (int k = 0; k < npu_num(); ++k)
      std::memset(mem_.data() + size_t(k) * stride_ + size_t(b) * g, 0, size_t(e - b) * g);
    b = e;
  }
  pending_ &= ~z;
}

void Device::data_read(uint32_t lo, uint32_t hi) noexcept {
  if (pending_.any()) settle(granule_mask(local_mem_size(), lo, hi, false));
}

uint8_t* Device::data_written(uint32_t lo, uint32_t hi, bool whole) noexcept {
  const Granules touched = granule_mask(local_mem_size(), lo, hi, false);
  if ((pending_ & touched).any()) {
    // Granules the write covers whole on every NPU need no zeros; the others (partly written,
    // or written with gaps) are zeroed first.
    const Granules covered = whole ? granule_mask(local_mem_size(), lo, hi, true) : Granules{};
    settle(touched & ~covered);
    pending_ &= ~covered;
  }
  written_ |= touched;
  return mem_.data();
}

void Device::zero_memory() noexcept {
  pending_ |= written_;
  written_ = Granules{};
  if (viewed_) settle(Granules::all());  // a host view may be read directly
}

int Device::eu_num(data_type_t dtype) const {
  return eu_num_raw(raw_enum(dtype));
}
int Device::eu_num_raw(int dtype) const {
  const DTypeInfo* d = dtype_info(dtype);
  if (!d || !dtype_bytes(*d)) return 0;
  return align_bytes() / dtype_bytes(*d);
}

namespace {
// The layout helpers' arguments (spec 50 §1): a start NPU of the chip, no negative dimension, and
// strides that fit the vendor's int dim4 (a silent narrowing would hand the kernel wrong strides).
void check_layout_args(const char* fn, int start_idx, const dim4& shape, int npu_num) {
  if (start_idx < 0 || start_idx >= npu_num)
    raise(ErrorCode::Constraint, fn, fmt::format("start_idx {} is outside [0, NPU_NUM = {})", start_idx, npu_num),
          "docs/tpu.md#layout");
  if (shape.n < 0 || shape.c < 0 || shape.h < 0 || shape.w < 0)
    raise(ErrorCode::Constraint, fn,
          fmt::format("shape [{}, {}, {}, {}] has a negative dimension", shape.n, shape.c, shape.h, shape.w), "docs/tpu.md#layout");
}
dim4 narrow_strides(const char* fn, const Strides& s) {
  for (const int64_t v : {s.n, s.c, s.h, s.w})
    if (v > INT32_MAX || v < INT32_MIN)
      raise(ErrorCode::Bounds, fn,
            fmt::format("strides [{}, {}, {}, {}] do not fit dim4's int fields", s.n, s.c, s.h, s.w), "docs/tpu.md#layout");
  return dim4{static_cast<int>(s.n), static_cast<int>(s.c), static_cast<int>(s.h), static_cast<int>(s.w)};
}
}  // namespace

void Device::aligned_stride(dim4* stride, int start_idx, const dim4* shape,
                            data_type_t dtype) const {
  aligned_stride_raw(stride, start_idx, shape, raw_enum(dtype));
}
void Device::aligned_stride_raw(dim4* stride, int start_idx, const dim4* shape, int dtype) const {
  const DTypeInfo* d = dtype_info(dtype);
  if (!stride || !shape)
    raise(ErrorCode::Constraint, "tpu_aligned_stride", "stride and shape must not be NULL",
          "docs/tpu.md#layout");
  if (!d || !dtype_bytes(*d))
    raise(ErrorCode::Unsupported, "tpu_aligned_stride",
          fmt::format("dtype {} has no whole-byte element size", dtype_label(dtype)), "docs/tpu.md#layout");
  check_layout_args("tpu_aligned_stride", start_idx, *shape, npu_num());
  const Strides s = aligned_strides(start_idx, shape->c, shape->h, shape->w, dtype_bytes(*d),
                                    align_bytes(), npu_num());
  *stride = narrow_strides("tpu_aligned_stride", s);
}

void Device::compact_stride(dim4* stride, int start_idx, const dim4* shape) const {
  if (!stride || !shape)
    raise(ErrorCode::Constraint, "tpu_compact_stride", "stride and shape must not be NULL",
          "docs/tpu.md#layout");
  check_layout_args("tpu_compact_stride", start_idx, *shape, npu_num());
  const Strides s = compact_strides(start_idx, shape->c, shape->h, shape->w, npu_num());
  *stride = narrow_strides("tpu_compact_stride", s);
}

void Device::continuous_stride(dim4* stride, const dim4* shape) const {
  if (!stride || !shape)
    raise(ErrorCode::Constraint, "tpu_continuous_stride", "stride and shape must not be NULL", "docs/tpu.md#layout");
  check_layout_args("tpu_continuous_stride", 0, *shape, npu_num());
  const int64_t W = shape->w, H = shape->h, C = shape->c;
  *stride = narrow_strides("tpu_continuous_stride", Strides{C * H * W, H * W, W, 1});
}

int Device::aligned_feature_size(int h, int w, int dtype) const {
  const DTypeInfo* d = dtype_info(dtype);
  if (!d || !dtype_bytes(*d))
    raise(ErrorCode::Unsupported, "tpu_aligned_feature_size",
          fmt::format("dtype {} has no whole-byte element size", dtype_label(dtype)), "docs/tpu.md#layout");
  if (h < 0 || w < 0)
    raise(ErrorCode::Constraint, "tpu_aligned_feature_size", fmt::format("h {} and w {} must be >= 0", h, w),
          "docs/tpu.md#layout");
  const int64_t e = dtype_bytes(*d);
  const int64_t bytes = align_up(int64_t{h} * w, align_bytes() / e) * e;
  if (bytes > INT32_MAX)
    raise(ErrorCode::Bounds, "tpu_aligned_feature_size", fmt::format("h {} x w {} overflows int", h, w), "docs/tpu.md#layout");
  return static_cast<int>(bytes);
}

// ---- BDC compare-select ----
void Device::select(SelectOp op, local_addr_t dst0, local_addr_t dst1, const variable_t* src0,
                    const variable_t* src1, const variable_t* src2, const variable_t* src3,
                    const dim4* shape, data_type_t dtype_a, data_type_t dtype_b) {
  select_raw(op, dst0, dst1, src0, src1, src2, src3, shape, raw_enum(dtype_a), raw_enum(dtype_b));
}
void Device::select_raw(SelectOp op, local_addr_t dst0, local_addr_t dst1, const variable_t* src0,
                        const variable_t* src1, const variable_t* src2, const variable_t* src3,
                        const dim4* shape, int dtype_a, int dtype_b) {
  const variable_t* const src[4] = {src0, src1, src2, src3};
  run_select(*this, op, dst0, dst1, src, shape, dtype_a, dtype_b);  // on the BDC walker
}

void Device::greater_select(local_addr_t dst, const variable_t* src0, const variable_t* src1,
                            const variable_t* src2, const variable_t* src3, const dim4* shape,
                            data_type_t a, data_type_t b) {
  select(SelectOp::Greater, dst, 0, src0, src1, src2, src3, shape, a, b);
}
void Device::less_select(local_addr_t dst, const variable_t* src0, const variable_t* src1,
                         const variable_t* src2, const variable_t* src3, const dim4* shape,
                         data_type_t a, data_type_t b) {
  select(SelectOp::Less, dst, 0, src0, src1, src2, src3, shape, a, b);
}
void Device::equal_select(local_addr_t dst, const variable_t* src0, const variable_t* src1,
                          const variable_t* src2, const variable_t* src3, const dim4* shape,
                          data_type_t a, data_type_t b) {
  select(SelectOp::Equal, dst, 0, src0, src1, src2, src3, shape, a, b);
}
void Device::maximum_greater_select(local_addr_t dst0, local_addr_t dst1, const variable_t* src0,
                                    const variable_t* src1, const variable_t* src2,
                                    const variable_t* src3, const dim4* shape, data_type_t a,
                                    data_type_t b) {
  select(SelectOp::MaximumGreater, dst0, dst1, src0, src1, src2, src3, shape, a, b);
}
void Device::minimum_less_select(local_addr_t dst0, local_addr_t dst1, const variable_t* src0,
                                 const variable_t* src1, const variable_t* src2,
                                 const variable_t* src3, const dim4* shape, data_type_t a,
                                 data_type_t b) {
  select(SelectOp::MinimumLess, dst0, dst1, src0, src1, src2, src3, shape, a, b);
}

}  // namespace tilesim::tpu
