"""The public names, as reviewed: a name added or lost is a deliberate change of the golden list."""

import types

import solvent
import solvent.array_api as array_api
from golden import assert_golden


def names(module, listed: bool) -> list[str]:
    """`__all__`, or every public attribute that is not a module (extensions aside)."""
    if listed:
        return sorted(module.__all__)
    return sorted(n for n in dir(module) if not n.startswith("_") and (
        n in ("fft", "linalg") or not isinstance(getattr(module, n), types.ModuleType)))


def test_public_names_are_as_reviewed():
    text = "".join(f"{title}: {' '.join(names(module, listed))}\n" for title, module, listed in [
        ("solvent", solvent, True), ("solvent.sharding", solvent.sharding, True),
        ("array api", array_api, False), ("array api linalg", array_api.linalg, False),
        ("array api fft", array_api.fft, False)])
    assert_golden("public_names.txt", text)


def test_every_listed_name_exists():
    for module in (solvent, solvent.sharding):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.__all__ lists {name}, which is missing"
