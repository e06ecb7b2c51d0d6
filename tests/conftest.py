"""Hypothesis draws the same examples on every run: a test run, CI's included, never depends on luck.
The persistent compilation cache starts empty in a directory of this run's own (before solvent reads it)."""

import atexit
import os
import shutil
import tempfile

from hypothesis import settings

settings.register_profile("solvent", derandomize=True)
settings.load_profile("solvent")

_CACHE = tempfile.mkdtemp(prefix="solvent-test-cache-")
os.environ["SOLVENT_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)
