"""PJRT client and devices, `solvent.Array`/`Scalar`, executables."""
