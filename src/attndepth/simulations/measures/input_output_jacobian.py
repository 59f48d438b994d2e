"""The averaged partial Jacobian norm (APJN) of a stack at every depth.

A_ℓ = ‖∂x_ℓ/∂x_0‖_F²/(nd), the mean square of the singular values of the map from the
input tokens to the stream after ℓ blocks (Doshi et al. 2021's APJN from the input;
Alekseev 2026, arXiv 2604.11890, follows its growth with depth). For a standard Gaussian
direction u over all n × d input coordinates, E‖J_ℓ u‖² = ‖J_ℓ‖_F², so
A_ℓ = E‖J_ℓ u‖²/E‖u‖²: each stack runs at x_0 ± h u (h = 10⁻⁵ · rms(x_0), a central
difference whose error is O(h²)), the directions drawn from the stack's own stream
(``PROBE_STREAM``), and the ratio is pooled over stacks and directions. The stream's mean
square σ²_ℓ = ‖x_ℓ‖²/(nd) comes from the same run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.models.stacks import StackConfig, draw_stack, iterate_stack
from attndepth.simulations.seeding import PROBE_STREAM, spawn_generators
from attndepth.validation import check_int

#: The difference step relative to the rms of the input.
STEP = 1e-5


@dataclass(frozen=True)
class JacobianProfile:
    """A_ℓ and σ²_ℓ for ℓ = 0, …, L, pooled over a batch of stacks.

    Attributes
    ----------
    apjn : (L + 1,) A_ℓ (A_0 = 1).
    variance : (L + 1,) σ²_ℓ, the stream's mean square.
    """

    apjn: np.ndarray
    variance: np.ndarray


def check_differenced(config: StackConfig, measured: str) -> None:
    """Refuse a stack that a central difference of its states cannot measure.

    Parameters
    ----------
    config : StackConfig
        Needs float64 states (the difference's error is O(h²) only above the rounding)
        and drawn weights (one stack runs at several inputs).
    measured : str
        What is measured, for the error ("the APJN").
    """
    if config.dtype != "float64":
        raise InvalidParameter(f"{measured} is measured by a central difference, which "
                               f"needs float64; use dtype='float64'")
    if config.sampling != "weights":
        raise InvalidParameter(f"{measured} runs one stack at several inputs, which needs "
                               f"its drawn weights; use sampling='weights'")


def _states(config: StackConfig, weights, X0: np.ndarray) -> np.ndarray:
    return np.stack([X0, *(record.outputs for record in iterate_stack(config, weights, X0))])


def jacobian_profile(config: StackConfig, batch: int, seed: int,
                     directions: int = 2) -> JacobianProfile:
    """A_ℓ and σ²_ℓ of ``batch`` stacks of ``config`` (module docstring).

    Parameters
    ----------
    config : StackConfig
        In float64 (a central difference needs it), with drawn weights.
    batch, seed : int
        As :func:`~attndepth.simulations.models.stacks.run_stack` takes them.
    directions : int
        Gaussian directions u per stack (≥ 1).

    Returns
    -------
    JacobianProfile
    """
    batch = check_int("batch", batch, minimum=1)
    directions = check_int("directions", directions, minimum=1)
    check_differenced(config, "the APJN")
    weights, X0 = draw_stack(config, batch, seed)
    states = _states(config, weights, X0)
    generators = spawn_generators(seed, batch, PROBE_STREAM)
    step = STEP * np.sqrt(np.mean(X0 * X0))
    moved = np.zeros(config.depth + 1)
    size = 0.0
    for _ in range(directions):
        U = np.stack([g.standard_normal(X0.shape[1:]) for g in generators])
        ahead = _states(config, weights, X0 + step * U)
        behind = _states(config, weights, X0 - step * U)
        difference = (ahead - behind) / (2 * step)
        moved += np.sum(difference * difference, axis=(1, 2, 3))
        size += float(np.sum(U * U))
    return JacobianProfile(apjn=moved / size, variance=np.mean(states * states,
                                                                axis=(1, 2, 3)))
