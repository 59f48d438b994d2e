"""The uniform-attention model of a residual stack, simulated as it is derived.

Noci et al.'s recursion (theory: :mod:`attndepth.theory.residual_scaling`) assumes
attention A = Π. Then the spread R = (I − Π)X of the tokens never changes and
only the mean token moves, m′ᵀ = mᵀ(I + αW). This module runs that recursion
with its own Gaussian matrices (no softmax, no tokens), so the derivation's
terms can be tested one by one against the stacks of
:mod:`attndepth.simulations.models.stacks`: what the model reproduces is a term of
the recursion, what only the stacks show is attention's departure from
uniform. Nothing here knows a prediction.
"""

from __future__ import annotations

import numpy as np

from attndepth.simulations.seeding import WEIGHTS_STREAM, spawn_generators
from attndepth.validation import check_int, check_real, check_seed


def uniform_model_growth(width: int, depth: int, scale: float, batch: int, seed: int,
                         product_weights: bool = True) -> np.ndarray:
    """Growth ln|m_L|² − ln|m_0|² of the mean token under m′ᵀ = mᵀ(I + αW), per stack.

    Under uniform attention this is the growth ℓ_L − ℓ_0 of the token
    log-odds (the spread's norm is constant).

    Parameters
    ----------
    width : int
        d ≥ 1.
    depth : int
        L ≥ 1 layers.
    scale : float
        α > 0, the branch scale.
    batch : int
        Independent stacks (each with its own weights and start).
    seed : int
    product_weights : bool
        W = W_V W_O with both Gaussian of variance 1/d (the stacks' value map,
        default), or a single Gaussian W of variance 1/d (an ablation).

    Returns
    -------
    (batch,) float array
    """
    width = check_int("width", width, minimum=1)
    depth = check_int("depth", depth, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    seed = check_seed("seed", seed)
    scale = check_real("scale", scale, minimum=0.0, strict_minimum=True)
    growth = np.empty(batch)
    for k, rng in enumerate(spawn_generators(seed, batch, WEIGHTS_STREAM)):
        mean = rng.standard_normal(width)
        mean /= np.linalg.norm(mean)
        total = 0.0
        for _ in range(depth):
            branch = mean @ rng.standard_normal((width, width)) / np.sqrt(width)
            if product_weights:
                branch = branch @ rng.standard_normal((width, width)) / np.sqrt(width)
            mean = mean + scale * branch
            norm = float(np.linalg.norm(mean))
            total += 2.0 * np.log(norm)
            mean /= norm  # the growth is scale-free: renormalise against overflow
        growth[k] = total
    return growth
