// tilesim::tpu::Device: one chip's simulated local memory (spec 50 §1), its layout helpers, the
// GDMA copies of spec 50 §5, and the entry of the five compare-select functions.
#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "tilesim/tpu.hpp"
#include "tpu/dtype.hpp"
#include "tpu/layout.hpp"
#include "tpu/select.hpp"

namespace tilesim::tpu {

Device::Device(std::string_view chip)
    : chip_(&find_chip(chip)),
      mem_(static_cast<size_t>(chip_->local_mem_size) * static_cast<size_t>(chip_->npu_num), 0) {}

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
          "50 §1");
  if (shape.n < 0 || shape.c < 0 || shape.h < 0 || shape.w < 0)
    raise(ErrorCode::Constraint, fn,
          fmt::format("shape [{}, {}, {}, {}] has a negative dimension", shape.n, shape.c, shape.h, shape.w), "50 §1");
}
dim4 narrow_strides(const char* fn, const Strides& s) {
  for (const int64_t v : {s.n, s.c, s.h, s.w})
    if (v > INT32_MAX || v < INT32_MIN)
      raise(ErrorCode::Bounds, fn,
            fmt::format("strides [{}, {}, {}, {}] do not fit dim4's int fields", s.n, s.c, s.h, s.w), "50 §1");
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
          "50 §1");
  if (!d || !dtype_bytes(*d))
    raise(ErrorCode::Unsupported, "tpu_aligned_stride",
          fmt::format("dtype {} has no whole-byte element size", dtype_label(dtype)), "50 §2");
  check_layout_args("tpu_aligned_stride", start_idx, *shape, npu_num());
  const Strides s = aligned_strides(start_idx, shape->c, shape->h, shape->w, dtype_bytes(*d),
                                    align_bytes(), npu_num());
  *stride = narrow_strides("tpu_aligned_stride", s);
}

void Device::compact_stride(dim4* stride, int start_idx, const dim4* shape) const {
  if (!stride || !shape)
    raise(ErrorCode::Constraint, "tpu_compact_stride", "stride and shape must not be NULL",
          "50 §1");
  check_layout_args("tpu_compact_stride", start_idx, *shape, npu_num());
  const Strides s = compact_strides(start_idx, shape->c, shape->h, shape->w, npu_num());
  *stride = narrow_strides("tpu_compact_stride", s);
}

// ---- GDMA (spec 50 §5) ----
namespace {

struct Copy {
  int64_t N, C, H, W;
  int e;
  int64_t q;
  uint32_t r;
  Strides local, sys;
};

Copy plan_copy(const Device& dev, const char* instr, local_addr_t laddr, const void* host,
               const dim4* shape, const dim4* local_stride, const dim4* sys_stride, int dtype,
               const char* local_name, const char* sys_name) {
  auto fail = [&](ErrorCode c, const std::string& d, const char* spec = "50 §5") {
    raise(c, instr, d, spec);
  };
  if (!host) fail(ErrorCode::Constraint, fmt::format("{} (system address) is NULL", sys_name));
  if (!shape) fail(ErrorCode::Constraint, "shape is NULL");
  const int dt = dtype;
  const DTypeInfo* d = dtype_info(dt);
  if (!d)
    fail(ErrorCode::Unsupported, fmt::format("dtype {} is not a data_type_t value", dt), "50 §2");
  if (!dtype_bytes(*d))
    fail(ErrorCode::Unsupported,
         fmt::format("dtype {} is not an 8-, 16- or 32-bit type", dtype_label(dt)), "50 §2");
  const int* dims[4] = {&shape->n, &shape->c, &shape->h, &shape->w};
  const char* names = "nchw";
  for (int i = 0; i < 4; ++i)
    if (*dims[i] < 1 || *dims[i] > 65535)
      fail(ErrorCode::Constraint,
           fmt::format("shape->{} must be in [1, 65535], got {}", names[i], *dims[i]), "50 §4");
  for (const dim4* s : {local_stride, sys_stride})
    if (s && (s->n < 0 || s->c < 0 || s->h < 0 || s->w < 0))
      fail(ErrorCode::Constraint,
           fmt::format("{}_stride must be non-negative, got [{}, {}, {}, {}]",
                       s == local_stride ? local_name : sys_name, s->n, s->c, s->h, s->w));
  Copy c{shape->n, shape->c, shape->h, shape->w, dtype_bytes(*d), 0, 0, {}, {}};
  const uint64_t total = uint64_t{dev.local_mem_size()} * static_cast<uint64_t>(dev.npu_num());
  if (laddr >= total)
    fail(ErrorCode::Bounds,
         fmt::format("{} address 0x{:x} is outside local memory (NPU_NUM {} x LOCAL_MEM_SIZE {} = "
                     "{} bytes)",
                     local_name, laddr, dev.npu_num(), dev.local_mem_size(), total),
         "50 §1");
  c.q = laddr / dev.local_mem_size();
  c.r = laddr % dev.local_mem_size();
  if (c.r % static_cast<uint32_t>(c.e))
    fail(ErrorCode::Constraint,
         fmt::format("{} in-NPU offset 0x{:x} must be a multiple of the element size {}",
                     local_name, c.r, c.e));
  c.local = local_stride
                ? Strides{local_stride->n, local_stride->c, local_stride->h, local_stride->w}
                : aligned_strides(c.q, c.C, c.H, c.W, c.e, dev.align_bytes(), dev.npu_num());
  c.sys = sys_stride ? Strides{sys_stride->n, sys_stride->c, sys_stride->h, sys_stride->w}
                     : Strides{c.C * c.H * c.W, c.H * c.W, c.W, 1};
  const int64_t hi =
      c.r + tensor_extent_bytes(c.local, c.q, c.N, c.C, c.H, c.W, c.e, dev.npu_num());
  if (hi > static_cast<int64_t>(dev.local_mem_size()))
    fail(ErrorCode::Bounds,
         fmt::format("{} touches in-NPU bytes [0x{:x}, 0x{:x}) for shape [{}, {}, {}, {}] starting "
                     "on NPU {}, beyond LOCAL_MEM_SIZE 0x{:x} ({})",
                     local_name, c.r, hi, c.N, c.C, c.H, c.W, c.q, dev.local_mem_size(),
                     dev.profile().name),
         "50 §1");
  return c;
}

// Moves every element between host and local memory; to_local selects the direction.
void run_copy(uint8_t* mem, uint32_t lms, int npu_num, const Copy& c, uint8_t* host_w,
              const uint8_t* host_r, bool to_local) {
  const bool dense_w = c.local.w == 1 && c.sys.w == 1;
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t ch = 0; ch < c.C; ++ch) {
      const ChannelPos pos = channel_pos(c.q, ch, npu_num);
      uint8_t* lbase = mem + pos.npu * lms + c.r + (n * c.local.n + pos.slot * c.local.c) * c.e;
      const int64_t sbase = (n * c.sys.n + ch * c.sys.c) * c.e;
      for (int64_t h = 0; h < c.H; ++h) {
        uint8_t* l = lbase + h * c.local.h * c.e;
        const int64_t s = sbase + h * c.sys.h * c.e;
        if (dense_w) {
          if (to_local)
            std::memmove(l, host_r + s, static_cast<size_t>(c.W * c.e));
          else
            std::memmove(host_w + s, l, static_cast<size_t>(c.W * c.e));
          continue;
        }
        for (int64_t w = 0; w < c.W; ++w) {
          if (to_local)
            std::memcpy(l + w * c.local.w * c.e, host_r + s + w * c.sys.w * c.e, c.e);
          else
            std::memcpy(host_w + s + w * c.sys.w * c.e, l + w * c.local.w * c.e, c.e);
        }
      }
    }
}

}  // namespace

void Device::gdma_cpy_S2L(local_addr_t dst, const void* src, const dim4* shape,
                          const dim4* dst_stride, const dim4* src_stride, data_type_t dtype) {
  gdma_cpy_S2L_raw(dst, src, shape, dst_stride, src_stride, raw_enum(dtype));
}
void Device::gdma_cpy_S2L_raw(local_addr_t dst, const void* src, const dim4* shape,
                              const dim4* dst_stride, const dim4* src_stride, int dtype) {
  const Copy c = plan_copy(*this, "tpu_gdma_cpy_S2L", dst, src, shape, dst_stride, src_stride,
                           dtype, "dst", "src");
  run_copy(mem_.data(), local_mem_size(), npu_num(), c, nullptr, static_cast<const uint8_t*>(src),
           true);
}

void Device::gdma_cpy_L2S(void* dst, local_addr_t src, const dim4* shape, const dim4* dst_stride,
                          const dim4* src_stride, data_type_t dtype) {
  gdma_cpy_L2S_raw(dst, src, shape, dst_stride, src_stride, raw_enum(dtype));
}
void Device::gdma_cpy_L2S_raw(void* dst, local_addr_t src, const dim4* shape,
                              const dim4* dst_stride, const dim4* src_stride, int dtype) {
  const Copy c = plan_copy(*this, "tpu_gdma_cpy_L2S", src, dst, shape, src_stride, dst_stride,
                           dtype, "src", "dst");
  run_copy(mem_.data(), local_mem_size(), npu_num(), c, static_cast<uint8_t*>(dst), nullptr, false);
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
  const SelectPlan p = plan_select(*chip_, op, dst0, dst1, src, shape, dtype_a, dtype_b);
  if (reference_)
    select_reference(mem_.data(), p);
  else
    select_fast(mem_.data(), p);
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
