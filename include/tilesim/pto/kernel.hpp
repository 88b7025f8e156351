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
enum class MaskPattern : uint8_t { P0101 = 1, P1010 = 2, P0001 = 3, P0010 = 4, P0100 = 5, P1000 = 6, P1111 = 7 };
enum class GatherAxis : uint8_t { GATHER_ROW = 0, GATHER_COL = 1 };
enum class ScatterAxis : uint8_t { SCATTER_ROW = 0, SCATTER_COL = 1 };

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
// Each form through TILESIM_PTO_FN (tilesim/pto.hpp): the kernel's site, the trailing events.

TILESIM_PTO_FN((typename TileData, typename GlobalData),
               (is_tile_v<TileData> && detail::kIsGm<GlobalData>), TLOAD,
               (TileData& dst, GlobalData& src),
  detail::gm_tile_static_checks<GlobalData, TileData>();
  const auto d = dst.desc();
  const auto g = src.gm_desc();
  return detail::run({.instr = detail::Instr::TLOAD, .dst = &d, .gm = &g}, site, events...);)

template <typename TileData, typename GlobalData>
  requires(is_tile_v<TileData> && detail::kIsGm<GlobalData>)
RecordEvent TPREFETCH(TileData& dst, GlobalData& src,
                      tilesim::sync::Site site = tilesim::sync::Site::here()) {
  detail::gm_tile_static_checks<GlobalData, TileData>();
  const auto d = dst.desc();
  const auto g = src.gm_desc();
  return detail::run({.instr = detail::Instr::TPREFETCH, .dst = &d, .gm = &g}, site);
}

namespace detail {
template <AtomicType A, ReluPreMode R, class GlobalData, class TileData, class... E>
RecordEvent store(GlobalData& dst, TileData& src, bool has_quant, uint64_t quant,
                  const tilesim::sync::Site& site, E&... events) {
  static_assert(std::is_same_v<typename std::remove_cvref_t<GlobalData>::RawDType,
                               typename TileData::DType> ||
                    TileData::Loc == TileType::Acc,
                "TSTORE: GlobalTensor and tile must have the same element type (Acc tiles convert) "
                "[docs/pto-kernels.md#memory]");
  const auto s = src.desc();
  const auto g = dst.gm_desc();
  return run({.instr = Instr::TSTORE, .src0 = &s, .gm = &g, .relu = uint8_t(R),
              .atomic = uint8_t(A), .has_quant = has_quant, .quant = quant},
             site, events...);
}
}  // namespace detail

#define TILESIM_PTO_STORE_PLAIN(TPL, ATOMIC, RELU)                                           \
  TILESIM_PTO_FN(TPL, (is_tile_v<TileData> && detail::kIsGm<GlobalData>), TSTORE,           \
                 (GlobalData& dst, TileData& src),                                          \
    return detail::store<ATOMIC, RELU>(dst, src, false, 0, site, events...);)
TILESIM_PTO_STORE_PLAIN((typename TileData, typename GlobalData), AtomicType::AtomicNone,
                        ReluPreMode::NoRelu)
TILESIM_PTO_STORE_PLAIN((STPhase Phase, typename TileData, typename GlobalData),
                        AtomicType::AtomicNone, ReluPreMode::NoRelu)
TILESIM_PTO_STORE_PLAIN((typename TileData, typename GlobalData, AtomicType atomicType),
                        atomicType, ReluPreMode::NoRelu)
TILESIM_PTO_STORE_PLAIN((STPhase Phase, typename TileData, typename GlobalData,
                         AtomicType atomicType),
                        atomicType, ReluPreMode::NoRelu)
TILESIM_PTO_STORE_PLAIN((typename TileData, typename GlobalData, AtomicType atomicType,
                         ReluPreMode reluPreMode),
                        atomicType, reluPreMode)
TILESIM_PTO_STORE_PLAIN((STPhase Phase, typename TileData, typename GlobalData,
                         AtomicType atomicType, ReluPreMode reluPreMode),
                        atomicType, reluPreMode)
// The preQuantScalar forms (defaults as the vendor's).
TILESIM_PTO_FN((typename TileData, typename GlobalData,
                AtomicType atomicType = AtomicType::AtomicNone,
                ReluPreMode reluPreMode = ReluPreMode::NoRelu),
               (is_tile_v<TileData> && detail::kIsGm<GlobalData>), TSTORE,
               (GlobalData& dst, TileData& src, uint64_t preQuantScalar),
  return detail::store<atomicType, reluPreMode>(dst, src, true, preQuantScalar, site, events...);)
TILESIM_PTO_FN((STPhase Phase, typename TileData, typename GlobalData,
                AtomicType atomicType = AtomicType::AtomicNone,
                ReluPreMode reluPreMode = ReluPreMode::NoRelu),
               (is_tile_v<TileData> && detail::kIsGm<GlobalData>), TSTORE,
               (GlobalData& dst, TileData& src, uint64_t preQuantScalar),
  return detail::store<atomicType, reluPreMode>(dst, src, true, preQuantScalar, site, events...);)
#undef TILESIM_PTO_STORE_PLAIN

// ---- movement (docs/pto-kernels.md#movement) ----

namespace detail {
template <ReluPreMode R, class D, class S, class... E>
RecordEvent move(D& dst, S& src, bool has_quant, uint64_t quant, const tilesim::sync::Site& site,
                 E&... events) {
  const auto d = dst.desc(), s = src.desc();
  return run({.instr = Instr::TMOV, .dst = &d, .src0 = &s, .relu = uint8_t(R),
              .has_quant = has_quant, .quant = quant},
             site, events...);
}
}  // namespace detail

#define TILESIM_PTO_MOVE(TPL, RELU)                                                          \
  TILESIM_PTO_FN(TPL, (is_tile_v<DstTileData> && is_tile_v<SrcTileData>), TMOV,             \
                 (DstTileData& dst, SrcTileData& src),                                      \
    return detail::move<RELU>(dst, src, false, 0, site, events...);)
#define TILESIM_PTO_MOVE_QUANT(TPL, RELU)                                                    \
  TILESIM_PTO_FN(TPL, (is_tile_v<DstTileData> && is_tile_v<SrcTileData>), TMOV,             \
                 (DstTileData& dst, SrcTileData& src, uint64_t preQuantScalar),             \
    return detail::move<RELU>(dst, src, true, preQuantScalar, site, events...);)
TILESIM_PTO_MOVE((typename DstTileData, typename SrcTileData), ReluPreMode::NoRelu)
TILESIM_PTO_MOVE((typename DstTileData, typename SrcTileData, ReluPreMode reluMode), reluMode)
TILESIM_PTO_MOVE((STPhase Phase, typename DstTileData, typename SrcTileData),
                 ReluPreMode::NoRelu)
TILESIM_PTO_MOVE((STPhase Phase, typename DstTileData, typename SrcTileData,
                  ReluPreMode reluMode),
                 reluMode)
TILESIM_PTO_MOVE((typename DstTileData, typename SrcTileData, AccToVecMode mode,
                  ReluPreMode reluMode = ReluPreMode::NoRelu),
                 reluMode)
TILESIM_PTO_MOVE_QUANT((typename DstTileData, typename SrcTileData,
                        ReluPreMode reluMode = ReluPreMode::NoRelu),
                       reluMode)
TILESIM_PTO_MOVE_QUANT((typename DstTileData, typename SrcTileData, AccToVecMode mode,
                        ReluPreMode reluMode = ReluPreMode::NoRelu),
                       reluMode)
#undef TILESIM_PTO_MOVE
#undef TILESIM_PTO_MOVE_QUANT

TILESIM_PTO_FN((typename TileDataDst, typename TileDataSrc, typename TileDataTmp),
               (is_tile_v<TileDataDst> && is_tile_v<TileDataSrc> && is_tile_v<TileDataTmp>),
               TTRANS, (TileDataDst& dst, TileDataSrc& src, TileDataTmp& tmp),
  TILESIM_PTO_SAME_ASSERT(TTRANS, TileDataDst, TileDataSrc);
  const auto d = dst.desc(), s = src.desc(), t = tmp.desc();
  return detail::run({.instr = detail::Instr::TTRANS, .dst = &d, .src0 = &s, .tmp = &t}, site,
                     events...);)

// TEXTRACT's indices default to 0 in the form without events (a default cannot precede the
// event forms' parameters): the one- and two-argument calls are written out.
#define TILESIM_PTO_EXTRACT(TPL, RELU)                                                       \
  TILESIM_PTO_FN(TPL, (is_tile_v<DstTileData> && is_tile_v<SrcTileData>), TEXTRACT,         \
                 (DstTileData& dst, SrcTileData& src, uint16_t indexRow, uint16_t indexCol), \
    const auto d = dst.desc(), s = src.desc();                                              \
    return detail::run({.instr = detail::Instr::TEXTRACT, .dst = &d, .src0 = &s,            \
                        .index_row = indexRow, .index_col = indexCol, .relu = uint8_t(RELU)}, \
                       site, events...);)
TILESIM_PTO_EXTRACT((typename DstTileData, typename SrcTileData), ReluPreMode::NoRelu)
TILESIM_PTO_EXTRACT((typename DstTileData, typename SrcTileData, ReluPreMode reluMode), reluMode)
#undef TILESIM_PTO_EXTRACT
template <typename DstTileData, typename SrcTileData>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData>)
RecordEvent TEXTRACT(DstTileData& dst, SrcTileData& src,
                     tilesim::sync::Site site = tilesim::sync::Site::here()) {
  return TEXTRACT(dst, src, 0, 0, site);
}
template <typename DstTileData, typename SrcTileData>
  requires(is_tile_v<DstTileData> && is_tile_v<SrcTileData>)
RecordEvent TEXTRACT(DstTileData& dst, SrcTileData& src, uint16_t indexRow,
                     tilesim::sync::Site site = tilesim::sync::Site::here()) {
  return TEXTRACT(dst, src, indexRow, 0, site);
}

TILESIM_PTO_FN((typename TileDataOut, typename TileDataIn),
               (is_tile_v<TileDataOut> && is_tile_v<TileDataIn>), TRESHAPE,
               (TileDataOut& dst, TileDataIn& src),
  static_assert(sizeof(typename TileDataOut::DType) * TileDataOut::Numel ==
                    sizeof(typename TileDataIn::DType) * TileDataIn::Numel,
                "TRESHAPE: dst and src must have the same size in bytes "
                "[docs/pto-kernels.md#movement]");
  const auto d = dst.desc(), s = src.desc();
  return detail::run({.instr = detail::Instr::TRESHAPE, .dst = &d, .src0 = &s}, site, events...);)

// ---- gather and scatter (docs/pto-instructions.md#gather-and-scatter) ----
namespace detail {
template <class D, class S>
constexpr void gather_static_checks() {
  TILESIM_PTO_DTYPE_ASSERT(TGATHER, typename D::DType);
  static_assert(D::Loc == TileType::Vec && S::Loc == TileType::Vec,
                "TGATHER: dst and src must be TileType::Vec [docs/pto-instructions.md#gather-and-scatter]");
}
template <class I>
inline constexpr bool kIndexDType = std::is_same_v<I, int16_t> || std::is_same_v<I, uint16_t> ||
                                    std::is_same_v<I, int32_t> || std::is_same_v<I, uint32_t>;
template <class X>
inline constexpr bool kUnsupportedForm = false;
}  // namespace detail

// Index form: dst(i, j) = src0's element at row-major index indices(i, j). The vendor's C++ has the
// tmp form only; its page's example also calls TGATHER(dst, src0, indices) (a2a3 rejects it: tmp).
#define TILESIM_PTO_GATHER_INDEX(TPL, REQ, PARAMS, TMP)                                      \
  TILESIM_PTO_FN(TPL, REQ, TGATHER, PARAMS,                                                 \
    detail::gather_static_checks<TileDataD, TileDataS0>();                                  \
    TILESIM_PTO_SAME_ASSERT(TGATHER, TileDataD, TileDataS0);                                \
    static_assert(detail::kIndexDType<typename TileDataS1::DType>,                          \
                  "TGATHER: indices must be int16, uint16, int32 or uint32 "                \
                  "[docs/pto-instructions.md#gather-and-scatter]");                         \
    const auto d = dst.desc(), a = src0.desc(), b = src1.desc();                            \
    TMP;                                                                                    \
    return detail::run({.instr = detail::Instr::TGATHER, .dst = &d, .src0 = &a, .src1 = &b, \
                        .tmp = tp}, site, events...);)
TILESIM_PTO_GATHER_INDEX((typename TileDataD, typename TileDataS0, typename TileDataS1, typename TileDataTmp),
                         (is_tile_v<TileDataD> && is_tile_v<TileDataS0> && is_tile_v<TileDataS1> &&
                          is_tile_v<TileDataTmp>),
                         (TileDataD& dst, TileDataS0& src0, TileDataS1& src1, TileDataTmp& tmp),
                         const auto t = tmp.desc(); const tilesim::pto::TileDesc* tp = &t)
TILESIM_PTO_GATHER_INDEX((typename TileDataD, typename TileDataS0, typename TileDataS1),
                         (is_tile_v<TileDataD> && is_tile_v<TileDataS0> && is_tile_v<TileDataS1>),
                         (TileDataD& dst, TileDataS0& src0, TileDataS1& src1),
                         const tilesim::pto::TileDesc* tp = nullptr)
#undef TILESIM_PTO_GATHER_INDEX

// Mask-pattern form: GATHER_ROW packs the selected columns of every row into a continuous dst,
// GATHER_COL keeps the selected rows.
TILESIM_PTO_FN((typename DstTileData, typename SrcTileData, MaskPattern maskPattern = MaskPattern::P1111,
                auto gatherType = GatherAxis::GATHER_ROW),
               (is_tile_v<DstTileData> && is_tile_v<SrcTileData>), TGATHER,
               (DstTileData& dst, SrcTileData& src),
  detail::gather_static_checks<DstTileData, SrcTileData>();
  static_assert(sizeof(typename DstTileData::DType) == sizeof(typename SrcTileData::DType),
                "TGATHER: dst and src must have the same element size "
                "[docs/pto-instructions.md#gather-and-scatter]");
  static_assert(DstTileData::isRowMajor && SrcTileData::isRowMajor,
                "TGATHER: dst and src must be RowMajor [docs/pto-instructions.md#gather-and-scatter]");
  const auto d = dst.desc(), a = src.desc();
  return detail::run({.instr = detail::Instr::TGATHER, .dst = &d, .src0 = &a,
                      .pattern = uint8_t(maskPattern), .axis = uint8_t(gatherType)},
                     site, events...);)

// Comparison form (CmpMode, k_value, cdst, offset): not modelled; a compile-time error.
template <typename TileDataD, typename TileDataS, typename TileDataS1, typename TileDataC, typename TileDataTmp,
          CmpMode cmpMode, typename... WaitEvents>
  requires(is_tile_v<TileDataD> && is_tile_v<TileDataS> && is_tile_v<TileDataS1> && is_tile_v<TileDataC> &&
           is_tile_v<TileDataTmp>)
RecordEvent TGATHER(TileDataD&, TileDataS&, TileDataS1&, TileDataC&, TileDataTmp&, int, WaitEvents&...) {
  static_assert(detail::kUnsupportedForm<TileDataD>,
                "TGATHER: the comparison form (CmpMode, k_value, cdst, offset) is not supported by tilesim "
                "[docs/pto-instructions.md#gather-and-scatter]");
  return {};
}

// Index form: dst's element at row-major index indexes(i, j) = src(i, j), after dst is zeroed.
TILESIM_PTO_FN((typename TileDataD, typename TileDataS, typename TileDataI),
               (is_tile_v<TileDataD> && is_tile_v<TileDataS> && is_tile_v<TileDataI>), TSCATTER,
               (TileDataD& dst, TileDataS& src, TileDataI& indexes),
  TILESIM_PTO_DTYPE_ASSERT(TSCATTER, typename TileDataD::DType);
  TILESIM_PTO_SAME_ASSERT(TSCATTER, TileDataD, TileDataS);
  static_assert(detail::kIndexDType<typename TileDataI::DType>,
                "TSCATTER: indexes must be int16, uint16, int32 or uint32 "
                "[docs/pto-instructions.md#gather-and-scatter]");
  static_assert(TileDataD::Loc == TileType::Vec && TileDataS::Loc == TileType::Vec &&
                    TileDataI::Loc == TileType::Vec,
                "TSCATTER: dst, src and indexes must be TileType::Vec "
                "[docs/pto-instructions.md#gather-and-scatter]");
  const auto d = dst.desc(), a = src.desc(), b = indexes.desc();
  return detail::run({.instr = detail::Instr::TSCATTER, .dst = &d, .src0 = &a, .src1 = &b}, site,
                     events...);)

// Mask form: src's elements spread over dst with zeros between them (P1111: TMOV).
TILESIM_PTO_FN((MaskPattern maskPattern = MaskPattern::P1111, auto ScatterType = ScatterAxis::SCATTER_ROW,
                typename DstTileData, typename SrcTileData),
               (is_tile_v<DstTileData> && is_tile_v<SrcTileData>), TSCATTER,
               (DstTileData& dst, SrcTileData& src),
  TILESIM_PTO_DTYPE_ASSERT(TSCATTER, typename DstTileData::DType);
  TILESIM_PTO_SAME_ASSERT(TSCATTER, DstTileData, SrcTileData);
  static_assert(DstTileData::Loc == TileType::Vec && SrcTileData::Loc == TileType::Vec,
                "TSCATTER: dst and src must be TileType::Vec [docs/pto-instructions.md#gather-and-scatter]");
  const auto d = dst.desc(), a = src.desc();
  return detail::run({.instr = detail::Instr::TSCATTER, .dst = &d, .src0 = &a,
                      .pattern = uint8_t(maskPattern), .axis = uint8_t(ScatterType)},
                     site, events...);)

#define TILESIM_PTO_FILLPAD(NAME)                                                            \
  TILESIM_PTO_FN((typename DstTileData, typename SrcTileData),                              \
                 (is_tile_v<DstTileData> && is_tile_v<SrcTileData>), NAME,                  \
                 (DstTileData& dst, SrcTileData& src),                                      \
    TILESIM_PTO_SAME_ASSERT(NAME, DstTileData, SrcTileData);                                \
    const auto d = dst.desc(), s = src.desc();                                              \
    return detail::run({.instr = detail::Instr::TFILLPAD, .dst = &d, .src0 = &s}, site,     \
                       events...);)
TILESIM_PTO_FILLPAD(TFILLPAD)
TILESIM_PTO_FILLPAD(TFILLPAD_INPLACE)
#undef TILESIM_PTO_FILLPAD

// ---- matrix (docs/pto-kernels.md#matrix) ----

#define TILESIM_PTO_MATMUL(TPL)                                                              \
  TILESIM_PTO_FN(TPL, (is_tile_v<TileRes> && is_tile_v<TileLeftT> && is_tile_v<TileRightT>), \
                 TMATMUL, (TileRes& cMatrix, TileLeftT& aMatrix, TileRightT& bMatrix),      \
    const auto c = cMatrix.desc(), a = aMatrix.desc(), b = bMatrix.desc();                  \
    return detail::run({.instr = detail::Instr::TMATMUL, .dst = &c, .src0 = &a, .src1 = &b}, \
                       site, events...);)
TILESIM_PTO_MATMUL((typename TileRes, typename TileLeftT, typename TileRightT))
TILESIM_PTO_MATMUL((AccPhase Phase, typename TileRes, typename TileLeftT, typename TileRightT))
#undef TILESIM_PTO_MATMUL
TILESIM_PTO_FN((AccPhase Phase = AccPhase::Unspecified, typename TileRes, typename TileLeftT,
                typename TileRightT),
               (is_tile_v<TileRes> && is_tile_v<TileLeftT> && is_tile_v<TileRightT>),
               TMATMUL_ACC,
               (TileRes& cOutMatrix, TileRes& cInMatrix, TileLeftT& aMatrix, TileRightT& bMatrix),
  const auto c = cOutMatrix.desc(), ci = cInMatrix.desc(), a = aMatrix.desc(),
             b = bMatrix.desc();
  return detail::run({.instr = detail::Instr::TMATMUL_ACC, .dst = &c, .src0 = &a, .src1 = &b,
                      .acc_in = &ci},
                     site, events...);)
TILESIM_PTO_FN((AccPhase Phase = AccPhase::Unspecified, typename TileRes, typename TileLeftT,
                typename TileRightT),
               (is_tile_v<TileRes> && is_tile_v<TileLeftT> && is_tile_v<TileRightT>),
               TMATMUL_ACC, (TileRes& cMatrix, TileLeftT& aMatrix, TileRightT& bMatrix),
  const auto c = cMatrix.desc(), a = aMatrix.desc(), b = bMatrix.desc();
  return detail::run({.instr = detail::Instr::TMATMUL_ACC, .dst = &c, .src0 = &a, .src1 = &b,
                      .acc_in = &c},
                     site, events...);)
TILESIM_PTO_FN((AccPhase Phase = AccPhase::Unspecified, typename TileRes, typename TileLeftT,
                typename TileRightT, typename TileBias),
               (is_tile_v<TileRes> && is_tile_v<TileLeftT> && is_tile_v<TileRightT> &&
                is_tile_v<TileBias>),
               TMATMUL_BIAS,
               (TileRes& cMatrix, TileLeftT& aMatrix, TileRightT& bMatrix, TileBias& biasData),
  const auto c = cMatrix.desc(), a = aMatrix.desc(), b = bMatrix.desc(), bi = biasData.desc();
  return detail::run({.instr = detail::Instr::TMATMUL_BIAS, .dst = &c, .src0 = &a, .src1 = &b,
                      .bias = &bi},
                     site, events...);)

// ---- sync (docs/pto-kernels.md#sync) ----
// The twin runs each instruction to completion in program order, so results never depend on
// these. With the hazard checker on they order the pipes as the vendor's device build does
// (pto-isa include/pto/common/event.hpp and include/pto/npu/<arch>/TSync.hpp):
// - Event<SrcOp, DstOp> takes an event id per pipe pair at construction (round-robin 0..7);
//   assigning it an instruction's RecordEvent, or Record(), is set_flag(src pipe, dst pipe, id);
//   Wait() is the matching wait_flag (one pipe_barrier when both ops are on the same pipe);
// - an instruction's trailing events are waited for before it issues (TSYNC(events...));
//   tilesim also accepts a RecordEvent itself there: the consumer's pipe is ordered after that
//   instruction (the vendor's device build does not compile this form);
// - TSYNC<Op>() is pipe_barrier of the op's pipe, which orders no more than the pipe's program
//   order already does.
// The flags land on the Event's pipes, not on the pipes the instructions ran on: an Event whose
// SrcOp names another pipe than the recording instruction's orders nothing for it, as on chip.

// The operation classes of Event<SrcOp, DstOp> and TSYNC<Op> (names as the vendor's Op; values
// tilesim's): every row of the instruction table, and the location-specific spellings, each
// resolved to a pipe by the table's PIPE rule (tilesim::pto::sync_pipe), so that an Event's flag
// is on the pipe the checker records the instruction on.
#define TILESIM_PTO_OP_EXTRA(X)                                                            \
  X(TSTORE_VEC, TSTORE, Vec, Vec) X(TSTORE_MAT, TSTORE, Mat, Vec)                           \
  X(TSTORE_ACC, TSTORE, Acc, Vec) X(TMOV_V2V, TMOV, Vec, Vec) X(TMOV_V2M, TMOV, Vec, Mat)   \
  X(TEXTRACT_V2M, TEXTRACT, Vec, Mat) X(TMOV_M2L, TMOV, Mat, Left)                          \
  X(TMOV_M2R, TMOV, Mat, Right) X(TMOV_M2B, TMOV, Mat, Bias) X(TMOV_M2S, TMOV, Mat, Scaling) \
  X(TEXTRACT_M2LR, TEXTRACT, Mat, Left) X(TMOV_A2V, TMOV, Acc, Vec)                         \
  X(TMOV_A2M, TMOV, Acc, Mat) X(TEXTRACT_A2M, TEXTRACT, Acc, Mat)                           \
  X(TFILLPAD_VEC, TFILLPAD, Vec, Vec) X(TFILLPAD_MAT, TFILLPAD, Mat, Mat)                   \
  X(TEXPANDS_MAT, TEXPANDS, Mat, Mat)
enum class Op : uint16_t {
  SCALAR,  // PIPE_S
  VECTOR,  // PIPE_V
#define TILESIM_PTO_OP_ROW(NAME, KIND, OP, ALG, PIPE, A2A3, A5) NAME,
  TILESIM_PTO_INSTRS(TILESIM_PTO_OP_ROW)
#undef TILESIM_PTO_OP_ROW
#define TILESIM_PTO_OP_X(NAME, INSTR, FROM, TO) NAME,
  TILESIM_PTO_OP_EXTRA(TILESIM_PTO_OP_X)
#undef TILESIM_PTO_OP_X
};

namespace detail {
struct OpDesc {
  Instr instr;
  TileType from, to;
  int8_t pipe;    // >= 0: the op's fixed pipe (SCALAR, VECTOR); else by the instruction's rule
  bool one_pipe;  // false: TSTORE, TMOV, TEXTRACT, whose pipe depends on their operands
};
constexpr OpDesc op_desc(Op op) {
  using tilesim::pto::PipeRule;
  switch (op) {
    case Op::SCALAR: return {Instr::TADD, TileType::Vec, TileType::Vec, tilesim::sync::kS, true};
    case Op::VECTOR: return {Instr::TADD, TileType::Vec, TileType::Vec, tilesim::sync::kV, true};
#define TILESIM_PTO_OP_ROW(NAME, KIND, OP, ALG, PIPE, A2A3, A5)                          \
  case Op::NAME:                                                                          \
    return {Instr::NAME, TileType::Vec, TileType::Vec, -1,                                \
            PipeRule::PIPE != PipeRule::BySrc && PipeRule::PIPE != PipeRule::ByLocs};
    TILESIM_PTO_INSTRS(TILESIM_PTO_OP_ROW)
#undef TILESIM_PTO_OP_ROW
#define TILESIM_PTO_OP_X(NAME, INSTR, FROM, TO) \
  case Op::NAME:                                \
    return {Instr::INSTR, TileType::FROM, TileType::TO, -1, true};
    TILESIM_PTO_OP_EXTRA(TILESIM_PTO_OP_X)
#undef TILESIM_PTO_OP_X
  }
  return {Instr::TADD, TileType::Vec, TileType::Vec, -1, false};
}
#undef TILESIM_PTO_OP_EXTRA
// The pipe an op names (the checker is on: computed when used).
inline uint8_t op_pipe(Op op) {
  const OpDesc o = op_desc(op);
  if (o.pipe >= 0) return uint8_t(o.pipe);
  tilesim::pto::TileDesc from, to;
  from.loc = uint8_t(o.from);
  to.loc = uint8_t(o.to);
  return tilesim::pto::sync_pipe({.instr = o.instr, .dst = &to, .src0 = &from});
}
inline void event_record(Op src, Op dst, event_t id, const tilesim::sync::Site& site) {
  const uint8_t s = op_pipe(src), d = op_pipe(dst);
  if (s != d) tilesim::sync::set_flag("set_flag", s, d, id, site);  // same pipe: nothing to set
}
inline void event_wait(Op src, Op dst, event_t id, const tilesim::sync::Site& site) {
  const uint8_t s = op_pipe(src), d = op_pipe(dst);
  if (s == d)
    tilesim::sync::barrier("pipe_barrier", s, site);
  else
    tilesim::sync::wait_flag("wait_flag", s, d, id, site);
}
}  // namespace detail

template <Op SrcOp, Op DstOp, bool AutoToken = true, event_t EventID = EVENT_ID0>
struct Event : detail::EventTag {
  static_assert(detail::op_desc(SrcOp).one_pipe && detail::op_desc(DstOp).one_pipe,
                "Event: SrcOp and DstOp must each name one pipe: TSTORE_VEC / TSTORE_ACC / "
                "TSTORE_MAT, TMOV_M2L, TEXTRACT_M2LR, ... rather than TSTORE, TMOV, TEXTRACT "
                "[docs/pto-kernels.md#sync]");
  static constexpr Op srcOp = SrcOp;
  static constexpr Op dstOp = DstOp;
  event_t token = EventID;

  Event() {
    if (AutoToken && tilesim::sync::on()) [[unlikely]]
      token = event_t(tilesim::pto::sync_event_id(detail::op_pipe(SrcOp), detail::op_pipe(DstOp)));
  }
  Event(const RecordEvent& e) : Event() { record_at(e.site); }
  Event& operator=(const RecordEvent& e) {
    record_at(e.site);
    return *this;
  }
  template <uint8_t CrossCoreId = 0xff>
  Event& Record(tilesim::sync::Site site = tilesim::sync::Site::here()) {
    record_at(site);
    return *this;
  }
  template <uint8_t CrossCoreId = 0xff>
  Event& Init(tilesim::sync::Site site = tilesim::sync::Site::here()) {
    record_at(site);
    return *this;
  }
  template <uint8_t CrossCoreId = 0xff>
  Event& Wait(tilesim::sync::Site site = tilesim::sync::Site::here()) {
    wait_at(site);
    return *this;
  }
  Event& InitAddr(uint64_t) { return *this; }  // cross-core addressing: one core here

  void record_at(const tilesim::sync::Site& site) {
#ifndef __PTO_AUTO__
    if (tilesim::sync::on()) [[unlikely]]
      detail::event_record(SrcOp, DstOp, token, site);
#else
    (void)site;
#endif
  }
  void wait_at(const tilesim::sync::Site& site) {
#ifndef __PTO_AUTO__
    if (tilesim::sync::on()) [[unlikely]]
      detail::event_wait(SrcOp, DstOp, token, site);
#else
    (void)site;
#endif
  }
};

namespace detail {
// TSYNC(events...): waits with no consumer instruction; a RecordEvent orders every pipe.
template <class E>
void tsync_wait(E& e, const tilesim::sync::Site& site) {
#ifndef __PTO_AUTO__
  if constexpr (std::is_same_v<std::remove_cv_t<E>, RecordEvent>)
    tilesim::pto::sync_take_all(e.token);
  else if constexpr (std::is_base_of_v<EventTag, std::remove_cv_t<E>>)
    e.wait_at(site);
#else
  (void)e, (void)site;
#endif
}
}  // namespace detail
template <typename E0>
  requires detail::kEvents<E0>
inline void TSYNC(E0& e0, tilesim::sync::Site site = tilesim::sync::Site::here()) {
  if (tilesim::sync::on()) [[unlikely]]
    detail::tsync_wait(e0, site);
}
template <typename... WaitEvents>
  requires(sizeof...(WaitEvents) != 1 && detail::kNoTiles<WaitEvents...>)
inline void TSYNC(WaitEvents&... events) {
  if (tilesim::sync::on()) [[unlikely]]
    (detail::tsync_wait(events, tilesim::sync::Site{}), ...);
}
template <Op OpCode>
inline void TSYNC(tilesim::sync::Site site = tilesim::sync::Site::here()) {
#ifndef __PTO_AUTO__
  if (tilesim::sync::on()) [[unlikely]]
    tilesim::sync::barrier("TSYNC", detail::op_pipe(OpCode), site);
#else
  (void)site;
#endif
}
template <SyncCoreType CoreType = SyncCoreType::AIVOnly>
inline void SYNCALL() {}
template <SyncAllMode Mode, SyncCoreType CoreType = SyncCoreType::AIVOnly, typename GlobalData>
  requires detail::kIsGm<GlobalData>
inline void SYNCALL(GlobalData&, int32_t = 0) {}

}  // namespace pto
