"""Helper: expose a compiled submodule's public names in a pure-Python module."""
from . import _tilesim


def export(module_globals, name):
    impl = getattr(_tilesim, name, None)
    if impl is None:
        return None
    for key in dir(impl):
        if not key.startswith("_"):
            module_globals[key] = getattr(impl, key)
    return impl
