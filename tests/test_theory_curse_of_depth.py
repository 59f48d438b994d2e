"""The curse of depth at initialisation: the growth laws, their rivals and (**)."""

import math

import pytest

from attndepth.theory.curse_of_depth import (
    confirm_growth_laws,
    confirm_jacobian_law,
    exponential_exponent,
    growth_exponent,
    growth_sum,
    input_scale,
    jacobian_exponent,
    lns_jacobian_ratio,
    power_exponent,
)


def test_sympy_confirms_the_sums_their_limits_and_the_exponential_rival():
    assert confirm_growth_laws() is True


def test_sympy_confirms_the_two_steps_of_the_jacobian_law():
    assert confirm_jacobian_law() is True


def test_pre_ln_grows_linearly_and_lns_logarithmically():
    assert growth_exponent("pre-LN", 16) == 1.0
    harmonic = sum(1 / k for k in range(1, 33)) / sum(1 / k for k in range(1, 17))
    assert growth_exponent("LNS", 16) == pytest.approx(math.log2(harmonic), abs=1e-14)
    # log2 H_2L/H_L falls towards 0 as ln 2/(ln L) does: logarithmic growth
    assert growth_exponent("LNS", 1024) < growth_exponent("LNS", 32) < 0.25
    assert growth_sum(0.5, 4) == pytest.approx(1 + 2**-0.5 + 3**-0.5 + 0.5)


def test_the_rivals_lie_apart_from_the_laws():
    assert power_exponent(0.5, 16) - growth_exponent("LNS", 16) > 0.3  # under LNS_BAND·2
    assert exponential_exponent(26.0) == pytest.approx(math.log2(27.0))


def test_the_jacobian_law_combines_the_input_scale_and_the_variance():
    assert input_scale("pre-LN", 7) == 1.0 and input_scale("LNS", 4) == 0.5
    assert jacobian_exponent("pre-LN", 16, 4.0) == pytest.approx(-1.0)
    assert jacobian_exponent("LNS", 16, 1.0) == pytest.approx(-0.5)
    assert lns_jacobian_ratio(16, 9.0, 1.0) == pytest.approx(0.75)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: input_scale("post-LN", 3), "scaling must be one of"),
    (lambda: input_scale("LNS", 0), "block"),
    (lambda: growth_sum(1.0, 0), "depth"),
    (lambda: exponential_exponent(-1.0), "relative_variance"),
    (lambda: jacobian_exponent("pre-LN", 16, 0.0), "variance_ratio"),
    (lambda: lns_jacobian_ratio(4, float("nan"), 1.0), "pre_variance"),
])
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
