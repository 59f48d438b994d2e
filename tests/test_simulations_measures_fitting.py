import math

import numpy as np
import pytest

from attndepth.simulations.measures.fitting import (
    growth_ratios,
    linear_fit,
    log_or_floor,
    standard_error,
    transition_depth,
)


def test_linear_fit_recovers_line():
    x = np.arange(10.0)
    fit = linear_fit(x, 3 * x - 2)
    assert fit.slope == pytest.approx(3) and fit.intercept == pytest.approx(-2)
    assert fit.r2 == pytest.approx(1) and fit.window == (0.0, 9.0) and fit.points == 10


@pytest.mark.parametrize("x, y, match", [
    ([1.0, 2.0], [1.0, 2.0], "at least 3"),
    ([1.0, 1.0, 1.0], [1.0, 2.0, 3.0], "distinct"),
    ([1.0, 2.0, 3.0], [1.0, np.nan, 3.0], "finite"),
    ([1.0, 2.0, 3.0], [1.0, 2.0], "equal length"),
])
def test_linear_fit_bad_input(x, y, match):
    with pytest.raises(ValueError, match=match):
        linear_fit(np.array(x), np.array(y))


def test_transition_of_a_synthetic_curve():
    # ln s = 3^L up to L = 4, then +100 per layer: ratios 3, 3, 3, then ~1.6.
    depths = np.arange(1, 8)
    logs = np.array([3.0**L if L <= 4 else 81 + 50 * (L - 4) for L in depths])
    crossing = transition_depth(depths, logs)
    ratios = growth_ratios(logs)
    assert ratios[0] == pytest.approx(3)
    assert 3.5 < crossing < 4.5


def test_transition_needs_a_crossing():
    with pytest.raises(ValueError, match="extend"):
        transition_depth(np.arange(1, 5), 3.0 ** np.arange(1, 5))
    with pytest.raises(ValueError, match="from the first depth"):
        transition_depth(np.arange(1, 5), np.array([2.0, 3.0, 4.0, 5.0]))
    with pytest.raises(ValueError, match="consecutive"):
        transition_depth(np.array([1.0, 3.0, 4.0]), np.ones(3))


def test_log_or_floor_never_minus_infinity():
    values = log_or_floor(np.array([0.0, 1.0]))
    assert np.all(np.isfinite(values)) and values[1] == 0.0 and values[0] < -700
    assert math.isfinite(values[0])


def test_linear_phase_stops_before_floor():
    from attndepth.simulations.measures.fitting import linear_phase

    values = 10.0 ** -np.arange(0, 40, 2.0)
    phase = linear_phase(values, floor=1e-24, skip=2)
    assert phase[0] == 2 and values[phase[-1]] > 1e-24 and values[phase[-1] + 1] <= 1e-24


def test_power_law_fit_recovers_exponent():
    from attndepth.simulations.measures.fitting import power_law_fit

    depths = np.arange(1, 50.0)
    assert power_law_fit(depths, 3 * depths**1.5).slope == pytest.approx(1.5)
    with pytest.raises(ValueError, match="positive"):
        power_law_fit(depths - 1, depths)


def test_convergence_orders_recover_cubic_and_linear():
    from attndepth.simulations.measures.fitting import convergence_orders

    cubic = [0.2]
    for _ in range(4):
        cubic.append(0.7 * cubic[-1] ** 3)
    assert np.median(convergence_orders(np.array(cubic))) == pytest.approx(3, rel=0.05)
    linear = 0.5 * 0.8 ** np.arange(20)
    assert np.median(convergence_orders(linear)) == pytest.approx(1, rel=1e-6)


def test_standard_error_of_the_mean():
    assert standard_error(np.array([1.0, 3.0])) == pytest.approx(1.0)
    assert standard_error(np.array([2.0])) == 0.0
    with pytest.raises(ValueError, match="at least one"):
        standard_error(np.array([]))
