"""The observable catalogue: every entry measures one number per stack, or refuses clearly."""

import numpy as np
import pytest

from attndepth.simulations.measures.catalogue import OBSERVABLES, measure
from attndepth.simulations.models.stacks import StackConfig


@pytest.mark.parametrize("name", sorted(OBSERVABLES))
def test_every_observable_gives_one_finite_number_per_stack(name):
    config = (StackConfig(variant="residual", depth=24, tokens=6, width=8) if name ==
              "collapse_rate" else StackConfig(variant="post-ln", depth=40, tokens=6, width=8))
    values = measure(name, config, 3, 1)
    assert values.shape == (3,) and np.all(np.isfinite(values))
    assert OBSERVABLES[name].description


def test_values_are_what_their_names_say():
    config = StackConfig(variant="post-ln", depth=96, tokens=8, width=32)
    assert np.all(np.abs(measure("t_sim_final", config, 2, 0) - 1) < 1e-6)
    assert abs(measure("log_odds_slope", config, 8, 0).mean() - 0.67) < 0.04  # the rate
    shallow = StackConfig(variant="post-ln", depth=1, tokens=8, width=32)
    s2 = measure("attention_s2", shallow, 2, 0)
    assert np.all((0 <= s2) & (s2 <= 1))
    ranks = measure("stable_rank_final", shallow, 2, 0)
    assert np.all((1 <= ranks) & (ranks <= 8))


def test_an_unknown_or_impossible_observable_is_a_clear_error():
    with pytest.raises(ValueError, match="did you mean log_odds_slope"):
        measure("log_odds_slop", StackConfig(), 1, 0)
    with pytest.raises(ValueError, match="deepen the stack"):
        measure("log_odds_slope", StackConfig(depth=2, tokens=4, width=8), 2, 0)
    with pytest.raises(ValueError, match="depth must be >= 1"):
        measure("attention_s2", StackConfig(depth=0, tokens=4, width=8), 2, 0)
