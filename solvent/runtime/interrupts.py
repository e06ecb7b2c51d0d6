"""Ctrl-C held back while a compiled call hands its results to the caller's objects.

A call that mutates its arguments donates their buffers, runs, and then gives each
argument its new buffer (or copies new values into each ndarray). A KeyboardInterrupt
in between would leave an argument deleted, or some written and others not. While the
main thread runs such a call, solvent's SIGINT handler only notes the signal; the call
raises KeyboardInterrupt when it is done, with every argument whole.

The handler is installed once, and only over Python's default one: a program with its
own SIGINT handler keeps it.
"""

from __future__ import annotations

import signal
import threading

#: Code objects of the generated calls the handler protects.
_PROTECTED: set = set()
#: Signals noted during a protected call, delivered when it ends.
PENDING: list[int] = []
_installed = False


def _handler(signum, frame):
    while frame is not None:
        if frame.f_code in _PROTECTED:
            PENDING.append(signum)
            return
        frame = frame.f_back
    signal.default_int_handler(signum, frame)


def protect(code) -> None:
    """Hold back SIGINT while `code` (a generated call's code object) runs in the main thread."""
    global _installed
    _PROTECTED.add(code)
    if not _installed and threading.current_thread() is threading.main_thread():
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _handler)
        _installed = True


def deliver() -> None:
    """Raise the KeyboardInterrupt held back during the call that just finished."""
    PENDING.clear()
    raise KeyboardInterrupt
