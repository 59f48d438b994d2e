"""The rate at which pure attention stacks collapse their tokens, with any mask.

Per stack of a seeded batch: the slope of the token-similarity log-odds
ℓ = ln(t_sim/(1 − t_sim)) = −2 ln(‖(I − Π)X‖/‖ΠX‖) against depth (exponential
collapse is a straight line), fitted after a transient and before float64
round-off, and the smallest attention weight the mask allows (ε of Wu et al.'s
bound). Nothing here knows a prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.measures.fitting import escalation_rates, standard_error
from attndepth.simulations.measures.similarity import log_odds
from attndepth.simulations.models.stacks import StackConfig, attention_mask, run_stack

#: Log-odds range fitted: below 50 the residual ‖(I − Π)X‖ is still far above round-off.
COLLAPSE_WINDOW: tuple[float, float] = (-50.0, 50.0)


@dataclass(frozen=True)
class CollapseSample:
    """Attributes: rates (batch,) log-odds per layer; epsilon, the smallest allowed weight."""

    rates: np.ndarray
    epsilon: float

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
    return CollapseSample(rates=rates, epsilon=float(allowed.min()))
