"""Peers of the TPU compare-select benchmarks (bench/bench_tpu.cpp, spec 60 §6).

What a user would write instead on the CPU: NumPy ``np.where(a > b, c, d)`` and PyTorch
``torch.where(a > b, c, d)`` on the same NCHW data (SCALAR operands as Python scalars, VECTOR
operands as a (1, C, 1, 1) broadcast array), plus memcpy of the bytes the instruction reads and
writes. The extremum functions compute both results: where(m, a, b) and where(m, c, d).
"""
import numpy as np

try:
    import torch
except ImportError:  # torch is optional for the comparison
    torch = None

_SELECT_DT = (("f32", np.float32, np.float32), ("f16", np.float16, np.float16),
              ("s8_s32", np.int8, np.int32))
_EXT_DT = (("f32_s32", np.float32, np.int32), ("f16_s16", np.float16, np.int16),
           ("s8_s8", np.int8, np.int8))
_SHAPES = ((1, 64, 32, 64), (1, 256, 64, 64))
_MIXES = ("TTTT", "TSTS", "TVTS")
_OPS = (("greater_select", "gt", False), ("less_select", "lt", False),
        ("equal_select", "eq", False), ("maximum_greater_select", "gt", True),
        ("minimum_less_select", "lt", True))


def _operands(mix, shape, ta, tb, rng):
    out = []
    for i, k in enumerate(mix):
        t = ta if i < 2 else tb
        if k == "T":
            out.append(rng.integers(0, 64, shape).astype(t))
        elif k == "V":
            out.append(rng.integers(0, 64, (1, shape[1], 1, 1)).astype(t))
        else:
            out.append(t(33).item())
    return out


def _np_call(op, ext, a, b, c, d):
    f = {"gt": np.greater, "lt": np.less, "eq": np.equal}[op]
    if not ext:
        return lambda: np.where(f(a, b), c, d)

    def run():
        m = f(a, b)
        return np.where(m, a, b), np.where(m, c, d)
    return run


def _torch_call(op, ext, a, b, c, d):
    if torch is None:
        return None
    ta = torch.from_numpy(a)
    tc = torch.from_numpy(c)  # src0 and src2 are TENSOR in every mix

    def as_t(x, dtype):  # a SCALAR becomes a 0-d tensor, a VECTOR a broadcast (1, C, 1, 1) one
        return torch.from_numpy(x) if isinstance(x, np.ndarray) else torch.tensor(x, dtype=dtype)
    tb, td = as_t(b, ta.dtype), as_t(d, tc.dtype)
    f = {"gt": torch.gt, "lt": torch.lt, "eq": torch.eq}[op]
    if not ext:
        return lambda: torch.where(f(ta, tb), tc, td)

    def run():
        m = f(ta, tb)
        return torch.where(m, ta, tb), torch.where(m, tc, td)
    return run


def cases():
    rng = np.random.default_rng(0)
    out = []
    for name, op, ext in _OPS:
        for label, ta, tb in (_EXT_DT if ext else _SELECT_DT):
            for shape in _SHAPES:
                for mix in _MIXES:
                    a, b, c, d = _operands(mix, shape, ta, tb, rng)
                    n = int(np.prod(shape))
                    ea, eb = np.dtype(ta).itemsize, np.dtype(tb).itemsize
                    moved = n * (ea + eb if ext else eb)
                    moved += sum(n * (ea if i < 2 else eb) for i, k in enumerate(mix) if k == "T")
                    sname = "x".join(str(x) for x in shape)
                    out.append({
                        "case": "tpu.%s/%s/%s/%s" % (name, label, sname, mix),
                        "family": "tpu",
                        "threads": 1,
                        "bench": "BM_tpu_%s/%s/%s/%s" % (name, label, sname, mix),
                        "numpy": _np_call(op, ext, a, b, c, d),
                        "torch": _torch_call(op, ext, a, b, c, d),
                        "openblas": None,
                        "memcpy_bytes": moved,
                    })
    return out
