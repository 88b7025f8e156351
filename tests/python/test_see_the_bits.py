"""See the bits (issue 21 §3, docs/cli.md#expect, docs/cli.md#trace): --expect and tilesim.compare
(NaN, +-0, subnormals, integers), --trace / trace= golden lines for the PTO-AS and LinxISA runners."""
import io
import json
import os
import subprocess
import tempfile

import numpy as np
import pytest

import tilesim
from conftest import ROOT, cli_path

EX_PTO = os.path.join(ROOT, "examples", "pto")
EX_LINX = os.path.join(ROOT, "examples", "linx")
LINX_TILES = ["--reg", "a0=48", "--tile", "T=x.npy:fp16:nz", "--tile", "U=w.npy:fp16:zn",
              "--tile", "N=bias.npy:fp32:nd"]

PROG = (".arg %x : !pto.tile<8x8xf32>\n"
        "%y = pto.tmuls %x, 2 : !pto.tile<8x8xf32>, f32 -> !pto.tile<8x8xf32>\n"
        "%s = pto.trowsum %y : !pto.tile<8x8xf32> -> !pto.tile<8x1xf32>\n")
X = np.arange(-32, 32, dtype=np.float32).reshape(8, 8)
X[0, 7] = np.nan


def cli(*args, cwd=None):
    return subprocess.run([cli_path(), *args], capture_output=True, text=True, cwd=cwd)


# ---- tilesim.compare ----

def test_compare_exact_and_tolerance():
    r = tilesim.compare(np.float32([1, 2, 3]), np.float32([1, 2, 3]))
    assert r.ok and bool(r) and r.count == 3 and r.mismatches == 0
    assert str(r) == "all 3 elements match (rtol 0, atol 0)"
    r = tilesim.compare(np.float32([1, 2, 3.5]), np.float32([1, 2.5, 3]))
    assert not r and r.mismatches == 2 and [m["index"] for m in r.first] == [(1,), (2,)]
    m = r.first[0]
    assert (m["got"], m["want"], m["got_bits"], m["want_bits"]) == (2.0, 2.5, 0x40000000, 0x40200000)
    assert m["ulp"] == 0x200000
    assert str(r).splitlines()[1] == "  [1]  got 2 (0x40000000)  want 2.5 (0x40200000)  ulp 2097152"
    assert "<CompareReport float32[3]: 2 of 3 elements differ" in repr(r)
    assert tilesim.compare(np.float32([1, 2.5]), np.float32([1, 2]), rtol=0.25).ok
    assert not tilesim.compare(np.float32([1, 2.5]), np.float32([1, 2]), rtol=0.2).ok
    assert tilesim.compare(np.float32([1, 2.5]), np.float32([1, 2]), atol=0.5).ok


def test_compare_nan_and_signed_zero():
    nan2 = np.array([0x7FC00001], np.uint32).view(np.float32)[0]  # another payload
    got = np.float32([np.nan, 0.0, -0.0, np.inf, 1.0])
    want = np.float32([nan2, -0.0, 0.0, np.inf, np.nan])
    r = tilesim.compare(got, want)
    assert r.mismatches == 1 and r.first[0]["index"] == (4,) and r.first[0]["ulp"] is None
    assert r.nan_got == 1 and r.nan_want == 2
    assert "ulp -" in str(r)
    rb = tilesim.compare(got, want, bits=True)  # bits: payloads and the sign of zero count
    assert [m["index"] for m in rb.first] == [(0,), (1,), (2,), (4,)]
    assert rb.first[1]["ulp"] == 0  # +0 and -0 are 0 ulp apart
    assert not tilesim.compare(np.float32([np.inf]), np.float32([-np.inf]), atol=1e30).ok


def test_compare_subnormals_fp16_fp64():
    tiny = np.array([1, 2, 0x7FFFFF], np.uint32).view(np.float32)
    r = tilesim.compare(tiny, np.array([0, 2, 0x7FFFFF], np.uint32).view(np.float32))
    assert r.mismatches == 1 and r.first[0]["ulp"] == 1 and r.first[0]["want_bits"] == 0
    h = tilesim.compare(np.float16([6e-8, 1]), np.float16([0, 1]))  # the smallest fp16 subnormal
    assert h.mismatches == 1 and h.first[0]["ulp"] == 1 and h.first[0]["got_bits"] == 1
    assert "(0x0001)" in str(h)
    d = tilesim.compare(np.float64([1.0]), np.float64([np.nextafter(1.0, 2.0)]))
    assert d.first[0]["ulp"] == 1 and "(0x3FF0000000000001)" in str(d)


def test_compare_integers_and_codes():
    r = tilesim.compare(np.int32([5, -3, 2**31 - 1]), np.int32([5, 3, -2**31]))
    assert r.mismatches == 2 and r.first[0]["ulp"] == 6 and r.first[1]["ulp"] == 2**32 - 1
    assert r.first[0]["got_bits"] == 0xFFFFFFFD and "(0xFFFFFFFD)" in str(r)
    assert tilesim.compare(np.int8([10]), np.int8([12]), atol=2).ok
    u = tilesim.compare(np.uint64([2**64 - 1]), np.uint64([0]))
    assert u.first[0]["ulp"] == 2**64 - 1
    bf = tilesim.formats.encode(np.float64([1.0, 2.0]), "bf16")
    assert tilesim.compare(bf, tilesim.formats.encode(np.float64([1.0, 2.0]), "bf16"), bits=True).ok
    assert tilesim.compare(np.int16([[1, 2], [3, 4]]), [[1, 2], [3, 5]]).first[0]["index"] == (1, 1)


def test_compare_rejects_mismatched_arrays():
    with pytest.raises(tilesim.Error) as e:
        tilesim.compare(np.float32([1]), np.float64([1]))
    assert "dtypes differ: got '<f4', expected '<f8'" in str(e.value)
    with pytest.raises(tilesim.Error) as e:
        tilesim.compare(np.float32([1, 2]), np.float32([[1, 2]]))
    assert "shapes differ: got (2,), expected (1, 2)" in str(e.value)
    with pytest.raises(tilesim.Error):
        tilesim.compare(np.float32([1]), np.float32([1]), rtol=-1)
    with pytest.raises(tilesim.Error):
        tilesim.compare(np.float32([1]), np.float32([1]), rtol=0.1, bits=True)


# ---- --expect ----

def test_cli_expect_match_and_mismatch():
    with tempfile.TemporaryDirectory() as d:
        prog, xin = os.path.join(d, "k.pto"), os.path.join(d, "x.npy")
        with open(prog, "w") as f:
            f.write(PROG)
        np.save(xin, X)
        good, bad = os.path.join(d, "good.npy"), os.path.join(d, "bad.npy")
        np.save(good, 2 * X)
        y = 2 * X
        y[1, 3] = -42.5
        np.save(bad, y)
        r = cli("run", prog, "--in", "x=" + xin, "--expect", "y=" + good)
        assert r.returncode == 0 and "expect y: all 64 elements match (rtol 0, atol 0)" in r.stdout
        r = cli("run", prog, "--in", "x=" + xin, "--expect", "y=" + bad)
        assert r.returncode == 1
        assert ("expect y: 1 of 64 elements differ (rtol 0, atol 0), max ulp 131072\n"
                "  [1, 3]  got -42 (0xC2280000)  want -42.5 (0xC22A0000)  ulp 131072\n") in r.stdout
        assert cli("run", prog, "--in", "x=" + xin, "--expect", "y=" + bad, "--atol", "0.5").returncode == 0
        assert cli("run", prog, "--in", "x=" + xin, "--expect", "y=" + good, "--bits").returncode == 0
        r = cli("run", prog, "--in", "x=" + xin, "--expect", "s=" + good)
        assert r.returncode == 2 and "shapes differ: got (8, 1), expected (8, 8)" in r.stderr
        r = cli("run", prog, "--in", "x=" + xin, "--expect", "q=" + good)
        assert r.returncode == 2 and "'q' is not a result of the run (its results: x, y, s)" in r.stderr
        r = cli("run", prog, "--in", "x=" + xin, "--expect", "y=" + os.path.join(d, "none.npy"))
        assert r.returncode == 2
        r = cli("run", prog, "--in", "x=" + xin, "--atol", "1")
        assert r.returncode == 1 and "--atol applies only with --expect" in r.stderr
        r = cli("run", prog, "--in", "x=" + xin, "--expect", "y=" + good, "--bits", "--rtol", "1")
        assert r.returncode == 1


def test_cli_expect_linx_acc():
    r = cli("run", "linear_bias.s", *LINX_TILES, "--expect", "acc=expected.npy", cwd=EX_LINX)
    assert r.returncode == 0 and "expect acc: all 1536 elements match (rtol 0, atol 0)" in r.stdout
    with tempfile.TemporaryDirectory() as d:
        want = np.load(os.path.join(EX_LINX, "expected.npy"))
        want[0, 0] = np.nextafter(want[0, 0], np.float32(np.inf))
        np.save(os.path.join(d, "e.npy"), want)
        r = cli("run", "linear_bias.s", *LINX_TILES, "--expect", "acc=" + os.path.join(d, "e.npy"), cwd=EX_LINX)
        assert r.returncode == 1 and "1 of 1536 elements differ" in r.stdout and "ulp 1\n" in r.stdout


# ---- --trace / trace= ----

GOLDEN_PTO = [
    {"step": 0, "file": "k.pto", "line": 2, "op": "pto.tmuls",
     "operands": [{"name": "%x", "dtype": "fp32", "shape": [8, 8], "valid": [8, 8], "layout": "row_major"},
                  {"scalar": "2"}],
     "wrote": [{"name": "%y", "dtype": "fp32", "shape": [8, 8], "valid": [8, 8], "layout": "row_major",
                "count": 64, "first": [-64, -62, -60, -58, -56, -54, -52, "nan"], "min": -48 - 16, "max": 62,
                "nan": 1}]},
    {"step": 1, "file": "k.pto", "line": 3, "op": "pto.trowsum",
     "operands": [{"name": "%y", "dtype": "fp32", "shape": [8, 8], "valid": [8, 8], "layout": "row_major"}],
     "wrote": [{"name": "%s", "dtype": "fp32", "shape": [8, 1], "valid": [8, 1], "layout": "col_major",
                "count": 8, "first": ["nan", -328, -200, -72, 56, 184, 312, 440], "min": -328, "max": 440,
                "nan": 1}]},
]


def test_cli_trace_pto_golden():
    with tempfile.TemporaryDirectory() as d:
        prog, xin, tr = os.path.join(d, "k.pto"), os.path.join(d, "x.npy"), os.path.join(d, "t.jsonl")
        with open(prog, "w") as f:
            f.write(PROG)
        np.save(xin, X)
        r = cli("run", "k.pto", "--in", "x=x.npy", "--trace", tr, cwd=d)
        assert r.returncode == 0, r.stderr
        lines = open(tr).read().splitlines()
        assert [json.loads(s) for s in lines] == GOLDEN_PTO
        r = cli("run", "k.pto", "--in", "x=x.npy", "--trace", "-", "--trace-values", cwd=d)
        first = json.loads(r.stdout.splitlines()[0])
        assert first["wrote"][0]["values"] == [v if v == v else "nan" for v in (2 * X).ravel().tolist()]
        r = cli("run", "k.pto", "--in", "x=x.npy", "--trace-values", cwd=d)
        assert r.returncode == 1 and "--trace-values applies only with --trace" in r.stderr


def test_python_trace_pto():
    got = []
    out = tilesim.pto.run(PROG, {"x": X}, trace=got)
    golden = [dict(g, file="<program>") for g in GOLDEN_PTO]
    assert got == golden and np.array_equal(out["y"], 2 * X, equal_nan=True)
    buf = io.StringIO()
    tilesim.pto.run(PROG, {"x": X}, trace=buf, trace_values=True)
    assert json.loads(buf.getvalue().splitlines()[1])["wrote"][0]["values"] == ["nan", -328, -200, -72, 56, 184,
                                                                             312, 440]
    with pytest.raises(tilesim.Error):
        tilesim.pto.run(PROG, {"x": X}, trace_values=True)
    with pytest.raises(tilesim.Error):
        tilesim.pto.run(PROG, {"x": X}, trace=42)


def test_trace_linx_golden():
    r = cli("run", "linear_bias.s", *LINX_TILES, "--trace", "-", cwd=EX_LINX)
    assert r.returncode == 0
    line = json.loads(r.stdout.splitlines()[0])
    want = np.load(os.path.join(EX_LINX, "expected.npy"))
    assert line["step"] == 0 and line["word"] == 0 and line["op"] == "TMATMUL.BIAS"
    assert line["text"] == "TMATMUL.BIAS <LB0:32, LB1:a0, LB2:64, FP16>, T#1, U#1, N#1, ->ACC<8KB>"
    acc = line["wrote"][0]
    assert (acc["name"], acc["dtype"], acc["shape"], acc["count"], acc["nan"]) == ("ACC", "fp32", [32, 48], 1536, 0)
    assert acc["first"] == want[0, :8].tolist() and acc["min"] == want.min() and acc["max"] == want.max()
    # Python: Machine.run(trace=) gives the same line
    m = tilesim.linx.Machine()
    m.set_reg("a0", 48)
    m.push_tile("T", np.load(os.path.join(EX_LINX, "x.npy")), dtype="fp16", layout="nz")
    m.push_tile("U", np.load(os.path.join(EX_LINX, "w.npy")), dtype="fp16", layout="zn")
    m.push_tile("N", np.load(os.path.join(EX_LINX, "bias.npy")), dtype="fp32", layout="nd")
    got = []
    m.run(open(os.path.join(EX_LINX, "linear_bias.s")).read(), trace=got)
    assert got == [line]
