"""Sorting and searching on traced arrays: sort, argsort, searchsorted, partition, and their relatives."""

from __future__ import annotations
