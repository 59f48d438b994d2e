"""The half point of one attention layer: SymPy, the limit, the rivals and bad input."""

import math

import pytest

from attndepth.theory.attention_scaling import (
    RIVAL_LAWS,
    bare_half_point,
    confirm_half_point,
    critical_gamma,
    half_point,
    overlap_variance,
    rival_ratio,
)


def test_sympy_confirms_the_root_its_limit_and_its_second_order_term():
    assert confirm_half_point() is True


def test_the_half_point_tends_to_the_papers_limit_from_above_as_d_grows():
    bare = bare_half_point(0.5, 1024)
    assert bare == pytest.approx(math.log(1023) * critical_gamma(0.5))
    points = [half_point(0.5, 1024, d) for d in (64, 256, 4096, 10**8)]
    assert all(a > b > bare for a, b in zip(points, points[1:], strict=False))
    assert points[-1] == pytest.approx(bare, rel=1e-6)
    assert overlap_variance(0.0, 8) == pytest.approx(1 / 8) and overlap_variance(0.5, 1) > 0


def test_the_rival_laws_grow_differently_over_n():
    ratios = {law: rival_ratio(law, 32, 1024, 64) for law in RIVAL_LAWS}
    log_ratio = math.log(1023) / math.log(31)
    assert ratios["sqrt(ln n)"] == pytest.approx(math.sqrt(log_ratio))
    assert ratios["(ln n)^2"] == pytest.approx(log_ratio**2)
    assert ratios["n^(2/(d-1))"] == pytest.approx(32 ** (2 / 63))


@pytest.mark.parametrize(("call", "message"), [
    (lambda: critical_gamma(1.0), "overlap must be below 1"),
    (lambda: half_point(0.5, 2, 64), "tokens"),
    (lambda: half_point(0.9, 10**6, 2), "no self-averaging crossing"),
    (lambda: rival_ratio("ln ln n", 32, 64, 8), "law must be one of"),
    (lambda: rival_ratio("sqrt(ln n)", 1, 64, 8), "smallest"),
])
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
