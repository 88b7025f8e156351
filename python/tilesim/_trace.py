"""Delivering a trace (docs/cli.md#trace): JSON lines from the engine to where the caller asked."""
import json as _json
import os as _os

from ._errors import Error


def deliver(trace, text, who):
    """Writes ``text`` (JSON lines) to ``trace``: a path (str or os.PathLike), a writable text file
    object, or a list (one dict appended per line)."""
    if isinstance(trace, list):
        trace.extend(_json.loads(line) for line in text.splitlines())
    elif isinstance(trace, (str, _os.PathLike)):
        with open(trace, "w") as f:
            f.write(text)
    elif hasattr(trace, "write"):
        trace.write(text)
    else:
        raise Error(f"{who}: trace must be a path, a writable file object or a list, got "
                    f"{type(trace).__name__} [docs/cli.md#trace]", "Constraint")
