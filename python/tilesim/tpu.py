"""Sophgo TPU-Kernel compare-select (spec 50, spec 60 §4).

Array level: ``greater_select``, ``less_select``, ``equal_select`` (one result) and
``maximum_greater_select``, ``minimum_less_select`` (a pair), every operand placed at start NPU 0.
Address level: ``Device`` with ``s2l``/``l2s`` and the five calls on ``tensor(addr)``,
``vector_at(addr)`` and ``scalar(value)`` operands. This module only handles arguments; the
semantics are in the C++ engine (src/tpu).
"""
import numbers

import numpy as _np

from . import _dtype
from . import _tilesim
from ._errors import Error

# The compiled half's helpers stay private; the public API is this module (spec 60 §4).
_impl = _tilesim.tpu
chips = _impl.chips

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
    value c mod NPU_NUM (seed 001); len(values) >= min(C, NPU_NUM).

    A NumPy array carries its dtype (codes for bit-carried dtypes, as a TENSOR); a list of
    Python numbers is values in the operand's dtype, encoded exactly like a SCALAR (1.0 in bf16
    is 0x3F80), and a value the dtype cannot hold exactly is an error."""

    def __init__(self, values):
        self.typed = isinstance(values, _np.ndarray)
        if self.typed:
            self.values = values.reshape(-1)
            return
        try:  # dtype=object keeps each number as given (a NumPy float16 keeps its bits)
            self.values = _np.asarray(values, dtype=object).reshape(-1).tolist()
        except ValueError as e:
            _fail("tilesim.tpu.vector", "values must be a flat sequence of numbers (%s)" % e)

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
    return _AddrOperand(_TENSOR, addr=_integer("tilesim.tpu.tensor", "addr", addr))


def vector_at(addr):
    """A VECTOR operand at local address ``addr``: channel c reads NPU (q + c) % NPU_NUM."""
    return _AddrOperand(_VECTOR, addr=_integer("tilesim.tpu.vector_at", "addr", addr))


def scalar(value):
    """A SCALAR operand: a value in the operand's dtype (a NumPy unsigned integer is taken as the
    code of a bit-carried dtype)."""
    return _AddrOperand(_SCALAR, value=value)


def _fail(where, msg, code="Constraint", doc="docs/tpu.md#python"):
    raise Error("%s: %s [%s]" % (where, msg, doc), code)


# The engine takes C types: local_addr_t is a 32-bit unsigned, dim4 holds ints. A Python integer
# outside them cannot be passed on, so it is rejected here with the rule it breaks (spec 60 §4:
# every rejection is a tilesim.Error); values inside are checked by the engine itself.
_ADDR_END = 1 << 32
_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1


def _integer(where, what, value):
    if isinstance(value, (bool, _np.bool_)) or not isinstance(value, numbers.Integral):
        _fail(where, "%s must be an integer, got %r" % (what, value))
    return int(value)


def _address(where, what, value, dev):
    a = _integer(where, what + " address", value)
    if not 0 <= a < _ADDR_END:
        total = dev.npu_num * dev.local_mem_size
        _fail(where, "%s address %d is outside local memory (NPU_NUM %d x LOCAL_MEM_SIZE %d = %d "
              "bytes)" % (what, a, dev.npu_num, dev.local_mem_size, total), "Bounds", "docs/tpu.md#checks")
    return a


def _dim4(where, what, values, stride=False):
    """Four ints for a dim4: shape->n..w (rule of spec 50 §4) or a stride (spec 50 §5)."""
    try:
        vals = list(values)
    except TypeError:
        vals = None
    if vals is None or len(vals) != 4:
        _fail(where, "%s must have 4 entries (n, c, h, w), got %r" % (what, values))
    out = []
    for field, v in zip("nchw", vals):
        x = _integer(where, "%s->%s" % (what, field), v)
        if not _INT_MIN <= x <= _INT_MAX:
            if stride:
                _fail(where, "%s->%s must be a non-negative int (dim4 holds C ints), got %d"
                      % (what, field, x), doc="docs/tpu.md#python")
            _fail(where, "%s->%s must be in [1, 65535], got %d" % (what, field, x), doc="docs/tpu.md#checks")
        out.append(x)
    return out


def _dt(name):
    return _impl.parse_dtype(_dtype.text(name))


def _bit_carried_codes():
    codes = set()
    for name in _BIT_CARRIED:
        try:
            codes.add(_impl.parse_dtype(name))
        except Error:  # not a TPU data type
            pass
    return codes


def _code_dtype(width):
    return _np.dtype("u%d" % width)


def _scalar_bits(value, dt_name, where, operand):
    """The code of a SCALAR value in dtype ``dt_name``."""
    dt = _dt(dt_name)
    # decided on the resolved data_type_t, so every alias and DT_ name means the same (spec 60 §2)
    is_code_dtype = dt in _bit_carried_codes()
    if isinstance(value, _np.unsignedinteger) and is_code_dtype:
        code = int(value)
        if code < 0 or code >= 1 << (8 * _impl.dtype_bytes(dt)):
            _fail(where, "%s code %d does not fit %s" % (operand, code, dt_name))
        return code
    if isinstance(value, (bool, _np.bool_)) or not isinstance(value, numbers.Real):
        _fail(where, "%s must be a number, got %r" % (operand, value))
    carrier = _np.dtype(_impl.carrier(dt))
    if isinstance(value, _np.floating) and value.dtype == carrier:
        # A float16/float32 of the operand's own format is its code: a select moves bits, NaN
        # payload and sign included (spec 00 Numerics), so nothing goes through float().
        return int(_np.asarray(value).view(_code_dtype(carrier.itemsize)))
    try:
        v = float(value)
    except OverflowError:
        _fail(where, "%s %s is not exactly representable in %s" % (operand, value, dt_name))
    return _impl.scalar_code(v, dt, where, operand)


def _vector_list(values, dt, dt_name, where, operand):
    """A list given to tpu.vector: each number encoded in dtype ``dt`` like a SCALAR, as an
    array in the dtype's carrier."""
    carrier = _np.dtype(_impl.carrier(dt))
    nums, own = [], []  # own: elements already in the operand's format, taken as bits below
    for k, v in enumerate(values):
        if isinstance(v, (bool, _np.bool_)) or not isinstance(v, numbers.Real):
            _fail(where, "%s %r (element %d) is not a number" % (operand, v, k))
        if isinstance(v, _np.floating) and v.dtype == carrier:
            own.append(k)
            nums.append(0.0)
            continue
        try:
            nums.append(float(v))
        except OverflowError:
            _fail(where, "%s %s (element %d) is not exactly representable in %s"
                  % (operand, v, k, dt_name))
    codes = _impl.value_codes(_np.array(nums, dtype=_np.float64), dt, where, operand)
    out = codes.astype(_code_dtype(carrier.itemsize))
    for k in own:
        out[k] = _np.asarray(values[k]).view(out.dtype)
    return out.view(carrier)


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
    shp = None if shape is None else _dim4(where, "shape", shape)
    for op in src:
        if isinstance(op, _np.ndarray):
            if op.ndim != 4:
                _fail(where, "a TENSOR operand must be a 4-D NCHW array, got shape %s" % (op.shape,))
            if shp is None:
                shp = _dim4(where, "shape", op.shape)
            elif list(op.shape) != shp:
                _fail(where, "TENSOR shape %s differs from the result shape %s"
                      % (op.shape, tuple(shp)))
    if shp is None:
        _fail(where, "shape=(n, c, h, w) is required when no operand is a TENSOR")
    kinds, arrays, bits = [], [], []
    for i, op in enumerate(src):
        dt, dname = (dta, a) if i < 2 else (dtb, b)
        carrier = _np.dtype(_impl.carrier(dt))
        if isinstance(op, (vector, _np.ndarray)):
            arr = op.values if isinstance(op, vector) else op
            if isinstance(op, vector) and not op.typed:
                arr = _vector_list(arr, dt, dname, where, "src%d vector value" % i)
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
            bits.append(_scalar_bits(op, dname, where, "src%d scalar" % i))
    return _impl.select_arrays(opname, kinds, arrays, bits, shp, dta, dtb, str(chip))


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
        self._d = _impl.Device(str(chip))

    npu_num = property(lambda self: self._d.npu_num)
    local_mem_size = property(lambda self: self._d.local_mem_size)
    align_bytes = property(lambda self: self._d.align_bytes)
    bank_num = property(lambda self: self._d.bank_num)
    core_num = property(lambda self: self._d.core_num)
    chip = property(lambda self: self._d.chip)
    npu_stride = property(lambda self: self._d.npu_stride)

    def memory(self):
        """A uint8 (npu_num, local_mem_size) view of the local memory: row k is NPU k."""
        return self._d.memory()

    def s2l(self, local_addr, array, dtype, stride=None):
        """tpu_gdma_cpy_S2L of an NCHW array (fewer dims are padded with leading 1s)."""
        where = "tilesim.tpu.Device.s2l"
        dt = _dt(dtype)
        carrier = _np.dtype(_impl.carrier(dt))
        addr = _address(where, "dst", local_addr, self)
        arr = _np.asarray(array)
        if arr.dtype != carrier:
            if not _np.can_cast(arr.dtype, carrier, "safe"):
                _fail(where, "array is %s; dtype %s needs %s" % (arr.dtype, dtype, carrier))
            arr = arr.astype(carrier)
        if arr.ndim > 4:
            _fail(where, "array must have at most 4 dims, got %d" % arr.ndim)
        shp = _dim4(where, "shape", (1,) * (4 - arr.ndim) + tuple(arr.shape))
        self._d._s2l(addr, _np.ascontiguousarray(arr), shp, dt,
                     None if stride is None else _dim4(where, "stride", stride, stride=True))

    def l2s(self, local_addr, shape, dtype, stride=None):
        """tpu_gdma_cpy_L2S into a new NCHW array in the dtype's carrier."""
        where = "tilesim.tpu.Device.l2s"
        return self._d._l2s(_address(where, "src", local_addr, self), _dim4(where, "shape", shape),
                            _dt(dtype),
                            None if stride is None else _dim4(where, "stride", stride, stride=True))

    def _ops(self, ops, a, b, where):
        out = []
        for i, op in enumerate(ops):
            if not isinstance(op, _AddrOperand):
                _fail(where, "src%d must be tilesim.tpu.tensor/vector_at/scalar, got %r" % (i, op))
            if op.kind == _SCALAR:
                out.append((_SCALAR, _scalar_bits(op.value, a if i < 2 else b, where,
                                                  "src%d scalar" % i)))
            else:
                kind = "TENSOR" if op.kind == _TENSOR else "VECTOR"
                out.append((op.kind, _address(where, "src%d (%s)" % (i, kind), op.addr, self)))
        return out

    def _sel(self, name, dst0, dst1, src, shape, a, b):
        where = "tilesim.tpu.Device.%s_select" % name
        two = dst1 is not None
        d0 = _address(where, "dst0" if two else "dst", dst0, self)
        d1 = _address(where, "dst1", dst1, self) if two else 0
        self._d._select(name, d0, d1, self._ops(src, a, b, where), _dim4(where, "shape", shape),
                        _dt(a), _dt(b))

    def greater_select(self, dst_addr, src0, src1, src2, src3, shape, src_dtype, dst_dtype):
        self._sel("greater", dst_addr, None, (src0, src1, src2, src3), shape, src_dtype,
                  dst_dtype)

    def less_select(self, dst_addr, src0, src1, src2, src3, shape, src_dtype, dst_dtype):
        self._sel("less", dst_addr, None, (src0, src1, src2, src3), shape, src_dtype,
                  dst_dtype)

    def equal_select(self, dst_addr, src0, src1, src2, src3, shape, src_dtype, dst_dtype):
        self._sel("equal", dst_addr, None, (src0, src1, src2, src3), shape, src_dtype,
                  dst_dtype)

    def maximum_greater_select(self, dst0_addr, dst1_addr, src0, src1, src2, src3, shape,
                               dst0_dtype, dst1_dtype):
        self._sel("maximum_greater", dst0_addr, dst1_addr, (src0, src1, src2, src3), shape,
                  dst0_dtype, dst1_dtype)

    def minimum_less_select(self, dst0_addr, dst1_addr, src0, src1, src2, src3, shape,
                            dst0_dtype, dst1_dtype):
        self._sel("minimum_less", dst0_addr, dst1_addr, (src0, src1, src2, src3), shape,
                  dst0_dtype, dst1_dtype)


    # ---- global memory (spec 51 §1; one process-wide address space shared by every Device) ----

    def global_alloc(self, nbytes):
        """tilesim_tpu_global_alloc: a zeroed, 64-byte aligned global address (bit 62 set)."""
        where = "tilesim.tpu.Device.global_alloc"
        n = _integer(where, "nbytes", nbytes)
        if n < 0:
            _fail(where, "nbytes must be >= 1, got %d" % n, doc="docs/tpu.md#global-memory")
        return _impl.global_alloc(n)

    def global_free(self, addr):
        """tilesim_tpu_global_free of an allocation's base address."""
        _impl.global_free(_global_addr("tilesim.tpu.Device.global_free", "addr", addr))

    def global_write(self, addr, array):
        """The raw bytes of ``array`` (C order) to global memory at ``addr``, inside one live
        allocation."""
        where = "tilesim.tpu.Device.global_write"
        g = _global_addr(where, "addr", addr)
        arr = _np.asarray(array)
        if arr.dtype.hasobject:
            _fail(where, "array must hold numbers, got dtype %s" % arr.dtype)
        _impl.global_write(g, _np.ascontiguousarray(arr))

    def global_read(self, addr, shape, dtype):
        """A new array of ``shape`` in the dtype's carrier from global memory at ``addr``."""
        where = "tilesim.tpu.Device.global_read"
        g = _global_addr(where, "addr", addr)
        shp = [shape] if isinstance(shape, numbers.Integral) else list(shape)
        dims = []
        for k, v in enumerate(shp):
            x = _integer(where, "shape[%d]" % k, v)
            if x < 0:
                _fail(where, "shape[%d] must be >= 0, got %d" % (k, x))
            dims.append(x)
        return _impl.global_read(g, dims, _dt(dtype))

    # ---- GDMA (spec 51 §2): vendor names without 'tpu_'; strides are keywords (None = NULL) ----

    def _gdma(self, kind, dst, src, shape, dtype, dst_stride=None, src_stride=None, c_bits=0,
              count=0, sys=(False, False)):
        where = "tilesim.tpu.Device.gdma_%s" % kind
        d = _global_addr(where, "dst_addr", dst) if sys[0] else _address(where, "dst", dst, self)
        s = 0
        if src is not None:
            s = _global_addr(where, "src_addr", src) if sys[1] else _address(where, "src", src, self)
        shp = [1, 1, 1, 1] if shape is None else _dim4(where, "shape", shape)
        ds = None if dst_stride is None else _dim4(where, "dst_stride", dst_stride, stride=True)
        ss = None if src_stride is None else _dim4(where, "src_stride", src_stride, stride=True)
        self._d._gdma(kind, d, s, shp, ds, ss, _dt(dtype), c_bits, count)

    def gdma_cpy_S2L(self, dst_addr, src_addr, shape, dtype, *, dst_stride=None, src_stride=None):
        """tpu_gdma_cpy_S2L: global memory -> local memory."""
        self._gdma("cpy_S2L", dst_addr, src_addr, shape, dtype, dst_stride, src_stride,
                   sys=(False, True))

    def gdma_cpy_L2S(self, dst_addr, src_addr, shape, dtype, *, dst_stride=None, src_stride=None):
        """tpu_gdma_cpy_L2S: local memory -> global memory."""
        self._gdma("cpy_L2S", dst_addr, src_addr, shape, dtype, dst_stride, src_stride,
                   sys=(True, False))

    def gdma_cpy_L2L(self, dst_addr, src_addr, shape, dtype, *, dst_stride=None, src_stride=None):
        """tpu_gdma_cpy_L2L: local memory -> local memory."""
        self._gdma("cpy_L2L", dst_addr, src_addr, shape, dtype, dst_stride, src_stride)

    def gdma_cpy_S2S(self, dst_addr, src_addr, shape, dtype, *, dst_stride=None, src_stride=None):
        """tpu_gdma_cpy_S2S: global memory -> global memory."""
        self._gdma("cpy_S2S", dst_addr, src_addr, shape, dtype, dst_stride, src_stride,
                   sys=(True, True))

    def gdma_set_C_system(self, dst_addr, C, shape, dtype, *, dst_stride=None):
        """tpu_gdma_set_C_system: fill global memory with C (a value in dtype)."""
        where = "tilesim.tpu.Device.gdma_set_C_system"
        self._gdma("set_C_system", dst_addr, None, shape, dtype, dst_stride,
                   c_bits=_scalar_bits(C, dtype, where, "C"), sys=(True, False))

    def gdma_set_C_local(self, dst_addr, C, shape, dtype, *, dst_stride=None):
        """tpu_gdma_set_C_local: fill local memory with C (a value in dtype)."""
        where = "tilesim.tpu.Device.gdma_set_C_local"
        self._gdma("set_C_local", dst_addr, None, shape, dtype, dst_stride,
                   c_bits=_scalar_bits(C, dtype, where, "C"))

    def gdma_system_cpy(self, dst_addr, src_addr, count, dtype):
        """tpu_gdma_system_cpy: ``count`` contiguous elements, global -> global."""
        where = "tilesim.tpu.Device.gdma_system_cpy"
        n = _integer(where, "count", count)
        if not 0 <= n < _ADDR_END:
            _fail(where, "count must fit an unsigned int, got %d" % n)
        self._gdma("system_cpy", dst_addr, src_addr, None, dtype, count=n, sys=(True, True))

    # ---- scalar casts (spec 51 §3) on a value: returned in dst_dtype's carrier ----

    def _scast(self, fn, kind, src, dst_dtype, src_dtype, mode):
        where = "tilesim.tpu.Device.%s" % fn
        dt_dst, dt_src = _dt(dst_dtype), _dt(src_dtype)
        bits = _impl.scalar_cast(fn, _scalar_bits(src, src_dtype, where, "src"), dt_dst, dt_src,
                                 _rounding(where, mode), kind)
        carrier = _np.dtype(_impl.carrier(dt_dst))
        width = carrier.itemsize
        code = _np.array([bits & ((1 << (8 * width)) - 1)], dtype=_code_dtype(width))
        return code.view(carrier)[0]

    def tpu_cast(self, src, dst_dtype, src_dtype, mode):
        """tpu_cast: ``src`` (a value in src_dtype) converted to dst_dtype with rounding ``mode``."""
        return self._scast("tpu_cast", 0, src, dst_dtype, src_dtype, mode)

    def tpu_fp_cast(self, src, dst_dtype, src_dtype, mode):
        """tpu_fp_cast: a float ``src`` converted to dst_dtype with rounding ``mode``."""
        return self._scast("tpu_fp_cast", 1, src, dst_dtype, src_dtype, mode)

    def tpu_int_cast(self, src, dst_dtype, src_dtype):
        """tpu_int_cast: an integer ``src`` converted to integer dst_dtype (saturating)."""
        return self._scast("tpu_int_cast", 2, src, dst_dtype, src_dtype, 0)


# rounding_mode_t (docs/tpu.md#bdc-arithmetic): an int or the vendor's enumerator name.
_ROUNDING = {"RM_HALF_TO_EVEN": 0, "RM_HALF_AWAY_FROM_ZERO": 1, "RM_TOWARDS_ZERO": 2, "RM_DOWN": 3,
             "RM_UP": 4, "RM_HALF_UP": 5, "RM_HALF_DOWN": 6}


def _rounding(where, mode, what="rounding_mode"):
    if isinstance(mode, str):
        v = _ROUNDING.get(mode.upper())
        if v is None:
            _fail(where, "%s %r is not a rounding_mode_t (%s)" % (what, mode, ", ".join(_ROUNDING)),
                  "Unsupported", "docs/tpu.md#bdc-arithmetic")
        return v
    v = _integer(where, what, mode)
    if not _INT_MIN <= v <= _INT_MAX:
        _fail(where, "%s %d is not a rounding_mode_t (0..6)" % (what, v), "Unsupported",
              "docs/tpu.md#bdc-arithmetic")
    return v


def _global_addr(where, what, value):
    """A global address from Device.global_alloc; Python passes no host pointers."""
    a = _integer(where, what, value)
    if not 0 <= a < 1 << 64 or not a >> 62 & 1:
        _fail(where, "%s %s is not a global address (Device.global_alloc returns them, bit 62 "
              "set); host pointers are not accepted from Python" % (what, hex(a)), "Bounds",
              "docs/tpu.md#global-memory")
    return a


# ---- BDC arithmetic (spec 51 §3): one method per row of the engine's table (src/tpu/bdc.cpp),
# generated here from its vendor prototype. Positional parameters are the prototype's in order
# without the stride pointers; those are keyword arguments (None = NULL = 64-byte aligned layout).
def _convert(dev, where, pname, value, args, c_dtype):
    if pname.endswith("_addr"):
        return _address(where, pname[:-5], value, dev)
    if pname == "shape":
        return _dim4(where, "shape", value)
    if pname.endswith("_stride"):
        return None if value is None else _dim4(where, pname, value, stride=True)
    if pname == "dtype" or pname.endswith("_dtype"):
        return _dt(value)
    if pname == "C":
        return _scalar_bits(value, args[c_dtype], where, "C")
    if pname == "true_val":
        return _scalar_bits(value, args["dst_dtype"], where, "true_val")
    if pname == "shift":
        v = _integer(where, "shift", value)
        if not -128 <= v <= 127:
            _fail(where, "shift %d does not fit the prototype's char" % v,
                  doc="docs/tpu.md#bdc-arithmetic")
        return v
    if pname in ("rounding_mode", "mode"):
        return _rounding(where, value, pname)
    if pname == "saturation":
        if not isinstance(value, (bool, _np.bool_)) and value not in (0, 1):
            _fail(where, "saturation must be a bool, got %r" % (value,))
        return bool(value)
    raise AssertionError(pname)


def _make_bdc(vendor, params, c_dtype):
    import inspect
    short = vendor[len("tpu_bdc_"):]
    where = "tilesim.tpu.Device.%s" % short
    pos = [p for p in params if not p.endswith("_stride")]
    kw = [p for p in params if p.endswith("_stride")]
    sig = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in pos]
        + [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, default=None) for p in kw])

    def method(self, *args, **kwargs):
        try:
            bound = sig.bind(self, *args, **kwargs)
        except TypeError as e:
            _fail(where, "%s; the call is %s%s" % (e, short, str(sig).replace("(self, ", "(")))
        bound.apply_defaults()
        given = bound.arguments
        names = {p: given[p] for p in params if p == "dtype" or p.endswith("_dtype")}
        out = {}
        for p in params:  # prototype order: the dtypes are known before C and true_val
            out[p] = _convert(self, where, p, given[p], names, c_dtype)
        self._d._bdc(vendor, out)

    method.__name__ = method.__qualname__ = short
    method.__signature__ = sig
    method.__doc__ = "%s%s: %s with its vendor prototype (docs/tpu.md#bdc-arithmetic)." % (
        short, str(sig).replace("(self, ", "("), vendor)
    return method


def _install_bdc():
    import keyword
    names = []
    for vendor, params, c_dtype in _impl.bdc_signatures():
        short = vendor[len("tpu_bdc_"):]
        m = _make_bdc(vendor, params, c_dtype)
        setattr(Device, short, m)
        if keyword.iskeyword(short):  # d.and(...) is a syntax error: d.and_, d.or_, d.not_ too
            setattr(Device, short + "_", m)
        names.append(short)
    return names


# The vendor names without 'tpu_bdc_', in the engine table's order (spec 51 §3).
BDC_FUNCTIONS = _install_bdc()


# The compiled Device is wrapped above; keep the Python class as the public one.
__all__ = ["vector", "tensor", "vector_at", "scalar", "Device", "greater_select", "less_select",
           "equal_select", "maximum_greater_select", "minimum_less_select", "BDC_FUNCTIONS", "Error"]
