"""The PTO-AS example kernels (examples/pto/*.pto with their check scripts) run and pass."""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "pto")


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(EXAMPLES, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_row_softmax_gm_pto(capsys):
    assert load("row_softmax_gm_check").main() == 0
    assert "ok" in capsys.readouterr().out


def test_tiled_gemm_pto(capsys):
    assert load("tiled_gemm_check").main() == 0
    assert "bits equal tilesim.pto.tmatmul: yes" in capsys.readouterr().out


def test_flash_attention_pto(capsys):
    assert load("flash_attention_check").main() == 0
    assert "bit-identical: yes" in capsys.readouterr().out
