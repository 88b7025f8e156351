// "Rejected means untouched" for the five TPU-Kernel compare-selects (spec 50 §1–§4) through
// tilesim::tpu::Device: random chips, shapes (incl. 0, negative, 65536), dtypes (every data_type_t
// value and out-of-range ints), operand kinds (TENSOR, SCALAR, VECTOR, invalid var_type_t, NULL),
// start NPUs and in-NPU offsets (aligned, misaligned, near the end, overlapping). After each call
// either it raised tilesim::Error and not one byte of the whole local memory changed, or only the
// dst (dst0, dst1) elements of the 64-byte aligned layout changed, and the fast path wrote the same
// memory as the scalar reference. Compiled only once the tpu engine is in the tree.
#if __has_include("tilesim/tpu.hpp")
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "robust_util.hpp"
#include "tilesim/tpu.hpp"

namespace tp = tilesim::tpu;

namespace {

struct Gen {
  std::mt19937_64 g;
  explicit Gen(uint64_t s) : g(s) {}
  uint64_t u(uint64_t n) { return n ? g() % n : 0; }
  bool p(unsigned pc) { return u(100) < pc; }
};

const int kDtypes[] = {0, 1, 3, 5, 6, 7, 8, 9, 11, 12, 13, 15, 17, 19, 47};
const int kGood[] = {0, 1, 3, 5, 6, 7, 8, 9, 11};

int bytes_of(int dt) {
  switch (dt) {
    case 0:
    case 1:
    case 15:
    case 47:
      return 1;
    case 3:
    case 6:
    case 7:
    case 11:
      return 2;
    default:
      return 4;
  }
}

int pick_dtype(Gen& G) {
  if (G.p(75)) return kGood[G.u(9)];
  if (G.p(85)) return kDtypes[G.u(15)];
  return int(G.u(64)) - 8;  // outside the enum
}

int pick_dim(Gen& G, int typical) {
  if (G.p(94)) return 1 + int(G.u(uint64_t(typical)));
  static const int edge[] = {0, -1, 65535, 65536, 1 << 20, INT32_MIN};
  return edge[G.u(6)];
}

// Marks the bytes of an (n,c,h,w) tensor of `sz`-byte elements at addr, 64-byte aligned layout;
// NPU k's bytes start k * stride into the host buffer (Device::npu_stride, docs/tpu.md#host-layout).
void allow_tensor(robust::Allowed& a, const tp::ChipProfile& chip, size_t stride, uint32_t addr, const dim4& s,
                  int sz) {
  const uint64_t lms = chip.local_mem_size, npu = uint64_t(chip.npu_num);
  const uint64_t q = addr / lms, r = addr % lms;
  const uint64_t eu = uint64_t(chip.align_bytes) / uint64_t(sz);
  const uint64_t hw = uint64_t(s.h) * uint64_t(s.w);
  const uint64_t cs = (hw + eu - 1) / eu * eu;
  const uint64_t ns = (q + uint64_t(s.c) + npu - 1) / npu * cs;
  for (uint64_t n = 0; n < uint64_t(s.n); ++n)
    for (uint64_t c = 0; c < uint64_t(s.c); ++c) {
      const uint64_t lane = (q + c) % npu, slot = (q + c) / npu;
      const uint64_t off = r + (n * ns + slot * cs) * uint64_t(sz);
      a.allow(lane * stride + off, hw * uint64_t(sz));
    }
}

void run(tp::SelectOp op, uint64_t seed, int n) {
  Gen G(seed);
  const auto chips = tp::chips();
  robust::Tally tally;
  int per_chip = n / int(chips.size());
  for (const auto& chip : chips) {
    tp::Device dut(chip.name), ref(chip.name);
    ref.set_reference(true);
    auto mem = dut.memory();
    for (size_t i = 0; i + 8 <= mem.size(); i += 8) {
      const uint64_t v = G.g();
      std::memcpy(mem.data() + i, &v, 8);
    }
    std::memcpy(ref.memory().data(), mem.data(), mem.size());
    std::vector<uint8_t> before;
    robust::Allowed allowed(mem.size());
    const uint32_t lms = chip.local_mem_size;
    const uint32_t align = uint32_t(chip.align_bytes);
    const uint32_t total = lms * uint32_t(chip.npu_num);  // one past the last local address
    for (int k = 0; k < per_chip; ++k) {
      const bool ext = op == tp::SelectOp::MaximumGreater || op == tp::SelectOp::MinimumLess;
      const int da = pick_dtype(G);
      const int db = G.p(70) ? (ext ? da : (G.p(50) ? da : pick_dtype(G))) : pick_dtype(G);
      dim4 shape{pick_dim(G, 3), pick_dim(G, G.p(30) ? 130 : 8), pick_dim(G, 6), pick_dim(G, 40)};
      const uint32_t q = G.p(70) ? 0 : uint32_t(G.u(uint64_t(chip.npu_num)));
      auto addr = [&](bool tensor) -> uint32_t {
        const uint32_t nq = G.p(95) ? q : uint32_t(G.u(uint64_t(chip.npu_num)));
        uint32_t off;
        switch (G.u(10)) {
          case 0:
            off = lms - align * uint32_t(1 + G.u(8));
            break;  // near the end
          case 1:
            off = uint32_t(G.u(lms));
            break;  // misaligned
          case 2:
            off = tensor ? align * uint32_t(G.u(4)) : uint32_t(G.u(lms));
            break;  // overlap
          default:
            off = align * uint32_t(G.u(lms / align / 2));
        }
        if (G.p(1)) return total - 1 - uint32_t(G.u(64));  // the very end of local memory
        return nq * lms + off;
      };
      variable_t v[4];
      const variable_t* pv[4];
      for (int i = 0; i < 4; ++i) {
        const uint64_t kind = G.u(100);
        if (kind < 55)
          v[i] = tp::tensor(addr(true));
        else if (kind < 80)
          v[i] = tp::scalar_bits(uint32_t(G.g()));
        else if (kind < 97)
          v[i] = tp::vector(addr(false));
        else {
          v[i] = tp::tensor(addr(true));
          v[i].type =
              static_cast<var_type_t>(3);  // not one of the three (3 is in the enum's range)
        }
        pv[i] = G.p(1) ? nullptr : &v[i];
      }
      const uint32_t d0 = addr(true);
      const uint32_t d1 = G.p(10) ? d0 : addr(true);
      const dim4* ps = G.p(1) ? nullptr : &shape;
      before.assign(mem.begin(), mem.end());  // reuses the buffer: no 16 MB allocation per case
      bool threw = false, rthrew = false;
      std::string msg;
      try {
        dut.select_raw(op, d0, d1, pv[0], pv[1], pv[2], pv[3], ps, da, db);
      } catch (const tilesim::Error& e) {
        threw = true;
        msg = e.what();
      }
      try {
        ref.select_raw(op, d0, d1, pv[0], pv[1], pv[2], pv[3], ps, da, db);
      } catch (const tilesim::Error&) {
        rthrew = true;
      }
      ASSERT_EQ(threw, rthrew) << tp::instruction_name(op) << " " << chip.name << " case " << k
                               << ": " << msg;
      if (threw) {
        ++tally.rejected;
        const long at = robust::first_change(before, mem.data());
        ASSERT_EQ(at, -1) << tp::instruction_name(op) << " " << chip.name << " case " << k
                          << ": rejected call changed local memory byte " << at << ": " << msg;
        ASSERT_NE(msg.find("[docs/"), std::string::npos) << msg;
        continue;
      }
      ++tally.ok;
      ASSERT_EQ(std::memcmp(mem.data(), ref.memory().data(), mem.size()), 0)
          << tp::instruction_name(op) << " " << chip.name << " case " << k
          << ": fast path differs from reference";
      std::fill(allowed.may.begin(), allowed.may.end(), uint8_t{0});
      // select: dst in dst_dtype (dtype_b); extremum: dst0 in dtype_a, dst1 in dtype_b
      if (ext) {
        allow_tensor(allowed, chip, dut.npu_stride(), d0, shape, bytes_of(da));
        allow_tensor(allowed, chip, dut.npu_stride(), d1, shape, bytes_of(db));
      } else {
        allow_tensor(allowed, chip, dut.npu_stride(), d0, shape, bytes_of(db));
      }
      const long at = robust::first_forbidden_change(before, mem.data(), allowed);
      ASSERT_EQ(at, -1) << tp::instruction_name(op) << " " << chip.name << " case " << k
                        << ": accepted call changed local memory byte " << at
                        << " outside dst (spec 50 §1 layout)";
    }
  }
  tally.check(n, 50, 50);
}

TEST(TpuUntouched, GreaterSelect) {
  run(tp::SelectOp::Greater, 31, robust::cases(1200));
}
TEST(TpuUntouched, LessSelect) {
  run(tp::SelectOp::Less, 32, robust::cases(1200));
}
TEST(TpuUntouched, EqualSelect) {
  run(tp::SelectOp::Equal, 33, robust::cases(1200));
}
TEST(TpuUntouched, MaximumGreaterSelect) {
  run(tp::SelectOp::MaximumGreater, 34, robust::cases(1200));
}
TEST(TpuUntouched, MinimumLessSelect) {
  run(tp::SelectOp::MinimumLess, 35, robust::cases(1200));
}

}  // namespace
#endif
