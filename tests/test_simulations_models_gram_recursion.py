"""The Gram recursion: kernels against closed forms and sampling, the map against its
exact cases and against the aligned laws of the theory."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, ndtr

from attndepth.simulations.models.gram_recursion import (
    ACTIVATIONS,
    BlockGains,
    activation_kernel,
    gram_log_odds,
    gram_log_odds_of,
    start_gram,
)
from attndepth.theory.architecture_rates import aligned_rate, preln_law_expression


@given(v=st.floats(0.05, 4.0), rho=st.floats(-0.99, 0.99))
def test_the_relu_kernel_is_the_arc_cosine_kernel(v, rho):
    expected = v / (2 * math.pi) * (math.sqrt(1 - rho * rho) + (math.pi - math.acos(rho)) * rho)
    assert activation_kernel("relu", v)(np.array(rho)) == pytest.approx(expected, abs=2e-4 * v)
    kernel = activation_kernel("relu", v)
    assert kernel.at_one == pytest.approx(v / 2) and kernel.slope_at_one == pytest.approx(v / 2)


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_each_kernel_agrees_with_sampling(activation):
    """K(ρ) against a Monte Carlo mean of φ(a)φ(b) (4·10⁶ pairs), and K′(1) against the
    table's own difference quotient."""
    v, bias, up = 0.6, 0.1, 0.5
    kernel = activation_kernel(activation, v, bias, up if activation == "swiglu" else 0.0)
    rng = np.random.default_rng(0)
    rho = 0.4
    a, noise = rng.standard_normal((2, 4_000_000))
    cov = (rho * v + bias) / (v + bias)
    b = cov * a + math.sqrt(1 - cov * cov) * noise
    scale = math.sqrt(v + bias)
    name = "silu" if activation == "swiglu" else activation
    phi = {"relu": lambda z: np.maximum(z, 0.0), "gelu": lambda z: z * ndtr(z),
           "gelu_tanh": lambda z: 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi)
                                                           * (z + 0.044715 * z**3))),
           "silu": lambda z: z * expit(z)}[name]
    sampled = float(np.mean(phi(scale * a) * phi(scale * b)))
    if activation == "swiglu":
        sampled *= rho * up
    assert kernel(np.array(rho)) == pytest.approx(sampled, rel=0.01, abs=1e-4)
    step = 2 / (len(kernel.rho) - 1)
    quotient = (kernel.values[-1] - kernel.values[-2]) / step
    assert kernel.slope_at_one == pytest.approx(quotient, rel=0.02)


@settings(max_examples=25)
@given(beta2=st.floats(1e-3, 3.0), tokens=st.integers(2, 24), width=st.integers(4, 2048),
       t0=st.floats(0.05, 0.95))
def test_uniform_attention_alone_raises_post_ln_log_odds_by_exactly_ln_1_plus_k_beta2(
        beta2, tokens, width, t0):
    gains = BlockGains(placement="post", norm_kind="layer", causal=False, attention_gain=beta2)
    odds = gram_log_odds(gains, tokens=tokens, width=width, depth=5, start_similarity=t0)
    assert np.diff(odds) == pytest.approx(math.log1p((1 - 1 / width) * beta2), rel=1e-9)


def test_aligned_post_ln_increments_are_the_theory_s_aligned_rate():
    """From nearly aligned tokens, each block of attention and GELU FFN raises the
    log-odds by ln(1 + kβ²) + ln(1 + kγ_m) − ln(1 + kγ_d): the recursion and the theory's
    aligned rate (less its O(1/d) fluctuation terms, which the recursion leaves out)."""
    width, sigma2 = 1024, 0.02**2
    gains = BlockGains(placement="post", norm_kind="layer", causal=False,
                       attention_gain=(width * sigma2) ** 2, activation="gelu",
                       ffn_output_gain=4 * width * sigma2, preactivation_variance=width * sigma2)
    odds = gram_log_odds(gains, tokens=16, width=width, depth=3, start_similarity=1 - 1e-6)
    mean, deviation = gains.ffn_gains()
    keep = 1 - 1 / width
    leading = (math.log1p(keep * gains.attention_gain) + math.log1p(keep * mean)
               - math.log1p(keep * deviation))
    assert np.diff(odds) == pytest.approx(leading, rel=1e-3)
    assert aligned_rate(0.0, width, gains.attention_gain, mean, deviation) == pytest.approx(
        leading, rel=0.01)


def test_aligned_pre_ln_log_odds_follow_the_logarithmic_law():
    """Attention alone (κ = 1) from aligned tokens: λ(L) − λ(0) = ln(1 + A L/σ₀) to the
    discreteness of the blocks."""
    beta2, width, depth, start = 0.02, 256, 96, 0.05
    gains = BlockGains(placement="pre", norm_kind="rms", causal=False, attention_gain=beta2,
                       input_scale=start)
    odds = gram_log_odds(gains, tokens=8, width=width, depth=depth, start_similarity=0.999)
    law = preln_law_expression()
    symbols = {str(s): s for s in law.free_symbols}
    predicted = float(law.subs({symbols["lambda_0"]: 0, symbols["A"]: beta2, symbols["B"]: 0,
                                symbols["sigma_0"]: start, symbols["ell"]: depth}))
    assert odds[-1] - odds[0] == pytest.approx(predicted, rel=0.02)
    assert np.all(np.diff(odds, 2) < 0)  # it decelerates


def test_bidirectional_attention_keeps_the_gram_exchangeable_and_causal_does_not():
    common = {"norm_kind": "layer", "attention_gain": 0.5, "activation": "gelu",
              "ffn_output_gain": 0.4, "preactivation_variance": 0.4}
    for causal in (False, True):
        gains = BlockGains(placement="pre", causal=causal, **common)
        odds = gram_log_odds(gains, tokens=6, width=64, depth=4, start_similarity=0.3)
        assert np.all(np.isfinite(odds)) and odds[-1] > odds[0]
    g = start_gram(6, 0.3)
    assert gram_log_odds_of(g) == pytest.approx(math.log(0.3 / 0.7))


def test_predictions_far_past_alignment_stay_finite():
    gains = BlockGains(placement="post", norm_kind="layer", causal=False, attention_gain=50.0)
    odds = gram_log_odds(gains, tokens=4, width=32, depth=400, start_similarity=0.5)
    assert np.all(np.isfinite(odds))


@pytest.mark.parametrize("call, match", [
    (lambda: activation_kernel("tanh", 1.0), "activation"),
    (lambda: activation_kernel("relu", 0.0), "variance"),
    (lambda: activation_kernel("swiglu", 1.0), "up_variance"),
    (lambda: BlockGains(placement="peri", norm_kind="layer", causal=False,
                        attention_gain=1.0), "placement"),
    (lambda: BlockGains(placement="post", norm_kind="layer", causal=False,
                        attention_gain=1.0, input_scale=0.0), "input_scale"),
    (lambda: start_gram(1, 0.5), "tokens"),
    (lambda: start_gram(4, 1.5), "start_similarity"),
])
def test_bad_input_is_refused_in_one_line(call, match):
    with pytest.raises(ValueError, match=match):
        call()
