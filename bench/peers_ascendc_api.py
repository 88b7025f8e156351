"""Peers of the Ascend C vector API benchmarks (bench/bench_ascendc_api.cpp) for bench/compare.py.

Each API family at 2K, 64K and 1M elements (f16, f32) against the same operation in NumPy and
PyTorch (CPU) into preallocated outputs, plus a memcpy with the same memory traffic: it copies
half the bytes the API reads and writes together (_moved below; as bench/peers_tpu.py, and the
stricter of the two readings of spec 60 §6's "memcpy of the same bytes": PTO's element-wise peers
copy all of them, which lets a plain copy score 2x); the softmax example
kernel (1024 x 1024 floats, 8 blocks) against torch.softmax and a NumPy softmax, at 1 and 2
threads; ICPU_RUN_KF's launch overhead (no peer: tilesim only)."""
import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

FAMILIES = ("add", "mul", "div", "max", "adds", "muls", "exp", "ln", "sqrt", "relu", "reducesum", "reducemax",
            "wholereducesum", "cast", "duplicate", "compareselect", "datacopy_gm2ub", "datacopy_ub2gm")
SIZES = (2048, 65536, 1 << 20)


def _numpy(fam, a, b, c, lanes):
    if fam == "add":
        return lambda: np.add(a, b, out=c)
    if fam == "mul":
        return lambda: np.multiply(a, b, out=c)
    if fam == "div":
        return lambda: np.divide(a, b, out=c)
    if fam == "max":
        return lambda: np.maximum(a, b, out=c)
    if fam == "adds":
        return lambda: np.add(a, a.dtype.type(1), out=c)
    if fam == "muls":
        return lambda: np.multiply(a, a.dtype.type(1), out=c)
    if fam == "exp":
        return lambda: np.exp(a, out=c)
    if fam == "ln":
        return lambda: np.log(a, out=c)
    if fam == "sqrt":
        return lambda: np.sqrt(a, out=c)
    if fam == "relu":
        return lambda: np.maximum(a, a.dtype.type(0), out=c)
    if fam == "reducesum":
        return lambda: a.sum()
    if fam == "reducemax":
        return lambda: a.max()
    if fam == "wholereducesum":
        return lambda: a.reshape(-1, lanes).sum(axis=1)
    if fam == "cast":
        o = np.empty(a.size, np.float32 if a.dtype == np.float16 else np.float16)
        return lambda: np.copyto(o, a, casting="unsafe")
    if fam == "duplicate":
        return lambda: c.fill(1)
    if fam == "compareselect":
        m = np.empty(a.size, np.bool_)
        return lambda: np.where(np.less(a, b, out=m), a, b)
    if fam in ("datacopy_gm2ub", "datacopy_ub2gm"):
        return lambda: np.copyto(c, a)
    raise ValueError(fam)


def _torch(fam, a, b, c, lanes):
    if torch is None:
        return None
    ta, tb, tc = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c)
    if fam == "add":
        return lambda: torch.add(ta, tb, out=tc)
    if fam == "mul":
        return lambda: torch.mul(ta, tb, out=tc)
    if fam == "div":
        return lambda: torch.div(ta, tb, out=tc)
    if fam == "max":
        return lambda: torch.maximum(ta, tb, out=tc)
    if fam == "adds":
        return lambda: torch.add(ta, 1.0, out=tc)
    if fam == "muls":
        return lambda: torch.mul(ta, 1.0, out=tc)
    if fam == "exp":
        return lambda: torch.exp(ta, out=tc)
    if fam == "ln":
        return lambda: torch.log(ta, out=tc)
    if fam == "sqrt":
        return lambda: torch.sqrt(ta, out=tc)
    if fam == "relu":
        return lambda: torch.clamp_min(ta, 0.0, out=tc)
    if fam == "reducesum":
        return lambda: torch.sum(ta)
    if fam == "reducemax":
        return lambda: torch.max(ta)
    if fam == "wholereducesum":
        return lambda: torch.sum(ta.view(-1, lanes), dim=1)
    if fam == "cast":
        to = torch.empty(a.size, dtype=torch.float32 if a.dtype == np.float16 else torch.float16)
        return lambda: to.copy_(ta)
    if fam == "duplicate":
        return lambda: tc.fill_(1.0)
    if fam == "compareselect":
        return lambda: torch.where(torch.lt(ta, tb), ta, tb, out=tc)
    if fam in ("datacopy_gm2ub", "datacopy_ub2gm"):
        return lambda: tc.copy_(ta)
    raise ValueError(fam)


def _moved(fam, a, lanes):
    """Bytes the API call(s) of a case read and write together (its memcpy peer copies half as many:
    a copy of B bytes reads B and writes B)."""
    n = a.nbytes
    if fam in ("add", "mul", "div", "max"):
        return 3 * n  # two sources, one destination
    if fam in ("adds", "muls", "exp", "ln", "sqrt", "relu", "datacopy_gm2ub", "datacopy_ub2gm"):
        return 2 * n
    if fam == "reducesum" or fam == "reducemax":
        return n  # the source (the result is one element)
    if fam == "wholereducesum":
        return n + n // lanes  # one sum per 256 bytes
    if fam == "cast":  # half -> float reads 2 and writes 4 bytes an element; float -> half 4 and 2
        return 3 * n if a.dtype == np.float16 else 3 * n // 2
    if fam == "duplicate":
        return n  # store only
    if fam == "compareselect":  # Compare: a, b -> bit mask; Select: mask, a, b -> c
        return 5 * n + 2 * (a.size // 8)
    raise ValueError(fam)


def _works(fn):
    """fn, or None when the peer does not implement the case (PyTorch 1.13: no CPU fp16 exp/log)."""
    if fn is None:
        return None
    try:
        fn()
    except (RuntimeError, TypeError):
        return None
    return fn


def _softmax_cases():
    x = np.random.default_rng(0).uniform(-8, 8, (1024, 1024)).astype(np.float32)
    y = np.empty_like(x)

    def np_fn():
        m = x.max(axis=1, keepdims=True)
        np.subtract(x, m, out=y)
        np.exp(y, out=y)
        np.divide(y, y.sum(axis=1, keepdims=True), out=y)
    out = []
    for threads in (1, 2):
        tx = torch.from_numpy(x) if torch is not None else None
        out.append({"case": "ascendc.kernel_softmax/f32/1024x1024/b8", "family": "ascendc", "threads": threads,
                    "bench": "BM_ascendc_kernel_softmax/f32/1024x1024/b8", "numpy": np_fn,
                    "torch": (lambda: torch.softmax(tx, dim=1)) if torch is not None else None,
                    "openblas": None, "memcpy_bytes": 2 * x.nbytes})
    return out


def cases():
    out = []
    for fam in FAMILIES:
        for dn, dt in (("f16", np.float16), ("f32", np.float32)):
            lanes = 256 // np.dtype(dt).itemsize
            for n in SIZES:
                a = (0.5 + np.arange(n) % 1000 / 1000).astype(dt)
                b = (0.5 + np.arange(n) * 7 % 1000 / 1000).astype(dt)  # as bench_ascendc_api.cpp's fill
                c = np.empty_like(a)
                out.append({"case": f"ascendc.api_{fam}/{dn}/{n}", "family": "ascendc", "threads": 1,
                            "bench": f"BM_ascendc_api_{fam}/{dn}/{n}",
                            "numpy": _numpy(fam, a, b, c, lanes), "torch": _works(_torch(fam, a, b, c, lanes)),
                            "openblas": None, "memcpy_bytes": _moved(fam, a, lanes) // 2})
    out.extend(_softmax_cases())
    for blocks in (1, 8, 48):
        out.append({"case": f"ascendc.launch/empty/b{blocks}", "family": "ascendc", "threads": 1,
                    "bench": f"BM_ascendc_launch/empty/b{blocks}", "numpy": None, "torch": None,
                    "openblas": None, "memcpy_bytes": None})
    return out
