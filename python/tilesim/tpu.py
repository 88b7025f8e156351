"""Sophgo TPU-Kernel compare-select (spec 50, spec 60 §4).

Array level: ``greater_select``, ``less_select``, ``equal_select`` (one result) and
``maximum_greater_select``, ``minimum_less_select`` (a pair), every operand placed at start NPU 0.
Address level: ``Device`` with ``s2l``/``l2s`` and the five calls on ``tensor(addr)``,
``vector_at(addr)`` and ``scalar(value)`` operands. This module only handles arguments; the
semantics are in the C++ engine (src/tpu).
"""
import numbers

import numpy as _np

from ._errors import Error
from ._load import export as _export

_impl = _export(globals(), "tpu")

_TENSOR, _SCALAR, _VECTOR = 0, 1, 2
# NumPy dtype -> spec 60 §2 name, for dtype inference (bit-carried formats need an explicit dtype).
_INFER = {
    _np.dtype("float32"): "fp32", _np.dtype("float16"): "fp16",
    _np.dtype("int8"): "s8", _np.dtype("uint8"): "u8", _np.dtype("int16"): "s16",
    _np.dtype("uint16"): "u16", _np.dtype("int32"): "s32", _np.dtype("uint32"): "u32",
}
_BIT_CARRIED = {"bf16", "e4m3", "e5m2", "tf32"}


class vector:
    """A VECTOR operand of the array-level functions: C values, of which channel c reads
    value c mod NPU_NUM (seed 001); len(values) >= min(C, NPU_NUM)."""

    def __init__(self, values):
        # A NumPy array carries its dtype; a list of Python numbers takes the operand's dtype.
        self.typed = isinstance(values, _np.ndarray)
        self.values = _np.asarray(values).reshape(-1)

    def __repr__(self):
        return "tilesim.tpu.vector(%r)" % (self.values,)


class _AddrOperand:
    def __init__(self, kind, addr=None, value=None):
        self.kind, self.addr, self.value = kind, addr, value

    def __repr__(self):
        name = {_TENSOR: "tensor", _VECTOR: "vector_at", _SCALAR: "scalar"}[self.kind]
        return "tilesim.tpu.%s(%r)" % (name, self.addr if self.kind != _SCALAR else self.value)


def tensor(addr):
    """A TENSOR operand at local address ``addr`` (64-byte aligned layout)."""
    return _AddrOperand(_TENSOR, addr=int(addr))


def vector_at(addr):
    """A VECTOR operand at local address ``addr``: channel c reads NPU (q + c) % NPU_NUM."""
    return _AddrOperand(_VECTOR, addr=int(addr))


def scalar(value):
    """A SCALAR operand: a value in the operand's dtype (a NumPy unsigned integer is taken as the
    code of a bit-carried dtype)."""
    return _AddrOperand(_SCALAR, value=value)


def _fail(where, msg, code="Constraint"):
    raise Error("%s: %s [spec 60 §4]" % (where, msg), code)


def _dt(name):
    return _impl.parse_dtype(str(name))


def _bit_carried_codes():
    codes = set()
    for name in _BIT_CARRIED:
        try:
            codes.add(_impl.parse_dtype(name))
        except Error:  # not a TPU data type
            pass
    return codes


def _scalar_bits(value, dt_name, where):
    """The code of a SCALAR value in dtype ``dt_name``."""
    dt = _dt(dt_name)
    # decided on the resolved data_type_t, so every alias and DT_ name means the same (spec 60 §2)
    is_code_dtype = dt in _bit_carried_codes()
    if isinstance(value, _np.unsignedinteger) and is_code_dtype:
        code = int(value)
        if code < 0 or code >= 1 << (8 * _impl.dtype_bytes(dt)):
            _fail(where, "code %d does not fit %s" % (code, dt_name))
        return code
    if isinstance(value, (bool, _np.bool_)) or not isinstance(value, (numbers.Real, _np.generic)):
        _fail(where, "a SCALAR must be a number, got %r" % (value,))
    return _impl.scalar_code(float(value), dt, where)


def _infer(ops, given, what, where):
    if given is not None:
        return given
    found = None
    for op in ops:
        if isinstance(op, vector):
            if not op.typed:
                continue
            dt = op.values.dtype
        elif isinstance(op, _np.ndarray) or isinstance(op, _np.generic):
            dt = op.dtype
        else:
            continue
        name = _INFER.get(_np.dtype(dt))
        if name is None:
            _fail(where, "cannot infer %s from NumPy dtype %s; pass %s=" % (what, dt, what))
        if found is not None and found != name:
            _fail(where, "operands disagree on %s (%s vs %s); pass %s=" % (what, found, name, what))
        found = name
    if found is None:
        _fail(where, "cannot infer %s (no operand carries a NumPy dtype); pass %s=" % (what, what))
    return found


def _array_call(opname, src, dtype_a, dtype_b, shape, chip, names):
    where = "tilesim.tpu.%s_select" % opname
    a = _infer(src[:2], dtype_a, names[0], where)
    b = _infer(src[2:], dtype_b, names[1], where)
    dta, dtb = _dt(a), _dt(b)
    shp = None if shape is None else tuple(int(x) for x in shape)
    for op in src:
        if isinstance(op, _np.ndarray):
            if op.ndim != 4:
                _fail(where, "a TENSOR operand must be a 4-D NCHW array, got shape %s" % (op.shape,))
            if shp is None:
                shp = tuple(op.shape)
            elif tuple(op.shape) != shp:
                _fail(where, "TENSOR shape %s differs from the result shape %s" % (op.shape, shp))
    if shp is None:
        _fail(where, "shape=(n, c, h, w) is required when no operand is a TENSOR")
    kinds, arrays, bits = [], [], []
    for i, op in enumerate(src):
        dt, dname = (dta, a) if i < 2 else (dtb, b)
        carrier = _np.dtype(_impl.carrier(dt))
        if isinstance(op, (vector, _np.ndarray)):
            arr = op.values if isinstance(op, vector) else op
            if isinstance(op, vector) and not op.typed:
                conv = _np.asarray(arr, dtype=carrier) if arr.size else _np.zeros(0, carrier)
                if arr.size and not _np.array_equal(conv.astype(_np.float64), arr.astype(_np.float64)):
                    _fail(where, "src%d vector values are not exactly representable as %s" % (i, carrier))
                arr = conv
            if arr.dtype != carrier:
                if not _np.can_cast(arr.dtype, carrier, "safe"):
                    _fail(where, "src%d is %s; dtype %s needs %s" % (i, arr.dtype, dname, carrier))
                arr = arr.astype(carrier)
            kinds.append(_VECTOR if isinstance(op, vector) else _TENSOR)
            arrays.append(_np.ascontiguousarray(arr))
            bits.append(0)
        else:
            kinds.append(_SCALAR)
            arrays.append(None)
            bits.append(_scalar_bits(op, dname, where))
    return _impl.select_arrays(opname, kinds, arrays, bits, list(shp), dta, dtb, chip)


def greater_select(src0, src1, src2, src3, *, src_dtype=None, dst_dtype=None, shape=None,
                   chip="bm1684x"):
    """dst = src0 > src1 ? src2 : src3 (seed 001)."""
    return _array_call("greater", (src0, src1, src2, src3), src_dtype, dst_dtype, shape, chip,
                       ("src_dtype", "dst_dtype"))[0]


def less_select(src0, src1, src2, src3, *, src_dtype=None, dst_dtype=None, shape=None,
                chip="bm1684x"):
    """dst = src0 < src1 ? src2 : src3 (seed 001)."""
    return _array_call("less", (src0, src1, src2, src3), src_dtype, dst_dtype, shape, chip,
                       ("src_dtype", "dst_dtype"))[0]


def equal_select(src0, src1, src2, src3, *, src_dtype=None, dst_dtype=None, shape=None,
                 chip="bm1684x"):
    """dst = src0 == src1 ? src2 : src3 (seed 001)."""
    return _array_call("equal", (src0, src1, src2, src3), src_dtype, dst_dtype, shape, chip,
                       ("src_dtype", "dst_dtype"))[0]


def _ext_dtypes(where, dst0_dtype, dst1_dtype, src_dtype, dst_dtype):
    if src_dtype is not None and dst0_dtype is not None and src_dtype != dst0_dtype:
        _fail(where, "src_dtype (alias of dst0_dtype) conflicts with dst0_dtype")
    if dst_dtype is not None and dst1_dtype is not None and dst_dtype != dst1_dtype:
        _fail(where, "dst_dtype (alias of dst1_dtype) conflicts with dst1_dtype")
    return (dst0_dtype if dst0_dtype is not None else src_dtype,
            dst1_dtype if dst1_dtype is not None else dst_dtype)


def maximum_greater_select(src0, src1, src2, src3, *, dst0_dtype=None, dst1_dtype=None,
                           shape=None, chip="bm1684x", src_dtype=None, dst_dtype=None):
    """(dst0, dst1) = src0 > src1 ? (src0, src2) : (src1, src3) (seed 001; ties to src1/src3)."""
    a, b = _ext_dtypes("tilesim.tpu.maximum_greater_select", dst0_dtype, dst1_dtype, src_dtype,
                       dst_dtype)
    return _array_call("maximum_greater", (src0, src1, src2, src3), a, b, shape, chip,
                       ("dst0_dtype", "dst1_dtype"))


def minimum_less_select(src0, src1, src2, src3, *, dst0_dtype=None, dst1_dtype=None,
                        shape=None, chip="bm1684x", src_dtype=None, dst_dtype=None):
    """(dst0, dst1) = src0 < src1 ? (src0, src2) : (src1, src3) (seed 001; ties to src1/src3)."""
    a, b = _ext_dtypes("tilesim.tpu.minimum_less_select", dst0_dtype, dst1_dtype, src_dtype,
                       dst_dtype)
    return _array_call("minimum_less", (src0, src1, src2, src3), a, b, shape, chip,
                       ("dst0_dtype", "dst1_dtype"))


class Device:
    """Address-level API: one chip's local memory; operands where the caller places them."""

    def __init__(self, chip="bm1684x"):
        self._d = _impl.Device(chip)

    npu_num = property(lambda self: self._d.npu_num)
    local_mem_size = property(lambda self: self._d.local_mem_size)
    align_bytes = property(lambda self: self._d.align_bytes)
    chip = property(lambda self: self._d.chip)

    def memory(self):
        """A uint8 view of the whole local memory (NPU k at k * local_mem_size)."""
        return self._d.memory()

    def s2l(self, local_addr, array, dtype, stride=None):
        """tpu_gdma_cpy_S2L of an NCHW array (fewer dims are padded with leading 1s)."""
        dt = _dt(dtype)
        carrier = _np.dtype(_impl.carrier(dt))
        arr = _np.asarray(array)
        if arr.dtype != carrier:
            if not _np.can_cast(arr.dtype, carrier, "safe"):
                _fail("tilesim.tpu.Device.s2l", "array is %s; dtype %s needs %s" % (arr.dtype, dtype, carrier))
            arr = arr.astype(carrier)
        if arr.ndim > 4:
            _fail("tilesim.tpu.Device.s2l", "array must have at most 4 dims, got %d" % arr.ndim)
        shp = (1,) * (4 - arr.ndim) + tuple(arr.shape)
        self._d._s2l(int(local_addr), _np.ascontiguousarray(arr), list(shp), dt,
                     None if stride is None else [int(x) for x in stride])

    def l2s(self, local_addr, shape, dtype, stride=None):
        """tpu_gdma_cpy_L2S into a new NCHW array in the dtype's carrier."""
        return self._d._l2s(int(local_addr), [int(x) for x in shape], _dt(dtype),
                            None if stride is None else [int(x) for x in stride])

    def _ops(self, ops, a, b, where):
        out = []
        for i, op in enumerate(ops):
            if not isinstance(op, _AddrOperand):
                _fail(where, "src%d must be tilesim.tpu.tensor/vector_at/scalar, got %r" % (i, op))
            if op.kind == _SCALAR:
                out.append((_SCALAR, _scalar_bits(op.value, a if i < 2 else b, where)))
            else:
                out.append((op.kind, op.addr))
        return out

    def _sel(self, name, dst0, dst1, src, shape, a, b):
        where = "tilesim.tpu.Device.%s_select" % name
        self._d._select(name, int(dst0), int(dst1), self._ops(src, a, b, where),
                        [int(x) for x in shape], _dt(a), _dt(b))

    def greater_select(self, dst_addr, src0, src1, src2, src3, shape, src_dtype, dst_dtype):
        self._sel("greater", dst_addr, 0, (src0, src1, src2, src3), shape, src_dtype, dst_dtype)

    def less_select(self, dst_addr, src0, src1, src2, src3, shape, src_dtype, dst_dtype):
        self._sel("less", dst_addr, 0, (src0, src1, src2, src3), shape, src_dtype, dst_dtype)

    def equal_select(self, dst_addr, src0, src1, src2, src3, shape, src_dtype, dst_dtype):
        self._sel("equal", dst_addr, 0, (src0, src1, src2, src3), shape, src_dtype, dst_dtype)

    def maximum_greater_select(self, dst0_addr, dst1_addr, src0, src1, src2, src3, shape,
                               dst0_dtype, dst1_dtype):
        self._sel("maximum_greater", dst0_addr, dst1_addr, (src0, src1, src2, src3), shape,
                  dst0_dtype, dst1_dtype)

    def minimum_less_select(self, dst0_addr, dst1_addr, src0, src1, src2, src3, shape,
                            dst0_dtype, dst1_dtype):
        self._sel("minimum_less", dst0_addr, dst1_addr, (src0, src1, src2, src3), shape,
                  dst0_dtype, dst1_dtype)


# The compiled Device is wrapped above; keep the Python class as the public one.
__all__ = ["vector", "tensor", "vector_at", "scalar", "Device", "greater_select", "less_select",
           "equal_select", "maximum_greater_select", "minimum_less_select", "Error"]
