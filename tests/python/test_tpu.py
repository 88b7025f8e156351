"""tilesim.tpu (spec 60 §4): array-level functions and Device, checked against values computed
by hand and against NumPy's np.where (an independent implementation of the same formula)."""
import numpy as np
import pytest

import tilesim
from tilesim import tpu


def _f32_bits(values):
    return np.array(values, dtype=np.float32).view(np.uint32)


def test_greater_select_matches_numpy_where():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 70, 3, 5)).astype(np.float32)
    b = rng.standard_normal((2, 70, 3, 5)).astype(np.float32)
    c = rng.standard_normal((2, 70, 3, 5)).astype(np.float32)
    d = rng.standard_normal((2, 70, 3, 5)).astype(np.float32)
    a[0, 0, 0, :3] = [np.nan, -0.0, 1.0]
    b[0, 0, 0, :3] = [0.0, 0.0, 1.0]
    for fn, op in ((tpu.greater_select, np.greater), (tpu.less_select, np.less),
                   (tpu.equal_select, np.equal)):
        out = fn(a, b, c, d)
        assert out.dtype == np.float32 and out.shape == a.shape
        np.testing.assert_array_equal(out.view(np.uint32), np.where(op(a, b), c, d).view(np.uint32))


def test_scalar_and_vector_operands():
    x = np.arange(-4, 4, dtype=np.int8).reshape(1, 2, 1, 4)
    # hardtanh-like clamp at 0 with a SCALAR, int8 compare selecting int32 values
    out = tpu.greater_select(x, np.int8(0), np.int32(7), np.int32(-7), shape=None)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.reshape(-1), [-7, -7, -7, -7, -7, 7, 7, 7])
    # VECTOR: channel c reads value c
    vec = tpu.vector(np.array([1, -3], dtype=np.int8))
    out = tpu.less_select(x, vec, vec, x)
    # channel 0 values -4..-1 < 1 -> 1; channel 1 values 0..3 < -3 never -> x
    np.testing.assert_array_equal(out.reshape(-1), [1, 1, 1, 1, 0, 1, 2, 3])


def test_vector_by_npu_on_bm1688():
    c = 40
    x = np.zeros((1, c, 1, 1), dtype=np.float32)
    vec = tpu.vector(np.arange(32, dtype=np.float32) + 1)  # only c mod 32 is read
    out = tpu.greater_select(vec, x, vec, np.float32(-1), chip="bm1688")
    np.testing.assert_array_equal(out.reshape(-1), [(k % 32) + 1 for k in range(c)])


def test_extremum_values_and_indices_ties():
    a = np.array([3, 5, 5, 0, np.nan], dtype=np.float32).reshape(1, 1, 1, 5)
    b = np.array([4, 5, 2, -0.0, 1], dtype=np.float32).reshape(1, 1, 1, 5)
    # values compared as bits: assert_array_equal takes -0 == 0, the ties must give src1's -0
    v, i = tpu.maximum_greater_select(a, b, np.int32(0), np.int32(1))
    np.testing.assert_array_equal(v.reshape(-1).view(np.uint32), _f32_bits([4, 5, 5, -0.0, 1]))
    np.testing.assert_array_equal(i.reshape(-1), [1, 1, 0, 1, 1])
    v, i = tpu.minimum_less_select(a, b, np.int32(0), np.int32(1), src_dtype="fp32",
                                   dst_dtype="s32")
    np.testing.assert_array_equal(v.reshape(-1).view(np.uint32), _f32_bits([3, 5, 2, -0.0, 1]))
    np.testing.assert_array_equal(i.reshape(-1), [0, 1, 1, 1, 1])


def test_bit_carried_dtypes():
    # bf16 codes: 0x3F80 = 1.0, 0x4000 = 2.0, 0x7FC1 NaN; fp8 e4m3 on bm1690 only
    a = np.array([0x3F80, 0x4000, 0x7FC1], dtype=np.uint16).reshape(1, 1, 1, 3)
    out = tpu.greater_select(a, np.uint16(0x3F80), np.uint16(1), np.uint16(0),
                             src_dtype="bf16", dst_dtype="u16")
    np.testing.assert_array_equal(out.reshape(-1), [0, 1, 0])
    # every alias of a bit-carried dtype takes a NumPy unsigned SCALAR as its code (spec 60 §2, §4)
    for alias in ("bfloat16_t", "BF16", "dt_bfp16"):
        out = tpu.greater_select(a, np.uint16(0x3F80), np.uint16(1), np.uint16(0),
                                 src_dtype=alias, dst_dtype="u16")
        np.testing.assert_array_equal(out.reshape(-1), [0, 1, 0], err_msg=alias)
    # a float scalar for a bit-carried dtype is encoded exactly (1.5 in bf16 = 0x3FC0)
    out = tpu.less_select(a, 1.5, np.uint16(1), np.uint16(0), src_dtype="bfloat16",
                          dst_dtype="u16")
    np.testing.assert_array_equal(out.reshape(-1), [1, 0, 0])
    e = np.array([0x7E, 0x7F, 0x80], dtype=np.uint8).reshape(1, 1, 1, 3)
    out = tpu.equal_select(e, np.uint8(0x00), np.uint8(9), np.uint8(8), src_dtype="e4m3",
                           dst_dtype="u8", chip="bm1690")
    np.testing.assert_array_equal(out.reshape(-1), [8, 8, 9])
    out = tpu.equal_select(e, np.uint8(0x7E), np.uint8(9), np.uint8(8), src_dtype="e4m3fn",
                           dst_dtype="u8", chip="bm1690")
    np.testing.assert_array_equal(out.reshape(-1), [9, 8, 8])
    with pytest.raises(tilesim.Error) as ei:
        tpu.equal_select(e, np.uint8(0), np.uint8(9), np.uint8(8), src_dtype="e4m3",
                         dst_dtype="u8")
    assert ei.value.code == "Unsupported" and "bm1684x" in str(ei.value)


def test_errors():
    x = np.zeros((1, 1, 1, 4), dtype=np.float32)
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(x, x, np.zeros((1, 1, 1, 4), np.float16), x)
    assert "disagree on dst_dtype" in str(ei.value)
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(1.0, 2.0, 3.0, 4.0, shape=(1, 1, 1, 1))
    assert "cannot infer src_dtype" in str(ei.value)
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(np.float32(1), np.float32(2), np.float32(3), np.float32(4))
    assert "shape=(n, c, h, w) is required" in str(ei.value)
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(x, x, x, x, dst_dtype="fp16")
    assert "src2 is float32; dtype fp16 needs float16" in str(ei.value)
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(x, x, 0.1, x, src_dtype="fp32", dst_dtype="fp32")
    assert "scalar 0.1 is not exactly representable in DT_FP32" in str(ei.value)
    i8 = np.zeros((1, 1, 1, 4), np.int8)
    with pytest.raises(tilesim.Error) as ei:
        tpu.less_select(x, x, i8, i8, src_dtype="fp32", dst_dtype="s8")
    assert "bit width of src0_src1_dtype (32" in str(ei.value) and "[docs/tpu.md#checks]" in str(ei.value)
    big = np.zeros((1, 64, 256, 128), np.float32)
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(big, big, big, big)
    assert ei.value.code == "Bounds" and "LOCAL_MEM_SIZE" in str(ei.value)
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(x, tpu.vector([]), x, x, src_dtype="fp32")
    assert "needs at least min(C, NPU_NUM) = 1" in str(ei.value)


def test_scalar_exactness():
    x = np.zeros((1, 1, 1, 2), dtype=np.float16)
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(x, 0.1, x, x)
    assert "scalar 0.1 is not exactly representable in DT_FP16" in str(ei.value)
    with pytest.raises(tilesim.Error):
        tpu.greater_select(np.zeros((1, 1, 1, 2), np.int8), 300, np.int8(0), np.int8(1))


def test_device_address_level():
    d = tpu.Device("bm1684x")
    assert (d.npu_num, d.local_mem_size, d.align_bytes) == (64, 256 * 1024, 64)
    x = np.arange(2 * 3 * 5, dtype=np.float32).reshape(1, 2, 3, 5) - 10
    q = 5 * d.local_mem_size
    d.s2l(q, x, "fp32")
    # channel 1 lives on NPU 6 at the same offset (spec 50 §1)
    mem = d.memory()
    np.testing.assert_array_equal(mem[6 * d.local_mem_size:6 * d.local_mem_size + 60].view(np.float32),
                                  x[0, 1].reshape(-1))
    d.greater_select(q + 1024, tpu.tensor(q), tpu.scalar(0.0), tpu.tensor(q), tpu.scalar(0.0),
                     (1, 2, 3, 5), "fp32", "fp32")
    np.testing.assert_array_equal(d.l2s(q + 1024, (1, 2, 3, 5), "fp32"), np.maximum(x, 0))
    # maximum_greater with a VECTOR of indices at an element-aligned address
    d.s2l(q + 2048 + 4, np.array([7, 8], dtype=np.int32).reshape(1, 2, 1, 1), "s32")
    d.maximum_greater_select(q + 4096, q + 8192, tpu.tensor(q), tpu.scalar(-1.0),
                             tpu.vector_at(q + 2048 + 4), tpu.scalar(-1), (1, 2, 3, 5), "fp32", "s32")
    idx = d.l2s(q + 8192, (1, 2, 3, 5), "s32")
    np.testing.assert_array_equal(idx, np.where(x > -1, np.array([7, 8]).reshape(1, 2, 1, 1), -1))
    before = mem.copy()
    with pytest.raises(tilesim.Error) as ei:
        d.greater_select(q + 32, tpu.tensor(q), tpu.tensor(q), tpu.tensor(q), tpu.tensor(q),
                         (1, 2, 3, 5), "fp32", "fp32")
    assert "must be a multiple of ALIGN_BYTES 64" in str(ei.value) and ei.value.code == "Constraint"
    with pytest.raises(tilesim.Error) as ei:
        d.less_select(q, tpu.tensor(0), tpu.tensor(q), tpu.tensor(q), tpu.tensor(q),
                      (1, 2, 3, 5), "fp32", "fp32")
    assert "starts on NPU 0, dst on NPU 5" in str(ei.value)
    np.testing.assert_array_equal(before, d.memory())


def test_device_strided_s2l():
    d = tpu.Device("bm1688")
    x = np.arange(12, dtype=np.int16).reshape(1, 1, 3, 4)
    d.s2l(0, x, "s16", stride=(12, 12, 4, 1))
    np.testing.assert_array_equal(d.l2s(0, (1, 1, 3, 4), "s16", stride=(12, 12, 4, 1)), x)
    np.testing.assert_array_equal(d.memory()[:24].view(np.int16), x.reshape(-1))
    with pytest.raises(tilesim.Error) as ei:
        d.s2l(d.local_mem_size - 8, x, "s16")
    assert ei.value.code == "Bounds"


def test_threads_do_not_change_bits():
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 3, (2, 130, 16, 16)).astype(np.float16)
    b = rng.integers(-3, 3, (2, 130, 16, 16)).astype(np.float16)
    c = rng.integers(0, 1 << 16, (2, 130, 16, 16)).astype(np.uint16)
    outs = []
    for t in (1, 2, 3):
        tilesim.set_num_threads(t)
        outs.append(tpu.maximum_greater_select(a, b, c, np.uint16(5), dst1_dtype="u16"))
    tilesim.set_num_threads(0)
    for v, i in outs[1:]:
        np.testing.assert_array_equal(v.view(np.uint16), outs[0][0].view(np.uint16))
        np.testing.assert_array_equal(i, outs[0][1])
    np.testing.assert_array_equal(outs[0][1], np.where(a > b, c, 5))


def test_vector_from_list():
    x = np.array([0.5, 2.5], dtype=np.float32).reshape(1, 2, 1, 1)
    out = tpu.greater_select(x, tpu.vector([1, 2]), x, tpu.vector([-1.5, -2.5]))
    np.testing.assert_array_equal(out.reshape(-1), [-1.5, 2.5])
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(x, tpu.vector([0.1, 2]), x, x)
    assert "not exactly representable" in str(ei.value)


def test_huge_shape_is_an_error_not_an_allocation():
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(np.float32(1), np.float32(2), np.float32(3), np.float32(4),
                           shape=(65535, 65535, 65535, 65535))
    assert ei.value.code == "Bounds"
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(np.float32(1), np.float32(2), np.float32(3), np.float32(4),
                           shape=(1, 0, 1, 1))
    assert "shape->c must be in [1, 65535], got 0" in str(ei.value)


def test_vector_list_takes_the_operands_dtype():
    # bf16: the list holds values, encoded like a SCALAR (1.0 -> 0x3F80), not raw codes
    x = np.array([0x3F80, 0x4000], dtype=np.uint16).reshape(1, 2, 1, 1)
    by_vector = tpu.greater_select(x, tpu.vector([1.0, 1.0]), np.uint16(1), np.uint16(0),
                                   src_dtype="bf16", dst_dtype="u16")
    by_scalar = tpu.greater_select(x, 1.0, np.uint16(1), np.uint16(0), src_dtype="bf16",
                                   dst_dtype="u16")
    np.testing.assert_array_equal(by_vector.reshape(-1), [0, 1])
    np.testing.assert_array_equal(by_vector, by_scalar)
    # as selected values: bf16 codes of 1.5 and -2 (0x3FC0, 0xC000), and e4m3 on bm1690
    out = tpu.less_select(x, tpu.vector([2.0, 2.0]), tpu.vector([1.5, -2]), np.uint16(7),
                          src_dtype="bf16", dst_dtype="bf16")
    np.testing.assert_array_equal(out.reshape(-1), [0x3FC0, 7])
    e = np.array([0x38], dtype=np.uint8).reshape(1, 1, 1, 1)  # e4m3 1.0
    out = tpu.equal_select(e, tpu.vector([1.0]), np.uint8(9), np.uint8(8), src_dtype="e4m3",
                           dst_dtype="u8", chip="bm1690")
    np.testing.assert_array_equal(out.reshape(-1), [9])
    # a value the format cannot hold exactly is an error naming the operand, element and dtype
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(x, tpu.vector([1.0, 1.001]), np.uint16(1), np.uint16(0),
                           src_dtype="bf16", dst_dtype="u16")
    msg = str(ei.value)
    assert ei.value.code == "Constraint" and msg.startswith("tilesim.tpu.greater_select: ")
    assert "src1 vector value 1.001 (element 1) is not exactly representable in DT_BFP16" in msg
    with pytest.raises(tilesim.Error) as ei:
        tpu.greater_select(x, tpu.vector([1.0, "a"]), np.uint16(1), np.uint16(0),
                           src_dtype="bf16", dst_dtype="u16")
    assert "src1 vector value 'a' (element 1) is not a number" in str(ei.value)


def test_nan_scalars_keep_their_bits():
    # selects move bits (spec 00 Numerics): a NumPy float of the operand's format is its code
    x = np.zeros((1, 1, 1, 1), np.float16)
    nan16 = np.array([0x7D01], np.uint16).view(np.float16)[0]  # signalling payload
    out = tpu.greater_select(x, x, x, nan16)
    assert out.view(np.uint16).reshape(-1)[0] == 0x7D01
    neg = np.array([0xFE01], np.uint16).view(np.float16)[0]
    out = tpu.greater_select(x, x, x, tpu.vector([neg]))
    assert out.view(np.uint16).reshape(-1)[0] == 0xFE01
    y = np.zeros((1, 1, 1, 1), np.float32)
    nan32 = np.array([0xFFA00001], np.uint32).view(np.float32)[0]
    out = tpu.less_select(y, y, y, nan32)
    assert out.view(np.uint32).reshape(-1)[0] == 0xFFA00001
    # a bits value of a bit-carried dtype is kept too
    out = tpu.equal_select(np.zeros((1, 1, 1, 1), np.uint16), np.uint16(0), np.uint16(0x7FC1),
                           np.uint16(0), src_dtype="bf16", dst_dtype="bf16")
    assert out.reshape(-1)[0] == 0x7FC1
    # a NaN of another format has no exact image: the canonical NaN with its sign
    out = tpu.greater_select(x, x, x, float("nan"))
    assert out.view(np.uint16).reshape(-1)[0] == 0x7E00
    out = tpu.greater_select(x, x, x, -float("nan"))
    assert out.view(np.uint16).reshape(-1)[0] == 0xFE00
    # the address-level SCALAR keeps bits the same way
    d = tpu.Device()
    d.greater_select(0, tpu.scalar(np.float16(0)), tpu.scalar(np.float16(0)),
                     tpu.scalar(np.float16(0)), tpu.scalar(nan16), (1, 1, 1, 1), "fp16", "fp16")
    assert d.l2s(0, (1, 1, 1, 1), "fp16").view(np.uint16).reshape(-1)[0] == 0x7D01


def test_out_of_range_integers_are_tilesim_errors():
    # every rejection is a tilesim.Error naming the function, operand, value and rule (spec 60 §4)
    d = tpu.Device()
    t = tpu.tensor(0)
    shp = (1, 1, 1, 1)
    cases = [
        (lambda: d.greater_select(-64, t, t, t, t, shp, "fp32", "fp32"), "Bounds",
         ["tilesim.tpu.Device.greater_select: dst address -64 is outside local memory",
          "[docs/tpu.md#checks]"]),
        (lambda: d.greater_select(1 << 32, t, t, t, t, shp, "fp32", "fp32"), "Bounds",
         ["dst address 4294967296 is outside local memory (NPU_NUM 64 x LOCAL_MEM_SIZE 262144"]),
        (lambda: d.maximum_greater_select(0, -1, t, t, t, t, shp, "fp32", "s32"), "Bounds",
         ["tilesim.tpu.Device.maximum_greater_select: dst1 address -1 is outside"]),
        (lambda: d.less_select(0, t, tpu.vector_at(1 << 40), t, t, shp, "fp32", "fp32"),
         "Bounds", ["src1 (VECTOR) address 1099511627776 is outside local memory"]),
        (lambda: d.s2l(-4, np.zeros(4, np.float32), "fp32"), "Bounds",
         ["tilesim.tpu.Device.s2l: dst address -4 is outside local memory"]),
        (lambda: d.l2s(1 << 33, shp, "fp32"), "Bounds",
         ["tilesim.tpu.Device.l2s: src address 8589934592 is outside"]),
        (lambda: d.greater_select(0, t, t, t, t, (1, 2**31, 1, 1), "fp32", "fp32"), "Constraint",
         ["tilesim.tpu.Device.greater_select: shape->c must be in [1, 65535], got 2147483648",
          "[docs/tpu.md#checks]"]),
        (lambda: d.l2s(0, (1, 1, -2**40, 1), "fp32"), "Constraint",
         ["tilesim.tpu.Device.l2s: shape->h must be in [1, 65535], got -1099511627776"]),
        (lambda: d.s2l(0, np.zeros(4, np.float32), "fp32", stride=(2**31, 1, 1, 1)), "Constraint",
         ["tilesim.tpu.Device.s2l: stride->n must be a non-negative int", "got 2147483648",
          "[docs/tpu.md#python]"]),
        (lambda: tpu.greater_select(np.float32(1), np.float32(1), np.float32(1), np.float32(1),
                                    shape=(1, 2**31, 1, 1)), "Constraint",
         ["tilesim.tpu.greater_select: shape->c must be in [1, 65535], got 2147483648"]),
        (lambda: tpu.greater_select(np.float32(1), np.float32(1), np.float32(1), np.float32(1),
                                    shape=(1, 1.5, 1, 1)), "Constraint",
         ["shape->c must be an integer, got 1.5"]),
        (lambda: tpu.greater_select(np.float32(1), np.float32(1), np.float32(1), np.float32(1),
                                    shape=(1, 1, 1)), "Constraint",
         ["shape must have 4 entries (n, c, h, w)"]),
        (lambda: tpu.tensor("x"), "Constraint", ["tilesim.tpu.tensor: addr must be an integer"]),
        (lambda: tpu.greater_select(np.zeros((1, 1, 1, 1), np.int32), 10**400, np.int32(0),
                                    np.int32(1)), "Constraint",
         ["src1 scalar 1000", "is not exactly representable in s32"]),
    ]
    before = d.memory().copy()
    for fn, code, needles in cases:
        with pytest.raises(tilesim.Error) as ei:
            fn()
        for n in needles:
            assert n in str(ei.value), str(ei.value)
        assert ei.value.code == code, str(ei.value)
    np.testing.assert_array_equal(before, d.memory())
