"""Peers of the PTO whole-kernel benchmarks (bench/bench_pto_kernel.cpp; bench/compare.py, spec 60
§6, issue 17 "Speed").

  attention   the same computation in PyTorch eager and NumPy: softmax(q @ k.T * scale) @ v. The
              tilesim kernel takes fp16 Q K V and computes the scores and softmax in fp32; the
              peers get fp32 copies of the fp16 inputs (made before timing: CPU PyTorch's fp16
              matmul is not what a user would run) -- what a user would run instead.
  tiled_gemm  OpenBLAS cblas_sgemm of the same shape (its own process, OPENBLAS_CORETYPE /
              OPENBLAS_L2_SIZE unset, bench/openblas_peer.py), torch.mm and numpy.matmul in fp32;
              tilesim multiplies fp16 operands into fp32.
  tmatmul     numpy.matmul / torch.mm of the tile's shape in fp32; OpenBLAS too.
  tload/tstore  memcpy of the tile's bytes (np.copyto), the target being >= 0.5 of it.
"""
import importlib.util
import os

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("_openblas_peer", os.path.join(_here, "openblas_peer.py"))
_ob = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ob)


def _torch():
    try:
        import torch
    except Exception:
        return None
    return torch


def _qkv(s, d):
    i = np.arange(s * d, dtype=np.float32)
    q = (np.sin(0.37 * i) * 0.5).astype(np.float16).astype(np.float32).reshape(s, d)
    k = (np.sin(0.37 * i + 1.0) * 0.5).astype(np.float16).astype(np.float32).reshape(s, d)
    v = np.sin(0.37 * i + 2.0).astype(np.float16).astype(np.float32).reshape(s, d)
    return q, k, v


def _attention_numpy(s, d):
    q, k, v = _qkv(s, d)
    scale = np.float32(1.0 / np.sqrt(d))

    def call():
        x = (q @ k.T) * scale
        x -= x.max(axis=1, keepdims=True)
        np.exp(x, out=x)
        x /= x.sum(axis=1, keepdims=True)
        return x @ v
    return call


def _attention_torch(s, d):
    torch = _torch()
    if torch is None:
        return None
    q, k, v = (torch.from_numpy(a) for a in _qkv(s, d))
    scale = 1.0 / float(np.sqrt(d))
    return lambda: torch.softmax(q @ k.T * scale, dim=-1) @ v


def _mm_numpy(n):
    a = np.random.default_rng(0).uniform(-1, 1, (n, n)).astype(np.float32)
    b = np.random.default_rng(1).uniform(-1, 1, (n, n)).astype(np.float32)
    return lambda: a @ b


def _mm_torch(n):
    torch = _torch()
    if torch is None:
        return None
    a = torch.rand((n, n), dtype=torch.float32)
    b = torch.rand((n, n), dtype=torch.float32)
    return lambda: torch.mm(a, b)


def cases():
    out = []
    for s in (128, 512, 2048):
        for d in (64, 128):
            out.append({"case": f"pto.attention/S{s}/D{d}", "family": "pto_kernel", "threads": 1,
                        "bench": f"BM_pto_attention/S{s}/D{d}", "numpy": _attention_numpy(s, d),
                        "torch": _attention_torch(s, d)})
    for n in (256, 512, 1024):
        out.append({"case": f"pto.tiled_gemm/{n}", "family": "pto_kernel", "threads": 1,
                    "bench": f"BM_pto_tiled_gemm/{n}", "numpy": _mm_numpy(n), "torch": _mm_torch(n),
                    "openblas": _ob.Sgemm(n, n, n, 1)})
    for dt in ("f32", "f16"):
        for n in (64, 128):
            out.append({"case": f"pto.tmatmul/{dt}/{n}", "family": "pto_kernel", "threads": 1,
                        "bench": f"BM_pto_tmatmul/{dt}/{n}", "numpy": _mm_numpy(n),
                        "torch": _mm_torch(n), "openblas": _ob.Sgemm(n, n, n, 1)})
    for op in ("tload", "tstore"):
        for r, c in ((64, 64), (256, 256)):
            out.append({"case": f"pto.{op}/f32/{r}x{c}", "family": "pto_kernel", "threads": 1,
                        "bench": f"BM_pto_{op}/f32/{r}x{c}", "memcpy_bytes": r * c * 4})
    out.append({"case": "pto.tload/f32/1x8 (fixed cost)", "family": "pto_kernel", "threads": 1,
                "bench": "BM_pto_tload/f32/1x8", "memcpy_bytes": 32})
    out.append({"case": "pto.tmov/f32/1x8 (fixed cost)", "family": "pto_kernel", "threads": 1,
                "bench": "BM_pto_tmov/f32/1x8", "memcpy_bytes": 32})
    return out
