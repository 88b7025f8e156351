import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def cli_path():
    """The tilesim CLI: $TILESIM_CLI under ctest, else the release build."""
    return os.environ.get("TILESIM_CLI", str(ROOT / "build" / "release" / "tilesim"))
