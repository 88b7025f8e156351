// Shared helpers of the TPU tests: put/get NCHW data through GDMA, memory snapshots.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "tilesim/error.hpp"
#include "tilesim/tpu.hpp"

namespace tpu_test {

using tilesim::tpu::Device;

inline dim4 shape4(int n, int c, int h, int w) {
  return dim4{n, c, h, w};
}
inline size_t count(const dim4& s) {
  return size_t(s.n) * s.c * s.h * s.w;
}

// Writes dense NCHW `data` at `addr` in the 64-byte aligned layout.
template <class T>
void put(Device& d, local_addr_t addr, const dim4& s, const std::vector<T>& data, data_type_t dt) {
  ASSERT_EQ(data.size(), count(s));
  d.gdma_cpy_S2L(addr, data.data(), &s, nullptr, nullptr, dt);
}
template <class T>
std::vector<T> get(Device& d, local_addr_t addr, const dim4& s, data_type_t dt) {
  std::vector<T> out(count(s));
  d.gdma_cpy_L2S(out.data(), addr, &s, nullptr, nullptr, dt);
  return out;
}
inline uint32_t f32_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
// Expected fp32 results as codes: tests compare bits, so -0 and NaN payloads count (spec 00).
inline std::vector<uint32_t> f32_codes(std::initializer_list<float> v) {
  std::vector<uint32_t> out;
  for (float f : v) out.push_back(f32_bits(f));
  return out;
}
inline float bits_f32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Asserts that `f` throws tilesim::Error with `code` whose message contains every needle, and
// that the device's whole local memory is unchanged (spec 00: nothing written on failure).
template <class F>
void expect_rejected(Device& d, tilesim::ErrorCode code, std::vector<std::string> needles, F&& f) {
  const std::vector<uint8_t> before(d.memory().begin(), d.memory().end());
  try {
    f();
    ADD_FAILURE() << "no error raised; expected one containing '" << needles.at(0) << "'";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(static_cast<int>(e.code()), static_cast<int>(code)) << e.what();
    for (const auto& n : needles)
      EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::memcmp(before.data(), d.memory().data(), before.size()) == 0)
      << "local memory changed by a rejected call";
}

}  // namespace tpu_test
