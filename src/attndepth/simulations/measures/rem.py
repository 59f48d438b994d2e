"""Wide attention layers on correlated tokens, and the random energy model's participation.

``wide_layer_map`` measures one softmax layer as a map of token overlaps
(Giorlandino & Goldt 2025): tokens x_i = √p z + √(1 − p) ξ_i (z, ξ_i standard
Gaussian in ℝ^d), logits β √(ln T) x_iᵀ G x_j / d with G standard Gaussian,
values the tokens; it reports the squared norms and overlaps (per coordinate)
before and after, and the participation ratio Σ_j A_ij² of the rows. For T < d the
logits X G Xᵀ are drawn in law through a T × T factor of X Xᵀ, without G itself.

``rem_participation`` evaluates E Y₂ of a random energy model with T i.i.d.
N(0, λ²) energies by quadrature of the identity derived in
:mod:`attndepth.theory.correlation_map` (no sampling): log-space trapezoid
rules with closed-form Gaussian tails, valid for any T up to 1e300.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, logsumexp

from attndepth.errors import InvalidParameter
from attndepth.simulations.models.law import token_factor
from attndepth.simulations.seeding import spawn_generators
from attndepth.validation import check_int, check_real, check_size

#: Quadrature grid in x = u + λg: [X_LOW, X_HIGH] with step X_STEP; outside it f and
#: 1 − exp(−e^x) are replaced by their tails (relative error below e^{−30}).
X_LOW, X_HIGH, X_STEP = -30.0, 4.0, 0.05
#: Step of the outer integral in u (the integrand varies on scales ≥ min(1, λ)).
U_STEP = 0.05
#: Below this λ the Gaussian averages use Gauss–Hermite nodes in g (smooth on scale 1/λ)
#: instead of the grid in x (which must resolve a Gaussian of width λ).
HERMITE_BELOW, HERMITE_NODES = 1.0, 120
#: Seed stream of the wide layers.
LAYER_STREAM = 12


def rem_participation(tokens: float, energy_scale: float) -> float:
    """E Σ_j w_j² for Gibbs weights w_j ∝ e^{λ g_j} of T i.i.d. standard Gaussians g_j.

    Parameters
    ----------
    tokens : float
        T ≥ 2 (need not be an integer; up to 1e300).
    energy_scale : float
        λ > 0.

    Returns
    -------
    float
        In [0, 1] (0 where it underflows); accurate to about 1e-4 (checked against
        sampling in the tests).
    """
    T = check_real("tokens", tokens, 2.0)
    lam = check_real("energy_scale", energy_scale, 0.0, strict_minimum=True)
    if T > 1e300:
        raise InvalidParameter(f"tokens must be <= 1e300, got {T:g}")
    return _participation(float(T), float(lam))


@functools.lru_cache(maxsize=256)
def _participation(T: float, lam: float) -> float:
    """:func:`rem_participation` of checked floats, remembered (a quadrature of ~0.15 s
    that every seed of a sample and every rival asks for again)."""
    x = np.arange(X_LOW, X_HIGH + X_STEP / 2, X_STEP)
    log_f = 2 * x - np.exp(x)
    log_h = np.log(-np.expm1(-np.exp(x)))
    log_weight = np.full(x.size, math.log(X_STEP))
    log_weight[[0, -1]] -= math.log(2)
    log_T = math.log(T)
    # the integrand sits near u = −ln Z: ln Z ≈ ln T + λ²/2 above the freezing point
    # λ = √(2 ln T), ≈ λ√(2 ln T) below it (the largest energy)
    frozen = lam > math.sqrt(2 * log_T)
    centre = -lam * math.sqrt(2 * log_T) if frozen else -(log_T + lam**2 / 2)
    spread = lam / math.sqrt(2 * log_T)
    u = np.arange(centre - 60 * spread - 40, centre + 12 * spread + 20, U_STEP)
    if lam < HERMITE_BELOW:
        u = np.arange(centre - 60 * max(spread, 1) - 40, centre + 12 * max(spread, 1) + 20,
                      U_STEP)
        nodes, weights = np.polynomial.hermite_e.hermegauss(HERMITE_NODES)
        log_w = np.log(weights / math.sqrt(2 * math.pi))
        shifted = u[:, None] + lam * nodes[None]
        log_F = logsumexp(2 * shifted - np.exp(shifted) + log_w, axis=1)
        tiny = shifted < X_LOW  # 1 − exp(−e^x) = e^x to relative error e^x there
        log_h = np.where(tiny, shifted, np.log(-np.expm1(-np.exp(np.maximum(shifted, X_LOW)))))
        log_eps = logsumexp(log_h + log_w, axis=1)
        return _outer(u, log_F, log_eps, T, u[1] - u[0])
    log_F, log_eps = np.empty(u.size), np.empty(u.size)
    norm = math.log(lam * math.sqrt(2 * math.pi))
    for start in range(0, u.size, 1024):
        chunk = u[start:start + 1024]
        log_gauss = -0.5 * ((x[None] - chunk[:, None]) / lam) ** 2 - norm + log_weight
        low_F = 2 * chunk + 2 * lam**2 + log_ndtr((X_LOW - chunk - 2 * lam**2) / lam)
        low_eps = chunk + lam**2 / 2 + log_ndtr((X_LOW - chunk - lam**2) / lam)
        high_eps = log_ndtr((chunk - X_HIGH) / lam)
        log_F[start:start + 1024] = np.logaddexp(logsumexp(log_f + log_gauss, axis=1), low_F)
        log_eps[start:start + 1024] = logsumexp(
            np.stack([logsumexp(log_h + log_gauss, axis=1), low_eps, high_eps]), axis=0)
    return _outer(u, log_F, log_eps, T, U_STEP)


def _outer(u: np.ndarray, log_F: np.ndarray, log_eps: np.ndarray, T: float,
           step: float) -> float:
    """T ∫ F(u) (1 − ε(u))^{T−1} du by the trapezoid rule in log space."""
    with np.errstate(divide="ignore"):
        log_survive = (T - 1) * np.log1p(-np.minimum(np.exp(log_eps), 1.0))
    log_integrand = math.log(T) + log_F + log_survive + math.log(step)
    log_integrand[[0, -1]] -= math.log(2)
    return float(np.exp(logsumexp(log_integrand)))


@dataclass(frozen=True)
class LayerMap:
    """Per-coordinate overlaps before and after one wide layer, per sample.

    Attributes
    ----------
    q_in, p_in, q_out, p_out : (samples,) mean squared norm and mean off-diagonal overlap.
    participation : (samples,) mean over rows of Σ_j A_ij².
    """

    q_in: np.ndarray
    p_in: np.ndarray
    q_out: np.ndarray
    p_out: np.ndarray
    participation: np.ndarray

    @property
    def excess(self) -> np.ndarray:
        """(q_out − p_in)/(q_in − p_in): the part of Y₂ the norms show."""
        return (self.q_out - self.p_in) / (self.q_in - self.p_in)


def _overlaps(F: np.ndarray, d: int) -> tuple[float, float]:
    """Mean of x_iᵀx_i/d and of x_iᵀx_j/d over i ≠ j for tokens X (T × d) given by any F
    with F Fᵀ = X Xᵀ (X itself, or a T × T factor), without the Gram matrix: its trace is
    Σ‖f_i‖² and the sum of all its entries ‖Σ_i f_i‖²."""
    T = F.shape[0]
    diagonal = float(np.einsum("ij,ij->", F, F)) / (T * d)
    column = F.sum(axis=0)
    return diagonal, (float(column @ column) / d - diagonal * T) / (T * (T - 1))


def wide_layer_map(tokens: int, width: int, overlap: float, beta: float, seed: int,
                   samples: int = 1) -> LayerMap:
    """Pass correlated Gaussian tokens through ``samples`` random softmax layers.

    Parameters
    ----------
    tokens : int
        T ≥ 2.
    width : int
        d ≥ 1.
    overlap : float
        p in [0, 1): the tokens' common component.
    beta : float
        Inverse temperature β ≥ 0 (logits β √(ln T) x_iᵀGx_j/d).
    seed : int
        Sample k uses stream k of ``seed``.
    samples : int
        Independent (tokens, G) draws.

    Returns
    -------
    LayerMap
        Overlaps before and after, and the participation, one entry per sample.

    Notes
    -----
    G enters only through X G Xᵀ, whose law given X is Gaussian with covariance
    S ⊗ S, S = X Xᵀ. For any R with R Rᵀ = S
    (:func:`~attndepth.simulations.models.law.token_factor`) and H standard
    Gaussian, R H Rᵀ has covariance (R Rᵀ) ⊗ (R Rᵀ) = S ⊗ S: the same law. With
    T < d the factor is T × T, so each sample draws T² numbers instead of d² and
    costs O(T²d) instead of O(Td²); with T ≥ d, R = X and H is G itself. The overlaps
    after the layer come from A R, since Y = A X has Y Yᵀ = (A R)(A R)ᵀ: a T × T
    product in place of the T × d one.
    """
    T = check_int("tokens", tokens, minimum=2)
    d = check_int("width", width, minimum=1)
    p = check_real("overlap", overlap, 0.0, 1.0)
    if p >= 1:
        raise InvalidParameter(f"overlap must be < 1, got {overlap!r}")
    beta = check_real("beta", beta, 0.0)
    samples = check_int("samples", samples, minimum=1)
    check_size("a wide layer", max(T * T, d * d, T * d))
    rows = []
    for rng in spawn_generators(seed, samples, LAYER_STREAM):
        common = rng.standard_normal(d)
        X = math.sqrt(p) * common + math.sqrt(1 - p) * rng.standard_normal((T, d))
        R = token_factor(X)
        H = rng.standard_normal((R.shape[1], R.shape[1]))
        logits = (R @ H) @ R.T * (beta * math.sqrt(math.log(T)) / d)
        logits -= logits.max(axis=1, keepdims=True)
        np.exp(logits, out=logits)
        logits /= logits.sum(axis=1, keepdims=True)
        # Y = A X has Y Yᵀ = (A R)(A R)ᵀ: its overlaps from the T × T product A R
        rows.append((*_overlaps(R, d), *_overlaps(logits @ R, d),
                     float(np.mean(np.sum(logits**2, axis=1)))))
    q_in, p_in, q_out, p_out, participation = np.array(rows).T
    return LayerMap(q_in, p_in, q_out, p_out, participation)
