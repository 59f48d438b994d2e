"""How fast token directions move through a stack: the quantities of speed regulation.

Karagodin, Ge, Polyanskiy & Rigollet 2025 ("Normalization in attention dynamics", arXiv
2510.22026) read every normalisation scheme as a speed on one sphere dynamics
(:mod:`attndepth.theory.normalisation_speed`). Measured on a trajectory of states
``(L + 1, batch, n, d)``:

* the mean pairwise cosine of the tokens, c_ℓ (where the tokens are on their common
  trajectory);
* the squared radius per coordinate, r²_ℓ/d, averaged over tokens (what sets a
  Peri-LN or pre-LN block's speed);
* the squared sine of the angle each token turns in block ℓ, E sin²θ_ℓ (nGPT's speed);
* the time at which a reference trajectory (an nGPT stack, whose clock is known)
  reaches a cosine: the clock a scheme runs on, read off the reference.
"""

from __future__ import annotations

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.validation import check_finite_array


def _states(states: np.ndarray) -> np.ndarray:
    states = check_finite_array("states", states, ndim=4)
    if states.shape[2] < 2:
        raise InvalidParameter(f"a cosine between tokens needs n >= 2 tokens, got "
                               f"{states.shape[2]}")
    return states


def mean_cosine(states: np.ndarray) -> np.ndarray:
    """The mean pairwise cosine of the tokens after each block, per stack.

    Parameters
    ----------
    states : (L + 1, batch, n, d), n ≥ 2.

    Returns
    -------
    (L + 1, batch) array: (Σ_{i≠j} cos(x_i, x_j))/(n(n − 1)).
    """
    states = _states(states)
    n = states.shape[2]
    norms = np.linalg.norm(states, axis=-1, keepdims=True)
    units = states / np.maximum(norms, np.finfo(float).tiny)
    total = np.linalg.norm(units.sum(axis=2), axis=-1) ** 2  # Σ_ij cos = ‖Σ_i x̂_i‖²
    return (total - n) / (n * (n - 1))


def squared_radius(states: np.ndarray) -> np.ndarray:
    """‖x‖²/d averaged over the tokens, per block and stack: (L + 1, batch)."""
    states = _states(states)
    return np.mean(states * states, axis=(-2, -1))


def turning_sine(states: np.ndarray, first: int = 0) -> np.ndarray:
    """E sin²θ_ℓ: the squared sine of the angle each token turns in block ℓ, averaged over
    the tokens of every stack.

    Parameters
    ----------
    states : (L + 1, batch, n, d), L ≥ 1.
    first : the first block counted (0-based); blocks ``first`` … L − 1.

    Returns
    -------
    (L − first,) array.
    """
    states = _states(states)
    if not 0 <= first < states.shape[0] - 1:
        raise InvalidParameter(f"first must be a block of the trajectory (0 … "
                               f"{states.shape[0] - 2}), got {first}")
    before, after = states[first:-1], states[first + 1:]
    inner = np.sum(before * after, axis=-1)
    squares = np.sum(before * before, axis=-1) * np.sum(after * after, axis=-1)
    return 1.0 - np.mean(inner**2 / np.maximum(squares, np.finfo(float).tiny), axis=(1, 2))


def clock_time(cosines: np.ndarray, reference: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The time at which a reference trajectory reaches each cosine.

    Parameters
    ----------
    cosines : (k,) mean cosines to place.
    reference : (m,) the reference's mean cosine after each of its blocks (its running
        maximum is used, so that noise cannot make the inverse ambiguous).
    times : (m,) the reference's clock at those blocks, increasing.

    Returns
    -------
    (k,) array: linear interpolation of ``times`` at each cosine (0 below the reference's
    start).

    Raises
    ------
    InvalidParameter
        A cosine beyond the reference's largest: the reference did not run long enough.
    """
    cosines = check_finite_array("cosines", cosines, ndim=1)
    reference = np.maximum.accumulate(check_finite_array("reference", reference, ndim=1))
    times = check_finite_array("times", times, ndim=1)
    if times.shape != reference.shape or np.any(np.diff(times) <= 0):
        raise InvalidParameter("times must increase and match the reference block by block")
    if cosines.size and cosines.max() > reference[-1]:
        raise InvalidParameter(f"the reference reaches cosine {reference[-1]:.4f} at most, "
                               f"below {cosines.max():.4f}: run it for more blocks")
    return np.interp(cosines, reference, times)
