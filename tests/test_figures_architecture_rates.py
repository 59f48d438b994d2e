"""The architecture figure: its data's shape and the house rules, from made-up data."""

import math

import numpy as np
import pytest

from attndepth.figures.architecture_rates import (
    MAP_ARCHITECTURES,
    MAP_STDS,
    SCATTER,
    architecture_columns,
    draw_architecture_rates,
)
from tests.figure_rules import figure_problems


def _made_up() -> dict[str, list]:
    columns: dict[str, list] = {k: [] for k in ("panel", "architecture", "init_std", "width",
                                                "layer", "measured", "low", "high",
                                                "derived", "unit")}

    def add(**row):
        for key in columns:
            columns[key].append(row.get(key, math.nan))

    for placement, architecture, stds in SCATTER:
        for std in stds:
            for width in (64, 128):
                derived = (width * (std or 0.05) ** 2) ** 2 + 0.01 * width / 64
                add(panel=f"scatter-{placement}", architecture=architecture,
                    init_std=math.nan if std is None else std, width=width,
                    measured=1.05 * derived, low=derived, high=1.1 * derived,
                    derived=derived, unit=0.69 - 1 / width)
    for architecture, level in (("gpt2", -2.0), ("llama", 1.0)):
        for layer in range(33):
            value = level + math.log1p(layer)
            add(panel="curve", architecture=architecture, init_std=0.02, width=128,
                layer=layer, measured=value, low=value - 0.2, high=value + 0.2,
                derived=value + 0.05)
    for architecture in MAP_ARCHITECTURES:
        for i, std in enumerate(MAP_STDS):
            for width in (64, 128, 256):
                error = 0.02 * (i - 2)
                add(panel="map", architecture=architecture, init_std=std, width=width,
                    measured=error, low=error - 0.02 * i, high=error + 0.02)
    return columns


@pytest.fixture(scope="module")
def figure():
    """One drawing for the module's tests (the house's legend placement draws it ~20 times)."""
    return draw_architecture_rates(_made_up())


def test_the_figure_keeps_the_house_rules(figure):
    assert len(figure.axes) == 6
    assert not figure_problems(figure)
    texts = [t.get_text() for t in figure.axes[3].texts]
    assert any(t.endswith("✓") for t in texts) and any(t.endswith("?") for t in texts)


def test_a_size_not_offered_is_refused():
    with pytest.raises(ValueError, match="size must be one of quick, full"):
        architecture_columns("huge")


def test_undecided_cells_of_the_map_stay_blank(figure):
    grid = figure.axes[3].images[0].get_array()
    assert np.ma.count_masked(grid) + np.isnan(np.ma.filled(grid, np.nan)).sum() > 0
