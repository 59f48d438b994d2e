"""Probes of the analysed linear-attention network as a polynomial (docs/theory.md §1).

Measurements, not predictions: the fitted homogeneity degree of f, and how f
at position i responds to changes of the other positions that keep or break
``M_Q = Σ_{j∈Q} x^j x^jᵀ``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import linregress, ortho_group

from attndepth.errors import InvalidParameter
from attndepth.rank.network import (
    draw_linear_attention_weights,
    linear_attention_states,
)
from attndepth.simulations.seeding import GRID_STREAM, gaussian_tokens, spawn_generators
from attndepth.validation import check_finite_array, check_int


@dataclass(frozen=True)
class HomogeneityMeasurement:
    """Fitted degree k in ``‖f(t·x)‖ = t^k ‖f(x)‖`` and the worst pointwise error.

    Attributes
    ----------
    fitted_degree : slope of log ‖f(t x)‖ against log t (scipy linregress).
    max_relative_error : max over t, stacks, positions, coordinates of
        |f(t x) − t^k f(x)| / (t^k max|f(x)|) with k = the nearest integer to
        the fitted degree.
    """

    fitted_degree: float
    max_relative_error: float


def measure_homogeneity(
    width: int, depth: int, heads: int, tokens: int, scales: np.ndarray,
    batch: int, seed: int, residual: int = 0,
) -> HomogeneityMeasurement:
    """Evaluate the float64 network at x and t·x for each scale t.

    scales : (S,) positive finite, not all equal to 1.
    """
    scales = check_finite_array("scales", scales, ndim=1)
    if scales.size < 2 or np.any(scales <= 0) or np.allclose(scales, scales[0]):
        raise InvalidParameter("scales must hold at least two distinct positive values")
    weights = draw_linear_attention_weights(width, depth, heads, residual, batch, seed)
    X = gaussian_tokens(seed, batch, tokens, width)
    outputs = np.stack([linear_attention_states(t * X, weights)[-1] for t in scales])
    base = linear_attention_states(X, weights)[-1]
    norms = np.linalg.norm(outputs.reshape(len(scales), -1), axis=1)
    fit = linregress(np.log(scales), np.log(norms))
    degree = round(fit.slope)
    predicted = scales[:, None, None, None] ** degree * base
    error = np.abs(outputs - predicted).max(axis=(1, 2, 3)) / (
        scales**degree * np.abs(base).max()
    )
    return HomogeneityMeasurement(float(fit.slope), float(error.max()))


@dataclass(frozen=True)
class StructureMeasurement:
    """Response of f (all coordinates at positions in P) to changes of x_Q.

    Attributes
    ----------
    orthogonal_change : max relative change when X_Q ← O X_Q, O orthogonal
        (|Q| × |Q|), which keeps M_Q = X_Qᵀ X_Q.
    generic_change : min relative change when X_Q is redrawn.
    """

    orthogonal_change: float
    generic_change: float


def measure_structure(
    width: int, depth: int, heads: int, tokens: int, batch: int, seed: int,
    residual: int = 0, q_size: int | None = None,
) -> StructureMeasurement:
    """Mix the last ``q_size`` positions (Q) by Haar-random orthogonal matrices.

    Positions ``0 … tokens − q_size − 1`` form P. Relative changes are
    ``max|Δf| / max|f|`` per stack, over the P positions.
    """
    tokens = check_int("tokens", tokens, minimum=2)
    q_size = tokens // 2 if q_size is None else check_int("q_size", q_size, 1, tokens - 1)
    weights = draw_linear_attention_weights(width, depth, heads, residual, batch, seed)
    X = gaussian_tokens(seed, batch, tokens, width)
    generators = spawn_generators(seed, batch, GRID_STREAM)
    if q_size > 1:
        mixers = np.stack([ortho_group.rvs(q_size, random_state=g) for g in generators])
    else:
        mixers = np.stack([np.array([[g.choice([-1.0, 1.0])]]) for g in generators])
    mixed = X.copy()
    mixed[:, -q_size:] = mixers @ X[:, -q_size:]
    redrawn = X.copy()
    redrawn[:, -q_size:] = np.stack([g.standard_normal((q_size, width)) for g in generators])
    p_count = tokens - q_size
    f = linear_attention_states(X, weights)[-1][:, :p_count]
    f_mixed = linear_attention_states(mixed, weights)[-1][:, :p_count]
    f_redrawn = linear_attention_states(redrawn, weights)[-1][:, :p_count]
    scale = np.abs(f).max(axis=(1, 2))
    orthogonal = np.abs(f_mixed - f).max(axis=(1, 2)) / scale
    generic = np.abs(f_redrawn - f).max(axis=(1, 2)) / scale
    return StructureMeasurement(float(orthogonal.max()), float(generic.min()))
