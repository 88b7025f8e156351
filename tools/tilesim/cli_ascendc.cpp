// `tilesim run` (no file): the Ascend C examples' computations through the engine (spec 60 §5),
// printing a short report; exit 1 if a known answer (spec 40 §4) does not come out.
#include <cstdio>
#include <vector>

#include "cli.hpp"
#include "tilesim/ascendc.hpp"

namespace {

using namespace AscendC;

int run_ascendc_examples(const tilesim::cli::Options&) {
  int bad = 0;
  set_product("atlas_a2");
  {
    TPipe pipe;
    TBuf<TPosition::VECCALC> sb, db;
    pipe.InitBuffer(sb, 128 * sizeof(half));
    pipe.InitBuffer(db, 8 * sizeof(half));
    LocalTensor<half> src = sb.Get<half>(), dst = db.Get<half>();
    for (int i = 0; i < 128; ++i) src.SetValue(i, half(float(i / 16 + 1)));
    BlockReduceSum<half>(dst, src, 1, 128, 1, 1, 8);
    std::printf("BlockReduceSum<half> seed table (mask 128): ");
    for (int k = 0; k < 8; ++k) {
      std::printf("%s%g", k ? ", " : "", double(float(dst.GetValue(k))));
      bad += float(dst.GetValue(k)) != 16.0f * float(k + 1);
    }
    std::printf("\n");
    const float seed[4] = {60000, 60000, -30000, 100};
    Duplicate(src, half(0), 128);
    for (int i = 0; i < 4; ++i) src.SetValue(i, half(seed[i]));
    BlockReduceSum<half>(dst, src, 1, 4, 1, 1, 8);
    const float v = float(dst.GetValue(0));
    std::printf(
        "BlockReduceSum<half> [60000, 60000, -30000, 100]: %g (fp16 nodes, saturated; exact "
        "35604)\n",
        double(v));
    bad += v != 35584.0f;
  }
  {
    TPipe pipe;
    TBuf<TPosition::VECCALC> sb, db;
    pipe.InitBuffer(sb, 1024 * sizeof(float));
    pipe.InitBuffer(db, 128 * sizeof(float));
    LocalTensor<float> src = sb.Get<float>(), dst = db.Get<float>();
    for (int i = 0; i < 1024; ++i) src.SetValue(i, float(i % 8 + 1));
    Duplicate(dst, -1.0f, 128);
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, 1003);
    BlockReduceSum<float, false>(dst, src, 1, MASK_PLACEHOLDER, 1, 1, 8);
    SetMaskNorm();
    ResetMask();
    int ok = 0;
    for (int k = 0; k < 128; ++k)
      ok += dst.GetValue(k) == (k < 125 ? 36.0f : k == 125 ? 6.0f : -1.0f);
    std::printf("BlockReduceSum<float> counter mode, 1003 elements: %d/128 blocks as expected\n",
                ok);
    bad += ok != 128;
  }
  std::printf("%s\n", bad ? "ascendc: MISMATCH" : "ascendc: OK");
  return bad ? 1 : 0;
}

tilesim::cli::Hook hook([](tilesim::cli::Hooks& h) {
  h.run_default.push_back({"ascendc", &run_ascendc_examples});
});

}  // namespace
