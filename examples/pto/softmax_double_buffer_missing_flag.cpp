// The double-buffered row softmax of softmax_double_buffer.hpp with the MTE2 -> V flag removed: the
// vector unit may read a tile before its load has landed. Here the numbers are still right (tilesim
// runs instructions one after another, as every CPU simulator does); on the chip they are not.
// `TILESIM_CHECK=sync ./example_pto_softmax_double_buffer_missing_flag` exits 1 after printing:
//
//   tilesim sync: RAW hazard (read after write)
//     first:  TLOAD on PIPE_MTE2 at .../softmax_double_buffer.hpp:35:10 writes UB [0x0, 0x2000)
//     second: TROWMAX on PIPE_V at .../softmax_double_buffer.hpp:40:12 reads UB [0x0, 0x2000), not ordered after it
//     fix: set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) after the first, wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) before the second [docs/sync.md#hazards]
//     seen 16 times
//   tilesim sync: 1 distinct problem found [docs/sync.md]
//
// (once per block: the checker takes a reported hazard as fixed, so the later reads of the same
// load are not reported again.)
#include <cstdio>
#include <vector>

#include "softmax_double_buffer.hpp"

int main() {
  using namespace example;
  std::vector<float> x(kDbRows * kDbCols), y(kDbRows * kDbCols, -1.0f);
  for (int i = 0; i < kDbRows * kDbCols; ++i) x[i] = float((i * 71) % 97) * 0.11f - 5.0f;
  softmax_double_buffer</*kLoadFlag=*/false>(x.data(), y.data());
  const double err = softmax_error(x.data(), y.data());
  std::printf("pto double-buffered softmax, MTE2 -> V flag missing: largest relative error vs "
              "float64 %.2e (%s here; run with TILESIM_CHECK=sync to see why it fails on the chip)\n",
              err, err < 1e-5 ? "right" : "wrong");
  return err < 1e-5 ? 0 : 1;
}
