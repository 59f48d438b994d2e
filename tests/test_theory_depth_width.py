import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.theory.depth_width import (
    NEAR_OPTIMAL_BAND,
    VERDICTS,
    AllocationFit,
    budget_at_optimal_depth,
    closed_form_matches_sympy,
    judge_shape,
    optimal_depth,
    optimal_depth_for_width,
    optimal_width,
    parameter_count,
    plan_for_budget,
    smallest_budget,
    threshold_depth,
)

budgets = st.floats(4e5, 1e16)


def test_closed_form_is_sympys_solution():
    assert closed_form_matches_sympy()


def test_hand_checked_numbers():
    # GPT-3's budget: W0(175e9·0.0555·e^-10.078/6)/0.111 ≈ 80.5 (docs/theory.md §2).
    assert optimal_depth(175e9) == pytest.approx(80.51, abs=0.01)
    assert plan_for_budget(1e12).width_opt == pytest.approx(29_657, rel=1e-3)
    assert parameter_count(2, 10, vocabulary=100) == 12 * 2 * 100 + 1000
    assert threshold_depth(27) == pytest.approx(3.0)


@given(budgets, st.floats(1.01, 100))
def test_more_budget_deeper_and_wider(budget, factor):
    small, large = plan_for_budget(budget), plan_for_budget(budget * factor)
    assert large.depth_opt > small.depth_opt and large.width_opt > small.width_opt


@given(budgets)
def test_budget_is_spent_exactly_at_the_optimum(budget):
    plan = plan_for_budget(budget)
    assert parameter_count(plan.depth_opt, plan.width_opt) == pytest.approx(budget, rel=1e-10)


@given(st.floats(1.0, 300))
def test_inverse_functions_round_trip(depth):
    assert optimal_depth(budget_at_optimal_depth(depth)) == pytest.approx(depth, rel=1e-10)
    assert optimal_depth_for_width(optimal_width(depth)) == pytest.approx(depth, rel=1e-10)


@given(st.floats(1.0, 300), st.floats(160, 1e6))
def test_verdict_consistent_with_ratio(depth, width):
    plan = judge_shape(depth, width)
    assert plan.ratio == pytest.approx(depth / optimal_depth_for_width(width))
    low, high = NEAR_OPTIMAL_BAND
    expected = (VERDICTS[0] if plan.ratio > high
                else VERDICTS[1] if plan.ratio < low else VERDICTS[2])
    assert plan.verdict == expected
    # Too deep for its width <=> the budget-matched optimum is shallower.
    if plan.alternative_depth is None:
        assert plan.params < smallest_budget()
    elif plan.verdict == VERDICTS[0]:
        assert plan.alternative_depth < depth
    elif plan.verdict == VERDICTS[1]:
        assert plan.alternative_depth > depth


def test_gpt3_is_too_deep():
    assert judge_shape(96, 12288).verdict == VERDICTS[0]


def test_fit_override_changes_answer():
    assert optimal_depth(1e12, AllocationFit(5.0, 0.06)) != optimal_depth(1e12)


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, "1e9", True])
def test_bad_budget(bad):
    with pytest.raises(ValueError, match="budget"):
        optimal_depth(bad)


def test_budget_below_one_layer_rejected():
    with pytest.raises(ValueError, match="one optimal layer"):
        optimal_depth(smallest_budget() * 0.5)


@pytest.mark.parametrize("call, match", [
    (lambda: optimal_depth_for_width(100), "width must exceed"),
    (lambda: optimal_width(-3), "depth"),
    (lambda: judge_shape(0, 1000), "depth"),
    (lambda: judge_shape(10, math.nan), "width"),
    (lambda: threshold_depth(0), "width"),
    (lambda: AllocationFit(5.0, 0.0), "slope"),
    (lambda: AllocationFit(math.inf, 0.05), "intercept"),
])
def test_bad_shapes(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_the_depth_delusion_critical_depth_is_the_papers_fit():
    from attndepth.theory.depth_width import delusion_critical_depth

    assert delusion_critical_depth(512) == 16.0  # Fahim & Karim 2026, Fig. 1b
    assert delusion_critical_depth(2048) / delusion_critical_depth(512) == \
        pytest.approx(4 ** 0.44)
    for bad in (0, -1, float("nan"), "8"):
        with pytest.raises((ValueError, TypeError), match="width"):
            delusion_critical_depth(bad)
