"""The critical-scaling figure: its points follow the finite-d formula, above the limit."""

import numpy as np

from attndepth.figures import critical_scaling


def test_the_half_points_follow_the_formula_and_the_self_weight_rises(quick_data):
    data = quick_data(critical_scaling)
    panel = np.array(data["panel"])
    measured, formula, limit = (np.array(data[k], dtype=float)[panel == "a"]
                                for k in ("measured", "formula", "limit"))
    assert np.allclose(measured, formula, rtol=0.03)
    assert np.all(formula > limit)
    weights = np.array(data["measured"], dtype=float)[panel == "b"]
    tokens = np.array(data["tokens"])[panel == "b"]
    for n in set(tokens):
        assert np.all(np.diff(weights[tokens == n]) > 0)  # the self weight rises with γ


def test_the_figure_draws_the_claims_lengths(quick_data):
    from attndepth.claims.presets import CRITICAL_SCALING

    tokens = np.array(quick_data(critical_scaling)["tokens"])[
        np.array(quick_data(critical_scaling)["panel"]) == "a"]
    size = CRITICAL_SCALING["quick"]
    assert {size["smallest"], size["largest"]} <= set(tokens)
