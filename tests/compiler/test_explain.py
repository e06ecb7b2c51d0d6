"""Why a jitted function compiled again: `explain=True` (or SOLVENT_LOG=recompiles) logs the argument
that changed and how, for each kind of change; a function that keeps compiling warns once; a slow
first call logs its stages (SOLVENT_LOG=info shows them)."""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import solvent


def explained(caplog, f, *calls):
    """The log lines of `solvent.jit(f, explain=True)` over `calls` (each a tuple of arguments)."""
    jitted = solvent.jit(f, explain=True)
    with caplog.at_level(logging.WARNING, logger="solvent"):
        for args in calls:
            jitted(*args)
    return [r.getMessage() for r in caplog.records if r.name == "solvent"]


def total(u, scale=1.0):
    return np.sum(u) * scale


@dataclasses.dataclass
class State:
    u: np.ndarray
    steps: int


def advance(state, table):
    return state.u.sum() + state.steps + table["a"].sum()


@pytest.mark.parametrize("calls, expected", [
    (((np.zeros(3),), (np.zeros(4),)), "u: ndarray of float64[3] -> ndarray of float64[4]"),
    (((np.zeros(3),), (np.zeros(3, np.float32),)), "u: ndarray of float64[3] -> ndarray of float32[3]"),
    (((np.zeros(3), 2.0), (np.zeros(3), 3.0)), "scale: float 2.0 -> float 3.0"),
    (((np.zeros(3),), (np.zeros(3), 2.0)), "scale: new: float 2.0"),
    (((np.zeros(3),), (solvent.asarray(np.zeros(3)),)), "u: ndarray of float64[3] -> Array of float64[3]"),
    ((([1.0],), ([1.0, 2.0],)), "u: list of 1 -> list of 2"),
], ids=["shape", "dtype", "static value", "argument added", "kind", "list grown"])
def test_the_changed_argument_and_what_changed(caplog, calls, expected):
    lines = explained(caplog, total, *calls)
    assert len(lines) == 1 and expected in lines[0] and "total" in lines[0], lines


def test_paths_into_structures_and_structure_changes(caplog):
    u = np.zeros(2)
    lines = explained(caplog, advance,
                      (State(u, 1), {"a": np.ones(2)}),
                      (State(u, 2), {"a": np.ones(2)}),
                      (State(u, 2), {"a": np.ones(2), "b": 3}),
                      (State(np.zeros((2, 2)), 2), {"a": np.ones(2), "b": 3}))
    assert len(lines) == 3
    assert "state.steps: int 1 -> int 2" in lines[0]
    assert "table['b']: new: int 3" in lines[1]
    assert "state.u: ndarray of float64[2] -> ndarray of float64[2, 2]" in lines[2]


def add_into(x, y):
    x += y


def test_an_array_passed_twice(caplog):
    a, b = np.zeros(3), np.ones(3)
    lines = explained(caplog, add_into, (a, b), (a, a))
    assert "y: ndarray of float64[3] -> the same object as x" in lines[0]


def test_a_program_writing_no_argument_runs_an_array_passed_twice_as_compiled(caplog):
    a, b = np.arange(3.0), np.ones(3)
    assert explained(caplog, lambda x, y: x * y, (a, b), (a, a)) == []  # the same results either way


def test_the_same_signature_again_compiles_once_and_logs_nothing(caplog):
    assert explained(caplog, total, (np.zeros(3),), (np.ones(3),), (np.zeros(3),)) == []


def test_the_log_switch(caplog, monkeypatch):
    monkeypatch.setenv("SOLVENT_LOG", "recompiles")
    jitted = solvent.jit(total)
    with caplog.at_level(logging.WARNING, logger="solvent"):
        jitted(np.zeros(1))
        jitted(np.zeros(2))
    assert any("u: ndarray of float64[1] -> ndarray of float64[2]" in r.getMessage() for r in caplog.records)


def test_a_function_that_keeps_compiling_warns_once_naming_what_changes():
    jitted = solvent.jit(total)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 14):
            jitted(np.zeros(n))
    found = [w for w in caught if issubclass(w.category, solvent.RecompileWarning)]
    assert len(found) == 1 and "`u` changed in 9" in str(found[0].message), [str(w.message) for w in found]
    assert found[0].filename == __file__  # points at the caller's line


def test_a_slow_first_call_logs_its_stages(caplog, monkeypatch):
    from solvent.compiler import explain
    monkeypatch.setattr(explain, "SLOW", 0.0)  # every compile counts as slow here
    with caplog.at_level(logging.INFO, logger="solvent"):
        solvent.jit(total)(np.zeros(3))
    [line] = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert line.startswith("solvent.jit(total) compiled in") and "trace" in line and "XLA compile" in line


def test_solvent_log_info_shows_the_stages_on_stderr():
    source = ("import numpy as np, solvent\nfrom solvent.compiler import explain\nexplain.SLOW = 0.0\n"
              "solvent.jit(lambda x: x + 1)(np.zeros(2))\n")
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "SOLVENT_LOG": "info"})
    assert "compiled in" in done.stderr and "XLA compile" in done.stderr, done.stderr[-2000:]
