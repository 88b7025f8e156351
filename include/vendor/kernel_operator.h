// The vendor include path "kernel_operator.h" (spec 60 §3, spec 41 §1): kernels written for the
// Ascend C toolchain compile unchanged against tilesim on the host. ASCENDC_CPU_DEBUG and
// __CCE_KT_TEST__ come from the tilesim::tilesim CMake target, not from here.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tilesim/ascendc.hpp"
#include "tilesim/ascendc/tiling.hpp"
#include "tilesim/error.hpp"

#ifndef __vector__
#define __vector__
#endif
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif

// The device compiler knows `half` and `bfloat16_t` as builtin types.
using half = AscendC::half;
using bfloat16_t = AscendC::bfloat16_t;

// The CPU twin's older namespace (tik2 samples: `using namespace tik2;`, tik2::GmAlloc).
namespace tik2 = AscendC;

// The kernel `assert` is the vendor's (asc_assert.h): assert(expr) or assert(expr, fmt, args...), the
// same as ascendc_assert: a failed one prints "[ASSERT] file:line: ..." and fails its block with a
// tilesim::Error instead of aborting the process (docs/ascendc.md#debug-prints). As there, <cassert>
// included after this header brings the C library's assert back.
#include <cassert>
#undef assert
#define assert(...) ascendc_assert(__VA_ARGS__)
// The kernel macros' ASSERT (vendor kernel_macros.h: assert(x) in CPU-debug builds).
#ifndef ASSERT
#define ASSERT(x) assert(x)
#endif
