"""Near-simplex tokens and the self weight's half point."""

import numpy as np
import pytest

from attndepth.simulations.measures.self_weight import (
    half_points,
    near_simplex_tokens,
    self_weights,
)


def test_the_tokens_are_unit_vectors_with_the_asked_overlap():
    Y = near_simplex_tokens(64, 512, 0.5, 2, 0)
    assert np.allclose(np.linalg.norm(Y, axis=-1), 1.0)
    overlaps = (Y @ Y.swapaxes(1, 2))[:, ~np.eye(64, dtype=bool)]
    assert abs(overlaps.mean() - 0.5) < 0.01


def test_the_self_weight_is_one_half_at_each_tokens_half_point():
    Y = near_simplex_tokens(20, 16, 0.3, 2, 1)
    beta = half_points(Y)
    for k in range(2):
        for i in (0, 7, 19):
            assert self_weights(Y[k:k + 1], float(beta[k, i]))[0, i] == pytest.approx(0.5)


def test_an_exact_simplex_crosses_at_ln_n_minus_1_over_the_gap():
    # n unit vectors with pairwise overlap ρ: √(1 − ρ) e_i + √ρ/√n·(1, …, 1)-direction
    n, rho = 6, 0.4
    E = np.sqrt(1 - rho) * np.eye(n)
    common = np.zeros((n, n + 1))
    common[:, :n], common[:, n] = E, np.sqrt(rho)
    beta = half_points(common[None])
    np.testing.assert_allclose(beta, np.log(n - 1) / (1 - rho), rtol=1e-12)


def test_coinciding_tokens_or_too_few_are_a_clear_error():
    Y = near_simplex_tokens(4, 8, 0.5, 1, 0)
    with pytest.raises(ValueError, match="coincide"):
        half_points(np.concatenate([Y, Y[:, :1]], axis=1))
    with pytest.raises(ValueError, match="n >= 3"):
        half_points(Y[:, :2])
    with pytest.raises(ValueError, match="overlap must be below 1"):
        near_simplex_tokens(4, 8, 1.0, 1, 0)
