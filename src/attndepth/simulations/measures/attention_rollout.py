"""The cumulative attention (attention rollout) of a stack: P_ℓ = A_ℓ ⋯ A_1.

Row i of P_ℓ is how the ℓ-th block's token i draws, through attention alone, on the
input tokens (Abnar & Zuidema 2020's rollout without the residual; the object of Wu et
al. 2025, arXiv 2502.01951). Its *first-token deficit* at position i is the mass it
leaves off the first token, Σ_{j ≥ 2} (P_ℓ)_ij, summed directly rather than as 1 − (P_ℓ)_i1
so that deficits far below the float64 epsilon stay exact.
"""

from __future__ import annotations

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.models.stacks import StackConfig, run_stack


def attention_rollout(config: StackConfig, batch: int, seed: int) -> np.ndarray:
    """P_ℓ for ℓ = 0 … L of ``batch`` stacks (P_0 = I).

    Parameters
    ----------
    config : StackConfig
        One head (the rollout of a block with several heads is not one product).
    batch, seed : int
        As :func:`~attndepth.simulations.models.stacks.run_stack` takes them.

    Returns
    -------
    (L + 1, batch, n, n) row-stochastic matrices.
    """
    if config.heads != 1:
        raise InvalidParameter(f"the attention rollout is a product of one head's matrices; "
                               f"use heads=1, got heads={config.heads}")
    attention = run_stack(config, batch, seed, keep_attention=True).attention
    assert attention is not None  # kept on request
    rollout = np.empty((config.depth + 1, batch, config.tokens, config.tokens))
    rollout[0] = np.eye(config.tokens)
    for layer in range(config.depth):
        np.matmul(attention[layer, :, 0], rollout[layer], out=rollout[layer + 1])
    return rollout


def first_token_deficit(rollout: np.ndarray) -> np.ndarray:
    """Σ_{j ≥ 2} (P_ℓ)_ij for every position i ≥ 2: (L + 1, batch, n − 1)."""
    return rollout[..., 1:, 1:].sum(axis=-1)
