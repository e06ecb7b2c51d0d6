"""How much memory a compiled call needs, and whether the device has it, before anything is donated."""

from __future__ import annotations

import resource

#: Calls needing less than this are not checked (reading the free memory costs more than they do).
CHECKED_ABOVE = 256 << 20


def needed(executable) -> int:
    """Bytes a call allocates beyond its inputs: XLA's temporaries and the results not aliased
    to donated inputs."""
    try:
        stats = executable.get_compiled_memory_stats()
    except Exception:  # not every PJRT backend reports them
        return 0
    return max(0, stats.temp_size_in_bytes + stats.output_size_in_bytes - stats.alias_size_in_bytes)


def available(device) -> int | None:
    """Bytes free on `device` now, or None where nothing says (then the call simply runs).

    On the host: the least of the free memory, the container's (cgroup) allowance and the
    process's address-space limit.
    """
    if device.platform != "cpu":
        stats = device.memory_stats() or {}
        limit = stats.get("bytes_limit")
        return None if limit is None else limit - stats.get("bytes_in_use", 0)
    found = [n for n in (_meminfo("MemAvailable"), _cgroup_free(), _address_space_free()) if n is not None]
    return min(found) if found else None


def _meminfo(field: str, path="/proc/meminfo", scale=1024) -> int | None:
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * scale
    except (OSError, ValueError, IndexError):
        pass
    return None


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None  # absent, or "max"


def _cgroup_free() -> int | None:
    limit, used = _read_int("/sys/fs/cgroup/memory.max"), _read_int("/sys/fs/cgroup/memory.current")
    return None if limit is None or used is None else limit - used


def _address_space_free() -> int | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    used = _meminfo("VmSize", "/proc/self/status")
    return None if used is None else soft - used


def may_not_fit(size: int, device) -> bool:
    free = available(device)
    return free is not None and size > free


def describe(size: float) -> str:
    """`size` bytes for a message: "3.2 GiB"."""
    unit = "bytes"
    for bigger in ("KiB", "MiB", "GiB", "TiB"):
        if size < 1024:
            break
        size, unit = size / 1024, bigger
    return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
