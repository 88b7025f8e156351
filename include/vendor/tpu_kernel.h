/* Vendor include path (spec 60 §3): kernels written for Sophgo's TPU-Kernel include
 * "tpu_kernel.h"; in tilesim that is the C API of spec 50. */
#ifndef TILESIM_VENDOR_TPU_KERNEL_H_
#define TILESIM_VENDOR_TPU_KERNEL_H_
#include <tilesim/tpu_kernel.h>
/* The C API reports errors as codes (tilesim_tpu_last_error_code() is 1 + tilesim::ErrorCode); a
 * C++20 includer also gets tilesim::Error, which the C++ API (tilesim/tpu.hpp) throws. C and older
 * C++ stay unaffected (issue 21 §5). */
#if defined(__cplusplus) && (__cplusplus >= 202002L || (defined(_MSVC_LANG) && _MSVC_LANG >= 202002L))
#include <tilesim/error.hpp>
#endif
#endif
