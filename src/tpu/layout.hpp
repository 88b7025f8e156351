// Local-memory layout arithmetic of spec 50 §1, in one place: which NPU and in-NPU byte offset an
// (n, c, h, w) element has, and which bytes a tensor touches. Semantics never compute addresses
// any other way (spec 70 item 3).
#pragma once
#include <cstdint>

namespace tilesim::tpu {

inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
inline int64_t align_up(int64_t a, int64_t b) {
  return ceil_div(a, b) * b;
}

// Element strides of an (N, C, H, W) tensor whose channel 0 is on NPU q (spec 50 §1).
struct Strides {
  int64_t n, c, h, w;
};
// 64-byte aligned layout: c = ALIGN(H*W, EU_NUM(dtype)), n = ceil((q + C) / NPU_NUM) * c.
inline Strides aligned_strides(int64_t q, int64_t C, int64_t H, int64_t W, int elem_bytes,
                               int align_bytes, int npu_num) {
  const int64_t eu = align_bytes / elem_bytes;
  const int64_t cs = align_up(H * W, eu);
  return {ceil_div(q + C, npu_num) * cs, cs, W, 1};
}
// Compact layout: the same with c = H*W.
inline Strides compact_strides(int64_t q, int64_t C, int64_t H, int64_t W, int npu_num) {
  return {ceil_div(q + C, npu_num) * H * W, H * W, W, 1};
}

// Where channel c of a tensor starting on NPU q lives: NPU (q + c) % NPU_NUM, slot (q + c) /
// NPU_NUM.
struct ChannelPos {
  int64_t npu, slot;
};
inline ChannelPos channel_pos(int64_t q, int64_t c, int npu_num) {
  return {(q + c) % npu_num, (q + c) / npu_num};
}

// One past the last in-NPU byte any element of the tensor touches, relative to its in-NPU start
// offset r (the NPU holding the most slots; strides >= 0).
inline int64_t tensor_extent_bytes(const Strides& s, int64_t q, int64_t N, int64_t C, int64_t H,
                                   int64_t W, int elem_bytes, int npu_num) {
  const int64_t max_slot = (q + C - 1) / npu_num;
  return ((N - 1) * s.n + max_slot * s.c + (H - 1) * s.h + (W - 1) * s.w + 1) * elem_bytes;
}

// Whether a tensor's elements cover every byte of [r, r + tensor_extent_bytes) on every NPU
// (what lets a write skip the launch's lazy zeroing, Device::data_written): channel 0 on NPU 0,
// the same number of channels on every NPU, and no gap between rows, channels or batches.
inline bool writes_every_byte(const Strides& s, int64_t q, int64_t N, int64_t C, int64_t H, int64_t W,
                              int npu_num) {
  const int64_t slots = C / npu_num;
  return q == 0 && C % npu_num == 0 && (W == 1 || s.w == 1) && (H == 1 || s.h == W) &&
         (slots == 1 || s.c == H * W) && (N == 1 || s.n == slots * H * W);
}

}  // namespace tilesim::tpu
