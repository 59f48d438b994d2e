"""The spectral-gap predictions of Naderi et al. 2024 and the identities derived here."""

import math

import pytest

from attndepth.theory.spectral_gap import (
    bulk_edge,
    bulk_second_moment,
    collapsed_stable_rank,
    confirm_markov_moments,
    confirm_outlier_removal_identity,
    fix_difference,
    markov_ratio_squared,
)


def test_lognormal_ratio_is_checked_symbolically():
    assert confirm_markov_moments()
    assert markov_ratio_squared(1.0) == pytest.approx(math.e - 1)


@pytest.mark.parametrize("tokens, width", [(2, 1), (3, 2), (4, 3)])
def test_outlier_removal_differs_from_deescalation_by_the_column_sums(tokens, width):
    assert confirm_outlier_removal_identity(tokens, width)


def test_edge_moment_and_stable_rank():
    kappa2 = math.expm1(0.25)
    assert bulk_edge(100, 0.5) == pytest.approx(2 * math.sqrt(kappa2) / 10)
    assert bulk_second_moment(0.5) == pytest.approx(kappa2)
    assert collapsed_stable_rank(0.5) == pytest.approx(1 + kappa2)
    assert fix_difference(16) == 0.25


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), True, "1"])
def test_bad_scales_are_refused(bad):
    with pytest.raises(ValueError, match="logit scale"):
        markov_ratio_squared(bad)


@pytest.mark.parametrize("bad", [1, 0, 2.5, True])
def test_bad_token_counts_are_refused(bad):
    with pytest.raises(ValueError, match="tokens"):
        bulk_edge(bad, 1.0)
    with pytest.raises(ValueError, match="tokens"):
        fix_difference(bad)
