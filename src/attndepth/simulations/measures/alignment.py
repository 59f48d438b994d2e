"""How far a stack aligns its tokens: log-odds growth and cosine at the last layer.

Measures for residual-scaling experiments (Noci et al. 2022): per stack of a
seeded batch, the growth ℓ_L − ℓ_0 of the token-similarity log-odds
ℓ = ln(t_sim/(1 − t_sim)), its per-block increments, the Jensen gap of the
per-block odds ratios and the mean pairwise cosine of the output tokens.
Nothing here knows a prediction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

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
    increments : (depth, batch) ℓ_{l+1} − ℓ_l, block by block.
    """

    growth: np.ndarray
    initial_log_odds: np.ndarray
    final_cosine: np.ndarray
    increments: np.ndarray

    @property
    def mean_growth(self) -> float:
        return float(self.growth.mean())

    @property
    def growth_error(self) -> float:
        """Standard error of the mean growth (0 for one stack)."""
        return standard_error(self.growth)

    @property
    def jensen_gap(self) -> np.ndarray:
        """(batch,) ln E r − E ln r of the per-block odds ratios r_l = exp(ℓ_{l+1} − ℓ_l).

        Estimated per stack from its L ≥ 2 blocks as ln r̄ + s²/(2L r̄²) − mean ln r
        (r̄, s² the blocks' sample mean and variance of r): the middle term removes
        the first-order bias E ln r̄ ≈ ln E r − Var r/(2L (E r)²) of the sample mean,
        so the estimate is unbiased to O(1/L²) when the blocks' ratios are
        independent and identically distributed (uniform attention). Computed in
        log space: no overflow at saturated log-odds. Used by noci.residual-scaling to
        measure the finite-width term of its growth on its own (docs/theory.md §5).

        Raises
        ------
        InvalidParameter
            For stacks of fewer than two blocks.
        """
        depth = self.increments.shape[0]
        if depth < 2:
            raise InvalidParameter(f"a Jensen gap needs at least 2 blocks, got {depth}")
        log_mean = logsumexp(self.increments, axis=0) - math.log(depth)
        # s²/r̄² = Σ (r/r̄ − 1)²/(L − 1), with r/r̄ = exp(Δℓ − ln r̄)
        spread = np.sum(np.expm1(self.increments - log_mean) ** 2, axis=0) / (depth - 1)
        return log_mean + spread / (2 * depth) - self.increments.mean(axis=0)


def alignment_sample(config: StackConfig, batch: int, seed: int) -> AlignmentSample:
    """Run ``batch`` stacks of ``config`` from Gaussian tokens and measure their alignment."""
    if config.tokens < 2:
        raise InvalidParameter(f"alignment needs at least 2 tokens, got {config.tokens}")
    states = run_stack(config, batch, seed).states
    odds = log_odds(states)
    return AlignmentSample(growth=odds[-1] - odds[0], initial_log_odds=odds[0],
                           final_cosine=mean_pairwise_cosine(states[-1]),
                           increments=np.diff(odds, axis=0))
