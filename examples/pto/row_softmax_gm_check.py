"""Runs examples/pto/row_softmax_gm.pto through tilesim.pto.run on the same input as
row_softmax_gm.cpp and checks it against a float64 NumPy softmax (and each row summing to 1).
Usage: PYTHONPATH=build/release/python /usr/bin/python3 examples/pto/row_softmax_gm_check.py"""
import os
import sys

import numpy as np

import tilesim


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    i, j = np.meshgrid(np.arange(256), np.arange(128), indexing="ij")
    x = (((i * 131 + j * 71) % 97).astype(np.float32) * np.float32(0.11) - np.float32(5.0)).astype(np.float32)
    with open(os.path.join(here, "row_softmax_gm.pto")) as fh:
        out = tilesim.pto.run(fh.read(), {"x": x, "y": np.zeros_like(x)})
    y = out["y"].astype(np.float64)
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    rel = float(np.max(np.abs(y - want) / want))
    sums = float(np.max(np.abs(y.sum(axis=1) - 1.0)))
    ok = rel < 1e-5 and sums < 1e-5
    print(f"row_softmax_gm.pto (256x128 fp32): largest relative error vs float64 {rel:.2e}, "
          f"largest |row sum - 1| {sums:.2e}: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
