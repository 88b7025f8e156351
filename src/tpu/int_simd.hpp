// Fast path of the BDC integer forms (spec 51 §3: tpu_bdc_int_add/sub, their _C forms and
// int_C_sub) in their common case: the sources (or C) and dst of one dtype and shift 0.
// Implemented in select_simd.cpp, the model's one Highway dispatch unit.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tilesim::tpu {

// d[i] = a[i] OP b[i] (OP add, or sub when `sub`), or with the constant code c in place of b
// (b == nullptr; c OP a when c_first), n elements of one integer dtype of e bytes (1, 2 or 4,
// `is_signed`), clamped to the dtype (saturate) or wrapped to its low bits: the exact result of the
// generic path (bdc.cpp: in int64, round_shift by 0, then ops::cast), bit for bit. `rows` rows of n
// elements, row r of each operand at its pointer + r * its stride in bytes (as, bs, ds), in order.
void int_addsub_same_dtype(bool sub, int e, bool is_signed, const uint8_t* a, size_t as, const uint8_t* b,
                           size_t bs, uint32_t c, bool c_first, uint8_t* d, size_t ds, size_t rows, size_t n,
                           bool saturate);

}  // namespace tilesim::tpu
