"""The uniform-attention recursion behind Noci et al.'s residual scaling."""

import math

import pytest
import sympy as sp

from attndepth.theory.residual_scaling import (
    confirm_finite_width_term,
    confirm_limits,
    confirm_uniform_attention_recursion,
    cosine_from_log_odds,
    finite_width_growth,
    finite_width_term,
    limit_of_growth,
    log_odds_growth,
    residual_scale,
)


@pytest.mark.parametrize("tokens, width", [(2, 1), (3, 2), (4, 3)])
def test_uniform_attention_keeps_the_spread_and_grows_the_mean(tokens, width):
    assert confirm_uniform_attention_recursion(tokens, width)


def test_limits_of_the_three_scalings():
    assert confirm_limits()
    assert limit_of_growth("1/sqrt(L)") == 1 and limit_of_growth("1") == sp.oo


def test_growth_and_scales():
    assert residual_scale("1/sqrt(L)", 16) == 0.25 and residual_scale("1/L", 8) == 0.125
    assert log_odds_growth(10, 1.0) == pytest.approx(10 * math.log(2))
    assert log_odds_growth(100, 0.1) == pytest.approx(100 * math.log(1.01))


@pytest.mark.parametrize("product_weights", [True, False])
def test_the_finite_width_term_follows_from_the_gaussian_moments(product_weights):
    assert confirm_finite_width_term(product_weights)


def test_finite_width_growth_and_its_limit():
    # −1/(d ln 2) relative at α = 1 with product weights, −3/(4d ln 2) with one matrix
    assert finite_width_growth(32, 1.0, 64) == pytest.approx(32 * (math.log(2) - 1 / 64))
    assert finite_width_growth(32, 1.0, 64, product_weights=False) == pytest.approx(
        32 * (math.log(2) - 0.75 / 64))
    # the term stays O(1/d) relative as α → 0: −2/d
    small = finite_width_growth(10, 1e-3, 100) / log_odds_growth(10, 1e-3) - 1
    assert small == pytest.approx(-0.02, rel=1e-3)
    assert finite_width_growth(4, 0.5, 10**9) == pytest.approx(log_odds_growth(4, 0.5))


@pytest.mark.parametrize("product_weights, coefficient", [(True, 1.0), (False, 0.75)])
def test_the_growth_is_the_mean_ratio_less_the_jensen_term(product_weights, coefficient):
    # (**) = L [ln E Y − term]: the term's coefficient of 1/d at α = 1 is the number
    # noci.residual-scaling measures as d × the Jensen gap of the blocks' odds ratios
    assert 64 * finite_width_term(1.0, 64, product_weights) == pytest.approx(coefficient)
    for depth, scale, width in [(1, 0.3, 2), (32, 1.0, 64), (7, 2.5, 9)]:
        assert finite_width_growth(depth, scale, width, product_weights) == pytest.approx(
            log_odds_growth(depth, scale)
            - depth * finite_width_term(scale, width, product_weights))


def test_cosine_of_equal_norm_tokens():
    assert cosine_from_log_odds(-800.0, 5) == pytest.approx(-0.25)  # t_sim = 0: centred tokens
    assert cosine_from_log_odds(50.0, 5) == pytest.approx(1.0)
    assert cosine_from_log_odds(-math.log(4), 5) == pytest.approx(0.0)  # t_sim = 1/n


@pytest.mark.parametrize("call, message", [
    (lambda: residual_scale("2", 4), "scaling"), (lambda: residual_scale("1", 0), "depth"),
    (lambda: log_odds_growth(4, 0.0), "scale"), (lambda: log_odds_growth(4, float("nan")), "scale"),
    (lambda: cosine_from_log_odds(0.0, 1), "tokens"),
    (lambda: finite_width_growth(4, 1.0, 0), "width"),
    (lambda: finite_width_term(0.0, 8), "scale"), (lambda: finite_width_term(1.0, 0), "width"),
])
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_a_weight_structure_that_is_not_a_bool_is_a_type_error():
    with pytest.raises(TypeError, match="product_weights"):
        finite_width_growth(4, 1.0, 8, product_weights="yes")
    with pytest.raises(TypeError, match="product_weights"):
        finite_width_term(1.0, 8, product_weights=1)
