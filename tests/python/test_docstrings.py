"""Every public function, class and method has a docstring with its signature, dtypes and an example
(issue 21 item 6, docs/python.md#docstrings), every example gives the output it shows, and the
type stubs name the same API with the same parameters."""
import ast
import doctest
import importlib
import inspect
import os

import numpy as np
import pytest

import tilesim
from tilesim._docstrings import DOCS

MODULES = ["tilesim", "tilesim.formats", "tilesim.pto", "tilesim.linx", "tilesim.ascendc", "tilesim.tpu"]
PKG = os.path.dirname(tilesim.__file__)


def _ours(obj):
    if inspect.ismodule(obj):
        return False
    if type(obj).__name__ in ("builtin_function_or_method",):
        return True
    return (callable(obj) or isinstance(obj, property)) and (getattr(obj, "__module__", "") or "").startswith("tilesim")


def public_api():
    """(qualified name, object) of every public callable, class, method and property; a class or
    function exported by several modules is listed once, under the module that defines it."""
    seen, out = set(), []
    for mn in MODULES:
        mod = importlib.import_module(mn)
        for name in sorted(n for n in dir(mod) if not n.startswith("_")):
            obj = getattr(mod, name)
            if not _ours(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            out.append((mn + "." + name, obj))
            if inspect.isclass(obj):
                for k, v in sorted(vars(obj).items()):
                    if k in ("and", "or", "not"):
                        continue  # Python keywords: the same methods as and_ or_ not_ (getattr only)
                    if not k.startswith("_") and (_ours(v) or isinstance(v, property)):
                        out.append((mn + "." + name + "." + k, v))
    return out


API = public_api()


def test_every_public_name_has_a_docstring_entry_and_no_entry_is_stale():
    names = {q for q, _ in API}
    assert len(names) > 200
    missing = sorted(names - set(DOCS))
    assert not missing, "no docstring (add a row to tools/gen_py_docs.py and re-run it): %s" % missing
    stale = sorted(set(DOCS) - names)
    assert not stale, "docstring of a name that is not public: %s" % stale


@pytest.mark.parametrize("qual,obj", API, ids=[q for q, _ in API])
def test_docstring_installed_with_signature_dtypes_example(qual, obj):
    doc = obj.__doc__
    assert doc == DOCS[qual], "%s: installed docstring differs from the table" % qual
    name = qual.rsplit(".", 1)[1]
    first = doc.split("\n", 1)[0]
    assert first == name or first.startswith(name + "("), first
    assert "\ndtypes: " in doc and "\nExample:\n" in doc and "\n>>> " in doc
    assert "docs/" in doc and "[spec" not in doc and "spec 2" not in doc


def test_every_example_runs_and_prints_what_it_shows():
    parser, failures = doctest.DocTestParser(), []
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for qual, text in sorted(DOCS.items()):
        test = parser.get_doctest(text, {"np": np, "tilesim": tilesim}, qual, None, 0)
        result = runner.run(test, out=lambda s: failures.append(s))
        assert result.attempted > 0, qual
    assert not failures, "".join(failures[:5])


def test_a_broken_example_is_caught():
    text = "f()\n\nExample:\n\n>>> 1 + 1\n3\n"
    test = doctest.DocTestParser().get_doctest(text, {}, "x", None, 0)
    assert doctest.DocTestRunner().run(test, out=lambda s: None).failed == 1


def _stub(modname):
    path = os.path.join(PKG, ("__init__" if modname == "tilesim" else modname.split(".")[1]) + ".pyi")
    return ast.parse(open(path).read(), path)


def test_stubs_are_shipped_and_name_every_public_function_with_its_parameters():
    assert os.path.exists(os.path.join(PKG, "py.typed"))
    for mn in MODULES:
        tree = _stub(mn)
        defs = {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                defs[node.name] = node
            elif isinstance(node, ast.ClassDef):
                defs[node.name] = node
                for m in node.body:
                    if isinstance(m, ast.FunctionDef):
                        defs[node.name + "." + m.name] = m
        for qual, obj in API:
            if not qual.startswith(mn + ".") or qual.count(".") > mn.count(".") + 2:
                continue
            rel = qual[len(mn) + 1:]
            if mn == "tilesim" and rel.split(".")[0] in ("formats", "pto", "linx", "ascendc", "tpu"):
                continue
            assert rel in defs, "%s: not in the stub" % qual
            node = defs[rel]
            if isinstance(node, ast.FunctionDef) and not isinstance(obj, property):
                stub_params = [a.arg for a in node.args.args + node.args.kwonlyargs if a.arg != "self"]
                first = DOCS[qual].split("\n", 1)[0]
                want = [p.split("=")[0].split(":")[0].strip().lstrip("*") for p in
                        first[first.index("(") + 1:first.rindex(")")].split(",")]
                want = [w for w in want if w and w != "self"]
                assert stub_params == want, "%s: stub %s vs %s" % (qual, stub_params, want)
