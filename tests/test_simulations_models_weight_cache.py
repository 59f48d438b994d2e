"""Reuse of drawn weights: read-only, least recently used out first, within a byte budget."""

import numpy as np
import pytest

from attndepth.simulations.models import stacks
from attndepth.simulations.models.stacks import StackConfig, draw_softmax_weights
from attndepth.simulations.models.weight_cache import WeightCache


def test_weight_cache_keeps_only_recent_draws_within_its_budget(monkeypatch):
    config = StackConfig(depth=2, tokens=3, width=4)
    one_draw = 2 * 2 * 4 * 4 * 4 * 8  # batch 2, depth 2, four 4 × 4 matrices, float64
    monkeypatch.setattr("attndepth.simulations.models.weight_cache.WEIGHT_CACHE_BYTES",
                        2 * one_draw)
    monkeypatch.setattr("attndepth.simulations.models.stacks.WEIGHTS", WeightCache())
    first = draw_softmax_weights(config, 2, 100)
    draw_softmax_weights(config, 2, 101)
    draw_softmax_weights(config, 2, 102)  # evicts seed 100, the least recent
    again = draw_softmax_weights(config, 2, 100)
    assert again is not first
    np.testing.assert_array_equal(again.projections, first.projections)
    big = draw_softmax_weights(StackConfig(depth=8, width=4), 2, 103)  # over budget: not kept
    assert big.projections.flags.writeable
    assert len(stacks.WEIGHTS) <= 2


def test_a_range_inside_a_kept_draw_is_served_from_it_with_the_same_numbers(monkeypatch):
    config = StackConfig(depth=3, tokens=3, width=4, ffn=True)
    monkeypatch.setattr("attndepth.simulations.models.stacks.WEIGHTS", WeightCache())
    whole = draw_softmax_weights(config, 6, 7)
    for first, batch in ((0, 6), (0, 2), (2, 3), (5, 1)):
        part = draw_softmax_weights(config, batch, 7, first)
        fresh = stacks._draw_softmax_weights(config, batch, 7, first)
        for name in ("projections", "output", "ffn_in", "ffn_out"):
            np.testing.assert_array_equal(getattr(part, name), getattr(fresh, name))
            assert np.shares_memory(getattr(part, name), getattr(whole, name))
    assert len(stacks.WEIGHTS) == 1  # parts are served, not kept
    beyond = draw_softmax_weights(config, 2, 7, 5)  # runs past the kept range: drawn
    assert not np.shares_memory(beyond.output, whole.output)
    other_seed = draw_softmax_weights(config, 2, 8)
    assert not np.shares_memory(other_seed.output, whole.output)


@pytest.mark.parametrize(("start", "stop"), [(-1, 2), (2, 2), (0, 7), ("0", 2), (0, None)])
def test_a_range_outside_the_batch_is_refused_in_one_line(start, stop):
    weights = draw_softmax_weights(StackConfig(depth=2, tokens=3, width=4), 6, 0)
    with pytest.raises((ValueError, TypeError), match="start|stop"):
        weights.stacks(start, stop)
