// tilesim::linx::gemm — the GEMM core on logical row-major matrices of any size (spec 30 §4),
// with the TMATMUL family's type rules (spec 30 §2, §3).
#include <string>
#include <vector>

#include "linx/gemm_core.hpp"
#include "linx/machine_state.hpp"
#include "tilesim/error.hpp"

namespace tilesim::linx {
namespace {
// Decodes into a grow-only per-thread buffer (slot 0: A, 1: B), avoiding fresh pages per call.
const uint32_t* decode_matrix(const Matrix& m, DType t, int slot) {
  const size_t n = m.rows * m.cols;
  thread_local std::vector<uint32_t> bufs[2];
  std::vector<uint32_t>& out = bufs[slot];
  if (out.size() < n) out.resize(n);
  const auto* p = static_cast<const uint8_t*>(m.data);
  if (formats::is_packed4(t)) {  // carrier is one code per byte: repack into nibbles first
    std::vector<uint8_t> packed((n + 1) / 2, 0);
    for (size_t i = 0; i < n; ++i) formats::set_nibble(packed.data(), i, p[i]);
    core::decode(packed.data(), t, 0, n, out.data());
  } else {
    core::decode(p, t, 0, n, out.data());
  }
  return out.data();
}
}  // namespace

void gemm(const Matrix& a, const Matrix& b, const void* bias, void* acc, const GemmTypes& t) {
  for (const auto& [ty, role] : {std::pair{t.a, "A"}, std::pair{t.b, "B"}})
    if (!matmul_operand(ty))
      raise(ErrorCode::Constraint, "linx gemm",
            std::string(role) + " type " + std::string(formats::name(ty)) + " is not a TMATMUL operand type", "docs/linx.md#data-types");
  if (acc_type(t.a) != acc_type(t.b))
    raise(ErrorCode::Constraint, "linx gemm",
          "A type " + std::string(formats::name(t.a)) + " and B type " + std::string(formats::name(t.b)) +
              " are in different classes",
          "docs/linx.md#data-types");
  if (a.cols != b.rows || !a.rows || !a.cols || !b.cols)
    raise(ErrorCode::Constraint, "linx gemm",
          "shapes must be M x K and K x N with M, N, K >= 1, got " + std::to_string(a.rows) + "x" +
              std::to_string(a.cols) + " and " + std::to_string(b.rows) + "x" + std::to_string(b.cols),
          "docs/linx.md#gemm-on-logical-matrices");
  if (!a.data || !b.data || !acc) raise(ErrorCode::Constraint, "linx gemm", "null matrix pointer", "docs/linx.md#gemm-on-logical-matrices");
  // fp32 / s32 / u32 are already the core's domain: no decode copy.
  const auto identity = [](DType x) { return x == DType::fp32 || x == DType::s32 || x == DType::u32; };
  const void* A = identity(t.a) ? a.data : decode_matrix(a, t.a, 0);
  const void* B = identity(t.b) ? b.data : decode_matrix(b, t.b, 1);
  // The direct entry computes what a TMATMUL under the default profile computes (spec 30 §4).
  const LinxProfile& p = default_linx_profile();
  core::run(core::domain_of(t.a), A, B, bias, t.accumulate ? acc : nullptr, acc, a.rows, b.cols, a.cols, t.engine,
            /*b_col_major=*/false, core::Rules{p.float_order, p.int_overflow});
}

}  // namespace tilesim::linx
