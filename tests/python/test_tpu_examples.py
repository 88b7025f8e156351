"""The TPU example kernels (examples/tpu/*.c, built as example_tpu_*) against PyTorch, bit for bit
on fp32/fp16/bf16 on every chip (examples/tpu/check_examples.py; spec 51 §4's NaN rule)."""
import importlib.util
import os

import pytest

from conftest import cli_path

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "tpu")
BIN = os.path.join(os.path.dirname(cli_path()), "examples")


def test_tpu_examples_match_torch(capsys):
    pytest.importorskip("torch")
    if not os.path.exists(os.path.join(BIN, "example_tpu_hardtanh")):
        pytest.skip(f"examples not built in {BIN}")
    spec = importlib.util.spec_from_file_location("check_examples", os.path.join(EXAMPLES, "check_examples.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(BIN) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith("ok")
    assert out.count(" 0 mismatching") == 90
