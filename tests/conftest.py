"""Hypothesis draws the same examples on every run: a test run, CI's included, never depends on luck."""

from hypothesis import settings

settings.register_profile("solvent", derandomize=True)
settings.load_profile("solvent")
