// Runs a test body once per SIMD target Highway compiled and this machine runs (spec 70
// "Highway": tests written once, run for every target), each failure traced with the target.
#pragma once
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include "ops/reduce.hpp"

namespace ops_test {

template <class F>
void every_target(F&& f) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    f();
  }
  hwy::SetSupportedTargetsForTest(0);
}

// every_target for the fp16 kernels that have a native form: on a CPU with AVX512-FP16 each target
// runs the body twice, with the native fp16 sum trees and add/sub/mul
// (reduce_f16_native.cpp, elementwise_f16_native.cpp) and with them off, so both they and the
// Highway fp16 kernels are held to the definitions.
template <class F>
void every_fp16_path(F&& f) {
  every_target([&] {
    for (const bool native : {true, false}) {
      if (native && !tilesim::ops::reduce_simd::f16_native_supported()) continue;
      tilesim::ops::reduce_simd::set_f16_native(native);
      SCOPED_TRACE(native ? "native fp16" : "Highway fp16");
      f();
    }
  });
  tilesim::ops::reduce_simd::set_f16_native(true);
}

}  // namespace ops_test
