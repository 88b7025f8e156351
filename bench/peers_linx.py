"""Peers of the LinxISA benchmarks (spec 60 §6): OpenBLAS cblas_sgemm (bench/openblas_peer.py: its
own process, OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE unset), torch.addmm and numpy.matmul on float32, single thread and all threads.

The peers compute in fp32 on fp32 data; for the narrow tilesim types the comparison is "what a
user would run instead" (an fp32 GEMM of the same shape).
"""
import importlib.util
import os

import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("_openblas_peer", os.path.join(_here, "openblas_peer.py"))
_ob = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ob)


def _all_threads():
    return max(1, os.cpu_count() or 1)


def _sgemm_call(n, threads):
    """OpenBLAS in its own process with the host's kernel-forcing variables unset."""
    return _ob.Sgemm(n, n, n, threads)


def _torch_call(n, threads):
    if torch is None:
        return None
    g = torch.Generator().manual_seed(0)
    a = torch.rand((n, n), generator=g, dtype=torch.float32)
    b = torch.rand((n, n), generator=g, dtype=torch.float32)
    bias = torch.rand((n,), generator=g, dtype=torch.float32)

    def call():
        if torch.get_num_threads() != threads:  # switching costs milliseconds; only when needed
            torch.set_num_threads(threads)
        torch.addmm(bias, a, b)

    call()
    return call


def _numpy_call(n):
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    return lambda: np.matmul(a, b)


def cases():
    out = []
    all_t = _all_threads()
    threads = [1] if all_t == 1 else [1, all_t]
    for n in (64, 128):
        for t in threads:
            out.append({
                "case": f"linx.tmatmul_bias/fp32/{n}x{n}x{n}", "family": "linx", "threads": t,
                "bench": f"BM_linx_tmatmul_bias/fp32/{n}x{n}x{n}/threads:{t}",
                "numpy": _numpy_call(n) if t == 1 else None, "torch": _torch_call(n, t),
                "openblas": _sgemm_call(n, t), "memcpy_bytes": 3 * n * n * 4,
            })
    for dt in ("fp32", "fp16", "bf16", "e4m3", "s8"):
        for n in (256, 512, 1024):
            for t in threads:
                out.append({
                    "case": f"linx.gemm/{dt}/{n}x{n}x{n}", "family": "linx", "threads": t,
                    "bench": f"BM_linx_gemm/{dt}/{n}x{n}x{n}/threads:{t}",
                    "numpy": _numpy_call(n) if t == 1 else None, "torch": _torch_call(n, t),
                    "openblas": _sgemm_call(n, t), "memcpy_bytes": 3 * n * n * 4,
                })
    return out
