"""The rate at which pure attention stacks collapse their tokens, with any mask.

Per stack of a seeded batch: the slope of the token-similarity log-odds
ℓ = ln(t_sim/(1 − t_sim)) = −2 ln(‖(I − Π)X‖/‖ΠX‖) against depth (exponential
collapse is a straight line), fitted after a transient and before float64
round-off; the smallest attention weight the mask allows (ε of Wu et al.'s
bound); and the depth at which some input token first reaches every output
(:func:`reach_depth`, the r of that bound as the stacks realise it). Nothing here
knows a prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.simulations.measures.fitting import escalation_rates, standard_error
from attndepth.simulations.measures.similarity import log_odds
from attndepth.simulations.models.stacks import StackConfig, attention_mask, run_stack

#: Log-odds range fitted: below 50 the residual ‖(I − Π)X‖ is still far above round-off.
COLLAPSE_WINDOW: tuple[float, float] = (-50.0, 50.0)


@dataclass(frozen=True)
class CollapseSample:
    """Attributes: rates (batch,) log-odds per layer; epsilon, the smallest allowed weight;
    reach, :func:`reach_depth` of the run's attention (None: not within its depth)."""

    rates: np.ndarray
    epsilon: float
    reach: int | None = None

    @property
    def mean_rate(self) -> float:
        return float(self.rates.mean())

    @property
    def rate_error(self) -> float:
        """Standard error of the mean rate (0 for one stack)."""
        return standard_error(self.rates)


def collapse_sample(config: StackConfig, batch: int, seed: int, skip: int = 4) -> CollapseSample:
    """Run ``batch`` stacks of ``config`` and fit each one's collapse rate after ``skip`` layers."""
    if config.tokens < 2:
        raise InvalidParameter(f"collapse needs at least 2 tokens, got {config.tokens}")
    if not 0 <= skip <= config.depth - 2:
        raise InvalidParameter(f"skip must be in [0, depth − 2] = [0, {config.depth - 2}], got "
                               f"{skip}")
    trajectory = run_stack(config, batch, seed, keep_attention=True)
    rates = escalation_rates(log_odds(trajectory.states)[skip:], COLLAPSE_WINDOW)
    forbidden = attention_mask(config.tokens, config.causal, config.window)
    attention = trajectory.kept_attention()
    allowed = attention if forbidden is None else attention[..., ~forbidden]
    return CollapseSample(rates=rates, epsilon=float(allowed.min()),
                          reach=reach_depth(attention))


def reach_depth(attention: np.ndarray) -> int | None:
    """The first depth at which one input token influences every output token, in every stack.

    Output token i of block t depends on input token j exactly when entry (i, j) of
    P_t ⋯ P_1 is positive, P_l the union over heads of block l's attention support
    (pure attention: X_l = P_l X_(l−1) W_l). The smallest t at which that product has a
    positive column is the number of attention steps in which every token reaches one
    centre: the radius r in Wu et al.'s bound μ(X_t) ≤ C(1 − ε^r)^{t/r} (arXiv
    2405.18781), measured on the stacks' own attention (weights that underflow to 0
    count as absent).

    Parameters
    ----------
    attention : (depth, batch, heads, n, n) array
        Row-stochastic attention of each block, as ``Trajectory.kept_attention`` gives it.

    Returns
    -------
    int or None
        The largest such t over the batch (0 for one token); None when some stack has no
        such column within ``depth`` blocks.
    """
    if not isinstance(attention, np.ndarray) or attention.dtype.kind not in "iuf":
        raise InvalidType(f"attention must be a real NumPy array, got "
                          f"{type(attention).__name__}")
    if attention.ndim != 5 or attention.shape[-1] != attention.shape[-2]:
        raise InvalidParameter(f"attention must be (depth, batch, heads, n, n), got shape "
                               f"{attention.shape}")
    depth, batch, _, n, _ = attention.shape
    if n == 1:
        return 0
    # (depth, batch, n, n): 1 where some head lets i attend to j
    support = np.asarray(np.any(attention > 0, axis=2), dtype=np.float64)
    reached = np.zeros(batch, dtype=bool)
    product = np.broadcast_to(np.eye(n), (batch, n, n))
    for layer in range(depth):
        product = np.minimum(np.matmul(support[layer], product), 1.0)  # 0/1: stays exact
        reached |= np.any(np.all(product > 0, axis=1), axis=1)
        if reached.all():
            return layer + 1
    return None
