"""Peers of the PTO TROWEXPAND* benchmarks (bench/compare.py, spec 60 §6): NumPy and PyTorch
doing the same row broadcast into a preallocated output, and memcpy of the bytes read + written
(full operand + expanded operand + dst)."""
import numpy as np

OPS = ("add", "sub", "mul", "div", "max", "min", "expdif")
SHAPES = (("f32", np.float32, 64, 64), ("f32", np.float32, 256, 256), ("f32", np.float32, 1024, 1024),
          ("f16", np.float16, 16, 256), ("f16", np.float16, 256, 256))
NP = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
      "max": np.maximum, "min": np.minimum}


def _page_aligned(a):
    """A copy of `a` starting on a 4096-byte boundary, as tilesim_bench's tiles (bench_pto.cpp:
    heap arrays sit at arbitrary 16-byte offsets from each other, which costs split stores or
    4K-aliased loads by the luck of the allocator, on either side of the comparison)."""
    buf = np.empty(a.nbytes + 4096, np.uint8)
    off = (-buf.ctypes.data) % 4096
    out = buf[off:off + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def _numpy(op, x, s, y):
    if op == "expdif":
        def f():
            np.subtract(x, s, out=y)
            np.exp(y, out=y)
        return f
    fn = NP[op]
    return lambda: fn(x, s, out=y)


def _torch(op, x, s, y):
    try:
        import torch
    except Exception:
        return None
    torch.set_num_threads(1)
    tx, ts, ty = torch.from_numpy(x), torch.from_numpy(s), torch.from_numpy(y)
    fns = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
           "max": torch.maximum, "min": torch.minimum}
    if op == "expdif":
        def f():
            torch.sub(tx, ts, out=ty)
            torch.exp(ty, out=ty)
        return f
    fn = fns[op]
    return lambda: fn(tx, ts, out=ty)


def _working(fn):
    """None when the peer does not implement the case (e.g. CPU torch 1.13 has no fp16 exp)."""
    if fn is None:
        return None
    try:
        fn()
    except Exception:
        return None
    return fn


def cases():
    out = []
    rng = np.random.default_rng(0)
    for op in OPS:
        for tag, dt, r, c in SHAPES:
            e = 32 // np.dtype(dt).itemsize
            for mode in (1, 2):
                x = _page_aligned((rng.standard_normal((r, c)) + 1).astype(dt))
                y = _page_aligned(np.zeros_like(x))
                if mode == 1:
                    s = _page_aligned((rng.standard_normal((r, 1)) + 1).astype(dt))
                    xv, sv, yv = x, s, y
                    exp_bytes = r * x.itemsize
                else:  # per-row 32-byte block repeated along the row
                    b = _page_aligned((rng.standard_normal((r, e)) + 1).astype(dt))
                    xv, sv, yv = x.reshape(r, c // e, e), b[:, None, :], y.reshape(r, c // e, e)
                    exp_bytes = b.nbytes
                name = "trowexpand%s/%s/%dx%d/mode%d" % (op, tag, r, c, mode)
                # The largest tiles also on both cores (tilesim's row threads, PyTorch's intra-op
                # threads; NumPy and memcpy stay single-threaded).
                for threads in ((1, 2) if r * c >= 1 << 20 and mode == 1 else (1,)):
                    case = {
                        "case": "pto." + name, "family": "pto", "threads": threads,
                        "bench": "BM_pto_" + name,
                        "numpy": _numpy(op, xv, sv, yv), "torch": _working(_torch(op, xv, sv, yv)),
                        "openblas": None, "memcpy_bytes": 2 * x.nbytes + exp_bytes,
                    }
                    # The roofline (bench_pto.cpp: the plainest vectorized dst = full - s loop, no
                    # checks, the same tiles) beside fp32 SUB mode 1: how close tilesim and the
                    # peers come to what the memory system allows.
                    if op == "sub" and tag == "f32" and mode == 1 and threads == 1 and r >= 256:
                        case["roofline"] = "BM_pto_roofline_sub/f32/%dx%d/mode1" % (r, c)
                    out.append(case)
    return out
