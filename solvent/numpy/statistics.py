"""Statistics on traced arrays: median, percentile, quantile, average, cov, corrcoef, histogram, bincount."""

from __future__ import annotations
