"""Token-similarity metrics and attention spectra (Yu & Zhang 2023; Dong et al. 2021).

Token matrices are ``(..., tokens, width)``; attention matrices
``(..., tokens, tokens)``. Every metric is vectorised over leading axes.
``Π = 11ᵀ/n``; ``ΠX`` repeats the mean token, ``(I − Π)X`` is X minus it.
"""

from __future__ import annotations

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.threads import single_threaded_blas

#: Smallest positive float64: logs of quantities that reached exactly zero are
#: reported at log(TINY) ≈ −708.4 (a floor), never as −inf.
TINY = np.finfo(np.float64).tiny


def _tokens(X: object) -> np.ndarray:
    """Token matrices (..., n, d) as float64; ValueError for NaN/inf or fewer than 2 axes.

    float32 states are measured in float64 (the metrics' own rounding stays at 1e-16).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim < 2 or X.shape[-2] < 1 or X.shape[-1] < 1:
        raise InvalidParameter(f"X must have shape (..., tokens >= 1, width >= 1), got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise InvalidParameter("X must contain only finite values")
    return X


def _squared_norms(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """‖ΠX‖_F² and ‖(I − Π)X‖_F² of X / max|X|, each computed directly (no cancellation).

    Only their ratios are used, which the per-matrix scaling leaves unchanged;
    it keeps squares of large entries (up to 1.8e308) from overflowing.
    """
    X = _tokens(X)
    scale = np.abs(X).max(axis=(-2, -1), keepdims=True)
    X = X / np.where(scale > 0, scale, 1.0)
    n = X.shape[-2]
    mean = X.mean(axis=-2, keepdims=True)
    mean_part = n * np.sum(mean * mean, axis=(-2, -1))
    centred = X - mean
    diversity_part = np.sum(centred * centred, axis=(-2, -1))
    return mean_part, diversity_part


def token_similarity(X: np.ndarray) -> np.ndarray:
    """t_sim = ‖ΠX‖_F² / ‖X‖_F² (docs/theory.md §3). X : (..., n, d) -> (...)."""
    mean_part, diversity_part = _squared_norms(X)
    return mean_part / np.maximum(mean_part + diversity_part, TINY)


def token_diversity(X: np.ndarray) -> np.ndarray:
    """t_div = ‖(I − Π)X‖_F² / ‖X‖_F², computed directly (accurate near 0)."""
    mean_part, diversity_part = _squared_norms(X)
    return diversity_part / np.maximum(mean_part + diversity_part, TINY)


def log_odds(X: np.ndarray) -> np.ndarray:
    """log(t_sim / t_div) = −2 log r with r = ‖(I−Π)X‖/‖ΠX‖ (floored at ±708)."""
    mean_part, diversity_part = _squared_norms(X)
    return np.log(np.maximum(mean_part, TINY)) - np.log(np.maximum(diversity_part, TINY))


def similarity_and_log_odds(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`token_similarity` and :func:`log_odds` of the same states, from one pass
    over them (each alone would compute ‖ΠX‖² and ‖(I − Π)X‖² again).

    Parameters
    ----------
    X : (..., n, d)
        Finite token matrices.

    Returns
    -------
    (t_sim, log_odds) : two (...) arrays, bit for bit what the two functions return.
    """
    mean_part, diversity_part = _squared_norms(X)
    return (mean_part / np.maximum(mean_part + diversity_part, TINY),
            np.log(np.maximum(mean_part, TINY)) - np.log(np.maximum(diversity_part, TINY)))


def mean_pairwise_cosine(X: np.ndarray) -> np.ndarray:
    """Mean cosine similarity over ordered pairs of distinct tokens. (..., n, d) -> (...)."""
    X = _tokens(X)
    n = X.shape[-2]
    if n < 2:
        raise InvalidParameter(f"mean_pairwise_cosine needs tokens >= 2, got {n}")
    row_scale = np.abs(X).max(axis=-1, keepdims=True)  # cosines are per-row scale invariant
    X = X / np.where(row_scale > 0, row_scale, 1.0)
    norms = np.linalg.norm(X, axis=-1, keepdims=True)
    unit = X / np.maximum(norms, TINY)
    summed = unit.sum(axis=-2)
    total = np.sum(summed * summed, axis=-1)  # Σ_ij cos_ij, diagonal included
    diagonal = np.sum(unit * unit, axis=(-2, -1))
    return (total - diagonal) / (n * (n - 1))


def dong_residual(X: np.ndarray) -> np.ndarray:
    """res(X) = X − 1x̄ᵀ with x̄ the Frobenius minimiser (the mean token). Same shape as X."""
    X = _tokens(X)
    return X - X.mean(axis=-2, keepdims=True)


def norm_1_inf(X: np.ndarray) -> np.ndarray:
    """‖X‖_{1,∞} = √(‖X‖₁ ‖X‖_∞) (Dong et al. 2021, §2): max column and max row abs sums."""
    absolute = np.abs(_tokens(X))
    return np.sqrt(absolute.sum(axis=-2).max(axis=-1) * absolute.sum(axis=-1).max(axis=-1))


def _square(P: object) -> np.ndarray:
    """Attention matrices: square, entries in [0, 1] (row-stochastic up to round-off)."""
    P = _tokens(P)
    if P.shape[-1] != P.shape[-2]:
        raise InvalidParameter(f"attention matrices must be square, got shape {P.shape}")
    if P.size and (P.min() < -1e-12 or P.max() > 1 + 1e-12):
        raise InvalidParameter("attention matrices must have entries in [0, 1]")
    return P


def invariant_eigenspace_defects(P: np.ndarray) -> tuple[float, float]:
    """How far attention matrices are from P1 = 1 and the block-triangular form.

    Returns (max |P1 − 1|, max |Uᵀ P 1/√n|): the second is the part of P·1/√n
    outside span{1}, i.e. the below-diagonal block of QᵀPQ in the basis
    Q = [1/√n, U]. Both are 0 in exact arithmetic for row-stochastic P.
    P : (..., n, n).
    """
    P = _square(P)
    row_sums = P.sum(axis=-1)
    row_defect = float(np.abs(row_sums - 1.0).max())
    n = P.shape[-1]
    image = row_sums / np.sqrt(n)  # P·(1/√n)
    outside = image - image.mean(axis=-1, keepdims=True)  # (I − Π) applied to it
    return row_defect, float(np.abs(outside).max())


def attention_spectra(P: np.ndarray) -> dict[str, np.ndarray]:
    """Spectral quantities of row-stochastic attention matrices (docs/theory.md §3).

    Returns arrays of shape ``P.shape[:-2]``:
    ``lambda2`` = |λ₂(P)| (second-largest eigenvalue modulus),
    ``sigma2`` = ‖(I − Π)P(I − Π)‖₂, and
    ``leakage`` = ‖Pᵀ1 − 1‖/√n (0 for doubly stochastic P).
    Small eig/SVD calls run single-threaded (far faster on this machine).
    """
    P = _square(P)
    n = P.shape[-1]
    if n < 2:
        ones = np.zeros(P.shape[:-2])
        return {"lambda2": ones, "sigma2": ones.copy(), "leakage": ones.copy()}
    compressed = P - P.mean(axis=-2, keepdims=True)  # Π P removed on the left
    compressed = compressed - compressed.mean(axis=-1, keepdims=True)  # and Π on the right
    with single_threaded_blas():
        moduli = np.sort(np.abs(np.linalg.eigvals(P)), axis=-1)
        sigma2 = np.linalg.svd(compressed, compute_uv=False)[..., 0]
    leakage = np.linalg.norm(P.sum(axis=-2) - 1.0, axis=-1) / np.sqrt(n)
    return {"lambda2": moduli[..., -2], "sigma2": sigma2, "leakage": leakage}


def attention_sigma2(P: np.ndarray) -> np.ndarray:
    """σ₂ = ‖(I − Π)P(I − Π)‖₂ alone (:func:`attention_spectra`'s ``sigma2`` without the
    eigenvalues λ₂ it also computes, four fifths of its time at n = 128): the largest
    eigenvalue of the compressed matrix's Gram matrix (:func:`_largest_squared_singular_value`),
    its square root. P : (..., n, n) -> (...); 0 for n < 2."""
    P = _square(P)
    if P.shape[-1] < 2:
        return np.zeros(P.shape[:-2])
    compressed = P - P.mean(axis=-2, keepdims=True)
    compressed = compressed - compressed.mean(axis=-1, keepdims=True)
    with single_threaded_blas():
        return np.sqrt(np.maximum(_largest_squared_singular_value(compressed), 0.0))


def stable_rank(X: np.ndarray) -> np.ndarray:
    """Stable rank ‖X‖_F² / ‖X‖₂² of token matrices: 1 for a rank-one X (collapse), up to
    min(n, d). X : (..., n, d) -> (...); 0 for X = 0."""
    X = _tokens(X)
    return np.sum(X * X, axis=(-2, -1)) / np.maximum(_largest_squared_singular_value(X), TINY)


def _largest_squared_singular_value(X: np.ndarray) -> np.ndarray:
    """‖X‖₂² of checked matrices (..., m, k) -> (...): the largest eigenvalue of the Gram
    matrix on the shorter side (min(m, k)² entries; a full SVD of the long side costs four
    times more at m = 512, k = 64). Relative error a few ulps: the top of a Gram spectrum
    is well conditioned."""
    gram = np.swapaxes(X, -1, -2) @ X if X.shape[-2] >= X.shape[-1] \
        else X @ np.swapaxes(X, -1, -2)
    return np.linalg.eigvalsh(gram)[..., -1]


def attention_entropy(P: np.ndarray) -> np.ndarray:
    """Mean Shannon entropy (nats) of the rows of attention matrices: ln n for uniform
    attention (full collapse of the mixing), 0 for one-hot rows. P : (..., n, n) -> (...)."""
    P = _square(P)
    terms = np.where(P > 0, -P * np.log(np.maximum(P, TINY)), 0.0)
    return terms.sum(axis=-1).mean(axis=-1)
