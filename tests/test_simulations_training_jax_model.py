"""The trainable model: its stack is the NumPy stack, and training is seeded and learns."""

import numpy as np
import pytest

from attndepth.simulations.checkpoints import read_checkpoint, write_checkpoint, writer_lock
from attndepth.simulations.models.stacks import StackConfig, iterate_stack
from attndepth.simulations.training.jax_model import (
    TrainingSettings,
    budget_width,
    embed,
    init_params,
    model_states,
    numpy_weights,
    train,
)
from attndepth.simulations.training.tasks import RecallTask

# JAX is part of the test extra (train): missing, these tests fail, never skip
pytestmark = pytest.mark.jax
TASK = RecallTask(pairs=2, keys=4, values=4)


@pytest.mark.parametrize("variant", ["post-ln", "pre-ln", "post-ln-deesc-a", "post-ln-deesc-b"])
def test_model_states_equal_the_numpy_stack_with_the_same_weights(variant):
    config = StackConfig(variant=variant, depth=3, tokens=TASK.length, width=8, heads=2,
                         tau=0.5, ffn=True, causal=True)
    _assert_model_is_the_numpy_stack(config, init_params(config, TASK.vocabulary, seed=3))


def test_the_model_reads_each_blocks_position_for_layernorm_scaling():
    # block l reads LN(X)/sqrt(l): the scan must pass each block its index, not 0
    config = StackConfig(variant="pre-ln", norm_scaling=True, depth=3, tokens=TASK.length,
                         width=8, heads=2, ffn=True)
    _assert_model_is_the_numpy_stack(config, init_params(config, TASK.vocabulary, seed=3))


def _assert_model_is_the_numpy_stack(config, params, batch=5):
    """The JAX model's states equal the NumPy stack's with the same weights (≤ 1e-12)."""
    tokens, _ = TASK.sample(batch, seed=3)
    ours = model_states(config, params, tokens)
    X0 = embed(params, tokens)
    reference = [X0] + [record.outputs for record in
                        iterate_stack(config, numpy_weights(params, batch), X0)]
    assert np.max(np.abs(ours - np.stack(reference))) <= 1e-12 * np.abs(ours).max()


def test_a_composed_block_with_a_user_sublayer_trains_and_moves_to_numpy():
    from attndepth.simulations.models.blocks import Sublayer

    gated = Sublayer("gated", lambda xp, X, w: (X @ w["up"]) / (1 + xp.exp(-(X @ w["gate"]))),
                     lambda d: {"gate": (d, d), "up": (d, d)})
    config = StackConfig(variant="post-ln", skip_scale=2.0, norm_kind="rms", qk_norm=True,
                         depth=2, tokens=TASK.length, width=8, heads=2, sublayer=gated)
    params = init_params(config, TASK.vocabulary, seed=3)
    assert params["gate"].shape == (2, 8, 8)
    _assert_model_is_the_numpy_stack(config, params, batch=4)
    run = train(config, TASK, TrainingSettings(steps=20, batch=8, evaluate_every=10,
                                               evaluation_size=16), seed=0)
    assert not np.array_equal(run.params["gate"], params["gate"].astype(np.float32))


def test_training_is_reproducible_and_learns():
    config = StackConfig(variant="pre-ln", depth=2, tokens=TASK.length, width=16, heads=2)
    settings = TrainingSettings(steps=60, batch=32, learning_rate=1e-2, evaluate_every=30,
                                evaluation_size=128)
    first, again = (train(config, TASK, settings, seed=1) for _ in range(2))
    assert first.validation_loss == again.validation_loss
    assert first.validation_loss[-1] < first.validation_loss[0]
    assert first.validation_accuracy[-1] > TASK.chance
    assert len(first.similarity[-1]) == config.depth + 1
    assert first.as_dict()["t_sim_per_layer"] == first.similarity


def test_training_refuses_a_mismatched_length_and_bad_settings():
    with pytest.raises(ValueError, match="length"):
        train(StackConfig(depth=1, tokens=4, width=4), TASK, TrainingSettings(steps=1), 0)
    with pytest.raises(ValueError, match="learning_rate"):
        TrainingSettings(learning_rate=0.0)


def test_warm_up_starts_from_a_zero_learning_rate():
    # with every step inside the warm-up the first update uses learning rate 0
    config = StackConfig(variant="post-ln", depth=1, tokens=TASK.length, width=8)
    still = train(config, TASK, TrainingSettings(steps=1, batch=8, warmup=10,
                                                 evaluate_every=1), seed=0)
    initial = init_params(config, TASK.vocabulary, seed=0)
    assert np.allclose(still.params["head"], initial["head"].astype(np.float32))


def _small_run():
    config = StackConfig(variant="post-ln", depth=2, tokens=TASK.length, width=8, heads=2)
    settings = TrainingSettings(steps=40, batch=8, learning_rate=1e-2, evaluate_every=10,
                                evaluation_size=16)
    return config, settings


def _checkpoint_at_step_20(tmp_path, monkeypatch):
    """The checkpoint a run killed after step 20 leaves, and the uninterrupted run."""
    from attndepth.simulations.training import jax_model

    config, settings = _small_run()
    whole = train(config, TASK, settings, seed=3)
    path = tmp_path / "run.npz"
    save, saved = jax_model._save_checkpoint, []

    def save_then_die(*args):
        save(*args)
        saved.append(args[1].steps[-1])
        if len(saved) == 2:
            raise KeyboardInterrupt  # killed right after the checkpoint of step 20

    monkeypatch.setattr(jax_model, "_save_checkpoint", save_then_die)
    with pytest.raises(KeyboardInterrupt):
        train(config, TASK, settings, seed=3, checkpoint=path)
    monkeypatch.setattr(jax_model, "_save_checkpoint", save)
    assert saved == [10, 20]
    return path, whole


def test_a_killed_run_resumes_from_its_checkpoint_to_the_same_numbers(tmp_path, monkeypatch):
    path, whole = _checkpoint_at_step_20(tmp_path, monkeypatch)
    config, settings = _small_run()
    resumed = train(config, TASK, settings, seed=3, checkpoint=path)
    assert resumed.steps == [10, 20, 30, 40]
    assert resumed.validation_loss == whole.validation_loss
    assert resumed.similarity == whole.similarity
    assert all(np.array_equal(resumed.params[k], whole.params[k]) for k in whole.params)
    assert not list(tmp_path.glob(".*partial"))  # written by rename: no half files


def test_a_checkpoint_of_another_run_is_refused_and_a_broken_one_restarts(tmp_path):
    config, settings = _small_run()
    path = tmp_path / "run.npz"
    first = train(config, TASK, settings, seed=3, checkpoint=path)
    first_bytes = path.read_bytes()
    with pytest.raises(ValueError, match="belongs to another run"):
        train(config, TASK, settings, seed=4, checkpoint=path)
    with pytest.raises(ValueError, match="is a directory"):
        train(config, TASK, settings, seed=3, checkpoint=tmp_path)
    path.write_bytes(b"not a checkpoint")  # a file of something else: never replaced
    with pytest.raises(ValueError, match="not an attndepth checkpoint.*left untouched"):
        train(config, TASK, settings, seed=3, checkpoint=path)
    assert path.read_bytes() == b"not a checkpoint"
    path.write_bytes(first_bytes[:len(first_bytes) // 2])  # a damaged checkpoint
    (tmp_path / ".run.npz.99999999.partial").write_bytes(b"half")  # its writer is gone
    with pytest.warns(UserWarning, match="unreadable"):
        again = train(config, TASK, settings, seed=3, checkpoint=path)
    assert again.validation_loss == first.validation_loss
    assert not list(tmp_path.glob(".*partial"))



def test_damage_of_any_byte_is_detected_or_harmless(tmp_path, monkeypatch):
    import random
    import warnings

    path, whole = _checkpoint_at_step_20(tmp_path, monkeypatch)
    config, settings = _small_run()
    pristine = path.read_bytes()
    rng = random.Random(0)
    for offset in sorted(rng.sample(range(len(pristine)), 8)):
        damaged = bytearray(pristine)
        damaged[offset] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(damaged))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            resumed = train(config, TASK, settings, seed=3, checkpoint=path)
        assert len([w for w in caught if "unreadable" in str(w.message)]) <= 1, offset
        assert resumed.validation_loss == whole.validation_loss, offset  # never silently wrong
        assert all(np.array_equal(resumed.params[k], whole.params[k]) for k in whole.params)


def test_an_array_of_the_wrong_shape_is_refused_not_broadcast(tmp_path, monkeypatch):
    path, whole = _checkpoint_at_step_20(tmp_path, monkeypatch)
    config, settings = _small_run()
    saved = read_checkpoint(path, "training")
    arrays = dict(saved.arrays)
    name = next(n for n in arrays if n.startswith("state.") and arrays[n].ndim >= 2)
    arrays[name] = arrays[name][:1]  # (2, ...) -> (1, ...): Adam would broadcast it
    write_checkpoint(path, saved.identity, saved.state, arrays)  # a valid checksum
    with pytest.warns(UserWarning, match="wrong shape"):
        resumed = train(config, TASK, settings, seed=3, checkpoint=path)
    assert resumed.validation_loss == whole.validation_loss


def test_a_second_writer_is_refused_and_a_live_writers_file_kept(tmp_path):
    import os

    config, settings = _small_run()
    path = tmp_path / "run.npz"
    live = tmp_path / f".run.npz.{os.getppid()}.partial"  # a running process's half file
    live.write_bytes(b"being written")
    with writer_lock(path, "training"), \
            pytest.raises(ValueError, match="in use by a running training"):
        train(config, TASK, settings, seed=3, checkpoint=path)
    train(config, TASK, settings, seed=3, checkpoint=path)  # the lock is free again
    assert live.read_bytes() == b"being written"
    assert not (tmp_path / ".run.npz.lock").exists()  # removed with the run


def test_budget_width_spends_the_budget_and_refuses_a_coarse_grid():
    assert budget_width(40_000, 48, 2) == 8
    assert budget_width(3_000, 2, 1) == 11
    with pytest.raises(ValueError, match="within 10 %"):
        budget_width(10_000, 32, 2)
    with pytest.raises(ValueError, match="multiple"):
        budget_width(10_000, 2, 0)


def test_a_full_disk_stops_training_at_its_last_good_checkpoint(tmp_path, monkeypatch,
                                                                full_disk):
    from attndepth.errors import DiskFull

    config, settings = _small_run()
    whole = train(config, TASK, settings, seed=3)
    path = tmp_path / "run.npz"
    with monkeypatch.context() as patched:
        full_disk(2, patched)  # steps 10 and 20 saved, 30 not
        with pytest.raises(DiskFull, match="stopped at step 30; the checkpoint of step 20 is kept"):
            train(config, TASK, settings, seed=3, checkpoint=path)
    resumed = train(config, TASK, settings, seed=3, checkpoint=path)
    assert resumed.validation_loss == whole.validation_loss
    assert not list(tmp_path.glob(".*partial"))


def test_a_full_disk_at_the_last_save_returns_the_finished_run(tmp_path, full_disk):
    from attndepth.errors import CheckpointNotSaved

    config, settings = _small_run()
    full_disk(3)
    with pytest.warns(CheckpointNotSaved, match="training is complete"):
        run = train(config, TASK, settings, seed=3, checkpoint=tmp_path / "run.npz")
    assert run.steps == [10, 20, 30, 40]
