"""The clocks of speed regulation: SymPy, the telescoping sum, nGPT's turn, bad input."""

import math

import numpy as np
import pytest

from attndepth.theory.normalisation_speed import (
    aligned_time,
    confirm_speed_regulation,
    ngpt_time,
    ngpt_turn,
    peri_radius,
    peri_time,
)


def test_sympy_confirms_the_clock_the_kept_share_and_the_turn():
    assert confirm_speed_regulation() is True


def test_the_peri_clock_is_the_sum_of_each_blocks_lost_memory():
    # 1 − h_k = r²_k/r²_{k+1}: the blocks' −ln(1 − h) add up to ln(1 + ℓβ²/s)
    beta, start = 1.5, 0.8
    lost = sum(-math.log(peri_radius(k, beta, start) / peri_radius(k + 1, beta, start))
               for k in range(20))
    assert peri_time(20, beta, start) == pytest.approx(lost)
    # each doubling of a deep stack advances the clock by ln 2; the aligned clock by 2 ln 2
    assert peri_time(2e6, 1, 1) - peri_time(1e6, 1, 1) == pytest.approx(math.log(2), rel=1e-5)
    assert aligned_time(2e6, 1, 1) - aligned_time(1e6, 1, 1) == pytest.approx(
        2 * math.log(2), rel=1e-5)


def test_the_ngpt_turn_matches_a_monte_carlo_step_on_the_sphere():
    rng = np.random.default_rng(0)
    d, a = 16, 0.4
    x = np.zeros(d)
    x[0] = math.sqrt(d)
    u = rng.standard_normal((400_000, d))
    u *= math.sqrt(d) / np.linalg.norm(u, axis=1, keepdims=True)
    stepped = (1 - a) * x + a * u
    sine2 = 1 - (stepped[:, 0] / np.linalg.norm(stepped, axis=1)) ** 2
    # second order in d^(−½): at d = 16 the third order is ~1e-3 of the turn
    assert sine2.mean() == pytest.approx(ngpt_turn(a, d), rel=5e-3)
    assert abs(sine2.mean() - a * a / ((1 - a) ** 2 + a * a)) > 0.01 * sine2.mean()
    assert ngpt_time(3, a) == pytest.approx(3 * math.log1p(a * a / (1 - a) ** 2))


@pytest.mark.parametrize(("call", "message"), [
    (lambda: peri_time(-1, 1, 1), "depth"),
    (lambda: peri_radius(4, 0, 1), "beta"),
    (lambda: aligned_time(4, 1, 0), "start"),
    (lambda: ngpt_time(4, 1.0), "no memory"),
    (lambda: ngpt_turn(0.0, 64), "step"),
    (lambda: ngpt_turn(0.5, 1), "width"),
])
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
