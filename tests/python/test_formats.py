"""tilesim.formats (spec 60 §4) against NumPy references and the known answers of spec 10 §1."""
import numpy as np
import pytest

import tilesim
from tilesim import formats as F

RNG = np.random.default_rng(1234)


def random_f32(n):
    return RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)


def widen(x32):
    """float32 -> float64 without the signalling-NaN cast warning (values are exact)."""
    with np.errstate(invalid="ignore"):
        return x32.astype(np.float64)


def test_names_is_the_spec_60_vocabulary():
    assert F.names() == ["fp64", "fp32", "tf32", "hf32", "fp16", "bf16", "e4m3", "e5m2", "e3m2", "e2m3",
                         "e2m1", "e1m2", "e8m0", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
                         "s4", "u4"]


def test_fp16_encode_matches_numpy_astype():
    x = random_f32(200000)
    x = x[~np.isnan(x)]
    got = F.encode(x, "fp16")
    assert got.dtype == np.uint16
    with np.errstate(over="ignore"):  # NumPy warns on overflow to Inf; the result is what we compare
        np.testing.assert_array_equal(got, x.astype(np.float16).view(np.uint16))
        # float64 inputs: NumPy rounds double -> half directly (one rounding), as spec 10 §4.
        d = RNG.standard_normal(100000) * np.exp2(RNG.integers(-30, 20, 100000))
        np.testing.assert_array_equal(F.encode(d, "float16"), d.astype(np.float16).view(np.uint16))
    assert F.encode(np.array([np.nan, -np.nan]), "fp16").tolist() == [0x7E00, 0x7E00]


def bf16_reference(x32):
    """RNE to bf16 with integer ops on the fp32 bits; canonical NaN 0x7FC0."""
    b = x32.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x32), np.uint16(0x7FC0), r)


def test_bf16_encode_matches_integer_reference():
    x = random_f32(200000)
    np.testing.assert_array_equal(F.encode(x, "bf16"), bf16_reference(x))
    np.testing.assert_array_equal(F.encode(widen(x), "bfloat16"), bf16_reference(x))


def test_decode_all_16_bit_codes():
    codes = np.arange(65536, dtype=np.uint16)
    h = F.decode(codes, "fp16")
    assert h.dtype == np.float32 and h.shape == (65536,)
    ref = codes.view(np.float16).astype(np.float32)
    nan = np.isnan(ref)
    np.testing.assert_array_equal(h[~nan].view(np.uint32), ref[~nan].view(np.uint32))
    assert (h[nan].view(np.uint32) == 0x7FC00000).all()  # canonical NaN
    b = F.decode(codes, "bf16")
    ref = (codes.astype(np.uint32) << 16).view(np.float32)
    nan = np.isnan(ref)
    np.testing.assert_array_equal(b[~nan].view(np.uint32), ref[~nan].view(np.uint32))
    assert (b[nan].view(np.uint32) == 0x7FC00000).all()


# spec 10 §1 known answers, one row each: (format, code, value)
KNOWN = [
    ("e4m3", 0x7E, 448.0), ("e4m3", 0x08, 2.0**-6), ("e4m3", 0x01, 2.0**-9),
    ("e5m2", 0x7B, 57344.0), ("e5m2", 0x7C, np.inf), ("e3m2", 0x1F, 28.0), ("e2m3", 0x1F, 7.5),
    ("e2m1", 0x7, 6.0), ("e2m1", 0x1, 0.5), ("e1m2", 0x7, 1.75), ("e1m2", 0x4, 1.0), ("e1m2", 0x1, 0.25),
    ("e8m0", 0x7F, 1.0), ("e8m0", 0x00, 2.0**-127),
]


@pytest.mark.parametrize("fmt,code,value", KNOWN)
def test_known_answers(fmt, code, value):
    assert F.decode(np.array([code], np.uint8), fmt)[0] == np.float32(value)
    assert F.encode([value], fmt)[0] == code


def test_e4m3_nan_and_e8m0_nan():
    assert np.isnan(F.decode(np.array([0x7F, 0xFF], np.uint8), "e4m3")).all()
    assert np.isnan(F.decode(np.array([0xFF], np.uint8), "e8m0")).all()
    assert F.encode([np.nan], "e4m3")[0] == 0x7F
    assert F.encode([np.nan], "e3m2")[0] == 0  # no NaN code -> +0


def test_shapes_and_output_dtypes():
    x = RNG.standard_normal((2, 3, 4))
    for fmt, dt in [("fp64", np.uint64), ("fp32", np.uint32), ("tf32", np.uint32), ("fp16", np.uint16),
                    ("bf16", np.uint16), ("e4m3", np.uint8), ("e2m1", np.uint8), ("e8m0", np.uint8),
                    ("s8", np.uint8), ("s16", np.uint16), ("u32", np.uint32), ("s64", np.uint64), ("s4", np.uint8)]:
        c = F.encode(x, fmt)
        assert c.shape == x.shape and c.dtype == dt, fmt
        d = F.decode(c, fmt)
        assert d.shape == x.shape
        assert d.dtype == (np.float64 if fmt == "fp64" else np.float32)
    np.testing.assert_array_equal(F.decode(F.encode(x, "fp64"), "fp64"), x)
    assert F.encode(3.0, "fp16").shape == ()


def test_rounding_modes_and_saturation():
    v = np.array([2.5, -2.5, 2.1, -2.1])
    assert F.encode(v, "s8", "rne").view(np.int8).tolist() == [2, -2, 2, -2]
    assert F.encode(v, "s8", "rna").view(np.int8).tolist() == [3, -3, 2, -2]
    assert F.encode(v, "s8", "rtz").view(np.int8).tolist() == [2, -2, 2, -2]
    assert F.encode(v, "s8", "rdn").view(np.int8).tolist() == [2, -3, 2, -3]
    assert F.encode(v, "s8", rounding="RUP").view(np.int8).tolist() == [3, -2, 3, -2]
    assert F.encode([1e6, -1e6], "fp16").tolist() == [0x7C00, 0xFC00]
    assert F.encode([1e6, -1e6], "fp16", "rtz").tolist() == [0x7BFF, 0xFBFF]
    assert F.encode([1e6, -np.inf], "fp16", saturate=True).tolist() == [0x7BFF, 0xFBFF]
    assert F.encode([500.0, -500.0], "e4m3").tolist() == [0x7F, 0xFF]
    assert F.encode([500.0, -500.0], "e4m3", saturate=True).tolist() == [0x7E, 0xFE]
    assert F.encode([300.0, -1.0, np.nan], "u8").tolist() == [255, 0, 0]


def fp16_reference(d, mode):
    """fp16 codes of float64 d (|d| <= 65504) in rhu/rhd/rto, from NumPy's own float16 cast: t is d
    truncated toward zero, a the next fp16 away from zero; ties and oddness decided on them."""
    h = d.astype(np.float16)  # NumPy rounds to nearest even; step back when it went past d
    t = np.where(np.abs(h.astype(np.float64)) > np.abs(d), np.nextafter(h, np.float16(0)), h)
    away = np.where(np.signbit(d), np.float16(-np.inf), np.float16(np.inf)).astype(np.float16)
    a = np.nextafter(t, away)
    dt, da = np.abs(d - t.astype(np.float64)), np.abs(a.astype(np.float64) - d)
    exact = dt == 0
    if mode == "rhu":  # ties toward +Inf: away from zero for positive d
        pick_a = (da < dt) | ((da == dt) & (d > 0))
    elif mode == "rhd":
        pick_a = (da < dt) | ((da == dt) & (d < 0))
    else:  # rto: keep an odd truncation, else the odd neighbour away from zero
        pick_a = ~exact & ((t.view(np.uint16) & 1) == 0)
    return np.where(pick_a & ~exact, a, t).view(np.uint16)


@pytest.mark.parametrize("mode", ["rhu", "rhd", "rto"])
def test_new_modes_match_a_numpy_fp16_reference(mode):
    codes = RNG.integers(0, 0x7BFF, 100000).astype(np.uint16)  # finite, below max
    lo = codes.view(np.float16).astype(np.float64)
    hi = (codes + 1).view(np.float16).astype(np.float64)
    sign = np.where(RNG.integers(0, 2, codes.size) == 1, -1.0, 1.0)
    mid = sign * (lo / 2 + hi / 2)  # exact ties (in float32 too), then their neighbours
    d = np.concatenate([mid, np.nextafter(mid, -np.inf), np.nextafter(mid, np.inf),
                        RNG.standard_normal(100000) * np.exp2(RNG.integers(-30, 15, 100000))])
    d = d[np.abs(d) <= 65504]
    want = fp16_reference(d, mode)
    np.testing.assert_array_equal(F.encode(d, "fp16", mode), want)
    np.testing.assert_array_equal(F.encode(mid.astype(np.float32), "fp16", mode.upper()),
                                  fp16_reference(mid, mode))


def test_new_modes_rules():
    # spec 10 §4 / spec 15 §2: ties toward +Inf / -Inf, round to odd; integers round then saturate
    v = np.array([2.5, -2.5, 2.1, -2.1, 4.0, 126.5, 128.5, -0.3])
    assert F.encode(v, "s8", "rhu").view(np.int8).tolist() == [3, -2, 2, -2, 4, 127, 127, 0]
    assert F.encode(v, "s8", "rhd").view(np.int8).tolist() == [2, -3, 2, -2, 4, 126, 127, 0]
    assert F.encode(v, "s8", "rto").view(np.int8).tolist() == [3, -3, 3, -3, 4, 127, 127, -1]
    # overflow: rhu/rhd as rne (Inf), rto to max (e4m3's 0x7E | 1 would be its NaN code)
    assert F.encode([65520.0, -65520.0, 1e6], "fp16", "rhu").tolist() == [0x7C00, 0xFBFF, 0x7C00]
    assert F.encode([65520.0, -65520.0, -1e6], "fp16", "rhd").tolist() == [0x7BFF, 0xFC00, 0xFC00]
    assert F.encode([1e6, -1e6, np.inf], "fp16", "rto").tolist() == [0x7BFF, 0xFBFF, 0x7C00]
    assert F.encode([449.0, -1e9, 430.0, np.nan], "e4m3", "rto").tolist() == [0x7E, 0xFE, 0x7D, 0x7F]
    assert F.encode([1e9], "e4m3", "rhu", saturate=True).tolist() == [0x7E]
    assert F.encode([1e-45, -1e-45], "bf16", "rto").tolist() == [0x0001, 0x8001]  # below 2^-133
    # e8m0: rhu ties to the larger power, rhd to the smaller
    assert F.encode([1.5, 3.0, 1.6], "e8m0", "rhu").tolist() == [0x80, 0x81, 0x80]
    assert F.encode([1.5, 3.0, 1.6], "e8m0", "rhd").tolist() == [0x7F, 0x80, 0x80]


def test_integer_codes():
    assert F.encode([-1, -128, 127], "s8").tolist() == [255, 128, 127]
    assert F.decode(np.array([255, 128, 127], np.uint8), "s8").tolist() == [-1.0, -128.0, 127.0]
    # a signed array's codes are its two's complement bits
    assert F.decode(np.array([-1], np.int8), "s8").tolist() == [-1.0]
    assert F.decode(np.array([0xF], np.uint8), "s4").tolist() == [-1.0]
    assert F.encode([2.0**63], "s64").tolist() == [2**63 - 1]


def test_tf32_masks_on_decode_and_is_canonical_on_encode():
    assert F.decode(np.array([0x3F801FFF], np.uint32), "tf32")[0] == 1.0
    c = F.encode(widen(random_f32(10000)), "tf32")
    finite = (c & 0x7F800000) != 0x7F800000
    assert (c[finite] & 0x1FFF == 0).all()


def test_fp6_high_bits_ignored():
    assert F.decode(np.array([0xDF], np.uint8), "e3m2")[0] == 28.0


def test_pack_unpack_x2():
    codes = np.array([[1, 2, 3], [4, 5, 6]], np.uint8)
    p = F.pack_x2(codes)
    assert p.dtype == np.uint8 and p.tolist() == [[0x21, 0x03], [0x54, 0x06]]
    np.testing.assert_array_equal(F.unpack_x2(p, (2, 3)), codes)
    assert F.pack_x2([0xA, 0xB, 0xC]).tolist() == [0xBA, 0x0C]
    assert F.unpack_x2(np.array([0xBA, 0xFC], np.uint8), 3).tolist() == [0xA, 0xB, 0xC]
    assert F.pack_x2(np.array([-3, 7], np.int8)).tolist() == [0x7D]  # s4 two's complement nibbles
    assert F.unpack_x2(np.array([0xBA], np.uint8), np.int64(2)).tolist() == [0xA, 0xB]
    assert F.unpack_x2(np.array([[0x21], [0x43]], np.uint8), np.array([2, 2])).tolist() == [[1, 2], [3, 4]]
    big = RNG.integers(0, 16, (17, 33)).astype(np.uint8)
    np.testing.assert_array_equal(F.unpack_x2(F.pack_x2(big), big.shape), big)


def expect_error(code, needle, fn, *args, **kw):
    with pytest.raises(tilesim.Error) as e:
        fn(*args, **kw)
    assert e.value.code == code
    assert needle in str(e.value), str(e.value)


def test_errors():
    expect_error("Unsupported", "unknown dtype 'fp7'", F.encode, [1.0], "fp7")
    expect_error("Unsupported", "unknown dtype 'fp7'", F.decode, np.array([1], np.uint8), "fp7")
    expect_error("Unsupported", "unknown rounding mode 'up'; valid: rne, rna, rtz, rdn, rup, rhu, rhd, rto",
                 F.encode, [1.0], "fp16", "up")
    for values in ([1.0, 2.0], np.array([1.0], np.float32), []):  # spec 10 §4: rto into e8m0
        expect_error("Unsupported", "formats.encode: e8m0 takes every rounding mode but rto", F.encode,
                     values, "e8m0", "rto")
    expect_error("Unsupported", "docs/formats.md#rounding-modes", F.encode, [1.0], "e8m0", rounding="RTO")
    expect_error("Constraint", "codes must be an integer array", F.decode, np.array([1.5]), "fp16")
    expect_error("Constraint", "code 300 at index 1 does not fit 8 bits", F.decode, np.array([1, 300]), "e4m3")
    expect_error("Constraint", "does not fit 4 bits", F.decode, np.array([16]), "e2m1")
    # s4 values in their int8 carrier (spec 60 §2) decode as themselves; -9 fits no 4-bit code
    assert F.decode(np.array([-8, -1, 0, 7], np.int8), "s4").tolist() == [-8.0, -1.0, 0.0, 7.0]
    assert F.decode(np.array([-1], np.int64), "int4").tolist() == [-1.0]
    expect_error("Constraint", "code 247 at index 0 does not fit 4 bits", F.decode, np.array([-9], np.int8), "s4")
    expect_error("Constraint", "values must be a real numeric array", F.encode, np.array(["a"]), "fp16")
    expect_error("Constraint", "1-D or 2-D", F.pack_x2, np.zeros((2, 2, 2), np.uint8))
    expect_error("Constraint", "code 16 at index 0 is not a 4-bit code", F.pack_x2, [16])
    expect_error("Constraint", "packed has 2 bytes", F.unpack_x2, np.zeros(2, np.uint8), (2, 3))
    expect_error("Constraint", "uint8 array", F.unpack_x2, np.zeros(2, np.uint16), 4)
    expect_error("Constraint", "count_or_shape", F.unpack_x2, np.zeros(2, np.uint8), "x")
    expect_error("Constraint", "count_or_shape", F.unpack_x2, np.zeros(2, np.uint8), (1, 2, 3))
    expect_error("Constraint", "count_or_shape", F.unpack_x2, np.zeros(2, np.uint8), -1)


def test_big_endian_and_strided_codes():
    codes = np.array([0x3C00, 0xC000], dtype=">u2")
    assert F.decode(codes, "fp16").tolist() == [1.0, -2.0]
    strided = np.arange(10, dtype=np.uint8)[::3]
    assert F.decode(strided, "u8").tolist() == [0.0, 3.0, 6.0, 9.0]
    assert F.encode(np.array([1.0, -2.0], dtype=">f4"), "fp16").tolist() == [0x3C00, 0xC000]


def test_large_arrays_are_vectorised():
    import time
    x = random_f32(1 << 20)
    t = time.perf_counter()
    c = F.encode(x, "bf16")
    F.decode(c, "bf16")
    F.encode(x, "e4m3")
    assert time.perf_counter() - t < 5.0  # a Python loop would take minutes
