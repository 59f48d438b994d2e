"""The residual connection and the separation rank (theory document §1, "ρ = 1").

With ρ = 1 the output f has parts f_{a,b} of every degree a + b ≤ K, and its
coefficient matrix is block triangular instead of block diagonal. Two facts
are proved (``attndepth.theory.separation_rank``): the top-degree parts are
the ρ = 0 network with the same weights, so sep(ρ = 1) ≥ sep(ρ = 0)
(``attndepth.theory.residual_rank``), and bound (d) with ρ = 1 — a staircase cover
of the triangular matrix — is at most the ρ = 0 bound (d) where its minima
switch once (``separation_rank_bounds``). Together: where the ρ = 0 rank meets
bound (d), the ρ = 1 rank equals it. The claim is the conjecture beyond that:
one head, the residual never changes the separation rank, including where
the ρ = 0 rank stays below bound (d).
"""

from __future__ import annotations

from attndepth.claims.separation_rank import (
    PROPER_SPLIT,
    SEARCH_BOUND_LIMIT,
    SIZE_CLASSES,
    SIZE_CLASSES_BEYOND,
    bounds_of,
    exact_rank,
    theory_bounds,
)
from attndepth.errors import InvalidParameter
from attndepth.framework.declarations import Check, Rival
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.rank.degree_blocks import BLOCK_PRIME, measure_block_ranks
from attndepth.rank.grids import certified_rank
from attndepth.rank.measure import RankCase
from attndepth.theory.residual_rank import (
    confirm_residual_top_part,
    grouped_bound,
    predicted_residual_rank,
)
from attndepth.theory.separation_rank import separation_rank_bounds

#: Where the theory document states these claims (section, place in it): the
#: built-in claims are listed, and run, in that order.
SECTION = (1, 5)

TESTS = "tests/test_claims_residual.py"
Config = RankCase

#: Networks whose top-degree part is compared with the ρ = 0 network exactly (SymPy):
#: (width, tokens, depth, heads, seed).
TOP_PART_CHECKS = ((2, 3, 2, 1, 0), (3, 2, 2, 1, 1), (2, 2, 3, 1, 2))


def _without_residual(config: Config) -> Config:
    return config._replace(residual=0)


def _staircase_bound(config: Config, rank_without: int) -> int:
    """A rival's rank with ρ = 1: the staircase bound (d), as if it were tight."""
    return config._replace(residual=1).bounds().bigraded


def _grouped(config: Config) -> int:
    """The one-sided grouped bound with ρ = 1 of a configuration (a wrong rank)."""
    return grouped_bound(config.width, config.depth, config.p_size, config.q_size)


def _family_config(member: dict) -> Config:
    return RankCase(member["width"], member["depth"], 1, member["tokens"], 1, member["p_size"])


#: (d, L, H, N, ρ, |P|): below bound (d) with ρ = 0 (the first three) and meeting it.
QUICK_CONFIGS: list[Config] = [RankCase(*case) for case in (
    (2, 3, 1, 3, 1, 2), (3, 2, 1, 3, 1, 1), (3, 3, 1, 4, 1, 1), (2, 3, 1, 4, 1, 2),
    (4, 2, 1, 4, 1, 2))]
FULL_CONFIGS: list[Config] = QUICK_CONFIGS + [RankCase(*case) for case in (
    (3, 3, 1, 6, 1, 3), (3, 3, 1, 4, 1, 3), (4, 2, 1, 6, 1, 1), (4, 3, 1, 3, 1, 2))]


@claim(
    "levine.residual-rank",
    source="[derived] lower bound and staircase bound; conjecture of this project "
           "(network of Levine et al. 2020, §3, with ρ = 1)",
    statement="With one head a residual connection leaves the separation rank unchanged: "
              "sep(ρ = 1) = sep(ρ = 0). Proved where the ρ = 0 rank meets bound (d); "
              "conjectured elsewhere.",
    checks=(Check("equal_ranks", "exact integers: sep(ρ = 1) = sep(ρ = 0) on every "
                  "configuration"),
            Check("not_below", "exact integers: the ρ = 1 rank ≥ the ρ = 0 rank (proved)"),
            Check("bounds_equal", "exact integers: the two bounds (d) equal (proved)"),
            Check("within_bound", "exact integers: the ρ = 1 rank ≤ its best bound (a)–(d) "
                  "(proved)"),
            Check("top_parts", "SymPy: the top-degree part of the ρ = 1 network is the ρ = 0 "
                  "network")),
    presets={"quick": dict(configs=QUICK_CONFIGS), "full": dict(configs=FULL_CONFIGS)},
    theory=(confirm_residual_top_part, separation_rank_bounds, predicted_residual_rank),
    simulation=(measure_block_ranks, certified_rank),
    test=f"{TESTS}::test_residual_rank_holds_and_a_wrong_theory_fails",
    figure=None,  # pairs of equal integers: the note and theory §1 list them; no curve to draw
    wrong_theory={"predicted_residual_rank": lambda config, rank: _grouped(config)},
    rivals=(Rival("rank = bound (d) with ρ = 1", "the staircase bound taken as tight: the "
                  "residual's lower-degree parts would fill the ρ = 0 deficit",
                  replace={"predicted_residual_rank": _staircase_bound}),
            Rival("rank = the one-sided grouped bound", "this project's earlier bound (d) "
                  "with ρ = 1 (grouped_bound), read as the rank",
                  replace={"predicted_residual_rank": lambda config, rank: _grouped(config)})),
    conjecture=True,
    family=Family(
        parameters=SIZE_CLASSES, beyond=SIZE_CLASSES_BEYOND,
        constraints=(PROPER_SPLIT,
                     (f"best bound ≤ {SEARCH_BOUND_LIMIT} (cost)", lambda m: bounds_of(
                         _family_config(m)).best <= SEARCH_BOUND_LIMIT)),
        adapt=lambda m: {"configs": [_family_config(m)]}),
)
def verify_residual_rank(seed: int, theory: Theory, configs: list[Config]) -> Outcome:
    """Whole-matrix ranks with ρ = 1 against the degree-block ranks with ρ = 0."""
    top_parts = all(theory.confirm_residual_top_part(*network) for network in TOP_PART_CHECKS)
    rows, unequal, below, bound_changes, above, proved = [], [], [], [], [], 0
    configs = [RankCase.of(config) for config in configs]
    for config in configs:
        if config.residual != 1:
            raise InvalidParameter(f"configs are (d, L, H, N, ρ = 1, |P|), got {config}")
        without = exact_rank(_without_residual(config), seed)
        bounds = theory_bounds(theory, config)
        bound = bounds.best
        with_residual = exact_rank(config, seed, BLOCK_PRIME)
        if with_residual.rank > bound:
            above.append(config)
        proved += with_residual.reason == "upper-bound"
        if with_residual.rank != theory.predicted_residual_rank(config, without.rank):
            unequal.append(config)
        if with_residual.rank < without.rank:
            below.append(config)
        if bounds.bigraded != theory_bounds(theory, _without_residual(config)).bigraded:
            bound_changes.append(config)
        rows.append(f"{config}: {with_residual.rank} / {without.rank} (bound {bound})")
    return Outcome(
        measured=(f"{len(configs) - len(unequal)}/{len(configs)} equal, {proved} of them "
                  f"proved (ρ = 1 rank = bound (d)); ρ = 1 below ρ = 0: {len(below)}; bound "
                  f"(d) changed by ρ: {len(bound_changes)}; above the best bound: {len(above)}; "
                  f"SymPy top-part check on "
                  f"{len(TOP_PART_CHECKS)} networks: {'equal' if top_parts else 'DIFFERENT'}"),
        note=("(d, L, H, N, ρ, |P|): rank with ρ = 1 (whole matrix, GF(" + str(BLOCK_PRIME)
              + ")) / rank with ρ = 0 (degree blocks), same seed " + str(seed)
              + " and hence the same weights — " + "; ".join(rows)),
        values={"unequal": unequal, "below": below, "bound_changes": bound_changes,
                "equal_ranks": not unequal, "not_below": not below,
                "bounds_equal": not bound_changes, "above_bound": above,
                "within_bound": not above, "top_parts": top_parts},
    )
