"""Log-odds growth and final cosine of seeded stacks."""

import numpy as np
import pytest

from attndepth.simulations.alignment import alignment_sample
from attndepth.simulations.stacks import StackConfig


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
