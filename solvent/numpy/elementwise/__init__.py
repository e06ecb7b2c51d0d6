"""NumPy's ufuncs on traced arrays: the table and its methods (`ufuncs`), and the formulas on SSA
values with NumPy's exact semantics that the table applies (`bodies`)."""
