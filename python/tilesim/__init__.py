"""tilesim: a bit-exact, fast CPU twin of AI-accelerator tile and vector instructions.

Submodules: tilesim.formats (spec 10), tilesim.pto (spec 20), tilesim.linx (spec 30),
tilesim.ascendc (spec 40), tilesim.tpu (spec 50).
"""
from ._errors import Error
from . import _tilesim

__version__ = _tilesim.__version__
num_threads = _tilesim.num_threads
set_num_threads = _tilesim.set_num_threads

from . import formats  # noqa: E402
from ._compare import CompareReport, compare  # noqa: E402

import importlib as _importlib
import sys as _sys

for _name in ("pto", "linx", "ascendc", "tpu"):
    try:
        globals()[_name] = _importlib.import_module("." + _name, __name__)
    except ModuleNotFoundError as _e:  # a model whose front end is not built yet
        if _e.name != __name__ + "." + _name:
            raise

__all__ = ["CompareReport", "Error", "__version__", "compare", "formats", "num_threads", "set_num_threads"]


def _apply_docstrings():
    """Installs the docstring table (docs/python.md#docstrings). tools/gen_py_docs.py sets
    TILESIM_GEN_DOCS=1 to read the compiled signatures instead."""
    import inspect
    import os

    if os.environ.get("TILESIM_GEN_DOCS") == "1":
        return
    from ._docstrings import DOCS

    for qual, text in DOCS.items():
        owner_name, attr = qual.rsplit(".", 1)
        parts = owner_name.split(".")
        owner = _sys.modules[__name__]
        for p in parts[1:]:
            owner = getattr(owner, p)
        obj = inspect.getattr_static(owner, attr) if inspect.isclass(owner) else getattr(owner, attr)
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if type(obj).__name__ in ("builtin_function_or_method", "instancemethod"):
            _tilesim._set_doc(obj, text)
        else:
            obj.__doc__ = text


_apply_docstrings()
