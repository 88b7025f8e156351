/* Vendor include path (spec 60 §3): torch-tpu's tpu_defs.h names live in tilesim/tpu_kernel.h. */
#ifndef TILESIM_VENDOR_TPU_DEFS_H_
#define TILESIM_VENDOR_TPU_DEFS_H_
#include <tilesim/tpu_kernel.h>
#endif
