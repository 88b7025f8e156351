// The integer forms' right shift (spec 51 §3: tpu_bdc_int_add/sub/mul and their _C forms take
// `shift`, `rounding_mode` and `saturation`): the exact result x (int64) divided by 2^shift and
// rounded in rounding_mode_t; the caller then saturates or wraps it into dst (ops::cast). This is
// the one definition of that rounding.
#pragma once
#include <cstdint>

namespace tilesim::tpu {

inline int64_t round_shift(int64_t x, int shift, int rm) {
  if (shift <= 0) return x;
  const int64_t q = x >> shift;  // floor (arithmetic shift, C++20)
  const uint64_t rem = static_cast<uint64_t>(x) & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  switch (rm) {
    case 0:  // RM_HALF_TO_EVEN
      return rem > half || (rem == half && (q & 1)) ? q + 1 : q;
    case 1:  // RM_HALF_AWAY_FROM_ZERO
      return rem > half || (rem == half && x >= 0) ? q + 1 : q;
    case 2:  // RM_TOWARDS_ZERO
      return x < 0 && rem ? q + 1 : q;
    case 3:  // RM_DOWN
      return q;
    case 4:  // RM_UP
      return rem ? q + 1 : q;
    case 5:  // RM_HALF_UP (ties toward +Inf)
      return rem >= half ? q + 1 : q;
    default:  // RM_HALF_DOWN (ties toward -Inf)
      return rem > half ? q + 1 : q;
  }
}

}  // namespace tilesim::tpu
