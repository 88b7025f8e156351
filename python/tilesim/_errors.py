"""Exception types of tilesim (spec 60 §4)."""


class Error(Exception):
    """Every rejection tilesim raises. ``code`` is one of Parse, Constraint, Bounds,
    Unsupported, Fault, Io (spec 60 §3)."""

    def __init__(self, message, code="Constraint"):
        super().__init__(message)
        self.code = code


class Fault(Error):
    """A LinxISA machine fault (spec 30 §1); raised as tilesim.linx.Fault."""

    def __init__(self, message, code="Fault"):
        super().__init__(message, code)
