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
    mem = d.memory()  # (NPU_NUM, LOCAL_MEM_SIZE): row k is NPU k (docs/tpu.md#host-layout)
    np.testing.assert_array_equal(mem[6, :60].view(np.float32), x[0, 1].reshape(-1))
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
    assert "src0 (TENSOR) starts on NPU 0 but dst on NPU 5" in str(ei.value)
    np.testing.assert_array_equal(before, d.memory())


def test_device_memory_every_npu():
    """memory() is an (NPU_NUM, LOCAL_MEM_SIZE) view whatever the host layout (NPUs npu_stride apart,
    docs/tpu.md#host-layout): each NPU's row is what the kernel reads and writes at local address
    k * LOCAL_MEM_SIZE + r, on every chip."""
    for chip in tpu.chips():
        d = tpu.Device(chip)
        npu, lms = d.npu_num, d.local_mem_size
        assert d.npu_stride > lms and d.npu_stride % 64 == 0
        mem = d.memory()
        assert mem.shape == (npu, lms) and mem.dtype == np.uint8
        # host writes on every NPU, read by L2S: channel k of a [1, npu, 1, 1] tensor is on NPU k
        first = np.arange(npu, dtype=np.int32) + 1000
        last = -np.arange(npu, dtype=np.int32) - 1000
        mem[:, :4] = first.view(np.uint8).reshape(npu, 4)
        mem[:, lms - 4:] = last.view(np.uint8).reshape(npu, 4)
        np.testing.assert_array_equal(d.l2s(0, (1, npu, 1, 1), "s32").reshape(-1), first)
        np.testing.assert_array_equal(d.l2s(lms - 4, (1, npu, 1, 1), "s32").reshape(-1), last)
        # S2L of every byte of every NPU lands in its row; a BDC copy moves it inside each row
        per = lms // 4
        x = np.arange(npu * per, dtype=np.int32).reshape(1, npu, per // 64, 64)
        d.s2l(0, x, "s32")
        np.testing.assert_array_equal(d.memory().view(np.int32), x.reshape(npu, per))
        half = (1, npu, per // 128, 64)
        d.cpy(lms // 2, 0, half, "s32")
        got = d.memory().view(np.int32)
        np.testing.assert_array_equal(got[:, per // 2:], got[:, :per // 2])


def test_device_strided_s2l():
    d = tpu.Device("bm1688")
    x = np.arange(12, dtype=np.int16).reshape(1, 1, 3, 4)
    d.s2l(0, x, "s16", stride=(12, 12, 4, 1))
    np.testing.assert_array_equal(d.l2s(0, (1, 1, 3, 4), "s16", stride=(12, 12, 4, 1)), x)
    np.testing.assert_array_equal(d.memory()[0, :24].view(np.int16), x.reshape(-1))
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


# ---- TPU kernels from Python (spec 60 §4, spec 51): global memory, GDMA and the BDC closure ----
# Every function of the engine's table is a Device method with the vendor prototype's parameters
# in order (strides as keywords). Results are checked against hand-computed values (the C++
# known-answer tests' values, for parity) and against NumPy / PyTorch computing the same formula.

import torch  # noqa: E402

SHAPE = (2, 70, 3, 5)  # C > NPU_NUM: channels wrap onto slot 1 (docs/tpu.md#layout)
A0, A1, AD = 0, 0x4000, 0x8000  # in-NPU offsets of src0, src1, dst on NPU 0

_BF16 = {"bf16"}


def _carrier(dtype):
    return {"fp32": np.float32, "fp16": np.float16, "bf16": np.uint16, "s8": np.int8,
            "u8": np.uint8, "s16": np.int16, "u16": np.uint16, "s32": np.int32,
            "u32": np.uint32}[dtype]


def _bits(x):
    x = np.asarray(x)
    return x.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[x.dtype.itemsize])


def _put(d, addr, x, dtype):
    d.s2l(addr, x, dtype)


def _get(d, addr, dtype, shape=SHAPE):
    return d.l2s(addr, shape, dtype)


def _rand_float(rng, dtype, shape=SHAPE):
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    x.reshape(-1)[:4] = [0.0, -0.0, 1.0, -3.5]
    if dtype == "fp32":
        return x
    if dtype == "fp16":
        return x.astype(np.float16)
    return _to_bf16(torch.from_numpy(x))


def _to_bf16(t):
    return t.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)


def _torch(x, dtype):
    if dtype == "bf16":
        return torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(x))


def _from_torch(t, dtype):
    if dtype == "bf16":
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


_CANON = {"fp32": 0x7FC00000, "fp16": 0x7E00, "bf16": 0x7FC0}


def _assert_float_bits(got, want, dtype, what):
    """Bit for bit, except where torch's result is a NaN: there tilesim writes the canonical NaN
    (docs/tpu.md#nan-and-torch-spec-51-4)."""
    g, w = _bits(got).reshape(-1), _bits(want).reshape(-1)
    wt = _torch(np.asarray(want), dtype).float().numpy().reshape(-1)
    nan = np.isnan(wt)
    np.testing.assert_array_equal(g[nan], np.full(nan.sum(), _CANON[dtype], g.dtype), err_msg=what)
    np.testing.assert_array_equal(g[~nan], w[~nan], err_msg=what)


def test_device_chip_table_and_function_list():
    d = tpu.Device("bm1688")
    assert (d.npu_num, d.local_mem_size, d.align_bytes, d.bank_num, d.core_num) == (32, 128 * 1024, 16, 16, 2)
    assert tpu.Device("bm1690").core_num == 8
    assert len(tpu.BDC_FUNCTIONS) == 48
    for name in ("fp_add", "fp_C_div", "int_C_sub", "less_equal_C", "xor_C", "fp_exp", "npu_bcast",
                 "cast", "set_C", "cpy", "relu"):
        assert name in tpu.BDC_FUNCTIONS and callable(getattr(d, name))
    import inspect
    assert str(inspect.signature(tpu.Device.fp_add)) == (
        "(self, dst_addr, src0_addr, src1_addr, shape, dtype, *, dst_stride=None, src0_stride=None, "
        "src1_stride=None)")
    assert str(inspect.signature(tpu.Device.int_add_C)) == (
        "(self, dst_addr, src_addr, C, shape, dst_dtype, src_dtype, C_dtype, shift, rounding_mode, "
        "saturation, *, dst_stride=None, src_stride=None)")


def test_global_memory_and_gdma_round_trip():
    d = tpu.Device()
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5) - 7
    g = d.global_alloc(x.nbytes)
    assert g >> 62 & 1 and g % 64 == 0
    np.testing.assert_array_equal(d.global_read(g, x.shape, "fp32"), np.zeros_like(x))  # zeroed
    d.global_write(g, x)
    np.testing.assert_array_equal(d.global_read(g, x.shape, "fp32"), x)
    d.gdma_cpy_S2L(64 * 3, g, x.shape, "fp32")
    np.testing.assert_array_equal(d.l2s(64 * 3, x.shape, "fp32"), x)
    d.relu(4096, 64 * 3, x.shape, "fp32")
    out = d.global_alloc(x.nbytes)
    d.gdma_cpy_L2S(out, 4096, x.shape, "fp32")
    np.testing.assert_array_equal(d.global_read(out, x.shape, "fp32"), np.maximum(x, 0))
    # strided system side: read every other w (src_stride in elements)
    d.gdma_cpy_S2L(8192, g, (1, 1, 4, 2), "fp32", src_stride=(60, 20, 5, 2))
    np.testing.assert_array_equal(d.l2s(8192, (1, 1, 4, 2), "fp32"), x[0, 0, :, 0:4:2].reshape(1, 1, 4, 2))
    d.gdma_set_C_system(out, 2.5, (1, 1, 1, 4), "fp32")
    assert d.global_read(out, 4, "fp32").tolist() == [2.5] * 4
    d.gdma_system_cpy(out, g, 3, "fp32")
    assert d.global_read(out, 5, "fp32").tolist() == [-7, -6, -5, 2.5, 0]
    d.gdma_cpy_S2S(out, g, (1, 1, 1, 2), "s32", dst_stride=(2, 2, 2, 2))
    assert d.global_read(out, 3, "fp32").tolist() == [-7, -6, -6]
    d.gdma_set_C_local(0, -1, (1, 2, 1, 3), "s16")
    np.testing.assert_array_equal(d.l2s(0, (1, 2, 1, 3), "s16"), np.full((1, 2, 1, 3), -1, np.int16))
    d.gdma_cpy_L2L(1024, 0, (1, 2, 1, 3), "s16")
    np.testing.assert_array_equal(d.l2s(1024, (1, 2, 1, 3), "s16"), np.full((1, 2, 1, 3), -1, np.int16))
    d.global_free(g)
    d.global_free(out)


def test_global_memory_rejections_write_nothing():
    d = tpu.Device()
    g = d.global_alloc(64)
    d.global_write(g, np.arange(16, dtype=np.int32))
    stale = d.global_alloc(16)
    d.global_free(stale)
    before_local = d.memory().copy()
    cases = [
        (lambda: d.global_write(g + 32, np.zeros(16, np.int32)), "Bounds", "tilesim.tpu.Device.global_write"),
        (lambda: d.global_read(g, 17, "s32"), "Bounds", "tilesim.tpu.Device.global_read"),
        (lambda: d.global_read(stale, 1, "s32"), "Bounds", "no live global allocation"),
        (lambda: d.global_write(12345, np.zeros(1)), "Bounds", "is not a global address"),
        (lambda: d.gdma_cpy_S2L(0, g, (1, 1, 1, 17), "s32"), "Bounds", "tpu_gdma_cpy_S2L"),
        (lambda: d.gdma_cpy_L2S(g, 0, (1, 1, 1, 17), "s32"), "Bounds", "tpu_gdma_cpy_L2S"),
        (lambda: d.gdma_cpy_S2L(0, stale, (1, 1, 1, 1), "s32"), "Bounds", "no live global allocation"),
        (lambda: d.gdma_cpy_S2L(2, g, (1, 1, 1, 1), "s32"), "Constraint", "tpu_gdma_cpy_S2L"),
        (lambda: d.gdma_cpy_L2S(g, 0, (1, 1, 1, 2), "s32", src_stride=(1, 1, 1, 64)), "Constraint",
         "tpu_gdma_cpy_L2S"),
        (lambda: d.global_free(stale), "Bounds", "tilesim_tpu_global_free"),
        (lambda: d.global_alloc(0), "Constraint", "bytes must be at least 1"),
    ]
    for fn, code, needle in cases:
        with pytest.raises(tilesim.Error) as ei:
            fn()
        assert ei.value.code == code and needle in str(ei.value), str(ei.value)
        assert "[docs/tpu.md#" in str(ei.value) and "[spec" not in str(ei.value)
    np.testing.assert_array_equal(d.global_read(g, 16, "s32"), np.arange(16))
    np.testing.assert_array_equal(before_local, d.memory())


def _binary(d, name, dtype, a, b, **kw):
    _put(d, A0, a, dtype)
    _put(d, A1, b, dtype)
    getattr(d, name)(AD, A0, A1, SHAPE, dtype, **kw)
    return _get(d, AD, dtype)


def _binary_c(d, name, dtype, a, c):
    _put(d, A0, a, dtype)
    getattr(d, name)(AD, A0, c, SHAPE, dtype)
    return _get(d, AD, dtype)


@pytest.mark.parametrize("dtype", ["fp32", "fp16", "bf16"])
def test_float_arithmetic_matches_torch_bit_for_bit(dtype):
    rng = np.random.default_rng(11)
    d = tpu.Device()
    a, b = _rand_float(rng, dtype), _rand_float(rng, dtype)
    b.reshape(-1)[5:8] = b.reshape(-1)[0:3]  # x / +-0: inf and NaN
    ta, tb = _torch(a, dtype), _torch(b, dtype)
    for name, op in (("fp_add", torch.add), ("fp_sub", torch.sub), ("fp_mul", torch.mul),
                     ("fp_div", torch.div), ("max", torch.maximum), ("min", torch.minimum)):
        _assert_float_bits(_binary(d, name, dtype, a, b), _from_torch(op(ta, tb), dtype), dtype, name)
    # _C forms: C is a value exactly representable in dtype (1.5 and -0.75 are, in every format)
    for c in (1.5, -0.75):
        tc = torch.tensor(c, dtype=ta.dtype)
        for name, want in (("fp_add_C", ta + tc), ("fp_sub_C", ta - tc), ("fp_mul_C", ta * tc),
                           ("fp_div_C", ta / tc), ("fp_C_sub", tc - ta), ("fp_C_div", tc / ta),
                           ("max_C", torch.maximum(ta, tc)), ("min_C", torch.minimum(ta, tc))):
            _assert_float_bits(_binary_c(d, name, dtype, a, c), _from_torch(want, dtype), dtype, name)


@pytest.mark.parametrize("dtype", ["fp32", "fp16", "bf16"])
def test_float_unary_and_exp(dtype):
    rng = np.random.default_rng(12)
    d = tpu.Device()
    a = _rand_float(rng, dtype)
    ta = _torch(a, dtype)
    for name, want in (("abs", ta.abs()), ("neg", -ta), ("relu", torch.relu(ta.float()).to(ta.dtype))):
        _put(d, A0, a, dtype)
        getattr(d, name)(AD, A0, SHAPE, dtype)
        got = _get(d, AD, dtype)
        if name == "relu":  # relu(-0) = +0 (docs/tpu.md#bdc-arithmetic); torch keeps -0
            want = torch.where(ta == 0, torch.zeros_like(ta), want)
        _assert_float_bits(got, _from_torch(want, dtype), dtype, name)
    # exp is correctly rounded: the float64 exp rounded once to the format
    x = (rng.standard_normal(SHAPE) * 3).astype(np.float32)
    xa = x if dtype == "fp32" else (x.astype(np.float16) if dtype == "fp16" else _to_bf16(torch.from_numpy(x)))
    _put(d, A0, xa, dtype)
    d.fp_exp(AD, A0, 0, 0, 0, SHAPE, dtype)  # work / coefficient buffers: unused
    exact = np.exp(_torch(xa, dtype).double().numpy())
    if dtype == "fp32":
        want = exact.astype(np.float32)
    elif dtype == "fp16":
        want = exact.astype(np.float16)
    else:  # float64 -> bf16 in one rounding (RNE at the bf16 mantissa's last bit; normal range)
        u = exact.view(np.uint64)
        r = (u + np.uint64((1 << 44) - 1) + ((u >> np.uint64(45)) & np.uint64(1))) & ~np.uint64((1 << 45) - 1)
        want = (r.view(np.float64).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    np.testing.assert_array_equal(_bits(_get(d, AD, dtype)), _bits(want))


@pytest.mark.parametrize("dtype,lo,hi", [("s8", -100, 100), ("u8", 0, 255), ("s16", -30000, 30000),
                                         ("u16", 0, 65535), ("s32", -2**31 + 1, 2**31 - 1),
                                         ("u32", 0, 2**32 - 1)])
def test_integer_max_min_compare_logic_unary(dtype, lo, hi):
    rng = np.random.default_rng(13)
    d = tpu.Device()
    t = _carrier(dtype)
    a = rng.integers(lo, hi, SHAPE, dtype=np.int64, endpoint=True).astype(t)
    b = rng.integers(lo, hi, SHAPE, dtype=np.int64, endpoint=True).astype(t)
    b.reshape(-1)[:50] = a.reshape(-1)[:50]  # ties for the compares
    for name, op in (("max", np.maximum), ("min", np.minimum), ("and", np.bitwise_and),
                     ("or", np.bitwise_or), ("xor", np.bitwise_xor)):
        np.testing.assert_array_equal(_binary(d, name, dtype, a, b), op(a, b), err_msg=name)
    c = t(7)
    for name, op in (("max_C", np.maximum), ("min_C", np.minimum), ("and_C", np.bitwise_and),
                     ("or_C", np.bitwise_or), ("xor_C", np.bitwise_xor)):
        np.testing.assert_array_equal(_binary_c(d, name, dtype, a, 7), op(a, c), err_msg=name)
    _put(d, A0, a, dtype)
    d.not_(AD, A0, SHAPE, dtype)  # tpu_bdc_not; also getattr(d, "not")
    np.testing.assert_array_equal(_get(d, AD, dtype), np.invert(a))
    d.relu(AD, A0, SHAPE, dtype)
    np.testing.assert_array_equal(_get(d, AD, dtype), np.maximum(a, t(0)))
    if dtype.startswith("s"):
        d.abs(AD, A0, SHAPE, dtype)
        np.testing.assert_array_equal(_get(d, AD, dtype), np.abs(a))
        d.neg(AD, A0, SHAPE, dtype)
        np.testing.assert_array_equal(_get(d, AD, dtype), -a)
    # compares: dst = src0 OP src1 ? true_val : 0, true_val in dst_dtype
    _put(d, A1, b, dtype)
    for name, op in (("equal", np.equal), ("not_equal", np.not_equal), ("greater", np.greater),
                     ("less", np.less), ("greater_equal", np.greater_equal), ("less_equal", np.less_equal)):
        getattr(d, name)(AD, A0, A1, 5, SHAPE, "s16", dtype)
        np.testing.assert_array_equal(_get(d, AD, "s16"), np.where(op(a, b), 5, 0).astype(np.int16), err_msg=name)
        getattr(d, name + "_C")(AD, A0, 7, 1.0, SHAPE, "fp32", dtype)
        np.testing.assert_array_equal(_get(d, AD, "fp32"), np.where(op(a, c), 1.0, 0.0).astype(np.float32),
                                      err_msg=name + "_C")


@pytest.mark.parametrize("dtype", ["fp32", "fp16", "bf16"])
def test_float_compares_match_torch(dtype):
    rng = np.random.default_rng(14)
    d = tpu.Device()
    a, b = _rand_float(rng, dtype), _rand_float(rng, dtype)
    b.reshape(-1)[:40] = a.reshape(-1)[:40]
    nan = {"fp32": np.float32("nan"), "fp16": np.float16("nan"), "bf16": np.uint16(0x7FC1)}[dtype]
    a.reshape(-1)[40:43] = nan
    a.reshape(-1)[0], b.reshape(-1)[0] = (0, 0x8000) if dtype == "bf16" else (0.0, -0.0)  # +0 == -0
    ta, tb = _torch(a, dtype), _torch(b, dtype)
    _put(d, A0, a, dtype)
    _put(d, A1, b, dtype)
    for name, op in (("equal", torch.eq), ("not_equal", torch.ne), ("greater", torch.gt),
                     ("less", torch.lt), ("greater_equal", torch.ge), ("less_equal", torch.le)):
        getattr(d, name)(AD, A0, A1, -1, SHAPE, "s8", dtype)
        np.testing.assert_array_equal(_get(d, AD, "s8"), np.where(op(ta, tb).numpy(), -1, 0), err_msg=name)
        getattr(d, name + "_C")(AD, A0, -0.0, 3, SHAPE, "u8", dtype)  # -0 == +0
        np.testing.assert_array_equal(_get(d, AD, "u8"), np.where(op(ta, torch.zeros(())).numpy(), 3, 0),
                                      err_msg=name + "_C")


def _round_shift(x, s, rm):
    """Reference for the integer forms' shift (docs/tpu.md#rounding), on Python ints."""
    if s == 0:
        return x
    fl = x >> s
    rem = x - (fl << s)
    half = 1 << (s - 1)
    up = {0: rem > half or (rem == half and fl & 1), 1: rem > half or (rem == half and x >= 0),
          2: rem != 0 and x < 0, 3: False, 4: rem != 0, 5: rem >= half, 6: rem > half}[rm]
    return fl + (1 if up else 0)


@pytest.mark.parametrize("rm", range(7))
def test_integer_forms_shift_round_saturate(rm):
    rng = np.random.default_rng(20 + rm)
    d = tpu.Device()
    shape = (1, 3, 2, 7)
    a = rng.integers(-30000, 30000, shape).astype(np.int16)
    b = rng.integers(-128, 128, shape).astype(np.int8)
    _put(d, A0, a, "s16")
    _put(d, A1, b, "s8")
    for sat in (True, False):
        for shift in (0, 1, 3, 9):
            for name, op in (("int_add", lambda x, y: x + y), ("int_sub", lambda x, y: x - y),
                             ("int_mul", lambda x, y: x * y)):
                getattr(d, name)(AD, A0, A1, shape, "s8", "s16", "s8", shift, rm, sat)
                exact = [_round_shift(op(int(x), int(y)), shift, rm) for x, y in zip(a.flat, b.flat)]
                want = np.clip(exact, -128, 127) if sat else np.array(exact, np.int64) & 0xFF
                np.testing.assert_array_equal(_get(d, AD, "s8", shape).reshape(-1).astype(np.int64) & 0xFF,
                                              np.array(want, np.int64) & 0xFF, err_msg="%s %d %s" % (name, shift, sat))
            for name, op in (("int_add_C", lambda x, c: x + c), ("int_sub_C", lambda x, c: x - c),
                             ("int_mul_C", lambda x, c: x * c), ("int_C_sub", lambda x, c: c - x)):
                getattr(d, name)(AD, A0, -77, shape, "u16", "s16", "s8", shift, rm, sat)
                exact = [_round_shift(op(int(x), -77), shift, rm) for x in a.flat]
                want = np.clip(exact, 0, 65535) if sat else np.array(exact, np.int64) & 0xFFFF
                np.testing.assert_array_equal(_get(d, AD, "u16", shape).reshape(-1), want,
                                              err_msg="%s %d %s" % (name, shift, sat))


def test_integer_forms_parity_with_cpp_known_answers():
    # tests/tpu/bdc_test.cpp TpuBdcKnown.IntegerFormsShiftRoundSaturate, through Python
    d = tpu.Device()
    s = (1, 2, 1, 4)
    d.s2l(0, np.array([100, -100, 30000, -30000, 7, -7, 5, 6], np.int16).reshape(s), "s16")
    d.s2l(64, np.array([27, 27, 100, -100, 0, 0, 0, 0], np.int8).reshape(s), "s8")
    d.int_add(128, 0, 64, s, "s8", "s16", "s8", 1, "RM_HALF_TO_EVEN", True)
    assert d.l2s(128, s, "s8").reshape(-1).tolist() == [64, -36, 127, -128, 4, -4, 2, 3]
    d.int_add(128, 0, 64, s, "s8", "s16", "s8", 1, "RM_HALF_AWAY_FROM_ZERO", True)
    assert d.l2s(128, s, "s8").reshape(-1).tolist() == [64, -37, 127, -128, 4, -4, 3, 3]
    d.int_add(128, 0, 64, s, "s8", "s16", "s8", 1, "RM_DOWN", False)
    assert d.l2s(128, s, "s8").reshape(-1).tolist() == [63, -37, -54, 54, 3, -4, 2, 3]
    d.int_C_sub(128, 0, 10, s, "u8", "s16", "s16", 0, "RM_TOWARDS_ZERO", True)
    assert d.l2s(128, s, "u8").reshape(-1).tolist() == [0, 110, 0, 255, 3, 17, 5, 4]
    d.int_mul(128, 0, 64, s, "s32", "s16", "s8", 3, "RM_UP", True)
    assert d.l2s(128, s, "s32").reshape(-1)[:2].tolist() == [338, -337]
    # TpuBdcKnown.FloatArithmetic and HalfRoundsOnceAndMaxMin
    d.s2l(0, np.array([1.5, -2, 0, 1e30, 3, 1, -0.0, 0], np.float32).reshape(s), "fp32")
    d.s2l(64, np.array([0.25, -2, -0.0, 1e30, 0, 3, -0.0, 0], np.float32).reshape(s), "fp32")
    d.fp_add(128, 0, 64, s, "fp32")
    assert d.l2s(128, s, "fp32").reshape(-1).tolist() == [1.75, -4, 0, np.float32(2e30), 3, 4, 0, 0]
    d.fp_div(128, 0, 64, s, "fp32")
    q = _bits(d.l2s(128, s, "fp32")).reshape(-1)
    assert q[4] == 0x7F800000 and q[6] == 0x7FC00000 and q[5] == _bits(np.float32(1) / np.float32(3))
    d.s2l(0, np.array([0x3C00, 0x3C01, 0x7C00, 0xFC00, 0x7E01, 0x8000, 0, 0x4000], np.uint16)
          .view(np.float16).reshape(s), "fp16")
    d.s2l(64, np.array([0x1000, 0x1000, 0xFC00, 0xFC00, 0x3C00, 0, 0x8000, 0xC000], np.uint16)
          .view(np.float16).reshape(s), "fp16")
    d.fp_add(128, 0, 64, s, "fp16")
    assert _bits(d.l2s(128, s, "fp16")).reshape(-1)[:5].tolist() == [0x3C00, 0x3C02, 0x7E00, 0xFC00, 0x7E00]
    d.max(128, 0, 64, s, "fp16")
    assert _bits(d.l2s(128, s, "fp16")).reshape(-1)[4:7].tolist() == [0x7E00, 0, 0]
    d.min(128, 0, 64, s, "fp16")
    assert _bits(d.l2s(128, s, "fp16")).reshape(-1)[5] == 0x8000
    # TpuBdcKnown.ScalarCasts
    third = np.float32(1) / np.float32(3)
    assert _bits(d.tpu_cast(third, "fp16", "fp32", "RM_HALF_TO_EVEN")) == 0x3555
    assert d.tpu_fp_cast(third, "bf16", "fp32", "RM_UP") == 0x3EAB
    assert d.tpu_fp_cast(third, "bf16", "fp32", "RM_TOWARDS_ZERO") == 0x3EAA
    assert d.tpu_cast(2.5, "s32", "fp32", "RM_HALF_UP") == 3
    assert d.tpu_cast(2.5, "s32", "fp32", "RM_HALF_DOWN") == 2
    assert d.tpu_cast(-2.5, "s32", "fp32", 5) == -2
    assert d.tpu_cast(-2.5, "s32", "fp32", "RM_DOWN") == -3
    assert d.tpu_int_cast(300, "s8", "s32") == 127
    assert d.tpu_int_cast(300, "u8", "s32") == 255


def test_casts_match_numpy_and_torch():
    rng = np.random.default_rng(30)
    d = tpu.Device()
    x = (rng.standard_normal(SHAPE) * 1000).astype(np.float32)
    x.reshape(-1)[:6] = [2.5, -2.5, 3.5, 1e10, -1e10, 0.5]
    _put(d, A0, x, "fp32")
    d.cast(AD, A0, SHAPE, "fp16", "fp32", "RM_HALF_TO_EVEN")
    np.testing.assert_array_equal(_bits(_get(d, AD, "fp16")), _bits(x.astype(np.float16)))
    d.cast(AD, A0, SHAPE, "bf16", "fp32", 0)
    np.testing.assert_array_equal(_get(d, AD, "bf16"), _to_bf16(torch.from_numpy(x)))
    for rm, f in ((0, np.rint), (2, np.trunc), (3, np.floor), (4, np.ceil)):
        d.cast(AD, A0, SHAPE, "s32", "fp32", rm)
        want = np.clip(f(x.astype(np.float64)), -2**31, 2**31 - 1).astype(np.int32)
        np.testing.assert_array_equal(_get(d, AD, "s32"), want, err_msg=str(rm))
    d.cast(AD, A0, SHAPE, "s8", "fp32", "RM_TOWARDS_ZERO")  # saturates
    np.testing.assert_array_equal(_get(d, AD, "s8"), np.clip(np.trunc(x), -128, 127).astype(np.int8))
    i = rng.integers(-2**31, 2**31 - 1, SHAPE).astype(np.int32)
    _put(d, A0, i, "s32")
    d.cast(AD, A0, SHAPE, "fp32", "s32", "RM_HALF_TO_EVEN")
    np.testing.assert_array_equal(_get(d, AD, "fp32"), i.astype(np.float32))


def test_moves_set_copy_broadcast():
    d = tpu.Device()
    s = (1, 3, 1, 3)
    d.set_C(0, -2.0, s, "bf16")
    assert (d.l2s(0, s, "bf16") == 0xC000).all()
    d.s2l(64, np.array([7, 8, 9], np.int32).reshape(1, 1, 1, 3), "s32")
    # broadcast strides: every row h reads the same 3 elements (h stride 0; channels stay per NPU)
    d.cpy(0, 64, (1, 1, 3, 3), "s32", src_stride=(0, 0, 0, 1))
    np.testing.assert_array_equal(d.l2s(0, (1, 1, 3, 3), "s32").reshape(-1), [7, 8, 9] * 3)
    d.npu_bcast(256, 64, (1, 5, 1, 3), "s32")
    np.testing.assert_array_equal(d.l2s(256, (1, 5, 1, 3), "s32").reshape(-1), [7, 8, 9] * 5)
    # a free-layout dst (w stride 2): the gaps keep their bytes
    d.s2l(512, np.full((1, 1, 1, 6), -5, np.int32), "s32")
    d.max_C(512, 64, 8, (1, 1, 1, 3), "s32", dst_stride=(6, 6, 6, 2))
    np.testing.assert_array_equal(d.l2s(512, (1, 1, 1, 6), "s32").reshape(-1), [8, -5, 8, -5, 9, -5])
    assert getattr(d, "not") == d.not_ and d.and_ == getattr(d, "and") and d.or_ == getattr(d, "or")


def test_bdc_rejections_name_the_rule_and_write_nothing():
    d = tpu.Device()
    s = (1, 2, 1, 4)
    d.s2l(0, np.ones(s, np.float32), "fp32")
    before = d.memory().copy()
    lms = d.local_mem_size
    cases = [  # (call, code, needles): one per rule kind
        (lambda: d.fp_add(128, 0, 64, s, "s32"), "Unsupported", ["tpu_bdc_fp_add", "dtype DT_INT32", "not accepted"]),
        (lambda: d.and_C(128, 0, 1.0, s, "fp32"), "Unsupported", ["tpu_bdc_and_C", "DT_FP32"]),
        (lambda: d.fp_add(128, 4, 64, s, "fp32"), "Constraint",
         ["tpu_bdc_fp_add", "src0 in-NPU offset 0x4 must be a multiple of ALIGN_BYTES 64"]),
        (lambda: d.fp_add(128, lms, 64, s, "fp32"), "Constraint", ["src0 starts on NPU 1 but dst on NPU 0"]),
        (lambda: d.fp_sub(lms - 64, 0, 128, (1, 2, 1, 32), "fp32"), "Bounds",
         ["dst touches in-NPU bytes", "LOCAL_MEM_SIZE"]),
        (lambda: d.fp_mul(128, 0, 64, (1, 0, 1, 4), "fp32"), "Constraint", ["shape->c must be in [1, 65535], got 0"]),
        (lambda: d.fp_div(128, 0, 64, s, "fp32", src1_stride=(-1, 1, 1, 1)), "Constraint",
         ["src1_stride must be non-negative"]),
        (lambda: d.int_add(128, 0, 64, s, "s8", "s8", "s8", 40, 0, True), "Unsupported",
         ["tpu_bdc_int_add", "shift must be in [0, 31]"]),
        (lambda: d.int_add(128, 0, 64, s, "s8", "s8", "s8", 1, 9, True), "Unsupported", ["tpu_bdc_int_add"]),
        (lambda: d.int_add(128, 0, 64, s, "s8", "s8", "s8", 1, "RM_SIDEWAYS", True), "Unsupported",
         ["tilesim.tpu.Device.int_add", "rounding_mode 'RM_SIDEWAYS' is not a rounding_mode_t"]),
        (lambda: d.int_add(128, 0, 64, s, "s8", "s8", "s8", 300, 0, True), "Constraint",
         ["shift 300 does not fit"]),
        (lambda: d.fp_add_C(128, 0, 0.1, s, "fp32"), "Constraint",
         ["tilesim.tpu.Device.fp_add_C", "C 0.1 is not exactly representable in DT_FP32"]),
        (lambda: d.fp_add(128, 0, 64, s), "Constraint",
         ["tilesim.tpu.Device.fp_add", "missing a required argument: 'dtype'",
          "fp_add(dst_addr, src0_addr, src1_addr, shape, dtype, *"]),
        (lambda: d.fp_add(128, 0, 64, s, "fp32", stride=None), "Constraint", ["unexpected keyword argument"]),
        (lambda: d.fp_add(-1, 0, 64, s, "fp32"), "Bounds", ["dst address -1 is outside local memory"]),
        (lambda: d.fp_add(128, 0, 64, s, "nope"), None, ["nope"]),
        (lambda: d.npu_bcast(128, 0, (1, 65, 1, 4), "fp32"), "Constraint", ["shape->c must be in [1, NPU_NUM = 64]"]),
        (lambda: d.fp_exp(128, 0, 0, 0, 0, s, "fp32", dst_stride=(1, 1, 1, 1)), "Constraint",
         ["unexpected keyword argument 'dst_stride'"]),
        (lambda: d.tpu_int_cast(1.5, "s8", "fp32"), "Unsupported", ["tpu_int_cast"]),
    ]
    for fn, code, needles in cases:
        with pytest.raises(tilesim.Error) as ei:
            fn()
        msg = str(ei.value)
        for n in needles:
            assert n in msg, msg
        assert code is None or ei.value.code == code, msg
        assert "[docs/" in msg and "[spec" not in msg, msg
    np.testing.assert_array_equal(before, d.memory())
