/* Vendor include path (spec 60 §3): kernels written for Sophgo's TPU-Kernel include
 * "tpu_kernel.h"; in tilesim that is the C API of spec 50. */
#ifndef TILESIM_VENDOR_TPU_KERNEL_H_
#define TILESIM_VENDOR_TPU_KERNEL_H_
#include <tilesim/tpu_kernel.h>
#endif
