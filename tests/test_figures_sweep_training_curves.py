"""t_sim of every layer during training: one grid per variant at the deepest depth."""

import numpy as np
import pytest

from attndepth.figures import sweep_training_curves
from attndepth.figures.registry import write_store_figure
from attndepth.simulations.sweeps.store import open_store


@pytest.mark.slow
@pytest.mark.jax
def test_curves_from_a_training_store(tmp_path, training_store):
    store = training_store(depths=[1, 3], steps=20, evaluate_every=5)
    data = sweep_training_curves.compute_from_store(store)
    assert set(data["depth"]) == {3} and set(data["step"]) == {5, 10, 15, 20}
    assert set(data["layer"]) == {0, 1, 2, 3} and len(data["t_sim"]) == 2 * 4 * 4
    # the median over the two seeds of the stored curves
    rows = [r for r in open_store(store).rows() if r["config"]["depth"] == 3
            and r["config"]["variant"] == "post-ln"]
    expected = np.median([r["metrics"]["t_sim_curves"] for r in rows], axis=0)
    shown = np.array(data["t_sim"])[np.array(data["variant"]) == "post-ln"].reshape(4, 4)
    assert np.allclose(shown, expected)
    from figure_rules import figure_problems

    assert figure_problems(sweep_training_curves.draw(data)) == []
    names = [path.name for path in write_store_figure(store, tmp_path / "out")]
    assert names == [f"{name}.{ext}" for name in ("sweep_training", "sweep_training_curves")
                     for ext in ("pdf", "png", "csv")]


def test_a_store_without_curves_is_refused(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        sweep_training_curves.compute_from_store(tmp_path / "none.sqlite")
