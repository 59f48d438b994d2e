"""The APJN's growth laws: SymPy, DyT's weight and its asymptote, the fitted gain."""

import math

import numpy as np
import pytest

from attndepth.theory.jacobian_growth import (
    confirm_jacobian_growth,
    dyt_weight,
    fitted_gain,
    norm_weight,
)


def test_sympy_confirms_the_area_and_the_two_growth_laws():
    assert confirm_jacobian_growth() is True


def test_dyt_weight_is_a_monte_carlo_mean_and_falls_as_one_over_sigma():
    rng = np.random.default_rng(0)
    x = 3.0 * rng.standard_normal(2_000_000)
    assert dyt_weight(np.array([9.0]), 0.5)[0] == pytest.approx(
        0.25 * np.mean(np.cosh(0.5 * x) ** -4.0), rel=3e-3)
    far = dyt_weight(np.array([1e6]), 2.0)[0]
    assert far == pytest.approx(4.0 * (4 / 3) / (2.0 * 1e3 * math.sqrt(2 * math.pi)),
                                rel=1e-4)
    # the tanh's small-input slope: a₀² at σ → 0
    assert dyt_weight(np.array([1e-10]), 0.7)[0] == pytest.approx(0.49, rel=1e-6)
    np.testing.assert_allclose(norm_weight(np.array([4.0, 16.0])), [0.25, 1 / 16])


def test_the_fitted_gain_solves_the_windows_rise():
    weights = np.array([0.5, 0.25, 0.125])
    rise = float(np.sum(np.log1p(1.7 * weights)))
    assert fitted_gain(weights, rise) == pytest.approx(1.7, rel=1e-10)
    assert fitted_gain(weights, 0.0) == 0.0


@pytest.mark.parametrize(("call", "message"), [
    (lambda: norm_weight(np.array([1.0, 0.0])), "variance must be > 0"),
    (lambda: dyt_weight(np.array([1.0]), 0.0), "alpha"),
    (lambda: fitted_gain(np.array([]), 1.0), "needs weights"),
    (lambda: fitted_gain(np.array([0.5]), -1.0), "rise"),
])
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
