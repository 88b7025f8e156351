"""The pipeline-hazard checker from Python and the CLI (issue 22, docs/sync.md): check='sync' raises
with every report, results are unchanged, --check sync fails the run after writing outputs, the
timeline is a Chrome trace, and typos in the switch are errors."""
import json
import math
import os
import subprocess
import tempfile

import numpy as np
import pytest

import tilesim
from tilesim import pto
from conftest import cli_path

TILE = ("!pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=16, v_row=4, v_col=16, blayout=row_major, "
        "slayout=none_box, fractal=512, pad=0>")
PV = "!pto.partition_tensor_view<4x16xf32>"


def kernel(flags):
    """TLOAD -> TEXP -> TSTORE; `flags` picks which of the two flag pairs are written ("vbarrier":
    a barrier of the V pipe alone, which orders nothing but makes the program checked)."""
    lines = [
        'module attributes {pto.target_arch = "a2a3"} {',
        "  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>) {",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        "    %c4 = arith.constant 4 : index",
        "    %c16 = arith.constant 16 : index",
        "    %av = pto.make_tensor_view %a, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>",
        "    %ov = pto.make_tensor_view %o, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>",
        f"    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<?x?xf32> -> {PV}",
        f"    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<?x?xf32> -> {PV}",
        f"    %ta = pto.alloc_tile : {TILE}",
        f"    %td = pto.alloc_tile : {TILE}",
        f"    pto.tload ins(%ap : {PV}) outs(%ta : {TILE})",                      # line 13
        "    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]" if "load" in flags else "",
        "    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]" if "load" in flags else "",
        f"    pto.texp ins(%ta : {TILE}) outs(%td : {TILE})",                     # line 16
        "    pto.set_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]" if "store" in flags else "",
        "    pto.wait_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]" if "store" in flags else "",
        f"    pto.tstore ins(%td : {TILE}) outs(%op : {PV})",                     # line 19
        "    pto.barrier <PIPE_V>" if "vbarrier" in flags else "",
        "    return",
        "  }",
        "}",
    ]
    return "\n".join(lines) + "\n"


A = (np.arange(64, dtype=np.float32).reshape(4, 16) - 20) / 16


def test_clean_kernel_passes_and_results_are_unchanged():
    plain = pto.run(kernel({"load", "store"}), {"a": A, "o": np.zeros_like(A)})
    checked = pto.run(kernel({"load", "store"}), {"a": A, "o": np.zeros_like(A)}, check="sync")
    np.testing.assert_array_equal(plain["o"].view(np.uint32), checked["o"].view(np.uint32))
    assert plain["o"][1, 0] == np.float32(math.exp(-0.25))  # correctly rounded: 0x3F475F7D


def test_missing_flag_raises_with_the_report():
    with pytest.raises(tilesim.Error) as e:
        pto.run(kernel({"store"}), {"a": A, "o": np.zeros_like(A)}, check="sync")
    assert e.value.code == "Constraint"
    msg = str(e.value)
    assert msg.startswith("tilesim sync: RAW hazard (read after write)\n"
                          "  first:  TLOAD on PIPE_MTE2 at <program>:13:5 writes UB [0x")
    assert "  second: TEXP on PIPE_V at <program>:16:5 reads UB [0x" in msg
    assert ("fix: pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>] after the first, "
            "pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>] before the second") in msg
    assert msg.endswith("tilesim sync: 1 distinct problem found [docs/sync.md]")
    # The checker is off again afterwards: the same program runs unchecked.
    pto.run(kernel({"store"}), {"a": A, "o": np.zeros_like(A)})


def test_no_sync_op_is_left_to_the_compiler_and_one_makes_it_checked():
    pto.run(kernel(set()), {"a": A, "o": np.zeros_like(A)}, check="sync")  # PTOAS would insert them
    with pytest.raises(tilesim.Error) as e:
        pto.run(kernel({"vbarrier"}), {"a": A, "o": np.zeros_like(A)}, check="sync")
    assert "2 distinct problems found" in str(e.value)
    assert "TSTORE on PIPE_MTE3 at <program>:19:5 reads UB" in str(e.value)


def test_switch_values():
    with pytest.raises(tilesim.Error) as e:
        pto.run(kernel(set()), {"a": A, "o": np.zeros_like(A)}, check="race")
    assert str(e.value) == "check=: unknown check 'race' (accepted: sync, off) [docs/sync.md#switches]"
    pto.run(kernel(set()), {"a": A, "o": np.zeros_like(A)}, check="off")
    with pytest.raises(tilesim.Error, match="sync_timeline= applies only with check='sync'"):
        pto.run(kernel(set()), {"a": A, "o": np.zeros_like(A)}, sync_timeline="x.json")


def test_timeline_is_a_chrome_trace():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.json")
        with pytest.raises(tilesim.Error):
            pto.run(kernel({"store"}), {"a": A, "o": np.zeros_like(A)}, check="sync", sync_timeline=path)
        ev = json.load(open(path))["traceEvents"]
    names = {(e["ph"], e["name"]) for e in ev}
    assert ("X", "TLOAD") in names and ("X", "TEXP") in names and ("X", "TSTORE") in names
    assert ("s", "flag V->MTE3 #0") in names and ("f", "flag V->MTE3 #0") in names
    assert ("I", "HAZARD: RAW hazard (read after write)") in names
    pipes = {e["args"]["name"] for e in ev if e["name"] == "thread_name"}
    assert {"PIPE_MTE2", "PIPE_V", "PIPE_MTE3"} <= pipes


def run_cli(args, env=None):
    return subprocess.run([cli_path(), "run"] + args, capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))


def test_cli_check_sync_fails_after_writing_outputs():
    with tempfile.TemporaryDirectory() as d:
        prog, a, o, out = (os.path.join(d, n) for n in ("k.pto", "a.npy", "o.npy", "out.npy"))
        open(prog, "w").write(kernel({"store"}))
        np.save(a, A)
        np.save(o, np.zeros_like(A))
        base = [prog, "--in", "a=" + a, "--in", "o=" + o, "--out", "o=" + out]
        r = run_cli(base + ["--check", "sync"])
        assert r.returncode == 1, r.stderr
        assert f"TLOAD on PIPE_MTE2 at {prog}:13:5" in r.stderr
        checked = np.load(out)
        assert run_cli(base).returncode == 0
        np.testing.assert_array_equal(np.load(out).view(np.uint32), checked.view(np.uint32))
        assert checked[1, 0] == np.float32(math.exp(-0.25))
        r = run_cli(base, env={"TILESIM_CHECK": "sync"})
        assert r.returncode == 1 and "RAW hazard" in r.stderr
        r = run_cli(base, env={"TILESIM_CHECK": "yes"})
        assert r.returncode == 2 and "unknown check 'yes' (accepted: sync, off)" in r.stderr
        r = run_cli(base, env={"TILESIM_SYNC_TIMELINE": os.path.join(d, "t.json")})
        assert r.returncode == 2 and "TILESIM_SYNC_TIMELINE: applies only with TILESIM_CHECK=sync" in r.stderr
        r = run_cli(base, env={"TILESIM_CHECK": "sync", "TILESIM_SYNC_TIMELINE": os.path.join(d, "e.json")})
        assert r.returncode == 1 and json.load(open(os.path.join(d, "e.json")))["traceEvents"]
        r = run_cli(base + ["--check", "race"])
        assert r.returncode == 1 and "--check" in r.stderr
        r = run_cli(base + ["--sync-timeline", os.path.join(d, "t.json")])
        assert r.returncode == 1 and "--sync-timeline applies only with --check sync" in r.stderr
        r = run_cli(base + ["--check", "sync", "--sync-timeline", os.path.join(d, "t.json")])
        assert r.returncode == 1 and json.load(open(os.path.join(d, "t.json")))["traceEvents"]
        open(prog, "w").write(kernel({"load", "store"}))
        r = run_cli(base + ["--check", "sync"])
        assert r.returncode == 0 and r.stderr == "", r.stderr


def _examples():
    d = os.path.join(os.path.dirname(cli_path()), "examples")
    names = sorted(n for n in os.listdir(d) if n.startswith(("example_pto_", "example_ascendc_")))
    return d, names


def test_every_example_kernel_is_clean_and_the_broken_ones_report_their_flag():
    d, names = _examples()
    assert "example_pto_flash_attention" in names and "example_pto_softmax_double_buffer" in names
    for n in names:
        r = subprocess.run([os.path.join(d, n)], capture_output=True, text=True, cwd=d,
                           env=dict(os.environ, TILESIM_CHECK="sync"))
        if n.endswith("_missing_flag"):
            assert r.returncode == 1, (n, r.stdout, r.stderr)
            assert "tilesim sync: RAW hazard (read after write)" in r.stderr, (n, r.stderr)
            assert r.stderr.count("distinct problem") == 1, (n, r.stderr)  # printed once, not again at exit
            assert "1 distinct problem found" in r.stderr, (n, r.stderr)
            # Unchecked, the same program runs and its numbers are right (the bug hides here).
            assert subprocess.run([os.path.join(d, n)], capture_output=True, cwd=d).returncode == 0
        else:
            assert r.returncode == 0 and "tilesim sync" not in r.stderr, (n, r.stdout, r.stderr)


def test_pto_missing_flag_example_names_the_load_and_the_reader():
    d, _ = _examples()
    r = subprocess.run([os.path.join(d, "example_pto_softmax_double_buffer_missing_flag")],
                       capture_output=True, text=True, env=dict(os.environ, TILESIM_CHECK="sync"))
    assert "  first:  TLOAD on PIPE_MTE2 at " in r.stderr, r.stderr
    assert " writes UB [0x0, 0x2000)\n  second: TROWMAX on PIPE_V at " in r.stderr, r.stderr
    assert "fix: set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) after the first" in r.stderr
    assert "seen 16 times" in r.stderr
