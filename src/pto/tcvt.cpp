// TCVT (spec 21 §2; docs/pto-instructions.md#tcvt) — being written.
#include "pto/instr.hpp"

namespace tilesim::pto::instr {
void convert(const Ctx& c, const Call&, Path) {
  c.fail(ErrorCode::Unsupported, "not implemented yet");
}
}  // namespace tilesim::pto::instr
