"""A block measurement killed at any save resumes to the same numbers; a checkpoint of
another measurement is refused, a damaged one restarts, a finished one returns at once."""

import dataclasses

import numpy as np
import pytest

from attndepth.rank import block_checkpoint, degree_blocks
from attndepth.rank.block_checkpoint import (
    BlockProgress,
    load_progress,
    measurement_identity,
    save_progress,
)
from attndepth.rank.degree_blocks import measure_block_ranks
from attndepth.rank.grids import SeparationRankConfig
from attndepth.theory.separation_rank import degree_block_bounds

CONFIG = SeparationRankConfig(width=3, depth=2, tokens=4, partition="sizes=2/2")
BOUNDS = [block.bound for block in degree_block_bounds(3, 2, 2, 2)]


class Killed(BaseException):
    """Stands for the process being killed right after a save."""


def _numbers(measurement):
    """Everything but the timings."""
    return [(b.degree, b.bound, b.grid, b.rank, b.reason, b.failure_probability)
            for b in measurement.blocks]


@pytest.fixture
def many_saves(monkeypatch):
    """Blocks in memory and in files, many row chunks, a save after every chunk and rank."""
    monkeypatch.setattr(degree_blocks, "BATCH_BYTES", 4 * (29**2 + 26**2) + 8 * 29**2)
    monkeypatch.setattr(degree_blocks, "CHUNK_ENTRIES", 1)
    monkeypatch.setattr(degree_blocks, "CHUNK_PAIRS", 1)
    monkeypatch.setattr(block_checkpoint, "CHECKPOINT_SECONDS", 0.0)


def _kill_after(monkeypatch, saves: int) -> None:
    real, count = block_checkpoint.save_progress, [0]

    def save_then_die(*args, **kwargs):
        real(*args, **kwargs)
        count[0] += 1
        if count[0] == saves:
            raise Killed

    monkeypatch.setattr(block_checkpoint, "save_progress", save_then_die)


def test_a_measurement_killed_after_any_save_resumes_to_the_same_numbers(
        tmp_path, monkeypatch, many_saves):
    whole = measure_block_ranks(CONFIG, BOUNDS, 0)
    real = block_checkpoint.save_progress
    counted = [0]

    def count(*args, **kwargs):
        counted[0] += 1
        real(*args, **kwargs)

    monkeypatch.setattr(block_checkpoint, "save_progress", count)
    measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=tmp_path / "all.npz")
    saves = counted[0]
    assert saves > 2 * len(BOUNDS)  # every chunk and every rank
    for kill in range(1, saves):  # exhaustive: every point a checkpoint is written at
        path = tmp_path / f"killed{kill}.npz"
        _kill_after(monkeypatch, kill)
        with pytest.raises(Killed):
            measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=path)
        monkeypatch.setattr(block_checkpoint, "save_progress", real)
        resumed = measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=path)
        assert _numbers(resumed) == _numbers(whole), kill
    assert not list(tmp_path.glob(".*partial")) and not list(tmp_path.glob(".*lock"))


def test_a_finished_checkpoint_returns_at_once_with_its_timings(tmp_path, monkeypatch):
    path = tmp_path / "done.npz"
    first = measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=path)

    def no_evaluation(*args, **kwargs):
        raise AssertionError("evaluated again")

    monkeypatch.setattr(degree_blocks, "evaluate_blocks", no_evaluation)
    monkeypatch.setattr(degree_blocks, "_rank_block", no_evaluation)
    again = measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=path)
    assert again == first  # the ranks and both timings, as measured the first time


def test_a_checkpoint_of_another_measurement_is_refused(tmp_path):
    path = tmp_path / "seed0.npz"
    measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=path)
    with pytest.raises(ValueError, match="belongs to another measurement"):
        measure_block_ranks(CONFIG, BOUNDS, 1, checkpoint=path)
    with pytest.raises(ValueError, match="belongs to another measurement"):
        measure_block_ranks(CONFIG, BOUNDS, 0, margin=9, checkpoint=path)
    with pytest.raises(ValueError, match="is a directory"):
        measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=tmp_path)
    with pytest.raises(TypeError, match="str or Path"):
        measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=3)


def test_a_damaged_checkpoint_is_warned_about_and_the_measurement_starts_over(
        tmp_path, monkeypatch, many_saves):
    whole = measure_block_ranks(CONFIG, BOUNDS, 0)
    path, real = tmp_path / "run.npz", block_checkpoint.save_progress
    _kill_after(monkeypatch, 5)
    with pytest.raises(Killed):
        measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=path)
    monkeypatch.setattr(block_checkpoint, "save_progress", real)
    damaged = bytearray(path.read_bytes())
    damaged[len(damaged) // 2] ^= 0x10
    path.write_bytes(bytes(damaged))
    with pytest.warns(UserWarning, match="unreadable.*the measurement starts over"):
        again = measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=path)
    assert _numbers(again) == _numbers(whole)


def test_saved_blocks_of_the_wrong_shape_are_a_bug_not_a_restart(tmp_path):
    sizes = [min(bound + 8, 16_384) for bound in BOUNDS]
    identity = measurement_identity(CONFIG.as_dict(), 0, 7, 8, sizes, "e")
    path = tmp_path / "bad.npz"
    save_progress(path, identity, BlockProgress(rows=3, blocks={0: np.zeros(
        (2, 2), dtype=np.int32)}))
    with pytest.raises(ArithmeticError, match="a bug in the saving code"):
        load_progress(path, identity, sizes)
    progress = BlockProgress(ranked={0: {"rank": 1}}, rows=3, blocks={
        a: np.zeros((3, n), dtype=np.int32) for a, n in enumerate(sizes) if a})
    save_progress(path, identity, progress)
    loaded = load_progress(path, identity, sizes)
    assert dataclasses.replace(loaded, blocks={}) == dataclasses.replace(progress, blocks={})
    assert load_progress(tmp_path / "none.npz", identity, sizes) is None


def test_a_full_disk_mid_measurement_stops_it_at_the_last_good_checkpoint(
        tmp_path, monkeypatch, many_saves, full_disk):
    from attndepth.errors import DiskFull

    whole = measure_block_ranks(CONFIG, BOUNDS, 0)
    path = tmp_path / "c.npz"
    count = full_disk(3)
    with pytest.raises(DiskFull, match="last good checkpoint.*same command continues"):
        measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=path)
    assert count[0] == 4
    from attndepth.simulations.checkpoints import read_checkpoint

    kept = read_checkpoint(path, "the test")  # the third save, intact
    assert kept is not None and '"rows": 0,' not in kept.state
    monkeypatch.undo()
    resumed = measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=path)
    assert _numbers(resumed) == _numbers(whole)
    assert not list(tmp_path.glob(".*partial"))


def test_a_full_disk_at_the_final_save_returns_the_finished_measurement(
        tmp_path, monkeypatch, full_disk):
    from attndepth.errors import CheckpointNotSaved

    whole = measure_block_ranks(CONFIG, BOUNDS, 0)
    monkeypatch.setattr(block_checkpoint, "CHECKPOINT_SECONDS", 1e9)  # the final save only
    full_disk(0)
    with pytest.warns(CheckpointNotSaved, match="complete"):
        done = measure_block_ranks(CONFIG, BOUNDS, 0, checkpoint=tmp_path / "c.npz")
    assert _numbers(done) == _numbers(whole)
    assert not (tmp_path / "c.npz").exists() and not list(tmp_path.glob(".*partial"))

