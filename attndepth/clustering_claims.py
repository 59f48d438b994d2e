"""Claims of Geshkovski, Letrouit, Polyanskiy & Rigollet 2023 (theory document §5):
self-attention as particles on the sphere."""

from __future__ import annotations

import numpy as np

from attndepth.claims import Outcome, claim, verdict_from
from attndepth.families import Family
from attndepth.simulations.sphere_dynamics import (
    RTOL,
    integrate_scalar,
    integrate_tokens,
    off_diagonal_inner_products,
    orthonormal_tokens,
)
from attndepth.theory.clustering import (
    check_beta_zero_solution,
    check_orthogonal_start_ode,
    orthogonal_start_rate,
)

TESTS = "tests/test_attndepth_clustering_claims.py"
#: Largest |γ_measured − γ_ODE| allowed: both integrations run at relative tolerance 1e-11.
GAMMA_TOLERANCE = 1e-8
#: Largest spread of the pairwise inner products at one time (the symmetry is exact).
SYMMETRY_TOLERANCE = 1e-9


@claim(
    "geshkovski.orthogonal-start",
    source="Geshkovski, Letrouit, Polyanskiy & Rigollet 2023, arXiv 2312.10794 (SA flow, §2; "
           "reduced ODE [derived], equal to the reported one)",
    statement="Tokens that start pairwise orthogonal keep equal inner products γ(t), with "
              "γ′ = 2e^{βγ}(1−γ)((n−1)γ+1)/(e^β + (n−1)e^{βγ}).",
    tolerance=(f"max |γ_tokens − γ_ODE| ≤ {GAMMA_TOLERANCE}; pairwise spread ≤ "
               f"{SYMMETRY_TOLERANCE}; SymPy: derived ODE = reported ODE, β = 0 solution exact"),
    presets={"quick": dict(tokens=4, beta=1.0, extra_width=2, horizon=4.0),
             "full": dict(tokens=8, beta=4.0, extra_width=4, horizon=8.0)},
    theory=(orthogonal_start_rate, check_orthogonal_start_ode, check_beta_zero_solution),
    simulation=(orthonormal_tokens, integrate_tokens, off_diagonal_inner_products,
                integrate_scalar),
    test=f"{TESTS}::test_orthogonal_start_matches_tanh_for_two_tokens",
    figure="geshkovski_orthogonal",
    wrong_theory={"orthogonal_start_rate":
                  lambda gamma, tokens, beta, right=orthogonal_start_rate:
                  0.5 * right(gamma, tokens, beta)},
    family=Family(parameters={"tokens": (2, 3, 4, 5, 6), "beta": (0.0, 0.5, 1.0, 2.0, 4.0),
                              "extra_width": (0, 2)},
                  beyond={"tokens": (8, 12), "beta": (8.0,)}, fixed={"horizon": 4.0}),
)
def verify_orthogonal_start(seed: int, tokens: int, beta: float, extra_width: int,
                            horizon: float) -> Outcome:
    """Integrate n orthogonal tokens and the scalar ODE; compare γ(t) on a time grid."""
    derived = check_orthogonal_start_ode(tokens)
    closed_form = check_beta_zero_solution(tokens)
    times = np.linspace(0.0, horizon, 41)
    X = integrate_tokens(orthonormal_tokens(tokens, tokens + extra_width, seed), beta, times)
    inner = off_diagonal_inner_products(X)
    spread = float(np.max(inner.max(axis=1) - inner.min(axis=1))) if tokens > 2 else 0.0
    measured = inner.mean(axis=1)
    predicted = integrate_scalar(lambda g: orthogonal_start_rate(g, tokens, beta), times)
    error = float(np.max(np.abs(measured - predicted)))
    holds = derived and closed_form and error <= GAMMA_TOLERANCE \
        and spread <= SYMMETRY_TOLERANCE
    return Outcome(
        predicted=f"γ({horizon:g}) = {predicted[-1]:.6f} (ODE)",
        measured=f"γ({horizon:g}) = {measured[-1]:.6f}; max |Δγ| {error:.1e}, spread {spread:.1e}",
        verdict=verdict_from(holds),
        note=(f"n={tokens}, β={beta}, d={tokens + extra_width}, t ∈ [0, {horizon}] (41 points); "
              f"SymPy: derived = reported ODE: {derived}; β=0 solution (1−e^(−2t))/(1+(n−1)"
              f"e^(−2t)) exact: {closed_form}; both integrations DOP853, rtol {RTOL}"),
        values={"max_error": error, "spread": spread, "gamma_end": float(measured[-1]),
                "derived_equals_reported": derived, "beta_zero_exact": closed_form},
    )
