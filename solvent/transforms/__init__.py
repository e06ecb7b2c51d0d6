"""Transformations of traced programs: structured control flow (autodiff and batching to come)."""
