"""PyTorch check of the TPU example kernels (examples/tpu/*.c): runs each built example on random
fp32/fp16/bf16 data with NaN/Inf/±0 on every chip and compares the bits with PyTorch.

NaN rule (spec 51 §4): where the kernel only moves bits (hardtanh's and where's selects) and torch's
result is NaN, the expected bits are the moved input's; where tilesim computes a NaN (add), it is the
canonical quiet NaN (fp32 0x7FC00000, fp16 0x7E00, bf16 0x7FC0) and torch must give a NaN there.

    python3 check_examples.py BUILD/examples
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
INT = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}
CANON = {torch.float32: 0x7FC00000, torch.float16: 0x7E00, torch.bfloat16: 0x7FC0}


def bits(t):
    return t.contiguous().view(INT[t.dtype]).numpy().astype(np.int64) & (0xFFFFFFFF if t.dtype == torch.float32 else 0xFFFF)


def sample(shape, dtype, gen):
    x = (torch.randn(shape, generator=gen) * 3).to(dtype).reshape(-1)
    specials = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -1.0, 0.5], dtype=dtype)
    k = min(x.numel(), len(specials))
    x[:k] = specials[:k]
    return x.reshape(shape)


def run(exe, args, tmp, outs):
    r = subprocess.run([exe] + [str(a) for a in args], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"{exe} {args}: {r.stderr}")
    return [np.fromfile(os.path.join(tmp, o), dtype=np.uint8) for o in outs]


def as_tensor(raw, dtype, shape):
    return torch.from_numpy(raw.view(np.int32 if dtype == torch.float32 else np.int16).copy()).view(dtype).reshape(shape)


def compare(name, got, want, moved=None):
    g, w = bits(got).reshape(-1), bits(want).reshape(-1)
    nan_w = torch.isnan(want).reshape(-1).numpy()
    if moved is not None:
        expect = np.where(nan_w, bits(moved).reshape(-1), w)
    else:
        expect = np.where(nan_w, CANON[got.dtype], w)
    bad = int(np.count_nonzero(g.reshape(-1) != expect.reshape(-1)))
    print(f"{name}: {got.numel()} elements, {int(nan_w.sum())} NaN in torch, {bad} mismatching")
    return bad == 0


def main(exe_dir, chips=("bm1684x", "bm1688", "bm1690")):
    gen = torch.Generator().manual_seed(19)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        p = lambda f: os.path.join(tmp, f)
        for chip in chips:
            os.environ["TILESIM_TPU_CHIP"] = chip
            for dname, dt in DTYPES.items():
                for n in (1, 100, 64 * 1000 + 7):
                    x = sample((n,), dt, gen)
                    x.contiguous().view(INT[dt]).numpy().tofile(p("x.bin"))
                    (y,) = run(os.path.join(exe_dir, "example_tpu_hardtanh"), [dname, n, -1.0, 0.75, p("x.bin"), p("y.bin")], tmp, ["y.bin"])
                    want = torch.nn.functional.hardtanh(x.float(), -1.0, 0.75).to(dt)
                    ok &= compare(f"{chip} hardtanh {dname} n={n}", as_tensor(y, dt, (n,)), want, moved=x)
                    a, b = sample((n,), dt, gen), sample((n,), dt, gen).flip(0)
                    a.contiguous().view(INT[dt]).numpy().tofile(p("a.bin"))
                    b.contiguous().view(INT[dt]).numpy().tofile(p("b.bin"))
                    (y,) = run(os.path.join(exe_dir, "example_tpu_add_relu"), [dname, n, p("a.bin"), p("b.bin"), p("y.bin")], tmp, ["y.bin"])
                    # torch's fp16/bf16 add is fp32 rounded once, as spec 15. relu: torch has no CPU
                    # fp16 relu, and torch.relu(-0) is -0 where spec 15 writes +0 (x > 0 ? x : +0),
                    # so the reference is torch's sum through that definition.
                    s_ = a + b
                    want = torch.where(torch.isnan(s_) | (s_ > 0), s_, torch.zeros_like(s_))
                    ok &= compare(f"{chip} add+relu {dname} n={n}", as_tensor(y, dt, (n,)), want)
                for o, c, s, t in [((2, 3, 4, 5),) * 4,
                                   ((2, 70, 3, 9), (1, 70, 3, 9), (2, 1, 3, 9), (2, 70, 1, 1)),
                                   ((1, 130, 2, 3), (1, 1, 1, 3), (1, 130, 2, 3), (1, 1, 2, 1)),
                                   ((3, 5, 7, 40), (3, 5, 7, 40), (1, 1, 1, 1), (3, 1, 7, 1))]:
                    cond = (torch.rand(c, generator=gen) > 0.5).to(torch.uint8)
                    sv, ov = sample(s, dt, gen), sample(t, dt, gen)
                    cond.numpy().tofile(p("c.bin"))
                    sv.contiguous().view(INT[dt]).numpy().tofile(p("s.bin"))
                    ov.contiguous().view(INT[dt]).numpy().tofile(p("o.bin"))
                    shp = lambda v: ",".join(map(str, v))
                    (y,) = run(os.path.join(exe_dir, "example_tpu_where_bcast"),
                               [dname, "uint8", shp(o), shp(c), shp(s), shp(t), p("c.bin"), p("s.bin"), p("o.bin"), p("y.bin")], tmp, ["y.bin"])
                    want = torch.where(cond.bool(), sv, ov)
                    ok &= compare(f"{chip} where {dname} out{o} cond{c} self{s} other{t}", as_tensor(y, dt, o), want, moved=want)
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
