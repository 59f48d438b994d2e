"""The reduced ODE of orthogonal starts: derived = reported, β = 0 closed form, numbers."""

import math

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from attndepth.theory.clustering import (
    beta_zero_gamma,
    confirm_beta_zero_solution,
    confirm_orthogonal_start_ode,
    derive_orthogonal_start_rate,
    orthogonal_start_rate,
)


@pytest.mark.parametrize("tokens", [2, 3, 5, 8])
def test_derived_rate_equals_the_reported_one(tokens):
    assert confirm_orthogonal_start_ode(tokens)


def test_beta_zero_solution_for_every_n():
    assert confirm_beta_zero_solution()  # symbolic n


@given(st.floats(0, 5))
def test_two_tokens_at_beta_zero_is_tanh(t):
    assert beta_zero_gamma(t, 2) == pytest.approx(math.tanh(t), abs=1e-15)


@given(st.integers(2, 10), st.floats(0, 8), st.floats(-0.1, 1.0))
def test_numeric_rate_matches_the_symbolic_derivation(tokens, beta, gamma):
    from attndepth.theory.clustering import beta_symbol, gamma_symbol

    derived = float(derive_orthogonal_start_rate(tokens).subs({gamma_symbol: gamma,
                                                               beta_symbol: beta}))
    assert orthogonal_start_rate(gamma, tokens, beta) == pytest.approx(derived, rel=1e-12,
                                                                      abs=1e-15)


def test_fixed_points_and_bad_input():
    assert orthogonal_start_rate(1.0, 4, 2.0) == 0.0  # one cluster is at rest
    with pytest.raises(ValueError, match="tokens"):
        orthogonal_start_rate(0.0, 1, 1.0)


def test_wendel_probability_values_and_identities():
    from attndepth.theory.clustering import confirm_wendel_identities, wendel_probability

    assert wendel_probability(3, 2) == sp.Rational(3, 4)  # n points on a circle: n/2^(n−1)
    assert wendel_probability(2, 1) == sp.Rational(1, 2)
    assert confirm_wendel_identities(10)
    with pytest.raises(ValueError, match="dimension"):
        wendel_probability(3, 0)
