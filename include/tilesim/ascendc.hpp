// <tilesim/ascendc.hpp> — the Ascend C vector API in the vendor's names (spec 40, spec 60 §3):
// LocalTensor over a simulated UB, the kernel scaffolding (TPipe, TBuf, TQue, GlobalTensor,
// DataCopy, Duplicate), the mask register API and BlockReduceSum/Max/Min. A thin layer: every
// rule and all arithmetic live in the engine (tilesim/ascendc/engine.hpp, src/ascendc/).
#pragma once
#include "tilesim/half.hpp"
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tilesim/ascendc/engine.hpp"
// The device compiler's pipe names are global (PipeBarrier<PIPE_V>()), shared with PTO.
#include "tilesim/device.hpp"

namespace AscendC {

// fp16 values as the vendor's `half`: portable (no _Float16, see tilesim/half.hpp).
using half = tilesim::half;

enum class TPosition : uint8_t { GM, VECIN, VECOUT, VECCALC, A1, A2, B1, B2, CO1, CO2 };
using QuePosition = TPosition;
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER = 1 };
using ::pipe_t;

// Passed as the mask of a vector instruction called with isSetMask = false (spec 40 §1).
inline constexpr int32_t MASK_PLACEHOLDER = 0;

// One simulated core (spec 60 §3).
inline int64_t GetBlockIdx() {
  return 0;
}
inline int64_t GetBlockNum() {
  return 1;
}

// Selects the product profile (spec 40 §5) and resets the simulated core (UB, mask, saturation).
inline void set_product(std::string_view name) {
  tilesim::ascendc::set_product(name);
}
// Overrides the half-SUM saturation mode of the current product (spec 40 §5, last paragraph).
inline void SetSaturation(bool on) {
  tilesim::ascendc::core().saturation = on;
}

template <pipe_t pipe>
inline void PipeBarrier() {}  // the twin executes in program order

namespace detail {
namespace ts = tilesim::ascendc;
// Host pointer of UB bytes [addr, addr + bytes), bounds-checked against the current UB.
uint8_t* ub_ptr(uint64_t addr, uint64_t bytes, const char* what, const char* operand = nullptr);
[[noreturn]] void count_error(const char* what, int64_t count, uint64_t size);
[[noreturn]] void index_error(const char* what, uint64_t index, uint64_t size);
void data_copy(void* dst, uint64_t dst_elems, const void* src, uint64_t src_elems, uint64_t count,
               unsigned elem_size);
void reduce(ts::ReduceOp op, ts::Elem t, uint64_t dst_addr, uint64_t dst_size, uint64_t src_addr,
            uint64_t src_size, int32_t repeat, const ts::MaskArg& mask, int32_t dst_rep,
            int32_t src_blk, int32_t src_rep);
void set_vector_mask(ts::Elem t, bool counter, bool bits, uint64_t high, uint64_t low, int64_t len);

// FIFO bookkeeping of a TQue (non-template, src/ascendc/kernel.cpp).
class QueueState {
 public:
  void init(unsigned num, uint64_t len);
  uint64_t alloc();
  void enque(uint64_t addr);
  uint64_t deque();
  void free(uint64_t addr);
  uint64_t len() const { return len_; }

 private:
  std::vector<uint64_t> addr_;
  std::vector<uint8_t> state_;  // 0 free, 1 allocated, 2 queued
  std::vector<uint64_t> fifo_;
  uint64_t len_ = 0;
};

template <class T>
constexpr bool is_reduce_type = std::is_same_v<T, half> || std::is_same_v<T, float>;
template <class T>
constexpr ts::Elem elem_of() {
  return std::is_same_v<T, half> ? ts::Elem::f16 : ts::Elem::f32;
}
}  // namespace detail

template <typename T>
class LocalTensor {
 public:
  LocalTensor() = default;
  LocalTensor(uint64_t addr, uint64_t size, TPosition pos) : addr_(addr), size_(size), pos_(pos) {}

  uint64_t GetSize() const { return size_; }
  uint64_t GetLength() const { return size_ * sizeof(T); }  // bytes
  TPosition GetPosition() const { return pos_; }
  uint64_t address() const { return addr_; }  // UB byte address
  T* GetPhyAddr() const {
    return reinterpret_cast<T*>(detail::ub_ptr(addr_, GetLength(), "LocalTensor"));
  }

  // Sub-tensor starting `offset` elements in (spec 40 §1).
  LocalTensor operator[](uint64_t offset) const {
    if (offset > size_) detail::index_error("LocalTensor::operator[]", offset, size_);
    return LocalTensor(addr_ + offset * sizeof(T), size_ - offset, pos_);
  }
  T GetValue(uint64_t i) const {
    if (i >= size_) detail::index_error("LocalTensor::GetValue", i, size_);
    T v;
    std::memcpy(&v, detail::ub_ptr(addr_ + i * sizeof(T), sizeof(T), "LocalTensor::GetValue"),
                sizeof(T));
    return v;
  }
  void SetValue(uint64_t i, T v) const {
    if (i >= size_) detail::index_error("LocalTensor::SetValue", i, size_);
    std::memcpy(detail::ub_ptr(addr_ + i * sizeof(T), sizeof(T), "LocalTensor::SetValue"), &v,
                sizeof(T));
  }
  void SetSize(uint64_t n) {
    if (n > size_) detail::index_error("LocalTensor::SetSize", n, size_);
    size_ = n;
  }

 private:
  uint64_t addr_ = 0, size_ = 0;
  TPosition pos_ = TPosition::VECCALC;
};

template <typename T>
class GlobalTensor {
 public:
  void SetGlobalBuffer(T* buffer, uint64_t count) {
    ptr_ = buffer;
    size_ = count;
  }
  // The vendor's size-less form: GM is the host's memory, its extent is then unknown and
  // accesses through this tensor are not bounds-checked.
  void SetGlobalBuffer(T* buffer) {
    ptr_ = buffer;
    size_ = UINT64_MAX / sizeof(T);
  }
  uint64_t GetSize() const { return size_; }
  T* GetPhyAddr() const { return ptr_; }
  GlobalTensor operator[](uint64_t offset) const {
    if (offset > size_) detail::index_error("GlobalTensor::operator[]", offset, size_);
    GlobalTensor g;
    g.SetGlobalBuffer(ptr_ + offset, size_ - offset);
    return g;
  }
  T GetValue(uint64_t i) const {
    if (i >= size_) detail::index_error("GlobalTensor::GetValue", i, size_);
    return ptr_[i];
  }
  void SetValue(uint64_t i, T v) const {
    if (i >= size_) detail::index_error("GlobalTensor::SetValue", i, size_);
    ptr_[i] = v;
  }

 private:
  T* ptr_ = nullptr;
  uint64_t size_ = 0;
};

// A queue from position `src` to `dst` (the vendor's TQueBind, e.g. VECIN -> VECOUT for a tile
// that is only copied through); TQue<pos> is the queue from a position to itself.
template <TPosition src, TPosition dst, int32_t depth = 1>
class TQueBind {
 public:
  template <typename T>
  LocalTensor<T> AllocTensor() {
    return LocalTensor<T>(q_.alloc(), q_.len() / sizeof(T), src);
  }
  template <typename T>
  void EnQue(const LocalTensor<T>& t) {
    q_.enque(t.address());
  }
  template <typename T>
  LocalTensor<T> DeQue() {
    return LocalTensor<T>(q_.deque(), q_.len() / sizeof(T), dst);
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>& t) {
    q_.free(t.address());
  }
  detail::QueueState& state() { return q_; }

 private:
  detail::QueueState q_;
};

template <TPosition pos, int32_t depth = 1>
class TQue : public TQueBind<pos, pos, depth> {};

template <TPosition pos>
class TBuf {
 public:
  template <typename T>
  LocalTensor<T> Get() const {
    return LocalTensor<T>(addr_, len_ / sizeof(T), pos);
  }
  template <typename T>
  LocalTensor<T> Get(uint32_t count) const {
    if (count > len_ / sizeof(T)) detail::index_error("TBuf::Get", count, len_ / sizeof(T));
    return LocalTensor<T>(addr_, count, pos);
  }
  void init(uint64_t addr, uint64_t len) {
    addr_ = addr;
    len_ = len;
  }

 private:
  uint64_t addr_ = 0, len_ = 0;
};

// One TPipe per kernel: its buffers come from the UB and are released when it goes away.
class TPipe {
 public:
  TPipe() : base_(tilesim::ascendc::core().ub_top) {}
  ~TPipe() { tilesim::ascendc::core().ub_top = base_; }
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  template <TPosition src, TPosition dst, int32_t depth>
  void InitBuffer(TQueBind<src, dst, depth>& que, uint8_t num, uint32_t len) {
    que.state().init(num, len);
  }
  template <TPosition pos>
  void InitBuffer(TBuf<pos>& buf, uint32_t len) {
    buf.init(tilesim::ascendc::ub_alloc(len, "TPipe::InitBuffer"), len);
  }
  void Destroy() {}

 private:
  uint64_t base_;
};

// DataCopy between GM and UB (and UB to UB); count * sizeof(T) a multiple of 32 bytes (spec 40 §1).
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {
  detail::data_copy(
      dst.GetSize() ? detail::ub_ptr(dst.address(), dst.GetLength(), "DataCopy") : nullptr,
      dst.GetSize(), src.GetPhyAddr(), src.GetSize(), count, sizeof(T));
}
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  detail::data_copy(
      dst.GetPhyAddr(), dst.GetSize(),
      src.GetSize() ? detail::ub_ptr(src.address(), src.GetLength(), "DataCopy") : nullptr,
      src.GetSize(), count, sizeof(T));
}
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  detail::data_copy(
      dst.GetSize() ? detail::ub_ptr(dst.address(), dst.GetLength(), "DataCopy") : nullptr,
      dst.GetSize(),
      src.GetSize() ? detail::ub_ptr(src.address(), src.GetLength(), "DataCopy") : nullptr,
      src.GetSize(), count, sizeof(T));
}

// The vendor's strided DataCopy: blockCount blocks of blockLen 32-byte datablocks; consecutive blocks
// are srcStride / dstStride datablocks apart (the gap between the end of one and the start of the
// next), on each side. README "Semantics decisions" (not in spec 40, which has only the count form).
struct DataCopyParams {
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;
  uint16_t srcStride = 0;
  uint16_t dstStride = 0;
  DataCopyParams() = default;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t srcStrideIn, uint16_t dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
};

namespace detail {
void data_copy_blocks(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, const DataCopyParams& p);
// A LocalTensor's host bytes (nullptr when empty) and their count, for DataCopy.
template <typename T>
inline uint8_t* ub_bytes(const LocalTensor<T>& t) {
  return t.GetSize() ? ub_ptr(t.address(), t.GetLength(), "DataCopy") : nullptr;
}
template <typename T>
inline uint64_t gm_bytes(const GlobalTensor<T>& g) {
  return g.GetSize() > UINT64_MAX / sizeof(T) ? UINT64_MAX : g.GetSize() * sizeof(T);
}
}  // namespace detail

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {
  detail::data_copy_blocks(detail::ub_bytes(dst), dst.GetLength(), src.GetPhyAddr(), detail::gm_bytes(src), p);
}
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  detail::data_copy_blocks(dst.GetPhyAddr(), detail::gm_bytes(dst), detail::ub_bytes(src), src.GetLength(), p);
}
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  detail::data_copy_blocks(detail::ub_bytes(dst), dst.GetLength(), detail::ub_bytes(src), src.GetLength(), p);
}

// Fills the first `count` elements with `value`.
template <typename T>
void Duplicate(const LocalTensor<T>& dst, const T& value, const int32_t count) {
  if (count < 0 || static_cast<uint64_t>(count) > dst.GetSize())
    detail::count_error("Duplicate", count, dst.GetSize());
  if (count == 0) return;
  uint8_t* p = detail::ub_ptr(dst.address(), uint64_t(count) * sizeof(T), "Duplicate");
  for (int32_t i = 0; i < count; ++i) std::memcpy(p + uint64_t(i) * sizeof(T), &value, sizeof(T));
}

// ---- the mask register (spec 40 §1) ----
template <typename T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                "SetVectorMask: T must be a 16- or 32-bit type [spec 40 §1]");
  detail::set_vector_mask(
      sizeof(T) == 2 ? tilesim::ascendc::Elem::f16 : tilesim::ascendc::Elem::f32,
      mode == MaskMode::COUNTER, true, maskHigh, maskLow, 0);
}
template <typename T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(int32_t len) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                "SetVectorMask: T must be a 16- or 32-bit type [spec 40 §1]");
  detail::set_vector_mask(
      sizeof(T) == 2 ? tilesim::ascendc::Elem::f16 : tilesim::ascendc::Elem::f32,
      mode == MaskMode::COUNTER, false, 0, 0, len);
}
inline void ResetMask() {
  tilesim::ascendc::reset_mask(tilesim::ascendc::core().mask);
}
inline void SetMaskCount() {
  tilesim::ascendc::set_mask_count(tilesim::ascendc::core().mask);
}
inline void SetMaskNorm() {
  tilesim::ascendc::set_mask_norm(tilesim::ascendc::core().mask);
}

// ---- BlockReduceSum / Max / Min (spec 40 §2), both mask overloads ----
#define TILESIM_ASCENDC_BLOCK_REDUCE(NAME, OP)                                                \
  template <typename T, bool isSetMask = true>                                                \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,   \
            const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,    \
            const int32_t srcRepStride) {                                                     \
    static_assert(detail::is_reduce_type<T>, #NAME ": T must be half or float [spec 40 §3]"); \
    tilesim::ascendc::MaskArg m;                                                              \
    m.kind = tilesim::ascendc::MaskArg::Kind::Bits;                                           \
    m.set_mask = isSetMask;                                                                   \
    if (isSetMask && mask) { /* half reads two words, float one (spec 40 §1) */              \
      m.bits[0] = mask[0];                                                                    \
      if (sizeof(T) == 2) m.bits[1] = mask[1];                                                \
    }                                                                                         \
    detail::reduce(tilesim::ascendc::ReduceOp::OP, detail::elem_of<T>(), dst.address(),       \
                   dst.GetSize(), src.address(), src.GetSize(), repeatTime, m, dstRepStride,  \
                   srcBlkStride, srcRepStride);                                               \
  }                                                                                           \
  template <typename T, bool isSetMask = true>                                                \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,   \
            const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,       \
            const int32_t srcRepStride) {                                                     \
    static_assert(detail::is_reduce_type<T>, #NAME ": T must be half or float [spec 40 §3]"); \
    tilesim::ascendc::MaskArg m;                                                              \
    m.kind = tilesim::ascendc::MaskArg::Kind::Continuous;                                     \
    m.set_mask = isSetMask;                                                                   \
    m.len = mask;                                                                             \
    detail::reduce(tilesim::ascendc::ReduceOp::OP, detail::elem_of<T>(), dst.address(),       \
                   dst.GetSize(), src.address(), src.GetSize(), repeatTime, m, dstRepStride,  \
                   srcBlkStride, srcRepStride);                                               \
  }

TILESIM_ASCENDC_BLOCK_REDUCE(BlockReduceSum, Sum)
TILESIM_ASCENDC_BLOCK_REDUCE(BlockReduceMax, Max)
TILESIM_ASCENDC_BLOCK_REDUCE(BlockReduceMin, Min)
#undef TILESIM_ASCENDC_BLOCK_REDUCE

}  // namespace AscendC
