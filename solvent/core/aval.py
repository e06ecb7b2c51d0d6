"""Abstract values: the shape and dtype a traced array stands for."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Aval(NamedTuple):
    """Shape and dtype of an array, hashable; part of every signature key."""

    shape: tuple[int, ...]
    dtype: np.dtype

    def __str__(self) -> str:
        return f"{self.dtype.name}[{','.join(map(str, self.shape))}]"

    @classmethod
    def of(cls, x) -> "Aval":
        return cls(tuple(x.shape), np.dtype(x.dtype))
