"""Number formats (spec 10): decode/encode codes, pack 4-bit pairs."""
from ._load import export as _export

_export(globals(), "formats")
