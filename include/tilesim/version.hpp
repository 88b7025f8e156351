#pragma once
namespace tilesim {
// The project version (CMake project VERSION).
const char* version() noexcept;
}  // namespace tilesim
