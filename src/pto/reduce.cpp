// Reductions (spec 21 §2; docs/pto-instructions.md#reductions) — being written.
#include "pto/instr.hpp"

namespace tilesim::pto::instr {
void reduce(const Ctx& c, const Call&, Path) {
  c.fail(ErrorCode::Unsupported, "not implemented yet");
}
}  // namespace tilesim::pto::instr
