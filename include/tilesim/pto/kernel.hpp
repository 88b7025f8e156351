// PTO whole-kernel instructions (spec 21 §2): memory (TLOAD, TSTORE, TPREFETCH), movement (TMOV,
// TTRANS, TEXTRACT, TRESHAPE, TFILLPAD), matrix (TMATMUL, TMATMUL_ACC, TMATMUL_BIAS) and sync, in
// the vendor's signatures. Like the vector instructions, each is a thin call into the engine's
// instruction table (rows in tilesim/pto/instructions.hpp), which checks every rule and computes.
// Included by tilesim/pto.hpp after pto::Tile.
#pragma once
#include "tilesim/device.hpp"
#include "tilesim/pto/constants.hpp"
#include "tilesim/pto/global_tensor.hpp"

namespace pto {

// The vendor's mode enums (pto-isa include/pto/common/type.hpp values).
enum class AccToVecMode : uint8_t { SingleModeVec0 = 0, SingleModeVec1 = 1, DualModeSplitM = 2, DualModeSplitN = 3 };
enum class ReluPreMode : uint8_t { NoRelu = 0, NormalRelu = 1 };
enum class AtomicType : uint8_t { AtomicNone = 0, AtomicAdd = 1 };
enum class STPhase : uint8_t { Unspecified = 0x0, Partial = 0x2, Final = 0x3 };
enum class AccPhase : uint8_t { Unspecified = 0x0, Unknown = Unspecified, Partial = 0x2, Final = 0x3 };
enum class SyncCoreType : uint8_t { AIVOnly, AICOnly, MIX };
enum class SyncAllMode : uint8_t { Hard, Soft };

namespace TileConfig {
inline constexpr int alignedSize = 32;
inline constexpr int fixedRowSize = 16;
inline constexpr int fixedColSize = 16;
inline constexpr int fixedMxRowSize = 16;
inline constexpr int fixedMxColSize = 2;
inline constexpr int fractalABSize = 512;
inline constexpr int fractalCSize = 1024;
inline constexpr int fractalMxSize = 32;
}  // namespace TileConfig

// The cube tiles' aliases, in their CPU-simulator spelling on every target (spec 21 §1).
template <typename T, int R, int C, int RV = R, int CV = C>
using TileLeft = Tile<TileType::Left, T, R, C, BLayout::ColMajor, RV, CV, SLayout::RowMajor,
                      TileConfig::fractalABSize>;
template <typename T, int R, int C, int RV = R, int CV = C>
using TileLeftCompact = Tile<TileType::Left, T, R, C, BLayout::ColMajor, RV, CV, SLayout::RowMajor,
                             TileConfig::fractalABSize, PadValue::Null, CompactMode::Normal>;
template <typename T, int R, int C, int RV = R, int CV = C>
using TileRight = Tile<TileType::Right, T, R, C, BLayout::RowMajor, RV, CV, SLayout::ColMajor,
                       TileConfig::fractalABSize>;
template <typename T, int R, int C, int RV = R, int CV = C>
using TileRightCompact = Tile<TileType::Right, T, R, C, BLayout::RowMajor, RV, CV, SLayout::ColMajor,
                              TileConfig::fractalABSize, PadValue::Null, CompactMode::Normal>;
template <typename T, int R, int C, int RV = R, int CV = C>
using TileAcc = Tile<TileType::Acc, T, R, C, BLayout::ColMajor, RV, CV, SLayout::RowMajor,
                     TileConfig::fractalCSize>;
template <typename T, int R, int C, int RV = R, int CV = C>
using TileAccCompact = Tile<TileType::Acc, T, R, C, BLayout::ColMajor, RV, CV, SLayout::RowMajor,
                            TileConfig::fractalCSize, PadValue::Null, CompactMode::Normal>;
template <typename T, int R, int C, int RV = R, int CV = C>
using TileLeftScale = Tile<TileType::ScaleLeft, T, R, C, BLayout::RowMajor, RV, CV, SLayout::RowMajor,
                           TileConfig::fractalMxSize>;
template <typename T, int R, int C, int RV = R, int CV = C>
using TileRightScale = Tile<TileType::ScaleRight, T, R, C, BLayout::ColMajor, RV, CV,
                            SLayout::ColMajor, TileConfig::fractalMxSize>;

template <class T>
struct is_tile : std::bool_constant<is_tile_v<T>> {};
template <class T>
inline constexpr bool is_tile_data_v = is_tile_v<T>;

template <typename E, typename S, typename St, Layout L>
tilesim::pto::GmDesc GlobalTensor<E, S, St, L>::gm_desc() const {
  tilesim::pto::GmDesc g;
  g.dtype = detail::elem_of<RawDType>();
  g.layout = L == Layout::ND   ? tilesim::pto::GmLayout::ND
             : L == Layout::DN ? tilesim::pto::GmLayout::DN
             : L == Layout::NZ ? tilesim::pto::GmLayout::NZ
                               : tilesim::pto::GmLayout::Other;
  for (int i = 0; i < 5; ++i) {
    g.shape[i] = shape_.shape[i];
    g.stride[i] = stride_.stride[i];
  }
  g.data = reinterpret_cast<uint8_t*>(const_cast<RawDType*>(data_));
  return g;
}

namespace detail {
template <class G>
inline constexpr bool kIsGm = is_global_data_v<std::remove_cvref_t<G>>;
template <class G, class TileT>
constexpr void gm_tile_static_checks() {
  static_assert(std::is_same_v<typename std::remove_cvref_t<G>::RawDType, typename TileT::DType>,
                "GlobalTensor and tile must have the same element type "
                "[docs/pto-kernels.md#memory]");
  static_assert(kIsPtoDType<typename TileT::DType>,
                "tile DType is not a PTO tile type [docs/pto-instructions.md#dtypes]");
}
}  // namespace detail

// ---- memory (docs/pto-kernels.md#memory) ----

template <typename TileData, typename GlobalData, typename... WaitEvents>
  requires(is_tile_v<TileData> && detail::kIsGm<GlobalData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TLOAD(TileData& dst, GlobalData& src, WaitEvents&...) {
  detail::gm_tile_static_checks<GlobalData, TileData>();
  const auto d = dst.desc();
  const auto g = src.gm_desc();
  detail::run({.instr = detail::Instr::TLOAD, .dst = &d, .gm = &g});
  return {};
}

template <typename TileData, typename GlobalData>
  requires(is_tile_v<TileData> && detail::kIsGm<GlobalData>)
RecordEvent TPREFETCH(TileData& dst, GlobalData& src) {
  detail::gm_tile_static_checks<GlobalData, TileData>();
  const auto d = dst.desc();
  const auto g = src.gm_desc();
  detail::run({.instr = detail::Instr::TPREFETCH, .dst = &d, .gm = &g});
  return {};
}

namespace detail {
template <AtomicType A, ReluPreMode R, class GlobalData, class TileData>
void store(GlobalData& dst, TileData& src, bool has_quant, uint64_t quant) {
  static_assert(std::is_same_v<typename std::remove_cvref_t<GlobalData>::RawDType,
                               typename TileData::DType> ||
                    TileData::Loc == TileType::Acc,
                "TSTORE: GlobalTensor and tile must have the same element type (Acc tiles convert) "
                "[docs/pto-kernels.md#memory]");
  const auto s = src.desc();
  const auto g = dst.gm_desc();
  run({.instr = Instr::TSTORE, .src0 = &s, .gm = &g, .relu = uint8_t(R), .atomic = uint8_t(A),
       .has_quant = has_quant, .quant = quant});
}
}  // namespace detail

template <typename TileData, typename GlobalData, typename... WaitEvents>
  requires(is_tile_v<TileData> && detail::kIsGm<GlobalData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TSTORE(GlobalData& dst, TileData& src, WaitEvents&...) {
  detail::store<AtomicType::AtomicNone, ReluPreMode::NoRelu>(dst, src, false, 0);
  return {};
}
template <STPhase Phase, typename TileData, typename GlobalData, typename... WaitEvents>
  requires(is_tile_v<TileData> && detail::kIsGm<GlobalData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TSTORE(GlobalData& dst, TileData& src, WaitEvents&...) {
  detail::store<AtomicType::AtomicNone, ReluPreMode::NoRelu>(dst, src, false, 0);
  return {};
}
template <typename TileData, typename GlobalData, AtomicType atomicType, typename... WaitEvents>
  requires(is_tile_v<TileData> && detail::kIsGm<GlobalData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TSTORE(GlobalData& dst, TileData& src, WaitEvents&...) {
  detail::store<atomicType, ReluPreMode::NoRelu>(dst, src, false, 0);
  return {};
}
template <STPhase Phase, typename TileData, typename GlobalData, AtomicType atomicType,
          typename... WaitEvents>
  requires(is_tile_v<TileData> && detail::kIsGm<GlobalData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TSTORE(GlobalData& dst, TileData& src, WaitEvents&...) {
  detail::store<atomicType, ReluPreMode::NoRelu>(dst, src, false, 0);
  return {};
}
template <typename TileData, typename GlobalData, AtomicType atomicType, ReluPreMode reluPreMode,
          typename... WaitEvents>
  requires(is_tile_v<TileData> && detail::kIsGm<GlobalData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TSTORE(GlobalData& dst, TileData& src, WaitEvents&...) {
  detail::store<atomicType, reluPreMode>(dst, src, false, 0);
  return {};
}
template <STPhase Phase, typename TileData, typename GlobalData, AtomicType atomicType,
          ReluPreMode reluPreMode, typename... WaitEvents>
  requires(is_tile_v<TileData> && detail::kIsGm<GlobalData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TSTORE(GlobalData& dst, TileData& src, WaitEvents&...) {
  detail::store<atomicType, reluPreMode>(dst, src, false, 0);
  return {};
}
template <typename TileData, typename GlobalData, AtomicType atomicType = AtomicType::AtomicNone,
          ReluPreMode reluPreMode = ReluPreMode::NoRelu, typename... WaitEvents>
  requires(is_tile_v<TileData> && detail::kIsGm<GlobalData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TSTORE(GlobalData& dst, TileData& src, uint64_t preQuantScalar, WaitEvents&...) {
  detail::store<atomicType, reluPreMode>(dst, src, true, preQuantScalar);
  return {};
}
template <STPhase Phase, typename TileData, typename GlobalData,
          AtomicType atomicType = AtomicType::AtomicNone,
          ReluPreMode reluPreMode = ReluPreMode::NoRelu, typename... WaitEvents>
  requires(is_tile_v<TileData> && detail::kIsGm<GlobalData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TSTORE(GlobalData& dst, TileData& src, uint64_t preQuantScalar, WaitEvents&...) {
  detail::store<atomicType, reluPreMode>(dst, src, true, preQuantScalar);
  return {};
}

// ---- movement (docs/pto-kernels.md#movement) ----

namespace detail {
template <ReluPreMode R, class D, class S>
void move(D& dst, S& src, bool has_quant, uint64_t quant) {
  const auto d = dst.desc(), s = src.desc();
  run({.instr = Instr::TMOV, .dst = &d, .src0 = &s, .relu = uint8_t(R), .has_quant = has_quant,
       .quant = quant});
}
}  // namespace detail

template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TMOV(DstTileData& dst, SrcTileData& src, WaitEvents&...) {
  detail::move<ReluPreMode::NoRelu>(dst, src, false, 0);
  return {};
}
template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode, typename... WaitEvents>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TMOV(DstTileData& dst, SrcTileData& src, WaitEvents&...) {
  detail::move<reluMode>(dst, src, false, 0);
  return {};
}
template <STPhase Phase, typename DstTileData, typename SrcTileData, typename... WaitEvents>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TMOV(DstTileData& dst, SrcTileData& src, WaitEvents&...) {
  detail::move<ReluPreMode::NoRelu>(dst, src, false, 0);
  return {};
}
template <STPhase Phase, typename DstTileData, typename SrcTileData, ReluPreMode reluMode,
          typename... WaitEvents>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TMOV(DstTileData& dst, SrcTileData& src, WaitEvents&...) {
  detail::move<reluMode>(dst, src, false, 0);
  return {};
}
template <typename DstTileData, typename SrcTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, typename... WaitEvents>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TMOV(DstTileData& dst, SrcTileData& src, WaitEvents&...) {
  detail::move<reluMode>(dst, src, false, 0);
  return {};
}
template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode = ReluPreMode::NoRelu,
          typename... WaitEvents>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TMOV(DstTileData& dst, SrcTileData& src, uint64_t preQuantScalar, WaitEvents&...) {
  detail::move<reluMode>(dst, src, true, preQuantScalar);
  return {};
}
template <typename DstTileData, typename SrcTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, typename... WaitEvents>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TMOV(DstTileData& dst, SrcTileData& src, uint64_t preQuantScalar, WaitEvents&...) {
  detail::move<reluMode>(dst, src, true, preQuantScalar);
  return {};
}

template <typename TileDataDst, typename TileDataSrc, typename TileDataTmp, typename... WaitEvents>
  requires(is_tile_v<TileDataDst> && is_tile_v<TileDataSrc> && is_tile_v<TileDataTmp> &&
           detail::kNoTiles<WaitEvents...>)
RecordEvent TTRANS(TileDataDst& dst, TileDataSrc& src, TileDataTmp& tmp, WaitEvents&...) {
  TILESIM_PTO_SAME_ASSERT(TTRANS, TileDataDst, TileDataSrc);
  const auto d = dst.desc(), s = src.desc(), t = tmp.desc();
  detail::run({.instr = detail::Instr::TTRANS, .dst = &d, .src0 = &s, .tmp = &t});
  return {};
}

template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TEXTRACT(DstTileData& dst, SrcTileData& src, uint16_t indexRow = 0,
                     uint16_t indexCol = 0, WaitEvents&...) {
  const auto d = dst.desc(), s = src.desc();
  detail::run({.instr = detail::Instr::TEXTRACT, .dst = &d, .src0 = &s, .index_row = indexRow,
               .index_col = indexCol});
  return {};
}
template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode, typename... WaitEvents>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TEXTRACT(DstTileData& dst, SrcTileData& src, uint16_t indexRow, uint16_t indexCol,
                     WaitEvents&...) {
  const auto d = dst.desc(), s = src.desc();
  detail::run({.instr = detail::Instr::TEXTRACT, .dst = &d, .src0 = &s, .index_row = indexRow,
               .index_col = indexCol, .relu = uint8_t(reluMode)});
  return {};
}

template <typename TileDataOut, typename TileDataIn, typename... WaitEvents>
  requires(is_tile_v<TileDataOut> && is_tile_v<TileDataIn> && detail::kNoTiles<WaitEvents...>)
RecordEvent TRESHAPE(TileDataOut& dst, TileDataIn& src, WaitEvents&...) {
  static_assert(sizeof(typename TileDataOut::DType) * TileDataOut::Numel ==
                    sizeof(typename TileDataIn::DType) * TileDataIn::Numel,
                "TRESHAPE: dst and src must have the same size in bytes "
                "[docs/pto-kernels.md#movement]");
  const auto d = dst.desc(), s = src.desc();
  detail::run({.instr = detail::Instr::TRESHAPE, .dst = &d, .src0 = &s});
  return {};
}

template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TFILLPAD(DstTileData& dst, SrcTileData& src, WaitEvents&...) {
  TILESIM_PTO_SAME_ASSERT(TFILLPAD, DstTileData, SrcTileData);
  const auto d = dst.desc(), s = src.desc();
  detail::run({.instr = detail::Instr::TFILLPAD, .dst = &d, .src0 = &s});
  return {};
}
template <typename DstTileData, typename SrcTileData, typename... WaitEvents>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData> && detail::kNoTiles<WaitEvents...>)
RecordEvent TFILLPAD_INPLACE(DstTileData& dst, SrcTileData& src, WaitEvents&...) {
  return TFILLPAD(dst, src);
}

// ---- matrix (docs/pto-kernels.md#matrix) ----

template <typename TileRes, typename TileLeftT, typename TileRightT, typename... WaitEvents>
  requires(is_tile_v<TileRes> && is_tile_v<TileLeftT> && is_tile_v<TileRightT> &&
           detail::kNoTiles<WaitEvents...>)
RecordEvent TMATMUL(TileRes& cMatrix, TileLeftT& aMatrix, TileRightT& bMatrix, WaitEvents&...) {
  const auto c = cMatrix.desc(), a = aMatrix.desc(), b = bMatrix.desc();
  detail::run({.instr = detail::Instr::TMATMUL, .dst = &c, .src0 = &a, .src1 = &b});
  return {};
}
template <AccPhase Phase, typename TileRes, typename TileLeftT, typename TileRightT,
          typename... WaitEvents>
  requires(is_tile_v<TileRes> && is_tile_v<TileLeftT> && is_tile_v<TileRightT> &&
           detail::kNoTiles<WaitEvents...>)
RecordEvent TMATMUL(TileRes& cMatrix, TileLeftT& aMatrix, TileRightT& bMatrix, WaitEvents&...) {
  return TMATMUL(cMatrix, aMatrix, bMatrix);
}
template <AccPhase Phase = AccPhase::Unspecified, typename TileRes, typename TileLeftT,
          typename TileRightT, typename... WaitEvents>
  requires(is_tile_v<TileRes> && is_tile_v<TileLeftT> && is_tile_v<TileRightT> &&
           detail::kNoTiles<WaitEvents...>)
RecordEvent TMATMUL_ACC(TileRes& cOutMatrix, TileRes& cInMatrix, TileLeftT& aMatrix,
                        TileRightT& bMatrix, WaitEvents&...) {
  const auto c = cOutMatrix.desc(), ci = cInMatrix.desc(), a = aMatrix.desc(), b = bMatrix.desc();
  detail::run({.instr = detail::Instr::TMATMUL_ACC, .dst = &c, .src0 = &a, .src1 = &b,
               .acc_in = &ci});
  return {};
}
template <AccPhase Phase = AccPhase::Unspecified, typename TileRes, typename TileLeftT,
          typename TileRightT, typename... WaitEvents>
  requires(is_tile_v<TileRes> && is_tile_v<TileLeftT> && is_tile_v<TileRightT> &&
           detail::kNoTiles<WaitEvents...>)
RecordEvent TMATMUL_ACC(TileRes& cMatrix, TileLeftT& aMatrix, TileRightT& bMatrix, WaitEvents&...) {
  const auto c = cMatrix.desc(), a = aMatrix.desc(), b = bMatrix.desc();
  detail::run({.instr = detail::Instr::TMATMUL_ACC, .dst = &c, .src0 = &a, .src1 = &b,
               .acc_in = &c});
  return {};
}
template <AccPhase Phase = AccPhase::Unspecified, typename TileRes, typename TileLeftT,
          typename TileRightT, typename TileBias, typename... WaitEvents>
  requires(is_tile_v<TileRes> && is_tile_v<TileLeftT> && is_tile_v<TileRightT> &&
           is_tile_v<TileBias> && detail::kNoTiles<WaitEvents...>)
RecordEvent TMATMUL_BIAS(TileRes& cMatrix, TileLeftT& aMatrix, TileRightT& bMatrix,
                         TileBias& biasData, WaitEvents&...) {
  const auto c = cMatrix.desc(), a = aMatrix.desc(), b = bMatrix.desc(), bi = biasData.desc();
  detail::run({.instr = detail::Instr::TMATMUL_BIAS, .dst = &c, .src0 = &a, .src1 = &b,
               .bias = &bi});
  return {};
}

// ---- sync (docs/pto-kernels.md#sync): accepted, results unchanged ----

// An event of the vendor's Event<SrcOp, DstOp> API: recording and waiting order nothing in a
// sequential twin.
template <auto... Ops>
struct Event {
  Event() = default;
  Event(const RecordEvent&) {}
  Event& operator=(const RecordEvent&) { return *this; }
  void Wait() const {}
  void Init() const {}
  void Record() const {}
};
template <typename... WaitEvents>
inline void TSYNC(WaitEvents&...) {}
template <auto OpCode>
inline void TSYNC() {}
template <SyncCoreType CoreType = SyncCoreType::AIVOnly>
inline void SYNCALL() {}
template <SyncAllMode Mode, SyncCoreType CoreType = SyncCoreType::AIVOnly, typename GlobalData>
  requires detail::kIsGm<GlobalData>
inline void SYNCALL(GlobalData&, int32_t = 0) {}

}  // namespace pto
