"""Hypothesis draws the same examples on every run: a test run, CI's included, never depends on luck.

The persistent compilation cache is the suite's own, `.cache/tests` in the checkout (set before
solvent reads it), kept between runs: a run compiles only the programs that changed since the
last one. Entries are keyed by the module text, the pass pipeline and the code that runs it, and
XLA's options, so a kept entry is what compiling again would give. A fresh clone (CI) starts empty.
"""

import os

from hypothesis import settings

settings.register_profile("solvent", derandomize=True)
settings.load_profile("solvent")

os.environ["SOLVENT_CACHE_DIR"] = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                               ".cache", "tests")
os.environ["SOLVENT_CACHE_BYTES"] = str(2 << 30)
