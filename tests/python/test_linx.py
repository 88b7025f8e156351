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
        assert e.value.code == "Constraint" and "[docs/linx.md#python]" in str(e.value)
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


# ---- review fixes (spec 60 §2, §4, §5; spec 30 §1) ----

@pytest.mark.parametrize("np_dtype, canonical, nbytes", [
    (np.float16, "fp16", 512), (np.float32, "fp32", 1024), (np.float64, "fp64", 2048),
    (np.int8, "s8", 512), (np.uint8, "u8", 512), (np.int16, "s16", 512), (np.uint16, "u16", 512),
    (np.int32, "s32", 1024), (np.uint32, "u32", 1024), (np.int64, "s64", 2048), (np.uint64, "u64", 2048)])
def test_push_tile_dtype_from_array(np_dtype, canonical, nbytes):
    # spec 60 §2: an omitted dtype comes from the array's NumPy dtype (the bytes are those of
    # the explicit call, so nothing was rounded through another format)
    a = (np.arange(16 * 16) % 5).reshape(16, 16).astype(np_dtype)
    if np.issubdtype(np_dtype, np.signedinteger):
        a = a - 2  # negative values: only a signed format takes them
    for layout in ("nz", "zn"):
        m, ref = linx.Machine(), linx.Machine()
        m.push_tile("T", a, layout=layout)
        ref.push_raw("T", linx.pack(a, canonical, layout).tobytes())
        assert m.tiles()["T"] == [(1, nbytes, True)]
        assert m.tiles() == ref.tiles()


def test_push_tile_float32_not_rounded_to_fp16():
    # the reviewer's repro: 1.0001 is not an fp16 value; taken as fp32 it survives exactly
    m = linx.Machine()
    x = np.full((16, 16), 1.0001, np.float32)
    m.push_tile("T", x)
    assert m.tiles()["T"] == [(1, 1024, True)]
    m.push_tile("U", np.eye(16, dtype=np.float32), layout="zn")
    m.run("TMATMUL <M:16, N:16, K:16, FP32>, T#1, U#1, ->ACC<1KB>")
    assert np.array_equal(m.acc(), x)


@pytest.mark.parametrize("arr", [np.zeros((2, 2), bool), np.zeros((2, 2), np.complex64),
                                 np.array([["a", "b"]]), np.zeros((2, 2), object)])
def test_push_tile_dtype_without_format(arr):
    with pytest.raises(tilesim.Error) as e:
        linx.Machine().push_tile("T", arr)
    msg = str(e.value)
    assert "tilesim.linx.Machine.push_tile" in msg and "dtype" in msg and str(arr.dtype) in msg, msg


@pytest.mark.parametrize("call, fn, arg", [
    (lambda m, a: linx.pack(a, "fp16", None), "tilesim.linx.pack", "layout"),
    (lambda m, a: linx.pack(a, "fp16", 3), "tilesim.linx.pack", "layout"),
    (lambda m, a: linx.pack(a, 16, "nz"), "tilesim.linx.pack", "dtype"),
    (lambda m, a: linx.pack(5, "fp16", "nz"), "tilesim.linx.pack", "matrix"),
    (lambda m, a: linx.pack([[1, 2], [3]], "fp16", "nz"), "tilesim.linx.pack", "matrix"),
    (lambda m, a: linx.unpack(b"\0" * 512, (16, 16), "fp16", None), "tilesim.linx.unpack", "layout"),
    (lambda m, a: linx.Machine(5), "tilesim.linx.Machine", "profile"),
    (lambda m, a: linx.Machine(None), "tilesim.linx.Machine", "profile"),
    (lambda m, a: m.set_reg(5, 1), "tilesim.linx.Machine.set_reg", "reg"),
    (lambda m, a: linx.assemble(5), "tilesim.linx.assemble", "text"),
    (lambda m, a: linx.assemble(b"BSTOP"), "tilesim.linx.assemble", "text"),
    (lambda m, a: m.push_tile(5, a), "tilesim.linx.Machine.push_tile", "queue"),
    (lambda m, a: m.push_tile("T", a, layout=None), "tilesim.linx.Machine.push_tile", "layout"),
    (lambda m, a: m.push_tile("T", "abc"), "tilesim.linx.Machine.push_tile", "matrix"),
    (lambda m, a: m.push_raw(None, b"\0"), "tilesim.linx.Machine.push_raw", "queue"),
    (lambda m, a: linx.disassemble([1], fold="x"), "tilesim.linx.disassemble", "fold"),
    (lambda m, a: linx.disassemble([1], fold=None), "tilesim.linx.disassemble", "fold"),
])
def test_every_rejection_is_tilesim_error(call, fn, arg):
    # spec 60 §4: "Every rejection raises tilesim.Error", naming function, argument and value
    m = linx.Machine()
    with pytest.raises(tilesim.Error) as e:
        call(m, np.zeros((16, 16), np.float16))
    msg = str(e.value)
    doc = "[docs/python.md#dtype-arguments]" if arg == "dtype" else "[docs/linx.md#python]"
    assert fn in msg and arg in msg and doc in msg, msg
    assert e.value.code == "Constraint"


def test_array_likes_accepted():
    # a plain list is converted with np.asarray, then read like that array
    assert np.array_equal(linx.pack([[1, 2]], "fp16", "nd"), linx.pack(np.array([[1, 2]]), "fp16", "nd"))
    assert np.array_equal(linx.pack([[1.5, 2]], "fp16", "nz"), linx.pack(np.array([[1.5, 2]]), "fp16", "nz"))
    m = linx.Machine()
    m.push_tile("T", [[1.0] * 16] * 16)  # float64 from the list
    assert m.tiles()["T"] == [(1, 2048, True)]
    assert linx.disassemble([1], fold=np.bool_(True)) == "BSTOP\n"
    assert linx.pack(np.zeros((2, 2), np.float16), np.dtype("float16"), "nd").size == 8


def test_fault_attributes():
    m = linx.Machine()
    m.push_tile("T", np.zeros((16, 16), np.float16))
    with pytest.raises(linx.Fault) as e:
        m.run("TMATMUL <M:16, N:16, K:16, FP16>, T#1, U#1.reuse, ->ACC<1KB>")
    f = e.value
    assert isinstance(f, tilesim.Error) and f.code == "Fault"
    assert f.kind == "tile never written"
    assert f.word_index == 0
    assert f.block_text == "TMATMUL <LB0:16, LB1:16, LB2:16, FP16>, T#1, U#1.reuse, ->ACC<1KB>"
    m.push_tile("U", np.zeros((16, 16), np.float16), layout="zn")
    with pytest.raises(linx.Fault) as e:
        m.run("TMATMUL <M:16, N:16, K:16, FP16>, T#1.reuse, U#1.reuse, ->ACC<1KB>\nBSTART.VPAR 3")
    assert (e.value.kind, e.value.word_index, e.value.block_text) == ("unsupported", 5, "BSTART.VPAR 3")
    # a host-side push fault has no block
    m = linx.Machine()
    big = bytes(256 * 1024)
    m.push_raw("M", big)
    m.push_raw("N", big)
    with pytest.raises(linx.Fault) as e:
        m.push_raw("M", b"\0")
    assert e.value.kind == "capacity" and e.value.word_index is None and e.value.block_text is None
    # raised from Python code too, the attributes default to None
    g = linx.Fault("x")
    assert (g.code, g.kind, g.word_index, g.block_text) == ("Fault", None, None, None)


def test_cli_asm_hex_with_output(tmp_path):
    # spec 60 §5: with -o and --hex, the file gets the words and stdout the hex listing
    src = tmp_path / "seed.s"
    src.write_text(SEED + "\n")
    binf = tmp_path / "seed.bin"
    r = cli("asm", str(src), "--hex", "-o", str(binf))
    assert r.returncode == 0, r.stderr
    assert np.fromfile(binf, dtype="<u4").tolist() == SEED_WORDS
    lines = r.stdout.splitlines()
    assert len(lines) == len(SEED_WORDS)
    assert lines[0] == "0x08131181  BSTART.CUBE TMATMUL.BIAS, FP32"
    assert [int(l.split()[0], 16) for l in lines] == SEED_WORDS
    # -o without --hex writes the file and prints nothing
    r = cli("asm", str(src), "-o", str(tmp_path / "b2.bin"))
    assert r.returncode == 0 and r.stdout == ""
