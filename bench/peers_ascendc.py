"""Peers of the BlockReduceSum benchmarks (bench/bench_ascendc.cpp) for bench/compare.py.

NumPy x.reshape(-1, E).sum(axis=1) and the same in PyTorch (neither sums in the hardware's tree
order nor saturates: timing only), and memcpy of the bytes the instruction reads."""
import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def _case(dtype_name, repeats, strided):
    dt = np.float16 if dtype_name == "f16" else np.float32
    E = 16 if dt == np.float16 else 8
    kind = "strided" if strided else "contig"
    if strided:  # srcBlkStride 2, srcRepStride 16: every other datablock of 16 per repeat
        x = (1 + np.arange(repeats * 16 * E) % 1000 / 1000).astype(dt)
        def np_fn():
            return x.reshape(repeats, 16, E)[:, ::2, :].sum(axis=2)
        if torch is not None:
            tx = torch.from_numpy(x)
            def torch_fn():
                return tx.reshape(repeats, 16, E)[:, ::2, :].sum(dim=2)
        else:
            torch_fn = None
    else:
        x = (1 + np.arange(repeats * 8 * E) % 1000 / 1000).astype(dt)
        def np_fn():
            return x.reshape(-1, E).sum(axis=1)
        if torch is not None:
            tx = torch.from_numpy(x)
            def torch_fn():
                return tx.reshape(-1, E).sum(dim=1)
        else:
            torch_fn = None
    name = f"ascendc.blockreducesum/{dtype_name}/r{repeats}/{kind}"
    return {
        "case": name,
        "family": "ascendc",
        "threads": 1,
        "bench": f"BM_ascendc_blockreducesum/{dtype_name}/r{repeats}/{kind}",
        "numpy": np_fn,
        "torch": torch_fn,
        "openblas": None,
        "memcpy_bytes": repeats * 256,
    }


def cases():
    out = []
    for d in ("f16", "f32"):
        for r in (1, 16, 255):
            out.append(_case(d, r, False))
        out.append(_case(d, 255, True))
    return out
