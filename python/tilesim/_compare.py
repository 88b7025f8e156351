"""tilesim.compare: a result against an expectation, with a report (docs/cli.md#expect)."""
import numpy as _np

from . import _tilesim
from ._errors import Error


class CompareReport:
    """What tilesim.compare found.

    ok (also bool(report)): no element differs. count: elements compared. mismatches: how many
    differ. first: the first few mismatches, each a dict with index (a tuple), got, want (values),
    got_bits, want_bits (the codes) and ulp (the distance in units in the last place; None when a
    NaN is involved; for integers |got - want|). nan_got, nan_want: NaN counts. max_ulp: the
    largest ulp distance among the mismatches. rtol, atol, bits: the rule used.
    """

    def __init__(self, d, rtol, atol, bits, dtype, shape):
        self.count = d["count"]
        self.mismatches = d["mismatches"]
        self.first = list(d["first"])
        self.nan_got = d["nan_got"]
        self.nan_want = d["nan_want"]
        self.max_ulp = d["max_ulp"]
        self.rtol, self.atol, self.bits = rtol, atol, bits
        self.dtype, self.shape = dtype, shape
        self._text = d["text"]

    @property
    def ok(self):
        return self.mismatches == 0

    def __bool__(self):
        return self.ok

    def __str__(self):
        return self._text.rstrip("\n")

    def __repr__(self):
        return f"<CompareReport {self.dtype}{list(self.shape)}: {self._text.rstrip()}>"


def _array(x):
    data = getattr(x, "data", None)
    if not isinstance(x, _np.ndarray) and isinstance(data, _np.ndarray):  # a tilesim.pto.Tile
        return data
    return x


def compare(got, want, rtol=0.0, atol=0.0, bits=False):
    """compare(got, want, rtol=0.0, atol=0.0, bits=False) -> CompareReport

    Compares ``got`` with ``want`` element by element. Both are NumPy arrays (or Tiles) of one
    dtype and shape: float16/float32/float64 compare as values (NaN matches NaN, +0 matches -0,
    a pair differs when ``|got - want| > atol + rtol * |want|``), integers (and the uint codes of
    bf16, fp8, ...) as integers; ``bits=True`` compares bit patterns (then +0 and -0 differ).
    ``want`` that is not an array is converted to ``got``'s dtype first. A dtype or shape
    difference is a tilesim.Error.

    Example:
        >>> r = tilesim.compare(np.float32([1, 2]), np.float32([1, 2.5]))
        >>> r.ok, r.mismatches, r.first[0]["index"]
        (False, 1, (1,))
    """
    got = _array(got)
    want = _array(want)
    if not isinstance(got, _np.ndarray):
        got = _np.asarray(got)
    if not isinstance(want, _np.ndarray):
        want = _np.asarray(want, dtype=got.dtype)
    if bits and (rtol or atol):
        raise Error("tilesim.compare: bits=True compares bit patterns; rtol/atol do not apply "
                    "[docs/cli.md#expect]", "Constraint")
    d = _tilesim._compare._compare(got, want, float(rtol), float(atol), bool(bits))
    return CompareReport(d, float(rtol), float(atol), bool(bits), str(got.dtype), got.shape)
