"""The training-sweep figure: drawn from the store's rows, one curve per variant."""

import numpy as np
import pytest

from attndepth.figures import sweep_training
from attndepth.figures.registry import write_store_figure


@pytest.mark.slow
@pytest.mark.jax
def test_figure_from_a_training_store(tmp_path, training_store):
    store = training_store(depths=[1, 2], steps=10, evaluate_every=10)
    data = sweep_training.compute_from_store(store)
    panel, variant = np.array(data["panel"]), np.array(data["variant"])
    assert sorted(set(variant)) == ["post-ln", "post-ln-deesc-a τ=1"]
    assert np.all(np.array(data["x"])[panel == "loss"] <= 2)
    assert (panel == "similarity").sum() == 2 * 3  # two variants, layers 0..2 of depth 2
    from figure_rules import figure_problems

    from attndepth.figures.style import variant_colour, variant_name

    figure = sweep_training.draw(data)
    assert figure_problems(figure) == []
    right = figure.axes[1]  # the variant's colour of every figure, under its display name
    colours = {line.get_label(): line.get_color() for line in right.get_lines()}
    assert colours == {variant_name(name): variant_colour(name)
                       for name in sorted(set(variant))}
    paths = write_store_figure(store, tmp_path / "out")  # and the curves during training
    assert [p.name for p in paths][:3] == ["sweep_training.pdf", "sweep_training.png",
                                           "sweep_training.csv"]


def test_a_store_without_training_points_is_refused(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        sweep_training.compute_from_store(tmp_path / "none.sqlite")
