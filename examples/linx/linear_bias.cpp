// The linear-layer example through the C++ API: y = x W + b with FP16 weights and an FP32 bias,
// one TMATMUL.BIAS template block (spec 30). Reads the .npy inputs beside this file and checks the
// ACC against expected.npy bit for bit.
#include <cstdio>
#include <cstring>

#include "tilesim/linx.hpp"
#include "tilesim/npy.hpp"

int main() {
  namespace lx = tilesim::linx;
  using tilesim::formats::DType;
  const std::string dir = std::string(TILESIM_SOURCE_DIR) + "/examples/linx/";
  try {
    const auto x = tilesim::npy::load(dir + "x.npy");        // 32 x 64 float16
    const auto w = tilesim::npy::load(dir + "w.npy");        // 64 x 48 float16
    const auto b = tilesim::npy::load(dir + "bias.npy");     // 48 float32
    const auto want = tilesim::npy::load(dir + "expected.npy");
    lx::Machine m;
    m.set_reg("a0", w.shape[1]);
    m.push_tile('T', x.data.data(), x.shape[0], x.shape[1], DType::fp16, lx::Layout::nz);
    m.push_tile('U', w.data.data(), w.shape[0], w.shape[1], DType::fp16, lx::Layout::zn);
    m.push_tile('N', b.data.data(), 1, b.shape[0], DType::fp32, lx::Layout::nd);
    m.run("TMATMUL.BIAS <LB0:32, LB1:a0, LB2:64, FP16>, T#1, U#1, N#1, ->ACC<8KB>");
    const lx::AccView& acc = m.acc();
    const bool ok = acc.data.size() * 4 == want.data.size() &&
                    std::memcmp(acc.data.data(), want.data.data(), want.data.size()) == 0;
    std::printf("y = x W + b: %zux%zu %s, y[0][0] = %g, %s\n", acc.m, acc.n,
                std::string(tilesim::formats::name(acc.type)).c_str(),
                static_cast<double>(tilesim::formats::bits_to_f32(acc.data[0])),
                ok ? "matches expected.npy" : "MISMATCH");
    return ok ? 0 : 1;
  } catch (const tilesim::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
