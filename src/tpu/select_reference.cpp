// Scalar reference of the five compare-select functions (seed 001, spec 50 §3): the definition
// every fast path is tested against. Element by element, straight from the spec's formulas.
#include <cstring>
#include <vector>

#include "tpu/select.hpp"

namespace tilesim::tpu {
namespace {

uint32_t load_bits(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  std::memcpy(&v, p, static_cast<size_t>(bytes));  // little-endian host = the chip's byte order
  return v;
}

// a OP b for codes of dtype d: integers by the dtype's signedness; floats decoded exactly and
// compared by IEEE rules (NaN makes every comparison false, +0 == -0; spec 50 §3).
int64_t as_int(uint32_t code, const DTypeInfo& d) {
  if (d.kind == CmpKind::Unsigned) return code;
  const int sh = 64 - d.bits;
  return static_cast<int64_t>(static_cast<uint64_t>(code) << sh) >> sh;  // sign-extend
}
bool compare(SelectOp op, uint32_t a, uint32_t b, const DTypeInfo& d) {
  if (d.kind == CmpKind::Float) {
    const float x = formats::decode_f32(a, d.fmt), y = formats::decode_f32(b, d.fmt);
    switch (op) {
      case SelectOp::Greater:
      case SelectOp::MaximumGreater:
        return x > y;
      case SelectOp::Less:
      case SelectOp::MinimumLess:
        return x < y;
      case SelectOp::Equal:
        return x == y;
    }
  }
  const int64_t x = as_int(a, d), y = as_int(b, d);
  switch (op) {
    case SelectOp::Greater:
    case SelectOp::MaximumGreater:
      return x > y;
    case SelectOp::Less:
    case SelectOp::MinimumLess:
      return x < y;
    case SelectOp::Equal:
      return x == y;
  }
  return false;
}

}  // namespace

void select_reference(uint8_t* mem, const SelectPlan& p) {
  const int ec = dtype_bytes(*p.cmp), ev = dtype_bytes(*p.val);
  // Operand value at (n, c, h, w), spec 50 §3: TENSOR the aligned-layout element, VECTOR the
  // element at offset r of NPU (q + c) % NPU_NUM, SCALAR the constant.
  auto read = [&](int i, int64_t n, int64_t c, int64_t hw) -> uint32_t {
    const PlanSource& s = p.src[i];
    const int e = i < 2 ? ec : ev;
    const Strides& st = i < 2 ? p.cmp_s : p.val_s;
    const ChannelPos pos = channel_pos(p.q, c, p.npu_num);
    switch (s.kind) {
      case SCALAR:
        return s.bits;
      case VECTOR:
        return load_bits(mem + size_t(pos.npu) * p.npu_stride + s.r, e);
      case TENSOR:
        return load_bits(mem + size_t(pos.npu) * p.npu_stride + s.r + (n * st.n + pos.slot * st.c + hw) * e, e);
    }
    return 0;
  };
  const int64_t HW = p.H * p.W;
  const size_t total = static_cast<size_t>(p.N * p.C * HW);
  std::vector<uint32_t> out0(total), out1(p.extremum ? total : 0);
  size_t k = 0;
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t c = 0; c < p.C; ++c)
      for (int64_t hw = 0; hw < HW; ++hw, ++k) {
        const uint32_t s0 = read(0, n, c, hw), s1 = read(1, n, c, hw);
        const uint32_t s2 = read(2, n, c, hw), s3 = read(3, n, c, hw);
        const bool g = compare(p.op, s0, s1, *p.cmp);
        if (p.extremum) {
          out0[k] = g ? s0 : s1;  // ties go to src1 (spec 50 §3)
          out1[k] = g ? s2 : s3;  // ... and to src3
        } else {
          out0[k] = g ? s2 : s3;
        }
      }
  // All reads done; now the writes.
  auto write = [&](const std::vector<uint32_t>& out, uint32_t r, int e, const Strides& st) {
    size_t i = 0;
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t c = 0; c < p.C; ++c) {
        const ChannelPos pos = channel_pos(p.q, c, p.npu_num);
        for (int64_t hw = 0; hw < HW; ++hw, ++i)
          std::memcpy(mem + size_t(pos.npu) * p.npu_stride + r + (n * st.n + pos.slot * st.c + hw) * e, &out[i],
                      static_cast<size_t>(e));
      }
  };
  if (p.extremum) {
    write(out0, p.dst_r[0], ec, p.cmp_s);
    write(out1, p.dst_r[1], ev, p.val_s);
  } else {
    write(out0, p.dst_r[0], ev, p.val_s);
  }
}

}  // namespace tilesim::tpu
