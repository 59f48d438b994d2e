"""Collapse rates of pure attention stacks under masks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.simulations.measures.collapse import collapse_sample, reach_depth
from attndepth.simulations.models.stacks import StackConfig, attention_mask


def test_rates_are_reproducible_and_epsilon_is_an_allowed_weight():
    config = StackConfig(variant="pure", depth=12, tokens=8, width=16, window=3)
    first, again = (collapse_sample(config, 4, seed=7) for _ in range(2))
    assert np.array_equal(first.rates, again.rates) and 0 < first.epsilon < 1 / 3
    assert first.rate_error > 0


def test_window_of_one_does_not_collapse():
    # attention to itself only: P = I, the tokens never move towards each other
    # (the random value maps still move the log-odds about: the rate is 0 within its error)
    sample = collapse_sample(StackConfig(variant="pure", depth=12, tokens=6, width=8,
                                         window=1), 32, seed=0)
    assert abs(sample.mean_rate) <= 3 * sample.rate_error and sample.epsilon == 1.0


@pytest.mark.parametrize("kwargs, message", [(dict(tokens=1), "2 tokens"),
                                             (dict(depth=3), "skip")])
def test_bad_input_is_refused(kwargs, message):
    config = StackConfig(**(dict(variant="pure", depth=10, tokens=6, width=8) | kwargs))
    with pytest.raises(ValueError, match=message):
        collapse_sample(config, 2, seed=0)


@settings(max_examples=25, deadline=None)
@given(tokens=st.integers(2, 9), window=st.one_of(st.none(), st.integers(1, 10)),
       causal=st.booleans(), depth=st.integers(1, 10))
def test_reach_depth_is_the_first_product_of_supports_with_a_full_column(tokens, window,
                                                                          causal, depth):
    # the supports alone decide it: every allowed weight positive, the rest 0
    forbidden = attention_mask(tokens, causal, window)
    allowed = np.ones((tokens, tokens), bool) if forbidden is None else ~forbidden
    attention = np.broadcast_to(allowed / allowed.sum(1, keepdims=True),
                                (depth, 2, 1, tokens, tokens))
    reach = reach_depth(attention)
    powers = [np.linalg.matrix_power(allowed.astype(int), t) for t in range(1, depth + 1)]
    full = [t + 1 for t, power in enumerate(powers) if (power > 0).all(axis=0).any()]
    assert reach == (full[0] if full else None)


def test_reach_depth_of_a_stack_waits_for_its_slowest_member():
    attention = np.zeros((3, 2, 1, 2, 2))
    attention[:, 0] = 0.5                  # stack 0: everything reaches everything at once
    attention[:, 1] = np.eye(2)            # stack 1: never
    assert reach_depth(attention) is None
    attention[2, 1] = 0.5
    assert reach_depth(attention) == 3 and reach_depth(np.ones((1, 1, 1, 1, 1))) == 0


def test_reach_depth_refuses_a_wrong_shape_or_type():
    with pytest.raises(ValueError, match="depth, batch, heads, n, n"):
        reach_depth(np.ones((2, 3, 3)))
    for bad in ([[1.0]], np.array([["a"]])):
        with pytest.raises(TypeError, match="real NumPy array"):
            reach_depth(bad)
