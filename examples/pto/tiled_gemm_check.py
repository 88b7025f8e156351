"""Runs examples/pto/tiled_gemm.pto through tilesim.pto.run on the inputs of tiled_gemm.cpp and
checks C bit for bit against tilesim.pto.tmatmul of the whole product (the same GEMM core, one
chain over all of K: the tiled kernel's K steps accumulate in k order, so the bits must agree)
and within fp32 rounding of a float64 NumPy product.
Usage: PYTHONPATH=build/release/python /usr/bin/python3 examples/pto/tiled_gemm_check.py"""
import os
import sys

import numpy as np

import tilesim

M, N, K = 256, 512, 320


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    i = np.arange(M * K)
    a = (((i * 37) % 101).astype(np.float32) / np.float32(50.0) - np.float32(1.0)).astype(np.float16).reshape(M, K)
    i = np.arange(K * N)
    b = (((i * 53) % 89).astype(np.float32) / np.float32(44.0) - np.float32(1.0)).astype(np.float16).reshape(K, N)
    with open(os.path.join(here, "tiled_gemm.pto")) as fh:
        out = tilesim.pto.run(fh.read(), {"a": a, "b": b, "c": np.zeros((M, N), np.float32)})
    c = out["c"]
    want = tilesim.pto.tmatmul(a, b, target="cpu")
    same_bits = c.dtype == np.float32 and np.array_equal(c.view(np.uint32), want.view(np.uint32))
    worst = float(np.max(np.abs(c.astype(np.float64) - a.astype(np.float64) @ b.astype(np.float64))))
    ok = same_bits and worst < 1e-3
    print(f"tiled_gemm.pto ({M}x{N}x{K} fp16 -> fp32, 128x256 blocks, K steps of 64): bits equal "
          f"tilesim.pto.tmatmul: {'yes' if same_bits else 'NO'}; largest |error| vs float64 {worst:.2e}: "
          f"{'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
