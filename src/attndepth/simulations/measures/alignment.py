"""How far a stack aligns its tokens: log-odds growth and cosine at the last layer.

Measures for residual-scaling experiments (Noci et al. 2022): per stack of a
seeded batch, the growth ℓ_L − ℓ_0 of the token-similarity log-odds
ℓ = ln(t_sim/(1 − t_sim)) and the mean pairwise cosine of the output tokens.
Nothing here knows a prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.measures.fitting import standard_error
from attndepth.simulations.measures.similarity import log_odds, mean_pairwise_cosine
from attndepth.simulations.models.stacks import StackConfig, run_stack


@dataclass(frozen=True)
class AlignmentSample:
    """Per stack of a batch.

    Attributes
    ----------
    growth : (batch,) ℓ_L − ℓ_0.
    initial_log_odds : (batch,) ℓ_0.
    final_cosine : (batch,) mean pairwise cosine after the last block.
    """

    growth: np.ndarray
    initial_log_odds: np.ndarray
    final_cosine: np.ndarray

    @property
    def mean_growth(self) -> float:
        return float(self.growth.mean())

    @property
    def growth_error(self) -> float:
        """Standard error of the mean growth (0 for one stack)."""
        return standard_error(self.growth)


def alignment_sample(config: StackConfig, batch: int, seed: int) -> AlignmentSample:
    """Run ``batch`` stacks of ``config`` from Gaussian tokens and measure their alignment."""
    if config.tokens < 2:
        raise InvalidParameter(f"alignment needs at least 2 tokens, got {config.tokens}")
    states = run_stack(config, batch, seed).states
    odds = log_odds(states[[0, -1]])
    return AlignmentSample(growth=odds[1] - odds[0], initial_log_odds=odds[0],
                           final_cosine=mean_pairwise_cosine(states[-1]))
