"""The one trace state of a thread: traces, regions with their epoch, and the program's mesh."""

import collections
import threading

import numpy as np

import solvent
from solvent.core import trace
from solvent.core.session import ACTIVE, SESSION


def test_a_trace_is_seen_on_its_own_thread_only():
    seen, other = [], []

    def fn(x):
        seen.append((trace.current() is not None, trace.is_tracing(), ACTIVE[0]))
        worker = threading.Thread(target=lambda: other.append((trace.current(), len(SESSION.traces))))
        worker.start()
        worker.join()
        return x + 1

    solvent.jit(fn)(np.zeros(3))
    assert seen == [(True, True, 1)] and other == [(None, 0)]
    assert trace.current() is None and SESSION.traces == [] and ACTIVE[0] == 0


def test_a_region_changes_the_epoch_on_entering_and_leaving():
    epochs = collections.UserList()  # not a list: a traced body that changes a list (or a deque) is refused

    def fn(x, n):
        epochs.append(SESSION.epoch)
        while n > 0:  # a traced loop: its body is a region
            epochs.append((SESSION.epoch, len(SESSION.regions)))
            x = x * 2
            n -= 1
        epochs.append((SESSION.epoch, len(SESSION.regions)))
        return x

    np.testing.assert_array_equal(solvent.jit(fn)(np.ones(2), np.array(3)), np.full(2, 8.0))
    start, (inside, depth), (after, depth_after) = epochs[0], epochs[1], epochs[-1]
    assert depth == 1 and depth_after == 0 and start < inside < after
    assert SESSION.regions == []


def test_the_mesh_of_a_program_is_forgotten_after_it():
    solvent.jit(lambda x: x * 2)(np.ones(4))
    assert SESSION.mesh is None
