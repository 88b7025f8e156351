"""Number formats (spec 10): decode/encode codes, pack 4-bit pairs.

    names() -> list[str]                       canonical dtype names (spec 60 §2)
    decode(codes, fmt) -> np.ndarray           float32 values (float64 for fp64), same shape
    encode(values, fmt, rounding='rne', saturate=False) -> np.ndarray
        codes in the smallest unsigned dtype holding them: uint8 (<= 8-bit and 4-bit formats,
        one code per element), uint16, uint32, uint64; integer formats give the two's-complement
        code as the unsigned integer of their width (s8 -1 -> uint8 255); rounding is one of
        rne rna rtz rdn rup rhu rhd rto (spec 10 §4; rto is not defined for e8m0)
    pack_x2(codes) -> np.ndarray[uint8]        1-D: pairs; 2-D: per row, rows padded to whole bytes
    unpack_x2(packed, count_or_shape) -> np.ndarray[uint8]

Every conversion runs in C++ over the whole array; rejections raise tilesim.Error with .code.
"""
from ._load import export as _export

_export(globals(), "formats")
