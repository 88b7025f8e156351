// The Ascend C vector APIs' engine (spec 41 §2-§3): one table row per API naming a spec 15 op
// (src/ascendc/vector.cpp), memory movement (DataCopy, DataCopyPad, Duplicate) with every UB and
// GM access checked. The vendor-shaped templates in <tilesim/ascendc.hpp> only describe operands
// and call these.
#pragma once
#include <cstdint>
#include <string>

#include "tilesim/ascendc/engine.hpp"
#include "tilesim/formats.hpp"

namespace tilesim::ascendc {

using formats::DType;

// X(API, kind, op, dtypes, saturates, pipe): kind Binary (dst, a, b), BinaryRelu (relu of the binary op),
// MulAddDst (dst = a * b + dst), FusedMulAdd (dst = a * dst + b), Scalar (dst, a, s), LeakyRelu
// (a >= 0 ? a : a * s), Unary (dst, a); op the spec 15 op; dtypes the element types the API takes
// on Atlas A2 (docs/ascendc.md#vector-apis); saturates: the CTRL saturation mode applies to
// half/bf16 results (spec 41 §3); pipe: the pipe that runs it, for the pipeline-hazard checker
// (issue 22; every vector API runs on PIPE_V, as the vendor's intrinsic pages list them).
#define TILESIM_ASCENDC_VECTOR_APIS(X)                 \
  X(Add, Binary, add, kArith, true, V)                 \
  X(Sub, Binary, sub, kArith, true, V)                 \
  X(Mul, Binary, mul, kArith, true, V)                 \
  X(Div, Binary, div, kFloats, true, V)                \
  X(Max, Binary, max, kArith, false, V)                \
  X(Min, Binary, min, kArith, false, V)                \
  X(And, Binary, band, kBits16, false, V)              \
  X(Or, Binary, bor, kBits16, false, V)                \
  X(AddRelu, BinaryRelu, add, kFloatsS16, true, V)     \
  X(SubRelu, BinaryRelu, sub, kFloatsS16, true, V)     \
  X(MulAddDst, MulAddDst, mul, kFloats, true, V)       \
  X(FusedMulAdd, FusedMulAdd, mul, kFloats, true, V)   \
  X(Adds, Scalar, add, kArith, true, V)                \
  X(Muls, Scalar, mul, kArith, true, V)                \
  X(Maxs, Scalar, max, kArith, false, V)               \
  X(Mins, Scalar, min, kArith, false, V)               \
  X(ShiftLeft, Scalar, shl, kInts, false, V)           \
  X(ShiftRight, Scalar, shr, kInts, false, V)          \
  X(LeakyRelu, LeakyRelu, mul, kFloats, true, V)       \
  X(Exp, Unary, exp, kFloats, true, V)                 \
  X(Ln, Unary, ln, kFloats, true, V)                   \
  X(Abs, Unary, abs, kFloats, true, V)                 \
  X(Sqrt, Unary, sqrt, kFloats, true, V)               \
  X(Rsqrt, Unary, rsqrt, kFloats, true, V)             \
  X(Reciprocal, Unary, recip, kFloats, true, V)        \
  X(Relu, Unary, relu, kFloatsS32, true, V)            \
  X(Not, Unary, bnot, kBits16, false, V)

enum class VecApi : uint8_t {
#define TILESIM_ASCENDC_VEC_ENUM(name, kind, op, dtypes, sat, pipe) name,
  TILESIM_ASCENDC_VECTOR_APIS(TILESIM_ASCENDC_VEC_ENUM)
#undef TILESIM_ASCENDC_VEC_ENUM
};

// A UB operand: its byte address in the calling core's UB and its extent in elements.
struct UbRef {
  uint64_t addr = 0;
  uint64_t elems = 0;
};
// Either side of a copy: a UB operand, or GM host memory with the tensor's extent and the end of
// the GmAlloc block holding it (nullptr: host memory outside ICPU_RUN_KF, not checked further).
struct MemRef {
  bool ub = true;
  uint64_t addr = 0;  // UB byte address
  uint8_t* gm = nullptr;
  const uint8_t* gm_end = nullptr;
  uint64_t elems = 0;
};

// The dtypes an API of the table takes ("fp16 fp32 s16 s32"), as its errors and docs list them.
std::string vector_api_dtypes(VecApi api);

// Count forms (spec 41 §3): counter mode over elements [0, count) of every operand, then the core's
// mask register is left in normal mode, all ones. `scalar` is a code of t (Scalar kind).
void vector_count(VecApi api, DType t, const UbRef& dst, const UbRef& a, const UbRef* b,
                  uint64_t scalar, int64_t count, bool round_en = false);

// Mask + repeat forms (spec 41 §3): the operands' block and repeat strides in 32-byte datablocks
// (BinaryRepeatParams / UnaryRepeatParams), the mask argument (or the register when
// mask.set_mask is false; counter mode: its count), repeatTime. Unary and scalar APIs use the dst
// and src0 fields. `round_en`: ShiftRight's rounding argument.
struct RepeatStrides {
  uint64_t dst_blk = 1, src0_blk = 1, src1_blk = 1;
  uint64_t dst_rep = 8, src0_rep = 8, src1_rep = 8;
};
void vector_repeat(VecApi api, DType t, const UbRef& dst, const UbRef& a, const UbRef* b, uint64_t scalar,
                   const MaskArg& mask, int64_t repeat, const RepeatStrides& strides, bool round_en = false);

// MulAddDst<float, half> (docs/ascendc.md#muladddst): float dst = half src0 · half src1 + dst, 64
// lanes per repeat (the float dst's), each operand's strides in its own datablocks.
void mul_add_dst_mixed_count(const UbRef& dst, const UbRef& a, const UbRef& b, int64_t count);
void mul_add_dst_mixed_repeat(const UbRef& dst, const UbRef& a, const UbRef& b, const MaskArg& mask, int64_t repeat,
                              const RepeatStrides& strides);

// ---- reductions and Brcb (spec 41 §3, docs/ascendc.md#reductions) ----
enum class ReduceOrderKind : uint8_t { VALUE_INDEX, INDEX_VALUE, ONLY_VALUE, ONLY_INDEX };
// WholeReduceSum/Max/Min (ReduceRepeat, RepeatReduceSum): one result slot per repeat.
void whole_reduce(ReduceOp op, DType t, const UbRef& dst, const UbRef& src, const MaskArg& m, int64_t repeat,
                  int64_t dst_rep, int64_t src_blk, int64_t src_rep, ReduceOrderKind order, const char* api);
// PairReduceSum (ReducePairElem): lanes (2k, 2k+1) summed into result k.
void pair_reduce_sum(DType t, const UbRef& dst, const UbRef& src, const MaskArg& m, int64_t repeat, int64_t dst_rep,
                     int64_t src_blk, int64_t src_rep, const char* api);
// High-level ReduceSum / ReduceMax / ReduceMin: the count form and the mask/repeat form with the
// work buffer `tmp`; dst[0] the value, dst[1] the index when cal_index (Max/Min).
void reduce_count(ReduceOp op, DType t, const UbRef& dst, const UbRef& src, const UbRef& tmp, int64_t count,
                  bool cal_index, bool set_mask, const char* api);
void reduce_repeat(ReduceOp op, DType t, const UbRef& dst, const UbRef& src, const UbRef& tmp, const MaskArg& m,
                   int64_t repeat, int64_t src_rep, bool cal_index, const char* api);
// Brcb: element 8i + j of src fills datablock (i * dst_rep + j * dst_blk) of dst; resets the mask.
void brcb(DType t, const UbRef& dst, const UbRef& src, int64_t repeat, uint64_t dst_blk, uint64_t dst_rep);

// ---- Compare / Select (spec 41 §3, docs/ascendc.md#compare-and-select) ----
enum class CmpMode : uint8_t { LT, GT, EQ, LE, GE, NE };
enum class SelMode : uint8_t { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
// Compare / Compares (b == nullptr: against `scalar`) into a bit mask: 256 / sizeof(T) bits per
// repeat, packed repeat after repeat; the mask is not used (Atlas A2). dst counts bytes.
void compare_bits(CmpMode mode, DType t, const UbRef& dst, const UbRef& a, const UbRef* b, uint64_t scalar,
                  int64_t repeat, const RepeatStrides& strides, const char* api);
void compare_bits_count(CmpMode mode, DType t, const UbRef& dst, const UbRef& a, const UbRef* b, uint64_t scalar,
                        int64_t count, const char* api);
// Compare of one repeat into the CMPMASK register (the mask sets the register as usual).
void compare_to_cmpmask(CmpMode mode, DType t, const UbRef& a, const UbRef& b, const MaskArg& m,
                        const RepeatStrides& strides);
void get_cmp_mask(const UbRef& dst_bytes);
void set_cmp_mask(const UbRef& src_bytes);
// Select: bit 1 takes src0, bit 0 src1 (or `scalar` in VSEL_TENSOR_SCALAR_MODE). sel: the selMask
// bytes (nullptr: the no-mask forms, bits or scalar already in CMPMASK). mask: the mask/repeat
// form's mask (nullptr with !count_form: the register as it is).
void select(SelMode mode, DType t, const UbRef& dst, const UbRef* sel, const UbRef& a, const UbRef* b,
            uint64_t scalar, const MaskArg* mask, int64_t repeat, const RepeatStrides& strides, bool count_form,
            int64_t count);

// Ascend C RoundMode (spec 15 §2 table).
enum class CastRound : uint8_t { CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
const char* name(CastRound r) noexcept;
void cast_count(DType to, DType from, const UbRef& dst, const UbRef& src, CastRound mode,
                int64_t count);
// Cast mask/repeat form: lanes per repeat follow the wider type; each operand's strides count its
// own datablocks (spec 41 §3 "Cast walk").
void cast_repeat(DType to, DType from, const UbRef& dst, const UbRef& src, CastRound mode, const MaskArg& mask,
                 int64_t repeat, const RepeatStrides& strides);

// Duplicate count form: the first `count` elements of dst = the code `value`.
void duplicate_count(DType t, const UbRef& dst, uint64_t value, int64_t count);
// Duplicate mask/repeat form (strides in datablocks).
void duplicate_repeat(DType t, const UbRef& dst, uint64_t value, const MaskArg& mask, int64_t repeat,
                      uint64_t dst_blk, uint64_t dst_rep);

// DataCopy count form and DataCopyParams form (spec 41 §2).
void data_copy(const MemRef& dst, const MemRef& src, uint64_t count, unsigned elem_bytes);
struct CopyBlocks {
  uint32_t block_count = 1, block_len = 0;  // block_len: 32-byte datablocks (DataCopy) or bytes (Pad)
  uint64_t src_stride = 0, dst_stride = 0;
};
void data_copy_blocks(const MemRef& dst, const MemRef& src, const CopyBlocks& p, unsigned elem_bytes);
// DataCopyPad (spec 41 §2): GM -> UB with padding, UB -> GM. `pad` only for GM -> UB.
struct PadSpec {
  bool is_pad = false;
  uint32_t left = 0, right = 0;  // elements
  uint64_t value = 0;            // code of T
};
void data_copy_pad(const MemRef& dst, const MemRef& src, const CopyBlocks& p, const PadSpec& pad,
                   unsigned elem_bytes, const char* api);

// SetAtomicAdd<T> (t: the element type) / SetAtomicNone (nullopt-like: t ignored, on = false):
// while on, DataCopy and DataCopyPad from UB to GM add each element to GM's (docs/ascendc.md#atomic-add).
void set_atomic_add(bool on, DType t);

// Host pointer of a checked UB range of the calling core.
uint8_t* ub_bytes(uint64_t addr, uint64_t bytes, const char* api, const char* operand);

// Applies the CTRL saturation mode to n half/bf16 results: ±Inf -> ±MAX, NaN -> +0 (spec 41 §3).
void saturate_results(DType t, void* p, uint64_t n) noexcept;

// ---- control (docs/ascendc.md#control) ----
// SaturationMode FLOAT (0), FLOAT8 (1), INT (2), CAST (3) as the vendor numbers them.
void set_saturation_flag(unsigned mode, bool enable);
bool get_saturation_flag(unsigned mode);
// SetCtrlSpr<48, 48>(v) (v < 0: ResetCtrlSpr, back to the product default).
void set_ctrl_bit48(int64_t value, const char* api);
int64_t system_cycle();
enum class EventOp : uint8_t { Alloc, Release, Fetch };
int8_t event_id(uint32_t event, EventOp op, int8_t id);

// SetFlag/WaitFlag bookkeeping of the calling core (checked at the end of each block).
void set_flag(uint32_t event, int32_t id);
void wait_flag(uint32_t event, int32_t id);

}  // namespace tilesim::ascendc
