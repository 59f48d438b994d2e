"""The associative-recall task: well-formed, seeded, split by stream."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.simulations.training.tasks import RecallTask


@given(pairs=st.integers(1, 6), extra_keys=st.integers(0, 5), values=st.integers(2, 9),
       size=st.integers(1, 40), seed=st.integers(0, 2**31))
def test_sequences_are_well_formed(pairs, extra_keys, values, size, seed):
    task = RecallTask(pairs=pairs, keys=pairs + extra_keys, values=values)
    tokens, targets = task.sample(size, seed)
    assert tokens.shape == (size, 2 * pairs + 1) and targets.shape == (size,)
    keys, vals, query = tokens[:, 0:-1:2], tokens[:, 1:-1:2], tokens[:, -1]
    assert np.all(keys < task.keys) and np.all(vals >= task.keys)
    assert np.all(vals < task.vocabulary)
    for row in range(size):
        assert len(set(keys[row])) == pairs  # distinct keys
        position = list(keys[row]).index(query[row])
        assert targets[row] == vals[row, position]


def test_splits_are_reproducible_and_different():
    task = RecallTask()
    train, again = task.sample(100, 7, "train"), task.sample(100, 7, "train")
    validation = task.sample(100, 7, "validation")
    assert np.array_equal(train[0], again[0]) and not np.array_equal(train[0], validation[0])
    assert task.length == 9 and task.chance == 1 / 16


@pytest.mark.parametrize("kwargs, message", [
    (dict(pairs=0), "pairs"), (dict(pairs=5, keys=4), "distinct keys"), (dict(values=1), "values"),
])
def test_bad_tasks_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RecallTask(**kwargs)


def test_bad_samples_are_refused():
    with pytest.raises(ValueError, match="split"):
        RecallTask().sample(4, 0, "test")
    with pytest.raises(ValueError, match="size"):
        RecallTask().sample(0, 0)


def test_the_standard_task_has_four_keys_per_pair_and_sixteen_values():
    assert RecallTask.standard(3) == RecallTask(pairs=3, keys=12, values=16)
