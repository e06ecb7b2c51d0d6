"""Golden files: text a test compares byte for byte with what solvent generates today.

`SOLVENT_GOLDEN=update make test` rewrites them; the diff is then reviewed like code."""

import os
import pathlib

FOLDER = pathlib.Path(__file__).resolve().parent / "golden"


def assert_golden(name: str, text: str):
    """`text` equals the golden file `name` (written instead when updating)."""
    path = FOLDER / name
    if os.environ.get("SOLVENT_GOLDEN") == "update":
        path.write_text(text)
    assert path.exists(), f"no golden file {path}: run with SOLVENT_GOLDEN=update and review it"
    assert text == path.read_text(), f"{name} changed: review the diff, then SOLVENT_GOLDEN=update"
