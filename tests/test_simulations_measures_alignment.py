"""Log-odds growth and final cosine of seeded stacks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.simulations.measures.alignment import AlignmentSample, alignment_sample
from attndepth.simulations.models.stacks import StackConfig, run_stack


def test_a_zero_depth_stack_does_not_grow_and_samples_are_reproducible():
    config = StackConfig(variant="residual", depth=0, tokens=6, width=8)
    sample = alignment_sample(config, batch=4, seed=2)
    assert np.all(sample.growth == 0) and sample.growth.shape == (4,)
    again = alignment_sample(StackConfig(variant="residual", depth=3, tokens=6, width=8), 4, 2)
    once = alignment_sample(StackConfig(variant="residual", depth=3, tokens=6, width=8), 4, 2)
    assert np.array_equal(again.growth, once.growth) and again.growth_error > 0


def test_a_small_residual_scale_aligns_less():
    shape = dict(variant="residual", depth=8, tokens=8, width=32, temperature=10.0)
    full, small = (alignment_sample(StackConfig(residual_scale=a, **shape), 16, 0)
                   for a in (1.0, 0.1))
    assert small.mean_growth < full.mean_growth / 10
    assert np.all(full.final_cosine > small.final_cosine)


def test_the_increments_add_up_to_the_growth():
    config = StackConfig(variant="residual", depth=6, tokens=5, width=8, temperature=10.0)
    sample = alignment_sample(config, batch=3, seed=1)
    assert sample.increments.shape == (6, 3)
    assert np.allclose(sample.increments.sum(axis=0), sample.growth, rtol=1e-12, atol=1e-12)


def _lognormal_sample(depth: int, batch: int, sigma: float, seed: int) -> AlignmentSample:
    increments = np.random.default_rng(seed).normal(0.5, sigma, size=(depth, batch))
    zeros = np.zeros(batch)
    return AlignmentSample(growth=increments.sum(axis=0), initial_log_odds=zeros,
                           final_cosine=zeros, increments=increments)


@settings(max_examples=10, deadline=None)
@given(depth=st.integers(2, 40), sigma=st.floats(0.05, 0.3), seed=st.integers(0, 2**31))
def test_the_jensen_gap_of_lognormal_ratios_is_half_their_log_variance(depth, sigma, seed):
    # ln r ~ N(μ, σ²): ln E r − E ln r = σ²/2 exactly. The sample mean of L ratios alone
    # would give (1 − 1/L)σ²/2 on average; the variance term removes that bias to O(σ⁴)
    gap = _lognormal_sample(depth, 20_000, sigma, seed).jensen_gap
    error = 5 * gap.std(ddof=1) / np.sqrt(gap.size)  # a false alarm once in 10⁶ draws
    assert abs(gap.mean() - sigma**2 / 2) < error + sigma**4
    if depth <= 8:  # where the bias (σ²/2L) is resolved, the estimate is not the naive one
        naive = (1 - 1 / depth) * sigma**2 / 2
        assert abs(gap.mean() - sigma**2 / 2) < abs(gap.mean() - naive)


def test_the_jensen_gap_needs_two_blocks_and_survives_saturated_odds():
    with pytest.raises(ValueError, match="at least 2 blocks"):
        _ = _lognormal_sample(1, 4, 0.1, 0).jensen_gap
    huge = _lognormal_sample(3, 4, 0.1, 0)
    saturated = AlignmentSample(huge.growth, huge.initial_log_odds, huge.final_cosine,
                                huge.increments + 1000.0)  # e^1000 overflows a float
    assert np.allclose(saturated.jensen_gap, huge.jensen_gap, rtol=1e-9)


def test_one_token_is_refused():
    with pytest.raises(ValueError, match="2 tokens"):
        alignment_sample(StackConfig(variant="residual", depth=2, tokens=1, width=4), 2, 0)


@settings(max_examples=25, deadline=None)
@given(alpha=st.floats(0.05, 2.0), tokens=st.integers(2, 9), width=st.sampled_from([4, 8, 16]),
       seed=st.integers(0, 2**31))
def test_uniform_attention_keeps_the_spread_exactly(alpha, tokens, width, seed):
    # the recursion behind noci.residual-scaling, on the stacks themselves: at a huge
    # temperature attention is uniform to ~1e-12 and a residual block adds only to the mean
    config = StackConfig(variant="residual", depth=1, tokens=tokens, width=width,
                         temperature=1e12, residual_scale=alpha)
    states = run_stack(config, batch=2, seed=seed).states
    spread = states - states.mean(axis=-2, keepdims=True)
    assert np.allclose(spread[1], spread[0], rtol=0, atol=1e-9 * np.abs(states).max())
