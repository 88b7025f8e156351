// Extension point of the Python module: each model's binding file registers its submodule with a
// static Registrar, so adding a model never edits module.cpp. Bindings hold no arithmetic.
#pragma once
#include <pybind11/pybind11.h>

namespace tilesim::py {

// Fills `sub` (tilesim._tilesim.<name>); `root` is tilesim._tilesim.
using Init = void (*)(pybind11::module_& root, pybind11::module_& sub);

struct Registrar {
  Registrar(const char* name, Init init);
};

}  // namespace tilesim::py
