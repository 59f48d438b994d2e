"""Collapse rates of pure attention stacks under masks."""

import numpy as np
import pytest

from attndepth.simulations.measures.collapse import collapse_sample
from attndepth.simulations.models.stacks import StackConfig


def test_rates_are_reproducible_and_epsilon_is_an_allowed_weight():
    config = StackConfig(variant="pure", depth=12, tokens=8, width=16, window=3)
    first, again = (collapse_sample(config, 4, seed=7) for _ in range(2))
    assert np.array_equal(first.rates, again.rates) and 0 < first.epsilon < 1 / 3
    assert first.rate_error > 0


def test_window_of_one_does_not_collapse():
    # attention to itself only: P = I, the tokens never move towards each other
    # (the random value maps still move the log-odds about: the rate is 0 within its error)
    sample = collapse_sample(StackConfig(variant="pure", depth=12, tokens=6, width=8,
                                         window=1), 32, seed=0)
    assert abs(sample.mean_rate) <= 3 * sample.rate_error and sample.epsilon == 1.0


@pytest.mark.parametrize("kwargs, message", [(dict(tokens=1), "2 tokens"),
                                             (dict(depth=3), "skip")])
def test_bad_input_is_refused(kwargs, message):
    config = StackConfig(**(dict(variant="pure", depth=10, tokens=6, width=8) | kwargs))
    with pytest.raises(ValueError, match=message):
        collapse_sample(config, 2, seed=0)
