"""tilesim.linx (spec 60 §4) and the LinxISA CLI commands (spec 60 §5)."""
import os
import subprocess

import numpy as np
import pytest

import tilesim
from tilesim import linx

ROOT = os.environ.get("TILESIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("TILESIM_CLI", os.path.join(ROOT, "build", "release", "tilesim"))
SEED = "TMATMUL.BIAS <LB0:100, LB1:a0, LB2:a1+10, FP32>, T#1, U#1, N#1, ->ACC<64KB>"
SEED_WORDS = [0x08131181, 0x06400043, 0x00011043, 0x00A1A043, 0x01D04013, 0x3900D813]  # spec 30 §6


def test_assemble_disassemble_seed_words():
    assert linx.assemble(SEED) == SEED_WORDS
    assert linx.disassemble(SEED_WORDS, fold=True) == SEED + "\n"
    assert linx.disassemble(SEED_WORDS).splitlines()[0] == "BSTART.CUBE TMATMUL.BIAS, FP32"
    assert linx.assemble("B.DATR E5M2") == [0x00801023]


def test_assemble_error_is_parse_with_line_col():
    with pytest.raises(tilesim.Error) as e:
        linx.assemble("BSTOP\nTMATMUL <LB0:1, LB1:1, LB2:1, FP32>, T#1, U#1, ->ACC<48KB>")
    assert e.value.code == "Parse"
    assert "<input>:2:54: TMATMUL: Size '48KB' is not a legal value" in str(e.value)
    with pytest.raises(tilesim.Error) as e:
        linx.disassemble([0x08131181, 0])
    assert "word 0x00000000 at index 1" in str(e.value)


def test_pack_unpack_layouts():
    a = np.arange(17 * 9, dtype=np.float16).reshape(17, 9)
    raw = linx.pack(a, "fp16", "nz")
    assert raw.dtype == np.uint8 and raw.size == 32 * 16 * 2
    # element (1, 3) at (1 % 16) * 16 + 3 (spec 30 §4)
    assert raw.view(np.float16)[1 * 16 + 3] == a[1, 3]
    assert np.array_equal(linx.unpack(raw, (17, 9), "fp16", "nz"), a)
    b = np.arange(40 * 20, dtype=np.uint8).reshape(40, 20)
    assert np.array_equal(linx.unpack(linx.pack(b, "e4m3", "zn"), (40, 20), "e4m3", "zn"), b)
    s4 = np.array([[-8, 7, -1, 3]], dtype=np.int8)
    assert list(linx.pack(s4, "s4", "nd")) == [0x78, 0x3F]
    assert np.array_equal(linx.unpack(linx.pack(s4, "s4", "nd"), (1, 4), "s4", "nd"), s4)
    with pytest.raises(tilesim.Error):
        linx.pack(np.array([[16]]), "u4", "nd")  # out of range for u4
    with pytest.raises(tilesim.Error):
        linx.pack(np.zeros((2, 2)), "bf16", "nz")  # bf16 takes uint16 codes
    with pytest.raises(tilesim.Error):
        linx.pack(np.zeros((2, 2), np.float32), "fp16", "qq")


def exact_linear(x, w, b):
    return (x.astype(np.float64) @ w.astype(np.float64) + b.astype(np.float64)).astype(np.float32)


def test_machine_seed_example_and_release():
    rng = np.random.default_rng(0)
    m = linx.Machine()
    m.set_reg("a0", -(2**16) + 24)  # two's complement; only bits 15..0 reach LB1 (spec 30 §1): 24
    m.set_reg("R3", np.int64(6))  # a1; NumPy integers are integers too
    x = (rng.integers(-8, 9, size=(100, 16)) / 4).astype(np.float32)
    w = (rng.integers(-8, 9, size=(16, 24)) / 4).astype(np.float32)
    b = (rng.integers(-8, 9, size=24) / 2).astype(np.float32)
    m.push_tile("T", x, dtype="fp32", layout="nz")
    m.push_tile("U", w, dtype="fp32", layout="zn")
    m.push_tile("N", b, dtype="fp32", layout="nd")
    m.run(SEED)
    acc = m.acc()
    assert acc.dtype == np.float32 and acc.shape == (100, 24)
    assert np.array_equal(acc, exact_linear(x, w, b))
    t = m.tiles()
    assert set(t) == {"T", "U", "M", "N"}
    assert t["T"] == [(1, 8192, False)]  # 112 x 16 fp32 = 7168 B -> 8 KB; released (no .reuse)
    with pytest.raises(linx.Fault) as e:
        m.run(SEED)
    assert isinstance(e.value, tilesim.Error) and e.value.code == "Fault"
    assert "fault (tile released) at word 0" in str(e.value)
    assert np.array_equal(m.acc(), acc)  # unchanged by the fault


def test_machine_words_integer_and_acc():
    m = linx.Machine("linx_v056")
    a = np.array([[1, -2], [3, 4]], dtype=np.int8)
    bm = np.array([[5, 6], [7, -8]], dtype=np.int8)
    m.push_tile("T", a, dtype="s8", layout="nz")
    m.push_raw("U", linx.pack(bm, "s8", "zn").tobytes(), 1024)
    m.run(linx.assemble("TMATMUL <M:2, N:2, K:2, S8>, T#1.reuse, U#1.reuse, ->ACC<1KB>"))
    assert m.acc().dtype == np.int32
    assert m.acc().tolist() == [[5 - 14, 6 + 16], [15 + 28, 18 - 32]]
    m.run("TMATMUL.ACC <M:2, N:2, K:2, S8>, T#1, U#1, ACC, ->ACC<1KB>")
    assert m.acc().tolist() == [[-18, 44], [86, -28]]
    assert m.tiles()["U"] == [(1, 1024, False)]


def test_machine_errors():
    m = linx.Machine()
    # every rejection is tilesim.Error, never TypeError (spec 60 §4)
    for bad in (lambda: m.set_reg("a0", 2**64), lambda: m.set_reg("a0", -(2**63) - 1),
                lambda: m.set_reg("a0", 1.5), lambda: m.push_raw("T", bytes(32), size=-1),
                lambda: m.push_tile("T", np.zeros((2, 2), np.float32), "fp32", "nz", size=-1),
                lambda: linx.unpack(b"\0", (-1, 16), "fp16", "nz"), lambda: linx.unpack(b"\0", "ab", "fp16", "nz")):
        with pytest.raises(tilesim.Error) as e:
            bad()
        assert e.value.code == "Constraint" and "[spec 60 §4]" in str(e.value)
    m.set_reg("a0", 2**64 - 1)
    with pytest.raises(tilesim.Error):
        m.acc()  # empty
    with pytest.raises(tilesim.Error):
        m.set_reg("zero", 1)
    with pytest.raises(tilesim.Error):
        linx.Machine("nope")
    with pytest.raises(linx.Fault) as e:
        m.run("TMATMUL <M:1, N:1, K:1, HiF8>, T#1, U#1, ->ACC<1KB>")
    assert "type legality" in str(e.value)
    big = bytes(256 * 1024)
    m.push_raw("T", big)
    m.push_raw("U", big)
    with pytest.raises(linx.Fault) as e:
        m.push_raw("M", b"\0")
    assert "capacity" in str(e.value)


def cli(*args, **kw):
    return subprocess.run([CLI, *args], capture_output=True, text=True, **kw)


def test_cli_asm_disasm_run(tmp_path):
    src = tmp_path / "seed.s"
    src.write_text(SEED + "\n")
    r = cli("asm", str(src))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "0x08131181  BSTART.CUBE TMATMUL.BIAS, FP32"
    binf = tmp_path / "seed.bin"
    assert cli("asm", str(src), "-o", str(binf)).returncode == 0
    assert np.fromfile(binf, dtype="<u4").tolist() == SEED_WORDS
    r = cli("disasm", str(binf), "--fold")
    assert r.returncode == 0 and r.stdout == SEED + "\n"
    r = cli("disasm", "--words", "0x08131181", "0x06400043")
    assert r.stdout.splitlines() == ["BSTART.CUBE TMATMUL.BIAS, FP32", "B.DIM zero, 100, ->LB0"]
    bad = tmp_path / "bad.s"
    bad.write_text("\n  TMATMUL <LB0:1, LB1:1, LB2:1, FP9>, T#1, U#1, ->ACC<1KB>\n")
    r = cli("asm", str(bad))
    assert r.returncode == 2 and f"{bad}:2:33: TMATMUL: bad type 'FP9'" in r.stderr
    # run FILE.s with .npy tiles
    rng = np.random.default_rng(1)
    x = (rng.integers(-8, 9, size=(100, 16)) / 4).astype(np.float32)
    w = (rng.integers(-8, 9, size=(16, 24)) / 4).astype(np.float32)
    b = np.arange(24, dtype=np.float32)
    for n, a in (("x", x), ("w", w), ("b", b)):
        np.save(tmp_path / f"{n}.npy", a)
    out = tmp_path / "acc.npy"
    r = cli("run", str(binf), "--reg", "a0=24", "--reg", "a1=6", "--tile", f"T={tmp_path}/x.npy:fp32:nz",
            "--tile", f"U={tmp_path}/w.npy:fp32:zn", "--tile", f"N={tmp_path}/b.npy:fp32:nd", "--acc-out", str(out))
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.load(out), exact_linear(x, w, b))
    # options before the program, hex/binary register values: each --tile/--reg takes one value
    out.unlink()
    r = cli("run", "--reg", "a0=0x18", "--reg", "a1=0b110", "--tile", f"T={tmp_path}/x.npy:fp32:nz",
            "--tile", f"U={tmp_path}/w.npy:fp32:zn", "--tile", f"N={tmp_path}/b.npy:fp32:nd", "--acc-out", str(out),
            str(binf))
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.load(out), exact_linear(x, w, b))
    r = cli("run", str(binf), "--reg", "a0=010x")
    assert r.returncode == 2 and "--reg: 'a0=010x'" not in r.stderr and "'010x' is not a valid number" in r.stderr
    r = cli("disasm", "--words", "0x100000000")
    assert r.returncode == 2 and "out of range (largest 4294967295)" in r.stderr
    r = cli("run", str(src))
    assert r.returncode == 2 and "fault (dimension zero)" in r.stderr


def test_cli_default_example():
    r = cli("run")  # every model's default runs; check the linx part only
    assert "== linx ==" in r.stdout, r.stderr
    assert "matches expected.npy bit for bit" in r.stdout.split("== linx ==")[1]


def test_fault_class_and_every_queue():
    assert linx.Fault is tilesim._errors.Fault and issubclass(linx.Fault, tilesim.Error)
    m = linx.Machine()
    for q in "TUMN":
        m.push_tile(q, np.zeros((16, 16), np.float16))  # defaults: fp16, nz
    assert all(m.tiles()[q] == [(1, 512, True)] for q in "TUMN")
    with pytest.raises(tilesim.Error):
        m.push_tile("X", np.zeros((2, 2), np.float16))
    raw = linx.pack(np.arange(16 * 16).reshape(16, 16) % 7, "u8", "zn")
    assert np.array_equal(linx.unpack(raw.tobytes(), (16, 16), "u8", "zn"), np.arange(256).reshape(16, 16) % 7)


@pytest.mark.parametrize("bad", [[1.5], [-1], [2**32], [2**70], "0x1", [None], 5])
def test_words_must_be_32_bit_integers(bad):
    with pytest.raises(tilesim.Error):
        linx.disassemble(bad)
    with pytest.raises(tilesim.Error):
        linx.Machine().run(bad if not isinstance(bad, str) else [bad])


def test_numpy_words_accepted():
    w = np.array(linx.assemble("BSTOP"), dtype=np.uint32)
    assert linx.disassemble(w) == "BSTOP\n"
