"""Checkpoint files: written whole, any damaged byte detected, a dead writer's half file
removed, a live one's kept, a second writer refused."""

import os
import random
import warnings

import numpy as np
import pytest

from attndepth.simulations.checkpoints import (
    checksum,
    read_checkpoint,
    write_checkpoint,
    writer_lock,
)

ARRAYS = {"a": np.arange(12, dtype=np.int32).reshape(3, 4), "b": np.array(2.5)}


def test_what_is_written_is_read_back(tmp_path):
    path = tmp_path / "sub" / "c.npz"
    write_checkpoint(path, "who", '{"step": 3}', ARRAYS)
    saved = read_checkpoint(path, "the test")
    assert (saved.identity, saved.state) == ("who", '{"step": 3}')
    assert saved.arrays.keys() == ARRAYS.keys()
    assert all(np.array_equal(saved.arrays[k], v) and saved.arrays[k].dtype == v.dtype
               for k, v in ARRAYS.items())
    assert read_checkpoint(tmp_path / "none.npz", "the test") is None
    assert not list(path.parent.glob(".*partial"))


def test_the_checksum_sees_names_shapes_and_every_byte():
    base = checksum("i", "s", ARRAYS)
    assert checksum("i", "s", {**ARRAYS, "a": ARRAYS["a"].reshape(4, 3)}) != base
    assert checksum("i", "s", {"c": ARRAYS["a"], "b": ARRAYS["b"]}) != base
    assert checksum("i", "s", {**ARRAYS, "a": ARRAYS["a"] + (ARRAYS["a"] == 7)}) != base
    assert checksum("i", "s", {**ARRAYS, "a": ARRAYS["a"].T.copy().T}) == base  # layout only


def test_a_damaged_byte_is_detected_or_harmless(tmp_path):
    path = tmp_path / "c.npz"
    write_checkpoint(path, "who", "state", ARRAYS)
    pristine = path.read_bytes()
    rng = random.Random(0)
    for offset in rng.sample(range(len(pristine)), 40):
        damaged = bytearray(pristine)
        damaged[offset] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(damaged))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            saved = read_checkpoint(path, "the test")
        if saved is None:
            assert [str(w.message) for w in caught if "the test starts over" in
                    str(w.message) and "unreadable" in str(w.message)], offset
        else:  # a byte nothing reads back (the zip's time stamps, say): the same contents
            assert saved.identity == "who" and saved.state == "state"
            assert all(np.array_equal(saved.arrays[k], v) for k, v in ARRAYS.items())


def test_reserved_names_are_refused(tmp_path):
    with pytest.raises(ValueError, match="reserved"):
        write_checkpoint(tmp_path / "c.npz", "who", "state", {"checksum": np.zeros(1)})


def test_half_files_of_dead_writers_go_and_a_live_writers_stay(tmp_path):
    path = tmp_path / "c.npz"
    dead = tmp_path / ".c.npz.99999999.partial"
    live = tmp_path / f".c.npz.{os.getppid()}.partial"
    dead.write_bytes(b"half")
    live.write_bytes(b"being written")
    assert read_checkpoint(path, "the test") is None
    assert not dead.exists() and live.read_bytes() == b"being written"


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path):
    path = tmp_path / "c.npz"
    with writer_lock(path, "measurement"), \
            pytest.raises(ValueError, match="in use by a running measurement"), \
            writer_lock(path, "measurement"):
        pass
    with writer_lock(path, "measurement"):  # free again
        assert (tmp_path / ".c.npz.lock").read_text() == str(os.getpid())
    assert not (tmp_path / ".c.npz.lock").exists()
