"""The atlas figure: one marker per atlas row, ratios at most 1, both residual panels."""

import numpy as np

from attndepth.figures import atlas as atlas_figure
from attndepth.rank.atlas_table import atlas


def test_one_point_per_row_and_ratios_at_most_one(quick_data):
    data = quick_data(atlas_figure)
    assert len(data["rank"]) == len(atlas())
    ratio = np.array(data["rank"]) / np.array(data["bound"])
    assert np.all(ratio <= 1) and np.any(ratio < 1)
    figure = atlas_figure.draw(data)
    assert len(figure.axes) == 2
    assert "at the bound (ticks)" in figure.axes[1].get_title()
