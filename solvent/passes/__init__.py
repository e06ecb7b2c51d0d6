"""Module -> module rewrites after tracing: the optimize levels as Enzyme-JAX pass pipelines
(`pipelines`, which first folds values with no elements into constants: `empty_values`), their
failures as errors at the user's line (`diagnose`); then, on the optimized
module as XLA takes it, donation (`donation`) and block updates as pad + select (`block_updates`)."""
