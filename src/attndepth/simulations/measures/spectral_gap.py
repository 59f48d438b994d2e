"""Singular values of attention matrices at initialisation, and what they do to tokens.

Two ensembles of T × T row-stochastic matrices, each drawn from its own seed:

* ``markov``: A_ij = e^{s g_ij} / Σ_k e^{s g_ik} with i.i.d. g ~ N(0, 1), the
  random Markov model of Naderi, Nait Saada & Tanner 2024;
* ``key-query``: softmax attention of Gaussian tokens X (T × d) with Gaussian
  W_Q, W_K of variance 1/d, logits XW_Q(XW_K)ᵀ/(√d·temperature), i.e. one
  block of :mod:`attndepth.simulations.models.stacks` (logit variance ≈ 1/temperature²).

Nothing here knows a prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import svds

from attndepth.simulations.measures import similarity
from attndepth.simulations.models.stacks import softmax_attention
from attndepth.simulations.seeding import spawn_generators
from attndepth.validation import check_choice, check_int, check_real, check_size

ENSEMBLES: tuple[str, ...] = ("markov", "key-query")
#: Above this T the two largest singular values come from ARPACK (svds), below from a full SVD
#: (ARPACK is 2.5× faster from T = 256, to the same 1e-16 there).
FULL_SVD_MAX = 128
#: Seed streams of this module (distinct from the stacks' streams 0–2).
MATRIX_STREAM, TOKEN_STREAM = 10, 11


def _softmax_rows(logits: np.ndarray) -> np.ndarray:
    logits -= logits.max(axis=-1, keepdims=True)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=-1, keepdims=True)
    return logits


def attention_sample(ensemble: str, tokens: int, width: int, scale: float, seed: int,
                     index: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """One attention matrix and one Gaussian token matrix.

    Parameters
    ----------
    ensemble : {"markov", "key-query"}
    tokens : int
        T ≥ 2.
    width : int
        d ≥ 1 (the tokens' width; the key-query logits use it too).
    scale : float
        ``markov``: logit standard deviation s; ``key-query``: 1/temperature.
    seed, index : int
        Sample ``index`` of base seed ``seed`` (independent streams).

    Returns
    -------
    A : (T, T) row-stochastic
    X : (T, d) standard Gaussian
    """
    check_choice("ensemble", ensemble, ENSEMBLES)
    T = check_int("tokens", tokens, minimum=2)
    d = check_int("width", width, minimum=1)
    scale = check_real("scale", scale, 0.0, strict_minimum=True)
    check_size("the attention matrix", T * T)
    rng, token_rng = (spawn_generators(seed, 1, stream, first=index)[0]
                      for stream in (MATRIX_STREAM, TOKEN_STREAM))
    X = token_rng.standard_normal((T, d))
    if ensemble == "markov":
        return _softmax_rows(scale * rng.standard_normal((T, T))), X
    query, key = (rng.standard_normal((1, d, d)) / np.sqrt(d) for _ in range(2))
    return softmax_attention(X[None], query, key, heads=1, temperature=1.0 / scale)[0, 0], X


def top_singular_values(A: np.ndarray) -> tuple[float, float]:
    """s₁ ≥ s₂ of a square matrix (full SVD up to :data:`FULL_SVD_MAX`, else ARPACK)."""
    if A.shape[0] <= FULL_SVD_MAX:
        values = np.linalg.svd(A, compute_uv=False)
        return float(values[0]), float(values[1])
    values = np.sort(svds(A, k=2, return_singular_vectors=False, random_state=0))[::-1]
    return float(values[0]), float(values[1])


def stable_rank(M: np.ndarray) -> float:
    """‖M‖_F² / ‖M‖₂² (between 1 and rank M) of one matrix, as a float
    (:func:`attndepth.simulations.measures.similarity.stable_rank`)."""
    return float(similarity.stable_rank(M))


@dataclass(frozen=True)
class SpectrumSample:
    """What one attention matrix does, averaged over ``samples`` draws.

    Attributes
    ----------
    s1, s2 : mean top two singular values of A.
    frobenius : mean ‖A − 11ᵀ/T‖_F².
    column_deviation : mean ‖Aᵀ1 − 1‖².
    stable_rank_input, stable_rank_attended, stable_rank_outlier_removed,
    stable_rank_deescalated : mean stable ranks of X, AX, (A − Π)X and (I − Π)AX.
    fix_difference : mean ‖(A − Π)X − (I − Π)AX‖_F / ‖(A − Π)X‖_F.
    """

    tokens: int
    samples: int
    s1: float
    s2: float
    frobenius: float
    column_deviation: float
    stable_rank_input: float
    stable_rank_attended: float
    stable_rank_outlier_removed: float
    stable_rank_deescalated: float
    fix_difference: float


def spectrum_sample(ensemble: str, tokens: int, width: int, scale: float, seed: int,
                    samples: int = 1) -> SpectrumSample:
    """Measure s₁, s₂, ‖A − Π‖_F², column sums and stable ranks over ``samples`` draws."""
    samples = check_int("samples", samples, minimum=1)
    rows = []
    for index in range(samples):
        A, X = attention_sample(ensemble, tokens, width, scale, seed, index)
        s1, s2 = top_singular_values(A)
        centred = A - 1.0 / tokens
        attended = A @ X
        removed = centred @ X
        deescalated = attended - attended.mean(axis=0)
        rows.append((s1, s2, float(np.sum(centred * centred)),
                     float(np.sum((A.sum(axis=0) - 1.0) ** 2)), stable_rank(X),
                     stable_rank(attended), stable_rank(removed), stable_rank(deescalated),
                     float(np.linalg.norm(removed - deescalated) / np.linalg.norm(removed))))
    means = np.mean(np.array(rows), axis=0)
    return SpectrumSample(tokens, samples, *(float(v) for v in means))
