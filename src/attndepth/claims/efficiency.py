"""Depth efficiency (Levine et al. 2020, §4; theory document §1): the width a shallower
network needs to match a certified separation rank.

For a certified rank r of a depth-L network of width d (|P| = |Q| = q), the
width a depth-(L − 1) network needs is at least d′ = the smallest width whose
*proved* bound at depth L − 1 reaches r (``necessary_width``): narrower
shallower networks cannot reach r with any weights. The exponent
e = ln d′ / ln d says how expensive the removed layer is: the doubly
exponential regime (sep ≈ d^(3^L)) predicts e ≈ 3, the exponential regime
far less.
"""

from __future__ import annotations

import math

from attndepth.claims.separation_rank import exact_rank
from attndepth.framework.declarations import Check, Rival
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.rank.degree_blocks import measure_block_ranks
from attndepth.rank.knee import measure_knee
from attndepth.rank.measure import RankCase
from attndepth.theory.separation_rank import necessary_width, regime_bounds

#: Where the theory document states these claims (section, place in it): the
#: built-in claims are listed, and run, in that order.
SECTION = (1, 6)

TESTS = "tests/test_claims_efficiency.py"
#: Exponent splitting the regimes: removing a layer before the knee costs e ≈ 3
#: (d′ ≈ d³), past it e ≤ 2.3 at every width measured; 2.5 is the midpoint of 3 and 2.
EXPONENT_SPLIT = 2.5

#: (width, depth) pairs with certified ranks, one Q position (N = 2).
QUICK_PAIRS = [[2, 2], [3, 2], [4, 2], [6, 2], [2, 3], [3, 3], [2, 4]]
FULL_PAIRS = QUICK_PAIRS + [[9, 2], [4, 3], [3, 4], [2, 5]]


def knee_of(width: int, seed: int) -> float | None:
    """The depth the regimes switch at: the knee decided from certified ranks (one Q
    position), or None where it is undecided."""
    return measure_knee(width, 1, *regime_bounds(width, 1), seed).decision.knee


def _efficiency(seed: int, width: int, depth: int, theory: Theory) -> dict:
    certificate = exact_rank(RankCase(width, depth, 1, 2, 0, 1), seed)
    needed = theory.necessary_width(certificate.rank, depth - 1, 1)
    knee = theory.knee_of(width, seed)
    return {"width": width, "depth": depth, "rank": certificate.rank,
            "proved": certificate.reason == "upper-bound", "needed": needed,
            "exponent": math.log(needed) / math.log(width), "knee": knee}


@claim(
    "levine.depth-efficiency",
    source="Levine et al. 2020, §4 (depth efficiency below L_th)",
    statement="Removing one layer before the knee forces a width of about d³ to keep the "
              "separation rank (exponent ln d′/ln d ≈ 3); past the knee it costs far less.",
    presets={"quick": dict(pairs=QUICK_PAIRS), "full": dict(pairs=FULL_PAIRS)},
    theory=Theory(necessary_width, knee_of, EXPONENT_SPLIT=EXPONENT_SPLIT),
    simulation=(measure_block_ranks, measure_knee),
    test=f"{TESTS}::test_depth_efficiency_holds_and_can_fail",
    figure=None,  # a table (docs/theory.md §1) says it; threshold_knee shows the knee only
    wrong_theory={"EXPONENT_SPLIT": 1.0},
    rivals=(Rival("switch at L_th = log_3 d", "the paper's threshold (Levine et al. 2020, §4) "
                  "in place of the decided knee", replace={
                      "knee_of": lambda width, seed: math.log(width, 3)}),
            Rival("no switch (e ≈ 3 at every depth)", "the doubly exponential growth "
                  "sep ≈ d^(3^L) taken to hold at every depth", replace={
                      "knee_of": lambda width, seed: math.inf})),
    family=Family(parameters={"width": (2, 3, 4, 5, 6, 7, 8, 9), "depth": (2, 3)},
                  beyond={"width": (10, 12)},
                  constraints=(("certified rank reachable (cost)",
                                lambda m: m["depth"] == 2 or m["width"] <= 4),),
                  adapt=lambda m: {"pairs": [[m["width"], m["depth"]]]}),
    checks=(Check("as_predicted", f"exponent ln d′/ln d ≥ {EXPONENT_SPLIT} for L ≤ κ and "
                  f"< {EXPONENT_SPLIT} for L > κ at every pair (κ the decided knee; none "
                  f"decided: cannot tell)"),),
)
def verify_depth_efficiency(seed: int, theory: Theory, pairs: list[list[int]]) -> Outcome:
    """The proved width a depth-(L − 1) network needs, against the knee."""
    rows = [_efficiency(seed, width, depth, theory) for width, depth in pairs]
    undecided = [row for row in rows if row["knee"] is None]  # no certified knee to compare
    wrong = [row for row in rows if row["knee"] is not None
             and (row["exponent"] >= theory.EXPONENT_SPLIT) != (row["depth"] <= row["knee"])]
    return Outcome(
        note=(f"{len(rows) - len(wrong) - len(undecided)}/{len(rows)} as predicted"
              + (f" ({len(undecided)} with no decided knee)" if undecided else "") + "; e = "
              + ", ".join(f"{row['exponent']:.2f} (d={row['width']}, L={row['depth']})"
                          for row in rows)
              + "; one Q position (N = 2); d′ = the smallest width whose proved bound at depth "
              "L − 1 reaches the certified rank (no narrower depth-(L − 1) network can match "
              "it): " + "; ".join(
                  f"d={row['width']}, L={row['depth']}: rank {row['rank']}"
                  f"{' (= bound)' if row['proved'] else ' (certified lower bound)'}, "
                  f"depth {row['depth'] - 1} needs width ≥ {row['needed']}, knee κ={row['knee']}"
                  for row in rows)),
        values={"rows": rows, "wrong": [[r["width"], r["depth"]] for r in wrong],
                "as_predicted": False if wrong else None if undecided else True},
    )
