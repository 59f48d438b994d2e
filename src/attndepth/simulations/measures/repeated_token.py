"""How much repeating the last token moves the last token's representation.

Barbero et al. 2024 ("Transformers need glasses!", arXiv 2406.04267, §4) compare a
sequence x_1 … x_n with the same sequence and its last token repeated, x_1 … x_n x_n: in a
causal stack every position up to n has the same states in both, and the representation
of the last position differs by Δ_L(n) = ‖y_n − y′_{n+1}‖ after L blocks. For each
length n the stacks run on the first n tokens of one draw of n_max Gaussian tokens
(so the sequences of different lengths share their prefixes and the weights), and
Δ_L(n)/‖y_n‖ is averaged over the stacks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.models.stacks import StackConfig, draw_stack, iterate_stack
from attndepth.validation import check_int


def _last_state(config: StackConfig, weights, X0: np.ndarray) -> np.ndarray:
    state = X0
    for record in iterate_stack(config, weights, X0):
        state = record.outputs
    return state[:, -1]


def repeat_shift(config: StackConfig, lengths: Sequence[int], batch: int,
                 seed: int) -> np.ndarray:
    """Δ_L(n)/‖y_n‖ per stack at each length n: how far repeating the last token moves it.

    Parameters
    ----------
    config : StackConfig
        A causal stack (``causal=True``); its ``tokens`` is ignored (each length is run).
    lengths : increasing lengths n ≥ 1.
    batch, seed : int

    Returns
    -------
    (len(lengths), batch) array.
    """
    if not config.causal:
        raise InvalidParameter("a repeated last token leaves the prefix unchanged only "
                               "under a causal mask: use causal=True")
    lengths = [check_int("length", n, minimum=1) for n in lengths]
    if not lengths or any(b <= a for a, b in zip(lengths, lengths[1:], strict=False)):
        raise InvalidParameter("lengths must be a non-empty increasing sequence")
    batch = check_int("batch", batch, minimum=1)
    longest = StackConfig(**{**config.as_dict(), "tokens": lengths[-1]})
    weights, X = draw_stack(longest, batch, seed)
    shifts = []
    for n in lengths:
        original = _last_state(StackConfig(**{**config.as_dict(), "tokens": n}), weights,
                               X[:, :n])
        repeated = _last_state(StackConfig(**{**config.as_dict(), "tokens": n + 1}),
                               weights, np.concatenate([X[:, :n], X[:, n - 1:n]], axis=1))
        shifts.append(np.linalg.norm(repeated - original, axis=-1)
                      / np.linalg.norm(original, axis=-1))
    return np.array(shifts)
