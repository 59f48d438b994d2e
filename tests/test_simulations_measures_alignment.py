"""Log-odds growth and final cosine of seeded stacks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.simulations.measures.alignment import alignment_sample
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
