"""The package skeleton of spec 60 §4: version, Error, its .code, submodules."""
import subprocess

import pytest

import tilesim
from conftest import cli_path


def test_version_matches_cli():
    out = subprocess.run([cli_path(), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "tilesim " + tilesim.__version__
    assert tilesim.__version__.count(".") == 2


def test_error_is_exception_with_code():
    e = tilesim.Error("x", "Parse")
    assert isinstance(e, Exception) and e.code == "Parse"
    from tilesim._errors import Fault
    assert issubclass(Fault, tilesim.Error)
    assert Fault("y").code == "Fault"


def test_cpp_error_is_translated():
    # an unknown dtype name is rejected by the C++ vocabulary (spec 60 §2) -> tilesim.Error
    with pytest.raises(tilesim.Error) as ei:
        tilesim._tilesim.canonical_dtype("fp7")
    assert ei.value.code == "Unsupported"
    assert "unknown dtype 'fp7'" in str(ei.value)


def test_dtype_vocabulary_aliases():
    c = tilesim._tilesim.canonical_dtype
    assert c("HALF") == "fp16" and c("bfloat16") == "bf16" and c("int4") == "s4"


def test_threads_setting():
    n = tilesim.num_threads()
    assert n >= 1
    tilesim.set_num_threads(1)
    assert tilesim.num_threads() == 1
    tilesim.set_num_threads(0)
    assert tilesim.num_threads() >= 1


def test_cli_usage_errors_exit_1():
    r = subprocess.run([cli_path()], capture_output=True, text=True)
    assert r.returncode == 1
    r = subprocess.run([cli_path(), "frobnicate"], capture_output=True, text=True)
    assert r.returncode == 1
    r = subprocess.run([cli_path(), "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "asm" in r.stdout and "run" in r.stdout
