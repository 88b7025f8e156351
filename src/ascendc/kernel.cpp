// The non-template half of <tilesim/ascendc.hpp>: UB access, TQue bookkeeping, and the calls into
// the engine with the core's state (product, mask register, saturation).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "tilesim/ascendc.hpp"
#include "tilesim/error.hpp"

namespace AscendC::detail {

using std::to_string;
using tilesim::ErrorCode;
using tilesim::raise;

namespace {
constexpr const char* kDocQue = "docs/ascendc.md#tque";
}

uint8_t* ub_ptr(uint64_t addr, uint64_t bytes, const char* what, const char* operand) {
  return ts::ub_bytes(addr, bytes, what, operand ? operand : "tensor");
}

void index_error(const char* what, uint64_t index, uint64_t size) {
  raise(ErrorCode::Bounds, what, "index " + to_string(index) + " out of range for " + to_string(size) + " elements",
        "docs/ascendc.md#tensors");
}

void gm_error(const char* what, const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  raise(ErrorCode::Bounds, what,
        std::string("pointer ") + buf + " is not inside a live GmAlloc block (inside ICPU_RUN_KF every GM "
        "tensor must be)", "docs/ascendc.md#gm");
}

void reduce(ts::ReduceOp op, ts::Elem t, uint64_t dst_addr, uint64_t dst_size, uint64_t src_addr,
            uint64_t src_size, int32_t repeat, const ts::MaskArg& mask, int32_t dst_rep,
            int32_t src_blk, int32_t src_rep) {
  ts::Core& c = ts::core();
  const unsigned sz = ts::elem_bytes(t);
  ts::Operand d{ub_ptr(dst_addr, dst_size * sz, ts::name(op), "dst"), dst_addr, dst_size};
  ts::Operand s{ub_ptr(src_addr, src_size * sz, ts::name(op), "src"), src_addr, src_size};
  ts::ReduceCall call{op, t, repeat, mask, dst_rep, src_blk, src_rep};
  if (ts::t_sync) [[unlikely]]  // the operands' extents
    ts::record(ts::name(op), ts::pipe_of(ts::pipe_rule(ts::OtherApi::BlockReduce)), {ts::ub_range(src_addr, src_size * sz)},
               {ts::ub_range(dst_addr, dst_size * sz)});
  ts::block_reduce(*c.product, c.half_saturation(), c.mask, d, s, call);
}

void set_vector_mask(ts::Elem t, bool counter, bool bits, uint64_t high, uint64_t low,
                     int64_t len) {
  ts::MaskRegister& r = ts::core().mask;
  if (counter)
    ts::set_vector_mask_count(r, high,
                              bits ? (low > uint64_t(INT64_MAX) ? -1 : int64_t(low)) : len);
  else if (bits)
    ts::set_vector_mask_bits(r, t, high, low);
  else
    ts::set_vector_mask_len(r, t, len);
}

void scalar_access(bool write, bool ub, uint64_t addr, const void* gm, uint64_t bytes, const tilesim::sync::Site& site) {
  const ts::ApiSite at(site);
  const tilesim::sync::Range r = ub ? ts::ub_range(addr, bytes) : ts::gm_range(gm, bytes);
  const ts::OtherApi api = write ? ts::OtherApi::SetValue : ts::OtherApi::GetValue;
  ts::record(write ? "SetValue" : "GetValue", ts::pipe_of(ts::pipe_rule(api)), &r, write ? 0 : 1, &r, write ? 1 : 0);
}

void QueueState::init(unsigned num, uint64_t len, int32_t depth, uint8_t producer, uint8_t consumer) {
  producer_ = producer;
  consumer_ = consumer;
  if (num == 0)
    raise(ErrorCode::Constraint, "TPipe::InitBuffer", "a queue needs at least one buffer, got 0", kDocQue);
  addr_.clear();
  for (unsigned i = 0; i < num; ++i) addr_.push_back(ts::ub_alloc(len, "TPipe::InitBuffer"));
  state_.assign(num, 0);
  fifo_.clear();
  len_ = len;
  depth_ = depth;
}

unsigned QueueState::vacant() const {
  return static_cast<unsigned>(std::count(state_.begin(), state_.end(), uint8_t{0}));
}

// The queue's hand-overs for the pipeline-hazard checker (issue 22), as the vendor's queues order
// them on hardware: EnQue -> DeQue orders the consumer pipe after the producer's work on the
// buffer, FreeTensor -> AllocTensor the next producer after the consumer's.
uint64_t QueueState::sync_key(uint64_t addr, bool queued) const {
  return (static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this)) * 0x9E3779B97F4A7C15ull) ^ (addr << 1) ^
         (queued ? 1u : 0u);
}

uint64_t QueueState::alloc() {
  for (size_t i = 0; i < addr_.size(); ++i)
    if (state_[i] == 0) {
      state_[i] = 1;
      if (ts::t_sync) [[unlikely]]
        tilesim::sync::take(sync_key(addr_[i], false), producer_);
      return addr_[i];
    }
  raise(ErrorCode::Constraint, "TQue::AllocTensor",
        "no free buffer: all " + to_string(addr_.size()) +
            " buffers of the queue are allocated or enqueued (FreeTensor one first)",
        kDocQue);
}

void QueueState::enque(uint64_t addr) {
  if (depth_ > 0 && fifo_.size() >= static_cast<size_t>(depth_))
    raise(ErrorCode::Constraint, "TQue::EnQue",
          "the queue already holds " + to_string(fifo_.size()) + " tensors, its depth is " + to_string(depth_),
          kDocQue);
  for (size_t i = 0; i < addr_.size(); ++i)
    if (addr_[i] == addr && state_[i] == 1) {
      state_[i] = 2;
      fifo_.push_back(addr);
      if (ts::t_sync) [[unlikely]]
        tilesim::sync::post(sync_key(addr, true), producer_);
      return;
    }
  raise(ErrorCode::Constraint, "TQue::EnQue",
        "tensor at UB address " + to_string(addr) + " is not an allocated (and not yet enqueued) buffer of this queue",
        kDocQue);
}

uint64_t QueueState::deque() {
  if (fifo_.empty()) raise(ErrorCode::Constraint, "TQue::DeQue", "the queue is empty (no EnQue to take)", kDocQue);
  const uint64_t a = fifo_.front();
  fifo_.erase(fifo_.begin());
  for (size_t i = 0; i < addr_.size(); ++i)
    if (addr_[i] == a) state_[i] = 1;
  if (ts::t_sync) [[unlikely]]
    tilesim::sync::take(sync_key(a, true), consumer_);
  return a;
}

void QueueState::free(uint64_t addr) {
  for (size_t i = 0; i < addr_.size(); ++i)
    if (addr_[i] == addr) {
      if (state_[i] == 1) {
        state_[i] = 0;
        if (ts::t_sync) [[unlikely]]
          tilesim::sync::post(sync_key(addr, false), consumer_);
        return;
      }
      raise(ErrorCode::Constraint, "TQue::FreeTensor",
            "tensor at UB address " + to_string(addr) +
                (state_[i] == 0 ? " is already free (double free)" : " is still enqueued (DeQue it first)"),
            kDocQue);
    }
  raise(ErrorCode::Constraint, "TQue::FreeTensor",
        "tensor at UB address " + to_string(addr) + " is not a buffer of this queue", kDocQue);
}

}  // namespace AscendC::detail
