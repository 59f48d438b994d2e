"""The escalation laws derived from a configuration: special cases, proofs, numbers."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.theory.architecture_rates import (
    aligned_rate,
    aligned_rate_expression,
    confirm_homogeneous_ffn_neutral,
    confirm_preln_law,
    confirm_unit_scale_special_case,
    preln_law_coefficient,
    preln_law_expression,
)
from attndepth.theory.similarity import postln_rate


def test_the_proofs_hold():
    assert confirm_unit_scale_special_case()
    assert confirm_homogeneous_ffn_neutral()
    assert confirm_preln_law()


@given(s=st.floats(0, 0.9), width=st.integers(2, 4096), kind=st.sampled_from(["layer", "rms"]))
def test_unit_gain_without_ffn_is_the_unit_scale_rate(s, width, kind):
    assert aligned_rate(s, width, 1.0, norm_kind=kind) == pytest.approx(
        postln_rate(s, width, norm_kind=kind), rel=1e-12, abs=1e-12)


@given(gain=st.floats(1e-4, 10), width=st.integers(8, 4096))
def test_the_ffn_adds_the_log_of_its_gains_ratio(gain, width):
    keep = 1 - 1 / width
    without = aligned_rate(0.0, width, gain)
    with_ffn = aligned_rate(0.0, width, gain, 0.3, 0.5)
    assert with_ffn - without == pytest.approx(math.log1p(0.3 * keep) - math.log1p(0.5 * keep))


def test_bert_large_width_at_its_initialisation():
    """BERT at d = 1024, σ = 0.02 (β² = (d σ²)²): the attention alone gives ln(1 + kβ²) less
    its O(β²/d) fluctuation terms, 0.1548; the unit-scale rate is 0.692."""
    beta2 = (1024 * 0.02**2) ** 2
    assert aligned_rate(0.0, 1024, beta2) == pytest.approx(0.1548, abs=1e-4)
    assert postln_rate(0.0, 1024) == pytest.approx(0.6922, abs=1e-4)


def test_the_expressions_name_their_symbols():
    names = {str(symbol) for symbol in aligned_rate_expression().free_symbols}
    assert names == {"s", "d", "beta", "gamma_m", "gamma_d"}
    assert {str(symbol) for symbol in preln_law_expression().free_symbols} == {
        "lambda_0", "A", "B", "ell", "sigma_0"}


def test_the_preln_coefficient():
    assert preln_law_coefficient(0.1, 0.1, 0.05) == pytest.approx(0.75)
    assert preln_law_coefficient(0.1, 0.0, 0.0, s=0.5) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="no law"):
        preln_law_coefficient(0.0, 0.0, 0.1)


@pytest.mark.parametrize("call, match", [
    (lambda: aligned_rate(0.0, 1, 1.0), "width"),
    (lambda: aligned_rate(-0.1, 64, 1.0), "s must"),
    (lambda: aligned_rate(0.0, 64, 0.0), "attention_gain"),
    (lambda: aligned_rate(0.0, 64, 1.0, -1.0), "mean_gain"),
    (lambda: aligned_rate(0.0, 64, 1.0, 0.0, math.nan), "deviation_gain"),
    (lambda: preln_law_coefficient(0.1, 0.1, -0.1), "deviation_gain"),
])
def test_bad_input_is_refused_in_one_line(call, match):
    with pytest.raises(ValueError, match=match):
        call()
