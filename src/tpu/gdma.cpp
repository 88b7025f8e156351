// GDMA (spec 51 §2): every copy of the TPU-Kernel model is one walk over an (n, c, h, w) shape
// between two sides, each either local memory (NPU-distributed, spec 50 §1) or system memory (a
// global address of spec 51 §1, bounds-checked, or a host pointer). Every rule is checked and every
// address resolved before a byte moves; copies between one memory and itself go through a staging
// buffer, so an overlapping copy reads everything before it writes (as one DMA transfer would).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "tilesim/tpu.hpp"
#include "tpu/dtype.hpp"
#include "tpu/global_mem.hpp"
#include "tpu/layout.hpp"

namespace tilesim::tpu {
namespace {

constexpr const char* kDoc = "docs/tpu.md#gdma";

struct Side {
  bool local = false;
  const char* name = "";
  int64_t q = 0;        // local: start NPU
  uint32_t r = 0;       // local: in-NPU byte offset
  uint8_t* host = nullptr;  // system: the resolved base
  Strides s{};
  global_addr_t global = 0;  // system: the global address (0: a host pointer)
  uint64_t extent = 0;       // system: bytes from host to one past the last byte touched
};

struct Plan {
  const char* fn;
  int64_t N, C, H, W;
  int e;
  Side dst, src;
};

struct Planner {
  const Device& dev;
  const char* fn;
  [[noreturn]] void fail(ErrorCode c, const std::string& d, const char* spec = kDoc) const {
    raise(c, fn, d, spec);
  }

  int elem_bytes(int dtype) const {
    const DTypeInfo* d = dtype_info(dtype);
    if (!d) fail(ErrorCode::Unsupported, fmt::format("dtype {} is not a data_type_t value", dtype), "docs/tpu.md#gdma");
    if (!dtype_bytes(*d))
      fail(ErrorCode::Unsupported,
           fmt::format("dtype {} is not an 8-, 16- or 32-bit type", dtype_label(dtype)), "docs/tpu.md#gdma");
    return dtype_bytes(*d);
  }
  void shape(const dim4* s) const {
    if (!s) fail(ErrorCode::Constraint, "shape is NULL");
    const int v[4] = {s->n, s->c, s->h, s->w};
    for (int i = 0; i < 4; ++i)
      if (v[i] < 1 || v[i] > 65535)
        fail(ErrorCode::Constraint, fmt::format("shape->{} must be in [1, 65535], got {}", "nchw"[i], v[i]),
             "docs/tpu.md#gdma");
  }
  // A non-NULL stride (free layout): non-negative, and the w stride at most 128 bytes' worth of
  // elements (TPU-Kernel reference, GDMA page: "dst_stride->w and src_stride->w <= 128 /
  // tpu_data_type_size(dtype)").
  Strides given(const char* name, const dim4& s, int e) const {
    if (s.n < 0 || s.c < 0 || s.h < 0 || s.w < 0)
      fail(ErrorCode::Constraint,
           fmt::format("{}_stride must be non-negative, got [{}, {}, {}, {}]", name, s.n, s.c, s.h, s.w));
    if (s.w > 128 / e)
      fail(ErrorCode::Constraint,
           fmt::format("{}_stride->w must be <= 128 / element size = {}, got {}", name, 128 / e, s.w));
    return {s.n, s.c, s.h, s.w};
  }
  Side local(const char* name, local_addr_t addr, const dim4* stride, const Plan& p) const {
    Side sd;
    sd.local = true;
    sd.name = name;
    const uint64_t total = uint64_t{dev.local_mem_size()} * static_cast<uint64_t>(dev.npu_num());
    if (addr >= total)
      fail(ErrorCode::Bounds,
           fmt::format("{} address 0x{:x} is outside local memory (NPU_NUM {} x LOCAL_MEM_SIZE {} = {} bytes)",
                       name, addr, dev.npu_num(), dev.local_mem_size(), total),
           "docs/tpu.md#gdma");
    sd.q = addr / dev.local_mem_size();
    sd.r = addr % dev.local_mem_size();
    if (sd.r % static_cast<uint32_t>(p.e))
      fail(ErrorCode::Constraint,
           fmt::format("{} in-NPU offset 0x{:x} must be a multiple of the element size {}", name, sd.r, p.e));
    sd.s = stride ? given(name, *stride, p.e)
                  : aligned_strides(sd.q, p.C, p.H, p.W, p.e, dev.align_bytes(), dev.npu_num());
    const int64_t hi = sd.r + tensor_extent_bytes(sd.s, sd.q, p.N, p.C, p.H, p.W, p.e, dev.npu_num());
    if (hi > static_cast<int64_t>(dev.local_mem_size()))
      fail(ErrorCode::Bounds,
           fmt::format("{} touches in-NPU bytes [0x{:x}, 0x{:x}) for shape [{}, {}, {}, {}] starting on NPU {}, "
                       "beyond LOCAL_MEM_SIZE 0x{:x} ({})",
                       name, sd.r, hi, p.N, p.C, p.H, p.W, sd.q, dev.local_mem_size(), dev.profile().name),
           "docs/tpu.md#gdma");
    return sd;
  }
  Side system(const char* name, system_addr_t addr, const dim4* stride, const Plan& p) const {
    Side sd;
    sd.name = name;
    if (!addr) fail(ErrorCode::Constraint, fmt::format("{} (system address) is NULL (0)", name));
    sd.s = stride ? given(name, *stride, p.e) : Strides{p.C * p.H * p.W, p.H * p.W, p.W, 1};
    const uint64_t extent =
        static_cast<uint64_t>(((p.N - 1) * sd.s.n + (p.C - 1) * sd.s.c + (p.H - 1) * sd.s.h + (p.W - 1) * sd.s.w + 1) * p.e);
    sd.host = is_global(addr) ? global_span_lazy(addr, extent, fn, name)
                              : reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(addr));
    sd.global = is_global(addr) ? addr : 0;
    sd.extent = extent;
    return sd;
  }
};

Plan base_plan(const Planner& pl, const dim4* shape, int dtype) {
  pl.shape(shape);
  const int e = pl.elem_bytes(dtype);
  return Plan{pl.fn, shape->n, shape->c, shape->h, shape->w, e, {}, {}};
}

// Address of row (n, c, h) of a side.
// `stride` is Device::npu_stride() (docs/tpu.md#host-layout).
inline uint8_t* row(const Side& sd, uint8_t* mem, size_t stride, int npu_num, int64_t n, int64_t c, int64_t h,
                    int e) {
  if (sd.local) {
    const ChannelPos pos = channel_pos(sd.q, c, npu_num);
    return mem + size_t(pos.npu) * stride + sd.r + (n * sd.s.n + pos.slot * sd.s.c + h * sd.s.h) * e;
  }
  return sd.host + (n * sd.s.n + c * sd.s.c + h * sd.s.h) * e;
}

// The local memory, after every check: a local source's bytes noted as read first (a
// destination over them must not skip their zeros, Device::data_written), then a local
// destination's as written.
uint8_t* local_memory(Device& dev, const Plan& p) {
  if (p.src.local) {
    const int64_t hi = p.src.r + tensor_extent_bytes(p.src.s, p.src.q, p.N, p.C, p.H, p.W, p.e, dev.npu_num());
    dev.data_read(p.src.r, static_cast<uint32_t>(hi));
  }
  if (!p.dst.local) return dev.data_written(0, 0);
  const int64_t hi = p.dst.r + tensor_extent_bytes(p.dst.s, p.dst.q, p.N, p.C, p.H, p.W, p.e, dev.npu_num());
  return dev.data_written(p.dst.r, static_cast<uint32_t>(hi),
                          writes_every_byte(p.dst.s, p.dst.q, p.N, p.C, p.H, p.W, dev.npu_num()));
}

// Moves the elements; `stage` first gathers the source into a dense buffer (same memory on both
// sides: every read happens before any write).
void run(Device& dev, const Plan& p, bool stage) {
  uint8_t* mem = local_memory(dev, p);
  const size_t stride = dev.npu_stride();
  const int npu = dev.npu_num();
  const int e = p.e;
  std::vector<uint8_t> buf;
  Side src = p.src;
  if (stage) {
    buf.resize(static_cast<size_t>(p.N * p.C * p.H * p.W * e));
    Side dense;
    dense.host = buf.data();
    dense.s = {p.C * p.H * p.W, p.H * p.W, p.W, 1};
    Plan g = p;
    g.dst = dense;
    run(dev, g, false);
    src = dense;
  }
  const bool dense_w = p.dst.s.w == 1 && src.s.w == 1;
  // Rows that follow each other on both sides (the aligned layout, continuous system memory) are
  // one run of H*W elements per (n, c).
  const bool flat = dense_w && (p.H == 1 || (p.dst.s.h == p.W && src.s.h == p.W));
  const int64_t rows = flat ? 1 : p.H, run_bytes = (flat ? p.H * p.W : p.W) * e;
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t c = 0; c < p.C; ++c)
      for (int64_t h = 0; h < rows; ++h) {
        uint8_t* d = row(p.dst, mem, stride, npu, n, c, h, e);
        const uint8_t* s = row(src, mem, stride, npu, n, c, h, e);
        if (dense_w) {
          std::memmove(d, s, static_cast<size_t>(run_bytes));
        } else {
          for (int64_t w = 0; w < p.W; ++w) std::memmove(d + w * p.dst.s.w * e, s + w * src.s.w * e, e);
        }
      }
}

// Whether a copy between one memory and itself must be staged: the two sides' byte ranges meet
// (local: the in-NPU ranges, on any NPU; system: the host byte ranges).
bool sides_meet(const Device& dev, const Plan& p) {
  auto span = [&](const Side& sd) {
    if (sd.local) {
      const int64_t lo = sd.r;
      return std::pair{lo, lo + tensor_extent_bytes(sd.s, sd.q, p.N, p.C, p.H, p.W, p.e, dev.npu_num())};
    }
    const int64_t lo = static_cast<int64_t>(reinterpret_cast<uintptr_t>(sd.host));
    return std::pair{lo, lo + ((p.N - 1) * sd.s.n + (p.C - 1) * sd.s.c + (p.H - 1) * sd.s.h + (p.W - 1) * sd.s.w + 1) *
                                  p.e};
  };
  const auto [dlo, dhi] = span(p.dst);
  const auto [slo, shi] = span(p.src);
  return dlo < shi && slo < dhi;
}

void fill(Device& dev, const Plan& p, uint32_t bits) {
  uint8_t* mem = local_memory(dev, p);
  uint8_t code[4];
  std::memcpy(code, &bits, 4);  // the low bytes of the scalar_t are the value (little-endian host)
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t c = 0; c < p.C; ++c)
      for (int64_t h = 0; h < p.H; ++h) {
        uint8_t* d = row(p.dst, mem, dev.npu_stride(), dev.npu_num(), n, c, h, p.e);
        for (int64_t w = 0; w < p.W; ++w) std::memcpy(d + w * p.dst.s.w * p.e, code, p.e);
      }
}

// Global memory is zeroed lazily (global_mem.hpp): once every check has passed, a system source
// range gets its pending zeros, and a system destination range too unless the copy writes every
// byte of it (contiguous: the continuous strides).
void settle_global(const Plan& p, bool reads_src) {
  if (reads_src && p.src.global) global_touch(p.src.global, p.src.extent, false);
  if (p.dst.global) {
    const Strides& s = p.dst.s;
    const bool whole = s.w == 1 && s.h == p.W && s.c == p.H * p.W && s.n == p.C * p.H * p.W;
    global_touch(p.dst.global, p.dst.extent, whole);
  }
}

// A side as the caller names it: local memory or a system address, and its stride (NULL: the
// side's default layout).
struct Arg {
  bool local;
  uint64_t addr;
  const dim4* stride;
};
Side resolve(const Planner& pl, const char* name, const Arg& a, const Plan& p) {
  return a.local ? pl.local(name, static_cast<local_addr_t>(a.addr), a.stride, p)
                 : pl.system(name, a.addr, a.stride, p);
}

// A copy: shape and dtype checked, both sides resolved (dst first for S2L, as before), then the
// move; a copy within one memory is staged when its sides meet (every read before any write).
void copy(Device& dev, const char* fn, const dim4* shape, int dtype, const Arg& dst, const Arg& src,
          bool dst_first) {
  const Planner pl{dev, fn};
  Plan p = base_plan(pl, shape, dtype);
  if (dst_first) p.dst = resolve(pl, "dst", dst, p);
  p.src = resolve(pl, "src", src, p);
  if (!dst_first) p.dst = resolve(pl, "dst", dst, p);
  settle_global(p, true);
  run(dev, p, dst.local == src.local && sides_meet(dev, p));
}
void set_c(Device& dev, const char* fn, const dim4* shape, int dtype, const Arg& dst, uint32_t c_bits) {
  const Planner pl{dev, fn};
  Plan p = base_plan(pl, shape, dtype);
  p.dst = resolve(pl, "dst", dst, p);
  settle_global(p, false);
  fill(dev, p, c_bits);
}

}  // namespace

void Device::gdma_S2L(local_addr_t dst, system_addr_t src, const dim4* shape, const dim4* dst_stride,
                      const dim4* src_stride, int dtype) {
  copy(*this, "tpu_gdma_cpy_S2L", shape, dtype, {true, dst, dst_stride}, {false, src, src_stride}, true);
}
void Device::gdma_L2S(system_addr_t dst, local_addr_t src, const dim4* shape, const dim4* dst_stride,
                      const dim4* src_stride, int dtype) {
  copy(*this, "tpu_gdma_cpy_L2S", shape, dtype, {false, dst, dst_stride}, {true, src, src_stride}, false);
}
void Device::gdma_L2L(local_addr_t dst, local_addr_t src, const dim4* shape, const dim4* dst_stride,
                      const dim4* src_stride, int dtype) {
  copy(*this, "tpu_gdma_cpy_L2L", shape, dtype, {true, dst, dst_stride}, {true, src, src_stride}, false);
}
void Device::gdma_S2S(system_addr_t dst, system_addr_t src, const dim4* shape, const dim4* dst_stride,
                      const dim4* src_stride, int dtype) {
  copy(*this, "tpu_gdma_cpy_S2S", shape, dtype, {false, dst, dst_stride}, {false, src, src_stride}, false);
}
void Device::gdma_set_C_system(system_addr_t dst, uint32_t c_bits, const dim4* shape,
                               const dim4* dst_stride, int dtype) {
  set_c(*this, "tpu_gdma_set_C_system", shape, dtype, {false, dst, dst_stride}, c_bits);
}
void Device::gdma_set_C_local(local_addr_t dst, uint32_t c_bits, const dim4* shape,
                              const dim4* dst_stride, int dtype) {
  set_c(*this, "tpu_gdma_set_C_local", shape, dtype, {true, dst, dst_stride}, c_bits);
}
void Device::gdma_system_cpy(system_addr_t dst, system_addr_t src, uint64_t count, int dtype) {
  const Planner pl{*this, "tpu_gdma_system_cpy"};
  const int e = pl.elem_bytes(dtype);
  if (count == 0) return;
  const uint64_t bytes = count * static_cast<uint64_t>(e);
  auto resolve = [&](system_addr_t a, const char* name) -> uint8_t* {
    if (!a) pl.fail(ErrorCode::Constraint, fmt::format("{} (system address) is NULL (0)", name));
    return is_global(a) ? global_span_lazy(a, bytes, pl.fn, name)
                        : reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(a));
  };
  uint8_t* s = resolve(src, "src");
  uint8_t* d = resolve(dst, "dst");
  if (is_global(src)) global_touch(src, bytes, false);  // see settle_global
  if (is_global(dst)) global_touch(dst, bytes, true);
  std::memmove(d, s, bytes);
}

// Host-pointer forms (spec 50 §5, kept for existing callers).
void Device::gdma_cpy_S2L_raw(local_addr_t dst, const void* src, const dim4* shape, const dim4* dst_stride,
                              const dim4* src_stride, int dtype) {
  gdma_S2L(dst, static_cast<system_addr_t>(reinterpret_cast<uintptr_t>(src)), shape, dst_stride, src_stride,
           dtype);
}
void Device::gdma_cpy_L2S_raw(void* dst, local_addr_t src, const dim4* shape, const dim4* dst_stride,
                              const dim4* src_stride, int dtype) {
  gdma_L2S(static_cast<system_addr_t>(reinterpret_cast<uintptr_t>(dst)), src, shape, dst_stride, src_stride,
           dtype);
}
void Device::gdma_cpy_S2L(local_addr_t dst, const void* src, const dim4* shape, const dim4* dst_stride,
                          const dim4* src_stride, data_type_t dtype) {
  gdma_cpy_S2L_raw(dst, src, shape, dst_stride, src_stride, raw_enum(dtype));
}
void Device::gdma_cpy_L2S(void* dst, local_addr_t src, const dim4* shape, const dim4* dst_stride,
                          const dim4* src_stride, data_type_t dtype) {
  gdma_cpy_L2S_raw(dst, src, shape, dst_stride, src_stride, raw_enum(dtype));
}

}  // namespace tilesim::tpu
