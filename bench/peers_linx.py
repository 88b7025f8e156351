"""Peers of the LinxISA benchmarks (spec 60 §6): OpenBLAS cblas_sgemm (via ctypes on
libopenblas), torch.addmm and numpy.matmul on float32, single thread and all threads.

The peers compute in fp32 on fp32 data; for the narrow tilesim types the comparison is "what a
user would run instead" (an fp32 GEMM of the same shape).
"""
import ctypes
import ctypes.util
import os

import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

_blas = None


def _openblas():
    global _blas
    if _blas is None:
        for name in ("libopenblas.so", "libopenblas.so.0", ctypes.util.find_library("openblas")):
            if not name:
                continue
            try:
                _blas = ctypes.CDLL(name)
                break
            except OSError:
                continue
    return _blas


def _all_threads():
    return max(1, os.cpu_count() or 1)


def _sgemm_call(n, threads):
    lib = _openblas()
    if lib is None:
        return None
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    c = np.empty((n, n), np.float32)
    P = ctypes.c_void_p
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
    pa, pb, pc = P(a.ctypes.data), P(b.ctypes.data), P(c.ctypes.data)
    f = lib.cblas_sgemm
    set_threads = lib.openblas_set_num_threads
    get_threads = lib.openblas_get_num_threads

    keep = (a, b, c)  # the arrays must outlive the raw pointers

    def call():
        if get_threads() != threads:
            set_threads(threads)
        f(101, 111, 111, n, n, n, one, pa, n, pb, n, zero, pc, n)  # row-major, no transposes
        return keep

    call()
    return call


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
