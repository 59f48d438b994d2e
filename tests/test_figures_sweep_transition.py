"""The Experiment B figure: loss against depth per budget, transitions from the theory."""

import numpy as np
import pytest

from attndepth.figures import sweep_transition
from attndepth.figures.registry import write_store_figure
from attndepth.simulations.sweeps.sweep import parse_spec, run_sweep
from attndepth.theory.trained_transition import corrected_knee_law, transition_depth


@pytest.mark.slow
@pytest.mark.jax
def test_figure_from_a_budget_store(tmp_path):
    spec = parse_spec({"measurement": "train", "seeds": [0, 1],
                       "grid": {"budget": [3000, 12000], "depth": [1, 2, 4]},
                       "fixed": {"variant": "pre-ln", "ffn": True, "heads": 1, "pairs": 2,
                                 "steps": 10, "batch": 8, "evaluate_every": 10}})
    store = tmp_path / "b.sqlite"
    run_sweep(spec, store, workers=1, progress=False)
    data = sweep_transition.compute_from_store(store)
    assert data["budget"] == [3000] * 3 + [12000] * 3 and set(data["seeds"]) == {2}
    assert data["width"][:3] == [16, 11, 8]  # √(N/12L) rounded
    assert np.allclose(data["paper"][:3], transition_depth(3000))
    assert np.allclose(data["corrected"][:3], transition_depth(3000, corrected_knee_law(2)))
    from figure_rules import figure_problems

    assert figure_problems(sweep_transition.draw(data)) == []
    names = [path.name for path in write_store_figure(store, tmp_path / "out")]
    assert names == ["sweep_transition.pdf", "sweep_transition.png", "sweep_transition.csv"]


def test_a_store_without_budget_rows_is_refused(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        sweep_transition.compute_from_store(tmp_path / "none.sqlite")
