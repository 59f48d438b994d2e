"""geshkovski.orthogonal-start at small sizes, and what it compares."""

import math

from attndepth.claims import run_claim


def test_orthogonal_start_matches_tanh_for_two_tokens():
    result = run_claim("geshkovski.orthogonal-start", tokens=2, beta=0.0, extra_width=0,
                       horizon=3.0)
    assert result.verdict == "holds"
    assert abs(result.outcome.values["gamma_end"] - math.tanh(3.0)) < 1e-9


def test_many_tokens_at_high_temperature_still_hold():
    result = run_claim("geshkovski.orthogonal-start", tokens=6, beta=4.0, extra_width=2,
                       horizon=4.0)
    assert result.verdict == "holds" and result.outcome.values["spread"] < 1e-12
