"""The mask radius (breadth-first search and closed form) and Wu et al.'s guaranteed rate."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.theory.masks import (
    guaranteed_rate,
    mask_diameter,
    mask_radius,
    mask_radius_closed_form,
)


@given(tokens=st.integers(1, 24), window=st.one_of(st.none(), st.integers(1, 26)),
       causal=st.booleans())
def test_closed_form_equals_breadth_first_search(tokens, window, causal):
    assert mask_radius_closed_form(tokens, window, causal) == mask_radius(tokens, window, causal)


def test_known_radii():
    assert mask_radius(16, None, False) == 1 and mask_radius(16, None, True) == 1
    assert mask_radius(16, 2, True) == 15  # a chain back to token 0
    assert mask_radius(16, 2, False) == 8 and mask_radius(16, 1, False) is None
    assert mask_radius(1, 1, True) == 0


@given(tokens=st.integers(2, 20), window=st.integers(2, 22), causal=st.booleans())
def test_the_diameter_rival_is_the_radius_for_causal_windows_and_about_twice_for_bands(
        tokens, window, causal):
    radius, diameter = mask_radius(tokens, window, causal), mask_diameter(tokens, window, causal)
    assert diameter == math.ceil((tokens - 1) / (window - 1))
    assert diameter == radius if causal else radius <= diameter <= 2 * radius


def test_the_diameter_is_defined_where_the_radius_is():
    assert mask_diameter(1, 1, False) == 0 and mask_diameter(6, 1, False) is None


def test_guaranteed_rate_weakens_with_the_radius():
    rates = [guaranteed_rate(0.1, r) for r in (1, 2, 4, 8)]
    assert rates == sorted(rates) and rates[0] == pytest.approx(math.log(0.9))
    assert guaranteed_rate(1.0, 3) == -math.inf


@pytest.mark.parametrize("call, message", [
    (lambda: mask_radius(0, None, False), "tokens"), (lambda: mask_radius(4, 0, False), "window"),
    (lambda: mask_radius(4, 2, "yes"), "causal"), (lambda: guaranteed_rate(0.0, 2), "epsilon"),
    (lambda: guaranteed_rate(0.5, 0), "radius"), (lambda: mask_diameter(4, 2.5, False), "window"),
])
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
