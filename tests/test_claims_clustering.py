"""geshkovski.orthogonal-start at small sizes, and what it compares."""

import math

import pytest

from attndepth.framework.running import run_claim


def test_orthogonal_start_matches_tanh_for_two_tokens():
    result = run_claim("geshkovski.orthogonal-start", tokens=2, beta=0.0, extra_width=0,
                       horizon=3.0)
    # at n = 2 the reported ODE is the two-token rival itself: the measurement agrees with
    # both, so it cannot tell them apart
    assert result.verdict == "indistinguishable"
    assert abs(result.outcome.values["gamma_end"] - math.tanh(3.0)) < 1e-9


def test_many_tokens_at_high_temperature_still_hold():
    result = run_claim("geshkovski.orthogonal-start", tokens=6, beta=4.0, extra_width=2,
                       horizon=4.0)
    assert result.verdict == "holds" and result.outcome.values["spread"] < 1e-12


@pytest.mark.slow
def test_single_cluster_reports_the_collapse_time():
    result = run_claim("geshkovski.single-cluster", tokens=4, dimension=2, beta=1.0, trials=300)
    values = result.outcome.values
    assert result.verdict == "indistinguishable"  # d = 2: the circle-formula rival is Wendel's
    assert values["probability"] == 0.5 and values["interval"][0] <= 0.5 <= values["interval"][1]
    assert 0 < values["collapse_time"] < 1e3 and values["final_diameter"] <= 1e-6


def test_single_cluster_fails_when_the_tokens_cannot_merge_in_time(monkeypatch):
    # The horizon is part of the statement checked: at β = 9 the tokens wait in metastable
    # clusters for about 10^3, so a horizon of 100 must report fails, not holds.
    from attndepth.claims import clustering as clustering_claims

    monkeypatch.setattr(clustering_claims, "CLUSTER_HORIZON", 100.0)
    result = run_claim("geshkovski.single-cluster", tokens=8, dimension=4, beta=9.0, trials=50)
    assert result.verdict == "fails" and result.outcome.values["collapse_time"] is None
