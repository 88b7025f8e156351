// The vendor include path "kernel_operator.h" (spec 60 §3): kernels written for the Ascend C
// toolchain compile unchanged against tilesim on the host.
#pragma once
#include <cstdint>

#include "tilesim/ascendc.hpp"

#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif

// The device compiler knows `half` as a builtin type.
using half = AscendC::half;
