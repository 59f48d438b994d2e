"""Training groups on a process pool give the runs of one process, in the given order."""

import pytest

from attndepth.simulations.models.stacks import StackConfig
from attndepth.simulations.sweeps.training_pool import TrainingGroup, train_groups
from attndepth.simulations.training.jax_model import TrainingSettings, train
from attndepth.simulations.training.tasks import RecallTask

pytestmark = pytest.mark.jax
TASK = RecallTask(pairs=2, keys=4, values=4)
SETTINGS = TrainingSettings(steps=20, batch=8, learning_rate=1e-2, evaluate_every=10,
                            evaluation_size=16)


def _group(variant: str, depth: int) -> TrainingGroup:
    config = StackConfig(variant=variant, depth=depth, tokens=TASK.length, width=8, heads=2)
    return TrainingGroup(config, TASK, SETTINGS, (0, 1))


@pytest.mark.slow
def test_two_workers_give_the_numbers_of_one_process_in_order():
    groups = [_group("post-ln", 1), _group("pre-ln", 3)]  # the second is costlier: runs first
    pooled = train_groups(groups, workers=2)
    assert [[run.config.variant for run in runs] for runs in pooled] == [
        ["post-ln", "post-ln"], ["pre-ln", "pre-ln"]]
    for group, runs in zip(groups, pooled, strict=True):
        for seed, run in zip(group.seeds, runs, strict=True):
            alone = train(group.config, TASK, SETTINGS, seed)
            assert run.seed == seed and run.validation_loss == alone.validation_loss
            assert run.params is None  # curves only


def test_bad_groups_are_refused():
    with pytest.raises(ValueError, match="at least one seed"):
        TrainingGroup(_group("post-ln", 1).config, TASK, SETTINGS, ())
    with pytest.raises(ValueError, match="workers"):
        train_groups([_group("post-ln", 1)], workers=0)
    assert train_groups([]) == []


def test_the_last_experiment_is_remembered_not_trained_twice(monkeypatch):
    from attndepth.simulations.sweeps import training_pool

    calls = []

    def fake_train_groups(groups, workers=None):
        calls.append(len(groups))
        return [[f"run of {group.config.depth}"] for group in groups]

    monkeypatch.setattr(training_pool, "train_groups", fake_train_groups)
    training_pool._remembered.cache_clear()
    groups = [_group("post-ln", 1), _group("pre-ln", 2)]
    first = training_pool.train_groups_once(groups)
    again = training_pool.train_groups_once(list(groups))  # equal groups: the same runs
    assert first == again == [["run of 1"], ["run of 2"]] and calls == [2]
    training_pool.train_groups_once([_group("post-ln", 3)])  # another experiment trains
    assert calls == [2, 1]
    training_pool._remembered.cache_clear()


def test_groups_that_are_not_training_groups_are_refused():
    from attndepth.errors import InvalidType
    from attndepth.simulations.sweeps.training_pool import train_groups_once

    for call in (train_groups, train_groups_once):
        with pytest.raises(InvalidType, match="TrainingGroup"):
            call([1, 2])
