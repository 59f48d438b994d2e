"""Claims on signal propagation at initialisation (theory document §5): residual scaling
(Noci et al. 2022) and the correlation map of one attention layer (Giorlandino & Goldt 2025)."""

from __future__ import annotations

import numpy as np

from attndepth.claims import Outcome, claim, verdict_from
from attndepth.families import Family
from attndepth.simulations.alignment import alignment_sample
from attndepth.simulations.stacks import StackConfig
from attndepth.theory.residual_scaling import (
    SCALINGS,
    check_limits,
    check_uniform_attention_recursion,
    cosine_from_log_odds,
    log_odds_growth,
    residual_scale,
)

TESTS = "tests/test_attndepth_propagation_claims.py"
#: Relative part of the growth tolerance: the first-order recursion neglects O(α⁴/d) per layer
#: and the O(1/temperature) departure of softmax attention from uniform.
GROWTH_RELATIVE = 0.05
#: Standard errors of the batch mean added to the tolerance.
GROWTH_ERRORS = 3.0
#: Largest |measured − implied| mean pairwise cosine at the last layer, where "implied" is
#: (n t − 1)/(n − 1) of each stack's measured t_sim (tokens of equal norm; Gaussian inputs
#: have norms spread by ≈ 1/√(2d)).
COSINE_TOLERANCE = 0.05


@claim(
    "noci.residual-scaling",
    source="Noci et al. 2022, arXiv 2206.03126 (rank collapse at initialisation; residual "
           "branches scaled by 1/√L; uniform attention); recursion (*) [derived]",
    statement="With residual branches scaled by α and uniform attention, the token log-odds "
              "grow by L ln(1 + α²) over L blocks: α = 1 aligns every token (cosine → 1), "
              "α = 1/√L keeps the growth below 1, α = 1/L below 1/L.",
    tolerance=(f"|measured − L ln(1 + α²)| ≤ {GROWTH_RELATIVE:.0%} of it + {GROWTH_ERRORS:g} "
               f"standard errors, and |cosine − (n t_sim − 1)/(n − 1)| ≤ {COSINE_TOLERANCE}, for "
               f"each α and L; SymPy: the recursion and the three limits"),
    presets={"quick": dict(tokens=16, width=64, depths=(8, 32), temperature=10.0, batch=16),
             "full": dict(tokens=16, width=128, depths=(8, 32, 64), temperature=10.0,
                          batch=64)},
    theory=(log_odds_growth, residual_scale, cosine_from_log_odds, check_limits,
            check_uniform_attention_recursion),
    simulation=(alignment_sample,),
    test=f"{TESTS}::test_residual_scaling_reports_the_departure_at_temperature_one",
    figure="noci_residual_scaling",
    # wrong: growth L·ln(1 + α) (the branch's variance taken as α, not α²)
    wrong_theory={"log_odds_growth": lambda depth, scale: depth * np.log1p(scale)},
    family=Family(parameters={"tokens": (4, 8, 16), "width": (32, 64),
                              "temperature": (10.0, 100.0)},
                  beyond={"tokens": (32,), "width": (128,)},
                  fixed={"depths": (8, 32), "batch": 16}),
)
def verify_residual_scaling(seed: int, tokens: int, width: int, depths: tuple[int, ...],
                            temperature: float, batch: int) -> Outcome:
    """Residual stacks with α ∈ {1, 1/√L, 1/L}: log-odds growth against L ln(1 + α²)."""
    symbolic = check_limits() and check_uniform_attention_recursion()
    rows, misses = [], []
    for depth in depths:
        for name in SCALINGS:
            alpha = residual_scale(name, depth)
            config = StackConfig(variant="residual", depth=depth, tokens=tokens, width=width,
                                 temperature=temperature, residual_scale=alpha)
            sample = alignment_sample(config, batch, seed)
            predicted = log_odds_growth(depth, alpha)
            allowed = GROWTH_RELATIVE * predicted + GROWTH_ERRORS * sample.growth_error
            if abs(sample.mean_growth - predicted) > allowed:
                misses.append(f"α={name}, L={depth}: {sample.mean_growth:.3f} vs "
                              f"{predicted:.3f} (±{allowed:.3f})")
            cosine = float(sample.final_cosine.mean())
            # the cosine the measured log-odds imply for tokens of equal norm, stack by stack
            expected = float(np.mean([cosine_from_log_odds(float(odds), tokens) for odds in
                                      sample.initial_log_odds + sample.growth]))
            if abs(cosine - expected) > COSINE_TOLERANCE:
                misses.append(f"cosine α={name}, L={depth}: {cosine:.3f} vs {expected:.3f}")
            rows.append(dict(scaling=name, depth=depth, alpha=alpha, predicted=predicted,
                             measured=sample.mean_growth, error=sample.growth_error,
                             cosine=cosine, implied_cosine=expected))
    deepest = [r for r in rows if r["depth"] == depths[-1]]
    default = alignment_sample(StackConfig(variant="residual", depth=depths[-1], tokens=tokens,
                                           width=width, temperature=1.0), batch, seed)
    default_ratio = default.mean_growth / log_odds_growth(depths[-1], 1.0)
    holds = symbolic and not misses
    shown = "; ".join(f"{r['scaling']}: {r['measured']:.2f}" for r in deepest)
    return Outcome(
        predicted=(f"growth at L={depths[-1]}: " + "; ".join(
            f"{r['scaling']}: {r['predicted']:.2f}" for r in deepest)),
        measured=(f"{shown}; cosine {deepest[0]['cosine']:.4f} (α=1; from t_sim "
                  f"{deepest[0]['implied_cosine']:.4f}) vs {deepest[1]['cosine']:.3f} (1/√L; "
                  f"from t_sim {deepest[1]['implied_cosine']:.3f})"),
        verdict=verdict_from(holds),
        note=(f"residual stacks, n={tokens}, d={width}, temperature {temperature:g} "
              f"(near-uniform attention), {batch} stacks per point, L ∈ {list(depths)}; "
              + (f"outside tolerance: {', '.join(misses)}; " if misses else "")
              + f"SymPy recursion and limits: {symbolic}; at the stacks' default temperature 1 "
                f"attention is not uniform and α = 1 grows {default_ratio:.3f}× the "
                f"uniform-attention prediction at L = {depths[-1]}"),
        values={"rows": rows, "misses": misses,
                "default_temperature_ratio": default_ratio, "symbolic": symbolic},
    )
