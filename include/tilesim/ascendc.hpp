// <tilesim/ascendc.hpp> — the Ascend C API in the vendor's names (spec 40, spec 41, spec 60 §3):
// LocalTensor over the simulated UB, GlobalTensor over GM, the kernel scaffolding (TPipe, TQue,
// TQueBind, TBuf), DataCopy / DataCopyPad / Duplicate, the vector APIs' count forms, Cast, the mask
// register, BlockReduceSum/Max/Min, SyncAll and SetFlag/WaitFlag. A thin layer: it describes
// operands and calls the engine (tilesim/ascendc/*.hpp, src/ascendc/), where every rule and all
// arithmetic live.
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tilesim/ascendc/engine.hpp"
#include "tilesim/ascendc/launch.hpp"
#include "tilesim/ascendc/sync.hpp"
#include "tilesim/ascendc/vector.hpp"
#include "tilesim/error.hpp"
#include "tilesim/half.hpp"
// The device compiler's pipe names are global (PipeBarrier<PIPE_V>()), shared with PTO.
#include "tilesim/device.hpp"

// The vendor's event kinds between pipes (global, as in the vendor headers; AscendC:: too):
// X(event, source pipe, destination pipe). SetFlag<E> is issued on E's source pipe and WaitFlag<E>
// holds E's destination pipe (the pipeline-hazard checker orders them so, issue 22).
#define TILESIM_ASCENDC_HARD_EVENTS(X) \
  X(MTE2_MTE1, MTE2, MTE1) \
  X(MTE1_MTE2, MTE1, MTE2) \
  X(MTE1_M, MTE1, M)       \
  X(M_MTE1, M, MTE1)       \
  X(MTE2_V, MTE2, V)       \
  X(V_MTE2, V, MTE2)       \
  X(MTE3_V, MTE3, V)       \
  X(V_MTE3, V, MTE3)       \
  X(M_V, M, V)             \
  X(V_M, V, M)             \
  X(V_V, V, V)             \
  X(MTE3_MTE1, MTE3, MTE1) \
  X(MTE1_MTE3, MTE1, MTE3) \
  X(MTE1_V, MTE1, V)       \
  X(MTE2_M, MTE2, M)       \
  X(M_MTE2, M, MTE2)       \
  X(V_MTE1, V, MTE1)       \
  X(M_FIX, M, FIX)         \
  X(FIX_M, FIX, M)         \
  X(MTE3_MTE2, MTE3, MTE2) \
  X(MTE2_MTE3, MTE2, MTE3) \
  X(S_V, S, V)             \
  X(V_S, V, S)             \
  X(S_MTE2, S, MTE2)       \
  X(MTE2_S, MTE2, S)       \
  X(S_MTE3, S, MTE3)       \
  X(MTE3_S, MTE3, S)       \
  X(MTE2_FIX, MTE2, FIX)   \
  X(FIX_MTE2, FIX, MTE2)   \
  X(FIX_S, FIX, S)         \
  X(M_S, M, S)             \
  X(FIX_MTE3, FIX, MTE3)   \
  X(MTE1_FIX, MTE1, FIX)   \
  X(FIX_MTE1, FIX, MTE1)   \
  X(FIX_FIX, FIX, FIX)
enum class HardEvent : uint8_t {
#define TILESIM_ASCENDC_EVENT_ENUM(name, src, dst) name,
  TILESIM_ASCENDC_HARD_EVENTS(TILESIM_ASCENDC_EVENT_ENUM)
#undef TILESIM_ASCENDC_EVENT_ENUM
  MAX,
};

// The kernel's call site of an API (issue 22): a trailing default argument of the APIs, marked for
// the engine's hazard reports by the outermost API called.
#define TILESIM_ASCENDC_SITE tilesim::sync::Site site = tilesim::sync::Site::here()
#define TILESIM_ASCENDC_AT const tilesim::ascendc::ApiSite at_(site)

namespace AscendC {

// fp16 / bf16 values as the vendor's `half` / `bfloat16_t`: portable (see tilesim/half.hpp).
using half = tilesim::half;
using bfloat16_t = tilesim::bfloat16;
using ::HardEvent;
using TEventID = int8_t;

enum class TPosition : uint8_t { GM, VECIN, VECOUT, VECCALC, A1, A2, B1, B2, CO1, CO2, LCM };
using QuePosition = TPosition;
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER = 1 };
enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
using ::pipe_t;

// Passed as the mask of a vector instruction called with isSetMask = false (spec 40 §1); not a
// macro, and not a literal 0, so it never converts to the bit-mode mask pointer (spec 41 §2).
inline constexpr uint64_t MASK_PLACEHOLDER = 0;

// Block identity (spec 41 §1): the current block inside ICPU_RUN_KF, block 0 of 1 outside it.
inline int64_t GetBlockIdx() {
  return ::block_idx;
}
inline int64_t GetBlockNum() {
  return ::block_num;
}
inline int64_t GetSubBlockIdx() {
  return tilesim::ascendc::sub_block_idx();
}
inline int64_t GetTaskRation() {
  return tilesim::ascendc::task_ration();
}
// A barrier across every block of the launch; GM written before it is visible after it.
template <bool isAIVOnly = true>
inline void SyncAll() {
  tilesim::ascendc::sync_all();
}

// Selects the product profile (spec 40 §5) and resets the simulated core (UB, mask, saturation).
inline void set_product(std::string_view name) {
  tilesim::ascendc::set_product(name);
}
// Overrides the CTRL saturation mode of the current core (spec 40 §5, spec 41 §3).
inline void SetSaturation(bool on) {
  tilesim::ascendc::core().saturation = on;
}

// The twin executes in program order; the pipeline-hazard checker sees the barrier.
template <pipe_t pipe>
inline void PipeBarrier(tilesim::sync::Site site = tilesim::sync::Site::here()) {
  if (tilesim::ascendc::t_sync) [[unlikely]]
    tilesim::ascendc::record_barrier(static_cast<uint8_t>(pipe), site);
}

namespace detail {
// A HardEvent's (source, destination) pipes.
inline constexpr uint8_t kEventPipes[][2] = {
#define TILESIM_ASCENDC_EVENT_PIPES(name, src, dst) {PIPE_##src, PIPE_##dst},
    TILESIM_ASCENDC_HARD_EVENTS(TILESIM_ASCENDC_EVENT_PIPES)
#undef TILESIM_ASCENDC_EVENT_PIPES
};
}  // namespace detail

template <HardEvent event>
inline void SetFlag(int32_t eventID, tilesim::sync::Site site = tilesim::sync::Site::here()) {
  static_assert(event != HardEvent::MAX, "SetFlag: HardEvent::MAX is not an event");
  if (tilesim::ascendc::t_sync) [[unlikely]]
    tilesim::ascendc::record_flag(true, detail::kEventPipes[size_t(event)][0], detail::kEventPipes[size_t(event)][1],
                                  eventID, site);
  tilesim::ascendc::set_flag(static_cast<uint32_t>(event), eventID);
}
template <HardEvent event>
inline void WaitFlag(int32_t eventID, tilesim::sync::Site site = tilesim::sync::Site::here()) {
  static_assert(event != HardEvent::MAX, "WaitFlag: HardEvent::MAX is not an event");
  if (tilesim::ascendc::t_sync) [[unlikely]]
    tilesim::ascendc::record_flag(false, detail::kEventPipes[size_t(event)][0], detail::kEventPipes[size_t(event)][1],
                                  eventID, site);
  tilesim::ascendc::wait_flag(static_cast<uint32_t>(event), eventID);
}

namespace detail {
namespace ts = tilesim::ascendc;
// Host pointer of UB bytes [addr, addr + bytes), bounds-checked against the current UB.
uint8_t* ub_ptr(uint64_t addr, uint64_t bytes, const char* what, const char* operand = nullptr);
[[noreturn]] void index_error(const char* what, uint64_t index, uint64_t size);
[[noreturn]] void gm_error(const char* what, const void* p);
void reduce(ts::ReduceOp op, ts::Elem t, uint64_t dst_addr, uint64_t dst_size, uint64_t src_addr,
            uint64_t src_size, int32_t repeat, const ts::MaskArg& mask, int32_t dst_rep,
            int32_t src_blk, int32_t src_rep);
void set_vector_mask(ts::Elem t, bool counter, bool bits, uint64_t high, uint64_t low, int64_t len);
// GetValue / SetValue for the pipeline-hazard checker: UB bytes at `addr`, or GM bytes at `gm`.
void scalar_access(bool write, bool ub, uint64_t addr, const void* gm, uint64_t bytes, const tilesim::sync::Site& site);

// FIFO bookkeeping of a TQue (non-template, src/ascendc/kernel.cpp): `num` buffers, at most
// `depth` of them enqueued (spec 41 §2).
class QueueState {
 public:
  // producer / consumer: the pipes that fill and drain its buffers (queue_pipes).
  void init(unsigned num, uint64_t len, int32_t depth, uint8_t producer, uint8_t consumer);
  uint64_t alloc();
  void enque(uint64_t addr);
  uint64_t deque();
  void free(uint64_t addr);
  uint64_t len() const { return len_; }
  size_t queued() const { return fifo_.size(); }
  unsigned vacant() const;

 private:
  std::vector<uint64_t> addr_;
  std::vector<uint8_t> state_;  // 0 free, 1 allocated, 2 queued
  std::vector<uint64_t> fifo_;
  uint64_t sync_key(uint64_t addr, bool queued) const;
  uint64_t len_ = 0;
  int32_t depth_ = 1;
  uint8_t producer_ = PIPE_V, consumer_ = PIPE_V;
};

// Which pipe fills a position's buffers and which drains them, as the vendor's TPosition table
// places them: VECIN (UB) filled by MTE2, read by V; VECOUT (UB) written by V, copied out by MTE3;
// VECCALC scratch V and V; A1/B1 (L1) filled by MTE2, read by MTE1 into A2/B2 (L0A/L0B), which
// the cube (M) reads; CO1 (L0C) written by M, drained by FIX; CO2 (GM on Atlas A2) written by FIX,
// read back by MTE2. A TQueBind<src, dst> is filled as src is and drained as dst is.
struct QueuePipes {
  uint8_t producer, consumer;
};
constexpr QueuePipes queue_pipes(TPosition p) {
  switch (p) {
    case TPosition::VECIN: return {PIPE_MTE2, PIPE_V};
    case TPosition::VECOUT: return {PIPE_V, PIPE_MTE3};
    case TPosition::A1:
    case TPosition::B1: return {PIPE_MTE2, PIPE_MTE1};
    case TPosition::A2:
    case TPosition::B2: return {PIPE_MTE1, PIPE_M};
    case TPosition::CO1: return {PIPE_M, PIPE_FIX};
    case TPosition::CO2: return {PIPE_FIX, PIPE_MTE2};
    default: return {PIPE_V, PIPE_V};
  }
}

template <class T>
constexpr bool is_reduce_type = std::is_same_v<T, half> || std::is_same_v<T, float>;
template <class T>
constexpr ts::Elem elem_of() {
  return std::is_same_v<T, half> ? ts::Elem::f16 : ts::Elem::f32;
}
// The element type of T in the formats core (spec 60 §2), for the engine's dtype checks.
template <class T>
constexpr bool has_dtype =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t> || std::is_same_v<T, float> ||
    (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8);
template <class T>
constexpr tilesim::formats::DType dtype_of() {
  using D = tilesim::formats::DType;
  static_assert(has_dtype<T>, "AscendC: T must be half, bfloat16_t, float or a fixed-width integer");
  if constexpr (std::is_same_v<T, half>) return D::fp16;
  else if constexpr (std::is_same_v<T, bfloat16_t>) return D::bf16;
  else if constexpr (std::is_same_v<T, float>) return D::fp32;
  else if constexpr (std::is_signed_v<T>)
    return sizeof(T) == 1 ? D::s8 : sizeof(T) == 2 ? D::s16 : sizeof(T) == 4 ? D::s32 : D::s64;
  else
    return sizeof(T) == 1 ? D::u8 : sizeof(T) == 2 ? D::u16 : sizeof(T) == 4 ? D::u32 : D::u64;
}
template <class T>
uint64_t code_of(const T& v) {
  uint64_t c = 0;
  std::memcpy(&c, &v, sizeof(T));
  return c;
}
}  // namespace detail

template <typename T>
class LocalTensor {
 public:
  using PrimType = T;
  LocalTensor() = default;  // unbound: 0 elements, every access is out of range
  LocalTensor(uint64_t addr, uint64_t size, TPosition pos) : addr_(addr), size_(size), pos_(pos) {}

  uint64_t GetSize() const { return size_; }
  uint64_t GetLength() const { return size_ * sizeof(T); }  // bytes
  TPosition GetPosition() const { return pos_; }
  uint64_t address() const { return addr_; }  // UB byte address
  T* GetPhyAddr() const {
    return reinterpret_cast<T*>(detail::ub_ptr(addr_, GetLength(), "LocalTensor::GetPhyAddr"));
  }
  T* GetPhyAddr(uint64_t offset) const { return (*this)[offset].GetPhyAddr(); }

  // The view from element `offset` on (spec 41 §2).
  LocalTensor operator[](uint64_t offset) const {
    if (offset > size_) detail::index_error("LocalTensor::operator[]", offset, size_);
    return LocalTensor(addr_ + offset * sizeof(T), size_ - offset, pos_);
  }
  // A real reference to element i in the core's UB.
  T& operator()(uint64_t i) const {
    if (i >= size_) detail::index_error("LocalTensor::operator()", i, size_);
    return *reinterpret_cast<T*>(detail::ub_ptr(addr_ + i * sizeof(T), sizeof(T), "LocalTensor::operator()"));
  }
  T GetValue(uint64_t i, TILESIM_ASCENDC_SITE) const {
    if (i >= size_) detail::index_error("LocalTensor::GetValue", i, size_);
    if (tilesim::ascendc::t_sync) [[unlikely]]
      detail::scalar_access(false, true, addr_ + i * sizeof(T), nullptr, sizeof(T), site);
    T v;
    std::memcpy(&v, detail::ub_ptr(addr_ + i * sizeof(T), sizeof(T), "LocalTensor::GetValue"), sizeof(T));
    return v;
  }
  template <typename U>
  void SetValue(uint64_t i, const U& value, TILESIM_ASCENDC_SITE) const {
    if (i >= size_) detail::index_error("LocalTensor::SetValue", i, size_);
    if (tilesim::ascendc::t_sync) [[unlikely]]
      detail::scalar_access(true, true, addr_ + i * sizeof(T), nullptr, sizeof(T), site);
    const T v = static_cast<T>(value);
    std::memcpy(detail::ub_ptr(addr_ + i * sizeof(T), sizeof(T), "LocalTensor::SetValue"), &v, sizeof(T));
  }
  void SetSize(uint64_t n) {
    if (n > size_) detail::index_error("LocalTensor::SetSize", n, size_);
    size_ = n;
  }
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(addr_, GetLength() / sizeof(U), pos_);
  }
  tilesim::ascendc::UbRef ub_ref() const { return {addr_, size_}; }

 private:
  uint64_t addr_ = 0, size_ = 0;
  TPosition pos_ = TPosition::VECCALC;
};

template <typename T>
class GlobalTensor {
 public:
  using PrimType = T;
  // Inside ICPU_RUN_KF the buffer must lie in a live GmAlloc block, whose end bounds every access;
  // outside it, host memory not from GmAlloc is taken with the given extent.
  void SetGlobalBuffer(T* buffer, uint64_t bufferSize) {
    bind(buffer);
    size_ = bufferSize;
  }
  // The size-less form: the extent runs to the end of the GmAlloc block holding `buffer` (unknown,
  // and unchecked, for host memory outside ICPU_RUN_KF).
  void SetGlobalBuffer(T* buffer) {
    bind(buffer);
    size_ = end_ ? static_cast<uint64_t>(end_ - reinterpret_cast<const uint8_t*>(buffer)) / sizeof(T)
                 : UINT64_MAX / sizeof(T);
  }
  uint64_t GetSize() const { return size_; }
  T* GetPhyAddr() const { return ptr_; }
  T* GetPhyAddr(uint64_t offset) const { return (*this)[offset].ptr_; }
  GlobalTensor operator[](uint64_t offset) const {
    if (offset > size_) detail::index_error("GlobalTensor::operator[]", offset, size_);
    GlobalTensor g = *this;
    g.ptr_ = ptr_ + offset;
    g.size_ = size_ - offset;
    return g;
  }
  T& operator()(uint64_t i) const { return *element(i, "GlobalTensor::operator()"); }
  T GetValue(uint64_t i, TILESIM_ASCENDC_SITE) const {
    T v;
    const T* p = element(i, "GlobalTensor::GetValue");
    if (tilesim::ascendc::t_sync) [[unlikely]]
      detail::scalar_access(false, false, 0, p, sizeof(T), site);
    std::memcpy(&v, p, sizeof(T));
    return v;
  }
  template <typename U>
  void SetValue(uint64_t i, const U& value, TILESIM_ASCENDC_SITE) const {
    const T v = static_cast<T>(value);
    T* p = element(i, "GlobalTensor::SetValue");
    if (tilesim::ascendc::t_sync) [[unlikely]]
      detail::scalar_access(true, false, 0, p, sizeof(T), site);
    std::memcpy(p, &v, sizeof(T));
  }
  tilesim::ascendc::MemRef mem_ref() const {
    tilesim::ascendc::MemRef r;
    r.ub = false;
    r.gm = reinterpret_cast<uint8_t*>(ptr_);
    r.gm_end = end_;
    r.elems = size_;
    return r;
  }

 private:
  void bind(T* buffer) {
    end_ = buffer ? tilesim::ascendc::gm_block_end(buffer) : nullptr;
    if (!end_ && tilesim::ascendc::in_launch()) detail::gm_error("GlobalTensor::SetGlobalBuffer", buffer);
    ptr_ = buffer;
  }
  T* element(uint64_t i, const char* what) const {
    if (i >= size_) detail::index_error(what, i, size_);
    if (end_ && reinterpret_cast<const uint8_t*>(ptr_ + i) + sizeof(T) > end_)
      detail::index_error(what, i, static_cast<uint64_t>(end_ - reinterpret_cast<const uint8_t*>(ptr_)) / sizeof(T));
    return ptr_ + i;
  }
  T* ptr_ = nullptr;
  uint64_t size_ = 0;
  const uint8_t* end_ = nullptr;  // end of the GmAlloc block, nullptr: unchecked host memory
};

namespace detail {
template <typename T>
tilesim::ascendc::MemRef mem_ref(const LocalTensor<T>& t) {
  tilesim::ascendc::MemRef r;
  r.addr = t.address();
  r.elems = t.GetSize();
  return r;
}
template <typename T>
tilesim::ascendc::MemRef mem_ref(const GlobalTensor<T>& g) {
  return g.mem_ref();
}
}  // namespace detail

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
  bool EnQue(const LocalTensor<T>& t) {
    q_.enque(t.address());
    return true;
  }
  template <typename T>
  LocalTensor<T> DeQue() {
    return LocalTensor<T>(q_.deque(), q_.len() / sizeof(T), dst);
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>& t) {
    q_.free(t.address());
  }
  bool VacantInQue() const { return q_.vacant() > 0; }
  bool HasTensorInQue() const { return q_.queued() > 0; }
  int32_t GetTensorCountInQue() const { return static_cast<int32_t>(q_.queued()); }
  detail::QueueState& state() { return q_; }

 private:
  detail::QueueState q_;
};

template <TPosition pos, int32_t depth = 1>
class TQue : public TQueBind<pos, pos, depth> {};

template <TPosition pos = TPosition::VECCALC>
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

// One TPipe per kernel: its buffers come from the core's UB, in call order, and are released
// when it goes away.
// The newest TPipe alive on the core is the one the global GetTPipePtr() returns (the vendor's
// g_tPipePtr, set by the TPipe constructor); destroying it makes the previous one current again.
class TPipe {
 public:
  TPipe() : base_(tilesim::ascendc::core().ub_top), prev_(tilesim::ascendc::core().tpipe) {
    tilesim::ascendc::core().tpipe = this;
  }
  ~TPipe() {
    tilesim::ascendc::Core& c = tilesim::ascendc::core();
    c.ub_top = base_;
    if (c.tpipe == this) c.tpipe = prev_;
  }
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  // Each buffer's length is rounded up to whole 32-byte datablocks, as the vendor's InitBuffer
  // does (kernel_tpipe_impl.h); AllocTensor / Get then see the rounded length
  // (docs/ascendc.md#ub).
  template <TPosition src, TPosition dst, int32_t depth>
  bool InitBuffer(TQueBind<src, dst, depth>& que, uint8_t num, uint32_t len) {
    que.state().init(num, datablocks(len), depth, detail::queue_pipes(src).producer,
                     detail::queue_pipes(dst).consumer);
    return true;
  }
  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
    buf.init(tilesim::ascendc::ub_alloc(datablocks(len), "TPipe::InitBuffer"), datablocks(len));
    return true;
  }
  void Destroy() {}
  void Reset() { tilesim::ascendc::core().ub_top = base_; }
  // Event ids for SetFlag/WaitFlag (docs/ascendc.md#flags): 8 per HardEvent; Alloc takes the lowest
  // free one, Release frees it, Fetch returns the lowest free one without taking it.
  template <HardEvent evt>
  TEventID AllocEventID() {
    return tilesim::ascendc::event_id(static_cast<uint32_t>(evt), tilesim::ascendc::EventOp::Alloc, 0);
  }
  template <HardEvent evt>
  void ReleaseEventID(TEventID id) {
    tilesim::ascendc::event_id(static_cast<uint32_t>(evt), tilesim::ascendc::EventOp::Release, id);
  }
  template <HardEvent evt>
  TEventID FetchEventID() {
    return tilesim::ascendc::event_id(static_cast<uint32_t>(evt), tilesim::ascendc::EventOp::Fetch, 0);
  }
  TEventID FetchEventID(HardEvent evt) {
    return tilesim::ascendc::event_id(static_cast<uint32_t>(evt), tilesim::ascendc::EventOp::Fetch, 0);
  }

 private:
  static uint64_t datablocks(uint32_t len) { return (uint64_t{len} + 31) / 32 * 32; }
  uint64_t base_;
  void* prev_;
};

// The old API's per-block GM offset (tik2 samples): addr + length * GetBlockIdx() elements of T.
template <typename T>
inline uint8_t* ParamOffset(uint8_t* addr, int64_t length) {
  return addr + length * ::block_idx * static_cast<int64_t>(sizeof(T));
}

// ---- atomic add of UB -> GM copies (docs/ascendc.md#atomic-add) ----
template <typename T>
inline void SetAtomicAdd() {
  tilesim::ascendc::set_atomic_add(true, detail::dtype_of<T>());
}
inline void SetAtomicNone() {
  tilesim::ascendc::set_atomic_add(false, tilesim::formats::DType::fp32);
}

// ---- DataCopy (spec 41 §2) ----
template <typename D, typename S>
  requires(std::is_same_v<typename D::PrimType, typename S::PrimType>)
void DataCopy(const D& dst, const S& src, const uint32_t count, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::data_copy(detail::mem_ref(dst), detail::mem_ref(src), count, sizeof(typename D::PrimType));
}

// The strided DataCopy: blockCount blocks of blockLen 32-byte datablocks; consecutive blocks are
// srcStride / dstStride datablocks apart (the gap between the end of one and the start of the next).
struct DataCopyParams {
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;
  uint16_t srcStride = 0;
  uint16_t dstStride = 0;
  DataCopyParams() = default;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t srcStrideIn, uint16_t dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
};

template <typename D, typename S>
  requires(std::is_same_v<typename D::PrimType, typename S::PrimType>)
void DataCopy(const D& dst, const S& src, const DataCopyParams& p, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::CopyBlocks b{p.blockCount, p.blockLen, p.srcStride, p.dstStride};
  tilesim::ascendc::data_copy_blocks(detail::mem_ref(dst), detail::mem_ref(src), b, sizeof(typename D::PrimType));
}

// ---- DataCopyPad (spec 41 §2): blockLen in bytes; GM strides in bytes, UB strides in datablocks ----
struct DataCopyExtParams {
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;
  uint32_t srcStride = 0;
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
  DataCopyExtParams() = default;
  DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcStrideIn, uint32_t dstStrideIn, uint32_t rsvIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
};
template <typename T>
struct DataCopyPadExtParams {
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue = T(0);
  DataCopyPadExtParams() = default;
  DataCopyPadExtParams(bool isPadIn, uint8_t left, uint8_t right, T value)
      : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
};
struct DataCopyPadParams {
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  uint64_t paddingValue = 0;
  DataCopyPadParams() = default;
  DataCopyPadParams(bool isPadIn, uint8_t left, uint8_t right, uint64_t value)
      : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

namespace detail {
template <typename P>
tilesim::ascendc::CopyBlocks pad_blocks(const P& p) {
  return {p.blockCount, p.blockLen, p.srcStride, p.dstStride};
}
template <typename T>
uint64_t pad_code(uint64_t v) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>)
    return code_of(static_cast<T>(static_cast<float>(v)));
  else
    return code_of(static_cast<T>(v));
}
}  // namespace detail

template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                 const DataCopyPadExtParams<T>& pad, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::PadSpec s{pad.isPad, pad.leftPadding, pad.rightPadding, detail::code_of(pad.paddingValue)};
  tilesim::ascendc::data_copy_pad(detail::mem_ref(dst), detail::mem_ref(src), detail::pad_blocks(p), s, sizeof(T),
                                  "DataCopyPad");
}
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                 const DataCopyPadParams& pad, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::PadSpec s{pad.isPad, pad.leftPadding, pad.rightPadding, detail::pad_code<T>(pad.paddingValue)};
  tilesim::ascendc::data_copy_pad(detail::mem_ref(dst), detail::mem_ref(src), detail::pad_blocks(p), s, sizeof(T),
                                  "DataCopyPad");
}
template <typename T, typename P>
  requires(std::is_same_v<P, DataCopyExtParams> || std::is_same_v<P, DataCopyParams>)
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const P& p, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::data_copy_pad(detail::mem_ref(dst), detail::mem_ref(src), detail::pad_blocks(p), {}, sizeof(T),
                                  "DataCopyPad");
}

// ---- Duplicate, count form: the first `count` elements of dst = value ----
template <typename T>
void Duplicate(const LocalTensor<T>& dst, const std::type_identity_t<T>& value, const int32_t& count, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::duplicate_count(detail::dtype_of<T>(), dst.ub_ref(), detail::code_of(value), count);
}

// ---- vector APIs (spec 41 §3): the count form, and the mask + repeat forms (bit mask
// `uint64_t mask[]` or continuous `uint64_t mask`) with the vendor's repeat-parameter structs ----
struct BinaryRepeatParams {
  BinaryRepeatParams() {}
  BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                     const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
      : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
        dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
  uint32_t blockNumber = 8;
  uint8_t dstBlkStride = 1;
  uint8_t src0BlkStride = 1;
  uint8_t src1BlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t src0RepStride = 8;
  uint8_t src1RepStride = 8;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};
struct UnaryRepeatParams {
  UnaryRepeatParams() {}
  UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                    const uint8_t srcRepStrideIn)
      : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn) {}
  UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                    const uint8_t srcRepStrideIn, const bool halfBlockIn)
      : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn) {}
  uint32_t blockNumber = 8;
  uint16_t dstBlkStride = 1;
  uint16_t srcBlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t srcRepStride = 8;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
  bool halfBlock = false;
};

namespace detail {
// The mask argument of a mask/repeat-form call: bit mode reads sizeof(T) == 2 ? two words : one.
template <typename T>
tilesim::ascendc::MaskArg bit_mask(const uint64_t mask[], bool isSetMask) {
  tilesim::ascendc::MaskArg m;
  m.kind = tilesim::ascendc::MaskArg::Kind::Bits;
  m.set_mask = isSetMask;
  m.words = sizeof(T) == 2 ? 2 : 1;
  if (isSetMask && mask) {
    m.bits[0] = mask[0];
    if (sizeof(T) == 2) m.bits[1] = mask[1];
  }
  return m;
}
inline tilesim::ascendc::MaskArg len_mask(uint64_t mask, bool isSetMask) {
  tilesim::ascendc::MaskArg m;
  m.kind = tilesim::ascendc::MaskArg::Kind::Continuous;
  m.set_mask = isSetMask;
  m.len = mask > 1024 ? 1025 : static_cast<int64_t>(mask);  // any value past the lanes is out of range
  return m;
}
inline tilesim::ascendc::RepeatStrides strides(const BinaryRepeatParams& p) {
  return {p.dstBlkStride, p.src0BlkStride, p.src1BlkStride, p.dstRepStride, p.src0RepStride, p.src1RepStride};
}
inline tilesim::ascendc::RepeatStrides strides(const UnaryRepeatParams& p) {
  return {p.dstBlkStride, p.srcBlkStride, 1, p.dstRepStride, p.srcRepStride, 8};
}
template <typename P>
void repeat_params_supported(const char* api, const P& p) {
  if (p.repeatStrideMode || p.strideSizeMode)
    tilesim::raise(tilesim::ErrorCode::Unsupported, api,
                   "repeatStrideMode / strideSizeMode are not supported (Atlas A2 has neither)",
                   "docs/ascendc.md#mask-and-repeat");
}
template <typename T>
void vec_binary(tilesim::ascendc::VecApi api, const char* name, const LocalTensor<T>& dst,
                const LocalTensor<T>& src0, const LocalTensor<T>& src1, const tilesim::ascendc::MaskArg& m,
                uint8_t repeatTime, const BinaryRepeatParams& p) {
  repeat_params_supported(name, p);
  const auto b = src1.ub_ref();
  tilesim::ascendc::vector_repeat(api, dtype_of<T>(), dst.ub_ref(), src0.ub_ref(), &b, 0, m, repeatTime,
                                  strides(p));
}
template <typename T>
void vec_unary(tilesim::ascendc::VecApi api, const char* name, const LocalTensor<T>& dst,
               const LocalTensor<T>& src, uint64_t scalar, const tilesim::ascendc::MaskArg& m,
               uint8_t repeatTime, const UnaryRepeatParams& p, bool roundEn = false) {
  repeat_params_supported(name, p);
  tilesim::ascendc::vector_repeat(api, dtype_of<T>(), dst.ub_ref(), src.ub_ref(), nullptr, scalar, m,
                                  repeatTime, strides(p), roundEn);
}
}  // namespace detail

#define TILESIM_ASCENDC_BINARY_API(NAME)                                                           \
  template <typename T>                                                                            \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,     \
            const int32_t& count, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                                                                \
    const auto b = src1.ub_ref();                                                                  \
    tilesim::ascendc::vector_count(tilesim::ascendc::VecApi::NAME, detail::dtype_of<T>(),          \
                                   dst.ub_ref(), src0.ub_ref(), &b, 0, count);                     \
  }                                                                                                \
  template <typename T, bool isSetMask = true>                                                     \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,     \
            uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;   \
    detail::vec_binary(tilesim::ascendc::VecApi::NAME, #NAME, dst, src0, src1,                     \
                       detail::bit_mask<T>(mask, isSetMask), repeatTime, repeatParams);            \
  }                                                                                                \
  template <typename T, bool isSetMask = true>                                                     \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,     \
            uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;     \
    detail::vec_binary(tilesim::ascendc::VecApi::NAME, #NAME, dst, src0, src1,                     \
                       detail::len_mask(mask, isSetMask), repeatTime, repeatParams);               \
  }
// The scalar family: count form (isSetMask = false: the mask/repeat form with repeat 1, contiguous
// strides and the register, spec 41 §3) and the mask + repeat forms.
#define TILESIM_ASCENDC_SCALAR_API(NAME)                                                           \
  template <typename T, bool isSetMask = true>                                                     \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                  \
            const std::type_identity_t<T>& scalarValue, const int32_t& count, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                    \
    if constexpr (isSetMask)                                                                       \
      tilesim::ascendc::vector_count(tilesim::ascendc::VecApi::NAME, detail::dtype_of<T>(),        \
                                     dst.ub_ref(), src.ub_ref(), nullptr,                          \
                                     detail::code_of(scalarValue), count);                         \
    else                                                                                           \
      detail::vec_unary(tilesim::ascendc::VecApi::NAME, #NAME, dst, src, detail::code_of(scalarValue), \
                        detail::len_mask(0, false), 1, UnaryRepeatParams{});                       \
  }                                                                                                \
  template <typename T, bool isSetMask = true>                                                     \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                  \
            const std::type_identity_t<T>& scalarValue, uint64_t mask[], const uint8_t repeatTime, \
            const UnaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                                               \
    detail::vec_unary(tilesim::ascendc::VecApi::NAME, #NAME, dst, src, detail::code_of(scalarValue), \
                      detail::bit_mask<T>(mask, isSetMask), repeatTime, repeatParams);             \
  }                                                                                                \
  template <typename T, bool isSetMask = true>                                                     \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                  \
            const std::type_identity_t<T>& scalarValue, uint64_t mask, const uint8_t repeatTime,   \
            const UnaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                                               \
    detail::vec_unary(tilesim::ascendc::VecApi::NAME, #NAME, dst, src, detail::code_of(scalarValue), \
                      detail::len_mask(mask, isSetMask), repeatTime, repeatParams);                \
  }
#define TILESIM_ASCENDC_UNARY_API(NAME)                                                            \
  template <typename T>                                                                            \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;          \
    tilesim::ascendc::vector_count(tilesim::ascendc::VecApi::NAME, detail::dtype_of<T>(),          \
                                   dst.ub_ref(), src.ub_ref(), nullptr, 0, count);                 \
  }                                                                                                \
  template <typename T, bool isSetMask = true>                                                     \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask[],                 \
            const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                     \
    detail::vec_unary(tilesim::ascendc::VecApi::NAME, #NAME, dst, src, 0,                          \
                      detail::bit_mask<T>(mask, isSetMask), repeatTime, repeatParams);             \
  }                                                                                                \
  template <typename T, bool isSetMask = true>                                                     \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,                   \
            const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                     \
    detail::vec_unary(tilesim::ascendc::VecApi::NAME, #NAME, dst, src, 0,                          \
                      detail::len_mask(mask, isSetMask), repeatTime, repeatParams);                \
  }
TILESIM_ASCENDC_BINARY_API(Add)
TILESIM_ASCENDC_BINARY_API(Sub)
TILESIM_ASCENDC_BINARY_API(Mul)
TILESIM_ASCENDC_BINARY_API(Div)
TILESIM_ASCENDC_BINARY_API(Max)
TILESIM_ASCENDC_BINARY_API(Min)
TILESIM_ASCENDC_BINARY_API(And)
TILESIM_ASCENDC_BINARY_API(Or)
TILESIM_ASCENDC_BINARY_API(AddRelu)
TILESIM_ASCENDC_BINARY_API(SubRelu)
TILESIM_ASCENDC_BINARY_API(MulAddDst)
TILESIM_ASCENDC_BINARY_API(FusedMulAdd)
// MulAddDst with a wider dst (T = dst type, U = source type): (float, half) on Atlas A2
// (docs/ascendc.md#muladddst). T == U takes the overloads above.
namespace detail {
template <typename T, typename U>
void mad_mixed(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
               const tilesim::ascendc::MaskArg* m, uint8_t repeatTime, const BinaryRepeatParams* p, int32_t count) {
  static_assert(std::is_same_v<T, float> && std::is_same_v<U, half>,
                "MulAddDst: (dst, src) types must be (half, half), (float, float) or (float, half) "
                "[docs/ascendc.md#muladddst]");
  if (!m) return tilesim::ascendc::mul_add_dst_mixed_count(dst.ub_ref(), src0.ub_ref(), src1.ub_ref(), count);
  repeat_params_supported("MulAddDst", *p);
  tilesim::ascendc::mul_add_dst_mixed_repeat(dst.ub_ref(), src0.ub_ref(), src1.ub_ref(), *m, repeatTime, strides(*p));
}
}  // namespace detail
template <typename T, typename U, std::enable_if_t<!std::is_same_v<T, U>, int> = 0>
void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
               const int32_t& count, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  detail::mad_mixed(dst, src0, src1, nullptr, 0, nullptr, count);
}
template <typename T, typename U, bool isSetMask = true, std::enable_if_t<!std::is_same_v<T, U>, int> = 0>
void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, uint64_t mask[],
               const uint8_t repeatTime, const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  const auto m = detail::bit_mask<T>(mask, isSetMask);
  detail::mad_mixed(dst, src0, src1, &m, repeatTime, &repeatParams, 0);
}
template <typename T, typename U, bool isSetMask = true, std::enable_if_t<!std::is_same_v<T, U>, int> = 0>
void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, uint64_t mask,
               const uint8_t repeatTime, const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  const auto m = detail::len_mask(mask, isSetMask);
  detail::mad_mixed(dst, src0, src1, &m, repeatTime, &repeatParams, 0);
}
TILESIM_ASCENDC_SCALAR_API(Adds)
TILESIM_ASCENDC_SCALAR_API(Muls)
TILESIM_ASCENDC_SCALAR_API(Maxs)
TILESIM_ASCENDC_SCALAR_API(Mins)
TILESIM_ASCENDC_SCALAR_API(ShiftLeft)
TILESIM_ASCENDC_SCALAR_API(LeakyRelu)
TILESIM_ASCENDC_UNARY_API(Exp)
TILESIM_ASCENDC_UNARY_API(Ln)
TILESIM_ASCENDC_UNARY_API(Abs)
TILESIM_ASCENDC_UNARY_API(Sqrt)
TILESIM_ASCENDC_UNARY_API(Rsqrt)
TILESIM_ASCENDC_UNARY_API(Reciprocal)
TILESIM_ASCENDC_UNARY_API(Relu)
TILESIM_ASCENDC_UNARY_API(Not)
#undef TILESIM_ASCENDC_BINARY_API
#undef TILESIM_ASCENDC_SCALAR_API
#undef TILESIM_ASCENDC_UNARY_API

// ShiftRight: the scalar family with the rounding argument of the mask/repeat forms.
template <typename T, bool isSetMask = true>
void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const std::type_identity_t<T>& scalarValue,
                const int32_t& count, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  if constexpr (isSetMask)
    tilesim::ascendc::vector_count(tilesim::ascendc::VecApi::ShiftRight, detail::dtype_of<T>(), dst.ub_ref(),
                                   src.ub_ref(), nullptr, detail::code_of(scalarValue), count);
  else
    detail::vec_unary(tilesim::ascendc::VecApi::ShiftRight, "ShiftRight", dst, src, detail::code_of(scalarValue),
                      detail::len_mask(0, false), 1, UnaryRepeatParams{});
}
template <typename T, bool isSetMask = true>
void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const std::type_identity_t<T>& scalarValue,
                uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& repeatParams,
                bool roundEn = false, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  detail::vec_unary(tilesim::ascendc::VecApi::ShiftRight, "ShiftRight", dst, src, detail::code_of(scalarValue),
                    detail::bit_mask<T>(mask, isSetMask), repeatTime, repeatParams, roundEn);
}
template <typename T, bool isSetMask = true>
void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const std::type_identity_t<T>& scalarValue,
                uint64_t mask, const uint8_t repeatTime, const UnaryRepeatParams& repeatParams,
                bool roundEn = false, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  detail::vec_unary(tilesim::ascendc::VecApi::ShiftRight, "ShiftRight", dst, src, detail::code_of(scalarValue),
                    detail::len_mask(mask, isSetMask), repeatTime, repeatParams, roundEn);
}

// Cast, count form: (src, dst, RoundMode) from the product's table (docs/ascendc.md#cast).
template <typename T, typename U>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint32_t count, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::cast_count(detail::dtype_of<T>(), detail::dtype_of<U>(), dst.ub_ref(), src.ub_ref(),
                               static_cast<tilesim::ascendc::CastRound>(roundMode), count);
}

// ---- the mask register (spec 40 §1) ----
// In counter mode T does not matter (the register holds an element count), so any T is accepted
// there, as the vendor's own samples write SetVectorMask<uint8_t, MaskMode::COUNTER>(0, n).
template <typename T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
  static_assert(mode == MaskMode::COUNTER || sizeof(T) == 2 || sizeof(T) == 4,
                "SetVectorMask: T must be a 16- or 32-bit type [docs/ascendc.md#the-mask-register]");
  detail::set_vector_mask(
      sizeof(T) == 2 ? tilesim::ascendc::Elem::f16 : tilesim::ascendc::Elem::f32,
      mode == MaskMode::COUNTER, true, maskHigh, maskLow, 0);
}
template <typename T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(int32_t len) {
  static_assert(mode == MaskMode::COUNTER || sizeof(T) == 2 || sizeof(T) == 4,
                "SetVectorMask: T must be a 16- or 32-bit type [docs/ascendc.md#the-mask-register]");
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
            const int32_t srcRepStride, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                                                     \
    static_assert(detail::is_reduce_type<T>, #NAME ": T must be half or float [docs/ascendc.md#checks]"); \
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
            const int32_t srcRepStride, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                                                     \
    static_assert(detail::is_reduce_type<T>, #NAME ": T must be half or float [docs/ascendc.md#checks]"); \
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

// ---- repeat reductions (spec 41 §3, docs/ascendc.md#reductions) ----
enum class ReduceType { NONE = -1, SUM = 0, MAX, MIN };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

namespace detail {
inline tilesim::ascendc::ReduceOp reduce_op(ReduceType r) {
  return r == ReduceType::MAX ? tilesim::ascendc::ReduceOp::Max
         : r == ReduceType::MIN ? tilesim::ascendc::ReduceOp::Min
                                : tilesim::ascendc::ReduceOp::Sum;
}
template <typename T>
void whole(ReduceType op, const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
           const tilesim::ascendc::MaskArg& m, int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
           int32_t srcRepStride, ReduceOrder order) {
  tilesim::ascendc::whole_reduce(reduce_op(op), dtype_of<T>(), dst.ub_ref(), src.ub_ref(), m, repeatTime,
                                 dstRepStride, srcBlkStride, srcRepStride,
                                 static_cast<tilesim::ascendc::ReduceOrderKind>(order), api);
}
inline tilesim::ascendc::MaskArg int_mask(int32_t mask, bool isSetMask) {
  tilesim::ascendc::MaskArg m;
  m.kind = tilesim::ascendc::MaskArg::Kind::Continuous;
  m.set_mask = isSetMask;
  m.len = mask;
  return m;
}
}  // namespace detail

#define TILESIM_ASCENDC_WHOLE_REDUCE(NAME, OP, ORDER_PARAM, ORDER_ARG)                                              \
  template <typename T, bool isSetMask = true>                                                                    \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const int32_t repeatTime, \
            const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride ORDER_PARAM, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;      \
    detail::whole(ReduceType::OP, #NAME, dst, src, detail::bit_mask<T>(mask, isSetMask), repeatTime,              \
                  dstRepStride, srcBlkStride, srcRepStride, ORDER_ARG);                                           \
  }                                                                                                               \
  template <typename T, bool isSetMask = true>                                                                    \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime,   \
            const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride ORDER_PARAM, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;      \
    detail::whole(ReduceType::OP, #NAME, dst, src, detail::int_mask(mask, isSetMask), repeatTime, dstRepStride,   \
                  srcBlkStride, srcRepStride, ORDER_ARG);                                                         \
  }
#define TILESIM_ASCENDC_ORDER_PARAM , ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX
TILESIM_ASCENDC_WHOLE_REDUCE(WholeReduceSum, SUM, , ReduceOrder::ORDER_ONLY_VALUE)
TILESIM_ASCENDC_WHOLE_REDUCE(WholeReduceMax, MAX, TILESIM_ASCENDC_ORDER_PARAM, order)
TILESIM_ASCENDC_WHOLE_REDUCE(WholeReduceMin, MIN, TILESIM_ASCENDC_ORDER_PARAM, order)
#undef TILESIM_ASCENDC_ORDER_PARAM
#undef TILESIM_ASCENDC_WHOLE_REDUCE

// The new names (mask before repeatTime); T equals U on Atlas A2.
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask, const int32_t repeatTime,
                  const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                  ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  static_assert(std::is_same_v<T, U>, "ReduceRepeat: T and U must be the same type [docs/ascendc.md#reductions]");
  detail::whole(reduceType, "ReduceRepeat", dst, src, detail::int_mask(mask, isSetMask), repeatTime, dstRepStride,
                srcBlkStride, srcRepStride, reduceType == ReduceType::SUM ? ReduceOrder::ORDER_ONLY_VALUE : order);
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],
                  const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                  const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  static_assert(std::is_same_v<T, U>, "ReduceRepeat: T and U must be the same type [docs/ascendc.md#reductions]");
  detail::whole(reduceType, "ReduceRepeat", dst, src, detail::bit_mask<T>(mask, isSetMask), repeatTime,
                dstRepStride, srcBlkStride, srcRepStride,
                reduceType == ReduceType::SUM ? ReduceOrder::ORDER_ONLY_VALUE : order);
}
// RepeatReduceSum: continuous mask only; dstBlkStride is not used (docs/ascendc.md#reductions).
template <typename T, bool isSetMask = true>
void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const int32_t mask,
                     const int32_t dstBlkStride, const int32_t srcBlkStride, const int32_t dstRepStride,
                     const int32_t srcRepStride, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  (void)dstBlkStride;
  detail::whole(ReduceType::SUM, "RepeatReduceSum", dst, src, detail::int_mask(mask, isSetMask), repeatTime,
                dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE);
}

#define TILESIM_ASCENDC_PAIR(NAME, MASK_T, MAKE)                                                                   \
  template <typename T, bool isSetMask = true>                                                                    \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, MASK_T mask,          \
            const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                 \
    tilesim::ascendc::pair_reduce_sum(detail::dtype_of<T>(), dst.ub_ref(), src.ub_ref(), MAKE, repeatTime,        \
                                      dstRepStride, srcBlkStride, srcRepStride, "PairReduceSum");                 \
  }
TILESIM_ASCENDC_PAIR(PairReduceSum, const int32_t, detail::int_mask(mask, isSetMask))
TILESIM_ASCENDC_PAIR(PairReduceSum, const uint64_t*, detail::bit_mask<T>(mask, isSetMask))
#undef TILESIM_ASCENDC_PAIR
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
void ReducePairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask, const int32_t repeatTime,
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  static_assert(reduceType == ReduceType::SUM && std::is_same_v<T, U>,
                "ReducePairElem: SUM only, T equal to U [docs/ascendc.md#reductions]");
  PairReduceSum<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride);
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
void ReducePairElem(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],
                    const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                    const int32_t srcRepStride, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  static_assert(reduceType == ReduceType::SUM && std::is_same_v<T, U>,
                "ReducePairElem: SUM only, T equal to U [docs/ascendc.md#reductions]");
  PairReduceSum<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride);
}
// ReduceDataBlock = BlockReduceSum/Max/Min with mask before repeatTime (spec 41 §3 names).
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                     const int32_t srcRepStride, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  static_assert(std::is_same_v<T, U>, "ReduceDataBlock: T and U must be the same type");
  if constexpr (reduceType == ReduceType::SUM) BlockReduceSum<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride);
  else if constexpr (reduceType == ReduceType::MAX) BlockReduceMax<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride);
  else BlockReduceMin<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride);
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                     const int32_t srcRepStride, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  static_assert(std::is_same_v<T, U>, "ReduceDataBlock: T and U must be the same type");
  if constexpr (reduceType == ReduceType::SUM) BlockReduceSum<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride);
  else if constexpr (reduceType == ReduceType::MAX) BlockReduceMax<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride);
  else BlockReduceMin<T, isSetMask>(dst, src, repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride);
}

// ---- high-level ReduceSum / ReduceMax / ReduceMin with their work buffer ----
#define TILESIM_ASCENDC_HIGH_REDUCE(NAME, OP)                                                                        \
  template <typename T>                                                                                             \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,            \
            const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;          \
    tilesim::ascendc::reduce_repeat(tilesim::ascendc::ReduceOp::OP, detail::dtype_of<T>(), dst.ub_ref(),            \
                                    src.ub_ref(), sharedTmpBuffer.ub_ref(), detail::int_mask(mask, true),           \
                                    repeatTime, srcRepStride, calIndex, #NAME);                                     \
  }                                                                                                                 \
  template <typename T>                                                                                             \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,            \
            const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;       \
    tilesim::ascendc::reduce_repeat(tilesim::ascendc::ReduceOp::OP, detail::dtype_of<T>(), dst.ub_ref(),            \
                                    src.ub_ref(), sharedTmpBuffer.ub_ref(), detail::bit_mask<T>(mask, true),        \
                                    repeatTime, srcRepStride, calIndex, #NAME);                                     \
  }                                                                                                                 \
  template <typename T>                                                                                             \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,            \
            const int32_t count, bool calIndex = 0, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                                                               \
    tilesim::ascendc::reduce_count(tilesim::ascendc::ReduceOp::OP, detail::dtype_of<T>(), dst.ub_ref(),             \
                                   src.ub_ref(), sharedTmpBuffer.ub_ref(), count, calIndex, true, #NAME);           \
  }
TILESIM_ASCENDC_HIGH_REDUCE(ReduceMax, Max)
TILESIM_ASCENDC_HIGH_REDUCE(ReduceMin, Min)
#undef TILESIM_ASCENDC_HIGH_REDUCE
template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
               const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::reduce_repeat(tilesim::ascendc::ReduceOp::Sum, detail::dtype_of<T>(), dst.ub_ref(), src.ub_ref(),
                                  sharedTmpBuffer.ub_ref(), detail::int_mask(mask, true), repeatTime, srcRepStride,
                                  false, "ReduceSum");
}
template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
               const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::reduce_repeat(tilesim::ascendc::ReduceOp::Sum, detail::dtype_of<T>(), dst.ub_ref(), src.ub_ref(),
                                  sharedTmpBuffer.ub_ref(), detail::bit_mask<T>(mask, true), repeatTime,
                                  srcRepStride, false, "ReduceSum");
}
template <typename T, bool isSetMask = true>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
               const int32_t count, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::reduce_count(tilesim::ascendc::ReduceOp::Sum, detail::dtype_of<T>(), dst.ub_ref(), src.ub_ref(),
                                 sharedTmpBuffer.ub_ref(), count, false, isSetMask, "ReduceSum");
}

// ---- Brcb (docs/ascendc.md#brcb) ----
struct BrcbRepeatParams {
  BrcbRepeatParams() {}
  BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
      : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
  uint32_t blockNumber = 8;
  uint16_t dstRepStride = 8;
  uint16_t dstBlkStride = 1;
  uint8_t src0BlkStride = 1, src1BlkStride = 1, src0RepStride = 8, src1RepStride = 8;
  bool repeatStrideMode = false, strideSizeMode = false;
};
template <typename T>
void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,
          const BrcbRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::brcb(detail::dtype_of<T>(), dst.ub_ref(), src.ub_ref(), repeatTime, repeatParams.dstBlkStride,
                         repeatParams.dstRepStride);
}

// ---- Compare / Compares / Select (spec 41 §3, docs/ascendc.md#compare-and-select) ----
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

namespace detail {
template <typename U>
tilesim::ascendc::UbRef byte_ref(const LocalTensor<U>& t) {
  return {t.address(), t.GetSize() * sizeof(U)};
}
inline tilesim::ascendc::CmpMode cmp(CMPMODE m) {
  return static_cast<tilesim::ascendc::CmpMode>(m);
}
inline tilesim::ascendc::SelMode sel(SELMODE m) {
  return static_cast<tilesim::ascendc::SelMode>(m);
}
}  // namespace detail

// Compare into a bit-mask tensor: the mask and isSetMask are reserved on Atlas A2 (not used).
template <typename T, typename U, bool isSetMask = true>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  static_assert(sizeof(U) == 1, "Compare: dst must be int8_t or uint8_t [docs/ascendc.md#compare-and-select]");
  (void)mask;
  const auto b = src1.ub_ref();
  tilesim::ascendc::compare_bits(detail::cmp(cmpMode), detail::dtype_of<T>(), detail::byte_ref(dst), src0.ub_ref(),
                                 &b, 0, repeatTime, detail::strides(repeatParams), "Compare");
}
template <typename T, typename U, bool isSetMask = true>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  static_assert(sizeof(U) == 1, "Compare: dst must be int8_t or uint8_t [docs/ascendc.md#compare-and-select]");
  (void)mask;
  const auto b = src1.ub_ref();
  tilesim::ascendc::compare_bits(detail::cmp(cmpMode), detail::dtype_of<T>(), detail::byte_ref(dst), src0.ub_ref(),
                                 &b, 0, repeatTime, detail::strides(repeatParams), "Compare");
}
template <typename T, typename U>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             uint32_t count, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  static_assert(sizeof(U) == 1, "Compare: dst must be int8_t or uint8_t [docs/ascendc.md#compare-and-select]");
  const auto b = src1.ub_ref();
  tilesim::ascendc::compare_bits_count(detail::cmp(cmpMode), detail::dtype_of<T>(), detail::byte_ref(dst),
                                       src0.ub_ref(), &b, 0, count, "Compare");
}
// Compare of one repeat into the CMPMASK register.
template <typename T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask[],
             const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::compare_to_cmpmask(detail::cmp(cmpMode), detail::dtype_of<T>(), src0.ub_ref(), src1.ub_ref(),
                                       detail::bit_mask<T>(mask, isSetMask), detail::strides(repeatParams));
}
template <typename T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask,
             const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::compare_to_cmpmask(detail::cmp(cmpMode), detail::dtype_of<T>(), src0.ub_ref(), src1.ub_ref(),
                                       detail::len_mask(mask, isSetMask), detail::strides(repeatParams));
}
#define TILESIM_ASCENDC_COMPARES(NAME)                                                                           \
  template <typename T, typename U, bool isSetMask = true>                                                      \
  void NAME(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,         \
            const uint64_t mask[], uint8_t repeatTime, const UnaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                 \
    static_assert(std::is_same_v<U, uint8_t>, #NAME ": dst must be uint8_t [docs/ascendc.md#compare-and-select]"); \
    (void)mask;                                                                                                 \
    tilesim::ascendc::compare_bits(detail::cmp(cmpMode), detail::dtype_of<T>(), detail::byte_ref(dst),          \
                                   src0.ub_ref(), nullptr, detail::code_of(src1Scalar), repeatTime,             \
                                   detail::strides(repeatParams), #NAME);                                       \
  }                                                                                                             \
  template <typename T, typename U, bool isSetMask = true>                                                      \
  void NAME(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,         \
            const uint64_t mask, uint8_t repeatTime, const UnaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                   \
    static_assert(std::is_same_v<U, uint8_t>, #NAME ": dst must be uint8_t [docs/ascendc.md#compare-and-select]"); \
    (void)mask;                                                                                                 \
    tilesim::ascendc::compare_bits(detail::cmp(cmpMode), detail::dtype_of<T>(), detail::byte_ref(dst),          \
                                   src0.ub_ref(), nullptr, detail::code_of(src1Scalar), repeatTime,             \
                                   detail::strides(repeatParams), #NAME);                                       \
  }                                                                                                             \
  template <typename T, typename U>                                                                             \
  void NAME(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,         \
            uint32_t count, TILESIM_ASCENDC_SITE) { TILESIM_ASCENDC_AT;                                                                                   \
    static_assert(std::is_same_v<U, uint8_t>, #NAME ": dst must be uint8_t [docs/ascendc.md#compare-and-select]"); \
    tilesim::ascendc::compare_bits_count(detail::cmp(cmpMode), detail::dtype_of<T>(), detail::byte_ref(dst),    \
                                         src0.ub_ref(), nullptr, detail::code_of(src1Scalar), count, #NAME);    \
  }
TILESIM_ASCENDC_COMPARES(Compares)
TILESIM_ASCENDC_COMPARES(CompareScalar)
#undef TILESIM_ASCENDC_COMPARES

template <typename T>
void GetCmpMask(const LocalTensor<T>& dst, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::get_cmp_mask(detail::byte_ref(dst));
}
template <typename T>
void SetCmpMask(const LocalTensor<T>& src, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::set_cmp_mask(detail::byte_ref(src));
}

// Select: bit 1 takes src0, bit 0 src1 (docs/ascendc.md#compare-and-select). isSetMask is reserved:
// the mask/repeat forms always set the mask.
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask[], uint8_t repeatTime,
            const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  const auto s = detail::byte_ref(selMask);
  const auto b = src1.ub_ref();
  const auto m = detail::bit_mask<T>(mask, true);
  tilesim::ascendc::select(detail::sel(selMode), detail::dtype_of<T>(), dst.ub_ref(), &s, src0.ub_ref(), &b, 0, &m,
                           repeatTime, detail::strides(repeatParams), false, 0);
}
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask, uint8_t repeatTime,
            const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  const auto s = detail::byte_ref(selMask);
  const auto b = src1.ub_ref();
  const auto m = detail::len_mask(mask, true);
  tilesim::ascendc::select(detail::sel(selMode), detail::dtype_of<T>(), dst.ub_ref(), &s, src0.ub_ref(), &b, 0, &m,
                           repeatTime, detail::strides(repeatParams), false, 0);
}
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint32_t count, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  const auto s = detail::byte_ref(selMask);
  const auto b = src1.ub_ref();
  tilesim::ascendc::select(detail::sel(selMode), detail::dtype_of<T>(), dst.ub_ref(), &s, src0.ub_ref(), &b, 0,
                           nullptr, 0, {}, true, count);
}
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            std::type_identity_t<T> src1, SELMODE selMode, uint64_t mask[], uint8_t repeatTime,
            const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  const auto s = detail::byte_ref(selMask);
  const auto m = detail::bit_mask<T>(mask, true);
  tilesim::ascendc::select(detail::sel(selMode), detail::dtype_of<T>(), dst.ub_ref(), &s, src0.ub_ref(), nullptr,
                           detail::code_of(src1), &m, repeatTime, detail::strides(repeatParams), false, 0);
}
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            std::type_identity_t<T> src1, SELMODE selMode, uint64_t mask, uint8_t repeatTime,
            const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  const auto s = detail::byte_ref(selMask);
  const auto m = detail::len_mask(mask, true);
  tilesim::ascendc::select(detail::sel(selMode), detail::dtype_of<T>(), dst.ub_ref(), &s, src0.ub_ref(), nullptr,
                           detail::code_of(src1), &m, repeatTime, detail::strides(repeatParams), false, 0);
}
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            std::type_identity_t<T> src1, SELMODE selMode, uint32_t count, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  const auto s = detail::byte_ref(selMask);
  tilesim::ascendc::select(detail::sel(selMode), detail::dtype_of<T>(), dst.ub_ref(), &s, src0.ub_ref(), nullptr,
                           detail::code_of(src1), nullptr, 0, {}, true, count);
}
// The no-mask forms: the caller set the mask register and CMPMASK (SetVectorMask, SetCmpMask).
template <typename T, SELMODE selMode>
void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint8_t repeatTime,
            const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  const auto b = src1.ub_ref();
  tilesim::ascendc::select(detail::sel(selMode), detail::dtype_of<T>(), dst.ub_ref(), nullptr, src0.ub_ref(), &b, 0,
                           nullptr, repeatTime, detail::strides(repeatParams), false, 0);
}
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, uint8_t repeatTime,
            const BinaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  const auto s = detail::byte_ref(selMask);
  uint64_t scalar = 0;
  std::memcpy(&scalar, tilesim::ascendc::core().cmpmask, sizeof(T));  // the scalar SetCmpMask loaded
  tilesim::ascendc::select(tilesim::ascendc::SelMode::VSEL_TENSOR_SCALAR_MODE, detail::dtype_of<T>(), dst.ub_ref(), &s,
                           src0.ub_ref(), nullptr, scalar, nullptr, repeatTime, detail::strides(repeatParams), false,
                           0);
}

// ---- Duplicate and Cast, mask + repeat forms ----
template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const std::type_identity_t<T>& scalarValue, uint64_t mask,
               const uint8_t repeatTime, const uint16_t dstBlockStride, const uint8_t dstRepeatStride, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::duplicate_repeat(detail::dtype_of<T>(), dst.ub_ref(), detail::code_of(scalarValue),
                                     detail::len_mask(mask, isSetMask), repeatTime, dstBlockStride, dstRepeatStride);
}
template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const std::type_identity_t<T>& scalarValue, uint64_t mask[],
               const uint8_t repeatTime, const uint16_t dstBlockStride, const uint8_t dstRepeatStride, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  tilesim::ascendc::duplicate_repeat(detail::dtype_of<T>(), dst.ub_ref(), detail::code_of(scalarValue),
                                     detail::bit_mask<T>(mask, isSetMask), repeatTime, dstBlockStride,
                                     dstRepeatStride);
}
// The mask words follow the narrower type, as the library sets them (two words for a 16-bit side).
template <typename T, typename U, bool isSetMask = true>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint64_t mask[],
          const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  detail::repeat_params_supported("Cast", repeatParams);
  using N = std::conditional_t<(sizeof(T) < sizeof(U)), T, U>;
  tilesim::ascendc::MaskArg m = detail::bit_mask<std::conditional_t<sizeof(N) == 2, half, float>>(mask, isSetMask);
  if (sizeof(N) == 1) m = detail::bit_mask<half>(mask, isSetMask);
  tilesim::ascendc::cast_repeat(detail::dtype_of<T>(), detail::dtype_of<U>(), dst.ub_ref(), src.ub_ref(),
                                static_cast<tilesim::ascendc::CastRound>(roundMode), m, repeatTime,
                                detail::strides(repeatParams));
}
template <typename T, typename U, bool isSetMask = true>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint64_t mask,
          const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, TILESIM_ASCENDC_SITE) {
  TILESIM_ASCENDC_AT;
  detail::repeat_params_supported("Cast", repeatParams);
  tilesim::ascendc::cast_repeat(detail::dtype_of<T>(), detail::dtype_of<U>(), dst.ub_ref(), src.ub_ref(),
                                static_cast<tilesim::ascendc::CastRound>(roundMode),
                                detail::len_mask(mask, isSetMask), repeatTime, detail::strides(repeatParams));
}

// ---- control: the CTRL register's saturation bits, the cycle counter (docs/ascendc.md#control) ----
enum class SaturationMode : uint8_t { FLOAT, FLOAT8, INT, CAST };
template <SaturationMode mode>
inline void SetSaturationFlag(bool enableSat) {
  tilesim::ascendc::set_saturation_flag(static_cast<unsigned>(mode), enableSat);
}
template <SaturationMode mode>
inline bool GetSaturationFlag() {
  return tilesim::ascendc::get_saturation_flag(static_cast<unsigned>(mode));
}
// CTRL[48]: 0 saturating, 1 not (the only field Atlas A2 lets a kernel write).
template <int8_t startBit, int8_t endBit>
inline void SetCtrlSpr(int64_t value) {
  static_assert(startBit == 48 && endBit == 48, "SetCtrlSpr: only <48, 48> (the saturation bit) is supported");
  tilesim::ascendc::set_ctrl_bit48(value, "SetCtrlSpr");
}
template <int8_t startBit, int8_t endBit>
inline int64_t GetCtrlSpr() {
  static_assert(startBit == 48 && endBit == 48, "GetCtrlSpr: only <48, 48> (the saturation bit) is supported");
  return tilesim::ascendc::core().half_saturation() ? 0 : 1;
}
template <int8_t startBit, int8_t endBit>
inline void ResetCtrlSpr() {
  static_assert(startBit == 48 && endBit == 48, "ResetCtrlSpr: only <48, 48> (the saturation bit) is supported");
  tilesim::ascendc::set_ctrl_bit48(-1, "ResetCtrlSpr");
}
// A deterministic cycle count: the calling core's count of GetSystemCycle calls (docs/ascendc.md#control).
inline int64_t GetSystemCycle() {
  return tilesim::ascendc::system_cycle();
}

// The kernel utilities' integer helpers (vendor kernel_utils: uint32_t in and out). A divisor of 0,
// undefined on the device, is an error here (docs/ascendc.md#kernel-utilities).
namespace detail {
[[noreturn]] inline void zero_divisor(const char* api, uint32_t a) {
  tilesim::raise(tilesim::ErrorCode::Constraint, api,
                 "the divisor must not be 0 (dividend " + std::to_string(a) + ")",
                 "docs/ascendc.md#kernel-utilities");
}
}  // namespace detail
constexpr inline uint32_t DivCeil(uint32_t a, uint32_t b) {
  if (b == 0) detail::zero_divisor("DivCeil", a);
  return static_cast<uint32_t>((uint64_t{a} + b - 1) / b);
}
constexpr inline uint32_t AlignUp(uint32_t a, uint32_t b) {
  if (b == 0) detail::zero_divisor("AlignUp", a);
  return DivCeil(a, b) * b;
}
constexpr inline uint32_t ConstCeil(uint32_t a, uint32_t b) {
  if (b == 0) detail::zero_divisor("ConstCeil", a);
  return DivCeil(a, b);
}
inline uint32_t Ceil(uint32_t a, uint32_t b) {
  if (b == 0) detail::zero_divisor("Ceil", a);
  return DivCeil(a, b);
}

}  // namespace AscendC

// The current TPipe of the calling block (the vendor's global GetTPipePtr(), which returns the
// g_tPipePtr the TPipe constructor sets): the newest TPipe alive on the core. With none alive the
// vendor returns a dangling or null pointer; here it is an error (docs/ascendc.md#kernel-utilities).
inline AscendC::TPipe* GetTPipePtr() {
  void* p = tilesim::ascendc::core().tpipe;
  if (p == nullptr)
    tilesim::raise(tilesim::ErrorCode::Constraint, "GetTPipePtr",
                   "no TPipe is alive in this block (construct one before asking for it)",
                   "docs/ascendc.md#kernel-utilities");
  return static_cast<AscendC::TPipe*>(p);
}

#undef TILESIM_ASCENDC_SITE
#undef TILESIM_ASCENDC_AT

// printf / PRINTF, DumpTensor, ascendc_assert (docs/ascendc.md#debug-prints).
#include "tilesim/ascendc/debug.hpp"
