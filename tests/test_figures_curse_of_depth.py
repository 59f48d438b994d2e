"""The curse-of-depth figure draws the claims' sizes; its points lie in the law's range."""

import numpy as np

from attndepth.figures import curse_of_depth


def test_the_growth_lies_in_the_laws_range_and_lns_sits_closer_to_the_identity(quick_data):
    data = quick_data(curse_of_depth)
    scaling = np.array(data["scaling"])
    growth, low, high = (np.array(data[k], dtype=float) for k in ("growth", "low", "high"))
    deep = np.array(data["block"]) >= 8  # past the first blocks, where c_ℓ settles
    assert np.all((growth[deep] > low[deep]) & (growth[deep] < high[deep]))
    pre, lns = (np.array(data["deviation"])[scaling == name] for name in ("pre-LN", "LNS"))
    assert np.all(lns[1:] < pre[1:])  # block 1 reads LN(x)/√1: the same block


def test_the_figure_draws_every_block_the_claims_run(quick_data):
    from attndepth.claims.presets import CURSE_OF_DEPTH

    blocks = quick_data(curse_of_depth)["block"]
    assert max(blocks) == 2 * CURSE_OF_DEPTH["quick"]["depth"] and min(blocks) == 1
