"""PolyBench datamining kernels: correlation, covariance."""

import jax.numpy as jnp
import numpy as np
from jax import lax

from .spec import Kernel


def correlation(float_n, data, corr, mean, stddev):
    """Pearson correlation matrix of the columns of data (n samples x m variables)."""
    n, m = data.shape
    eps = 0.1
    for j in range(m):
        mean[j] = data[:, j].sum() / float_n
    for j in range(m):
        d = data[:, j] - mean[j]
        stddev[j] = np.sqrt((d * d).sum() / float_n)
        stddev[j] = 1.0 if stddev[j] <= eps else stddev[j]
    for i in range(n):
        data[i, :] -= mean
        data[i, :] /= np.sqrt(float_n) * stddev
    for i in range(m - 1):
        corr[i, i] = 1.0
        corr[i, i + 1:] = data[:, i] @ data[:, i + 1:]
        corr[i + 1:, i] = corr[i, i + 1:]
    corr[m - 1, m - 1] = 1.0


def correlation_jax(float_n, data, corr, mean, stddev):
    n, m = data.shape
    eps = 0.1
    cols = jnp.arange(m)

    def col_mean(j, mean):
        return mean.at[j].set(jnp.sum(data[:, j]) / float_n)
    mean = lax.fori_loop(0, m, col_mean, mean)

    def col_std(j, stddev):
        d = data[:, j] - mean[j]
        s = jnp.sqrt(jnp.sum(d * d) / float_n)
        return stddev.at[j].set(jnp.where(s <= eps, 1.0, s))
    stddev = lax.fori_loop(0, m, col_std, stddev)

    def center(i, data):
        return data.at[i, :].set((data[i, :] - mean) / (jnp.sqrt(float_n) * stddev))
    data = lax.fori_loop(0, n, center, data)

    def row(i, corr):
        upper = cols > i
        r = jnp.where(upper, data[:, i] @ data, corr[i, :])
        corr = corr.at[i, :].set(r).at[i, i].set(1.0)
        return corr.at[:, i].set(jnp.where(upper, r, corr[:, i]))
    corr = lax.fori_loop(0, m - 1, row, corr)
    corr = corr.at[m - 1, m - 1].set(1.0)
    return data, corr, mean, stddev


def correlation_init(m, n):
    i, j = np.ogrid[:n, :m]
    data = (i * j) / m + i
    return float(n), data, np.zeros((m, m)), np.zeros(m), np.zeros(m)


def covariance(float_n, data, cov, mean):
    """Covariance matrix of the columns of data (n samples x m variables)."""
    n, m = data.shape
    for j in range(m):
        mean[j] = data[:, j].sum() / float_n
    for i in range(n):
        data[i, :] -= mean
    for i in range(m):
        cov[i, i:] = (data[:, i] @ data[:, i:]) / (float_n - 1.0)
        cov[i:, i] = cov[i, i:]


def covariance_jax(float_n, data, cov, mean):
    n, m = data.shape
    cols = jnp.arange(m)

    def col_mean(j, mean):
        return mean.at[j].set(jnp.sum(data[:, j]) / float_n)
    mean = lax.fori_loop(0, m, col_mean, mean)

    def center(i, data):
        return data.at[i, :].add(-mean)
    data = lax.fori_loop(0, n, center, data)

    def row(i, cov):
        upper = cols >= i
        r = jnp.where(upper, (data[:, i] @ data) / (float_n - 1.0), cov[i, :])
        cov = cov.at[i, :].set(r)
        return cov.at[:, i].set(jnp.where(upper, r, cov[:, i]))
    return data, lax.fori_loop(0, m, row, cov), mean


def covariance_init(m, n):
    i, j = np.ogrid[:n, :m]
    data = (i * j) / m
    return float(n), data, np.zeros((m, m)), np.zeros(m)


KERNELS = [
    Kernel("correlation", correlation, correlation_jax, correlation_init, outputs=(1, 2, 3, 4),
           sizes={"mini": dict(m=28, n=32), "small": dict(m=80, n=100),
                  "medium": dict(m=240, n=260)}),
    Kernel("covariance", covariance, covariance_jax, covariance_init, outputs=(1, 2, 3),
           sizes={"mini": dict(m=28, n=32), "small": dict(m=80, n=100),
                  "medium": dict(m=240, n=260)}),
]
