"""Observables: the built-in similarity observable, and user-registered ones."""

import pytest

from attndepth.simulations.sweeps.observables import Parameter, observables, register_observable
from attndepth.simulations.sweeps.store import open_store
from attndepth.simulations.sweeps.sweep import parse_spec, run_sweep

SPEC = {"measurement": "similarity", "seeds": [0],
        "fixed": {"tokens": 6, "width": 8, "depth": 4}}


def test_built_in_observables():
    assert "similarity" in observables()


def test_similarity_measurement_runs_in_the_requested_dtype(tmp_path):
    spec = parse_spec({**SPEC, "grid": {"variant": ["post-ln"], "dtype": ["float64", "float32"]},
                       "fixed": SPEC["fixed"]})
    assert run_sweep(spec, tmp_path / "s.sqlite", workers=1, progress=False).failed == 0
    rows = open_store(tmp_path / "s.sqlite").rows()
    finals = {row["config"]["dtype"]: row["metrics"]["t_sim_final"] for row in rows}
    assert abs(finals["float32"] - finals["float64"]) < 1e-5


def _measure_add(seed: int, a: int, b: int = 1) -> dict:
    return {"sum": a + b + seed}


def test_registered_custom_measurement(tmp_path):
    register_observable("add", _measure_add, {"a": Parameter(int), "b": Parameter(int, 1)})
    spec = parse_spec({"measurement": "add", "grid": {"a": [1, 2]}, "seeds": [5]})
    run_sweep(spec, tmp_path / "s.sqlite", workers=1, progress=False)
    sums = sorted(r["metrics"]["sum"] for r in open_store(tmp_path / "s.sqlite").rows())
    assert sums == [7, 8]


@pytest.mark.slow
@pytest.mark.jax
def test_a_training_sweep_fills_a_store(tmp_path):
    spec = parse_spec({"measurement": "train", "seeds": [0],
                       "grid": {"variant": ["post-ln", "post-ln-deesc-a"]},
                       "fixed": {"depth": 2, "width": 8, "pairs": 2, "steps": 20,
                                 "batch": 16, "evaluate_every": 10}})
    run_sweep(spec, tmp_path / "train.sqlite", workers=1, progress=False)
    rows = open_store(tmp_path / "train.sqlite").rows()
    assert len(rows) == 2 and all(row["metrics"]["steps"] == [10, 20] for row in rows)
    assert all(len(row["metrics"]["t_sim_per_layer"]) == 3 for row in rows)


@pytest.mark.jax
def test_a_training_point_takes_a_width_or_a_budget():
    from attndepth.simulations.sweeps.observables import observe_training

    small = dict(variant="pre-ln", depth=2, pairs=2, steps=4, batch=4, evaluate_every=2,
                 heads=1)
    assert observe_training(seed=0, budget=3000, ffn=True, **small)["width"] == 11
    for width, budget in ((0, 0), (8, 3000)):
        with pytest.raises(ValueError, match="exactly one of width and budget"):
            observe_training(seed=0, width=width, budget=budget, **small)


def test_parameter_schemas_come_from_the_configuration_dataclasses():
    # the same names as before the schemas were derived, so stored points keep their hashes
    from attndepth.simulations.models.stacks import StackConfig
    from attndepth.simulations.training.settings import TrainingSettings

    similarity = observables()["similarity"].parameters
    assert set(similarity) == {"variant", "depth", "tokens", "width", "heads", "tau",
                               "temperature", "dtype", "batch"}
    assert similarity["variant"].default is None  # required
    assert similarity["temperature"] == Parameter(float, StackConfig().temperature)
    train = observables()["train"].parameters
    assert set(train) == {"variant", "depth", "width", "budget", "heads", "tau", "ffn", "pairs",
                          "steps", "batch", "learning_rate", "warmup", "evaluate_every",
                          "evaluation_size"}
    assert train["learning_rate"] == Parameter(float, TrainingSettings().learning_rate)
    assert train["heads"].default == 2 and train["width"].default == 0


def test_a_direct_training_call_takes_the_sweeps_defaults(monkeypatch):
    # a sweep fills every default into a point; a direct call must mean the same run
    from attndepth.simulations.sweeps import observables as module
    from attndepth.simulations.training import jax_model

    seen = {}

    def fake_train(config, task, settings, seed, checkpoint=None):
        seen.update(config=config, settings=settings)
        raise RuntimeError("stop")

    monkeypatch.setattr(jax_model, "train", fake_train)
    with pytest.raises(RuntimeError, match="stop"):
        module.observe_training(seed=0, variant="post-ln", depth=2, width=8)
    assert seen["config"].heads == 2 and seen["settings"].learning_rate == 3e-3


def test_a_misspelt_parameter_is_refused_not_defaulted():
    from attndepth.simulations.sweeps.observables import observe_similarity, observe_training

    with pytest.raises(ValueError, match="no parameter.*widht"):
        observe_similarity(seed=0, variant="post-ln", depth=2, tokens=4, widht=8)
    with pytest.raises(ValueError, match="no parameter.*learning_rat"):
        observe_training(seed=0, variant="post-ln", depth=2, width=8, learning_rat=1e-3)
