/* Vendor include path (spec 60 §3): torch-tpu's tpu_defs.h names live in tilesim/tpu_kernel.h. */
#ifndef TILESIM_VENDOR_TPU_DEFS_H_
#define TILESIM_VENDOR_TPU_DEFS_H_
#include <tilesim/tpu_kernel.h>
/* The C API reports errors as codes (tilesim_tpu_last_error_code() is 1 + tilesim::ErrorCode); a
 * C++20 includer also gets tilesim::Error, which the C++ API (tilesim/tpu.hpp) throws. C and older
 * C++ stay unaffected (issue 21 §5). */
#if defined(__cplusplus) && (__cplusplus >= 202002L || (defined(_MSVC_LANG) && _MSVC_LANG >= 202002L))
#include <tilesim/error.hpp>
#endif
#endif
