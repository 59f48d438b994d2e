"""Claims of Levine et al. 2020, §5 (theory document §2): the depth-to-width allocation rule."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import brentq

from attndepth.framework.declarations import Check, Rival
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.theory.depth_width import (
    DEFAULT_FIT,
    AllocationFit,
    closed_form_matches_sympy,
    optimal_depth,
    plan_for_budget,
)

#: Where the theory document states these claims (section, place in it): the
#: built-in claims are listed, and run, in that order.
SECTION = (2, 1)

TESTS = "tests/test_claims_allocation.py"

#: GPT-3 175B (Brown et al. 2020, Table 2.1).
GPT3_LAYERS, GPT3_PARAMS = 96, 175e9
#: "Well below": the rule's depth at GPT-3's budget at most this fraction of 96.
GPT3_DEPTH_FRACTION = 0.9
#: "About 30K": relative distance of d_opt(1T) from 30,000 allowed.
WIDTH_1T_TARGET, WIDTH_1T_TOLERANCE = 30_000, 0.05
#: Closed form vs root-find, relative.
ROOT_FIND_TOLERANCE = 1e-9


def _half_slope_plan(budget: float, fit: AllocationFit = DEFAULT_FIT, right=plan_for_budget):
    """A wrong theory: the fit's depth slope b halved (deeper optimal networks)."""
    return right(budget, AllocationFit(fit.intercept, fit.slope / 2))


def _scaled_slope_plan(factor: float):
    """A rival theory: the fit's depth slope b times ``factor`` (same intercept)."""
    def plan(budget: float, fit: AllocationFit = DEFAULT_FIT, right=plan_for_budget):
        return right(budget, AllocationFit(fit.intercept, fit.slope * factor))
    return plan


#: The fit of ln d against L rests on a handful of trained depths: a slope 10 % off
#: either way is a plausible rival of the published one.
SLOPE_RIVALS = (
    Rival("slope b +10 %", "the allocation fit's slope within its uncertainty (Levine et al. "
          "2020, §5, Fig. 4)", replace={"plan_for_budget": _scaled_slope_plan(1.1)}),
    Rival("slope b −10 %", "the allocation fit's slope within its uncertainty (Levine et al. "
          "2020, §5, Fig. 4)", replace={"plan_for_budget": _scaled_slope_plan(0.9)}),
)


def _holding_slopes(theory: Theory, budget: float, holds: Callable[[Any], bool]) -> str:
    """What would decide a statement about one budget that the slope rivals cannot: the
    range of factors on the fit's slope b (in steps of 1 %, from ×0.5 to ×2) over which
    the statement still holds. Rivals inside that range agree with it; a slope known to
    better than the range, or a budget where the ±10 % slopes fall on both sides, would
    decide."""
    factors = [k / 100 for k in range(50, 201)]
    plan = theory.plan_for_budget
    kept = [f for f in factors
            if holds(plan(budget, AllocationFit(DEFAULT_FIT.intercept,
                                                DEFAULT_FIT.slope * f)))]
    if not kept:
        return "no slope from ×0.5 to ×2 makes the statement hold"
    low, high = min(kept), max(kept)
    agreeing = [name for name, factor in (("−10 %", 0.9), ("+10 %", 1.1))
                if low <= factor <= high]
    return (f"no sample size (a rule on published numbers): the statement holds for every "
            f"slope b from ×{low:.2f} to ×{high:.2f} of the fit's (looked at from ×0.5 to "
            f"×2), so the slope {' and '.join(agreeing) or '(none)'} rival"
            f"{'s agree' if len(agreeing) > 1 else ' agrees'} with it; the slope itself, "
            f"fitted to better than ±10 % (more trained depths than Levine et al. 2020, "
            f"Fig. 4), would decide between them")


@claim(
    "levine.gpt3-too-deep",
    source="Levine et al. 2020, §5; Lieber et al. 2021",
    statement="At GPT-3's 175B budget the rule's optimal depth is well below 96 layers.",
    presets={"quick": dict(budget=GPT3_PARAMS), "full": dict(budget=GPT3_PARAMS)},
    theory=(plan_for_budget,),
    test=f"{TESTS}::test_allocation_claims_hold_with_reported_numbers",
    figure="allocation",
    wrong_theory={"plan_for_budget": _half_slope_plan},
    family=Family(parameters={"budget": (GPT3_PARAMS,)}),  # a statement about one budget
    rivals=SLOPE_RIVALS,
    checks=(Check("depth_opt", f"L_opt at GPT-3's budget (it has {GPT3_LAYERS} layers)",
                  at_most=GPT3_DEPTH_FRACTION * GPT3_LAYERS),),
)
def verify_gpt3_too_deep(seed: int, theory: Theory, budget: float) -> Outcome:
    """L_opt at GPT-3's budget vs its 96 layers (deterministic; seed unused)."""
    plan = theory.plan_for_budget(budget)
    limit = GPT3_DEPTH_FRACTION * GPT3_LAYERS
    return Outcome(
        note=(f"L_opt {plan.depth_opt:.1f}, d_opt {plan.width_opt:,.0f}; rule ln d = 5.039 "
              f"+ 0.0555 L at N = {budget:.3g}; Jurassic-1 report quotes "
              f"~80 layers; theory threshold log_3 d_opt = {plan.threshold_depth:.1f}"),
        values={**plan.as_dict(), "to_decide": _holding_slopes(
            theory, budget, lambda found: found.depth_opt <= limit)},
    )


@claim(
    "levine.1t-width",
    source="Levine et al. 2020, §5",
    statement="About 30K width is optimal at 1T parameters.",
    presets={"quick": dict(budget=1e12), "full": dict(budget=1e12)},
    theory=(plan_for_budget,),
    test=f"{TESTS}::test_allocation_claims_hold_with_reported_numbers",
    figure="allocation",
    wrong_theory={"plan_for_budget": _half_slope_plan},
    family=Family(parameters={"budget": (1e12,)}),  # a statement about one budget
    rivals=SLOPE_RIVALS,
    checks=(Check("relative_distance", f"|d_opt − {WIDTH_1T_TARGET:,}|/{WIDTH_1T_TARGET:,}",
                  at_most=WIDTH_1T_TOLERANCE),),
)
def verify_1t_width(seed: int, theory: Theory, budget: float) -> Outcome:
    """d_opt at 1T parameters vs about 30K (deterministic; seed unused)."""
    plan = theory.plan_for_budget(budget)
    relative = abs(plan.width_opt - WIDTH_1T_TARGET) / WIDTH_1T_TARGET
    return Outcome(
        note=f"d_opt {plan.width_opt:,.0f} at L_opt {plan.depth_opt:.1f}; threshold log_3 d_opt = "
             f"{plan.threshold_depth:.2f} layers",
        values={**plan.as_dict(), "relative_distance": relative,
                "to_decide": _holding_slopes(theory, budget, lambda found: abs(
                    found.width_opt - WIDTH_1T_TARGET) / WIDTH_1T_TARGET
                    <= WIDTH_1T_TOLERANCE)},
    )


@claim(
    "levine.fit-consistency",
    source="[derived]: Lambert-W closed form of the allocation rule",
    statement="The Lambert-W closed form for the optimal depth solves the budget equation.",
    presets={
        "quick": dict(budgets=50, low_exponent=6.0, high_exponent=15.0),
        "full": dict(budgets=2000, low_exponent=5.6, high_exponent=18.0),
    },
    theory=(optimal_depth, closed_form_matches_sympy),
    simulation=(brentq,),
    test=f"{TESTS}::test_allocation_claims_hold_with_reported_numbers",
    wrong_theory={"optimal_depth": lambda budget, right=optimal_depth: 1.01 * right(budget)},
    # Budgets start at 10^6: below about 3.2·10^5 parameters (one layer of the optimal
    # width, theory.depth_width.smallest_budget) the rule has no optimal depth at all.
    family=Family(parameters={"low_exponent": (6.0, 8.0, 10.0),
                              "high_exponent": (12.0, 15.0, 18.0)},
                  beyond={"low_exponent": (5.6,), "high_exponent": (21.0, 24.0)},
                  fixed={"budgets": 50}),
    # the closed form against a root-find of the same equation: only a bug can fail it
    kind="consistency",
    checks=(Check("symbolic", "SymPy: the Lambert-W residual vanishes identically"),
            Check("max_relative_difference", "closed form against Brent's root-find, max "
                  "relative difference", at_most=ROOT_FIND_TOLERANCE)),
)
def verify_fit_consistency(seed: int, theory: Theory, budgets: int, low_exponent: float,
                            high_exponent: float) -> Outcome:
    """Closed form (Lambert W) vs Brent's root-find of 12·L·e^{2a+2bL} = N."""
    symbolic = theory.closed_form_matches_sympy()
    rng = np.random.default_rng(seed)
    exponents = rng.uniform(low_exponent, high_exponent, budgets)
    a, b = DEFAULT_FIT.intercept, DEFAULT_FIT.slope
    worst = 0.0
    for budget in 10.0**exponents:
        closed = theory.optimal_depth(budget)
        # log of the budget equation: monotone in L, no overflow for large L.
        root = brentq(lambda L, N=budget: math.log(12 * L) + 2 * (a + b * L) - math.log(N),
                      1.0, 1e4, xtol=1e-14, rtol=1e-15)
        worst = max(worst, abs(closed - root) / root)
    return Outcome(
        note=(f"closed form = root of 12·L·e^(2a+2bL) = N over {budgets} budgets; sympy "
              f"solve gives W0(N b e^-2a/6)/(2b) and the residual vanishes "
              f"identically: {symbolic}; budgets 10^U({low_exponent}, {high_exponent}), "
              f"seed {seed}"),
        values={"max_relative_difference": worst, "symbolic": symbolic},
    )
