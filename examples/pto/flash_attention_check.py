"""Runs examples/pto/flash_attention.pto through tilesim.pto.run (target a5) on the inputs of
flash_attention.cpp and checks O against a float64 NumPy softmax(Q K^T / sqrt(D)) V (P is rounded
to fp16 before P V, as on the hardware: 2e-3, the C++ example's bound), and that one and two
threads give the same bits.
Usage: PYTHONPATH=build/release/python /usr/bin/python3 examples/pto/flash_attention_check.py"""
import os
import sys

import numpy as np

import tilesim

S, D = 512, 64


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    i = np.arange(S * D, dtype=np.float32)
    q = (np.sin(np.float32(0.37) * i) * np.float32(0.5)).astype(np.float16).reshape(S, D)
    k = (np.cos(np.float32(0.11) * i + np.float32(1.0)) * np.float32(0.5)).astype(np.float16).reshape(S, D)
    v = np.sin(np.float32(0.05) * i + np.float32(2.0)).astype(np.float16).reshape(S, D)
    with open(os.path.join(here, "flash_attention.pto")) as fh:
        text = fh.read()
    inputs = {"q": q, "k": k, "v": v, "o": np.zeros((S, D), np.float32)}
    threads = tilesim.num_threads()
    outs = []
    try:
        for n in (1, 2):
            tilesim.set_num_threads(n)
            outs.append(tilesim.pto.run(text, inputs, target="a5")["o"])
    finally:
        tilesim.set_num_threads(threads)
    o = outs[0].astype(np.float64)
    s = q.astype(np.float64) @ k.astype(np.float64).T / np.sqrt(D)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    want = (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)
    worst = float(np.max(np.abs(o - want)))
    same = np.array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))
    ok = worst < 2e-3 and same
    print(f"flash_attention.pto (a5, S={S} D={D} fp16 in, fp32 softmax, 64x64 blocks): largest |error| "
          f"vs float64 {worst:.2e}; 1 and 2 threads bit-identical: {'yes' if same else 'NO'}: "
          f"{'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
