"""np.linalg on traced arrays: LAPACK custom calls that jaxlib registers, and StableHLO ops."""

from __future__ import annotations
