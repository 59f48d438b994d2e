"""Constructions of stochastic matrices (NumPy only; no test dependencies).

Used by the claims and by the public hypothesis strategies of
``attndepth.simulations.testing``.
"""

from __future__ import annotations

import numpy as np

from attndepth.errors import InvalidParameter

#: Sinkhorn stops when column sums are within this of 1 (rows are exact to rounding).
SINKHORN_TOLERANCE = 1e-13


def sinkhorn(matrix: np.ndarray, max_iterations: int = 10_000) -> np.ndarray:
    """Scale a positive matrix to doubly stochastic (Sinkhorn & Knopp 1967).

    Rows are normalised last, so P1 = 1 holds to rounding (the invariant the
    theory needs exactly); columns sum to 1 within :data:`SINKHORN_TOLERANCE`.
    """
    P = np.array(matrix, dtype=np.float64)
    if np.any(P <= 0):
        raise InvalidParameter("sinkhorn needs a strictly positive matrix")
    for _ in range(max_iterations):
        P /= P.sum(axis=0, keepdims=True)
        P /= P.sum(axis=1, keepdims=True)
        if np.abs(P.sum(axis=0) - 1).max() < SINKHORN_TOLERANCE:
            return P
    raise InvalidParameter("sinkhorn did not converge")
