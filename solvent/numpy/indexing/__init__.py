"""NumPy indexing on traced arrays: basic, advanced (integer arrays, static masks), traced boolean
masks, slices with traced bounds (`traced_bounds`, with loop-index forms in `affine` and the NumPy
functions on them in `bounded_functions`), the entry
points (`subscripts`), the index functions (`functions`: take, put, where, ...) and views by
strides (`strided`: sliding windows, as_strided)."""
