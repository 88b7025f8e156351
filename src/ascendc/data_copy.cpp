// DataCopy with DataCopyParams (the vendor's strided form; README "Semantics decisions"): blockCount
// blocks of blockLen 32-byte datablocks, srcStride / dstStride datablocks of gap between blocks.
// Every check comes before any byte moves; overlapping UB-to-UB copies read everything first.
#include <cstring>
#include <string>
#include <vector>

#include "tilesim/ascendc.hpp"
#include "tilesim/error.hpp"

namespace AscendC::detail {

using std::to_string;
using tilesim::ErrorCode;
using tilesim::raise;

namespace {
// Bytes from the first block's start to the last block's end.
uint64_t extent(const DataCopyParams& p, uint16_t stride) {
  return (uint64_t(p.blockCount - 1) * (uint64_t(p.blockLen) + stride) + p.blockLen) * 32;
}
}  // namespace

void data_copy_blocks(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, const DataCopyParams& p) {
  if (p.blockCount < 1 || p.blockCount > 4095)
    raise(ErrorCode::Constraint, "DataCopy", "blockCount must be in [1, 4095], got " + to_string(p.blockCount),
          "40 §1");
  if (p.blockLen < 1)
    raise(ErrorCode::Constraint, "DataCopy", "blockLen (32-byte datablocks per block) must be at least 1, got 0",
          "40 §1");
  const uint64_t need_src = extent(p, p.srcStride), need_dst = extent(p, p.dstStride);
  if (need_src > src_bytes)
    raise(ErrorCode::Bounds, "DataCopy",
          "src: " + to_string(p.blockCount) + " blocks of " + to_string(p.blockLen) + " datablocks with srcStride " +
              to_string(p.srcStride) + " span " + to_string(need_src) + " bytes, the tensor has " +
              to_string(src_bytes),
          "40 §1");
  if (need_dst > dst_bytes)
    raise(ErrorCode::Bounds, "DataCopy",
          "dst: " + to_string(p.blockCount) + " blocks of " + to_string(p.blockLen) + " datablocks with dstStride " +
              to_string(p.dstStride) + " span " + to_string(need_dst) + " bytes, the tensor has " +
              to_string(dst_bytes),
          "40 §1");
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  const uint64_t block = uint64_t(p.blockLen) * 32;
  std::vector<uint8_t> staged;
  const auto sb = reinterpret_cast<uintptr_t>(s), db = reinterpret_cast<uintptr_t>(d);
  if (sb < db + need_dst && db < sb + need_src) {  // overlapping: the copy reads its source first
    staged.assign(s, s + need_src);
    s = staged.data();
  }
  for (uint64_t i = 0; i < p.blockCount; ++i)
    std::memcpy(d + i * (block + uint64_t(p.dstStride) * 32), s + i * (block + uint64_t(p.srcStride) * 32), block);
}

}  // namespace AscendC::detail
