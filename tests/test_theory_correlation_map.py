"""The correlation map of one attention layer (Giorlandino & Goldt 2025) and its REM reading."""

import math

import pytest

from attndepth.theory.correlation_map import (
    confirm_critical_beta,
    confirm_inverse_square,
    correlation_map,
    critical_beta,
    energy_scale,
    limit_participation,
)


def test_critical_beta_comes_from_the_freezing_condition():
    assert confirm_critical_beta() and confirm_inverse_square()
    assert critical_beta(0.0) == pytest.approx(math.sqrt(2))
    assert critical_beta(0.5) == pytest.approx(2.0)


def test_map_collapses_below_and_keeps_a_fraction_above():
    assert correlation_map(0.5, 1.9) == (0.5, 0.5)
    assert correlation_map(0.5, 4.0) == pytest.approx((0.75, 0.5))
    assert limit_participation(0.0, 0.0) == 0.0


def test_energy_scale_freezes_at_beta_c():
    T = 1e6
    assert energy_scale(0.5, critical_beta(0.5), T) == pytest.approx(math.sqrt(2 * math.log(T)))


@pytest.mark.parametrize("call, message", [
    (lambda: critical_beta(1.0), "overlap"), (lambda: critical_beta(float("nan")), "overlap"),
    (lambda: limit_participation(0.0, -1.0), "beta"), (lambda: energy_scale(0.0, 1.0, 1), "tokens"),
    (lambda: correlation_map(True, 1.0), "overlap"),
])
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
