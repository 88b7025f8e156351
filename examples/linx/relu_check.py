"""relu(x W + b) through LinxISA words (spec 31 §4), checked bit for bit against NumPy.

TLOAD x (ND2NZ), W (ND2ZN), b -> TMATMUL.BIAS -> ACCCVT to FP16 -> TEPL TMAXS 0 -> TSTORE.
NumPy reference: fp16 products are exact in fp32, so the fp32 fma chain of spec 30 §3 is a
sequential fp32 sum of fp32 products; one fp32 bias add; RNE to fp16; max with +0.
"""
import pathlib
import sys

import numpy as np
import tilesim.linx as lx

HERE = pathlib.Path(__file__).resolve().parent


def reference(x, w, b):
    acc = np.zeros((x.shape[0], w.shape[1]), np.float32)
    for k in range(x.shape[1]):
        acc = (acc + np.outer(x[:, k].astype(np.float32), w[k, :].astype(np.float32))).astype(np.float32)
    h = (acc + b.astype(np.float32)).astype(np.float16)
    return np.where(h > 0, h, np.float16(0))


def main():
    x, w, b = (np.load(HERE / f"relu_{n}.npy") for n in "xwb")
    m = lx.Machine()
    for addr, arr, reg in ((0x1000, x, "a0"), (0x4000, w, "a1"), (0x8000, b, "a2")):
        m.write_mem(addr, arr)
        m.set_reg(reg, addr)
    m.set_reg("a3", 0xC000)
    m.run((HERE / "relu_xw_b.s").read_text())
    got = m.read_array(0xC000, (16, 16), "fp16")
    want = reference(x, w, b)
    same = np.array_equal(got.view(np.uint16), want.view(np.uint16))
    print("relu(xW+b) 16x16 fp16:", "matches NumPy bit for bit" if same else "MISMATCH")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
