"""Random Markov and key-query attention matrices, and their singular values."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.simulations.measures.spectral_gap import (
    FULL_SVD_MAX,
    attention_sample,
    spectrum_sample,
    stable_rank,
    top_singular_values,
)


@settings(max_examples=20, deadline=None)
@given(ensemble=st.sampled_from(["markov", "key-query"]), tokens=st.integers(2, 40),
       width=st.integers(1, 12), scale=st.floats(0.1, 3.0), seed=st.integers(0, 2**32))
def test_samples_are_row_stochastic_and_reproducible(ensemble, tokens, width, scale, seed):
    A, X = attention_sample(ensemble, tokens, width, scale, seed)
    assert A.shape == (tokens, tokens) and X.shape == (tokens, width)
    assert np.all(A >= 0) and np.allclose(A.sum(axis=1), 1.0)
    again, _ = attention_sample(ensemble, tokens, width, scale, seed)
    other, _ = attention_sample(ensemble, tokens, width, scale, seed, index=1)
    assert np.array_equal(A, again) and not np.array_equal(A, other)


def test_arpack_and_full_svd_agree():
    A, _ = attention_sample("markov", FULL_SVD_MAX + 76, 4, 1.0, seed=3)
    full = np.linalg.svd(A, compute_uv=False)[:2]
    assert np.allclose(top_singular_values(A), full, rtol=1e-10)


def test_outlier_is_at_least_one_and_the_bulk_shrinks():
    small, large = (spectrum_sample("markov", T, 16, 1.0, seed=0, samples=2) for T in (64, 512))
    assert small.s1 >= 1 and large.s1 >= 1
    assert large.s2 < small.s2 / 2  # ≈ 1/√8 of it


def test_stable_rank_bounds():
    assert stable_rank(np.eye(5)) == pytest.approx(5)
    assert stable_rank(np.outer(np.arange(1, 4), np.ones(3))) == pytest.approx(1)


@pytest.mark.parametrize("kwargs, message", [
    (dict(ensemble="gaussian"), "ensemble"), (dict(tokens=1), "tokens"),
    (dict(width=0), "width"), (dict(scale=0.0), "scale"), (dict(scale=float("nan")), "scale"),
])
def test_bad_input_is_refused(kwargs, message):
    arguments = dict(ensemble="markov", tokens=8, width=4, scale=1.0, seed=0) | kwargs
    with pytest.raises(ValueError, match=message):
        attention_sample(**arguments)
