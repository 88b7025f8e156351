"""dtype arguments take a spec 60 §2 name or alias and NumPy dtypes alike (issue 21 item 6,
docs/python.md#dtype-arguments): every function with a dtype parameter gives the same result for
'fp16', 'float16', np.float16 and np.dtype('float16'), and rejects anything else with a message."""
import numpy as np
import pytest

import tilesim
from tilesim import ascendc, formats, linx, pto, tpu

SPELLINGS = {
    "fp16": ("fp16", "float16", "F16", np.float16, np.dtype("float16")),
    "fp32": ("fp32", "float32", "float", np.float32, np.dtype("float32")),
    "s32": ("s32", "int32", "i32", np.int32, np.dtype("int32")),
    "s16": ("s16", "int16", np.int16, np.dtype("int16")),
}

X16 = np.float16([1.5, -2.25, 65504, 0.1, 0, 0, 0, 0])
X32 = np.float32([0.1, 1.5, 2.5, -3.75, 1e9, 0, 0, 0])
CASES = {
    "formats.decode": ("fp16", lambda dt: formats.decode(X16.view(np.uint16), dt)),
    "formats.encode": ("fp16", lambda dt: formats.encode(X32, dt)),
    "linx.pack": ("fp32", lambda dt: linx.pack(X32.reshape(2, 4), dt, "nd")),
    "linx.unpack": ("fp32", lambda dt: linx.unpack(linx.pack(X32.reshape(2, 4), "fp32", "nz"), (2, 4), dt, "nz")),
    "linx.Machine.read_array": ("fp32", lambda dt: _linx_read(dt)),
    "pto.Tile": ("fp16", lambda dt: pto.Tile(np.zeros((2, 16), np.float16), dtype=dt).dtype),
    "pto.tcvt": ("fp16", lambda dt: pto.tcvt(pto.Tile(np.tile(X32, (1, 2))), dt).data),
    "pto.texpands": ("s32", lambda dt: pto.texpands(7, (2, 8), dt).data),
    "pto.tmatmul": ("fp32", lambda dt: pto.tmatmul(np.ones((16, 32), np.float16), np.ones((32, 8), np.float16),
                                                   dtype_acc=dt)),
    "ascendc.cast": ("fp16", lambda dt: ascendc.cast(X32, dt, "CAST_RINT", 8)),
    "ascendc.cast src_dtype": ("fp32", lambda dt: ascendc.cast(X32, "s32", "CAST_RINT", 8, src_dtype=dt)),
    "ascendc.duplicate": ("s16", lambda dt: ascendc.duplicate(-3, 16, dtype=dt)),
    "tpu.greater_select": ("fp32", lambda dt: tpu.greater_select(X32.reshape(1, 1, 1, 8), 0.5, 1.0, 0.0,
                                                                 src_dtype=dt, dst_dtype=dt)),
    "tpu.Device.fp_add": ("fp16", lambda dt: _tpu_add(dt)),
    "tpu.Device.global_read": ("s32", lambda dt: _tpu_global(dt)),
}


def _linx_read(dt):
    m = linx.Machine(mem_bytes=64)
    m.write_mem(0, X32)
    return m.read_array(0, (2, 4), dt)


def _tpu_add(dt):
    d = tpu.Device("bm1684x")
    d.s2l(0, X16.reshape(1, 1, 1, 8), dt)
    d.fp_add(128, 0, 0, (1, 1, 1, 8), dt)
    return d.l2s(128, (1, 1, 1, 8), dt)


def _tpu_global(dt):
    d = tpu.Device("bm1684x")
    g = d.global_alloc(16)
    d.global_write(g, np.int32([5, -6, 7, -8]))
    return d.global_read(g, 4, dt)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_spelling_gives_the_same_result(name):
    canonical, call = CASES[name]
    want = call(canonical)
    for spelling in SPELLINGS[canonical]:
        got = call(spelling)
        if isinstance(want, np.ndarray):
            assert got.dtype == want.dtype and np.array_equal(got.view(np.uint8), want.view(np.uint8)), spelling
        else:
            assert got == want, spelling


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_non_dtype_is_an_error_naming_it(name):
    _, call = CASES[name]
    with pytest.raises(tilesim.Error) as e:
        call(object())
    assert "object object" in str(e.value) and "docs/" in str(e.value), str(e.value)
