"""The persistent compilation cache: pass-pipeline output and XLA executables on disk, so that a
second process skips both for a function it compiled before.

Entries are keyed by everything that decides them: the module text (with its source locations), the
optimize level, the devices (and for a sharded program its mesh and partitioning), XLA's compile
options, the host's CPU features and XLA_FLAGS, and the versions of solvent, jaxlib and enzyme-ad.
They live in `SOLVENT_CACHE_DIR` (default `$XDG_CACHE_HOME/solvent`, else `~/.cache/solvent`; empty
turns the cache off). Writes are atomic (a temporary file renamed into place); an entry whose
checksum does not hold (truncated, corrupt) is removed and recomputed, never used; the least
recently used entries go when the cache passes `SOLVENT_CACHE_BYTES` (default 1 GiB). An entry that
Python code of solvent computes (the pass pipeline's output) is keyed by that code too
(`fingerprint`), so an edited checkout never takes an entry its old code made.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import tempfile
from collections.abc import Callable
from importlib import metadata

_MAGIC = b"solvent cache 1\n"
_SUFFIX = ".entry"
#: Entries found and entries written by this process (what tests and users can check).
STATS = {"hits": 0, "stores": 0}


def package_version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


def _host() -> tuple:
    """What decides the machine code XLA emits here: the architecture, the CPU's features (an
    executable using AVX-512 must not load on a CPU without it), and XLA_FLAGS (`--xla_cpu_max_isa`)."""
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line for line in f if line.startswith("flags")), "")
    except OSError:
        pass
    return platform.machine(), platform.processor(), hashlib.sha256(flags.encode()).hexdigest()


#: The versions of the packages that decide what solvent compiles (an export records them too).
VERSIONS = {name: package_version(name) for name in ("solvent", "jaxlib", "enzyme-ad")}
_VERSIONS = (*VERSIONS.values(), _host())


@functools.cache
def fingerprint(*packages) -> str:
    """A digest of the Python sources of `packages` (imported packages or modules)."""
    digest = hashlib.sha256()
    for package in packages:
        paths = getattr(package, "__path__", None)
        files = sorted(os.path.join(d, n) for d in paths for n in os.listdir(d) if n.endswith(".py")) \
            if paths else [package.__file__]
        for path in files:
            with open(path, "rb") as f:
                digest.update(path.rsplit(os.sep, 1)[-1].encode() + b"\0" + f.read())
    return digest.hexdigest()


def directory() -> str | None:
    """Where entries live, or None when the cache is off."""
    chosen = os.environ.get("SOLVENT_CACHE_DIR")
    if chosen is not None:
        return chosen or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "solvent")


def limit() -> int:
    return int(os.environ.get("SOLVENT_CACHE_BYTES", 1 << 30))


def cached(kind: str, parts: tuple, compute: Callable[[], bytes],
           check: Callable[[bytes], object] | None = None) -> bytes:
    """The entry for (`kind`, `parts`), computed and stored when absent or unreadable, or when
    `check` raises on it (an entry intact on disk that this process cannot use)."""
    where = directory()
    if where is None:
        return compute()
    digest = hashlib.sha256(repr((kind, _VERSIONS, os.environ.get("XLA_FLAGS", ""), parts)).encode()).hexdigest()
    path = os.path.join(where, f"{kind}-{digest}{_SUFFIX}")
    found = _load(path)
    if found is not None and check is not None:
        try:
            check(found)
        except Exception:  # whatever the loader raises: the entry is replaced
            _remove(path)
            found = None
    if found is not None:
        STATS["hits"] += 1
        return found
    payload = compute()
    _store(where, path, payload)
    return payload


def _load(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    header = len(_MAGIC) + 32
    payload = data[header:]
    if data[:len(_MAGIC)] != _MAGIC or hashlib.sha256(payload).digest() != data[len(_MAGIC):header]:
        _remove(path)  # truncated or corrupt: recomputed and written anew
        return None
    try:
        os.utime(path)  # recently used: evicted last
    except OSError:
        pass
    return payload


def _store(where: str, path: str, payload: bytes) -> None:
    """Write atomically (other processes see the whole entry or none), then keep the size bound."""
    try:
        os.makedirs(where, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=where, prefix=".writing-")
        with os.fdopen(handle, "wb") as f:
            f.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
        os.replace(temporary, path)
        STATS["stores"] += 1
        _keep_bound(where, len(payload))
    except OSError:  # a read-only or full disk: the cache is an optimisation only
        pass


#: Per directory: (its size when last listed plus what this process stored since, stores since).
_SIZES: dict[str, tuple[int, int]] = {}
#: The directory is listed again after this many stores (other processes write to it too).
RELIST = 256


def _keep_bound(where: str, stored: int) -> None:
    """Evict when the directory may pass the bound: a cache of many entries is listed once per
    RELIST stores or when this process's own stores take it past the bound, not on every store."""
    size, stores = _SIZES.get(where, (None, 0))
    if size is None or stores >= RELIST or size + stored > limit():
        _SIZES[where] = (_evict(where), 0)
    else:
        _SIZES[where] = (size + stored, stores + 1)


def _evict(where: str) -> int:
    """Remove the least recently used entries until the directory is within the bound; its size."""
    entries = []
    for name in os.listdir(where):
        if name.endswith(_SUFFIX):
            try:
                stat = os.stat(os.path.join(where, name))
            except OSError:
                continue
            entries.append((stat.st_mtime, stat.st_size, name))
    total, bound = sum(size for _, size, _ in entries), limit()
    for _, size, name in sorted(entries):
        if total <= bound:
            break
        _remove(os.path.join(where, name))
        total -= size
    return total


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
