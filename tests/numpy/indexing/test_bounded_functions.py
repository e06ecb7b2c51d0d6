"""NumPy functions on slices with traced bounds, against NumPy: argmax and argmin count from the
slice's start (the reductions, products and where are covered with the slices in test_traced_bounds)."""

import numpy as np

from differential import check_like_numpy


def test_argmax_and_argmin_of_loop_dependent_slices_count_from_the_slice():
    def along(x, A):
        out = np.zeros((x.shape[0], 3), np.int64)
        for k in range(x.shape[0]):
            out[k, 0] = np.argmax(x[k:]) + 10 * np.argmin(x[:k + 1])
            out[k, 1] = A[k, k:].argmax()
            out[k, 2] = np.argmin(A[k:, :], axis=0)[1]
        return out

    rng = np.random.default_rng(3)
    check_like_numpy(along, rng.standard_normal(20), rng.standard_normal((20, 20)))
