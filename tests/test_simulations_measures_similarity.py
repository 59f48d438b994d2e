import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attndepth.simulations.measures.similarity import (
    attention_spectra,
    dong_residual,
    invariant_eigenspace_defects,
    log_odds,
    mean_pairwise_cosine,
    norm_1_inf,
    similarity_and_log_odds,
    token_diversity,
    token_similarity,
)

token_matrices = arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(1, 5)),
                        elements=st.floats(-10, 10)).filter(lambda X: np.abs(X).sum() > 1e-3)


@given(token_matrices)
def test_similarity_and_diversity_sum_to_one(X):
    assert abs(token_similarity(X) + token_diversity(X) - 1) < 1e-12
    assert 0 <= token_similarity(X) <= 1 + 1e-15


def test_identical_tokens_and_centred_tokens():
    X = np.tile([1.0, 2.0, -1.0], (4, 1))
    assert token_similarity(X) == 1.0 and token_diversity(X) == 0.0
    assert np.isfinite(log_odds(X)) and log_odds(X) > 700  # floored, not inf
    centred = X - X.mean(0) + np.eye(4, 3)
    centred -= centred.mean(0)
    assert token_similarity(centred) < 1e-30


def test_diversity_is_accurate_far_below_rounding_of_one():
    X = np.ones((3, 2))
    X[0, 0] += 1e-10
    assert abs(token_diversity(X) - 1e-20 * (2 / 3) / 6) / (1e-20 / 9) < 1e-5


@given(token_matrices)
def test_log_odds_matches_definition(X):
    t = token_similarity(X)
    if 1e-12 < t < 1 - 1e-12:
        assert abs(log_odds(X) - np.log(t / (1 - t))) < 1e-6


@given(token_matrices)
def test_one_pass_gives_both_measures_bit_for_bit(X):
    similarity, odds = similarity_and_log_odds(np.stack([X, X[::-1], np.ones_like(X)]))
    for k, Y in enumerate((X, X[::-1], np.ones_like(X))):
        assert similarity[k] == token_similarity(Y) and odds[k] == log_odds(Y)


def test_cosine_of_parallel_and_orthogonal_tokens():
    assert abs(mean_pairwise_cosine(np.array([[1.0, 0], [2, 0], [3, 0]])) - 1) < 1e-15
    assert abs(mean_pairwise_cosine(np.eye(3))) < 1e-15


def test_dong_residual_and_norm():
    X = np.array([[1.0, 2.0], [3.0, 6.0]])
    np.testing.assert_allclose(dong_residual(X), [[-1, -2], [1, 2]])
    # ‖R‖₁ = max column abs sum = 4, ‖R‖_∞ = max row abs sum = 3.
    assert norm_1_inf(dong_residual(X)) == np.sqrt(12)


def test_spectra_of_known_matrices():
    n = 4
    uniform = np.full((n, n), 1 / n)
    spectra = attention_spectra(uniform)
    assert spectra["lambda2"] < 1e-12 and spectra["sigma2"] < 1e-12
    identity = attention_spectra(np.eye(n))
    assert abs(identity["lambda2"] - 1) < 1e-12 and abs(identity["sigma2"] - 1) < 1e-12
    lazy = 0.5 * np.eye(n) + 0.5 * uniform  # symmetric doubly stochastic, λ₂ = ½
    spectra = attention_spectra(np.stack([lazy, lazy]))
    np.testing.assert_allclose(spectra["lambda2"], 0.5)
    np.testing.assert_allclose(spectra["sigma2"], 0.5)
    np.testing.assert_allclose(spectra["leakage"], 0.0, atol=1e-15)
    row_only = np.array([[1.0, 0.0], [1.0, 0.0]])
    assert attention_spectra(row_only)["leakage"] == 1.0


def test_defects_detect_non_stochastic():
    assert max(invariant_eigenspace_defects(np.full((3, 3), 1 / 3))) < 1e-15
    row, block = invariant_eigenspace_defects(np.array([[1.0, 1.0], [0.0, 1.0]]))
    assert row == 1.0 and block > 0.1


def test_stable_rank_is_one_for_rank_one_tokens_and_min_n_d_for_orthonormal_ones():
    from attndepth.simulations.measures.similarity import stable_rank

    rng = np.random.default_rng(0)
    assert stable_rank(np.outer(rng.standard_normal(5), rng.standard_normal(3))) \
        == pytest.approx(1.0)
    assert stable_rank(np.eye(4)[:, :3]) == pytest.approx(3.0)
    assert stable_rank(np.zeros((2, 3, 4))).tolist() == [0.0, 0.0]


def test_attention_entropy_is_log_n_for_uniform_rows_and_zero_for_one_hot_rows():
    from attndepth.simulations.measures.similarity import attention_entropy

    assert attention_entropy(np.full((2, 5, 5), 0.2)) == pytest.approx(np.log(5))
    assert attention_entropy(np.eye(4)) == 0.0
    with pytest.raises(ValueError, match="square"):
        attention_entropy(np.ones((2, 3)))


def test_sigma2_alone_is_the_spectra_sigma2():
    from attndepth.simulations.measures.similarity import attention_sigma2

    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 33):
        P = np.exp(rng.normal(size=(2, 3, n, n)) * 3)
        P /= P.sum(axis=-1, keepdims=True)
        np.testing.assert_allclose(attention_sigma2(P), attention_spectra(P)["sigma2"],
                                   rtol=1e-10, atol=1e-14)
