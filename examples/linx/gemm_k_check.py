"""C = A B with a K loop through LinxISA words (spec 31 §4), checked bit for bit against NumPy.

gemm_k_loop.s: per K step TLOAD an A panel (ND2NZ) and a B panel (ND2ZN), TMATMUL (step 0) or
TMATMUL.ACC (steps 1..3), then ACCCVT to FP16 and TSTORE. NumPy reference: fp16 products are exact
in fp32, so the fp32 fma chain of spec 30 §3 over k = 0..127 (continued through ACC across the K
steps) is a sequential fp32 sum of fp32 products; RNE to fp16.
"""
import pathlib
import sys

import numpy as np
import tilesim.linx as lx

HERE = pathlib.Path(__file__).resolve().parent
A_ADDR, B_ADDR, C_ADDR, KS = 0x1000, 0x3000, 0x8000, 32


def reference(a, b):
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        acc = (acc + np.outer(a[:, k].astype(np.float32), b[k, :].astype(np.float32))).astype(np.float32)
    return acc.astype(np.float16)


def main():
    a, b = np.load(HERE / "gemm_a.npy"), np.load(HERE / "gemm_b.npy")
    m_, k_ = a.shape
    n_ = b.shape[1]
    m = lx.Machine()
    m.write_mem(A_ADDR, a)
    m.write_mem(B_ADDR, b)
    for step in range(k_ // KS):  # one address register per K panel (the .s file's header)
        m.set_reg(f"a{step}", A_ADDR + step * KS * 2)
        m.set_reg(f"s{step + 1}", B_ADDR + step * KS * n_ * 2)
    m.set_reg("a4", k_ * 2)
    m.set_reg("a5", C_ADDR)
    m.run((HERE / "gemm_k_loop.s").read_text())
    got = m.read_array(C_ADDR, (m_, n_), "fp16")
    want = reference(a, b)
    same = np.array_equal(got.view(np.uint16), want.view(np.uint16))
    print(f"C = A B {m_}x{n_}x{k_} fp16, {k_ // KS} K steps:", "matches NumPy bit for bit" if same else "MISMATCH")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
