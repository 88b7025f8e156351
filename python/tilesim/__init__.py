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

for _name in ("pto", "linx", "ascendc", "tpu"):
    try:
        globals()[_name] = _importlib.import_module("." + _name, __name__)
    except ModuleNotFoundError as _e:  # a model whose front end is not built yet
        if _e.name != __name__ + "." + _name:
            raise

__all__ = ["CompareReport", "Error", "__version__", "compare", "formats", "num_threads", "set_num_threads"]
