"""Peers of the LinxISA benchmarks (spec 60 §6): OpenBLAS cblas_sgemm (bench/openblas_peer.py: its
own process, OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE unset), torch.addmm and numpy.matmul on float32, single thread and all threads.

Programs of v0.56 words (issue 20 "Speed"): linx.words_gemm (TLOAD -> TMATMUL/.ACC K loop -> ACCCVT
-> TSTORE, memory to memory, 512^3, 1 and 2 threads) against the same GEMM peers; linx.tma_move
(TLOAD then TSTORE of one tile: the bytes move twice) against memcpy of twice the tile's bytes;
linx.tepl (TADD / TEXP / TMAXS on the PTO twins' shapes) against NumPy into a preallocated output
and memcpy of the bytes read + written (none for TEXP), as bench/peers_pto_instr.py does for the
PTO twins (BM_pto_tadd/... rows), so the two ratios can be set side by side.

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


def _numpy_tepl(op, np_t, r, c):
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (r, c)).astype(np_t)
    b = rng.uniform(-1, 1, (r, c)).astype(np_t)
    out = np.empty((r, c), np_t)
    s = np_t(0.25)
    if op == "tadd":
        return lambda: np.add(a, b, out=out)
    if op == "texp":
        return lambda: np.exp(a, out=out)
    return lambda: np.maximum(a, s, out=out)


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
    for dt in ("fp32", "fp16"):
        for t in (1, 2):
            out.append({
                "case": f"linx.words_gemm/{dt}/512x512x512", "family": "linx", "threads": t,
                "bench": f"BM_linx_words_gemm/{dt}/512x512x512/threads:{t}",
                "numpy": _numpy_call(512) if t == 1 else None, "torch": _torch_call(512, t),
                "openblas": _sgemm_call(512, t), "memcpy_bytes": None,
            })
    for layout in ("norm", "nd2nz_nz2nd", "nd2zn_zn2nd"):
        for n in (128, 256):  # 64 KiB and 256 KiB (the largest tile) of fp32
            out.append({
                "case": f"linx.tma_move/{layout}/fp32/{n}x{n}", "family": "linx", "threads": 1,
                "bench": f"BM_linx_tma_move/{layout}/fp32/{n}x{n}",
                "numpy": None, "torch": None, "openblas": None, "memcpy_bytes": 2 * n * n * 4,
            })
    for op in ("tadd", "texp", "tmaxs"):
        for dt, np_t, r, c in (("fp32", np.float32, 64, 64), ("fp16", np.float16, 16, 256)):
            out.append({
                "case": f"linx.tepl/{op}/{dt}/{r}x{c}", "family": "linx", "threads": 1,
                "bench": f"BM_linx_tepl/{op}/{dt}/{r}x{c}",
                "numpy": _numpy_tepl(op, np_t, r, c), "torch": None, "openblas": None,
                "memcpy_bytes": None if op == "texp" else (3 if op == "tadd" else 2) * r * c * np.dtype(np_t).itemsize,
            })
    return out
