// Runs a test body once per SIMD target Highway compiled and this machine runs (spec 70
// "Highway": tests written once, run for every target), each failure traced with the target.
#pragma once
#include <gtest/gtest.h>
#include <hwy/targets.h>

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

}  // namespace ops_test
