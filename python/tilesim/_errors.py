"""Exception types of tilesim (spec 60 §4)."""


class Error(Exception):
    """Every rejection tilesim raises. ``code`` is one of Parse, Constraint, Bounds,
    Unsupported, Fault, Io (spec 60 §3)."""

    def __init__(self, message, code="Constraint"):
        super().__init__(message)
        self.code = code


class Fault(Error):
    """A LinxISA machine fault (spec 30 §1); raised as tilesim.linx.Fault.

    ``kind`` is the fault kind ("capacity", "tile released", ...), ``word_index`` the index of
    the faulting block's commit word and ``block_text`` the block as text; both are None for a
    fault of a host-side tile push, which has no block."""

    def __init__(self, message, code="Fault", kind=None, word_index=None, block_text=None):
        super().__init__(message, code)
        self.kind = kind
        self.word_index = word_index
        self.block_text = block_text
