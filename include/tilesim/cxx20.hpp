// tilesim's C++ headers are C++20 (spec 60 §1): an older standard gets this one line first instead
// of a deep template error. C code (and C++ code) that includes only tpu_kernel.h is unaffected.
#pragma once
#if defined(__cplusplus) && !defined(_MSVC_LANG) && __cplusplus < 202002L
#error "tilesim needs C++20: compile with -std=c++20 (linking tilesim::tilesim sets it); only tpu_kernel.h is usable from C or older C++"
#endif
