// The PTO engine's runtime interface (spec 20): a tile is a plain descriptor (dtype, shape,
// layout, valid shape, storage); targets are rows of a data table; one entry point runs any of
// the seven TROWEXPAND* ops. The C++ template (tilesim/pto.hpp), Python and PTO-AS all call it,
// so there is one implementation. Kept light: it is included by every kernel translation unit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "tilesim/pto/instructions.hpp"
#include "tilesim/sync.hpp"

namespace tilesim::pto {

// Element types of spec 20 §2 and spec 21 §2 (the union over targets; s64/u64 are a5 types).
enum class Elem : uint8_t { f16, bf16, f32, s8, s16, s32, u8, u16, u32, s64, u64 };
inline constexpr int kNumElems = 11;

// The Elem of a C++ element type carried by value: float and the integer types. The 16-bit float
// carriers (pto::half, pto::bfloat16_t) are mapped by the front end, which owns those types.
template <class T>
constexpr Elem elem_of_value() {
  if constexpr (std::is_same_v<T, float>)
    return Elem::f32;
  else if constexpr (std::is_same_v<T, int8_t>)
    return Elem::s8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return Elem::s16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return Elem::s32;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return Elem::u8;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return Elem::u16;
  else if constexpr (std::is_same_v<T, int64_t>)
    return Elem::s64;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return Elem::u64;
  else {
    static_assert(std::is_same_v<T, uint32_t>, "not a PTO element type [docs/pto.md#targets-and-dtypes]");
    return Elem::u32;
  }
}

// A table, not a switch: the element-wise checks size every operand (issue 16 §5's fixed cost).
inline constexpr uint8_t kElemSizes[kNumElems] = {2, 2, 4, 1, 2, 4, 1, 2, 4, 8, 8};
constexpr size_t elem_size(Elem e) noexcept {
  return unsigned(e) < unsigned(kNumElems) ? kElemSizes[unsigned(e)] : 4;
}
static_assert(elem_size(Elem::f16) == 2 && elem_size(Elem::f32) == 4 && elem_size(Elem::s8) == 1 &&
              elem_size(Elem::u32) == 4 && elem_size(Elem::s64) == 8 && elem_size(Elem::u64) == 8);
constexpr bool elem_is_float(Elem e) noexcept {
  return e == Elem::f16 || e == Elem::bf16 || e == Elem::f32;
}
// Canonical dtype name of spec 60 §2 ("fp16", "bf16", "fp32", "s8", ...).
const char* elem_name(Elem e) noexcept;
// Parses a spec 60 §2 name or alias, or a PTO-AS element type (f16 i8 ui16 u16 ...);
// raises Error(Unsupported) for names outside spec 20 §2's union.
Elem parse_elem(std::string_view name, std::string_view what);

// The seven ops of the family (spec 20 §4); the order is the op table's.
enum class Op : uint8_t { ADD, SUB, MUL, DIV, MAX, MIN, EXPDIF };
inline constexpr int kNumOps = 7;
const char* op_name(Op op) noexcept;  // "TROWEXPANDADD", ...

// Mirrors pto::TileType / SLayout / PadValue / CompactMode numerically (spec 20 §1).
inline constexpr uint8_t kLocVec = 0, kLocMat = 1, kLocLeft = 2, kLocRight = 3, kLocAcc = 4,
                         kLocBias = 5, kLocScaling = 6, kLocScaleLeft = 7, kLocScaleRight = 8,
                         kLocCtrl = 9;
inline constexpr uint8_t kSLayoutNoneBox = 0, kSLayoutRowMajor = 1, kSLayoutColMajor = 2;
inline constexpr uint64_t kPadNull = 0, kPadZero = 1, kPadMax = 2, kPadMin = 3;

// Dtype sets of the instruction table (bit 1 << Elem).
namespace dts {
inline constexpr uint16_t F16 = 1u << 0, BF16 = 1u << 1, F32 = 1u << 2, S8 = 1u << 3,
                          S16 = 1u << 4, S32 = 1u << 5, U8 = 1u << 6, U16 = 1u << 7,
                          U32 = 1u << 8, S64 = 1u << 9, U64 = 1u << 10;
}  // namespace dts

struct TileDesc {
  Elem dtype = Elem::f32;
  uint8_t loc = kLocVec;  // pto::TileType value
  bool row_major = true;  // BLayout
  uint8_t slayout = kSLayoutNoneBox;
  uint8_t compact = 0;  // CompactMode, 0 = Null
  uint64_t pad = 0;     // PadValue, 0 = Null
  int32_t fractal = 512;
  int32_t rows = 0, cols = 0;
  int32_t valid_row = 0, valid_col = 0;
  // Element (r, c) is at index r*cols + c (RowMajor) or c*rows + r (ColMajor).
  uint8_t* data = nullptr;
  size_t capacity = 0;          // bytes addressable at data (>= rows*cols*elem_size)
  int64_t ub_addr = -1;         // manual mode: byte address in the UB `ub`; -1 = auto mode
  const uint8_t* ub = nullptr;  // base of the simulated UB the tile is bound to
  bool static_valid = true;     // the C++ type fixes the valid shape (not DYNAMIC)
  size_t bytes() const noexcept { return size_t(rows) * size_t(cols) * elem_size(dtype); }
};

// A target profile (spec 20 §2, §5): one row of the data table in target.cpp.
enum class TargetKind : uint8_t { a2a3, a5, cpu };
struct Target {
  const char* name;
  TargetKind kind;
  size_t ub_bytes;
  uint16_t basic_mask;  // ADD SUB MUL MAX MIN dtypes, bit (1 << Elem)
  uint16_t div_mask;
  uint16_t expdif_mask;
  bool broadcast_buffer;  // a2a3: the tmp / internal 8 KB buffer of §5 is used
  size_t tmp_ub_offset;   // TMP_UB_OFFSET of the internal buffer
  size_t tmp_ub_bytes;
  // Manual-mode buffers of the other locations (spec 21 §5): L1 (Mat), L0A (Left), L0B (Right),
  // L0C (Acc), the bias table (Bias), in bytes.
  size_t l1_bytes, l0a_bytes, l0b_bytes, l0c_bytes, bias_bytes;
};
const Target& find_target(std::string_view name);  // Error(Unsupported) listing valid names
const Target& default_target() noexcept;           // a2a3

// The simulated UB of a target as a front end sees it: base and size.
struct Ub {
  uint8_t* base = nullptr;
  size_t size = 0;
};
// Process-wide UB per target (C++ front end manual mode), zero-filled at first use.
Ub global_ub(const Target& t);
// The process-wide buffer of a tile location (kLocVec: the UB; Mat: L1; Left: L0A; Right: L0B;
// Acc: L0C; Bias: the bias table), zero-filled at first use; Error(Unsupported) for locations
// with no buffer (Scaling, ScaleLeft, ScaleRight, Ctrl).
Ub global_buffer(const Target& t, uint8_t loc);
// "UB", "L1", "L0A", ... for messages.
const char* buffer_name(uint8_t loc) noexcept;

// Storage of an auto-mode pto::Tile: `bytes` zero-filled bytes, 64-byte aligned; given back with
// tile_storage_free (same size). Freed storage is kept per thread (at most 64 blocks, 16 MiB; the
// oldest go first) for the next tile of the same size: a kernel declares its tiles on every call,
// and returning them to the allocator made it trim the heap and fault the pages in again on the
// next call (80 % of a 128 x 64 flash-attention call, src/pto/tile_storage.cpp).
void* tile_storage_alloc(size_t bytes);
void tile_storage_free(void* p, size_t bytes) noexcept;

// The C++ front end's current target (pto::set_target).
const Target& current_target() noexcept;
void set_current_target(std::string_view name);

// Checks a descriptor as created by a front end (spec 20 §1): shape positive, 0 <= valid <= static,
// storage present and big enough, NoneBox alignment. `who` names the tile in messages.
void check_tile(const TileDesc& t, std::string_view instr, std::string_view who);

// Manual mode (TASSIGN, spec 20 §1): address of `bytes` bytes at `addr` in `ub`, after checking
// 32-byte alignment and the UB bound.
uint8_t* ub_bind(const Ub& ub, const Target& t, int64_t addr, size_t bytes, std::string_view who,
                 const char* buffer = "UB");

enum class Path : uint8_t { Fast, Reference };

// Runs `op` (spec 20 §3–§5): every rule checked before anything is written, then only dst's
// valid region (and the §5 broadcast buffer) is written. tmp = nullptr for the 3-argument form.
// `ub` is the UB of `t` that manual-mode operands are bound to.
// `site` and `auto_sync` are the hazard checker's, as Call's (docs/sync.md).
void row_expand(Op op, const TileDesc& dst, const TileDesc& src0, const TileDesc& src1,
                const TileDesc* tmp, const Target& t, const Ub& ub, Path path = Path::Fast,
                const tilesim::sync::Site& site = {}, bool auto_sync = false);

// ---- the instruction table (spec 21 §2; rows in tilesim/pto/instructions.hpp) ----

// Operand shapes: each kind has one signature in the C++ front end and one walker in the engine.
enum class Kind : uint8_t {
  Binary,         // (dst, src0, src1)
  BinaryTmp,      // (dst, src0, src1, tmp)
  Unary,          // (dst, src)
  UnaryRsqrt,     // (dst, src) and (dst, src, tmp)
  Scalar,         // (dst, src, scalar)
  ScalarDiv,      // (dst, src, scalar) and (dst, scalar, src)
  ScalarTmp,      // (dst, src, scalar, tmp)
  LeakyRelu,      // (dst, src, slope)
  Axpy,           // (dst, src, scalar): dst = scalar * src + dst
  ExpandScalar,   // (dst, scalar)
  Compare,        // (dst, src0, src1, CmpMode)
  CompareScalar,  // (dst, src, scalar | tile, CmpMode)
  Select,         // (dst, mask, src0, src1, tmp)
  SelectScalar,   // (dst, mask, src, tmp, scalar)
  RowReduce,      // (dst, src, tmp)
  ColReduce,      // (dst, src) and (dst, src, tmp, isBinary)
  RowArg,         // (dst, src, tmp) and (dstVal, dstIdx, src, tmp)
  ColArg,         // (dst, src, tmp) and (dstVal, dstIdx, src, tmp)
  RowExpand,      // (dst, src)
  ColExpand,      // (dst, src)
  ColExpandOp,    // (dst, src0, src1)
  Convert,        // (dst, src[, tmp], RoundMode[, SaturationMode])
  // memory, movement and matrix (spec 21 §2; docs/pto-kernels.md)
  Load,        // (dst, gm)
  Store,       // (gm, src[, preQuantScalar]) <AtomicType, ReluPreMode>
  Prefetch,    // (dst, gm): no effect
  Move,        // (dst, src[, preQuantScalar]) <ReluPreMode>
  Transpose,   // (dst, src, tmp)
  Extract,     // (dst, src, indexRow, indexCol)
  Reshape,     // (dst, src)
  FillPad,     // (dst, src)
  Matmul,      // (c, a, b)
  MatmulAcc,   // (cOut, cIn, a, b) and (c, a, b)
  MatmulBias,  // (c, a, b, bias)
  // gather and scatter (docs/pto-instructions.md#gather-and-scatter): src1 is the index tile
  Gather,   // (dst, src0, indices[, tmp]) and <MaskPattern, GatherAxis>(dst, src)
  Scatter,  // (dst, src, indexes) and <MaskPattern, ScatterAxis>(dst, src)
};

// The tile-operand kinds of the vector families (element-wise ... TCVT): what Python's generated
// functions and the PTO-AS `.arg` form cover; memory, movement and matrix kinds come after them.
constexpr bool is_vector_kind(Kind k) noexcept { return k < Kind::Load; }

// A GlobalTensor as the engine sees it (spec 21 §1): five dimensions (DIM_0 outermost), element
// strides, the layout tag and a base pointer. Dimensions 0..2 repeat the 2-D (dims 3, 4) block;
// docs/pto-kernels.md#globaltensor says how each layout maps onto tile rows and columns.
enum class GmLayout : uint8_t { ND, DN, NZ, Other /* MX / HIF4 layouts: Unsupported */ };
struct GmDesc {
  Elem dtype = Elem::f32;
  GmLayout layout = GmLayout::ND;
  int64_t shape[5] = {1, 1, 1, 1, 1};
  int64_t stride[5] = {1, 1, 1, 1, 1};  // in elements
  uint8_t* data = nullptr;
  // Bytes addressable from `data` when the front end knows the allocation (Python and PTO-AS: the
  // bound array); 0 = unknown (C++: the view's own shape and strides are the contract).
  size_t extent = 0;
};

enum class Instr : uint8_t {
#define TILESIM_PTO_INSTR_ENUM(NAME, KIND, OP, ALG, PIPE, A2A3, A5) NAME,
  TILESIM_PTO_INSTRS(TILESIM_PTO_INSTR_ENUM)
#undef TILESIM_PTO_INSTR_ENUM
};

// The union of an instruction's dtype sets over the targets (compile-time checks reject only what
// no target accepts, spec 21 §5).
constexpr uint16_t instr_dtypes_any(Instr i) noexcept {
  using namespace dts;
  switch (i) {
#define TILESIM_PTO_INSTR_ANY(NAME, KIND, OP, ALG, PIPE, A2A3, A5) \
  case Instr::NAME:                                          \
    return uint16_t((A2A3) | (A5));
    TILESIM_PTO_INSTRS(TILESIM_PTO_INSTR_ANY)
#undef TILESIM_PTO_INSTR_ANY
  }
  return 0;
}

// The PIPE column of the instruction table (issue 22, docs/sync.md#pipes).
enum class PipeRule : uint8_t {
  V,
  M,
  MTE2,
  BySrc,   // TSTORE: FIX from Acc, MTE3 from Vec / Mat
  ByLocs,  // TMOV / TEXTRACT: MTE1 from Mat, FIX from Acc, V Vec -> Vec, MTE3 Vec -> Mat
};

struct InstrInfo {
  Instr id;
  const char* name;  // "TADD"
  Kind kind;
  PipeRule pipe;
  uint16_t a2a3, a5;  // dtype sets (dts bits)
};
const InstrInfo& instr_info(Instr i) noexcept;
int num_instrs() noexcept;
// Finds an instruction by its vendor name, any case ("TADD", "tadd"); nullptr if none.
const InstrInfo* find_instr(std::string_view name) noexcept;

// One call of any instruction of the table: the operands its kind uses, the rest null.
struct Call {
  Instr instr;
  const TileDesc* dst = nullptr;
  const TileDesc* src0 = nullptr;
  const TileDesc* src1 = nullptr;  // also TSEL's second source, TCMPS's tile form
  const TileDesc* mask = nullptr;  // TSEL / TSELS
  const TileDesc* tmp = nullptr;
  const TileDesc* dst_idx = nullptr;  // TROWARG* / TCOLARG* value form: the index tile
  uint64_t scalar = 0;        // a code of the scalar's dtype (the tile's DType unless noted)
  bool scalar_first = false;  // TDIVS(dst, scalar, src)
  uint8_t cmp = 0;            // CmpMode: EQ NE LT LE GT GE
  uint8_t round = 1;          // RoundMode: NONE RINT ROUND FLOOR CEIL TRUNC ODD
  int8_t sat = -1;            // SaturationMode ON (0) / OFF (1); -1 = the form without it
  bool need_set_ctrl = true;  // TCVT<NeedSetCtrl>
  bool is_binary = false;     // TCOLSUM(dst, src, tmp, isBinary)
  // memory, movement and matrix kinds
  const GmDesc* gm = nullptr;        // TLOAD / TPREFETCH source, TSTORE destination
  const TileDesc* acc_in = nullptr;  // TMATMUL_ACC's cInMatrix (null: dst accumulates in place)
  const TileDesc* bias = nullptr;    // TMATMUL_BIAS
  uint16_t index_row = 0, index_col = 0;  // TEXTRACT
  uint8_t relu = 0;                  // ReluPreMode: NoRelu (0), NormalRelu (1)
  uint8_t atomic = 0;                // AtomicType: AtomicNone (0), AtomicAdd (1)
  bool has_quant = false;            // the preQuantScalar forms
  uint64_t quant = 0;                // preQuantScalar
  uint8_t pattern = 0;  // TGATHER / TSCATTER: MaskPattern P0101 (1) ... P1111 (7); 0 = index form
  uint8_t axis = 0;     // GatherAxis / ScatterAxis: ROW (0), COL (1)
  // The pipeline-hazard checker's view (issue 22): where the kernel made the call, and whether
  // its translation unit is synchronised by the vendor's compiler (__PTO_AUTO__: not checked).
  tilesim::sync::Site site{};
  bool auto_sync = false;
};

// ---- PTO events for the pipeline-hazard checker (issue 22 §2; src/pto/sync_events.cpp) ----
// Called by the C++ front end only while tilesim::sync::on().
// The pipe call `c` issues on (the PIPE column, resolved by operand locations; sync::kV, ...).
uint8_t sync_pipe(const Call& c);
// After `c` ran: notes what its pipe has issued so far under a new token, which the instruction's
// RecordEvent carries.
uint64_t sync_post(const Call& c);
// Orders the pipe of `consumer` after the instruction whose RecordEvent carries `token` (0: none).
void sync_take(uint64_t token, const Call& consumer);
// Orders every pipe after it (TSYNC(recordEvent): a wait with no consumer pipe).
void sync_take_all(uint64_t token);
// The vendor's automatic event ids: round-robin EVENT_ID0..7 per (src, dst) pipe pair.
uint8_t sync_event_id(uint8_t src, uint8_t dst);

// Runs one instruction on target `t`: every rule of its page checked before anything is written
// (spec 00), then only what the instruction writes is written. `ub` as for row_expand.
void execute(const Call& c, const Target& t, const Ub& ub, Path path = Path::Fast);
// The C++ front end's call: current target, its process-wide UB.
void execute_current(const Call& c);

// The C++ front end's calls: current target, its process-wide UB.
void row_expand_current(Op op, const TileDesc& dst, const TileDesc& src0, const TileDesc& src1,
                        const TileDesc* tmp, const tilesim::sync::Site& site = {},
                        bool auto_sync = false);
// TASSIGN on the current target: binds `bytes` at `addr` of the buffer of location `loc`; returns
// the host address, `ub_out` receives the buffer's base.
uint8_t* tassign_current(uint8_t loc, uint64_t addr, size_t bytes, const uint8_t** ub_out);
// A translation unit compiled with __CPU_SIM makes `cpu` the current target (spec 21 §5).
void set_default_target_cpu_sim();

}  // namespace tilesim::pto
