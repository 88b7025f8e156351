// The nine products of spec 40 §5 as one data table. Cells the spec marks * are tilesim
// assumptions (see docs/ascendc.md); SetSaturation overrides half_saturation at run time.
#include "tilesim/ascendc/engine.hpp"
#include "tilesim/profile.hpp"

namespace tilesim::ascendc {
namespace {

constexpr uint32_t KB = 1024;
using M = MaskedBlock;

// name, title, block_reduce, half, float, fully masked block, dstRepStride 0, half_saturation, UB
constexpr Product kProducts[] = {
    {"atlas_a2", "Atlas A2 training/inference", true, true, true, M::NotWritten, true, true,
     192 * KB},
    {"atlas_a3", "Atlas A3 training/inference", true, true, true, M::NotWritten, true, true,
     192 * KB},
    {"ascend950", "Ascend 950PR/950DT", true, true, true, M::Identity, true, true, 256 * KB},
    {"atlas_200i_500_a2", "Atlas 200I/500 A2 inference", true, true, true, M::Identity200I, true,
     true, 256 * KB},
    {"atlas_inference_aicore", "Atlas inference series, AI Core", true, true, true, M::NotWritten,
     true, true, 256 * KB},
    {"atlas_inference_vectorcore", "Atlas inference series, Vector Core", false, false, false,
     M::NotWritten, true, true, 256 * KB},
    {"atlas_training", "Atlas training series", true, true, false, M::NotWritten, false, true,
     256 * KB},
    {"kirin_x90", "Kirin X90", true, true, true, M::NotWritten, true, true, 256 * KB},
    {"kirin_9030", "Kirin 9030", true, true, true, M::NotWritten, true, true, 256 * KB},
};

}  // namespace

std::span<const Product> products() noexcept {
  return kProducts;
}
const Product& default_product() noexcept {
  return kProducts[0];
}
const Product& find_product(std::string_view name) {
  return find_profile<Product>(kProducts, "Ascend C product", name);
}

const char* name(Elem e) noexcept {
  return e == Elem::f16 ? "half" : "float";
}
const char* name(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::Sum:
      return "BlockReduceSum";
    case ReduceOp::Max:
      return "BlockReduceMax";
    case ReduceOp::Min:
      return "BlockReduceMin";
  }
  return "BlockReduce";
}

}  // namespace tilesim::ascendc
