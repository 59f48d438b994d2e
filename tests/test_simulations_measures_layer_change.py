"""The per-layer change observables against cases worked by hand."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.simulations.measures.layer_change import (
    angular_distance,
    first_token_norm_ratio,
    hidden_variance,
    relative_update,
    sink_mass,
    uniform_sink_mass,
)


def test_an_identity_block_neither_updates_nor_turns():
    X = np.random.default_rng(0).normal(size=(1, 2, 5, 4))
    same = np.concatenate([X, X, 2 * X])
    np.testing.assert_allclose(relative_update(same), [[0, 0], [1, 1]], atol=1e-15)
    np.testing.assert_allclose(angular_distance(same), 0, atol=1e-7)


def test_a_block_that_turns_every_token_a_right_angle_is_half_way():
    x = np.array([[[[1.0, 0.0], [0.0, 2.0]]]])
    turned = np.array([[[[0.0, 1.0], [-2.0, 0.0]]]])
    np.testing.assert_allclose(angular_distance(np.concatenate([x, turned])), [[0.5]])
    np.testing.assert_allclose(relative_update(np.concatenate([x, -x])), [[2.0]])


def test_variance_and_the_first_tokens_norm():
    X = np.array([[[[3.0, -3.0], [1.0, 1.0], [0.0, 2.0], [2.0, 0.0]]]])
    np.testing.assert_allclose(hidden_variance(X), [[(9 + 0 + 1 + 1) / 4]])
    np.testing.assert_allclose(first_token_norm_ratio(X), [[np.sqrt(18) / 2]])


@given(tokens=st.integers(2, 40), causal=st.booleans())
def test_uniform_attention_has_the_uniform_sink_mass(tokens, causal):
    P = np.ones((tokens, tokens))
    if causal:
        P = np.tril(P)
    P /= P.sum(axis=-1, keepdims=True)
    found = sink_mass(P[None, None, None])
    np.testing.assert_allclose(found, [[uniform_sink_mass(tokens, causal)]], rtol=1e-12)


def test_all_attention_on_the_first_token_is_a_sink_of_mass_one():
    P = np.zeros((1, 1, 2, 5, 5))
    P[..., 0] = 1.0
    np.testing.assert_allclose(sink_mass(P), [[1.0]])
    with pytest.raises(ValueError):
        uniform_sink_mass(1, causal=True)
