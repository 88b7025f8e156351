// tilesim::Error — the one exception type of every engine (spec 00 "Errors", spec 60 §3).
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include <stdexcept>
#include <string>
#include <string_view>

namespace tilesim {

enum class ErrorCode { Parse, Constraint, Bounds, Unsupported, Fault, Io };

// "Parse", "Constraint", ... (the names Python's Error.code carries).
const char* to_string(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// Builds the message convention of spec 00: "INSTR: <rule, actual values> [docs/<file>.md#<anchor>]".
// `spec` is a docs citation ("docs/pto-instructions.md#element-wise", shown in brackets), or empty
// (no citation); tests/core/docs_anchor_test.cpp checks that every cited anchor exists.
[[noreturn]] void raise(ErrorCode code, std::string_view instr, std::string_view detail,
                        std::string_view spec = {});

}  // namespace tilesim
