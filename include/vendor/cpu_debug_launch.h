// The vendor include path "cpu_debug_launch.h" (spec 41 §1): the newer name of "tikicpulib.h".
#pragma once
#include "tikicpulib.h"
