"""The file `solvent.export` writes and `solvent.load` reads: one compiled signature that another
process runs without the function's source.

A zip of three members:
- `meta.json`: the format, the versions of solvent, jaxlib and enzyme-ad, the platform, the
  function's name and its static argument names;
- `module.mlirbc`: the program as XLA is given it, as a StableHLO portable artifact (readable by
  the StableHLO of later jaxlib releases, and compiled anew by the loading process);
- `signature.pickle`: how a call's arguments map to the program's inputs, and its outputs back
  to results and to the arguments it writes into, with the call keys it accepts.

The signature is read with an unpickler that builds Python's and NumPy's plain types and
solvent's own, nothing else: a file is data, not code to run. So a program whose arguments or
results hold the user's own classes cannot be exported; `write` says which class.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import tempfile
import zipfile

import numpy as np
from jaxlib.mlir.dialects import stablehlo

from solvent.compiler.disk import VERSIONS
from solvent.core import structure
from solvent.errors import LoadError, UnsupportedError

FORMAT = 4  # 2: result specs are `core.spec` nodes; 3: paths are `core.structure.Path`s; 4: Python scalar outputs
_META, _MODULE, _SIGNATURE = "meta.json", "module.mlirbc", "signature.pickle"


def write(path, module_text: str, payload: dict, meta: dict) -> None:
    """Write the export atomically (a temporary file renamed into place)."""
    data = pickle.dumps(payload, protocol=4)
    try:
        _Unpickler(io.BytesIO(data)).load()
    except pickle.UnpicklingError as error:
        raise UnsupportedError(
            f"cannot export {meta['name']}: {error}; a process without its source could not rebuild it. "
            "Give and return arrays, numbers, strings and tuples, lists or dicts of them") from None
    module = stablehlo.serialize_portable_artifact_str(module_text, stablehlo.get_current_version())
    meta = {"format": FORMAT, **VERSIONS, **meta}
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as file, zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(_META, json.dumps(meta, indent=1))
            archive.writestr(_MODULE, module)
            archive.writestr(_SIGNATURE, data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def read(path, platform: str) -> tuple[dict, str, dict]:
    """(meta, module text, payload) of an export that this process can run on `platform`."""
    try:
        with zipfile.ZipFile(path) as archive:
            meta = json.loads(archive.read(_META))
            module, data = archive.read(_MODULE), archive.read(_SIGNATURE)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as error:
        raise LoadError(f"{path} is not a file solvent.export wrote ({error})") from None
    here = VERSIONS
    if meta.get("format") != FORMAT or meta.get("solvent") != here["solvent"]:
        raise LoadError(f"{path} was exported by solvent {meta.get('solvent')} (format {meta.get('format')}); "
                        f"this is solvent {here['solvent']} (format {FORMAT}): export it again with this version")
    if meta.get("platform") != platform:
        raise LoadError(f"{path} was compiled for {meta.get('platform')}, but this process runs on {platform}")
    try:
        text = stablehlo.deserialize_portable_artifact_str(module)
    except Exception as error:  # the bindings raise plain exceptions
        raise LoadError(f"{path}: this jaxlib ({here['jaxlib']}) cannot read its program, written by jaxlib "
                        f"{meta.get('jaxlib')} ({error})") from None
    try:
        payload = _Unpickler(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, AttributeError) as error:
        raise LoadError(f"{path}: its signature cannot be read ({error})") from None
    return meta, text, payload


def _allowed() -> set[str]:
    from solvent.core import spec
    from solvent.core.aval import Aval
    from solvent.core.structure import Shared
    from solvent.runtime.array import Array, Scalar
    from solvent.tracing import Signature
    nodes = [*spec.Spec.__subclasses__(), spec.Setter, spec.Deleted, structure.Path, structure.Step]
    kinds = [Aval, Shared, Array, Scalar, Signature, *nodes, *structure.STATEFUL, np.ndarray, np.dtype]
    kinds += list(np.sctypeDict.values()) + [type(np.dtype(t)) for t in np.sctypeDict.values()]
    names = {f"{k.__module__}.{k.__qualname__}" for k in kinds}
    names |= {f"builtins.{k.__name__}" for k in (tuple, list, dict, set, frozenset, slice, int, float, complex,
                                                 str, bool, bytes, type)}
    return names | {"numpy._core.multiarray._reconstruct", "numpy._core.multiarray.scalar"}


class _Unpickler(pickle.Unpickler):
    ALLOWED: set[str] = set()

    def find_class(self, module: str, name: str):
        if not self.ALLOWED:
            type(self).ALLOWED = _allowed()
        if f"{module}.{name}" not in self.ALLOWED:
            raise pickle.UnpicklingError(f"it holds {module}.{name}")
        return super().find_class(module, name)
