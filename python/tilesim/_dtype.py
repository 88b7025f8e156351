"""dtype arguments (spec 60 §2, docs/python.md#dtype-arguments): a name or alias ('fp16',
'float16', 'bf16') or anything numpy.dtype() accepts (np.float16, np.dtype('int8'))."""
import numpy as _np

from ._errors import Error


def text(dtype, where="dtype"):
    """The dtype argument as the name the engines parse. NumPy's own name (float16, int8, ...) is a
    spec 60 §2 alias of every NumPy-carried dtype; bit-carried formats (bf16, e4m3...) are strings."""
    if isinstance(dtype, str):
        return dtype
    if dtype is not None:
        try:
            return _np.dtype(dtype).name
        except TypeError:
            pass
    raise Error("%s: must be a dtype name such as 'fp16' or a NumPy dtype such as numpy.float16, got %r"
                " [docs/python.md#dtype-arguments]" % (where, dtype), "Constraint")
