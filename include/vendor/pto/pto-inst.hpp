// Vendor include path of the PTO tile library (spec 60 §3): kernels written for the vendor
// toolchain include <pto/pto-inst.hpp> and get tilesim's host implementation.
#pragma once
#include "tilesim/pto.hpp"
