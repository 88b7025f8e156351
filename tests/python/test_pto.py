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
    s0 = np.zeros((8, 1), np.float32)  # every .arg needs an input (docs/pto.md#running-a-program)
    out = pto.run(PROGRAM, {"x": x, "s": s0}, valid={"x": (4, 16)})
    assert set(out) == {"x", "s", "y"}
    assert np.array_equal(out["y"], x) and out["s"].shape == (8, 1) and out["y"].dtype == np.float16
    out = pto.run(PROGRAM, {"x": pto.Tile(x, valid=(2, 16)), "s": s0})
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
        xin = os.path.join(d, "x.npy")
        np.save(xin, np.zeros((16, 8), np.float32))
        r = subprocess.run([CLI, "run", bad, "--in", "x=" + xin], capture_output=True, text=True)
        assert r.returncode == 2 and bad + ":2:28: undefined tile '%q'" in r.stderr
    r = subprocess.run([CLI, "run"], capture_output=True, text=True)
    assert r.returncode == 0 and "matches NumPy: yes" in r.stdout


# ---- the instruction table's functions (spec 60 §4 "PTO whole kernels", spec 21 §2) ----

RNG = np.random.default_rng(21)


def f32(shape, lo=-50, hi=50):
    """Finite, nonzero float32 values (no ties for max/min/argmax)."""
    x = RNG.uniform(lo, hi, size=shape).astype(np.float32)
    x[x == 0] = 1.5
    return x


def i32(shape, lo=-1000, hi=1000):
    return RNG.integers(lo, hi, size=shape).astype(np.int32)


def pack_mask(pred, word):
    """Spec 21 §2: predicate (i, j) is bit j % W of element (i, j // W)."""
    r, c = pred.shape
    w = {np.uint8: 8, np.uint32: 32}[word]
    out = np.zeros((r, -(-c // w)), dtype=np.uint64)
    for j in range(c):
        out[:, j // w] |= pred[:, j].astype(np.uint64) << np.uint64(j % w)
    return out.astype(word)


def test_every_table_row_has_a_function():
    from tilesim import _tilesim
    names = [n for n, _, _ in _tilesim.pto._instructions()]
    assert len(names) >= 60 and "TADD" in names and "TCVT" in names
    for n in names:
        f = getattr(pto, n.lower())
        assert f.__name__ == n.lower() and n in f.__doc__


FLOAT_BINARY = {"tadd": np.add, "tsub": np.subtract, "tmul": np.multiply, "tdiv": np.divide,
                "tmax": np.maximum, "tmin": np.minimum, "trem": np.remainder}


@pytest.mark.parametrize("name", sorted(FLOAT_BINARY))
def test_fp32_binary_matches_numpy(name):
    a, b = f32((16, 64)), f32((16, 64))
    got = getattr(pto, name)(a, b).data
    with np.errstate(all="ignore"):
        want = FLOAT_BINARY[name](a, b)  # fp32 in, one rounding (np.remainder: floored, spec 15 rem)
    assert np.array_equal(bits(got), bits(want))


INT_BINARY = {"tadd": np.add, "tsub": np.subtract, "tmul": np.multiply, "tmax": np.maximum,
              "tmin": np.minimum, "tand": np.bitwise_and, "tor": np.bitwise_or,
              "txor": np.bitwise_xor, "trem": np.remainder}


@pytest.mark.parametrize("name", sorted(INT_BINARY))
def test_int32_binary_matches_numpy(name):
    a, b = i32((8, 32), -2**31, 2**31 - 1), i32((8, 32), -2**31, 2**31 - 1)
    b[b == 0] = 7
    got = getattr(pto, name)(a, b).data
    with np.errstate(all="ignore"):
        want = INT_BINARY[name](a, b)  # two's-complement wrap; np.remainder is floored like spec 15
    assert got.dtype == np.int32 and np.array_equal(got, want)


def test_int_div_truncates_and_shifts():
    a, b = i32((8, 32)), i32((8, 32), 1, 50) * np.where(RNG.random((8, 32)) < 0.5, -1, 1).astype(np.int32)
    q = pto.tdiv(a, b, target="a5").data
    assert np.array_equal(q, (np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))).astype(np.int32))
    n = RNG.integers(0, 32, size=(8, 32)).astype(np.int32)
    assert np.array_equal(pto.tshl(a, n).data, np.left_shift(a, n))
    assert np.array_equal(pto.tshr(a, n).data, np.right_shift(a, n))  # arithmetic for signed
    assert np.array_equal(pto.tshls(a, 3).data, a << 3)
    assert np.array_equal(pto.tshrs(a, 3).data, a >> 3)
    assert np.array_equal(pto.tnot(a).data, ~a)


def test_unary_ops():
    x = f32((16, 32))
    p = np.abs(x)
    assert np.array_equal(bits(pto.tabs(x).data), bits(np.abs(x)))
    assert np.array_equal(bits(pto.tneg(x).data), bits(-x))
    assert np.array_equal(pto.trelu(x).data, np.maximum(x, np.float32(0)))
    assert np.array_equal(bits(pto.tsqrt(p).data), bits(np.sqrt(p)))            # IEEE sqrt
    assert np.array_equal(bits(pto.trecip(x).data), bits(np.float32(1) / x))     # IEEE division
    small = f32((16, 32), -10, 10)
    # correctly rounded (spec 15 §1): the float64 result rounded once agrees on these samples
    assert np.array_equal(bits(pto.texp(small).data), bits(np.exp(small.astype(np.float64)).astype(np.float32)))
    assert np.array_equal(bits(pto.tlog(p).data), bits(np.log(p.astype(np.float64)).astype(np.float32)))
    assert np.array_equal(bits(pto.trsqrt(p).data),
                          bits((1 / np.sqrt(p.astype(np.float64))).astype(np.float32)))
    assert np.array_equal(pto.trecip(np.full((8, 8), 3, np.int32)).data, np.zeros((8, 8), np.int32))
    assert np.array_equal(pto.tabs(np.full((8, 16), -3, np.int16), target="a5").data, np.full((8, 16), 3))


def test_tile_scalar_ops():
    x, s = f32((8, 32)), np.float32(2.75)
    assert np.array_equal(bits(pto.tadds(x, s).data), bits(x + s))
    assert np.array_equal(bits(pto.tsubs(x, s).data), bits(x - s))
    assert np.array_equal(bits(pto.tmuls(x, 1.5).data), bits(x * np.float32(1.5)))
    assert np.array_equal(bits(pto.tdivs(x, s).data), bits(x / s))
    assert np.array_equal(bits(pto.tdivs(s, x).data), bits(s / x))  # the scalar / tile form
    assert np.array_equal(pto.tmaxs(x, 0).data, np.maximum(x, np.float32(0)))
    assert np.array_equal(pto.tmins(x, -1).data, np.minimum(x, np.float32(-1)))
    assert np.array_equal(pto.tlrelu(x, 0.25).data, np.where(x > 0, x, x * np.float32(0.25)))
    acc = f32((8, 32))
    out = pto.taxpy(x, s, dst=pto.Tile(acc.copy()))
    assert np.array_equal(bits(out.data), bits(x * s + acc))  # two roundings: s*src, then + dst
    assert np.array_equal(pto.taxpy(x, s).data, x * s + np.float32(0))  # dst=None: zeros
    n = i32((8, 32))
    assert np.array_equal(pto.tands(n, 0xF0).data, n & 0xF0)
    assert np.array_equal(pto.tors(n, 5).data, n | 5)
    assert np.array_equal(pto.txors(n, -1).data, ~n)
    assert np.array_equal(pto.txors(n, 3, tmp=pto.Tile(np.zeros((8, 32), np.int32))).data, n ^ 3)
    assert np.array_equal(pto.trems(n, 7).data, np.remainder(n, 7))
    t = pto.texpands(1.5, (4, 16), "fp16")
    assert t.dtype == "fp16" and t.valid == (4, 16) and (t.data == np.float16(1.5)).all()
    v = pto.texpands(-3, (4, 8), np.int32, valid=(2, 3))
    assert (v.data[:2, :3] == -3).all() and (v.data[2:] == 0).all() and (v.data[:, 3:] == 0).all()


def test_scalar_reading_rules():
    # floats round once (RNE) to the tile's dtype: 0.1 is not an fp16 number
    h = pto.tadds(np.zeros((2, 16), np.float16), 0.1).data
    assert h[0, 0] == np.float16(0.1)
    # a NumPy unsigned integer is the code of a bit-carried dtype (bf16); a Python int its value
    b = pto.Tile(np.zeros((2, 16), np.uint16), dtype="bf16")
    assert (pto.tadds(b, np.uint16(0x3F80), target="a5").data == 0x3F80).all()     # + 1.0
    assert (pto.tadds(b, 2, target="a5").data == 0x4000).all()                     # + 2.0
    assert (pto.texpands(np.float32(3.0), (2, 16), "bf16").data == 0x4040).all()
    # ints: the value; integral floats are accepted for integer tiles; one-element arrays too
    assert (pto.tadds(np.zeros((2, 8), np.int32), 2.0).data == 2).all()
    assert (pto.tadds(np.zeros((2, 8), np.int32), np.array([5])).data == 5).all()
    assert (pto.tadds(np.zeros((2, 8), np.int32), 2**31 - 1).data == 2**31 - 1).all()
    # a large integer for a float tile is rounded once (no double rounding through float64)
    big = 2**60 + 2**36 + 1   # just above the fp32 midpoint 2^60 + 2^36: rounds up
    assert pto.tadds(np.zeros((1, 8), np.float32), big).data[0, 0] == np.float32(2**60 + 2**37)


def test_compare_and_select():
    a, b = f32((4, 40)), f32((4, 40))
    m = pto.tcmp(a, b, "lt")
    assert m.dtype == "u8" and m.shape == (4, 32) and m.valid == (4, 5)   # spec 60 §4 dst=None
    assert np.array_equal(m.data[:, :5], pack_mask(a < b, np.uint8))
    m5 = pto.tcmp(a, b, "CmpMode::GE", target="a5")
    assert m5.dtype == "u32" and m5.shape == (4, 8) and m5.valid == (4, 2)
    assert np.array_equal(m5.data[:, :2], pack_mask(a >= b, np.uint32))
    ms = pto.tcmps(a, 0.0, "GT")
    assert np.array_equal(ms.data[:, :5], pack_mask(a > 0, np.uint8))
    mt = pto.tcmps(a, pto.Tile(np.full((4, 8), 0.0, np.float32)), "gt")  # tile form: element (0, 0)
    assert np.array_equal(mt.data, ms.data)
    x, y = f32((4, 32)), f32((4, 32))
    mask = pto.tcmp(x, y, "le")
    sel = pto.tsel(mask, x, y).data
    assert np.array_equal(sel, np.where(x <= y, x, y))
    sels = pto.tsels(mask, x, -7.0).data
    assert np.array_equal(sels, np.where(x <= y, x, np.float32(-7)))
    assert np.array_equal(pto.tsel(mask, x, y, tmp=pto.Tile(np.zeros((1, 8), np.uint32))).data, sel)


def test_reductions():
    x = RNG.integers(-100, 100, size=(16, 32)).astype(np.float32)  # integer sums: exact in any order
    x += np.arange(32, dtype=np.float32) / 64                        # distinct per row
    t = pto.Tile(x, valid=(12, 24))
    v = x[:12, :24]
    s = pto.trowsum(t)
    assert s.layout == "col_major" and s.shape == (16, 1) and s.valid == (12, 1)
    assert np.array_equal(s.data[:12, 0], v.sum(axis=1, dtype=np.float64).astype(np.float32))
    assert np.array_equal(pto.trowmax(t).data[:12, 0], v.max(axis=1))
    assert np.array_equal(pto.trowmin(t, tmp=pto.Tile(np.zeros((16, 32), np.float32))).data[:12, 0],
                          v.min(axis=1))
    c = pto.tcolsum(t)
    assert c.layout == "row_major" and c.shape == (1, 32) and c.valid == (1, 24)
    assert np.array_equal(c.data[0, :24], v.sum(axis=0, dtype=np.float64).astype(np.float32))
    assert np.array_equal(pto.tcolsum(t, tmp=pto.Tile(np.zeros((16, 32), np.float32)), is_binary=True)
                          .data[0, :24], c.data[0, :24])
    assert np.array_equal(pto.tcolmax(t).data[0, :24], v.max(axis=0))
    assert np.array_equal(pto.tcolmin(t).data[0, :24], v.min(axis=0))
    am = pto.trowargmax(t)
    assert am.dtype == "s32" and am.shape == (16, 1) and am.valid == (12, 1)
    assert np.array_equal(am.data[:12, 0], v.argmax(axis=1))
    assert np.array_equal(pto.trowargmin(t).data[:12, 0], v.argmin(axis=1))
    assert np.array_equal(pto.tcolargmax(t).data[0, :24], v.argmax(axis=0))
    assert np.array_equal(pto.tcolargmin(t).data[0, :24], v.argmin(axis=0))
    vals = pto.Tile(np.zeros((16, 1), np.float32), valid=(12, 1))
    idx = pto.trowargmax(t, dst_val=vals)                     # the (dstVal, dstIdx) form
    assert np.array_equal(vals.data[:12, 0], v.max(axis=1)) and np.array_equal(idx.data[:12, 0], v.argmax(axis=1))


def test_expand_ops():
    col = f32((16, 1))
    d = pto.trowexpand(col, 32)
    assert d.shape == (16, 32) and d.valid == (16, 32) and np.array_equal(d.data, np.repeat(col, 32, axis=1))
    row = f32((1, 32))
    e = pto.tcolexpand(row, 8)
    assert e.shape == (8, 32) and np.array_equal(e.data, np.repeat(row, 8, axis=0))
    given = pto.Tile(np.zeros((8, 32), np.float32), valid=(8, 16))
    assert pto.tcolexpand(pto.Tile(row, valid=(1, 16)), dst=given) is given and np.array_equal(given.data[:, :16], np.repeat(row[:, :16], 8, 0))
    full = f32((8, 32))
    for op, fn in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide),
                   ("max", np.maximum), ("min", np.minimum)):
        got = getattr(pto, "tcolexpand" + op)(full, row)
        assert got.shape == (8, 32) and np.array_equal(bits(got.data), bits(fn(full, row))), op
    swapped = pto.tcolexpandsub(row, full)     # the expanded operand first: order kept
    assert swapped.shape == (8, 32) and np.array_equal(swapped.data, row - full)
    small = f32((8, 32), -5, 5)
    ed = pto.tcolexpandexpdif(small, small[:1]).data
    assert np.array_equal(bits(ed), bits(np.exp((small - small[:1]).astype(np.float64)).astype(np.float32)))


def test_tcvt():
    x = f32((8, 32), -1000, 1000)
    x[0, :4] = [0.5, 1.5, 2.5, -0.5]
    for rmode, fn in (("rint", np.rint), ("floor", np.floor), ("CAST_CEIL", np.ceil), ("trunc", np.trunc)):
        got = pto.tcvt(x, "s32", rmode=rmode)
        assert got.dtype == "s32" and np.array_equal(got.data, fn(x).astype(np.int32)), rmode
    h = pto.tcvt(x, np.float16)
    assert h.shape == (8, 32) and np.array_equal(bits(h.data), bits(x.astype(np.float16)))  # RNE
    big = np.full((8, 8), 70000.0, np.float32)
    assert (pto.tcvt(big, "s16", saturation="on", target="a5").data[:, :8] == 32767).all()
    assert (pto.tcvt(big, "s16", saturation=True, target="a5").data[:, :8] == 32767).all()
    d = pto.Tile(np.zeros((8, 16), np.int16), valid=(8, 8))
    assert pto.tcvt(big, rmode="trunc", saturation="off", dst=d, target="a5") is d


def test_dst_given_is_written_in_place():
    a, b = f32((8, 16)), f32((8, 16))
    dst = pto.Tile(np.full((8, 16), 9.0, np.float32), valid=(4, 8))
    out = pto.tmul(pto.Tile(a, valid=(4, 8)), pto.Tile(b, valid=(4, 8)), dst=dst)
    assert out is dst and np.array_equal(dst.data[:4, :8], a[:4, :8] * b[:4, :8])
    assert (dst.data[4:] == 9).all() and (dst.data[:, 8:] == 9).all()
    d = pto.tadd(pto.Tile(a, valid=(3, 5)), pto.Tile(b, valid=(3, 5)))  # dst=None: like src0
    assert d.shape == (8, 16) and d.valid == (3, 5) and (d.data[3:] == 0).all()


def test_rejections_raise_the_engine_message():
    a = np.ones((4, 32), np.int8)
    with pytest.raises(tilesim.Error) as e:
        pto.tadd(a, a)
    assert str(e.value).startswith("TADD: dst dtype s8 is not supported on target a2a3") and e.value.code == "Unsupported"
    dst = pto.Tile(np.full((4, 8), 5, np.int32))
    with pytest.raises(tilesim.Error) as e:
        pto.tdiv(np.ones((4, 8), np.int32), np.zeros((4, 8), np.int32), dst=dst, target="a5")
    assert "TDIV: integer division by zero" in str(e.value) and (dst.data == 5).all()
    with pytest.raises(tilesim.Error) as e:
        pto.tcmp(a, a, "sideways")
    assert "unknown compare mode 'sideways'" in str(e.value)
    with pytest.raises(tilesim.Error) as e:
        pto.tcvt(np.ones((8, 8), np.float32), "s32", rmode="up")
    assert "unknown rounding mode 'up'" in str(e.value)
    with pytest.raises(tilesim.Error) as e:
        pto.trowexpand(np.ones((8, 1), np.float32))
    assert "without a dst, the column count of the result must be given" in str(e.value)
    with pytest.raises(tilesim.Error) as e:
        pto.tadd(np.ones((4, 8), np.float32), np.ones((4, 8), np.float32), target="b9")
    assert "b9" in str(e.value)
    # a scalar the dtype cannot hold: the same message as the C++ reader in PTO-AS text
    with pytest.raises(tilesim.Error) as e:
        pto.tadds(np.zeros((4, 16), np.int16), 70000)
    py_msg = str(e.value)
    assert py_msg == "TADDS: scalar 70000 is out of range for s16 (-32768..32767) [docs/pto.md#scalars-and-modes]"
    with pytest.raises(tilesim.Error) as e:
        pto.run(".arg %x : !pto.tile<16x16xi16>\n"
                "%y = pto.tadds %x, 70000 : !pto.tile<16x16xi16>, i16 -> !pto.tile<16x16xi16>\n")
    assert py_msg in str(e.value) and "<program>:2:20:" in str(e.value)
    with pytest.raises(tilesim.Error) as e:
        pto.tadds(np.zeros((4, 8), np.int32), 2.5)
    assert "an s32 scalar must be an integer, got '2.5'" in str(e.value)
    with pytest.raises(tilesim.Error):
        pto.tadds(np.zeros((4, 8), np.float32), "1.0")


def test_run_new_ops_and_cli():
    prog = (".arg %x : !pto.tile<8x8xf32>\n"
            "%s = pto.tmuls %x, 2 : !pto.tile<8x8xf32>, f32 -> !pto.tile<8x8xf32>\n"
            "%m = pto.tcmps %s, 4.0 {cmpMode = #pto<cmp ge>} : !pto.tile<8x8xf32>, f32 -> !pto.tile<8x32xui8>\n"
            "%r = pto.alloc_tile : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>\n"
            "pto.trowsum ins(%s : !pto.tile<8x8xf32>) outs(%r : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>)\n")
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = pto.run(prog, {"x": x})
    assert np.array_equal(out["s"], 2 * x) and np.array_equal(out["r"][:, 0], (2 * x).sum(axis=1))
    assert out["m"][0, 0] == 0xFC and out["m"].dtype == np.uint8
    with tempfile.TemporaryDirectory() as d:
        f, xin, rout = os.path.join(d, "k.pto"), os.path.join(d, "x.npy"), os.path.join(d, "r.npy")
        with open(f, "w") as fh:
            fh.write(prog)
        np.save(xin, x)
        r = subprocess.run([CLI, "run", f, "--in", "x=" + xin, "--out", "r=" + rout, "--target", "cpu"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert np.array_equal(np.load(rout), out["r"]) and "m: 8x32 u8" in r.stdout
        with open(f, "a") as fh:
            fh.write("%z = pto.tadds %x, 1e99999 : !pto.tile<8x8xf32>, i32 -> !pto.tile<8x8xf32>\n")
        r = subprocess.run([CLI, "run", f, "--in", "x=" + xin], capture_output=True, text=True)
        assert r.returncode == 2 and f + ":6:50: the scalar is read as fp32" in r.stderr
