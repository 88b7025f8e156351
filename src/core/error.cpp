#include "tilesim/error.hpp"

#include "tilesim/version.hpp"

namespace tilesim {

const char* to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::Parse: return "Parse";
    case ErrorCode::Constraint: return "Constraint";
    case ErrorCode::Bounds: return "Bounds";
    case ErrorCode::Unsupported: return "Unsupported";
    case ErrorCode::Fault: return "Fault";
    case ErrorCode::Io: return "Io";
  }
  return "Unknown";
}

void raise(ErrorCode code, std::string_view instr, std::string_view detail, std::string_view spec) {
  std::string msg;
  msg.reserve(instr.size() + detail.size() + spec.size() + 16);
  if (!instr.empty()) msg.append(instr).append(": ");
  msg.append(detail);
  // The citation is a section of the project's docs ("docs/pto-instructions.md#element-wise"), which
  // users have; tests/core/docs_anchor_test.cpp checks every cited anchor exists.
  if (!spec.empty()) msg.append(" [").append(spec).append("]");
  throw Error(code, msg);
}

const char* version() noexcept { return TILESIM_VERSION; }

}  // namespace tilesim
