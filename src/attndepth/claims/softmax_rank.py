"""Levine et al.'s depth threshold asked of softmax attention (theory document §1, "softmax
stacks"): ε-separation ranks of softmax stacks against depth.

Levine et al. 2020 analyse attention without softmax, where the separation rank is a
finite integer certified exactly. A softmax stack's output is not polynomial; its
ε-rank r_ε (:mod:`attndepth.rank.epsilon_rank`) is finite at every
ε > 0. This claim asks whether r_ε follows the analysed network's law above the
threshold: exponential growth in depth, ln r_ε linear in L.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from attndepth.framework.declarations import Check, Estimate, Rival
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.rank.epsilon_rank import (
    epsilon_ranks,
    linear_epsilon_ranks,
    softmax_epsilon_ranks,
)
from attndepth.rank.grids import SeparationRankConfig
from attndepth.rank.measure import measure_rank
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.separation_rank import threshold_depth
from attndepth.theory.softmax_rank import doubly_exponential_growth, exponential_growth

#: Where the theory document states these claims (section, place in it): the
#: built-in claims are listed, and run, in that order.
SECTION = (1, 7)

TESTS = "tests/test_claims_softmax_rank.py"
#: Allowed |later − first growth| of ln r_ε per layer above the threshold: r_ε may grow by
#: a factor e^{±0.25} ≈ 1.28 more or less per layer than over the first layer and still
#: count as exponential.
GROWTH_BAND = 0.25
#: The method's oracle: linear-attention networks (d, L) with N = 2, whose ε-rank at this ε
#: (above every measured floor, ~1e-15) must equal the certified separation rank.
ORACLE_NETWORKS = ((2, 2), (3, 2))
ORACLE_EPSILON = 1e-10


def growth_above_threshold(depths: tuple[int, ...], ranks: list[int], width: int,
                           threshold: Callable[[int], float] = threshold_depth) -> list[float]:
    """g_k = ln r(L₀ + k) − ln r(L₀ + k − 1), k = 1, 2, …, over the consecutive measured
    depths from L₀, the smallest measured depth at or above ``threshold(d)`` (log₃ d)."""
    logs = dict(zip(depths, (math.log(r) for r in ranks), strict=True))
    above = sorted(depth for depth in depths if depth >= threshold(width))
    growth = []
    for previous, depth in zip(above, above[1:], strict=False):
        if depth != previous + 1:
            break
        growth.append(logs[depth] - logs[previous])
    return growth


def _oracle(seed: int) -> list[str]:
    """Where the ε-rank of the linear-attention oracle misses its certified rank."""
    misses = []
    for width, depth in ORACLE_NETWORKS:
        certified = measure_rank(SeparationRankConfig(width=width, depth=depth, tokens=2),
                                 seed).rank
        found = linear_epsilon_ranks(width, depth, 2, seed, (ORACLE_EPSILON,)).ranks[0]
        if found != certified:
            misses.append(f"d={width}, L={depth}: ε-rank {found} ≠ certified {certified}")
    return misses


@claim(
    "levine.softmax-epsilon-rank",
    source="Levine et al. 2020, §3–4 (the threshold log₃ d, for attention without softmax), "
           "asked of softmax stacks [this project]",
    statement="Above the depth threshold log₃ d, the ε-separation rank of a softmax stack "
              "grows exponentially in depth, as the analysed network's separation rank "
              "does: ln r_ε is linear in L.",
    # quick: about 3 s for 16 seeds; at d = 3 a seed's grids grow to 300-500 points (25 s)
    presets={"quick": dict(variant="pure", width=2, depths=(1, 2, 3, 4), epsilon=1e-2,
                           max_points=512),
             "full": dict(variant="pure", width=3, depths=(1, 2, 3, 4, 5), epsilon=1e-2,
                          max_points=1024)},
    theory=(threshold_depth, exponential_growth),
    figure="softmax_epsilon_rank",
    simulation=(softmax_epsilon_ranks, linear_epsilon_ranks, epsilon_ranks),
    test=f"{TESTS}::test_the_growth_is_read_above_the_threshold_only",
    # wrong: ln r_ε quadratic in L, the growth rising by 1 per layer (faster than exponential)
    wrong_theory={"exponential_growth": lambda first, k: first + k},
    estimate=Estimate("later_growth", "predicted_growth", (-GROWTH_BAND, GROWTH_BAND),
                      relative=False, seeds=(4, 16),
                      label="later − first growth of ln r_ε per layer",
                      quantity="later growth per layer of ln r_ε above log₃ d (g_k, k ≥ 2, "
                               "against the first, g_1)"),
    checks=(Check("oracle", f"the method's oracle: the ε-rank of linear attention at ε = "
                  f"{ORACLE_EPSILON:g} equals its certified rank", precondition=True),
            Check("converged", "every ε-rank from a converged grid", precondition=True)),
    rivals=(Rival("doubly exponential", "ln r_ε ∝ 3^L, growth ×3 per layer: the analysed "
                  "network's growth below its threshold (sep ≈ d^{3^L}; Levine et al. 2020, "
                  "§4), continued above it",
                  predicted=lambda values, params: values["rival:doubly"]),
            Rival("growth stops", "r_ε constant after the first layer above the threshold: "
                  "rank collapse (Dong et al. 2021) caps what depth adds",
                  predicted=lambda values, params: 0.0)),
    family=Family(parameters={"variant": ("pure", "pre-ln", "post-ln"), "width": (2, 3)},
                  beyond={"width": (4,)},
                  fixed={"depths": (1, 2, 3, 4), "epsilon": 1e-2, "max_points": 512}),
)
def verify_softmax_epsilon_rank(seed: int, theory: Theory,
                                variant: str, width: int, depths: tuple[int, ...],
                                epsilon: float, max_points: int) -> Outcome:
    """ε-ranks of one stack's first L blocks (N = 2: one P and one Q position) for every L,
    and their growth per layer above the threshold."""
    misses = _oracle(seed)
    # one stack: its first L blocks for every L (nested stacks share their blocks)
    curves = [softmax_epsilon_ranks(StackConfig(variant=variant, depth=depth, tokens=2,
                                                width=width), seed, (epsilon,),
                                    max_points=max_points, draw_depth=max(depths))
              for depth in depths]
    ranks = [curve.ranks[0] for curve in curves]
    unconverged = [depth for depth, curve in zip(depths, curves, strict=True)
                   if not curve.converged[0] or curve.ranks[0] is None]
    growth = growth_above_threshold(tuple(depths), [r or 1 for r in ranks], width,
                                    theory.threshold_depth)
    later = growth[1:]
    measured = float(np.mean(later)) if later else float("nan")
    predicted = (float(np.mean([theory.exponential_growth(growth[0], k)
                                for k in range(1, len(growth))]))
                 if later else float("nan"))
    doubly = (float(np.mean([doubly_exponential_growth(growth[0], k)  # the rival's law
                             for k in range(1, len(growth))])) if later else float("nan"))
    floors = max(curve.floor for curve in curves)
    return Outcome(
        note=(f"r_ε at L = {list(depths)}: {ranks}; growth per layer "
              f"{[round(g, 2) for g in growth]}; the first L blocks of one {variant} stack, "
              f"d = {width} (log₃ d = "
              f"{theory.threshold_depth(width):.2f}), N = 2 (P = {{0}}, Q = {{1}}, output "
              f"y^{{L,0}}_0), ε = {epsilon:g}, grids of tokens "
              f"uniform in [−√3, √3]^d up to {max_points} per side; round-off floor "
              f"≤ {floors:.1e}; growth from L₀ = "
              f"{min((d for d in depths if d >= theory.threshold_depth(width)), default='—')}"
              + (f"; unconverged at L = {unconverged}" if unconverged else "")
              + (f"; ORACLE MISSED: {'; '.join(misses)}" if misses else
                 f"; oracle: linear attention's ε-rank = its certified rank at "
                 f"{len(ORACLE_NETWORKS)} networks")),
        values={"ranks": ranks, "depths": list(depths), "growth": growth,
                "later_growth": measured, "predicted_growth": predicted,
                "rival:doubly": doubly, "floor": floors, "unconverged": unconverged,
                "oracle_misses": misses, "oracle": not misses, "converged": not unconverged},
    )
