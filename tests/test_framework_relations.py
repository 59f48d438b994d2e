"""Relations across members: the sets a family draws and the numbers that decide them."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.framework.families import Family
from attndepth.framework.relations import (
    first_crossing,
    monotone_margin,
    scaling_exponent,
    subsets,
)


def test_subsets_are_every_sorted_combination_smallest_first():
    assert subsets((3, 1, 2), 2) == ((1, 2), (1, 3), (2, 3))
    family = Family(parameters={"alphas": subsets((1.0, 1.5, 2.0, 3.0), 3)})
    assert len(list(family.exhaustive())) == 4
    assert family.includes({"alphas": (1.0, 1.5, 2.0)})
    for values, size in (((1, 1), 2), ((1, 2), 3), ((1, 2), 1)):
        with pytest.raises(ValueError):
            subsets(values, size)


@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=8, unique=True))
def test_a_strictly_increasing_sequence_has_a_positive_margin_and_its_reverse_a_negative(ys):
    xs = list(range(len(ys)))
    increasing = sorted(ys)
    if len(set(increasing)) == len(increasing):
        assert monotone_margin(xs, increasing, "increasing") > 0
        assert monotone_margin(xs, increasing, "decreasing") < 0
        assert monotone_margin(xs[::-1], increasing, "decreasing") > 0  # xs are sorted first


def test_the_margin_names_the_worst_step():
    assert monotone_margin((1, 2, 3), (5.0, 3.0, 2.5), "decreasing") == pytest.approx(0.5)
    assert monotone_margin((1, 2, 3), (5.0, 3.0, 2.5), "decreasing", relative=True) == \
        pytest.approx(0.5 / 3.0)
    assert monotone_margin((1, 2, 3), (5.0, 3.0, 3.5), "decreasing") == pytest.approx(-0.5)


def test_scaling_exponent_and_first_crossing():
    widths = (8, 16, 32, 64)
    assert scaling_exponent(widths, [0.5 / d for d in widths]) == pytest.approx(-1.0)
    assert first_crossing((1, 2, 3, 4), (0.1, 0.4, 0.9, 1.0), 0.5) == 3
    assert first_crossing((1, 2), (0.1, 0.2), 0.5) == math.inf


def test_bad_relations_are_clear_errors():
    with pytest.raises(ValueError, match="direction"):
        monotone_margin((1, 2), (1, 2), "up")
    with pytest.raises(ValueError, match="equal-length"):
        monotone_margin((1, 2), (1,), "increasing")
    with pytest.raises(ValueError, match="distinct"):
        monotone_margin((1, 1), (1, 2), "increasing")
    with pytest.raises(ValueError, match="finite"):
        scaling_exponent((1, 2), (1, math.nan))
    with pytest.raises(ValueError, match="positive"):
        scaling_exponent((0, 2), (1, 2))
