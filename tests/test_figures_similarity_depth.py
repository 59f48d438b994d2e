import numpy as np

from attndepth.figures import similarity_depth
from attndepth.simulations.models.stacks import VARIANTS


def test_data_has_every_variant_and_ordered_quantiles(quick_data):
    data = quick_data(similarity_depth)
    assert set(data["variant"]) == set(VARIANTS)
    q10, median, q90 = (np.array(data[k]) for k in ("q10", "median", "q90"))
    assert np.all(q10 <= median + 1e-15) and np.all(median <= q90 + 1e-15)
    assert np.all((median >= 0) & (median <= 1))
