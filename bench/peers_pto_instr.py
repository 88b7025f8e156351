"""Peers of the PTO instruction benchmarks beyond TROWEXPAND* (bench/bench_pto_instr.cpp;
bench/compare.py, spec 60 §6, issue 16 "Speed"): NumPy and PyTorch (CPU) doing the same into
preallocated outputs, in the tile's dtype, on page-aligned arrays (peers_pto.py's helper, imported);
memcpy of the bytes read + written for the memory-bound instructions (none for the transcendental
ones: TEXP TLOG TRSQRT TCOLEXPANDEXPDIF); and, for fp32 64x64, the roofline loop of
bench_pto_instr.cpp (BM_pto_roofline_<instr>). A peer that lacks the operation in that dtype (CPU
PyTorch 1.13 has no fp16 exp, log, sqrt or rsqrt) is recorded absent.

What each peer does where it is not one call (the same result from the same inputs):
  trsqrt    NumPy: sqrt, then 1 / x in place (NumPy has no rsqrt)
  tcolexpandexpdif  subtract, then exp in place (both)
  tcmp      NumPy: less into a bool array, then packbits (little bit order: tilesim's packed words);
            PyTorch: lt into a bool tensor, one byte per predicate (it has no bit packing)
  tsel      the packed mask unpacked to bools (NumPy unpackbits; PyTorch bitwise_and with the
            eight bit values and ne 0, into preallocated tensors), then NumPy copyto(z, y),
            copyto(z, x, where=mask) / PyTorch where(mask, x, y, out=z)
  tcvt      copyto / Tensor.copy_ into the other dtype (fp32 -> fp16 on the fp32 shapes, fp16 ->
            fp32 on the fp16 shapes; RINT is NumPy's and PyTorch's rounding)
"""
import importlib.util
import os

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("_peers_pto_shared", os.path.join(_here, "peers_pto.py"))
_pp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_pp)
_page_aligned, _working = _pp._page_aligned, _pp._working

SHAPES = (("f32", np.float32, 64, 64), ("f32", np.float32, 256, 256), ("f32", np.float32, 1024, 1024),
          ("f16", np.float16, 16, 256), ("f16", np.float16, 256, 256))
# (instr, form) in bench_pto_instr.cpp's order.
INSTRS = (("tadd", "binary"), ("tsub", "binary"), ("tmul", "binary"), ("tdiv", "binary"),
          ("tmax", "binary"), ("texp", "unary"), ("tlog", "unary"), ("tsqrt", "unary"),
          ("trsqrt", "unary"), ("trecip", "unary"), ("tabs", "unary"), ("tadds", "scalar"),
          ("tmuls", "scalar"), ("tdivs", "scalar"), ("tcolexpandsub", "colexpand"),
          ("tcolexpandexpdif", "colexpand"), ("trowexpand", "rowexpand"), ("tcmp", "cmp"),
          ("tsel", "sel"), ("trowsum", "rowreduce"), ("trowmax", "rowreduce"),
          ("tcolsum", "colreduce"), ("tcvt", "cvt"))
# Input ranges as in bench_pto_instr.cpp (uniform; log/sqrt/rsqrt and divisors positive).
RANGES = {"tdiv": (0.25, 4.0), "tlog": (0.25, 4.0), "tsqrt": (0.25, 4.0), "trsqrt": (0.25, 4.0),
          "trecip": (0.25, 4.0)}
TRANSCENDENTAL = {"texp", "tlog", "trsqrt", "tcolexpandexpdif"}  # compute-bound: no memcpy target
SCALAR = 1.5

NP_BINARY = {"tadd": np.add, "tsub": np.subtract, "tmul": np.multiply, "tdiv": np.divide,
             "tmax": np.maximum, "tadds": np.add, "tmuls": np.multiply, "tdivs": np.divide,
             "tcolexpandsub": np.subtract}
NP_UNARY = {"texp": np.exp, "tlog": np.log, "tsqrt": np.sqrt, "trecip": np.reciprocal,
            "tabs": np.abs}


def _torch_mod():
    try:
        import torch
    except Exception:
        return None
    torch.set_num_threads(1)
    return torch


def _arrays(rng, name, form, dt, r, c):
    """The operands and outputs of one case (page-aligned), and the bytes read + written."""
    lo, hi = RANGES.get(name, (-1.0, 3.0))
    it = np.dtype(dt).itemsize

    def src(shape):
        return _page_aligned(rng.uniform(lo, hi, shape).astype(dt))

    def out(shape, t=dt):
        return _page_aligned(np.zeros(shape, t))

    n = r * c
    words = (c + 31) // 32
    if form == "binary":
        a = {"x": src((r, c)), "y": src((r, c)), "z": out((r, c))}
        nbytes = 3 * n * it
    elif form in ("unary", "scalar"):
        a = {"x": src((r, c)), "z": out((r, c))}
        nbytes = 2 * n * it
    elif form == "colexpand":
        a = {"x": src((r, c)), "y": src((1, c)), "z": out((r, c))}
        nbytes = 2 * n * it + c * it
    elif form == "rowexpand":
        a = {"y": src((r, 1)), "z": out((r, c))}
        nbytes = n * it + r * it
    elif form == "cmp":
        a = {"x": src((r, c)), "y": src((r, c)), "b": out((r, c), np.bool_)}
        nbytes = 2 * n * it + r * words * 4
    elif form == "sel":
        m = _page_aligned(rng.integers(0, 1 << 32, (r, words), dtype=np.uint32))
        a = {"x": src((r, c)), "y": src((r, c)), "z": out((r, c)), "m": m,
             "bits": out((r, words * 4, 8), np.uint8), "b": out((r, words * 4, 8), np.bool_)}
        nbytes = 3 * n * it + r * words * 4
    elif form == "rowreduce":
        a = {"x": src((r, c)), "z": out((r,))}
        nbytes = n * it + r * it
    elif form == "colreduce":
        a = {"x": src((r, c)), "z": out((c,))}
        nbytes = n * it + c * it
    else:  # cvt: fp32 -> fp16, fp16 -> fp32
        to = np.float16 if dt == np.float32 else np.float32
        a = {"x": src((r, c)), "z": out((r, c), to)}
        nbytes = n * (it + np.dtype(to).itemsize)
    return a, nbytes


def _numpy(name, form, a, dt):
    x, y, z = a.get("x"), a.get("y"), a.get("z")
    s = dt(SCALAR)
    if name in NP_UNARY:
        fn = NP_UNARY[name]
        return lambda: fn(x, out=z)
    if name == "trsqrt":
        one = dt(1)

        def f():
            np.sqrt(x, out=z)
            np.divide(one, z, out=z)
        return f
    if form == "scalar":
        fn = NP_BINARY[name]
        return lambda: fn(x, s, out=z)
    if name == "tcolexpandexpdif":
        def f():
            np.subtract(x, y, out=z)
            np.exp(z, out=z)
        return f
    if name in NP_BINARY:
        fn = NP_BINARY[name]
        return lambda: fn(x, y, out=z)
    if name == "trowexpand":
        return lambda: np.copyto(z, y)
    if name == "tcmp":
        b = a["b"]

        def f():
            np.less(x, y, out=b)
            return np.packbits(b, axis=1, bitorder="little")
        return f
    if name == "tsel":
        m8, c = a["m"].view(np.uint8), x.shape[1]

        def f():
            mask = np.unpackbits(m8, axis=1, count=c, bitorder="little").view(np.bool_)
            np.copyto(z, y)
            np.copyto(z, x, where=mask)
        return f
    if name == "trowsum":
        return lambda: np.add.reduce(x, axis=1, out=z)
    if name == "trowmax":
        return lambda: np.maximum.reduce(x, axis=1, out=z)
    if name == "tcolsum":
        return lambda: np.add.reduce(x, axis=0, out=z)
    if name == "tcvt":
        return lambda: np.copyto(z, x, casting="same_kind")
    raise ValueError(name)


def _torch(torch, name, form, a):
    if torch is None:
        return None
    t = {k: torch.from_numpy(v) for k, v in a.items() if k != "m"}  # m: uint32, viewed below
    x, y, z = t.get("x"), t.get("y"), t.get("z")
    binary = {"tadd": torch.add, "tsub": torch.sub, "tmul": torch.mul, "tdiv": torch.div,
              "tmax": torch.maximum, "tadds": torch.add, "tmuls": torch.mul, "tdivs": torch.div,
              "tcolexpandsub": torch.sub}
    unary = {"texp": torch.exp, "tlog": torch.log, "tsqrt": torch.sqrt, "trsqrt": torch.rsqrt,
             "trecip": torch.reciprocal, "tabs": torch.abs}
    if name in unary:
        fn = unary[name]
        return lambda: fn(x, out=z)
    if form == "scalar":
        fn = binary[name]
        return lambda: fn(x, SCALAR, out=z)
    if name == "tcolexpandexpdif":
        def f():
            torch.sub(x, y, out=z)
            torch.exp(z, out=z)
        return f
    if name in binary:
        fn = binary[name]
        return lambda: fn(x, y, out=z)
    if name == "trowexpand":
        return lambda: z.copy_(y)
    if name == "tcmp":
        b = t["b"]
        return lambda: torch.lt(x, y, out=b)
    if name == "tsel":
        r, c = x.shape
        m8 = torch.from_numpy(a["m"].view(np.uint8)).unsqueeze(-1)
        vals = torch.tensor([1 << k for k in range(8)], dtype=torch.uint8)
        bits, b = t["bits"], t["b"]
        mask = b.view(r, -1)[:, :c]

        def f():
            torch.bitwise_and(m8, vals, out=bits)
            torch.ne(bits, 0, out=b)
            torch.where(mask, x, y, out=z)
        return f
    if name == "trowsum":
        return lambda: torch.sum(x, dim=1, out=z)
    if name == "trowmax":
        return lambda: torch.amax(x, dim=1, out=z)
    if name == "tcolsum":
        return lambda: torch.sum(x, dim=0, out=z)
    if name == "tcvt":
        return lambda: z.copy_(x)
    raise ValueError(name)


def cases():
    out = []
    rng = np.random.default_rng(0)
    torch = _torch_mod()
    for name, form in INSTRS:
        for tag, dt, r, c in SHAPES:
            a, nbytes = _arrays(rng, name, form, dt, r, c)
            case_name = "%s/%s/%dx%d" % (name, tag, r, c)
            case = {
                "case": "pto." + case_name, "family": "pto", "threads": 1,
                "bench": "BM_pto_" + case_name,
                "numpy": _working(_numpy(name, form, a, dt)),
                "torch": _working(_torch(torch, name, form, a)),
                "openblas": None,
                "memcpy_bytes": None if name in TRANSCENDENTAL else nbytes,
            }
            if tag == "f32" and r == 64:  # issue 16 §5: the plain -O3 loop of the same arithmetic
                case["roofline"] = "BM_pto_roofline_%s/f32/64x64" % name
            out.append(case)
    return out
