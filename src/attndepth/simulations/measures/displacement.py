"""How far a stack moves its input: the displacement of the residual stream.

D = ‖X_L − X_0‖_F² / ‖X_0‖_F² per stack, the quantity of the depth-scaling law of
:mod:`attndepth.theory.depth_scaling` (Dey et al. 2025, arXiv 2505.01618, §2).
"""

from __future__ import annotations

import numpy as np

from attndepth.simulations.models.stacks import StackConfig, run_stack


def stream_displacement(config: StackConfig, batch: int, seed: int) -> np.ndarray:
    """‖X_L − X_0‖_F² / ‖X_0‖_F² of ``batch`` stacks drawn from ``seed``.

    Parameters
    ----------
    config : StackConfig
        The stack (for the law: variant ``pre-ln``, branches scaled by
        ``residual_scale`` = L^(−α)).
    batch, seed : int
        As :func:`~attndepth.simulations.models.stacks.run_stack` takes them.

    Returns
    -------
    array, shape (batch,)
        X_L is the last block's output (no final norm), X_0 the Gaussian input.
    """
    states = run_stack(config, batch, seed).states
    moved = states[-1] - states[0]
    return np.sum(moved * moved, axis=(-2, -1)) / np.sum(states[0] * states[0], axis=(-2, -1))
