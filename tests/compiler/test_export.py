"""`solvent.export` and `solvent.load`: a compiled signature written to a file runs, in this process
and in one without the function's source, with NumPy's results and in-place effects; a file
that is not an export, or of another version or platform, or whose signature would build other
objects than plain data, is refused with `LoadError`; a program whose results hold the user's
own classes is refused at export."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import textwrap
import zipfile
from dataclasses import dataclass

import numpy as np
import pytest

import solvent
from differential import assert_same


def step(state, u, dt, order=2):
    """Structures in and out, a mutated dict entry and a mutated argument, a static option."""
    state["t"] += dt
    u[1:-1] += dt * (u[2:] - order * u[1:-1] + u[:-2])
    return {"energy": np.sum(u * u), "edges": (u[0], u[-1]), "order": order}, state["t"] * 2


def _arguments():
    return {"t": np.zeros(())}, np.linspace(0.0, 1.0, 32), 0.1


def _plain(outcome):
    """`step`'s result with its dict as a tuple (what `assert_same` compares)."""
    result, doubled = outcome
    assert list(result) == ["energy", "edges", "order"]
    return (result["energy"], result["edges"], result["order"], doubled)


def _check_against_numpy(run):
    expected_args, args = _arguments(), _arguments()
    assert_same(_plain(run(*args)), _plain(step(*expected_args)))
    for got, want in zip(args[:2], expected_args[:2]):
        assert_same(got, want)


@pytest.fixture
def exported(tmp_path):
    path = tmp_path / "step.solvent"
    solvent.export(solvent.compile(step, *_arguments()), path)
    return path


def test_a_loaded_program_gives_numpy_results_and_writes_back(exported):
    loaded = solvent.load(exported)
    _check_against_numpy(loaded)
    _check_against_numpy(loaded)  # and again: the thunk's fast path
    with pytest.raises(solvent.SignatureError):
        loaded({"t": np.zeros(())}, np.zeros(8), 0.1)


def test_a_process_without_the_source_runs_it(exported):
    program = textwrap.dedent(f"""
        import json, numpy as np, solvent
        run = solvent.load({str(exported)!r})
        state, u = {{"t": np.zeros(())}}, np.linspace(0.0, 1.0, 32)
        result, doubled = run(state, u, 0.1)
        print(json.dumps({{"energy": float(result["energy"]), "order": result["order"], "doubled": float(doubled),
                          "t": float(state["t"]), "u": u.tolist()}}))
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=os.path.dirname(exported))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.splitlines()[-1])
    state, u, dt = _arguments()
    result, doubled = step(state, u, dt)
    assert got["energy"] == pytest.approx(result["energy"], rel=1e-14) and got["order"] == 2
    assert got["doubled"] == doubled and got["t"] == state["t"]
    np.testing.assert_allclose(got["u"], u, rtol=1e-14)


def test_a_program_compiled_from_shapes_exports(tmp_path):
    path = tmp_path / "scaled.solvent"
    solvent.export(solvent.compile(lambda x, y: (x * y, y.sum()), solvent.ShapeDtype((3, 4)),
                                   solvent.ShapeDtype((4,), np.float32)), path)
    x, y = np.arange(12.0).reshape(3, 4), np.arange(4, dtype=np.float32)
    assert_same(solvent.load(path)(x, y), (x * y, y.sum()))


def history(x):
    rows = []
    for _ in range(40):
        x = x * 0.9 + 1.0
        rows.append(x.sum())
    return rows


def test_a_list_of_results_appended_in_a_loop_exports(tmp_path):
    """The list is one stacked output read by rows (`spec.Row`), which the loader refused."""
    path = tmp_path / "history.solvent"
    solvent.export(solvent.compile(history, np.ones(3)), path)
    assert_same(solvent.load(path)(np.ones(3)), history(np.ones(3)))


def test_static_arguments_stay_what_they_were_compiled_for(tmp_path):
    path = tmp_path / "static.solvent"
    solvent.export(solvent.compile(step, *_arguments(), order=3, static_argnames=("order",)), path)
    loaded = solvent.load(path)
    state, u, dt = _arguments()
    expected = step(*_arguments(), order=3)
    assert_same(_plain(loaded(state, u, dt, order=3)), _plain(expected))
    with pytest.raises(solvent.SignatureError):
        loaded(*_arguments(), order=2)


@dataclass
class Result:
    value: object


def test_results_of_the_users_own_classes_are_refused_at_export(tmp_path):
    compiled = solvent.compile(lambda x: Result(x + 1.0), np.zeros(3))
    with pytest.raises(solvent.UnsupportedError, match="Result"):
        solvent.export(compiled, tmp_path / "result.solvent")
    assert not list(tmp_path.iterdir())


def _rewritten(path, member, change):
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members[member] = change(members[member])
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _meta(**changes):
    return lambda data: json.dumps({**json.loads(data), **changes}).encode()


@pytest.mark.parametrize("member, change, message", [
    ("meta.json", _meta(solvent="0.0.1"), "solvent 0.0.1"),
    ("meta.json", _meta(format=99), "format 99"),
    ("meta.json", _meta(platform="tpu"), "compiled for tpu"),
    ("module.mlirbc", lambda data: data[:40], "cannot read its program"),
    ("signature.pickle", lambda data: pickle.dumps(os.system), "posix.system"),
])
def test_files_this_process_cannot_run_are_refused(exported, member, change, message):
    _rewritten(exported, member, change)
    with pytest.raises(solvent.LoadError, match=message):
        solvent.load(exported)


def test_a_file_that_is_no_export_is_refused(tmp_path):
    path = tmp_path / "other.solvent"
    path.write_bytes(b"not a zip")
    with pytest.raises(solvent.LoadError, match="not a file solvent.export wrote"):
        solvent.load(path)
