"""Solvent's exceptions, each pointing at the user's source line."""

from __future__ import annotations

import contextlib
import os
import sys

import numpy

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_NUMPY_DIR = os.path.dirname(os.path.abspath(numpy.__file__))
_SKIP_PREFIXES = (PACKAGE_DIR + os.sep, _NUMPY_DIR + os.sep, contextlib.__file__)


def is_library_file(filename: str) -> bool:
    """Whether code in `filename` is solvent's or NumPy's own (not the user's)."""
    return filename.startswith(_SKIP_PREFIXES) or filename.startswith(("<frozen", "<solvent"))


#: Where installed code lives (the standard library, site-packages): not the user's either.
_INSTALLED = tuple({sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix})


def is_users_file(filename: str | None) -> bool:
    """Whether code in `filename` is the user's: not solvent's, NumPy's or any installed package's."""
    return bool(filename) and not is_library_file(filename) and not filename.startswith(_INSTALLED)


def user_frame(depth: int = 1):
    """The innermost stack frame that belongs to the user (not solvent, not NumPy)."""
    frame = sys._getframe(depth)
    while frame is not None:
        if not is_library_file(frame.f_code.co_filename):
            return frame
        frame = frame.f_back
    return None


def user_stacklevel() -> int:
    """`warnings.warn`'s stacklevel, for the function calling this, that names the user's line."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and is_library_file(frame.f_code.co_filename):
        level, frame = level + 1, frame.f_back
    return level


def user_location() -> tuple[str, int] | None:
    """(file, line) of the user's code currently executing, or None."""
    frame = user_frame(2)
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else None


def raised_at(error: BaseException) -> tuple[str, int] | None:
    """(file, line) of the innermost user frame in `error`'s traceback, or None."""
    found, tb = None, error.__traceback__
    while tb is not None:
        if is_users_file(tb.tb_frame.f_code.co_filename):
            found = (tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return found


def numpy_entry() -> str | None:
    """`np.name` of the NumPy Python function the user called, when the current code runs inside one."""
    frame, entry = sys._getframe(1), None
    while frame is not None and is_library_file(frame.f_code.co_filename):
        if frame.f_code.co_filename.startswith(_NUMPY_DIR + os.sep):
            entry = frame
        frame = frame.f_back
    if entry is None or frame is None:
        return None
    code = entry.f_code
    for prefix, namespace in (("np", numpy), ("np.linalg", numpy.linalg), ("np.fft", numpy.fft)):
        public = getattr(namespace, code.co_name, None)  # (the same function: numpy.polynomial's polyval is not)
        public = getattr(public, "_implementation", getattr(public, "__wrapped__", public))
        if getattr(public, "__code__", None) is code:
            return f"{prefix}.{code.co_name}"
    named = f"np.{code.co_name}" if code.co_qualname == code.co_name else code.co_qualname  # (a method's: its class)
    return f"{named} (in {entry.f_globals.get('__name__', 'numpy')})"


def describe_location(location: tuple[str, int] | None) -> str:
    if location is None:
        return "<unknown location>"
    return f"{location[0]}:{location[1]}"


#: Why a generator made inside compiled code, or from outside it and not passed in, is refused (a draw
#: there would be a constant of the program).
RANDOM = ("solvent draws random numbers from a np.random.Generator argument (np.random.default_rng(seed)), a "
          "RandomState argument or np.random's global state, with NumPy's bits; pass a generator in, or draw "
          "outside the compiled function and pass the arrays")


class SolventError(Exception):
    """Base class of every error solvent raises on purpose."""

    def __init__(self, message: str, location: tuple[str, int] | None = None):
        self.location = location if location is not None else user_location()
        self.detail = message
        super().__init__(f"{message}\n  at {describe_location(self.location)}")


class UnsupportedError(SolventError, NotImplementedError):
    """A NumPy function or form that solvent cannot compile (never a host fallback)."""


class TracerConversionError(SolventError, TypeError):
    """A traced value was turned into a Python value (bool(), int(), float(), ...)."""


class SignatureError(SolventError, TypeError):
    """A compiled function was called with arguments of another signature (or a transformation with
    arguments, or a function, of another kind than it takes)."""


class CompileError(SolventError):
    """The program could not be optimized or compiled by XLA."""


class LoadError(SolventError, ValueError):
    """A file `solvent.load` cannot run here: not an export, or of another format, solvent
    version or platform, or a program this jaxlib cannot read."""


class ExecutionError(SolventError, RuntimeError):
    """XLA failed while running a compiled program (out of memory, say); the arguments are intact."""


class ReadOnlyError(SolventError, ValueError):
    """A call would write into an array argument that cannot be written (NumPy's "read-only")."""


class ControlFlowError(SolventError, TypeError):
    """A branch or loop body returned another structure, shape or dtype than it must."""


class LayoutError(SolventError, AttributeError):
    """A call would give an array argument a shape its memory cannot take without a copy (NumPy's
    "Incompatible shape for in-place modification" of `x.shape = ...`)."""


class ShardingError(SolventError, ValueError):
    """Shardings that do not fit together (several meshes, a PartitionSpec without a mesh, ...)."""


class EscapedValueError(UnsupportedError):
    """A traced value was used outside the loop or branch body it was computed in.

    `rolled` lists the (file, line) of static loops the trace rolled into
    `stablehlo.while`; unrolling them is the way out.
    """

    def __init__(self, message: str, location: tuple[str, int] | None = None, rolled=()):
        super().__init__(message, location)
        self.rolled = list(rolled)


class RecompileWarning(UserWarning):
    """A jitted function keeps compiling new signatures (see `solvent.jit(f, explain=True)`)."""
