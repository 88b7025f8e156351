"""LinxISA programs from memory to memory (spec 31): memory host API and the relu(xW+b) example."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import tilesim
import tilesim.linx as lx

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_memory_api():
    m = lx.Machine(mem_bytes=4096)
    assert m.mem_bytes == 4096
    m.write_mem(8, np.arange(4, dtype=np.float32))
    assert m.read_mem(8, 4) == b"\x00\x00\x00\x00"
    np.testing.assert_array_equal(m.read_array(8, (2, 2), "fp32"), [[0, 1], [2, 3]])
    m.write_mem(4090, b"\x01\x02")
    with pytest.raises(tilesim.Error, match="outside the 4096-byte memory"):
        m.write_mem(4095, b"\x01\x02")
    with pytest.raises(tilesim.Error):
        lx.Machine(mem_bytes=0)


def test_relu_example_matches_numpy():
    env = dict(os.environ)
    r = subprocess.run([sys.executable, str(ROOT / "examples/linx/relu_check.py")], capture_output=True, text=True,
                       env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "bit for bit" in r.stdout


def test_gemm_k_loop_example_matches_numpy():
    r = subprocess.run([sys.executable, str(ROOT / "examples/linx/gemm_k_check.py")], capture_output=True, text=True,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4 K steps: matches NumPy bit for bit" in r.stdout


def test_gemm_k_loop_example_cli(tmp_path):
    # The CLI form of the file's header: the stored C equals the Python run's, bit for bit.
    ex = ROOT / "examples/linx"
    regs = {"a0": 0x1000, "a1": 0x1040, "a2": 0x1080, "a3": 0x10C0, "a4": 256, "s1": 0x3000, "s2": 0x3800,
            "s3": 0x4000, "s4": 0x4800, "a5": 0x8000}
    out = tmp_path / "c.bin"
    cmd = [os.environ.get("TILESIM_CLI", "tilesim"), "run", str(ex / "gemm_k_loop.s")]
    for k, v in regs.items():
        cmd += ["--reg", f"{k}={v}"]
    cmd += ["--mem", f"0x1000={ex / 'gemm_a.npy'}", "--mem", f"0x3000={ex / 'gemm_b.npy'}",
            "--mem-out", f"0x8000:1024={out}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    a, b = np.load(ex / "gemm_a.npy"), np.load(ex / "gemm_b.npy")
    acc = np.zeros((16, 32), np.float32)
    for k in range(128):
        acc = (acc + np.outer(a[:, k].astype(np.float32), b[k, :].astype(np.float32))).astype(np.float32)
    got = np.fromfile(out, np.uint16).reshape(16, 32)
    np.testing.assert_array_equal(got, acc.astype(np.float16).view(np.uint16))


def test_acc_released_by_acccvt():
    m = lx.Machine()
    m.push_tile("T", np.array([[1.0, 2.0]], np.float32), "fp32", "nz")
    m.push_tile("U", np.array([[3.0], [4.0]], np.float32), "fp32", "zn")
    m.run("TMATMUL <LB0:1, LB1:1, LB2:2, FP32>, T#1, U#1, ->ACC<256B>")
    m.run("BSTART.ACCCVT FP32\nB.DATR layout=27\nB.DIM zero, 1, ->LB0\nB.DIM zero, 1, ->LB1\nB.IOT last, ->T<256B>")
    with pytest.raises(tilesim.Error, match="ACC released by ACCCVT at block 0"):
        m.acc()
