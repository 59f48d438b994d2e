"""The trained-beside-initialised figure: its data from profiles, and the house rules."""

import numpy as np

from attndepth.figures.trained_profiles import PANELS, draw_profiles, profile_columns
from tests.figure_rules import figure_problems


class Profile:
    """A profile's surface (:class:`attndepth.pytorch.profiles.LayerProfile`), made up."""

    def __init__(self, model, weights, layers, level):
        self.model, self.weights, self.windows, self.tokens = model, weights, 8, 64
        self.layers, self.level = layers, level

    def summary(self):
        rows = []
        for layer in range(self.layers + 1):
            row = {"layer": layer, "block": f"layers.{layer}"}
            for name, _ in PANELS:
                mean = self.level * (1 + layer / self.layers)
                row[name] = None if layer == 0 and name in ("attention_entropy", "sink_mass",
                                                            "relative_update") \
                    else {"mean": mean, "low": 0.9 * mean, "high": 1.1 * mean}
            rows.append(row)
        return rows


PROFILES = [Profile("minilm-l6", "trained", 6, 0.3),
            Profile("minilm-l6", "initialised (seed 0)", 6, 0.2),
            Profile("smollm2-135m", "trained", 30, 0.5),
            Profile("smollm2-135m", "initialised (seed 0)", 30, 0.4)]


def test_the_data_has_a_row_per_profile_observable_and_defined_layer():
    data = profile_columns(PROFILES)
    assert len(data["model"]) == 2 * (3 * 7 + 3 * 6) + 2 * (3 * 31 + 3 * 30)
    assert set(data["observable"]) == {name for name, _ in PANELS}
    assert np.all(np.array(data["low"]) <= np.array(data["mean"]))


def test_the_figure_keeps_the_house_rules():
    figure = draw_profiles(profile_columns(PROFILES))
    assert len(figure.axes) == 6
    assert not figure_problems(figure)
    xs = np.concatenate([line.get_xdata() for line in figure.axes[0].lines])
    assert xs.min() == 0 and xs.max() == 1  # relative depth: both models span [0, 1]
