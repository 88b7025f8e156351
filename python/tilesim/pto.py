"""PTO tile ISA (spec 20, API of spec 60 §4): Tile, the seven TROWEXPAND* functions, run.

Argument handling only; every rule and all arithmetic live in the C++ engine.
"""
import numpy as _np

from ._load import export as _export

_impl = _export(globals(), "pto")

_FROM_NUMPY = {
    "float16": "fp16", "float32": "fp32", "int8": "s8", "int16": "s16", "int32": "s32",
    "uint8": "u8", "uint16": "u16", "uint32": "u32",
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
            name = _impl._canonical(str(dtype))
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
    return Error(msg + " [spec 60 §4]", "Constraint")


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


def run(program_text, inputs=None, *, valid=None, target=None):
    """Runs PTO-AS source text (not a path); returns every .arg and named SSA result by name."""
    arrays, shapes = {}, dict(valid or {})
    for name, v in (inputs or {}).items():
        name = name.lstrip("%")
        if isinstance(v, Tile):
            arrays[name] = _np.ascontiguousarray(v.data)
            shapes.setdefault(name, v.valid)
        else:
            arrays[name] = _np.ascontiguousarray(_np.asarray(v))
    shapes = {k.lstrip("%"): (int(s[0]), int(s[1])) for k, s in shapes.items()}
    return _impl._run(program_text, arrays, shapes, target)
