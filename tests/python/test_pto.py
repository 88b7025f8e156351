"""tilesim.pto (spec 60 §4) and `tilesim run FILE.pto` (spec 60 §5)."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

import tilesim
from tilesim import pto

ROOT = os.environ.get("TILESIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("TILESIM_CLI", os.path.join(ROOT, "build", "release", "tilesim"))

OPS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "max": np.maximum, "min": np.minimum,
}


def bits(a):
    a = np.asarray(a)
    return a.view({2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def test_tile_layout_valid_and_view():
    t = pto.Tile(np.zeros((16, 1), np.float32))
    assert t.layout == "col_major" and t.valid == (16, 1) and t.dtype == "fp32"
    u = pto.Tile(np.ones((4, 8), np.float32), valid=(2, 3))
    assert u.layout == "row_major" and u.valid == (2, 3)
    u.data[0, 0] = 5.0  # a view: writes go to the tile
    assert u.data[0, 0] == 5.0
    b = pto.Tile(np.zeros((2, 16), np.uint16), dtype="bfloat16")
    assert b.dtype == "bf16"


def test_tile_alignment_and_valid_checked():
    with pytest.raises(tilesim.Error) as e:
        pto.Tile(np.zeros((4, 12), np.float32))
    assert "Cols*sizeof(T) % 32 == 0, got Cols=12" in str(e.value) and e.value.code == "Constraint"
    with pytest.raises(tilesim.Error) as e:
        pto.Tile(np.zeros((8, 1), np.float16))  # 16 bytes per ColMajor column
    assert "Rows*sizeof(T) % 32 == 0" in str(e.value)
    with pytest.raises(tilesim.Error):
        pto.Tile(np.zeros((4, 8), np.float32), valid=(5, 8))
    with pytest.raises(tilesim.Error):
        pto.Tile(np.zeros((4, 8), np.float64))


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_float_ops_match_numpy_bits(op, dtype):
    rng = np.random.default_rng(hash(op) % 1000)
    x = (rng.standard_normal((32, 64)) * 50).astype(dtype)
    x[0, :6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-7]
    s = (rng.standard_normal((32, 1)) * 10).astype(dtype)
    s[1, 0] = 0.0
    s[2, 0] = -0.0
    got = getattr(pto, "trowexpand" + op)(pto.Tile(x), pto.Tile(s)).data
    with np.errstate(all="ignore"):
        want = OPS[op](x, s)  # NumPy computes fp16 in fp32 and rounds once too
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert (bits(got)[nan] == (0x7E00 if dtype == np.float16 else 0x7FC00000)).all()  # canonical NaN
    if op in ("max", "min"):  # NumPy's signed-zero choice is order dependent; tilesim's is not
        keep = ~nan & ~((want == 0) & (got == 0))
    else:
        keep = ~nan
    assert np.array_equal(bits(got)[keep], bits(want)[keep])


def test_max_min_signed_zero_decision():
    z = np.zeros((8, 8), np.float32)
    nz = pto.Tile(np.full((8, 1), -0.0, np.float32))
    assert not np.signbit(pto.trowexpandmax(pto.Tile(z), nz).data).any()    # max(+0, -0) = +0
    assert np.signbit(pto.trowexpandmin(pto.Tile(z), nz).data).all()        # min(+0, -0) = -0


def test_expdif_matches_double_exp_rounded_once():
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((16, 32)) * 20).astype(np.float32)
    m = x.max(axis=1, keepdims=True)
    got = pto.trowexpandexpdif(x, m).data
    want = np.exp((x - m).astype(np.float64)).astype(np.float32)
    assert np.array_equal(bits(got), bits(want))


def test_swapped_operand_order_and_mode2():
    full = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
    s = np.full((16, 1), 1000.0, np.float32)
    d = pto.trowexpandsub(pto.Tile(s), pto.Tile(full)).data  # src0 expanded: s - full
    assert np.array_equal(d, 1000.0 - full)
    blk = np.tile(np.arange(8, dtype=np.float32), (16, 1))     # mode 2: 8 fp32 per row block
    d2 = pto.trowexpandadd(pto.Tile(full), pto.Tile(blk, layout="row_major")).data
    assert np.array_equal(d2, full + np.tile(np.arange(8, dtype=np.float32), 2))


def test_dst_given_in_place_and_valid_region_only():
    full = pto.Tile(np.ones((8, 16), np.float32), valid=(3, 5))
    dst = pto.Tile(np.full((8, 16), -7.0, np.float32), valid=(3, 5))
    s = pto.Tile(np.full((8, 1), 2.0, np.float32), valid=(3, 1))
    out = pto.trowexpandmul(full, s, dst=dst)
    assert out is dst
    assert (dst.data[:3, :5] == 2.0).all() and (dst.data[3:, :] == -7.0).all() and (dst.data[:, 5:] == -7.0).all()


def test_integers_bf16_targets_and_tmp():
    x = pto.Tile(np.full((2, 32), 127, np.int8))
    blk = pto.Tile(np.tile(np.arange(32, dtype=np.int8), (2, 1)), layout="row_major")
    d = pto.trowexpandadd(x, blk, target="a5").data
    assert d[0, 0] == 127 and d[0, 1] == -128  # wrap
    with pytest.raises(tilesim.Error) as e:
        pto.trowexpandadd(x, blk)  # int8 is not an a2a3 dtype
    assert "dtype s8 is not supported on target a2a3" in str(e.value) and e.value.code == "Unsupported"
    a = pto.Tile(np.full((2, 16), 0x3F80, np.uint16), dtype="bf16")
    s = pto.Tile(np.full((16, 1), 0x3B80, np.uint16), dtype="bf16", valid=(2, 1))
    assert (pto.trowexpandadd(a, s, target="a5").data == 0x3F80).all()  # 1 + 2^-8 ties to even
    tmp = pto.Tile(np.zeros((16, 8), np.float32))
    r = pto.trowexpandsub(pto.Tile(np.ones((16, 8), np.float32)), pto.Tile(np.arange(16, dtype=np.float32)[:, None]),
                          tmp=tmp)
    assert r.data[3, 0] == -2.0 and (tmp.data[3] == 3.0).all()  # §5: block k = s_k repeated
    with pytest.raises(tilesim.Error) as e:
        pto.trowexpanddiv(pto.Tile(np.ones((8, 8), np.int32)), pto.Tile(np.zeros((8, 1), np.int32)), target="a5")
    assert "integer division by zero" in str(e.value)


def test_rejection_leaves_dst_unchanged():
    dst = pto.Tile(np.full((16, 16), 3.0, np.float32))
    with pytest.raises(tilesim.Error) as e:
        pto.trowexpandsub(pto.Tile(np.ones((16, 16), np.float32)), pto.Tile(np.ones((16, 8), np.float32),
                          valid=(16, 4)), dst=dst)
    assert "must have validCol == 32/sizeof(T) = 8, got 4" in str(e.value)
    assert (dst.data == 3.0).all()


PROGRAM = """
.arg %x : !pto.tile_buf<vec, 4x16xf16, valid=?x?>
.arg %s : !pto.tile<8x1xf32>
%y = pto.trowexpandmax %x, %x : !pto.tile<4x16xf16>, !pto.tile<4x16xf16> -> !pto.tile<4x16xf16>
"""


def test_run_program():
    x = np.arange(64, dtype=np.float16).reshape(4, 16)
    out = pto.run(PROGRAM, {"x": x}, valid={"x": (4, 16)})
    assert set(out) == {"x", "s", "y"}
    assert np.array_equal(out["y"], x) and out["s"].shape == (8, 1) and out["y"].dtype == np.float16
    out = pto.run(PROGRAM, {"x": pto.Tile(x, valid=(2, 16))})
    assert np.array_equal(out["y"][:2], x[:2]) and (out["y"][2:] == 0).all()
    with pytest.raises(tilesim.Error) as e:
        pto.run(PROGRAM + "pto.bogus %x\n")
    assert "<program>:5:1: unknown instruction, at 'pto.bogus'" in str(e.value) and e.value.code == "Parse"


def test_cli_run_file_and_default():
    ex = os.path.join(ROOT, "examples", "pto")
    with tempfile.TemporaryDirectory() as d:
        z = os.path.join(d, "z.npy")
        r = subprocess.run([CLI, "run", os.path.join(ex, "rownorm.pto"),
                            "--in", "x=" + os.path.join(ex, "rownorm_x.npy"),
                            "--in", "m=" + os.path.join(ex, "rownorm_m.npy"),
                            "--in", "lo=" + os.path.join(ex, "rownorm_lo.npy"), "--out", "z=" + z],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert np.array_equal(np.load(z), np.load(os.path.join(ex, "rownorm_expected_z.npy")))
        bad = os.path.join(d, "bad.pto")
        with open(bad, "w") as f:
            f.write(".arg %x : !pto.tile<16x8xf32>\n%y = pto.trowexpandadd %x, %q : !pto.tile<16x8xf32>, "
                    "!pto.tile<16x1xf32> -> !pto.tile<16x8xf32>\n")
        r = subprocess.run([CLI, "run", bad], capture_output=True, text=True)
        assert r.returncode == 2 and bad + ":2:28: undefined tile '%q'" in r.stderr
    r = subprocess.run([CLI, "run"], capture_output=True, text=True)
    assert r.returncode == 0 and "matches NumPy: yes" in r.stdout
