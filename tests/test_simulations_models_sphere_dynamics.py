"""The token flow on the sphere: stays on the sphere, matches tanh for two tokens."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.simulations.models.sphere_dynamics import (
    attention_velocity,
    integrate_scalar,
    integrate_tokens,
    off_diagonal_inner_products,
    orthonormal_tokens,
)


@settings(max_examples=10)
@given(st.integers(1, 6), st.integers(0, 3), st.integers(0, 1000))
def test_orthonormal_tokens(tokens, extra, seed):
    X = orthonormal_tokens(tokens, tokens + extra, seed)
    np.testing.assert_allclose(X @ X.T, np.eye(tokens), atol=1e-13)


@settings(max_examples=10)
@given(st.integers(2, 5), st.floats(0, 6), st.integers(0, 100))
def test_the_velocity_is_tangent_and_the_flow_stays_on_the_sphere(tokens, beta, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((tokens, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    assert np.max(np.abs(np.sum(attention_velocity(X, beta) * X, axis=1))) < 1e-14
    path = integrate_tokens(X, beta, np.linspace(0, 2, 5))
    assert np.max(np.abs(np.linalg.norm(path, axis=2) - 1)) < 1e-9


def test_two_orthogonal_tokens_at_beta_zero_follow_tanh():
    times = np.linspace(0, 3, 31)
    gamma = off_diagonal_inner_products(
        integrate_tokens(orthonormal_tokens(2, 2, 0), 0.0, times))[:, 0]
    np.testing.assert_allclose(gamma, np.tanh(times), atol=1e-9)
    np.testing.assert_allclose(integrate_scalar(lambda g: 1 - g * g, times), np.tanh(times),
                               atol=1e-9)


@pytest.mark.parametrize("kwargs, match", [
    (dict(X0=np.ones((2, 2)), beta=1.0, times=[0, 1]), "sphere"),
    (dict(X0=np.eye(2), beta=-1.0, times=[0, 1]), "beta"),
    (dict(X0=np.eye(2), beta=1.0, times=[1, 2]), "times"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        integrate_tokens(**kwargs)


def test_hemisphere_test_and_fraction():
    from attndepth.simulations.models.sphere_dynamics import (
        cluster_diameter,
        hemisphere_fraction,
        in_open_hemisphere,
    )

    assert in_open_hemisphere(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert not in_open_hemisphere(np.array([[1.0, 0.0], [-1.0, 0.0]]))  # antipodal: no
    angles = 2 * np.pi * np.arange(3) / 3  # three points 120° apart on a circle: no
    assert not in_open_hemisphere(np.column_stack([np.cos(angles), np.sin(angles)]))
    assert hemisphere_fraction(2, 2, 50, 0) == 50  # n ≤ d: always
    path = np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [1.0, 0.0]]])
    np.testing.assert_allclose(cluster_diameter(path), [2**0.5, 0.0])


def _by_linear_program(X):
    """The independent reference: maximise s with ⟨v, x_i⟩ ≥ s, −1 ≤ v ≤ 1 (HiGHS)."""
    from scipy.optimize import linprog

    n, d = X.shape
    objective = np.zeros(d + 1)
    objective[-1] = -1.0
    result = linprog(objective, A_ub=np.hstack([-X, np.ones((n, 1))]), b_ub=np.zeros(n),
                     bounds=[(-1, 1)] * d + [(None, 1)], method="highs")
    assert result.status == 0
    return -result.fun > 1e-9


@pytest.mark.parametrize("tokens, dimension", [(3, 2), (4, 3), (6, 3), (8, 4), (12, 6),
                                               (16, 2), (5, 4), (8, 6)])
def test_the_hull_distance_test_agrees_with_a_linear_program(tokens, dimension):
    from attndepth.simulations.models.sphere_dynamics import (
        in_open_hemisphere,
        uniform_sphere_points,
    )

    generator = np.random.default_rng(tokens * 100 + dimension)
    draws = [uniform_sphere_points(tokens, dimension, generator) for _ in range(150)]
    found = [in_open_hemisphere(X) for X in draws]
    assert found == [_by_linear_program(X) for X in draws]
