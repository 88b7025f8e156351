#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
namespace tilesim {
// The project version (CMake project VERSION).
const char* version() noexcept;
}  // namespace tilesim
