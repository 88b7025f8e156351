// The vendor include path "kernel_tiling/kernel_tiling.h", which op kernels include next to
// "kernel_operator.h" for the tiling structs of the high-level APIs. tilesim has none of those
// APIs yet, so the header only brings the kernel side of tiling (GET_TILING_DATA* macros,
// docs/ascendc.md#tiling); kernels whose tiling struct is their own build unchanged.
#pragma once
#include "kernel_operator.h"
