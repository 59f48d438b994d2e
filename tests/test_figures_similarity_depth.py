import numpy as np

from attndepth.figures import similarity_depth
from attndepth.simulations.models.stacks import VARIANTS


def test_data_has_every_variant_and_intervals_about_the_mean(quick_data):
    data = quick_data(similarity_depth)
    assert set(data["variant"]) == set(VARIANTS)
    low, mean, high = (np.array(data[k]) for k in ("low", "mean", "high"))
    assert np.all(low <= mean + 1e-15) and np.all(mean <= high + 1e-15)
    assert np.all((mean >= 0) & (mean <= 1))
