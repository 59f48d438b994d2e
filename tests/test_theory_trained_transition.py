"""Where the trained transition should fall: budget widths, L*(N) and its slopes."""

import math

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.theory.separation_rank import corrected_knee
from attndepth.theory.trained_transition import (
    corrected_knee_law,
    fit_slope,
    paper_knee,
    paper_transition_slope_expression,
    transition_depth,
    transition_slope,
    width_at_budget,
)


@settings(max_examples=50, deadline=None)
@given(st.floats(1e3, 1e12), st.sampled_from([1, 2, 4, 16, 10**6]))
def test_transition_depth_solves_its_equation(budget, q_size):
    for knee in (paper_knee, corrected_knee_law(q_size)):
        depth = transition_depth(budget, knee)
        assert depth == pytest.approx(knee(width_at_budget(budget, depth)), abs=1e-9)


def test_the_paper_slope_matches_sympy_and_the_difference_quotient():
    expression = paper_transition_slope_expression()
    depth = next(iter(expression.free_symbols))
    assert sp.simplify(expression - depth / (2 * depth * sp.log(3) + 1)) == 0
    for budget in (1e4, 1e6, 1e9):
        at = transition_depth(budget)
        assert transition_slope(budget) == pytest.approx(
            float(expression.subs(depth, at)), rel=1e-4)


def test_the_corrected_law_continues_the_integer_knee_and_sits_deeper():
    for width in (2, 3, 7, 20):
        for q_size in (1, 3, 8):
            assert corrected_knee_law(q_size)(float(width)) == pytest.approx(
                corrected_knee(width, q_size))
    assert transition_depth(1e5, corrected_knee_law(8)) > transition_depth(1e5) + 1


def test_fit_slope_is_the_derivative_of_the_fit():
    from attndepth.theory.depth_width import optimal_depth

    budget = 1e12
    numeric = (optimal_depth(budget * math.exp(1e-4)) - optimal_depth(budget * math.exp(-1e-4))
               ) / 2e-4
    assert fit_slope(optimal_depth(budget)) == pytest.approx(numeric, rel=1e-6)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="budget"):
        transition_depth(-1.0)
    with pytest.raises(ValueError, match="q_size"):
        corrected_knee_law(0)
    with pytest.raises(ValueError, match="too small"):
        transition_depth(1.0, lambda width: -5.0)
