"""LinxISA tile blocks (spec 30): TMATMUL, TMATMUL.BIAS, TMATMUL.ACC.

assemble / disassemble header words, pack / unpack NZ, ZN and ND tiles, and a Machine with tile
queues and ACC. Faults raise tilesim.linx.Fault (a tilesim.Error with code "Fault") carrying
.kind, .word_index and .block_text (spec 30 §1).
"""
from ._errors import Fault  # noqa: F401
from ._load import export as _export

_export(globals(), "linx")
