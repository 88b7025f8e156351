"""tilesim.pto.tmatmul (spec 60 §4, spec 21 §2 matrix row): the GEMM core's bits through Python."""
import numpy as np
import pytest

import tilesim
from tilesim import pto


def chain(a, b, start=None):
    """The spec 30 §3 chain: fp32 FMA in k order, one rounding per step (float64 fma emulation is
    exact here: products of fp16 values are exact in float64 and each sum is rounded to fp32)."""
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros((m, n), np.float32) if start is None else start.astype(np.float32).copy()
    for kk in range(k):
        c = (c.astype(np.float64) + a[:, kk:kk + 1].astype(np.float64) * b[kk:kk + 1, :].astype(np.float64)).astype(np.float32)
    return c


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
def test_tmatmul_fp16_matches_the_chain(target):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((20, 40)).astype(np.float16)
    b = rng.standard_normal((40, 24)).astype(np.float16)
    got = pto.tmatmul(a, b, target=target)
    assert got.dtype == np.float32 and got.shape == (20, 24)
    np.testing.assert_array_equal(got, chain(a, b))


def test_tmatmul_acc_and_bias_and_int8():
    a = np.arange(16 * 32, dtype=np.float32).reshape(16, 32) % 7 - 3
    b = np.arange(32 * 16, dtype=np.float32).reshape(32, 16) % 5 - 2
    start = np.full((16, 16), 0.5, np.float32)
    np.testing.assert_array_equal(pto.tmatmul(a, b, acc=start), a @ b + 0.5)
    bias = np.arange(16, dtype=np.float32)
    np.testing.assert_array_equal(pto.tmatmul(a, b, bias=bias), a @ b + bias)
    ai = a.astype(np.int8)
    bi = b.astype(np.int8)
    got = pto.tmatmul(ai, bi, dtype_acc="s32")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, ai.astype(np.int32) @ bi.astype(np.int32))


def test_tmatmul_rejections():
    a = np.ones((16, 32), np.float16)
    with pytest.raises(tilesim.Error, match="aMatrix validCol"):
        pto.tmatmul(a, np.ones((16, 8), np.float16))
    with pytest.raises(tilesim.Error, match="dtype_acc must be fp32"):
        pto.tmatmul(a, np.ones((32, 8), np.float16), dtype_acc="s32")
    with pytest.raises(tilesim.Error, match="must be float16, float32 or int8"):
        pto.tmatmul(a.astype(np.float64), np.ones((32, 8)))


def test_tmatmul_acc_must_have_the_acc_dtype():
    a = np.ones((16, 32), np.float16)
    b = np.ones((32, 16), np.float16)
    with pytest.raises(tilesim.Error, match="acc must be a 16 x 16 array of the Acc dtype"):
        pto.tmatmul(a, b, acc=np.zeros((16, 16), np.float64))
