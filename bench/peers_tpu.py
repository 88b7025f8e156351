"""Peers of the TPU benchmarks (bench/bench_tpu.cpp, spec 60 §6): the compare-selects, and below
the BDC arithmetic, GDMA and hardtanh rows.

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


# ---- BDC arithmetic, GDMA and the hardtanh kernel at 64 K and 4 M elements (issue 19 "Speed") ----
# bench/bench_tpu.cpp: BM_tpu_bdc/<fn>/<dtype>/<size>, BM_tpu_gdma/<dir>/<dtype>/<size>,
# BM_tpu_hardtanh/<dtype>/<size>. The peers compute the same elements at their best: NumPy and
# PyTorch ufuncs into preallocated outputs (out=), one thread; a compare writes bool (tilesim
# writes the true value in the source dtype); np.where / torch.where as a user writes a select.
# memcpy copies as many bytes as the operation reads and writes together, halved: the same memory
# traffic (read + write) as the operation. A peer PyTorch lacks on the CPU (Half relu, exp,
# hardtanh in torch 1.13) is left out.
_SIZES = (("64K", 1 << 16), ("4M", 1 << 22))
_NP_DT = {"f32": np.float32, "f16": np.float16, "s32": np.int32}


def _data(label, n, rng):
    if label == "s32":
        return rng.integers(-1000, 1001, n).astype(np.int32)
    x = rng.uniform(0.25, 4.0, n) * rng.choice((-1.0, 1.0), n)
    return x.astype(_NP_DT[label])


def _torch_ok(fn):
    if fn is None:
        return None
    try:
        fn()
        return fn
    except (RuntimeError, TypeError):
        return None


# label: (tensor sources, numpy(a, b, o), torch(a, b, o)); o is the output of the dtype the
# function writes (bool for compares).
_BDC = {
    "fp_add": (2, ("f32", "f16"), lambda a, b, o: np.add(a, b, out=o), lambda a, b, o: torch.add(a, b, out=o)),
    "fp_mul_C": (1, ("f32", "f16"), lambda a, b, o: np.multiply(a, a.dtype.type(1.5), out=o),
                 lambda a, b, o: torch.mul(a, 1.5, out=o)),
    "fp_div": (2, ("f32", "f16"), lambda a, b, o: np.divide(a, b, out=o), lambda a, b, o: torch.div(a, b, out=o)),
    "max": (2, ("f32", "f16", "s32"), lambda a, b, o: np.maximum(a, b, out=o),
            lambda a, b, o: torch.maximum(a, b, out=o)),
    "int_add": (2, ("s32",), lambda a, b, o: np.add(a, b, out=o), lambda a, b, o: torch.add(a, b, out=o)),
    "greater": (2, ("f32", "f16", "s32"), lambda a, b, o: np.greater(a, b, out=o),
                lambda a, b, o: torch.gt(a, b, out=o)),
    "and": (2, ("s32",), lambda a, b, o: np.bitwise_and(a, b, out=o),
            lambda a, b, o: torch.bitwise_and(a, b, out=o)),
    "abs": (1, ("f32", "f16", "s32"), lambda a, b, o: np.abs(a, out=o), lambda a, b, o: torch.abs(a, out=o)),
    "relu": (1, ("f32", "f16", "s32"), lambda a, b, o: np.maximum(a, 0, out=o),
             lambda a, b, o: torch.clamp_min(a, 0, out=o)),
    "fp_exp": (1, ("f32", "f16"), lambda a, b, o: np.exp(a, out=o), lambda a, b, o: torch.exp(a, out=o)),
    "cpy": (1, ("f32", "f16", "s32"), lambda a, b, o: np.copyto(o, a), lambda a, b, o: o.copy_(a)),
    "cast": (1, ("f32", "f16", "s32"), lambda a, b, o: np.copyto(o, a, casting="unsafe"),
             lambda a, b, o: o.copy_(a)),
}
_CAST_TO = {"f32": "f16", "f16": "f32", "s32": "f32"}


def _bdc_cases(rng):
    out = []
    for size, n in _SIZES:
        for name, (srcs, labels, np_fn, torch_fn) in _BDC.items():
            for label in labels:
                a, b = _data(label, n, rng), _data(label, n, rng)
                dst_label = _CAST_TO[label] if name == "cast" else label
                o = np.empty(n, dtype=bool if name == "greater" else _NP_DT[dst_label])
                tfn = None
                if torch is not None:
                    ta, tb, to = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(o)
                    tfn = _torch_ok((lambda f, x, y, z: (lambda: f(x, y, z)))(torch_fn, ta, tb, to))
                e_src, e_dst = a.itemsize, np.dtype(_NP_DT[dst_label]).itemsize
                out.append({
                    "case": "tpu.bdc.%s/%s/%s" % (name, label, size),
                    "family": "tpu",
                    "threads": 1,
                    "bench": "BM_tpu_bdc/%s/%s/%s" % (name, label, size),
                    "numpy": (lambda f, x, y, z: (lambda: f(x, y, z)))(np_fn, a, b, o),
                    "torch": tfn,
                    "openblas": None,
                    "memcpy_bytes": n * (srcs * e_src + e_dst) // 2,
                })
        for label in ("f32", "f16", "s32"):  # greater_select: dst = a > b ? c : d, four tensors
            a, b, c, d = (_data(label, n, rng) for _ in range(4))
            tfn = None
            if torch is not None:
                ta, tb, tc, td = (torch.from_numpy(x) for x in (a, b, c, d))
                tfn = _torch_ok(lambda ta=ta, tb=tb, tc=tc, td=td: torch.where(ta > tb, tc, td))
            out.append({
                "case": "tpu.bdc.greater_select/%s/%s" % (label, size),
                "family": "tpu",
                "threads": 1,
                "bench": "BM_tpu_bdc/greater_select/%s/%s" % (label, size),
                "numpy": lambda a=a, b=b, c=c, d=d: np.where(a > b, c, d),
                "torch": tfn,
                "openblas": None,
                "memcpy_bytes": n * 5 * a.itemsize // 2,
            })
    return out


def _gdma_cases(rng):
    out = []
    for size, n in _SIZES:
        for d in ("S2L", "L2S", "L2L"):
            for label in ("f32", "f16", "s32"):
                src = _data(label, n, rng)
                dst = np.empty_like(src)
                tfn = None
                if torch is not None:
                    ts, td = torch.from_numpy(src), torch.from_numpy(dst)
                    tfn = lambda ts=ts, td=td: td.copy_(ts)
                out.append({
                    "case": "tpu.gdma.%s/%s/%s" % (d, label, size),
                    "family": "tpu",
                    "threads": 1,
                    "bench": "BM_tpu_gdma/%s/%s/%s" % (d, label, size),
                    "numpy": lambda s=src, t=dst: np.copyto(t, s),
                    "torch": tfn,
                    "openblas": None,
                    "memcpy_bytes": n * src.itemsize,
                })
    return out


def _hardtanh_cases(rng):
    out = []
    for size, n in _SIZES:
        for label in ("f32", "f16", "bf16"):
            x = _data("f32" if label == "bf16" else label, n, rng)
            np_fn = None if label == "bf16" else (lambda x=x: np.clip(x, -1, 1))
            tfn = None
            if torch is not None:
                tx = torch.from_numpy(x)
                if label == "bf16":
                    tx = tx.to(torch.bfloat16)
                tfn = _torch_ok(lambda tx=tx: torch.nn.functional.hardtanh(tx, -1.0, 1.0))
            out.append({
                "case": "tpu.hardtanh/%s/%s" % (label, size),
                "family": "tpu",
                "threads": 1,
                "bench": "BM_tpu_hardtanh/%s/%s" % (label, size),
                "numpy": np_fn,
                "torch": tfn,
                "openblas": None,
                "memcpy_bytes": n * (2 if label != "f32" else 4),
            })
    return out


_select_cases = cases


def cases():
    rng = np.random.default_rng(1)
    return _select_cases() + _bdc_cases(rng) + _gdma_cases(rng) + _hardtanh_cases(rng)
