"""The influence of each input token on the last token of a stack, at every depth.

I_ℓ(j) = ‖∂x_n^ℓ/∂x_j^0‖²_F/d, the mean square of the singular values of the map from
input token j to the last token's stream after ℓ blocks (the sensitivity that
Herasimchyk et al. 2026, arXiv 2602.16837, compare with their rollout, and Barbero et al.
2024's over-squashing bound). For a standard Gaussian direction u on token j alone,
E‖J u‖² = ‖J‖²_F and E‖u‖² = d, so I_ℓ(j) = E‖J u‖²/E‖u‖²: each stack runs at
x_0 ± h u (a central difference, h = 10⁻⁵ · rms(x_0)), the directions drawn from the
stack's own stream (``PROBE_STREAM``; the step is
:data:`~attndepth.simulations.measures.input_output_jacobian.STEP`), and the ratio is
pooled over stacks and directions.
"""

from __future__ import annotations

import numpy as np

from attndepth.simulations.measures.input_output_jacobian import STEP, check_differenced
from attndepth.simulations.models.stacks import StackConfig, draw_stack, iterate_stack
from attndepth.simulations.seeding import PROBE_STREAM, spawn_generators
from attndepth.validation import check_int


def _last_token(config: StackConfig, weights, X0: np.ndarray) -> np.ndarray:
    """(L + 1, batch, d): the last token's stream at every depth."""
    return np.stack([X0[:, -1], *(record.outputs[:, -1]
                                  for record in iterate_stack(config, weights, X0))])


def last_token_influence(config: StackConfig, batch: int, seed: int,
                         directions: int = 2) -> np.ndarray:
    """I_ℓ(j) for ℓ = 0 … L and every input token j, pooled over ``batch`` stacks.

    Parameters
    ----------
    config : StackConfig
        In float64 (a central difference needs it), with drawn weights.
    batch, seed : int
        As :func:`~attndepth.simulations.models.stacks.run_stack` takes them.
    directions : int
        Gaussian directions u per stack and input token (≥ 1).

    Returns
    -------
    (L + 1, n): row ℓ is the influence of each input token on the last token after ℓ
    blocks (row 0: 1 for the last token itself, 0 for the others).
    """
    batch = check_int("batch", batch, minimum=1)
    directions = check_int("directions", directions, minimum=1)
    check_differenced(config, "the influence")
    weights, X0 = draw_stack(config, batch, seed)
    generators = spawn_generators(seed, batch, PROBE_STREAM)
    step = STEP * np.sqrt(np.mean(X0 * X0))
    influence = np.zeros((config.depth + 1, config.tokens))
    for source in range(config.tokens):
        moved, size = np.zeros(config.depth + 1), 0.0
        for _ in range(directions):
            U = np.zeros_like(X0)
            U[:, source] = np.stack([g.standard_normal(config.width) for g in generators])
            ahead = _last_token(config, weights, X0 + step * U)
            behind = _last_token(config, weights, X0 - step * U)
            difference = (ahead - behind) / (2 * step)
            moved += np.sum(difference * difference, axis=(1, 2))
            size += float(np.sum(U * U))
        influence[:, source] = moved / size
    return influence
