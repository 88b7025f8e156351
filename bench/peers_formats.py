"""Peers of the format benchmarks (bench/bench_formats.cpp) for bench/compare.py: NumPy
astype(np.float16), a NumPy bf16 RNE rounding written with integer ops, PyTorch dtype casts,
and memcpy of the output bytes."""
import numpy as np

N = 1 << 20


def _inputs():
    rng = np.random.default_rng(1)
    return (rng.standard_normal(N) * 8).astype(np.float32)


def cases():
    x = _inputs()
    bits = x.view(np.uint32)
    tmp32 = np.empty(N, np.uint32)
    out16 = np.empty(N, np.uint16)
    outf = np.empty(N, np.float32)
    c16 = x.astype(np.float16)
    cbf = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    ce4 = np.random.default_rng(2).integers(0, 256, N).astype(np.uint8)
    lut = np.random.default_rng(3).standard_normal(256).astype(np.float32)

    def np_bf16_encode():
        # RNE: add 0x7FFF + lsb of the kept half, keep the high 16 bits (NaN handling omitted:
        # the inputs are finite, and the fast path of a NumPy user would skip it too).
        np.right_shift(bits, 16, out=tmp32)
        np.bitwise_and(tmp32, 1, out=tmp32)
        np.add(tmp32, 0x7FFF, out=tmp32)
        np.add(tmp32, bits, out=tmp32)
        np.right_shift(tmp32, 16, out=tmp32)
        np.copyto(out16, tmp32, casting="unsafe")

    def np_bf16_decode():
        np.left_shift(cbf, 16, out=tmp32, dtype=np.uint32)
        np.copyto(outf, tmp32.view(np.float32))

    try:
        import torch
        xt = torch.from_numpy(x)
        t16 = torch.from_numpy(c16)
        tbf = xt.to(torch.bfloat16)
        torch_cases = {
            "encode/bf16": lambda: xt.to(torch.bfloat16),
            "encode/fp16": lambda: xt.to(torch.float16),
            "decode/bf16": lambda: tbf.to(torch.float32),
            "decode/fp16": lambda: t16.to(torch.float32),
        }
    except ImportError:
        torch_cases = {}

    peers = {
        "encode/bf16": (np_bf16_encode, 2 * N),
        "encode/fp16": (lambda: x.astype(np.float16), 2 * N),
        "encode/e4m3": (None, N),  # NumPy and PyTorch 1.13 have no float8
        "decode/bf16": (np_bf16_decode, 4 * N),
        "decode/fp16": (lambda: c16.astype(np.float32), 4 * N),
        "decode/e4m3": (lambda: np.take(lut, ce4, out=outf), 4 * N),
    }
    out = []
    for threads in (1, 2):
        for key, (np_fn, nbytes) in peers.items():
            if threads == 2 and "e4m3" in key:
                continue
            op, dtype = key.split("/")
            out.append({
                "case": f"formats.{op}/{dtype}/1Mi", "family": "formats", "threads": threads,
                "bench": f"BM_formats_{op}/{dtype}/1Mi",
                "numpy": np_fn, "torch": torch_cases.get(key), "openblas": None,
                "memcpy_bytes": nbytes,
            })
    return out
