"""The REM participation by quadrature (against sampling) and wide attention layers."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.simulations.measures.rem import rem_participation, wide_layer_map
from attndepth.simulations.models.law import token_factor


@settings(max_examples=12, deadline=None)
@given(tokens=st.integers(2, 400), scale=st.floats(0.05, 9.0), seed=st.integers(0, 2**31))
def test_quadrature_agrees_with_sampling(tokens, scale, seed):
    rng = np.random.default_rng(seed)
    energies = scale * rng.standard_normal((4000, tokens))
    energies -= energies.max(axis=1, keepdims=True)
    weights = np.exp(energies)
    weights /= weights.sum(axis=1, keepdims=True)
    samples = np.sum(weights**2, axis=1)
    error = samples.std() / math.sqrt(samples.size)
    assert abs(rem_participation(tokens, scale) - samples.mean()) < 4 * error + 1e-4


def test_quadrature_limits():
    # high temperature: E Y₂ ≈ E[e^{2λg}]/(T E[e^{λg}]²) = e^{λ²}/T, even for T = 1e300
    for tokens, scale in ((1e6, 1e-3), (1e6, 0.5), (1e300, 0.5), (1e300, 20.0)):
        assert rem_participation(tokens, scale) == pytest.approx(math.exp(scale**2) / tokens,
                                                                 rel=1e-3)
    lnT = 690.0
    assert rem_participation(math.exp(lnT), 4 * math.sqrt(2 * lnT)) == pytest.approx(0.75,
                                                                                    abs=2e-3)


def test_wide_layer_reproduces_and_collapses_at_small_beta():
    layer = wide_layer_map(64, 256, 0.25, 0.0, seed=1, samples=3)
    assert np.allclose(layer.participation, 1 / 64)  # β = 0: uniform attention
    assert np.allclose(layer.q_out, layer.p_out, atol=1e-12)  # every output is the mean
    again = wide_layer_map(64, 256, 0.25, 0.0, seed=1, samples=3)
    assert np.array_equal(layer.q_in, again.q_in)


def test_logits_through_the_factor_have_the_law_of_x_g_xt():
    # vec(X G Xᵀ) has covariance S ⊗ S, S = X Xᵀ: so must vec(R H Rᵀ), entry by entry
    rng = np.random.default_rng(3)
    X = rng.standard_normal((3, 7))
    R = token_factor(X)
    H = rng.standard_normal((40_000, 3, 3))
    logits = (R @ H @ R.T).reshape(-1, 9)
    S = X @ X.T
    expected = np.kron(S, S)
    spread = np.sqrt((expected**2 + np.outer(np.diag(expected), np.diag(expected)))
                     / len(logits))  # the standard error of each covariance entry
    assert np.all(np.abs(np.cov(logits.T) - expected) < 5 * spread)


@pytest.mark.parametrize("kwargs, message", [
    (dict(tokens=1), "tokens"), (dict(overlap=1.0), "overlap"), (dict(overlap=-0.1), "overlap"),
    (dict(beta=-1.0), "beta"), (dict(samples=0), "samples"),
])
def test_bad_layer_input_is_refused(kwargs, message):
    arguments = dict(tokens=8, width=8, overlap=0.0, beta=1.0, seed=0) | kwargs
    with pytest.raises(ValueError, match=message):
        wide_layer_map(**arguments)


@pytest.mark.parametrize("tokens, scale", [(1.0, 1.0), (1e301, 1.0), (10, 0.0)])
def test_bad_quadrature_input_is_refused(tokens, scale):
    with pytest.raises(ValueError):
        rem_participation(tokens, scale)
