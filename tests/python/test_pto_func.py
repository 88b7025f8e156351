"""tilesim.pto.run and `tilesim run FILE.pto` on PTOAS func.func files (spec 21 §3, spec 60 §4-§5,
docs/pto.md#funcfunc-files). Expected values come from NumPy on the inputs."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

import tilesim
from tilesim import pto

ROOT = os.environ.get("TILESIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("TILESIM_CLI", os.path.join(ROOT, "build", "release", "tilesim"))


def tb(r, c, dt="f32", loc="vec", bl="row_major", sl="none_box", fr=512, vr=None, vc=None):
    return (f"!pto.tile_buf<loc={loc}, dtype={dt}, rows={r}, cols={c}, v_row={r if vr is None else vr}, "
            f"v_col={c if vc is None else vc}, blayout={bl}, slayout={sl}, fractal={fr}, pad=0>")


T = tb(4, 16)
PV = "!pto.partition_tensor_view<4x16x{}>"

# y = x * s + b (the scalar arguments of every kind) and a copy of the scale as an f16 tile
AXPB = f"""module {{
  func.func @axpb(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %h: !pto.ptr<f16>, %s: f32, %b: f16,
                  %use_b: i1, %rows: index) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %xv = pto.make_tensor_view %x, shape = [%rows, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%rows, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %hv = pto.make_tensor_view %h, shape = [%rows, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf16>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%rows, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x16xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%rows, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x16xf32>
    %hp = pto.partition_view %hv, offsets = [%c0, %c0], sizes = [%rows, %c16] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<4x16xf16>
    %t = pto.alloc_tile : {T}
    %th = pto.alloc_tile : {tb(4, 16, "f16")}
    pto.tload ins(%xp : {PV.format("f32")}) outs(%t : {T})
    pto.tmuls ins(%t, %s : {T}, f32) outs(%t : {T})
    scf.if %use_b {{
      pto.tadds ins(%t, %b : {T}, f16) outs(%t : {T})
    }}
    pto.texpands ins(%b : f16) outs(%th : {tb(4, 16, "f16")})
    pto.tstore ins(%t : {T}) outs(%yp : {PV.format("f32")})
    pto.tstore ins(%th : {tb(4, 16, "f16")}) outs(%hp : {PV.format("f16")})
    return
  }}
  func.func @zero(%y: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant 0.0 : f32
    %yv = pto.make_tensor_view %y, shape = [%c4, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c4, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<4x16xf32>
    %t = pto.alloc_tile : {T}
    pto.texpands ins(%z : f32) outs(%t : {T})
    pto.tstore ins(%t : {T}) outs(%yp : {PV.format("f32")})
    return
  }}
}}
"""


def inputs(**kw):
    x = np.arange(64, dtype=np.float32).reshape(4, 16) / 8
    d = {"x": x, "y": np.full((4, 16), -1, np.float32), "h": np.zeros((4, 16), np.float16),
         "s": 0.75, "b": np.float16(2.5), "use_b": True, "rows": 4}
    d.update(kw)
    return d


def test_func_file_runs_and_returns_the_gm():
    ins = inputs()
    y0 = ins["y"].copy()
    out = pto.run(AXPB, ins)
    assert list(out) == ["x", "y", "h"]  # every !pto.ptr argument, scalars are not returned
    assert np.array_equal(out["y"], ins["x"] * np.float32(0.75) + np.float32(2.5))
    assert np.array_equal(out["h"], np.full((4, 16), 2.5, np.float16))
    assert np.array_equal(out["x"], ins["x"]) and np.array_equal(ins["y"], y0)  # new arrays
    out = pto.run(AXPB, inputs(use_b=False))
    assert np.array_equal(out["y"], ins["x"] * np.float32(0.75))


def test_scalar_arguments_bind_per_spec():
    # a Python float is rounded once (RNE) to the argument's type: 1/3 to f16 directly
    out = pto.run(AXPB, inputs(b=1 / 3))
    assert out["h"][0, 0] == np.float16(1 / 3)
    # a NumPy unsigned integer is the code of a bit-carried type; an int is a value
    out = pto.run(AXPB, inputs(b=3))
    assert out["h"][0, 0] == np.float16(3)
    # 0/1 for i1; a one-element array; an int in range for index
    out = pto.run(AXPB, inputs(use_b=0, s=np.array([2.0], np.float32), rows=np.int32(4)))
    assert np.array_equal(out["y"], ins_x() * 2)
    for bad, msg in [({"use_b": 2}, "an i1 is true, false, 0 or 1"),
                     ({"rows": 1.5}, "expects an integer"),
                     ({"s": "1.0"}, "scalar argument '%s' (f32)"),
                     ({"use_b": 1.0}, "expects an integer")]:
        with pytest.raises(tilesim.Error) as e:
            pto.run(AXPB, inputs(**bad))
        assert msg in str(e.value), (bad, str(e.value))


def ins_x():
    return np.arange(64, dtype=np.float32).reshape(4, 16) / 8


def test_entry_picks_the_function():
    out = pto.run(AXPB, {"y": np.ones((4, 16), np.float32)}, entry="zero")
    assert not out["y"].any()
    with pytest.raises(tilesim.Error) as e:
        pto.run(AXPB, {"y": np.ones((4, 16), np.float32)}, entry="nope")
    assert "entry 'nope' is not a func.func of the file (it has @axpb, @zero)" in str(e.value)


@pytest.mark.parametrize("change, message", [
    ({"drop": "rows"}, "argument '%rows' (index) is not bound"),
    ({"extra": "z"}, "input 'z' is not an argument of @axpb"),
    ({"y": np.zeros((4, 16), np.float64)}, "argument '%y' (!pto.ptr<f32>) needs an array of dtype '<f4', got '<f8'"),
    ({"x": np.zeros((3, 16), np.float32)}, "'%x' is bound to an array of 48 elements, too small for the view of shape [4, 16]"),
])
def test_binding_errors_name_the_argument_and_change_nothing(change, message):
    ins = inputs()
    if "drop" in change:
        del ins[change["drop"]]
    elif "extra" in change:
        ins[change["extra"]] = np.zeros(4, np.float32)
    else:
        ins.update(change)
    before = {k: np.array(v, copy=True) for k, v in ins.items()}
    with pytest.raises(tilesim.Error) as e:
        pto.run(AXPB, ins)
    assert message in str(e.value), str(e.value)
    for k, v in ins.items():
        assert np.array_equal(np.asarray(v), before[k]), k


def test_parse_error_names_op_and_position():
    bad = AXPB.replace("    pto.tmuls ins(%t, %s", "    pto.tmulz ins(%t, %s")
    ins = inputs()
    with pytest.raises(tilesim.Error) as e:
        pto.run(bad, ins)
    assert "<program>:16:5: unknown op 'pto.tmulz'" in str(e.value)
    assert (ins["y"] == -1).all()


def test_cli_runs_func_files_with_arg_and_entry():
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "k.pto")
        with open(f, "w") as fh:
            fh.write(AXPB)
        paths = {n: os.path.join(d, n + ".npy") for n in ("x", "y", "h", "yout", "hout")}
        ins = inputs()
        for n in ("x", "y", "h"):
            np.save(paths[n], ins[n])
        cmd = [CLI, "run", f, "--in", "x=" + paths["x"], "--in", "y=" + paths["y"], "--in", "h=" + paths["h"],
               "--arg", "s=0.75", "--arg", "b=0x1.4p+1", "--arg", "use_b=true", "--arg", "rows=4",
               "--out", "y=" + paths["yout"], "--out", "h=" + paths["hout"]]
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert np.array_equal(np.load(paths["yout"]), ins["x"] * np.float32(0.75) + np.float32(2.5))
        assert "y: 4x16 fp32" in r.stdout and "h: 4x16 fp16" in r.stdout
        r = subprocess.run([CLI, "run", f, "--entry", "zero", "--in", "y=" + paths["y"], "--out", "y=" + paths["yout"]],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert not np.load(paths["yout"]).any()
        r = subprocess.run(cmd[:-6] + ["--arg", "rows=x"], capture_output=True, text=True)
        assert r.returncode == 2 and "scalar argument '%rows' (index)" in r.stderr, r.stderr
        r = subprocess.run(cmd[:3], capture_output=True, text=True)
        assert r.returncode == 2 and "argument '%x' (!pto.ptr<f32>) is not bound" in r.stderr, r.stderr
