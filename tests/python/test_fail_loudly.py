"""No silent success (issue 21, docs/cli.md): every input that cannot apply is an error naming it,
and a rejected run writes nothing. One test per case; each asserts the message and that no output
file appeared."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

import tilesim
from conftest import ROOT, cli_path

EX_PTO = os.path.join(ROOT, "examples", "pto")
EX_LINX = os.path.join(ROOT, "examples", "linx")
ROWNORM_IN = ["--in", "x=" + os.path.join(EX_PTO, "rownorm_x.npy"),
              "--in", "m=" + os.path.join(EX_PTO, "rownorm_m.npy"),
              "--in", "lo=" + os.path.join(EX_PTO, "rownorm_lo.npy")]


def cli(*args, env=None):
    e = dict(os.environ)
    e.pop("TILESIM_THREADS", None)
    e.update(env or {})
    return subprocess.run([cli_path(), *args], capture_output=True, text=True, env=e)


@pytest.fixture
def tmp():
    with tempfile.TemporaryDirectory() as d:
        yield d


def test_pto_option_on_linx_run_is_an_error(tmp):
    out = os.path.join(tmp, "z.npy")
    r = cli("run", os.path.join(EX_LINX, "linear_bias.s"), "--target", "a5", "--out", "z=" + out)
    assert r.returncode == 1
    assert "--target applies to PTO-AS (.pto) programs, not to" in r.stderr
    assert "(LinxISA (.s, .bin))" in r.stderr
    assert not os.path.exists(out)


def test_linx_option_on_pto_run_is_an_error(tmp):
    acc = os.path.join(tmp, "acc.npy")
    r = cli("run", os.path.join(EX_PTO, "rownorm.pto"), *ROWNORM_IN, "--reg", "a0=1", "--acc-out", acc)
    assert r.returncode == 1 and "--reg applies to LinxISA (.s, .bin) programs" in r.stderr
    assert not os.path.exists(acc)


def test_engine_option_on_default_run_is_an_error():
    r = cli("run", "--reg", "a0=1")
    assert r.returncode == 1
    assert "--reg applies to LinxISA (.s, .bin) programs, not to the bundled examples" in r.stderr
    assert "==" not in r.stdout  # nothing ran


def test_pto_arg_without_input_is_an_error(tmp):
    out = os.path.join(tmp, "z.npy")
    r = cli("run", os.path.join(EX_PTO, "rownorm.pto"), "--in",
            "x=" + os.path.join(EX_PTO, "rownorm_x.npy"), "--out", "z=" + out)
    assert r.returncode == 2
    assert "no input for %m, %lo (every .arg needs one" in r.stderr
    assert "[docs/pto.md#running-a-program]" in r.stderr
    assert not os.path.exists(out)
    with pytest.raises(tilesim.Error) as e:
        tilesim.pto.run(".arg %x : !pto.tile<8x8xf32>\n%y = pto.tabs %x : !pto.tile<8x8xf32> -> "
                        "!pto.tile<8x8xf32>\n")
    assert "no input for %x" in str(e.value) and e.value.code == "Constraint"


@pytest.mark.parametrize("ext", [".pto", ".s", ".bin"])
def test_directory_as_program_is_an_error(tmp, ext):
    d = os.path.join(tmp, "prog" + ext)
    os.mkdir(d)
    out = os.path.join(tmp, "acc.npy")
    extra = ["--acc-out", out] if ext != ".pto" else ["--out", "z=" + out]
    r = cli("run", d, *extra)
    assert r.returncode == 2 and f"program '{d}' is a directory, not a file" in r.stderr
    assert not os.path.exists(out)


@pytest.mark.parametrize("ext", [".pto", ".s", ".bin"])
def test_empty_program_is_an_error(tmp, ext):
    f = os.path.join(tmp, "prog" + ext)
    open(f, "w").close()
    out = os.path.join(tmp, "acc.npy")
    extra = ["--acc-out", out] if ext != ".pto" else ["--out", "z=" + out]
    r = cli("run", f, *extra)
    assert r.returncode == 2 and f"program '{f}' is empty" in r.stderr
    assert not os.path.exists(out)


def test_missing_and_directory_inputs(tmp):
    r = cli("run", os.path.join(tmp, "nope.pto"))
    assert r.returncode == 2 and "(no such file)" in r.stderr
    r = cli("asm", tmp)
    assert r.returncode == 2 and "is a directory" in r.stderr
    r = cli("disasm", os.path.join(tmp, "nope.bin"))
    assert r.returncode == 2 and "(no such file)" in r.stderr
    r = cli("run", os.path.join(EX_PTO, "rownorm.pto"), "--in", "x=" + tmp, "--in",
            "m=" + os.path.join(EX_PTO, "rownorm_m.npy"), "--in", "lo=" + os.path.join(EX_PTO, "rownorm_lo.npy"))
    assert r.returncode == 2 and "is a directory, not a .npy file" in r.stderr


def test_bad_out_name_writes_no_output(tmp):
    z, w = os.path.join(tmp, "z.npy"), os.path.join(tmp, "w.npy")
    r = cli("run", os.path.join(EX_PTO, "rownorm.pto"), *ROWNORM_IN, "--out", "z=" + z, "--out", "nosuch=" + w)
    assert r.returncode == 2
    assert "'nosuch' is not an output of" in r.stderr and "its outputs: x, m, lo, y, z, e" in r.stderr
    assert not os.path.exists(z) and not os.path.exists(w)
    r = cli("run", os.path.join(EX_PTO, "rownorm.pto"), *ROWNORM_IN, "--out", "z=" + z, "--out",
            "y=" + os.path.join(tmp, "no", "dir", "y.npy"))
    assert r.returncode == 2 and "folder" in r.stderr and "does not exist" in r.stderr
    assert not os.path.exists(z)


def test_template_dimension_too_wide_for_lane_bound(tmp):
    s = os.path.join(tmp, "wide.s")
    binf = os.path.join(tmp, "wide.bin")
    with open(s, "w") as f:
        f.write("TMATMUL <M:65552, N:16, K:16, FP16> T#1, U#1, ->ACC<1KB>\n")
    r = cli("asm", s, "-o", binf)
    assert r.returncode == 2
    assert "dimension (a 16-bit lane bound) 65552 out of range 0..65535" in r.stderr
    assert ":1:" in r.stderr
    assert not os.path.exists(binf)
    with pytest.raises(tilesim.Error) as e:
        tilesim.linx.assemble("TMATMUL <M:16, N:a0+65536, K:16, FP16> T#1, U#1, ->ACC<1KB>")
    assert "65536 out of range 0..65535" in str(e.value)
    # the largest lane bound assembles; the raw B.DIM form keeps its 17-bit field
    assert len(tilesim.linx.assemble("TMATMUL <M:65535, N:16, K:16, FP16> T#1, U#1, ->ACC<1KB>")) == 5
    assert len(tilesim.linx.assemble("B.DIM zero, 131071, ->LB0")) == 1


@pytest.mark.parametrize("value", ["0", "-3", "abc", "", "4x", " 2", "1025", "99999999999"])
def test_bad_tilesim_threads_is_an_error(tmp, value):
    out = os.path.join(tmp, "z.npy")
    r = cli("run", os.path.join(EX_PTO, "rownorm.pto"), *ROWNORM_IN, "--out", "z=" + out,
            env={"TILESIM_THREADS": value})
    assert r.returncode == 2
    assert f"TILESIM_THREADS: must be a positive decimal integer 1..1024, got '{value}'" in r.stderr
    assert not os.path.exists(out)
    code = ("import tilesim\n"
            "try:\n    tilesim.num_threads()\nexcept tilesim.Error as e:\n    print('ERR', e)\n")
    p = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, TILESIM_THREADS=value))
    assert f"ERR TILESIM_THREADS: must be a positive decimal integer 1..1024, got '{value}'" in p.stdout, p.stderr


def test_good_tilesim_threads_runs(tmp):
    out = os.path.join(tmp, "z.npy")
    r = cli("run", os.path.join(EX_PTO, "rownorm.pto"), *ROWNORM_IN, "--out", "z=" + out,
            env={"TILESIM_THREADS": "3"})
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.load(out), np.load(os.path.join(EX_PTO, "rownorm_expected_z.npy")))


def test_ptoas_max_mem(tmp):
    prog = ".arg %x : !pto.tile<64x64xf32>\n%y = pto.tabs %x : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>\n"
    x = np.ones((64, 64), np.float32)
    # two 16 KiB tiles: 32 KiB fits, 20000 bytes does not
    assert tilesim.pto.run(prog, {"x": x}, max_mem=32768)["y"].shape == (64, 64)
    with pytest.raises(tilesim.Error) as e:
        tilesim.pto.run(prog, {"x": x}, max_mem=20000)
    assert "allocating 16384 bytes for '%y' exceeds max_mem = 20000 bytes (16384 already allocated" in str(e.value)
    f, xin, out = os.path.join(tmp, "k.pto"), os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
    with open(f, "w") as fh:
        fh.write(prog)
    np.save(xin, x)
    r = cli("run", f, "--in", "x=" + xin, "--out", "y=" + out, "--max-mem", "20000")
    assert r.returncode == 2 and "exceeds max_mem = 20000 bytes" in r.stderr
    assert not os.path.exists(out)
    r = cli("run", f, "--in", "x=" + xin, "--out", "y=" + out, "--max-mem", "12k")
    assert r.returncode == 2 and "expected a byte count (decimal), got '12k'" in r.stderr
    assert not os.path.exists(out)


def test_disasm_keeps_going_past_bad_words(tmp):
    good = tilesim.linx.assemble("TMATMUL <M:16, N:16, K:16, FP16> T#1, U#1, ->ACC<1KB>")
    words = [good[0], 0xFFFFFFFF] + good + [0x00000000]
    r = cli("disasm", "--words", *[hex(w) for w in words])
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert len(lines) == len(words)
    assert lines[1].startswith(".word 0xFFFFFFFF  # invalid: ")
    assert lines[-1].startswith(".word 0x00000000  # invalid: ")
    assert lines[0] == tilesim.linx.disassemble(good[:1]).strip()
    assert "\n".join(lines[2:-1]) == tilesim.linx.disassemble(good).strip()
    assert "2 of 8 words are invalid" in r.stderr
    f = os.path.join(tmp, "p.bin")
    with open(f, "wb") as fh:
        fh.write(np.array(words, dtype="<u4").tobytes())
    r2 = cli("disasm", f, "--fold")
    assert r2.returncode == 1 and "TMATMUL <LB0:16, LB1:16, LB2:16, FP16>" in r2.stdout
    assert r2.stdout.count("# invalid:") == 2
    ok = cli("disasm", "--words", *[hex(w) for w in good])
    assert ok.returncode == 0 and "invalid" not in ok.stdout + ok.stderr


def test_set_num_threads_takes_only_a_thread_count():
    # 0 is the documented "back to the default"; anything else outside 1..1024 is a mistake, not a clamp
    before = tilesim.num_threads()
    tilesim.set_num_threads(1)
    assert tilesim.num_threads() == 1
    tilesim.set_num_threads(0)
    assert tilesim.num_threads() == before
    for bad in (-1, 1025, 2.5, True, "2", None):
        with pytest.raises(tilesim.Error) as e:
            tilesim.set_num_threads(bad)
        assert "n must be 0 (the default) or 1..1024, got " + repr(bad) in str(e.value)
        assert "[docs/python.md#threads]" in str(e.value)
    assert tilesim.num_threads() == before
    tilesim.set_num_threads(np.int64(2))
    assert tilesim.num_threads() == 2
    tilesim.set_num_threads(0)


def test_linx_trace_values_without_trace_is_an_error():
    from tilesim import linx
    m = linx.Machine()
    with pytest.raises(tilesim.Error) as e:
        m.run("BSTOP", trace_values=True)
    assert "trace_values=True applies only with trace=" in str(e.value)
    with pytest.raises(tilesim.Error):
        m.run("BSTOP", trace=[], trace_values=1)
    lines = []
    m.run("BSTOP", trace=lines, trace_values=np.bool_(True))


def test_encode_saturate_takes_only_a_bool():
    assert tilesim.formats.encode([1e6], "fp16", saturate=np.bool_(True)).tolist() == [0x7BFF]
    for bad in (2, 1, "yes", None):
        with pytest.raises(tilesim.Error) as e:
            tilesim.formats.encode([1e6], "fp16", saturate=bad)
        assert "saturate must be True or False, got " + repr(bad) in str(e.value)
