"""The network and its homogeneous parts evaluated on grids of points (NumPy, GF(p), JAX)."""
