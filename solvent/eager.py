"""NumPy on `solvent.Array` outside `jit`: each call runs as a small compiled program.

Every NumPy function, ufunc method, index and ndarray method gets one jitted
wrapper, so its programs are cached per signature like any jitted function.
"""

from __future__ import annotations

import functools

import numpy as np

from solvent.runtime import array as runtime_array


@functools.lru_cache(maxsize=None)
def _ufunc_program(ufunc, method):
    from solvent.api import jit
    return jit(lambda inputs, kwargs: getattr(ufunc, method)(*inputs, **kwargs))


@functools.lru_cache(maxsize=None)
def _function_program(func):
    from solvent.api import jit
    return jit(lambda args, kwargs: func(*args, **kwargs))


@functools.lru_cache(maxsize=None)
def _method_program(name):
    from solvent.api import jit
    return jit(lambda array, args, kwargs: getattr(array, name)(*args, **kwargs))


def _index(array, key):
    return array[key]


def _assign(array, key, value):
    array[key] = value


def ufunc(ufunc, method, inputs, kwargs):
    return _ufunc_program(ufunc, method)(inputs, kwargs)


def function(func, args, kwargs):
    return _function_program(func)(args, kwargs)


def getitem(array, key):
    return _function_program(_index)((array, key), {})


def setitem(array, key, value):
    _function_program(_assign)((array, key, value), {})


def method(array, name):
    if not hasattr(np.ndarray, name):
        raise AttributeError(f"'solvent.Array' object has no attribute {name!r}")
    return lambda *args, **kwargs: _method_program(name)(array, args, kwargs)


runtime_array.EAGER.update(ufunc=ufunc, function=function, getitem=getitem, setitem=setitem, method=method)
