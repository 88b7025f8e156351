// The double-buffered row softmax of softmax_double_buffer.hpp, with every flag: correct on the
// chip, and `TILESIM_CHECK=sync ./example_pto_softmax_double_buffer` reports nothing.
#include <cstdio>
#include <vector>

#include "softmax_double_buffer.hpp"

int main() {
  using namespace example;
  std::vector<float> x(kDbRows * kDbCols), y(kDbRows * kDbCols, -1.0f);
  for (int i = 0; i < kDbRows * kDbCols; ++i) x[i] = float((i * 71) % 97) * 0.11f - 5.0f;
  softmax_double_buffer(x.data(), y.data());
  const double err = softmax_error(x.data(), y.data());
  std::printf("pto double-buffered softmax (%dx%d fp32, ping-pong tiles of %d rows): largest "
              "relative error vs float64 %.2e: %s\n",
              kDbRows, kDbCols, kDbBlock, err, err < 1e-5 ? "ok" : "FAILED");
  return err < 1e-5 ? 0 : 1;
}
