"""PTO tile ISA (spec 20, 21; API of spec 60 §4): Tile, the seven TROWEXPAND* functions, one
function per row of the instruction table (tadd, tcmp, trowsum, tcvt, ...), and run.

Argument handling only; every rule and all arithmetic live in the C++ engine. The table's functions
are generated below from _tilesim.pto._instructions(), one builder per operand shape (kind).
"""
import numbers as _numbers

import numpy as _np

from . import _tilesim, _trace
from ._errors import Error
from ._load import export as _export

from . import _dtype

_impl = _export(globals(), "pto")

_FROM_NUMPY = {
    "float16": "fp16", "float32": "fp32", "int8": "s8", "int16": "s16", "int32": "s32",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "int64": "s64", "uint64": "u64",
}
_LAYOUTS = ("row_major", "col_major")


class Tile:
    """A tile owning its storage (auto mode).

    data: 2-D array = the tile's full Rows x Cols storage in logical (row, col) coordinates.
    layout: 'row_major' | 'col_major'; None = 'col_major' for a (R, 1) array, else 'row_major'.
    valid: (vr, vc); None = full. dtype: spec 60 §2 name; None = from the array's dtype
    (bf16 needs dtype='bf16' with uint16 codes). Alignment (spec 20 §1) is checked here.
    """

    def __init__(self, data, layout=None, valid=None, dtype=None):
        arr = _np.asarray(data)
        if arr.ndim != 2:
            raise _impl_error("Tile data must be a 2-D array, got %d dimensions" % arr.ndim)
        if dtype is None:
            name = _FROM_NUMPY.get(arr.dtype.name)
            if name is None:
                raise _impl_error("Tile: NumPy dtype %s is not a PTO dtype; pass dtype=" % arr.dtype)
        else:
            name = _dtype_name(dtype)
        carrier = _np.dtype(_impl._carrier(name))
        if arr.dtype != carrier:
            ints = arr.dtype.kind in "iub" and carrier.kind in "iu"
            if arr.dtype.kind != carrier.kind and not ints:
                raise _impl_error("Tile: a %s tile needs %s data, got %s" % (name, carrier, arr.dtype))
            if ints and arr.size and not _np.array_equal(arr.astype(carrier).astype(_np.int64),
                                                        arr.astype(_np.int64)):
                raise _impl_error("Tile: values do not fit the %s carrier %s" % (name, carrier))
        if layout is None:
            layout = "col_major" if arr.shape[1] == 1 else "row_major"
        if layout not in _LAYOUTS:
            raise _impl_error("Tile: layout must be 'row_major' or 'col_major', got %r" % (layout,))
        rows, cols = arr.shape
        if layout == "row_major":
            storage = _np.array(arr, dtype=carrier, order="C", copy=True)
        else:
            storage = _np.array(arr.T, dtype=carrier, order="C", copy=True)
        self._storage = storage
        self._dtype = name
        self._layout = layout
        self._valid = (rows, cols) if valid is None else (int(valid[0]), int(valid[1]))
        _impl._check_tile(self._desc())

    def _desc(self):
        return (self._storage, self._dtype, self._layout == "row_major", self._valid[0], self._valid[1])

    @property
    def data(self):
        """A NumPy view of the tile's storage in logical (row, col) coordinates."""
        return self._storage if self._layout == "row_major" else self._storage.T

    @property
    def valid(self):
        return self._valid

    @valid.setter
    def valid(self, v):
        old = self._valid
        self._valid = (int(v[0]), int(v[1]))
        try:
            _impl._check_tile(self._desc())
        except Exception:
            self._valid = old
            raise

    @property
    def layout(self):
        return self._layout

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self.data.shape

    def __repr__(self):
        return "Tile(%dx%d %s, %s, valid=%dx%d)" % (self.shape + (self._dtype, self._layout) + self._valid)


def _impl_error(msg):
    from ._errors import Error
    return Error(msg + " [docs/pto.md#python]", "Constraint")


def _as_tile(x):
    return x if isinstance(x, Tile) else Tile(x)


def _call(op, src0, src1, tmp, dst, target):
    src0, src1 = _as_tile(src0), _as_tile(src1)
    if tmp is not None:
        tmp = _as_tile(tmp)
    if dst is None:
        # spec 60 §4: the expanded operand is the ColMajor source if exactly one is; else the one
        # whose validCol is 32/sizeof(T) if exactly one has it; else src1. dst is shaped like the
        # other (the full operand), zero-filled, valid = its valid shape.
        cm = [t.layout == "col_major" for t in (src0, src1)]
        if cm[0] != cm[1]:
            expanded = 0 if cm[0] else 1
        else:
            e = 32 // src0.data.itemsize
            blk = [t.valid[1] == e for t in (src0, src1)]
            expanded = (0 if blk[0] else 1) if blk[0] != blk[1] else 1
        full = src1 if expanded == 0 else src0
        dst = Tile(_np.zeros(full.data.shape, dtype=full._storage.dtype), layout="row_major",
                   valid=full.valid, dtype=full.dtype)
    _impl._row_expand(op, dst._desc(), src0._desc(), src1._desc(),
                      None if tmp is None else tmp._desc(), target)
    return dst


def trowexpandadd(src0, src1, *, tmp=None, dst=None, target="a2a3"):
    """dst[i][j] = src0 + src1 with one operand broadcast per row (spec 20 §4)."""
    return _call("add", src0, src1, tmp, dst, target)


def trowexpandsub(src0, src1, *, tmp=None, dst=None, target="a2a3"):
    """dst = src0 - src1 (operand order kept when src0 is the expanded operand, spec 20 §4)."""
    return _call("sub", src0, src1, tmp, dst, target)


def trowexpandmul(src0, src1, *, tmp=None, dst=None, target="a2a3"):
    return _call("mul", src0, src1, tmp, dst, target)


def trowexpanddiv(src0, src1, *, tmp=None, dst=None, target="a2a3"):
    return _call("div", src0, src1, tmp, dst, target)


def trowexpandmax(src0, src1, *, tmp=None, dst=None, target="a2a3"):
    return _call("max", src0, src1, tmp, dst, target)


def trowexpandmin(src0, src1, *, tmp=None, dst=None, target="a2a3"):
    return _call("min", src0, src1, tmp, dst, target)


def trowexpandexpdif(src0, src1, *, tmp=None, dst=None, target="a2a3"):
    """dst = exp(round_T(src0 - src1)), correctly rounded (spec 20 §4)."""
    return _call("expdif", src0, src1, tmp, dst, target)


def run(program_text, inputs=None, *, valid=None, target=None, entry=None, max_mem=None, trace=None,
        trace_values=False, check=None, sync_timeline=None):
    """Runs PTO-AS source text (not a path).

    The .arg form returns every .arg and named SSA result by name; every .arg needs an input
    (docs/pto.md#running-a-program). A PTOAS func.func file
    (``module { func.func @f(%arg0: !pto.ptr<f32>, %arg1: f32, ...) }``) binds every argument by
    name without '%': !pto.ptr arguments to NumPy arrays (the GM; returned after the run, new
    arrays), scalar arguments to Python/NumPy numbers (inputs only); ``entry`` names the function
    (None = the one marked ``attributes {pto.entry}``, else the first). docs/pto.md#funcfunc-files.

    max_mem: cap on the bytes of the run's tiles (None = 2**30). trace: a path or a writable text
    file object that receives one JSON line per executed instruction (docs/cli.md#trace), or a list
    that receives one dict per instruction; trace_values adds the full contents of small results.

    check='sync' runs the pipeline-hazard checker (docs/sync.md): after the run, any missing
    set_flag/wait_flag raises tilesim.Error (code "Constraint") whose message holds every report;
    sync_timeline='run.json' (with check='sync') writes the run as a Chrome/Perfetto trace.
    """
    if check is None and sync_timeline is None:
        return _run_unchecked(program_text, inputs, valid, target, entry, max_mem, trace, trace_values)
    if check != "sync" and sync_timeline is not None:
        raise Error("tilesim.pto.run: sync_timeline= applies only with check='sync' "
                    "[docs/sync.md#timeline]", "Constraint")
    sync = _tilesim._sync
    was = sync._begin("" if check is None else str(check), sync_timeline or "")
    try:
        out = _run_unchecked(program_text, inputs, valid, target, entry, max_mem, trace, trace_values)
    finally:
        count, text = sync._end(was, sync_timeline or "")
    if count:
        raise Error(text.rstrip("\n"), "Constraint")
    return out


def _run_unchecked(program_text, inputs, valid, target, entry, max_mem, trace, trace_values):
    arrays, shapes = {}, dict(valid or {})
    for name, v in (inputs or {}).items():
        name = name.lstrip("%")
        if isinstance(v, Tile):
            arrays[name] = _np.ascontiguousarray(v.data)
            shapes.setdefault(name, v.valid)
        else:
            arrays[name] = _np.ascontiguousarray(_np.asarray(v))
    shapes = {k.lstrip("%"): (int(s[0]), int(s[1])) for k, s in shapes.items()}
    if trace is None:
        if trace_values:
            raise Error("tilesim.pto.run: trace_values=True applies only with trace= [docs/cli.md#trace]",
                        "Constraint")
        return _impl._run(program_text, arrays, shapes, target, entry,
                          None if max_mem is None else int(max_mem))
    out, text = _impl._run(program_text, arrays, shapes, target, entry,
                           None if max_mem is None else int(max_mem), 2 if trace_values else 1)
    _trace.deliver(trace, text, "tilesim.pto.run")
    return out


# ---- the instruction table's functions (spec 60 §4 "PTO whole kernels") ----

def _opt_tile(x):
    return None if x is None else _as_tile(x)


def _d(t):
    return None if t is None else t._desc()


def _is_tile_like(x):
    """A Tile or a 2-D array (a tile operand), as opposed to a scalar."""
    return isinstance(x, Tile) or (not isinstance(x, _numbers.Number) and _np.ndim(x) == 2)


def _new_tile(spec):
    dtype, rows, cols, vr, vc, row_major = spec
    carrier = _np.dtype(_impl._carrier(dtype))
    return Tile(_np.zeros((rows, cols), carrier), layout="row_major" if row_major else "col_major",
                valid=(vr, vc), dtype=dtype)


def _default(name, target, src0, src1=None, extent=-1, dtype=""):
    """The dst=None tile of spec 60 §4 (shape rules in C++, tilesim::pto::fe::default_dst)."""
    return _new_tile(_impl._default_dst(name, target, src0._desc(), _d(src1), extent, dtype))


def _scalar_text(x, dtype):
    """A Python/NumPy number as the literal the engine reads as `dtype` (spec 60 §4): integers
    exactly, floats by repr (exact), a NumPy unsigned integer as the code of a bit-carried dtype
    (bf16). Range and rounding are the C++ reader's (tilesim::pto::fe::scalar_code)."""
    if isinstance(x, _np.ndarray):
        if x.size != 1:
            raise _impl_error("a scalar must be a number or a one-element array, got shape %s"
                              % (x.shape,))
        x = x.reshape(())[()]
    if isinstance(x, (bool, _np.bool_)):
        x = int(x)
    is_float = _impl._is_float(dtype)
    if (isinstance(x, _np.unsignedinteger) and is_float
            and _np.dtype(_impl._carrier(dtype)).kind == "u"):
        return "0x%x" % int(x)
    if isinstance(x, _numbers.Integral):
        return str(int(x))
    if isinstance(x, _numbers.Real):
        f = float(x)
        if not is_float and f.is_integer():
            return str(int(f))
        return repr(f)
    raise _impl_error("a scalar must be a Python/NumPy number, got %s" % type(x).__name__)


def _dtype_name(dtype):
    """A spec 60 §2 name or alias, or a NumPy dtype (np.int32, np.float16, ...)."""
    return _impl._canonical(_dtype.text(dtype))


def _mode(x, what):
    if x is None or isinstance(x, str):
        return x
    raise _impl_error("%s must be a name (str), got %r" % (what, x))


def _exec(name, target, dst=None, src0=None, src1=None, mask=None, tmp=None, dst_idx=None,
          scalar=None, scalar_first=False, cmp=None, rmode=None, sat=None, is_binary=False,
          pattern=0, axis=0):
    _impl._execute(name, target, _d(dst), _d(src0), _d(src1), _d(mask), _d(tmp), _d(dst_idx),
                   scalar, bool(scalar_first), _mode(cmp, "cmp"), _mode(rmode, "rmode"), sat,
                   bool(is_binary), int(pattern), int(axis))


def _saturation(s):
    if s is None:
        return None
    if isinstance(s, (bool, _np.bool_)):
        return "on" if s else "off"
    return _mode(s, "saturation")


def _make(I, kind, has_tmp):  # noqa: C901 - one branch per operand shape
    """The Python function of table row I (vendor name) of operand shape `kind`."""
    doc = None
    if kind in ("Binary", "ColExpandOp"):
        def f(src0, src1, *, dst=None, target="a2a3"):
            src0, src1 = _as_tile(src0), _as_tile(src1)
            dst = dst if dst is not None else _default(I, target, src0, src1)
            _exec(I, target, dst=dst, src0=src0, src1=src1)
            return dst
        doc = ("dst = src0 OP src1. dst=None: a new row-major tile shaped like src0, valid = its"
               " valid shape" if kind == "Binary" else
               "the column twin of TROWEXPAND* (spec 21 §2). dst=None: the expanded operand is the"
               " source with validRow 1 if exactly one has it, else src1; dst is shaped like the"
               " other")
    elif kind == "BinaryTmp":
        def f(src0, src1, *, tmp=None, dst=None, target="a2a3"):
            src0, src1 = _as_tile(src0), _as_tile(src1)
            dst = dst if dst is not None else _default(I, target, src0, src1)
            _exec(I, target, dst=dst, src0=src0, src1=src1, tmp=_opt_tile(tmp))
            return dst
        doc = "dst = src0 OP src1; tmp=None: the form without tmp (same results)"
    elif kind in ("Unary", "UnaryRsqrt"):
        if kind == "Unary":
            def f(src, *, dst=None, target="a2a3"):
                src = _as_tile(src)
                dst = dst if dst is not None else _default(I, target, src)
                _exec(I, target, dst=dst, src0=src)
                return dst
        else:
            def f(src, *, tmp=None, dst=None, target="a2a3"):
                src = _as_tile(src)
                dst = dst if dst is not None else _default(I, target, src)
                _exec(I, target, dst=dst, src0=src, tmp=_opt_tile(tmp))
                return dst
        doc = "dst = OP src. dst=None: a new row-major tile shaped like src"
    elif kind in ("Scalar", "Axpy", "ScalarTmp"):
        def f(src, scalar, *, tmp=None, dst=None, target="a2a3"):
            src = _as_tile(src)
            text = _scalar_text(scalar, src.dtype)
            dst = dst if dst is not None else _default(I, target, src)
            _exec(I, target, dst=dst, src0=src, tmp=_opt_tile(tmp), scalar=text)
            return dst
        if kind != "ScalarTmp":
            g = f

            def f(src, scalar, *, dst=None, target="a2a3"):  # noqa: F811 - no tmp form
                return g(src, scalar, dst=dst, target=target)
        doc = ("dst = scalar * src + dst (a given dst is read). dst=None: zeros shaped like src"
               if kind == "Axpy" else
               "dst = src OP scalar; the scalar is a Python/NumPy number read as src's dtype")
    elif kind == "LeakyRelu":
        def f(src, slope, *, dst=None, target="a2a3"):
            src = _as_tile(src)
            text = _scalar_text(slope, src.dtype)
            dst = dst if dst is not None else _default(I, target, src)
            _exec(I, target, dst=dst, src0=src, scalar=text)
            return dst
        doc = "dst = src > 0 ? src : src * slope; slope read as src's dtype"
    elif kind == "ScalarDiv":
        def f(src, scalar, *, dst=None, target="a2a3"):
            first = not _is_tile_like(src)
            if first:
                src, scalar = scalar, src
            src = _as_tile(src)
            text = _scalar_text(scalar, src.dtype)
            dst = dst if dst is not None else _default(I, target, src)
            _exec(I, target, dst=dst, src0=src, scalar=text, scalar_first=first)
            return dst
        doc = "dst = src / scalar; called as (scalar, src): dst = scalar / src"
    elif kind == "ExpandScalar":
        def f(scalar, shape=None, dtype=None, *, valid=None, dst=None, target="a2a3"):
            if dst is None:
                if shape is None or dtype is None:
                    raise _impl_error("%s: without a dst, shape and dtype must be given" % I)
                name = _dtype_name(dtype)
                dst = Tile(_np.zeros(tuple(shape), _np.dtype(_impl._carrier(name))), valid=valid,
                           dtype=name)
            else:
                if shape is not None and tuple(shape) != dst.shape:
                    raise _impl_error("%s: shape %s differs from dst's %s" % (I, tuple(shape), dst.shape))
                if dtype is not None and _dtype_name(dtype) != dst.dtype:
                    raise _impl_error("%s: dtype %s differs from dst's %s" % (I, dtype, dst.dtype))
                if valid is not None:
                    dst.valid = valid
            _exec(I, target, dst=dst, scalar=_scalar_text(scalar, dst.dtype))
            return dst
        doc = "dst = scalar over dst's valid region; scalar read as dtype (as for tadds)"
    elif kind in ("Compare", "CompareScalar"):
        def cmp_call(src0, src1, cmp, dst, target):
            src0 = _as_tile(src0)
            if kind == "CompareScalar" and not _is_tile_like(src1):
                text, src1 = _scalar_text(src1, src0.dtype), None
            else:
                text, src1 = None, _as_tile(src1)
            dst = dst if dst is not None else _default(I, target, src0, src1)
            _exec(I, target, dst=dst, src0=src0, src1=src1, scalar=text, cmp=cmp)
            return dst
        if kind == "Compare":
            def f(src0, src1, cmp, *, dst=None, target="a2a3"):
                return cmp_call(src0, src1, cmp, dst, target)
        else:
            def f(src, scalar, cmp, *, dst=None, target="a2a3"):
                return cmp_call(src, scalar, cmp, dst, target)
        doc = ("the packed predicate mask of src0 CMP src1 (spec 21 §2; tcmps: a scalar read as"
               " src's dtype, or a tile whose element (0, 0) is compared); cmp 'eq' 'ne' 'lt' 'gt'"
               " 'le' 'ge' (any case, also 'CmpMode::LT'). dst=None: a zero-filled u8 (a2a3, cpu)"
               " / u32 (a5) tile, src0's rows, the fewest aligned columns >= ceil(C/W)")
    elif kind in ("Select", "SelectScalar"):
        def sel_call(mask, src0, src1, tmp, dst, target):
            mask, src0 = _as_tile(mask), _as_tile(src0)
            if kind == "SelectScalar":
                text, src1 = _scalar_text(src1, src0.dtype), None
            else:
                text, src1 = None, _as_tile(src1)
            dst = dst if dst is not None else _default(I, target, src0, src1)
            _exec(I, target, dst=dst, src0=src0, src1=src1, mask=mask, tmp=_opt_tile(tmp),
                  scalar=text)
            return dst
        if kind == "Select":
            def f(mask, src0, src1, *, tmp=None, dst=None, target="a2a3"):
                return sel_call(mask, src0, src1, tmp, dst, target)
        else:
            def f(mask, src, scalar, *, tmp=None, dst=None, target="a2a3"):
                return sel_call(mask, src, scalar, tmp, dst, target)
        doc = ("dst = mask bit ? src0 : src1 (tsels: a scalar read as src's dtype); the mask as"
               " tcmp writes it; tmp=None: the form without tmp (same results). dst=None: shaped"
               " like src0")
    elif kind in ("RowReduce", "ColReduce"):
        def f(src, *, tmp=None, is_binary=False, dst=None, target="a2a3"):
            src = _as_tile(src)
            dst = dst if dst is not None else _default(I, target, src)
            _exec(I, target, dst=dst, src0=src, tmp=_opt_tile(tmp), is_binary=is_binary)
            return dst
        g = f
        if kind == "RowReduce":
            def f(src, *, tmp=None, dst=None, target="a2a3"):  # noqa: F811
                return g(src, tmp=tmp, dst=dst, target=target)
            doc = ("dst[i][0] = OP over row i. dst=None: (R, 1) col_major; tmp=None: a scratch"
                   " tile (same results)")
        elif not has_tmp:
            def f(src, *, dst=None, target="a2a3"):  # noqa: F811
                return g(src, dst=dst, target=target)
            doc = "dst[0][j] = OP over column j. dst=None: (1, C) row_major"
        else:
            doc = ("dst[0][j] = OP over column j; tmp given: the (dst, src, tmp, isBinary) form."
                   " dst=None: (1, C) row_major")
    elif kind in ("RowArg", "ColArg"):
        def f(src, *, tmp=None, dst=None, dst_val=None, target="a2a3"):
            src = _as_tile(src)
            dst = dst if dst is not None else _default(I, target, src)
            _exec(I, target, dst=dst_val, dst_idx=dst, src0=src, tmp=_opt_tile(tmp))
            return dst
        doc = ("the int32 index of the extremum of each %s; dst_val given: also the values"
               " (dstVal, dstIdx form). dst=None: %s" %
               (("row", "(R, 1) col_major") if kind == "RowArg" else ("column", "(1, C) row_major")))
    elif kind in ("RowExpand", "ColExpand"):
        def f(src, n=None, *, dst=None, target="a2a3"):
            src = _as_tile(src)
            if dst is None:
                dst = _default(I, target, src, extent=-1 if n is None else int(n))
            elif n is not None and int(n) != dst.valid[1 if kind == "RowExpand" else 0]:
                raise _impl_error("%s: %d differs from dst's valid shape %s" % (I, n, dst.valid))
            _exec(I, target, dst=dst, src0=src)
            return dst
        g = f
        if kind == "RowExpand":
            def f(src, cols=None, *, dst=None, target="a2a3"):  # noqa: F811
                return g(src, cols, dst=dst, target=target)
            doc = "dst[i][j] = src[i][0]. dst=None: src's storage rows x cols, valid (src validRow, cols)"
        else:
            def f(src, rows=None, *, dst=None, target="a2a3"):  # noqa: F811
                return g(src, rows, dst=dst, target=target)
            doc = "dst[i][j] = src[0][j]. dst=None: rows x src's storage columns, valid (rows, src validCol)"
    elif kind == "Convert":
        def f(src, dtype=None, *, rmode="rint", saturation=None, tmp=None, dst=None,
              target="a2a3"):
            src = _as_tile(src)
            if dst is None:
                if dtype is None:
                    raise _impl_error("%s: without a dst, dtype must be given" % I)
                dst = _default(I, target, src, dtype=_dtype_name(dtype))
            elif dtype is not None and _dtype_name(dtype) != dst.dtype:
                raise _impl_error("%s: dtype %s differs from dst's %s" % (I, dtype, dst.dtype))
            _exec(I, target, dst=dst, src0=src, tmp=_opt_tile(tmp), rmode=rmode,
                  sat=_saturation(saturation))
            return dst
        doc = ("src converted to dtype (spec 15 §2). rmode 'none' 'rint' 'round' 'floor' 'ceil'"
               " 'trunc' 'odd' (also 'CAST_RINT' ...); saturation None (the target's default),"
               " 'on' / 'off' or True / False; tmp given: a2a3's tmp form. dst=None: src's rows,"
               " the fewest aligned columns >= src's, valid = src's")
    else:
        raise ImportError("tilesim.pto: no Python builder for operand shape %r (%s)" % (kind, I))
    f.__name__ = f.__qualname__ = I.lower()
    f.__module__ = __name__
    f.__doc__ = "%s (spec 21 §2, docs/pto-instructions.md): %s." % (I, doc)
    return f


for _name, _kind, _has_tmp in _impl._instructions():
    globals()[_name.lower()] = _make(_name, _kind, _has_tmp)
del _name, _kind, _has_tmp


# MaskPattern name -> (value, f, p): one element of every f, at position p (docs/pto-instructions.md#gather-and-scatter)
_PATTERNS = {"P0101": (1, 2, 0), "P1010": (2, 2, 1), "P0001": (3, 4, 0), "P0010": (4, 4, 1),
             "P0100": (5, 4, 2), "P1000": (6, 4, 3), "P1111": (7, 1, 0)}


def _pattern(name, p):
    """A MaskPattern name ('P0101', 'MaskPattern::P0101', any case) -> (value, f, p); None -> (0, 1, 0)."""
    if p is None:
        return 0, 1, 0
    if isinstance(p, str):
        key = p.upper().split("::")[-1]
        if key in _PATTERNS:
            return _PATTERNS[key]
    raise _impl_error("%s: mask_pattern must be one of %s, got %r" % (name, " ".join(_PATTERNS), p))


def _axis(name, a):
    key = str(a).lower().split("::")[-1].split("_")[-1]
    if key not in ("row", "col"):
        raise _impl_error("%s: axis must be 'row' or 'col', got %r" % (name, a))
    return 0 if key == "row" else 1


def _zeros_like_dtype(shape, dtype):
    return Tile(_np.zeros(tuple(shape), _np.dtype(_impl._carrier(dtype))), dtype=dtype)


def tgather(src, indices=None, *, mask_pattern=None, axis="row", tmp=None, dst=None, target="a2a3"):
    src = _as_tile(src)
    pattern, factor, pos = _pattern("TGATHER", mask_pattern)
    if (indices is None) == (pattern == 0):
        raise _impl_error("TGATHER: give indices or mask_pattern, one of them")
    if pattern == 0:
        indices = _as_tile(indices)
        if dst is None:
            dst = _zeros_like_dtype(indices.valid, src.dtype)
        if tmp is None and target == "a2a3":  # a2a3's form needs tmp: a scratch one (same results)
            tmp = _zeros_like_dtype(indices.valid, indices.dtype)
        _exec("TGATHER", target, dst=dst, src0=src, src1=indices, tmp=_opt_tile(tmp))
        return dst
    ax = _axis("TGATHER", axis)
    if dst is None:
        rows, cols = src.valid
        dst = _zeros_like_dtype((rows // factor, cols) if ax else (rows, len(range(pos, cols, factor))),
                                src.dtype)
    _exec("TGATHER", target, dst=dst, src0=src, pattern=pattern, axis=ax)
    return dst


def tscatter(src, indexes=None, *, mask_pattern=None, axis="row", dst=None, target="a2a3"):
    src = _as_tile(src)
    pattern, factor, _ = _pattern("TSCATTER", mask_pattern)
    if (indexes is None) == (pattern == 0):
        raise _impl_error("TSCATTER: give indexes or mask_pattern, one of them")
    ax = _axis("TSCATTER", axis) if pattern else 0
    if dst is None:
        rows, cols = src.valid
        shape = src.shape if pattern == 0 else (rows * factor, cols) if ax else (rows, cols * factor)
        dst = _zeros_like_dtype(shape, src.dtype)
    _exec("TSCATTER", target, dst=dst, src0=src, src1=None if indexes is None else _as_tile(indexes),
          pattern=pattern, axis=ax)
    return dst


def tmatmul(a, b, *, acc=None, bias=None, dtype_acc=None, target="a2a3"):
    """TMATMUL (spec 21 §2; docs/pto-kernels.md#matrix): ``a (M, K) @ b (K, N)`` on the GEMM core.

    tmatmul(a, b, *, acc=None, bias=None, dtype_acc=None, target='a2a3') -> np.ndarray

    a, b: 2-D arrays (float16, float32, int8) or Tiles (any of fp16 bf16 fp32 s8), placed in Left
    and Right tiles of the cube layouts. acc given: TMATMUL_ACC, the chain starts from it; bias
    given (N values): TMATMUL_BIAS. Result: (M, N) float32 (int32 for s8 operands); dtype_acc, if
    given, must name that dtype. Example::

        c = tilesim.pto.tmatmul(np.ones((16, 32), np.float16), np.ones((32, 8), np.float16))
    """
    def operand(x, who):
        if isinstance(x, Tile):
            r, c = x.valid
            return _np.ascontiguousarray(x.data[:r, :c]), x.dtype
        arr = _np.ascontiguousarray(x)
        names = {_np.dtype(_np.float16): "fp16", _np.dtype(_np.float32): "fp32", _np.dtype(_np.int8): "s8"}
        if arr.dtype not in names:
            raise _impl_error(f"tmatmul: {who} must be float16, float32 or int8 (or a Tile), got {arr.dtype}")
        return arr, names[arr.dtype]

    (xa, da), (xb, db) = operand(a, "a"), operand(b, "b")
    if dtype_acc is not None:
        want = "s32" if da == "s8" else "fp32"
        if _dtype_name(dtype_acc) != want:
            raise _impl_error(f"tmatmul: dtype_acc must be {want} for {da} operands, got {dtype_acc}")
    return _impl._tmatmul(xa, da, xb, db, acc, bias, target)
