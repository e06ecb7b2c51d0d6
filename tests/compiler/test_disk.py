"""The persistent compilation cache: a second process takes the pass pipeline's output and XLA's
executable from disk; processes compiling at once all succeed; a truncated or corrupt entry is
recomputed, never used; the size bound evicts the least recently used; SOLVENT_CACHE_DIR= turns it off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import types

import numpy as np

import solvent
from solvent.compiler import disk

PROGRAM = textwrap.dedent("""
    import json, time
    import numpy as np, solvent
    from solvent.compiler import disk

    def step(u, dt):
        u[1:-1] += dt * (u[2:] - 2 * u[1:-1] + u[:-2])
        return np.sum(np.sin(u) * np.cos(u))

    u = np.linspace(0.0, 1.0, 64)
    start = time.perf_counter()
    total = solvent.jit(step)(u, 0.1)
    print(json.dumps({"seconds": time.perf_counter() - start, "total": float(total), "u": u.tolist(), **disk.STATS}))
""")


def run(directory, count=1):
    """Run PROGRAM in `count` processes at once with the cache in `directory`; their reports."""
    env = {**os.environ, "SOLVENT_CACHE_DIR": str(directory)}
    children = [subprocess.Popen([sys.executable, "-c", PROGRAM], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(count)]
    reports = []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err[-2000:]
        reports.append(json.loads(out.strip().splitlines()[-1]))
    return reports


def test_a_second_process_hits_the_cache_and_computes_the_same(tmp_path):
    (cold,) = run(tmp_path)
    (warm,) = run(tmp_path)
    assert cold["hits"] == 0 and cold["stores"] == 2  # the pass pipeline's output and the executable
    assert warm["hits"] == 2 and warm["stores"] == 0
    assert warm["total"] == cold["total"] and warm["u"] == cold["u"]


def test_processes_compiling_at_once_all_succeed(tmp_path):
    reports = run(tmp_path, count=3)
    assert len({r["total"] for r in reports}) == 1
    assert len(list(tmp_path.glob("*.entry"))) == 2


def test_a_truncated_entry_is_recomputed_not_used(tmp_path):
    run(tmp_path)
    for entry in tmp_path.glob("*.entry"):
        entry.write_bytes(entry.read_bytes()[:-7])
    (again,) = run(tmp_path)
    assert again["hits"] == 0 and again["stores"] == 2
    (then,) = run(tmp_path)
    assert then["hits"] == 2 and then["total"] == again["total"]


def test_in_process_entries_and_the_off_switch(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLVENT_CACHE_DIR", str(tmp_path))
    f = lambda x: x * 3 + 1  # noqa: E731
    first = solvent.compile(f, np.arange(4.0))
    hits = disk.STATS["hits"]
    second = solvent.compile(f, np.arange(4.0))  # compiles again, from the entries
    assert disk.STATS["hits"] == hits + 2
    np.testing.assert_array_equal(first(np.arange(4.0)), second(np.arange(4.0)))
    entries = len(list(tmp_path.glob("*.entry")))
    monkeypatch.setenv("SOLVENT_CACHE_DIR", "")
    stores = disk.STATS["stores"]
    solvent.compile(lambda x: x - 5, np.arange(4.0))
    assert disk.directory() is None and disk.STATS["stores"] == stores
    assert len(list(tmp_path.glob("*.entry"))) == entries


def test_the_size_bound_evicts_the_least_recently_used(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLVENT_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("SOLVENT_CACHE_BYTES", "20000")
    for k in range(6):
        solvent.compile(lambda x, k=k: x * (k + 2.5), np.arange(3.0 + k))
    assert sum(e.stat().st_size for e in tmp_path.glob("*.entry")) <= 20000
    assert not list(tmp_path.glob(".writing-*"))  # no temporary file left behind


def test_xla_flags_are_part_of_the_key(tmp_path, monkeypatch):
    # `make fuzz` compiles with --xla_cpu_max_isa=AVX: its executables must not serve other runs
    monkeypatch.setenv("SOLVENT_CACHE_DIR", str(tmp_path))
    f = lambda x: x * 7 - 2  # noqa: E731
    solvent.compile(f, np.arange(5.0))
    stores = disk.STATS["stores"]
    monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", "") + " --xla_cpu_max_isa=AVX")
    solvent.compile(f, np.arange(5.0))
    assert disk.STATS["stores"] == stores + 2


def test_an_entry_this_process_cannot_load_is_compiled_and_replaced(tmp_path, monkeypatch):
    # intact on disk (its checksum holds) but not an executable, as one from another jaxlib would be
    monkeypatch.setenv("SOLVENT_CACHE_DIR", str(tmp_path))
    f = lambda x: x * 5 - 1  # noqa: E731
    solvent.compile(f, np.arange(3.0))
    (xla_entry,) = [e for e in tmp_path.glob("xla-*.entry")]
    disk._store(str(tmp_path), str(xla_entry), b"not an executable")
    stores = disk.STATS["stores"]
    np.testing.assert_array_equal(solvent.compile(f, np.arange(3.0))(np.arange(3.0)), np.arange(3.0) * 5 - 1)
    assert disk.STATS["stores"] == stores + 1  # written anew...
    hits = disk.STATS["hits"]
    solvent.compile(f, np.arange(3.0))
    assert disk.STATS["hits"] == hits + 2  # ...and used from then on


def test_a_module_text_does_not_depend_on_what_the_process_traced_before():
    # the functions grad and outlining add are named within their module, not by a process-wide count
    # (which made a second process miss every entry of a program with derivatives)
    def traced(loss, x):
        return solvent.compile(solvent.grad(loss), x).lowered.traced_text

    loss = lambda x: np.sum(np.sin(x) * x)  # noqa: E731
    first = traced(loss, np.arange(3.0))
    traced(lambda x: np.sum(x ** 3), np.arange(4.0))
    assert traced(loss, np.arange(3.0)) == first


def test_the_fingerprint_follows_the_code(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    old, new = types.ModuleType("old"), types.ModuleType("new")
    old.__path__ = new.__path__ = [str(tmp_path)]
    before = disk.fingerprint(old)
    (tmp_path / "a.py").write_text("x = 2\n")
    assert disk.fingerprint(new) != before
    assert disk.fingerprint(old) == before  # one digest per package per process


def test_a_store_lists_the_directory_only_now_and_then(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLVENT_CACHE_DIR", str(tmp_path))
    listed, listdir = [], os.listdir
    monkeypatch.setattr(disk.os, "listdir", lambda where: listed.append(where) or listdir(where))
    for k in range(20):
        disk.cached("test", (k,), lambda: b"x" * 100)
    assert len(listed) <= 1 + 20 // disk.RELIST
