"""How much each block changes the residual stream, and where its mass sits: observables
of a stack's states X (layers + 1, batch, tokens, width) that the trained-network papers
read layer by layer.

- :func:`relative_update` — ‖X_{ℓ+1} − X_ℓ‖_F / ‖X_ℓ‖_F: a block near the identity
  updates little (Sun et al. 2025, arXiv 2502.05795, §3; Csordás et al. 2025, arXiv
  2505.13898, §3, the residual stream's relative change).
- :func:`angular_distance` — the mean over tokens of arccos(cos(x_{ℓ,t}, x_{ℓ+1,t}))/π ∈
  [0, 1] (Gromov et al. 2024, arXiv 2403.17887, eq. 7; Sun et al. 2025, §3.2, Fig. 2).
- :func:`hidden_variance` — the mean over tokens of each token's variance across the width
  (Sun et al. 2025, §3.1: the output variance of a pre-LN stack grows with depth).
- :func:`first_token_norm_ratio` — ‖x_{ℓ,0}‖ / median_{t≥1} ‖x_{ℓ,t}‖: a massive activation
  on the first token (Sun, Chen, Kolter & Liu 2024, arXiv 2402.17762).
- :func:`sink_mass` — the attention mass on the first token, mean over heads and over the
  rows t ≥ 1 (row 0 of a causal matrix is 1 whatever the model): an attention sink
  (Xiao et al. 2024, arXiv 2309.17453; Barbero et al. 2025, arXiv 2504.02732), with
  :func:`uniform_sink_mass`, the same mass under uniform attention, its rival.
"""

from __future__ import annotations

import numpy as np

_TINY = np.finfo(np.float64).tiny


def _norms(X: np.ndarray) -> np.ndarray:
    return np.sqrt(np.sum(X * X, axis=-1))


def relative_update(X: np.ndarray) -> np.ndarray:
    """‖X_{ℓ+1} − X_ℓ‖_F / ‖X_ℓ‖_F per block: (layers, batch) from X (layers + 1, batch,
    tokens, width)."""
    change = np.sqrt(np.sum((X[1:] - X[:-1]) ** 2, axis=(-2, -1)))
    return change / np.maximum(np.sqrt(np.sum(X[:-1] ** 2, axis=(-2, -1))), _TINY)


def angular_distance(X: np.ndarray) -> np.ndarray:
    """Mean over tokens of arccos(cos(x_{ℓ,t}, x_{ℓ+1,t}))/π per block: (layers, batch)."""
    dots = np.sum(X[1:] * X[:-1], axis=-1)
    cosines = dots / np.maximum(_norms(X[1:]) * _norms(X[:-1]), _TINY)
    return np.mean(np.arccos(np.clip(cosines, -1.0, 1.0)), axis=-1) / np.pi


def hidden_variance(X: np.ndarray) -> np.ndarray:
    """Mean over tokens of each token's variance across the width: (layers + 1, batch)."""
    return np.mean(np.var(X, axis=-1), axis=-1)


def first_token_norm_ratio(X: np.ndarray) -> np.ndarray:
    """‖x_{ℓ,0}‖ / median_{t≥1} ‖x_{ℓ,t}‖: (layers + 1, batch); X needs 2 tokens or more."""
    norms = _norms(X)
    return norms[..., 0] / np.maximum(np.median(norms[..., 1:], axis=-1), _TINY)


def sink_mass(attention: np.ndarray) -> np.ndarray:
    """The attention mass on the first token, mean over heads and rows t ≥ 1: (layers,
    batch) from attention (layers, batch, heads, tokens, tokens), rows summing to 1."""
    return np.mean(attention[..., 1:, 0], axis=(-2, -1))


def uniform_sink_mass(tokens: int, causal: bool) -> float:
    """:func:`sink_mass` of uniform attention over ``tokens`` tokens: 1/T, or for causal
    attention the mean over rows t = 1 … T−1 of 1/(t+1)."""
    if tokens < 2:
        raise ValueError("the sink mass needs 2 tokens or more")
    if not causal:
        return 1.0 / tokens
    return float(np.mean(1.0 / np.arange(2, tokens + 1)))
