"""Peers of the correctly rounded math benchmarks (bench/bench_ops_math.cpp) for bench/compare.py:
NumPy's and PyTorch's float32/float16 exp, log, sqrt, reciprocal and PyTorch's rsqrt (NumPy has
none: 1/sqrt in two passes), on the same inputs; memcpy of the array's bytes (the op reads and
writes as many)."""
import numpy as np

N = 1 << 20


def _inputs(fn):
    if fn == "exp":
        return np.random.default_rng(1).uniform(-20, 20, N).astype(np.float32)
    return (40 - np.random.default_rng(2).uniform(0, 40, N)).astype(np.float32)


def cases():
    np.seterr(over="ignore")  # fp16 e^x overflows to Inf above x = 11.09, as it should
    out = []
    for fn in ("exp", "ln", "sqrt", "rsqrt", "recip"):
        for dtype, npt in (("fp32", np.float32), ("fp16", np.float16)):
            x = _inputs(fn).astype(npt)
            o = np.empty_like(x)
            np_fn = {
                "exp": lambda x=x, o=o: np.exp(x, out=o),
                "ln": lambda x=x, o=o: np.log(x, out=o),
                "sqrt": lambda x=x, o=o: np.sqrt(x, out=o),
                "rsqrt": lambda x=x, o=o: np.divide(1, np.sqrt(x, out=o), out=o),
                "recip": lambda x=x, o=o: np.reciprocal(x, out=o),
            }[fn]
            try:
                import torch
                xt, ot = torch.from_numpy(x), torch.from_numpy(o)
                t_fn = {
                    "exp": lambda xt=xt, ot=ot: torch.exp(xt, out=ot),
                    "ln": lambda xt=xt, ot=ot: torch.log(xt, out=ot),
                    "sqrt": lambda xt=xt, ot=ot: torch.sqrt(xt, out=ot),
                    "rsqrt": lambda xt=xt, ot=ot: torch.rsqrt(xt, out=ot),
                    "recip": lambda xt=xt, ot=ot: torch.reciprocal(xt, out=ot),
                }[fn]
                t_fn()  # PyTorch 1.13 has no CPU float16 exp/log/rsqrt ("not implemented for 'Half'")
            except (ImportError, RuntimeError):
                t_fn = None
            out.append({
                "case": f"ops.math_{fn}/{dtype}/1Mi", "family": "ops", "threads": 1,
                "bench": f"BM_ops_math_{fn}/{dtype}/1Mi",
                "numpy": np_fn, "torch": t_fn, "openblas": None,
                "memcpy_bytes": x.nbytes,
            })
    return out
