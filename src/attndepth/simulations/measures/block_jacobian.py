"""How a stack's variance grows and how close its blocks are to the identity.

The two measurements of the curse of depth (:mod:`attndepth.theory.curse_of_depth`;
Sun et al. 2025, arXiv 2502.05795, §3–4), taken in one pass over a batch of stacks:

* D_ℓ = ‖x_ℓ‖_F²/(nd), the mean square of the stream after ℓ blocks, per stack;
* δ_ℓ = ‖(J_ℓ − I)u‖/‖u‖ at chosen blocks ℓ: J_ℓ the Jacobian of block ℓ at its
  input, u a standard Gaussian direction (stream ``PROBE_STREAM`` of the stack's
  seed), J_ℓu by a central difference with step h = 10⁻⁴·rms(x) (its error is
  O(h²), below 10⁻⁸ of δ). E‖(J − I)u‖²/‖u‖² is the mean square of J − I's singular
  values, so δ² estimates ‖J_ℓ − I‖_F²/(nd).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.models.blocks import NUMPY, block_forward
from attndepth.simulations.models.stacks import (
    StackConfig,
    attention_mask,
    draw_stack,
    iterate_stack,
    weights_per_layer,
)
from attndepth.simulations.seeding import PROBE_STREAM, spawn_generators
from attndepth.validation import check_int

#: The difference step relative to the rms of the block's input.
STEP = 1e-4
#: Most weights drawn at once (2**25 float64: 256 MiB); a larger batch runs in chunks of
#: stacks, with the same numbers (stack k's draws depend on (seed, k) alone).
CHUNK_WEIGHTS = 2**25


@dataclass(frozen=True)
class DepthProfile:
    """The mean squares of a batch of stacks and their blocks' distance from the identity.

    Attributes
    ----------
    variance : (depth + 1, batch)
        D_ℓ per stack; row 0 is the input.
    deviation : {ℓ: (batch,)}
        δ_ℓ per stack at each probed block ℓ (1-based).
    """

    variance: np.ndarray
    deviation: dict[int, np.ndarray]


def depth_profile(config: StackConfig, batch: int, seed: int,
                  probes: Collection[int] = ()) -> DepthProfile:
    """D_ℓ for ℓ = 0, …, L and δ_ℓ at the blocks ``probes`` of ``batch`` stacks.

    Parameters
    ----------
    config : StackConfig
        Run in float64 (a central difference needs it).
    batch, seed : int
        As :func:`~attndepth.simulations.models.stacks.run_stack` takes them.
    probes : collection of int
        Blocks ℓ in 1..depth whose Jacobian is probed.

    A batch whose weights exceed :data:`CHUNK_WEIGHTS` runs in chunks of stacks.

    Returns
    -------
    DepthProfile
    """
    batch = check_int("batch", batch, minimum=1)
    probes = sorted({check_int("probe", block, minimum=1, maximum=max(config.depth, 1))
                     for block in probes})
    if config.dtype != "float64":
        raise InvalidParameter("a block's Jacobian is probed by a central difference, which "
                               "needs float64; use dtype='float64'")
    per_stack = max(1, config.depth * weights_per_layer(config))
    chunk = max(1, CHUNK_WEIGHTS // per_stack)
    parts = [_profile(config, min(chunk, batch - first), seed, first, probes)
             for first in range(0, batch, chunk)]
    return DepthProfile(np.concatenate([p.variance for p in parts], axis=1),
                        {block: np.concatenate([p.deviation[block] for p in parts])
                         for block in probes})


def _profile(config: StackConfig, batch: int, seed: int, first: int,
             probes: list[int]) -> DepthProfile:
    """:func:`depth_profile` of stacks ``first .. first + batch − 1``."""
    weights, X0 = draw_stack(config, batch, seed, first)
    generators = spawn_generators(seed, batch, PROBE_STREAM, first)
    forbidden = attention_mask(config.tokens, config.causal, config.window)
    variance = [np.mean(X0 * X0, axis=(-2, -1))]
    deviation: dict[int, np.ndarray] = {}
    for record in iterate_stack(config, weights, X0):
        if record.layer + 1 in probes:
            deviation[record.layer + 1] = _deviation(config, forbidden, record.inputs,
                                                     weights.layer(record.layer),
                                                     record.layer, generators)
        variance.append(np.mean(record.outputs * record.outputs, axis=(-2, -1)))
    return DepthProfile(np.array(variance), deviation)


def _deviation(config: StackConfig, forbidden, X: np.ndarray, layer: dict, index: int,
               generators: list[np.random.Generator]) -> np.ndarray:
    """‖(J − I)u‖/‖u‖ of block ``index`` at X (batch, n, d), one direction per stack."""
    U = np.stack([g.standard_normal(X.shape[1:]) for g in generators])
    step = STEP * np.sqrt(np.mean(X * X, axis=(-2, -1)))[:, None, None]
    ahead, _ = block_forward(NUMPY, config, forbidden, X + step * U, layer, index)
    behind, _ = block_forward(NUMPY, config, forbidden, X - step * U, layer, index)
    moved = (ahead - behind) / (2 * step) - U
    return np.sqrt(np.sum(moved * moved, axis=(-2, -1)) / np.sum(U * U, axis=(-2, -1)))
