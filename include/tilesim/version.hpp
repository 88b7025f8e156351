#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include "tilesim/error.hpp"  // tilesim::Error, what tilesim calls throw (issue 21 §5)
namespace tilesim {
// The project version (CMake project VERSION).
const char* version() noexcept;
}  // namespace tilesim
