"""Near-simplex tokens and where one attention layer's self weight crosses ½.

The measurements of the critical attention scaling
(:mod:`attndepth.theory.attention_scaling`; Chen et al. 2025, arXiv 2510.05554): one
layer with scores β⟨y_i, y_j⟩ on unit tokens y, the value matrix the identity. Token i's
self weight is w_i(β) = 1/(1 + Σ_{j≠i} e^{−β(1 − ⟨y_i, y_j⟩)}); it rises from 1/n at
β = 0 to 1, and crosses ½ where f_i(β) = ln Σ_{j≠i} e^{−β(1 − ⟨y_i, y_j⟩)} = 0. f_i is
convex and decreasing, so Newton's method climbs to the root monotonically from any
point left of it; it starts at ln(n − 1)/ḡ_i (ḡ_i the row's mean gap), where Jensen's
inequality gives f_i ≥ 0.
"""

from __future__ import annotations

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.seeding import gaussian_tokens
from attndepth.validation import check_finite_array, check_int, check_real, check_size

#: Newton's method stops when every step is below this fraction of its β.
TOLERANCE = 1e-12
#: Newton steps allowed (convergence is quadratic; about 5 are used).
MAX_STEPS = 200


def near_simplex_tokens(tokens: int, width: int, overlap: float, batch: int,
                        seed: int) -> np.ndarray:
    """Unit tokens y_i = normalise(√ρ e + √(1 − ρ) g_i) with pairwise overlaps ρ + O(d^(−½)).

    Parameters
    ----------
    tokens, width : n ≥ 2 and d ≥ 2.
    overlap : ρ in [0, 1).
    batch, seed : int
        g_i ~ N(0, I_d/d) are the Gaussian tokens of
        :func:`~attndepth.simulations.seeding.gaussian_tokens` (stack k: seed's child k);
        e is the first coordinate vector.

    Returns
    -------
    (batch, tokens, width) float64, every row of unit norm.
    """
    tokens = check_int("tokens", tokens, minimum=2)
    width = check_int("width", width, minimum=2)
    overlap = check_real("overlap", overlap, 0.0, 1.0)
    if overlap == 1.0:
        raise InvalidParameter("overlap must be below 1: the tokens would coincide")
    check_size("the tokens and their overlaps", batch * tokens * max(width, tokens))
    mixed = np.sqrt(1.0 - overlap) * gaussian_tokens(seed, batch, tokens, width)
    mixed /= np.sqrt(width)
    mixed[..., 0] += np.sqrt(overlap)
    mixed /= np.linalg.norm(mixed, axis=-1, keepdims=True)
    return mixed


def _gaps(Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1 − ⟨y_i, y_j⟩ (batch, n, n) and the mask of the competitors j ≠ i (n, n)."""
    Y = check_finite_array("Y", Y, ndim=3)
    return 1.0 - Y @ Y.swapaxes(-1, -2), ~np.eye(Y.shape[1], dtype=bool)


def _competition(beta: np.ndarray, gaps: np.ndarray, others: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """f_i(β) = ln Σ_{j≠i} e^{−β(1 − ⟨y_i, y_j⟩)} and f_i'(β), each (batch, n), for β
    (batch, n): one exponential per score, shifted by the row's smallest gap."""
    closest = np.min(np.where(others, gaps, np.inf), axis=-1)
    terms = np.exp(-beta[..., None] * (gaps - closest[..., None]))
    terms *= others
    total = terms.sum(axis=-1)
    return (np.log(total) - beta * closest,
            -np.einsum("bij,bij->bi", terms, gaps) / total)


def self_weights(Y: np.ndarray, beta: float) -> np.ndarray:
    """w_i(β) of every token: (batch, n) from unit tokens Y (batch, n, d)."""
    beta = check_real("beta", beta, 0.0)
    gaps, others = _gaps(Y)
    level, _ = _competition(np.full(gaps.shape[:2], beta), gaps, others)
    return 1.0 / (1.0 + np.exp(level))


def half_points(Y: np.ndarray) -> np.ndarray:
    """β_½ of every token: where its self weight is ½, (batch, n).

    Parameters
    ----------
    Y : (batch, n, d) unit tokens, n ≥ 3, no two equal.

    Returns
    -------
    (batch, n) float64

    Raises
    ------
    InvalidParameter
        Two tokens coincide (a row has a zero gap: its self weight never reaches ½).
    """
    gaps, others = _gaps(Y)
    if Y.shape[1] < 3:
        raise InvalidParameter("a crossing of 1/2 needs n >= 3 tokens (with 2 the self "
                               "weight is >= 1/2 from beta = 0)")
    if np.any(gaps[:, others] <= 0):
        raise InvalidParameter("two tokens coincide: their self weights never reach 1/2")
    beta = np.log(Y.shape[1] - 1) / (np.sum(gaps * others, axis=-1) / (Y.shape[1] - 1))
    for _ in range(MAX_STEPS):
        level, slope = _competition(beta, gaps, others)
        step = level / slope  # f/f' < 0 left of the root
        beta -= step
        if np.all(np.abs(step) <= TOLERANCE * np.maximum(beta, 1.0)):
            return beta
    raise RuntimeError(f"Newton's method did not converge in {MAX_STEPS} steps")
