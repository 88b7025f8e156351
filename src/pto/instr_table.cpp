// The PTO instruction table's engine side (spec 21 §2): its rows from tilesim/pto/instructions.hpp,
// lookup by name, and the one entry point that hands a call to its kind's family.
#include <fmt/format.h>

#include <array>
#include <cctype>

#include "pto/instr.hpp"
#include "pto/transfer.hpp"
#include "tilesim/parallel.hpp"

namespace tilesim::pto {
namespace {

using namespace dts;  // the table's dtype names

constexpr InstrInfo kInstrs[] = {
#define TILESIM_PTO_INSTR_ROW(NAME, KIND, OP, ALG, PIPE, A2A3, A5) \
  {Instr::NAME, #NAME, Kind::KIND, PipeRule::PIPE, uint16_t(A2A3), uint16_t(A5)},
    TILESIM_PTO_INSTRS(TILESIM_PTO_INSTR_ROW)
#undef TILESIM_PTO_INSTR_ROW
};
constexpr int kNumInstrs = int(sizeof(kInstrs) / sizeof(kInstrs[0]));

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

const InstrInfo& instr_info(Instr i) noexcept {
  return kInstrs[unsigned(i)];
}
int num_instrs() noexcept {
  return kNumInstrs;
}
const InstrInfo* find_instr(std::string_view name) noexcept {
  for (const InstrInfo& r : kInstrs)
    if (iequal(r.name, name)) return &r;
  return nullptr;
}

namespace {
void run(const InstrInfo& info, const Call& call, const Target& t, const Ub& ub, Path path) {
  const instr::Ctx c{info, t, ub};
  switch (info.kind) {
    case Kind::Binary:
    case Kind::BinaryTmp:
    case Kind::Unary:
    case Kind::UnaryRsqrt:
    case Kind::Scalar:
    case Kind::ScalarDiv:
    case Kind::ScalarTmp:
    case Kind::LeakyRelu:
    case Kind::Axpy:
    case Kind::ExpandScalar:
      return instr::elementwise(c, call, path);
    case Kind::Compare:
    case Kind::CompareScalar:
    case Kind::Select:
    case Kind::SelectScalar:
      return instr::compare(c, call, path);
    case Kind::RowReduce:
    case Kind::ColReduce:
    case Kind::RowArg:
    case Kind::ColArg:
      return instr::reduce(c, call, path);
    case Kind::RowExpand:
    case Kind::ColExpand:
    case Kind::ColExpandOp:
      return instr::expand(c, call, path);
    case Kind::Convert:
      return instr::convert(c, call, path);
    case Kind::Load:
    case Kind::Store:
    case Kind::Prefetch:
      return instr::memory(c, call, path);
    case Kind::Move:
    case Kind::Transpose:
    case Kind::Extract:
    case Kind::Reshape:
    case Kind::FillPad:
      return instr::movement(c, call, path);
    case Kind::Matmul:
    case Kind::MatmulAcc:
    case Kind::MatmulBias:
      return instr::matmul(c, call, path);
    case Kind::Gather:
    case Kind::Scatter:
      return instr::gather(c, call, path);
  }
}
}  // namespace

void execute(const Call& call, const Target& t, const Ub& ub, Path path) {
  const InstrInfo& info = kInstrs[unsigned(call.instr)];  // the row, without a call
  run(info, call, t, ub, path);
  // After the call succeeded (a rejected call accesses nothing): the hazard checker's record.
  if (sync::on() && !call.auto_sync) [[unlikely]]
    instr::sync_record(info, call, ub);
}

void execute_current(const Call& c) {
  const Target& t = current_target();
  execute(c, t, global_ub(t));
}

namespace instr {

const char* doc_of(Kind k) noexcept {
  switch (k) {
    case Kind::Binary:
    case Kind::BinaryTmp:
    case Kind::Unary:
    case Kind::UnaryRsqrt:
      return "docs/pto-instructions.md#element-wise";
    case Kind::Scalar:
    case Kind::ScalarDiv:
    case Kind::ScalarTmp:
    case Kind::LeakyRelu:
    case Kind::Axpy:
    case Kind::ExpandScalar:
      return "docs/pto-instructions.md#tile-scalar";
    case Kind::Compare:
    case Kind::CompareScalar:
    case Kind::Select:
    case Kind::SelectScalar:
      return "docs/pto-instructions.md#compare-and-select";
    case Kind::RowReduce:
    case Kind::ColReduce:
    case Kind::RowArg:
    case Kind::ColArg:
      return "docs/pto-instructions.md#reductions";
    case Kind::RowExpand:
    case Kind::ColExpand:
    case Kind::ColExpandOp:
      return "docs/pto-instructions.md#expand";
    case Kind::Convert:
      return "docs/pto-instructions.md#tcvt";
    case Kind::Load:
    case Kind::Store:
    case Kind::Prefetch:
      return "docs/pto-kernels.md#memory";
    case Kind::Move:
    case Kind::Transpose:
    case Kind::Extract:
    case Kind::Reshape:
    case Kind::FillPad:
      return "docs/pto-kernels.md#movement";
    case Kind::Matmul:
    case Kind::MatmulAcc:
    case Kind::MatmulBias:
      return "docs/pto-kernels.md#matrix";
    case Kind::Gather:
    case Kind::Scatter:
      return "docs/pto-instructions.md#gather-and-scatter";
  }
  return "docs/pto-instructions.md";
}

void Ctx::fail(ErrorCode code, const std::string& detail) const {
  raise(code, info.name, detail, doc_of(info.kind));
}


namespace slow {

void tile_ok(const Ctx& c, const TileDesc& t, std::string_view who) {
  check_tile(t, c.info.name, who);
  if (t.ub_addr >= 0 && t.loc == kLocVec && t.ub != c.ub.base)
    c.fail(ErrorCode::Constraint,
           fmt::format("{} is bound (TASSIGN) to the UB of another target, the current target is {}",
                       who, c.target.name));
}

void vec(const Ctx& c, const TileDesc& t, std::string_view who) {
  c.fail(ErrorCode::Constraint,
         fmt::format("{} must be a TileType::Vec tile, got {}", who, loc_name(t.loc)));
}

void row_major(const Ctx& c, const TileDesc& t, std::string_view who) {
  c.fail(ErrorCode::Constraint,
         fmt::format("{} must be RowMajor with SLayout::NoneBox (ND), got {}{}", who,
                     t.row_major ? "RowMajor" : "ColMajor",
                     t.slayout != kSLayoutNoneBox ? " with a boxed SLayout" : ""));
}

void dtype_allowed(const Ctx& c, const TileDesc& t, std::string_view who) {
  const uint16_t mask = allowed(c);
  c.fail(ErrorCode::Unsupported,
         fmt::format("{} dtype {} is not supported on target {} (supported: {})", who,
                     elem_name(t.dtype), c.target.name, dtype_list(mask)));
}

void same_dtype(const Ctx& c, const TileDesc& a, std::string_view wa, const TileDesc& b,
                std::string_view wb) {
  c.fail(ErrorCode::Constraint, fmt::format("{} and {} must have the same dtype, got {} and {}", wa,
                                            wb, elem_name(a.dtype), elem_name(b.dtype)));
}

void same_valid(const Ctx& c, const TileDesc& a, std::string_view wa, const TileDesc& b,
                std::string_view wb) {
  c.fail(ErrorCode::Constraint,
         fmt::format("{} valid shape must equal {}'s, got {}x{} and {}x{}", wa, wb, a.valid_row,
                     a.valid_col, b.valid_row, b.valid_col));
}

}  // namespace slow

std::string dtype_list(uint16_t mask) {
  std::string s;
  for (int e = 0; e < kNumElems; ++e)
    if (mask & (1u << e)) {
      if (!s.empty()) s.push_back(' ');
      s.append(elem_name(Elem(e)));
    }
  return s;
}

void no_overlap(const Ctx& c, const TileDesc& a, std::string_view wa, const TileDesc& b,
                std::string_view wb) {
  if (overlaps(a, b))
    c.fail(ErrorCode::Constraint,
           fmt::format("{} and {} must not share storage (they overlap)", wa, wb));
}

void no_zero_divisor(const Ctx& c, const TileDesc& t, std::string_view who) {
  if (elem_is_float(t.dtype)) return;
  const formats::DType dt = core_dtype(t.dtype);
  for (int r = 0; r < t.valid_row; ++r)
    for (int col = 0; col < t.valid_col; ++col)
      if (ops::load_code(dt, at(t, r, col), 0) == 0)
        c.fail(ErrorCode::Constraint,
               fmt::format("integer division by zero: {} element ({}, {}) is 0", who, r, col));
}

void Source::copy(int R, int C, size_t sz) {
  copy_.resize(size_t(R) * size_t(C) * sz);
  for (int r = 0; r < R; ++r)
    std::memcpy(copy_.data() + size_t(r) * C * sz, base_ + size_t(r) * stride_, size_t(C) * sz);
  base_ = copy_.data();
  stride_ = size_t(C) * sz;
}

void for_rows_threaded(int R, int C, int work_log2, const std::function<void(size_t, size_t)>& fn) {
  const size_t grain = std::max<size_t>(1, (size_t(1) << (work_log2 - 1)) / size_t(std::max(C, 1)));
  parallel_for(size_t(R), grain, fn);
}

}  // namespace instr
}  // namespace tilesim::pto
