// The non-template half of <tilesim/ascendc.hpp>: UB access, TQue bookkeeping, DataCopy, and the
// calls into the engine with the core's state (product, mask register, saturation).
#include <algorithm>
#include <cstring>
#include <string>

#include "tilesim/ascendc.hpp"
#include "tilesim/error.hpp"

namespace AscendC::detail {

using std::to_string;
using tilesim::ErrorCode;
using tilesim::raise;

uint8_t* ub_ptr(uint64_t addr, uint64_t bytes, const char* what, const char* operand) {
  auto& ub = ts::core().ub;
  if (bytes > ub.size() || addr > ub.size() - bytes)
    raise(ErrorCode::Bounds, what,
          std::string(operand ? operand : "") + (operand ? ": " : "") + "UB bytes [" +
              to_string(addr) + ", " + to_string(addr + bytes) + ") are outside the " +
              to_string(ub.size()) + "-byte UB of " + ts::core().product->name,
          "40 §1");
  return ub.data() + addr;
}

void count_error(const char* what, int64_t count, uint64_t size) {
  raise(ErrorCode::Bounds, what,
        "count must be in [0, " + to_string(size) + "] (dst's elements), got " +
            std::to_string(count),
        "40 §1");
}

void index_error(const char* what, uint64_t index, uint64_t size) {
  raise(ErrorCode::Bounds, what,
        "index " + to_string(index) + " out of range for " + to_string(size) + " elements",
        "40 §1");
}

void data_copy(void* dst, uint64_t dst_elems, const void* src, uint64_t src_elems, uint64_t count,
               unsigned elem_size) {
  if ((count * elem_size) % 32 != 0)
    raise(ErrorCode::Constraint, "DataCopy",
          "count * sizeof(T) must be a multiple of 32 bytes, got " + to_string(count) + " * " +
              to_string(elem_size),
          "40 §1");
  if (count > dst_elems)
    raise(ErrorCode::Bounds, "DataCopy",
          "dst: count " + to_string(count) + " exceeds its " + to_string(dst_elems) + " elements",
          "40 §1");
  if (count > src_elems)
    raise(ErrorCode::Bounds, "DataCopy",
          "src: count " + to_string(count) + " exceeds its " + to_string(src_elems) + " elements",
          "40 §1");
  if (count) std::memmove(dst, src, count * elem_size);
}

void reduce(ts::ReduceOp op, ts::Elem t, uint64_t dst_addr, uint64_t dst_size, uint64_t src_addr,
            uint64_t src_size, int32_t repeat, const ts::MaskArg& mask, int32_t dst_rep,
            int32_t src_blk, int32_t src_rep) {
  ts::Core& c = ts::core();
  const unsigned sz = ts::elem_bytes(t);
  ts::Operand d{ub_ptr(dst_addr, dst_size * sz, ts::name(op), "dst"), dst_addr, dst_size};
  ts::Operand s{ub_ptr(src_addr, src_size * sz, ts::name(op), "src"), src_addr, src_size};
  ts::ReduceCall call{op, t, repeat, mask, dst_rep, src_blk, src_rep};
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

void QueueState::init(unsigned num, uint64_t len) {
  if (num == 0)
    raise(ErrorCode::Constraint, "TPipe::InitBuffer", "a queue needs at least one buffer, got 0",
          "40 §1");
  addr_.clear();
  for (unsigned i = 0; i < num; ++i) addr_.push_back(ts::ub_alloc(len, "TPipe::InitBuffer"));
  state_.assign(num, 0);
  fifo_.clear();
  len_ = len;
}

uint64_t QueueState::alloc() {
  for (size_t i = 0; i < addr_.size(); ++i)
    if (state_[i] == 0) {
      state_[i] = 1;
      return addr_[i];
    }
  raise(ErrorCode::Constraint, "TQue::AllocTensor",
        "no free buffer (" + to_string(addr_.size()) + " initialised, all allocated or queued)",
        "40 §1");
}

void QueueState::enque(uint64_t addr) {
  for (size_t i = 0; i < addr_.size(); ++i)
    if (addr_[i] == addr && state_[i] == 1) {
      state_[i] = 2;
      fifo_.push_back(addr);
      return;
    }
  raise(ErrorCode::Constraint, "TQue::EnQue",
        "tensor at UB address " + to_string(addr) + " was not allocated from this queue", "40 §1");
}

uint64_t QueueState::deque() {
  if (fifo_.empty()) raise(ErrorCode::Constraint, "TQue::DeQue", "the queue is empty", "40 §1");
  const uint64_t a = fifo_.front();
  fifo_.erase(fifo_.begin());
  for (size_t i = 0; i < addr_.size(); ++i)
    if (addr_[i] == a) state_[i] = 1;
  return a;
}

void QueueState::free(uint64_t addr) {
  for (size_t i = 0; i < addr_.size(); ++i)
    if (addr_[i] == addr && state_[i] == 1) {
      state_[i] = 0;
      return;
    }
  raise(ErrorCode::Constraint, "TQue::FreeTensor",
        "tensor at UB address " + to_string(addr) + " is not an allocated buffer of this queue",
        "40 §1");
}

}  // namespace AscendC::detail
